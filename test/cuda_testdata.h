// cuda_testdata.h — data and comparison shared by the cuda component's tests
// (cuda_semantics.cpp on the host, cuda_conformance.cpp on a GPU or the
// stand-in; randomness from the conformance engine, test/engine): random
// elements of every kernel type with adversarial values mixed in (NaN of
// both signs and kinds, infinities, signed zeros, subnormals, extremes, equal
// values for the MAX/MIN and MAXLOC/MINLOC tie rules), and the base's rule
// for "the same result" (base/compare.h: any NaN matches any NaN, padding
// ignored).
#pragma once

#include <opframe/introspect.h>
#include <array>
#include <cstdarg>
#include <cstdio>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "base/compare.h"
#include "test/engine/engine.h"
#include "base/type_list.h"
#include "components/cuda/cuda_ops.h"

namespace cuda_test {

// The conformance engine's seeded randomness (splitmix64, a seed replays the
// same data) and its per-data-set seeds: one definition (issue 20).
using engine::Rng;
using engine::derive_seed;

template <class T> void set(unsigned char *p, T v) { std::memcpy(p, &v, sizeof v); }

template <class T> void scalar_value(unsigned char *p, Rng &r);
// One value of a scalar type into p: random bits, or now and then a special.
template <class T> void scalar(unsigned char *p, Rng &r)
{
    using opf::base::Half, opf::base::BFloat16;
    if constexpr (opf::base::is_mx<T>) {   // an MX block: a scale near 1 (now and then an end, or NaN), any elements
        constexpr bool e8m0 = T::format::scale == opf::base::BlockScale::E8M0;   // else an E4M3 scale (NVFP4)
        static const uint8_t ends[] = {0, 1, e8m0 ? 253 : 0x7d, e8m0 ? 254 : 0x7e, 0xff, e8m0 ? 0xff : 0xb8};
        p[0] = r.one_in(4) ? ends[r.below(sizeof ends)] : uint8_t((e8m0 ? 124 : 0x35) + r.below(7));
        for (std::size_t i = 1; i < sizeof(T); ++i) p[i] = uint8_t(r.next());
    } else {
        scalar_value<T>(p, r);
    }
}
template <class T> void scalar_value(unsigned char *p, Rng &r)
{
    using opf::base::Half, opf::base::BFloat16;
    uint64_t bits = r.next();
    std::memcpy(p, &bits, sizeof(T) < 8 ? sizeof(T) : 8);
    if (!r.one_in(3)) return;
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
        static const uint16_t h[] = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7d01, 0x0001, 0x8001,
                                     0x03ff, 0x0400, 0x7bff, 0xfbff, 0x3c00, 0xbc00, 0x3c01, 0x1400};
        static const uint16_t b[] = {0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x7f81, 0x0001, 0x8001,
                                     0x007f, 0x0080, 0x7f7f, 0xff7f, 0x3f80, 0xbf80, 0x3f81, 0x3b80};
        const uint16_t v = std::is_same_v<T, Half> ? h[r.below(sizeof h / 2)] : b[r.below(sizeof b / 2)];
        set(p, v);
    } else if constexpr (std::is_same_v<T, opf::base::Float8E4M3> || std::is_same_v<T, opf::base::Float8E5M2>) {
        // zeros, NaN / inf, subnormals, the largest finite, 1 and its next, large values whose sums overflow
        static const uint8_t e4m3[] = {0x00, 0x80, 0x7f, 0xff, 0x01, 0x87, 0x08, 0x7e, 0xfe, 0x38, 0x39, 0x77, 0x7a};
        static const uint8_t e5m2[] = {0x00, 0x80, 0x7c, 0xfc, 0x7e, 0x7d, 0x01, 0x83, 0x04, 0x7b, 0xfb, 0x3c, 0x3d, 0x78};
        const uint8_t v = std::is_same_v<T, opf::base::Float8E4M3> ? e4m3[r.below(sizeof e4m3)] : e5m2[r.below(sizeof e5m2)];
        set(p, v);
    } else if constexpr (std::is_same_v<T, opf::base::Float8E4M3Fnuz> || std::is_same_v<T, opf::base::Float8E5M2Fnuz>) {
        // +0, the NaN (0x80), subnormals, the smallest normal, the largest finite, 1 and its next, large values
        static const uint8_t fnuz[] = {0x00, 0x80, 0x01, 0x81, 0x07, 0x08, 0x7f, 0xff, 0x40, 0x41, 0x78, 0x7c, 0xfe};
        set(p, fnuz[r.below(sizeof fnuz)]);
    } else if constexpr (std::is_floating_point_v<T>) {
        using L = std::numeric_limits<T>;
        const T specials[] = {T(0), -T(0), L::infinity(), -L::infinity(), L::quiet_NaN(), -L::quiet_NaN(),
                              L::signaling_NaN(), L::denorm_min(), -L::denorm_min(), L::min(), -L::min(),
                              L::max(), -L::max(), T(1), T(-1), T(1) + L::epsilon(), T(0.5), T(3)};
        set(p, specials[r.below(sizeof specials / sizeof specials[0])]);
    } else if constexpr (opf::base::is_narrow<T>) {
        static_assert(opf::base::no_rule_for<T>, "scalar_value: a narrow type with no special values here");
    } else {
        using L = std::numeric_limits<T>;
        const T specials[] = {T(0), T(1), T(-1), L::min(), L::max(), T(L::max() - 1), T(2)};
        set(p, specials[r.below(sizeof specials / sizeof specials[0])]);
    }
}

