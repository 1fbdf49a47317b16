/*
 * opf_op_cuda.cpp — the cuda component: reductions on NVIDIA GPU memory.
 *
 * It registers the memory kind "cuda" and claims device memory and managed
 * memory for it, so that
 * opf_reduce_local / opf_reduce_local3 on such buffers run on the GPU, and
 * offers stream kernels for opf_reduce_local_stream (include/opframe/cuda.h:
 * opf_cuda_reduce_local, ... on a cudaStream_t).
 *
 * Slots: every (op, kernel type) the GPU computes exactly — integers of 8 to
 * 64 bits, float16, bfloat16, fp8 (base::Narrow: in float, storage.h's
 * rounding), float, double, complex float / double, the
 * MAXLOC / MINLOC pairs but the long double one — and REPLACE / NO_OP on every
 * kernel type (byte copies). Not int128, long double, float128: a call on
 * device memory with those fails with OPF_ERR_BUFFER ("no component serves
 * this op on it"). Results are the base's, bit for bit (cuda_ops.h).
 *
 * Synchronous calls (opf_reduce_local / opf_reduce_local3): the framework
 * hands over the caller's pointers whenever ONE of them is device or managed
 * memory. The rule for the others:
 *   - the call runs on the "home" device: op_cuda_device if set, else the
 *     device holding the output buffer, else the one holding an input, else
 *     (managed memory only) the calling thread's current device when it has
 *     a context, else the managed memory's device (home_device);
 *   - device memory of the home device and managed memory are used in place;
 *   - any other operand (host memory, pinned or not, or another device's
 *     memory) is copied into scratch memory on the home device first, and a
 *     result whose output is not in place is copied back to it;
 *   - a mixed call (some operand in host memory) of fewer than
 *     op_cuda_staging_min_count elements instead copies the device operands
 *     to the host, computes there (the same functors) and copies the result
 *     back (by default never: staging measured faster at every count);
 *   - when device scratch cannot be had, or the device has no kernel image
 *     for its architecture, the call also takes that host path.
 * The call returns when the result is in place (it synchronises the calling
 * thread's per-thread default stream of the home device). The caller must
 * make sure that no work still writes the buffers (as MPI requires).
 * Work runs on cudaStreamPerThread, so concurrent calls from different threads
 * do not serialise.
 *
 * Stream calls (opf_reduce_local_stream, memory kind "cuda"): enqueued on
 * the caller's stream, on the stream's device, and return at once. Every
 * buffer must be accessible from that device: its device memory, managed
 * memory, pinned host memory mapped into the device, or (on devices with
 * pageable memory access, e.g. HMM / Grace) any host memory. Otherwise the
 * call fails with OPF_ERR_BUFFER and enqueues nothing (a kernel touching
 * inaccessible memory would corrupt the caller's context);
 * op_cuda_stream_check=false skips this check (one driver query per buffer).
 * REPLACE / NO_OP enqueue cudaMemcpyAsync, which accepts any memory.
 *
 * A synchronous call that fails returns its OPF_* code to the caller of
 * opf_reduce_local with the reason (opf_last_error); failures are also
 * counted in op_cuda_errors and printed when op_cuda_verbose is > 0. Nothing
 * aborts.
 *
 * The CUDA runtime is linked statically: the module loads on machines without
 * CUDA libraries, and init_query disqualifies it with the reason (no driver,
 * driver too old; no device only with op_cuda_lazy_init=false). init_query
 * does not initialise the driver: that happens at the first call that needs
 * it, and host-memory calls before anyone initialised it ask no pointer query
 * (see "the driver" below); buffers in the program's image, on the heap or on
 * a stack cost no driver call at all (the framework does not ask about them).
 * Device pointers and streams of the application's
 * own runtime work because both use the driver's primary context of each
 * device (as with NCCL, which links the runtime statically too). Memory of
 * other contexts (cuCtxCreate, green contexts) and buffers the driver's
 * pointer query cannot classify are refused with OPF_ERR_BUFFER: a kernel in
 * the primary context would fault on them, and host code would crash; but a
 * buffer whose query fails in a private anonymous read-write mapping is host
 * memory (plain_host_mapping), reduced as such.
 * The calling thread's current context is restored exactly after a call
 * (none stays none; a context of the application's own stays current).
 *
 * Data bytes only (component.h): every copy of a padded type (pairs, long
 * double) goes range by range (cudaMemcpy2DAsync), and nothing is read or
 * written past the last element's data (MPI's true extent).
 *
 * Parameters:
 *   op_cuda_priority           priority of its offers (default 60)
 *   op_cuda_device             -1: follow the buffers; N: synchronous calls run on device N
 *   op_cuda_block_size         threads per block (default 1: staged)
 *   op_cuda_max_blocks         most blocks per launch (default 2^30: a thread per work item); 0: SMs x resident blocks per SM
 *   op_cuda_staging_min_count  mixed host/device calls below this count run on the host (default 1: staged)
 *   op_cuda_scratch_cache      bytes of staging scratch kept per device between calls (default 64M)
 *   op_cuda_stream_check       check that stream-call buffers are device-accessible (default true)
 *   op_cuda_lazy_init          initialise the driver at first need, not at opf_init (default true)
 *   op_cuda_host_cache         count the driver's mapping calls, so that host mappings are remembered (default true)
 *   op_cuda_host_cache_state   read-only: whether they are, and if not, why
 *   op_cuda_driver_mappings    read-only: the driver's mapping calls since opf_init
 *   op_cuda_verbose            > 0: print CUDA failures to stderr
 *   op_cuda_errors             read-only: CUDA failures in synchronous calls so far
 *   op_cuda_devices            read-only: the CUDA devices found, and the architectures built for
 */
#include <opframe/component.h>
#include <opframe/component_device.h>
#include <opframe/introspect.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <cuda.h>   // driver API types only: the functions come from cuGetProcAddress
#include <cuda_runtime_api.h>

#include "base/matrix.h"
#include "base/proc_maps.h"
#include "base/storage.h"
#include "base/type_list.h"
#include "cuda_kernels.h"
#include "host_mappings.h"

// Weak: a framework older than it asks the per-buffer claim hook instead,
// and remembers no host mapping.
extern "C" int opf_memory_kind_set_claims(int kind, opf_memory_claims_fn *claims) __attribute__((weak));
extern "C" int opf_memory_kind_set_mapping_count(int kind, const uint64_t *count) __attribute__((weak));

