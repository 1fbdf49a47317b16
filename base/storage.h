// storage.h — how each kernel type is laid out in memory, and the exact
// float <-> half / bfloat16 / fp8 conversions (round to nearest even, once).
//
// Host and device: everything a kernel calls is OPF_HD, so that the cuda
// component's device code compiles these very functions (nvcc), and plain
// C++ sees ordinary inline functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "base/device_pass.h"

// A device pass with conversion instructions (device_pass.h) converts with
// storage_hw.h (the same bits): float16 both ways and FLOAT8_E5M2 to float,
// float to bfloat16 from sm_80 on, FLOAT8_E4M3 to float and float to fp8
// from sm_89 on.
#if defined(OPF_STORAGE_HW)
#include "base/storage_hw.h"
#endif

namespace opf::base {

// IEEE binary16 and bfloat16 are stored as raw bits; arithmetic is done in
// float and rounded once (docs/design.md, Semantics).
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

// std::bit_cast is constexpr host code to nvcc; memcpy is understood on both.
template <class To, class From> OPF_HD inline To bits_as(const From &from)
{
    static_assert(sizeof(To) == sizeof(From), "bits_as: sizes differ");
    To to;
    std::memcpy(&to, &from, sizeof to);
    return to;
}

// Each conversion is written once as the rule, in software (`*_soft`: what
// every CPU runs), and chosen by a dispatcher of the plain name that the
// kernels call: in nvcc's device pass the GPU's instructions (storage_hw.h),
// which test/cuda_conversions proves equal to the rule for every input on
// the GPU itself.
OPF_HD inline float to_float_soft(Half h)
{
    const uint32_t sign = uint32_t(h.bits & 0x8000u) << 16;
    const uint32_t exp = (h.bits >> 10) & 0x1f;
    uint32_t mant = h.bits & 0x3ffu;
    if (exp == 0x1f)                               // inf / NaN (payload kept, quiet bit kept)
        return bits_as<float>(sign | 0x7f800000u | (mant << 13));
    if (exp != 0)                                  // normal
        return bits_as<float>(sign | ((exp + 112) << 23) | (mant << 13));
    if (mant == 0)
        return bits_as<float>(sign);               // signed zero
    // subnormal: value = mant * 2^-24, exact in float
    const float magnitude = float(mant) * 0x1p-24f;
    return bits_as<float>(sign | bits_as<uint32_t>(magnitude));
}
OPF_HD inline float to_float(Half h)
{
#if defined(OPF_STORAGE_HW)
    return hw::half_to_float(h.bits);
#else
    return to_float_soft(h);
#endif
}

OPF_HD inline Half to_half_soft(float f)
{
    const uint32_t x = bits_as<uint32_t>(f);
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
    const float scaled = bits_as<float>(abs) * 0x1p24f;   // exact (power of two)
    uint32_t q = uint32_t(scaled);
    const float frac = scaled - float(q);
    q += (frac > 0.5f) || (frac == 0.5f && (q & 1u));
    return {uint16_t(sign | q)};                   // q == 0x400 becomes the smallest normal
}
OPF_HD inline Half to_half(float f)
{
#if defined(OPF_STORAGE_HW)
    return {hw::float_to_half(f)};
#else
    return to_half_soft(f);
#endif
}

OPF_HD inline float to_float(BFloat16 b) { return bits_as<float>(uint32_t(b.bits) << 16); }

OPF_HD inline BFloat16 to_bfloat16_soft(float f)
{
    const uint32_t x = bits_as<uint32_t>(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)           // NaN: quiet it, keep sign and top payload
        return {uint16_t((x >> 16) | 0x0040u)};
    const uint32_t round = 0x7fffu + ((x >> 16) & 1u);   // nearest even; overflow reaches inf
    return {uint16_t((x + round) >> 16)};
}
OPF_HD inline BFloat16 to_bfloat16(float f)
{
#if defined(OPF_STORAGE_HW_BF16_CVT)
    return {hw::float_to_bfloat16(f)};
#else
    return to_bfloat16_soft(f);
#endif
}

// ---- OCP 8-bit floats (OFP8) ---------------------------------------------------
// Raw bits, computed in float and rounded once, as float16 (semantics.h says
// what happens on overflow and why).
//   E4M3 (PyTorch's float8_e4m3fn): 1.4.3, bias 7, no infinities; S.1111.111
//        is the NaN (one per sign), the largest finite is 448.
//   E5M2 (float8_e5m2): 1.5.2, bias 15, the top byte of a binary16:
//        infinities and NaNs as IEEE, the largest finite is 57344.
// Every value of both is exact in float (and in binary16).
struct Float8E4M3 { uint8_t bits; };
struct Float8E5M2 { uint8_t bits; };

OPF_HD inline float to_float_soft(Float8E4M3 b)
{
    const uint32_t sign = uint32_t(b.bits & 0x80u) << 24;
    const uint32_t exp = (b.bits >> 3) & 0xfu, mant = b.bits & 7u;
    if (exp == 0xf && mant == 7)                   // the NaN
        return bits_as<float>(sign | 0x7fc00000u);
    if (exp != 0)                                  // normal: rebias 7 -> 127
        return bits_as<float>(sign | ((exp + 120) << 23) | (mant << 20));
    // subnormal or zero: mant * 2^-9, exact in float
    return bits_as<float>(sign | bits_as<uint32_t>(float(mant) * 0x1p-9f));
}
OPF_HD inline float to_float(Float8E4M3 b)
{
#if defined(OPF_STORAGE_HW_FP8_CVT)
    return hw::e4m3_to_float(b.bits);
#else
    return to_float_soft(b);
#endif
}

OPF_HD inline float to_float_soft(Float8E5M2 b) { return to_float_soft(Half{uint16_t(b.bits << 8)}); }
OPF_HD inline float to_float(Float8E5M2 b)
{
#if defined(OPF_STORAGE_HW)
    return hw::e5m2_to_float(b.bits);
#else
    return to_float_soft(b);
#endif
}

// |f| (its bits, finite and below the format's overflow threshold) rounded
// to nearest even into an 8-bit float of Man mantissa bits and exponent bias
// Bias; the sign is the caller's.
template <int Man, int Bias> OPF_HD inline uint8_t round_to_float8(uint32_t abs)
{
    if (abs >= uint32_t(128 - Bias) << 23) {       // normal: >= 2^(1-Bias)
        constexpr uint32_t drop = 23 - Man, tie = 1u << (drop - 1);
        uint32_t q = (((abs >> 23) - (127 - Bias)) << Man) | ((abs & 0x7fffffu) >> drop);
        const uint32_t rest = abs & ((1u << drop) - 1);
        q += (rest > tie) || (rest == tie && (q & 1u));   // a carry into the exponent is correct rounding
        return uint8_t(q);
    }
    // subnormal or zero: scale so that one ulp (2^(1-Bias-Man)) is 1.0 (exact:
    // a power of two), then round the integer part to nearest even
    const float scaled = bits_as<float>(abs) * float(1u << (Bias - 1 + Man));
    uint32_t q = uint32_t(scaled);
    const float frac = scaled - float(q);
    q += (frac > 0.5f) || (frac == 0.5f && (q & 1u));
    return uint8_t(q);                             // q == 1 << Man becomes the smallest normal
}

// E4M3 has no infinity: NaN, inf and every magnitude that rounds beyond 448
// (above 464, the midpoint to the next binade's first step) give the NaN.
OPF_HD inline Float8E4M3 to_float8_e4m3_soft(float f)
{
    const uint32_t x = bits_as<uint32_t>(f);
    const uint8_t sign = uint8_t((x >> 24) & 0x80u);
    const uint32_t abs = x & 0x7fffffffu;
    if (abs > 0x43e80000u)                         // > 464.0f, inf and NaN included
        return {uint8_t(sign | 0x7fu)};
    return {uint8_t(sign | round_to_float8<3, 7>(abs))};
}
OPF_HD inline Float8E4M3 to_float8_e4m3(float f)
{
#if defined(OPF_STORAGE_HW_FP8_CVT)
    return {hw::float_to_e4m3(f)};
#else
    return to_float8_e4m3_soft(f);
#endif
}

// E5M2 as IEEE: NaN stays a (quiet) NaN, a magnitude that rounds beyond 57344
// (from 61440 on, the tie rounding to even = up) is inf.
OPF_HD inline Float8E5M2 to_float8_e5m2_soft(float f)
{
    const uint32_t x = bits_as<uint32_t>(f);
    const uint8_t sign = uint8_t((x >> 24) & 0x80u);
    const uint32_t abs = x & 0x7fffffffu;
    if (abs > 0x7f800000u)                         // NaN
        return {uint8_t(sign | 0x7eu)};
    if (abs >= 0x47700000u)                        // >= 61440.0f, inf included
        return {uint8_t(sign | 0x7cu)};
    return {uint8_t(sign | round_to_float8<2, 15>(abs))};
}
OPF_HD inline Float8E5M2 to_float8_e5m2(float f)
{
#if defined(OPF_STORAGE_HW_FP8_CVT)
    return {hw::float_to_e5m2(f)};
#else
    return to_float8_e5m2_soft(f);
#endif
}

// ---- AMD's FNUZ 8-bit floats (CDNA3; PyTorch's and ml_dtypes'
// float8_e4m3fnuz, float8_e5m2fnuz) ---------------------------------------------
// No infinities and no negative zero: 0x80, the pattern of -0, is the one
// NaN. Rounded as the OCP formats (to nearest even, once); a magnitude that
// rounds beyond the largest finite, an inf and a NaN give the NaN; a result
// that rounds to zero is +0 whatever its sign.
//   E4M3FNUZ: 1.4.3, bias 8, the largest finite is 240 (from 248 on: NaN).
//   E5M2FNUZ: 1.5.2, bias 16, the largest finite is 57344 (from 61440 on).
struct Float8E4M3Fnuz { uint8_t bits; };
struct Float8E5M2Fnuz { uint8_t bits; };
inline constexpr uint8_t kFnuzNan = 0x80;

template <int Man, int Bias> OPF_HD inline float fnuz_to_float(uint8_t b)
{
    if (b == kFnuzNan)
        return bits_as<float>(0x7fc00000u);
    const uint32_t sign = uint32_t(b & 0x80u) << 24;
    const uint32_t exp = uint32_t(b & 0x7fu) >> Man, mant = b & ((1u << Man) - 1);
    if (exp != 0)                                  // normal: rebias to 127
        return bits_as<float>(sign | ((exp + 127 - Bias) << 23) | (mant << (23 - Man)));
    // subnormal or zero: mant ulps of 2^(1-Bias-Man), exact in float
    return bits_as<float>(sign | bits_as<uint32_t>(float(mant) * bits_as<float>(uint32_t(128 - Bias - Man) << 23)));
}
// Overflow: |f| at or above OverflowBits (a float's bits) rounds past the
// largest finite.
template <int Man, int Bias, uint32_t OverflowBits> OPF_HD inline uint8_t float_to_fnuz(float f)
{
    const uint32_t x = bits_as<uint32_t>(f), abs = x & 0x7fffffffu;
    if (abs >= OverflowBits)                       // inf and NaN included
        return kFnuzNan;
    const uint8_t q = round_to_float8<Man, Bias>(abs);
    return q == 0 ? uint8_t(0) : uint8_t(((x >> 24) & 0x80u) | q);
}
OPF_HD inline float to_float(Float8E4M3Fnuz b) { return fnuz_to_float<3, 8>(b.bits); }
OPF_HD inline float to_float(Float8E5M2Fnuz b) { return fnuz_to_float<2, 16>(b.bits); }
OPF_HD inline Float8E4M3Fnuz to_float8_e4m3fnuz(float f) { return {float_to_fnuz<3, 8, 0x43780000u>(f)}; }      // 248
OPF_HD inline Float8E5M2Fnuz to_float8_e5m2fnuz(float f) { return {float_to_fnuz<2, 16, 0x47700000u>(f)}; }     // 61440

// ---- rounding from float, by type --------------------------------------------
// FromFloat<T>::round(f): f rounded once to the narrow float T (semantics.h's
// narrow<T>). A narrow type without one fails to compile here, naming T.
template <class T> struct FromFloat;
template <> struct FromFloat<Half> { OPF_HD static Half round(float f) { return to_half(f); } };
template <> struct FromFloat<BFloat16> { OPF_HD static BFloat16 round(float f) { return to_bfloat16(f); } };
template <> struct FromFloat<Float8E4M3> { OPF_HD static Float8E4M3 round(float f) { return to_float8_e4m3(f); } };
template <> struct FromFloat<Float8E5M2> { OPF_HD static Float8E5M2 round(float f) { return to_float8_e5m2(f); } };
template <> struct FromFloat<Float8E4M3Fnuz> {
    OPF_HD static Float8E4M3Fnuz round(float f) { return to_float8_e4m3fnuz(f); }
};
template <> struct FromFloat<Float8E5M2Fnuz> {
    OPF_HD static Float8E5M2Fnuz round(float f) { return to_float8_e5m2fnuz(f); }
};

// ---- data bytes -------------------------------------------------------------
// The bytes of a scalar that hold its value: all of them, except x87's
// 80-bit long double (10 value bytes, 6 of padding in its 16).
template <class T> inline constexpr std::size_t value_bytes = sizeof(T);
template <> inline constexpr std::size_t value_bytes<long double> =
    std::numeric_limits<long double>::digits == 64 ? 10 : sizeof(long double);

// The bytes of an element a kernel writes: one or two ranges (a complex's
// parts, a pair's value and index); the rest of the element is padding.
struct ByteRange { std::size_t offset, size; };
struct DataLayout {
    int count;
    ByteRange range[2];
    // No padding anywhere in the element: a byte copy may cover it whole.
    constexpr bool dense(std::size_t extent) const
    {
        return count == 1 ? range[0].size == extent : range[0].size == range[1].offset && range[1].offset + range[1].size == extent;
    }
};
template <class T> struct Layout {
    static constexpr DataLayout data{1, {{0, value_bytes<T>}, {0, 0}}};
};
template <class R> struct Layout<Complex<R>> {
    static constexpr DataLayout data{2, {{offsetof(Complex<R>, re), value_bytes<R>}, {offsetof(Complex<R>, im), value_bytes<R>}}};
};
template <class V, class I> struct Layout<Pair<V, I>> {
    using P = Pair<V, I>;
    static constexpr DataLayout data{2, {{offsetof(P, value), value_bytes<V>}, {offsetof(P, index), value_bytes<I>}}};
    static constexpr std::size_t end = offsetof(P, index) + sizeof(I);
};
template <class T> inline constexpr DataLayout data_layout = Layout<T>::data;

// Where a buffer of elements ends (MPI's true extent): a pair's tail padding
// after the last element is not part of it; a long double's is (its MPI size
// is its sizeof), though no kernel writes it.
template <class T> inline constexpr std::size_t data_end = sizeof(T);
template <class V, class I> inline constexpr std::size_t data_end<Pair<V, I>> = Layout<Pair<V, I>>::end;
template <class T> constexpr std::size_t true_bytes(std::size_t n) { return n ? (n - 1) * sizeof(T) + data_end<T> : 0; }

// Unaligned-safe element access: kernels accept any element-aligned address
// (and any address at all). Loads read only data bytes; padding reads as 0.
template <class T> struct Access {
    OPF_HD static T load(const unsigned char *p)
    {
        T v;
        std::memcpy(&v, p, sizeof v);
        return v;
    }
};
// Member by member, as store() writes: GCC vectorises a loop of complex
// values loaded this way, not one that copies the whole struct (its
// "complicated access pattern": SUM C_FLOAT_COMPLEX ran one 8-byte complex
// per iteration).
template <class R> struct Access<Complex<R>> {
    OPF_HD static Complex<R> load(const unsigned char *p)
    {
        Complex<R> v;
        std::memcpy(&v.re, p + offsetof(Complex<R>, re), sizeof v.re);
        std::memcpy(&v.im, p + offsetof(Complex<R>, im), sizeof v.im);
        return v;
    }
};
template <class V, class I> struct Access<Pair<V, I>> {
    OPF_HD static Pair<V, I> load(const unsigned char *p)
    {
        Pair<V, I> v;
        std::memset(&v, 0, sizeof v);
        using P = Pair<V, I>;
        std::memcpy(&v.value, p + offsetof(P, value), sizeof v.value);
        std::memcpy(&v.index, p + offsetof(P, index), sizeof v.index);
        return v;
    }
};
template <class T> OPF_HD inline T load(const unsigned char *p) { return Access<T>::load(p); }
// Stores only value bytes: x87 long double has 6 bytes of padding, a pair its
// tail padding, and neither is data. Writing them would leave stack garbage in
// the output and, for the last element of an MPI buffer (which ends at the
// data's end, not at the struct's), write past it.
template <class T> OPF_HD inline void store(unsigned char *p, const T &v) { std::memcpy(p, &v, value_bytes<T>); }
template <class R> OPF_HD inline void store(unsigned char *p, const Complex<R> &v)
{
    store(p + offsetof(Complex<R>, re), v.re);
    store(p + offsetof(Complex<R>, im), v.im);
}
template <class V, class I> OPF_HD inline void store(unsigned char *p, const Pair<V, I> &v)
{
    using P = Pair<V, I>;
    store(p + offsetof(P, value), v.value);
    store(p + offsetof(P, index), v.index);
}

} // namespace opf::base
