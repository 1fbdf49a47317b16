// mx_reference.h — the block-scaled formats (OCP MX with its E8M0 scale,
// NVFP4 with its E4M3 one) as the spec (opframe(7), "Block-scaled formats")
// defines them, written without library code and by other means than
// base/mx.h: elements read bit by bit from the stream, decoded by their
// definition into exact doubles, summed exactly in a sign-magnitude big
// integer, an E8M0 scale found by testing powers of two, an E4M3 scale and
// each element rounded by searching the format's ordered magnitudes for the
// nearest (a tie to the even code), all comparisons exact (AVG compares
// k * candidate with the sum instead of dividing).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace mxref {

// A block format: Len elements Bits wide; Int: MXINT8; else 1 sign, E
// exponent, M mantissa bits; NanKind 0 none, 1 E4M3 (S.1111.111), 2 IEEE
// (exponent all ones); the scale E8M0 or (E4M3Scale) an E4M3 code.
template <int Bits, int E, int M, int Emax, int NanKind, bool Int, int Kt, int Len = 32, bool E4M3Scale = false>
struct Spec {
    static constexpr int bits = Bits, emax = Emax, kt = Kt, length = Len;
    static constexpr int bytes = 1 + Len * Bits / 8;
    static constexpr bool is_int = Int, e4m3_scale = E4M3Scale;
    static constexpr uint8_t nan_scale = E4M3Scale ? 0x7f : 0xff;   // the NaN block's
    static bool scale_is_nan(uint8_t s) { return E4M3Scale ? (s & 0x7f) == 0x7f : s == 0xff; }
    static constexpr int bias = Int ? 0 : (1 << (E - 1)) - 1;
    static bool nonfinite(unsigned c)
    {
        if (Int) return false;
        const unsigned exp = (c >> M) & ((1u << E) - 1), man = c & ((1u << M) - 1);
        if (NanKind == 1) return exp == (1u << E) - 1 && man == (1u << M) - 1;
        if (NanKind == 2) return exp == (1u << E) - 1;
        return false;
    }
    // the value of a finite code, exact
    static double value(unsigned c)
    {
        if (Int) return std::ldexp(double(int8_t(uint8_t(c))), -6);
        const bool neg = (c >> (Bits - 1)) & 1;
        const unsigned exp = (c >> M) & ((1u << E) - 1), man = c & ((1u << M) - 1);
        const double v = exp == 0 ? std::ldexp(double(man), 1 - bias - M)
                                  : std::ldexp(1.0 + std::ldexp(double(man), -M), int(exp) - bias);
        return neg ? -v : v;
    }
    // the finite non-negative magnitudes, ascending, with their codes
    static const std::vector<std::pair<double, unsigned>>& magnitudes()
    {
        static const std::vector<std::pair<double, unsigned>> t = [] {
            std::vector<std::pair<double, unsigned>> v;
            if (Int) {
                for (unsigned c = 0; c <= 127; ++c) v.push_back({value(c), c});
            } else {
                for (unsigned c = 0; c < (1u << (Bits - 1)); ++c)
                    if (!nonfinite(c)) v.push_back({value(c), c});
            }
            std::sort(v.begin(), v.end());
            return v;
        }();
        return t;
    }
};

