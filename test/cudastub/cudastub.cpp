// cudastub.cpp — the stand-in CUDA runtime on the CPU (see cudastub.h).
//
// Declared by the toolkit's own headers (cuda_runtime_api.h, cuda.h), so the
// entry points have exactly the names (versioned ones included), types and
// enum values the cuda component was compiled against. One mutex serialises
// every operation: the model is simple, not fast.
#include "test/cudastub/cudastub.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
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
struct Stream {
    int device;
    cudaError_t pending = cudaSuccess;   // reported by the next synchronise
};
struct Kernel {
    Invoker invoke;
    unsigned pointers;
};
struct Fault1 {
    int after = 0;
    int code = 0;
    int times = 0;
};

std::recursive_mutex mu;
int n_devices = 0;
std::vector<std::unique_ptr<Context>> contexts;   // [0, n_devices): the primary ones
std::vector<bool> primary_active;
std::map<uintptr_t, Alloc> allocs;
std::map<const void *, Kernel> kernels;
std::vector<std::unique_ptr<Stream>> streams;
std::vector<Stream> legacy;   // per device: the legacy / per-thread default streams (one model for both)
Fault1 faults[kFaultCount];
Counters count{};
const void *launch_stream = nullptr;   // as the last launch was given it
thread_local Context *current = nullptr;
thread_local cudaError_t last_error = cudaSuccess;
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
    primary_active.assign(std::size_t(n_devices), false);
    legacy.resize(std::size_t(n_devices));
    for (int d = 0; d < n_devices; ++d) legacy[std::size_t(d)].device = d;
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

// The runtime's rule: a call that needs a context and finds none current makes
// device 0's primary context current (and active).
Context *context()
{
    setup();
    if (!current && n_devices) {
        current = contexts[0].get();
        primary_active[0] = true;
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

cudaError_t allocate(void **out, std::size_t bytes, Kind kind, int device)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    if (!out) return fail(cudaErrorInvalidValue);
    *out = nullptr;
    Context *ctx = context();
    if (!ctx) return fail(cudaErrorNoDevice);
    int code = 0;
    if (fault(kMalloc, code)) return fail(cudaError_t(code));
    const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
    const std::size_t mapped = (std::max<std::size_t>(bytes, 1) + page - 1) / page * page;
    void *p = mmap(nullptr, mapped, kind == Kind::Device ? PROT_NONE : PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return fail(cudaErrorMemoryAllocation);
    const int dev = device >= 0 ? device : ctx->device;
    if (dev >= n_devices) return fail(cudaErrorInvalidDevice);
    if (dev != ctx->device) {   // memory of another device: its primary context's
        ctx = contexts[std::size_t(dev)].get();
        primary_active[std::size_t(dev)] = true;
    }
    allocs[reinterpret_cast<uintptr_t>(p)] = {reinterpret_cast<uintptr_t>(p), bytes, mapped, kind, dev,
                                              kind == Kind::Pinned ? nullptr : ctx};
    *out = p;
    return cudaSuccess;
}

cudaError_t release(void *p)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    if (!p) return cudaSuccess;
    auto it = allocs.find(reinterpret_cast<uintptr_t>(p));
    if (it == allocs.end()) return fail(cudaErrorInvalidValue);
    munmap(p, it->second.mapped);
    allocs.erase(it);
    return cudaSuccess;
}

Stream *stream_of(cudaStream_t s)
{
    if (s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread) {
        Context *ctx = context();
        return ctx ? &legacy[std::size_t(ctx->device)] : nullptr;
    }
    for (auto &st : streams)
        if (st.get() == reinterpret_cast<Stream *>(s)) return st.get();
    return nullptr;
}

// Work on a stream: an error of the work itself is kept for the synchronise.
cudaError_t enqueue_result(Stream *st, cudaError_t e)
{
    if (st->pending == cudaSuccess) st->pending = e;
    return cudaSuccess;
}

cudaError_t copy(void *dst, const void *src, std::size_t bytes, cudaStream_t s)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    Stream *st = stream_of(s);
    if (!st) return fail(cudaErrorInvalidResourceHandle);
    ++count.copies;
    int code = 0;
    if (fault(kMemcpy, code)) return fail(cudaError_t(code));
    if (bytes == 0) return cudaSuccess;
    // Both ranges must lie inside one allocation each, or be host memory.
    for (const void *p : {static_cast<const void *>(dst), src}) {
        const Alloc *a = find(p);
        if (a && reinterpret_cast<uintptr_t>(p) + bytes > a->base + a->size) return fail(cudaErrorInvalidValue);
    }
    Open open(dst, src);
    std::memmove(dst, src, bytes);
    return cudaSuccess;
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
void copy_to_device(void *dst, const void *src, std::size_t bytes) { copy(dst, src, bytes, cudaStreamLegacy); }
void copy_from_device(void *dst, const void *src, std::size_t bytes) { copy(dst, src, bytes, cudaStreamLegacy); }
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
const void *last_launch_stream()
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    return launch_stream;
}
void register_kernel(const void *func, Invoker invoke, unsigned pointer_args)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    kernels[func] = {invoke, pointer_args};
}

} // namespace cudastub

