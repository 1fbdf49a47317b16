// cuda_ops.h — the cuda component's element types and op functors, usable on
// the host and on the device (nvcc), and by a plain C++ compiler (the host
// half only; test/cuda_semantics.cpp checks it against the base).
//
// Each functor restates base/semantics.h for the kernel types a GPU computes
// exactly; the rules (DESIGN.md, "Semantics, decided once") are:
//   * integers wrap (arithmetic in the unsigned type of the promoted operand);
//   * MAX/MIN: NaN in either operand gives NaN, max(-0, +0) = +0,
//     min(-0, +0) = -0 (so not fmaxf / fminf, which drop a NaN);
//   * complex PROD is (ac - bd) + (ad + bc)i with every product and sum
//     rounded on its own: __fmul_rn / __fadd_rn on the device (never fused),
//     and the file is compiled with -fmad=false and -ffp-contract=off too;
//   * float16 / bfloat16 are widened to float, computed, rounded once to
//     nearest even (__float2half_rn / __float2bfloat16_rn: any NaN becomes the
//     canonical NaN 0x7fff, which compares equal to the base's quieted NaN);
//   * LAND / LOR / LXOR give 1 or 0; MAXLOC / MINLOC: value as MAX / MIN, on
//     equal values (or two NaNs) the smaller index, a lone NaN keeps its index.
// Not computed here: int128, long double, float128 and their complex / pair
// types (no exact GPU arithmetic); REPLACE and NO_OP are byte copies done by
// the component with cudaMemcpy and serve every kernel type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <vector_types.h>
#include <opframe/component.h>

#if defined(__CUDACC__)
#define OPF_CUDA_HD __host__ __device__ __forceinline__
#else
#define OPF_CUDA_HD inline
#endif

