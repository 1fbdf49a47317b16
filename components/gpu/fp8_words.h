// fp8_words.h — the GPU kernels' fp8 vectors four codes to a 32-bit word:
// MAX / MIN on the codes with integer instructions, SUM, PROD and the mean
// of two through binary16 pairs (half2), SUM rounded once and the mean of
// other counts in float with the conversions two codes at a time (InFloat),
// instead of storage.h's element-by-element widening to float and rounding
// back (which left fp8 kernels at 0.67-0.72 of copy speed on an H200, bound
// by the instructions per element, not by memory).
//
// Every rule gives base/semantics.h's bits (any NaN matching any NaN):
//   MAX / MIN: the result is one of the operands, so in_float's widening,
//     float rule and rounding give back that operand's code. The codes are
//     sign-magnitude; order_key maps them to unsigned bytes in the values'
//     order (-0 just below +0, negatives reversed), and the NaN codes
//     (E4M3 S.1111.111, E5M2 magnitude above the infinity's 0x7c) are
//     tracked beside the keys: any NaN input gives the NaN code 0x7f.
//   SUM, PROD and the mean of two: binary16 holds every fp8 value, the
//     operation is rounded to binary16, then to fp8. For a sum that is
//     rounding once (Figueroa 1995: for two p-bit operands, rounding their sum
//     to q >= 2p + 1 bits and then to p bits is rounding it to p bits;
//     binary16 has q = 11, fp8 p = 4 or 3): the base's float sum rounded to
//     fp8 is the same single rounding. Sums of fp8 subnormals are exact in
//     binary16. A product has at most 2p bits: exact in binary16 from E5M2's
//     rounding midpoint 2^-17 up (its last bit is at least 2^-22, binary16's
//     step there 2^-24; E4M3 products are multiples of 2^-18); below it the
//     fp8 result is a signed zero either way, and a binary16 product that
//     rounds to the midpoint goes to the even zero too. Halving an fp8 value
//     is exact in binary16, so the mean is a sum of two halved operands.
//   Overflow (semantics.h): the only fp8 conversion from binary16 saturates
//     (cvt.rn.satfinite: every magnitude beyond the largest finite, and inf,
//     become the largest finite); the rule's is fixed up on the binary16 sum:
//     E4M3 beyond 464 is the NaN (0x7e | 1), E5M2 from 61440 on is inf
//     (0x7b + 1). A sum beyond 464 is so in binary16 too (operands above 16
//     are even, so such a sum is at least 466), and a sum near 61440 is a
//     multiple of 1024, exact in binary16; products there are exact, and
//     binary16's overflow (inf) lies beyond both thresholds.
//   In float (InFloat): semantics.h's own accumulator rule (*_wide) lane by
//     lane; only the widening and the rounding (storage_hw.h's paired
//     conversions, same fix-up) go two codes at a time.
// test/cuda_semantics checks every word rule against the base for all 2^16
// operand pairs (the CUDA headers' host emulation of the instructions),
// test/cuda_conversions the same on a GPU with the instructions themselves.
//
// Where: the codes rules on every GPU and on the host; the binary16 and
// float rules where the fp8 conversions are instructions (sm_89 on), on the host, and in
// the CPU stand-in (kernel_shim.h includes the CUDA headers first, so that
// their host emulation is what it compiles).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "base/semantics.h"

// The binary16 and float word rules take NVIDIA's paired conversions
// (cuda_fp16.h, cuda_fp8.h: instructions from sm_89 on, emulated on the
// host); AMD's toolchain has none of them, and its kernels take the codes
// rules and the element-by-element path.
#if !defined(OPF_GPU_AMD)
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "base/storage_hw.h"

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 890
#define OPF_FP8_HALF_WORDS 1
#endif
#endif

