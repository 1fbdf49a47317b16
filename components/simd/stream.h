// stream.h — the streaming tier of the SIMD components: simd.h's plain
// kernels with non-temporal stores of the output, for buffers too large to
// stay in the last-level cache (<isa>_stream_kernels.cpp, built with the
// ISA's flags; offered by stream_offers.h above a size threshold).
//
// Why: a normal store of a line that is not in the cache first reads it
// (read-for-ownership), so a 3-buffer call that misses the cache moves four
// lines per output line: in1, in2, out read, out written. A non-temporal
// store writes the line without reading it (three lines), and leaves the
// caches to the inputs. Below the threshold the output would still be in a
// cache for the next call, and a normal store is the right one.
//
// Only the body streams, and only whole registers at a register-aligned
// output address (movntdq and friends need it): the head up to that address
// and the ragged tail run on the ISA's plain kernel (the same results: both
// compute every element by the same rule, each register loaded before the
// same bytes are stored, so out may still be in1 or in2). The families that
// stream are those whose every byte is data and whose compute needs nothing
// from the ISA traits: plain lanes (integers, float, double, complex SUM) and
// complex PROD. An sfence ends each call: non-temporal stores are weakly
// ordered, and the results must be visible, in order, to whoever the caller
// tells that the call returned (another thread of a worker pool, a flag).
#pragma once

#include <immintrin.h>

#include "components/simd/kernels.h"

