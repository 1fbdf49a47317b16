/*
 * opf_op_cuda.cpp — the cuda component: reductions on NVIDIA GPU memory,
 * through the device core (components/gpu/device_core.h: claims, staging,
 * the host path, stream calls, the entry points, the parameters
 * op_cuda_*). What is CUDA's is here: the driver opened without initialising
 * it, the pointer query, contexts, and the runtime's calls behind the core's
 * Backend.
 *
 * Slots: every (op, kernel type) the GPU computes exactly — integers of 8 to
 * 64 bits, float16, bfloat16, fp8 (base::Narrow: in float, storage.h's
 * rounding), float, double, complex float / double, the
 * MAXLOC / MINLOC pairs but the long double one, the block formats — and
 * REPLACE / NO_OP on every kernel type (byte copies). Not int128, long
 * double, float128: a call on device memory with those fails with
 * OPF_ERR_BUFFER ("no component serves this op on it"). Results are the
 * base's, bit for bit (cuda_ops.h). Stream calls: include/opframe/cuda.h
 * (opf_cuda_reduce_local, ... on a cudaStream_t). Work of synchronous calls
 * runs on cudaStreamPerThread, so concurrent calls from different threads do
 * not serialise.
 *
 * The CUDA runtime is linked statically: the module loads on machines without
 * CUDA libraries, and init_query disqualifies it with the reason (no driver,
 * driver too old; no device only with op_cuda_lazy_init=false). init_query
 * does not initialise the driver: that happens at the first call that needs
 * it, and host-memory calls before anyone initialised it ask no pointer query
 * (see "the driver" below); buffers in the program's image, on the heap or on
 * a stack cost no driver call at all (the framework does not ask about them).
 * Device pointers and streams of the application's own runtime work because
 * both use the driver's primary context of each device (as with NCCL, which
 * links the runtime statically too). Memory of other contexts (cuCtxCreate,
 * green contexts) and buffers the driver's pointer query cannot classify are
 * refused with OPF_ERR_BUFFER: a kernel in the primary context would fault on
 * them, and host code would crash; but a buffer whose query fails in a private
 * anonymous read-write mapping is host memory, reduced as such.
 */
#include <opframe/component.h>
#include <opframe/component_device.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <dlfcn.h>

#include <cuda.h>   // driver API types only: the functions come from cuGetProcAddress
#include <cuda_runtime_api.h>

#include "components/gpu/device_core.h"
#include "cuda_kernels.h"
#include "host_mappings.h"

namespace {

using opf_gpu::Context;
using opf_gpu::Error;
using opf_gpu::Pool;
using opf_gpu::Stream;

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

std::string runtime_text()
{
    return std::string("kernels for ") + opf_cuda::arch_list() + " (CUDA runtime " +
           std::to_string(CUDART_VERSION / 1000) + "." + std::to_string(CUDART_VERSION % 1000 / 10) +
           ", linked statically)";
}

cudaError_t as_cuda(Error e) { return static_cast<cudaError_t>(e); }

class CudaBackend final : public opf_gpu::Backend {
public:
    CudaBackend()
        : Backend({"cuda", "CUDA", "CUresult", "cuPointerGetAttributes", "cuCtxGetCurrent", "cuCtxSetCurrent",
                   "cudaMemcpy", "cudaMemcpyAsync", "cuCtxCreate or a green context", 60})
    {
    }

