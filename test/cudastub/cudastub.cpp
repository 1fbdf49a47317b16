// cudastub.cpp — the stand-in CUDA runtime on the CPU (see cudastub.h).
//
// Declared by the toolkit's own headers (cuda_runtime_api.h, cuda.h), so the
// entry points have exactly the names (versioned ones included), types and
// enum values the cuda component was compiled against. One mutex serialises
// every operation: the model is simple, not fast.
#include "test/cudastub/cudastub.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <memory>
#include <mutex>
#include <vector>

thread_local uint3 threadIdx;
thread_local uint3 blockIdx;
thread_local dim3 blockDim;
thread_local dim3 gridDim;

namespace cudastub {
namespace {

struct Context {
    int device;
    bool primary;
};
enum class Kind { Device, Managed, Pinned };
struct Alloc {
    uintptr_t base;
    std::size_t size, mapped;
    Kind kind;
    int device;
    Context *ctx;
};
// Work on a stream runs when a synchronisation covers it; it returns its error.
using Work = std::function<cudaError_t()>;
struct Stream {
    int device;
    bool blocking = true;               // synchronises with the legacy default stream
    bool legacy = false;
    cudaError_t pending = cudaSuccess;  // reported by the next synchronise
    std::deque<Work> queue;
};
struct Pool {
    int device, generation;   // made in that primary context, before that many resets
};
struct Kernel {
    Binder bind;
};
struct Fault1 {
    int after = 0;
    int code = 0;
    int times = 0;
};

std::recursive_mutex mu;
int n_devices = 0;
std::vector<std::unique_ptr<Context>> contexts;   // [0, n_devices): the primary ones
std::vector<bool> primary_made;
// Per device: a fault that poisons its primary context until a reset (an
// illegal address: every later call that needs the context fails with it,
// as on a GPU), and the resets so far (what the context owned is gone).
std::vector<cudaError_t> sticky;
std::vector<int> generation;
std::vector<int> retains;   // cuDevicePrimaryCtxRetain's references not yet released
std::vector<std::unique_ptr<Context>> &destroyed = *new std::vector<std::unique_ptr<Context>>;   // threads may still name them
std::map<uintptr_t, Alloc> allocs;
std::map<const void *, Kernel> kernels;
// Streams are never destroyed at exit: work still queued holds kernels'
// argument copies whose code may be unloaded by then.
std::vector<std::unique_ptr<Stream>> &streams = *new std::vector<std::unique_ptr<Stream>>;
std::vector<Stream> &legacy = *new std::vector<Stream>;   // per device: the legacy default stream
// Every thread's per-thread default streams, every device's (kept: work may outlive the thread).
std::vector<std::unique_ptr<Stream>> &per_thread_streams = *new std::vector<std::unique_ptr<Stream>>;
thread_local std::map<int, Stream *> per_thread;           // this thread's per-thread default stream per device
thread_local int runtime_device = 0;                       // cudaSetDevice's, for a thread with no context
Fault1 faults[kFaultCount];
Counters count{};
const void *launch_stream = nullptr;   // as the last launch was given it
thread_local Context *current = nullptr;
thread_local cudaError_t last_error = cudaSuccess;

// Calls per (function, caller): the caller is the shared object the call
// came from (its return address), named once per address.
std::vector<std::string> caller_names;
std::unordered_map<const void *, int> caller_of;
std::map<std::pair<std::string, int>, uint64_t> call_count;
std::unordered_map<const char *, std::string> function_names;   // __func__ -> the API's name

void note_call(const char *func, const void *ret)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    auto c = caller_of.find(ret);
    if (c == caller_of.end()) {
        Dl_info info{};
        std::string name = dladdr(ret, &info) && info.dli_fname ? info.dli_fname : "?";
        name = name.substr(name.find_last_of('/') + 1);
        auto same = std::find(caller_names.begin(), caller_names.end(), name);
        const int id = int(same - caller_names.begin());
        if (same == caller_names.end()) caller_names.push_back(name);
        c = caller_of.emplace(ret, id).first;
    }
    auto f = function_names.find(func);
    if (f == function_names.end()) {
        std::string name = func;
        if (name.rfind("stub_", 0) == 0) name = name.substr(5);
        f = function_names.emplace(func, name).first;
    }
    ++call_count[{f->second, c->second}];
}
// At the top of every entry point: counted for its caller.
#define COUNTED() note_call(__func__, __builtin_return_address(0))

// The mutations of the component (cudastub.h), applied to calls from it.
enum Mutation { kNoMutation, kThreadIndex, kSyncLegacy, kNoSync, kNoDeviceScope, kPairStore, kDenseCopy, kDoubleRelease,
               kQueryAsHost };
Mutation mutation()
{
    static const Mutation m = [] {
        const char *e = std::getenv("CUDASTUB_MUTATE");
        if (!e) return kNoMutation;
        const std::string v = e;
        return v == "thread-index" ? kThreadIndex : v == "sync-legacy" ? kSyncLegacy : v == "no-sync" ? kNoSync
             : v == "no-device-scope" ? kNoDeviceScope : v == "pair-store" ? kPairStore
             : v == "dense-copy" ? kDenseCopy : v == "double-release" ? kDoubleRelease
             : v == "query-as-host" ? kQueryAsHost : kNoMutation;
    }();
    return m;
}
bool from_component(const void *ret)
{
    Dl_info info{};
    return dladdr(ret, &info) && info.dli_fname && std::strstr(info.dli_fname, "opf_op_cuda");
}
// The driver's rule: every driver call but cuInit, cuDriverGetVersion and
// cuGetProcAddress answers CUDA_ERROR_NOT_INITIALIZED until cuInit; the
// runtime calls cuInit on its first call.
std::atomic<bool> initialized{false};

// The devices and their primary contexts (what the machine has, initialised or not).
void model()
{
    if (n_devices) return;
    const char *env = std::getenv("CUDASTUB_DEVICES");
    n_devices = env ? std::max(0, std::atoi(env)) : 2;
    for (int d = 0; d < n_devices; ++d) contexts.push_back(std::make_unique<Context>(Context{d, true}));
    primary_made.assign(std::size_t(n_devices), false);
    sticky.assign(std::size_t(n_devices), cudaSuccess);
    generation.assign(std::size_t(n_devices), 0);
    retains.assign(std::size_t(n_devices), 0);
    legacy.resize(std::size_t(n_devices));
    for (int d = 0; d < n_devices; ++d) {
        legacy[std::size_t(d)].device = d;
        legacy[std::size_t(d)].legacy = true;
    }
}

void init_driver()
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    ++count.driver_inits;
    initialized.store(true);
}