using namespace cudastub;

// ---- driver entry points (reached through cuGetProcAddress) ------------------------------
namespace {

CUresult CUDAAPI stub_cuPointerGetAttributes(unsigned int n, CUpointer_attribute *attrs, void **data, CUdeviceptr ptr)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    ++count.pointer_queries;
    if (!initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
    int code = 0;
    if (fault(kPointerQuery, code)) return CUresult(code);
    const Alloc *a = find(reinterpret_cast<const void *>(uintptr_t(ptr)));
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
    if (!initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!ctx) return CUDA_ERROR_INVALID_VALUE;
    *ctx = reinterpret_cast<CUcontext>(current);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI stub_cuCtxSetCurrent(CUcontext ctx)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    if (!initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
    current = reinterpret_cast<Context *>(ctx);
    if (current && current->primary) primary_active[std::size_t(current->device)] = true;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI stub_cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    if (!initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
    model();
    if (!ctx || dev < 0 || dev >= n_devices) return CUDA_ERROR_INVALID_DEVICE;
    primary_active[std::size_t(dev)] = true;
    *ctx = reinterpret_cast<CUcontext>(contexts[std::size_t(dev)].get());
    return CUDA_SUCCESS;
}
CUresult CUDAAPI stub_cuDevicePrimaryCtxRelease(CUdevice) { return CUDA_SUCCESS; }
CUresult CUDAAPI stub_cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    if (!initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
    model();
    if (!flags || !active || dev < 0 || dev >= n_devices) return CUDA_ERROR_INVALID_VALUE;
    *flags = 0;
    *active = primary_active[std::size_t(dev)];
    return CUDA_SUCCESS;
}

} // namespace

// ---- runtime entry points ----------------------------------------------------------------
extern "C" {

cudaError_t CUDARTAPI cudaGetLastError(void)
{
    const cudaError_t e = last_error;
    last_error = cudaSuccess;
    return e;
}
cudaError_t CUDARTAPI cudaPeekAtLastError(void) { return last_error; }
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
    std::lock_guard<std::recursive_mutex> lock(mu);
    setup();   // as CUDA 13's runtime does: its first call, whichever, calls cuInit
    if (!v) return fail(cudaErrorInvalidValue);
    *v = CUDART_VERSION;
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaRuntimeGetVersion(int *v) { return cudaDriverGetVersion(v); }
cudaError_t CUDARTAPI cudaGetDeviceCount(int *n)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    setup();
    if (!n) return fail(cudaErrorInvalidValue);
    *n = n_devices;
    return n_devices ? cudaSuccess : fail(cudaErrorNoDevice);
}
cudaError_t CUDARTAPI cudaGetDevice(int *dev)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    setup();
    if (!dev) return fail(cudaErrorInvalidValue);
    *dev = current ? current->device : 0;   // the runtime's answer with no context current: device 0
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaSetDevice(int dev)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    setup();
    if (dev < 0 || dev >= n_devices) return fail(cudaErrorInvalidDevice);
    ++count.set_device;
    current = contexts[std::size_t(dev)].get();   // the primary context, made current (and active)
    primary_active[std::size_t(dev)] = true;
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaDeviceGetAttribute(int *v, cudaDeviceAttr attr, int dev)
{
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
    if (free_bytes) *free_bytes = std::size_t(1) << 33;
    if (total) *total = std::size_t(1) << 34;
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaDeviceSynchronize(void)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    Context *ctx = context();
    if (!ctx) return fail(cudaErrorNoDevice);
    cudaError_t e = cudaSuccess;
    for (Stream &s : legacy) {
        if (e == cudaSuccess) e = s.pending;
        s.pending = cudaSuccess;
    }
    for (auto &s : streams) {
        if (e == cudaSuccess) e = s->pending;
        s->pending = cudaSuccess;
    }
    return fail(e);
}

cudaError_t CUDARTAPI cudaMalloc(void **p, std::size_t bytes) { return allocate(p, bytes, Kind::Device, -1); }
cudaError_t CUDARTAPI cudaMallocManaged(void **p, std::size_t bytes, unsigned int)
{
    return allocate(p, bytes, Kind::Managed, -1);
}
cudaError_t CUDARTAPI cudaMallocHost(void **p, std::size_t bytes) { return allocate(p, bytes, Kind::Pinned, -1); }
cudaError_t CUDARTAPI cudaFree(void *p) { return release(p); }
cudaError_t CUDARTAPI cudaFreeHost(void *p) { return release(p); }

cudaError_t CUDARTAPI cudaMemcpy(void *dst, const void *src, std::size_t bytes, cudaMemcpyKind)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    const cudaError_t e = copy(dst, src, bytes, cudaStreamLegacy);
    if (e != cudaSuccess) return e;
    Stream *st = stream_of(cudaStreamLegacy);
    const cudaError_t p = st->pending;
    st->pending = cudaSuccess;
    return fail(p);
}
cudaError_t CUDARTAPI cudaMemcpyAsync(void *dst, const void *src, std::size_t bytes, cudaMemcpyKind,
                                      cudaStream_t s)
{
    return copy(dst, src, bytes, s);
}
// Rows of `width` bytes, `pitch` apart: every byte of every row must lie in
// one allocation (or host memory), and only those bytes are copied.
cudaError_t CUDARTAPI cudaMemcpy2DAsync(void *dst, std::size_t dpitch, const void *src, std::size_t spitch,
                                        std::size_t width, std::size_t height, cudaMemcpyKind, cudaStream_t s)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    Stream *st = stream_of(s);
    if (!st) return fail(cudaErrorInvalidResourceHandle);
    ++count.copies;
    int code = 0;
    if (fault(kMemcpy, code)) return fail(cudaError_t(code));
    if (width == 0 || height == 0) return cudaSuccess;
    if (width > dpitch || width > spitch) return fail(cudaErrorInvalidPitchValue);
    const std::pair<const void *, std::size_t> ends[] = {{dst, dpitch}, {src, spitch}};
    for (const auto &[p, pitch] : ends) {
        const Alloc *a = find(p);
        if (a && reinterpret_cast<uintptr_t>(p) + (height - 1) * pitch + width > a->base + a->size)
            return fail(cudaErrorInvalidValue);
    }
    Open open(dst, src);
    for (std::size_t r = 0; r < height; ++r)
        std::memmove(static_cast<char *>(dst) + r * dpitch, static_cast<const char *>(src) + r * spitch, width);
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaMemset(void *dst, int value, std::size_t bytes)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    const Alloc *a = find(dst);
    if (!a || reinterpret_cast<uintptr_t>(dst) + bytes > a->base + a->size) return fail(cudaErrorInvalidValue);
    Open open(dst, dst);
    std::memset(dst, value, bytes);
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    Context *ctx = context();
    if (!s || !ctx) return fail(cudaErrorInvalidValue);
    streams.push_back(std::make_unique<Stream>());
    streams.back()->device = ctx->device;
    *s = reinterpret_cast<cudaStream_t>(streams.back().get());
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaStreamCreate(cudaStream_t *s) { return cudaStreamCreateWithFlags(s, 0); }
cudaError_t CUDARTAPI cudaStreamDestroy(cudaStream_t s)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    for (auto it = streams.begin(); it != streams.end(); ++it)
        if (it->get() == reinterpret_cast<Stream *>(s)) {
            streams.erase(it);
            return cudaSuccess;
        }
    return fail(cudaErrorInvalidResourceHandle);
}
cudaError_t CUDARTAPI cudaStreamGetDevice(cudaStream_t s, int *dev)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    Stream *st = stream_of(s);
    if (!st || !dev) return fail(cudaErrorInvalidResourceHandle);
    *dev = st->device;
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaStreamSynchronize(cudaStream_t s)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    Stream *st = stream_of(s);
    if (!st) return fail(cudaErrorInvalidResourceHandle);
    int code = 0;
    if (fault(kSync, code)) return fail(cudaError_t(code));
    const cudaError_t e = st->pending;
    st->pending = cudaSuccess;
    return fail(e);
}

