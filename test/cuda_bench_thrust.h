// cuda_bench_thrust.h — Thrust's element-wise transforms, the speed reference
// of test/cuda_bench (test/cuda_bench_thrust.cu, compiled by nvcc): plain C++
// functions, so that cuda_bench.cpp is compiled by the host compiler.
#ifndef OPFRAME_TEST_CUDA_BENCH_THRUST_H
#define OPFRAME_TEST_CUDA_BENCH_THRUST_H

#include <cuda_runtime_api.h>

// The cases Thrust expresses: inout[i] = in[i] op inout[i], n elements.
enum CudaBenchThrustCase {
    CB_THRUST_FLOAT_PLUS,
    CB_THRUST_INT32_PLUS,
    CB_THRUST_DOUBLE_MAXIMUM,
    CB_THRUST_DOUBLE_MULTIPLIES,
    CB_THRUST_HALF_PLUS,    // __half, summed in float, rounded to nearest
    CB_THRUST_BF16_PLUS,    // __nv_bfloat16, likewise
    CB_THRUST_E4M3_PLUS,    // fp8 E4M3 through float, __NV_SATFINITE
    CB_THRUST_E5M2_PLUS,    // fp8 E5M2 through float, __NV_SATFINITE
};

// Enqueues thrust::transform(thrust::cuda::par_nosync.on(stream), in, in + n,
// inout, inout, op) and returns without waiting (par_nosync: the same kernel
// as thrust::cuda::par, without par's stream synchronisation after the call,
// so that CUDA events time the kernel as they time the stream calls). Returns
// nullptr, or the error's text (kept until the next call).
const char *cuda_bench_thrust(CudaBenchThrustCase which, const void *in, void *inout, long long n,
                              cudaStream_t stream);

// "Thrust 3.0.1" (THRUST_VERSION of the headers it was compiled with).
const char *cuda_bench_thrust_version();

#endif
