// storage.h — how each kernel type is laid out in memory, and the exact
// float <-> half / bfloat16 conversions (round to nearest even, once).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

namespace opf::base {

// IEEE binary16 and bfloat16 are stored as raw bits; arithmetic is done in
// float (DESIGN.md: computed in float, rounded once).
struct Half { uint16_t bits; };
struct BFloat16 { uint16_t bits; };

template <class R> struct Complex { R re, im; };

// MAXLOC/MINLOC operands: the C struct {value; index;} of MPI's pair types.
template <class V, class I> struct Pair { V value; I index; };

#ifdef __SIZEOF_INT128__
using Int128 = __int128;
#else
struct Int128 { unsigned char unsupported[16]; };
#endif
#ifdef __SIZEOF_FLOAT128__
using Float128 = __float128;
#else
struct Float128 { unsigned char unsupported[16]; };
#endif

inline float to_float(Half h)
{
    const uint32_t sign = uint32_t(h.bits & 0x8000u) << 16;
    const uint32_t exp = (h.bits >> 10) & 0x1f;
    uint32_t mant = h.bits & 0x3ffu;
    if (exp == 0x1f)                               // inf / NaN (payload kept, quiet bit kept)
        return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
    if (exp != 0)                                  // normal
        return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
    if (mant == 0)
        return std::bit_cast<float>(sign);         // signed zero
    // subnormal: value = mant * 2^-24, exact in float
    const float magnitude = float(mant) * 0x1p-24f;
    return std::bit_cast<float>(sign | std::bit_cast<uint32_t>(magnitude));
}

inline Half to_half(float f)
{
    const uint32_t x = std::bit_cast<uint32_t>(f);
    const uint16_t sign = uint16_t((x >> 16) & 0x8000u);
    const uint32_t abs = x & 0x7fffffffu;
    if (abs > 0x7f800000u)                         // NaN: keep it quiet, keep top payload bits
        return {uint16_t(sign | 0x7e00u | ((abs >> 13) & 0x1ffu))};
    if (abs >= 0x477ff000u)                        // rounds to >= 65520: overflow to inf
        return {uint16_t(sign | 0x7c00u)};
    if (abs >= 0x38800000u) {                      // normal half range (>= 2^-14)
        const uint32_t mant = abs & 0x7fffffu;
        const uint32_t exp = (abs >> 23) - 112;
        uint32_t h = (exp << 10) | (mant >> 13);
        const uint32_t rest = mant & 0x1fffu;      // 13 dropped bits: round to nearest even
        h += (rest > 0x1000u) || (rest == 0x1000u && (h & 1u));
        return {uint16_t(sign | h)};               // a carry into the exponent is correct rounding
    }
    // subnormal or zero: scale so that one half-ulp (2^-24) is 1.0, round to nearest even
    const float scaled = std::bit_cast<float>(abs) * 0x1p24f;   // exact (power of two)
    uint32_t q = uint32_t(scaled);
    const float frac = scaled - float(q);
    q += (frac > 0.5f) || (frac == 0.5f && (q & 1u));
    return {uint16_t(sign | q)};                   // q == 0x400 becomes the smallest normal
}

inline float to_float(BFloat16 b) { return std::bit_cast<float>(uint32_t(b.bits) << 16); }

inline BFloat16 to_bfloat16(float f)
{
    const uint32_t x = std::bit_cast<uint32_t>(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)           // NaN: quiet it, keep sign and top payload
        return {uint16_t((x >> 16) | 0x0040u)};
    const uint32_t round = 0x7fffu + ((x >> 16) & 1u);   // nearest even; overflow reaches inf
    return {uint16_t((x + round) >> 16)};
}

// Where an element's data ends: a pair's tail padding is not data (MPI's
// buffers of pairs end at the last element's data, not at its struct's end).
template <class P> constexpr std::size_t pair_data_end() { return offsetof(P, index) + sizeof(P{}.index); }
template <class T> inline constexpr std::size_t data_end = sizeof(T);
template <class V, class I> inline constexpr std::size_t data_end<Pair<V, I>> = pair_data_end<Pair<V, I>>();

// Unaligned-safe element access: kernels accept any element-aligned address
// (and any address at all). Loads read only data bytes; padding reads as 0.
template <class T> struct Access {
    static T load(const unsigned char *p)
    {
        T v;
        std::memcpy(&v, p, sizeof v);
        return v;
    }
};
template <class V, class I> struct Access<Pair<V, I>> {
    static Pair<V, I> load(const unsigned char *p)
    {
        Pair<V, I> v;
        std::memset(&v, 0, sizeof v);
        using P = Pair<V, I>;
        std::memcpy(&v.value, p + offsetof(P, value), sizeof v.value);
        std::memcpy(&v.index, p + offsetof(P, index), sizeof v.index);
        return v;
    }
};
template <class T> inline T load(const unsigned char *p) { return Access<T>::load(p); }
// Stores only value bytes: x87 long double has 6 bytes of padding, a pair its
// tail padding, and neither is data. Writing them would leave stack garbage in
// the output and, for the last element of an MPI buffer (which ends at the
// data's end, not at the struct's), write past it.
template <class T> inline void store(unsigned char *p, const T &v) { std::memcpy(p, &v, sizeof v); }
// The value bytes of a long double: x87's 80 bits, or all of aarch64's IEEE binary128.
inline constexpr std::size_t long_double_value_bytes =
    std::numeric_limits<long double>::digits == 64 ? 10 : sizeof(long double);
inline void store(unsigned char *p, const long double &v) { std::memcpy(p, &v, long_double_value_bytes); }
template <class R> inline void store(unsigned char *p, const Complex<R> &v)
{
    store(p + offsetof(Complex<R>, re), v.re);
    store(p + offsetof(Complex<R>, im), v.im);
}
template <class V, class I> inline void store(unsigned char *p, const Pair<V, I> &v)
{
    using P = Pair<V, I>;
    store(p + offsetof(P, value), v.value);
    store(p + offsetof(P, index), v.index);
}

} // namespace opf::base