// The runtime's first call initialises the driver.
void setup()
{
    model();
    if (!initialized.load()) init_driver();
}

bool fault(Fault kind, int &code)
{
    Fault1 &f = faults[kind];
    if (f.after <= 0 || --f.after > 0) return false;
    code = f.code;
    if (--f.times > 0) f.after = 1;   // the next call fails too
    return true;
}

cudaError_t fail(cudaError_t e)
{
    if (e != cudaSuccess) last_error = e;
    return e;
}

// The sticky fault of the device's primary context, if any.
cudaError_t poisoned(int device) { return device >= 0 && device < n_devices ? sticky[std::size_t(device)] : cudaSuccess; }

// The runtime's rule: a call that needs a context and finds none current makes
// the thread's runtime device's primary context current (and active).
Context *context()
{
    setup();
    if (!current && runtime_device < n_devices) {
        current = contexts[std::size_t(runtime_device)].get();
        primary_made[std::size_t(runtime_device)] = true;
    }
    return current;
}

const Alloc *find(const void *p)
{
    const auto a = reinterpret_cast<uintptr_t>(p);
    auto it = allocs.upper_bound(a);
    if (it == allocs.begin()) return nullptr;
    --it;
    return a < it->second.base + std::max<std::size_t>(it->second.size, 1) ? &it->second : nullptr;
}

// Device memory is PROT_NONE except inside the stand-in's own operations: a
// kernel sees its device's memory, a copy the allocations it copies between.
struct Open {
    int device = -1;
    const Alloc *only[2] = {};
    explicit Open(int dev) : device(dev) { protect(PROT_READ | PROT_WRITE); }
    Open(const void *dst, const void *src) : only{find(dst), find(src)} { protect(PROT_READ | PROT_WRITE); }
    ~Open() { protect(PROT_NONE); }
    static void protect1(const Alloc *a, int prot)
    {
        if (a && a->kind == Kind::Device) mprotect(reinterpret_cast<void *>(a->base), a->mapped, prot);
    }
    void protect(int prot) const
    {
        if (device < 0) {
            protect1(only[0], prot);
            if (only[1] != only[0]) protect1(only[1], prot);
            return;
        }
        for (auto &[base, a] : allocs)
            if (a.device == device) protect1(&a, prot);
    }
};

// Canaries: the bytes from an allocation's end to its mapping's end hold
// kCanary; a kernel or copy that wrote past the end (which a GPU would not
// notice inside its allocation granularity) fails the work that did it with
// cudaErrorIllegalAddress, said on stderr.
constexpr unsigned char kCanary = 0xcb;
void set_canary(const Alloc &a)
{
    if (a.kind == Kind::Pinned || a.mapped == a.size) return;
    Open::protect1(&a, PROT_READ | PROT_WRITE);
    std::memset(reinterpret_cast<char *>(a.base) + a.size, kCanary, a.mapped - a.size);
    Open::protect1(&a, PROT_NONE);
}
// Destroys the primary context of `dev` (a reset, or its last reference
// released): its queued work dropped, its memory freed (pinned memory of it
// too), its sticky fault with it; pools made in it are gone (generation).
void destroy_primary(int dev)
{
    Context *old = contexts[std::size_t(dev)].get();
    auto drop = [](Stream &st) {
        st.queue.clear();
        st.pending = cudaSuccess;
    };
    drop(legacy[std::size_t(dev)]);
    for (auto &st : per_thread_streams)
        if (st->device == dev) drop(*st);
    for (auto &st : streams)
        if (st->device == dev) drop(*st);
    for (auto it = allocs.begin(); it != allocs.end();)
        if (it->second.ctx == old) {
            munmap(reinterpret_cast<void *>(it->second.base), it->second.mapped);
            it = allocs.erase(it);
        } else {
            ++it;
        }
    destroyed.push_back(std::move(contexts[std::size_t(dev)]));
    contexts[std::size_t(dev)] = std::make_unique<Context>(Context{dev, true});
    if (current == old) current = nullptr;
    primary_made[std::size_t(dev)] = false;
    retains[std::size_t(dev)] = 0;
    sticky[std::size_t(dev)] = cudaSuccess;
    ++generation[std::size_t(dev)];
}

bool canary_intact(const Alloc *a)
{
    if (!a || a->kind == Kind::Pinned) return true;
    Open::protect1(a, PROT_READ | PROT_WRITE);
    const auto *p = reinterpret_cast<const unsigned char *>(a->base);
    std::size_t at = a->size;
    while (at < a->mapped && p[at] == kCanary) ++at;
    Open::protect1(a, PROT_NONE);
    if (at == a->mapped) return true;
    std::fprintf(stderr, "cudastub: a write past the end of the %zu-byte allocation at %p (byte %zu after it)\n",
                 a->size, reinterpret_cast<void *>(a->base), at - a->size);
    return false;
}