cudaError_t CUDARTAPI cudaMemPoolCreate(cudaMemPool_t *pool, const cudaMemPoolProps *props)
{
    if (!pool || !props) return fail(cudaErrorInvalidValue);
    // The driver owns a pool until cudaMemPoolDestroy, as the stand-in's
    // registry does (a pool kept for the process's life is no leak).
    static std::mutex lock;
    static std::vector<std::unique_ptr<int>> pools;
    std::lock_guard guard(lock);
    pools.push_back(std::make_unique<int>(props->location.id));
    *pool = reinterpret_cast<cudaMemPool_t>(pools.back().get());
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaMemPoolSetAttribute(cudaMemPool_t, cudaMemPoolAttr, void *) { return cudaSuccess; }
cudaError_t CUDARTAPI cudaMemPoolDestroy(cudaMemPool_t pool)
{
    if (!pool) return fail(cudaErrorInvalidValue);
    return cudaSuccess;   // the registry keeps its entry (ids are never reused)
}
cudaError_t CUDARTAPI cudaMallocFromPoolAsync(void **p, std::size_t bytes, cudaMemPool_t pool, cudaStream_t)
{
    return allocate(p, bytes, Kind::Device, *reinterpret_cast<int *>(pool));
}
cudaError_t CUDARTAPI cudaFreeAsync(void *p, cudaStream_t) { return release(p); }

cudaError_t CUDARTAPI cudaFuncGetAttributes(cudaFuncAttributes *attr, const void *func)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    if (!attr || !kernels.count(func)) return fail(cudaErrorInvalidDeviceFunction);
    std::memset(attr, 0, sizeof *attr);
    attr->maxThreadsPerBlock = 1024;
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *func, int block,
                                                                    std::size_t)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    if (!blocks || !kernels.count(func) || block <= 0) return fail(cudaErrorInvalidValue);
    *blocks = std::max(1, 2048 / block);
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, std::size_t shared,
                                       cudaStream_t s)
{
    std::lock_guard<std::recursive_mutex> lock(mu);
    Stream *st = stream_of(s);
    if (!st) return fail(cudaErrorInvalidResourceHandle);
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
    // Every pointer argument must be memory the launch device reaches: its own
    // device memory, managed memory, or pinned host memory (mapped).
    for (unsigned i = 0; i < 32; ++i) {
        if (!(k->second.pointers >> i & 1)) continue;
        const void *p = *static_cast<void *const *>(args[i]);
        const Alloc *a = find(p);
        if (!a || (a->kind == Kind::Device && a->device != st->device)) return enqueue_result(st, cudaErrorIllegalAddress);
    }
    // CUDASTUB_MUTATE=thread-index: every thread sees threadIdx.x + 1, the
    // mutation the tests must catch (element 0 of each block is never computed).
    static const unsigned mutate_thread_index = [] {
        const char *m = std::getenv("CUDASTUB_MUTATE");
        return m && std::strcmp(m, "thread-index") == 0 ? 1u : 0u;
    }();
    Open open(st->device);
    gridDim = grid;
    blockDim = block;
    for (unsigned bz = 0; bz < grid.z; ++bz)
        for (unsigned by = 0; by < grid.y; ++by)
            for (unsigned bx = 0; bx < grid.x; ++bx)
                for (unsigned tz = 0; tz < block.z; ++tz)
                    for (unsigned ty = 0; ty < block.y; ++ty)
                        for (unsigned tx = 0; tx < block.x; ++tx) {
                            blockIdx = {bx, by, bz};
                            threadIdx = {tx + mutate_thread_index, ty, tz};
                            k->second.invoke(func, args);
                        }
    count.threads += uint64_t(grid.x) * grid.y * grid.z * threads_per_block;
    return cudaSuccess;
}

// ---- the driver library's own exports (libcuda.so.1 is a link to this library) ----------
CUresult CUDAAPI cuInit(unsigned int flags)
{
    if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
    init_driver();
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDriverGetVersion(int *v)
{
    if (!v) return CUDA_ERROR_INVALID_VALUE;
    *v = CUDART_VERSION;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **fn, int, cuuint64_t,
                                  CUdriverProcAddressQueryResult *status)
{
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
