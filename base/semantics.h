// semantics.h — the scalar definition of every predefined op: the one place
// where each rule of docs/design.md's "Semantics" is written.
// Every kernel (base, SIMD, device) must reproduce these results bit for bit;
// the cuda component's device code calls these functors themselves (OPF_HD).
//
// Each op is a functor with
//   template <class T> static constexpr bool defined;   // is (op, T) a slot?
//   template <class T> OPF_HD static T apply(T left, T right); // left = in, right = inout
#pragma once

#include <cmath>
#include <concepts>
#include <cstring>
#include <type_traits>

#include "base/mx.h"
#include "base/storage.h"
#include "base/type_description.h"

namespace opf::base {

// ---- type categories --------------------------------------------------------
template <class T> inline constexpr bool is_integer =
    std::is_integral_v<T> && !std::is_same_v<T, bool>;
#ifdef __SIZEOF_INT128__
template <> inline constexpr bool is_integer<__int128> = true;
#endif

// Reals: the native floating types and the narrow floats of
// type_description.h's table.
template <class T> inline constexpr bool is_real = std::is_floating_point_v<T> || is_narrow<T>;
#ifdef __SIZEOF_FLOAT128__
template <> inline constexpr bool is_real<__float128> = true;
#endif

template <class T> inline constexpr bool is_complex = false;
template <class R> inline constexpr bool is_complex<Complex<R>> = true;

template <class T> inline constexpr bool is_pair = false;
template <class V, class I> inline constexpr bool is_pair<Pair<V, I>> = true;

template <class T> concept Integer = is_integer<T>;
template <class T> concept Real = is_real<T>;
template <class T> concept Arithmetic = Integer<T> || Real<T> || is_complex<T>;
template <class T> concept Ordered = Integer<T> || Real<T>;

// ---- helpers ---------------------------------------------------------------
// Integer arithmetic wraps: compute in the unsigned type of the promoted
// operand (uint16 * uint16 would otherwise overflow a signed int).
template <class T> struct Wrap { using type = std::make_unsigned_t<decltype(+T{})>; };
#ifdef __SIZEOF_INT128__
template <> struct Wrap<__int128> { using type = unsigned __int128; };
#endif
template <Integer T> using WrapType = typename Wrap<T>::type;

template <class T> OPF_HD inline bool is_nan(T x) { return x != x; }

template <class T> OPF_HD inline bool sign_bit(T x)
{
    if constexpr (std::is_same_v<T, float>)
        return bits_as<uint32_t>(x) >> 31;
    else if constexpr (std::is_same_v<T, double>)
        return bits_as<uint64_t>(x) >> 63;
    else if constexpr (std::is_same_v<T, long double>)   // host code only
        return std::signbit(x);
    else {  // binary128 (a floating-point type to std:: from GCC 13, without a
            // std::signbit overload): the sign is the top bit of the last byte (little endian)
        unsigned char bytes[sizeof x];
        std::memcpy(bytes, &x, sizeof x);
        return bytes[sizeof x - 1] & 0x80;
    }
}

// MIN on an ordered value: NaN wins, -0 beats +0 (integers: plain min).
// float and double, as selects and bit operations that loops of them
// vectorise to: `x < y ? x : y` taken both ways gives the same value unless
// the operands tie or one is NaN; OR-ing the two bit patterns then gives the
// minimum on a tie (equal values have one encoding, but for the sign of a
// zero: the OR is -0 unless both are +0) and keeps a NaN a NaN (its
// exponent stays all ones, its mantissa non-zero).
template <class T> OPF_HD inline T min_value(T a, T b)
{
    if constexpr (Integer<T>) {
        return b < a ? b : a;
    } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
        return bits_as<T>(Bits(bits_as<Bits>(a < b ? a : b) | bits_as<Bits>(b < a ? b : a)));
    } else {
        if (a < b) return a;
        if (b < a) return b;
        if (is_nan(a)) return a;
        if (is_nan(b)) return b;
        return sign_bit(a) ? a : b;   // equal: only the sign of a zero can differ
    }
}
// MAX mirrors MIN: NaN wins, +0 beats -0. Negation only flips the sign bit
// (IEEE), so max(a, b) = -min(-a, -b) exactly, NaNs and zeros included.
template <class T> OPF_HD inline T max_value(T a, T b)
{
    if constexpr (Integer<T>) return a < b ? b : a;
    else return -min_value(-a, -b);
}

