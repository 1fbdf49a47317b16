// cuda_header_cxx.cpp — include/opframe/cuda.h as C++ (see cuda_header_c99.c).
#include <opframe/cuda.h>

extern "C" int cuda_header_cxx(void)
{
    int supported = -1;
    const int rc = opf_cuda_supported(OPF_MINLOC, OPF_2INT, &supported);
    return rc == OPF_SUCCESS && (supported == 0 || supported == 1) ? 0 : 1;
}