    // Opens the driver without initialising it: libcuda.so.1, its version, and
    // the entry points the component calls (cuGetProcAddress).
    int open(char *reason, size_t reason_len) override
    {
        void *lib = library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);   // kept: the module is resident too
        if (!lib) {
            const char *why = dlerror();
            std::snprintf(reason, reason_len, "no CUDA driver (libcuda.so.1 cannot be loaded: %s)", why ? why : "?");
            return 1;
        }
        auto get_version = reinterpret_cast<CUresult (*)(int *)>(dlsym(lib, "cuDriverGetVersion"));
        auto get_proc = reinterpret_cast<GetProcAddress>(dlsym(lib, "cuGetProcAddress_v2"));
        int version = 0;
        const CUresult got = get_version ? get_version(&version) : CUDA_SUCCESS;
        if (!get_version || got != CUDA_SUCCESS || version <= 0) {
            if (!get_version) std::snprintf(reason, reason_len, "the CUDA driver libcuda.so.1 has no cuDriverGetVersion");
            else if (got != CUDA_SUCCESS)
                std::snprintf(reason, reason_len, "the CUDA driver libcuda.so.1 does not work: cuDriverGetVersion "
                              "failed (CUresult %d)", int(got));
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
    bool is_open() const override { return driver.pointer_attributes != nullptr; }
    void close() override { driver = Driver{}; }
    std::string build_text() override { return runtime_text(); }

    // Counts the devices and describes them (op_cuda_devices); the first call
    // into the CUDA runtime, so the driver is initialised here.
    int set_up_devices(bool list, int64_t device_param, std::string &text, char *reason, size_t reason_len,
                       int &count) override
    {
        const std::string built = runtime_text() + "; driver " + std::to_string(driver_version / 1000) + "." +
                                  std::to_string(driver_version % 1000 / 10);
        count = 0;
        const cudaError_t e = cudaGetDeviceCount(&count);
        if (e == cudaErrorNoDevice || (e == cudaSuccess && count <= 0)) {
            const char *visible = std::getenv("CUDA_VISIBLE_DEVICES");
            std::snprintf(reason, reason_len, "no CUDA device%s%s%s", visible ? " (CUDA_VISIBLE_DEVICES=\"" : "",
                          visible ? visible : "", visible ? "\")" : "");
            return OPF_ERR_OP;   // as when the component is not available (cuda.h)
        }
        if (e != cudaSuccess) {
            cudaGetLastError();
            std::snprintf(reason, reason_len, "CUDA initialisation failed: %s (%s)", cudaGetErrorName(e),
                          cudaGetErrorString(e));
            return OPF_ERR_INTERN;
        }
        if (device_param >= count) {
            std::snprintf(reason, reason_len, "op_cuda_device=%lld, but there %s %d CUDA device%s",
                          (long long)device_param, count == 1 ? "is" : "are", count, count == 1 ? "" : "s");
            return OPF_ERR_ARG;
        }
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
        text += "; " + built;
        if (!usable) {
            std::snprintf(reason, reason_len, "no CUDA device this build has kernels for (%s)", text.c_str());
            return OPF_ERR_OP;
        }
        return OPF_SUCCESS;
    }
    // Asked with one cuCtxGetCurrent, which answers CUDA_ERROR_NOT_INITIALIZED until cuInit.
    bool runtime_initialised() override
    {
        CUcontext ctx = nullptr;
        return driver.ctx_get_current && driver.ctx_get_current(&ctx) != CUDA_ERROR_NOT_INITIALIZED;
    }
    const uint64_t *host_mapping_count(bool wanted, char *state, size_t state_len) override
    {
        return opf_cuda::host_mappings::start(library, wanted, state, state_len);
    }
    int64_t *driver_mapping_calls() override { return opf_cuda::host_mappings::driver_mapping_calls(); }

    void clear_error() override { cudaGetLastError(); }
    const char *error_name(Error e) override { return cudaGetErrorName(as_cuda(e)); }
    const char *error_string(Error e) override { return cudaGetErrorString(as_cuda(e)); }
    int opf_code(Error e) override
    {
        switch (as_cuda(e)) {
        case cudaSuccess: return OPF_SUCCESS;
        case cudaErrorInvalidResourceHandle:
        case cudaErrorInvalidValue:
        case cudaErrorContextIsDestroyed: return OPF_ERR_ARG;
        case cudaErrorMemoryAllocation: return OPF_ERR_NO_MEM;
        default: return OPF_ERR_INTERN;
        }
    }
    bool no_kernel_image(Error e) override
    {
        const cudaError_t c = as_cuda(e);
        return c == cudaErrorNoKernelImageForDevice || c == cudaErrorInvalidKernelImage || c == cudaErrorInvalidPtx ||
               c == cudaErrorUnsupportedPtxVersion || c == cudaErrorInvalidDeviceFunction;
    }

    opf_gpu::PointerInfo query_pointer(const void *p) override
    {
        opf_gpu::PointerInfo b;
        unsigned int type = 0, managed = 0;
        int ordinal = -1;
        CUcontext ctx = nullptr;
        CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                       CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_CONTEXT};
        void *data[] = {&type, &managed, &ordinal, &ctx};
        const CUresult r = driver.pointer_attributes(4, attrs, data, CUdeviceptr(reinterpret_cast<uintptr_t>(p)));
        b.code = int(r);
        b.context = ctx;
        if (r == CUDA_ERROR_NOT_INITIALIZED || r == CUDA_ERROR_DEINITIALIZED) return b;   // no device memory can exist
        if (r != CUDA_SUCCESS) {
            b.status = opf_gpu::PointerInfo::Failed;
            return b;
        }
        b.status = opf_gpu::PointerInfo::Known;
        b.device = ordinal;
        if (managed) b.where = opf_gpu::Where::Managed;
        else if (type == CU_MEMORYTYPE_DEVICE) b.where = opf_gpu::Where::Device;
        else if (type == CU_MEMORYTYPE_HOST) b.where = opf_gpu::Where::Pinned;
        return b;
    }
    int current_context(Context &ctx) override
    {
        CUcontext c = nullptr;
        const CUresult r = driver.ctx_get_current(&c);
        ctx = c;
        return int(r);
    }
    int set_context(Context ctx) override { return int(driver.ctx_set_current(static_cast<CUcontext>(ctx))); }
    // The primary context of `dev` when it is active, else nullptr (no memory
    // of it can exist then); the retain does not create it, and is given back at once.
    Context primary_context(int dev) override
    {
        unsigned flags = 0;
        int active = 0;
        CUcontext ctx = nullptr;
        if (driver.primary_state(dev, &flags, &active) != CUDA_SUCCESS || !active) return nullptr;
        if (driver.primary_retain(&ctx, dev) != CUDA_SUCCESS) return nullptr;
        driver.primary_release(dev);
        return ctx;
    }
    Error set_device(int dev) override { return cudaSetDevice(dev); }
    Error get_device(int &dev) override { return cudaGetDevice(&dev); }

