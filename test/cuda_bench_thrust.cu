// cuda_bench_thrust.cu — Thrust's transforms for test/cuda_bench (see
// cuda_bench_thrust.h): compiled by nvcc where the cuda component is built.
// A speed reference only: these ops saturate fp8 (__NV_SATFINITE) where
// opframe does not, and differ from opframe's on NaN (maximum).
#include "cuda_bench_thrust.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <thrust/execution_policy.h>
#include <thrust/transform.h>
#include <thrust/version.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

namespace {

struct FloatPlus {
    __device__ float operator()(float a, float b) const { return a + b; }
};
struct Int32Plus {   // wraps, as opframe's integer SUM
    __device__ std::int32_t operator()(std::int32_t a, std::int32_t b) const
    {
        return std::int32_t(std::uint32_t(a) + std::uint32_t(b));
    }
};
struct DoubleMaximum {
    __device__ double operator()(double a, double b) const { return a < b ? b : a; }
};
struct DoubleMultiplies {
    __device__ double operator()(double a, double b) const { return a * b; }
};
struct HalfPlus {
    __device__ __half operator()(__half a, __half b) const
    {
        return __float2half_rn(__half2float(a) + __half2float(b));
    }
};
struct Bf16Plus {
    __device__ __nv_bfloat16 operator()(__nv_bfloat16 a, __nv_bfloat16 b) const
    {
        return __float2bfloat16_rn(__bfloat162float(a) + __bfloat162float(b));
    }
};
template <__nv_fp8_interpretation_t Kind> struct Fp8Plus {
    __device__ static float widen(__nv_fp8_storage_t x) { return __half2float(__half(__nv_cvt_fp8_to_halfraw(x, Kind))); }
    __device__ __nv_fp8_storage_t operator()(__nv_fp8_storage_t a, __nv_fp8_storage_t b) const
    {
        return __nv_cvt_float_to_fp8(widen(a) + widen(b), __NV_SATFINITE, Kind);
    }
};

template <class T, class Op> void run(const void *in, void *inout, long long n, cudaStream_t stream)
{
    const T *first = static_cast<const T *>(in);
    T *acc = static_cast<T *>(inout);
    thrust::transform(thrust::cuda::par_nosync.on(stream), first, first + n, acc, acc, Op());
}

thread_local std::string last_error;

} // namespace

const char *cuda_bench_thrust(CudaBenchThrustCase which, const void *in, void *inout, long long n,
                              cudaStream_t stream)
{
    try {
        switch (which) {
        case CB_THRUST_FLOAT_PLUS: run<float, FloatPlus>(in, inout, n, stream); break;
        case CB_THRUST_INT32_PLUS: run<std::int32_t, Int32Plus>(in, inout, n, stream); break;
        case CB_THRUST_DOUBLE_MAXIMUM: run<double, DoubleMaximum>(in, inout, n, stream); break;
        case CB_THRUST_DOUBLE_MULTIPLIES: run<double, DoubleMultiplies>(in, inout, n, stream); break;
        case CB_THRUST_HALF_PLUS: run<__half, HalfPlus>(in, inout, n, stream); break;
        case CB_THRUST_BF16_PLUS: run<__nv_bfloat16, Bf16Plus>(in, inout, n, stream); break;
        case CB_THRUST_E4M3_PLUS: run<__nv_fp8_storage_t, Fp8Plus<__NV_E4M3>>(in, inout, n, stream); break;
        case CB_THRUST_E5M2_PLUS: run<__nv_fp8_storage_t, Fp8Plus<__NV_E5M2>>(in, inout, n, stream); break;
        default: return "no such Thrust case";
        }
        const cudaError_t e = cudaPeekAtLastError();
        if (e != cudaSuccess) {
            last_error = std::string("thrust::transform: ") + cudaGetErrorName(e);
            return last_error.c_str();
        }
    } catch (const std::exception &x) {
        last_error = std::string("thrust::transform: ") + x.what();
        return last_error.c_str();
    }
    return nullptr;
}

const char *cuda_bench_thrust_version()
{
    static char text[48];
    std::snprintf(text, sizeof text, "Thrust %d.%d.%d", THRUST_MAJOR_VERSION, THRUST_MINOR_VERSION,
                  THRUST_SUBMINOR_VERSION);
    return text;
}
