// data_kinds.h — the named kinds of data a kernel is timed and checked on,
// one definition shared by opframe_tune (which provider gets a slot),
// opframe_bench (--data) and the conformance engine (its data-kind pass).
//
// A kernel's speed can depend on its data, not only on its size: MAX/MIN's
// exact paths for NaN and signed zeros, MAXLOC's ties, narrow floats'
// special codes. A choice made on one kind (say all zeros) can be wrong on
// the data users reduce, so every kind below is data users have:
//
//   random    finite values of every magnitude the type holds well (floats:
//             +-2^-8 .. 2^8 with full mantissas; integers: every bit pattern)
//   integers  integer values -16 .. 16, a quarter of them +0 (counts,
//             histograms, masks)
//   sparse    random, and one element in 1,000 a NaN (where the type has
//             one; integers: the most negative value) and one in 1,000 a
//             zero of either sign
//   runs      pair types (MAXLOC/MINLOC): values in runs of 1 to 64 equal
//             ones, so that the operands tie often, indices rising
//   ones      every element 1 (a pair's index 1): the best case of every
//             data-dependent kernel (opframe_bench's data before the kinds)
//
// An in-place call repeated on one buffer (inout = in op inout, as a timing
// loop runs it) would carry SUM and PROD results out of the kind (narrow
// floats overflow within thousands of calls): a timing loop alternates `in`
// with inverse(), whose values undo it (SUM: the negations; PROD: the
// reciprocals, which is why a PROD operand's magnitudes are powers of two).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <opframe/component.h>
#include "base/mx.h"
#include "base/semantics.h"
#include "base/type_list.h"

namespace opf::data {

enum class Kind { Random, Integers, Sparse, Runs, Ones };

struct KindInfo {
    Kind kind;
    const char *name, *what;
};
inline constexpr KindInfo kKinds[] = {
    {Kind::Random, "random", "random finite values"},
    {Kind::Integers, "integers", "integer values -16..16, a quarter zeros"},
    {Kind::Sparse, "sparse", "random, one in 1,000 a NaN and one in 1,000 a signed zero"},
    {Kind::Runs, "runs", "pairs: runs of equal values (ties), indices rising"},
    {Kind::Ones, "ones", "every element 1"},
};
inline const char *kind_name(Kind k)
{
    for (const KindInfo &i : kKinds)
        if (i.kind == k) return i.name;
    return "?";
}
// The kind named `name` (case as written); false if there is none.
inline bool kind_by_name(const std::string &name, Kind &k)
{
    for (const KindInfo &i : kKinds)
        if (name == i.name) { k = i.kind; return true; }
    return false;
}

// ---- the types, by kernel type id ------------------------------------------------
// Calls f(T{}) with the storage type of kernel type kt (base/type_list.h);
// false when kt is out of range.
template <class F> bool with_kernel_type(int kt, F &&f)
{
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return ((kt == int(I) ? (f(base::at_t<I, base::KernelTypes>{}), true) : false) || ...);
    }(std::make_index_sequence<base::KernelTypes::size>{});
}
template <class T> inline constexpr bool is_pair_type = base::is_pair<T>;
inline bool is_pair_kernel_type(int kt)
{
    bool pair = false;
    with_kernel_type(kt, [&](auto t) { pair = is_pair_type<decltype(t)>; });
    return pair;
}

// Whether kind k means something for kernel type kt (runs: pair types only).
inline bool kind_applies(Kind k, int kt) { return k != Kind::Runs || is_pair_kernel_type(kt); }

// The kinds a slot of kt is timed on when a provider is chosen for it: those
// that can change a kernel's path. Integer kernels have no data-dependent
// path (random covers them); floats add integer-valued data (zeros) and
// sparse specials; pairs add runs (ties), and sparse where the value is a float.
inline std::vector<Kind> timing_kinds(int kt)
{
    std::vector<Kind> kinds = {Kind::Random};
    with_kernel_type(kt, [&](auto t) {
        using T = decltype(t);
        if constexpr (base::is_pair<T>) {
            kinds.push_back(Kind::Runs);
            if (base::is_real<decltype(T{}.value)>) kinds.push_back(Kind::Sparse);
        } else if constexpr (!base::is_integer<T> && !std::is_same_v<T, base::Int128>) {
            kinds.push_back(Kind::Integers);
            kinds.push_back(Kind::Sparse);
        }
    });
    return kinds;
}