    opf_gpu::DeviceAttributes attributes(int dev) override
    {
        opf_gpu::DeviceAttributes a;
        int v = 0;
        if (cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess && v > 0) a.sm_count = v;
        v = 0;
        cudaDeviceGetAttribute(&v, cudaDevAttrPageableMemoryAccess, dev);
        a.pageable_access = v != 0;
        v = 0;
        cudaDeviceGetAttribute(&v, cudaDevAttrCanUseHostPointerForRegisteredMem, dev);
        a.host_pointer_ok = v != 0;
        v = 0;
        cudaDeviceGetAttribute(&v, cudaDevAttrMemoryPoolsSupported, dev);
        a.pools = v != 0;
        cudaGetLastError();
        return a;
    }
    // The runtime loads the module lazily: asking a kernel's attributes loads it.
    Error probe_kernels() override
    {
        cudaFuncAttributes fa;
        return cudaFuncGetAttributes(&fa, opf_cuda::slot_kernel(OPF_OPID_SUM, OPF_KT_INT32)->kernel);
    }
    Pool create_pool(int dev, uint64_t keep_bytes) override
    {
        cudaMemPoolProps props;
        std::memset(&props, 0, sizeof props);
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = dev;
        cudaMemPool_t pool = nullptr;
        if (cudaMemPoolCreate(&pool, &props) != cudaSuccess) {
            cudaGetLastError();
            return nullptr;
        }
        cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_bytes);
        return pool;
    }
    void destroy_pool(Pool pool) override { cudaMemPoolDestroy(static_cast<cudaMemPool_t>(pool)); }
    Error occupancy(int &blocks_per_sm, const void *kernel, int block) override
    {
        return cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, block, 0);
    }

    Error allocate(void *&p, size_t bytes, Pool pool, Stream stream) override
    {
        return pool ? cudaMallocFromPoolAsync(&p, bytes, static_cast<cudaMemPool_t>(pool), cuda_stream(stream))
                    : cudaMalloc(&p, bytes);
    }
    void release(void *p, Pool pool, Stream stream) override
    {
        if (pool) cudaFreeAsync(p, cuda_stream(stream));
        else cudaFree(p);
    }
    Error copy(void *dst, const void *src, size_t bytes, Stream stream) override
    {
        return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, cuda_stream(stream));
    }
    Error copy_2d(void *dst, size_t dst_pitch, const void *src, size_t src_pitch, size_t width, size_t height,
                  Stream stream) override
    {
        return cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, width, height, cudaMemcpyDefault, cuda_stream(stream));
    }
    Error synchronize(Stream stream) override { return cudaStreamSynchronize(cuda_stream(stream)); }
    Stream thread_stream() override { return cudaStreamPerThread; }
    bool default_stream(Stream s) override
    {
        return s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread;
    }
    Error stream_device(Stream stream, int &dev) override { return cudaStreamGetDevice(cuda_stream(stream), &dev); }

private:
    static cudaStream_t cuda_stream(Stream s) { return static_cast<cudaStream_t>(s); }
    Driver driver{};
    void *library = nullptr;   // libcuda.so.1, opened by open and kept
    int driver_version = 0;
};

CudaBackend backend;

int register_params() { return opf_gpu::register_params(backend); }
int init_query(const opf_hw_info_t *, char *reason, size_t reason_len)
{
    return opf_gpu::init_query(reason, reason_len);
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
    opf_gpu::op_query,
    nullptr,
    nullptr,
    opf_gpu::close_component,
};