cudaError_t allocate(void **out, std::size_t bytes, Kind kind, int device)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    if (!out) return fail(cudaErrorInvalidValue);
    *out = nullptr;
    Context *ctx = context();
    if (!ctx) return fail(cudaErrorNoDevice);
    int code = 0;
    if (fault(kMalloc, code)) return fail(cudaError_t(code));
    if (const cudaError_t e = poisoned(device >= 0 ? device : ctx->device)) return fail(e);
    const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
    const std::size_t mapped = (std::max<std::size_t>(bytes, 1) + page - 1) / page * page;
    // CUDASTUB_MAP_BY=syscall: mapped through syscall(2), as a driver may (the
    // component's mapping hooks count that too: host_mappings.h).
    const char *map_by = std::getenv("CUDASTUB_MAP_BY");
    const bool by_syscall = map_by && std::strcmp(map_by, "syscall") == 0;
    const int prot = kind == Kind::Device ? PROT_NONE : PROT_READ | PROT_WRITE;
    void *p = by_syscall ? reinterpret_cast<void *>(syscall(SYS_mmap, nullptr, mapped, prot, MAP_PRIVATE | MAP_ANONYMOUS,
                                                            -1, 0))
                         : mmap(nullptr, mapped, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return fail(cudaErrorMemoryAllocation);
    const int dev = device >= 0 ? device : ctx->device;
    if (dev >= n_devices) return fail(cudaErrorInvalidDevice);
    if (dev != ctx->device) {   // memory of another device: its primary context's
        ctx = contexts[std::size_t(dev)].get();
        primary_made[std::size_t(dev)] = true;
    }
    // Pinned memory belongs to the allocating context too (the pointer query
    // names it; a reset of its device frees it), reachable from every device.
    const Alloc &made = allocs[reinterpret_cast<uintptr_t>(p)] = {reinterpret_cast<uintptr_t>(p), bytes, mapped, kind,
                                                                  dev, ctx};
    set_canary(made);
    *out = p;
    return cudaSuccess;
}

cudaError_t release(void *p)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    if (!p) return cudaSuccess;
    auto it = allocs.find(reinterpret_cast<uintptr_t>(p));
    if (it == allocs.end()) return fail(cudaErrorInvalidValue);
    canary_intact(&it->second);   // said on stderr; the work that wrote past the end failed already
    munmap(p, it->second.mapped);
    allocs.erase(it);
    return cudaSuccess;
}

Stream *per_thread_stream(int device)
{
    Stream *&st = per_thread[device];
    if (!st) {
        per_thread_streams.push_back(std::make_unique<Stream>());
        st = per_thread_streams.back().get();
        st->device = device;
    }
    return st;
}

Stream *stream_of(cudaStream_t s)
{
    if (s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread) {
        Context *ctx = context();
        if (!ctx) return nullptr;
        return s == cudaStreamPerThread ? per_thread_stream(ctx->device) : &legacy[std::size_t(ctx->device)];
    }
    for (auto &st : streams)
        if (st.get() == reinterpret_cast<Stream *>(s)) return st.get();
    return nullptr;
}

// Runs the work queued on st, in order; the first error is kept for the synchronise.
void run_queue(Stream &st)
{
    while (!st.queue.empty()) {
        Work w = std::move(st.queue.front());
        st.queue.pop_front();
        const cudaError_t e = w();
        if (st.pending == cudaSuccess) st.pending = e;
        if (e == cudaErrorIllegalAddress) sticky[std::size_t(st.device)] = e;
    }
}

// Every stream of `device` that the legacy default stream synchronises with.
template <class F> void each_blocking(int device, F f)
{
    for (auto &st : per_thread_streams)
        if (st->device == device) f(*st);
    for (auto &st : streams)
        if (st->device == device && st->blocking) f(*st);
}

// Enqueues work, with CUDA's implicit synchronisation of the legacy stream.
cudaError_t enqueue(Stream *st, Work w)
{
    if (st->legacy) each_blocking(st->device, run_queue);
    else if (st->blocking) run_queue(legacy[std::size_t(st->device)]);
    st->queue.push_back(std::move(w));
    return cudaSuccess;
}

// Waits for st: its queue runs (what it waits for ran when it was enqueued);
// its first error is returned and cleared. Nothing else: synchronising the
// legacy stream does not wait for work queued on other streams since.
cudaError_t synchronize(Stream *st)
{
    run_queue(*st);
    const cudaError_t e = st->pending;
    st->pending = cudaSuccess;
    return e != cudaSuccess ? e : sticky[std::size_t(st->device)];
}

void drain_all()
{
    for (Stream &l : legacy) run_queue(l);
    for (auto &st : per_thread_streams) run_queue(*st);
    for (auto &st : streams) run_queue(*st);
}

// Pageable host memory: not the stand-in's (device, managed or pinned).
bool pageable(const void *p) { return !find(p); }