namespace {

using opf_cuda::Geometry;
using opf_cuda::NaryKernel;
using opf_cuda::SlotKernel;
namespace base = opf::base;

// ---- parameters ------------------------------------------------------------------
int64_t priority = 60;
int64_t device_param = -1;
int64_t block_size = 256;
// A thread per work item by default: on an NVIDIA H200 the
// 2-buffer calls went from 0.94-0.95 to 0.96-0.98 of copy speed at 256 MiB,
// the 3-buffer ones from 0.97 to 1.00-1.02, against a grid of resident blocks.
int64_t max_blocks_param = int64_t(1) << 30;
// Measured on an NVIDIA H200 (cuda_bench section 3, float SUM, host
// in, device inout): staging faster at every count from 1 in two of three
// runs (13.9 vs 14.8 us at 1, 16.4 vs 23.5 at 4096), and in the third at
// every count but 16 and 64: the host path stays for what cannot be staged.
int64_t staging_min_count = 1;
int64_t scratch_cache = 64 << 20;
int stream_check = 1;
int lazy_init = 1;
int64_t verbose = 0;
int64_t errors = 0;
const char *devices_text = "";
std::string devices_storage;
int host_cache = 1;
char host_cache_text[256] = "";
const char *host_cache_state = host_cache_text;

const char *const op_names[OPF_OPID_COUNT] = {"OP_NULL", "MAX", "MIN", "SUM", "PROD", "LAND", "BAND", "LOR",
                                              "BOR", "LXOR", "BXOR", "MAXLOC", "MINLOC", "REPLACE", "NO_OP", "AVG"};
static_assert(OPF_OPID_AVG == 15 && OPF_OPID_COUNT == 16, "op_names names every predefined op");

// ---- the driver ----------------------------------------------------------------------
// The component opens libcuda.so.1 itself and takes its entry points from
// cuGetProcAddress: neither initialises the driver. Any call into the CUDA
// runtime would: CUDA 13's static runtime calls cuInit on its first call,
// cudaDriverGetVersion included (seen with test/cuda_fake_driver.c). So
// opf_init costs a host-only process no cuInit (0.1 s to seconds, and CUDA
// unusable in children forked afterwards): the runtime and the devices are
// set up at the first call that needs them (set_up_devices).
using GetProcAddress = CUresult (*)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
struct Driver {
    CUresult (*pointer_attributes)(unsigned int, CUpointer_attribute *, void **, CUdeviceptr);
    CUresult (*ctx_get_current)(CUcontext *);
    CUresult (*ctx_set_current)(CUcontext);
    CUresult (*primary_state)(CUdevice, unsigned int *, int *);
    CUresult (*primary_retain)(CUcontext *, CUdevice);
    CUresult (*primary_release)(CUdevice);
};
Driver driver{};
void *driver_library = nullptr;   // libcuda.so.1, opened by open_driver and kept
int driver_version = 0;

// Whether anyone in this process (the application, a library, this component)
// has initialised the driver: before that no device memory can exist. Asked
// of the driver (one cuCtxGetCurrent, which answers CUDA_ERROR_NOT_INITIALIZED
// until cuInit) until it says yes; that is remembered.
std::atomic<bool> driver_live{false};
bool driver_initialised()
{
    if (driver_live.load(std::memory_order_relaxed)) [[likely]] return true;
    CUcontext ctx = nullptr;
    if (!driver.ctx_get_current || driver.ctx_get_current(&ctx) == CUDA_ERROR_NOT_INITIALIZED) return false;
    driver_live.store(true, std::memory_order_relaxed);
    return true;
}

// The primary context of `dev` when it is active, else nullptr (no memory of it
// can exist then); the retain does not create it, and is given back at once.
CUcontext primary_context(int dev)
{
    unsigned flags = 0;
    int active = 0;
    CUcontext ctx = nullptr;
    if (driver.primary_state(dev, &flags, &active) != CUDA_SUCCESS || !active) return nullptr;
    if (driver.primary_retain(&ctx, dev) != CUDA_SUCCESS) return nullptr;
    driver.primary_release(dev);
    return ctx;
}

// ---- devices -----------------------------------------------------------------------

struct Device {
    std::mutex mutex;             // the first use (use_device)
    bool attributes_read = false;
    std::atomic<bool> probed{false};   // the kernel probe answered (usable says how)
    std::atomic<CUcontext> probed_in{nullptr};   // in this context: a reset destroys its module and pool
    std::atomic<bool> usable{false};   // kernels load here
    int sm_count = 1;
    bool pageable_access = false; // host pageable memory is device-accessible
    bool host_pointer_ok = false; // registered host memory is usable at its host address
    std::atomic<cudaMemPool_t> pool{nullptr};   // staging scratch (nullptr: cudaMalloc / cudaFree)
    std::atomic<int64_t> grid[OPF_OPID_COUNT][OPF_KT_COUNT] = {};   // (block << 32) | max blocks; 0 unknown
    std::atomic<int64_t> grid_n[OPF_OPID_COUNT][OPF_KT_COUNT][opf_cuda::kNaryForms] = {};   // the n-ary kernels'
    std::atomic<CUcontext> primary{nullptr};   // its primary context as last seen (a reset makes a new one)
};
int n_devices = 0;
std::unique_ptr<Device[]> devices;
int extent_of[OPF_KT_COUNT];

// The devices are set up once, at the first call that needs them (or at
// init_query when op_cuda_lazy_init is false); the outcome is kept.
enum SetupState { kNotSetUp, kSetUp, kSetupFailed };
std::atomic<int> setup_state{kNotSetUp};
int setup_code = OPF_SUCCESS;
char setup_reason[512];
std::mutex setup_mutex;
int set_up_devices(bool list);

// OPF_SUCCESS once the devices are set up, else the code of why not (the
// reason in setup_reason).
int devices_ready(bool list = false)
{
    int state = setup_state.load(std::memory_order_acquire);
    if (state == kNotSetUp) [[unlikely]] {
        std::lock_guard<std::mutex> lock(setup_mutex);
        state = setup_state.load(std::memory_order_relaxed);
        if (state == kNotSetUp) {
            setup_code = set_up_devices(list);
            state = setup_code == OPF_SUCCESS ? kSetUp : kSetupFailed;
            setup_state.store(state, std::memory_order_release);
        }
    }
    return state == kSetUp ? OPF_SUCCESS : setup_code;
}

// The same, made the calling thread's error when the devices are unusable.
int require_devices()
{
    const int rc = devices_ready();
    return rc == OPF_SUCCESS ? rc : opf_component_set_error(rc, "%s", setup_reason);
}

// Where each kernel type's data bytes are (component.h: kernels and copies
// touch them only: not a pair's padding, not past the last element's data).
struct TypeBytes {
    base::DataLayout layout;
    size_t size, end;   // sizeof, and where an element's data ends
    size_t true_bytes(int64_t n) const { return n > 0 ? size_t(n - 1) * size + end : 0; }
    bool dense() const { return layout.dense(size); }
};
template <std::size_t... K> constexpr std::array<TypeBytes, OPF_KT_COUNT> make_type_bytes(std::index_sequence<K...>)
{
    return {{TypeBytes{base::data_layout<base::at_t<K, base::KernelTypes>>, sizeof(base::at_t<K, base::KernelTypes>),
                       base::data_end<base::at_t<K, base::KernelTypes>>}...}};
}
constexpr auto type_bytes = make_type_bytes(std::make_index_sequence<OPF_KT_COUNT>{});

// dst = src for n elements of kt, data bytes only, enqueued on `stream`: one
// copy of the true extent when an element has no padding, else one strided
// copy per data range.
cudaError_t copy_data(void *dst, const void *src, int64_t n, int kt, cudaStream_t stream)
{
    const TypeBytes &t = type_bytes[kt];
    if (n <= 0) return cudaSuccess;
    if (t.dense()) return cudaMemcpyAsync(dst, src, t.true_bytes(n), cudaMemcpyDefault, stream);
    for (int r = 0; r < t.layout.count; ++r) {
        const base::ByteRange &range = t.layout.range[r];
        const cudaError_t e = cudaMemcpy2DAsync(static_cast<char *>(dst) + range.offset, t.size,
                                                static_cast<const char *>(src) + range.offset, t.size, range.size,
                                                size_t(n), cudaMemcpyDefault, stream);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

// The same between two host buffers.
void host_copy_data(void *dst, const void *src, int64_t n, int kt)
{
    const TypeBytes &t = type_bytes[kt];
    if (n <= 0) return;
    if (t.dense()) {
        std::memmove(dst, src, t.true_bytes(n));
        return;
    }
    for (int64_t i = 0; i < n; ++i)
        for (int r = 0; r < t.layout.count; ++r) {
            const size_t at = size_t(i) * t.size + t.layout.range[r].offset;
            std::memmove(static_cast<char *>(dst) + at, static_cast<const char *>(src) + at, t.layout.range[r].size);
        }
}

// A CUDA failure: counted (op_cuda_errors), printed when op_cuda_verbose > 0,
// and made the calling thread's reason; returns `code` for the kernel to return.
[[gnu::format(printf, 2, 3)]] int failure(int code, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    __atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
    if (__atomic_load_n(&verbose, __ATOMIC_RELAXED) > 0) opf_component_log(0, "%s", text);
    return opf_component_set_error(code, "%s", text);
}

int cuda_code(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return OPF_SUCCESS;
    case cudaErrorInvalidResourceHandle:
    case cudaErrorInvalidValue:
    case cudaErrorContextIsDestroyed: return OPF_ERR_ARG;
    case cudaErrorMemoryAllocation: return OPF_ERR_NO_MEM;
    default: return OPF_ERR_INTERN;
    }
}

const char *kt_name(int kt)
{
    const char *n = opf_kernel_type_name(kt);
    return n ? n : "?";
}

// The kernel probe's failures that no retry cures: the build has no kernel
// image this device can load.
bool no_kernel_image(cudaError_t e)
{
    return e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidKernelImage || e == cudaErrorInvalidPtx ||
           e == cudaErrorUnsupportedPtxVersion || e == cudaErrorInvalidDeviceFunction;
}

// The device's state for a call, set up at its first use in this process;
// the caller has made `dev` current (DeviceScope: nothing here changes the
// thread's context). The attributes are read once; the kernel probe, where
// the runtime loads the module lazily, is retried until it answers: a
// transient failure (out of memory, ...) fails the calling call only, and
// the next call probes again. A missing kernel image is final: the device's
// synchronous calls take the host path, its stream calls are refused.
// The probe and the pool belong to the device's primary context: after the
// application reset the device (cudaDeviceReset, cuDevicePrimaryCtxReset,
// e.g. to recover from a sticky fault) its primary context is a new one, and
// both are made again there: the old pool is gone with the old
// context, and every staged call would otherwise take the host path for good.
int use_device(int dev, Device *&out)
{
    Device &d = devices[dev];
    out = &d;
    CUcontext now = nullptr;   // dev's primary context: the caller made it current
    driver.ctx_get_current(&now);
    auto set_up_here = [&] {
        return d.probed.load(std::memory_order_acquire) && d.probed_in.load(std::memory_order_relaxed) == now;
    };
    if (set_up_here()) [[likely]] return OPF_SUCCESS;
    std::lock_guard<std::mutex> lock(d.mutex);
    if (set_up_here()) return OPF_SUCCESS;
    if (d.probed.load(std::memory_order_relaxed)) {   // set up in a context since destroyed: its pool went with it
        d.probed.store(false, std::memory_order_relaxed);
        d.usable.store(false, std::memory_order_relaxed);
        d.pool.store(nullptr, std::memory_order_relaxed);
    }
    d.probed_in.store(now, std::memory_order_relaxed);
    if (!d.attributes_read) {
        int v = 0;
        if (cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess && v > 0) d.sm_count = v;
        v = 0;
        cudaDeviceGetAttribute(&v, cudaDevAttrPageableMemoryAccess, dev);
        d.pageable_access = v != 0;
        v = 0;
        cudaDeviceGetAttribute(&v, cudaDevAttrCanUseHostPointerForRegisteredMem, dev);
        d.host_pointer_ok = v != 0;
        cudaGetLastError();
        d.attributes_read = true;
    }
    cudaFuncAttributes fa;
    const cudaError_t e = cudaFuncGetAttributes(&fa, opf_cuda::slot_kernel(OPF_OPID_SUM, OPF_KT_INT32)->kernel);
    if (e != cudaSuccess) {
        cudaGetLastError();
        if (!no_kernel_image(e))
            return failure(cuda_code(e), "device %d: loading the kernels failed: %s (%s); the next call tries again",
                           dev, cudaGetErrorName(e), cudaGetErrorString(e));
        if (__atomic_load_n(&verbose, __ATOMIC_RELAXED) > 0)   // not an error of any call: said once
            opf_component_log(0, "device %d: no usable kernel image (%s: %s; built for %s): its synchronous calls "
                              "run on the host", dev, cudaGetErrorName(e), cudaGetErrorString(e),
                              opf_cuda::arch_list());
        d.probed.store(true, std::memory_order_release);
        return OPF_SUCCESS;
    }
    d.usable.store(true, std::memory_order_relaxed);
    int pools = 0;
    cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, dev);
    if (pools) {
        cudaMemPoolProps props;
        std::memset(&props, 0, sizeof props);
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = dev;
        cudaMemPool_t pool = nullptr;
        if (cudaMemPoolCreate(&pool, &props) == cudaSuccess) {
            uint64_t keep = uint64_t(std::max<int64_t>(0, scratch_cache));
            cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
            d.pool.store(pool, std::memory_order_relaxed);
        } else {
            cudaGetLastError();
        }
    }
    d.probed.store(true, std::memory_order_release);
    return OPF_SUCCESS;
}

// The launch geometry of `kernel` on d; `cache` keeps the occupancy's answer.
Geometry geometry(Device &d, std::atomic<int64_t> &cache, const void *kernel)
{
    int block = int(std::clamp<int64_t>(block_size, 32, 1024)) / 32 * 32;
    if (max_blocks_param > 0) return {block, int(std::min<int64_t>(max_blocks_param, 1 << 30))};
    const int64_t cached = cache.load(std::memory_order_relaxed);
    if (cached && (cached >> 32) == block) return {block, int(cached & 0xffffffff)};
    int per_sm = 0;
    const bool known = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, 0) == cudaSuccess &&
                       per_sm >= 1;
    if (!known) {   // a guess for this call; the next one asks again (the failure may be transient)
        cudaGetLastError();
        per_sm = std::max(1, 2048 / block);
    }
    const int blocks = std::max(1, per_sm * d.sm_count);
    if (known) cache.store((int64_t(block) << 32) | blocks, std::memory_order_relaxed);
    return {block, blocks};
}

