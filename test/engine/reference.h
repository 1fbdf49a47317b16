// reference.h — the conformance harness's independent reference: the
// storage layouts, value generators (random and adversarial: NaN, +-0, inf,
// denormals, INT_MIN, overflow, rounding ties), the NaN-aware comparison and
// one scalar functor per op, written from the spec. Nothing here includes or
// reuses library code (base/ in particular): it is the second opinion the
// kernels are compared with.
#pragma once

#include "test/engine/engine.h"
#include "test/engine/mx_reference.h"
#include <opframe/introspect.h>
#include <opframe/opframe.h>

#include <algorithm>
#include <cfloat>
#include <cstddef>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <new>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#if defined(__SIZEOF_INT128__)
#define CONF_HAVE_INT128 1
#endif
#if defined(CONF_HAVE_INT128) && defined(__SIZEOF_FLOAT128__)
#define CONF_HAVE_FLOAT128 1
#endif
#if defined(__FLT16_MAX__) && !defined(__aarch64__)   // aarch64 GCC 12: _Float16 in C only, not C++
#define CONF_HAVE_FLOAT16 1
#endif

namespace {

#ifdef CONF_HAVE_INT128
using Wide = unsigned __int128; // widest unsigned integer, for bit patterns
#else
using Wide = uint64_t;
#endif

using engine::Rng;
using engine::derive_seed;
inline Wide wide(Rng &r) { return (Wide(r.next()) << 32 << 32) | r.next(); }

std::string hex_bits(Wide v, int nibbles)
{
    std::string s = "0x";
    for (int i = nibbles - 1; i >= 0; --i)
        s += "0123456789abcdef"[unsigned(v >> (4 * i)) & 15u];
    return s;
}

// ===========================================================================
// Storage types of the kernel types (spec: "datatype -> kernel type").
// ===========================================================================
struct Half { uint16_t bits; }; // IEEE binary16, raw storage
struct BF16 { uint16_t bits; }; // bfloat16, raw storage
struct F8E4M3 { uint8_t bits; }; // OCP E4M3 (PyTorch float8_e4m3fn), raw storage
struct F8E5M2 { uint8_t bits; }; // OCP E5M2 (PyTorch float8_e5m2), raw storage
struct F8E4M3FNUZ { uint8_t bits; }; // AMD's E4M3 FNUZ (float8_e4m3fnuz), raw storage
struct F8E5M2FNUZ { uint8_t bits; }; // AMD's E5M2 FNUZ (float8_e5m2fnuz), raw storage
template <class S> struct Cplx { S re, im; };                 // {re, im}
template <class V, class I> struct Pair { V value; I index; }; // C struct {value; index;}

template <class T> struct IsPair : std::false_type {};
template <class V, class I> struct IsPair<Pair<V, I>> : std::true_type {};

// Bytes a buffer of n elements spans, as MPI counts it: the last element ends
// at its data (a pair's tail padding is not part of the buffer). The guard
// bytes start right there, so a kernel writing whole structs is caught.
template <class E> size_t span_bytes(size_t n)
{
    if (n == 0) return 0;
    if constexpr (IsPair<E>::value)
        return (n - 1) * sizeof(E) + offsetof(E, index) + sizeof(E::index);
    else
        return n * sizeof(E);
}

template <size_t N> struct UintOfSize;
template <> struct UintOfSize<1> { using type = uint8_t; };
template <> struct UintOfSize<2> { using type = uint16_t; };
template <> struct UintOfSize<4> { using type = uint32_t; };
template <> struct UintOfSize<8> { using type = uint64_t; };
#ifdef CONF_HAVE_INT128
template <> struct UintOfSize<16> { using type = unsigned __int128; };
#endif
template <class T> using UintOf = typename UintOfSize<sizeof(T)>::type;

// std::is_integral does not know __int128 under strict -std=c++20.
template <class T> concept Integer = std::is_integral_v<T>
#ifdef CONF_HAVE_INT128
    || std::is_same_v<T, __int128> || std::is_same_v<T, unsigned __int128>
#endif
    ;
// Floating types with native arithmetic.
template <class T> concept Real = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                 std::is_same_v<T, long double>
#ifdef CONF_HAVE_FLOAT128
    || std::is_same_v<T, __float128>
#endif
    ;
// 16- and 8-bit floats: arithmetic goes through float (spec).
template <class T> concept Narrow = std::is_same_v<T, Half> || std::is_same_v<T, BF16> ||
                                    std::is_same_v<T, F8E4M3> || std::is_same_v<T, F8E5M2> ||
                                    std::is_same_v<T, F8E4M3FNUZ> || std::is_same_v<T, F8E5M2FNUZ>;

// ===========================================================================
// 16-bit float conversions. Half uses the compiler's _Float16 when present;
// the bit-level versions are the fallback and are cross-checked against
// _Float16 in --self-test. bf16 rounding is always done here, by hand.
// ===========================================================================
uint32_t float_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
float bits_float(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

float half_to_float_manual(uint16_t h)
{
    const bool neg = h & 0x8000;
    const uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    float f;
    if (exp == 0x1f)
        f = bits_float(0x7f800000u | (man << 13));
    else if (exp == 0)
        f = std::ldexp(float(man), -24); // subnormal (or zero): exact in float
    else
        f = bits_float(((exp - 15 + 127) << 23) | (man << 13));
    return neg ? -f : f; // negation only flips the sign bit
}

// float -> binary16, round to nearest even; overflow -> inf; NaN stays NaN.
uint16_t float_to_half_manual(float f)
{
    const uint32_t x = float_bits(f);
    const uint16_t sign = uint16_t((x >> 16) & 0x8000);
    const uint32_t exp = (x >> 23) & 0xff, man = x & 0x7fffff;
    if (exp == 0xff)
        return uint16_t(sign | 0x7c00 | (man ? 0x200 | (man >> 13) : 0));
    const int e = int(exp) - 127 + 15; // biased half exponent
    if (e >= 31)
        return uint16_t(sign | 0x7c00);
    if (e <= 0) { // half subnormal: m * 2^-24
        if (e < -10)
            return sign; // below half the smallest subnormal
        const uint32_t full = man | 0x800000;
        const int shift = 14 - e;
        uint32_t h = full >> shift;
        const uint32_t rem = full & ((1u << shift) - 1), halfway = 1u << (shift - 1);
        if (rem > halfway || (rem == halfway && (h & 1)))
            ++h; // may carry into the smallest normal: still the right encoding
        return uint16_t(sign | h);
    }
    uint32_t h = (uint32_t(e) << 10) | (man >> 13);
    const uint32_t rem = man & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
        ++h; // a carry out of the maximum gives inf, as it should
    return uint16_t(sign | h);
}

float half_to_float(uint16_t h)
{
#ifdef CONF_HAVE_FLOAT16
    _Float16 x;
    std::memcpy(&x, &h, 2);
    return float(x);
#else
    return half_to_float_manual(h);
#endif
}

uint16_t float_to_half(float f)
{
#ifdef CONF_HAVE_FLOAT16
    const _Float16 x = static_cast<_Float16>(f);
    uint16_t h;
    std::memcpy(&h, &x, 2);
    return h;
#else
    return float_to_half_manual(f);
#endif
}

float bf16_to_float(uint16_t b) { return bits_float(uint32_t(b) << 16); }

// float -> bfloat16, round to nearest even on the dropped 16 bits.
uint16_t float_to_bf16(float f)
{
    uint32_t x = float_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return uint16_t((x >> 16) | 0x40); // NaN: keep it a (quiet) NaN
    x += 0x7fffu + ((x >> 16) & 1u);       // overflow rolls into inf: correct
    return uint16_t(x >> 16);
}

// ===========================================================================
// OCP 8-bit floats (OFP8 spec), from the bit layout s.e.m with bias
// 2^(E-1) - 1: a normal is (-1)^s 2^(e-bias) (1 + m/2^M), a subnormal
// (-1)^s 2^(1-bias) m/2^M. E5M2 keeps IEEE's specials (e all ones: inf when
// m = 0, else NaN); E4M3 (the "fn" variant) has no inf and s.1111.111 as its
// only NaN. Rounding is done by the definition, not by bit tricks: the
// nearest of the format's magnitudes, a tie to the even code, where the code
// after the largest finite stands for the next value of the sequence (E4M3:
// 480, E5M2: 65536): rounding to it, or being beyond it, is overflow, which
// gives NaN (E4M3) or inf (E5M2), never saturation (the spec's choice).
// ===========================================================================
template <int E, int M> struct Fp8Format {
    static constexpr int bias = (1 << (E - 1)) - 1;
    static constexpr bool has_inf = E == 5;
    static constexpr int max_finite = has_inf ? (((1 << E) - 2) << M) | ((1 << M) - 1) : 0x7e; // E5M2 0x7b
    // The magnitude of code c (0..127) by the layout alone, specials ignored.
    static double magnitude(int c)
    {
        const int e = c >> M, m = c & ((1 << M) - 1);
        return e == 0 ? std::ldexp(double(m), 1 - bias - M) : std::ldexp(double((1 << M) + m), e - bias - M);
    }
    static bool nan_code(uint8_t b)
    {
        const int c = b & 0x7f;
        return has_inf ? (c >> M) == (1 << E) - 1 && (c & ((1 << M) - 1)) : c == 0x7f;
    }
    static float decode(uint8_t b)
    {
        const int c = b & 0x7f;
        double v;
        if (nan_code(b))
            v = std::numeric_limits<double>::quiet_NaN();
        else if (c > max_finite) // E5M2's inf
            v = std::numeric_limits<double>::infinity();
        else
            v = magnitude(c);
        return float((b & 0x80) ? -v : v); // exact: every value fits a float
    }
    static uint8_t encode(float f)
    {
        const uint8_t sign = std::signbit(f) ? 0x80 : 0;
        const uint8_t overflow = has_inf ? uint8_t(max_finite + 1) : uint8_t(0x7f); // inf / NaN
        if (std::isnan(f))
            return uint8_t(sign | (has_inf ? 0x7e : 0x7f));
        const double a = std::fabs(double(f));
        const int next = max_finite + 1; // the virtual code past the largest finite
        if (a >= magnitude(next))
            return uint8_t(sign | overflow);
        static const std::vector<double> table = [] {
            std::vector<double> t;
            for (int c = 0; c <= max_finite + 1; ++c)
                t.push_back(magnitude(c));
            return t;
        }();
        // magnitude(c) <= a < magnitude(c + 1)
        int c = int(std::upper_bound(table.begin(), table.end(), a) - table.begin()) - 1;
        const double below = a - table[size_t(c)], above = table[size_t(c) + 1] - a;
        if (above < below || (above == below && (c & 1)))
            ++c;
        return uint8_t(sign | (c == next ? overflow : c));
    }
};
using E4M3Format = Fp8Format<4, 3>;
using E5M2Format = Fp8Format<5, 2>;

// AMD's FNUZ 8-bit floats, from their definition: the layout s.e.m with bias
// 2^(E-1) (one more than OCP's), every code finite but 0x80 (the pattern of
// -0), which is the one NaN: no inf, no negative zero. Rounding by the
// definition as above; the code after the largest finite (0x80 read as a
// magnitude: 256 for E4M3, 65536 for E5M2) stands for overflow, which gives
// the NaN, as do NaN and inf; a result of magnitude 0 is +0.
template <int E, int M> struct FnuzFormat {
    static constexpr int bias = 1 << (E - 1), man_bits = M;
    static double magnitude(int c)
    {
        const int e = c >> M, m = c & ((1 << M) - 1);
        return e == 0 ? std::ldexp(double(m), 1 - bias - M) : std::ldexp(double((1 << M) + m), e - bias - M);
    }
    static float decode(uint8_t b)
    {
        if (b == 0x80) return std::numeric_limits<float>::quiet_NaN();
        const double v = magnitude(b & 0x7f);
        return float((b & 0x80) ? -v : v);
    }
    static uint8_t encode(float f)
    {
        if (std::isnan(f)) return 0x80;
        const double a = std::fabs(double(f));
        if (a >= magnitude(0x80)) return 0x80;
        static const std::vector<double> table = [] {
            std::vector<double> t;
            for (int c = 0; c <= 0x80; ++c) t.push_back(magnitude(c));
            return t;
        }();
        int c = int(std::upper_bound(table.begin(), table.end(), a) - table.begin()) - 1;
        const double below = a - table[size_t(c)], above = table[size_t(c) + 1] - a;
        if (above < below || (above == below && (c & 1))) ++c;
        if (c == 0x80) return 0x80;
        return c == 0 ? uint8_t(0) : uint8_t((std::signbit(f) ? 0x80 : 0) | c);
    }
};
using E4M3FnuzFormat = FnuzFormat<4, 3>;
using E5M2FnuzFormat = FnuzFormat<5, 2>;

float widen(Half h) { return half_to_float(h.bits); }
float widen(BF16 b) { return bf16_to_float(b.bits); }
float widen(F8E4M3 b) { return E4M3Format::decode(b.bits); }
float widen(F8E5M2 b) { return E5M2Format::decode(b.bits); }
float widen(F8E4M3FNUZ b) { return E4M3FnuzFormat::decode(b.bits); }
float widen(F8E5M2FNUZ b) { return E5M2FnuzFormat::decode(b.bits); }
template <Narrow T> T narrow(float f)
{
    if constexpr (std::is_same_v<T, Half>)
        return Half{float_to_half(f)};
    else if constexpr (std::is_same_v<T, BF16>)
        return BF16{float_to_bf16(f)};
    else if constexpr (std::is_same_v<T, F8E4M3>)
        return F8E4M3{E4M3Format::encode(f)};
    else if constexpr (std::is_same_v<T, F8E5M2>)
        return F8E5M2{E5M2Format::encode(f)};
    else if constexpr (std::is_same_v<T, F8E4M3FNUZ>)
        return F8E4M3FNUZ{E4M3FnuzFormat::encode(f)};
    else
        return F8E5M2FNUZ{E5M2FnuzFormat::encode(f)};
}

// ===========================================================================
// Scalar traits: generation of ordinary and adversarial values, NaN-aware
// comparison of the value bytes, and display.
// ===========================================================================
template <class S> struct Scalar; // defined per category below

template <class T> requires Integer<T> struct Scalar<T> {
    using U = UintOf<T>;
    static constexpr bool is_signed = T(-1) < T(0);
    static constexpr bool is_floating = false;
    static T max() { return is_signed ? T(U(~U(0)) >> 1) : T(~U(0)); }
    static T min() { return is_signed ? T(U(U(1) << (8 * sizeof(T) - 1))) : T(0); }
    static T special(Rng& r)
    {
        switch (r.below(7)) {
        case 0: return min();
        case 1: return max();
        case 2: return T(-1);
        case 3: return T(0);
        case 4: return T(1);
        case 5: return T(U(U(min()) + 1));
        default: return T(U(U(max()) - 1));
        }
    }
    static T random(Rng& r)
    {
        switch (r.below(4)) {
        case 0: return special(r);
        case 1: return is_signed ? T(int(r.below(5)) - 2) : T(r.below(5)); // zeros for logic ops
        default: return T(U(wide(r)));
        }
    }
    static bool is_nan(const T&) { return false; }
    static bool same(const T& a, const T& b) { return a == b; }
    static std::string show(const T& v)
    {
        std::string s = hex_bits(Wide(U(v)), 2 * sizeof(T));
        if constexpr (sizeof(T) <= 8) {
            char buf[32];
            if constexpr (is_signed)
                std::snprintf(buf, sizeof buf, " (%lld)", (long long)v);
            else
                std::snprintf(buf, sizeof buf, " (%llu)", (unsigned long long)v);
            s += buf;
        }
        return s;
    }
};

// IEEE-754 style binary formats (1 sign, EXP exponent, MAN stored mantissa bits).
template <class S, class B, int EXP, int MAN> struct IeeeScalar {
    static constexpr bool is_floating = true;
    static constexpr B one = 1;
    static constexpr B man_mask = (one << MAN) - 1;
    static constexpr B exp_all = (one << EXP) - 1;
    static constexpr B bias = (one << (EXP - 1)) - 1;
    static constexpr B sign_bit = one << (EXP + MAN);
    static constexpr B quiet = one << (MAN - 1);

    static B bits(const S& v) { B b; std::memcpy(&b, &v, sizeof b); return b; }
    static S make(bool neg, B exp, B man)
    {
        const B b = (neg ? sign_bit : B(0)) | B(exp << MAN) | B(man & man_mask);
        S v;
        std::memcpy(&v, &b, sizeof v);
        return v;
    }
    static B random_man(Rng& r) { return B(wide(r)) & man_mask; }
    static bool is_nan(const S& v) { const B b = bits(v); return ((b >> MAN) & exp_all) == exp_all && (b & man_mask); }
    static bool sign(const S& v) { return bits(v) & sign_bit; }
    static bool same(const S& a, const S& b) { return (is_nan(a) && is_nan(b)) || bits(a) == bits(b); }
    static S zero(bool neg) { return make(neg, 0, 0); }
    static S large(Rng& r, bool neg) { return make(neg, exp_all - 1, random_man(r)); } // sums overflow
    static S special(Rng& r)
    {
        const bool neg = r.coin();
        switch (r.below(12)) {
        case 0: return zero(neg);
        case 1: return make(neg, exp_all, 0);                                // inf
        case 2: return make(neg, exp_all, quiet | random_man(r));            // quiet NaN
        case 3: return make(neg, exp_all, (random_man(r) & (quiet - 1)) | 1); // signalling NaN
        case 4: return make(neg, 0, 1);                                      // smallest denormal
        case 5: return make(neg, 0, man_mask);                               // largest denormal
        case 6: return make(neg, 1, 0);                                      // smallest normal
        case 7: return make(neg, exp_all - 1, man_mask);                     // largest finite
        case 8: return make(neg, bias, 0);                                   // +-1
        case 9: return large(r, neg);
        case 10: return make(neg, bias - MAN - 1, 0); // half an ulp of 1: 1 + it is a rounding tie
        default: return make(neg, bias, r.coin() ? 1 : man_mask); // just above 1 / just below 2
        }
    }
    static S random(Rng& r)
    {
        switch (r.below(4)) {
        case 0: return special(r);
        case 1: { B b = B(wide(r)); S v; std::memcpy(&v, &b, sizeof v); return v; } // any pattern
        default: return make(r.coin(), B(bias - 12 + r.below(25)), random_man(r)); // moderate range
        }
    }
    static double approx(const S& v)
    {
        if constexpr (Narrow<S>)
            return double(widen(v));
        else
            return double(v);
    }
    static std::string show(const S& v)
    {
        char buf[48];
        std::snprintf(buf, sizeof buf, " (%.17g)", approx(v));
        return hex_bits(Wide(bits(v)), (1 + EXP + MAN) / 4) + buf;
    }
};

template <> struct Scalar<float> : IeeeScalar<float, uint32_t, 8, 23> {};
template <> struct Scalar<double> : IeeeScalar<double, uint64_t, 11, 52> {};
template <> struct Scalar<Half> : IeeeScalar<Half, uint16_t, 5, 10> {};
template <> struct Scalar<BF16> : IeeeScalar<BF16, uint16_t, 8, 7> {};
template <> struct Scalar<F8E5M2> : IeeeScalar<F8E5M2, uint8_t, 5, 2> {};
// E4M3 is not IEEE-like at the top (no inf, one NaN per sign): its own.
template <> struct Scalar<F8E4M3> {
    static constexpr bool is_floating = true;
    static F8E4M3 make(bool neg, int code) { return F8E4M3{uint8_t((neg ? 0x80 : 0) | code)}; }
    static bool is_nan(const F8E4M3& v) { return (v.bits & 0x7f) == 0x7f; }
    static bool sign(const F8E4M3& v) { return v.bits & 0x80; }
    static bool same(const F8E4M3& a, const F8E4M3& b) { return (is_nan(a) && is_nan(b)) || a.bits == b.bits; }
    static F8E4M3 zero(bool neg) { return make(neg, 0); }
    static F8E4M3 large(Rng& r, bool neg) { return make(neg, 0x70 + int(r.below(15))); } // 128..448: sums overflow
    static F8E4M3 special(Rng& r)
    {
        const bool neg = r.coin();
        switch (r.below(9)) {
        case 0: return zero(neg);
        case 1: return make(neg, 0x7f); // NaN
        case 2: return make(neg, 0x01); // smallest subnormal
        case 3: return make(neg, 0x07); // largest subnormal
        case 4: return make(neg, 0x08); // smallest normal
        case 5: return make(neg, 0x7e); // largest finite, 448
        case 6: return make(neg, 0x38); // +-1
        case 7: return make(neg, 0x18); // half an ulp of 1: 1 + it is a rounding tie
        default: return large(r, neg);
        }
    }
    static F8E4M3 random(Rng& r) { return r.one_in(4) ? special(r) : F8E4M3{uint8_t(r.next())}; }
    static std::string show(const F8E4M3& v)
    {
        char buf[48];
        std::snprintf(buf, sizeof buf, " (%.17g)", double(widen(v)));
        return hex_bits(v.bits, 2) + buf;
    }
};
// The FNUZ formats: one NaN (0x80), no inf, no -0 (a "negative zero" is +0).
template <class S, class Format> struct FnuzScalar {
    static constexpr bool is_floating = true;
    static S make(bool neg, int code) { return S{uint8_t(code == 0 ? 0 : (neg ? 0x80 : 0) | code)}; }
    static bool is_nan(const S& v) { return v.bits == 0x80; }
    static bool sign(const S& v) { return (v.bits & 0x80) && !is_nan(v); }
    static bool same(const S& a, const S& b) { return a.bits == b.bits; }
    static S zero(bool) { return S{0}; }
    static S large(Rng& r, bool neg) { return make(neg, 0x78 + int(r.below(8))); } // the top codes: sums overflow
    static S special(Rng& r)
    {
        const bool neg = r.coin();
        switch (r.below(9)) {
        case 0: return zero(neg);
        case 1: return S{0x80};                   // the NaN
        case 2: return make(neg, 0x01);           // smallest subnormal
        case 3: return make(neg, (1 << Format::man_bits) - 1);                    // largest subnormal
        case 4: return make(neg, 0x7f);                                           // largest finite
        case 5: return make(neg, Format::bias << Format::man_bits);              // +-1
        case 6: return make(neg, (Format::bias - Format::man_bits - 1) << Format::man_bits); // half an ulp of 1: a tie
        case 7: return S{uint8_t(r.next())};
        default: return large(r, neg);
        }
    }
    static S random(Rng& r) { return r.one_in(4) ? special(r) : S{uint8_t(r.next())}; }
    static std::string show(const S& v)
    {
        char buf[48];
        std::snprintf(buf, sizeof buf, " (%.17g)", double(widen(v)));
        return hex_bits(v.bits, 2) + buf;
    }
};
template <> struct Scalar<F8E4M3FNUZ> : FnuzScalar<F8E4M3FNUZ, E4M3FnuzFormat> {};
template <> struct Scalar<F8E5M2FNUZ> : FnuzScalar<F8E5M2FNUZ, E5M2FnuzFormat> {};
#ifdef CONF_HAVE_FLOAT128
template <> struct Scalar<__float128> : IeeeScalar<__float128, unsigned __int128, 15, 112> {};
#endif

#if LDBL_MANT_DIG == 113 && defined(CONF_HAVE_INT128)
// IEEE binary128 (aarch64): no padding, an IEEE format like the others.
template <> struct Scalar<long double> : IeeeScalar<long double, unsigned __int128, 15, 112> {};
#else
// x87 80-bit extended in 16 bytes: 64-bit mantissa with an explicit integer
// bit (bytes 0-7), sign and exponent (bytes 8-9), 6 padding bytes.
template <> struct Scalar<long double> {
    static_assert(sizeof(long double) == 16 && LDBL_MANT_DIG == 64, "x87 long double expected");
    static constexpr bool is_floating = true;
    static constexpr unsigned kValueBytes = 10;
    static constexpr uint16_t exp_all = 0x7fff, bias = 16383;
    static constexpr uint64_t integer_bit = 1ULL << 63, quiet = 1ULL << 62;

    static uint64_t mantissa(const long double& v) { uint64_t m; std::memcpy(&m, &v, 8); return m; }
    static uint16_t sign_exp(const long double& v) { uint16_t se; std::memcpy(&se, reinterpret_cast<const char*>(&v) + 8, 2); return se; }
    static long double make(bool neg, uint16_t exp, uint64_t man, Rng& r)
    {
        unsigned char b[16];
        const uint64_t pad = r.next(); // padding is garbage: it must not matter
        const uint16_t se = uint16_t((neg ? 0x8000 : 0) | exp);
        std::memcpy(b, &man, 8);
        std::memcpy(b + 8, &se, 2);
        std::memcpy(b + 10, &pad, 6);
        long double v;
        std::memcpy(&v, b, 16);
        return v;
    }
    static bool is_nan(const long double& v) { return (sign_exp(v) & exp_all) == exp_all && (mantissa(v) << 1); }
    static bool sign(const long double& v) { return sign_exp(v) & 0x8000; }
    static bool same(const long double& a, const long double& b)
    {
        return (is_nan(a) && is_nan(b)) || std::memcmp(&a, &b, kValueBytes) == 0;
    }
    static long double zero(bool neg) { Rng r(0); return make(neg, 0, 0, r); }
    static long double large(Rng& r, bool neg) { return make(neg, exp_all - 1, r.next() | integer_bit, r); }
    static long double special(Rng& r)
    {
        const bool neg = r.coin();
        switch (r.below(12)) {
        case 0: return make(neg, 0, 0, r);
        case 1: return make(neg, exp_all, integer_bit, r);                                   // inf
        case 2: return make(neg, exp_all, integer_bit | quiet | (r.next() >> 2), r);          // quiet NaN
        case 3: return make(neg, exp_all, integer_bit | (r.next() >> 2) | 1, r);             // signalling NaN
        case 4: return make(neg, 0, 1, r);                                                   // smallest denormal
        case 5: return make(neg, 0, ~integer_bit, r);                                        // largest denormal
        case 6: return make(neg, 1, integer_bit, r);                                         // smallest normal
        case 7: return make(neg, exp_all - 1, ~0ULL, r);                                     // largest finite
        case 8: return make(neg, bias, integer_bit, r);                                      // +-1
        case 9: return large(r, neg);
        case 10: return make(neg, bias - 64, integer_bit, r); // half an ulp of 1
        default: return make(neg, bias, integer_bit | (r.coin() ? 1 : ~integer_bit), r);
        }
    }
    static long double random(Rng& r)
    {
        if (r.one_in(4))
            return special(r);
        return make(r.coin(), uint16_t(bias - 20 + r.below(41)), r.next() | integer_bit, r);
    }
    static std::string show(const long double& v)
    {
        char buf[80];
        std::snprintf(buf, sizeof buf, "0x%04x:%016" PRIx64 " (%.21Lg)", sign_exp(v), mantissa(v), v);
        return buf;
    }
};
#endif

template <class S> concept IsScalar = requires { Scalar<S>::is_floating; };

// ---- element-level operations: scalar, complex, pair ---------------------
template <IsScalar S> bool same(const S& a, const S& b) { return Scalar<S>::same(a, b); }
template <class S> bool same(const Cplx<S>& a, const Cplx<S>& b) { return same(a.re, b.re) && same(a.im, b.im); }
// Comparing members ignores the padding of the struct, as it should.
template <class V, class I> bool same(const Pair<V, I>& a, const Pair<V, I>& b)
{
    return same(a.value, b.value) && same(a.index, b.index);
}

template <IsScalar S> std::string show(const S& v) { return Scalar<S>::show(v); }
template <class S> std::string show(const Cplx<S>& v) { return "(" + show(v.re) + ", " + show(v.im) + ")"; }
template <class V, class I> std::string show(const Pair<V, I>& v) { return "{" + show(v.value) + "; " + show(v.index) + "}"; }

// Fills one position of both operands: independent values, but exact ties
// (1/4), signed-zero pairs and overflowing pairs are forced often.
template <IsScalar S> void gen_operands(Rng& r, S& a, S& b)
{
    a = Scalar<S>::random(r);
    const uint64_t k = r.below(16);
    if (k < 4) {
        b = a;
    } else if constexpr (Scalar<S>::is_floating) {
        if (k == 4) { // +0 vs -0 in either order
            const bool neg = r.coin();
            a = Scalar<S>::zero(neg);
            b = Scalar<S>::zero(!neg);
        } else if (k == 5) {
            const bool neg = r.coin();
            a = Scalar<S>::large(r, neg);
            b = Scalar<S>::large(r, neg);
        } else {
            b = Scalar<S>::random(r);
        }
    } else {
        b = Scalar<S>::random(r);
    }
}
template <class S> void gen_operands(Rng& r, Cplx<S>& a, Cplx<S>& b)
{
    gen_operands(r, a.re, b.re);
    gen_operands(r, a.im, b.im);
}

// Indices of pairs. Float indices stay finite, never NaN and never -0: the
// spec only says "min by value", which leaves those cases open.
template <class I> I gen_index(Rng& r)
{
    if constexpr (Integer<I>) {
        if (r.one_in(6))
            return Scalar<I>::special(r);
        return I(int64_t(r.below(2001)) - 1000);
    } else {
        if (r.one_in(8))
            return r.coin() ? I(1e30) : I(-1e30);
        return I(int64_t(r.below(2001)) - 1000);
    }
}
template <class V, class I> void gen_operands(Rng& r, Pair<V, I>& a, Pair<V, I>& b)
{
    gen_operands(r, a.value, b.value); // value ties with different indices come from here
    a.index = gen_index<I>(r);
    b.index = r.one_in(8) ? a.index : gen_index<I>(r);
}

// opf_type_size of a predefined type: the sum of the member sizes.
template <class E> constexpr size_t spec_type_size()
{
    if constexpr (IsPair<E>::value)
        return sizeof(E{}.value) + sizeof(E{}.index);
    else
        return sizeof(E);
}

// ===========================================================================
// The reference: one functor per op, with eval(a, b) = a op b (a is left).
// An op is defined for an element type iff the eval overload exists.
// ===========================================================================
template <class T> bool nan_of(const T& v) { return Scalar<T>::is_nan(v); }
template <class T> bool sign_of(const T& v) { return Scalar<T>::sign(v); }

// Keeps the compiler from fusing a product into a later add (no FMA).
template <class T> T rounded(T x)
{
    asm volatile("" : "+m"(x));
    return x;
}

// Wrapping arithmetic happens in an unsigned type at least as wide as T
// (never int: uint16 * uint16 would overflow a promoted int).
template <Integer T> using WrapT = std::conditional_t<(sizeof(T) <= 8), uint64_t, UintOf<T>>;

template <Real T> T max_rule(T a, T b)
{
    if (nan_of(a)) return a;
    if (nan_of(b)) return b;
    if (a == b) return sign_of(a) ? b : a; // only +-0 differ while equal: +0 wins
    return a < b ? b : a;
}
template <Real T> T min_rule(T a, T b)
{
    if (nan_of(a)) return a;
    if (nan_of(b)) return b;
    if (a == b) return sign_of(a) ? a : b; // -0 wins
    return b < a ? b : a;
}
// 16-bit floats: widen both, do the float op, round once to the format.
template <Narrow T, class F> T via_float(const T& a, const T& b, F f) { return narrow<T>(f(widen(a), widen(b))); }

// ===========================================================================
// OCP MX blocks (issue 35): one element is a whole block (mx_reference.h).
// ===========================================================================
template <class S> struct MxE { uint8_t bytes[S::bytes]; };
template <class T> struct IsMxE : std::false_type {};
template <class S> struct IsMxE<MxE<S>> : std::true_type {};
using MxSpecE4M3 = mxref::Spec<8, 4, 3, 8, 1, false, OPF_KT_MXFP8_E4M3>;
using MxSpecE5M2 = mxref::Spec<8, 5, 2, 15, 2, false, OPF_KT_MXFP8_E5M2>;
using MxSpecE3M2 = mxref::Spec<6, 3, 2, 4, 0, false, OPF_KT_MXFP6_E3M2>;
using MxSpecE2M3 = mxref::Spec<6, 2, 3, 2, 0, false, OPF_KT_MXFP6_E2M3>;
using MxSpecE2M1 = mxref::Spec<4, 2, 1, 2, 0, false, OPF_KT_MXFP4_E2M1>;
using MxSpecInt8 = mxref::Spec<8, 0, 6, 0, 0, true, OPF_KT_MXINT8>;
using MxSpecNvfp4 = mxref::Spec<4, 2, 1, 2, 0, false, OPF_KT_NVFP4, 16, true>;   // E2M1 x 16, an E4M3 scale

template <class S> bool same(const MxE<S>& a, const MxE<S>& b)
{
    return std::memcmp(a.bytes, b.bytes, S::bytes) == 0 || (S::scale_is_nan(a.bytes[0]) && S::scale_is_nan(b.bytes[0]));
}
template <class S> std::string show(const MxE<S>& v)
{
    std::string s = "scale 0x" + hex_bits(v.bytes[0], 2) + " [";
    for (int i = 0; i < S::length; ++i) {
        char buf[48];
        const unsigned c = mxref::read_code<S>(v.bytes, i);
        if (S::nonfinite(c))
            std::snprintf(buf, sizeof buf, "%s%x:nonfinite", i ? " " : "", c);
        else
            std::snprintf(buf, sizeof buf, "%s%x:%g", i ? " " : "", c, S::value(c));
        s += buf;
    }
    return s + "]";
}
template <class S> unsigned mx_random_code(Rng& r, bool finite)
{
    for (;;) {
        const unsigned c = unsigned(r.next()) & ((1u << S::bits) - 1);
        if (!finite || !S::nonfinite(c)) return c;
    }
}
template <class S> unsigned mx_max_code(bool neg)
{
    const unsigned m = S::magnitudes().back().second;
    return neg ? (S::is_int ? (256 - m) & 0xff : m | (1u << (S::bits - 1))) : m;
}
// A block: ordinary (scale near 1, any finite codes) or adversarial.
template <class S> void mx_fill(Rng& r, MxE<S>& v, uint8_t scale, int kind)
{
    v.bytes[0] = scale;
    for (int i = 0; i < S::length; ++i) {
        unsigned c;
        switch (kind) {
        case 1: c = 0; break;                                                    // all zero
        case 2: c = i == 5 ? mx_max_code<S>(r.coin()) : unsigned(r.below(3)); break; // one huge, the rest tiny
        case 3: c = mx_max_code<S>(r.coin()); break;                              // the saturation edge
        default: c = mx_random_code<S>(r, true);
        }
        mxref::write_code<S>(v.bytes, i, c);
    }
}
template <class S> void gen_operands(Rng& r, MxE<S>& a, MxE<S>& b)
{
    // scale codes: E8M0 (2^(s-127), 0 .. 254) or E4M3 (0 .. 0x7e, 0x38 = 1)
    const int one = S::e4m3_scale ? 0x38 : 127, top = S::e4m3_scale ? 0x7e : 254;
    auto scale_near = [&](int centre, int spread) {
        return uint8_t(std::clamp(centre + int(r.below(uint64_t(2 * spread + 1))) - spread, 0, top));
    };
    const uint64_t k = r.below(16);
    uint8_t sa = scale_near(one, 3), sb = sa;
    if (k == 0) { sa = 0; sb = uint8_t(r.below(3)); }                     // smallest scales (E4M3: subnormal)
    else if (k == 1) { sa = uint8_t(top); sb = uint8_t(top - r.below(3)); } // largest scales: sums past the top
    else if (k == 2) { sb = scale_near(one, S::e4m3_scale ? 60 : 100); }  // far apart: the small one a sticky bit
    else if (k == 3) { sb = uint8_t(sa - 1 - r.below(5)); }               // near: ties at the final rounding
    mx_fill(r, a, sa, k == 4 ? 1 : k == 5 ? 2 : k == 6 ? 3 : 0);
    mx_fill(r, b, sb, k == 7 ? 1 : k == 6 ? 3 : k == 8 ? 2 : 0);
    if (k == 9) b = a;                                                    // x op x: exact doubling, ties
    if (k == 10) {                                                        // a negated: SUM cancels to zero
        b = a;
        for (int i = 0; i < S::length; ++i) {
            const unsigned c = mxref::read_code<S>(a.bytes, i);
            mxref::write_code<S>(b.bytes, i, S::is_int ? (c == 0x80 ? 0x7f : (256 - c) & 0xff) : c ^ (1u << (S::bits - 1)));
        }
    }
    if (S::e4m3_scale && r.one_in(16)) (r.coin() ? a : b).bytes[0] |= 0x80;  // an E4M3 scale's sign: negated values
    if (r.one_in(24)) (r.coin() ? a : b).bytes[0] = r.coin() ? 0xff : S::nan_scale;   // the NaN scale (E4M3: either sign)
    if (r.one_in(24)) {                                                   // a non-finite element, where the format has one
        MxE<S>& v = r.coin() ? a : b;
        const unsigned c = mx_random_code<S>(r, false);
        if (S::nonfinite(c)) mxref::write_code<S>(v.bytes, int(r.below(S::length)), c);
    }
}
template <class S> S mxref_spec(const MxE<S>&) { return S{}; }
template <class S, mxref::Op O> MxE<S> mx_eval(const MxE<S>& a, const MxE<S>& b)
{
    const uint8_t* in[2] = {a.bytes, b.bytes};
    MxE<S> r;
    mxref::reduce<S>(in, 2, r.bytes, O);
    return r;
}

struct OpMax {
    static constexpr int id = OPF_OPID_MAX;
    template <class S> static MxE<S> eval(const MxE<S>& a, const MxE<S>& b) { return mx_eval<S, mxref::Op::Max>(a, b); }
    template <Integer T> static T eval(const T& a, const T& b) { return a < b ? b : a; }
    template <Real T> static T eval(const T& a, const T& b) { return max_rule(a, b); }
    template <Narrow T> static T eval(const T& a, const T& b) { return via_float(a, b, max_rule<float>); }
};
struct OpMin {
    static constexpr int id = OPF_OPID_MIN;
    template <class S> static MxE<S> eval(const MxE<S>& a, const MxE<S>& b) { return mx_eval<S, mxref::Op::Min>(a, b); }
    template <Integer T> static T eval(const T& a, const T& b) { return b < a ? b : a; }
    template <Real T> static T eval(const T& a, const T& b) { return min_rule(a, b); }
    template <Narrow T> static T eval(const T& a, const T& b) { return via_float(a, b, min_rule<float>); }
};
struct OpSum {
    static constexpr int id = OPF_OPID_SUM;
    template <class S> static MxE<S> eval(const MxE<S>& a, const MxE<S>& b) { return mx_eval<S, mxref::Op::Sum>(a, b); }
    template <Integer T> static T eval(const T& a, const T& b) { return T(WrapT<T>(a) + WrapT<T>(b)); }
    template <Real T> static T eval(const T& a, const T& b) { return a + b; }
    template <Narrow T> static T eval(const T& a, const T& b)
    {
        return via_float(a, b, [](float x, float y) { return x + y; });
    }
    template <Real T> static Cplx<T> eval(const Cplx<T>& a, const Cplx<T>& b) { return {a.re + b.re, a.im + b.im}; }
};
struct OpProd {
    static constexpr int id = OPF_OPID_PROD;
    template <Integer T> static T eval(const T& a, const T& b) { return T(WrapT<T>(a) * WrapT<T>(b)); }
    template <Real T> static T eval(const T& a, const T& b) { return a * b; }
    template <Narrow T> static T eval(const T& a, const T& b)
    {
        return via_float(a, b, [](float x, float y) { return x * y; });
    }
    // (a+bi)(c+di) = (ac-bd) + (ad+bc)i: four rounded products, no Annex G.
    template <Real T> static Cplx<T> eval(const Cplx<T>& x, const Cplx<T>& y)
    {
        const T ac = rounded(x.re * y.re), bd = rounded(x.im * y.im);
        const T ad = rounded(x.re * y.im), bc = rounded(x.im * y.re);
        return {ac - bd, ad + bc};
    }
};
struct OpLand {
    static constexpr int id = OPF_OPID_LAND;
    template <Integer T> static T eval(const T& a, const T& b) { return T((a != T(0)) && (b != T(0))); }
};
struct OpLor {
    static constexpr int id = OPF_OPID_LOR;
    template <Integer T> static T eval(const T& a, const T& b) { return T((a != T(0)) || (b != T(0))); }
};
struct OpLxor {
    static constexpr int id = OPF_OPID_LXOR;
    template <Integer T> static T eval(const T& a, const T& b) { return T((a != T(0)) != (b != T(0))); }
};
struct OpBand {
    static constexpr int id = OPF_OPID_BAND;
    template <Integer T> static T eval(const T& a, const T& b) { return T(UintOf<T>(a) & UintOf<T>(b)); }
};
struct OpBor {
    static constexpr int id = OPF_OPID_BOR;
    template <Integer T> static T eval(const T& a, const T& b) { return T(UintOf<T>(a) | UintOf<T>(b)); }
};
struct OpBxor {
    static constexpr int id = OPF_OPID_BXOR;
    template <Integer T> static T eval(const T& a, const T& b) { return T(UintOf<T>(a) ^ UintOf<T>(b)); }
};

// MAXLOC / MINLOC: value by the MAX / MIN rule; index of the winner, the
// smaller index on a tie (+0 == -0 included) or when both values are NaN,
// the NaN operand's index when exactly one is NaN.
template <bool kMax> struct OpLoc {
    static constexpr int id = kMax ? OPF_OPID_MAXLOC : OPF_OPID_MINLOC;
    template <class I> static I smaller(const I& i, const I& j) { return j < i ? j : i; }
    template <class V, class I> static Pair<V, I> eval(const Pair<V, I>& a, const Pair<V, I>& b)
    {
        Pair<V, I> r{};
        r.value = kMax ? OpMax::eval(a.value, b.value) : OpMin::eval(a.value, b.value);
        const bool na = nan_of(a.value), nb = nan_of(b.value);
        if (na && nb)
            r.index = smaller(a.index, b.index);
        else if (na || nb)
            r.index = na ? a.index : b.index;
        else if (a.value == b.value)
            r.index = smaller(a.index, b.index);
        else
            r.index = (kMax ? b.value < a.value : a.value < b.value) ? a.index : b.index;
        return r;
    }
};
using OpMaxLoc = OpLoc<true>;
using OpMinLoc = OpLoc<false>;

// AVG (issue 26), the mean of two: integers the exact mean rounded toward
// zero (computed in 128 bits; 128-bit integers as floor((a+b)/2) by halves,
// moved toward zero); reals (a + b) / 2 in the type; narrow types by the
// mean's one rule (narrow_mean below); complex part by part.
// The mean of k narrow values (float16, bfloat16, fp8), as opframe(7)
// defines it: each widened to float and scaled by 2^-6, summed left to right
// in float, divided by k, scaled back by 2^6, rounded to the type once.
template <Narrow T> T narrow_mean(const T* in, int k)
{
    float s = widen(in[0]) * 0x1p-6f;
    for (int j = 1; j < k; ++j)
        s += widen(in[j]) * 0x1p-6f;
    return narrow<T>(s / float(k) * 0x1p6f);
}

struct OpAvg {
    static constexpr int id = OPF_OPID_AVG;
    template <class S> static MxE<S> eval(const MxE<S>& a, const MxE<S>& b) { return mx_eval<S, mxref::Op::Avg>(a, b); }
    template <Integer T> static T eval(const T& a, const T& b)
    {
        if constexpr (sizeof(T) <= 8) {
            return T((__int128(a) + __int128(b)) / 2);
        } else {
            T h = T((a >> 1) + (b >> 1) + (a & b & 1));
            if (h < 0 && ((a ^ b) & 1)) h = T(h + 1);
            return h;
        }
    }
    template <Real T> static T eval(const T& a, const T& b) { return rounded(a + b) / T(2); }
    template <Narrow T> static T eval(const T& a, const T& b)
    {
        const T in[2] = {a, b};
        return narrow_mean(in, 2);
    }
    template <Real T> static Cplx<T> eval(const Cplx<T>& a, const Cplx<T>& b)
    {
        return {rounded(a.re + b.re) / T(2), rounded(a.im + b.im) / T(2)};
    }
};

struct OpReplace {
    static constexpr int id = OPF_OPID_REPLACE;
    template <class E> static E eval(const E& a, const E&) { return a; } // left operand
};
struct OpNoOp {
    static constexpr int id = OPF_OPID_NO_OP;
    template <class E> static E eval(const E&, const E& b) { return b; } // right operand
};

template <class... Ts> struct TypeList {};
template <class... Ts, class F> void for_each_type(TypeList<Ts...>, F&& f) { (f.template operator()<Ts>(), ...); }

using Ops = TypeList<OpMax, OpMin, OpSum, OpProd, OpLand, OpBand, OpLor, OpBor, OpLxor, OpBxor,
                     OpMaxLoc, OpMinLoc, OpReplace, OpNoOp, OpAvg>;

template <class Op, class E> concept Defines = requires(const E& x) {
    { Op::eval(x, x) } -> std::same_as<E>;
};

template <class T> struct IsCplxE : std::false_type {};
template <class S> struct IsCplxE<Cplx<S>> : std::true_type {};
template <class E> using RefFn = void (*)(const E*, const E*, E*, size_t);
template <class Op, class E> void apply_reference(const E* a, const E* b, E* r, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        r[i] = Op::eval(a[i], b[i]);
}
// The reference of op_id on E, or nullptr if the spec defines no such op.
template <class E> RefFn<E> reference_for(int op_id)
{
    RefFn<E> fn = nullptr;
    for_each_type(Ops{}, [&]<class Op>() {
        if constexpr (Defines<Op, E>)
            if (Op::id == op_id)
                fn = &apply_reference<Op, E>;
    });
    return fn;
}

// n-ary forms (opf_reduce_local_n, OPF_ROUND_CHAIN): in[0] op in[1] op ...
// folded left to right with eval (k == 1: in[0]), except AVG, which is no
// fold: the k inputs summed left to right as SUM rounds, then divided by k
// once (narrow types: narrow_mean); integers the exact mean rounded toward
// zero (summed in 128 bits).
// nullptr where the spec defines no such op, or the reference has no n-ary
// definition (AVG of 128-bit integers: no wider type to sum them in here).
template <class E> using RefNFn = void (*)(const E* const*, int, E*, size_t);
template <class Op, class E> void apply_reference_n(const E* const* in, int k, E* r, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        E acc = in[0][i];
        for (int j = 1; j < k; ++j)
            acc = Op::eval(acc, in[j][i]);
        r[i] = acc;
    }
}
template <class E> E mean_of(const E* const* in, int k, size_t i)
{
    if constexpr (Integer<E>) {
        __int128 s = 0;
        for (int j = 0; j < k; ++j)
            s += __int128(in[j][i]);
        return E(s / k);   // C division: toward zero
    } else if constexpr (Narrow<E>) {
        E column[64];
        for (int j = 0; j < k; ++j)
            column[j] = in[j][i];
        return narrow_mean(column, k);
    } else {
        E s = in[0][i];
        for (int j = 1; j < k; ++j)
            s = OpSum::eval(s, in[j][i]);
        if constexpr (IsCplxE<E>::value)
            return {rounded(s.re) / decltype(s.re)(k), rounded(s.im) / decltype(s.im)(k)};
        else
            return rounded(s) / E(k);
    }
}
template <class E> void mean_reference_n(const E* const* in, int k, E* r, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        r[i] = mean_of(in, k, i);
}
// MX blocks: the exact reduction of all k inputs, quantized once.
template <class S, mxref::Op O> void mx_reference_n(const MxE<S>* const* in, int k, MxE<S>* r, size_t n)
{
    std::vector<const uint8_t*> p(static_cast<size_t>(k), nullptr);
    for (size_t i = 0; i < n; ++i) {
        for (int j = 0; j < k; ++j)
            p[size_t(j)] = in[j][i].bytes;
        mxref::reduce<S>(p.data(), k, r[i].bytes, O);
    }
}
template <class E> RefNFn<E> reference_n_for(int op_id)
{
    if constexpr (IsMxE<E>::value) {
        using S = std::remove_cvref_t<decltype(mxref_spec(E{}))>;
        switch (op_id) {
        case OPF_OPID_SUM: return &mx_reference_n<S, mxref::Op::Sum>;
        case OPF_OPID_AVG: return &mx_reference_n<S, mxref::Op::Avg>;
        case OPF_OPID_MAX: return &mx_reference_n<S, mxref::Op::Max>;
        case OPF_OPID_MIN: return &mx_reference_n<S, mxref::Op::Min>;
        default: break;
        }
    }
    RefNFn<E> fn = nullptr;
    for_each_type(Ops{}, [&]<class Op>() {
        if constexpr (Defines<Op, E>)
            if (Op::id == op_id)
                fn = &apply_reference_n<Op, E>;
    });
    if (op_id == OPF_OPID_AVG && fn) {
        if constexpr (Integer<E> && sizeof(E) > 8)
            fn = nullptr;
        else if constexpr (Defines<OpAvg, E> && !IsMxE<E>::value)
            fn = &mean_reference_n<E>;
    }
    return fn;
}

// ===========================================================================
// Kernel types and predefined datatypes, as the spec lays them out.
// ===========================================================================
template <int KT, class E> struct KernelType {
    static constexpr int id = KT;
    using elem = E;
};
using KernelTypes = TypeList<
    KernelType<OPF_KT_INT8, int8_t>, KernelType<OPF_KT_UINT8, uint8_t>,
    KernelType<OPF_KT_INT16, int16_t>, KernelType<OPF_KT_UINT16, uint16_t>,
    KernelType<OPF_KT_INT32, int32_t>, KernelType<OPF_KT_UINT32, uint32_t>,
    KernelType<OPF_KT_INT64, int64_t>, KernelType<OPF_KT_UINT64, uint64_t>,
#ifdef CONF_HAVE_INT128
    KernelType<OPF_KT_INT128, __int128>,
#endif
    KernelType<OPF_KT_FLOAT16, Half>, KernelType<OPF_KT_BFLOAT16, BF16>,
    KernelType<OPF_KT_FLOAT, float>, KernelType<OPF_KT_DOUBLE, double>,
    KernelType<OPF_KT_LONG_DOUBLE, long double>,
#ifdef CONF_HAVE_FLOAT128
    KernelType<OPF_KT_FLOAT128, __float128>,
#endif
    KernelType<OPF_KT_C_FLOAT_COMPLEX, Cplx<float>>, KernelType<OPF_KT_C_DOUBLE_COMPLEX, Cplx<double>>,
    KernelType<OPF_KT_C_LONG_DOUBLE_COMPLEX, Cplx<long double>>,
    KernelType<OPF_KT_FLOAT_INT, Pair<float, int>>, KernelType<OPF_KT_DOUBLE_INT, Pair<double, int>>,
    KernelType<OPF_KT_LONG_INT, Pair<long, int>>, KernelType<OPF_KT_2INT, Pair<int, int>>,
    KernelType<OPF_KT_SHORT_INT, Pair<short, int>>,
    KernelType<OPF_KT_LONG_DOUBLE_INT, Pair<long double, int>>,
    KernelType<OPF_KT_2FLOAT, Pair<float, float>>, KernelType<OPF_KT_2DOUBLE, Pair<double, double>>,
    KernelType<OPF_KT_FLOAT8_E4M3, F8E4M3>, KernelType<OPF_KT_FLOAT8_E5M2, F8E5M2>,
    KernelType<OPF_KT_MXFP8_E4M3, MxE<MxSpecE4M3>>, KernelType<OPF_KT_MXFP8_E5M2, MxE<MxSpecE5M2>>,
    KernelType<OPF_KT_MXFP6_E3M2, MxE<MxSpecE3M2>>, KernelType<OPF_KT_MXFP6_E2M3, MxE<MxSpecE2M3>>,
    KernelType<OPF_KT_MXFP4_E2M1, MxE<MxSpecE2M1>>, KernelType<OPF_KT_MXINT8, MxE<MxSpecInt8>>,
    KernelType<OPF_KT_FLOAT8_E4M3FNUZ, F8E4M3FNUZ>, KernelType<OPF_KT_FLOAT8_E5M2FNUZ, F8E5M2FNUZ>,
    KernelType<OPF_KT_NVFP4, MxE<MxSpecNvfp4>>>;

// Calls f.operator()<E>() for the storage type E of kernel type kt.
template <class F> bool with_kernel_type(int kt, F&& f)
{
    bool found = false;
    for_each_type(KernelTypes{}, [&]<class K>() {
        if (K::id == kt) {
            found = true;
            f.template operator()<typename K::elem>();
        }
    });
    return found;
}

enum class Group { CInt, FInt, Floating, Logical, Complex, Byte, Pair, Other, Block };

struct DatatypeSpec {
    int id;
    int kt;
    Group group;
};

// Written from the spec's table, not from the library.
constexpr DatatypeSpec kDatatypes[] = {
    // char and wchar_t: signed on x86-64, unsigned on aarch64 (the platform ABI's choice)
    {OPF_TYPEID_CHAR, std::is_signed_v<char> ? OPF_KT_INT8 : OPF_KT_UINT8, Group::Other},
    {OPF_TYPEID_SIGNED_CHAR, OPF_KT_INT8, Group::CInt},
    {OPF_TYPEID_UNSIGNED_CHAR, OPF_KT_UINT8, Group::CInt},
    {OPF_TYPEID_BYTE, OPF_KT_UINT8, Group::Byte},
    {OPF_TYPEID_WCHAR, std::is_signed_v<wchar_t> ? OPF_KT_INT32 : OPF_KT_UINT32, Group::Other},
    {OPF_TYPEID_SHORT, OPF_KT_INT16, Group::CInt},
    {OPF_TYPEID_UNSIGNED_SHORT, OPF_KT_UINT16, Group::CInt},
    {OPF_TYPEID_INT, OPF_KT_INT32, Group::CInt},
    {OPF_TYPEID_UNSIGNED, OPF_KT_UINT32, Group::CInt},
    {OPF_TYPEID_LONG, OPF_KT_INT64, Group::CInt},
    {OPF_TYPEID_UNSIGNED_LONG, OPF_KT_UINT64, Group::CInt},
    {OPF_TYPEID_LONG_LONG, OPF_KT_INT64, Group::CInt},
    {OPF_TYPEID_UNSIGNED_LONG_LONG, OPF_KT_UINT64, Group::CInt},
    {OPF_TYPEID_INT8_T, OPF_KT_INT8, Group::CInt},
    {OPF_TYPEID_INT16_T, OPF_KT_INT16, Group::CInt},
    {OPF_TYPEID_INT32_T, OPF_KT_INT32, Group::CInt},
    {OPF_TYPEID_INT64_T, OPF_KT_INT64, Group::CInt},
    {OPF_TYPEID_UINT8_T, OPF_KT_UINT8, Group::CInt},
    {OPF_TYPEID_UINT16_T, OPF_KT_UINT16, Group::CInt},
    {OPF_TYPEID_UINT32_T, OPF_KT_UINT32, Group::CInt},
    {OPF_TYPEID_UINT64_T, OPF_KT_UINT64, Group::CInt},
    {OPF_TYPEID_C_BOOL, OPF_KT_UINT8, Group::Logical},
    {OPF_TYPEID_CXX_BOOL, OPF_KT_UINT8, Group::Logical},
    {OPF_TYPEID_AINT, OPF_KT_INT64, Group::CInt},
    {OPF_TYPEID_OFFSET, OPF_KT_INT64, Group::CInt},
    {OPF_TYPEID_COUNT, OPF_KT_INT64, Group::CInt},
    {OPF_TYPEID_FLOAT, OPF_KT_FLOAT, Group::Floating},
    {OPF_TYPEID_DOUBLE, OPF_KT_DOUBLE, Group::Floating},
    {OPF_TYPEID_LONG_DOUBLE, OPF_KT_LONG_DOUBLE, Group::Floating},
    {OPF_TYPEID_FLOAT16, OPF_KT_FLOAT16, Group::Floating},
    {OPF_TYPEID_BFLOAT16, OPF_KT_BFLOAT16, Group::Floating},
    {OPF_TYPEID_C_FLOAT_COMPLEX, OPF_KT_C_FLOAT_COMPLEX, Group::Complex},
    {OPF_TYPEID_C_DOUBLE_COMPLEX, OPF_KT_C_DOUBLE_COMPLEX, Group::Complex},
    {OPF_TYPEID_C_LONG_DOUBLE_COMPLEX, OPF_KT_C_LONG_DOUBLE_COMPLEX, Group::Complex},
    {OPF_TYPEID_INTEGER, OPF_KT_INT32, Group::FInt},
    {OPF_TYPEID_INTEGER1, OPF_KT_INT8, Group::FInt},
    {OPF_TYPEID_INTEGER2, OPF_KT_INT16, Group::FInt},
    {OPF_TYPEID_INTEGER4, OPF_KT_INT32, Group::FInt},
    {OPF_TYPEID_INTEGER8, OPF_KT_INT64, Group::FInt},
    {OPF_TYPEID_INTEGER16, OPF_KT_INT128, Group::FInt},
    {OPF_TYPEID_REAL, OPF_KT_FLOAT, Group::Floating},
    {OPF_TYPEID_REAL2, OPF_KT_FLOAT16, Group::Floating},
    {OPF_TYPEID_REAL4, OPF_KT_FLOAT, Group::Floating},
    {OPF_TYPEID_REAL8, OPF_KT_DOUBLE, Group::Floating},
    {OPF_TYPEID_REAL16, OPF_KT_FLOAT128, Group::Floating},
    {OPF_TYPEID_DOUBLE_PRECISION, OPF_KT_DOUBLE, Group::Floating},
    {OPF_TYPEID_COMPLEX, OPF_KT_C_FLOAT_COMPLEX, Group::Complex},
    {OPF_TYPEID_DOUBLE_COMPLEX, OPF_KT_C_DOUBLE_COMPLEX, Group::Complex},
    {OPF_TYPEID_COMPLEX8, OPF_KT_C_FLOAT_COMPLEX, Group::Complex},
    {OPF_TYPEID_COMPLEX16, OPF_KT_C_DOUBLE_COMPLEX, Group::Complex},
    {OPF_TYPEID_LOGICAL, OPF_KT_INT32, Group::Logical},
    {OPF_TYPEID_FLOAT_INT, OPF_KT_FLOAT_INT, Group::Pair},
    {OPF_TYPEID_DOUBLE_INT, OPF_KT_DOUBLE_INT, Group::Pair},
    {OPF_TYPEID_LONG_INT, OPF_KT_LONG_INT, Group::Pair},
    {OPF_TYPEID_2INT, OPF_KT_2INT, Group::Pair},
    {OPF_TYPEID_SHORT_INT, OPF_KT_SHORT_INT, Group::Pair},
    {OPF_TYPEID_LONG_DOUBLE_INT, OPF_KT_LONG_DOUBLE_INT, Group::Pair},
    {OPF_TYPEID_2REAL, OPF_KT_2FLOAT, Group::Pair},
    {OPF_TYPEID_2DOUBLE_PRECISION, OPF_KT_2DOUBLE, Group::Pair},
    {OPF_TYPEID_2INTEGER, OPF_KT_2INT, Group::Pair},
    {OPF_TYPEID_FLOAT8_E4M3, OPF_KT_FLOAT8_E4M3, Group::Floating},
    {OPF_TYPEID_FLOAT8_E5M2, OPF_KT_FLOAT8_E5M2, Group::Floating},
    {OPF_TYPEID_MXFP8_E4M3, OPF_KT_MXFP8_E4M3, Group::Block},
    {OPF_TYPEID_MXFP8_E5M2, OPF_KT_MXFP8_E5M2, Group::Block},
    {OPF_TYPEID_MXFP6_E3M2, OPF_KT_MXFP6_E3M2, Group::Block},
    {OPF_TYPEID_MXFP6_E2M3, OPF_KT_MXFP6_E2M3, Group::Block},
    {OPF_TYPEID_MXFP4_E2M1, OPF_KT_MXFP4_E2M1, Group::Block},
    {OPF_TYPEID_MXINT8, OPF_KT_MXINT8, Group::Block},
    {OPF_TYPEID_FLOAT8_E4M3FNUZ, OPF_KT_FLOAT8_E4M3FNUZ, Group::Floating},
    {OPF_TYPEID_FLOAT8_E5M2FNUZ, OPF_KT_FLOAT8_E5M2FNUZ, Group::Floating},
    {OPF_TYPEID_NVFP4, OPF_KT_NVFP4, Group::Block},
};

const DatatypeSpec* find_datatype_spec(int id)
{
    for (const auto& d : kDatatypes)
        if (d.id == id)
            return &d;
    return nullptr;
}

// The spec's "valid (op, group)" table.
bool spec_op_valid(int op_id, Group g)
{
    switch (op_id) {
    case OPF_OPID_MAX:
    case OPF_OPID_MIN:
        return g == Group::CInt || g == Group::FInt || g == Group::Floating || g == Group::Block;
    case OPF_OPID_SUM:
    case OPF_OPID_AVG:
        return g == Group::CInt || g == Group::FInt || g == Group::Floating || g == Group::Complex || g == Group::Block;
    case OPF_OPID_PROD:
        return g == Group::CInt || g == Group::FInt || g == Group::Floating || g == Group::Complex;
    case OPF_OPID_LAND:
    case OPF_OPID_LOR:
    case OPF_OPID_LXOR:
        return g == Group::CInt || g == Group::Logical;
    case OPF_OPID_BAND:
    case OPF_OPID_BOR:
    case OPF_OPID_BXOR:
        return g == Group::CInt || g == Group::FInt || g == Group::Byte;
    case OPF_OPID_MAXLOC:
    case OPF_OPID_MINLOC:
        return g == Group::Pair;
    case OPF_OPID_REPLACE:
    case OPF_OPID_NO_OP:
        return true;
    default:
        return false;
    }
}

} // namespace

namespace {

// The byte layout of one element of E for the engine's guards: the value
// bytes of each member are data, everything else in the extent is padding.
template <class S> constexpr size_t value_bytes()
{
    if constexpr (std::is_same_v<S, long double> && LDBL_MANT_DIG == 64)
        return 10;   // x87: 80 value bits, 6 padding bytes
    else
        return sizeof(S);
}
template <class T> struct IsCplx : std::false_type {};
template <class S> struct IsCplx<Cplx<S>> : std::true_type {};

template <class E> engine::ElementLayout layout_of()
{
    engine::ElementLayout l;
    l.extent = sizeof(E);
    l.align = alignof(E);
    if constexpr (IsPair<E>::value) {
        using V = decltype(E::value);
        using I = decltype(E::index);
        l.fields = {{offsetof(E, value), value_bytes<V>()}, {offsetof(E, index), value_bytes<I>()}};
    } else if constexpr (IsCplx<E>::value) {
        using S = decltype(E::re);
        l.fields = {{offsetof(E, re), value_bytes<S>()}, {offsetof(E, im), value_bytes<S>()}};
    } else {
        l.fields = {{0, value_bytes<E>()}};
    }
    l.last_end = span_bytes<E>(1);
    return l;
}

} // namespace
