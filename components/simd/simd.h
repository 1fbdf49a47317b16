// simd.h — the kernels of the CPU SIMD components (avx2, avx512), written
// once and compiled once per ISA (opf_op_avx2.cpp, opf_op_avx512.cpp).
//
// Why GCC vector extensions, with intrinsics only at the edges
// --------------------------------------------------------------
// The arithmetic is written with GCC vector extensions
// (`T __attribute__((vector_size(B)))`): `a + b`, `a > b ? a : b`, `x & m`,
// `__builtin_shuffle`. One template then covers every lane type (8..64-bit
// integers, float, double, _Float16) at every register width, and the
// compiler picks the instructions of the ISA flags in force: vpmaxsb,
// vpmullq, or the AVX2 emulations of 64-bit products and 64-bit unsigned
// compares, which would otherwise be hand-written per type and per ISA.
// Every rule of base/semantics.h thus gets exactly one SIMD definition
// (rules below), shared by both components. The alternatives: intrinsics
// throughout name the type and the width in every call (_mm256_max_epu16,
// _mm512_max_epu16, ...), so the (op x type x ISA) matrix would be written
// out by hand or by macros; compiling the base's scalar functors with wider
// -m flags leaves exactly the slots worth having scalar (the compiler does
// not vectorize NaN-and-zero-aware MAX, float16 conversion, MAXLOC). The
// price: GCC 12 or later (also for _Float16 and the avx512fp16 target).
// Intrinsics appear only where a specific instruction is the point and no
// operator expresses it: masked head / tail loads and stores, the float16
// conversions (F16C / AVX-512F vcvtph2ps, vcvtps2ph) and AVX512-BF16's
// vcvtne2ps2bf16 with its vfpclassps guard. Those live in the ISA files
// (opf_op_<isa>.cpp).
//
// Bit-exactness with the base (base/semantics.h is the definition):
//   * integer arithmetic is done in unsigned lanes: wrapping, never
//     saturating, never undefined behaviour;
//   * floating-point MAX/MIN: x86 maxps/minps return their second operand
//     on NaN and on a pair of zeros, so both operand orders are combined
//     (see RMax / RMin) to propagate NaN and order -0 < +0;
//   * no fused multiply-add: the sources build with -ffp-contract=off and
//     without -mfma, and no fma intrinsic is called;
//   * float16 and bfloat16 are computed in float and rounded once, to
//     nearest even: vcvtps2ph with imm 0 for float16 (checked against
//     base::to_half on all 2^32 floats), integer rounding identical to
//     base::to_bfloat16 for bfloat16. AVX512-BF16's vcvtne2ps2bf16 takes
//     denormal inputs for zeros (16,711,678 of the 2^32 floats differ, all
//     denormals), so the avx512 component uses it only on registers it has
//     checked to hold no denormal; AVX512-FP16 arithmetic gives the same
//     float16 results (opf_op_avx512.cpp says why);
//   * heads and tails are computed by the same rule under masked loads and
//     stores (AVX-512: byte masks; AVX2: dword masks), and the last 1..3
//     bytes of 1- and 2-byte elements on AVX2 by the base's scalar functor
//     (driver.inc).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>   // the AVX-512 masked stores below
#endif

#include <opframe/component.h>
#include "base/semantics.h"
#include "base/type_list.h"