// ---- where a buffer lives -------------------------------------------------------
// Unknown: the driver's pointer query failed (VMM mappings, imported pools or
// IPC handles on some drivers) on memory that is not plainly host memory
// (plain_host_mapping): never taken for host memory, refused.
enum class Where { Host, Pinned, Device, Managed, Unknown };

// Whether p lies in a private, anonymous, readable and writable mapping (the
// kernel's list of this process's mappings): memory host code can use,
// whatever the driver would say, for the driver maps device memory
// inaccessible or from its device files. Asked only where the driver's
// pointer query failed (a failing query on plain host memory once refused
// every host reduction on it), so its cost (a read of
// /proc/self/maps) is the failure path's alone.
bool plain_host_mapping(const void *p)
{
    const auto at = reinterpret_cast<uintptr_t>(p);
    bool plain = false;
    base::for_each_mapping([&](const base::ProcMapping &m) {
        if (at < m.low || at >= m.high) return false;
        plain = m.readable() && m.perms[1] == 'w' && m.perms[3] == 'p' && m.anonymous();
        return true;
    });
    return plain;
}
struct Buf {
    Where where = Where::Host;
    int device = -1;
    CUcontext ctx = nullptr;    // the context the memory belongs to
    CUresult query = CUDA_SUCCESS;
};

Buf classify(const void *p)
{
    Buf b;
    if (!driver.pointer_attributes || !p) return b;
    unsigned int type = 0, managed = 0;
    int ordinal = -1;
    CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                   CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_CONTEXT};
    void *data[] = {&type, &managed, &ordinal, &b.ctx};
    b.query = driver.pointer_attributes(4, attrs, data, CUdeviceptr(reinterpret_cast<uintptr_t>(p)));
    if (b.query == CUDA_ERROR_NOT_INITIALIZED || b.query == CUDA_ERROR_DEINITIALIZED) return b;   // no device memory can exist
    if (b.query != CUDA_SUCCESS) {
        b.where = plain_host_mapping(p) ? Where::Host : Where::Unknown;
        return b;
    }
    b.device = ordinal;
    if (managed) b.where = Where::Managed;
    else if (type == CU_MEMORYTYPE_DEVICE) b.where = Where::Device;
    else if (type == CU_MEMORYTYPE_HOST) b.where = Where::Pinned;
    if (ordinal < 0 || ordinal >= n_devices) b.device = -1;   // device memory of no known device: always staged
    return b;
}

bool on_host(const Buf &b) { return b.where == Where::Host || b.where == Where::Pinned; }

int memory_kind = -1;   // "cuda", registered at init_query

