// conformance.cpp — checkasm-style conformance harness for opframe.
//
// Two levels are checked against an independent scalar reference written
// here from the spec (no library code is reused):
//   * kernel level: every (op, kernel type) slot the library reports, for
//     each provider asked for, both the 2-buffer and the 3-buffer kernel;
//   * datatype level: every predefined (op, datatype) through
//     opf_reduce_local / opf_reduce_local3, plus the valid-op matrix.
// Data is random (splitmix64, reproducible with --seed) with adversarial
// values mixed in; every buffer is fenced by guard bytes, and inputs must
// come back byte for byte. Results compare bit-exactly, except that any NaN
// matches any NaN and only the value bytes of long double count.
//
// Usage: conformance [--seed N] [--provider NAME]... [--quick] [-v] [--self-test]
//   --provider NAME  "base", another provider name, or "selected" for the
//                    selected (mixed) table; repeatable. Default: base, selected
//                    and every available component.

#include <opframe/introspect.h>
#include <opframe/opframe.h>

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

// ===========================================================================
// Reproducible randomness: splitmix64 (fixed algorithm, so a seed replays).
// ===========================================================================
class Rng {
public:
    explicit Rng(uint64_t seed) : state_(seed) {}
    uint64_t next()
    {
        uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    uint64_t below(uint64_t n) { return next() % n; } // bias is irrelevant here
    bool coin() { return next() & 1; }
    bool one_in(uint64_t n) { return below(n) == 0; }
    Wide wide() { return (Wide(next()) << 32 << 32) | next(); }

private:
    uint64_t state_;
};

// Seed of one data set, so that a (slot, length) gets the same data whatever
// the other options (--quick, --provider) are.
uint64_t derive_seed(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
    Rng r(seed ^ (a * 0x9e3779b97f4a7c15ULL) ^ (b * 0xc2b2ae3d27d4eb4fULL) ^ (c * 0x165667b19e3779f9ULL));
    r.next();
    return r.next();
}

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
// 16-bit floats: arithmetic goes through float (spec).
template <class T> concept Narrow = std::is_same_v<T, Half> || std::is_same_v<T, BF16>;

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

float widen(Half h) { return half_to_float(h.bits); }
float widen(BF16 b) { return bf16_to_float(b.bits); }
template <Narrow T> T narrow(float f)
{
    if constexpr (std::is_same_v<T, Half>)
        return Half{float_to_half(f)};
    else
        return BF16{float_to_bf16(f)};
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
        default: return T(U(r.wide()));
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
    static B random_man(Rng& r) { return B(r.wide()) & man_mask; }
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
        case 1: { B b = B(r.wide()); S v; std::memcpy(&v, &b, sizeof v); return v; } // any pattern
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

struct OpMax {
    static constexpr int id = OPF_OPID_MAX;
    template <Integer T> static T eval(const T& a, const T& b) { return a < b ? b : a; }
    template <Real T> static T eval(const T& a, const T& b) { return max_rule(a, b); }
    template <Narrow T> static T eval(const T& a, const T& b) { return via_float(a, b, max_rule<float>); }
};
struct OpMin {
    static constexpr int id = OPF_OPID_MIN;
    template <Integer T> static T eval(const T& a, const T& b) { return b < a ? b : a; }
    template <Real T> static T eval(const T& a, const T& b) { return min_rule(a, b); }
    template <Narrow T> static T eval(const T& a, const T& b) { return via_float(a, b, min_rule<float>); }
};
struct OpSum {
    static constexpr int id = OPF_OPID_SUM;
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
                     OpMaxLoc, OpMinLoc, OpReplace, OpNoOp>;

template <class Op, class E> concept Defines = requires(const E& x) {
    { Op::eval(x, x) } -> std::same_as<E>;
};

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
    KernelType<OPF_KT_2FLOAT, Pair<float, float>>, KernelType<OPF_KT_2DOUBLE, Pair<double, double>>>;

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

enum class Group { CInt, FInt, Floating, Logical, Complex, Byte, Pair, Other };

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
        return g == Group::CInt || g == Group::FInt || g == Group::Floating;
    case OPF_OPID_SUM:
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

// ===========================================================================
// Buffers fenced by guard bytes.
// ===========================================================================
class GuardedBuffer {
public:
    static constexpr size_t kGuard = 64;
    GuardedBuffer(size_t bytes, size_t misalign)
        : lead_(kGuard + misalign), bytes_(bytes), total_(lead_ + bytes + kGuard)
    {
        mem_ = static_cast<unsigned char*>(::operator new(total_, std::align_val_t(64)));
        for (size_t i = 0; i < total_; ++i)
            mem_[i] = pattern(i);
    }
    ~GuardedBuffer() { ::operator delete(mem_, std::align_val_t(64)); }
    GuardedBuffer(const GuardedBuffer&) = delete;
    GuardedBuffer& operator=(const GuardedBuffer&) = delete;

    unsigned char* data() { return mem_ + lead_; }
    size_t bytes() const { return bytes_; }
    // Offset (relative to data()) of the first damaged guard byte, if any.
    std::optional<long> damaged_guard() const
    {
        for (size_t i = 0; i < total_; ++i) {
            if (i == lead_)
                i += bytes_;
            if (i < total_ && mem_[i] != pattern(i))
                return long(i) - long(lead_);
        }
        return std::nullopt;
    }

private:
    static unsigned char pattern(size_t i) { return static_cast<unsigned char>(0xa5 ^ (i * 29)); }
    size_t lead_, bytes_, total_;
    unsigned char* mem_;
};

// Fill of a 3-buffer output before the call: 0xee bytes are no NaN in any
// of the formats, so an output never written cannot pass as "any NaN".
constexpr unsigned char kOutFill = 0xee;

// ===========================================================================
// Harness state, options and reporting.
// ===========================================================================
struct Tally {
    long checks = 0, failed = 0;
    void record(bool ok) { ++checks; failed += !ok; }
};

struct Provider {
    std::string label;             // what the summary shows
    std::optional<std::string> name; // nullopt: the selected table
    Tally tally;
    long slots = 0, skipped = 0;
    const char* c_name() const { return name ? name->c_str() : nullptr; }
};

struct Options {
    uint64_t seed = 0;
    bool quick = false, verbose = false, self_test = false;
    std::vector<std::string> providers;
};

// How buffers sit relative to 64-byte alignment (bytes, per buffer).
struct Placement {
    const char* label;
    size_t in1, in2, out;
};

enum class Alias { InPlace2, Distinct3, OutIsIn1, OutIsIn2 };
const char* alias_name(Alias a)
{
    switch (a) {
    case Alias::InPlace2: return "2-buffer in place";
    case Alias::Distinct3: return "3-buffer out distinct";
    case Alias::OutIsIn1: return "3-buffer out==in1";
    default: return "3-buffer out==in2";
    }
}

// Type-erased call of a kernel or of a reduction; returns an OPF code.
struct Target {
    std::function<int(const void*, void*, size_t)> two;
    std::function<int(const void*, const void*, void*, size_t)> three;
};

// Describes one call, for failure messages.
struct CallInfo {
    const char* level = "";
    std::string op, type, provider;
    Alias alias = Alias::InPlace2;
    size_t n = 0;
    const char* placement = "";
};

class Reporter {
public:
    uint64_t seed = 0;
    // Header of a failure, or false once the print budget is used up.
    bool begin(const CallInfo& c, const char* what)
    {
        if (budget_ == 0) {
            std::printf("  (further failures not shown)\n");
            --budget_;
        }
        if (budget_ < 0)
            return false;
        --budget_;
        std::printf("FAIL %s: %s op=%s type=%s provider=%s %s n=%zu placement=%s seed=%" PRIu64 "\n",
                    what, c.level, c.op.c_str(), c.type.c_str(), c.provider.c_str(), alias_name(c.alias),
                    c.n, c.placement, seed);
        return true;
    }

private:
    int budget_ = 20;
};

struct Harness {
    Options opt;
    std::vector<Provider> providers;
    std::vector<size_t> lengths;
    Reporter report;
    Tally kernel_total, datatype_total;
    long slots_checked = 0;
    long warnings = 0;
    // --self-test: damages the result bytes of the next calls before comparing.
    std::function<void(unsigned char*, size_t)> corrupt;
};

const char* or_unknown(const char* s) { return s ? s : "?"; }
std::string op_label(int op_id) { return or_unknown(opf_op_name(OPF_OP_HANDLE_(op_id))); }

// ===========================================================================
// One checked call: fill guarded buffers, call, then verify guards, inputs
// and every result element.
// ===========================================================================
template <class E>
bool check_call(Harness& h, const Target& t, const CallInfo& info, const Placement& place,
                const std::vector<E>& a, const std::vector<E>& b, const std::vector<E>& expect)
{
    const size_t n = a.size(), bytes = span_bytes<E>(n);
    GuardedBuffer in1(bytes, place.in1), in2(bytes, place.in2);
    std::optional<GuardedBuffer> out;
    if (n) { // an empty vector's data() may be NULL, which memcpy must not get
        std::memcpy(in1.data(), a.data(), bytes);
        std::memcpy(in2.data(), b.data(), bytes);
    }

    int rc;
    unsigned char* result;
    std::vector<std::pair<const char*, GuardedBuffer*>> inputs; // must come back unchanged
    switch (info.alias) {
    case Alias::InPlace2:
        rc = t.two(in1.data(), in2.data(), n);
        result = in2.data();
        inputs = {{"in", &in1}};
        break;
    case Alias::Distinct3:
        out.emplace(bytes, place.out);
        std::memset(out->data(), kOutFill, bytes);
        rc = t.three(in1.data(), in2.data(), out->data(), n);
        result = out->data();
        inputs = {{"in1", &in1}, {"in2", &in2}};
        break;
    case Alias::OutIsIn1:
        rc = t.three(in1.data(), in2.data(), in1.data(), n);
        result = in1.data();
        inputs = {{"in2", &in2}};
        break;
    default:
        rc = t.three(in1.data(), in2.data(), in2.data(), n);
        result = in2.data();
        inputs = {{"in1", &in1}};
        break;
    }

    bool ok = true;
    if (rc != OPF_SUCCESS) {
        if (h.report.begin(info, "return code"))
            std::printf("  returned %d, expected OPF_SUCCESS (last error: %s)\n", rc, opf_last_error());
        return false;
    }
    const bool two = info.alias == Alias::InPlace2;
    std::vector<std::pair<const char*, GuardedBuffer*>> all = {{two ? "in" : "in1", &in1},
                                                               {two ? "inout" : "in2", &in2}};
    if (out)
        all.push_back({"out", &*out});
    for (auto& [name, buf] : all) {
        if (auto at = buf->damaged_guard()) {
            ok = false;
            if (h.report.begin(info, "guard bytes overwritten"))
                std::printf("  buffer %s: byte at offset %ld (buffer is %zu bytes)\n", name, *at, bytes);
        }
    }
    for (auto& [name, buf] : inputs) {
        const unsigned char* orig = reinterpret_cast<const unsigned char*>(buf == &in1 ? a.data() : b.data());
        for (size_t i = 0; i < bytes; ++i) {
            if (buf->data()[i] != orig[i]) {
                ok = false;
                if (h.report.begin(info, "input modified"))
                    std::printf("  buffer %s: byte %zu (element %zu) was 0x%02x, now 0x%02x\n", name, i,
                                i / sizeof(E), orig[i], buf->data()[i]);
                break;
            }
        }
    }

    if (h.corrupt)
        h.corrupt(result, n);
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        E got;
        std::memcpy(&got, result + i * sizeof(E), sizeof(E));
        if (same(expect[i], got))
            continue;
        ok = false;
        if (bad++ < 2 && h.report.begin(info, "wrong result")) {
            std::printf("  index    %zu\n", i);
            std::printf("  left     %s\n", show(a[i]).c_str());
            std::printf("  right    %s\n", show(b[i]).c_str());
            std::printf("  expected %s\n", show(expect[i]).c_str());
            std::printf("  got      %s\n", show(got).c_str());
        }
    }
    if (bad > 2 && h.report.begin(info, "wrong result"))
        std::printf("  %zu wrong elements in all\n", bad);
    return ok;
}

// Operands and the expected result for one (op, type, length).
template <class E> struct DataSet {
    std::vector<E> a, b, expect;
};
template <class E> DataSet<E> make_data(uint64_t seed, RefFn<E> ref, size_t n)
{
    Rng r(seed);
    DataSet<E> d{std::vector<E>(n), std::vector<E>(n), std::vector<E>(n)};
    for (size_t i = 0; i < n; ++i)
        gen_operands(r, d.a[i], d.b[i]);
    ref(d.a.data(), d.b.data(), d.expect.data(), n);
    return d;
}

// Kernels must accept any element-aligned address (component.h): 64-byte
// aligned, shifted by one element, and buffers shifted differently.
std::vector<Placement> placements(size_t extent)
{
    return {
        {"aligned", 0, 0, 0},
        {"+1 element", extent, extent, extent},
        {"mixed (0, +1, +2 elements)", 0, extent, 2 * extent},
    };
}

// ===========================================================================
// Kernel level.
// ===========================================================================
void sentinel2(const void*, void*, opf_count_t) {}
void sentinel3(const void*, const void*, void*, opf_count_t) {}

template <class E> void check_slot(Harness& h, int op_id, int kt)
{
    const std::string op = op_label(op_id), type = or_unknown(opf_kernel_type_name(kt));
    const RefFn<E> ref = reference_for<E>(op_id);
    if (!ref) {
        ++h.warnings;
        std::printf("warning: slot %s/%s exists, but the spec defines no such op on that kernel type; not checked\n",
                    op.c_str(), type.c_str());
        return;
    }
    const int extent = opf_kernel_type_extent(kt);
    if (extent != int(sizeof(E))) {
        h.kernel_total.record(false);
        std::printf("FAIL kernel type %s: opf_kernel_type_extent %d, spec layout is %zu bytes\n", type.c_str(),
                    extent, sizeof(E));
        return;
    }
    h.kernel_total.record(true);

    struct SlotState {
        bool checked = false, missing2 = false, missing3 = false;
        Tally tally;
        std::vector<std::pair<opf_kernel2_fn*, opf_kernel3_fn*>> seen; // kernels already run
    };
    std::vector<SlotState> state(h.providers.size());
    // Runs one data set through every provider's kernels (fetched for this
    // length: providers may offer size-tiered kernels).
    auto run = [&](const DataSet<E>& d, bool all_placements) {
        const size_t n = d.a.size();
        for (size_t p = 0; p < h.providers.size(); ++p) {
            Provider& prov = h.providers[p];
            opf_kernel2_fn* fn2 = &sentinel2;
            opf_kernel3_fn* fn3 = &sentinel3;
            const int rc = opf_slot_kernels(op_id, kt, prov.c_name(), opf_count_t(n), &fn2, &fn3);
            CallInfo info{"kernel", op, type, prov.label, Alias::InPlace2, n, ""};
            if (rc != OPF_SUCCESS && rc != OPF_ERR_ARG) {
                state[p].tally.record(false);
                if (h.report.begin(info, "opf_slot_kernels"))
                    std::printf("  returned %d for an existing slot\n", rc);
                continue;
            }
            if (fn2 == &sentinel2 || fn3 == &sentinel3) {
                state[p].tally.record(false);
                if (h.report.begin(info, "opf_slot_kernels"))
                    std::printf("  returned %d but left a kernel pointer unset\n", rc);
                continue;
            }
            state[p].missing2 |= !fn2;
            state[p].missing3 |= !fn3;
            state[p].seen.push_back({fn2, fn3});
            const Target t{
                [fn2](const void* in, void* io, size_t m) { fn2(in, io, opf_count_t(m)); return 0; },
                [fn3](const void* x, const void* y, void* o, size_t m) { fn3(x, y, o, opf_count_t(m)); return 0; }};
            std::vector<Placement> places = placements(sizeof(E));
            if (!all_placements)
                places.resize(1);
            for (const Placement& place : places) {
                info.placement = place.label;
                for (Alias alias : {Alias::InPlace2, Alias::Distinct3, Alias::OutIsIn1, Alias::OutIsIn2}) {
                    const int nbuf = alias == Alias::InPlace2 ? 2 : 3;
                    if (nbuf == 2 ? !fn2 : !fn3)
                        continue;
                    info.alias = alias;
                    if (!prov.name) { // name who serves the selected table, for messages
                        const char* who = opf_slot_provider(op_id, kt, nbuf, opf_count_t(n));
                        info.provider = std::string("selected->") + or_unknown(who);
                    }
                    state[p].tally.record(check_call(h, t, info, place, d.a, d.b, d.expect));
                    state[p].checked = true;
                }
            }
        }
    };
    for (size_t n : h.lengths)
        run(make_data<E>(derive_seed(h.opt.seed, op_id, kt, n), ref, n), true);
    // Size tiers beyond the listed lengths: a provider may serve large counts
    // with other kernels. Probe growing counts; run the ones that bring a
    // kernel not seen yet (+3: a ragged tail after the vector body).
    for (size_t n = 8192 + 3; n <= (size_t(1) << 20) + 3; n = 2 * (n - 3) + 3) {
        bool fresh = false;
        for (size_t p = 0; p < h.providers.size(); ++p) {
            opf_kernel2_fn* fn2 = nullptr;
            opf_kernel3_fn* fn3 = nullptr;
            opf_slot_kernels(op_id, kt, h.providers[p].c_name(), opf_count_t(n), &fn2, &fn3);
            bool known = false;
            for (const auto& k : state[p].seen)
                known |= k.first == fn2 && k.second == fn3;
            fresh |= !known;
        }
        if (fresh)
            run(make_data<E>(derive_seed(h.opt.seed, op_id, kt, n), ref, n), false);
    }
    if constexpr (Narrow<E>) {
        // 16-bit floats: every bit pattern once as the left operand, so the
        // conversions are exercised on all of them (ties with the right
        // operand kept every fourth element).
        if (!h.opt.quick) {
            DataSet<E> d = make_data<E>(derive_seed(h.opt.seed, op_id, kt, 65536), ref, 65536);
            for (size_t i = 0; i < 65536; ++i) {
                d.a[i].bits = uint16_t(i);
                if (i % 4 == 0)
                    d.b[i] = d.a[i];
            }
            ref(d.a.data(), d.b.data(), d.expect.data(), d.a.size());
            run(d, false);
        }
    }
    bool any = false;
    for (size_t p = 0; p < h.providers.size(); ++p) {
        Provider& prov = h.providers[p];
        const SlotState& s = state[p];
        prov.tally.checks += s.tally.checks;
        prov.tally.failed += s.tally.failed;
        prov.slots += s.checked;
        prov.skipped += s.missing2 + s.missing3;
        any |= s.checked;
        if (h.opt.verbose)
            std::printf("  %-8s %-22s %-10s %6ld checks %s%s%s\n", op.c_str(), type.c_str(), prov.label.c_str(),
                        s.tally.checks, s.tally.failed ? "FAILED" : "ok", s.missing2 ? " (no 2-buffer)" : "",
                        s.missing3 ? " (no 3-buffer)" : "");
    }
    h.slots_checked += any;
}

void run_kernel_level(Harness& h)
{
    // Slots the spec implies: every (op, kernel type) valid for some
    // supported datatype. A missing one is only a warning: the datatype
    // level still checks that the reduction works.
    bool expected[OPF_OPID_COUNT][OPF_KT_COUNT] = {};
    for (const DatatypeSpec& d : kDatatypes) {
        opf_count_t size;
        if (opf_type_size(OPF_TYPE_HANDLE_(d.id), &size) != OPF_SUCCESS)
            continue;
        for (int op = 1; op < OPF_OPID_COUNT; ++op)
            if (op != OPF_OPID_REPLACE && op != OPF_OPID_NO_OP && spec_op_valid(op, d.group))
                expected[op][d.kt] = true;
    }
    for (int op = 1; op < OPF_OPID_COUNT; ++op) {
        for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
            if (opf_slot_exists(op, kt) != 1) {
                if (expected[op][kt]) {
                    ++h.warnings;
                    std::printf("warning: no slot %s/%s although the spec makes it valid\n", op_label(op).c_str(),
                                or_unknown(opf_kernel_type_name(kt)));
                }
                continue;
            }
            if (!with_kernel_type(kt, [&]<class E>() { check_slot<E>(h, op, kt); })) {
                ++h.warnings;
                std::printf("warning: slot %s/kernel type %d has no layout in this harness; not checked\n",
                            op_label(op).c_str(), kt);
            }
        }
    }
}

// ===========================================================================
// Datatype level.
// ===========================================================================

// A predefined op the type does not support: OPF_ERR_OP, nothing touched.
template <class E> bool check_rejected(Harness& h, opf_datatype_t type, int op_id, const CallInfo& base_info)
{
    bool ok = true;
    for (opf_count_t count : {opf_count_t(5), opf_count_t(0)}) {
        for (int nbuf : {2, 3}) {
            const size_t bytes = 5 * sizeof(E);
            GuardedBuffer x(bytes, 0), y(bytes, 0), z(bytes, 0);
            Rng r(derive_seed(h.opt.seed, op_id, 1000 + uintptr_t(type), count));
            for (GuardedBuffer* g : {&x, &y, &z})
                for (size_t i = 0; i < bytes; ++i)
                    g->data()[i] = static_cast<unsigned char>(r.next());
            const std::vector<unsigned char> sx(x.data(), x.data() + bytes), sy(y.data(), y.data() + bytes),
                sz(z.data(), z.data() + bytes);
            const opf_op_t op = OPF_OP_HANDLE_(op_id);
            const int rc = nbuf == 2 ? opf_reduce_local(x.data(), y.data(), count, type, op)
                                     : opf_reduce_local3(x.data(), y.data(), z.data(), count, type, op);
            const bool untouched = std::memcmp(x.data(), sx.data(), bytes) == 0 &&
                                   std::memcmp(y.data(), sy.data(), bytes) == 0 &&
                                   std::memcmp(z.data(), sz.data(), bytes) == 0 && !x.damaged_guard() &&
                                   !y.damaged_guard() && !z.damaged_guard();
            // The message must name the op and the type (spec: "errors").
            const std::string msg = opf_last_error();
            const bool named = msg.find(base_info.op) != std::string::npos &&
                               msg.find(base_info.type) != std::string::npos;
            const bool good = rc == OPF_ERR_OP && untouched && named;
            h.datatype_total.record(good);
            if (!good) {
                ok = false;
                CallInfo info = base_info;
                info.alias = nbuf == 2 ? Alias::InPlace2 : Alias::Distinct3;
                info.n = size_t(count);
                if (h.report.begin(info, "invalid op not rejected cleanly"))
                    std::printf("  returned %d (want OPF_ERR_OP=%d), buffers %s, last error \"%s\"%s\n", rc,
                                OPF_ERR_OP, untouched ? "untouched" : "MODIFIED", msg.c_str(),
                                named ? "" : " (does not name op and type)");
            }
        }
    }
    return ok;
}

template <class E> void check_datatype(Harness& h, const DatatypeSpec& spec)
{
    const opf_datatype_t type = OPF_TYPE_HANDLE_(spec.id);
    const std::string tname = or_unknown(opf_type_name(type));

    // Layout facts from the spec: size, extent, kernel type.
    opf_count_t size = -1;
    opf_aint_t lb = -1, extent = -1;
    int kt = -2;
    const bool size_ok = opf_type_size(type, &size) == OPF_SUCCESS && size_t(size) == spec_type_size<E>();
    const bool extent_ok = opf_type_get_extent(type, &lb, &extent) == OPF_SUCCESS && lb == 0 &&
                           size_t(extent) == sizeof(E);
    const bool kt_ok = opf_type_kernel_type(type, &kt) == OPF_SUCCESS && kt == spec.kt;
    h.datatype_total.record(size_ok);
    h.datatype_total.record(extent_ok);
    h.datatype_total.record(kt_ok);
    if (!size_ok || !extent_ok || !kt_ok) {
        std::printf("FAIL datatype %s: size %lld (spec %zu), lb %lld extent %lld (spec 0, %zu), kernel type %d (spec %d)\n",
                    tname.c_str(), (long long)size, spec_type_size<E>(), (long long)lb, (long long)extent,
                    sizeof(E), kt, spec.kt);
        if (!extent_ok)
            return; // the buffers below would have the wrong layout
    }

    for (int op_id = 1; op_id < OPF_OPID_COUNT; ++op_id) {
        const std::string oname = op_label(op_id);
        const bool spec_valid = spec_op_valid(op_id, spec.group);
        int lib_valid = -1;
        const int vrc = opf_op_valid_for_type(OPF_OP_HANDLE_(op_id), type, &lib_valid);
        const bool matrix_ok = vrc == OPF_SUCCESS && (lib_valid != 0) == spec_valid;
        h.datatype_total.record(matrix_ok);
        if (!matrix_ok)
            std::printf("FAIL valid matrix: op %s on %s: opf_op_valid_for_type rc %d valid %d, spec says %s\n",
                        oname.c_str(), tname.c_str(), vrc, lib_valid, spec_valid ? "valid" : "invalid");

        CallInfo info{"datatype", oname, tname, "-", Alias::InPlace2, 0, "aligned"};
        if (vrc != OPF_SUCCESS || !lib_valid) {
            check_rejected<E>(h, type, op_id, info);
            continue;
        }
        const RefFn<E> ref = reference_for<E>(op_id);
        if (!ref)
            continue; // the library calls valid what the spec does not (reported above)
        const opf_op_t op = OPF_OP_HANDLE_(op_id);
        const Target t{
            [=](const void* in, void* io, size_t m) { return opf_reduce_local(in, io, opf_count_t(m), type, op); },
            [=](const void* x, const void* y, void* o, size_t m) {
                return opf_reduce_local3(x, y, o, opf_count_t(m), type, op);
            }};
        const Placement places[] = {{"aligned", 0, 0, 0}, {"+1 element", sizeof(E), sizeof(E), sizeof(E)}};
        for (size_t n : h.lengths) {
            const DataSet<E> d = make_data<E>(derive_seed(h.opt.seed, op_id, 5000 + spec.id, n), ref, n);
            info.n = n;
            for (const Placement& place : places) {
                info.placement = place.label;
                for (Alias alias : {Alias::InPlace2, Alias::Distinct3, Alias::OutIsIn1, Alias::OutIsIn2}) {
                    info.alias = alias;
                    h.datatype_total.record(check_call(h, t, info, place, d.a, d.b, d.expect));
                }
            }
        }
    }
}

void run_datatype_level(Harness& h)
{
    long types = 0, unsupported = 0;
    for (int id = 1; id < OPF_TYPEID_COUNT_; ++id) {
        const opf_datatype_t type = OPF_TYPE_HANDLE_(id);
        const DatatypeSpec* spec = find_datatype_spec(id);
        if (!spec) {
            h.datatype_total.record(false);
            std::printf("FAIL datatype id %d (%s): not in the harness's spec table\n", id,
                        or_unknown(opf_type_name(type)));
            continue;
        }
        opf_count_t size;
        if (opf_type_size(type, &size) == OPF_ERR_TYPE) {
            // Only INTEGER16 / REAL16 may be missing from a build (spec).
            const bool may_lack = id == OPF_TYPEID_INTEGER16 || id == OPF_TYPEID_REAL16;
            int dummy = 0;
            const bool rejects = opf_reduce_local(&dummy, &dummy, 1, type, OPF_SUM) == OPF_ERR_TYPE;
            h.datatype_total.record(may_lack && rejects);
            if (!may_lack || !rejects)
                std::printf("FAIL datatype %s: opf_type_size says unsupported%s\n", or_unknown(opf_type_name(type)),
                            may_lack ? ", but a reduction does not return OPF_ERR_TYPE" : ", the spec requires it");
            ++unsupported;
            continue;
        }
        ++types;
        const long failed_before = h.datatype_total.failed;
        if (!with_kernel_type(spec->kt, [&]<class E>() { check_datatype<E>(h, *spec); })) {
            ++h.warnings;
            std::printf("warning: datatype %s has no layout in this harness; not checked\n",
                        or_unknown(opf_type_name(type)));
        }
        if (h.opt.verbose)
            std::printf("  datatype %-22s %s\n", or_unknown(opf_type_name(type)),
                        h.datatype_total.failed == failed_before ? "ok" : "FAILED");
    }
    std::printf("datatypes: %ld types (%ld unsupported by this build), %ld checks, %ld failed\n", types, unsupported,
                h.datatype_total.checks, h.datatype_total.failed);
}

// ===========================================================================
// --self-test: the harness must catch a corrupted result, and its
// comparison rules must hold.
// ===========================================================================
int run_self_test(Harness& h)
{
    int problems = 0;
    auto expect = [&](bool cond, const char* what) {
        if (!cond) {
            ++problems;
            std::printf("self-test FAILED: %s\n", what);
        }
    };

    // Comparison rules.
    Rng r(1);
    const float qnan = bits_float(0x7fc00000u), snan_neg = bits_float(0xff800001u);
    expect(same(qnan, snan_neg), "any float NaN matches any NaN");
    expect(!same(0.0f, -0.0f), "+0 and -0 differ");
    expect(!same(qnan, std::numeric_limits<float>::infinity()), "NaN does not match inf");
    expect(same(Half{0x7e00}, Half{0xfc01}), "half NaNs match");
    expect(!same(Half{0x7c00}, Half{0x7e00}), "half inf is no NaN");
    expect(same(BF16{0x7fc0}, BF16{0xff81}), "bf16 NaNs match");
#if LDBL_MANT_DIG == 64   // x87: padding bytes
    long double x = Scalar<long double>::make(false, 16383, 1ULL << 63, r), y = x;
    reinterpret_cast<unsigned char*>(&y)[12] ^= 0xff;
    expect(same(x, y), "long double padding is ignored");
    reinterpret_cast<unsigned char*>(&y)[9] ^= 0x40;
    expect(!same(x, y), "long double exponent counts");
#endif
    Pair<double, int> p1{}, p2{};
    p1.value = p2.value = 1.5;
    p1.index = p2.index = 7;
    reinterpret_cast<unsigned char*>(&p2)[13] ^= 0xff; // padding after the int
    expect(same(p1, p2), "pair padding is ignored");
    p2.index = 8;
    expect(!same(p1, p2), "pair index counts");
    expect(same(Cplx<float>{qnan, 1.0f}, Cplx<float>{snan_neg, 1.0f}), "complex NaN parts match");
    expect(!same(Cplx<float>{qnan, 1.0f}, Cplx<float>{qnan, 2.0f}), "complex parts count");

#ifdef CONF_HAVE_FLOAT16
    // The fallback half conversion agrees with the compiler's _Float16, on
    // every half, the midpoints between neighbours (rounding ties), their
    // float neighbours, and random floats.
    auto agree = [&](float f) {
        return std::isnan(f) || float_to_half_manual(f) == float_to_half(f);
    };
    bool conv_ok = true;
    for (uint32_t i = 0; i < 0xffff && conv_ok; ++i) {
        const float lo = half_to_float(uint16_t(i)), hi = half_to_float(uint16_t(i + 1));
        conv_ok = same(half_to_float_manual(uint16_t(i)), lo) && agree(lo);
        if ((i & 0x7fff) != 0x7bff && (i & 0x7c00) != 0x7c00) { // neighbours within one sign, finite
            const float mid = (lo + hi) / 2;
            conv_ok = conv_ok && agree(mid) && agree(std::nextafter(mid, 0.0f)) &&
                      agree(std::nextafter(mid, lo < 0 ? -INFINITY : INFINITY));
        }
    }
    for (int i = 0; i < (1 << 20) && conv_ok; ++i)
        conv_ok = agree(bits_float(uint32_t(r.next())));
    expect(conv_ok, "manual half conversions agree with _Float16");
#endif

    // A corrupted result of a SUM FLOAT call must be caught; a clean one not.
    const size_t n = 65;
    const DataSet<float> d = make_data<float>(h.opt.seed, reference_for<float>(OPF_OPID_SUM), n);
    // Flipping the lowest exponent bit changes every float's class or value:
    // a NaN becomes finite, anything else changes its value or becomes NaN.
    auto flip = [](unsigned char* res, size_t m) {
        if (m)
            res[(m / 2) * sizeof(float) + 2] ^= 0x80;
    };
    opf_kernel2_fn* fn2 = nullptr;
    opf_kernel3_fn* fn3 = nullptr;
    const char* prov = "base";
    if (opf_slot_kernels(OPF_OPID_SUM, OPF_KT_FLOAT, prov, n, &fn2, &fn3) != OPF_SUCCESS || !fn2) {
        prov = nullptr;
        opf_slot_kernels(OPF_OPID_SUM, OPF_KT_FLOAT, prov, n, &fn2, &fn3);
    }
    expect(fn2 != nullptr, "a SUM FLOAT 2-buffer kernel exists");
    const Placement aligned{"aligned", 0, 0, 0};
    std::vector<std::pair<const char*, Target>> targets;
    if (fn2)
        targets.push_back({"kernel", Target{[fn2](const void* in, void* io, size_t m) {
                                                fn2(in, io, opf_count_t(m));
                                                return 0;
                                            }, nullptr}});
    targets.push_back({"datatype", Target{[](const void* in, void* io, size_t m) {
                                              return opf_reduce_local(in, io, opf_count_t(m), OPF_FLOAT, OPF_SUM);
                                          }, nullptr}});
    for (auto& [level, t] : targets) {
        const bool kernel = std::strcmp(level, "kernel") == 0;
        CallInfo info{level, "SUM", "FLOAT", kernel ? (prov ? prov : "selected") : "-", Alias::InPlace2, n, "aligned"};
        h.corrupt = nullptr;
        expect(check_call(h, t, info, aligned, d.a, d.b, d.expect), "the clean SUM FLOAT call passes");
        std::printf("self-test: a deliberately corrupted %s SUM FLOAT result follows:\n", level);
        h.corrupt = flip;
        expect(!check_call(h, t, info, aligned, d.a, d.b, d.expect), "the corrupted SUM FLOAT result is caught");
        h.corrupt = nullptr;
    }

    // Misbehaving calls that produce right results must still be caught:
    // a write past the end, a write before the start, a changed input, and
    // a 3-buffer call that never writes its output.
    auto sum2 = [](const void* in, void* io, size_t m) {
        return opf_reduce_local(in, io, opf_count_t(m), OPF_FLOAT, OPF_SUM);
    };
    const std::pair<const char*, Target> rogues[] = {
        {"write past the end", Target{[=](const void* in, void* io, size_t m) {
                                          const int rc = sum2(in, io, m);
                                          static_cast<unsigned char*>(io)[m * sizeof(float)] ^= 1;
                                          return rc;
                                      }, nullptr}},
        {"write before the start", Target{[=](const void* in, void* io, size_t m) {
                                              const int rc = sum2(in, io, m);
                                              static_cast<unsigned char*>(io)[-1] ^= 1;
                                              return rc;
                                          }, nullptr}},
        {"changed input", Target{[=](const void* in, void* io, size_t m) {
                                     const int rc = sum2(in, io, m);
                                     const_cast<unsigned char*>(static_cast<const unsigned char*>(in))[5] ^= 1;
                                     return rc;
                                 }, nullptr}},
        {"output never written", Target{nullptr, [](const void*, const void*, void*, size_t) { return 0; }}},
    };
    for (const auto& [what, t] : rogues) {
        const Alias alias = t.two ? Alias::InPlace2 : Alias::Distinct3;
        CallInfo info{"self-test", "SUM", "FLOAT", what, alias, n, "aligned"};
        std::printf("self-test: a rogue call (%s) follows:\n", what);
        expect(!check_call(h, t, info, aligned, d.a, d.b, d.expect), what);
    }
    std::printf("self-test: %s\n", problems ? "FAILED" : "ok (corruption detected)");
    return problems ? 1 : 0;
}

// ===========================================================================
// Command line and main.
// ===========================================================================
void usage(const char* argv0)
{
    std::printf("usage: %s [--seed N] [--provider NAME]... [--quick] [-v] [--self-test]\n"
                "  --provider NAME  a provider (\"base\", ...) or \"selected\" for the selected table;\n"
                "                   repeatable (default: base and selected)\n",
                argv0);
}

bool parse_args(int argc, char** argv, Options& opt)
{
    bool seeded = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--seed" && i + 1 < argc) {
            char* end = nullptr;
            opt.seed = std::strtoull(argv[++i], &end, 0);
            if (!end || *end) {
                std::fprintf(stderr, "bad seed '%s'\n", argv[i]);
                return false;
            }
            seeded = true;
        } else if (arg == "--provider" && i + 1 < argc) {
            opt.providers.push_back(argv[++i]);
        } else if (arg == "--quick") {
            opt.quick = true;
        } else if (arg == "-v" || arg == "--verbose") {
            opt.verbose = true;
        } else if (arg == "--self-test") {
            opt.self_test = true;
        } else {
            usage(argv[0]);
            return false;
        }
    }
    if (!seeded) {
        std::random_device rd;
        opt.seed = (uint64_t(rd()) << 32) ^ rd() ^
                   uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
    }
    return true;
}

} // namespace

