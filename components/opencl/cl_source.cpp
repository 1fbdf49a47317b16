// cl_source.cpp — the OpenCL C generator (see cl_source.h).
//
// Exactness rules (docs/design.md, Semantics), and how the device
// code keeps them:
//   * no contraction: `#pragma OPENCL FP_CONTRACT OFF` (OpenCL C's default is
//     ON), and the build never passes -cl-fast-relaxed-math, -cl-mad-enable,
//     -cl-finite-math-only, -cl-no-signed-zeros or -cl-denorms-are-zero;
//   * denormals: a float (double) type is offered only where the device's
//     CL_DEVICE_SINGLE (DOUBLE)_FP_CONFIG has CL_FP_DENORM; float16 does not
//     need float denormals (its values and their sums and products are normal
//     floats), bfloat16 does (same exponent range as float);
//   * integers wrap: arithmetic in the unsigned type (8 and 16 bits in uint,
//     where C's promotion to int would overflow ushort * ushort);
//   * MAX/MIN: NaN wins, +0 beats -0 (the base's max_value / min_value, not fmax);
//   * float16 / bfloat16: widen to float, compute, round once to nearest even,
//     with storage.h's conversions rewritten statement for statement (as_uint /
//     as_float for bit_cast); test/opencl_source pins them on all 2^16 patterns;
//   * data bytes only: pairs are loaded and stored field by field, copies of
//     types with padding copy their data byte ranges (base::data_layout).
//
// What is not restated here: the type list and the op list (base/type_list.h:
// TypeInfo is derived from each KernelTypes entry, the templates are looked up
// by op functor, op_defined is the functor's `defined`).
#include "cl_source.h"

#include <array>
#include <set>
#include <type_traits>
#include <utility>

#include <opframe/introspect.h>

#include "base/type_list.h"