// Unknown memory is claimed too, so that the call reaches this component and
// is refused with the reason instead of running the host base on it; before
// the driver is initialised (a host-only process), no pointer is asked about.
// Device memory is claimed even where the devices could not be set up: the
// call then fails with the reason (require_devices) instead of crashing in
// host code.
// The framework asks once per call with the buffers it cannot place itself:
// never the program's image, the brk heap or a stack (component.h: the
// framework and its inline calls place those themselves). The driver's state is then asked at
// most once per call; once the driver is initialised, each buffer costs one
// pointer query. The framework remembers the mappings of buffers claimed
// by none while the driver maps nothing (host_mappings.h counts its calls)
// and asks nothing about buffers in them.
unsigned claims_call(const void *const *ptrs, int n)
{
    unsigned unknown = 0;
    for (int i = 0; i < n; ++i)
        if (ptrs[i]) unknown |= 1u << i;
    if (!unknown || !driver_initialised()) return 0;
    devices_ready();   // the first claim after cuInit sets them up; classify reads n_devices
    unsigned claimed = 0;
    for (int i = 0; i < n; ++i) {
        if (!(unknown >> i & 1)) continue;
        int same = 0;   // a buffer asked about already in this call (an in-place operand) is not asked again
        while (same < i && ptrs[same] != ptrs[i]) ++same;
        if (same < i) {
            claimed |= (claimed >> same & 1u) << i;
            continue;
        }
        const Buf b = classify(ptrs[i]);
        if (b.where == Where::Device || b.where == Where::Managed || b.where == Where::Unknown) claimed |= 1u << i;
    }
    return claimed;
}
int claims(const void *ptr) { return int(claims_call(&ptr, 1)); }

// Whether ctx is the primary context of dev: the handle last seen answers at
// once; anything else asks the driver (the primary context may have been reset).
bool is_primary(int dev, CUcontext ctx)
{
    std::atomic<CUcontext> &seen = devices[dev].primary;
    if (ctx == seen.load(std::memory_order_relaxed)) return true;
    const CUcontext now = primary_context(dev);
    if (now) seen.store(now, std::memory_order_relaxed);
    return ctx == now;
}

// The buffers of one call: the inputs at 0 .. k-1, the output at k (the
// 3-buffer calls: in1, in2, out), each classified once; alias[i] is the
// first operand at the same address (i itself when none before it is).
struct Operands {
    int k = 0;
    const void *ptr[opf_cuda::kMaxInputs + 1];
    Buf where[opf_cuda::kMaxInputs + 1];
    int alias[opf_cuda::kMaxInputs + 1];
    int out() const { return k; }
    bool distinct(int i) const { return alias[i] == i; }
};

void classify_operands(Operands &ops, const void *const in[], int k, const void *out)
{
    ops.k = k;
    for (int i = 0; i <= k; ++i) {
        ops.ptr[i] = i < k ? in[i] : out;
        ops.alias[i] = i;
        for (int j = 0; j < i; ++j)
            if (ops.ptr[j] == ops.ptr[i]) {
                ops.alias[i] = j;
                break;
            }
        ops.where[i] = ops.distinct(i) ? classify(ops.ptr[i]) : ops.where[ops.alias[i]];
    }
}

// OPF_ERR_BUFFER with the reason when a buffer cannot be used by a kernel:
// its place is unknown, or it is device memory of a context other than its
// device's primary one (cuCtxCreate, green contexts): the component works in
// the primary context, where such an address is illegal. Buffers are
// numbered from 1: the inputs, then the output.
int refuse_unusable(const char *what, const Operands &ops)
{
    for (int i = 0; i <= ops.k; ++i) {
        const Buf &w = ops.where[i];
        if (w.where == Where::Unknown)
            return failure(OPF_ERR_BUFFER, "%s: cannot tell where buffer %d lives (cuPointerGetAttributes failed: "
                           "CUresult %d); refused", what, i + 1, int(w.query));
        if (w.where == Where::Device && w.device >= 0 && w.ctx && !is_primary(w.device, w.ctx))
            return failure(OPF_ERR_BUFFER, "%s: buffer %d is memory of a CUDA context other than device %d's "
                           "primary context (cuCtxCreate or a green context): not supported", what, i + 1, w.device);
    }
    return OPF_SUCCESS;
}

// The calling thread's context for the span of a call: recorded when made,
// `dev` made current by enter (its primary context), and the caller's
// restored exactly by leave (or the destructor) — none, or one of its own. A context call that
// fails fails the call: enter before anything changed, leave with the
// reason (the thread's context is then what the driver left).
class DeviceScope {
public:
    DeviceScope() : got(driver.ctx_get_current(&previous)), open(got == CUDA_SUCCESS) {}
    DeviceScope(const DeviceScope &) = delete;
    DeviceScope &operator=(const DeviceScope &) = delete;
    ~DeviceScope()
    {
        if (open) leave(OPF_SUCCESS);
    }
    int enter(int dev)
    {
        if (got != CUDA_SUCCESS)
            return failure(OPF_ERR_INTERN, "cannot read the calling thread's CUDA context (cuCtxGetCurrent: CUresult "
                           "%d); nothing done", int(got));
        const cudaError_t e = cudaSetDevice(dev);
        if (e == cudaSuccess) return OPF_SUCCESS;
        cudaGetLastError();
        const int rc = leave(OPF_SUCCESS);
        return rc ? rc : failure(cuda_code(e), "cannot make device %d current: %s (%s); nothing done", dev,
                                 cudaGetErrorName(e), cudaGetErrorString(e));
    }
    // Whether the calling thread had a current context.
    bool had_context() const { return got == CUDA_SUCCESS && previous; }
    // Restores the caller's context; returns rc, or the failure to restore it.
    int leave(int rc)
    {
        if (!open) return rc;
        open = false;
        CUcontext now = nullptr;
        if (driver.ctx_get_current(&now) == CUDA_SUCCESS && now == previous) return rc;
        const CUresult r = driver.ctx_set_current(previous);
        if (r == CUDA_SUCCESS || rc != OPF_SUCCESS) return rc;
        return failure(OPF_ERR_INTERN, "the call's work is done, but the calling thread's CUDA context could not be "
                       "restored (cuCtxSetCurrent: CUresult %d)", int(r));
    }
private:
    CUcontext previous = nullptr;
    CUresult got = CUDA_SUCCESS;
    bool open = false;
};

// ---- what a call computes -----------------------------------------------------------
// A slot's 3-buffer kernel (two inputs) or one of its n-ary kernels (k inputs).
struct Work {
    int op, kt;
    const SlotKernel *two = nullptr;
    const NaryKernel *nary = nullptr;
    int form = 0;   // the n-ary kernel's (opf_cuda::NaryForm)

    bool exists() const { return two || nary; }
    const void *kernel() const { return two ? two->kernel : nary->kernel; }
    cudaError_t launch(const void *const in[], int k, void *out, int64_t n, Geometry g, cudaStream_t stream) const
    {
        return two ? two->launch(in[0], in[1], out, n, g, stream) : nary->launch(in, k, out, n, g, stream);
    }
    void host(const void *const in[], int k, void *out, int64_t n) const
    {
        if (two) two->host(in[0], in[1], out, n);
        else nary->host(in, k, out, n);
    }
    std::atomic<int64_t> &grid_cache(Device &d) const { return two ? d.grid[op][kt] : d.grid_n[op][kt][form]; }
};
Work slot_work(int op, int kt) { return {op, kt, opf_cuda::slot_kernel(op, kt), nullptr, 0}; }
Work nary_work(int op, int kt, int form) { return {op, kt, nullptr, opf_cuda::nary_kernel(op, kt, form), form}; }

// ---- synchronous calls ------------------------------------------------------------
// The device a synchronous call runs on when op_cuda_device does not say:
// the device of the output's device memory, else an input's; managed memory
// only: the calling thread's current device when it has a context (the
// application chose it), else the device the managed memory was allocated
// on (DEVICE_ORDINAL: its primary context exists already; device 0's might
// not, and would cost a new context on a thread that had none).
int home_device(const DeviceScope &scope, const Operands &ops)
{
    auto first = [&](Where where) {   // the output first, then the inputs in order
        for (int at = 0; at <= ops.k; ++at) {
            const Buf &w = ops.where[at == 0 ? ops.out() : at - 1];
            if (w.where == where && w.device >= 0) return w.device;
        }
        return -1;
    };
    if (const int dev = first(Where::Device); dev >= 0) return dev;
    int dev = -1;
    if (scope.had_context() && cudaGetDevice(&dev) == cudaSuccess && dev >= 0 && dev < n_devices) return dev;
    if (const int managed = first(Where::Managed); managed >= 0) return managed;
    return 0;
}

