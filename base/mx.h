// mx.h — block-scaled formats: a block of elements sharing one scale, and
// the rules every provider reduces them by (the base's kernels, the SIMD
// components, cuda's device code: all OPF_HD, no host library). A block
// format is data: an element format, a block length and a scale format
// (BlockFormat below); the two scale formats are
//   E8M0   OCP Microscaling (MX v1.0): MXFP8 (E4M3, E5M2), MXFP6 (E3M2,
//          E2M3), MXFP4 (E2M1) and MXINT8, 32 elements, a power-of-two scale;
//   UE4M3  NVIDIA's NVFP4: 16 E2M1 elements, an E4M3 scale.
//
// One element of such a type is one block: byte 0 the scale, then the
// elements as a little-endian bit stream: element i at bits [b*i, b*i + b)
// of the bytes from byte 1 on (b = 8: a byte each; b = 6; b = 4: two a byte,
// the first in the low nibble). An element's value is scale * its element
// value. An E8M0 scale byte s is 2^(s-127), s = 0..254, 0xFF NaN; a UE4M3
// scale byte is an E4M3 code (read with its sign; written with sign 0),
// S.1111.111 NaN.
//
// THE RULE (opframe(7), "Block-scaled formats"): a result block is
//   1. the exact reduction of the decoded values, element by element: SUM the
//      exact sum, AVG the exact sum divided by the number of inputs (2 on the
//      2- and 3-buffer calls), MAX / MIN the largest / smallest value; nothing
//      is rounded, nothing overflows (E8M0: a fixed-point frame of 384 bits
//      holds every scale times every element, summed over 64 inputs, with 64
//      bits below the smallest step for AVG's division: its remainder is kept
//      as a sticky bit; UE4M3: 64-bit integers in units of the smallest
//      element step times the smallest scale, AVG's division left as a
//      denominator);
//   2. quantized once. E8M0, by the OCP MX v1.0 rule: amax = the largest
//      magnitude of the 32 exact results; shared_exp = floor(log2(amax)) -
//      emax_elem, clamped to [-127, 127] (amax = 0: -127); scale byte =
//      shared_exp + 127; each element = result / 2^shared_exp rounded to
//      nearest, ties to even, into the element format, saturated to its
//      largest magnitude (E4M3 448, E5M2 57344, E3M2 28, E2M3 7.5, E2M1 6,
//      INT8 127/64: the int8 -128 is read as -2 but never written). UE4M3:
//      scale = the E4M3 value nearest amax / (the element's largest
//      magnitude), ties to even, 448 where above, the smallest subnormal
//      2^-9 where amax > 0 would round to 0; each element = the element value
//      nearest result / scale, ties to even, saturated. A zero is written +0
//      (a zero block: scale +0 too under UE4M3).
//   3. non-finite: an input block with the NaN scale, or a NaN or infinite
//      element (E4M3's S.1111.111, E5M2's exponent 11111; the FP6, FP4 and
//      INT8 elements have none) makes the result block the NaN block: the
//      format's NaN scale (0xFF, UE4M3 0x7F), element bytes 0. (OCP: a NaN
//      amax gives a NaN scale; every element of a NaN-scaled block is NaN.)
//      The conformance rule compares two NaN blocks as equal whatever their
//      element bytes.
// Both n-ary modes (OPF_ROUND_CHAIN, OPF_ROUND_ONCE) compute the same: one
// quantization at the end, so the n-ary call is not the chain of 3-buffer
// calls for these types (base/kernels.h: nary_is_chain()). An n-ary call of
// one input copies it (as for every type), quantizing nothing.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "base/storage.h"