// One copy of rows (height 1: a plain copy), checked when enqueued; pageable
// sources are taken at once, pageable destinations written at once.
cudaError_t copy_rows(void *dst, std::size_t dpitch, const void *src, std::size_t spitch, std::size_t width,
                      std::size_t height, cudaStream_t s)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    Stream *st = stream_of(s);
    if (!st) return fail(cudaErrorInvalidResourceHandle);
    if (const cudaError_t e = poisoned(st->device)) return fail(e);
    ++count.copies;
    int code = 0;
    if (fault(kMemcpy, code)) return fail(cudaError_t(code));
    if (width == 0 || height == 0) return cudaSuccess;
    if (width > dpitch || width > spitch) return fail(cudaErrorInvalidPitchValue);
    // Every byte of every row must lie in one allocation, or in host memory.
    const std::pair<const void *, std::size_t> ends[] = {{dst, dpitch}, {src, spitch}};
    for (const auto &[p, pitch] : ends) {
        const Alloc *a = find(p);
        if (a && reinterpret_cast<uintptr_t>(p) + (height - 1) * pitch + width > a->base + a->size)
            return fail(cudaErrorInvalidValue);
    }
    // Overlapping source and destination: undefined in CUDA, refused here.
    const auto d0 = reinterpret_cast<uintptr_t>(dst), s0 = reinterpret_cast<uintptr_t>(src);
    const uintptr_t d1 = d0 + (height - 1) * dpitch + width, s1 = s0 + (height - 1) * spitch + width;
    if (d0 < s1 && s0 < d1) {
        for (std::size_t r = 0; r < height; ++r)
            for (std::size_t q = 0; q < height; ++q)
                if (d0 + r * dpitch < s0 + q * spitch + width && s0 + q * spitch < d0 + r * dpitch + width)
                    return fail(cudaErrorInvalidValue);
    }
    auto rows = [=](const void *from) {
        {
            Open open(dst, src);
            for (std::size_t r = 0; r < height; ++r)
                std::memcpy(static_cast<char *>(dst) + r * dpitch, static_cast<const char *>(from) + r * spitch, width);
        }
        return canary_intact(find(dst)) ? cudaSuccess : cudaErrorIllegalAddress;
    };
    if (pageable(dst)) {   // synchronous: the stream's earlier work first
        run_queue(*st);
        if (fault(kCopyRun, code)) return fail(cudaError_t(code));
        return fail(rows(src));
    }
    std::shared_ptr<std::vector<char>> taken;
    if (pageable(src)) {   // staged when enqueued: the caller may reuse its buffer at once
        taken = std::make_shared<std::vector<char>>((height - 1) * spitch + width);
        std::memcpy(taken->data(), src, taken->size());
    }
    return enqueue(st, [=]() -> cudaError_t {
        int c = 0;
        if (fault(kCopyRun, c)) return cudaError_t(c);
        for (const void *p : {static_cast<const void *>(dst), src})
            if (!pageable(p) && !find(p)) return cudaErrorIllegalAddress;   // freed since
        return rows(taken ? static_cast<const void *>(taken->data()) : src);
    });
}

cudaError_t copy(void *dst, const void *src, std::size_t bytes, cudaStream_t s)
{
    return copy_rows(dst, bytes, src, bytes, bytes, 1, s);
}

} // namespace

// ---- the C++ interface -------------------------------------------------------------------
void *device_alloc(std::size_t bytes, int device)
{
    void *p = nullptr;
    allocate(&p, bytes, Kind::Device, device);
    return p;
}
void *managed_alloc(std::size_t bytes)
{
    void *p = nullptr;
    allocate(&p, bytes, Kind::Managed, -1);
    return p;
}
void *pinned_alloc(std::size_t bytes)
{
    void *p = nullptr;
    allocate(&p, bytes, Kind::Pinned, -1);
    return p;
}
void free(void *p) { release(p); }
void copy_to_device(void *dst, const void *src, std::size_t bytes)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    Open open(dst, src);
    std::memcpy(dst, src, bytes);
}
void copy_from_device(void *dst, const void *src, std::size_t bytes) { copy_to_device(dst, src, bytes); }
void drain()
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    drain_all();
    for (Stream &l : legacy) l.pending = cudaSuccess;
    for (auto &st : per_thread_streams) st->pending = cudaSuccess;
    for (auto &st : streams) st->pending = cudaSuccess;
}
bool mutated(const char *name)
{
    static const char *const names[] = {"", "thread-index", "sync-legacy", "no-sync", "no-device-scope", "pair-store",
                                        "dense-copy", "double-release", "query-as-host"};
    return name && std::strcmp(names[mutation()], name) == 0;
}
bool claims(const void *p)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    return find(p) != nullptr;
}
bool is_device(const void *p)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    const Alloc *a = find(p);
    return a && a->kind != Kind::Pinned;
}
int device_count()
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    model();
    return n_devices;
}
void *primary_context(int device)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    model();
    return device >= 0 && device < n_devices ? contexts[std::size_t(device)].get() : nullptr;
}
void *create_context(int device)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    setup();
    if (device < 0 || device >= n_devices) return nullptr;
    contexts.push_back(std::make_unique<Context>(Context{device, false}));
    return contexts.back().get();
}
void *current_context() { return current; }
bool primary_active(int device)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    model();
    return device >= 0 && device < n_devices && primary_made[std::size_t(device)];
}
void set_current_context(void *ctx) { current = static_cast<Context *>(ctx); }
void inject(Fault kind, int after, int code, int times)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    faults[kind] = {after, code, times};
}
void clear_faults()
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    for (Fault1 &f : faults) f = {};
}
Counters counters()
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    return count;
}
uint64_t calls(const char *function, const char *caller)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    uint64_t n = 0;
    for (const auto &[key, c] : call_count) {
        const std::string &f = key.first;
        const bool fn = !function || (std::strcmp(function, "cu") == 0 ? f.rfind("cu", 0) == 0 && f.rfind("cuda", 0) != 0
                                                                        : f == function);
        if (fn && (!caller || caller_names[std::size_t(key.second)].find(caller) != std::string::npos)) n += c;
    }
    return n;
}
void print_calls()
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    for (const auto &[key, c] : call_count)
        std::printf("  %-40s %-24s %llu\n", key.first.c_str(), caller_names[std::size_t(key.second)].c_str(),
                    (unsigned long long)c);
}
const void *last_launch_stream()
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    return launch_stream;
}
void register_kernel(const void *func, Binder bind)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    kernels[func] = {bind};
}

} // namespace cudastub

using namespace cudastub;