cudaError_t copy_sync(void *dst, const void *src, size_t bytes)
{
    cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, cudaStreamPerThread);
    const cudaError_t s = cudaStreamSynchronize(cudaStreamPerThread);
    return e != cudaSuccess ? e : s;
}

// The host path: device operands copied to host memory, computed there.
int host_path(const Work &w, const Operands &ops, int64_t n)
{
    const size_t bytes = type_bytes[w.kt].true_bytes(n);   // nothing past the true end is read or written
    void *tmp[opf_cuda::kMaxInputs + 1] = {};   // host copies, by operand
    const void *host_in[opf_cuda::kMaxInputs];
    int rc = OPF_SUCCESS;
    auto host_buffer = [&](int i) -> void * {
        tmp[i] = std::malloc(bytes ? bytes : 1);
        if (!tmp[i]) rc = failure(OPF_ERR_NO_MEM, "%s %s: no host memory for %zu bytes", op_names[w.op], kt_name(w.kt), bytes);
        return tmp[i];
    };
    for (int i = 0; i < ops.k && rc == OPF_SUCCESS; ++i) {
        if (!ops.distinct(i) || on_host(ops.where[i])) {
            host_in[i] = ops.distinct(i) ? ops.ptr[i] : host_in[ops.alias[i]];
            continue;
        }
        if (!host_buffer(i)) break;
        const cudaError_t e = copy_sync(tmp[i], ops.ptr[i], bytes);
        if (e != cudaSuccess) {
            cudaGetLastError();
            rc = failure(cuda_code(e), "%s %s: copying %zu bytes to the host failed: %s", op_names[w.op], kt_name(w.kt),
                         bytes, cudaGetErrorString(e));
        }
        host_in[i] = tmp[i];
    }
    const int o = ops.out();
    void *const out = const_cast<void *>(ops.ptr[o]);
    void *ho = nullptr;
    if (rc == OPF_SUCCESS) ho = on_host(ops.where[o]) ? out : !ops.distinct(o) ? tmp[ops.alias[o]] : host_buffer(o);
    if (ho) {
        w.host(host_in, ops.k, ho, n);
        if (ho != out) {   // data bytes only: the output's padding is not ours
            cudaError_t e = copy_data(out, ho, n, w.kt, cudaStreamPerThread);
            const cudaError_t s = cudaStreamSynchronize(cudaStreamPerThread);
            if (e == cudaSuccess) e = s;
            if (e != cudaSuccess) {
                cudaGetLastError();
                rc = failure(cuda_code(e), "%s %s: copying the result (%zu bytes) to the device failed: %s",
                             op_names[w.op], kt_name(w.kt), bytes, cudaGetErrorString(e));
            }
        }
    }
    for (void *p : tmp) std::free(p);
    return rc;
}

struct Scratch {
    void *base = nullptr;
    cudaMemPool_t pool = nullptr;
};

bool scratch_alloc(Device &d, Scratch &s, size_t bytes, cudaStream_t stream)
{
    s.pool = d.pool.load(std::memory_order_relaxed);
    cudaError_t e = s.pool ? cudaMallocFromPoolAsync(&s.base, bytes, s.pool, stream) : cudaMalloc(&s.base, bytes);
    if (e != cudaSuccess) {
        cudaGetLastError();
        s.base = nullptr;
        return false;
    }
    return true;
}

void scratch_free(Scratch &s, cudaStream_t stream)
{
    if (!s.base) return;
    if (s.pool) cudaFreeAsync(s.base, stream);
    else cudaFree(s.base);
    s.base = nullptr;
}

constexpr size_t kScratchAlign = 256;

// A synchronous call on `home`, made current by the caller.
int run_on(int home, const Work &w, const Operands &ops, int64_t n)
{
    const size_t bytes = type_bytes[w.kt].true_bytes(n);   // nothing past the true end is read or written
    const int m = ops.k + 1, o = ops.out();
    bool mixed = false;
    for (int i = 0; i < m; ++i) mixed |= on_host(ops.where[i]);
    if (mixed && n < staging_min_count) return host_path(w, ops, n);
    Device *d = nullptr;
    if (int rc = use_device(home, d)) return rc;
    if (!d->usable) return host_path(w, ops, n);

    const cudaStream_t stream = cudaStreamPerThread;
    auto resident = [&](const Buf &b) {
        return b.where == Where::Managed || (b.where == Where::Device && b.device == home);
    };
    size_t phase = 0;   // staged copies keep a resident buffer's address modulo 256 (vector loads)
    for (int i = 0; i < m; ++i)
        if (resident(ops.where[i])) phase = reinterpret_cast<uintptr_t>(ops.ptr[i]) % kScratchAlign;
    const size_t region = (bytes + phase + kScratchAlign - 1) / kScratchAlign * kScratchAlign;
    int staged = 0;   // distinct buffers that need scratch
    for (int i = 0; i < m; ++i)
        if (ops.distinct(i) && !resident(ops.where[i])) ++staged;
    Scratch scratch;
    if (staged && !scratch_alloc(*d, scratch, region * size_t(staged), stream)) return host_path(w, ops, n);
    void *dev[opf_cuda::kMaxInputs + 1] = {};
    cudaError_t e = cudaSuccess;
    for (int i = 0, next = 0; i < m; ++i) {
        if (!ops.distinct(i)) {
            dev[i] = dev[ops.alias[i]];
        } else if (resident(ops.where[i])) {
            dev[i] = const_cast<void *>(ops.ptr[i]);
        } else {
            dev[i] = static_cast<char *>(scratch.base) + region * size_t(next++) + phase;
            if (i < o && e == cudaSuccess) e = cudaMemcpyAsync(dev[i], ops.ptr[i], bytes, cudaMemcpyDefault, stream);
        }
    }
    if (e != cudaSuccess) {   // nothing written yet: the host path can still do it
        cudaGetLastError();
        cudaStreamSynchronize(stream);
        scratch_free(scratch, stream);
        cudaStreamSynchronize(stream);
        return host_path(w, ops, n);
    }
    void *const out = const_cast<void *>(ops.ptr[o]);
    const char *step = "kernel launch";
    e = w.launch(dev, ops.k, dev[o], n, geometry(*d, w.grid_cache(*d), w.kernel()), stream);
    if (e == cudaSuccess && dev[o] != out) {   // data bytes only: the output's padding is not ours
        step = "copy of the result";
        e = copy_data(out, dev[o], n, w.kt, stream);
    }
    scratch_free(scratch, stream);
    const cudaError_t s = cudaStreamSynchronize(stream);
    if (e == cudaSuccess && s != cudaSuccess) {
        step = dev[o] != out ? "kernel or the copy of the result" : "kernel";   // reported by the synchronise
        e = s;
    }
    if (e != cudaSuccess) {
        cudaGetLastError();
        return failure(cuda_code(e), "%s %s, %lld elements on device %d: %s failed: %s (%s)", op_names[w.op],
                       kt_name(w.kt), (long long)n, home, step, cudaGetErrorName(e), cudaGetErrorString(e));
    }
    return OPF_SUCCESS;
}

// out = the work's result over in[0..k), synchronously.
int run_sync(const Work &w, const void *const in[], int k, void *o, int64_t n)
{
    if (n <= 0) return OPF_SUCCESS;
    if (!w.exists()) return failure(OPF_ERR_INTERN, "%s %s: no kernel in this build", op_names[w.op], kt_name(w.kt));
    if (int rc = require_devices()) return rc;
    Operands ops;
    classify_operands(ops, in, k, o);
    char what[64];
    std::snprintf(what, sizeof what, "%s %s", op_names[w.op], kt_name(w.kt));
    if (int rc = refuse_unusable(what, ops)) return rc;
    DeviceScope scope;   // copies and kernels go to the home device's per-thread stream
    int home = int(device_param);
    if (home < 0 || home >= n_devices) home = home_device(scope, ops);
    if (int rc = scope.enter(home)) return rc;
    return scope.leave(run_on(home, w, ops, n));
}
int run_sync(const Work &w, const void *a, const void *b, void *o, int64_t n)
{
    const void *const in[2] = {a, b};
    return run_sync(w, in, 2, o, n);
}

