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
//      driver is not initialised (is it?), and once it is, none in steady
//      state (issue 33: the component remembers host mappings while the
//      driver maps nothing) and, with op_cuda_host_cache=false, one pointer
//      query per distinct buffer (an in-place operand once); a remembered
//      host mapping freed and reused for device, managed or pool memory
//      (mapped by mmap or by syscall(2)) is then a device call, never a
//      stale host answer (each case in a child: a stale answer about device
//      memory is a fault);
//   4. (a child process, a stand-in without devices) host calls unchanged
//      after the application's cuInit; a stream call fails with OPF_ERR_OP
//      and "no CUDA device", found then, not at opf_init.
//   --bench [SAMPLES]: nanoseconds per opf_reduce_local(SUM, FLOAT) on host
//      memory for count 1, 64 and 4096, the component loaded (driver not
//      initialised) and excluded (op=^cuda), alternating in one run; then,
//      after the application's cudaMalloc, heap and mmap'd buffers at counts
//      16 and 1024, the component loaded (host cache on and off) and
//      excluded; medians.
#include <cuda.h>
#include <opframe/cuda.h>
#include <opframe/opframe.h>

#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "test/cudastub/cudastub.h"

// The library's reads of /proc/self/maps, counted: this program's fopen comes
// first in the lookup order of every loaded object.
std::atomic<int> maps_reads{0};
extern "C" FILE *fopen(const char *path, const char *mode)
{
    using Fopen = FILE *(*)(const char *, const char *);
    static const Fopen next = reinterpret_cast<Fopen>(dlsym(RTLD_NEXT, "fopen"));
    if (path && std::strcmp(path, "/proc/self/maps") == 0) maps_reads.fetch_add(1, std::memory_order_relaxed);
    return next(path, mode);
}

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
    auto per_call = [&](auto &&call) {   // in steady state: two calls first (a mapping is remembered at the second)
        bool ok = call() == OPF_SUCCESS && call() == OPF_SUCCESS;
        const uint64_t before = cudastub::calls("cu", "opf_op_cuda");
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
// distinct buffer outside them (an in-place operand is asked about once);
// in steady state nothing at all where the framework remembers their
// mapping (issue 33: the component counts its driver's mapping calls),
// unless op_cuda_host_cache=false.
enum class Driver { kNotInitialised, kInitialised, kInitialisedNoCache };
const char *const driver_state_names[] = {"not initialised", "initialised",
                                          "initialised, op_cuda_host_cache=false"};
void check_driver_calls(Driver driver, PerCall (&got)[kBufferKinds])
{
    const char *state = driver_state_names[int(driver)];
    const bool asks = driver == Driver::kInitialisedNoCache;
    for (int k = 0; k < kBufferKinds; ++k) {
        const BufferKind kind = BufferKind(k);
        const PerCall r = got[k] = driver_calls_per_reduction(kind);
        const bool none = free_kind(kind) || !asks;   // asked about: one query per distinct buffer
        const double want2 = none ? 0 : 2, want3 = none ? 0 : 3, want_in_place = none ? 0 : 2, want_n = none ? 0 : 6;
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

// Issue 33: a host mapping remembered (reduced on until the component asks
// the driver nothing about it), unmapped, and its addresses reused for
// memory the driver claims: a call on the same address then runs as a
// device call. A stale "host" would run host code there: on device memory a
// fault, on managed memory no launch. Each kind in a child process, so that
// a fault is a failed check.
enum class Reuse { kDevice, kManaged, kPool, kDeviceBySyscall, kCount };
const char *const reuse_names[] = {"device memory", "managed memory", "pool memory (cudaMallocFromPoolAsync)",
                                   "device memory mapped through syscall(2)"};
void *allocate_claimed(Reuse kind, std::size_t bytes)
{
    switch (kind) {
    case Reuse::kManaged: return cudastub::managed_alloc(bytes);
    case Reuse::kPool: {
        cudaMemPoolProps props{};
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = 0;
        cudaMemPool_t pool = nullptr;
        void *p = nullptr;
        if (cudaMemPoolCreate(&pool, &props) != cudaSuccess || cudaMallocFromPoolAsync(&p, bytes, pool, 0) != cudaSuccess)
            return nullptr;
        return p;
    }
    default: return cudastub::device_alloc(bytes, 0);
    }
}
int reused_mapping(Reuse kind)
{
    const int failed_before = failures;   // the parent's, inherited
    if (kind == Reuse::kDeviceBySyscall) setenv("CUDASTUB_MAP_BY", "syscall", 1);
    const char *name = reuse_names[int(kind)];
    constexpr std::size_t bytes = 1 << 20;
    void *host = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    auto *f = static_cast<float *>(host);
    std::fill(f, f + 128, 1.0f);
    bool ok = true;
    for (int i = 0; i < 2; ++i) ok &= opf_reduce_local(f, f + 64, 64, OPF_FLOAT, OPF_SUM) == OPF_SUCCESS;
    const uint64_t queries = cudastub::counters().pointer_queries;
    ok &= opf_reduce_local(f, f + 64, 64, OPF_FLOAT, OPF_SUM) == OPF_SUCCESS && f[64] == 4.0f;
    check(ok && cudastub::counters().pointer_queries == queries,
          "before the %s case: host SUM on a mapping, remembered at the second call (%llu pointer queries at the "
          "third)", name, (unsigned long long)(cudastub::counters().pointer_queries - queries));
    munmap(host, bytes);
    // The allocation is the one mapping call between the remembered answer
    // and the reduction (the stand-in's copies change protections, which
    // would hide a miscounted allocation): its memory is reduced as mapped,
    // zeros, and read back afterwards.
    void *dev = allocate_claimed(kind, bytes);
    if (dev != host) {   // the kernel hands the highest free range back: the one just unmapped
        std::printf("cuda_lazy: the freed mapping's addresses were not reused for %s here (%p, %p): case not run\n",
                    name, host, dev);
        if (dev) cudastub::free(dev);
        return failures - failed_before;
    }
    const uint64_t launches = cudastub::counters().launches;
    const int rc = opf_reduce_local(dev, static_cast<float *>(dev) + 64, 64, OPF_FLOAT, OPF_SUM);
    const uint64_t launched = cudastub::counters().launches - launches;
    std::vector<float> back(128, 1.0f);
    cudastub::copy_from_device(back.data(), dev, back.size() * sizeof(float));
    check(rc == OPF_SUCCESS && back[64] == 0.0f && launched > 0,
          "a remembered host mapping freed and reused for %s at the same address runs as a device call (rc %d: %s; "
          "%llu launches)", name, rc, opf_last_error(), (unsigned long long)launched);
    cudastub::free(dev);
    return failures - failed_before;
}
void check_reused_mappings()
{
    for (int k = 0; k < int(Reuse::kCount); ++k) {
        std::fflush(stdout);
        const pid_t child = fork();
        if (child == 0) _exit(reused_mapping(Reuse(k)) ? 1 : 0);
        int status = -1;
        const bool waited = child > 0 && waitpid(child, &status, 0) == child;
        check(waited && WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "a remembered host mapping reused for %s (child %s %d)", reuse_names[k],
              waited && WIFSIGNALED(status) ? "killed by signal" : "exit status",
              waited && WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    }
}

// Issue 33: OPF_REMEMBERED_RANGES_ (8) mappings are remembered at most, none
// replaced while it exists (more mappings in use than entries: the others
// are asked about, one pointer query per buffer, and /proc/self/maps is read
// again after 64 such buffers, then 128, ...); one unmapped frees its entry
// for the next. Nine mappings apart (PROT_NONE blocks between them, so that
// the kernel keeps them apart).
uint64_t queries_of(float *f)   // the pointer queries of one host SUM on f, whose result is checked
{
    const float before = f[64];
    const uint64_t q = cudastub::counters().pointer_queries;
    check(opf_reduce_local(f, f + 64, 64, OPF_FLOAT, OPF_SUM) == OPF_SUCCESS && f[64] == before + f[0],
          "host SUM on a mapping of its own");
    return cudastub::counters().pointer_queries - q;
}
void check_remembered_capacity()
{
    cudastub::free(cudastub::device_alloc(4096, 0));   // the count moves: nothing is remembered now
    constexpr int kMappings = OPF_REMEMBERED_RANGES_ + 1;
    constexpr std::size_t block = 1 << 16;
    char *region = static_cast<char *>(mmap(nullptr, 2 * kMappings * block, PROT_READ | PROT_WRITE,
                                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    float *at[kMappings];
    for (int i = 0; i < kMappings; ++i) {
        mprotect(region + (2 * i + 1) * block, block, PROT_NONE);
        at[i] = reinterpret_cast<float *>(region + 2 * i * block);
        std::fill(at[i], at[i] + 128, 1.0f);
    }
    bool remembered = true;
    for (int i = 0; i < OPF_REMEMBERED_RANGES_; ++i) {
        queries_of(at[i]), queries_of(at[i]);
        remembered &= queries_of(at[i]) == 0;
    }
    check(remembered, "%d mappings remembered (no pointer query from each one's third call)", OPF_REMEMBERED_RANGES_);
    float *ninth = at[kMappings - 1];
    const int reads = maps_reads.load();
    queries_of(ninth), queries_of(ninth), queries_of(ninth);
    const uint64_t asked = queries_of(ninth);
    check(asked == 2, "a ninth mapping while the eight exist: asked about (%llu pointer queries per call, want 2)",
          (unsigned long long)asked);
    check(maps_reads.load() - reads == 1, "and the mappings read once for it in 4 calls (%d)", maps_reads.load() - reads);
    check(queries_of(at[1]) == 0, "the remembered mappings stay remembered beside it");
    munmap(at[0], block);   // its entry is free now, seen at the next read of the mappings
    int calls = 0;
    while (calls < 256 && queries_of(ninth) != 0) ++calls;
    check(calls >= 16 && calls <= 64, "the ninth mapping remembered once one of the eight is unmapped, after %d "
          "calls of 2 buffers (the mappings read again after 64 buffers)", calls);
    munmap(region + block, (2 * kMappings - 1) * block);
#if defined(__x86_64__)
    // A mapping not to be remembered (no read permission in /proc/self/maps,
    // though x86 reads it): asked about each call, the mappings read once.
    auto *unreadable = static_cast<float *>(mmap(nullptr, block, PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    std::fill(unreadable, unreadable + 128, 1.0f);
    const int before = maps_reads.load();
    uint64_t queries = 0;
    for (int i = 0; i < 20; ++i) queries += queries_of(unreadable);
    check(queries == 40 && maps_reads.load() - before == 1, "a write-only mapping: not remembered (%llu pointer "
          "queries in 20 calls), the mappings read %d time(s) for it", (unsigned long long)queries,
          maps_reads.load() - before);
    munmap(unreadable, block);
#endif
}

// Issue 33: remembered mappings under threads. Two threads reduce on host
// mappings of their own (remembered, read by the inline calls without a
// lock) while a third allocates and frees device memory, which moves the
// count: every result right, nothing run on the wrong side. With a thread
// sanitizer this is the race check of the window's entries (a seqlock).
void check_remembered_under_threads()
{
    constexpr std::size_t bytes = 1 << 16;
    std::atomic<bool> stop{false};
    std::atomic<int> wrong{0}, calls{0};
    auto reduce_on_own_mapping = [&] {
        auto *f = static_cast<float *>(mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
        std::fill(f, f + 128, 1.0f);
        for (float want = 2.0f; !stop.load(std::memory_order_relaxed) || want < 200.0f; ++want) {
            if (opf_reduce_local(f, f + 64, 64, OPF_FLOAT, OPF_SUM) != OPF_SUCCESS || f[64] != want || f[127] != want)
                wrong.fetch_add(1);
            calls.fetch_add(1, std::memory_order_relaxed);
            if (want > 1 << 20) std::fill(f + 64, f + 128, want = 1.0f);
        }
        munmap(f, bytes);
    };
    std::thread a(reduce_on_own_mapping), b(reduce_on_own_mapping);
    int moves = 0;
    for (; moves < 200; ++moves) cudastub::free(cudastub::device_alloc(4096, 0));
    stop = true;
    a.join(), b.join();
    check(wrong.load() == 0 && calls.load() > 0, "host SUMs on two threads' remembered mappings while a third "
          "allocates and frees device memory %d times: %d wrong of %d", moves, wrong.load(), calls.load());
}

// The component's report of its host-mapping cache (opframe_info shows it too).
std::string param(const char *name)
{
    char buf[512] = "";
    return opf_param_get(name, buf, sizeof buf) == OPF_SUCCESS ? buf : "?";
}

// Nanoseconds per call on in / inout, median of `samples` batches.
double per_call_ns(const float *in, float *inout, int count, int samples)
{
    const int batch = count <= 64 ? 2000 : 200;
    std::vector<double> ns;
    for (int s = 0; s < samples; ++s) {
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < batch; ++i) opf_reduce_local(in, inout, count, OPF_FLOAT, OPF_SUM);
        const auto t1 = std::chrono::steady_clock::now();
        ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / batch);
    }
    std::nth_element(ns.begin(), ns.begin() + ns.size() / 2, ns.end());
    return ns[ns.size() / 2];
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Opens the library as `config` says: the component loaded ("" ), excluded
// ("^cuda") or loaded with its host cache off ("nocache").
int start_as(const char *config)
{
    if (std::strcmp(config, "nocache") == 0) setenv("OPF_MCA_op_cuda_host_cache", "false", 1);
    const int rc = start(std::strcmp(config, "^cuda") != 0);
    unsetenv("OPF_MCA_op_cuda_host_cache");
    return rc;
}

// 1. Heap buffers, the driver never initialised: counts 1, 64, 4096, the
// component loaded and excluded. 2. After the application's cudaMalloc:
// heap and mmap'd buffers at counts 16 and 1024, the component loaded (host
// cache on and off) and excluded. Configurations alternate, 7 rounds.
int bench(int samples)
{
    const int counts[] = {1, 64, 4096};
    std::vector<double> with[3], without[3];
    std::vector<float> in(4096, 1.0f), inout(4096, 0.0f);
    for (int round = 0; round < 7; ++round)
        for (const bool cuda : {true, false}) {
            if (start(cuda) != OPF_SUCCESS) return 1;
            for (int c = 0; c < 3; ++c)
                (cuda ? with : without)[c].push_back(per_call_ns(in.data(), inout.data(), counts[c], samples));
            opf_finalize();
        }
    const auto c = cudastub::counters();
    std::printf("cuda_lazy --bench: opf_reduce_local SUM FLOAT on host memory, ns per call, median of 7 rounds x %d "
                "batches (stand-in driver, never initialised: %llu initialisations, %llu pointer queries)\n",
                samples, (unsigned long long)c.driver_inits, (unsigned long long)c.pointer_queries);
    std::printf("%8s %14s %14s %8s\n", "count", "cuda loaded", "op=^cuda", "ratio");
    for (int i = 0; i < 3; ++i) {
        const double w = median(with[i]), wo = median(without[i]);
        std::printf("%8d %14.2f %14.2f %8.3f\n", counts[i], w, wo, w / wo);
    }

    void *dev = cudastub::device_alloc(4096, 0);   // the application's cudaMalloc
    const std::size_t bytes = 2 * 1024 * sizeof(float);
    auto *mapped = static_cast<float *>(mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    std::fill(mapped, mapped + 2 * 1024, 1.0f);
    const char *const configs[] = {"", "nocache", "^cuda"};
    const int sizes[] = {16, 1024};
    std::vector<double> ns[2][2][3];   // [heap, mmap][count][config]
    for (int round = 0; round < 7; ++round)
        for (int k = 0; k < 3; ++k) {
            if (start_as(configs[k]) != OPF_SUCCESS) return 1;
            for (int b = 0; b < 2; ++b)
                for (int n = 0; n < 2; ++n) {
                    const float *src = b ? mapped : in.data();
                    float *dst = b ? mapped + 1024 : inout.data();
                    ns[b][n][k].push_back(per_call_ns(src, dst, sizes[n], samples));
                }
            opf_finalize();
        }
    std::printf("after the application's cudaMalloc (stand-in driver initialised), ns per call:\n");
    std::printf("%8s %6s %14s %14s %14s %10s\n", "buffer", "count", "cuda loaded", "host cache off", "op=^cuda",
                "ratio");
    for (int b = 0; b < 2; ++b)
        for (int n = 0; n < 2; ++n) {
            const double on = median(ns[b][n][0]), off = median(ns[b][n][1]), none = median(ns[b][n][2]);
            std::printf("%8s %6d %14.2f %14.2f %14.2f %10.3f\n", b ? "mmap" : "heap", sizes[n], on, off, none,
                        on / none);
        }
    munmap(mapped, bytes);
    cudastub::free(dev);
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
    check_driver_calls(Driver::kNotInitialised, uninit);
    const std::string cache = param("op_cuda_host_cache_state");
    check(cache.rfind("on:", 0) == 0 && cache.find("mmap") != std::string::npos,
          "the stand-in driver's mapping calls hooked: op_cuda_host_cache_state \"%s\"", cache.c_str());
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
    check(std::atoll(param("op_cuda_driver_mappings").c_str()) > 0,
          "the application's device memory was mapped through a hooked call (op_cuda_driver_mappings %s)",
          param("op_cuda_driver_mappings").c_str());
    check_reused_mappings();
    check_remembered_capacity();
    check_remembered_under_threads();
    // 5. Driver calls per host reduction, the driver initialised.
    PerCall init[kBufferKinds], init_no_cache[kBufferKinds];
    check_driver_calls(Driver::kInitialised, init);
    opf_finalize();
    setenv("OPF_MCA_op_cuda_host_cache", "false", 1);
    if (start(true) != OPF_SUCCESS) return 1;
    check(param("op_cuda_host_cache_state") == "off: op_cuda_host_cache=false",
          "op_cuda_host_cache=false: op_cuda_host_cache_state \"%s\"", param("op_cuda_host_cache_state").c_str());
    check_driver_calls(Driver::kInitialisedNoCache, init_no_cache);
    opf_finalize();
    unsetenv("OPF_MCA_op_cuda_host_cache");
    print_driver_calls(driver_state_names[0], uninit);
    print_driver_calls(driver_state_names[1], init);
    print_driver_calls(driver_state_names[2], init_no_cache);

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
