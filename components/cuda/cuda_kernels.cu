// cuda_kernels.cu — the cuda component's device kernels: the device core's
// one kernel source (components/gpu/device_kernels.h) compiled by nvcc,
// launched by cudaLaunchKernel, and the architectures it was built for.
//
// Built with -fmad=false -ftz=false (and -Xcompiler -ffp-contract=off for
// the host half): nothing is contracted into an FMA, subnormals are kept;
// see device_ops.h.
#include <cuda_runtime_api.h>

#include "cuda_kernels.h"
#include "cuda_ops.h"

#include <string>

namespace opf_gpu {
namespace {
constexpr Error kInvalidValue = cudaErrorInvalidValue;   // a launch's arguments out of range
Error launch_kernel(const void *kernel, unsigned blocks, unsigned block, void **args, Stream stream)
{
    return cudaLaunchKernel(kernel, dim3(blocks), dim3(block), args, 0, static_cast<cudaStream_t>(stream));
}
} // namespace
} // namespace opf_gpu

#include "components/gpu/device_kernels.h"

namespace opf_gpu {

const char *arch_list()
{
#if defined(__CUDA_ARCH_LIST__)
    static const std::string text = [] {
        const int archs[] = {__CUDA_ARCH_LIST__};   // e.g. 750, 800, 900
        std::string t;
        for (int a : archs) t += (t.empty() ? "sm_" : ", sm_") + std::to_string(a / 10);
        return t;
    }();
    return text.c_str();
#else
    return "(no GPU architecture)";
#endif
}

} // namespace opf_gpu

namespace opf_cuda {

int lowest_arch()
{
#if defined(__CUDA_ARCH_LIST__)
    const int archs[] = {__CUDA_ARCH_LIST__};   // e.g. 750, 800, 900
    int low = archs[0];
    for (int a : archs) low = std::min(low, a);
    return low / 10;
#else
    return 0;
#endif
}

} // namespace opf_cuda
