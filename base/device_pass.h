// device_pass.h — which compiler pass is compiling base/'s headers, named in
// this one place for every GPU toolchain, so that the rest of base/ names
// none: OPF_HD marks what both the host and a device pass compile (the
// shared functors, storage, the block rules); OPF_DEVICE_PASS is set in a
// device pass (NVIDIA's nvcc for a GPU architecture; AMD's hipcc / clang
// for a GPU target); OPF_STORAGE_HW* say which exact conversions the pass
// has as instructions (storage_hw.h: NVIDIA's, from sm_80 and sm_89 on; AMD's
// device pass converts with storage.h's integer code, the same bits).
//
// The cuda component's CPU stand-in compiles the device branches with the
// host compiler: no device pass there, the host code runs.
#pragma once

#if defined(__CUDACC__) || defined(__HIPCC__)
#define OPF_HD __host__ __device__
#else
#define OPF_HD
#endif

#if defined(__CUDA_ARCH__) && defined(__NVCC__)
#define OPF_DEVICE_PASS 1
#define OPF_STORAGE_HW 1            // float16 both ways (FLOAT8_E5M2 is a float16's top byte)
#if __CUDA_ARCH__ >= 800
#define OPF_STORAGE_HW_BF16_CVT 1   // float to bfloat16: the instruction exists from sm_80 on
#endif
#if __CUDA_ARCH__ >= 890
#define OPF_STORAGE_HW_FP8_CVT 1    // fp8 <-> float16 / float: the instructions exist from sm_89 on
#endif
#elif defined(__HIP_DEVICE_COMPILE__)
#define OPF_DEVICE_PASS 1
#endif

// AMD's toolchain (hipcc's host and device passes): the shared GPU code
// leaves out what only NVIDIA's headers have (components/gpu/fp8_words.h).
#if (defined(__HIP__) || defined(__HIPCC__)) && !defined(OPF_GPU_AMD)
#define OPF_GPU_AMD 1
#endif

// The GPU kernels' device branches (typed loads and stores,
// components/gpu/device_ops.h): in a device pass, and in the CPU stand-in,
// which defines __CUDA_ARCH__ to compile them with the host compiler.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define OPF_DEVICE_BRANCHES 1
#endif
