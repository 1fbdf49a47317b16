// nvfp4.h — the x86 SIMD kernels of the UE4M3-scaled block formats (NVFP4:
// 16 E2M1 elements and an E4M3 scale; base/mx.h states the rule, this is a
// faster way to the same bits). Included by mx.h, for AVX2 (two registers
// a block) and AVX-512 (one).
//
// Every decoded value is an integer in units of 2^(qmin - 9) (element steps
// times scale steps): for E2M1 below 12 * 229376 < 2^22 in magnitude, so
// the sum of k <= 64 inputs, twice over, fits 31 bits and every step below
// is exact in int32 lanes:
//   1. decode: the nibbles spread to lanes, their steps by a table of 8
//      (vpermd), times the scale's steps, negated by the sign bit;
//   2. reduce: add, max or min lane by lane over the k inputs;
//   3. the scale: amax / (k' * 12) (k' = k for AVG, else 1) rounded to the
//      E4M3 grid in double precision: the quotient is never within 2^-28
//      (relative) of a midpoint of the grid without being on it, so the
//      correctly rounded double falls on the same side, and rint's ties to
//      even are the grid's (each binade's values are consecutive integers
//      times its step);
//   4. the elements: 2|v| compared with the 7 midpoints of E2M1 times
//      2 k' scale (a tie counts up where the code above is even), exactly;
//   5. the codes packed two a byte.
// A NaN scale in an input gives the NaN block, as the rule says.
#pragma once

#include <immintrin.h>

#include <cmath>
#include <cstring>

#include "base/mx.h"
#include "base/semantics.h"
#include "components/simd/block_calls.h"