// ---- exact numbers: sign and magnitude, the magnitude in units of 2^-kLow
constexpr int kLow = 160;   // below 2^-143 (E5M2's smallest step at scale 2^-127)
struct Big {
    bool neg = false;
    std::array<uint32_t, 14> d{};   // 448 bits
    bool is_zero() const { return std::all_of(d.begin(), d.end(), [](uint32_t x) { return x == 0; }); }
    int bit_length() const
    {
        for (int i = int(d.size()) - 1; i >= 0; --i)
            if (d[size_t(i)]) return 32 * i + 32 - __builtin_clz(d[size_t(i)]);
        return 0;
    }
};
int cmp_mag(const Big& a, const Big& b)
{
    for (int i = int(a.d.size()) - 1; i >= 0; --i)
        if (a.d[size_t(i)] != b.d[size_t(i)]) return a.d[size_t(i)] < b.d[size_t(i)] ? -1 : 1;
    return 0;
}
void add_mag(Big& a, const Big& b)
{
    uint64_t c = 0;
    for (size_t i = 0; i < a.d.size(); ++i) {
        c += uint64_t(a.d[i]) + b.d[i];
        a.d[i] = uint32_t(c);
        c >>= 32;
    }
}
void sub_mag(Big& a, const Big& b)   // |a| >= |b|
{
    int64_t borrow = 0;
    for (size_t i = 0; i < a.d.size(); ++i) {
        int64_t t = int64_t(a.d[i]) - b.d[i] - borrow;
        borrow = t < 0;
        a.d[i] = uint32_t(t + (borrow << 32));
    }
}
Big add(const Big& a, const Big& b)
{
    Big r = a;
    if (a.neg == b.neg) {
        add_mag(r, b);
    } else if (cmp_mag(a, b) >= 0) {
        sub_mag(r, b);
    } else {
        r = b;
        sub_mag(r, a);
    }
    if (r.is_zero()) r.neg = false;
    return r;
}
int cmp(const Big& a, const Big& b)   // signed
{
    if (a.is_zero() && b.is_zero()) return 0;
    if (a.neg != b.neg) return a.neg ? -1 : 1;
    const int m = cmp_mag(a, b);
    return a.neg ? -m : m;
}
// m * 2^e exactly (m a non-negative integer below 2^53, e + kLow >= 0)
Big from_scaled(uint64_t m, int e)
{
    Big r;
    const int at = e + kLow;
    // m shifted to bit `at`: up to three 32-bit words (m < 2^53)
    const unsigned __int128 placed = (unsigned __int128)m << (at % 32);
    for (size_t w = size_t(at / 32), i = 0; i < 3 && w < r.d.size(); ++w, ++i)
        r.d[w] = uint32_t(placed >> (32 * i));
    return r;
}
// a double (exact: its 53-bit mantissa placed, read from the bits)
Big from_double(double v)
{
    if (v == 0) return Big{};
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    const int biased = int((bits >> 52) & 0x7ff);
    uint64_t m = bits & ((uint64_t(1) << 52) - 1);
    int at = -1074;   // a subnormal's scale
    if (biased) m |= uint64_t(1) << 52, at = biased - 1075;
    const int zeros = __builtin_ctzll(m);   // the lowest set bit: at or above 2^-kLow
    Big r = from_scaled(m >> zeros, at + zeros);
    r.neg = bits >> 63;
    return r;
}
Big times(const Big& a, uint32_t k)
{
    Big r = a;
    uint64_t c = 0;
    for (auto& x : r.d) {
        c += uint64_t(x) * k;
        x = uint32_t(c);
        c >>= 32;
    }
    return r;
}

template <class S> unsigned read_code(const uint8_t* block, int i)
{
    unsigned c = 0;
    for (int b = 0; b < S::bits; ++b) {
        const int j = S::bits * i + b;
        c |= unsigned((block[1 + j / 8] >> (j % 8)) & 1) << b;
    }
    return c;
}
template <class S> void write_code(uint8_t* block, int i, unsigned c)
{
    for (int b = 0; b < S::bits; ++b) {
        const int j = S::bits * i + b;
        const uint8_t bit = uint8_t(1u << (j % 8));
        if ((c >> b) & 1) block[1 + j / 8] |= bit;
        else block[1 + j / 8] &= uint8_t(~bit);
    }
}

// Decodes a block: false when it has a NaN scale or a non-finite element.
// The E4M3 format of an NVFP4 scale, as an element format (its magnitudes).
using E4M3 = Spec<8, 4, 3, 8, 1, false, -1>;
template <class S> double scale_value(uint8_t s)
{
    return S::e4m3_scale ? E4M3::value(s) : std::ldexp(1.0, int(s) - 127);
}
template <class S> bool decode(const uint8_t* block, Big (&v)[S::length])
{
    if (S::scale_is_nan(block[0])) return false;
    for (int i = 0; i < S::length; ++i) {
        const unsigned c = read_code<S>(block, i);
        if (S::nonfinite(c)) return false;
        v[i] = from_double(S::value(c) * scale_value<S>(block[0]));   // exact: a few bits times a few
    }
    return true;
}

