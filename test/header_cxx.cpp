// The same headers compiled as C++ with -pedantic -Werror (the inline calls too).
#include <opframe/opframe.h>
#include <opframe/component.h>
#include <opframe/introspect.h>
#include <opframe/device.h>
#ifndef OPF_INLINE_CALLS
#error "opframe.h gives C++ with GCC or Clang inline calls"
#endif

extern "C" int header_cxx_check(void)
{
    constexpr int n = 3;
    double in[n] = { 1, 5, 3 }, inout[n] = { 4, 2, 3 };
    if (opf_reduce_local(in, inout, n, OPF_DOUBLE, OPF_MAX) != OPF_SUCCESS) return 1;
    return (inout[0] == 4 && inout[1] == 5 && inout[2] == 3) ? 0 : 1;
}