// float16 / bfloat16 / fp8: widen to float (exact), compute, round once to
// nearest even (storage.h). A narrow type is one with to_float(T) and
// narrow<T>(float); everything generic over the narrow types (the ops below)
// needs only those two.
//
// Overflow and non-finite values, per format:
//   float16, bfloat16, FLOAT8_E5M2: IEEE: a result that rounds beyond the
//     largest finite is inf, NaN stays NaN.
//   FLOAT8_E4M3 (float8_e4m3fn) has no inf: a result that rounds beyond 448
//     (a magnitude above 464) is NaN, and so would be an inf (its inputs are
//     finite or NaN, so in float only overflow reaches it).
// Not saturated: a saturated sum (448 or 57344) would be a wrong finite value
// that nothing downstream can tell from a real one; NaN / inf, as for float16,
// keep an overflow visible (Open MPI's saturating SIMD sums are what users
// of MPI reductions complain of). This is PyTorch's conversion (float -> float8_e4m3fn /
// float8_e5m2, round to nearest even, not saturating) and the OCP OFP8 spec's
// non-saturating mode, so a result equals (a.float() op b.float()).to(fp8) in
// PyTorch. NCCL differs: its fp8 reductions convert with CUDA's __NV_SATFINITE
// (overflow saturates to +-448 / +-57344, inf too) and, on sm_90, add in
// half before converting (two roundings).
template <class T> concept Narrow = is_narrow<T>;
template <Narrow T> OPF_HD inline T narrow(float f) { return FromFloat<T>::round(f); }   // storage.h
template <Narrow T, class F> OPF_HD inline T in_float(T a, T b, F f)
{
    return narrow<T>(f(to_float(a), to_float(b)));
}

// ---- the ops ----------------------------------------------------------------
struct OpNull {   // placeholder for id 0: defines nothing
    template <class T> static constexpr bool defined = false;
    template <class T> OPF_HD static T apply(T, T b) { return b; }
};

// The MX block formats (mx.h): MAX, MIN, SUM and AVG, each the exact
// reduction of the decoded values quantized once (mx.h states the rule).
struct OpMax {
    template <class T> static constexpr bool defined = Ordered<T> || Mx<T>;
    template <class T> OPF_HD static T apply(T a, T b)
    {
        if constexpr (Mx<T>) return mx_apply(a, b, MxOp::Max, false);
        else if constexpr (Narrow<T>) return in_float(a, b, [](float x, float y) { return max_value(x, y); });
        else return max_value(a, b);
    }
};

struct OpMin {
    template <class T> static constexpr bool defined = Ordered<T> || Mx<T>;
    template <class T> OPF_HD static T apply(T a, T b)
    {
        if constexpr (Mx<T>) return mx_apply(a, b, MxOp::Min, false);
        else if constexpr (Narrow<T>) return in_float(a, b, [](float x, float y) { return min_value(x, y); });
        else return min_value(a, b);
    }
};

struct OpSum {
    template <class T> static constexpr bool defined = Arithmetic<T> || Mx<T>;
    template <class T> OPF_HD static T apply(T a, T b)
    {
        if constexpr (Mx<T>) return mx_apply(a, b, MxOp::Sum, false);
        else if constexpr (Integer<T>) return T(WrapType<T>(a) + WrapType<T>(b));
        else if constexpr (Narrow<T>) return in_float(a, b, [](float x, float y) { return x + y; });
        else if constexpr (is_complex<T>) return {a.re + b.re, a.im + b.im};
        else return a + b;
    }
};

struct OpProd {
    template <class T> static constexpr bool defined = Arithmetic<T>;
    template <class T> OPF_HD static T apply(T a, T b)
    {
        if constexpr (Integer<T>) return T(WrapType<T>(a) * WrapType<T>(b));
        else if constexpr (Narrow<T>) return in_float(a, b, [](float x, float y) { return x * y; });
        // (a+bi)(c+di) = (ac-bd) + (ad+bc)i exactly as written: no FMA (the
        // kernels build with -ffp-contract=off), no Annex G NaN recovery.
        else if constexpr (is_complex<T>) return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
        else return a * b;
    }
};

