// cl_source.cpp — the OpenCL C generator (see cl_source.h).
//
// Exactness rules (DESIGN.md "Semantics, decided once"), and how the device
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
//     with storage.h's conversions rewritten on the bits (as_uint / as_float).
#include "cl_source.h"

#include <opframe/introspect.h>

namespace opfcl {

namespace {

constexpr unsigned kF32 = kNeedFp32 | kNeedDenorm32;
constexpr unsigned kF64 = kNeedFp64 | kNeedDenorm64 | kNeedInt64;

// Indexed by OPF_KT_*; the layouts are the host's C structs (LP64).
const TypeInfo kTypes[OPF_KT_COUNT] = {
    /* INT8    */ {Cat::Int, "char", "uint", "", 1, 1, 0},
    /* UINT8   */ {Cat::Int, "uchar", "uint", "", 1, 1, 0},
    /* INT16   */ {Cat::Int, "short", "uint", "", 2, 2, 0},
    /* UINT16  */ {Cat::Int, "ushort", "uint", "", 2, 2, 0},
    /* INT32   */ {Cat::Int, "int", "uint", "", 4, 4, 0},
    /* UINT32  */ {Cat::Int, "uint", "uint", "", 4, 4, 0},
    /* INT64   */ {Cat::Int, "long", "ulong", "", 8, 8, kNeedInt64},
    /* UINT64  */ {Cat::Int, "ulong", "ulong", "", 8, 8, kNeedInt64},
    /* INT128  */ {},
    /* FLOAT16 */ {Cat::Half, "ushort", "float", "", 2, 2, kNeedFp32},
    /* BF16    */ {Cat::BFloat16, "ushort", "float", "", 2, 2, kF32},
    /* FLOAT   */ {Cat::Real, "float", "float", "", 4, 4, kF32},
    /* DOUBLE  */ {Cat::Real, "double", "double", "", 8, 8, kF64},
    /* LDOUBLE */ {},
    /* FLT128  */ {},
    /* CFLOAT  */ {Cat::Complex, "opf_cfloat", "float", "", 8, 4, kF32},
    /* CDOUBLE */ {Cat::Complex, "opf_cdouble", "double", "", 16, 8, kF64},
    /* CLDBL   */ {},
    /* FLOAT_INT  */ {Cat::Pair, "opf_float_int", "float", "int", 8, 4, kF32},
    /* DOUBLE_INT */ {Cat::Pair, "opf_double_int", "double", "int", 16, 8, kF64},
    /* LONG_INT   */ {Cat::Pair, "opf_long_int", "long", "int", 16, 8, kNeedInt64},
    /* 2INT       */ {Cat::Pair, "opf_2int", "int", "int", 8, 4, 0},
    /* SHORT_INT  */ {Cat::Pair, "opf_short_int", "short", "int", 8, 4, 0},
    /* LDBL_INT   */ {},
    /* 2FLOAT     */ {Cat::Pair, "opf_2float", "float", "float", 8, 4, kF32},
    /* 2DOUBLE    */ {Cat::Pair, "opf_2double", "double", "double", 16, 8, kF64},
};
static_assert(sizeof(long) == 8, "LONG_INT is laid out as {long (64-bit); int;} (LP64)");

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

// Indexed by OPF_OPID_*; REPLACE and NO_OP are copies (no template).
const Template kTemplates[OPF_OPID_COUNT] = {
    nullptr, tpl_max, tpl_min, tpl_sum, tpl_prod, tpl_land, tpl_band, tpl_lor, tpl_bor,
    tpl_lxor, tpl_bxor, tpl_maxloc, tpl_minloc, nullptr, nullptr};

// ---- the prelude: layouts and the helpers of semantics.h / storage.h --------

const char kPreludeCommon[] = R"CL(
#pragma OPENCL FP_CONTRACT OFF
typedef struct { float re; float im; } opf_cfloat;
typedef struct { float value; int index; } opf_float_int;
typedef struct { int value; int index; } opf_2int;
typedef struct { short value; int index; } opf_short_int;
typedef struct { float value; float index; } opf_2float;
)CL";

const char kPreludeInt64[] = R"CL(
typedef struct { long value; int index; } opf_long_int;
)CL";

const char kPreludeFp64[] = R"CL(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef struct { double re; double im; } opf_cdouble;
typedef struct { double value; int index; } opf_double_int;
typedef struct { double value; double index; } opf_2double;
)CL";