namespace opf_cuda {

// ---- storage (same layout as base/storage.h: plain structs of the C types) ----
struct Half { uint16_t bits; };
struct BFloat16 { uint16_t bits; };
template <class R> struct Complex { R re, im; };
template <class V, class I> struct Pair { V value; I index; };
struct NotOnGpu {};   // a kernel type the GPU does not compute

template <class... T> struct TypeList { static constexpr std::size_t size = sizeof...(T); };
template <std::size_t I, class List> struct At;
template <std::size_t I, class H, class... T> struct At<I, TypeList<H, T...>> : At<I - 1, TypeList<T...>> {};
template <class H, class... T> struct At<0, TypeList<H, T...>> { using type = H; };
template <std::size_t I, class List> using at_t = typename At<I, List>::type;

// Indexed by OPF_KT_* (component.h).
using KernelTypes = TypeList<
    int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t,
    NotOnGpu /* INT128 */,
    Half, BFloat16, float, double, NotOnGpu /* LONG_DOUBLE */, NotOnGpu /* FLOAT128 */,
    Complex<float>, Complex<double>, NotOnGpu /* C_LONG_DOUBLE_COMPLEX */,
    Pair<float, int>, Pair<double, int>, Pair<long, int>, Pair<int, int>,
    Pair<short, int>, NotOnGpu /* LONG_DOUBLE_INT */, Pair<float, float>, Pair<double, double>>;
static_assert(KernelTypes::size == OPF_KT_COUNT, "KernelTypes must follow the OPF_KT_* enum");

// ---- categories ---------------------------------------------------------------
template <class T> inline constexpr bool is_integer = std::is_integral_v<T> && !std::is_same_v<T, bool>;
template <class T> inline constexpr bool is_narrow = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
template <class T> inline constexpr bool is_real = std::is_floating_point_v<T> || is_narrow<T>;
template <class T> inline constexpr bool is_complex = false;
template <class R> inline constexpr bool is_complex<Complex<R>> = true;
template <class T> inline constexpr bool is_pair = false;
template <class V, class I> inline constexpr bool is_pair<Pair<V, I>> = true;
template <class T> inline constexpr bool is_ordered = is_integer<T> || is_real<T>;
template <class T> inline constexpr bool is_arithmetic = is_ordered<T> || is_complex<T>;

// ---- scalar helpers --------------------------------------------------------------
template <class T> struct WrapOf { using type = std::make_unsigned_t<decltype(+T{})>; };
template <class T> using Wrap = typename WrapOf<T>::type;

template <class T> OPF_CUDA_HD bool is_nan(T x) { return x != x; }

template <class T> OPF_CUDA_HD bool sign_bit(T x)
{
    using U = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
    static_assert(sizeof(T) == sizeof(U), "float or double");
    U u;
    std::memcpy(&u, &x, sizeof u);
    return (u >> (8 * sizeof u - 1)) != 0;
}

// MAX / MIN of base/semantics.h: NaN wins, +0 beats -0 for MAX, -0 for MIN.
template <class T> OPF_CUDA_HD T max_value(T a, T b)
{
    if constexpr (is_integer<T>) {
        return a < b ? b : a;
    } else {
        if (a > b) return a;
        if (b > a) return b;
        if (is_nan(a)) return a;
        if (is_nan(b)) return b;
        return sign_bit(a) ? b : a;
    }
}
template <class T> OPF_CUDA_HD T min_value(T a, T b)
{
    if constexpr (is_integer<T>) {
        return b < a ? b : a;
    } else {
        if (a < b) return a;
        if (b < a) return b;
        if (is_nan(a)) return a;
        if (is_nan(b)) return b;
        return sign_bit(a) ? a : b;
    }
}

// Products and sums rounded one by one (never contracted into an FMA).
OPF_CUDA_HD float mul_rn(float x, float y)
{
#if defined(__CUDA_ARCH__)
    return __fmul_rn(x, y);
#else
    return x * y;
#endif
}
OPF_CUDA_HD double mul_rn(double x, double y)
{
#if defined(__CUDA_ARCH__)
    return __dmul_rn(x, y);
#else
    return x * y;
#endif
}
OPF_CUDA_HD float add_rn(float x, float y)
{
#if defined(__CUDA_ARCH__)
    return __fadd_rn(x, y);
#else
    return x + y;
#endif
}
OPF_CUDA_HD double add_rn(double x, double y)
{
#if defined(__CUDA_ARCH__)
    return __dadd_rn(x, y);
#else
    return x + y;
#endif
}
OPF_CUDA_HD float sub_rn(float x, float y)
{
#if defined(__CUDA_ARCH__)
    return __fsub_rn(x, y);
#else
    return x - y;
#endif
}
OPF_CUDA_HD double sub_rn(double x, double y)
{
#if defined(__CUDA_ARCH__)
    return __dsub_rn(x, y);
#else
    return x - y;
#endif
}

// float16 / bfloat16 <-> float. Widening is exact; narrowing rounds to
// nearest even (cvt.rn.f16.f32 / cvt.rn.bf16.f32 on the device, the
// headers' bit-exact emulation on the host and on sm_75 for bfloat16).
OPF_CUDA_HD float to_float(Half h)
{
    __half_raw r;
    r.x = h.bits;
    return __half2float(__half(r));
}
OPF_CUDA_HD float to_float(BFloat16 b)
{
    __nv_bfloat16_raw r;
    r.x = b.bits;
    return __bfloat162float(__nv_bfloat16(r));
}
template <class T> OPF_CUDA_HD T narrow(float f)
{
    if constexpr (std::is_same_v<T, Half>) {
        const __half_raw r = __float2half_rn(f);
        return Half{r.x};
    } else {
        const __nv_bfloat16_raw r = __float2bfloat16_rn(f);
        return BFloat16{r.x};
    }
}

// ---- the ops: one functor each, in OPF_OPID_* order ------------------------------
// computes<T>: the GPU computes (op, T); apply(a, b) = a op b, a is `in`.
struct OpNull {
    template <class T> static constexpr bool computes = false;
    template <class T> OPF_CUDA_HD static T apply(T, T b) { return b; }
};

template <bool IsMax> struct OpMaxMin {
    template <class T> static constexpr bool computes = is_ordered<T>;
    template <class T> OPF_CUDA_HD static T apply(T a, T b)
    {
        if constexpr (is_narrow<T>) {
            const float x = to_float(a), y = to_float(b);
            return narrow<T>(IsMax ? max_value(x, y) : min_value(x, y));
        } else {
            return IsMax ? max_value(a, b) : min_value(a, b);
        }
    }
};
using OpMax = OpMaxMin<true>;
using OpMin = OpMaxMin<false>;

struct OpSum {
    template <class T> static constexpr bool computes = is_arithmetic<T>;
    template <class T> OPF_CUDA_HD static T apply(T a, T b)
    {
        if constexpr (is_integer<T>) return T(Wrap<T>(a) + Wrap<T>(b));
        else if constexpr (is_narrow<T>) return narrow<T>(add_rn(to_float(a), to_float(b)));
        else if constexpr (is_complex<T>) return T{add_rn(a.re, b.re), add_rn(a.im, b.im)};
        else return add_rn(a, b);
    }
};

struct OpProd {
    template <class T> static constexpr bool computes = is_arithmetic<T>;
    template <class T> OPF_CUDA_HD static T apply(T a, T b)
    {
        if constexpr (is_integer<T>) return T(Wrap<T>(a) * Wrap<T>(b));
        else if constexpr (is_narrow<T>) return narrow<T>(mul_rn(to_float(a), to_float(b)));
        else if constexpr (is_complex<T>)
            return T{sub_rn(mul_rn(a.re, b.re), mul_rn(a.im, b.im)), add_rn(mul_rn(a.re, b.im), mul_rn(a.im, b.re))};
        else return mul_rn(a, b);
    }
};

struct OpLand {
    template <class T> static constexpr bool computes = is_integer<T>;
    template <class T> OPF_CUDA_HD static T apply(T a, T b) { return T((a != 0) & (b != 0)); }
};
struct OpLor {
    template <class T> static constexpr bool computes = is_integer<T>;
    template <class T> OPF_CUDA_HD static T apply(T a, T b) { return T((a != 0) | (b != 0)); }
};
struct OpLxor {
    template <class T> static constexpr bool computes = is_integer<T>;
    template <class T> OPF_CUDA_HD static T apply(T a, T b) { return T((a != 0) != (b != 0)); }
};
struct OpBand {
    template <class T> static constexpr bool computes = is_integer<T>;
    template <class T> OPF_CUDA_HD static T apply(T a, T b) { return T(a & b); }
};
struct OpBor {
    template <class T> static constexpr bool computes = is_integer<T>;
    template <class T> OPF_CUDA_HD static T apply(T a, T b) { return T(a | b); }
};
struct OpBxor {
    template <class T> static constexpr bool computes = is_integer<T>;
    template <class T> OPF_CUDA_HD static T apply(T a, T b) { return T(a ^ b); }
};

template <bool IsMax> struct OpLoc {
    template <class T> static constexpr bool computes = is_pair<T>;
    template <class T> OPF_CUDA_HD static T apply(T a, T b)
    {
        const bool a_first = IsMax ? a.value > b.value : a.value < b.value;
        const bool b_first = IsMax ? b.value > a.value : b.value < a.value;
        if (a_first) return a;
        if (b_first) return b;
        if (is_nan(a.value) != is_nan(b.value)) return is_nan(a.value) ? a : b;
        T r;
        std::memset(&r, 0, sizeof r);
        r.value = IsMax ? max_value(a.value, b.value) : min_value(a.value, b.value);
        r.index = b.index < a.index ? b.index : a.index;
        return r;
    }
};
using OpMaxloc = OpLoc<true>;
using OpMinloc = OpLoc<false>;

// Byte copies, done by the component (cudaMemcpy), not by a kernel.
struct OpReplace {
    template <class T> static constexpr bool computes = false;
    template <class T> OPF_CUDA_HD static T apply(T a, T) { return a; }
};
struct OpNoOp {
    template <class T> static constexpr bool computes = false;
    template <class T> OPF_CUDA_HD static T apply(T, T b) { return b; }
};

// Indexed by OPF_OPID_* (opframe.h).
using Ops = TypeList<OpNull, OpMax, OpMin, OpSum, OpProd, OpLand, OpBand, OpLor, OpBor, OpLxor, OpBxor, OpMaxloc,
                     OpMinloc, OpReplace, OpNoOp>;
static_assert(Ops::size == OPF_OPID_COUNT, "Ops must follow the OPF_OPID_* enum");

template <class Op, class T> inline constexpr bool gpu_computes =
    !std::is_same_v<T, NotOnGpu> && Op::template computes<T>;

// ---- how a launch covers n elements ---------------------------------------------
// The kernels run work items 0 .. total-1 in a grid-stride loop; the host
// computes the plan from the buffer addresses:
//   vector: in1, in2 and out share their address modulo 16, and an element
//           boundary falls on a 16-byte boundary: items 0 .. nvec-1 are 16-byte
//           vectors starting after `head` single elements; the items after them
//           are the head's elements, then the tail's;
//   scalar: every address is aligned to the element type: item i is element i;
//   bytes:  anything else (an element at an odd address): element i, loaded
//           and stored byte by byte.
// Each item reads its elements before writing them, so out may be in1 or in2.
// test/cuda_semantics.cpp runs work_item on the host for every plan shape.
constexpr int kVectorBytes = 16;
enum PlanMode : int { kVector, kScalar, kBytes };
struct Plan {
    int64_t n;       // elements
    int64_t head;    // vector mode: single elements before the first 16-byte boundary
    int64_t nvec;    // vector mode: 16-byte vectors after the head
    int64_t total;   // work items
    int mode;
};

template <class T> Plan plan_for(const void *in1, const void *in2, const void *out, int64_t n)
{
    const auto pa = reinterpret_cast<uintptr_t>(in1), pb = reinterpret_cast<uintptr_t>(in2),
               po = reinterpret_cast<uintptr_t>(out);
    constexpr uintptr_t size = sizeof(T), align = alignof(T), vec = kVectorBytes;
    Plan p{n, 0, 0, n, kScalar};
    if ((pa | pb | po) % align != 0) {
        p.mode = kBytes;
        return p;
    }
    const uintptr_t head_bytes = (vec - po % vec) % vec;
    if (vec % size == 0 && (pa - po) % vec == 0 && (pb - po) % vec == 0 && head_bytes % size == 0) {
        const int64_t per = int64_t(vec / size);
        p.mode = kVector;
        p.head = n < int64_t(head_bytes / size) ? n : int64_t(head_bytes / size);
        p.nvec = (n - p.head) / per;
        p.total = n - p.nvec * (per - 1);
    }
    return p;
}

template <class T> OPF_CUDA_HD T load_element(const unsigned char *p)
{
#if defined(__CUDA_ARCH__)
    return *reinterpret_cast<const T *>(p);
#else
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
#endif
}
template <class T> OPF_CUDA_HD void store_element(unsigned char *p, const T &v)
{
#if defined(__CUDA_ARCH__)
    *reinterpret_cast<T *>(p) = v;
#else
    std::memcpy(p, &v, sizeof v);
#endif
}
template <class T> OPF_CUDA_HD T load_bytes(const unsigned char *p)
{
    T v;
    auto *d = reinterpret_cast<unsigned char *>(&v);
    for (int k = 0; k < int(sizeof(T)); ++k) d[k] = p[k];
    return v;
}
template <class T> OPF_CUDA_HD void store_bytes(unsigned char *p, const T &v)
{
    const auto *s = reinterpret_cast<const unsigned char *>(&v);
    for (int k = 0; k < int(sizeof(T)); ++k) p[k] = s[k];
}

template <class Op, class T>
OPF_CUDA_HD void work_item(const unsigned char *a, const unsigned char *b, unsigned char *o, const Plan &p, int64_t i)
{
    constexpr int64_t size = int64_t(sizeof(T));
    if (p.mode == kVector) {
        if constexpr (kVectorBytes % sizeof(T) == 0) {
            constexpr int V = kVectorBytes / int(sizeof(T));
            if (i < p.nvec) {
                const int64_t at = (p.head + i * V) * size;
                uint4 va = load_element<uint4>(a + at);
                const uint4 vb = load_element<uint4>(b + at);
                T ea[V], eb[V];
                std::memcpy(ea, &va, sizeof va);
                std::memcpy(eb, &vb, sizeof vb);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
                for (int k = 0; k < V; ++k) ea[k] = Op::apply(ea[k], eb[k]);
                std::memcpy(&va, ea, sizeof va);
                store_element(o + at, va);
                return;
            }
            const int64_t j = i - p.nvec;   // the head, then the tail
            i = j < p.head ? j : p.head + p.nvec * V + (j - p.head);
        }
    }
    const int64_t at = i * size;
    if (p.mode == kBytes)
        store_bytes(o + at, Op::apply(load_bytes<T>(a + at), load_bytes<T>(b + at)));
    else
        store_element(o + at, Op::apply(load_element<T>(a + at), load_element<T>(b + at)));
}

// out[i] = in1[i] op in2[i] on the host, any alignment, out may be in1 or in2
// (the component's path for small mixed host/device calls; also what
// test/cuda_semantics.cpp checks against the base).
template <class Op, class T> void host_kernel(const void *in1, const void *in2, void *out, int64_t n)
{
    auto a = static_cast<const unsigned char *>(in1);
    auto b = static_cast<const unsigned char *>(in2);
    auto o = static_cast<unsigned char *>(out);
    for (int64_t i = 0; i < n; ++i) {
        T x, y;
        std::memcpy(&x, a + i * sizeof(T), sizeof x);
        std::memcpy(&y, b + i * sizeof(T), sizeof y);
        const T r = Op::apply(x, y);
        std::memcpy(o + i * sizeof(T), &r, sizeof r);
    }
}

} // namespace opf_cuda
