// bench_call.cpp — what a small call costs on top of its kernel: the selected
// kernel called directly through a pointer, opframe.h's inline call, and the
// library's entry point (OPF_NO_INLINE_CALLS, dlsym, other languages), in one
// run, medians of 9 interleaved samples of 2^21 calls each, 2- and 3-buffer
// calls on 64-byte-aligned buffers. Built by hand (a benchmark, not a test):
//
//   g++ -std=c++20 -O2 -I include test/bench_call.cpp -o /tmp/bench_call .libs/libopframe.so
//   OPF_MCA_mca_component_path=components/simd/.libs /tmp/bench_call [--op NAME] [--type NAME] 16 32 64
//
// The op is SUM unless --op names another; each count is of elements of the
// type (default FLOAT; 16 32 64: 64-256 bytes of floats). The buffers hold ones and zeros of the type (bytes 0x01
// and 0x00 for 8-bit floats: a small value of every format).
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <strings.h>
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

// The predefined handle (ids 1 .. count - 1) whose name is `name`, any case, or the null one.
template <class Handle> Handle by_name(const char *name, int count, const char *(*name_of)(Handle))
{
    for (int id = 1; id < count; ++id)
        if (const Handle h = reinterpret_cast<Handle>(uintptr_t(id)); !strcasecmp(name, name_of(h))) return h;
    return Handle{};
}

} // namespace

int main(int argc, char **argv)
{
    if (opf_init() != OPF_SUCCESS) return 1;
    opf_datatype_t type = OPF_FLOAT;
    opf_op_t op = OPF_SUM;
    std::vector<long> counts;
    for (int i = 1; i < argc; ++i) {
        const bool names_op = !std::strcmp(argv[i], "--op"), names_type = !std::strcmp(argv[i], "--type");
        if ((names_op || names_type) && i + 1 < argc) {
            const char *name = argv[++i];
            if (names_op ? (op = by_name(name, OPF_OPID_COUNT, opf_op_name)) == OPF_OP_NULL
                         : (type = by_name(name, OPF_TYPEID_COUNT_, opf_type_name)) == OPF_DATATYPE_NULL) {
                std::fprintf(stderr, "bench_call: no predefined %s named '%s'\n", names_op ? "op" : "type", name);
                return 2;
            }
            continue;
        }
        counts.push_back(std::atol(argv[i]));
    }
    if (counts.empty()) counts = {16, 32, 64};
    int kt = -1;
    opf_aint_t lb = 0, extent = 0;
    const int op_id = int(reinterpret_cast<uintptr_t>(op));
    if (opf_type_kernel_type(type, &kt) || kt < 0 || opf_type_get_extent(type, &lb, &extent)) {
        std::fprintf(stderr, "bench_call: %s has no kernel type\n", opf_type_name(type));
        return 2;
    }
    if (int valid = 0; opf_op_valid_for_type(op, type, &valid) || !valid) {
        std::fprintf(stderr, "bench_call: %s is not defined on %s\n", opf_op_name(op), opf_type_name(type));
        return 2;
    }
    constexpr long kBytes = 1 << 16;
    auto *a = static_cast<unsigned char *>(std::aligned_alloc(64, kBytes));
    auto *b = static_cast<unsigned char *>(std::aligned_alloc(64, kBytes));
    auto *c = static_cast<unsigned char *>(std::aligned_alloc(64, kBytes));
    std::memset(b, 0, kBytes), std::memset(c, 0, kBytes);
    if (type == OPF_FLOAT) std::fill(reinterpret_cast<float *>(a), reinterpret_cast<float *>(a + kBytes), 1.0f);
    else std::memset(a, 1, kBytes);
    std::printf("%-7s %-8s %-6s %9s %9s %9s\n", "count", "kernel", "form", "direct", "inline", "entry");
    for (long n : counts) {
        if (n < 1 || n * extent > kBytes) {
            std::fprintf(stderr, "bench_call: count %ld is not in 1 .. %ld for %s\n", n, kBytes / long(extent),
                         opf_type_name(type));
            return 2;
        }
        opf_kernel2_fn *fn2 = nullptr;
        opf_kernel3_fn *fn3 = nullptr;
        const char *p2 = opf_slot_provider(op_id, kt, 2, n);
        const char *p3 = opf_slot_provider(op_id, kt, 3, n);
        opf_kernel3_fn *unused3 = nullptr;
        opf_kernel2_fn *unused2 = nullptr;
        if (!p2 || !p3 || opf_slot_kernels(op_id, kt, p2, n, &fn2, &unused3) ||
            opf_slot_kernels(op_id, kt, p3, n, &unused2, &fn3)) {
            std::fprintf(stderr, "bench_call: no kernel for %s %s at count %ld\n", opf_op_name(op),
                         opf_type_name(type), n);
            return 1;
        }
        opf_kernel2_fn *volatile direct2 = fn2;   // called through a pointer, as the library calls it
        opf_kernel3_fn *volatile direct3 = fn3;
        const auto t2 = medians_ns([&] { direct2(a, b, n); }, [&] { opf_reduce_local(a, b, n, type, op); },
                                   [&] { (opf_reduce_local)(a, b, n, type, op); });
        std::printf("%-7ld %-8s %-6s %9.2f %9.2f %9.2f\n", n, p2, "2-buf", t2[0], t2[1], t2[2]);
        const auto t3 = medians_ns([&] { direct3(a, b, c, n); }, [&] { opf_reduce_local3(a, b, c, n, type, op); },
                                   [&] { (opf_reduce_local3)(a, b, c, n, type, op); });
        std::printf("%-7ld %-8s %-6s %9.2f %9.2f %9.2f\n", n, p3, "3-buf", t3[0], t3[1], t3[2]);
    }
    std::printf("(ns per call, median of 9 samples of 2^21 calls; %s %s, 64-byte-aligned buffers)\n",
                opf_op_name(op), opf_type_name(type));
    std::free(a), std::free(b), std::free(c);
    return opf_finalize();
}
