// bench_call.cpp — what a small call costs on top of its kernel: the selected
// kernel called directly through a pointer, opframe.h's inline call, and the
// library's entry point (OPF_NO_INLINE_CALLS, dlsym, other languages), in one
// run, medians of 9 interleaved samples of 2^21 calls each, 2- and 3-buffer
// SUM FLOAT on 64-byte-aligned buffers. Built by hand (a benchmark, not a test):
//
//   g++ -std=c++20 -O2 -I include test/bench_call.cpp -o /tmp/bench_call .libs/libopframe.so
//   OPF_MCA_mca_component_path=components/simd/.libs /tmp/bench_call 16 32 64
//
// Each argument is a count of floats (default 16 32 64: 64-256 bytes).
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <opframe/introspect.h>
#include <opframe/kernel.h>
#include <opframe/opframe.h>

namespace {

// Median ns per call of each of the three, their samples interleaved (one of
// each in turn, each after one untimed call), so that a change in the
// machine's speed falls on all three alike. Templates, not std::function:
// the loop around each call is as a caller's would be.
template <class... F> std::array<double, sizeof...(F)> medians_ns(F... calls)
{
    constexpr long n = 1L << 21;
    std::array<std::vector<double>, sizeof...(F)> ns;
    auto sample = [](auto call) {
        call();
        const auto t0 = std::chrono::steady_clock::now();
        for (long i = 0; i < n; ++i) call();
        return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / n;
    };
    for (int s = 0; s < 9; ++s) {
        std::size_t k = 0;
        ((ns[k++].push_back(sample(calls))), ...);
    }
    std::array<double, sizeof...(F)> medians{};
    for (std::size_t k = 0; k < ns.size(); ++k) {
        std::nth_element(ns[k].begin(), ns[k].begin() + 4, ns[k].end());
        medians[k] = ns[k][4];
    }
    return medians;
}

} // namespace

int main(int argc, char **argv)
{
    if (opf_init() != OPF_SUCCESS) return 1;
    std::vector<long> counts;
    for (int i = 1; i < argc; ++i) counts.push_back(std::atol(argv[i]));
    if (counts.empty()) counts = {16, 32, 64};
    auto *a = static_cast<float *>(std::aligned_alloc(64, 1 << 16));
    auto *b = static_cast<float *>(std::aligned_alloc(64, 1 << 16));
    auto *c = static_cast<float *>(std::aligned_alloc(64, 1 << 16));
    std::fill(a, a + (1 << 14), 1.0f), std::fill(b, b + (1 << 14), 0.0f), std::fill(c, c + (1 << 14), 0.0f);
    std::printf("%-7s %-8s %-6s %9s %9s %9s\n", "floats", "kernel", "form", "direct", "inline", "entry");
    for (long n : counts) {
        if (n < 1 || n > (1 << 14)) return 2;
        opf_kernel2_fn *fn2 = nullptr;
        opf_kernel3_fn *fn3 = nullptr;
        const char *p2 = opf_slot_provider(OPF_OPID_SUM, OPF_KT_FLOAT, 2, n);
        const char *p3 = opf_slot_provider(OPF_OPID_SUM, OPF_KT_FLOAT, 3, n);
        opf_kernel3_fn *unused3 = nullptr;
        opf_kernel2_fn *unused2 = nullptr;
        if (opf_slot_kernels(OPF_OPID_SUM, OPF_KT_FLOAT, p2, n, &fn2, &unused3) ||
            opf_slot_kernels(OPF_OPID_SUM, OPF_KT_FLOAT, p3, n, &unused2, &fn3))
            return 1;
        opf_kernel2_fn *volatile direct2 = fn2;   // called through a pointer, as the library calls it
        opf_kernel3_fn *volatile direct3 = fn3;
        const auto t2 = medians_ns([&] { direct2(a, b, n); }, [&] { opf_reduce_local(a, b, n, OPF_FLOAT, OPF_SUM); },
                                   [&] { (opf_reduce_local)(a, b, n, OPF_FLOAT, OPF_SUM); });
        std::printf("%-7ld %-8s %-6s %9.2f %9.2f %9.2f\n", n, p2, "2-buf", t2[0], t2[1], t2[2]);
        const auto t3 = medians_ns([&] { direct3(a, b, c, n); }, [&] { opf_reduce_local3(a, b, c, n, OPF_FLOAT, OPF_SUM); },
                                   [&] { (opf_reduce_local3)(a, b, c, n, OPF_FLOAT, OPF_SUM); });
        std::printf("%-7ld %-8s %-6s %9.2f %9.2f %9.2f\n", n, p3, "3-buf", t3[0], t3[1], t3[2]);
    }
    std::printf("(ns per call, median of 9 samples of 2^21 calls; SUM FLOAT, 64-byte-aligned buffers)\n");
    std::free(a), std::free(b), std::free(c);
    return opf_finalize();
}