int main(int argc, char** argv)
{
    Harness h;
    if (!parse_args(argc, argv, h.opt))
        return 2;
    std::printf("seed=%" PRIu64 "\n", h.opt.seed);
    std::fflush(stdout);
    h.report.seed = h.opt.seed;

    if (const int rc = opf_init(); rc != OPF_SUCCESS) {
        std::printf("opf_init failed: %d\n", rc);
        return 1;
    }
    if (h.opt.self_test) {
        const int rc = run_self_test(h);
        opf_finalize();
        return rc;
    }

    if (h.opt.providers.empty()) {
        // Every provider there is: the base, the selected table, and each
        // available component's own offers (whether they won a slot or not).
        h.opt.providers = {"base", "selected"};
        for (int i = 0; i < opf_component_count(); ++i) {
            opf_component_info_t c;
            if (opf_component_describe(i, &c) == OPF_SUCCESS && c.available) h.opt.providers.push_back(c.name);
        }
    }
    for (const std::string& p : h.opt.providers) {
        if (p == "selected")
            h.providers.push_back(Provider{"selected", std::nullopt, {}, 0, 0});
        else
            h.providers.push_back(Provider{p, p, {}, 0, 0});
    }
    if (h.opt.quick)
        h.lengths = {0, 1, 3, 8, 17, 65, 1000};
    else
        h.lengths = {0, 1, 2, 3, 7, 8, 15, 16, 17, 31, 33, 63, 64, 65, 127, 1000, 4099};

    run_kernel_level(h);
    for (const Provider& p : h.providers)
        std::printf("provider %s: %ld slots, %ld checks, %ld failed, %ld kernels missing (skipped)\n",
                    p.label.c_str(), p.slots, p.tally.checks, p.tally.failed, p.skipped);
    run_datatype_level(h);

    long checks = h.kernel_total.checks + h.datatype_total.checks, failed = h.kernel_total.failed +
                                                                             h.datatype_total.failed;
    for (const Provider& p : h.providers) {
        checks += p.tally.checks;
        failed += p.tally.failed;
    }
    if (h.warnings)
        std::printf("%ld warnings (see above)\n", h.warnings);
    std::printf("conformance: %ld slots, %ld checks, %ld failed\n", h.slots_checked, checks, failed);
    opf_finalize();
    if (h.slots_checked == 0)
        std::printf("conformance: no slot was checked: failing\n");
    return failed || h.slots_checked == 0 ? 1 : 0;
}
