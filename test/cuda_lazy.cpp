// cuda_lazy.cpp — what the cuda component costs a process that never uses a
// GPU (issue 13, defect 7), on the stand-in CUDA runtime (test/cudastub): the
// real component (opf_op_cuda.cpp) loaded by libopframe, the driver a CPU
// stand-in that answers CUDA_ERROR_NOT_INITIALIZED until cuInit, as a real
// one does, and counts initialisations and pointer queries.
//   1. opf_init initialises no driver, and the component is available;
//   2. host reductions with the component loaded: right results, no pointer
//      query and still no initialisation while nobody initialised the driver;
//   3. the application then initialises CUDA and allocates device memory:
//      device buffers are recognised (the call runs as a kernel launch), host
//      ones still run on the host; a new opf_init after that needs nothing;
//      devices that cannot be set up make device calls fail, never guessed host;
//   5. (issue 21) driver calls the component makes per host reduction
//      (every cu* entry point, counted by the stand-in per caller), with the
//      driver not initialised and initialised, on heap, stack (the main
//      thread's and another's), static, mmap'd and large malloc'd buffers,
//      2-buffer, 3-buffer and n-ary calls: 0 on the heap, the stacks and
//      static data (issue 33); elsewhere at most one per call while the
//      driver is not initialised (is it?), and once it is, one pointer query
//      per distinct buffer (an in-place operand once); a host mapping freed
//      and reused for device memory is then a device call, never a stale
//      host answer;
//   4. (a child process, a stand-in without devices) host calls unchanged
//      after the application's cuInit; a stream call fails with OPF_ERR_OP
//      and "no CUDA device", found then, not at opf_init.
//   --bench [SAMPLES]: nanoseconds per opf_reduce_local(SUM, FLOAT) on host
//      memory for count 1, 64 and 4096, the component loaded (driver not
//      initialised) and excluded (op=^cuda), alternating in one run; medians.
#include <cuda.h>
#include <opframe/cuda.h>
#include <opframe/opframe.h>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "test/cudastub/cudastub.h"

