// cuda_cpu_ptds.cpp — part of test/cuda_cpu: a translation unit compiled as
// nvcc --default-stream per-thread compiles one (it defines this macro), where
// stream 0 means the calling thread's per-thread default stream. cuda.h's
// wrappers must say so to the component (issue 13, defect 9).
#define CUDA_API_PER_THREAD_DEFAULT_STREAM 1
#include <opframe/cuda.h>

int reduce_on_stream0_per_thread(const void *in, void *inout, opf_count_t n)
{
    return opf_cuda_reduce_local(in, inout, n, OPF_FLOAT, OPF_SUM, 0);
}
