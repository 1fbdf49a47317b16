// cuda_host_mappings.cpp — on a GPU (exit 77 without one): whether the real
// driver's mapping calls are seen by the cuda component's hooks, on which
// the framework's remembered host mappings rest (issue 33;
// components/cuda/host_mappings.h). test/cuda_lazy checks the same on the
// CPU stand-in; only a real driver can say how libcuda.so.1 maps memory.
//   1. op_cuda_host_cache_state begins "on:" (the driver library maps
//      through its relocations, which the component hooked at opf_init);
//   2. the application's first CUDA call and each kind of allocation
//      (cudaMalloc of 2 MiB and 1 GiB, managed memory, a stream-ordered
//      pool, a virtual-memory reservation with memory mapped into it, pinned
//      and registered host memory): every new mapping that can hold device
//      or managed memory (a device file's, /dev/nvidia*; an inaccessible
//      anonymous reservation larger than a C library arena, 64 MiB) came
//      with op_cuda_driver_mappings moving; printed per kind;
//   3. another process's device memory opened here (cudaIpcOpenMemHandle):
//      its mappings counted as in 2, and a call on it is a device call;
//   4. a host mapping the library remembers (reduced on twice: the inline
//      window holds it), unmapped, and a virtual-memory reservation asked for
//      at its address (cuMemAddressReserve's hint) with device memory mapped
//      there: a call on it is a device call (or refused with the reason),
//      never host code on device memory, which would fault here.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <opframe/cuda.h>
#include <opframe/opframe.h>

#include "base/proc_maps.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

int checks = 0, failures = 0;

[[gnu::format(printf, 2, 3)]] void check(bool ok, const char *fmt, ...)
{
    ++checks;
    std::va_list ap;
    va_start(ap, fmt);
    std::printf("%s: ", ok ? "ok" : "FAILED");
    std::vprintf(fmt, ap);
    std::printf("\n");
    va_end(ap);
    failures += !ok;
}

long long mapping_count()
{
    char buf[64] = "";
    return opf_param_get("op_cuda_driver_mappings", buf, sizeof buf) == OPF_SUCCESS ? std::atoll(buf) : -1;
}

// The process's mappings that can hold device or managed memory.
struct Mapping {
    uintptr_t low, high;
    std::string what;
    bool operator==(const Mapping &o) const { return low == o.low && high == o.high && what == o.what; }
};
std::vector<Mapping> device_capable_mappings()
{
    std::vector<Mapping> out;
    opf::base::for_each_mapping([&](const opf::base::ProcMapping &m) {
        const bool device_file = std::strncmp(m.name, "/dev/nvidia", 11) == 0;
        const bool reservation = !*m.name && std::strcmp(m.perms, "---p") == 0 && m.high - m.low > (64ull << 20);
        if (device_file || reservation) out.push_back({m.low, m.high, std::string(m.perms) + " " + m.name});
        return false;
    });
    return out;
}

// Runs `step`; checks that a new device-capable mapping came with the count moving.
template <class Step> void watch(const char *what, Step &&step)
{
    const std::vector<Mapping> before = device_capable_mappings();
    const long long count_before = mapping_count();
    const bool ok = step();
    const long long moved = mapping_count() - count_before;
    int added = 0;
    for (const Mapping &m : device_capable_mappings()) {
        bool old = false;
        for (const Mapping &b : before) old = old || b == m;
        added += !old;
    }
    check(ok && (added == 0 || moved > 0), "%s: %d new mapping(s) that can hold device memory, driver mapping calls "
          "counted %lld", what, added, moved);
}

template <class Fn> Fn driver_fn(void *lib, const char *name)
{
    return reinterpret_cast<Fn>(dlsym(lib, name));
}

