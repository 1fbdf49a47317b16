// cudastub.h — a stand-in CUDA runtime on the CPU, for running the cuda
// component's real host code and kernels without a GPU (issue 13).
//
// libcudastub defines the CUDA runtime entry points the component and its
// tests use (with the toolkit's own headers, so types and enum values are
// exactly the ones the component was compiled against), plus the driver
// library's exports the component opens (cuInit, cuDriverGetVersion,
// cuGetProcAddress: test/cudastub/.libs/libcuda.so.1 is a link to this
// library) and the entry points cuGetProcAddress gives
// (cuPointerGetAttributes, cuCtxGetCurrent, ...). Its model:
//   - the driver answers CUDA_ERROR_NOT_INITIALIZED until cuInit, which the
//     runtime's first call makes (counted: Counters::driver_inits);
//   - several devices (CUDASTUB_DEVICES, default 2), each with a primary
//     context; contexts are current per thread, as the driver's;
//   - device memory: its own mappings, PROT_NONE outside the stand-in's
//     operations, so host code that touches it crashes as on a real system;
//     managed memory is readable everywhere; pinned host memory is host memory
//     the pointer query reports as CU_MEMORYTYPE_HOST;
//   - streams run their work at once, in order (a synchronise returns the
//     first error of the work enqueued since the last one);
//   - cudaLaunchKernel runs the grid serially on the calling thread, after
//     checking the launch limits and that every pointer argument is reachable
//     from the launch device (else cudaErrorIllegalAddress, as a GPU would
//     report at the next synchronise);
//   - faults on demand: the next N-th call of a kind fails with a given code;
//   - CUDASTUB_MUTATE=thread-index: a wrong thread index in every launch (a
//     mutation the tests must catch).
//
// This header is the C++ interface a test (or a conformance-engine backend)
// uses to drive it; it needs no CUDA header.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cudastub {

// Device memory of `device`, of the current context's device when -1.
void *device_alloc(std::size_t bytes, int device = -1);
void *managed_alloc(std::size_t bytes);
void *pinned_alloc(std::size_t bytes);   // host memory the driver knows
void free(void *p);
void copy_to_device(void *dst, const void *src, std::size_t bytes);
void copy_from_device(void *dst, const void *src, std::size_t bytes);
// Whether p lies in memory the stand-in gave out (device, managed or pinned).
bool claims(const void *p);
bool is_device(const void *p);   // device or managed memory

int device_count();
// Contexts (CUcontext values): the primary context of a device, a new
// non-primary one (cuCtxCreate), the calling thread's current one (nullptr:
// none), and making one current (nullptr: none).
void *primary_context(int device);
void *create_context(int device);
void *current_context();
void set_current_context(void *ctx);

// Faults: from the `after`-th next call (1: the next one) of `kind`, `times`
// calls fail with the CUDA error `code` (a cudaError_t, or a CUresult for the
// pointer query); after 0 clears it.
enum Fault { kLaunch, kMalloc, kMemcpy, kPointerQuery, kSync, kFaultCount };
void inject(Fault kind, int after, int code, int times = 1);
void clear_faults();

// Counters: kernels launched, grid threads run, memcpys, pointer queries,
// context switches made through cudaSetDevice, driver initialisations (cuInit,
// explicit or by the runtime's first call).
struct Counters {
    uint64_t launches, threads, copies, pointer_queries, set_device, driver_inits;
};
Counters counters();
// The stream handle the last kernel launch was given, as given (nullptr: 0).
const void *last_launch_stream();

// For the kernels compiled as C++ (kernel_shim.h): how to call a __global__
// function of one signature from cudaLaunchKernel's argument array, and which
// arguments are pointers (bit i: argument i) to check for reachability.
using Invoker = void (*)(const void *func, void **args);
void register_kernel(const void *func, Invoker invoke, unsigned pointer_args);

} // namespace cudastub
