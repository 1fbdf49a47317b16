// avx512_kernels.cpp — the avx512 component's kernels: simd.h's kernels on
// 512-bit registers, tails under byte masks (vmovdqu8 {k}). Built with
// -mavx512f -mavx512bw -mavx512vl -mavx512dq -ffp-contract=off
// -fno-fast-math and WITHOUT -mfma. The AVX512-FP16 and AVX512-BF16 kernels
// get function-level targets (a function only inlines code of its own
// target, hence driver.inc's second and third copies). Data only reaches the
// life cycle (opf_op_avx512.cpp, built without ISA flags): the constant
// tables below.
#include <immintrin.h>

#include "components/simd/kernels.h"

#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VL__) || !defined(__AVX512DQ__)
#error "avx512_kernels.cpp is built with -mavx512f -mavx512bw -mavx512vl -mavx512dq"
#endif
#if defined(__FMA__)
#error "avx512_kernels.cpp is built without -mfma: the kernels must not contract a*b+c"
#endif
#if defined(__AVX512FP16__) || defined(__AVX512BF16__)
#error "avx512_kernels.cpp is built without -mavx512fp16 / -mavx512bf16: only the functions that need them are"
#endif

namespace opf::simd {
namespace {

// ---- MAXLOC / MINLOC with mask registers ------------------------------------------
// simd.h's Loc works on vector masks, which AVX-512 only has as k-registers:
// GCC converts every comparison back and forth (vpmovm2d / vpmovd2m). Here
// the decisions stay in k-registers from the comparisons to the blend and to
// the store, whose byte mask leaves each pair's padding unwritten.
// A register holds 8 pairs of 8 bytes as dword lanes or 4 pairs of 16 bytes
// as qword lanes, the value in the even lane (a short in its low 16 bits),
// the index in the odd one (an int in the low 32 bits of a qword). Per pair,
// as base::OpLoc:
//   b_first  b's value wins (floating point: or b alone is NaN)
//   tie      equal values, or two NaNs: the smaller index wins
//   take_b   b_first, or a tie and b's index smaller;
// b's lanes where take_b, a's elsewhere; on equal floating-point values the
// value is a & b (MAX) or a | b (MIN), which orders -0 < +0 and is the value
// itself otherwise.
// Bytes [from, to) of a 64-byte register, 0 <= from <= to <= 64.
[[gnu::always_inline]] inline __mmask64 byte_range(std::size_t from, std::size_t to)
{
    const auto below = [](std::size_t n) { return n >= 64 ? ~__mmask64(0) : (__mmask64(1) << n) - 1; };
    return below(to) & ~below(from);
}

template <bool IsMax, class Value, class Index> struct MaskLoc {
    using BaseOp = base::OpLoc<IsMax>;
    using BaseT = base::Pair<Value, Index>;
    static_assert(sizeof(BaseT) == 8 || sizeof(BaseT) == 16);
    template <std::size_t R> using Reg = Vec<long long, R>;
    static constexpr bool wide = sizeof(BaseT) == 16;   // qword lanes
    using K = std::conditional_t<wide, __mmask8, __mmask16>;
    static constexpr K even = wide ? 0x55 : 0x5555, odd = K(even << 1);

    static constexpr bool padded = offsetof(BaseT, index) + sizeof(Index) < sizeof(BaseT) ||
                                   sizeof(Value) < offsetof(BaseT, index);
    static constexpr bool masked_padding = true;
    // The data bytes of a register: a pair's value and index bytes, repeated.
    static constexpr __mmask64 data_bytes = [] {
        __mmask64 m = 0;
        for (std::size_t k = 0; k < 64; ++k) {
            const std::size_t at = k % sizeof(BaseT);
            const bool value = at < sizeof(Value);
            const bool index = at >= offsetof(BaseT, index) && at < offsetof(BaseT, index) + sizeof(Index);
            if (value || index) m |= __mmask64(1) << k;
        }
        return m;
    }();
    [[gnu::always_inline]] static void store(unsigned char *p, Reg<64> v)
    {
        _mm512_mask_storeu_epi8(p, data_bytes, as<__m512i>(v));
    }
    [[gnu::always_inline]] static void store_partial(unsigned char *p, Reg<64> v, std::size_t nbytes)
    {
        _mm512_mask_storeu_epi8(p, data_bytes & (nbytes >= 64 ? ~__mmask64(0) : (__mmask64(1) << nbytes) - 1),
                                as<__m512i>(v));
    }
    // The head (driver.inc, head_in_block): data bytes [from, to) of the register at p.
    [[gnu::always_inline]] static void store_range(unsigned char *p, Reg<64> v, std::size_t from, std::size_t to)
    {
        _mm512_mask_storeu_epi8(p, data_bytes & byte_range(from, to), as<__m512i>(v));
    }

    // x << S in lanes of L (the vector form: GCC 12's _mm512_slli_* warn of an undefined source).
    template <class L, int S> [[gnu::always_inline]] static __m512i shl(__m512i x)
    {
        return as<__m512i>(as<Vec<L, 64>>(x) << S);
    }
    template <int P> [[gnu::always_inline]] static K cmp_float(K lanes, __m512i a, __m512i b)
    {
        if constexpr (wide) return _mm512_mask_cmp_pd_mask(lanes, _mm512_castsi512_pd(a), _mm512_castsi512_pd(b), P);
        else return _mm512_mask_cmp_ps_mask(lanes, _mm512_castsi512_ps(a), _mm512_castsi512_ps(b), P);
    }
    template <int P> [[gnu::always_inline]] static K cmp_int(K lanes, __m512i a, __m512i b)
    {
        if constexpr (wide) return _mm512_mask_cmp_epi64_mask(lanes, a, b, P);
        else return _mm512_mask_cmp_epi32_mask(lanes, a, b, P);
    }
    [[gnu::always_inline]] static __m512i blend(K take_b, __m512i a, __m512i b)
    {
        if constexpr (wide) return _mm512_mask_blend_epi64(take_b, a, b);
        else return _mm512_mask_blend_epi32(take_b, a, b);
    }

    // The decisions on the value lanes `lanes` of a and b.
    struct Decisions { K b_first, tie, equal; };
    [[gnu::always_inline]] static Decisions decide(K lanes, __m512i a, __m512i b)
    {
        if constexpr (std::is_floating_point_v<Value>) {
            const K na = cmp_float<_CMP_UNORD_Q>(lanes, a, a), both_nan = cmp_float<_CMP_UNORD_Q>(na, b, b);
            // !(a >= b) (MAX) or !(a <= b) (MIN): b better, or either a NaN; less a NaN
            const K b_first = K(cmp_float<IsMax ? _CMP_NGE_UQ : _CMP_NLE_UQ>(lanes, a, b) & ~na);
            const K equal = cmp_float<_CMP_EQ_OQ>(lanes, a, b);
            return {b_first, K(equal | both_nan), equal};
        } else {
            if constexpr (sizeof(Value) == 2) {   // a short, to the top of its dword
                a = shl<uint32_t, 16>(a);
                b = shl<uint32_t, 16>(b);
            }
            return {cmp_int<IsMax ? _MM_CMPINT_LT : _MM_CMPINT_NLE>(lanes, a, b), cmp_int<_MM_CMPINT_EQ>(lanes, a, b), 0};
        }
    }
    // b.index < a.index on the index lanes `lanes`.
    [[gnu::always_inline]] static K index_less(K lanes, __m512i a, __m512i b)
    {
        if constexpr (std::is_floating_point_v<Index>)
            return cmp_float<_CMP_LT_OQ>(lanes, b, a);
        else if constexpr (wide)   // an int in the low half of a qword, the padding above it
            return cmp_int<_MM_CMPINT_LT>(lanes, shl<uint64_t, 32>(b), shl<uint64_t, 32>(a));
        else
            return cmp_int<_MM_CMPINT_LT>(lanes, b, a);
    }
    // The value on equal floating-point values: a & b (MAX) or a | b (MIN).
    [[gnu::always_inline]] static __m512i on_equal(__m512i r, K equal, __m512i a, __m512i b)
    {
        if constexpr (!std::is_floating_point_v<Value>) return r;
        else if constexpr (wide) return IsMax ? _mm512_mask_and_epi64(r, equal, a, b) : _mm512_mask_or_epi64(r, equal, a, b);
        else return IsMax ? _mm512_mask_and_epi32(r, equal, a, b) : _mm512_mask_or_epi32(r, equal, a, b);
    }

    // One register (heads, tails, short calls), as stored: value lanes even, index lanes odd.
    template <class Isa, class V> [[gnu::always_inline]] static V compute(V va, V vb)
    {
        const __m512i a = as<__m512i>(va), b = as<__m512i>(vb);
        const Decisions d = decide(even, a, b);
        const K take_b = K(d.b_first | (d.tie & (index_less(odd, a, b) >> 1)));
        return as<V>(on_equal(blend(K(take_b | (take_b << 1)), a, b), d.equal, a, b));
    }

    // Two registers at once: the values of both in one register and the
    // indices in another (in-lane shuffles, vshufps / vunpcklpd), so that
    // every lane of every comparison counts, then back to pairs (vunpcklps /
    // vunpcklpd). Within each 16-byte block, the first half of the lanes
    // belongs to the first register, the second half to the second.
    // vpunpck{l,h}{dq,qdq} of the lane width, in the vector form (GCC 12's
    // _mm512_unpack* warn of an undefined source): per 16-byte block,
    // x[0] y[0] x[1] y[1] .. of its low (or high) half.
    template <bool High> [[gnu::always_inline]] static __m512i unpack(__m512i x, __m512i y)
    {
        using W = Vec<std::conditional_t<wide, uint64_t, uint32_t>, 64>;
        using M = Mask<W>;
        constexpr M interleave = index_vector<M>([](std::size_t k) {
            constexpr std::size_t block = 16 / sizeof(lane_t<M>);
            return (k % 2 ? lane_count<M> : 0) + k / block * block + k % block / 2 + (High ? block / 2 : 0);
        });
        return as<__m512i>(__builtin_shuffle(as<W>(x), as<W>(y), interleave));
    }
    [[gnu::always_inline]] static __m512i values2(__m512i x0, __m512i x1)
    {
        if constexpr (wide) return unpack<false>(x0, x1);
        else return _mm512_castps_si512(_mm512_shuffle_ps(_mm512_castsi512_ps(x0), _mm512_castsi512_ps(x1), 0x88));
    }
    [[gnu::always_inline]] static __m512i indices2(__m512i x0, __m512i x1)
    {
        if constexpr (wide) return unpack<true>(x0, x1);
        else return _mm512_castps_si512(_mm512_shuffle_ps(_mm512_castsi512_ps(x0), _mm512_castsi512_ps(x1), 0xdd));
    }
    template <class Isa, class V> [[gnu::always_inline]] static void compute2(V a0, V a1, V b0, V b1, unsigned char *out)
    {
        const __m512i xa0 = as<__m512i>(a0), xa1 = as<__m512i>(a1), xb0 = as<__m512i>(b0), xb1 = as<__m512i>(b1);
        const __m512i va = values2(xa0, xa1), vb = values2(xb0, xb1), ia = indices2(xa0, xa1), ib = indices2(xb0, xb1);
        constexpr K all = K(~K(0));
        const Decisions d = decide(all, va, vb);
        const K take_b = K(d.b_first | index_less(d.tie, ia, ib));   // the index compared on ties only
        const __m512i v = on_equal(blend(take_b, va, vb), d.equal, va, vb), i = blend(take_b, ia, ib);
        store_results<MaskLoc>(out, as<V>(unpack<false>(v, i)));
        store_results<MaskLoc>(out + 64, as<V>(unpack<true>(v, i)));
    }
};

// ---- MAX / MIN of float and double: one vrangeps per register off NaN -----------
// simd.h's exact form is three instructions per register (vrangeps, an
// unordered compare, a masked OR): vrangeps orders -0 < +0 but returns the
// other operand where one is a quiet NaN. Here a block of `block` registers
// is computed with vrangeps alone while one ordered compare per register,
// chained through its k-register (vcmpordps k{k}: no k-instruction of its
// own), tells whether any lane of either input is NaN; only then is the
// block computed again by the exact form. Nothing is stored before the
// check, so out may be either input. Two instructions per register (on an
// Intel core vrangeps and the compare go to different ports) where the exact
// form takes three; Emerald Rapids, MAX FLOAT 16 KiB in L1: README.md.
template <bool IsMax, class T> struct ScreenedRange {
    using BaseOp = std::conditional_t<IsMax, base::OpMax, base::OpMin>;
    using BaseT = T;
    using Rule = std::conditional_t<IsMax, RMax, RMin>;
    template <std::size_t R> using Reg = Vec<T, R>;
    // Four registers a block: one chain of four masked compares to test
    // (2-vCPU Zen 5: with blocks of 8, MAX / MIN FLOAT and DOUBLE ran 1.10-1.17x
    // longer at 4-16 KiB and up to 1.3x at 1 KiB 16 bytes past a line; not
    // measured on an Intel core).
    static constexpr std::size_t block = 4;
    // (Its ends: the driver's masked head in out's aligned block and masked
    // tail. As overlapping whole registers, 2-buffer MAX FLOAT 1 KiB at 16
    // bytes past a line took 17.5 ns against 16.2, 11.5 aligned.)
    static constexpr bool single = std::is_same_v<T, float>;
    using K = std::conditional_t<single, __mmask16, __mmask8>;
    static constexpr int imm = IsMax ? 0x5 : 0x4;

    template <class Isa, class V> [[gnu::always_inline]] static V compute(V a, V b) { return Rule::apply(a, b); }

    template <class Isa> [[gnu::always_inline]] static void compute_block(const unsigned char *a, const unsigned char *b,
                                                                          unsigned char *o)
    {
        using V = Vec<T, 64>;
        V r[block];
        K ordered = K(~K(0));
#pragma GCC unroll 8
        for (std::size_t j = 0; j < block; ++j) {
            V x = loadu<V>(a + 64 * j), y = loadu<V>(b + 64 * j);
            // in registers: folded into both instructions, each input would be loaded twice
            asm("" : "+v"(x), "+v"(y));
            if constexpr (single) {
                r[j] = as<V>(_mm512_range_ps(as<__m512>(x), as<__m512>(y), imm));
                ordered = _mm512_mask_cmp_ps_mask(ordered, as<__m512>(x), as<__m512>(y), _CMP_ORD_Q);
            } else {
                r[j] = as<V>(_mm512_range_pd(as<__m512d>(x), as<__m512d>(y), imm));
                ordered = _mm512_mask_cmp_pd_mask(ordered, as<__m512d>(x), as<__m512d>(y), _CMP_ORD_Q);
            }
        }
        bool all_ordered;
        if constexpr (single) all_ordered = _kortestc_mask16_u8(ordered, ordered);
        else all_ordered = _kortestc_mask8_u8(ordered, ordered);
        if (__builtin_expect(!all_ordered, 0)) {
            // (the inputs loaded again: kept from the loop above, they would take
            // registers the block does not have and be spilled on every block)
            asm volatile("" ::: "memory");
#pragma GCC unroll 8
            for (std::size_t j = 0; j < block; ++j) r[j] = Rule::apply(loadu<V>(a + 64 * j), loadu<V>(b + 64 * j));
        }
#pragma GCC unroll 8
        for (std::size_t j = 0; j < block; ++j) storeu(o + 64 * j, r[j]);
    }
};

template <class Op, class T> struct Avx512Family { using type = void; };
template <class T>
    requires(std::is_same_v<T, float> || std::is_same_v<T, double>)
struct Avx512Family<base::OpMax, T> { using type = ScreenedRange<true, T>; };
template <class T>
    requires(std::is_same_v<T, float> || std::is_same_v<T, double>)
struct Avx512Family<base::OpMin, T> { using type = ScreenedRange<false, T>; };
template <bool IsMax, class Value, class Index>
    requires(!std::is_same_v<Value, long double> && !(std::is_same_v<Value, int> && std::is_same_v<Index, int>))
struct Avx512Family<base::OpLoc<IsMax>, base::Pair<Value, Index>> { using type = MaskLoc<IsMax, Value, Index>; };
template <bool IsMax> struct Avx512Family<base::OpLoc<IsMax>, base::Pair<int, int>> { using type = KeyLoc<IsMax>; };

struct Avx512 {
    static constexpr std::size_t bytes = 64;
    template <class Op, class T> using Family = Avx512Family<Op, T>;
    // Whether any byte of a register of 0 / 0xff lanes is set (vptestmq, kortest; simd.h, screens).
    template <class V> [[gnu::always_inline]] static bool any_byte(V v)
    {
        if constexpr (sizeof(V) == 64) return _mm512_test_epi64_mask(as<__m512i>(v), as<__m512i>(v)) != 0;
        else return !_mm256_testz_si256(as<__m256i>(v), as<__m256i>(v));
    }
    // Tails: one register under a byte mask, whatever the element size.
    static constexpr std::size_t granule = 1;
    static __mmask64 byte_mask(std::size_t nbytes) { return nbytes >= 64 ? ~__mmask64(0) : (__mmask64(1) << nbytes) - 1; }
    // Registers of 64 or (float16 through float) 32 bytes.
    template <class V> [[gnu::always_inline]] static V load_partial(const unsigned char *p, std::size_t nbytes)
    {
        if constexpr (sizeof(V) == 64) return as<V>(_mm512_maskz_loadu_epi8(byte_mask(nbytes), p));
        else return as<V>(_mm256_maskz_loadu_epi8(__mmask32(byte_mask(nbytes)), p));
    }
    template <class V> [[gnu::always_inline]] static void store_partial(unsigned char *p, V v, std::size_t nbytes)
    {
        if constexpr (sizeof(V) == 64) _mm512_mask_storeu_epi8(p, byte_mask(nbytes), as<__m512i>(v));
        else _mm256_mask_storeu_epi8(p, __mmask32(byte_mask(nbytes)), as<__m256i>(v));
    }
    // Bytes [from, to) of the register at p, the others neither read nor
    // written (the head in out's aligned block: driver.inc, head_in_block).
    template <class V> [[gnu::always_inline]] static V load_range(const unsigned char *p, std::size_t from, std::size_t to)
    {
        if constexpr (sizeof(V) == 64) return as<V>(_mm512_maskz_loadu_epi8(byte_range(from, to), p));
        else return as<V>(_mm256_maskz_loadu_epi8(__mmask32(byte_range(from, to)), p));
    }
    template <class V> [[gnu::always_inline]] static void store_range(unsigned char *p, V v, std::size_t from, std::size_t to)
    {
        if constexpr (sizeof(V) == 64) _mm512_mask_storeu_epi8(p, byte_range(from, to), as<__m512i>(v));
        else _mm256_mask_storeu_epi8(p, __mmask32(byte_range(from, to)), as<__m256i>(v));
    }