// Another process, forked before this one touches CUDA: it allocates device
// memory holding 128 ones and sends its IPC handle (a byte 1 first; 0 if it
// could not), then waits until released.
struct Exporter {
    pid_t pid = -1;
    int handle_in = -1, release_out = -1;
    void start()
    {
        int to_us[2], to_it[2];
        if (pipe(to_us) != 0 || pipe(to_it) != 0) return;
        std::fflush(stdout);
        pid = fork();
        if (pid == 0) {
            close(to_us[0]), close(to_it[1]);
            cudaIpcMemHandle_t handle{};
            void *d = nullptr;
            std::vector<float> ones(128, 1.0f);
            char ok = cudaMalloc(&d, 1 << 20) == cudaSuccess &&
                      cudaMemcpy(d, ones.data(), 128 * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess &&
                      cudaIpcGetMemHandle(&handle, d) == cudaSuccess;
            if (write(to_us[1], &ok, 1) == 1 && ok && write(to_us[1], &handle, sizeof handle) == sizeof handle) {
                char done = 0;
                (void)!read(to_it[0], &done, 1);
            }
            _exit(0);
        }
        close(to_us[1]), close(to_it[0]);
        handle_in = to_us[0], release_out = to_it[1];
    }
    bool receive(cudaIpcMemHandle_t &handle)
    {
        char ok = 0;
        if (handle_in < 0 || read(handle_in, &ok, 1) != 1 || !ok) return false;
        auto *at = reinterpret_cast<char *>(&handle);
        for (size_t got = 0; got < sizeof handle;) {
            const ssize_t n = read(handle_in, at + got, sizeof handle - got);
            if (n <= 0) return false;
            got += size_t(n);
        }
        return true;
    }
    ~Exporter()
    {
        if (pid <= 0) return;
        close(release_out), close(handle_in);   // its read returns: it exits
        waitpid(pid, nullptr, 0);
    }
};

} // namespace

