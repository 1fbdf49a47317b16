/* cuda_header_c99.c — include/opframe/cuda.h compiles as strict C99 (and,
 * in cuda_header_cxx.cpp, as C++), and its helpers answer sensibly whether
 * or not the cuda component is available here. */
#include <stdio.h>
#include <opframe/cuda.h>

int cuda_header_cxx(void);

int main(void)
{
    const char *status = NULL;
    int failures = 0, supported = -1;
    const int available = opf_cuda_available(&status);
    printf("cuda component: %s\n", status ? status : "(null)");
    if (!status || (available != 0 && available != 1)) ++failures;
    /* long double is never computed on the GPU; an invalid op is refused */
    if (opf_cuda_supported(OPF_SUM, OPF_LONG_DOUBLE, &supported) != OPF_SUCCESS || supported != 0) ++failures;
    if (opf_cuda_supported(OPF_OP_NULL, OPF_FLOAT, &supported) != OPF_ERR_OP) ++failures;
    if (opf_cuda_supported(OPF_SUM, OPF_FLOAT, &supported) != OPF_SUCCESS || supported != available) ++failures;
    /* count 0 enqueues nothing and succeeds */
    {
        const int rc = opf_cuda_reduce_local(NULL, NULL, 0, OPF_FLOAT, OPF_SUM, (cudaStream_t)0);
        if (rc != OPF_SUCCESS) ++failures;
    }
    failures += cuda_header_cxx();
    printf("cuda_header: %d failed\n", failures);
    return failures ? 1 : 0;
}