// REPLACE / NO_OP: dst = src, byte for byte.
int copy_call(int kt, const void *src, void *dst, int64_t n)
{
    if (n <= 0 || src == dst) return OPF_SUCCESS;
    if (int rc = require_devices()) return rc;
    Operands ops;
    classify_operands(ops, &src, 1, dst);
    for (const Buf &w : {ops.where[0], ops.where[1]})
        if (w.where == Where::Unknown)
            return failure(OPF_ERR_BUFFER, "REPLACE/NO_OP %s: cannot tell where a buffer lives "
                           "(cuPointerGetAttributes failed: CUresult %d); refused", kt_name(kt), int(w.query));
    if (on_host(ops.where[0]) && on_host(ops.where[1])) {
        host_copy_data(dst, src, n, kt);
        return OPF_SUCCESS;
    }
    DeviceScope scope;   // none stays none
    if (int rc = scope.enter(home_device(scope, ops))) return rc;
    cudaError_t e = copy_data(dst, src, n, kt, cudaStreamPerThread);
    const cudaError_t s = cudaStreamSynchronize(cudaStreamPerThread);
    if (e == cudaSuccess) e = s;
    if (e != cudaSuccess) {
        cudaGetLastError();
        return scope.leave(failure(cuda_code(e), "REPLACE/NO_OP %s, %lld elements: cudaMemcpy failed: %s (%s)",
                                   kt_name(kt), (long long)n, cudaGetErrorName(e), cudaGetErrorString(e)));
    }
    return scope.leave(OPF_SUCCESS);
}

// ---- stream calls ----------------------------------------------------------------------

int stream_device(cudaStream_t stream, int &dev)
{
    const cudaError_t e = cudaStreamGetDevice(stream, &dev);
    if (e == cudaSuccess && dev >= 0 && dev < n_devices) return OPF_SUCCESS;
    cudaGetLastError();
    if (e != cudaSuccess && stream != nullptr && stream != cudaStreamLegacy && stream != cudaStreamPerThread)
        return opf_component_set_error(cuda_code(e) == OPF_ERR_INTERN ? OPF_ERR_ARG : cuda_code(e),
                                       "not a usable CUDA stream: %s", cudaGetErrorString(e));
    if (cudaGetDevice(&dev) == cudaSuccess && dev >= 0 && dev < n_devices) return OPF_SUCCESS;
    return opf_component_set_error(OPF_ERR_INTERN, "no current CUDA device for the default stream");
}

bool accessible(const Buf &w, int dev, const Device &d)
{
    switch (w.where) {
    case Where::Managed: return true;
    case Where::Device: return w.device == dev;
    case Where::Pinned: return d.host_pointer_ok || d.pageable_access;
    default: return d.pageable_access;
    }
}

// A stream call on `dev`, made current by the caller.
int enqueue_kernel(int dev, const Work &w, const void *const in[], int k, void *o, int64_t n, cudaStream_t stream)
{
    Device *d = nullptr;
    if (int rc = use_device(dev, d)) return rc;
    if (!d->usable) return opf_component_set_error(OPF_ERR_INTERN, "device %d has no usable kernel image", dev);
    if (stream_check) {
        Operands ops;
        classify_operands(ops, in, k, o);
        if (int rc = refuse_unusable("stream call", ops)) return rc;
        for (int i = 0; i <= k; ++i)
            if (ops.distinct(i) && !accessible(ops.where[i], dev, *d))
                return opf_component_set_error(OPF_ERR_BUFFER, "buffer %d is not accessible from device %d (the "
                                               "stream's); op_cuda_stream_check=false skips this check", i + 1, dev);
    }
    const cudaError_t e = w.launch(in, k, o, n, geometry(*d, w.grid_cache(*d), w.kernel()), stream);
    if (e == cudaSuccess) return OPF_SUCCESS;
    cudaGetLastError();
    return opf_component_set_error(cuda_code(e), "kernel launch failed: %s (%s)", cudaGetErrorName(e),
                                   cudaGetErrorString(e));
}

// The caller's context is recorded before anything asks the runtime about
// the stream (a default stream's device may bind a context), and restored.
// work(dev, stream) on the stream's device, in a scope that restores the
// caller's context whatever happens.
template <class Work> int on_stream_device(void *stream_ptr, Work &&work)
{
    if (int rc = require_devices()) return rc;
    auto stream = static_cast<cudaStream_t>(stream_ptr);
    DeviceScope scope;
    int dev = 0;
    if (int rc = stream_device(stream, dev)) return scope.leave(rc);
    if (int rc = scope.enter(dev)) return rc;
    return scope.leave(work(dev, stream));
}

int run_stream(const Work &w, const void *const in[], int k, void *o, int64_t n, void *stream_ptr)
{
    if (!w.exists()) return opf_component_set_error(OPF_ERR_OP, "no kernel in this build");
    if (n <= 0) return OPF_SUCCESS;
    return on_stream_device(stream_ptr, [&](int dev, cudaStream_t stream) {
        return enqueue_kernel(dev, w, in, k, o, n, stream);
    });
}
int run_stream(const Work &w, const void *a, const void *b, void *o, int64_t n, void *stream_ptr)
{
    const void *const in[2] = {a, b};
    return run_stream(w, in, 2, o, n, stream_ptr);
}

int copy_stream(int kt, const void *src, void *dst, int64_t n, void *stream_ptr)
{
    if (n <= 0 || src == dst) return OPF_SUCCESS;
    return on_stream_device(stream_ptr, [&](int, cudaStream_t stream) -> int {
        const cudaError_t e = copy_data(dst, src, n, kt, stream);
        if (e == cudaSuccess) return OPF_SUCCESS;
        cudaGetLastError();
        return opf_component_set_error(cuda_code(e), "cudaMemcpyAsync failed: %s (%s)", cudaGetErrorName(e),
                                       cudaGetErrorString(e));
    });
}

// ---- one entry point per slot, generated ------------------------------------------------
template <int OP, int KT> int fn2(const void *in, void *inout, opf_count_t n)
{
    if constexpr (OP == OPF_OPID_REPLACE) return copy_call(KT, in, inout, n);
    else if constexpr (OP == OPF_OPID_NO_OP) return (void)in, (void)inout, (void)n, OPF_SUCCESS;
    else return run_sync(slot_work(OP, KT), in, inout, inout, n);
}
template <int OP, int KT> int fn3(const void *in1, const void *in2, void *out, opf_count_t n)
{
    if constexpr (OP == OPF_OPID_REPLACE) return copy_call(KT, in1, out, n);
    else if constexpr (OP == OPF_OPID_NO_OP) return copy_call(KT, in2, out, n);
    else return run_sync(slot_work(OP, KT), in1, in2, out, n);
}
template <int OP, int KT> int sfn2(const void *in, void *inout, opf_count_t n, void *stream)
{
    if constexpr (OP == OPF_OPID_REPLACE) return copy_stream(KT, in, inout, n, stream);
    else if constexpr (OP == OPF_OPID_NO_OP) return (void)in, (void)inout, (void)n, (void)stream, OPF_SUCCESS;
    else return run_stream(slot_work(OP, KT), in, inout, inout, n, stream);
}
template <int OP, int KT> int sfn3(const void *in1, const void *in2, void *out, opf_count_t n, void *stream)
{
    if constexpr (OP == OPF_OPID_REPLACE) return copy_stream(KT, in1, out, n, stream);
    else if constexpr (OP == OPF_OPID_NO_OP) return copy_stream(KT, in2, out, n, stream);
    else return run_stream(slot_work(OP, KT), in1, in2, out, n, stream);
}
// The n-ary forms (offered only where opf_cuda::nary_kernel has a kernel: not REPLACE / NO_OP).
template <int OP, int KT, int F> int fn_n(const void *const in[], int k, void *out, opf_count_t n, const void *)
{
    return run_sync(nary_work(OP, KT, F), in, k, out, n);
}
template <int OP, int KT, int F>
int sfn_n(const void *const in[], int k, void *out, opf_count_t n, const void *, void *stream)
{
    return run_stream(nary_work(OP, KT, F), in, k, out, n, stream);
}

