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
//   - asynchrony (issue 21): stream work (launches, copies, cudaFreeAsync) is
//     deferred until a synchronisation that covers it: cudaStreamSynchronize
//     of its stream, cudaDeviceSynchronize, a synchronous cudaMemcpy /
//     cudaFree. Copies from pageable host memory take the source when
//     enqueued; copies to pageable host memory are synchronous (CUDA's "API
//     synchronization behavior"). A synchronise returns the first error of
//     the work it ran;
//   - the legacy default stream and each thread's per-thread default stream
//     are distinct streams: work enqueued on the legacy stream first lets
//     every blocking stream of its device finish, work enqueued on a blocking
//     stream first lets the legacy stream finish (the implicit
//     synchronisation); streams made with cudaStreamNonBlocking do neither;
//   - the thread's runtime device (cudaSetDevice) is the device a thread
//     without a current context binds when a runtime call needs a context;
//     cudaGetDevice and cudaStreamGetDevice of a stream handle bind nothing;
//   - cudaLaunchKernel checks the launch limits, that the stream belongs to
//     the current device (another device's stream:
//     cudaErrorInvalidResourceHandle), and when the work runs, that every
//     pointer argument is reachable from the launch device (else
//     cudaErrorIllegalAddress at the next synchronise); the grid runs
//     serially, when its stream is synchronised;
//   - cudaMemcpy2DAsync refuses overlapping source and destination rows;
//   - sticky faults (issue 21): work that fails with cudaErrorIllegalAddress
//     poisons its device's primary context: every later launch, copy,
//     allocation, kernel query and synchronisation on that device fails with
//     it, until cudaDeviceReset; a reset drops the device's queued work,
//     frees its memory and destroys its primary context and the memory pools
//     made in it (cudaMallocFromPoolAsync on one: cudaErrorInvalidValue); the
//     next use makes a new context (a new CUcontext handle); the driver's
//     cuDevicePrimaryCtxReset does the same, and cuDevicePrimaryCtxRelease
//     without a retain of the caller's releases the runtime's own reference:
//     the context is destroyed as by a reset;
//   - faults on demand: the next N-th call of a kind fails with a given code;
//   - every runtime and driver call is counted per function and per caller
//     (the shared object the call came from: the component, the test);
//   - CUDASTUB_MUTATE: mutations the tests must catch — thread-index (a wrong
//     thread index in every launch), and three of the component, applied at
//     its boundary (calls whose caller is an opf_op_cuda module):
//     sync-legacy (its cudaStreamSynchronize(cudaStreamPerThread) waits for
//     the legacy stream instead), no-sync (its cudaStreamSynchronize returns
//     at once), no-device-scope (its cudaSetDevice does nothing), dense-copy
//     (its cudaMemcpy2DAsync of a padded type's data ranges copies whole
//     elements: padding, and past the true end); and one of its kernels,
//     compiled for the stand-in (components/gpu/device_ops.h): pair-store (a value-index pair
//     stored as a whole struct, padding included, not field by field);
//     double-release (its cuDevicePrimaryCtxRelease counts twice),
//     query-as-host (its pointer queries that fail answer as for plain host
//     memory);
//   - canaries: the bytes after a device or managed allocation's end up to
//     its page hold a pattern, checked after each kernel and copy that used
//     the allocation and at its release: a write past the true end fails
//     that work with cudaErrorIllegalAddress (a GPU would not notice it);
//
// This header is the C++ interface a test (or a conformance-engine backend)
// uses to drive it; it needs no CUDA header.
#pragma once

#include <cstddef>
#include <cstdint>

#include <unistd.h>