// ---- driver entry points (reached through cuGetProcAddress) ------------------------------
namespace {

CUresult CUDAAPI stub_cuPointerGetAttributes(unsigned int n, CUpointer_attribute *attrs, void **data, CUdeviceptr ptr)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    ++count.pointer_queries;
    if (!initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
    int code = 0;
    const Alloc *a = find(reinterpret_cast<const void *>(uintptr_t(ptr)));
    if (fault(kPointerQuery, code) || (!a && fault(kHostPointerQuery, code))) {
        // CUDASTUB_MUTATE=query-as-host: the component takes a failed query
        // for host memory (it sees the answer a plain host pointer gets).
        if (mutation() != kQueryAsHost || !from_component(__builtin_return_address(0))) return CUresult(code);
        a = nullptr;
    }
    for (unsigned i = 0; i < n; ++i) {
        switch (attrs[i]) {
        case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
            *static_cast<unsigned *>(data[i]) = !a ? 0u
                                              : a->kind == Kind::Pinned ? unsigned(CU_MEMORYTYPE_HOST)
                                                                        : unsigned(CU_MEMORYTYPE_DEVICE);
            break;
        case CU_POINTER_ATTRIBUTE_IS_MANAGED:
            *static_cast<unsigned *>(data[i]) = a && a->kind == Kind::Managed;
            break;
        case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
            *static_cast<int *>(data[i]) = a ? a->device : -2;
            break;
        case CU_POINTER_ATTRIBUTE_CONTEXT:
            *static_cast<CUcontext *>(data[i]) = a ? reinterpret_cast<CUcontext>(a->ctx) : nullptr;
            break;
        default: return CUDA_ERROR_INVALID_VALUE;
        }
    }
    return CUDA_SUCCESS;
}
CUresult CUDAAPI stub_cuCtxGetCurrent(CUcontext *ctx)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    if (!initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!ctx) return CUDA_ERROR_INVALID_VALUE;
    int code = 0;
    if (fault(kCtxGetCurrent, code)) return CUresult(code);
    *ctx = reinterpret_cast<CUcontext>(current);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI stub_cuCtxSetCurrent(CUcontext ctx)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    if (!initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
    int code = 0;
    if (fault(kCtxSetCurrent, code)) return CUresult(code);
    current = reinterpret_cast<Context *>(ctx);
    if (current && current->primary) primary_made[std::size_t(current->device)] = true;
    return CUDA_SUCCESS;
}
// Devices and device memory through the driver API (opframe_tune's mixed
// calls allocate this way: it links no CUDA library).
CUresult CUDAAPI stub_cuDeviceGetCount(int *count)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    if (!initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
    model();
    if (!count) return CUDA_ERROR_INVALID_VALUE;
    *count = n_devices;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI stub_cuDeviceGet(CUdevice *dev, int ordinal)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    if (!initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
    model();
    if (!dev || ordinal < 0 || ordinal >= n_devices) return CUDA_ERROR_INVALID_DEVICE;
    *dev = ordinal;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI stub_cuMemAlloc(CUdeviceptr *ptr, std::size_t bytes)
{
    COUNTED();
    if (!initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!ptr) return CUDA_ERROR_INVALID_VALUE;
    void *p = nullptr;
    if (allocate(&p, bytes, Kind::Device, -1) != cudaSuccess) return CUDA_ERROR_OUT_OF_MEMORY;
    *ptr = CUdeviceptr(reinterpret_cast<uintptr_t>(p));
    return CUDA_SUCCESS;
}
CUresult CUDAAPI stub_cuMemFree(CUdeviceptr ptr)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    if (!initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
    drain_all();
    return release(reinterpret_cast<void *>(uintptr_t(ptr))) == cudaSuccess ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
CUresult CUDAAPI stub_cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    if (!initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
    model();
    if (!ctx || dev < 0 || dev >= n_devices) return CUDA_ERROR_INVALID_DEVICE;
    primary_made[std::size_t(dev)] = true;
    ++retains[std::size_t(dev)];
    *ctx = reinterpret_cast<CUcontext>(contexts[std::size_t(dev)].get());
    return CUDA_SUCCESS;
}
// One reference released: the last one destroys the context. The runtime
// holds one on a primary context it made (until cudaDeviceReset): a release
// by someone who retained nothing drops that one, and the application's
// context, memory and streams are gone (as with a real driver).
// CUDASTUB_MUTATE=double-release: the component's release counts twice.
CUresult CUDAAPI stub_cuDevicePrimaryCtxRelease(CUdevice dev)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    if (!initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
    model();
    if (dev < 0 || dev >= n_devices) return CUDA_ERROR_INVALID_DEVICE;
    const int times = mutation() == kDoubleRelease && from_component(__builtin_return_address(0)) ? 2 : 1;
    for (int i = 0; i < times; ++i) {
        int &refs = retains[std::size_t(dev)];
        if (refs > 0) {
            --refs;
            continue;
        }
        if (!primary_made[std::size_t(dev)]) return CUDA_ERROR_INVALID_CONTEXT;
        destroy_primary(dev);   // the runtime's reference: its context, memory and streams are gone
    }
    return CUDA_SUCCESS;
}
CUresult CUDAAPI stub_cuDevicePrimaryCtxReset(CUdevice dev)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    if (!initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
    model();
    if (dev < 0 || dev >= n_devices) return CUDA_ERROR_INVALID_DEVICE;
    destroy_primary(dev);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI stub_cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    if (!initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
    model();
    if (!flags || !active || dev < 0 || dev >= n_devices) return CUDA_ERROR_INVALID_VALUE;
    *flags = 0;
    *active = primary_made[std::size_t(dev)];
    return CUDA_SUCCESS;
}

} // namespace

// ---- runtime entry points ----------------------------------------------------------------
extern "C" {

cudaError_t CUDARTAPI cudaGetLastError(void)
{
    COUNTED();
    const cudaError_t e = last_error;
    last_error = cudaSuccess;
    return e;
}
cudaError_t CUDARTAPI cudaPeekAtLastError(void)
{
    COUNTED();
    return last_error;
}
const char *CUDARTAPI cudaGetErrorName(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    case cudaErrorNoKernelImageForDevice: return "cudaErrorNoKernelImageForDevice";
    case cudaErrorInvalidDeviceFunction: return "cudaErrorInvalidDeviceFunction";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    default: return "cudaErrorUnknown";
    }
}
const char *CUDARTAPI cudaGetErrorString(cudaError_t e)
{
    return e == cudaSuccess ? "no error" : cudaGetErrorName(e);   // the stand-in's text: the name
}

cudaError_t CUDARTAPI cudaDriverGetVersion(int *v)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    setup();   // as CUDA 13's runtime does: its first call, whichever, calls cuInit
    if (!v) return fail(cudaErrorInvalidValue);
    *v = CUDART_VERSION;
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaRuntimeGetVersion(int *v)
{
    COUNTED();
    return cudaDriverGetVersion(v);
}
cudaError_t CUDARTAPI cudaGetDeviceCount(int *n)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    setup();
    if (!n) return fail(cudaErrorInvalidValue);
    *n = n_devices;
    return n_devices ? cudaSuccess : fail(cudaErrorNoDevice);
}
cudaError_t CUDARTAPI cudaGetDevice(int *dev)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    setup();
    if (!dev) return fail(cudaErrorInvalidValue);
    *dev = current ? current->device : runtime_device;   // no context current: the thread's device, none bound
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaSetDevice(int dev)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    setup();
    if (dev < 0 || dev >= n_devices) return fail(cudaErrorInvalidDevice);
    if (mutation() == kNoDeviceScope && from_component(__builtin_return_address(0))) return cudaSuccess;
    ++count.set_device;
    runtime_device = dev;
    current = contexts[std::size_t(dev)].get();   // the primary context, made current (and active)
    primary_made[std::size_t(dev)] = true;
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaDeviceGetAttribute(int *v, cudaDeviceAttr attr, int dev)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    setup();
    if (!v || dev < 0 || dev >= n_devices) return fail(cudaErrorInvalidDevice);
    switch (attr) {
    case cudaDevAttrMultiProcessorCount: *v = 4; break;
    case cudaDevAttrComputeCapabilityMajor: *v = 9; break;
    case cudaDevAttrComputeCapabilityMinor: *v = 0; break;
    case cudaDevAttrCanUseHostPointerForRegisteredMem: *v = 1; break;
    case cudaDevAttrMemoryPoolsSupported: *v = 1; break;
    default: *v = 0; break;   // pageable memory access among them: host memory is not reachable
    }
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaGetDeviceProperties(cudaDeviceProp *prop, int dev)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    setup();
    if (!prop || dev < 0 || dev >= n_devices) return fail(cudaErrorInvalidDevice);
    std::memset(prop, 0, sizeof *prop);
    std::strcpy(prop->name, "cudastub CPU device");
    prop->major = 9;
    prop->multiProcessorCount = 4;
    prop->maxThreadsPerBlock = 1024;
    prop->totalGlobalMem = std::size_t(1) << 34;
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaMemGetInfo(std::size_t *free_bytes, std::size_t *total)
{
    COUNTED();
    if (free_bytes) *free_bytes = std::size_t(1) << 33;
    if (total) *total = std::size_t(1) << 34;
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaDeviceSynchronize(void)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    Context *ctx = context();
    if (!ctx) return fail(cudaErrorNoDevice);
    cudaError_t e = synchronize(&legacy[std::size_t(ctx->device)]);
    auto all = [&](Stream &st) {
        const cudaError_t s = synchronize(&st);
        if (e == cudaSuccess) e = s;
    };
    for (auto &st : per_thread_streams)
        if (st->device == ctx->device) all(*st);
    for (auto &st : streams)
        if (st->device == ctx->device) all(*st);
    return fail(e);
}

cudaError_t CUDARTAPI cudaMalloc(void **p, std::size_t bytes)
{
    COUNTED();
    return allocate(p, bytes, Kind::Device, -1);
}
cudaError_t CUDARTAPI cudaMallocManaged(void **p, std::size_t bytes, unsigned int)
{
    COUNTED();
    return allocate(p, bytes, Kind::Managed, -1);
}
cudaError_t CUDARTAPI cudaMallocHost(void **p, std::size_t bytes)
{
    COUNTED();
    return allocate(p, bytes, Kind::Pinned, -1);
}
cudaError_t CUDARTAPI cudaFree(void *p)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    drain_all();   // cudaFree waits for the work that may use the memory
    return release(p);
}
cudaError_t CUDARTAPI cudaFreeHost(void *p)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    drain_all();
    return release(p);
}

cudaError_t CUDARTAPI cudaMemcpy(void *dst, const void *src, std::size_t bytes, cudaMemcpyKind)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    const cudaError_t e = copy(dst, src, bytes, cudaStreamLegacy);
    if (e != cudaSuccess) return e;
    return fail(synchronize(stream_of(cudaStreamLegacy)));
}
cudaError_t CUDARTAPI cudaMemcpyAsync(void *dst, const void *src, std::size_t bytes, cudaMemcpyKind,
                                      cudaStream_t s)
{
    COUNTED();
    return copy(dst, src, bytes, s);
}
// Rows of `width` bytes, `pitch` apart: every byte of every row must lie in
// one allocation (or host memory), and only those bytes are copied.
cudaError_t CUDARTAPI cudaMemcpy2DAsync(void *dst, std::size_t dpitch, const void *src, std::size_t spitch,
                                        std::size_t width, std::size_t height, cudaMemcpyKind, cudaStream_t s)
{
    COUNTED();
    // CUDASTUB_MUTATE=dense-copy: the component's range-by-range copy of a
    // padded type becomes a copy of whole elements (padding and past the true end).
    if (mutation() == kDenseCopy && height > 1 && from_component(__builtin_return_address(0))) width = dpitch;
    return copy_rows(dst, dpitch, src, spitch, width, height, s);
}
cudaError_t CUDARTAPI cudaMemset(void *dst, int value, std::size_t bytes)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    const Alloc *a = find(dst);
    if (!a || reinterpret_cast<uintptr_t>(dst) + bytes > a->base + a->size) return fail(cudaErrorInvalidValue);
    Open open(dst, dst);
    std::memset(dst, value, bytes);
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    Context *ctx = context();
    if (!s || !ctx) return fail(cudaErrorInvalidValue);
    streams.push_back(std::make_unique<Stream>());
    streams.back()->device = ctx->device;
    streams.back()->blocking = !(flags & cudaStreamNonBlocking);
    *s = reinterpret_cast<cudaStream_t>(streams.back().get());
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaStreamCreate(cudaStream_t *s) { return cudaStreamCreateWithFlags(s, 0); }
cudaError_t CUDARTAPI cudaStreamDestroy(cudaStream_t s)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    for (auto it = streams.begin(); it != streams.end(); ++it)
        if (it->get() == reinterpret_cast<Stream *>(s)) {
            run_queue(**it);   // its work still completes
            streams.erase(it);
            return cudaSuccess;
        }
    return fail(cudaErrorInvalidResourceHandle);
}
cudaError_t CUDARTAPI cudaStreamGetDevice(cudaStream_t s, int *dev)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    setup();
    if (!current && dev && (s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread)) {
        *dev = runtime_device;   // a default stream: the thread's device; no context bound
        return cudaSuccess;
    }
    Stream *st = stream_of(s);
    if (!st || !dev) return fail(cudaErrorInvalidResourceHandle);
    *dev = st->device;
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaStreamSynchronize(cudaStream_t s)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    if (mutation() == kNoSync || mutation() == kSyncLegacy) {
        if (from_component(__builtin_return_address(0))) {
            if (mutation() == kNoSync) return cudaSuccess;
            if (s == cudaStreamPerThread) s = cudaStreamLegacy;
        }
    }
    Stream *st = stream_of(s);
    if (!st) return fail(cudaErrorInvalidResourceHandle);
    int code = 0;
    if (fault(kSync, code)) return fail(cudaError_t(code));
    return fail(synchronize(st));
}

