// cuda_conversions.cu — on a GPU: the float16 / fp8 conversions the device
// kernels run (base/storage.h's dispatchers, which nvcc's device pass sends
// to the GPU's instructions, base/storage_hw.h) against the rule (storage.h's
// *_soft functions, compiled for the same device), for every input: all 2^32
// floats to float16, bfloat16, FLOAT8_E4M3 and FLOAT8_E5M2; all 2^16 float16 and 2^8
// fp8 codes to float. Any NaN matches any NaN; everything else bit for bit.
//
// That the check can fail is shown in the same run: the bare saturating fp8
// instruction (storage_hw.h without its fix-up) must differ from the rule,
// and the count of its differences is printed.
//
// Usage: cuda_conversions [--device N]
// Exit status: 0, 1 (a difference), 77 (skipped: no CUDA driver or device).
#include <cuda_runtime_api.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/storage.h"

namespace {

namespace ob = opf::base;

enum Check : int { kHalf, kBF16, kE4M3, kE5M2, kHalfWiden, kE4M3Widen, kE5M2Widen, kBareE4M3, kBareE5M2, kChecks };
const char *const check_name[kChecks] = {
    "float -> float16",          "float -> bfloat16",         "float -> float8_e4m3",      "float -> float8_e5m2",
    "float16 -> float",          "float8_e4m3 -> float",      "float8_e5m2 -> float",
    "bare satfinite e4m3 (expected to differ)", "bare satfinite e5m2 (expected to differ)"};

struct Tally {
    unsigned long long differ[kChecks];
    uint32_t first_input[kChecks], first_got[kChecks], first_want[kChecks];
    int hw_half, hw_float8;   // which path the dispatchers took in this build
};

__device__ bool same(uint32_t got, uint32_t want, bool got_nan, bool want_nan) { return got == want || (got_nan && want_nan); }
__device__ bool half_nan(uint32_t h) { return (h & 0x7fff) > 0x7c00; }
__device__ bool bf16_nan(uint32_t b) { return (b & 0x7fff) > 0x7f80; }
__device__ bool e4m3_nan(uint32_t b) { return (b & 0x7f) == 0x7f; }
__device__ bool e5m2_nan(uint32_t b) { return (b & 0x7f) > 0x7c; }
__device__ bool float_nan(uint32_t u) { return (u & 0x7fffffff) > 0x7f800000; }

__device__ void note(Tally *t, int check, uint32_t input, uint32_t got, uint32_t want)
{
    if (atomicAdd(&t->differ[check], 1ull) == 0) {
        t->first_input[check] = input;
        t->first_got[check] = got;
        t->first_want[check] = want;
    }
}

__global__ void every_float(uint64_t begin, uint64_t count, Tally *t)
{
    const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
    for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
        const uint32_t u = uint32_t(begin + i);
        const float f = ob::bits_as<float>(u);
        const uint32_t h = ob::to_half(f).bits, hs = ob::to_half_soft(f).bits;
        if (!same(h, hs, half_nan(h), half_nan(hs))) note(t, kHalf, u, h, hs);
        const uint32_t b = ob::to_bfloat16(f).bits, bs = ob::to_bfloat16_soft(f).bits;
        if (!same(b, bs, bf16_nan(b), bf16_nan(bs))) note(t, kBF16, u, b, bs);
        const uint32_t e4 = ob::to_float8_e4m3(f).bits, e4s = ob::to_float8_e4m3_soft(f).bits;
        if (!same(e4, e4s, e4m3_nan(e4), e4m3_nan(e4s))) note(t, kE4M3, u, e4, e4s);
        const uint32_t e5 = ob::to_float8_e5m2(f).bits, e5s = ob::to_float8_e5m2_soft(f).bits;
        if (!same(e5, e5s, e5m2_nan(e5), e5m2_nan(e5s))) note(t, kE5M2, u, e5, e5s);
#if __CUDA_ARCH__ >= 890
        const uint32_t b4 = __nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E4M3);
        if (!same(b4, e4s, e4m3_nan(b4), e4m3_nan(e4s))) note(t, kBareE4M3, u, b4, e4s);
        const uint32_t b5 = __nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E5M2);
        if (!same(b5, e5s, e5m2_nan(b5), e5m2_nan(e5s))) note(t, kBareE5M2, u, b5, e5s);
#endif
    }
}