// Logical ops: non-zero is true, the result is 1 or 0: truth(x). On 64-bit
// integers it is computed with bit operations, (x | -x) has its top bit set
// exactly when x != 0: SSE2 has no 64-bit compare, and `x != 0` kept those
// loops scalar (LXOR INT64 at 64 KiB: 29 -> 81 GB/s). Narrower integers
// compare, which is fewer instructions there.
template <Integer T> OPF_HD inline T truth(T x)
{
    if constexpr (sizeof(T) == 8) {
        using U = std::make_unsigned_t<T>;
        const U u = U(x);
        return T((u | (U(0) - u)) >> 63);
    } else {
        return T(x != 0);
    }
}
struct OpLand {
    template <class T> static constexpr bool defined = Integer<T>;
    template <class T> OPF_HD static T apply(T a, T b) { return T(truth(a) & truth(b)); }
};
struct OpLor {
    template <class T> static constexpr bool defined = Integer<T>;
    template <class T> OPF_HD static T apply(T a, T b) { return T(truth(a) | truth(b)); }
};
struct OpLxor {
    template <class T> static constexpr bool defined = Integer<T>;
    template <class T> OPF_HD static T apply(T a, T b) { return T(truth(a) ^ truth(b)); }
};

struct OpBand {
    template <class T> static constexpr bool defined = Integer<T>;
    template <class T> OPF_HD static T apply(T a, T b) { return T(a & b); }
};
struct OpBor {
    template <class T> static constexpr bool defined = Integer<T>;
    template <class T> OPF_HD static T apply(T a, T b) { return T(a | b); }
};
struct OpBxor {
    template <class T> static constexpr bool defined = Integer<T>;
    template <class T> OPF_HD static T apply(T a, T b) { return T(a ^ b); }
};

// MAXLOC / MINLOC (MPI 4.9.3): the value follows MAX / MIN (NaN and signed
// zero rules included); on equal values, or two NaNs, the smaller index wins;
// a lone NaN brings its own index.
template <bool IsMax> struct OpLoc {
    template <class T> static constexpr bool defined = is_pair<T>;
    template <class T> OPF_HD static T apply(T a, T b)
    {
        const bool a_first = IsMax ? a.value > b.value : a.value < b.value;
        const bool b_first = IsMax ? b.value > a.value : b.value < a.value;
        if (a_first) return a;
        if (b_first) return b;
        if (is_nan(a.value) != is_nan(b.value)) return is_nan(a.value) ? a : b;
        T r;
        std::memset(&r, 0, sizeof r);   // keep padding bytes defined
        r.value = IsMax ? max_value(a.value, b.value) : min_value(a.value, b.value);
        r.index = b.index < a.index ? b.index : a.index;
        return r;
    }
};
using OpMaxloc = OpLoc<true>;
using OpMinloc = OpLoc<false>;

// REPLACE gives the left operand, NO_OP the right one (2-buffer: inout = in,
// and inout unchanged).
struct OpReplace {
    template <class T> static constexpr bool defined = true;
    template <class T> OPF_HD static T apply(T a, T) { return a; }
};
struct OpNoOp {
    template <class T> static constexpr bool defined = true;
    template <class T> OPF_HD static T apply(T, T b) { return b; }
};

// ---- n-ary reductions, AVG, PreMulSum ---------------------------------------
// opf_reduce_local_n folds its k inputs left to right: acc = x0, then
// acc = apply(acc, xj) (acc is the left operand, as the 3-buffer chain's in1).
// Three definitions are not that fold, and are written here once, as an
// accumulator each: first(x0), add(acc, xj), result(acc, k).
//
// Types computed in float (the Narrow types: float16, bfloat16 and any type
// declared Narrow later, with its to_float / narrow<T>) have two modes:
// Chain rounds to the type at each step, as the 3-buffer chain does; Once
// (OPF_ROUND_ONCE) keeps the sum in float and rounds to the type once, at
// the end. Every other type computes the same in both modes.
enum class Rounding { Chain, Once };

template <class T, Rounding M> inline constexpr bool sums_in_float = M == Rounding::Once && Narrow<T>;

// The accumulators take k (the number of inputs) at every step: the wide
// integer mean divides each input by it.
// SUM: the fold of OpSum, or (Once, Narrow) the float sum rounded once.
// Accumulators in float (sums_in_float, the Narrow mean) also give their rule
// on values already widened, first_wide / add_wide / result_wide (before the
// rounding to T): for kernels that widen several elements at once.
template <class T, Rounding M> struct SumAcc {
    using Acc = std::conditional_t<sums_in_float<T, M>, float, T>;
    OPF_HD static Acc first(T x, int k)
    {
        if constexpr (sums_in_float<T, M>) return first_wide(to_float(x), k);
        else return x;
    }
    OPF_HD static Acc add(Acc a, T x, int k)
    {
        if constexpr (sums_in_float<T, M>) return add_wide(a, to_float(x), k);
        else return OpSum::apply(a, x);
    }
    OPF_HD static T result(Acc a, int k)
    {
        if constexpr (sums_in_float<T, M>) return narrow<T>(result_wide(a, k));
        else return a;
    }
    OPF_HD static float first_wide(float x, int) requires sums_in_float<T, M> { return x; }
    OPF_HD static float add_wide(float a, float x, int) requires sums_in_float<T, M> { return a + x; }
    OPF_HD static float result_wide(float a, int) requires sums_in_float<T, M> { return a; }
};

