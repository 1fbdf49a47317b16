// kernel_shim.h — force-included when components/cuda/cuda_kernels.cu is
// compiled, unchanged, as C++ for the stand-in runtime (cudastub.h).
//
// This works because the kernels are plain data-parallel loops: no shared
// memory, no __syncthreads, no warp intrinsics (components/cuda/README.md
// says to keep it so). A __global__ function becomes an ordinary function,
// the built-in indices thread-locals that cudaLaunchKernel of the stand-in
// sets before it calls the function once per grid thread.
//
// With OPF_STUB_DEVICE_BRANCHES defined, __CUDA_ARCH__ is defined after the
// CUDA headers, so that the kernels' device branches (typed vector loads and
// stores, pair fields one by one) are the ones compiled and run.
#pragma once

#include <cuda_runtime_api.h>
#include <vector_types.h>
// Before __CUDA_ARCH__ is defined: their functions as the host compiles them
// (the emulation of the GPU's float16 / fp8 instructions that
// components/gpu/fp8_words.h and base/storage_hw.h call), not the device's
// inline assembly.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

// host_defines.h gave these as attributes g++ does not know: plain C++ instead.
#undef __global__
#undef __device__
#undef __host__
#define __global__
#define __device__
#define __host__

extern thread_local uint3 threadIdx;
extern thread_local uint3 blockIdx;
extern thread_local dim3 blockDim;
extern thread_local dim3 gridDim;

#if defined(OPF_STUB_DEVICE_BRANCHES)
#define __CUDA_ARCH__ 900
#endif

// The kernels' own mutations (components/gpu/device_ops.h), named by CUDASTUB_MUTATE.
namespace cudastub {
bool mutated(const char *name);
}
#define OPF_STUB_MUTATIONS 1
#define OPF_STUB_MUTATED(name) cudastub::mutated(name)