namespace opf::simd::nvfp4 {

using base::MxBlock;
using base::MxOp;

// The formats these kernels serve: E2M1 elements under an E4M3 scale.
template <class F>
constexpr bool serves = F::scale == base::BlockScale::UE4M3 && F::bits == 4 && F::ebits == 2 && F::mbits == 1;

// x rounded to an integer, ties to even, whatever rounding mode the caller
// set (roundsd's own mode, not MXCSR's: the base's rule is integer code).
// The division before it may round either way in a directed mode and stay
// on the same side of every midpoint (above: 2^-28 away or on it).
[[gnu::always_inline]] inline double nearest_even(double x)
{
    return _mm_cvtsd_f64(_mm_round_sd(_mm_setzero_pd(), _mm_set_sd(x), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

// The E4M3 code nearest q (in steps of 2^-9, q >= 0), saturated at 448.
[[gnu::always_inline]] inline unsigned e4m3_code(double q)
{
    constexpr double largest = 448.0 * 512;   // 0x7e's steps
    if (q >= largest) return 0x7e;
    if (q < 16) return unsigned(nearest_even(q));   // subnormals and the first binade: one step apart (code = steps)
    uint64_t bits;
    std::memcpy(&bits, &q, sizeof bits);
    const int e = int(bits >> 52) - 1023;              // floor(log2 q) >= 4: steps of 2^(e-3)
    const unsigned m = unsigned(nearest_even(std::ldexp(q, 3 - e)));   // 8 .. 16 (16: the next binade)
    return (unsigned(e - 2) << 3) + (m - 8);
}

template <class F, class Isa> struct Kernels : BlockCalls<Kernels<F, Isa>, sizeof(MxBlock<F>)> {
    static_assert(serves<F>);
    static constexpr int W = int(Isa::bytes / 4);   // int32 lanes per register
    static constexpr int R = F::length / W;         // registers per block
    static_assert(R * W == F::length);
    using I = Vec<int32_t, Isa::bytes>;
    static constexpr std::size_t B = sizeof(MxBlock<F>);
    static constexpr int top = int(base::mx_steps<F>(F::max_code));   // 12: E2M1's 6 in steps of 1/2

    // The scale steps of every scale byte (signed; NaN scales: 0, and flagged by the caller).
    static constexpr struct ScaleSteps {
        int32_t v[256];
        constexpr ScaleSteps() : v{}
        {
            for (unsigned s = 0; s < 256; ++s) v[s] = base::block_nan_scale<F>(s) ? 0 : int32_t(base::mx_steps<base::E4M3Element>(s));
        }
    } scale_steps{};

    // The 16 element codes of a block as bytes, in element order.
    [[gnu::always_inline]] static __m128i nibbles(const uint8_t *block)
    {
        const __m128i q = _mm_loadl_epi64(reinterpret_cast<const __m128i *>(block + 1));   // bytes 1..8
        const __m128i low = _mm_set1_epi8(0x0f);
        return _mm_unpacklo_epi8(_mm_and_si128(q, low), _mm_and_si128(_mm_srli_epi16(q, 4), low));
    }
    // Register r's codes as int32 lanes.
    [[gnu::always_inline]] static I lanes(__m128i codes, int r)
    {
        if constexpr (W == 16) return as<I>(_mm512_maskz_cvtepu8_epi32(0xffff, codes));   // (maskz: no undefined source)
        else return as<I>(_mm256_cvtepu8_epi32(r ? _mm_srli_si128(codes, 8) : codes));
    }
    // The signed value of codes c (int32 lanes) at scale steps s.
    [[gnu::always_inline]] static I value(I c, int32_t s)
    {
        I table;   // steps of the magnitude codes 0..7, repeated
        for (int l = 0; l < W; ++l) table[l] = int32_t(base::mx_steps<F>(unsigned(l & 7)));
        const I mag = __builtin_shuffle(table, c & 7) * s;
        return (c & 8) != 0 ? -mag : mag;
    }

    // One result block of k inputs (K: k known at compile time; BlockCalls makes the calls of it).
    template <int K = 0>
    [[gnu::always_inline]] static void block(const uint8_t *const in[], int k_, uint8_t *out, MxOp op, bool mean)
    {
        const int k = K ? K : k_;
        I acc[R] = {};   // (k >= 2: the first input sets it)
        bool nan = false;
        for (int j = 0; j < k; ++j) {
            const unsigned s = in[j][0];
            nan |= base::block_nan_scale<F>(s);
            const __m128i codes = nibbles(in[j]);
            for (int r = 0; r < R; ++r) {
                const I v = value(lanes(codes, r), scale_steps.v[s]);
                if (j == 0) acc[r] = v;
                else if (op == MxOp::Sum) acc[r] += v;
                else if (op == MxOp::Max) acc[r] = v > acc[r] ? v : acc[r];
                else acc[r] = v < acc[r] ? v : acc[r];
            }
        }
        if (nan) [[unlikely]] {
            std::memset(out, 0, B);
            out[0] = F::nan_scale;
            return;
        }
        I mag[R], amax = {};
        for (int r = 0; r < R; ++r) {
            mag[r] = acc[r] < 0 ? -acc[r] : acc[r];
            amax = mag[r] > amax ? mag[r] : amax;
        }
        I lane;   // the largest lane: a butterfly of permutes and maxima
        for (int l = 0; l < W; ++l) lane[l] = l;
        for (int w = W / 2; w >= 1; w /= 2) {
            const I other = __builtin_shuffle(amax, lane ^ w);
            amax = other > amax ? other : amax;
        }
        const int32_t a = amax[0];
        const int kd = mean ? k : 1;   // the divisor of the exact results
        if (a == 0) {                  // a zero block: scale +0, elements +0
            std::memset(out, 0, B);
            return;
        }
        unsigned scale = e4m3_code(double(a) / double(kd * top));
        scale = scale == 0 ? 1 : scale;   // a non-zero amax keeps a non-zero scale
        const int32_t den = kd * int32_t(base::mx_steps<base::E4M3Element>(scale));
        // the midpoints between codes c and c + 1, times 2 den, less 1 where c + 1 is even (a tie goes up)
        int32_t mid[7];
        for (int c = 0; c < 7; ++c)
            mid[c] = int32_t(base::mx_steps<F>(unsigned(c)) + base::mx_steps<F>(unsigned(c + 1))) * den - (c & 1);
        alignas(16) uint8_t codes[16];
        for (int r = 0; r < R; ++r) {
            const I twice = mag[r] + mag[r];
            I code = {};
            for (int c = 0; c < 7; ++c) code -= twice > mid[c];   // (a true compare is -1)
            code |= ((acc[r] < 0) & (code != 0)) & 8;   // the sign of a non-zero result
            for (int l = 0; l < W; ++l) codes[r * W + l] = uint8_t(code[l]);
        }
        out[0] = uint8_t(scale);
        const __m128i c = _mm_load_si128(reinterpret_cast<const __m128i *>(codes));
        // byte j = code 2j | code 2j+1 << 4: the 16-bit lanes' low and high bytes joined
        const __m128i pairs = _mm_or_si128(_mm_and_si128(c, _mm_set1_epi16(0x0f)), _mm_srli_epi16(c, 4));
        _mm_storel_epi64(reinterpret_cast<__m128i *>(out + 1), _mm_packus_epi16(pairs, pairs));
    }
};

} // namespace opf::simd::nvfp4