cudaError_t CUDARTAPI cudaMemPoolCreate(cudaMemPool_t *pool, const cudaMemPoolProps *props)
{
    COUNTED();
    if (!pool || !props) return fail(cudaErrorInvalidValue);
    // The driver owns a pool until cudaMemPoolDestroy, as the stand-in's
    // registry does (a pool kept for the process's life is no leak).
    std::lock_guard<std::recursive_mutex> guard(mu);
    setup();
    if (props->location.id < 0 || props->location.id >= n_devices) return fail(cudaErrorInvalidDevice);
    static std::vector<std::unique_ptr<Pool>> pools;
    pools.push_back(std::make_unique<Pool>(Pool{props->location.id, generation[std::size_t(props->location.id)]}));
    *pool = reinterpret_cast<cudaMemPool_t>(pools.back().get());
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaMemPoolSetAttribute(cudaMemPool_t, cudaMemPoolAttr, void *)
{
    COUNTED();
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaMemPoolDestroy(cudaMemPool_t pool)
{
    COUNTED();
    if (!pool) return fail(cudaErrorInvalidValue);
    return cudaSuccess;   // the registry keeps its entry (ids are never reused)
}
// A pool belongs to its device's primary context: a reset destroys it.
cudaError_t CUDARTAPI cudaMallocFromPoolAsync(void **p, std::size_t bytes, cudaMemPool_t pool, cudaStream_t s)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    const Pool *of = reinterpret_cast<const Pool *>(pool);
    if (!of || of->generation != generation[std::size_t(of->device)]) return fail(cudaErrorInvalidValue);
    // Stream-ordered: the stream is resolved as any stream call's (a default
    // stream with no context current binds the thread's device's primary one).
    if (!stream_of(s)) return fail(cudaErrorInvalidResourceHandle);
    return allocate(p, bytes, Kind::Device, of->device);
}
// The calling thread's device: its queued work dropped, its memory freed, its
// primary context destroyed (a sticky fault with it); the next use makes a new one.
cudaError_t CUDARTAPI cudaDeviceReset(void)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    setup();
    const int dev = current ? current->device : runtime_device;
    if (dev >= n_devices) return fail(cudaErrorNoDevice);
    destroy_primary(dev);
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaFreeAsync(void *p, cudaStream_t s)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    Stream *st = stream_of(s);
    if (!st) return fail(cudaErrorInvalidResourceHandle);
    if (!p) return cudaSuccess;
    if (!find(p)) return fail(cudaErrorInvalidValue);
    return enqueue(st, [p] { return release(p); });   // freed when the stream's earlier work is done
}