namespace opfcl {

namespace {

namespace ob = opf::base;

constexpr unsigned kF32 = kNeedFp32 | kNeedDenorm32;
constexpr unsigned kF64 = kNeedFp64 | kNeedDenorm64 | kNeedInt64;

// ---- the kernel types, from base/type_list.h --------------------------------
// OpenCL C has C's fixed-size integers, float and double; nothing of 16 bytes.
template <class S> constexpr const char *cl_scalar()
{
    if constexpr (std::is_same_v<S, float>) return "float";
    else if constexpr (std::is_same_v<S, double>) return "double";
    else if constexpr (ob::is_integer<S> && sizeof(S) <= 8) {
        constexpr int k = sizeof(S) == 1 ? 0 : sizeof(S) == 2 ? 1 : sizeof(S) == 4 ? 2 : 3;
        constexpr const char *sign[] = {"char", "short", "int", "long"}, *unsign[] = {"uchar", "ushort", "uint", "ulong"};
        return std::is_signed_v<S> ? sign[k] : unsign[k];
    } else {
        return nullptr;
    }
}
template <class S> constexpr unsigned scalar_needs()
{
    if constexpr (std::is_same_v<S, float>) return kF32;
    else if constexpr (std::is_same_v<S, double>) return kF64;
    else return sizeof(S) == 8 ? kNeedInt64 : 0u;
}

// Why a kernel type without an OpenCL C form gets no kernels: decided per
// nature (type_description.h), so that a type of a nature decided nowhere
// here fails the build, and each reason is said at init.
template <class T> constexpr const char *not_generated_reason()
{
    constexpr ob::Nature n = ob::nature_of<T>();
    if constexpr (n == ob::Nature::Narrow) return "8-bit floats: no OpenCL C source for them yet";
    else if constexpr (n == ob::Nature::Block) return "block formats: no OpenCL C source for them yet";
    else if constexpr (n == ob::Nature::Integer || n == ob::Nature::Real || n == ob::Nature::Complex || n == ob::Nature::Pair)
        return "OpenCL C has no type that wide: 128-bit integers, long double, binary128";
    else static_assert(ob::no_rule_for<T>, "cl_source: a kernel type of a nature the OpenCL generator has not decided on");
}

template <class T> TypeInfo describe()
{
    TypeInfo t;
    t.extent = int(sizeof(T));
    t.align = int(alignof(T));
    t.true_end = int(ob::data_end<T>);
    t.layout = ob::data_layout<T>;
    t.dense = t.layout.dense(sizeof(T));
    if constexpr (std::is_same_v<T, ob::Half> || std::is_same_v<T, ob::BFloat16>) {
        const bool half = std::is_same_v<T, ob::Half>;
        t.cat = half ? Cat::Half : Cat::BFloat16;
        t.cl = "ushort";
        t.arith = "float";
        // float16 values, sums and products are normal floats; bfloat16's are not
        t.needs = half ? kNeedFp32 : kF32;
    } else if constexpr (cl_scalar<T>() != nullptr) {
        t.cat = ob::is_integer<T> ? Cat::Int : Cat::Real;
        t.cl = cl_scalar<T>();
        t.arith = !ob::is_integer<T> ? t.cl : sizeof(T) <= 4 ? "uint" : "ulong";   // wrap in unsigned
        t.needs = scalar_needs<T>();
    } else if constexpr (ob::is_complex<T>) {
        using R = decltype(T::re);
        if constexpr (cl_scalar<R>() != nullptr) {
            t.cat = Cat::Complex;
            t.arith = cl_scalar<R>();
            t.cl = "opf_c" + t.arith;
            t.needs = scalar_needs<R>();
        }
    } else if constexpr (ob::is_pair<T>) {
        using V = decltype(T::value);
        using I = decltype(T::index);
        if constexpr (cl_scalar<V>() != nullptr && cl_scalar<I>() != nullptr) {
            t.cat = Cat::Pair;
            t.arith = cl_scalar<V>();
            t.index = cl_scalar<I>();
            t.cl = "opf_pair_" + t.arith + "_" + t.index;
            t.needs = scalar_needs<V>() | scalar_needs<I>();
        }
    }
    if (t.cat == Cat::None) t.not_generated = not_generated_reason<T>();
    return t;
}

template <std::size_t... K> std::array<TypeInfo, OPF_KT_COUNT> describe_all(std::index_sequence<K...>)
{
    return {describe<ob::at_t<K, ob::KernelTypes>>()...};
}
const std::array<TypeInfo, OPF_KT_COUNT> &types()
{
    static const auto t = describe_all(std::make_index_sequence<OPF_KT_COUNT>{});
    return t;
}

// (op, kernel type) slots, from each op functor's `defined` (and is_supported:
// the base has no int128 / float128 slot where the compiler lacks the type).
template <std::size_t O, std::size_t... K> constexpr std::array<bool, OPF_KT_COUNT> defined_row(std::index_sequence<K...>)
{
    return {(ob::at_t<O, ob::Ops>::template defined<ob::at_t<K, ob::KernelTypes>> &&
             ob::is_supported<ob::at_t<K, ob::KernelTypes>>)...};
}
template <std::size_t... O> constexpr auto defined_table(std::index_sequence<O...>)
{
    return std::array<std::array<bool, OPF_KT_COUNT>, OPF_OPID_COUNT>{
        defined_row<O>(std::make_index_sequence<OPF_KT_COUNT>{})...};
}
constexpr auto kDefined = defined_table(std::make_index_sequence<OPF_OPID_COUNT>{});

const TypeInfo kNone{};

bool is_narrow(Cat c) { return c == Cat::Half || c == Cat::BFloat16; }

std::string widen(const TypeInfo &t, const char *x)
{
    return std::string(t.cat == Cat::Half ? "opf_h2f(" : "opf_b2f(") + x + ")";
}
std::string narrow(const TypeInfo &t, const std::string &x)
{
    return std::string(t.cat == Cat::Half ? "opf_f2h(" : "opf_f2b(") + x + ")";
}

// ---- the templates: one per op, a body per category ------------------------
// Each returns the body of `T opf_apply_<TYPE>(T a, T b)` (a = in, the left
// operand; b = inout), or "" where the op is not defined on the type.

using Template = std::string (*)(const TypeInfo &t);

std::string tpl_max_min(const TypeInfo &t, bool is_max)
{
    const char *f = is_max ? "opf_max_" : "opf_min_";
    if (t.cat == Cat::Int || t.cat == Cat::Real) return std::string("return ") + f + t.cl + "(a, b);";
    if (is_narrow(t.cat)) return "return " + narrow(t, std::string(f) + "float(" + widen(t, "a") + ", " + widen(t, "b") + ")") + ";";
    return "";
}
std::string tpl_max(const TypeInfo &t) { return tpl_max_min(t, true); }
std::string tpl_min(const TypeInfo &t) { return tpl_max_min(t, false); }

std::string tpl_sum_prod(const TypeInfo &t, bool is_sum)
{
    const std::string T = t.cl, U = t.arith, op = is_sum ? " + " : " * ";
    switch (t.cat) {
    case Cat::Int: return "return (" + T + ")((" + U + ")a" + op + "(" + U + ")b);";
    case Cat::Real: return "return a" + op + "b;";
    case Cat::Half:
    case Cat::BFloat16: return "return " + narrow(t, widen(t, "a") + op + widen(t, "b")) + ";";
    case Cat::Complex:
        if (is_sum) return T + " r; r.re = a.re + b.re; r.im = a.im + b.im; return r;";
        // (a+bi)(c+di) = (ac-bd) + (ad+bc)i, as written (FP_CONTRACT OFF)
        return T + " r; r.re = a.re * b.re - a.im * b.im; r.im = a.re * b.im + a.im * b.re; return r;";
    default: return "";
    }
}
std::string tpl_sum(const TypeInfo &t) { return tpl_sum_prod(t, true); }
std::string tpl_prod(const TypeInfo &t) { return tpl_sum_prod(t, false); }

// Logical ops: non-zero is true, the result 1 or 0; bitwise ops as in C.
std::string tpl_int_only(const TypeInfo &t, const char *expr)
{
    return t.cat == Cat::Int ? std::string("return (") + t.cl + ")(" + expr + ");" : "";
}
std::string tpl_land(const TypeInfo &t) { return tpl_int_only(t, "(a != 0) & (b != 0)"); }
std::string tpl_lor(const TypeInfo &t) { return tpl_int_only(t, "(a != 0) | (b != 0)"); }
std::string tpl_lxor(const TypeInfo &t) { return tpl_int_only(t, "(a != 0) != (b != 0)"); }
std::string tpl_band(const TypeInfo &t) { return tpl_int_only(t, "a & b"); }
std::string tpl_bor(const TypeInfo &t) { return tpl_int_only(t, "a | b"); }
std::string tpl_bxor(const TypeInfo &t) { return tpl_int_only(t, "a ^ b"); }

// MAXLOC / MINLOC (semantics.h OpLoc): the value as MAX / MIN; on equal
// values, or two NaNs, the smaller index; a lone NaN brings its own index.
std::string tpl_loc(const TypeInfo &t, bool is_max)
{
    if (t.cat != Cat::Pair) return "";
    const std::string V = t.arith, T = t.cl, cmp = is_max ? " > " : " < ";
    return "if (a.value" + cmp + "b.value) return a;\n"
           "    if (b.value" + cmp + "a.value) return b;\n"
           "    if (opf_isnan_" + V + "(a.value) != opf_isnan_" + V + "(b.value)) return opf_isnan_" + V + "(a.value) ? a : b;\n"
           "    " + T + " r; r.value = opf_" + (is_max ? "max_" : "min_") + V + "(a.value, b.value);\n"
           "    r.index = b.index < a.index ? b.index : a.index;\n"
           "    return r;";
}
std::string tpl_maxloc(const TypeInfo &t) { return tpl_loc(t, true); }
std::string tpl_minloc(const TypeInfo &t) { return tpl_loc(t, false); }

// AVG of two (semantics.h OpAvg, k = 2): integers the exact mean toward
// zero, as floor((a+b)/2) = (a>>1) + (b>>1) + (a&b&1) moved up when negative
// and odd (no overflow at any width); reals (a + b) * 0.5, which rounds as
// the base's (a + b) / 2 (halving is exact or rounds alike, and OpenCL's
// division need not round correctly); narrow types as base::MeanAcc: both
// scaled by 2^-6 in float, summed, halved, scaled back, rounded once.
std::string tpl_avg(const TypeInfo &t)
{
    const std::string T = t.cl;
    switch (t.cat) {
    case Cat::Int:
        return T + " h = (" + T + ")((a >> 1) + (b >> 1) + (a & b & 1));\n"
               "    if (h < 0 && ((a ^ b) & 1)) h += 1;\n    return h;";
    case Cat::Real: return "return (a + b) * (" + T + ")0.5;";
    case Cat::Half:
    case Cat::BFloat16: {
        return "return " + narrow(t, "(" + widen(t, "a") + " * 0x1p-6f + " + widen(t, "b") + " * 0x1p-6f) * 0.5f * 0x1p6f") +
               ";";
    }
    case Cat::Complex: {
        const std::string P = t.arith;
        return T + " r; r.re = (a.re + b.re) * (" + P + ")0.5; r.im = (a.im + b.im) * (" + P + ")0.5; return r;";
    }
    default: return "";
    }
}

// The template of each op functor of base/type_list.h's Ops; none for OpNull
// and for the copies (REPLACE, NO_OP).
template <class Op> constexpr Template template_for = nullptr;
template <> constexpr Template template_for<ob::OpMax> = &tpl_max;
template <> constexpr Template template_for<ob::OpMin> = &tpl_min;
template <> constexpr Template template_for<ob::OpSum> = &tpl_sum;
template <> constexpr Template template_for<ob::OpProd> = &tpl_prod;
template <> constexpr Template template_for<ob::OpLand> = &tpl_land;
template <> constexpr Template template_for<ob::OpBand> = &tpl_band;
template <> constexpr Template template_for<ob::OpLor> = &tpl_lor;
template <> constexpr Template template_for<ob::OpBor> = &tpl_bor;
template <> constexpr Template template_for<ob::OpLxor> = &tpl_lxor;
template <> constexpr Template template_for<ob::OpBxor> = &tpl_bxor;
template <> constexpr Template template_for<ob::OpMaxloc> = &tpl_maxloc;
template <> constexpr Template template_for<ob::OpMinloc> = &tpl_minloc;
template <> constexpr Template template_for<ob::OpAvg> = &tpl_avg;

template <std::size_t... O> constexpr std::array<Template, OPF_OPID_COUNT> templates(std::index_sequence<O...>)
{
    return {template_for<ob::at_t<O, ob::Ops>>...};
}
constexpr auto kTemplates = templates(std::make_index_sequence<OPF_OPID_COUNT>{});
// Every op of the base's list has its OpenCL template, or is a copy.
template <std::size_t... O> constexpr bool every_op_covered(std::index_sequence<O...>)
{
    return ((kTemplates[O] != nullptr || O == OPF_OPID_NULL || is_copy_op(int(O))) && ...);
}
static_assert(every_op_covered(std::make_index_sequence<OPF_OPID_COUNT>{}),
              "an op of base/type_list.h's Ops has no OpenCL C template");

// ---- the prelude: layouts and the helpers of semantics.h / storage.h --------

// float16 <-> float: base/storage.h's to_float(Half) and to_half, statement
// for statement (round to nearest even).
const char kPreludeHalf[] = R"CL(
float opf_h2f(ushort h)
{
    uint sign = (uint)(h & 0x8000u) << 16;
    uint exp = (h >> 10) & 0x1fu;
    uint mant = h & 0x3ffu;
    if (exp == 0x1fu) return as_float(sign | 0x7f800000u | (mant << 13));     /* inf / NaN, payload kept */
    if (exp != 0u) return as_float(sign | ((exp + 112u) << 23) | (mant << 13)); /* normal */
    if (mant == 0u) return as_float(sign);                                     /* signed zero */
    float magnitude = (float)mant * 0x1p-24f;                                  /* subnormal: exact in float */
    return as_float(sign | as_uint(magnitude));
}
ushort opf_f2h(float f)
{
    uint x = as_uint(f);
    ushort sign = (ushort)((x >> 16) & 0x8000u);
    uint a = x & 0x7fffffffu;
    if (a > 0x7f800000u) return (ushort)(sign | 0x7e00u | ((a >> 13) & 0x1ffu));   /* NaN: quiet */
    if (a >= 0x477ff000u) return (ushort)(sign | 0x7c00u);                         /* rounds to >= 65520: inf */
    if (a >= 0x38800000u) {                                                        /* normal half (>= 2^-14) */
        uint mant = a & 0x7fffffu;
        uint exp = (a >> 23) - 112u;
        uint h = (exp << 10) | (mant >> 13);
        uint rest = mant & 0x1fffu;                /* 13 dropped bits: nearest even */
        h += (rest > 0x1000u) || (rest == 0x1000u && (h & 1u));
        return (ushort)(sign | h);                 /* a carry into the exponent is correct */
    }
    /* subnormal or zero: scale so that one half-ulp (2^-24) is 1.0, round to nearest even */
    float scaled = as_float(a) * 0x1p24f;          /* exact (power of two) */
    uint q = (uint)scaled;
    float frac = scaled - (float)q;
    q += (frac > 0.5f) || (frac == 0.5f && (q & 1u));
    return (ushort)(sign | q);                     /* q == 0x400 becomes the smallest normal */
}
)CL";

// bfloat16 <-> float: base/storage.h's to_float(BFloat16) and to_bfloat16.
const char kPreludeBFloat16[] = R"CL(
float opf_b2f(ushort b) { return as_float((uint)b << 16); }
ushort opf_f2b(float f)
{
    uint x = as_uint(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (ushort)((x >> 16) | 0x0040u);   /* NaN: quiet */
    uint round = 0x7fffu + ((x >> 16) & 1u);                                      /* nearest even */
    return (ushort)((x + round) >> 16);
}
)CL";

// MAX / MIN of an ordered value type (semantics.h max_value / min_value), and
// "is NaN" for the pair rule.
std::string ordered_helpers(const std::string &T, bool real)
{
    if (!real)
        return T + " opf_max_" + T + "(" + T + " a, " + T + " b) { return a < b ? b : a; }\n" +
               T + " opf_min_" + T + "(" + T + " a, " + T + " b) { return b < a ? b : a; }\n" +
               "int opf_isnan_" + T + "(" + T + " a) { return 0; }\n";
    return T + " opf_max_" + T + "(" + T + " a, " + T + " b)\n{\n"
               "    if (a > b) return a;\n    if (b > a) return b;\n"
               "    if (isnan(a)) return a;\n    if (isnan(b)) return b;\n"
               "    return signbit(a) ? b : a;\n}\n" +
           T + " opf_min_" + T + "(" + T + " a, " + T + " b)\n{\n"
               "    if (a < b) return a;\n    if (b < a) return b;\n"
               "    if (isnan(a)) return a;\n    if (isnan(b)) return b;\n"
               "    return signbit(a) ? a : b;\n}\n" +
           "int opf_isnan_" + T + "(" + T + " a) { return isnan(a); }\n";
}

// The element struct of a complex or pair type, with a compile-time check
// that the device lays it out as the host does.
std::string struct_of(const TypeInfo &t)
{
    const std::string fields = t.cat == Cat::Complex ? t.arith + " re; " + t.arith + " im;"
                                                     : t.arith + " value; " + t.index + " index;";
    return "typedef struct { " + fields + " } " + t.cl + ";\n"
           "typedef char " + t.cl + "_has_the_host_layout[sizeof(" + t.cl + ") == " + std::to_string(t.extent) +
           " ? 1 : -1];\n";
}

// Element access: every byte of a dense element, the fields of a pair (its
// padding is not data, and the last element's may lie past the buffer).
std::string access_of(const TypeInfo &t, const std::string &name)
{
    const std::string T = t.cl;
    if (t.dense)
        return T + " opf_load_" + name + "(__global const " + T + " *p) { return *p; }\n"
               "void opf_store_" + name + "(__global " + T + " *p, " + T + " v) { *p = v; }\n";
    return T + " opf_load_" + name + "(__global const " + T + " *p) { " + T +
           " v; v.value = p->value; v.index = p->index; return v; }\n"
           "void opf_store_" + name + "(__global " + T + " *p, " + T + " v) { p->value = v.value; p->index = v.index; }\n";
}

// REPLACE / NO_OP on a type with padding: its data byte ranges, element by element.
std::string copy_kernels(int op_id, int kt, const TypeInfo &t)
{
    const std::string name = opf_kernel_type_name(kt), ext = std::to_string(t.extent);
    std::string copy = "void opf_copy_" + name + "(__global const uchar *s, __global uchar *d)\n{\n";
    for (int r = 0; r < t.layout.count; ++r) {
        const std::size_t from = t.layout.range[r].offset, to = from + t.layout.range[r].size;
        copy += "    for (int k = " + std::to_string(from) + "; k < " + std::to_string(to) + "; ++k) d[k] = s[k];\n";
    }
    copy += "}\n";
    const bool replace = op_id == OPF_OPID_REPLACE;
    return copy +
           // 2-buffer: REPLACE: inout = in; NO_OP: nothing (never launched).
           "__kernel void " + kernel_name(kt, 2) + "(__global const uchar *a, ulong ao, __global uchar *b, ulong bo, ulong n)\n{\n"
           "    size_t i = get_global_id(0);\n    if (i >= n) return;\n" +
           (replace ? "    opf_copy_" + name + "(a + ao + i * " + ext + ", b + bo + i * " + ext + ");\n" : "") +
           "}\n"
           // 3-buffer: out = in1 (REPLACE) or in2 (NO_OP).
           "__kernel void " + kernel_name(kt, 3) +
           "(__global const uchar *a, ulong ao, __global const uchar *b, ulong bo, __global uchar *c, ulong co, ulong n)\n{\n"
           "    size_t i = get_global_id(0);\n    if (i >= n) return;\n"
           "    opf_copy_" + name + "(" + (replace ? "a + ao" : "b + bo") + " + i * " + ext + ", c + co + i * " + ext + ");\n}\n";
}

std::string arith_kernels(int op_id, int kt, const TypeInfo &t)
{
    const std::string T = t.cl, name = opf_kernel_type_name(kt);
    std::string src = "\n" + T + " opf_apply_" + name + "(" + T + " a, " + T + " b)\n{\n    " + kTemplates[op_id](t) + "\n}\n";
    src += access_of(t, name);
    const std::string load = "opf_load_" + name, store = "opf_store_" + name, apply = "opf_apply_" + name;
    src += "__kernel void " + kernel_name(kt, 2) +
           "(__global const uchar *a, ulong ao, __global uchar *b, ulong bo, ulong n)\n{\n"
           "    size_t i = get_global_id(0);\n    if (i >= n) return;\n"
           "    __global const " + T + " *x = (__global const " + T + " *)(a + ao);\n"
           "    __global " + T + " *y = (__global " + T + " *)(b + bo);\n"
           "    " + store + "(y + i, " + apply + "(" + load + "(x + i), " + load + "(y + i)));\n}\n";
    // out may be in1 or in2: each element is read before it is written.
    src += "__kernel void " + kernel_name(kt, 3) +
           "(__global const uchar *a, ulong ao, __global const uchar *b, ulong bo, __global uchar *c, ulong co, "
           "ulong n)\n{\n"
           "    size_t i = get_global_id(0);\n    if (i >= n) return;\n"
           "    __global const " + T + " *x = (__global const " + T + " *)(a + ao);\n"
           "    __global const " + T + " *y = (__global const " + T + " *)(b + bo);\n"
           "    __global " + T + " *z = (__global " + T + " *)(c + co);\n"
           "    " + store + "(z + i, " + apply + "(" + load + "(x + i), " + load + "(y + i)));\n}\n";
    return src;
}

} // namespace

