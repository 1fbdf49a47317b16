// cuda_kernels.h — what cuda_kernels.cu (nvcc) gives opf_op_cuda.cpp (the
// host compiler): per (op, kernel type) slot, a launcher of the device
// kernel, the same computation on the host, and the kernel itself (for
// occupancy queries). Plain C++, no CUDA type.
#pragma once

#include <cstdint>

#include <opframe/opframe.h>

#include "components/gpu/kernels.h"

namespace opf_cuda {

// The kernel tables' words are the device core's (components/gpu/kernels.h):
// launchers return a cudaError_t as opf_gpu::Error and take a cudaStream_t
// as opf_gpu::Stream.
using opf_gpu::Geometry;
using opf_gpu::kChain;
using opf_gpu::kMaxInputs;
using opf_gpu::kNaryForms;
using opf_gpu::kOnce;
using opf_gpu::NaryForm;
using opf_gpu::NaryKernel;
using opf_gpu::SlotKernel;

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