// ---- values -------------------------------------------------------------------------
// splitmix64: reproducible from a seed.
struct Rng {
    uint64_t s;
    uint64_t next()
    {
        uint64_t z = (s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    uint64_t below(uint64_t n) { return next() % n; }
    double unit() { return double(next() >> 11) * 0x1p-53; }
};

// What one element of a real or integer part is: a value, or a special.
struct Draw {
    enum What { Value, Nan, Zero, Lowest } what = Value;
    double value = 0;
    bool negative_zero = false;
};
inline Draw draw(Kind k, Rng &r, bool power_of_two, bool is_float)
{
    Draw d;
    if (k == Kind::Ones) { d.value = 1; return d; }
    if (k == Kind::Integers) {
        const int64_t v = int64_t(r.below(33)) - 16;
        d.value = r.below(4) == 0 ? 0.0 : double(v);
        return d;
    }
    if (k == Kind::Sparse) {
        const uint64_t x = r.below(1000);
        if (x == 0) { d.what = is_float ? Draw::Nan : Draw::Lowest; return d; }
        if (x == 1) { d.what = Draw::Zero; d.negative_zero = r.below(2); return d; }
    }
    if (!is_float) return d;   // (random integers: every bit pattern, drawn by the caller)
    const double magnitude = power_of_two ? std::ldexp(1.0, int(r.below(9)) - 4)
                                          : std::ldexp(1.0 + r.unit(), int(r.below(17)) - 8);
    d.value = r.below(2) ? -magnitude : magnitude;
    return d;
}

template <class T> void put_real(unsigned char *p, const Draw &d)
{
    using namespace base;
    if constexpr (Narrow<T>) {
        const float f = d.what == Draw::Nan    ? __builtin_nanf("")
                        : d.what == Draw::Zero ? (d.negative_zero ? -0.0f : 0.0f)
                                               : float(d.value);
        const T v = narrow<T>(f);
        std::memcpy(p, &v, sizeof v);
    } else {
        const T v = d.what == Draw::Nan    ? T(__builtin_nan(""))
                    : d.what == Draw::Zero ? (d.negative_zero ? -T(0) : T(0))
                                           : T(d.value);
        std::memcpy(p, &v, value_bytes<T>);
    }
}
template <class T> void put_integer(unsigned char *p, Kind k, Rng &r, const Draw &d)
{
    using U = base::WrapType<T>;
    U v;
    if (d.what == Draw::Lowest) v = U(U(1) << (8 * sizeof(T) - 1));
    else if (d.what == Draw::Zero) v = 0;
    else if (k == Kind::Random || k == Kind::Sparse) {
        v = U(r.next());
        if constexpr (sizeof(U) > 8) v = U(v << 64 | U(r.next()));
    }
    else v = U(T(int64_t(d.value)));
    std::memcpy(p, &v, sizeof(T));   // (U may be wider: WrapType promotes; little-endian low bytes)
}
// A real, integer or narrow part of type T at p.
template <class T> void put_part(unsigned char *p, Kind k, Rng &r, bool power_of_two)
{
    if constexpr (base::is_real<T> || base::Narrow<T>) {
        put_real<T>(p, draw(k, r, power_of_two, true));
    } else if constexpr (base::is_integer<T>) {
        put_integer<T>(p, k, r, draw(k, r, power_of_two, false));
    } else {   // a type this build lacks (no __int128 / __float128): its slots do not exist
        for (std::size_t b = 0; b < sizeof(T); ++b) p[b] = uint8_t(r.next());
    }
}

// An MX block: scale near 2^0, element codes finite (integers: a quarter 0);
// sparse: one element in 1,000 NaN where the format has NaN codes.
template <class Fmt> void put_mx(unsigned char *p, Kind k, Rng &r)
{
    const int one = Fmt::scale == base::BlockScale::E8M0 ? 127 : 0x38;   // the scale code of 1.0
    p[0] = uint8_t(k == Kind::Random || k == Kind::Sparse ? one + int(r.below(9)) - 4 : one);
    uint8_t codes[Fmt::length];
    for (uint8_t &c : codes) {
        if (k == Kind::Ones) { c = 0; continue; }   // (replaced below: 1.0's code)
        unsigned code;
        do code = unsigned(r.next()) & Fmt::code_mask;
        while (base::mx_nonfinite<Fmt>(code));
        if (k == Kind::Integers && r.below(4) == 0) code = 0;
        if (k == Kind::Sparse && r.below(1000) == 0 && Fmt::special != 0) code = 0x7f;   // (a NaN in E4M3 and E5M2)
        if (k == Kind::Sparse && r.below(1000) == 0)   // a zero of either sign (MXINT8 has only +0: 0x80 is -128)
            code = !Fmt::is_int && r.below(2) ? Fmt::sign_bit : 0;
        c = uint8_t(code);
    }
    if (k == Kind::Ones)   // 1.0: exponent field = bias (floats), 2^6 steps (MXINT8)
        for (uint8_t &c : codes) c = uint8_t(Fmt::is_int ? 64 : unsigned(Fmt::bias) << Fmt::mbits);
    base::mx_put_codes<Fmt>(p, codes);
}

template <class T> struct Filler {
    static void put(unsigned char *p, Kind k, Rng &r, bool power_of_two, std::size_t i)
    {
        using namespace base;
        if constexpr (is_mx<T>) {
            put_mx<typename T::format>(p, k, r);
        } else if constexpr (is_complex<T>) {
            using R = decltype(T{}.re);
            put_part<R>(p, k, r, power_of_two);
            put_part<R>(p + sizeof(R), k, r, power_of_two);
            // PROD: a real or an imaginary power of two, so that 1/z is exact
            if (power_of_two) std::memset(p + (r.below(2) ? 0 : sizeof(R)), 0, value_bytes<R>);
        } else if constexpr (is_pair<T>) {
            using V = decltype(T{}.value);
            using I = decltype(T{}.index);
            if (k == Kind::Runs) {
                // runs of equal values: the value of the run's first index
                thread_local std::size_t run_end = 0;
                thread_local unsigned char value[sizeof(V)];
                if (i == 0 || i >= run_end) {
                    run_end = i + 1 + std::size_t(r.below(64));
                    put_part<V>(value, Kind::Integers, r, false);
                }
                std::memcpy(p + offsetof(T, value), value, value_bytes<V>);
            } else {
                put_part<V>(p + offsetof(T, value), k, r, power_of_two);
            }
            const I index = I(k == Kind::Ones ? 1 : k == Kind::Random || k == Kind::Sparse ? I(r.below(1000)) : I(i));
            std::memcpy(p + offsetof(T, index), &index, value_bytes<I>);
        } else {
            put_part<T>(p, k, r, power_of_two);
        }
    }
};

// Fills n elements of kernel type kt (records of its extent) with kind k,
// reproducibly from seed. For `op` PROD the magnitudes are powers of two
// (inverse() is then exact). Padding bytes are zero.
inline void fill(Kind k, int kt, int op, unsigned char *p, std::size_t n, uint64_t seed)
{
    Rng r{seed};
    with_kernel_type(kt, [&](auto t) {
        using T = decltype(t);
        std::memset(p, 0, n * sizeof(T));
        for (std::size_t i = 0; i < n; ++i) Filler<T>::put(p + i * sizeof(T), k, r, op == OPF_OPID_PROD, i);
    });
}

// Whether a loop that repeats `op` in place needs inverse() to stay in the kind.
inline bool accumulates(int op) { return op == OPF_OPID_SUM || op == OPF_OPID_PROD; }

// inv = the values that undo `in` under op (accumulates(op)): SUM the
// negations (integers wrap back exactly), PROD the reciprocals (exact: fill
// drew powers of two for PROD; integers: in itself, products wrap anyway).
inline void inverse(int op, int kt, const unsigned char *in, unsigned char *inv, std::size_t n)
{
    with_kernel_type(kt, [&](auto t) {
        using T = decltype(t);
        std::memcpy(inv, in, n * sizeof(T));
        using namespace base;
        auto flip = [&]<class R>(unsigned char *q, R) {
            if constexpr (Narrow<R>) {
                R v;
                std::memcpy(&v, q, sizeof v);
                const float f = to_float(v);
                v = narrow<R>(op == OPF_OPID_SUM ? -f : 1.0f / f);
                std::memcpy(q, &v, sizeof v);
            } else if constexpr (is_real<R>) {
                R v;
                std::memcpy(&v, q, sizeof v);
                v = op == OPF_OPID_SUM ? -v : R(1) / v;
                std::memcpy(q, &v, value_bytes<R>);
            } else if constexpr (is_integer<R>) {
                if (op == OPF_OPID_SUM) {
                    WrapType<R> u = 0;
                    std::memcpy(&u, q, sizeof(R));
                    u = decltype(u)(0) - u;
                    std::memcpy(q, &u, sizeof(R));
                }
            }
        };
        for (std::size_t i = 0; i < n; ++i) {
            unsigned char *q = inv + i * sizeof(T);
            if constexpr (is_complex<T>) {
                using R = decltype(T{}.re);
                R re, im;
                std::memcpy(&re, q, sizeof re);
                std::memcpy(&im, q + sizeof(R), sizeof im);
                if (op == OPF_OPID_SUM) { re = -re; im = -im; }
                else if (im == R(0)) re = R(1) / re;   // 1/a
                else im = R(-1) / im;                  // 1/(bi) = -i/b
                std::memcpy(q, &re, value_bytes<R>);
                std::memcpy(q + sizeof(R), &im, value_bytes<R>);
            } else if constexpr (is_mx<T>) {
                using Fmt = typename T::format;
                if (op != OPF_OPID_SUM) continue;
                uint8_t codes[Fmt::length];
                for (int e = 0; e < Fmt::length; ++e) {   // negation: the sign bit; MXINT8 two's complement
                    const unsigned c = mx_code<Fmt>(q, e);
                    codes[e] = uint8_t(Fmt::is_int ? (c == 0x80 ? 0x7f : (0x100 - c) & 0xff) : c ^ Fmt::sign_bit);
                }
                mx_put_codes<Fmt>(q, codes);
            } else if constexpr (!is_pair<T>) {
                flip(q, T{});
            }
        }
    });
}

} // namespace opf::data
