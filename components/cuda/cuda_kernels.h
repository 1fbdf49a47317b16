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

using opf_gpu::arch_list;
using opf_gpu::nary_kernel;
using opf_gpu::slot_kernel;

// The lowest GPU architecture this object was compiled for
// (__CUDA_ARCH_LIST__), as major * 10 + minor.
int lowest_arch();

} // namespace opf_cuda