// The first use of a kernel loads the module into the current context (the
// runtime device's primary one when there is none): it may fail (kFuncAttributes).
cudaError_t CUDARTAPI cudaFuncGetAttributes(cudaFuncAttributes *attr, const void *func)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    if (!context()) return fail(cudaErrorNoDevice);
    if (const cudaError_t e = poisoned(current->device)) return fail(e);
    int code = 0;
    if (fault(kFuncAttributes, code)) return fail(cudaError_t(code));
    if (!attr || !kernels.count(func)) return fail(cudaErrorInvalidDeviceFunction);
    std::memset(attr, 0, sizeof *attr);
    attr->maxThreadsPerBlock = 1024;
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *func, int block,
                                                                    std::size_t)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    if (!context()) return fail(cudaErrorNoDevice);
    int code = 0;
    if (fault(kOccupancy, code)) return fail(cudaError_t(code));
    if (!blocks || !kernels.count(func) || block <= 0) return fail(cudaErrorInvalidValue);
    *blocks = std::max(1, 2048 / block);
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, std::size_t shared,
                                       cudaStream_t s)
{
    COUNTED();
    std::lock_guard<std::recursive_mutex> lock(mu);
    Context *ctx = context();
    Stream *st = stream_of(s);
    if (!st || !ctx) return fail(cudaErrorInvalidResourceHandle);
    if (st->device != ctx->device) return fail(cudaErrorInvalidResourceHandle);   // another device's stream
    if (const cudaError_t e = poisoned(st->device)) return fail(e);
    auto k = kernels.find(func);
    if (k == kernels.end()) return fail(cudaErrorInvalidDeviceFunction);
    const uint64_t threads_per_block = uint64_t(block.x) * block.y * block.z;
    if (threads_per_block == 0 || threads_per_block > 1024 || block.z > 64 || grid.x == 0 || grid.y == 0 ||
        grid.z == 0 || grid.x > 0x7fffffffu || grid.y > 65535 || grid.z > 65535 || shared > 48 * 1024)
        return fail(cudaErrorInvalidConfiguration);
    int code = 0;
    if (fault(kLaunch, code)) return fail(cudaError_t(code));
    ++count.launches;
    launch_stream = s;
    auto bound = std::shared_ptr<BoundArgs>(new BoundArgs(k->second.bind(args)), [](BoundArgs *b) {
        b->release(b->values);
        delete b;
    });
    const int device = st->device;
    const int n_pointers = bound->n_pointer;
    return enqueue(st, [=]() -> cudaError_t {
        // Every pointer argument must be memory the launch device reaches, now
        // that the kernel runs: its own device memory, managed memory, or
        // pinned host memory (mapped).
        for (int i = 0; i < n_pointers; ++i) {
            const Alloc *a = find(bound->pointer[i]);
            if (!a || (a->kind == Kind::Device && a->device != device)) return cudaErrorIllegalAddress;
        }
        // CUDASTUB_MUTATE=thread-index: every thread sees threadIdx.x + 1
        // (element 0 of each block is never computed).
        const unsigned shift = mutation() == kThreadIndex ? 1u : 0u;
        Open open(device);
        gridDim = grid;
        blockDim = block;
        for (unsigned bz = 0; bz < grid.z; ++bz)
            for (unsigned by = 0; by < grid.y; ++by)
                for (unsigned bx = 0; bx < grid.x; ++bx)
                    for (unsigned tz = 0; tz < block.z; ++tz)
                        for (unsigned ty = 0; ty < block.y; ++ty)
                            for (unsigned tx = 0; tx < block.x; ++tx) {
                                blockIdx = {bx, by, bz};
                                threadIdx = {tx + shift, ty, tz};
                                bound->call(func, bound->values);
                            }
        count.threads += uint64_t(grid.x) * grid.y * grid.z * threads_per_block;
        bool intact = true;
        for (int i = 0; i < n_pointers; ++i) intact &= canary_intact(find(bound->pointer[i]));
        return intact ? cudaSuccess : cudaErrorIllegalAddress;
    });
}