// AVG of k values. Floating and complex: the SUM above, then divided by k
// in the accumulator's type.
// The Narrow types, in both modes, one rule: every input widened to float
// and scaled by 2^-6, summed left to right in float, divided by k, scaled
// back by 2^6 and rounded to the type once. A mean of in-range inputs stays
// in range: a chain rounded to the type at each step overflowed (E4M3:
// 448 + 448 is NaN), and k <= 64 scaled inputs cannot overflow float even
// for bfloat16, whose range is float's. The scaling is exact and changes no
// result where float has room: for float16 and fp8 the rule equals the
// plain float mean rounded once (no sum overflows, no quotient is a float
// denormal); for bfloat16 it fixes how the few means below float's normal
// range round.
// Integers: the exact mean rounded toward zero, without overflow whatever
// k (up to OPF_REDUCE_N_MAX) and the values: up to 32 bits the exact sum in
// int64_t; wider, each x = q*k + r with 0 <= r < k (floor division), the q
// summed modulo 2^bits (the true floor of the mean fits the type, so the
// wrapped sum lands on it) and the r exactly, then floor(mean) = sum q +
// sum r / k, moved toward zero when negative and inexact. On the 2- and 3-
// buffer calls AVG is the mean of two: k = 2.
template <class T, Rounding M> struct MeanAcc : SumAcc<T, M> {
    using Acc = typename SumAcc<T, M>::Acc;
    OPF_HD static T result(Acc a, int k)
    {
        if constexpr (is_complex<T>) {
            using R = decltype(a.re);
            return {a.re / R(k), a.im / R(k)};
        } else return a / T(k);
    }
};
static_assert(OPF_REDUCE_N_MAX <= 64, "the Narrow mean scales its inputs by 2^-6");
template <Narrow T, Rounding M> struct MeanAcc<T, M> {
    using Acc = float;
    OPF_HD static Acc first(T x, int k) { return first_wide(to_float(x), k); }
    OPF_HD static Acc add(Acc a, T x, int k) { return add_wide(a, to_float(x), k); }
    OPF_HD static T result(Acc a, int k) { return narrow<T>(result_wide(a, k)); }
    OPF_HD static float first_wide(float x, int) { return x * 0x1p-6f; }
    OPF_HD static float add_wide(float a, float x, int) { return a + x * 0x1p-6f; }
    OPF_HD static float result_wide(float a, int k) { return a / float(k) * 0x1p6f; }
};
template <Integer T, Rounding M> requires(sizeof(T) <= 4) struct MeanAcc<T, M> {
    using Acc = int64_t;
    OPF_HD static Acc first(T x, int) { return Acc(x); }
    OPF_HD static Acc add(Acc a, T x, int) { return a + Acc(x); }
    OPF_HD static T result(Acc a, int k) { return T(a / k); }   // C division: toward zero
};
template <Integer T, Rounding M> requires(sizeof(T) > 4) struct MeanAcc<T, M> {
    using W = WrapType<T>;
    struct Acc { W q; int64_t r; };
    OPF_HD static Acc first(T x, int k)
    {
        T q = T(x / T(k)), r = T(x % T(k));   // floor division: remainder in [0, k)
        if constexpr (T(-1) < T(0))
            if (r < 0) { q = T(q - 1); r = T(r + T(k)); }
        return {W(q), int64_t(r)};
    }
    OPF_HD static Acc add(Acc a, T x, int k)
    {
        const Acc b = first(x, k);
        return {W(a.q + b.q), a.r + b.r};
    }
    OPF_HD static T result(Acc a, int k)
    {
        T mean = T(W(a.q + W(a.r / k)));               // the floor of the exact mean
        if constexpr (T(-1) < T(0))                     // signed: toward zero
            if (mean < 0 && a.r % k != 0) mean = T(mean + 1);
        return mean;
    }
};

struct OpAvg {
    template <class T> static constexpr bool defined = Arithmetic<T> || Mx<T>;
    template <class T> OPF_HD static T apply(T a, T b)
    {
        if constexpr (Mx<T>) {
            return mx_apply(a, b, MxOp::Sum, true);
        } else {
            using A = MeanAcc<T, Rounding::Chain>;
            return A::result(A::add(A::first(a, 2), b, 2), 2);
        }
    }
};