// The index of the candidate nearest a (cands ascending, mags their codes),
// a tie to the even code, the last where a is beyond it.
inline size_t nearest(const std::vector<Big>& cands, const std::vector<std::pair<double, unsigned>>& mags, const Big& a)
{
    size_t lo = 0, hi = cands.size();   // cands[lo] <= a; hi: the first that is above
    while (hi - lo > 1) {
        const size_t mid = (lo + hi) / 2;
        if (cmp_mag(cands[mid], a) <= 0) lo = mid;
        else hi = mid;
    }
    if (lo + 1 == cands.size()) return lo;   // at or beyond the largest: saturated
    Big below = a, above = cands[lo + 1];
    sub_mag(below, cands[lo]);   // a - lo
    sub_mag(above, a);           // hi - a
    const int c = cmp_mag(below, above);
    return c > 0 || (c == 0 && (mags[lo + 1].second & 1) == 0) ? lo + 1 : lo;
}

// The block of the exact values v / k (the rule's quantization).
template <class S> void quantize(const Big (&v)[S::length], uint32_t k, uint8_t* out)
{
    Big amax;
    for (const Big& x : v)
        if (cmp_mag(x, amax) > 0) amax = x;
    amax.neg = false;
    const auto& mags = S::magnitudes();
    double scale;
    if (S::e4m3_scale) {
        // the E4M3 magnitude nearest amax / (k * largest), k * largest * m compared with amax
        const auto& smags = E4M3::magnitudes();
        std::vector<Big> cands(smags.size());
        for (size_t j = 0; j < smags.size(); ++j) cands[j] = times(from_double(smags[j].first * mags.back().first), k);
        unsigned code = smags[nearest(cands, smags, amax)].second;
        if (code == 0 && !amax.is_zero()) code = 1;   // the smallest subnormal, not a zero scale
        out[0] = uint8_t(code);
        scale = E4M3::value(code);
    } else {
        int x = -127;
        if (!amax.is_zero()) {
            // floor(log2(amax / k)): the largest e with k 2^e <= amax
            int e = amax.bit_length() - kLow;   // 2^e > amax >= amax / k
            while (cmp_mag(times(from_scaled(1, e), k), amax) > 0) --e;
            x = std::clamp(e - S::emax, -127, 127);
        }
        out[0] = uint8_t(x + 127);
        scale = std::ldexp(1.0, x);
    }
    // k * magnitude * scale for every magnitude, the block's candidates
    std::vector<Big> cands(mags.size());
    for (size_t j = 0; j < mags.size(); ++j) cands[j] = times(from_double(mags[j].first * scale), k);
    for (int i = 0; i < S::length; ++i) {
        Big a = v[i];
        const bool neg = a.neg;
        a.neg = false;
        unsigned code = scale == 0 ? 0 : mags[nearest(cands, mags, a)].second;   // (a zero scale: a zero block)
        if (code != 0 && neg) code = S::is_int ? (256 - code) & 0xff : code | (1u << (S::bits - 1));
        write_code<S>(out, i, code);
    }
}

enum class Op { Sum, Avg, Max, Min };
template <class S> void reduce(const uint8_t* const* in, int k, uint8_t* out, Op op)
{
    if (k == 1) {   // one source: a copy (opf_reduce_local_n)
        std::memmove(out, in[0], S::bytes);
        return;
    }
    Big acc[S::length], v[S::length];
    for (int j = 0; j < k; ++j) {
        if (!decode<S>(in[j], v)) {
            std::memset(out, 0, S::bytes);
            out[0] = S::nan_scale;
            return;
        }
        for (int i = 0; i < S::length; ++i) {
            if (j == 0) acc[i] = v[i];
            else if (op == Op::Sum || op == Op::Avg) acc[i] = add(acc[i], v[i]);
            else if (op == Op::Max ? cmp(v[i], acc[i]) > 0 : cmp(v[i], acc[i]) < 0) acc[i] = v[i];
        }
    }
    quantize<S>(acc, op == Op::Avg ? uint32_t(k) : 1u, out);
}

} // namespace mxref