// Elements of kernel type T for in1 (a) and in2 (b).
template <class T> void fill_pair_of_arrays(unsigned char *a, unsigned char *b, int64_t n, Rng &r)
{
    using opf::base::is_complex, opf::base::is_pair;
    for (int64_t i = 0; i < n; ++i) {
        unsigned char *x = a + i * sizeof(T), *y = b + i * sizeof(T);
        if constexpr (is_complex<T>) {
            using R = decltype(T{}.re);
            scalar<R>(x, r), scalar<R>(x + sizeof(R), r), scalar<R>(y, r), scalar<R>(y + sizeof(R), r);
        } else if constexpr (is_pair<T>) {
            using V = decltype(T{}.value);
            using I = decltype(T{}.index);
            std::memset(x, 0, sizeof(T));
            std::memset(y, 0, sizeof(T));
            scalar<V>(x + offsetof(T, value), r);
            scalar<V>(y + offsetof(T, value), r);
            if (r.one_in(3)) std::memcpy(y + offsetof(T, value), x + offsetof(T, value), sizeof(V));   // a tie
            set(x + offsetof(T, index), I(r.below(4)));   // small indices: ties on the index too
            set(y + offsetof(T, index), I(r.below(4)));
            if (r.one_in(8)) set(x + offsetof(T, index), I(-1 - I(r.below(3))));
        } else {
            scalar<T>(x, r);
            scalar<T>(y, r);
            if (r.one_in(6)) std::memcpy(y, x, sizeof(T));   // equal operands (MAX/MIN ties)
        }
    }
}

// Random bytes (for the types the GPU does not compute: REPLACE / NO_OP only).
inline void fill_bytes(unsigned char *p, std::size_t bytes, Rng &r)
{
    for (std::size_t i = 0; i < bytes; ++i) p[i] = (unsigned char)r.next();
}

// ---- dispatch by kernel type -----------------------------------------------------
using FillFn = void (*)(unsigned char *, unsigned char *, int64_t, Rng &);

template <std::size_t K> void fill_kt(unsigned char *a, unsigned char *b, int64_t n, Rng &r)
{
    using T = opf::base::at_t<K, opf::base::KernelTypes>;
    if constexpr (!opf_cuda::on_gpu<T>) {
        fill_bytes(a, std::size_t(n) * sizeof(T), r);
        fill_bytes(b, std::size_t(n) * sizeof(T), r);
    } else {
        fill_pair_of_arrays<T>(a, b, n, r);
    }
}
template <std::size_t... K> constexpr auto fill_table(std::index_sequence<K...>)
{
    return std::array<FillFn, sizeof...(K)>{&fill_kt<K>...};
}
inline void fill(int kt, unsigned char *a, unsigned char *b, int64_t n, Rng &r)
{
    static constexpr auto table = fill_table(std::make_index_sequence<OPF_KT_COUNT>{});
    table[kt](a, b, n, r);
}
// First element where a and b differ by the base's rule, or -1: the one
// comparator every test uses (introspect.h).
inline opf_count_t first_difference(int kt, const void *a, const void *b, opf_count_t n)
{
    opf_count_t at = -1;
    return opf_kernel_type_first_difference(kt, a, b, n, &at) == OPF_SUCCESS ? at : 0;
}

// Failure accounting shared by the CUDA tests: each failure is counted, the
// first 60 are printed.
inline int failures = 0;
inline long long checks = 0;
inline bool verbose = false;

__attribute__((format(printf, 1, 2))) inline void fail(const char *fmt, ...)
{
    if (++failures > 60) return;
    va_list ap;
    va_start(ap, fmt);
    std::fputs("FAIL: ", stdout);
    std::vprintf(fmt, ap);
    std::fputc('\n', stdout);
    va_end(ap);
    std::fflush(stdout);
}

// The lengths every slot is checked at (DESIGN: edges around vector widths).
inline constexpr int64_t lengths[] = {0, 1, 2, 3, 7, 8, 15, 16, 17, 31, 33, 63, 64, 65, 127, 1000, 4099};

} // namespace cuda_test