// Every other op: the left-to-right fold of its 2-operand functor.
template <class Op, class T> struct FoldAcc {
    using Acc = T;
    OPF_HD static T first(T x, int) { return x; }
    OPF_HD static T add(T a, T x, int) { return Op::apply(a, x); }
    OPF_HD static T result(T a, int) { return a; }
};

// The accumulator of op Op's n-ary result in mode M: the one rule every
// provider's n-ary kernel computes (host kernels and device kernels alike).
template <class Op, class T, Rounding M> struct NaryAccOf {
    using type = FoldAcc<Op, T>;
};
template <class T, Rounding M> struct NaryAccOf<OpSum, T, M> {
    using type = SumAcc<T, M>;
};
template <class T, Rounding M> struct NaryAccOf<OpAvg, T, M> {
    using type = MeanAcc<T, M>;
};
// MX blocks: the exact values of a block, quantized once at the end (both
// modes: there is no chain form of the rule).
// One input is a copy (mx_reduce).
template <class Op, class F> struct MxAcc {
    struct Acc {
        BlockExact<F> e;
        MxBlock<F> first;
        int taken;
    };
    static constexpr bool mean = std::is_same_v<Op, OpAvg>;
    static constexpr MxOp op = std::is_same_v<Op, OpMax> ? MxOp::Max : std::is_same_v<Op, OpMin> ? MxOp::Min : MxOp::Sum;
    OPF_HD static Acc first(const MxBlock<F> &x, int)
    {
        Acc a;
        a.first = x;
        a.taken = 1;
        mx_take<F>(a.e, x.bytes, op, true);
        return a;
    }
    OPF_HD static Acc add(Acc a, const MxBlock<F> &x, int)
    {
        ++a.taken;
        mx_take<F>(a.e, x.bytes, op, false);
        return a;
    }
    OPF_HD static MxBlock<F> result(Acc a, int k)
    {
        if (a.taken == 1) return a.first;
        MxBlock<F> r;
        mx_quantize<F>(a.e, mean ? k : 1, r.bytes);
        return r;
    }
};
template <class F, Rounding M> struct NaryAccOf<OpSum, MxBlock<F>, M> { using type = MxAcc<OpSum, F>; };
template <class F, Rounding M> struct NaryAccOf<OpAvg, MxBlock<F>, M> { using type = MxAcc<OpAvg, F>; };
template <class F, Rounding M> struct NaryAccOf<OpMax, MxBlock<F>, M> { using type = MxAcc<OpMax, F>; };
template <class F, Rounding M> struct NaryAccOf<OpMin, MxBlock<F>, M> { using type = MxAcc<OpMin, F>; };
template <class Op, class T, Rounding M> using NaryAcc = typename NaryAccOf<Op, T, M>::type;
// Whether OPF_ROUND_ONCE has a result of its own for (Op, T): SUM of the
// Narrow types (AVG's one rule rounds once in both modes).
template <class Op, class T> inline constexpr bool rounds_once_apart = Narrow<T> && std::is_same_v<Op, OpSum>;

// PreMulSum(s): s * x0 + s * x1 + ...: each product as OpProd gives it
// (rounded to the type; integers wrap; complex without FMA), the products
// summed left to right as SUM. Once (Narrow): products and sum in float
// (a product of two narrow values is exact in float), rounded once.
template <class T, Rounding M> struct PremulAcc {
    using Acc = std::conditional_t<sums_in_float<T, M>, float, T>;
    OPF_HD static Acc product(T s, T x)
    {
        if constexpr (sums_in_float<T, M>) return to_float(s) * to_float(x);
        else return OpProd::apply(s, x);
    }
    OPF_HD static Acc first(T s, T x) { return product(s, x); }
    OPF_HD static Acc add(Acc a, T s, T x)
    {
        if constexpr (sums_in_float<T, M>) return a + product(s, x);
        else return OpSum::apply(a, product(s, x));
    }
    OPF_HD static T result(Acc a)
    {
        if constexpr (sums_in_float<T, M>) return narrow<T>(a);
        else return a;
    }
};

// PreMulSum as an accumulator of the n-ary interface (first(x, k),
// add(acc, x, k), result(acc, k)): it carries its scalar.
template <class T, Rounding M> struct PremulWith {
    using P = PremulAcc<T, M>;
    using Acc = typename P::Acc;
    T s;
    OPF_HD Acc first(T x, int) const { return P::first(s, x); }
    OPF_HD Acc add(Acc a, T x, int) const { return P::add(a, s, x); }
    OPF_HD T result(Acc a, int) const { return P::result(a); }
};

} // namespace opf::base