namespace opf_gpu::fp8 {

namespace base = opf::base;

template <class T> inline constexpr bool is_fp8 =
    std::is_same_v<T, base::Float8E4M3> || std::is_same_v<T, base::Float8E5M2>;
template <class T> inline constexpr bool is_e4m3 = std::is_same_v<T, base::Float8E4M3>;

constexpr uint32_t kByteTops = 0x80808080u;   // the top bit of each byte
constexpr uint32_t kLaneTops = 0x80008000u;   // the top bit of each 16-bit lane
constexpr uint32_t kBytes = 0x01010101u;      // times a byte: that byte in each

// 0xff in every byte whose top bit is set, 0 in the others.
OPF_HD inline uint32_t byte_signs(uint32_t w)
{
#if defined(__CUDA_ARCH__) && defined(__NVCC__)
    // prmt with sign-replicating selectors (8 + byte): one instruction. Not
    // __byte_perm, which keeps only the low 3 bits of each selector.
    uint32_t signs;
    asm("prmt.b32 %0, %1, 0, 0xba98;" : "=r"(signs) : "r"(w));
    return signs;
#else
    return ((w >> 7) & kBytes) * 0xffu;
#endif
}

// ---- MAX / MIN on the codes ----------------------------------------------------------
// The code as an unsigned byte in the order of the values: a non-negative
// code c is 0x80 + c, a negative one 0x7f - its magnitude (-0 is 0x7f).
OPF_HD inline uint32_t order_key(uint32_t codes) { return codes ^ (byte_signs(codes) | kByteTops); }
OPF_HD inline uint32_t from_order_key(uint32_t keys) { return keys ^ (~byte_signs(keys) | kByteTops); }

// 0xff in every byte where x >= y (unsigned bytes). Per byte, (x | 0x80) -
// (y & 0x7f) is 0x80 + the difference of the low 7 bits, never borrowing
// from the next byte; its top bit is x7 >= y7, which decides where the top
// bits agree.
OPF_HD inline uint32_t bytes_at_least(uint32_t x, uint32_t y)
{
    const uint32_t low7 = (x | kByteTops) - (y & ~kByteTops);
    return byte_signs((x & ~y) | (~(x ^ y) & low7));
}

// The top bit of every byte that is a NaN code: magnitude 0x7f (E4M3), above
// 0x7c (E5M2); a magnitude plus the distance to 0x80 sets its top bit, never
// carrying into the next byte.
template <class T> OPF_HD inline uint32_t nan_codes(uint32_t w)
{
    constexpr uint32_t first_nan = is_e4m3<T> ? 0x7fu : 0x7du;
    return ((w & ~kByteTops) + (0x80u - first_nan) * kBytes) & kByteTops;
}

template <class T, bool IsMax> struct Extremum {
    struct Acc {
        uint32_t keys, nans;
    };
    OPF_HD static Acc first(uint32_t w, int) { return {order_key(w), nan_codes<T>(w)}; }
    OPF_HD static Acc add(Acc a, uint32_t w, int)
    {
        const uint32_t keys = order_key(w), a_wins = IsMax ? bytes_at_least(a.keys, keys) : bytes_at_least(keys, a.keys);
        return {(a.keys & a_wins) | (keys & ~a_wins), a.nans | nan_codes<T>(w)};
    }
    OPF_HD static uint32_t result(Acc a, int)
    {
        const uint32_t nan = byte_signs(a.nans);
        return (from_order_key(a.keys) & ~nan) | (0x7f7f7f7fu & nan);
    }
};

#if defined(OPF_FP8_HALF_WORDS)
// ---- through binary16 pairs -----------------------------------------------------------
// (through __half2_raw: __half2 itself is not trivially copyable)
OPF_HD inline __half2 as_half2(uint32_t bits) { return __half2(base::bits_as<__half2_raw>(bits)); }
OPF_HD inline uint32_t half2_bits(__half2 h) { return base::bits_as<uint32_t>(__half2_raw(h)); }

// Codes 0 and 1 (pair 0) or 2 and 3 (pair 1) of a word as binary16 lanes,
// exactly. E5M2 is a binary16's top byte: moved there by a byte permutation.
template <class T, int Pair> OPF_HD inline __half2 widen(uint32_t w)
{
    if constexpr (is_e4m3<T>) {
        const __half2_raw h = __nv_cvt_fp8x2_to_halfraw2(__nv_fp8x2_storage_t(w >> (16 * Pair)), __NV_E4M3);
        return __half2(h);
    } else {
#if defined(__CUDA_ARCH__) && defined(__NVCC__)
        return as_half2(__byte_perm(w, 0u, Pair ? 0x3424u : 0x1404u));
#else
        const uint32_t p = w >> (16 * Pair);
        return as_half2(((p & 0xffu) << 8) | ((p & 0xff00u) << 16));
#endif
    }
}

// Two binary16 lanes rounded to their codes (the low 16 bits), nearest even,
// with the rule's overflow: the saturating instruction, then the lanes it
// saturated where the rule does not (see the top).
template <class T> OPF_HD inline uint32_t narrow(__half2 h)
{
    const uint32_t bits = half2_bits(h), magnitude = bits & ~kLaneTops;
    const uint32_t codes = __nv_cvt_halfraw2_to_fp8x2(__half2_raw(h), __NV_SATFINITE, is_e4m3<T> ? __NV_E4M3 : __NV_E5M2);
    uint32_t fix;   // the top bit of each lane to fix
    if constexpr (is_e4m3<T>) {
        fix = (magnitude + (0x8000u - 0x5f41u) * 0x10001u) & kLaneTops;            // beyond 464 (0x5f40), NaN included
    } else {
        const uint32_t big = (magnitude + (0x8000u - 0x7b80u) * 0x10001u) & kLaneTops;   // from 61440 (0x7b80) on
        const uint32_t nan = (magnitude + (0x8000u - 0x7c01u) * 0x10001u) & kLaneTops;   // beyond inf (0x7c00)
        fix = big & ~nan;
    }
    const uint32_t ones = ((fix >> 15) | (fix >> 23)) & 0x0101u;   // lane 0's bit to code 0's bit 0, lane 1's to code 1's
    return is_e4m3<T> ? (codes | ones) : (codes + ones);   // 0x7e | 1: the NaN; 0x7b + 1: inf
}

// out = f(a, b) lane by lane for the four codes of two words.
template <class T, class F> OPF_HD inline uint32_t via_half(uint32_t a, uint32_t b, F f)
{
    const uint32_t lo = narrow<T>(f(widen<T, 0>(a), widen<T, 0>(b)));
    const uint32_t hi = narrow<T>(f(widen<T, 1>(a), widen<T, 1>(b)));
    return lo | (hi << 16);
}

enum class HalfOp { Sum, Prod, MeanOfTwo };
template <class T, HalfOp Op> struct ViaHalf {
    using Acc = uint32_t;   // the codes: each step rounds to fp8, as the chain does
    OPF_HD static Acc first(uint32_t w, int) { return w; }
    OPF_HD static Acc add(Acc a, uint32_t w, int)
    {
        return via_half<T>(a, w, [](__half2 x, __half2 y) {
            if constexpr (Op == HalfOp::Sum) return __hadd2_rn(x, y);
            else if constexpr (Op == HalfOp::Prod) return __hmul2_rn(x, y);
            else {
                const __half2 half = as_half2(0x38003800u);   // 0.5 in both lanes
                return __hadd2_rn(__hmul2_rn(x, half), __hmul2_rn(y, half));
            }
        });
    }
    OPF_HD static uint32_t result(Acc a, int) { return a; }
};

// Accumulators in float (SUM rounded once, the mean; semantics.h's *_wide
// rule): the four codes widened two at a time, the rule lane by lane in
// float, the results rounded two at a time (storage_hw.h's paired
// conversions and their fix-up).
template <class T, class A> struct InFloat {
    struct Acc {
        float lane[4];
    };
    OPF_HD static void widen_word(uint32_t w, float f[4])
    {
        const float2 lo = __half22float2(widen<T, 0>(w)), hi = __half22float2(widen<T, 1>(w));
        f[0] = lo.x, f[1] = lo.y, f[2] = hi.x, f[3] = hi.y;
    }
    OPF_HD static Acc first(uint32_t w, int k)
    {
        float f[4];
        widen_word(w, f);
        return {{A::first_wide(f[0], k), A::first_wide(f[1], k), A::first_wide(f[2], k), A::first_wide(f[3], k)}};
    }
    OPF_HD static Acc add(const Acc &a, uint32_t w, int k)
    {
        float f[4];
        widen_word(w, f);
        return {{A::add_wide(a.lane[0], f[0], k), A::add_wide(a.lane[1], f[1], k), A::add_wide(a.lane[2], f[2], k),
                 A::add_wide(a.lane[3], f[3], k)}};
    }
    OPF_HD static uint32_t result(const Acc &a, int k)
    {
        float r[4];
        for (int l = 0; l < 4; ++l) r[l] = A::result_wide(a.lane[l], k);
        auto pair = [](float lo, float hi) -> uint32_t {
            if constexpr (is_e4m3<T>) return base::hw::float2_to_e4m3x2(lo, hi);
            else return base::hw::float2_to_e5m2x2(lo, hi);
        };
        return pair(r[0], r[1]) | pair(r[2], r[3]) << 16;
    }
};
#endif

// The mean of exactly two inputs: MeanAcc's rule (both rounding modes have
// one), as its own accumulator so that the launch of a two-input mean can
// choose the binary16 word rule, which holds for two inputs only.
template <class T> struct MeanOfTwo : base::MeanAcc<T, base::Rounding::Chain> {};

// The word rule of accumulator A on fp8 type T, or void (element by element).
template <class T, class A> struct WordRuleOf {
    using type = void;
};
template <class T> requires is_fp8<T> struct WordRuleOf<T, base::FoldAcc<base::OpMax, T>> {
    using type = Extremum<T, true>;
};
template <class T> requires is_fp8<T> struct WordRuleOf<T, base::FoldAcc<base::OpMin, T>> {
    using type = Extremum<T, false>;
};
#if defined(OPF_FP8_HALF_WORDS)
template <class T> requires is_fp8<T> struct WordRuleOf<T, base::SumAcc<T, base::Rounding::Chain>> {
    using type = ViaHalf<T, HalfOp::Sum>;
};
template <class T> requires is_fp8<T> struct WordRuleOf<T, base::FoldAcc<base::OpProd, T>> {
    using type = ViaHalf<T, HalfOp::Prod>;
};
template <class T> requires is_fp8<T> struct WordRuleOf<T, MeanOfTwo<T>> {
    using type = ViaHalf<T, HalfOp::MeanOfTwo>;
};
template <class T> requires is_fp8<T> struct WordRuleOf<T, base::SumAcc<T, base::Rounding::Once>> {
    using type = InFloat<T, base::SumAcc<T, base::Rounding::Once>>;
};
template <class T, base::Rounding M> requires is_fp8<T> struct WordRuleOf<T, base::MeanAcc<T, M>> {
    using type = InFloat<T, base::MeanAcc<T, M>>;
};
#endif
template <class T, class A> using WordRule = typename WordRuleOf<T, A>::type;

} // namespace opf_gpu::fp8