namespace opf::base {

// ---- element formats --------------------------------------------------------
// Float elements: Bits = 1 + E + M, bias 2^(E-1) - 1; a normal is
// 2^(e-bias) (1 + m/2^M), a subnormal 2^(1-bias) m/2^M. Special: 0 none (FP6,
// FP4: every code finite), 1 E4M3 (S.1111.111 NaN), 2 E5M2 (IEEE: exponent
// all ones inf / NaN). Int: MXINT8, two's complement with an implicit 2^-6.
// Every element value is an integer number of steps of 2^qmin: `steps`.
template <int Bits, int E, int M, int Emax, int Special, bool Int = false> struct MxElement {
    static constexpr int bits = Bits, ebits = E, mbits = M, emax = Emax, special = Special;
    static constexpr bool is_int = Int;
    static constexpr int bias = Int ? 0 : (1 << (E - 1)) - 1;
    static constexpr int emin = 1 - bias;                   // the exponent of the subnormals' binade
    static constexpr int qmin = Int ? -6 : emin - M;        // the smallest step, 2^qmin
    static constexpr unsigned code_mask = (1u << Bits) - 1;
    static constexpr unsigned sign_bit = 1u << (Bits - 1);
    // The largest finite magnitude's code (floats) / int (INT8).
    static constexpr unsigned max_code = Int ? 127u : Special == 1 ? 0x7eu : Special == 2 ? 0x7bu : sign_bit - 1;
};
using E4M3Element = MxElement<8, 4, 3, 8, 1>;
using E5M2Element = MxElement<8, 5, 2, 15, 2>;
using E3M2Element = MxElement<6, 3, 2, 4, 0>;
using E2M3Element = MxElement<6, 2, 3, 2, 0>;
using E2M1Element = MxElement<4, 2, 1, 2, 0>;
using Int8Element = MxElement<8, 0, 6, 0, 0, true>;

// ---- block formats: an element format, a length, a scale format ---------------
enum class BlockScale { E8M0, UE4M3 };
template <class Element, int Length, BlockScale Scale> struct BlockFormat : Element {
    using element = Element;
    static constexpr int length = Length;
    static constexpr BlockScale scale = Scale;
    static constexpr int block_bytes = 1 + Length * Element::bits / 8;
    static constexpr uint8_t nan_scale = Scale == BlockScale::E8M0 ? 0xff : 0x7f;   // the one it writes
    static_assert(Length * Element::bits % 8 == 0, "BlockFormat: the elements fill whole bytes");
};
using MxE4M3 = BlockFormat<E4M3Element, 32, BlockScale::E8M0>;
using MxE5M2 = BlockFormat<E5M2Element, 32, BlockScale::E8M0>;
using MxE3M2 = BlockFormat<E3M2Element, 32, BlockScale::E8M0>;
using MxE2M3 = BlockFormat<E2M3Element, 32, BlockScale::E8M0>;
using MxE2M1 = BlockFormat<E2M1Element, 32, BlockScale::E8M0>;
using MxInt8 = BlockFormat<Int8Element, 32, BlockScale::E8M0>;

// One block of format F: the storage of a block kernel type.
template <class F> struct MxBlock {
    using format = F;
    uint8_t bytes[F::block_bytes];
};
template <class T> inline constexpr bool is_mx = false;
template <class F> inline constexpr bool is_mx<MxBlock<F>> = true;
template <class T> concept Mx = is_mx<T>;

inline constexpr uint8_t kMxNanScale = 0xff;

// Element i's code (its Bits bits) of a block: never reads past the block.
template <class F> OPF_HD inline unsigned mx_code(const uint8_t *block, int i)
{
    if constexpr (F::bits == 8) {
        return block[1 + i];
    } else {
        const int bit = F::bits * i, at = 1 + bit / 8, shift = bit % 8;
        unsigned w = block[at];
        if (shift + F::bits > 8) w |= unsigned(block[at + 1]) << 8;
        return (w >> shift) & F::code_mask;
    }
}
// Writes the codes of a block's elements (the scale is the caller's).
template <class F> OPF_HD inline void mx_put_codes(uint8_t *block, const uint8_t (&codes)[F::length])
{
    if constexpr (F::bits == 8) {
        for (int i = 0; i < F::length; ++i) block[1 + i] = codes[i];
    } else {
        uint8_t out[F::length * F::bits / 8] = {};
        for (int i = 0; i < F::length; ++i) {
            const int bit = F::bits * i, at = bit / 8, shift = bit % 8;
            out[at] = uint8_t(out[at] | (codes[i] << shift));
            if (shift + F::bits > 8) out[at + 1] = uint8_t(out[at + 1] | (codes[i] >> (8 - shift)));
        }
        for (int i = 0; i < int(sizeof out); ++i) block[1 + i] = out[i];
    }
}

// Whether an element code is NaN or infinite.
template <class F> OPF_HD constexpr bool mx_nonfinite(unsigned c)
{
    if constexpr (F::special == 1) return (c & 0x7f) == 0x7f;
    else if constexpr (F::special == 2) return (c & 0x7c) == 0x7c;
    else return false;
}
// Whether a block's scale byte is NaN: E8M0's 0xFF, or an E4M3 NaN code (either sign).
template <class F> OPF_HD constexpr bool block_nan_scale(unsigned scale)
{
    if constexpr (F::scale == BlockScale::E8M0) return scale == kMxNanScale;
    else return mx_nonfinite<E4M3Element>(scale);
}
// A finite element code's value in steps of 2^qmin (signed, exact: at most
// 2^32 for E5M2's 57344 * 2^16).
template <class F> OPF_HD constexpr int64_t mx_steps(unsigned c)
{
    if constexpr (F::is_int) {
        return int64_t(int8_t(uint8_t(c)));
    } else {
        // without branches (ordinary codes are unpredictable): a subnormal
        // (e = 0) is m, a normal (2^M | m) << (e - 1); negated by the sign bit
        const unsigned mag = c & (F::sign_bit - 1);
        const unsigned e = mag >> F::mbits, m = mag & ((1u << F::mbits) - 1), normal = e != 0;
        const int64_t s = int64_t((normal << F::mbits) | m) << (e - normal);
        const int64_t neg = (c & F::sign_bit) != 0;
        return (s ^ -neg) + neg;
    }
}

// The index of the highest set bit of a != 0.
OPF_HD inline int mx_top_bit(uint64_t a)
{
#if defined(OPF_DEVICE_PASS)   // (device_pass.h: the GPU's count of leading zeros)
    return 63 - __clzll((long long)a);
#else
    return 63 - __builtin_clzll(a);
#endif
}

// ---- the exact frame ------------------------------------------------------------
// A signed fixed-point number of 384 bits (two's complement, six 64-bit
// limbs, little end first) whose bit 0 weighs 2^(-127 + qmin - 64): an
// element of scale byte s sits at bit s + 64.
struct MxWide {
    static constexpr int limbs = 6, guard = 64;
    uint64_t w[limbs];
    OPF_HD void clear() { for (int i = 0; i < limbs; ++i) w[i] = 0; }
    OPF_HD bool negative() const { return w[limbs - 1] >> 63; }
    OPF_HD bool zero() const
    {
        uint64_t o = 0;
        for (int i = 0; i < limbs; ++i) o |= w[i];
        return o == 0;
    }
    // this += v * 2^at (v signed, |v| < 2^40; 0 <= at < 320)
    OPF_HD void add(int64_t v, int at)
    {
        const int l = at / 64, r = at % 64;
        const uint64_t lo = uint64_t(v) << r;
        const uint64_t hi = r ? uint64_t(v >> (64 - r)) : (v < 0 ? ~uint64_t(0) : 0);
        const uint64_t ext = v < 0 ? ~uint64_t(0) : 0;
        uint64_t carry = 0;
        for (int i = l; i < limbs; ++i) {
            const uint64_t add = i == l ? lo : i == l + 1 ? hi : ext;
            const uint64_t s = w[i] + add;
            const uint64_t c1 = s < add;
            const uint64_t t = s + carry;
            carry = c1 | (t < carry);
            w[i] = t;
        }
    }
    OPF_HD void negate()
    {
        uint64_t carry = 1;
        for (int i = 0; i < limbs; ++i) {
            const uint64_t t = ~w[i] + carry;
            carry = carry && t == 0;
            w[i] = t;
        }
    }
    // signed compare: <0, 0, >0
    OPF_HD int compare(const MxWide &o) const
    {
        if (negative() != o.negative()) return negative() ? -1 : 1;
        for (int i = limbs - 1; i >= 0; --i)
            if (w[i] != o.w[i]) return w[i] < o.w[i] ? -1 : 1;
        return 0;
    }
    // Unsigned (a magnitude): the index of the highest set bit, -1 for 0.
    OPF_HD int top_bit() const
    {
        for (int i = limbs - 1; i >= 0; --i)
            if (w[i]) return 64 * i + mx_top_bit(w[i]);
        return -1;
    }
    // Unsigned: bits [at, at + 62) (at >= 1), the bit below them, and whether any lower bit is set.
    OPF_HD uint64_t bits_from(int at, bool &half, bool &sticky) const
    {
        auto bit_range = [&](int from) -> uint64_t {   // 64 bits from `from` (>= 0)
            const int l = from / 64, r = from % 64;
            if (l >= limbs) return 0;
            uint64_t v = w[l] >> r;
            if (r && l + 1 < limbs) v |= w[l + 1] << (64 - r);
            return v;
        };
        const uint64_t q = bit_range(at) & ((uint64_t(1) << 62) - 1);
        half = (bit_range(at - 1) & 1) != 0;
        bool s = false;
        const int below = at - 1;   // bits [0, below)
        for (int i = 0; i < limbs && 64 * i < below; ++i) {
            const int n = below - 64 * i;
            s |= (n >= 64 ? w[i] : (w[i] & ((uint64_t(1) << n) - 1))) != 0;
        }
        sticky = s;
        return q;
    }
    // Unsigned: this = floor(this / k), returns whether the remainder is non-zero (1 <= k <= 64).
    OPF_HD bool divide(uint32_t k)
    {
        uint64_t rem = 0;
        for (int i = limbs - 1; i >= 0; --i) {   // 32 bits at a time: rem < k < 2^32
            const uint64_t hi = (rem << 32) | (w[i] >> 32);
            const uint64_t qh = hi / k;
            rem = hi % k;
            const uint64_t lo = (rem << 32) | (w[i] & 0xffffffffu);
            const uint64_t ql = lo / k;
            rem = lo % k;
            w[i] = (qh << 32) | ql;
        }
        return rem != 0;
    }
};

// ---- the E8M0 rule ---------------------------------------------------------------
// The per-element state of a reduction in progress: the exact values of one
// result block, and whether a non-finite input was seen.
struct MxExact {
    MxWide v[32];
    bool nan;
};

enum class MxOp { Sum, Max, Min };

// acc = x (first input) or acc op= x.
template <class F> OPF_HD inline void e8m0_take(MxExact &acc, const uint8_t *x, MxOp op, bool first)
{
    static_assert(F::length == 32, "the E8M0 rule's frames are 32 a block");
    const unsigned scale = x[0];
    if (first) {
        acc.nan = false;
        for (int i = 0; i < 32; ++i) acc.v[i].clear();
    }
    bool nan = scale == kMxNanScale;
    const int at = int(scale) + MxWide::guard;
    for (int i = 0; i < 32 && !nan; ++i) {
        const unsigned c = mx_code<F>(x, i);
        if (mx_nonfinite<F>(c)) {
            nan = true;
            break;
        }
        const int64_t s = mx_steps<F>(c);
        if (first || op == MxOp::Sum) {
            acc.v[i].add(s, nan ? 0 : at);
        } else {
            MxWide t;
            t.clear();
            t.add(s, at);
            const int c2 = t.compare(acc.v[i]);
            if (op == MxOp::Max ? c2 > 0 : c2 < 0) acc.v[i] = t;
        }
    }
    acc.nan = acc.nan || nan;
}

// Where an element whose |value| / 2^scale has exponent e falls: its
// exponent in the format (raised to the subnormal one), the exponent of one
// step of the element there, or beyond the largest magnitude (MXINT8: from
// 2, past 127/64).
struct MxStep {
    int e, qexp;
    bool saturate;
};
template <class F> OPF_HD inline MxStep mx_step(int e)
{
    if constexpr (F::is_int) return {e, F::qmin, e > 1};
    else {
        e = e < F::emin ? F::emin : e;
        return {e, e - F::mbits, e > F::emax + 1};
    }
}
// The magnitude code of q steps at element exponent e (q may carry into the
// next exponent: the code's bits add up), saturated to the largest.
template <class F> OPF_HD inline unsigned mx_code(int e, uint64_t q)
{
    if constexpr (F::is_int) return q > F::max_code ? F::max_code : unsigned(q);
    else {
        const uint64_t c = (uint64_t(e - F::emin) << F::mbits) + q;
        return q == 0 ? 0u : c > F::max_code ? F::max_code : unsigned(c);
    }
}
// The element byte of a magnitude code and a sign (zero is +0; MXINT8 is two's complement).
template <class F> OPF_HD inline uint8_t mx_signed(unsigned code, bool negative)
{
    const bool minus = negative & (code != 0);   // (no branch: the signs of ordinary data are unpredictable)
    if constexpr (F::is_int) return uint8_t(minus ? uint8_t(-int(code)) : code);
    else return uint8_t(code | (minus ? F::sign_bit : 0u));
}

// Writes the quantized block of acc (the exact values, divided by k when
// k > 1: AVG) to out: the rule above, step 2 and 3.
template <class F> OPF_HD inline void e8m0_quantize(MxExact &acc, int k, uint8_t *out)
{
    uint8_t codes[32];
    if (acc.nan) {
        for (int i = 0; i < 32; ++i) codes[i] = 0;
        out[0] = kMxNanScale;
        mx_put_codes<F>(out, codes);
        return;
    }
    bool neg[32], sticky[32];
    int top = -1;
    for (int i = 0; i < 32; ++i) {
        neg[i] = acc.v[i].negative();
        if (neg[i]) acc.v[i].negate();
        sticky[i] = k > 1 ? acc.v[i].divide(uint32_t(k)) : false;
        const int t = acc.v[i].top_bit();
        if (t > top) top = t;
    }
    // bit j of the frame weighs 2^(j - 191 + qmin) (-127 - 64 = -191)
    constexpr int frame_lsb = -127 - MxWide::guard + F::qmin;
    int x = top < 0 ? -127 : top + frame_lsb - F::emax;
    x = x < -127 ? -127 : x > 127 ? 127 : x;
    out[0] = uint8_t(x + 127);
    for (int i = 0; i < 32; ++i) {
        const MxWide &a = acc.v[i];
        const int t = a.top_bit();
        unsigned code = 0;
        if (t >= 0) {
            const MxStep s = mx_step<F>(t + frame_lsb - x);   // the element exponent of |a| / 2^x
            if (s.saturate) {
                code = F::max_code;
            } else {
                const int at = x + s.qexp - frame_lsb;   // >= 64: the step's bit in the frame
                bool half, st;
                uint64_t q = a.bits_from(at, half, st);
                st = st || sticky[i];
                q += half && (st || (q & 1));
                code = mx_code<F>(s.e, q);
            }
        }
        codes[i] = mx_signed<F>(code, neg[i]);
    }
    mx_put_codes<F>(out, codes);
}

// The same rule where 64-bit integers hold it exactly: no NaN scale and no
// non-finite element, every element as integer steps aligned to the
// smallest input scale (steps of at most steps_bits, shifted by the scale
// spread, k of them summed: at most 62 bits), AVG of a power of two inputs
// (the division a shift of the unit). Then the exact results are int64_t
// in units of 2^lsb, and the quantization below is step 2 of the rule on
// them: false (nothing written) where it does not apply.
template <class F> inline constexpr int mx_steps_bits = F::is_int ? 8 : F::mbits + (1 << F::ebits) - 1;
template <class F> OPF_HD inline bool mx_reduce_small(const uint8_t *const in[], int k, uint8_t *out, MxOp op, bool mean)
{
    int smin = 255, smax = 0;
    for (int j = 0; j < k; ++j) {
        const int s = in[j][0];
        if (s == kMxNanScale) return false;
        smin = s < smin ? s : smin;
        smax = s > smax ? s : smax;
    }
    int lk = 0;
    while ((1 << lk) < k) ++lk;   // ceil(log2 k)
    if (mx_steps_bits<F> + (smax - smin) + (op == MxOp::Sum ? lk : 0) > 62 || (mean && (k & (k - 1)))) return false;
    int64_t v[32];
    for (int j = 0; j < k; ++j) {
        const int64_t unit = int64_t(1) << (in[j][0] - smin);
        for (int i = 0; i < 32; ++i) {
            const unsigned c = mx_code<F>(in[j], i);
            if (mx_nonfinite<F>(c)) return false;
            const int64_t x = mx_steps<F>(c) * unit;
            if (j == 0) v[i] = x;
            else if (op == MxOp::Sum) v[i] += x;
            else if (op == MxOp::Max ? x > v[i] : x < v[i]) v[i] = x;
        }
    }
    const int lsb = smin - 127 + F::qmin - (mean ? lk : 0);   // one unit of v weighs 2^lsb
    uint64_t mag[32], amax = 0;
    for (int i = 0; i < 32; ++i) {
        mag[i] = v[i] < 0 ? uint64_t(0) - uint64_t(v[i]) : uint64_t(v[i]);
        amax = mag[i] > amax ? mag[i] : amax;
    }
    int x = amax == 0 ? -127 : mx_top_bit(amax) + lsb - F::emax;
    x = x < -127 ? -127 : x > 127 ? 127 : x;
    uint8_t codes[32];
    for (int i = 0; i < 32; ++i) {
        const uint64_t a = mag[i];
        unsigned code = 0;
        if (a) {
            const MxStep s = mx_step<F>(mx_top_bit(a) + lsb - x);
            if (s.saturate) {
                code = F::max_code;
            } else {
                const int sh = x + s.qexp - lsb;   // the step's bit in units of 2^lsb
                uint64_t q = 0;
                if (sh <= 0) {
                    q = a << -sh;                // exact (q < 2^(mbits + 2))
                } else if (sh <= 64) {
                    q = sh == 64 ? 0 : a >> sh;
                    const bool half = (a >> (sh - 1)) & 1;
                    const bool sticky = sh > 1 && (a & ((uint64_t(1) << (sh - 1)) - 1)) != 0;
                    q += half && (sticky || (q & 1));
                }                                // (sh > 64: below half a step, 0)
                code = mx_code<F>(s.e, q);
            }
        }
        codes[i] = mx_signed<F>(code, v[i] < 0);
    }
    out[0] = uint8_t(x + 127);
    mx_put_codes<F>(out, codes);
    return true;
}

// ---- the UE4M3 rule (NVFP4) --------------------------------------------------
// A decoded value is element steps (2^qmin) times scale steps (E4M3's, 2^-9):
// an integer in units of 2^(qmin - 9), below 2^42 in magnitude for any
// element format summed over 64 inputs. AVG's division is the denominator
// of the rounding below, never carried out.
template <class F> struct ScaledExact {
    int64_t v[F::length];
    bool nan;
};

template <class F> OPF_HD inline void ue4m3_take(ScaledExact<F> &acc, const uint8_t *x, MxOp op, bool first)
{
    const unsigned scale = x[0];
    if (first) acc.nan = false;
    bool nan = block_nan_scale<F>(scale);
    const int64_t unit = nan ? 0 : mx_steps<E4M3Element>(scale);
    for (int i = 0; i < F::length; ++i) {
        const unsigned c = mx_code<F>(x, i);
        nan = nan || mx_nonfinite<F>(c);
        const int64_t v = mx_steps<F>(c) * unit, a = first ? 0 : acc.v[i];
        const int64_t larger = v > a ? v : a, smaller = v < a ? v : a;   // (selects, not branches)
        acc.v[i] = first ? v : op == MxOp::Sum ? a + v : op == MxOp::Max ? larger : smaller;
    }
    acc.nan = acc.nan || nan;
}

// The non-negative code of format G nearest num / den (num >= 0, den > 0),
// a tie to the even code, saturated at G's largest finite: a bisection of
// G's magnitudes, which grow with their codes, compared exactly; without
// branches (the codes of ordinary data are unpredictable).
template <class G> OPF_HD inline unsigned nearest_code(int64_t num, int64_t den)
{
    unsigned lo = 0;   // the largest code with steps(lo) * den <= num
    for (unsigned step = 1u << mx_top_bit(G::max_code); step; step >>= 1) {
        const unsigned t = lo + step;
        lo = ((t <= G::max_code) & (mx_steps<G>(t) * den <= num)) ? t : lo;
    }
    const unsigned hi = lo + 1;
    const int64_t twice = 2 * num, midpoint = (mx_steps<G>(lo) + mx_steps<G>(hi)) * den;
    const bool up = (lo < G::max_code) & ((twice > midpoint) | ((twice == midpoint) & ((hi & 1) == 0)));
    return up ? hi : lo;
}

template <class F> OPF_HD inline void ue4m3_quantize(const ScaledExact<F> &acc, int k, uint8_t *out)
{
    uint8_t codes[F::length] = {};
    if (acc.nan) {
        out[0] = F::nan_scale;
        mx_put_codes<F>(out, codes);
        return;
    }
    int64_t amax = 0;
    for (int i = 0; i < F::length; ++i) {
        const int64_t m = acc.v[i] < 0 ? -acc.v[i] : acc.v[i];
        amax = m > amax ? m : amax;
    }
    // amax / (k * largest element) in scale steps; a non-zero amax keeps a non-zero scale
    unsigned scale = nearest_code<E4M3Element>(amax, int64_t(k) * mx_steps<F>(F::max_code));
    if (scale == 0 && amax > 0) scale = 1;
    out[0] = uint8_t(scale);
    const int64_t den = int64_t(k) * mx_steps<E4M3Element>(scale);   // result / scale in element steps
    if constexpr (F::max_code < 16) {
        // a few codes (E2M1): the midpoints between them, times 2 den, once a
        // block; an element's code is the number it passes (a tie: up to an
        // even code)
        int64_t mid[F::max_code];
        for (unsigned c = 0; c < F::max_code; ++c) mid[c] = (mx_steps<F>(c) + mx_steps<F>(c + 1)) * den;
        for (int i = 0; i < F::length; ++i) {
            const int64_t v = acc.v[i], twice = 2 * (v < 0 ? -v : v);
            unsigned code = 0;
            for (unsigned c = 0; c < F::max_code; ++c) code += (twice > mid[c]) | ((twice == mid[c]) & (c & 1));
            codes[i] = scale ? mx_signed<F>(code, v < 0) : 0;
        }
    } else if (scale != 0) {
        for (int i = 0; i < F::length; ++i) {
            const int64_t v = acc.v[i];
            codes[i] = mx_signed<F>(nearest_code<F>(v < 0 ? -v : v, den), v < 0);
        }
    }
    mx_put_codes<F>(out, codes);
}

// ---- the rule of any block format ---------------------------------------------
// The state of a result block in progress, and its steps: the first input
// (first = true) or one more, then the quantized block of the exact values
// (divided by k when k > 1: AVG).
template <class F>
using BlockExact = std::conditional_t<F::scale == BlockScale::E8M0, MxExact, ScaledExact<F>>;
template <class F> OPF_HD inline void mx_take(BlockExact<F> &acc, const uint8_t *x, MxOp op, bool first)
{
    if constexpr (F::scale == BlockScale::E8M0) e8m0_take<F>(acc, x, op, first);
    else ue4m3_take<F>(acc, x, op, first);
}
template <class F> OPF_HD inline void mx_quantize(BlockExact<F> &acc, int k, uint8_t *out)
{
    if constexpr (F::scale == BlockScale::E8M0) e8m0_quantize<F>(acc, k, out);
    else ue4m3_quantize<F>(acc, k, out);
}

// The result block of `op` over k input blocks (AVG: Sum with mean = true);
// out may be any of the inputs.
template <class F> OPF_HD inline void mx_reduce(const uint8_t *const in[], int k, uint8_t *out, MxOp op, bool mean)
{
    if (k == 1) {   // one input: a copy, as every n-ary call of one source (opframe.h)
        if (in[0] != out)
            for (int b = 0; b < F::block_bytes; ++b) out[b] = in[0][b];
        return;
    }
    if constexpr (F::scale == BlockScale::E8M0)
        if (mx_reduce_small<F>(in, k, out, op, mean)) return;
    BlockExact<F> acc;
    for (int j = 0; j < k; ++j) mx_take<F>(acc, in[j], op, j == 0);
    mx_quantize<F>(acc, mean ? k : 1, out);
}
template <class F> OPF_HD inline MxBlock<F> mx_apply(const MxBlock<F> &a, const MxBlock<F> &b, MxOp op, bool mean)
{
    const uint8_t *in[2] = {a.bytes, b.bytes};
    MxBlock<F> r;
    mx_reduce<F>(in, 2, r.bytes, op, mean);
    return r;
}

} // namespace opf::base