// float16 <-> float, bit for bit as base/storage.h (round to nearest even).
const char kPreludeHalf[] = R"CL(
float opf_h2f(ushort h)
{
    uint sign = (uint)(h & 0x8000u) << 16;
    uint e = (h >> 10) & 0x1fu;
    uint m = h & 0x3ffu;
    if (e == 0x1fu) return as_float(sign | 0x7f800000u | (m << 13));     /* inf / NaN, payload kept */
    if (e != 0u) return as_float(sign | ((e + 112u) << 23) | (m << 13)); /* normal */
    if (m == 0u) return as_float(sign);                                  /* signed zero */
    return as_float(sign | as_uint((float)m * 0x1p-24f));                /* subnormal: exact, normal in float */
}
ushort opf_f2h(float f)
{
    uint x = as_uint(f);
    uint sign = (x >> 16) & 0x8000u;
    uint a = x & 0x7fffffffu;
    if (a > 0x7f800000u) return (ushort)(sign | 0x7e00u | ((a >> 13) & 0x1ffu));   /* NaN: quiet */
    if (a >= 0x477ff000u) return (ushort)(sign | 0x7c00u);                         /* overflow: inf */
    if (a >= 0x38800000u) {                                                        /* normal half */
        uint mant = a & 0x7fffffu;
        uint h = (((a >> 23) - 112u) << 10) | (mant >> 13);
        uint rest = mant & 0x1fffu;
        if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h += 1u;
        return (ushort)(sign | h);
    }
    /* below 2^-14: a multiple of 2^-24 (half subnormal), rounded to nearest
     * even on the integer bits; below 2^-25 it is zero */
    uint e = a >> 23;
    if (e < 102u) return (ushort)sign;
    uint m = (a & 0x7fffffu) | 0x800000u;
    uint s = 126u - e;                       /* 14 .. 24 */
    uint q = m >> s;
    uint rest = m & ((1u << s) - 1u);
    uint tie = 1u << (s - 1u);
    if (rest > tie || (rest == tie && (q & 1u))) q += 1u;
    return (ushort)(sign | q);
}
)CL";

const char kPreludeBFloat16[] = R"CL(
float opf_b2f(ushort b) { return as_float((uint)b << 16); }
ushort opf_f2b(float f)
{
    uint x = as_uint(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (ushort)((x >> 16) | 0x0040u);   /* NaN: quiet */
    return (ushort)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);                      /* nearest even */
}
)CL";

// MAX / MIN of an ordered value type (semantics.h max_value / min_value), and
// "is NaN" for the pair rule.
std::string ordered_helpers(const char *V, bool real)
{
    const std::string T = V;
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

} // namespace

const TypeInfo &type_info(int kt) { return kt >= 0 && kt < OPF_KT_COUNT ? kTypes[kt] : kNone; }

bool op_defined(int op_id, int kt)
{
    if (op_id <= OPF_OPID_NULL || op_id >= OPF_OPID_COUNT || kt < 0 || kt >= OPF_KT_COUNT) return false;
    if (is_copy_op(op_id)) return true;
    const TypeInfo &t = kTypes[kt];
    if (t.cat == Cat::None) return false;
    return !kTemplates[op_id](t).empty();
}

std::string kernel_name(int kt, int nbuf)
{
    const char *name = opf_kernel_type_name(kt);
    return std::string(nbuf == 2 ? "opf2_" : "opf3_") + (name ? name : "?");
}

std::string program_source(int op_id, const std::vector<int> &kts, const Features &f)
{
    std::string src = "/* opframe: ";
    src += opf_op_name(OPF_OP_HANDLE_(op_id)) ? opf_op_name(OPF_OP_HANDLE_(op_id)) : "?";
    src += " */\n";
    src += kPreludeCommon;
    if (f.have & kNeedInt64) src += kPreludeInt64;
    if (f.have & kNeedFp64) src += kPreludeFp64;
    bool half = false, bf16 = false;
    for (int kt : kts) {
        half |= kTypes[kt].cat == Cat::Half;
        bf16 |= kTypes[kt].cat == Cat::BFloat16;
    }
    if (half) src += kPreludeHalf;
    if (bf16) src += kPreludeBFloat16;
    // Ordered helpers for every value type the program's kernels may call.
    for (const char *v : {"char", "uchar", "short", "ushort", "int", "uint"}) src += ordered_helpers(v, false);
    if (f.have & kNeedInt64)
        for (const char *v : {"long", "ulong"}) src += ordered_helpers(v, false);
    src += ordered_helpers("float", true);
    if (f.have & kNeedFp64) src += ordered_helpers("double", true);

    const Template tpl = kTemplates[op_id];
    for (int kt : kts) {
        const TypeInfo &t = kTypes[kt];
        const std::string T = t.cl, name = opf_kernel_type_name(kt);
        src += "\n" + T + " opf_apply_" + name + "(" + T + " a, " + T + " b)\n{\n    " + tpl(t) + "\n}\n";
        src += "__kernel void " + kernel_name(kt, 2) +
               "(__global const uchar *a, ulong ao, __global uchar *b, ulong bo, ulong n)\n{\n"
               "    size_t i = get_global_id(0);\n    if (i >= n) return;\n"
               "    __global const " + T + " *x = (__global const " + T + " *)(a + ao);\n"
               "    __global " + T + " *y = (__global " + T + " *)(b + bo);\n"
               "    y[i] = opf_apply_" + name + "(x[i], y[i]);\n}\n";
        // out may be in1 or in2: each element is read before it is written.
        src += "__kernel void " + kernel_name(kt, 3) +
               "(__global const uchar *a, ulong ao, __global const uchar *b, ulong bo, __global uchar *c, ulong co, "
               "ulong n)\n{\n"
               "    size_t i = get_global_id(0);\n    if (i >= n) return;\n"
               "    __global const " + T + " *x = (__global const " + T + " *)(a + ao);\n"
               "    __global const " + T + " *y = (__global const " + T + " *)(b + bo);\n"
               "    __global " + T + " *z = (__global " + T + " *)(c + co);\n"
               "    z[i] = opf_apply_" + name + "(x[i], y[i]);\n}\n";
    }
    return src;
}

} // namespace opfcl