namespace cudastub {

// Device memory of `device`, of the current context's device when -1.
void *device_alloc(std::size_t bytes, int device = -1);
void *managed_alloc(std::size_t bytes);
void *pinned_alloc(std::size_t bytes);   // host memory the driver knows
void free(void *p);
// The test's view of memory now: no stream, no synchronisation (work still
// queued has not happened yet, as on a GPU seen through another engine).
void copy_to_device(void *dst, const void *src, std::size_t bytes);
void copy_from_device(void *dst, const void *src, std::size_t bytes);
// Runs all queued work of every stream (a test's cudaDeviceSynchronize of
// every device, counted for nobody).
void drain();
// Whether p lies in memory the stand-in gave out (device, managed or pinned).
bool claims(const void *p);
// Whether CUDASTUB_MUTATE names this mutation (for the kernels' own, which
// the kernels compiled for the stand-in apply: pair-store).
bool mutated(const char *name);
bool is_device(const void *p);   // device or managed memory

int device_count();
// Contexts (CUcontext values): the primary context of a device, a new
// non-primary one (cuCtxCreate), the calling thread's current one (nullptr:
// none), and making one current (nullptr: none).
void *primary_context(int device);
void *create_context(int device);
void *current_context();
bool primary_active(int device);   // whether the device's primary context exists (was ever made)
void set_current_context(void *ctx);

// Faults: from the `after`-th next call (1: the next one) of `kind`, `times`
// calls fail with the CUDA error `code` (a cudaError_t, or a CUresult for the
// pointer query); after 0 clears it.
// kPointerQuery fails every pointer query, kHostPointerQuery only queries on
// memory the stand-in did not give out; kCopyRun fails a copy when it runs
// (reported at the synchronise), kMemcpy when it is enqueued.
enum Fault {
    kLaunch, kMalloc, kMemcpy, kPointerQuery, kSync, kFuncAttributes, kOccupancy, kCtxGetCurrent, kCtxSetCurrent,
    kHostPointerQuery, kCopyRun, kFaultCount
};
void inject(Fault kind, int after, int code, int times = 1);
void clear_faults();

// Counters: kernels launched, grid threads run, memcpys, pointer queries,
// context switches made through cudaSetDevice, driver initialisations (cuInit,
// explicit or by the runtime's first call).
struct Counters {
    uint64_t launches, threads, copies, pointer_queries, set_device, driver_inits;
};
Counters counters();
// Calls of `function` (nullptr: every function; "cu": the driver's, every
// cu* that is not cuda*) made from a shared object whose path contains
// `caller` (nullptr: any caller), since the start.
uint64_t calls(const char *function, const char *caller);
// Prints the calls per function and caller to stdout.
void print_calls();
// The stream handle the last kernel launch was given, as given (nullptr: 0).
const void *last_launch_stream();

// For the kernels compiled as C++ (kernel_shim.h): how to call a __global__
// function of one signature from cudaLaunchKernel's argument array, and the
// addresses its arguments carry (pointer arguments, and the pointers inside
// an argument that holds an array of them, as the n-ary kernels' inputs), to
// check for reachability.
// The binder copies the argument values (a launch runs later, when its
// stream is synchronised) and returns the call to make per grid thread.
using Bound = void (*)(const void *func, const void *values);
struct BoundArgs {
    Bound call;
    void *values;                  // owned: freed with release
    void (*release)(void *values);
    void *pointer[80];             // the addresses the arguments carry, in order
    int n_pointer;
};
using Binder = BoundArgs (*)(void **args);
void register_kernel(const void *func, Binder bind);

// Floats on the brk heap, where glibc's malloc puts small blocks and where
// the cuda component knows host memory without asking the driver (issue 21).
// Taken with sbrk, not malloc: a sanitizer's allocator maps its own memory.
// For the tests; never freed (a few kilobytes).
inline float *brk_floats(std::size_t n, float value)
{
    void *p = sbrk(static_cast<intptr_t>(n * sizeof(float) + 64));
    if (p == reinterpret_cast<void *>(-1)) return nullptr;
    auto *f = reinterpret_cast<float *>((reinterpret_cast<uintptr_t>(p) + 63) & ~uintptr_t(63));
    for (std::size_t i = 0; i < n; ++i) f[i] = value;
    return f;
}

} // namespace cudastub