namespace {

int checks = 0, failures = 0;

[[gnu::format(printf, 2, 3)]] void check(bool ok, const char *fmt, ...)
{
    ++checks;
    if (ok) return;
    ++failures;
    std::va_list ap;
    va_start(ap, fmt);
    std::printf("FAILED: ");
    std::vprintf(fmt, ap);
    std::printf("\n");
    va_end(ap);
}

int start(bool with_cuda)
{
    if (with_cuda) unsetenv("OPF_MCA_op");
    else setenv("OPF_MCA_op", "^cuda", 1);
    const int rc = opf_init();
    if (rc != OPF_SUCCESS) std::printf("FAILED: opf_init: %s\n", opf_last_error());
    return rc;
}

bool host_sums_right(int count)
{
    std::vector<float> in(size_t(count), 1.5f), inout(size_t(count), 2.0f);
    if (opf_reduce_local(in.data(), inout.data(), count, OPF_FLOAT, OPF_SUM) != OPF_SUCCESS) return false;
    return std::all_of(inout.begin(), inout.end(), [](float v) { return v == 3.5f; });
}

// Driver calls (every cu* entry point, counted by the stand-in for the
// component) per host reduction, over 20 opf_reduce_local and 20
// opf_reduce_local3 calls on buffers of one kind.
enum BufferKind { kHeap, kStack, kStatic, kThreadStack, kMapped, kLargeMalloc, kBufferKinds };
const char *const buffer_kind_names[kBufferKinds] = {"heap", "stack", "static", "thread stack", "mmap",
                                                     "large malloc"};
// Host memory the framework knows without asking any hook (framework/host_memory.h).
bool free_kind(int kind) { return kind == kHeap || kind == kStack || kind == kStatic || kind == kThreadStack; }
struct PerCall {
    double reduce2, reduce3, in_place3, nary;   // opf_reduce_local; _local3; _local3 with out == in1; _local_n, 5 sources
};
constexpr int kCallFloats = 6 * 64;   // the n-ary call's 5 sources and dst of 64 floats
float static_floats[kCallFloats];     // the program's .bss
PerCall driver_calls_per_reduction(BufferKind kind)
{
    if (kind == kThreadStack) {   // the same, called from another thread on its own stack
        PerCall r{};
        std::thread([&] { r = driver_calls_per_reduction(kStack); }).join();
        return r;
    }
    const int n = 64;
    float on_stack[kCallFloats];
    float *buf = nullptr;
    void *map = nullptr;
    void *large = nullptr;
    switch (kind) {
    case kHeap: buf = cudastub::brk_floats(kCallFloats, 1.0f); break;   // on the heap, under a sanitizer too
    case kStack: buf = on_stack; break;
    case kStatic: buf = static_floats; break;
    case kMapped:
        map = mmap(nullptr, kCallFloats * sizeof(float), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        buf = static_cast<float *>(map);
        break;
    case kLargeMalloc:   // above glibc's largest mmap threshold: a mapping of its own
        large = std::malloc(size_t(64) << 20);
        buf = static_cast<float *>(large);
        break;
    default: break;
    }
    std::fill(buf, buf + kCallFloats, 1.0f);
    const int rounds = 20;
    auto per_call = [&](auto &&call) {
        const uint64_t before = cudastub::calls("cu", "opf_op_cuda");
        bool ok = true;
        for (int i = 0; i < rounds; ++i) ok &= call() == OPF_SUCCESS;
        check(ok, "host reductions on %s buffers", buffer_kind_names[kind]);
        return double(cudastub::calls("cu", "opf_op_cuda") - before) / rounds;
    };
    PerCall r;
    r.reduce2 = per_call([&] { return opf_reduce_local(buf, buf + n, n, OPF_FLOAT, OPF_SUM); });
    r.reduce3 = per_call([&] { return opf_reduce_local3(buf, buf + n, buf + 2 * n, n, OPF_FLOAT, OPF_MAX); });
    r.in_place3 = per_call([&] { return opf_reduce_local3(buf, buf + n, buf, n, OPF_FLOAT, OPF_MIN); });
    const void *srcs[5] = {buf, buf + n, buf + 2 * n, buf + 3 * n, buf + 4 * n};
    r.nary = per_call([&] { return opf_reduce_local_n(srcs, 5, buf + 5 * n, n, OPF_FLOAT, OPF_MAX); });
    if (map) munmap(map, kCallFloats * sizeof(float));
    std::free(large);
    return r;
}

// Issue 21, defect 1: the driver calls per host reduction, for every buffer
// kind. Heap, stack (any thread's) and static buffers cost none (issue 33:
// the framework does not ask the hooks about them); a call with buffers
// elsewhere asks whether the driver is initialised once per call (not once
// per buffer, n-ary calls too), and once it is, one pointer query per
// distinct buffer outside them (an in-place operand is asked about once).
void check_driver_calls(bool initialised, PerCall (&got)[kBufferKinds])
{
    const char *state = initialised ? "initialised" : "not initialised";
    for (int k = 0; k < kBufferKinds; ++k) {
        const BufferKind kind = BufferKind(k);
        const PerCall r = got[k] = driver_calls_per_reduction(kind);
        const bool none = free_kind(kind);
        const double want2 = none ? 0 : initialised ? 2 : 1, want3 = none ? 0 : initialised ? 3 : 1,
                     want_in_place = none ? 0 : initialised ? 2 : 1, want_n = none ? 0 : initialised ? 6 : 1;
        check(r.reduce2 <= want2 && r.reduce3 <= want3 && r.in_place3 <= want_in_place && r.nary <= want_n,
              "driver %s, %s buffers: %.2f / %.2f / %.2f / %.2f driver calls per opf_reduce_local / _local3 / "
              "_local3 in place / _local_n of 5 (want at most %g / %g / %g / %g)", state, buffer_kind_names[k],
              r.reduce2, r.reduce3, r.in_place3, r.nary, want2, want3, want_in_place, want_n);
    }
}

void print_driver_calls(const char *state, const PerCall (&got)[kBufferKinds])
{
    std::printf("cuda_lazy: driver calls per host reduction, driver %s (opf_reduce_local / _local3 / _local3 in "
                "place / _local_n of 5):", state);
    for (int k = 0; k < kBufferKinds; ++k)
        std::printf(" %s %.2f/%.2f/%.2f/%.2f%s", buffer_kind_names[k], got[k].reduce2, got[k].reduce3,
                    got[k].in_place3, got[k].nary, k + 1 < kBufferKinds ? ";" : "\n");
}

// Issue 33: no answer about a mapping is remembered. A host mapping reduced
// on, unmapped, and its addresses reused for device memory: a call on the
// same address then runs as a device call (a stale "host" would run host
// code on device memory: a fault).
void check_reused_mapping()
{
    constexpr std::size_t bytes = 1 << 20;
    void *host = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    auto *f = static_cast<float *>(host);
    std::fill(f, f + 128, 1.0f);
    check(opf_reduce_local(f, f + 64, 64, OPF_FLOAT, OPF_SUM) == OPF_SUCCESS && f[64] == 2.0f, "host SUM on a mapping");
    munmap(host, bytes);
    void *dev = nullptr;
    for (int tries = 0; tries < 8 && dev != host; ++tries) {   // the kernel usually hands the same range back
        if (dev) cudastub::free(dev);
        dev = cudastub::device_alloc(bytes, 0);
    }
    if (dev != host) {
        std::printf("cuda_lazy: the freed mapping's addresses were not reused for device memory here (%p, %p): "
                    "reuse case not run\n", host, dev);
        if (dev) cudastub::free(dev);
        return;
    }
    std::vector<float> ones(128, 1.0f);
    cudastub::copy_to_device(dev, ones.data(), ones.size() * sizeof(float));
    const uint64_t launches = cudastub::counters().launches;
    const int rc = opf_reduce_local(dev, static_cast<float *>(dev) + 64, 64, OPF_FLOAT, OPF_SUM);
    std::vector<float> back(128);
    cudastub::copy_from_device(back.data(), dev, back.size() * sizeof(float));
    check(rc == OPF_SUCCESS && back[64] == 2.0f && cudastub::counters().launches > launches,
          "a freed host mapping reused for device memory at the same address runs as a device call (rc %d: %s)", rc,
          opf_last_error());
    cudastub::free(dev);
}

// Nanoseconds per call, median of `samples` batches.
double per_call_ns(int count, int samples)
{
    std::vector<float> in(size_t(count), 1.0f), inout(size_t(count), 0.0f);
    const int batch = count <= 64 ? 2000 : 200;
    std::vector<double> ns;
    for (int s = 0; s < samples; ++s) {
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < batch; ++i) opf_reduce_local(in.data(), inout.data(), count, OPF_FLOAT, OPF_SUM);
        const auto t1 = std::chrono::steady_clock::now();
        ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / batch);
    }
    std::nth_element(ns.begin(), ns.begin() + ns.size() / 2, ns.end());
    return ns[ns.size() / 2];
}