    // float16 <-> float, 16 lanes; vcvtps2ph imm 0: round to nearest even. (The
    // maskz forms with an all-ones mask are the plain instructions, without
    // GCC 12's -Wmaybe-uninitialized on the unmasked forms' undefined source.)
    static constexpr __mmask16 all16 = 0xffff;
    [[gnu::always_inline]] static Vec<float, 64> widen_half(Vec<uint16_t, 32> h)
    {
        return as<Vec<float, 64>>(_mm512_maskz_cvtph_ps(all16, as<__m256i>(h)));
    }
    [[gnu::always_inline]] static Vec<uint16_t, 32> narrow_half(Vec<float, 64> f)
    {
        return as<Vec<uint16_t, 32>>(_mm512_maskz_cvtps_ph(all16, as<__m512>(f), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }

    // fp8 (simd.h, Fp8ViaFloat): four registers of codes in 32-bit lanes to
    // 64 bytes in order, vpmovdb each.
    [[gnu::always_inline]] static Vec<uint8_t, 64> pack_bytes(Vec<uint32_t, 64> q0, Vec<uint32_t, 64> q1,
                                                              Vec<uint32_t, 64> q2, Vec<uint32_t, 64> q3)
    {
        const auto bytes = [](Vec<uint32_t, 64> q) { return as<Vec<uint8_t, 16>>(_mm512_maskz_cvtepi32_epi8(all16, as<__m512i>(q))); };
        return concat(concat(bytes(q0), bytes(q1)), concat(bytes(q2), bytes(q3)));
    }

    // Slots measured not to beat the base with AVX-512 (see README.md).
    template <class Op, class T> static constexpr bool offers = true;
};

// ---- float16 in native half precision (AVX512-FP16) ---------------------------------
// Compiled for avx512fp16 (function-level target), installed by the life
// cycle's adjust only where hw->x86_features has it. Exactly base::in_float: MAX/MIN pick an
// operand (or a NaN) and use the same rules as float; SUM and PROD round the
// exact result once in half precision, while the base rounds it first to
// float and then to half. The two agree because float has 24 >= 2*11 + 2
// significand bits, which makes the double rounding innocuous for + and *
// (Figueroa 1995); products of halves are even exact in float, and sums
// below the half normal range are exact in both. (Checked on all 2^32 pairs
// of halves for the four ops: check_narrow.cpp.)
#pragma GCC push_options
#pragma GCC target("avx512fp16")
namespace fp16 {

#include "components/simd/driver.inc"

template <class Rule> struct NativeHalf {
    using BaseT = base::Half;
    template <std::size_t R> using Reg = Vec<uint16_t, R>;
    template <class Isa, class V> [[gnu::always_inline]] static V compute(V a, V b)
    {
        using H = Vec<_Float16, sizeof(V)>;
        return as<V>(Rule::apply(as<H>(a), as<H>(b)));
    }
};

// fp8 SUM (simd.h, Fp8SumViaHalf) with the binary16 sums done by vaddph:
// no widening to float and back (vcvtph2ps / vcvtps2ph are two uops each on
// 512-bit registers).
// (Its own compute, defined here: simd.h's is compiled without avx512fp16
// and could not inline vaddph.)
template <class T> struct NativeFp8Sum : Fp8SumViaHalf<T> {
    using Via = Fp8SumViaHalf<T>;
    template <class Isa, class V> [[gnu::always_inline]] static V compute(V a, V b)
    {
        using W = typename Via::template Words<V>;
        using H = Vec<_Float16, sizeof(V)>;
        return Via::nan_from(a, b, Via::template codes<V>(as<W>(as<H>(Via::even(a)) + as<H>(Via::even(b))),
                                                           as<W>(as<H>(Via::odd(a)) + as<H>(Via::odd(b)))));
    }
};

// The OPF_KT_FLOAT16 column, and SUM in the four 8-bit float columns.
struct Slots {
    template <std::size_t O, std::size_t K> static constexpr SlotFns entry()
    {
        using Op = base::at_t<O, base::Ops>;
        if constexpr (K == OPF_KT_FLOAT16 && Op::template defined<base::Half> && !std::is_void_v<rule_of<Op>>) {
            using F = NativeHalf<rule_of<Op>>;
            return {&kernel2<F, Avx512>, &kernel3<F, Avx512>, &kernel_n<F, Avx512>, once_kernel<Op, base::Half, Avx512>()};
        } else if constexpr ((K == OPF_KT_FLOAT8_E4M3 || K == OPF_KT_FLOAT8_E5M2 || K == OPF_KT_FLOAT8_E4M3FNUZ ||
                              K == OPF_KT_FLOAT8_E5M2FNUZ) && std::is_same_v<Op, base::OpSum>) {
            using T = base::at_t<K, base::KernelTypes>;
            using F = NativeFp8Sum<T>;
            return {&kernel2<F, Avx512>, &kernel3<F, Avx512>, &kernel_n<F, Avx512>};
        } else {
            return {};
        }
    }
};

} // namespace fp16
#pragma GCC pop_options

// ---- bfloat16 rounded by AVX512-BF16 ----------------------------------------------------
// vcvtne2ps2bf16 rounds two registers of floats to nearest even in one
// instruction, exactly as base::to_bfloat16 except that it takes denormal
// floats for zeros (all 2^32 inputs checked: only denormals differ, NaN stays
// NaN). So each register of results is first classified (vfpclassps,
// denormal); one that holds a denormal is rounded by the integer path
// instead. The widening and the float rule are BFloat16ViaFloat's.
#pragma GCC push_options
#pragma GCC target("avx512bf16")
namespace bf16 {

#include "components/simd/driver.inc"

template <class Rule> struct GuardedBFloat16 : BFloat16ViaFloat<Rule> {
    using Via = BFloat16ViaFloat<Rule>;
    template <class Isa, class V> [[gnu::always_inline]] static V compute(V a, V b)
    {
        using M = Vec<int16_t, sizeof(V)>;
        // vpermw: the even results come packed first, the odd ones second
        constexpr M interleave = index_vector<M>([](std::size_t k) { return k / 2 + (k & 1) * lane_count<M> / 2; });
        const auto e = Rule::apply(Via::even(a), Via::even(b)), o = Rule::apply(Via::odd(a), Via::odd(b));
        constexpr int denormal = 0x20;
        if (__builtin_expect((_mm512_fpclass_ps_mask(as<__m512>(e), denormal) |
                              _mm512_fpclass_ps_mask(as<__m512>(o), denormal)) != 0, 0))
            return Via::template narrow<V>(e, o);
        const __m512bh packed = _mm512_cvtne2ps_pbh(as<__m512>(o), as<__m512>(e));   // low half: e
        return as<V>(_mm512_permutexvar_epi16(as<__m512i>(interleave), as<__m512i>(packed)));
    }
};

// The OPF_KT_BFLOAT16 column.
struct Slots {
    template <std::size_t O, std::size_t K> static constexpr SlotFns entry()
    {
        using Op = base::at_t<O, base::Ops>;
        if constexpr (K == OPF_KT_BFLOAT16 && Op::template defined<base::BFloat16> && !std::is_void_v<rule_of<Op>>) {
            using F = WithOp<GuardedBFloat16<rule_of<Op>>, Op>;
            return {&kernel2<F, Avx512>, &kernel3<F, Avx512>, &kernel_n<F, Avx512>,
                    once_kernel<Op, base::BFloat16, Avx512>()};
        } else {
            return {};
        }
    }
};

} // namespace bf16
#pragma GCC pop_options

} // namespace

constinit const SlotTable avx512_table = isa_table<Avx512>();
constinit const SlotTable avx512_fp16_table = base::make_matrix<SlotFns, fp16::Slots>();
constinit const SlotTable avx512_bf16_table = base::make_matrix<SlotFns, bf16::Slots>();

} // namespace opf::simd
