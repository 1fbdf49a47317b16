// cuda_ops.h — the device core's kernel words (components/gpu/device_ops.h:
// the slots a GPU computes, launch plans, work items, the fp8 word rules)
// with CUDA's vector types, under the cuda component's names (opf_cuda::),
// for cuda_kernels.cu and the tests that run its work items on the host.
#pragma once

#include <vector_types.h>

#include "components/gpu/device_ops.h"
#include "cuda_kernels.h"

namespace opf_cuda {
using namespace opf_gpu;
}