// ---- the driver library's own exports (libcuda.so.1 is a link to this library) ----------
CUresult CUDAAPI cuInit(unsigned int flags)
{
    COUNTED();
    if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
    init_driver();
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDriverGetVersion(int *v)
{
    COUNTED();
    if (!v) return CUDA_ERROR_INVALID_VALUE;
    *v = CUDART_VERSION;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **fn, int, cuuint64_t,
                                  CUdriverProcAddressQueryResult *status)
{
    COUNTED();
    struct Entry {
        const char *name;
        void *fn;
    };
    static const Entry entries[] = {
        {"cuInit", reinterpret_cast<void *>(&cuInit)},
        {"cuDriverGetVersion", reinterpret_cast<void *>(&cuDriverGetVersion)},
        {"cuPointerGetAttributes", reinterpret_cast<void *>(&stub_cuPointerGetAttributes)},
        {"cuCtxGetCurrent", reinterpret_cast<void *>(&stub_cuCtxGetCurrent)},
        {"cuCtxSetCurrent", reinterpret_cast<void *>(&stub_cuCtxSetCurrent)},
        {"cuDevicePrimaryCtxRetain", reinterpret_cast<void *>(&stub_cuDevicePrimaryCtxRetain)},
        {"cuDevicePrimaryCtxRelease", reinterpret_cast<void *>(&stub_cuDevicePrimaryCtxRelease)},
        {"cuDevicePrimaryCtxGetState", reinterpret_cast<void *>(&stub_cuDevicePrimaryCtxGetState)},
        {"cuDevicePrimaryCtxReset", reinterpret_cast<void *>(&stub_cuDevicePrimaryCtxReset)},
        {"cuDeviceGetCount", reinterpret_cast<void *>(&stub_cuDeviceGetCount)},
        {"cuDeviceGet", reinterpret_cast<void *>(&stub_cuDeviceGet)},
        {"cuMemAlloc", reinterpret_cast<void *>(&stub_cuMemAlloc)},
        {"cuMemFree", reinterpret_cast<void *>(&stub_cuMemFree)},
    };
    if (!symbol || !fn) return CUDA_ERROR_INVALID_VALUE;
    *fn = nullptr;
    for (const Entry &e : entries)
        if (std::strcmp(e.name, symbol) == 0) *fn = e.fn;
    if (status) *status = *fn ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return *fn ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

// The runtime's way to the same entry points (a runtime call: it initialises the driver).
cudaError_t CUDARTAPI cudaGetDriverEntryPointByVersion(const char *symbol, void **fn, unsigned int version,
                                                       unsigned long long flags, cudaDriverEntryPointQueryResult *status)
{
    {
        std::lock_guard<std::recursive_mutex> lock(mu);
        setup();
    }
    if (!symbol || !fn) return fail(cudaErrorInvalidValue);
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    cuGetProcAddress(symbol, fn, int(version), flags, &found);
    if (status) *status = found == CU_GET_PROC_ADDRESS_SUCCESS ? cudaDriverEntryPointSuccess
                                                                : cudaDriverEntryPointSymbolNotFound;
    return cudaSuccess;
}

} // extern "C"
