/* Links libopframe-opencl through opframe::opencl: its header compiles and
 * its symbols resolve. */
#include <stdio.h>

#include <opframe/opencl.h>

int main(void)
{
    const char *e = opf_cl_last_error();
    printf("consumer_opencl: opf_cl_last_error() = \"%s\"\n", e ? e : "(null)");
    return 0;
}
