// avx2_kernels.cpp — the avx2 component's kernels: simd.h's kernels on
// 256-bit registers. Built with -mavx2 -mf16c -ffp-contract=off
// -fno-fast-math and WITHOUT -mfma (no contraction can then happen, whatever
// the flags). Data only reaches the life cycle (opf_op_avx2.cpp, built
// without ISA flags): the constant table below.
#include <immintrin.h>

#include "components/simd/kernels.h"

#if !defined(__AVX2__) || !defined(__F16C__)
#error "avx2_kernels.cpp is built with -mavx2 -mf16c"
#endif
#if defined(__FMA__)
#error "avx2_kernels.cpp is built without -mfma: the kernels must not contract a*b+c"
#endif

namespace opf::simd {
namespace {

// ---- MAX / MIN of float and double: one vmaxps / vminps per register off NaN and zeros ----
// x86 max(x, y) is `x > y ? x : y` (min: <): it returns y where either is
// NaN or both are zeros. With x = in it is base::OpMax / OpMin exactly
// unless x is NaN (y comes back) or x and y are zeros of opposite signs.
// Two forms of a block of 8 registers, and a call switches from the first to
// the second for good at the first block the first one flags:
//   * screened (compute_block): vmaxps / vminps alone, while a product of
//     two registers of x, one compare (zero or unordered: vcmpeq_uqps
//     against zero) and an OR collect whether any lane of x is NaN or a zero
//     (or a product that underflows): two and a half instructions per
//     register. A flagged block is computed by the steady form and ends the
//     screening: data with zeros (small integers, sparse data) has them in
//     most blocks, and screening each one to compute it again took 1.4-1.9x
//     the time of random data (1.74x MAX FLOAT 4 KiB on a Zen 4).
//   * steady (compute_block_steady): exact on zeros whatever the data.
//     MAX: vmaxps(x, y) AND (x | 0x7fffffff), which clears the result's sign
//     bit where x's is clear. Exact for every x that is not NaN: where x >=
//     +0 the maximum is >= +0 too, and its sign bit can only be set by the
//     tie max(+0, -0), which vmaxps answers -0 (or by a NaN y: still a NaN
//     with its sign cleared); where x's sign bit is set nothing changes. A
//     NaN in x is the one case left: one unordered compare per two registers
//     of x sends the block to simd.h's exact form. Four instructions per
//     register. MIN: simd.h's OR of both orders, exact on NaN and zeros
//     alike: three instructions per register, no branch.
// So random data keeps the screened speed and data with zeros costs the
// steady form's (docs/performance.md). Nothing is stored before a block's
// check, so out may be either input.
template <bool IsMax, class T> struct ScreenedMinMax {
    using BaseOp = std::conditional_t<IsMax, base::OpMax, base::OpMin>;
    using BaseT = T;
    using Rule = std::conditional_t<IsMax, RMax, RMin>;
    template <std::size_t R> using Reg = Vec<T, R>;
    static constexpr std::size_t block = 8;
    static constexpr bool screened = true;
    static constexpr bool single = std::is_same_v<T, float>;
    using V = Vec<T, 32>;
    using U = Vec<std::conditional_t<single, uint32_t, uint64_t>, 32>;

    template <class Isa, class W> [[gnu::always_inline]] static W compute(W a, W b) { return Rule::apply(a, b); }

    // x86 max(x, y) / min(x, y): y where either is NaN or both are zeros.
    [[gnu::always_inline]] static V x86(V x, V y)
    {
        if constexpr (single)
            return as<V>(IsMax ? _mm256_max_ps(as<__m256>(x), as<__m256>(y)) : _mm256_min_ps(as<__m256>(x), as<__m256>(y)));
        else
            return as<V>(IsMax ? _mm256_max_pd(as<__m256d>(x), as<__m256d>(y)) : _mm256_min_pd(as<__m256d>(x), as<__m256d>(y)));
    }
    // MAX, exact unless x is NaN: the sign bit cleared where x's is clear.
    // (vandps / vorps: kept in the floating-point domain, no bypass delay)
    [[gnu::always_inline]] static V max_unless_nan(V x, V y)
    {
        constexpr U magnitude = U{} + (std::numeric_limits<lane_t<U>>::max() >> 1);
        return as<V>(_mm256_and_ps(as<__m256>(x86(x, y)), _mm256_or_ps(as<__m256>(x), as<__m256>(magnitude))));
    }

    // The screened form; false, having stored nothing, where the block had a
    // zero or NaN in x (the call continues from it in the steady form).
    template <class Isa> [[gnu::always_inline]] static bool compute_block(const unsigned char *a, const unsigned char *b,
                                                                          unsigned char *o)
    {
        V r[block];
        __m256 special = _mm256_setzero_ps();
#pragma GCC unroll 4
        for (std::size_t j = 0; j < block; j += 2) {
            V x0 = loadu<V>(a + 32 * j), x1 = loadu<V>(a + 32 * j + 32);
            const V y0 = loadu<V>(b + 32 * j), y1 = loadu<V>(b + 32 * j + 32);
            asm("" : "+x"(x0), "+x"(x1));   // in registers: folded into both instructions, they would be loaded twice
            // x0 * x1 is zero or NaN where x0 or x1 is (or where the product underflows,
            // or is 0 * inf): one compare for two registers
            const V p = x0 * x1;
            r[j] = x86(x0, y0);
            r[j + 1] = x86(x1, y1);
            if constexpr (single) special = _mm256_or_ps(special, _mm256_cmp_ps(as<__m256>(p), _mm256_setzero_ps(), _CMP_EQ_UQ));
            else special = _mm256_or_ps(special, _mm256_castpd_ps(_mm256_cmp_pd(as<__m256d>(p), _mm256_setzero_pd(), _CMP_EQ_UQ)));
        }
        if (__builtin_expect(!_mm256_testz_ps(special, special), 0)) return false;   // (vtestps: the sign bits, all ones where set)
#pragma GCC unroll 8
        for (std::size_t j = 0; j < block; ++j) storeu(o + 32 * j, r[j]);
        return true;
    }

    // Where x or y has a NaN lane: all ones there.
    [[gnu::always_inline]] static __m256 unordered(V x, V y)
    {
        if constexpr (single) return _mm256_cmp_ps(as<__m256>(x), as<__m256>(y), _CMP_UNORD_Q);
        else return _mm256_castpd_ps(_mm256_cmp_pd(as<__m256d>(x), as<__m256d>(y), _CMP_UNORD_Q));
    }

    // The steady form: exact on zeros, whatever the data. Each register is
    // stored as soon as it is computed (register j of out depends on register
    // j of the inputs alone, so out may be either input): a block's results
    // held until its check took more than the 16 ymm registers beside the
    // driver's and were spilled to the stack on every block (MAX FLOAT 4 KiB
    // on integer-valued data with zeros took 1.6x its time on random data).
    // MAX checks four registers of x for NaN before computing them.
    template <class Isa> [[gnu::always_inline]] static void compute_block_steady(const unsigned char *a,
                                                                                 const unsigned char *b, unsigned char *o)
    {
        if constexpr (!IsMax) {
#pragma GCC unroll 8
            for (std::size_t j = 0; j < block; ++j) {
                V x = loadu<V>(a + 32 * j), y = loadu<V>(b + 32 * j);
                asm("" : "+x"(x), "+x"(y));   // in registers: folded into both instructions, they would be loaded twice
                storeu(o + 32 * j, as<V>(_mm256_or_ps(as<__m256>(x86(x, y)), as<__m256>(x86(y, x)))));
            }
        } else {
#pragma GCC unroll 2
            for (std::size_t h = 0; h < block; h += 4) {
                const unsigned char *ah = a + 32 * h, *bh = b + 32 * h;
                unsigned char *oh = o + 32 * h;
                const V x0 = loadu<V>(ah), x1 = loadu<V>(ah + 32), x2 = loadu<V>(ah + 64), x3 = loadu<V>(ah + 96);
                const __m256 nan = _mm256_or_ps(unordered(x0, x1), unordered(x2, x3));
                if (__builtin_expect(!_mm256_testz_ps(nan, nan), 0)) {   // (vtestps: the sign bits, all ones where set)
                    storeu(oh, Rule::apply(x0, loadu<V>(bh)));
                    storeu(oh + 32, Rule::apply(x1, loadu<V>(bh + 32)));
                    storeu(oh + 64, Rule::apply(x2, loadu<V>(bh + 64)));
                    storeu(oh + 96, Rule::apply(x3, loadu<V>(bh + 96)));
                } else {
                    storeu(oh, max_unless_nan(x0, loadu<V>(bh)));
                    storeu(oh + 32, max_unless_nan(x1, loadu<V>(bh + 32)));
                    storeu(oh + 64, max_unless_nan(x2, loadu<V>(bh + 64)));
                    storeu(oh + 96, max_unless_nan(x3, loadu<V>(bh + 96)));
                }
            }
        }
    }
};

template <class Op, class T> struct Avx2Family { using type = void; };
template <class T>
    requires(std::is_same_v<T, float> || std::is_same_v<T, double>)
struct Avx2Family<base::OpMax, T> { using type = ScreenedMinMax<true, T>; };
template <class T>
    requires(std::is_same_v<T, float> || std::is_same_v<T, double>)
struct Avx2Family<base::OpMin, T> { using type = ScreenedMinMax<false, T>; };
template <bool IsMax> struct Avx2Family<base::OpLoc<IsMax>, base::Pair<int, int>> { using type = KeyLoc<IsMax>; };

struct Avx2 {
    static constexpr std::size_t bytes = 32;
    template <class Op, class T> using Family = Avx2Family<Op, T>;
    // Whether any byte of a register of 0 / 0xff lanes is set (vpmovmskb; simd.h, screens).
    template <class V> [[gnu::always_inline]] static bool any_byte(V v)
    {
        static_assert(sizeof(V) == 32);
        return _mm256_movemask_epi8(as<__m256i>(v)) != 0;
    }
    // Tails: vpmaskmovd, whole dwords (what is left below a dword: the base's scalar functor).
    static constexpr std::size_t granule = 4;
    // vpmaskmovd stores are microcoded on AMD Zen: heads and tails of plain
    // elements as overlapping whole registers instead (driver.inc,
    // overlaps_ends). 2-vCPU AMD EPYC (Zen 3), SUM FLOAT 256 B at 16 bytes
    // past a cache line: 15.2 ns masked, 8.2 at a 64-byte boundary.
    static constexpr bool slow_masked_stores = true;
    // Registers of 32 or (float16) 16 bytes.
    template <class V> static V dword_mask(std::size_t nbytes)
    {
        const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(int(nbytes / 4)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        if constexpr (sizeof(V) == 32) return as<V>(m);
        else return as<V>(_mm256_castsi256_si128(m));
    }
    template <class V> [[gnu::always_inline]] static V load_partial(const unsigned char *p, std::size_t nbytes)
    {
        const auto *q = reinterpret_cast<const int *>(p);
        if constexpr (sizeof(V) == 32) return as<V>(_mm256_maskload_epi32(q, dword_mask<__m256i>(nbytes)));
        else return as<V>(_mm_maskload_epi32(q, dword_mask<__m128i>(nbytes)));
    }
    template <class V> [[gnu::always_inline]] static void store_partial(unsigned char *p, V v, std::size_t nbytes)
    {
        auto *q = reinterpret_cast<int *>(p);
        if constexpr (sizeof(V) == 32) _mm256_maskstore_epi32(q, dword_mask<__m256i>(nbytes), as<__m256i>(v));
        else _mm_maskstore_epi32(q, dword_mask<__m128i>(nbytes), as<__m128i>(v));
    }

    // float16 <-> float, 8 lanes; vcvtps2ph imm 0: round to nearest even.
    [[gnu::always_inline]] static Vec<float, 32> widen_half(Vec<uint16_t, 16> h)
    {
        return as<Vec<float, 32>>(_mm256_cvtph_ps(as<__m128i>(h)));
    }
    [[gnu::always_inline]] static Vec<uint16_t, 16> narrow_half(Vec<float, 32> f)
    {
        return as<Vec<uint16_t, 16>>(_mm256_cvtps_ph(as<__m256>(f), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }

    // fp8 (simd.h, Fp8ViaFloat): four registers of codes in 32-bit lanes
    // (each < 256, so saturating packs are exact) to 32 bytes in order; the
    // packs work within 128-bit lanes, vpermd puts the dwords in place.
    [[gnu::always_inline]] static Vec<uint8_t, 32> pack_bytes(Vec<uint32_t, 32> q0, Vec<uint32_t, 32> q1,
                                                              Vec<uint32_t, 32> q2, Vec<uint32_t, 32> q3)
    {
        const __m256i p01 = _mm256_packus_epi32(as<__m256i>(q0), as<__m256i>(q1));
        const __m256i p23 = _mm256_packus_epi32(as<__m256i>(q2), as<__m256i>(q3));
        const __m256i bytes = _mm256_packus_epi16(p01, p23);   // dwords: q0 q1 q2 q3 (low halves) | (high halves)
        return as<Vec<uint8_t, 32>>(_mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
    }

    // Slots measured not to beat the base on AVX2 (see README.md).
    template <class Op, class T> static constexpr bool offers = true;
};

} // namespace

constinit const SlotTable avx2_table = isa_table<Avx2>();

} // namespace opf::simd
