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
// NaN or both are zeros, so with x = in it is base::OpMax / OpMin exactly
// unless x is NaN (y comes back) or x and y are zeros of opposite signs.
// simd.h's exact form takes five instructions per register; here a block of
// `block` registers is computed with vmaxps / vminps alone while a product
// of two registers of x, one compare (zero or unordered: vcmpeq_uqps
// against zero) and an OR collect whether any lane of x is NaN or a zero;
// only then is the block computed again by the exact form (zeros in the
// data, or products that underflow, cost the block that time, not a wrong
// result). Nothing is stored before the check, so out may be either input.
// Two and a half instructions per register. (Storing each register at once
// and computing a flagged block again from in1 and what was stored, exact
// where out is not in1, was no faster in the component: 2-buffer 16 KiB
// 244-247 ns either way on Emerald Rapids.)
template <bool IsMax, class T> struct ScreenedMinMax {
    using BaseOp = std::conditional_t<IsMax, base::OpMax, base::OpMin>;
    using BaseT = T;
    using Rule = std::conditional_t<IsMax, RMax, RMin>;
    template <std::size_t R> using Reg = Vec<T, R>;
    static constexpr std::size_t block = 8;
    static constexpr bool single = std::is_same_v<T, float>;

    template <class Isa, class V> [[gnu::always_inline]] static V compute(V a, V b) { return Rule::apply(a, b); }

    template <class Isa> [[gnu::always_inline]] static void compute_block(const unsigned char *a, const unsigned char *b,
                                                                          unsigned char *o)
    {
        using V = Vec<T, 32>;
        V r[block];
        __m256 special = _mm256_setzero_ps();
#pragma GCC unroll 4
        for (std::size_t j = 0; j < block; j += 2) {
            V x0 = loadu<V>(a + 32 * j), x1 = loadu<V>(a + 32 * j + 32);
            const V y0 = loadu<V>(b + 32 * j), y1 = loadu<V>(b + 32 * j + 32);
            asm("" : "+x"(x0), "+x"(x1));   // in registers: folded into both instructions, they would be loaded twice
            // x0 * x1 is zero or NaN where x0 or x1 is (or where the product underflows,
            // or is 0 * inf: the block is then only computed again): one compare for two registers
            const V p = x0 * x1;
            if constexpr (single) {
                r[j] = as<V>(IsMax ? _mm256_max_ps(as<__m256>(x0), as<__m256>(y0)) : _mm256_min_ps(as<__m256>(x0), as<__m256>(y0)));
                r[j + 1] = as<V>(IsMax ? _mm256_max_ps(as<__m256>(x1), as<__m256>(y1)) : _mm256_min_ps(as<__m256>(x1), as<__m256>(y1)));
                special = _mm256_or_ps(special, _mm256_cmp_ps(as<__m256>(p), _mm256_setzero_ps(), _CMP_EQ_UQ));
            } else {
                r[j] = as<V>(IsMax ? _mm256_max_pd(as<__m256d>(x0), as<__m256d>(y0)) : _mm256_min_pd(as<__m256d>(x0), as<__m256d>(y0)));
                r[j + 1] = as<V>(IsMax ? _mm256_max_pd(as<__m256d>(x1), as<__m256d>(y1)) : _mm256_min_pd(as<__m256d>(x1), as<__m256d>(y1)));
                special = _mm256_or_ps(special, _mm256_castpd_ps(_mm256_cmp_pd(as<__m256d>(p), _mm256_setzero_pd(), _CMP_EQ_UQ)));
            }
        }
        if (__builtin_expect(!_mm256_testz_ps(special, special), 0)) {   // (vtestps: the sign bits, all ones where set)
            // (the inputs loaded again: kept from the loop above, they would take
            // registers the block does not have and be spilled on every block)
            asm volatile("" ::: "memory");
#pragma GCC unroll 8
            for (std::size_t j = 0; j < block; ++j) r[j] = Rule::apply(loadu<V>(a + 32 * j), loadu<V>(b + 32 * j));
        }
#pragma GCC unroll 8
        for (std::size_t j = 0; j < block; ++j) storeu(o + 32 * j, r[j]);
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
