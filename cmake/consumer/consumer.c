/* Reduces with the installed library and checks the result. */
#include <stdio.h>

#include <opframe/opframe.h>

int main(void)
{
    int in[4] = {1, 2, 3, 4}, inout[4] = {10, 20, 30, 40};
    const int rc = opf_reduce_local(in, inout, 4, OPF_INT, OPF_SUM);
    if (rc != OPF_SUCCESS || inout[0] != 11 || inout[3] != 44) {
        printf("consumer: opf_reduce_local rc %d (%s), inout %d %d %d %d\n", rc, opf_last_error(), inout[0], inout[1],
               inout[2], inout[3]);
        return 1;
    }
    printf("consumer: opframe %d.%d.%d, SUM INT gives %d %d %d %d\n", OPF_VERSION_MAJOR, OPF_VERSION_MINOR,
           OPF_VERSION_PATCH, inout[0], inout[1], inout[2], inout[3]);
    opf_finalize();
    return 0;
}
