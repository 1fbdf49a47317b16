// cuda_kernels.h — what cuda_kernels.cu (nvcc) gives opf_op_cuda.cpp (the
// host compiler): per (op, kernel type) slot, a launcher of the device
// kernel, the same computation on the host, and the kernel itself (for
// occupancy queries). Plain C++ with the CUDA runtime API types only.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>
#include <opframe/opframe.h>

namespace opf_cuda {

// The most inputs of an n-ary kernel, and its forms: the op's chain result
// (kChain) and, where it differs, OPF_ROUND_ONCE's (kOnce).
constexpr int kMaxInputs = OPF_REDUCE_N_MAX;
enum NaryForm : int { kChain, kOnce, kNaryForms };

// How a launcher spreads the work: threads per block, and the most blocks
// (a grid-stride loop covers the rest).
struct Geometry {
    int block;
    int max_blocks;
};

struct SlotKernel {
    // out[i] = in1[i] op in2[i] for i < n, enqueued on `stream` of the current
    // device; out may be in1 or in2. Any element address (misaligned ones take
    // a byte-wise path). Returns the launch's error.
    cudaError_t (*launch)(const void *in1, const void *in2, void *out, int64_t n, Geometry g, cudaStream_t stream);
    // The same on host memory, synchronously.
    void (*host)(const void *in1, const void *in2, void *out, int64_t n);
    const void *kernel;   // the __global__ function
    int element_size;     // sizeof the element type
};

// The n-ary kernels of a slot: out[i] = the op's n-ary result over
// in[0][i] .. in[k-1][i] (1 <= k <= OPF_REDUCE_N_MAX), in one form (cuda_ops.h
// NaryForm: 0 the chain result, 1 OPF_ROUND_ONCE's); out may be any in[j].
struct NaryKernel {
    // Enqueued on `stream` of the current device; `in` is read before it returns.
    cudaError_t (*launch)(const void *const in[], int k, void *out, int64_t n, Geometry g, cudaStream_t stream);
    void (*host)(const void *const in[], int k, void *out, int64_t n);
    const void *kernel;
    int element_size;
};

// The n-ary kernel of (op id, kernel type, form), or nullptr (no such kernel:
// not computed on the GPU, a form the slot has not, REPLACE / NO_OP).
const NaryKernel *nary_kernel(int op_id, int kernel_type, int form);

// The slot's kernels, or nullptr when the GPU does not compute (op id,
// kernel type). REPLACE and NO_OP have kernels for the types the GPU computes:
// they copy data bytes only (no pair padding, nothing past the true end).
const SlotKernel *slot_kernel(int op_id, int kernel_type);

// The GPU architectures this object was compiled for (__CUDA_ARCH_LIST__,
// as "sm_75, sm_80, sm_90"), and the lowest one as major * 10 + minor.
const char *arch_list();
int lowest_arch();

} // namespace opf_cuda