const TypeInfo &type_info(int kt) { return kt >= 0 && kt < OPF_KT_COUNT ? types()[kt] : kNone; }

bool op_defined(int op_id, int kt)
{
    if (op_id <= OPF_OPID_NULL || op_id >= OPF_OPID_COUNT || kt < 0 || kt >= OPF_KT_COUNT) return false;
    if (!kDefined[op_id][kt]) return false;
    return is_copy_op(op_id) || types()[kt].cat != Cat::None;
}

std::string kernel_name(int kt, int nbuf)
{
    const char *name = opf_kernel_type_name(kt);
    return std::string(nbuf == 2 ? "opf2_" : "opf3_") + (name ? name : "?");
}

std::string program_prelude(const std::vector<int> &kts, const Features &f)
{
    std::string src = "#pragma OPENCL FP_CONTRACT OFF\n";
    if (f.have & kNeedFp64) src += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
    bool half = false, bf16 = false;
    std::set<std::string> structs;
    std::set<std::pair<std::string, bool>> ordered;   // value types of MAX / MIN / MAXLOC / MINLOC
    for (int kt : kts) {
        const TypeInfo &t = type_info(kt);
        half |= t.cat == Cat::Half;
        bf16 |= t.cat == Cat::BFloat16;
        if ((t.cat == Cat::Complex || t.cat == Cat::Pair) && structs.insert(t.cl).second) src += struct_of(t);
        if (t.cat == Cat::Int || t.cat == Cat::Real) ordered.insert({t.cl, t.cat == Cat::Real});
        if (t.cat == Cat::Pair) ordered.insert({t.arith, t.arith == "float" || t.arith == "double"});
        if (is_narrow(t.cat)) ordered.insert({"float", true});
    }
    if (half) src += kPreludeHalf;
    if (bf16) src += kPreludeBFloat16;
    for (const auto &[type, real] : ordered) src += ordered_helpers(type, real);
    return src;
}

std::string program_source(int op_id, const std::vector<int> &kts, const Features &f)
{
    std::string src = "/* opframe: ";
    src += ob::op_names[op_id];
    src += " */\n";
    if (is_copy_op(op_id)) {   // copies of types with padding: no arithmetic
        for (int kt : kts) src += copy_kernels(op_id, kt, type_info(kt));
        return src;
    }
    src += program_prelude(kts, f);
    for (int kt : kts) src += arith_kernels(op_id, kt, type_info(kt));
    return src;
}

} // namespace opfcl
