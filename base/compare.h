// compare.h — "the same result" as the conformance rules define it: equal
// bytes of every value, except that any NaN matches any NaN, and padding
// (long double's 6 bytes, a pair's tail) is not a value.
#pragma once

#include <cstring>

#include "base/semantics.h"

namespace opf::base {

template <class T> inline bool same_value(const T &a, const T &b)
{
    if constexpr (std::is_same_v<T, Half>)
        return a.bits == b.bits || (((a.bits & 0x7fff) > 0x7c00) && ((b.bits & 0x7fff) > 0x7c00));
    else if constexpr (std::is_same_v<T, BFloat16>)
        return a.bits == b.bits || (((a.bits & 0x7fff) > 0x7f80) && ((b.bits & 0x7fff) > 0x7f80));
    else if constexpr (std::is_same_v<T, Float8E4M3>)
        return a.bits == b.bits || (((a.bits & 0x7f) == 0x7f) && ((b.bits & 0x7f) == 0x7f));
    else if constexpr (std::is_same_v<T, Float8E5M2>)
        return a.bits == b.bits || (((a.bits & 0x7f) > 0x7c) && ((b.bits & 0x7f) > 0x7c));
    else if constexpr (std::is_same_v<T, Float8E4M3Fnuz> || std::is_same_v<T, Float8E5M2Fnuz>)
        return a.bits == b.bits;   // one NaN code (0x80)
    else if constexpr (is_narrow<T>)   // a narrow float's NaN codes are its own: no default
        static_assert(no_rule_for<T>, "same_value: a narrow type of type_description.h has no NaN rule here");
    else if constexpr (is_mx<T>)   // any NaN block (its format's NaN scale) matches any other
        return std::memcmp(&a, &b, sizeof a) == 0 ||
               (block_nan_scale<typename T::format>(a.bytes[0]) && block_nan_scale<typename T::format>(b.bytes[0]));
    else if constexpr (is_block<T>)   // a block format's NaN blocks are its own: no default
        static_assert(no_rule_for<T>, "same_value: a block type of type_description.h has no NaN rule here");
    else if constexpr (std::is_same_v<T, long double>)
        return (is_nan(a) && is_nan(b)) || std::memcmp(&a, &b, value_bytes<long double>) == 0;
    else if constexpr (is_real<T>)
        return (is_nan(a) && is_nan(b)) || std::memcmp(&a, &b, sizeof a) == 0;
    else if constexpr (is_complex<T>)
        return same_value(a.re, b.re) && same_value(a.im, b.im);
    else if constexpr (is_pair<T>)
        return same_value(a.value, b.value) && same_value(a.index, b.index);
    else
        return std::memcmp(&a, &b, sizeof a) == 0;
}

// Index of the first element of two arrays of T that differ, or -1.
template <class T> opf_count_t first_difference(const void *a, const void *b, opf_count_t n)
{
    auto pa = static_cast<const unsigned char *>(a), pb = static_cast<const unsigned char *>(b);
    for (opf_count_t i = 0; i < n; ++i)
        if (!same_value(load<T>(pa + i * sizeof(T)), load<T>(pb + i * sizeof(T)))) return i;
    return -1;
}

} // namespace opf::base