namespace opf::simd::stream {

template <class F> inline constexpr bool streams = false;
template <class Rule, class Lane, class Op, class T> inline constexpr bool streams<Lanes<Rule, Lane, Op, T>> = true;
template <class Real> inline constexpr bool streams<ComplexProd<Real>> = true;

// compute<Isa> of the families above ignores Isa.
struct AnyIsa {};

template <class V> [[gnu::always_inline]] inline void store_nt(unsigned char *p, V v)
{
#if defined(__AVX512F__)
    if constexpr (sizeof(V) == 64) {
        _mm512_stream_si512(reinterpret_cast<__m512i *>(p), as<__m512i>(v));
        return;
    }
#endif
    static_assert(sizeof(V) == 32 || sizeof(V) == 64, "a 256- or 512-bit register");
    if constexpr (sizeof(V) == 32) _mm256_stream_si256(reinterpret_cast<__m256i *>(p), as<__m256i>(v));
}

// out = in1 op in2 over n elements, `plain` being the ISA's kernel of the slot.
template <class F, std::size_t R>
[[gnu::always_inline]] inline void run(opf_kernel3_fn *plain, const unsigned char *a, const unsigned char *b,
                                       unsigned char *o, opf_count_t n)
{
    using Reg = typename F::template Reg<R>;
    using T = typename F::BaseT;
    static_assert(sizeof(Reg) == R && R % sizeof(T) == 0);
    const std::size_t total = n > 0 ? std::size_t(n) * sizeof(T) : 0;
    const std::size_t head = (R - reinterpret_cast<std::uintptr_t>(o) % R) % R;
    if (head % sizeof(T) || total < head + 4 * R) {   // no aligned body to stream
        plain(a, b, o, n);
        return;
    }
    if (head) plain(a, b, o, opf_count_t(head / sizeof(T)));
    std::size_t i = head;
    for (; i + 4 * R <= total; i += 4 * R) {
#pragma GCC unroll 4
        for (std::size_t k = 0; k < 4; ++k) {
            const std::size_t at = i + k * R;
            store_nt(o + at, F::template compute<AnyIsa>(loadu<Reg>(a + at), loadu<Reg>(b + at)));
        }
    }
    for (; i + R <= total; i += R)
        store_nt(o + i, F::template compute<AnyIsa>(loadu<Reg>(a + i), loadu<Reg>(b + i)));
    if (i < total) plain(a + i, b + i, o + i, opf_count_t((total - i) / sizeof(T)));
    _mm_sfence();
}

template <class F, std::size_t R, const SlotTable &Plain, std::size_t O, std::size_t K>
void kernel3(const void *in1, const void *in2, void *out, opf_count_t n)
{
    run<F, R>(Plain[O][K].fn3, static_cast<const unsigned char *>(in1), static_cast<const unsigned char *>(in2),
              static_cast<unsigned char *>(out), n);
}

// n-ary: out = in[0] op ... op in[k-1] as the plain n-ary kernel
// computes it, the k inputs' registers folded before each non-temporal
// store; head and tail on the plain n-ary kernel. A k-input call that misses
// the cache then moves k + 1 lines per output line, against 3 (k - 1) for
// the chain of streamed 3-buffer calls.
template <class F, std::size_t R, const SlotTable &Plain, std::size_t O, std::size_t K>
void kernel_n(const void *const in[], int k, void *out, opf_count_t n, const void *scalar)
{
    using Reg = typename F::template Reg<R>;
    using T = typename F::BaseT;
    opf_kernel_n_fn *plain = Plain[O][K].fn_n;
    const auto src = reinterpret_cast<const unsigned char *const *>(in);
    auto *o = static_cast<unsigned char *>(out);
    const std::size_t total = n > 0 ? std::size_t(n) * sizeof(T) : 0;
    const std::size_t head = (R - reinterpret_cast<std::uintptr_t>(o) % R) % R;
    if (head % sizeof(T) || total < head + 4 * R) {
        plain(in, k, out, n, scalar);
        return;
    }
    if (head) plain(in, k, out, opf_count_t(head / sizeof(T)), scalar);
    std::size_t i = head;
    for (; i + 4 * R <= total; i += 4 * R) {
        const unsigned char *p = src[0] + i;
        Reg a0 = loadu<Reg>(p), a1 = loadu<Reg>(p + R), a2 = loadu<Reg>(p + 2 * R), a3 = loadu<Reg>(p + 3 * R);
        for (int j = 1; j < k; ++j) {
            p = src[j] + i;
            a0 = F::template compute<AnyIsa>(a0, loadu<Reg>(p));
            a1 = F::template compute<AnyIsa>(a1, loadu<Reg>(p + R));
            a2 = F::template compute<AnyIsa>(a2, loadu<Reg>(p + 2 * R));
            a3 = F::template compute<AnyIsa>(a3, loadu<Reg>(p + 3 * R));
        }
        store_nt(o + i, a0);
        store_nt(o + i + R, a1);
        store_nt(o + i + 2 * R, a2);
        store_nt(o + i + 3 * R, a3);
    }
    if (i < total) {
        const void *rest[OPF_REDUCE_N_MAX];
        for (int j = 0; j < k; ++j) rest[j] = src[j] + i;
        plain(rest, k, o + i, opf_count_t((total - i) / sizeof(T)), scalar);
    }
    _mm_sfence();
}

// The streaming table of an ISA of R-byte registers whose plain table is
// Plain: every slot of a streaming family that Plain serves, 3-buffer only.
// (2-buffer calls read inout, so its lines are in the cache when they are
// written: streaming them saves no read, and measured no gain.)
template <std::size_t R, const SlotTable &Plain> struct Slots {
    template <std::size_t O, std::size_t K> static constexpr SlotFns entry()
    {
        using Op = base::at_t<O, base::Ops>;
        using T = base::at_t<K, base::KernelTypes>;
        using F = family_for<Op, T>;
        if constexpr (std::is_void_v<F>) return {};
        else if constexpr (!streams<F>) return {};
        else return {nullptr, &kernel3<F, R, Plain, O, K>, &kernel_n<F, R, Plain, O, K>};
    }
};
template <std::size_t R, const SlotTable &Plain> constexpr SlotTable table()
{
    return base::make_matrix<SlotFns, Slots<R, Plain>>();
}

} // namespace opf::simd::stream