struct Entries {
    opf_device_kernel2_fn *fn2 = nullptr;
    opf_device_kernel3_fn *fn3 = nullptr;
    opf_stream_kernel2_fn *sfn2 = nullptr;
    opf_stream_kernel3_fn *sfn3 = nullptr;
    opf_device_kernel_n_fn *fn_n[opf_cuda::kNaryForms] = {};
    opf_stream_kernel_n_fn *sfn_n[opf_cuda::kNaryForms] = {};
};
struct EntryGen {
    template <std::size_t O, std::size_t K> static constexpr Entries entry()
    {
        constexpr int op = int(O), kt = int(K);
        return {&fn2<op, kt>, &fn3<op, kt>, &sfn2<op, kt>, &sfn3<op, kt>,
                {&fn_n<op, kt, opf_cuda::kChain>, &fn_n<op, kt, opf_cuda::kOnce>},
                {&sfn_n<op, kt, opf_cuda::kChain>, &sfn_n<op, kt, opf_cuda::kOnce>}};
    }
};
constexpr auto entries = opf::base::make_matrix<Entries, EntryGen>();

// Whether the component serves (op, kt): a kernel, or a byte copy.
bool serves(int op, int kt)
{
    if (!opf_slot_exists(op, kt)) return false;
    if (op == OPF_OPID_REPLACE || op == OPF_OPID_NO_OP) return extent_of[kt] > 0;
    const SlotKernel *k = opf_cuda::slot_kernel(op, kt);
    return k && k->element_size == extent_of[kt];   // the layouts agree (they do on LP64)
}

// ---- the component ------------------------------------------------------------------
int register_params()
{
    const opf_param_spec_t specs[] = {
        {"op_cuda_priority", OPF_PARAM_INT, "60", "Priority of the cuda component's offers (CUDA memory slots)", 3,
         OPF_PARAM_SETTABLE, nullptr, nullptr, &priority},
        {"op_cuda_device", OPF_PARAM_INT, "-1",
         "CUDA device of synchronous calls: -1 runs each call on the device holding its output (else an input); "
         "N runs every call on device N, copying operands that live elsewhere. Stream calls always run on the "
         "stream's device",
         3, OPF_PARAM_LIVE, nullptr, nullptr, &device_param},
        {"op_cuda_block_size", OPF_PARAM_INT, "256", "Threads per block of the cuda kernels (32 .. 1024)", 5,
         OPF_PARAM_LIVE, nullptr, nullptr, &block_size},
        {"op_cuda_max_blocks", OPF_PARAM_INT, "1073741824",
         "Most blocks per kernel launch (a grid-stride loop does the rest; the default gives every work item a "
         "thread of its own); 0: the device's SM count times the blocks of that kernel resident per SM",
         5, OPF_PARAM_LIVE, nullptr, nullptr, &max_blocks_param},
        {"op_cuda_staging_min_count", OPF_PARAM_SIZE, "1",
         "Elements from which a mixed host/device synchronous call copies host operands to the device and "
         "computes there; below it the device operands are copied to the host and the call computes on the host",
         4, OPF_PARAM_LIVE, nullptr, nullptr, &staging_min_count},
        {"op_cuda_scratch_cache", OPF_PARAM_SIZE, "64M",
         "Bytes of device staging scratch the component's memory pool keeps per device between calls", 5,
         OPF_PARAM_LIVE, nullptr, nullptr, &scratch_cache},
        {"op_cuda_stream_check", OPF_PARAM_BOOL, "true",
         "Check that the buffers of a stream call are accessible from the stream's device (one driver query per "
         "buffer); false trusts the caller",
         5, OPF_PARAM_LIVE, nullptr, nullptr, &stream_check},
        {"op_cuda_lazy_init", OPF_PARAM_BOOL, "true",
         "Initialise the CUDA driver at the first call that needs it (a device buffer, a stream call), so that "
         "host-only processes never pay for it; false: at opf_init, which lists the devices (opframe_info --hw) "
         "and disqualifies the component where there is none",
         4, OPF_PARAM_SETTABLE, nullptr, nullptr, &lazy_init},
        {"op_cuda_verbose", OPF_PARAM_INT, "0", "Print CUDA failures of the cuda component to stderr when > 0", 5,
         OPF_PARAM_LIVE, nullptr, nullptr, &verbose},
        {"op_cuda_errors", OPF_PARAM_INT, "0",
         "CUDA failures in synchronous calls so far (each also returned to its caller with the reason)", 9,
         OPF_PARAM_READ_ONLY, nullptr, nullptr, &errors},
        {"op_cuda_devices", OPF_PARAM_STRING, "", "The CUDA devices found, and the GPU architectures built for", 2,
         OPF_PARAM_READ_ONLY, nullptr, nullptr, &devices_text},
        {"op_cuda_host_cache", OPF_PARAM_BOOL, "true",
         "Count the driver library's calls that change mappings (its mmap, mremap, mprotect, munmap, shmat and "
         "syscall are hooked), so that the framework remembers mappings the driver called host memory while that "
         "count stands: host reductions on mmap'd buffers then ask the driver nothing and take the inline calls; "
         "false: one pointer query per such buffer and call",
         5, OPF_PARAM_SETTABLE, nullptr, nullptr, &host_cache},
        {"op_cuda_host_cache_state", OPF_PARAM_STRING, "",
         "Whether host mappings are remembered (op_cuda_host_cache), and if not, why", 5, OPF_PARAM_READ_ONLY,
         nullptr, nullptr, &host_cache_state},
        {"op_cuda_driver_mappings", OPF_PARAM_INT, "0",
         "Calls of the driver library that changed this process's mappings since opf_init (counted where "
         "op_cuda_host_cache hooked them): each makes the remembered host mappings be read again",
         9, OPF_PARAM_READ_ONLY, nullptr, nullptr, opf_cuda::host_mappings::driver_mapping_calls()},
    };
    for (const opf_param_spec_t &s : specs)
        if (opf_param_register(&s) != OPF_SUCCESS) return -1;
    return 0;
}

// Opens the driver without initialising it: libcuda.so.1, its version, and
// the entry points the component calls (cuGetProcAddress). 0, or 1 with the reason.
int open_driver(char *reason, size_t reason_len)
{
    void *lib = driver_library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);   // kept: the module is resident too
    CUresult (*get_version)(int *) = nullptr;
    GetProcAddress get_proc = nullptr;
    if (lib) {
        get_version = reinterpret_cast<CUresult (*)(int *)>(dlsym(lib, "cuDriverGetVersion"));
        get_proc = reinterpret_cast<GetProcAddress>(dlsym(lib, "cuGetProcAddress_v2"));
    }
    if (!lib) {
        const char *why = dlerror();
        std::snprintf(reason, reason_len, "no CUDA driver (libcuda.so.1 cannot be loaded: %s)", why ? why : "?");
        return 1;
    }
    int version = 0;
    const CUresult got = get_version ? get_version(&version) : CUDA_SUCCESS;
    if (!get_version || got != CUDA_SUCCESS || version <= 0) {
        if (!get_version) std::snprintf(reason, reason_len, "the CUDA driver libcuda.so.1 has no cuDriverGetVersion");
        else if (got != CUDA_SUCCESS)
            std::snprintf(reason, reason_len, "the CUDA driver libcuda.so.1 does not work: cuDriverGetVersion failed "
                          "(CUresult %d)", int(got));
        else std::snprintf(reason, reason_len, "the CUDA driver libcuda.so.1 reports version %d", version);
        return 1;
    }
    if (!get_proc) {
        std::snprintf(reason, reason_len, "the CUDA driver (CUDA %d.%d) lacks cuGetProcAddress_v2, which this "
                      "component needs", version / 1000, version % 1000 / 10);
        return 1;
    }
    // Minor version compatibility: a runtime of CUDA X.y runs on a driver of any X.z.
    if (version / 1000 < CUDART_VERSION / 1000) {
        std::snprintf(reason, reason_len,
                      "CUDA driver too old: it supports CUDA %d.%d, this component's runtime needs %d.%d",
                      version / 1000, version % 1000 / 10, CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
        return 1;
    }
    const struct {
        const char *name;
        void **fn;
        int version;
    } entry_points[] = {
        {"cuPointerGetAttributes", reinterpret_cast<void **>(&driver.pointer_attributes), 7000},
        {"cuCtxGetCurrent", reinterpret_cast<void **>(&driver.ctx_get_current), 4000},
        {"cuCtxSetCurrent", reinterpret_cast<void **>(&driver.ctx_set_current), 4000},
        {"cuDevicePrimaryCtxGetState", reinterpret_cast<void **>(&driver.primary_state), 7000},
        {"cuDevicePrimaryCtxRetain", reinterpret_cast<void **>(&driver.primary_retain), 7000},
        {"cuDevicePrimaryCtxRelease", reinterpret_cast<void **>(&driver.primary_release), 11000},
    };
    for (const auto &ep : entry_points) {
        CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        if (get_proc(ep.name, ep.fn, ep.version, CU_GET_PROC_ADDRESS_DEFAULT, &found) != CUDA_SUCCESS ||
            found != CU_GET_PROC_ADDRESS_SUCCESS || !*ep.fn) {
            driver = Driver{};
            std::snprintf(reason, reason_len, "the CUDA driver does not provide %s", ep.name);
            return 1;
        }
    }
    driver_version = version;
    return 0;
}

