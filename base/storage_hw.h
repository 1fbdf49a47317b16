// storage_hw.h — storage.h's float <-> float16 / bfloat16 / fp8 conversions
// through the GPU's conversion instructions (cuda_fp16.h, cuda_bf16.h,
// cuda_fp8.h), giving storage.h's
// bits: storage.h calls these in nvcc's device pass, where its branchy
// software path bounded the narrow types' kernels at a quarter to half of
// memory speed on an H200.
//
// The instructions round to nearest even, keep subnormals and signed zeros,
// as storage.h does; where their rule differs it is fixed up here:
//   - cvt.rn.satfinite.{e4m3,e5m2}x2.f32 (sm_89 and later; the only fp8 form
//     from float) clamps every magnitude beyond the largest finite to it,
//     and inf too; storage.h's E4M3 gives the NaN from above 464 (inf and
//     NaN included), E5M2 gives inf from 61440 on;
//   - NaN results are the instruction's canonical NaN (any NaN matches any
//     NaN: sign and payload are not part of the rule).
// Decoding fp8 in integer arithmetic and an exact multiply instead of the
// conversion instructions was tried and measured slower (SUM FLOAT8_E4M3 at
// 0.47 of copy speed against 0.66 on an H200).
// Compiled for the host, the CUDA headers emulate the same instructions:
// test/cuda_semantics checks these functions against storage.h that way
// (every float in the deep tier), and test/cuda_conversions does it on the
// GPU itself with the real instructions.
#pragma once

#include <cstdint>
#include <cstring>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

namespace opf::base::hw {

__host__ __device__ inline uint32_t float_bits(float f)
{
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

__host__ __device__ inline float half_to_float(uint16_t bits)   // cvt.f32.f16: exact
{
    __half_raw r;
    r.x = bits;
    return __half2float(__half(r));
}

__host__ __device__ inline uint16_t float_to_half(float f)   // cvt.rn.f16.f32: overflow is inf, as storage.h
{
    return __half_raw(__float2half_rn(f)).x;
}

__host__ __device__ inline uint16_t float_to_bfloat16(float f)   // cvt.rn.bf16.f32 (sm_80 on): as storage.h
{
    return __nv_bfloat16_raw(__float2bfloat16_rn(f)).x;
}

__host__ __device__ inline float e4m3_to_float(uint8_t bits)   // cvt.rn.f16x2.e4m3x2, then to float: exact
{
    return half_to_float(__nv_cvt_fp8_to_halfraw(bits, __NV_E4M3).x);
}

__host__ __device__ inline float e5m2_to_float(uint8_t bits)   // the top byte of a float16: exact
{
    return half_to_float(uint16_t(bits << 8));
}

// Two floats to two fp8 codes (lo in the low byte), one instruction for both;
// a lane the instruction saturated where storage.h does not is moved one code
// on: E4M3 above 464 (inf and NaN included) to the NaN (0x7e | 1; a NaN is
// 0x7f already), E5M2 from 61440 on (inf included, NaN not) to inf (0x7b + 1).
__host__ __device__ inline uint16_t float2_to_e4m3x2(float lo, float hi)
{
    const uint16_t codes = __nv_cvt_float2_to_fp8x2(make_float2(lo, hi), __NV_SATFINITE, __NV_E4M3);
    auto beyond = [](float f) { return (float_bits(f) & 0x7fffffffu) > 0x43e80000u ? 1u : 0u; };
    return uint16_t(codes | beyond(lo) | beyond(hi) << 8);
}
__host__ __device__ inline uint16_t float2_to_e5m2x2(float lo, float hi)
{
    const uint16_t codes = __nv_cvt_float2_to_fp8x2(make_float2(lo, hi), __NV_SATFINITE, __NV_E5M2);
    auto to_inf = [](float f) {
        const uint32_t abs = float_bits(f) & 0x7fffffffu;
        return abs >= 0x47700000u && abs <= 0x7f800000u ? 1u : 0u;
    };
    return uint16_t(codes + (to_inf(lo) | to_inf(hi) << 8));
}

__host__ __device__ inline uint8_t float_to_e4m3(float f) { return uint8_t(float2_to_e4m3x2(f, 0.0f)); }
__host__ __device__ inline uint8_t float_to_e5m2(float f) { return uint8_t(float2_to_e5m2x2(f, 0.0f)); }

} // namespace opf::base::hw