int bench(int samples)
{
    const int counts[] = {1, 64, 4096};
    std::vector<double> with[3], without[3];
    for (int round = 0; round < 7; ++round)
        for (const bool cuda : {true, false}) {
            if (start(cuda) != OPF_SUCCESS) return 1;
            for (int c = 0; c < 3; ++c) (cuda ? with : without)[c].push_back(per_call_ns(counts[c], samples));
            opf_finalize();
        }
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    const auto c = cudastub::counters();
    std::printf("cuda_lazy --bench: opf_reduce_local SUM FLOAT on host memory, ns per call, median of 7 rounds x %d "
                "batches (stand-in driver, never initialised: %llu initialisations, %llu pointer queries)\n",
                samples, (unsigned long long)c.driver_inits, (unsigned long long)c.pointer_queries);
    std::printf("%8s %14s %14s %8s\n", "count", "cuda loaded", "op=^cuda", "ratio");
    for (int i = 0; i < 3; ++i) {
        const double w = median(with[i]), wo = median(without[i]);
        std::printf("%8d %14.2f %14.2f %8.3f\n", counts[i], w, wo, w / wo);
    }
    return 0;
}

// 4. A machine with a driver and no device.
int no_device()
{
    if (start(true) != OPF_SUCCESS) return 1;
    const char *status = "";
    check(opf_cuda_available(&status), "without devices, lazily: available (%s)", status);
    check(host_sums_right(64), "host SUM FLOAT, no devices");
    check(cuInit(0) == CUDA_SUCCESS, "the application's cuInit");
    check(host_sums_right(64), "host SUM FLOAT after cuInit, no devices");
    float a[4] = {1, 2, 3, 4}, b[4] = {1, 1, 1, 1};
    const int rc = opf_cuda_reduce_local(a, b, 4, OPF_FLOAT, OPF_SUM, 0);
    check(rc == OPF_ERR_OP && std::strstr(opf_last_error(), "no CUDA device") && b[0] == 1.0f,
          "a stream call without devices: OPF_ERR_OP, \"no CUDA device\", nothing done (rc %d: %s)", rc,
          opf_last_error());
    opf_finalize();
    std::printf("cuda_lazy (no devices): %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}

} // namespace

int main(int argc, char **argv)
{
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    setenv("OPF_MCA_mca_component_path", CUDASTUB_MODULE_DIR, 0);
    setenv("OPF_MCA_PARAM_FILE_USER", "", 1);
    setenv("OPF_MCA_PARAM_FILE_SYSTEM", "", 1);
    if (argc > 1 && std::strcmp(argv[1], "--bench") == 0) return bench(argc > 2 ? std::atoi(argv[2]) : 31);
    // 4 first, in a child: the stand-in reads CUDASTUB_DEVICES at its first use.
    const pid_t child = fork();
    if (child == 0) {
        setenv("CUDASTUB_DEVICES", "0", 1);
        _exit(no_device());
    }
    int child_status = -1;
    const bool waited = child > 0 && waitpid(child, &child_status, 0) == child;
    check(waited && WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0,
          "the checks without devices (wait status %d)", child_status);

    // 1. opf_init: the component loads, qualifies, and initialises nothing.
    if (start(true) != OPF_SUCCESS) return 1;
    const char *status = "";
    check(opf_cuda_available(&status), "the stand-in cuda component is available (%s)", status);
    check(cudastub::counters().driver_inits == 0, "opf_init initialised the driver %llu times",
          (unsigned long long)cudastub::counters().driver_inits);

    // 2. Host reductions while nobody initialised the driver.
    for (const int n : {1, 64, 4096}) check(host_sums_right(n), "host SUM FLOAT, count %d", n);
    std::vector<double> a(100, 1.0), b(100, 2.0);
    check(opf_reduce_local3(a.data(), b.data(), b.data(), 100, OPF_DOUBLE, OPF_MAX) == OPF_SUCCESS && b[99] == 2.0,
          "host MAX DOUBLE, 3 buffers");
    auto c = cudastub::counters();
    check(c.pointer_queries == 0, "host reductions made %llu pointer queries before the driver was initialised",
          (unsigned long long)c.pointer_queries);
    check(c.driver_inits == 0, "host reductions initialised the driver %llu times", (unsigned long long)c.driver_inits);
    // 5. Driver calls per host reduction, the driver not initialised.
    PerCall uninit[kBufferKinds];
    check_driver_calls(false, uninit);
    check(cudastub::counters().driver_inits == 0, "host reductions initialised the driver");

    // 3. The application initialises CUDA after opf_init: device memory is
    // recognised from then on.
    const int n = 1000;
    std::vector<float> ones(n, 1.0f), back(n, 0.0f);
    void *dev = cudastub::device_alloc(n * sizeof(float), 0);   // cudaMalloc: the runtime initialises the driver
    check(dev && cudastub::counters().driver_inits == 1, "the application's cudaMalloc initialised the driver once");
    cudastub::copy_to_device(dev, ones.data(), n * sizeof(float));
    const uint64_t launches = cudastub::counters().launches;
    int rc = opf_reduce_local(ones.data(), dev, n, OPF_FLOAT, OPF_SUM);   // mixed: host in, device inout
    cudastub::copy_from_device(back.data(), dev, n * sizeof(float));
    check(rc == OPF_SUCCESS && back[0] == 2.0f && back[n - 1] == 2.0f, "SUM into device memory after the "
          "application initialised CUDA (rc %d: %s; [0] = %g)", rc, opf_last_error(), double(back[0]));
    rc = opf_reduce_local(dev, dev, n, OPF_FLOAT, OPF_SUM);
    cudastub::copy_from_device(back.data(), dev, n * sizeof(float));
    check(rc == OPF_SUCCESS && back[n - 1] == 4.0f && cudastub::counters().launches > launches,
          "SUM on device memory runs as a kernel (rc %d, [n-1] = %g, %llu launches)", rc, double(back[n - 1]),
          (unsigned long long)(cudastub::counters().launches - launches));
    check(cudastub::counters().pointer_queries > c.pointer_queries, "device buffers were asked about");
    check(host_sums_right(64), "host SUM FLOAT after the driver was initialised");
    check_reused_mapping();
    // 5. Driver calls per host reduction, the driver initialised.
    PerCall init[kBufferKinds];
    check_driver_calls(true, init);
    print_driver_calls("not initialised", uninit);
    print_driver_calls("initialised", init);
    opf_finalize();

    // A new opf_init finds the driver initialised: device memory works at once.
    if (start(true) != OPF_SUCCESS) return 1;
    rc = opf_reduce_local(dev, dev, n, OPF_FLOAT, OPF_SUM);
    cudastub::copy_from_device(back.data(), dev, n * sizeof(float));
    check(rc == OPF_SUCCESS && back[0] == 8.0f, "SUM on device memory after a new opf_init (rc %d, [0] = %g)", rc,
          double(back[0]));
    opf_finalize();

    // Devices that cannot be set up (here: op_cuda_device names none) while
    // device memory exists: the call fails with the reason; host code never
    // runs on device memory.
    setenv("OPF_MCA_op_cuda_device", "7", 1);
    if (start(true) != OPF_SUCCESS) return 1;
    rc = opf_reduce_local(dev, dev, n, OPF_FLOAT, OPF_SUM);
    check(rc == OPF_ERR_ARG && std::strstr(opf_last_error(), "op_cuda_device=7"),
          "device memory with op_cuda_device=7 of 2 devices: refused with the reason (rc %d: %s)", rc,
          opf_last_error());
    opf_finalize();
    unsetenv("OPF_MCA_op_cuda_device");
    check(cudastub::counters().driver_inits == 1, "the driver was initialised %llu times in all",
          (unsigned long long)cudastub::counters().driver_inits);
    cudastub::free(dev);
    c = cudastub::counters();
    std::printf("cuda_lazy: %d checks, %d failed (stand-in: %llu initialisations, %llu pointer queries, %llu "
                "launches)\n", checks, failures, (unsigned long long)c.driver_inits,
                (unsigned long long)c.pointer_queries, (unsigned long long)c.launches);
    return failures ? 1 : 0;
}