__global__ void every_code(Tally *t)
{
    const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= 0x10000) return;
    const uint32_t w = ob::bits_as<uint32_t>(ob::to_float(ob::Half{uint16_t(c)}));
    const uint32_t ws = ob::bits_as<uint32_t>(ob::to_float_soft(ob::Half{uint16_t(c)}));
    if (!same(w, ws, float_nan(w), float_nan(ws))) note(t, kHalfWiden, c, w, ws);
    if (c < 0x100) {
        const uint32_t a = ob::bits_as<uint32_t>(ob::to_float(ob::Float8E4M3{uint8_t(c)}));
        const uint32_t as = ob::bits_as<uint32_t>(ob::to_float_soft(ob::Float8E4M3{uint8_t(c)}));
        if (!same(a, as, float_nan(a), float_nan(as))) note(t, kE4M3Widen, c, a, as);
        const uint32_t b = ob::bits_as<uint32_t>(ob::to_float(ob::Float8E5M2{uint8_t(c)}));
        const uint32_t bs = ob::bits_as<uint32_t>(ob::to_float_soft(ob::Float8E5M2{uint8_t(c)}));
        if (!same(b, bs, float_nan(b), float_nan(bs))) note(t, kE5M2Widen, c, b, bs);
    }
    if (c == 0) {
#if defined(OPF_STORAGE_HW)
        t->hw_half = 1;
#endif
#if defined(OPF_STORAGE_HW_FP8_CVT)
        t->hw_float8 = 1;
#endif
    }
}

#define CUDA_OK(call)                                                                                          \
    do {                                                                                                       \
        const cudaError_t e_ = (call);                                                                         \
        if (e_ != cudaSuccess) {                                                                               \
            std::printf("FAIL: %s: %s (%s)\n", #call, cudaGetErrorName(e_), cudaGetErrorString(e_));         \
            return 1;                                                                                          \
        }                                                                                                      \
    } while (0)

} // namespace

int main(int argc, char **argv)
{
    int dev = 0;
    for (int i = 1; i < argc; ++i) {
        if (std::string(argv[i]) == "--device" && i + 1 < argc) dev = std::atoi(argv[++i]);
        else {
            std::fprintf(stderr, "usage: %s [--device N]\n", argv[0]);
            return 2;
        }
    }
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev <= dev) {
        std::printf("cuda_conversions: skipped: no CUDA driver or no device %d\n", dev);
        return 77;
    }
    CUDA_OK(cudaSetDevice(dev));
    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, dev));
    Tally *t = nullptr;
    CUDA_OK(cudaMallocManaged(&t, sizeof *t));
    std::memset(t, 0, sizeof *t);
    cudaEvent_t start, stop;
    CUDA_OK(cudaEventCreate(&start));
    CUDA_OK(cudaEventCreate(&stop));
    CUDA_OK(cudaEventRecord(start));
    constexpr uint64_t chunk = uint64_t(1) << 30;
    for (uint64_t begin = 0; begin < (uint64_t(1) << 32); begin += chunk)
        every_float<<<unsigned(prop.multiProcessorCount * 8), 256>>>(begin, chunk, t);
    every_code<<<256, 256>>>(t);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaEventRecord(stop));
    CUDA_OK(cudaDeviceSynchronize());
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    std::printf("cuda_conversions: %s (sm_%d%d); device path: float16 and bfloat16 %s, fp8 %s; every input in "
                "%.0f ms\n", prop.name, prop.major, prop.minor, t->hw_half ? "instructions" : "software",
                t->hw_float8 ? "instructions" : "software (no fp8 instructions before sm_89 in this build)", ms);
    int failed = 0;
    for (int c = 0; c < kChecks; ++c) {
        const bool bare = c == kBareE4M3 || c == kBareE5M2;
        if (bare && !t->hw_float8) continue;
        const bool bad = bare ? t->differ[c] == 0 : t->differ[c] != 0;
        failed += bad;
        std::printf("%s %-42s %llu differences", bad ? "FAIL" : "ok  ", check_name[c], t->differ[c]);
        if (t->differ[c])
            std::printf(" (first: input 0x%08" PRIx32 ": device 0x%" PRIx32 ", rule 0x%" PRIx32 ")", t->first_input[c],
                        t->first_got[c], t->first_want[c]);
        std::printf("\n");
    }
    std::printf("cuda_conversions: %s\n", failed ? "FAILED" : "ok");
    return failed ? 1 : 0;
}
