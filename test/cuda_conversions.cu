// cuda_conversions.cu — on a GPU: the float16 / fp8 conversions the device
// kernels run (base/storage.h's dispatchers, which nvcc's device pass sends
// to the GPU's instructions, base/storage_hw.h) against the rule (storage.h's
// *_soft functions, compiled for the same device), for every input: all 2^32
// floats to float16, bfloat16, FLOAT8_E4M3 and FLOAT8_E5M2; all 2^16 float16 and 2^8
// fp8 codes to float. Any NaN matches any NaN; everything else bit for bit.
//
// And the fp8 word rules of the vector kernels (components/gpu/fp8_words.h:
// MAX / MIN on the codes, SUM, PROD and the mean of two through binary16
// pairs with the saturating conversion and its fix-up, the float
// accumulators with paired conversions) against the same vectors element by
// element, for every operand pair in both orders.
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
#include "components/cuda/cuda_ops.h"

namespace {

namespace ob = opf::base;

namespace oc = opf_cuda;

enum Check : int { kHalf, kBF16, kE4M3, kE5M2, kHalfWiden, kE4M3Widen, kE5M2Widen, kWordRules, kBareE4M3, kBareE5M2, kChecks };
const char *const check_name[kChecks] = {
    "float -> float16",          "float -> bfloat16",         "float -> float8_e4m3",      "float -> float8_e5m2",
    "float16 -> float",          "float8_e4m3 -> float",      "float8_e5m2 -> float",      "fp8 word rules, every pair",
    "bare satfinite e4m3 (expected to differ)", "bare satfinite e5m2 (expected to differ)"};

struct Tally {
    unsigned long long differ[kChecks];
    uint32_t first_input[kChecks], first_got[kChecks], first_want[kChecks];
    int hw_half, hw_float8;   // which path the dispatchers took in this build
    int word_rules;           // how many fp8 word rules this build has
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

// Word rule `rule` of the list below on 16 operand pairs (a, b) and (b, a):
// vector v holds pairs 16v .. 16v + 15; input = rule << 16 | the pair.
template <class T, class A> __device__ void pairs_of_vector(Tally *t, int rule, uint32_t v)
{
    if constexpr (!std::is_void_v<oc::fp8::WordRule<T, A>>) {
        if (v == 0) atomicAdd(&t->word_rules, 1);
        uint8_t a[16], b[16];
        for (uint32_t l = 0; l < 16; ++l) a[l] = uint8_t((16 * v + l) >> 8), b[l] = uint8_t(16 * v + l);
        uint4 in[2];
        for (int order = 0; order < 2; ++order) {
            std::memcpy(&in[order], a, 16), std::memcpy(&in[1 - order], b, 16);
            using Words = oc::VectorAcc<T, A>;
            using Elements = oc::VectorAcc<T, A, void>;
            const uint4 w = Words::result(Words::add(Words::first(in[0], 2), in[1], 2), 2);
            const uint4 e = Elements::result(Elements::add(Elements::first(in[0], 2), in[1], 2), 2);
            uint8_t x[16], y[16];
            std::memcpy(x, &w, 16), std::memcpy(y, &e, 16);
            for (uint32_t l = 0; l < 16; ++l) {
                const bool nan = std::is_same_v<T, ob::Float8E4M3> ? e4m3_nan(x[l]) && e4m3_nan(y[l])
                                                                     : e5m2_nan(x[l]) && e5m2_nan(y[l]);
                if (x[l] != y[l] && !nan) note(t, kWordRules, uint32_t(rule) << 16 | (16 * v + l), x[l], y[l]);
            }
        }
    }
}
__global__ void every_pair(Tally *t)
{
    const uint32_t v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= 0x10000 / 16) return;
    using E4 = ob::Float8E4M3;
    using E5 = ob::Float8E5M2;
    using ob::FoldAcc, ob::SumAcc, ob::Rounding;
    pairs_of_vector<E4, FoldAcc<ob::OpMax, E4>>(t, 0, v);
    pairs_of_vector<E5, FoldAcc<ob::OpMax, E5>>(t, 1, v);
    pairs_of_vector<E4, FoldAcc<ob::OpMin, E4>>(t, 2, v);
    pairs_of_vector<E5, FoldAcc<ob::OpMin, E5>>(t, 3, v);
    pairs_of_vector<E4, SumAcc<E4, Rounding::Chain>>(t, 4, v);
    pairs_of_vector<E5, SumAcc<E5, Rounding::Chain>>(t, 5, v);
    pairs_of_vector<E4, FoldAcc<ob::OpProd, E4>>(t, 6, v);
    pairs_of_vector<E5, FoldAcc<ob::OpProd, E5>>(t, 7, v);
    pairs_of_vector<E4, oc::fp8::MeanOfTwo<E4>>(t, 8, v);
    pairs_of_vector<E5, oc::fp8::MeanOfTwo<E5>>(t, 9, v);
    pairs_of_vector<E4, SumAcc<E4, Rounding::Once>>(t, 10, v);
    pairs_of_vector<E5, SumAcc<E5, Rounding::Once>>(t, 11, v);
    pairs_of_vector<E4, ob::MeanAcc<E4, Rounding::Chain>>(t, 12, v);
    pairs_of_vector<E5, ob::MeanAcc<E5, Rounding::Chain>>(t, 13, v);
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
    every_pair<<<16, 256>>>(t);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaEventRecord(stop));
    CUDA_OK(cudaDeviceSynchronize());
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    std::printf("cuda_conversions: %s (sm_%d%d); device path: float16 and bfloat16 %s, fp8 %s; every input in "
                "%.0f ms; fp8 word rules: %d\n", prop.name, prop.major, prop.minor, t->hw_half ? "instructions" : "software",
                t->hw_float8 ? "instructions" : "software (no fp8 instructions before sm_89 in this build)", ms,
                t->word_rules);
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
    const int word_rules_expected = t->hw_float8 ? 14 : 4;   // the binary16 ones need the fp8 instructions
    if (t->word_rules != word_rules_expected) {
        ++failed;
        std::printf("FAIL %d fp8 word rules in this build, %d expected\n", t->word_rules, word_rules_expected);
    }
    std::printf("cuda_conversions: %s\n", failed ? "FAILED" : "ok");
    return failed ? 1 : 0;
}
