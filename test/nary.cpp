// nary.cpp — issue 26: opf_reduce_local_n, OPF_AVG, PreMulSum and the
// round-once mode, through the public API.
//
//  1. every (op, type) but AVG: bit for bit the chain of opf_reduce_local3
//     calls (any NaN matches any NaN), k = 1..8 and OPF_REDUCE_N_MAX, dst apart
//     and dst == srcs[i] for several i, sources at odd addresses, guard bytes
//     right after the true extent;
//  2. every provider's n-ary kernels (every form) against the base's, at
//     lengths that reach SIMD bodies and tails;
//  3. AVG, PreMulSum and round-once against references written here from the
//     rules (opframe.h), integers' overflow-free mean included;
//  4. derived types (gaps untouched, as the chain leaves them);
//  5. every error: its code, and dst unchanged.
// OPF_CHECK_DEPTH=deep runs more lengths and seeds. --providers-only runs
// section 2 alone (the cross checks under QEMU: every form of every
// component's n-ary kernels, in seconds).
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include <opframe/introspect.h>
#include <opframe/opframe.h>

#include "base/kernels.h"
#include "base/storage.h"

namespace {

int failures = 0, checks = 0;
std::map<int, int> failures_at;   // the first three failures of each check are shown
#define EXPECT(cond, ...)                                                                   \
    do {                                                                                    \
        ++checks;                                                                           \
        if (!(cond)) {                                                                      \
            ++failures;                                                                     \
            if (failures_at[__LINE__]++ < 3) {                                              \
                std::fprintf(stderr, "%s:%d: FAILED %s: ", __FILE__, __LINE__, #cond);      \
                std::fprintf(stderr, __VA_ARGS__);                                          \
                std::fprintf(stderr, "\n");                                                 \
            }                                                                               \
        }                                                                                   \
    } while (0)

std::mt19937_64 rng(26);
using Bytes = std::vector<unsigned char>;

Bytes random_bytes(std::size_t n)
{
    Bytes b(n);
    for (std::size_t i = 0; i < n; i += 8) {   // eight bytes per draw
        const uint64_t word = rng();
        std::memcpy(b.data() + i, &word, std::min<std::size_t>(8, n - i));
    }
    return b;
}

opf_datatype_t type_of(int id) { return (opf_datatype_t)(uintptr_t)id; }
opf_op_t op_of(int id) { return (opf_op_t)(uintptr_t)id; }

// Bytes of `n` elements of a type up to the true end of the last one.
std::size_t span_of(opf_datatype_t t, opf_count_t n)
{
    opf_aint_t lb, extent, tlb, textent;
    opf_type_get_extent(t, &lb, &extent);
    opf_type_get_true_extent(t, &tlb, &textent);
    return n ? std::size_t((n - 1) * extent + tlb + textent) : 0;
}

int kt_of(opf_datatype_t t)
{
    int kt = -1;
    opf_type_kernel_type(t, &kt);
    return kt;
}

opf_count_t first_diff(int kt, const void *a, const void *b, opf_count_t n)
{
    opf_count_t at = -2;
    opf_kernel_type_first_difference(kt, a, b, n, &at);
    return at;
}

// The chain: dst = srcs[0] op srcs[1], then dst = dst op srcs[j].
void chain(const std::vector<const void *> &s, void *dst, opf_count_t n, opf_datatype_t t, opf_op_t op)
{
    if (s.size() == 1) {
        opf_reduce_local(s[0], dst, n, t, OPF_REPLACE);
        return;
    }
    opf_reduce_local3(s[0], s[1], dst, n, t, op);
    for (std::size_t j = 2; j < s.size(); ++j) opf_reduce_local3(dst, s[j], dst, n, t, op);
}

constexpr int kGuard = 64;

// 1. One (op, type): n-ary against the chain, for each k and dst placement.
void check_chain(int op_id, int type_id, opf_count_t n, bool odd)
{
    const opf_datatype_t t = type_of(type_id);
    const opf_op_t op = op_of(op_id);
    const int kt = kt_of(t);
    const std::size_t bytes = span_of(t, n);
    // The MX block types' n-ary result is quantized once, not the chain
    // (opframe(7)): here only k = 1 (a copy) and k = 2 (the 3-buffer call);
    // test/conformance and test/mx_exhaustive check the rest.
    const bool block = opf::base::kernel_type_is_block(kt);
    for (int k : {1, 2, 3, 4, 5, 6, 7, 8, OPF_REDUCE_N_MAX}) {
        if (block && k > 2 && op_id != OPF_OPID_REPLACE && op_id != OPF_OPID_NO_OP) continue;
        // sources at an odd address when `odd` (the base serves them)
        std::vector<Bytes> store;
        std::vector<const void *> s;
        for (int j = 0; j < k; ++j) store.push_back(random_bytes(bytes + 1));
        for (int j = 0; j < k; ++j) s.push_back(store[std::size_t(j)].data() + (odd ? 1 : 0));
        Bytes expect(bytes + kGuard, 0xa5), got(bytes + kGuard, 0xa5);
        chain(s, expect.data(), n, t, op);
        int rc = opf_reduce_local_n(s.data(), k, got.data(), n, t, op);
        EXPECT(rc == OPF_SUCCESS, "%s %s k=%d: rc %d (%s)", opf_op_name(op), opf_type_name(t), k, rc, opf_last_error());
        opf_count_t at = first_diff(kt, expect.data(), got.data(), n);
        EXPECT(at == -1, "%s %s k=%d n=%lld%s: element %lld differs from the chain", opf_op_name(op), opf_type_name(t), k,
               (long long)n, odd ? " odd" : "", (long long)at);
        bool guard_ok = true;
        for (int g = 0; g < kGuard; ++g) guard_ok &= got[bytes + std::size_t(g)] == 0xa5;
        EXPECT(guard_ok, "%s %s k=%d: a byte after the true extent was written", opf_op_name(op), opf_type_name(t), k);
        // dst == srcs[i] for several i (the chain computed on fresh copies)
        for (int i : {0, 1, k / 2, k - 1}) {
            if (i >= k) continue;
            std::vector<Bytes> copy = store;
            std::vector<const void *> c;
            for (int j = 0; j < k; ++j) c.push_back(copy[std::size_t(j)].data() + (odd ? 1 : 0));
            auto *dst = const_cast<void *>(c[std::size_t(i)]);
            rc = opf_reduce_local_n(c.data(), k, dst, n, t, op);
            at = first_diff(kt, expect.data(), dst, n);
            EXPECT(rc == OPF_SUCCESS && at == -1, "%s %s k=%d dst=srcs[%d]: rc %d, element %lld differs", opf_op_name(op),
                   opf_type_name(t), k, i, rc, (long long)at);
        }
    }
}

// Buffers that end right before a PROT_NONE page: at(bytes) is where data of
// that many bytes (a true extent) starts, so that a kernel reading or writing
// past it faults. Mapped once, reused by every check.
class Fenced {
public:
    static constexpr std::size_t kMax = 512 * 1024;
    Fenced()
    {
        page_ = std::size_t(sysconf(_SC_PAGESIZE));
        size_ = (kMax + page_ - 1) / page_ * page_ + page_;
        base_ = static_cast<unsigned char *>(mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
        mprotect(base_ + size_ - page_, page_, PROT_NONE);
    }
    ~Fenced() { munmap(base_, size_); }
    Fenced(const Fenced &) = delete;
    unsigned char *at(std::size_t bytes) const { return base_ + size_ - page_ - bytes; }

private:
    unsigned char *base_;
    std::size_t page_, size_;
};

// Bytes of n elements of kernel type kt up to the last one's data (a
// predefined datatype of that kernel type says where its data ends).
std::size_t true_bytes(int kt, opf_count_t n)
{
    for (int id = 1; id < OPF_TYPEID_COUNT_; ++id)
        if (kt_of(type_of(id)) == kt) return span_of(type_of(id), n);
    return std::size_t(n * opf_kernel_type_extent(kt));
}

// 2. Each provider's n-ary kernels against the base's, on fenced buffers.
void check_providers(const std::vector<std::string> &providers, int deep)
{
    const std::vector<opf_count_t> quick_lengths = {1, 3, 17, 64, 129, 1000, 3000};
    std::vector<opf_count_t> lengths = quick_lengths;
    if (deep) lengths.insert(lengths.end(), {2, 31, 255, 4097, 10000});
    static Fenced fences[OPF_REDUCE_N_MAX + 1];   // the inputs, then out
    int compared = 0;
    for (int op_id = 1; op_id < OPF_OPID_COUNT; ++op_id)
        for (int kt = 0; opf_kernel_type_name(kt); ++kt)
            for (int form = 0; form < OPF_FORM_COUNT; ++form) {
                opf_kernel_n_fn *ref = nullptr;
                if (opf_slot_kernel_n(op_id, kt, form, "base", 0, &ref) != OPF_SUCCESS) continue;
                const int ext = opf_kernel_type_extent(kt);
                // The MX block types (33 bytes and 32 values an element,
                // microseconds a block on the base's exact path) keep the
                // quick form in the deep one, as in the conformance engine:
                // their deep lengths at 64 inputs cost minutes of CI.
                const bool deep_here = deep && !opf::base::kernel_type_is_block(kt);
                for (const std::string &p : providers)
                    for (opf_count_t n : deep_here ? lengths : quick_lengths) {
                        opf_kernel_n_fn *fn = nullptr;
                        if (opf_slot_kernel_n(op_id, kt, form, p.c_str(), n, &fn) != OPF_SUCCESS) break;
                        ++compared;
                        const Bytes scalar = random_bytes(std::size_t(ext));
                        const std::size_t bytes = true_bytes(kt, n);
                        for (int k : {1, 2, 3, 8, OPF_REDUCE_N_MAX}) {
                            if (k == OPF_REDUCE_N_MAX && n > 129 && !deep_here) continue;   // the limit at short lengths
                            std::vector<Bytes> a;
                            for (int j = 0; j < k; ++j) a.push_back(random_bytes(bytes));
                            std::vector<const void *> pa, pb;
                            for (int j = 0; j < k; ++j) {
                                std::memcpy(fences[std::size_t(j)].at(bytes), a[std::size_t(j)].data(), bytes);
                                pa.push_back(a[std::size_t(j)].data());
                                pb.push_back(fences[std::size_t(j)].at(bytes));
                            }
                            Bytes expect(std::size_t(n * ext));
                            unsigned char *got = fences[OPF_REDUCE_N_MAX].at(bytes);
                            ref(pa.data(), k, expect.data(), n, scalar.data());
                            fn(pb.data(), k, got, n, scalar.data());
                            opf_count_t at = first_diff(kt, expect.data(), got, n);
                            EXPECT(at == -1, "%s %s form %d provider %s n=%lld k=%d: element %lld differs from the base",
                                   opf_op_name(op_of(op_id)), opf_kernel_type_name(kt), form, p.c_str(), (long long)n, k,
                                   (long long)at);
                            // in place: out is the last input
                            auto *last = const_cast<void *>(pb.back());
                            fn(pb.data(), k, last, n, scalar.data());
                            at = first_diff(kt, expect.data(), last, n);
                            EXPECT(at == -1, "%s %s form %d provider %s n=%lld k=%d in place: element %lld differs",
                                   opf_op_name(op_of(op_id)), opf_kernel_type_name(kt), form, p.c_str(), (long long)n, k,
                                   (long long)at);
                        }
                    }
            }
    std::printf("providers: %d (slot, form, provider, length) kernels compared with the base\n", compared);
}

// ---- 3. references from the rules -------------------------------------------
using opf::base::BFloat16;
using opf::base::Float8E4M3;
using opf::base::Float8E5M2;
using opf::base::Half;
float widen(Half h) { return opf::base::to_float(h); }
float widen(BFloat16 b) { return opf::base::to_float(b); }
float widen(Float8E4M3 b) { return opf::base::to_float(b); }
float widen(Float8E5M2 b) { return opf::base::to_float(b); }
// The library's roundings (test/fp8_exhaustive and the 16-bit exhaustive
// runs prove them against independent references).
template <class N> N round_to(float f)
{
    if constexpr (std::is_same_v<N, Half>) return opf::base::to_half(f);
    else if constexpr (std::is_same_v<N, BFloat16>) return opf::base::to_bfloat16(f);
    else if constexpr (std::is_same_v<N, Float8E4M3>) return opf::base::to_float8_e4m3(f);
    else return opf::base::to_float8_e5m2(f);
}

// AVG of integers: the exact mean rounded toward zero (computed in 128 bits).
template <class T> void check_avg_int(opf_datatype_t t)
{
    const opf_count_t n = 200;
    for (int k : {1, 2, 3, 7, OPF_REDUCE_N_MAX}) {
        std::vector<std::vector<T>> x(static_cast<std::size_t>(k), std::vector<T>(n));
        for (auto &v : x)
            for (opf_count_t i = 0; i < n; ++i) {
                // extremes often: overflow-free averaging is the point
                const uint64_t r = rng();
                v[std::size_t(i)] = (r & 3) == 0 ? std::numeric_limits<T>::max()
                                  : (r & 3) == 1 ? std::numeric_limits<T>::min()
                                                 : T(r >> 2);
            }
        std::vector<const void *> s;
        for (auto &v : x) s.push_back(v.data());
        std::vector<T> got(n);
        EXPECT(opf_reduce_local_n(s.data(), k, got.data(), n, t, OPF_AVG) == OPF_SUCCESS, "AVG %s: %s", opf_type_name(t),
               opf_last_error());
        for (opf_count_t i = 0; i < n; ++i) {
            __int128 sum = 0;
            for (int j = 0; j < k; ++j) sum += x[std::size_t(j)][std::size_t(i)];
            const T want = T(sum / k);   // toward zero
            EXPECT(got[std::size_t(i)] == want, "AVG %s k=%d element %lld: got %lld, want %lld", opf_type_name(t), k,
                   (long long)i, (long long)got[std::size_t(i)], (long long)want);
        }
        if (k == 2) {   // the 3-buffer call is the mean of two
            std::vector<T> two(n);
            opf_reduce_local3(s[0], s[1], two.data(), n, t, OPF_AVG);
            EXPECT(std::memcmp(two.data(), got.data(), n * sizeof(T)) == 0, "AVG %s: 3-buffer differs from k = 2",
                   opf_type_name(t));
        }
    }
}

#ifdef __SIZEOF_INT128__
// INTEGER16: values where any wider sum overflows.
void check_avg_int128()
{
    const __int128 max = (__int128)(((unsigned __int128)1 << 127) - 1), min = -max - 1;
    struct Case { std::vector<__int128> x; __int128 mean; };
    const Case cases[] = {{{max, max, max}, max}, {{min, min}, min}, {{max, min}, 0}, {{min, min + 1}, min + 1},
                          {{max, max - 1}, max - 1}, {{-3, -4}, -3}, {{3, 4}, 3}, {{min, -1, min}, min / 3 * 2 - 0}};
    int kt = kt_of(OPF_INTEGER16);
    if (kt < 0) return;
    for (const Case &c : cases) {
        std::vector<const void *> s;
        for (const __int128 &v : c.x) s.push_back(&v);
        __int128 got = 0;
        opf_reduce_local_n(s.data(), int(s.size()), &got, 1, OPF_INTEGER16, OPF_AVG);
        __int128 want = c.mean;
        if (c.x.size() == 3 && c.x[1] == -1) {   // (2 min - 1) / 3 toward zero: min = -2^127
            // 2^128 + 1 = 3 * 113427455640312821154458202477256070486 - 1... computed as (min/3)*2 + rest
            want = min / 3 * 2 + ((min % 3) * 2 - 1) / 3;
        }
        EXPECT(got == want, "AVG INTEGER16 case of %zu values: got %lld..., want %lld...", c.x.size(), (long long)(got >> 64),
               (long long)(want >> 64));
    }
}
#endif

// AVG, PreMulSum and round-once of real types, the accumulator type A
// (T itself, or float for a narrow T) spelled out.
template <class T> struct RealRef {
    static T from(double d) { return T(d); }
};
template <class T> T random_real()
{
    std::uniform_real_distribution<double> d(-1000, 1000);
    return T(d(rng));
}
template <class N> N random_narrow()
{
    std::uniform_real_distribution<float> d(-100, 100);
    return round_to<N>(d(rng));
}

template <class T> void check_real(opf_datatype_t t, const T &scalar)
{
    const opf_count_t n = 100;
    for (int k : {1, 2, 5, OPF_REDUCE_N_MAX}) {
        std::vector<std::vector<T>> x(static_cast<std::size_t>(k), std::vector<T>(n));
        for (auto &v : x)
            for (auto &e : v) e = random_real<T>();
        std::vector<const void *> s;
        for (auto &v : x) s.push_back(v.data());
        std::vector<T> avg(n), pm(n), once(n);
        opf_op_t premul = OPF_OP_NULL;
        EXPECT(opf_op_create_premul(&scalar, t, &premul) == OPF_SUCCESS, "create_premul %s: %s", opf_type_name(t),
               opf_last_error());
        EXPECT(opf_reduce_local_n(s.data(), k, avg.data(), n, t, OPF_AVG) == OPF_SUCCESS, "%s", opf_last_error());
        EXPECT(opf_reduce_local_n(s.data(), k, pm.data(), n, t, premul) == OPF_SUCCESS, "%s", opf_last_error());
        EXPECT(opf_reduce_local_n_mode(s.data(), k, once.data(), n, t, OPF_AVG, OPF_ROUND_ONCE) == OPF_SUCCESS, "%s",
               opf_last_error());
        for (opf_count_t i = 0; i < n; ++i) {
            T sum = x[0][std::size_t(i)], psum = scalar * x[0][std::size_t(i)];
            for (int j = 1; j < k; ++j) {
                sum = sum + x[std::size_t(j)][std::size_t(i)];
                psum = psum + scalar * x[std::size_t(j)][std::size_t(i)];
            }
            const T mean = sum / T(k);
            EXPECT(std::memcmp(&avg[std::size_t(i)], &mean, sizeof(T) > 10 ? 10 : sizeof(T)) == 0, "AVG %s k=%d element %lld",
                   opf_type_name(t), k, (long long)i);
            EXPECT(std::memcmp(&once[std::size_t(i)], &mean, sizeof(T) > 10 ? 10 : sizeof(T)) == 0,
                   "AVG %s k=%d round-once differs from the default (not a narrow type)", opf_type_name(t), k);
            EXPECT(std::memcmp(&pm[std::size_t(i)], &psum, sizeof(T) > 10 ? 10 : sizeof(T)) == 0,
                   "PreMulSum %s k=%d element %lld", opf_type_name(t), k, (long long)i);
        }
        opf_op_free(&premul);
    }
}

template <class R> void check_complex(opf_datatype_t t)
{
    using C = std::complex<R>;   // layout-compatible with C's complex
    const opf_count_t n = 50;
    const C scalar(R(1.5), R(-0.25));
    opf_op_t premul = OPF_OP_NULL;
    EXPECT(opf_op_create_premul(&scalar, t, &premul) == OPF_SUCCESS, "%s", opf_last_error());
    for (int k : {1, 2, 6}) {
        std::vector<std::vector<C>> x(static_cast<std::size_t>(k), std::vector<C>(n));
        for (auto &v : x)
            for (auto &e : v) e = C(random_real<R>(), random_real<R>());
        std::vector<const void *> s;
        for (auto &v : x) s.push_back(v.data());
        std::vector<C> avg(n), pm(n);
        opf_reduce_local_n(s.data(), k, avg.data(), n, t, OPF_AVG);
        opf_reduce_local_n(s.data(), k, pm.data(), n, t, premul);
        for (opf_count_t i = 0; i < n; ++i) {
            auto mul = [&](C a, C b) { return C(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()); };
            C sum = x[0][std::size_t(i)], psum = mul(scalar, x[0][std::size_t(i)]);
            for (int j = 1; j < k; ++j) {
                sum = C(sum.real() + x[std::size_t(j)][std::size_t(i)].real(), sum.imag() + x[std::size_t(j)][std::size_t(i)].imag());
                const C p = mul(scalar, x[std::size_t(j)][std::size_t(i)]);
                psum = C(psum.real() + p.real(), psum.imag() + p.imag());
            }
            const C mean(sum.real() / R(k), sum.imag() / R(k));
            EXPECT(avg[std::size_t(i)] == mean, "AVG %s k=%d element %lld", opf_type_name(t), k, (long long)i);
            EXPECT(pm[std::size_t(i)] == psum, "PreMulSum %s k=%d element %lld", opf_type_name(t), k, (long long)i);
        }
    }
    opf_op_free(&premul);
}

// Narrow types: the chain rounds each step; round-once sums in float; AVG
// rounds once in both modes (inputs scaled by 2^-6, summed in float).
template <class N> void check_narrow(opf_datatype_t t)
{
    const opf_count_t n = 300;
    const N scalar = round_to<N>(0.375f);
    opf_op_t premul = OPF_OP_NULL;
    EXPECT(opf_op_create_premul(&scalar, t, &premul) == OPF_SUCCESS, "%s", opf_last_error());
    auto same = [](N a, N b) { return a.bits == b.bits || (std::isnan(widen(a)) && std::isnan(widen(b))); };
    for (int k : {1, 2, 3, 8, 33, OPF_REDUCE_N_MAX}) {
        std::vector<std::vector<N>> x(static_cast<std::size_t>(k), std::vector<N>(n));
        for (auto &v : x)
            for (auto &e : v) e = random_narrow<N>();
        std::vector<const void *> s;
        for (auto &v : x) s.push_back(v.data());
        std::vector<N> sum_c(n), sum_o(n), avg_c(n), avg_o(n), pm_c(n), pm_o(n), prod_o(n), prod_c(n);
        opf_reduce_local_n(s.data(), k, sum_c.data(), n, t, OPF_SUM);
        opf_reduce_local_n_mode(s.data(), k, sum_o.data(), n, t, OPF_SUM, OPF_ROUND_ONCE);
        opf_reduce_local_n(s.data(), k, avg_c.data(), n, t, OPF_AVG);
        opf_reduce_local_n_mode(s.data(), k, avg_o.data(), n, t, OPF_AVG, OPF_ROUND_ONCE);
        opf_reduce_local_n(s.data(), k, pm_c.data(), n, t, premul);
        opf_reduce_local_n_mode(s.data(), k, pm_o.data(), n, t, premul, OPF_ROUND_ONCE);
        opf_reduce_local_n(s.data(), k, prod_c.data(), n, t, OPF_PROD);
        opf_reduce_local_n_mode(s.data(), k, prod_o.data(), n, t, OPF_PROD, OPF_ROUND_ONCE);
        for (opf_count_t i = 0; i < n; ++i) {
            const std::size_t e = std::size_t(i);
            N chain_sum = x[0][e], chain_pm = round_to<N>(widen(scalar) * widen(x[0][e]));
            float fsum = widen(x[0][e]), fpm = widen(scalar) * widen(x[0][e]);
            float scaled = widen(x[0][e]) * 0x1p-6f;   // AVG's one rule: scaled by 2^-6, summed in float
            for (int j = 1; j < k; ++j) {
                scaled += widen(x[std::size_t(j)][e]) * 0x1p-6f;
                chain_sum = round_to<N>(widen(chain_sum) + widen(x[std::size_t(j)][e]));
                chain_pm = round_to<N>(widen(chain_pm) + widen(round_to<N>(widen(scalar) * widen(x[std::size_t(j)][e]))));
                fsum += widen(x[std::size_t(j)][e]);
                fpm += widen(scalar) * widen(x[std::size_t(j)][e]);
            }
            EXPECT(same(sum_c[e], chain_sum), "SUM %s k=%d element %lld (chain)", opf_type_name(t), k, (long long)i);
            EXPECT(same(sum_o[e], round_to<N>(fsum)), "SUM %s k=%d element %lld (once)", opf_type_name(t), k, (long long)i);
            const N mean = round_to<N>(scaled / float(k) * 0x1p6f);   // rounded once, in both modes
            EXPECT(same(avg_c[e], mean), "AVG %s k=%d element %lld (chain)", opf_type_name(t), k, (long long)i);
            EXPECT(same(avg_o[e], mean), "AVG %s k=%d element %lld (once)", opf_type_name(t), k, (long long)i);
            EXPECT(same(pm_c[e], chain_pm), "PreMulSum %s k=%d element %lld (chain)", opf_type_name(t), k, (long long)i);
            EXPECT(same(pm_o[e], round_to<N>(fpm)), "PreMulSum %s k=%d element %lld (once)", opf_type_name(t), k,
                   (long long)i);
            EXPECT(same(prod_o[e], prod_c[e]), "PROD %s k=%d: round-once must not change PROD", opf_type_name(t), k);
        }
        if (k == 2) {   // 2- and 3-buffer AVG / PreMulSum are the k = 2 n-ary call
            std::vector<N> three(n), two = x[1];
            opf_reduce_local3(s[0], s[1], three.data(), n, t, OPF_AVG);
            EXPECT(std::memcmp(three.data(), avg_c.data(), n * sizeof(N)) == 0, "AVG %s: 3-buffer differs from k = 2",
                   opf_type_name(t));
            opf_reduce_local(s[0], two.data(), n, t, premul);
            EXPECT(std::memcmp(two.data(), pm_c.data(), n * sizeof(N)) == 0, "PreMulSum %s: 2-buffer differs from k = 2",
                   opf_type_name(t));
        }
    }
    opf_op_free(&premul);
}

// 4. Derived types: a vector with gaps and a resized (padded) contiguous.
void check_derived()
{
    opf_datatype_t vec = OPF_DATATYPE_NULL, pairs = OPF_DATATYPE_NULL;
    opf_type_vector(3, 2, 3, OPF_FLOAT, &vec);
    opf_type_commit(&vec);
    opf_type_create_resized(OPF_DOUBLE_INT, 0, 24, &pairs);
    opf_type_commit(&pairs);
    for (opf_datatype_t t : {vec, pairs})
        for (opf_op_t op : {OPF_SUM, OPF_MAX, OPF_MAXLOC, OPF_REPLACE}) {
            int valid = 0;
            opf_op_valid_for_type(op, t, &valid);
            if (!valid) continue;
            opf_aint_t lb, extent;
            opf_type_get_extent(t, &lb, &extent);
            const opf_count_t n = 5;
            const std::size_t bytes = std::size_t(n * extent);
            for (int k : {1, 2, 3, 8}) {
                std::vector<Bytes> x;
                std::vector<const void *> s;
                for (int j = 0; j < k; ++j) x.push_back(random_bytes(bytes));
                for (auto &v : x) s.push_back(v.data());
                const Bytes start = random_bytes(bytes);   // the gaps must keep these bytes
                Bytes expect = start, got = start;
                chain(s, expect.data(), n, t, op);
                EXPECT(opf_reduce_local_n(s.data(), k, got.data(), n, t, op) == OPF_SUCCESS, "%s", opf_last_error());
                // values: the same-value rule per leaf (floats may be NaN); bytes of the gaps: equal
                const int kt = kt_of(t) >= 0 ? kt_of(t) : -1;
                bool same = expect == got;
                if (!same && kt >= 0 && t == vec) {
                    same = true;
                    for (opf_count_t i = 0; i < n; ++i)
                        for (int b = 0; b < 3; ++b) {
                            const std::size_t at = std::size_t(i * extent + b * 12);
                            same &= first_diff(kt, expect.data() + at, got.data() + at, 2) == -1;
                            if (b < 2) same &= std::memcmp(expect.data() + at + 8, got.data() + at + 8, 4) == 0;
                        }
                }
                if (!same && t == pairs) {   // each item: its pair by the same-value rule, then its 12 bytes past the data
                    same = true;
                    for (opf_count_t i = 0; i < n; ++i) {
                        const std::size_t at = std::size_t(i * extent);
                        same &= first_diff(kt_of(OPF_DOUBLE_INT), expect.data() + at, got.data() + at, 1) == -1 &&
                                std::memcmp(expect.data() + at + 12, got.data() + at + 12, 12) == 0;
                    }
                }
                EXPECT(same, "derived %s %s k=%d differs from the chain", opf_type_name(t), opf_op_name(op), k);
            }
        }
    opf_type_free(&vec);
    opf_type_free(&pairs);
}

// 5. Errors: the code, and nothing written.
void check_errors()
{
    float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, d[4] = {9, 9, 9, 9};
    const float d0[4] = {9, 9, 9, 9};
    const void *s[OPF_REDUCE_N_MAX + 1];
    for (auto &p : s) p = a;
    s[1] = b;
    const void *with_null[3] = {a, nullptr, b};
    opf_op_t premul = OPF_OP_NULL;
    const float two = 2;
    opf_op_create_premul(&two, OPF_FLOAT, &premul);
    struct Case {
        const char *what;
        int rc, expected;
    } cases[] = {
        {"nsrc 0", opf_reduce_local_n(s, 0, d, 4, OPF_FLOAT, OPF_SUM), OPF_ERR_ARG},
        {"nsrc -1", opf_reduce_local_n(s, -1, d, 4, OPF_FLOAT, OPF_SUM), OPF_ERR_ARG},
        {"nsrc > limit", opf_reduce_local_n(s, OPF_REDUCE_N_MAX + 1, d, 4, OPF_FLOAT, OPF_SUM), OPF_ERR_ARG},
        {"nsrc 0, count 0", opf_reduce_local_n(s, 0, d, 0, OPF_FLOAT, OPF_SUM), OPF_ERR_ARG},
        {"srcs NULL", opf_reduce_local_n(nullptr, 2, d, 4, OPF_FLOAT, OPF_SUM), OPF_ERR_BUFFER},
        {"srcs[1] NULL", opf_reduce_local_n(with_null, 3, d, 4, OPF_FLOAT, OPF_SUM), OPF_ERR_BUFFER},
        {"dst NULL", opf_reduce_local_n(s, 2, nullptr, 4, OPF_FLOAT, OPF_SUM), OPF_ERR_BUFFER},
        {"negative count", opf_reduce_local_n(s, 2, d, -1, OPF_FLOAT, OPF_SUM), OPF_ERR_COUNT},
        {"op undefined on the type", opf_reduce_local_n(s, 2, d, 4, OPF_FLOAT, OPF_BAND), OPF_ERR_OP},
        {"AVG on a pair type", opf_reduce_local_n(s, 2, d, 2, OPF_2INT, OPF_AVG), OPF_ERR_OP},
        {"AVG on LOGICAL", opf_reduce_local_n(s, 2, d, 2, OPF_LOGICAL, OPF_AVG), OPF_ERR_OP},
        {"OP_NULL", opf_reduce_local_n(s, 2, d, 4, OPF_FLOAT, OPF_OP_NULL), OPF_ERR_OP},
        {"DATATYPE_NULL", opf_reduce_local_n(s, 2, d, 4, OPF_DATATYPE_NULL, OPF_SUM), OPF_ERR_TYPE},
        {"bad mode", opf_reduce_local_n_mode(s, 2, d, 4, OPF_FLOAT, OPF_SUM, 7), OPF_ERR_ARG},
        {"PreMulSum on another type", opf_reduce_local_n(s, 2, d, 2, OPF_DOUBLE, premul), OPF_ERR_OP},
        {"PreMulSum on another type, count 0", opf_reduce_local_n(s, 2, d, 0, OPF_INT, premul), OPF_ERR_OP},
        {"PreMulSum 3-buffer on another type", opf_reduce_local3(a, b, d, 4, OPF_INT, premul), OPF_ERR_OP},
        {"PreMulSum 2-buffer on another type", opf_reduce_local(a, d, 4, OPF_INT, premul), OPF_ERR_OP},
    };
    for (const Case &c : cases) {
        EXPECT(c.rc == c.expected, "%s: rc %d, expected %d", c.what, c.rc, c.expected);
    }
    EXPECT(std::memcmp(d, d0, sizeof d) == 0, "an erroneous call wrote dst");
    EXPECT(opf_reduce_local_n(s, 2, nullptr, 0, OPF_FLOAT, OPF_SUM) == OPF_SUCCESS, "count 0 with NULL buffers: %s",
           opf_last_error());
    // opf_op_create_premul's own errors
    opf_op_t op = OPF_SUM;
    const double scalar = 1;
    for (opf_datatype_t bad : {OPF_FLOAT_INT, OPF_2INT, OPF_LOGICAL, OPF_BYTE, OPF_C_BOOL, OPF_DATATYPE_NULL}) {
        const int rc = opf_op_create_premul(&scalar, bad, &op);
        EXPECT(rc == OPF_ERR_TYPE && op == OPF_SUM, "create_premul on %s: rc %d (%s)", opf_type_name(bad) ? opf_type_name(bad) : "NULL",
               rc, opf_last_error());
    }
    EXPECT(opf_op_create_premul(nullptr, OPF_FLOAT, &op) == OPF_ERR_ARG && op == OPF_SUM, "NULL scalar");
    EXPECT(opf_op_create_premul(&scalar, OPF_FLOAT, nullptr) == OPF_ERR_ARG, "NULL op");
    EXPECT(std::strcmp(opf_op_name(premul), "PREMUL_SUM") == 0, "name %s", opf_op_name(premul));
    EXPECT(std::strcmp(opf_op_name(OPF_AVG), "AVG") == 0, "name %s", opf_op_name(OPF_AVG));
    int commute = 0;
    EXPECT(opf_op_commutative(premul, &commute) == OPF_SUCCESS && commute == 1, "PreMulSum is commutative");
    EXPECT(opf_op_free(&premul) == OPF_SUCCESS && premul == OPF_OP_NULL, "free");
}

// User ops: the chain of callbacks, dst read late included.
void user_sum(void *in, void *inout, int *len, opf_datatype_t *)
{
    for (int i = 0; i < *len; ++i) static_cast<int *>(inout)[i] = static_cast<int *>(in)[i] * 3 - static_cast<int *>(inout)[i];
}
void check_user()
{
    opf_op_t op;
    opf_op_create(user_sum, 0, &op);
    for (int k : {1, 2, 3, 6}) {
        for (int i : {-1, 0, 1, k - 1}) {
            std::vector<std::vector<int>> x(static_cast<std::size_t>(k), std::vector<int>(9));
            for (auto &v : x)
                for (auto &e : v) e = int(rng() % 100);
            std::vector<const void *> s;
            for (auto &v : x) s.push_back(v.data());
            std::vector<int> expect(9), got(9);
            chain(s, expect.data(), 9, OPF_INT, op);
            int *dst = i < 0 || i >= k ? got.data() : x[std::size_t(i)].data();
            EXPECT(opf_reduce_local_n(s.data(), k, dst, 9, OPF_INT, op) == OPF_SUCCESS, "%s", opf_last_error());
            EXPECT(std::memcmp(expect.data(), dst, sizeof(int) * 9) == 0, "user op k=%d dst=%d differs from the chain", k, i);
        }
    }
    opf_op_free(&op);
}

} // namespace

int main(int argc, char **argv)
{
    const char *depth = std::getenv("OPF_CHECK_DEPTH");
    const int deep = depth && std::strcmp(depth, "deep") == 0;
    std::vector<std::string> providers;
    for (int i = 0; i < opf_component_count(); ++i) {
        opf_component_info_t info;
        if (opf_component_describe(i, &info) == OPF_SUCCESS && std::strncmp(info.status, "available", 9) == 0)
            providers.push_back(info.name);
    }
    std::printf("components:");
    for (auto &p : providers) std::printf(" %s", p.c_str());
    std::printf("%s\n", providers.empty() ? " none (the base only)" : "");
    if (argc > 1 && std::strcmp(argv[1], "--providers-only") == 0) {
        check_providers(providers, deep);
        std::printf("nary: %d checks, %d failed\n", checks, failures);
        return failures ? 1 : 0;
    }

    for (int type_id = 1; type_id < OPF_TYPEID_COUNT_; ++type_id) {
        if (kt_of(type_of(type_id)) < 0) continue;
        for (int op_id = 1; op_id < OPF_OPID_COUNT; ++op_id) {
            int valid = 0;
            if (op_id == OPF_OPID_AVG || opf_op_valid_for_type(op_of(type_id == 0 ? 0 : op_id), type_of(type_id), &valid) ||
                !valid)
                continue;
            for (opf_count_t n : deep ? std::vector<opf_count_t>{1, 7, 64, 300} : std::vector<opf_count_t>{7, 70})
                check_chain(op_id, type_id, n, false);
            check_chain(op_id, type_id, 13, true);
        }
    }
    // Slots whose n-ary calls compose a component's 3-buffer kernel (it wins
    // the 3-buffer slot and offers no n-ary kernel): the checks above ran them.
    int composed = 0;
    for (int op_id = 1; op_id < OPF_OPID_COUNT; ++op_id)
        for (int kt = 0; opf_kernel_type_name(kt); ++kt) {
            char tiers[512];   // "NAME(chain)": NAME's 3-buffer kernel composed (opf_slot_tiers_text_n)
            composed += opf_slot_tiers_text_n(op_id, kt, OPF_FORM_N, tiers, sizeof tiers) == OPF_SUCCESS &&
                        std::strstr(tiers, "(chain)") != nullptr;
        }
    std::printf("composed: %d slots run a component's 3-buffer kernel once per further input\n", composed);
    providers.push_back("base");   // against itself: the fences catch its over-reads and over-writes
    check_providers(providers, deep);
    check_avg_int<int8_t>(OPF_INT8_T);
    check_avg_int<uint8_t>(OPF_UINT8_T);
    check_avg_int<int16_t>(OPF_INT16_T);
    check_avg_int<uint16_t>(OPF_UINT16_T);
    check_avg_int<int32_t>(OPF_INT32_T);
    check_avg_int<uint32_t>(OPF_UINT32_T);
    check_avg_int<int64_t>(OPF_INT64_T);
    check_avg_int<uint64_t>(OPF_UINT64_T);
#ifdef __SIZEOF_INT128__
    check_avg_int128();
#endif
    check_real<float>(OPF_FLOAT, 0.3f);
    check_real<double>(OPF_DOUBLE, -1.7);
    check_real<long double>(OPF_LONG_DOUBLE, 2.5L);
    check_complex<float>(OPF_C_FLOAT_COMPLEX);
    check_complex<double>(OPF_C_DOUBLE_COMPLEX);
    check_narrow<Half>(OPF_FLOAT16);
    check_narrow<BFloat16>(OPF_BFLOAT16);
    check_narrow<Float8E4M3>(OPF_FLOAT8_E4M3);
    check_narrow<Float8E5M2>(OPF_FLOAT8_E5M2);
    check_derived();
    check_errors();
    check_user();
    std::printf("nary: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