int main()
{
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    Exporter exporter;
    exporter.start();
    if (opf_init() != OPF_SUCCESS) {
        std::printf("FAILED: opf_init: %s\n", opf_last_error());
        return 1;
    }
    const char *status = nullptr;
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);   // the component opened it
    if (!opf_cuda_available(&status) || !lib) {
        std::printf("cuda_host_mappings: skipped: the cuda component is not available (%s)\n", status ? status : "?");
        return 77;
    }
    char state[512] = "";
    opf_param_get("op_cuda_host_cache_state", state, sizeof state);
    check(std::strncmp(state, "on:", 3) == 0, "the driver's mapping calls hooked: op_cuda_host_cache_state \"%s\"",
          state);

    int ndev = 0;
    bool have_device = false;
    watch("the first CUDA call (cuInit, the primary context)", [&] {
        have_device = cudaGetDeviceCount(&ndev) == cudaSuccess && ndev > 0 && cudaFree(nullptr) == cudaSuccess;
        return true;
    });
    if (!have_device) {
        std::printf("cuda_host_mappings: skipped: no CUDA device\n");
        return 77;
    }
    void *p = nullptr, *big = nullptr, *managed = nullptr, *pooled = nullptr, *pinned = nullptr;
    watch("cudaMalloc 2 MiB", [&] { return cudaMalloc(&p, 2 << 20) == cudaSuccess; });
    watch("cudaMalloc 1 GiB", [&] { return cudaMalloc(&big, size_t(1) << 30) == cudaSuccess; });
    watch("cudaMallocManaged 2 MiB", [&] { return cudaMallocManaged(&managed, 2 << 20) == cudaSuccess; });
    watch("cudaMallocAsync 2 MiB", [&] {
        return cudaMallocAsync(&pooled, 2 << 20, nullptr) == cudaSuccess && cudaStreamSynchronize(nullptr) == cudaSuccess;
    });
    watch("cudaMallocHost 2 MiB", [&] { return cudaMallocHost(&pinned, 2 << 20) == cudaSuccess; });
    std::vector<char> registered(4 << 20);
    watch("cudaHostRegister 4 MiB", [&] {
        return cudaHostRegister(registered.data(), registered.size(), cudaHostRegisterDefault) == cudaSuccess;
    });

    // Another process's device memory.
    cudaIpcMemHandle_t handle{};
    if (!exporter.receive(handle)) {
        std::printf("cuda_host_mappings: no IPC handle from the other process: case 3 not run\n");
    } else {
        void *opened = nullptr;
        watch("cudaIpcOpenMemHandle (another process's device memory)", [&] {
            return cudaIpcOpenMemHandle(&opened, handle, cudaIpcMemLazyEnablePeerAccess) == cudaSuccess;
        });
        if (opened) {
            auto *d = static_cast<float *>(opened);
            std::vector<float> back(128, 0.0f);
            const int rc = opf_reduce_local(d, d + 64, 64, OPF_FLOAT, OPF_SUM);
            cudaMemcpy(back.data(), d, 128 * sizeof(float), cudaMemcpyDeviceToHost);
            check((rc == OPF_SUCCESS && back[64] == 2.0f) || rc == OPF_ERR_BUFFER,
                  "another process's device memory: a device call (rc %d%s%s; [64] = %g)", rc, rc ? ": " : "",
                  rc ? opf_last_error() : "", double(back[64]));
            cudaIpcCloseMemHandle(opened);
        }
    }

    // Virtual memory: a reservation at a freed host mapping's address.
    auto reserve = driver_fn<CUresult (*)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long)>(
        lib, "cuMemAddressReserve");
    auto create = driver_fn<CUresult (*)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
                                         unsigned long long)>(lib, "cuMemCreate");
    auto map = driver_fn<CUresult (*)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long)>(
        lib, "cuMemMap");
    auto set_access = driver_fn<CUresult (*)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t)>(lib, "cuMemSetAccess");
    auto granularity = driver_fn<CUresult (*)(size_t *, const CUmemAllocationProp *, CUmemAllocationGranularity_flags)>(
        lib, "cuMemGetAllocationGranularity");
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran = 0;
    if (!reserve || !create || !map || !set_access || !granularity ||
        granularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS || !gran) {
        std::printf("cuda_host_mappings: no virtual-memory calls in this driver: case 4 not run\n");
    } else {
        const size_t bytes = (size_t(2) << 20) + gran - 1 - ((size_t(2) << 20) + gran - 1) % gran;
        char *host = static_cast<char *>(mmap(nullptr, bytes + gran, PROT_READ | PROT_WRITE,
                                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
        auto *f = reinterpret_cast<float *>((reinterpret_cast<uintptr_t>(host) + gran - 1) / gran * gran);
        for (int i = 0; i < 128; ++i) f[i] = 1.0f;
        bool ok = true;
        for (int i = 0; i < 2; ++i) ok &= opf_reduce_local(f, f + 64, 64, OPF_FLOAT, OPF_SUM) == OPF_SUCCESS;
        const opf_host_ranges_v3_ *window =
            opf_call_table_v4_.rows2[opf_call_index_(OPF_SUM, OPF_FLOAT)].window;
        check(ok && f[64] == 3.0f && window && opf_in_host_window_(window, reinterpret_cast<uintptr_t>(f)),
              "a host mapping reduced on twice is remembered (the inline window holds it)");
        munmap(host, bytes + gran);
        CUdeviceptr at = 0;
        CUmemGenericAllocationHandle handle{};
        watch("cuMemAddressReserve at a freed host mapping + cuMemCreate + cuMemMap", [&] {
            if (reserve(&at, bytes, gran, CUdeviceptr(reinterpret_cast<uintptr_t>(f)), 0) != CUDA_SUCCESS) return false;
            CUmemAccessDesc access{};
            access.location = prop.location;
            access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
            return create(&handle, bytes, &prop, 0) == CUDA_SUCCESS && map(at, bytes, 0, handle, 0) == CUDA_SUCCESS &&
                   set_access(at, bytes, &access, 1) == CUDA_SUCCESS;
        });
        if (at != CUdeviceptr(reinterpret_cast<uintptr_t>(f))) {
            std::printf("cuda_host_mappings: the driver placed the reservation at %#llx, not at the freed host "
                        "mapping's %p: case 4 not run\n", (unsigned long long)at, static_cast<void *>(f));
        } else {
            std::vector<float> ones(128, 1.0f), back(128, 0.0f);
            cudaMemcpy(reinterpret_cast<void *>(at), ones.data(), 128 * sizeof(float), cudaMemcpyHostToDevice);
            auto *d = reinterpret_cast<float *>(at);
            const int rc = opf_reduce_local(d, d + 64, 64, OPF_FLOAT, OPF_SUM);   // a stale "host" faults here
            cudaMemcpy(back.data(), d, 128 * sizeof(float), cudaMemcpyDeviceToHost);
            check((rc == OPF_SUCCESS && back[64] == 2.0f) || rc == OPF_ERR_BUFFER,
                  "device memory where a remembered host mapping was: a device call (rc %d%s%s; [64] = %g)", rc,
                  rc ? ": " : "", rc ? opf_last_error() : "", double(back[64]));
        }
    }
    cudaFree(p), cudaFree(big), cudaFree(managed), cudaFreeAsync(pooled, nullptr), cudaFreeHost(pinned);
    cudaHostUnregister(registered.data());
    opf_finalize();
    std::printf("cuda_host_mappings: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