// Counts the devices and describes them (op_cuda_devices); the first call into
// the CUDA runtime, so the driver is initialised here. `list`: add them to
// opframe_info's devices (only while init_query runs). OPF_SUCCESS, or an
// OPF_* code with the reason in setup_reason.
int set_up_devices(bool list)
{
    const std::string built = std::string("kernels for ") + opf_cuda::arch_list() + " (CUDA runtime " +
                              std::to_string(CUDART_VERSION / 1000) + "." +
                              std::to_string(CUDART_VERSION % 1000 / 10) + ", linked statically); driver " +
                              std::to_string(driver_version / 1000) + "." + std::to_string(driver_version % 1000 / 10);
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaErrorNoDevice || (e == cudaSuccess && count <= 0)) {
        const char *visible = std::getenv("CUDA_VISIBLE_DEVICES");
        std::snprintf(setup_reason, sizeof setup_reason, "no CUDA device%s%s%s", visible ? " (CUDA_VISIBLE_DEVICES=\"" : "",
                      visible ? visible : "", visible ? "\")" : "");
        return OPF_ERR_OP;   // as when the component is not available (cuda.h)
    }
    if (e != cudaSuccess) {
        cudaGetLastError();
        std::snprintf(setup_reason, sizeof setup_reason, "CUDA initialisation failed: %s (%s)", cudaGetErrorName(e),
                      cudaGetErrorString(e));
        return OPF_ERR_INTERN;
    }
    if (device_param >= count) {
        std::snprintf(setup_reason, sizeof setup_reason, "op_cuda_device=%lld, but there %s %d CUDA device%s",
                      (long long)device_param, count == 1 ? "is" : "are", count, count == 1 ? "" : "s");
        return OPF_ERR_ARG;
    }
    std::string text;
    int usable = 0;
    for (int dev = 0; dev < count; ++dev) {
        cudaDeviceProp prop;
        int major = 0, minor = 0, sms = 0;
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        const bool named = cudaGetDeviceProperties(&prop, dev) == cudaSuccess;
        const bool ok = major * 10 + minor >= opf_cuda::lowest_arch();
        usable += ok;
        char line[512];
        std::snprintf(line, sizeof line, "%s%d: %s (sm_%d%d, %d SMs%s)", text.empty() ? "" : "; ", dev,
                      named ? prop.name : "?", major, minor, sms, ok ? "" : ", no kernels for it");
        text += line;
        if (ok && list) {   // opframe_info --hw lists it (component_device.h); hwloc names CUDA devices cuda<N>
            std::snprintf(line, sizeof line, "%s (sm_%d%d, %d SMs)", named ? prop.name : "?", major, minor, sms);
            opf_component_device_add("cuda", ("cuda" + std::to_string(dev)).c_str(), "gpu", line);
        }
    }
    devices_storage = text + "; " + built;
    devices_text = devices_storage.c_str();
    if (!usable) {
        std::snprintf(setup_reason, sizeof setup_reason, "no CUDA device this build has kernels for (%s)", devices_text);
        return OPF_ERR_OP;
    }
    devices = std::make_unique<Device[]>(size_t(count));
    n_devices = count;
    return OPF_SUCCESS;
}

int init_query(const opf_hw_info_t *, char *reason, size_t reason_len)
{
    for (int kt = 0; kt < OPF_KT_COUNT; ++kt) extent_of[kt] = opf_kernel_type_extent(kt);
    devices_storage = std::string("kernels for ") + opf_cuda::arch_list() + " (CUDA runtime " +
                      std::to_string(CUDART_VERSION / 1000) + "." + std::to_string(CUDART_VERSION % 1000 / 10) +
                      ", linked statically)";
    devices_text = devices_storage.c_str();
    if (open_driver(reason, reason_len)) return 1;
    setup_state.store(kNotSetUp, std::memory_order_relaxed);
    if (!lazy_init) {   // now: the devices listed, the component disqualified where there is none
        if (devices_ready(true) != OPF_SUCCESS) {
            std::snprintf(reason, reason_len, "%s", setup_reason);
            return 1;
        }
    } else {
        devices_storage += "; devices: found at the first call that needs the driver (op_cuda_lazy_init)";
        devices_text = devices_storage.c_str();
    }
    memory_kind = opf_memory_kind_register("cuda", claims);
    if (memory_kind < 0) {
        std::snprintf(reason, reason_len, "memory kind \"cuda\" is taken");
        return 1;
    }
    if (opf_memory_kind_set_claims) opf_memory_kind_set_claims(memory_kind, claims_call);   // weak: an older framework asks claims
    host_cache_state = host_cache_text;   // registering the parameter pointed it to its default
    if (!opf_memory_kind_set_mapping_count)
        std::snprintf(host_cache_text, sizeof host_cache_text, "off: the framework remembers no host mapping");
    else if (const uint64_t *count = opf_cuda::host_mappings::start(driver_library, host_cache, host_cache_text,
                                                                   sizeof host_cache_text))
        opf_memory_kind_set_mapping_count(memory_kind, count);
    return 0;
}

int op_query(int op_id, opf_module_t *module)
{
    if (!driver.pointer_attributes || op_id <= 0 || op_id >= OPF_OPID_COUNT) return 1;
    int offered = 0;
    for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
        if (!serves(op_id, kt)) continue;
        const Entries &e = entries[op_id][kt];
        opf_offer_t offer{};
        offer.struct_size = sizeof offer;
        offer.kernel_type = kt;
        offer.memory_kind = memory_kind;
        offer.priority = int(priority);
        offer.device2 = e.fn2;
        offer.device3 = e.fn3;
        offer.stream2 = e.sfn2;
        offer.stream3 = e.sfn3;
        for (int f : {opf_cuda::kChain, opf_cuda::kOnce})   // one launch for k inputs, where a kernel computes it
            if (opf_cuda::nary_kernel(op_id, kt, f)) {
                (f == opf_cuda::kChain ? offer.device_n : offer.device_n_once) = e.fn_n[f];
                (f == opf_cuda::kChain ? offer.stream_n : offer.stream_n_once) = e.sfn_n[f];
            }
        offered += opf_module_offer(module, &offer) == OPF_SUCCESS;
    }
    return offered ? 0 : 1;
}

void close_component()
{
    for (int dev = 0; dev < n_devices; ++dev)
        if (cudaMemPool_t pool = devices[dev].pool.exchange(nullptr)) {
            cudaMemPoolDestroy(pool);
        }
    devices.reset();
    n_devices = 0;
    driver = Driver{};
    driver_live.store(false, std::memory_order_relaxed);
    setup_state.store(kNotSetUp, std::memory_order_relaxed);
    memory_kind = -1;
    devices_text = "";
}

} // namespace

OPF_COMPONENT_DECLARE(cuda) = {
    OPF_COMPONENT_ABI_VERSION,
    OPF_FRAMEWORK_NAME,
    "cuda",
    {1, 0, 0},
    "NVIDIA GPU memory: device and managed buffers, and stream kernels (cuda.h)",
    register_params,
    nullptr,
    init_query,
    op_query,
    nullptr,
    nullptr,
    close_component,
};