namespace opf::simd {

namespace base = ::opf::base;

// ---- vectors -----------------------------------------------------------------
// (through a struct: GCC drops the attribute of a dependent alias template)
template <class T, std::size_t B> struct VecOf { typedef T type __attribute__((vector_size(B))); };
template <class T, std::size_t B> using Vec = typename VecOf<T, B>::type;

template <class V> using lane_t = std::remove_cvref_t<decltype(std::declval<V>()[0])>;
template <class V> inline constexpr std::size_t lane_count = sizeof(V) / sizeof(lane_t<V>);

template <std::size_t N> struct IntOfSize;
template <> struct IntOfSize<1> { using s = int8_t; using u = uint8_t; };
template <> struct IntOfSize<2> { using s = int16_t; using u = uint16_t; };
template <> struct IntOfSize<4> { using s = int32_t; using u = uint32_t; };
template <> struct IntOfSize<8> { using s = int64_t; using u = uint64_t; };
template <class T> using SIntOf = typename IntOfSize<sizeof(T)>::s;
template <class T> using UIntOf = typename IntOfSize<sizeof(T)>::u;

// What a comparison of two V gives: signed lanes of the same width, all ones or zero.
template <class V> using Mask = Vec<SIntOf<lane_t<V>>, sizeof(V)>;
template <class V> using UVec = Vec<UIntOf<lane_t<V>>, sizeof(V)>;

// Half-precision lanes: _Float16; on aarch64, where GCC 12 has no _Float16 in
// C++, __fp16 (the components/aarch64 kernels use it).
#if defined(__aarch64__)
using HalfLane = __fp16;
#else
using HalfLane = _Float16;
#endif
template <class T> inline constexpr bool is_float_lane =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, HalfLane>;

// Reinterprets the bits of a vector (same size).
template <class To, class From> [[gnu::always_inline]] inline To as(From v)
{
    static_assert(sizeof(To) == sizeof(From));
    return (To)v;
}

template <class V> [[gnu::always_inline]] inline V loadu(const unsigned char *p)
{
    V v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}
template <class V> [[gnu::always_inline]] inline void storeu(unsigned char *p, V v) { __builtin_memcpy(p, &v, sizeof v); }

// The lane-wise minimum / maximum of unsigned lanes, written so that GCC
// finds vpminu* / vpmaxu* (with a constant for b, GCC 12 rewrites a < b into
// a <= b - 1 and no longer sees it).
template <class V> [[gnu::always_inline]] inline V umin(V a, V b) { return a < b ? a : b; }
template <class V> [[gnu::always_inline]] inline V umax(V a, V b) { return a > b ? a : b; }

// Families whose elements have padding (pairs) set `padded` and store a
// register of results with their own `store`, which writes data bytes only.
template <class F> inline constexpr bool has_padding = requires { requires F::padded; };
// ... and those that can also store a partial register under a mask of its
// data bytes (F::store_partial(p, v, nbytes)) take their heads and tails,
// the last element's data included, in registers as well.
template <class F> inline constexpr bool masks_padding = requires { requires F::masked_padding; };
// Families that compute two registers at once and store them (data bytes
// only): F::compute2(a0, a1, b0, b1, out), e.g. to fill every lane of a
// comparison with the values of both.
template <class F, class Reg> inline constexpr bool computes_two =
    requires(Reg x, unsigned char *p) { F::template compute2<void>(x, x, x, x, p); };
template <class F, class V> [[gnu::always_inline]] inline void store_results(unsigned char *p, V v)
{
    if constexpr (has_padding<F>) F::store(p, v);
    else storeu(p, v);
}

// Lane-index constants for __builtin_shuffle, generated per width.
template <class M, class F, std::size_t... K> constexpr M make_index(F f, std::index_sequence<K...>)
{
    return M{lane_t<M>(f(K))...};
}
template <class M, class F> constexpr M index_vector(F f)
{
    return make_index<M>(f, std::make_index_sequence<lane_count<M>>{});
}
// {0,0,2,2,..}: each even lane copied over its odd neighbour
template <class M> inline constexpr M dup_even = index_vector<M>([](std::size_t k) { return k & ~std::size_t(1); });
// {1,1,3,3,..}
template <class M> inline constexpr M dup_odd = index_vector<M>([](std::size_t k) { return k | 1; });
// {1,0,3,2,..}
template <class M> inline constexpr M swap_pairs = index_vector<M>([](std::size_t k) { return k ^ 1; });
// two-operand shuffle: even lanes from the first vector, odd lanes from the second
template <class M> inline constexpr M even_odd =
    index_vector<M>([](std::size_t k) { return k & 1 ? k + lane_count<M> : k; });

// Two vectors one after the other, as one of twice the size; and the first or
// second half of one.
template <class V, std::size_t... I> [[gnu::always_inline]] inline auto concat(V x, V y, std::index_sequence<I...>)
{
    return __builtin_shufflevector(x, y, I...);
}
template <class V> [[gnu::always_inline]] inline auto concat(V x, V y)
{
    return concat(x, y, std::make_index_sequence<2 * lane_count<V>>{});
}
template <std::size_t Which, class V, std::size_t... I> [[gnu::always_inline]] inline auto half_of(V v, std::index_sequence<I...>)
{
    return __builtin_shufflevector(v, v, (Which * sizeof...(I) + I)...);
}
template <std::size_t Which, class V> [[gnu::always_inline]] inline auto half_of(V v)
{
    return half_of<Which>(v, std::make_index_sequence<lane_count<V> / 2>{});
}

// ---- the rules: one SIMD definition per op of base/semantics.h ---------------
// Each takes two vectors of the semantic lane type (signed integers where
// signedness matters, float, double, _Float16) and gives the lane-wise
// `left op right`, left = in, right = inout.

// Lanes where a or b is NaN, all ones: one vcmpunordps / vcmpunordpd on
// 256-bit AVX registers (GCC keeps `a != a | b != b` as two compares and an
// OR, which made MAX float / double compute-bound in L1 at seven
// instructions per register).
template <class V> [[gnu::always_inline]] inline Mask<V> unordered(V a, V b)
{
#if defined(__AVX__)
    if constexpr (sizeof(V) == 32 && std::is_same_v<lane_t<V>, float>)
        return as<Mask<V>>(_mm256_cmp_ps(as<__m256>(a), as<__m256>(b), _CMP_UNORD_Q));
    else if constexpr (sizeof(V) == 32 && std::is_same_v<lane_t<V>, double>)
        return as<Mask<V>>(_mm256_cmp_pd(as<__m256d>(a), as<__m256d>(b), _CMP_UNORD_Q));
    else
#endif
        return (a != a) | (b != b);
}

// MAX: integers plain; floating point with NaN propagation and +0 > -0.
// x86 max(x, y) is `x > y ? x : y`: y when either is NaN or both are zeros.
// Taken both ways and AND-ed it is the maximum, with max(-0, +0) = +0 (the
// AND of the two zeros); lanes with a NaN operand are then set to all ones,
// which is a NaN: five instructions per register (two max, and, one
// unordered compare, or).
// AVX-512 DQ on 512-bit registers: vrangeps / vrangepd (imm bits 1:0 = 01
// max or 00 min, bits 3:2 = 01 the sign of the operand the compare picked)
// order -0 < +0 on ties of zeros and pick by value otherwise, one
// instruction. Whatever it returns for a NaN operand, the lanes where a or b
// is NaN are then replaced by a | b, which is a NaN (its exponent stays all
// ones, its mantissa non-zero): exact by construction under
// base/semantics.h, three instructions. NOT RUN on the machine it was
// written on (no AVX-512 there): the conformance engine at the avx512 level
// checks it on the first machine that has one.
template <bool IsMax, class V> [[gnu::always_inline]] inline bool range_minmax(V a, V b, V &out)
{
#if defined(__AVX512DQ__)
    if constexpr (sizeof(V) == 64 && std::is_same_v<lane_t<V>, float>) {
        const __m512 x = as<__m512>(a), y = as<__m512>(b);
        const __mmask16 nan = _mm512_cmp_ps_mask(x, y, _CMP_UNORD_Q);
        out = as<V>(_mm512_mask_or_ps(_mm512_range_ps(x, y, IsMax ? 0x5 : 0x4), nan, x, y));
        return true;
    } else if constexpr (sizeof(V) == 64 && std::is_same_v<lane_t<V>, double>) {
        const __m512d x = as<__m512d>(a), y = as<__m512d>(b);
        const __mmask8 nan = _mm512_cmp_pd_mask(x, y, _CMP_UNORD_Q);
        out = as<V>(_mm512_mask_or_pd(_mm512_range_pd(x, y, IsMax ? 0x5 : 0x4), nan, x, y));
        return true;
    }
#endif
    (void)a, (void)b, (void)out;
    return false;
}

struct RMax {
    template <class V> [[gnu::always_inline]] static V apply(V a, V b)
    {
        if constexpr (is_float_lane<lane_t<V>>) {
            using M = Mask<V>;
            if (V r; range_minmax<true>(a, b, r)) return r;
            const V ab = a > b ? a : b, ba = b > a ? b : a;
            return as<V>((as<M>(ab) & as<M>(ba)) | unordered(a, b));
        } else {
            return a > b ? a : b;
        }
    }
};

// MIN: x86 min(x, y) = `x < y ? x : y`. The OR of both orders is the minimum
// with min(-0, +0) = -0, and keeps a NaN a NaN (its exponent stays all ones
// and its mantissa non-zero), whichever operand it came from.
struct RMin {
    template <class V> [[gnu::always_inline]] static V apply(V a, V b)
    {
        if constexpr (is_float_lane<lane_t<V>>) {
            using M = Mask<V>;
            if (V r; range_minmax<false>(a, b, r)) return r;
            return as<V>(as<M>(a < b ? a : b) | as<M>(b < a ? b : a));
        } else {
            return a < b ? a : b;
        }
    }
};

// SUM / PROD: wrapping on integers (unsigned lanes), IEEE on floating point.
struct RSum {
    template <class V> [[gnu::always_inline]] static V apply(V a, V b)
    {
        if constexpr (is_float_lane<lane_t<V>>) return a + b;
        else return as<V>(as<UVec<V>>(a) + as<UVec<V>>(b));
    }
};
struct RProd {
    template <class V> [[gnu::always_inline]] static V apply(V a, V b)
    {
        if constexpr (is_float_lane<lane_t<V>>) {
            return a * b;
        } else if constexpr (sizeof(lane_t<V>) == 1) {
            // No 8-bit multiply on x86: two 16-bit multiplies whose low
            // bytes are the even and the high bytes the odd products (faster
            // than the compiler's widen / multiply / narrow).
            using W = Vec<uint16_t, sizeof(V)>;
            const W x = as<W>(a), y = as<W>(b);
            const W even = x * y, odd = (x >> 8) * (y & 0xff00u);
            return as<V>((even & 0x00ffu) | odd);
        } else {
            return as<V>(as<UVec<V>>(a) * as<UVec<V>>(b));
        }
    }
};

// Logical ops: non-zero is true; the comparisons give -1 / 0, `& 1` makes it 1 / 0.
struct RLand {
    template <class V> [[gnu::always_inline]] static V apply(V a, V b) { return as<V>(((a != 0) & (b != 0)) & 1); }
};
struct RLor {
    template <class V> [[gnu::always_inline]] static V apply(V a, V b) { return as<V>(((a != 0) | (b != 0)) & 1); }
};
struct RLxor {
    template <class V> [[gnu::always_inline]] static V apply(V a, V b) { return as<V>(((a != 0) ^ (b != 0)) & 1); }
};
struct RBand {
    template <class V> [[gnu::always_inline]] static V apply(V a, V b) { return a & b; }
};
struct RBor {
    template <class V> [[gnu::always_inline]] static V apply(V a, V b) { return a | b; }
};
struct RBxor {
    template <class V> [[gnu::always_inline]] static V apply(V a, V b) { return a ^ b; }
};

// The SIMD rule of each base functor (void: none here; REPLACE and NO_OP
// are memcpy / nothing, which the base does as well as anyone).
template <class Op> struct RuleOf { using type = void; };
template <> struct RuleOf<base::OpMax> { using type = RMax; };
template <> struct RuleOf<base::OpMin> { using type = RMin; };
template <> struct RuleOf<base::OpSum> { using type = RSum; };
template <> struct RuleOf<base::OpProd> { using type = RProd; };
template <> struct RuleOf<base::OpLand> { using type = RLand; };
template <> struct RuleOf<base::OpLor> { using type = RLor; };
template <> struct RuleOf<base::OpLxor> { using type = RLxor; };
template <> struct RuleOf<base::OpBand> { using type = RBand; };
template <> struct RuleOf<base::OpBor> { using type = RBor; };
template <> struct RuleOf<base::OpBxor> { using type = RBxor; };
template <class Op> using rule_of = typename RuleOf<Op>::type;

// ---- families: how one register of a kernel type's storage is computed ----------
// A family F provides
//   BaseOp, BaseT          the base functor and kernel type it implements
//                          (the scalar definition, used for AVX2 tails);
//   Reg<R>                 the register type of R bytes the driver loads;
//   compute<Isa>(a, b)     one register of results, a = in, b = inout.
// A register always starts at an element boundary and holds whole elements,
// so lanes keep their roles (re / im, value / index). Reg<R> is one register
// of R bytes, or half of one where the family widens it (float16).

// Plain lanes: integers, float, double; complex SUM (lane-wise on re and im).
template <class Rule, class Lane, class Op, class T = Lane> struct Lanes {
    using BaseOp = Op;
    using BaseT = T;
    template <std::size_t R> using Reg = Vec<Lane, R>;
    template <class Isa, class V> [[gnu::always_inline]] static V compute(V a, V b) { return Rule::apply(a, b); }
};

// Complex PROD on interleaved {re, im}: (ar*br - ai*bi, ar*bi + ai*br), each
// product rounded, then one add or subtract, as the base writes it.
template <class Real> struct ComplexProd {
    using BaseOp = base::OpProd;
    using BaseT = base::Complex<Real>;
    template <std::size_t R> using Reg = Vec<Real, R>;
    template <class Isa, class V> [[gnu::always_inline]] static V compute(V a, V b)
    {
        using M = Mask<V>;
        constexpr M sign_of_re = index_vector<M>([](std::size_t k) {
            return k & 1 ? lane_t<M>(0) : std::numeric_limits<lane_t<M>>::min();
        });
        const V re_a = __builtin_shuffle(a, dup_even<M>), im_a = __builtin_shuffle(a, dup_odd<M>);
        const V t1 = re_a * b;                                // ar*br, ar*bi
        const V t2 = im_a * __builtin_shuffle(b, swap_pairs<M>);   // ai*bi, ai*br
        // x - y is x + (-y) exactly (IEEE 754): subtract in the re lanes, add in the im lanes
        return t1 + as<V>(as<M>(t2) ^ sign_of_re);
    }
};

// float16 through float: widen (vcvtph2ps), the float rule, round once
// (vcvtps2ph, nearest even), exactly base::in_float. Its register is half
// a register of halves, which widens to a full register of floats
// (Isa::widen_half / Isa::narrow_half): loads fold into vcvtph2ps and no
// lane has to cross.
template <class Rule> struct HalfViaFloat {
    using BaseT = base::Half;
    template <std::size_t R> using Reg = Vec<uint16_t, R / 2>;
    template <class Isa, class V> [[gnu::always_inline]] static V compute(V a, V b)
    {
        return Isa::narrow_half(Rule::apply(Isa::widen_half(a), Isa::widen_half(b)));
    }
};

// bfloat16 through float, with integer ops only (no lane crossing): seen as
// 32-bit lanes, a register holds an even element in each low half and an odd
// one in each high half. Widening is a shift or a mask; rounding is
// base::to_bfloat16 lane by lane.
template <class Rule> struct BFloat16ViaFloat {
    using BaseT = base::BFloat16;
    template <std::size_t R> using Reg = Vec<uint16_t, R>;
    template <class V> using Floats = Vec<float, sizeof(V)>;

    // The even and the odd elements of a register, as floats.
    template <class V> [[gnu::always_inline]] static Floats<V> even(V x)
    {
        return as<Floats<V>>(as<Vec<uint32_t, sizeof(V)>>(x) << 16);
    }
    template <class V> [[gnu::always_inline]] static Floats<V> odd(V x)
    {
        return as<Floats<V>>(as<Vec<uint32_t, sizeof(V)>>(x) & 0xffff0000u);
    }
    // base::to_bfloat16 on 32-bit lanes; the bfloat16 is the high half of the result.
    template <class U> [[gnu::always_inline]] static U round(U x)
    {
        using S = Vec<int32_t, sizeof(U)>;
        const U nearest_even = x + 0x7fffu + ((x >> 16) & 1u);   // overflow reaches inf
        const S nan = as<S>(x & 0x7fffffffu) > 0x7f800000;
        return nan ? (x | 0x00400000u) : nearest_even;          // NaN: quiet, sign and top payload kept
    }
    // Even and odd float results, rounded, back into one register.
    template <class V> [[gnu::always_inline]] static V narrow(Floats<V> e, Floats<V> o)
    {
        using U = Vec<uint32_t, sizeof(V)>;
        return as<V>((round(as<U>(e)) >> 16) | (round(as<U>(o)) & 0xffff0000u));
    }
    template <class Isa, class V> [[gnu::always_inline]] static V compute(V a, V b)
    {
        return narrow<V>(Rule::apply(even(a), even(b)), Rule::apply(odd(a), odd(b)));
    }
};

// E4M3's NaN (S.1111.111) has no exponent of its own in binary16 or float,
// so the fp8 families compute it as a number and set it afterwards, on the
// codes: r with the NaN code (sign kept) in each byte where a or b is NaN,
// that is where the larger of the two codes with their sign bits set is 0xff.
template <class V> [[gnu::always_inline]] inline V e4m3_nan_from(V a, V b, V r)
{
    const V sign = V{} + 0x80;
    return (umax(a | sign, b | sign) == 0xff) ? r | 0x7f : r;
}

// fp8 (OCP E4M3 / E5M2) through float, base::in_float's rule: a register of
// codes widens to four registers of floats, the float rule applies, each is
// rounded once to nearest even, and the four are packed back into one
// register of codes.
//  * widening goes through float16 (Isa::widen_half: exact), the bit moves
//    on 16-bit lanes: an E5M2 code is the top byte of a binary16; an E4M3
//    code's exponent and mantissa, moved into a binary16's (sign-extending the
//    byte puts its sign at bit 15), give its value times 2^-8, subnormals
//    included. E4M3's NaN (S.1111.111) reads as +-480 there; as every op
//    gives NaN for a NaN operand, the lanes with one are set to the NaN code
//    after packing, on bytes;
//  * rounding is base::to_float8_e4m3 / e5m2 on 32-bit lanes (agrees on all
//    2^32 floats): normals by integer rounding of the float's bits,
//    subnormals by the FPU's own rounding of |f| + 2^14 (E4M3) or + 2^7
//    (E5M2), whose ulp is the format's subnormal step; overflow is a min
//    with the first code past the largest finite (E4M3: the NaN, E5M2: inf:
//    the integer rounding grows with |f|), and E5M2's NaN (inf - inf, 0 x inf
//    or a NaN operand) a compare.
template <class Rule, class T> struct Fp8ViaFloat {
    using BaseT = T;
    static constexpr bool e4m3 = std::is_same_v<T, base::Float8E4M3>;
    template <std::size_t R> using Reg = Vec<uint8_t, R>;

    // Half the codes of a register as binary16 bits (scaled by 2^-8 for E4M3).
    template <class Half, class Bytes> [[gnu::always_inline]] static Half to_half(Bytes x)
    {
        if constexpr (e4m3) {
            using Signed = Vec<int16_t, sizeof(Half)>;
            const Signed s = __builtin_convertvector(as<Vec<int8_t, sizeof(Bytes)>>(x), Signed);
            return as<Half>((s << 7) & int16_t(0xbf80));
        } else {
            return __builtin_convertvector(x, Half) << 8;
        }
    }
    // Binary16 bits (a quarter of the register's codes) as floats.
    template <class Isa, class Quarter> [[gnu::always_inline]] static auto widen(Quarter h)
    {
        const auto f = Isa::widen_half(h);
        if constexpr (e4m3) return f * 256.0f;
        else return f;
    }
    // The codes of a register of floats, one per 32-bit lane.
    template <class F> [[gnu::always_inline]] static auto round(F f)
    {
        using U = Vec<uint32_t, sizeof(F)>;
        using S = Vec<int32_t, sizeof(F)>;
        const U x = as<U>(f), abs = x & 0x7fffffffu;
        const S mag = as<S>(abs);
        U q;
        if constexpr (e4m3) {
            const U sub = as<U>(as<F>(abs) + 16384.0f) - 0x46800000u;   // - bits of 2^14
            const U nor = (abs - (120u << 23) + 0x7ffffu + ((abs >> 20) & 1u)) >> 20;
            q = mag < (121 << 23) ? sub : nor;
            q = q < 0x7fu ? q : 0x7fu;                                   // beyond 464 (inf, NaN): NaN
        } else {
            const U sub = as<U>(as<F>(abs) + 128.0f) - 0x43000000u;     // - bits of 2^7
            const U nor = (abs - (112u << 23) + 0xfffffu + ((abs >> 21) & 1u)) >> 21;
            q = mag < (113 << 23) ? sub : nor;
            q = q < 0x7cu ? q : 0x7cu;                                   // from 61440 on: inf
            q = f != f ? 0x7eu : q;                                      // NaN
        }
        return q | ((x >> 24) & 0x80u);
    }
    template <class Isa, class V> [[gnu::always_inline]] static V compute(V a, V b)
    {
        using Half = Vec<uint16_t, sizeof(V)>;
        const Half a0 = to_half<Half>(half_of<0>(a)), a1 = to_half<Half>(half_of<1>(a));
        const Half b0 = to_half<Half>(half_of<0>(b)), b1 = to_half<Half>(half_of<1>(b));
        const auto r0 = round(Rule::apply(widen<Isa>(half_of<0>(a0)), widen<Isa>(half_of<0>(b0))));
        const auto r1 = round(Rule::apply(widen<Isa>(half_of<1>(a0)), widen<Isa>(half_of<1>(b0))));
        const auto r2 = round(Rule::apply(widen<Isa>(half_of<0>(a1)), widen<Isa>(half_of<0>(b1))));
        const auto r3 = round(Rule::apply(widen<Isa>(half_of<1>(a1)), widen<Isa>(half_of<1>(b1))));
        const V r = pack<Isa, V>(r0, r1, r2, r3);
        return e4m3 ? e4m3_nan_from(a, b, r) : r;
    }
    // Four registers of codes (32-bit lanes, each < 256) as one register of
    // bytes, in order: Isa::pack_bytes where the ISA has one (GCC turns a
    // vector conversion to bytes into lane-by-lane extracts on AVX2), else
    // conversions and shuffles.
    template <class Isa, class V, class U> [[gnu::always_inline]] static V pack(U q0, U q1, U q2, U q3)
    {
        if constexpr (requires { Isa::pack_bytes(q0, q1, q2, q3); }) {
            return as<V>(Isa::pack_bytes(q0, q1, q2, q3));
        } else {
            using Q = Vec<uint8_t, sizeof(V) / 4>;
            return concat(concat(__builtin_convertvector(q0, Q), __builtin_convertvector(q1, Q)),
                          concat(__builtin_convertvector(q2, Q), __builtin_convertvector(q3, Q)));
        }
    }
};

// The larger (IsMax) or smaller of two sign-magnitude 8-bit codes seen as
// int8: two non-negatives order as their magnitudes, two negatives the other
// way round, so there the int8 maximum is the minimum.
template <bool IsMax, class S> [[gnu::always_inline]] inline S sign_magnitude_pick(S x, S y)
{
    const S hi = x > y ? x : y, lo = x < y ? x : y;
    const auto both_negative = (x & y) < 0;
    return IsMax ? (both_negative ? lo : hi) : (both_negative ? hi : lo);
}

// fp8 MAX / MIN on the codes themselves: the maximum or minimum of two fp8
// values is one of them, so base::in_float's decode, float rule and rounding
// give back that operand's code, and the order of the values is that of the
// sign-magnitude codes (seen as int8: any non-negative code is above any
// negative one, -0 = 0x80 below +0; two non-negatives order as their
// magnitudes, two negatives the other way, so there the int8 maximum is the
// minimum); a NaN operand (E4M3: S.1111.111; E5M2: S.11111.xx, xx != 0, that
// is magnitude above 0x7c, the infinity, which orders as the largest
// magnitude) gives the NaN code 0x7f. Integer instructions on bytes only:
// 64 codes per AVX-512 register where the float path widens them to four.
template <bool IsMax, class T> struct Fp8MinMax {
    using BaseOp = std::conditional_t<IsMax, base::OpMax, base::OpMin>;
    using BaseT = T;
    static constexpr bool e4m3 = std::is_same_v<T, base::Float8E4M3>;
    template <std::size_t R> using Reg = Vec<uint8_t, R>;
    template <class Isa, class V> [[gnu::always_inline]] static V compute(V a, V b)
    {
        using S = Vec<int8_t, sizeof(V)>;
        const S x = as<S>(a), y = as<S>(b);
        const S r = sign_magnitude_pick<IsMax>(x, y);
        // magnitudes as int8 (0..127): the larger one is past the last non-NaN code if either is NaN
        const S mx = x & 0x7f, my = y & 0x7f;
        const S mag = mx > my ? mx : my;
        return as<V>(mag > S{} + (e4m3 ? 0x7e : 0x7c) ? S{} + 0x7f : r);
    }
};

template <class T> inline constexpr bool is_fnuz = std::is_same_v<T, base::Float8E4M3Fnuz> || std::is_same_v<T, base::Float8E5M2Fnuz>;

// fp8 SUM through binary16 instead of float: a register of codes is two
// registers of 16-bit lanes, the even codes and the odd ones, each moved
// into a binary16's bits with integer instructions (as Fp8ViaFloat::to_half,
// without any lane crossing: E5M2 code << 8, E4M3 scaled by 2^-8); the sum is
// computed in binary16 (Isa::add_half where the ISA adds halves natively,
// AVX512-FP16, otherwise widened to float, added and rounded back to
// binary16 by vcvtps2ph) and rounded to the code by integer instructions on
// the binary16's bits. Exact: every fp8 value is a binary16 (E4M3 scaled by
// 2^-8 stays above binary16's subnormal step), and rounding the sum of two
// p-bit numbers first to q >= 2p + 1 bits and then to p bits is rounding it
// once (Figueroa 1995): 11 >= 2*4 + 1 for binary16 then fp8, 24 >= 2*11 + 1
// for float then binary16, and the base's float sum rounded to fp8 is that
// rounding too. Sums of subnormals are exact in binary16. Overflow: E5M2
// beyond 61440 is inf either way (binary16 overflows later, at 65520, and
// rounds to 0x7c00 from 61440 on); E4M3 sums stay below 4 scaled, and the
// magnitude is capped at the NaN code as Fp8ViaFloat does. NaN: an E5M2
// NaN or inf - inf is a binary16 NaN whose low byte is zero (quiet, payload
// from the code's byte), which rounds to a NaN code; E4M3 NaN operands are set
// afterwards, on bytes, as in Fp8ViaFloat.
// AMD's FNUZ formats the same way (no inf, no -0, 0x80 the one NaN, set
// afterwards on the codes as FnuzViaFloat does; an exact sum of two codes is
// never a nonzero value that rounds to zero, so a zero result has no sign):
//  * E4M3FNUZ is OCP E4M3's layout at half the value: the same bit move
//    scales it by 2^-7 (its subnormal step 2^-17 a multiple of binary16's);
//    a magnitude that rounds past the largest finite (240) reaches 0x80;
//  * E5M2FNUZ is widened at its value (bias 16 against binary16's 15: the
//    code's exponent one step down; the two lowest binades, below 2^-14,
//    binary16 subnormals whose sums are exact); the code is the rounded
//    binary16 exponent one step up, a binary16 subnormal's magnitude >> 7,
//    and from 61440 on (binary16's 0x7b80, inf included) the NaN.
template <class T> struct Fp8SumViaHalf {
    using BaseOp = base::OpSum;
    using BaseT = T;
    static constexpr bool fnuz = is_fnuz<T>;
    // the E4M3 layouts (4 exponent bits, 3 mantissa bits): OCP's and FNUZ's
    static constexpr bool e4m3 = std::is_same_v<T, base::Float8E4M3> || std::is_same_v<T, base::Float8E4M3Fnuz>;
    template <std::size_t R> using Reg = Vec<uint8_t, R>;
    template <class V> using Words = Vec<uint16_t, sizeof(V)>;
    template <class V> using SWords = Vec<int16_t, sizeof(V)>;

    // An E5M2FNUZ code in a lane's high byte (the low byte ignored) as
    // binary16 bits: the exponent a step down (mag - 0x400) from the binade
    // 2^-14 on, a binary16 subnormal's bits (mag >> 1) below it; the larger
    // of the two, as signed words, is the right one on both sides (they meet
    // at 0x800; below 0x400 the first is negative).
    template <class W> [[gnu::always_inline]] static W fnuz_e5m2_half(W code)
    {
        using SW = Vec<int16_t, sizeof(W)>;
        const W mag = code & 0x7f00u;
        const SW normal = as<SW>(W(mag - 0x400u)), subnormal = as<SW>(W(mag >> 1));
        return as<W>(normal > subnormal ? normal : subnormal) | (code & 0x8000u);
    }
    // binary16 bits of the even (low byte) and odd (high byte) codes of each 16-bit lane
    // (AsOcp: E5M2FNUZ's bytes taken as OCP E5M2's, its fast form below)
    template <bool AsOcp = false, class V> [[gnu::always_inline]] static Words<V> even(V x)
    {
        const Words<V> w = as<Words<V>>(x);
        if constexpr (e4m3) return as<Words<V>>(as<SWords<V>>(w << 8) >> 1) & 0xbf80u;
        else if constexpr (fnuz && !AsOcp) return fnuz_e5m2_half(Words<V>(w << 8));
        else return w << 8;
    }
    template <bool AsOcp = false, class V> [[gnu::always_inline]] static Words<V> odd(V x)
    {
        const Words<V> w = as<Words<V>>(x);
        if constexpr (e4m3) return as<Words<V>>(as<SWords<V>>(w) >> 1) & 0xbf80u;
        else if constexpr (fnuz && !AsOcp) return fnuz_e5m2_half(w);
        else return w & 0xff00u;
    }
    // binary16 bits to the code, nearest even, in the high byte of the lane
    // (the low byte is left over): the bits below the code's last are
    // rounded off by integer addition, the carry running into the exponent.
    template <bool AsOcp = false, class W> [[gnu::always_inline]] static W round(W h)
    {
        if constexpr (e4m3) {
            // |h| < 0x4400: no carry into the sign; t << 1 has the magnitude's
            // code in its high byte
            const W t = h + 0x3fu + ((h >> 7) & 1u), mag = t << 1;
            // OCP: capped at the NaN code (beyond 464: NaN) by an unsigned
            // minimum (a variable bound: against a constant GCC 12 emits a
            // compare and a blend instead of vpminuw); FNUZ: past 0x7f the
            // magnitude reaches bit 15, and the minimum with 0x8000 is the
            // NaN, which the sign bit leaves as it is
            return (h & 0x8000u) | umin(mag, W{} + (fnuz ? 0x8000u : 0x7fffu));
        } else if constexpr (fnuz && !AsOcp) {
            // The magnitude's code in the high byte: from the binade 2^-14 on,
            // rounded and its exponent a step up (+ 0x400), below it a
            // binary16 subnormal's bits << 1 (exact); the smaller of the two
            // is the right one on both sides (where they overlap, 0x400 to
            // 0x47f, both have code 8 in the high byte); past 0x7f (61440 on,
            // inf included) the minimum with 0x8000 is the NaN.
            const W mag = h & 0x7fffu;
            const W code = umin(W(mag + 0x47fu + ((mag >> 8) & 1u)), W(mag << 1));
            return (h & 0x8000u) | umin(code, W{} + 0x8000u);
        } else {
            return h + 0x7fu + ((h >> 8) & 1u);   // inf stays inf, a NaN (low byte 0) NaN
        }
    }
    // The codes of the even and the odd lanes' sums back into one register of bytes.
    template <class V, bool AsOcp = false, class W> [[gnu::always_inline]] static V codes(W even_sum, W odd_sum)
    {
        return as<V>((round<AsOcp>(even_sum) >> 8) | (round<AsOcp>(odd_sum) & 0xff00u));
    }
    // x + y on 16-bit lanes of binary16 bits.
    template <class Isa, class W> [[gnu::always_inline]] static W add(W x, W y)
    {
        if constexpr (requires { Isa::add_half(x, y); }) {
            return Isa::add_half(x, y);
        } else {
            const auto lo = Isa::narrow_half(Isa::widen_half(half_of<0>(x)) + Isa::widen_half(half_of<0>(y)));
            const auto hi = Isa::narrow_half(Isa::widen_half(half_of<1>(x)) + Isa::widen_half(half_of<1>(y)));
            return concat(lo, hi);
        }
    }
    // r with the NaN operands' code set, where the binary16 sum did not
    // give it (E4M3's NaN codes, FNUZ's 0x80, which read as -0 there)
    template <class V> [[gnu::always_inline]] static V nan_from(V a, V b, V r)
    {
        if constexpr (fnuz) return (a == 0x80u) | (b == 0x80u) ? V{} + 0x80 : r;
        else if constexpr (e4m3) return e4m3_nan_from(a, b, r);
        else return r;
    }
    // E5M2FNUZ's fast form: its bits read as OCP E5M2 are twice its value,
    // binade for binade, subnormals included (both have 2 mantissa bits; the
    // bias differs by one), so where no operand is in the top two binades
    // (|v| >= 16384: codes 0x78 .. 0x7f) no sum reaches the top binade, which
    // OCP has not (its exponent 11111 is inf / NaN), and the sum's code is
    // OCP E5M2's sum of the same bytes: each binary16 a shift of its code,
    // rounded by two additions. The NaN (0x80, -0 in OCP) is set afterwards.
    // Ordinary data (gradients, the benchmark's values up to 512) never
    // leaves it; a register that holds a top-binade code takes the form above.
    template <class Isa, class V> [[gnu::always_inline]] static bool below_top_binades(V a, V b)
    {
        const V top = umax(V(a & 0x7f), V(b & 0x7f)) >= 0x78;   // 0xff where a lane is in them
        if constexpr (requires { Isa::any_byte(top); }) {
            return !Isa::any_byte(top);
        } else {
            using Q = Vec<uint64_t, sizeof(V)>;
            const Q q = as<Q>(top);
            uint64_t any = 0;
            for (std::size_t l = 0; l < sizeof(V) / 8; ++l) any |= q[l];
            return any == 0;
        }
    }
    template <class Isa, class V> [[gnu::always_inline]] static V compute(V a, V b)
    {
        if constexpr (fnuz && !e4m3) {
            if (below_top_binades<Isa>(a, b)) [[likely]]
                return nan_from(a, b, codes<V, true>(add<Isa>(even<true>(a), even<true>(b)),
                                                     add<Isa>(odd<true>(a), odd<true>(b))));
        }
        return nan_from(a, b, codes<V>(add<Isa>(even(a), even(b)), add<Isa>(odd(a), odd(b))));
    }
};

// AMD's FNUZ fp8 (E4M3FNUZ, E5M2FNUZ) through float, base::in_float's rule,
// as Fp8ViaFloat: four registers of floats per register of codes.
//  * widening through binary16 (compute says how each code's bits move);
//    the NaN (0x80) reads as -0 there and is set afterwards, on the codes;
//  * rounding is base::to_float8_e4m3fnuz / e5m2fnuz on 32-bit lanes:
//    normals by integer rounding of the float's bits, subnormals by the
//    FPU's rounding of |f| + 2^(23 - (bias - 1 + M)), whose ulp is the
//    format's subnormal step; a carry past the largest finite reaches 0x80,
//    the NaN, as do inf and NaN; a zero result takes no sign (0x80 is NaN).
template <class Rule, class T> struct FnuzViaFloat {
    using BaseT = T;
    static constexpr bool e4 = std::is_same_v<T, base::Float8E4M3Fnuz>;
    static constexpr unsigned man = e4 ? 3 : 2, bias = e4 ? 8 : 16;
    template <std::size_t R> using Reg = Vec<uint8_t, R>;

    template <class F> [[gnu::always_inline]] static auto round(F f)
    {
        using U = Vec<uint32_t, sizeof(F)>;
        using S = Vec<int32_t, sizeof(F)>;
        const U x = as<U>(f), abs = x & 0x7fffffffu;
        constexpr uint32_t normal = (128u - bias) << 23;                    // bits of 2^(1 - bias)
        constexpr float step_up = float(1u << (23 - (bias - 1 + man)));    // its ulp: the subnormal step
        const U sub = as<U>(as<F>(abs) + step_up) - base::bits_as<uint32_t>(step_up);
        const U nor = (abs - ((127u - bias) << 23) + ((1u << (22 - man)) - 1) + ((abs >> (23 - man)) & 1u)) >> (23 - man);
        U q = as<S>(abs) < S{} + int(normal) ? sub : nor;
        q = q < 0x80u ? q : 0x80u;                                          // past the largest finite: NaN
        return (q - 1u) < 0x7fu ? q | ((x >> 24) & 0x80u) : q;              // 0 and the NaN take no sign
    }
    template <class Isa, class V> [[gnu::always_inline]] static V compute(V a, V b)
    {
        using W = Vec<uint16_t, sizeof(V)>;
        // Each code as binary16 bits (exact: every value of both formats is a
        // binary16), widened by the ISA's conversion, as Fp8ViaFloat does.
        //  * E4M3FNUZ is OCP E4M3's layout at half the value, every code
        //    finite but 0x80: OCP's bit move (value x 2^-7 here), scaled back;
        //  * E5M2FNUZ: exponent e >= 2 is the binary16 exponent e - 1 (bias 16
        //    against 15: the code's bits moved up a byte, less one exponent
        //    step); e = 1 and e = 0 are binary16 subnormals of mantissa
        //    (4 + m) 2^7 and m 2^7: the magnitude moved up 7 bits.
        auto to_half = [](auto bytes) {
            if constexpr (e4) {
                return Fp8ViaFloat<Rule, base::Float8E4M3>::template to_half<W>(bytes);
            } else {
                const W c = __builtin_convertvector(bytes, W), mag = c & 0x7fu;
                using SW = Vec<int16_t, sizeof(V)>;
                const W h = as<SW>(mag) >= SW{} + 8 ? W((mag << 8) - 0x400u) : W(mag << 7);
                return W(h | ((c & 0x80u) << 8));
            }
        };
        constexpr float scale = e4 ? 128.0f : 1.0f;
        auto quarter = [](auto x, auto y) {
            return round(Rule::apply(Isa::widen_half(x) * scale, Isa::widen_half(y) * scale));
        };
        const W a0 = to_half(half_of<0>(a)), a1 = to_half(half_of<1>(a));
        const W b0 = to_half(half_of<0>(b)), b1 = to_half(half_of<1>(b));
        const V r = Fp8ViaFloat<Rule, base::Float8E4M3>::template pack<Isa, V>(
            quarter(half_of<0>(a0), half_of<0>(b0)), quarter(half_of<1>(a0), half_of<1>(b0)),
            quarter(half_of<0>(a1), half_of<0>(b1)), quarter(half_of<1>(a1), half_of<1>(b1)));
        return fnuz_nan_from(a, b, r);
    }
    // r with the NaN code where a or b is the NaN
    template <class V> [[gnu::always_inline]] static V fnuz_nan_from(V a, V b, V r)
    {
        return (a == 0x80u) | (b == 0x80u) ? V{} + 0x80 : r;
    }
};

// FNUZ MAX / MIN on the codes, as Fp8MinMax: sign-magnitude codes order as
// their values seen as int8 (the two negatives the other way round); 0x80,
// the NaN, gives 0x80.
template <bool IsMax, class T> struct FnuzMinMax {
    using BaseOp = std::conditional_t<IsMax, base::OpMax, base::OpMin>;
    using BaseT = T;
    template <std::size_t R> using Reg = Vec<uint8_t, R>;
    template <class Isa, class V> [[gnu::always_inline]] static V compute(V a, V b)
    {
        using S = Vec<int8_t, sizeof(V)>;
        const S r = sign_magnitude_pick<IsMax>(as<S>(a), as<S>(b));
        return (a == 0x80u) | (b == 0x80u) ? V{} + 0x80 : as<V>(r);
    }
};

// MAXLOC / MINLOC on {value; index} pairs of 8 or 16 bytes, seen as lanes of
// half the pair: the value in the even lane (a short in its low 16 bits),
// the index in the odd lane (an int in the low 32 bits of a 64-bit lane).
// base::OpLoc: the value follows MAX / MIN, NaN and zeros included; the index
// comes with the winner, with a lone NaN, or is the smaller one on a tie
// (equal values or two NaNs).
template <bool IsMax, class Value, class Index> struct Loc {
    using BaseOp = base::OpLoc<IsMax>;
    using BaseT = base::Pair<Value, Index>;
    static_assert(sizeof(BaseT) == 8 || sizeof(BaseT) == 16, "pairs of 8 or 16 bytes");
    using Lane = typename IntOfSize<sizeof(BaseT) / 2>::u;
    template <std::size_t R> using Reg = Vec<Lane, R>;

    // The values, as lanes of the lane width (a short sign-extended).
    template <class V> [[gnu::always_inline]] static auto values(V x)
    {
        if constexpr (sizeof(Value) == sizeof(Lane)) {
            return as<Vec<Value, sizeof(V)>>(x);
        } else {
            static_assert(sizeof(Value) == 2 && sizeof(Lane) == 4);
            using S = Vec<int32_t, sizeof(V)>;
            return (as<S>(x) << 16) >> 16;
        }
    }
    // b.index < a.index, all ones over each whole odd lane.
    template <class V> [[gnu::always_inline]] static Mask<V> index_less(V a, V b)
    {
        if constexpr (sizeof(Index) == sizeof(Lane)) {
            using I = Vec<Index, sizeof(V)>;
            return as<Mask<V>>(as<I>(b) < as<I>(a));
        } else {
            static_assert(sizeof(Index) == 4 && sizeof(Lane) == 8);
            using I = Vec<int32_t, sizeof(V)>;
            const Mask<I> less = as<I>(b) < as<I>(a);   // meaningful in the low half of a lane
            return as<Mask<V>>(__builtin_shuffle(less, dup_even<Mask<I>>));
        }
    }
    // SHORT_INT (bytes 2-3) and DOUBLE_INT / LONG_INT (bytes 12-15) have
    // padding, where compute leaves lanes of no meaning (a sign extension,
    // the index lane's high half): component.h promises that no padding byte
    // is written, so those registers are stored under a mask.
    static constexpr bool padded = sizeof(Value) + sizeof(Index) < sizeof(BaseT);
    template <class V> [[gnu::always_inline]] static void store(unsigned char *p, V v)
    {
        static_assert(padded && (sizeof(BaseT) == 8 || sizeof(BaseT) == 16));
#if defined(__AVX512BW__)
        if constexpr (sizeof(V) == 64) {   // byte-granular masked stores: as fast as plain ones
            if constexpr (sizeof(BaseT) == 16)
                _mm512_mask_storeu_epi32(p, 0x7777, as<__m512i>(v));      // dwords 0-2 of each pair
            else
                _mm512_mask_storeu_epi16(p, 0xddddddddu, as<__m512i>(v)); // words 0, 2, 3 of each pair
        } else
#endif
        {
            // AVX2's vpmaskmovd store is slow on AMD (4x a plain store,
            // measured on Zen 4): member by member, straight from the
            // register's lanes (vmovq / vpextrd / vpextrw).
            using VL = UIntOf<Value>;
            using IL = UIntOf<Index>;
            const Vec<VL, sizeof(V)> values = as<Vec<VL, sizeof(V)>>(v);
            const Vec<IL, sizeof(V)> indices = as<Vec<IL, sizeof(V)>>(v);
#pragma GCC unroll 8
            for (std::size_t k = 0; k < sizeof(V); k += sizeof(BaseT)) {
                const VL value = values[(k + offsetof(BaseT, value)) / sizeof(VL)];
                const IL index = indices[(k + offsetof(BaseT, index)) / sizeof(IL)];
                __builtin_memcpy(p + k + offsetof(BaseT, value), &value, sizeof value);
                __builtin_memcpy(p + k + offsetof(BaseT, index), &index, sizeof index);
            }
        }
    }

    // Two registers at once, for the body of a call: the values of both
    // in one register and the indices in another (in-lane shuffles: vshufps,
    // vunpcklpd), so that every lane of every comparison and blend counts,
    // then back to pairs (vunpcklps / vunpckhps). Within each 16-byte block
    // of L lanes, the first L/2 lanes come from the first register, the
    // others from the second.
    template <class M> static constexpr M apart(std::size_t member)
    {
        return index_vector<M>([member](std::size_t k) {
            constexpr std::size_t n = lane_count<M>, block = 16 / sizeof(lane_t<M>), half = block / 2;
            const std::size_t base = k / block * block, p = k % block;
            return (p < half ? base + 2 * p : n + base + 2 * (p - half)) + member;
        });
    }
    template <class M> static constexpr M together(std::size_t which)
    {
        return index_vector<M>([which](std::size_t k) {
            constexpr std::size_t n = lane_count<M>, block = 16 / sizeof(lane_t<M>), half = block / 2;
            const std::size_t base = k / block * block + which * half, p = k % block;
            return (p % 2 ? n : 0) + base + p / 2;
        });
    }
    // A two-register shuffle done on floating-point lanes of the same width,
    // which lets GCC use vshufps / vunpcklpd (one instruction) where on
    // integer lanes it pairs vpshufd with vpblendd.
    template <class V, class M> [[gnu::always_inline]] static V shuffle2(V x, V y, M m)
    {
        using FP = Vec<std::conditional_t<sizeof(lane_t<V>) == 4, float, double>, sizeof(V)>;
        return as<V>(__builtin_shuffle(as<FP>(x), as<FP>(y), m));
    }
    template <class Isa, class V> [[gnu::always_inline]] static void compute2(V a0, V a1, V b0, V b1, unsigned char *out)
    {
        using M = Mask<V>;
        const V pa = shuffle2(a0, a1, apart<M>(0)), pb = shuffle2(b0, b1, apart<M>(0));
        const V ia = shuffle2(a0, a1, apart<M>(1)), ib = shuffle2(b0, b1, apart<M>(1));
        const auto va = values(pa), vb = values(pb);
        M b_first, tie, equal = {};
        if constexpr (is_float_lane<Value>) {
            const M na = as<M>(va != va), nb = as<M>(vb != vb);
            // !(a >= b) (MAX) or !(a <= b) (MIN): b better, or either a NaN; less a NaN
            b_first = ~(as<M>(IsMax ? va >= vb : va <= vb) | na);
            equal = as<M>(va == vb);
            tie = equal | (na & nb);
        } else {
            b_first = as<M>(IsMax ? vb > va : vb < va);
            tie = as<M>(va == vb);
        }
        M index_less;   // b.index < a.index
        if constexpr (std::is_floating_point_v<Index> || sizeof(Index) == sizeof(Lane)) {
            using I = Vec<Index, sizeof(V)>;
            index_less = as<M>(as<I>(ib) < as<I>(ia));
        } else {   // an int in the low half of a 64-bit lane, the padding above it
            using I = Vec<int64_t, sizeof(V)>;
            index_less = as<M>(as<I>(ib << 32) < as<I>(ia << 32));
        }
        const M take_b = b_first | (tie & index_less);
        V v = take_b ? pb : pa;
        if constexpr (is_float_lane<Value>)   // equal values: a & b (MAX) or a | b (MIN) orders -0 < +0
            v = equal ? (IsMax ? pa & pb : pa | pb) : v;
        const V i = take_b ? ib : ia;
        if constexpr (padded && sizeof(V) < 64) {
            store_apart(out, v, i);
        } else {
            store_results<Loc>(out, shuffle2(v, i, together<M>(0)));
            store_results<Loc>(out + sizeof(V), shuffle2(v, i, together<M>(1)));
        }
    }
    // Padded pairs without byte-masked stores (AVX2): each member straight
    // from its lane of the values and of the indices, without the shuffles
    // back to pairs (two stores per pair are the bound here).
    template <class V> [[gnu::always_inline]] static void store_apart(unsigned char *out, V v, V i)
    {
        constexpr std::size_t block = 16 / sizeof(Lane), half = block / 2;
        using VL = UIntOf<Value>;
        using IL = UIntOf<Index>;
        const Vec<VL, sizeof(V)> values = as<Vec<VL, sizeof(V)>>(v);
        const Vec<IL, sizeof(V)> indices = as<Vec<IL, sizeof(V)>>(i);
#pragma GCC unroll 16
        for (std::size_t k = 0; k < lane_count<V>; ++k) {
            const std::size_t p = k % block;
            unsigned char *pair = out + (p < half ? 0 : sizeof(V)) + k / block * 16 + p % half * sizeof(BaseT);
            const VL value = values[k * sizeof(Lane) / sizeof(VL)];
            const IL index = indices[k * sizeof(Lane) / sizeof(IL)];
            __builtin_memcpy(pair + offsetof(BaseT, value), &value, sizeof value);
            __builtin_memcpy(pair + offsetof(BaseT, index), &index, sizeof index);
        }
    }

    template <class Isa, class V> [[gnu::always_inline]] static V compute(V a, V b)
    {
        using M = Mask<V>;
        const auto va = values(a), vb = values(b);
        M a_first, b_first;
        if constexpr (IsMax) {
            a_first = as<M>(va > vb);
            b_first = as<M>(vb > va);
        } else {
            a_first = as<M>(va < vb);
            b_first = as<M>(vb < va);
        }
        if constexpr (is_float_lane<Value>) {   // a lone NaN wins
            const M na = as<M>(va != va), nb = as<M>(vb != vb);
            a_first |= na & ~nb;
            b_first |= nb & ~na;
        }
        // decisions from the value lanes over to the index lanes
        a_first = __builtin_shuffle(a_first, dup_even<M>);
        b_first = __builtin_shuffle(b_first, dup_even<M>);
        const M take_b = b_first | (index_less(a, b) & ~a_first);
        const V index = take_b ? b : a;
        V value;
        if constexpr (IsMax) value = as<V>(RMax::apply(va, vb));
        else value = as<V>(RMin::apply(va, vb));
        return __builtin_shuffle(value, index, even_odd<M>);
    }
};

// MAXLOC / MINLOC on 2INT ({int value; int index}, 8 bytes, no padding)
// by one signed 64-bit comparison per pair: the pair's key has the value in
// its high half and the index below it, the index turned so that, of two
// equal values, the smaller index is the better key (MAX: index ^
// 0x7fffffff, as unsigned bits larger for a smaller index; MIN: index ^
// 0x80000000, as unsigned bits in the index's order). The pair with the
// better key wins whole, value and index: base::OpLoc on integers, the
// smaller index on equal values. No shuffles to put values and indices
// apart, one comparison and one blend a register (MaskLoc: three
// comparisons and six shuffles per two). x86's families choose it
// (avx512_kernels.cpp, avx2_kernels.cpp; on an Emerald Rapids Xeon, 2INT
// 16 KiB, worst data kind, of the roofline: avx512 0.54 -> 0.75, avx2 0.38
// -> 0.42, where the halves are swapped by vpshufd: with AVX2's three-op
// rotate it was slower than Loc).
template <bool IsMax> struct KeyLoc {
    using BaseOp = base::OpLoc<IsMax>;
    using BaseT = base::Pair<int, int>;
    static_assert(sizeof(BaseT) == 8 && offsetof(BaseT, index) == 4, "value in the low half of the 64-bit lane");
    template <std::size_t R> using Reg = Vec<uint64_t, R>;
    template <class V> [[gnu::always_inline]] static Vec<int64_t, sizeof(V)> key(V pair)
    {
        constexpr uint64_t turn = IsMax ? 0x7fffffffu : 0x80000000u;
        V swapped;
        if constexpr (sizeof(V) == 64) {   // vprolq (port 0; the comparison needs port 5)
            swapped = (pair << 32) | (pair >> 32);
        } else {                           // no 64-bit rotate below AVX-512: vpshufd
            using D = Vec<uint32_t, sizeof(V)>;
            swapped = as<V>(__builtin_shuffle(as<D>(pair), index_vector<Mask<D>>([](std::size_t k) { return k ^ 1; })));
        }
        return as<Vec<int64_t, sizeof(V)>>(swapped ^ turn);
    }
    template <class Isa, class V> [[gnu::always_inline]] static V compute(V a, V b)
    {
        const auto ka = key(a), kb = key(b);
        return (IsMax ? kb > ka : kb < ka) ? b : a;
    }
};

// ---- which family serves (op, kernel type) ----------------------------------
template <class T> inline constexpr bool is_lane_type =
    (base::is_integer<T> && sizeof(T) <= 8) || std::is_same_v<T, float> || std::is_same_v<T, double>;

template <class F, class Op> struct WithOp : F { using BaseOp = Op; };

template <class Op, class T> struct FamilyFor { using type = void; };

template <class Op, class T>
    requires(Op::template defined<T> && !std::is_void_v<rule_of<Op>> && is_lane_type<T>)
struct FamilyFor<Op, T> { using type = Lanes<rule_of<Op>, T, Op>; };

template <class Op>
    requires(Op::template defined<base::Half> && !std::is_void_v<rule_of<Op>>)
struct FamilyFor<Op, base::Half> { using type = WithOp<HalfViaFloat<rule_of<Op>>, Op>; };

template <class Op>
    requires(Op::template defined<base::BFloat16> && !std::is_void_v<rule_of<Op>>)
struct FamilyFor<Op, base::BFloat16> { using type = WithOp<BFloat16ViaFloat<rule_of<Op>>, Op>; };

template <class Op, class T>
    requires((std::is_same_v<T, base::Float8E4M3> || std::is_same_v<T, base::Float8E5M2>) &&
             Op::template defined<T> && !std::is_void_v<rule_of<Op>> &&
             !std::is_same_v<Op, base::OpMax> && !std::is_same_v<Op, base::OpMin> && !std::is_same_v<Op, base::OpSum>)
struct FamilyFor<Op, T> { using type = WithOp<Fp8ViaFloat<rule_of<Op>, T>, Op>; };

template <class T>
    requires(std::is_same_v<T, base::Float8E4M3> || std::is_same_v<T, base::Float8E5M2> || is_fnuz<T>)
struct FamilyFor<base::OpSum, T> { using type = Fp8SumViaHalf<T>; };

template <class Op, class T>
    requires((std::is_same_v<T, base::Float8E4M3> || std::is_same_v<T, base::Float8E5M2>) &&
             Op::template defined<T> && (std::is_same_v<Op, base::OpMax> || std::is_same_v<Op, base::OpMin>))
struct FamilyFor<Op, T> { using type = Fp8MinMax<std::is_same_v<Op, base::OpMax>, T>; };

template <class Op, class T>
    requires(is_fnuz<T> && Op::template defined<T> && !std::is_void_v<rule_of<Op>> &&
             !std::is_same_v<Op, base::OpMax> && !std::is_same_v<Op, base::OpMin> && !std::is_same_v<Op, base::OpSum>)
struct FamilyFor<Op, T> { using type = WithOp<FnuzViaFloat<rule_of<Op>, T>, Op>; };

template <class Op, class T>
    requires(is_fnuz<T> && (std::is_same_v<Op, base::OpMax> || std::is_same_v<Op, base::OpMin>))
struct FamilyFor<Op, T> { using type = FnuzMinMax<std::is_same_v<Op, base::OpMax>, T>; };

template <class Real>
    requires(std::is_same_v<Real, float> || std::is_same_v<Real, double>)
struct FamilyFor<base::OpSum, base::Complex<Real>> { using type = Lanes<RSum, Real, base::OpSum, base::Complex<Real>>; };

template <class Real>
    requires(std::is_same_v<Real, float> || std::is_same_v<Real, double>)
struct FamilyFor<base::OpProd, base::Complex<Real>> { using type = ComplexProd<Real>; };

template <bool IsMax, class Value, class Index>
    requires(!std::is_same_v<Value, long double>)
struct FamilyFor<base::OpLoc<IsMax>, base::Pair<Value, Index>> { using type = Loc<IsMax, Value, Index>; };

template <class Op, class T> using family_for = typename FamilyFor<Op, T>::type;

} // namespace opf::simd
