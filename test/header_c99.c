/* Compiled with -std=c99 -pedantic -Werror: the public headers are plain C,
 * and predefined handles are constants usable in static initialisers. */
#include <opframe/opframe.h>
#include <opframe/introspect.h>
#include <opframe/device.h>
/* An application's headers keep the component ABI out of sight. */
#ifdef OPFRAME_COMPONENT_H
#error "introspect.h or device.h includes component.h"
#endif
#include <opframe/component.h>
#ifndef OPF_INLINE_CALLS
#error "opframe.h gives C99 with GCC or Clang inline calls"
#endif
#include <stdio.h>

static const opf_op_t ops[] = { OPF_SUM, OPF_MAXLOC, OPF_OP_NULL };
static const opf_datatype_t types[] = { OPF_FLOAT, OPF_C_COMPLEX, OPF_2INTEGER, OPF_DATATYPE_NULL };

int header_cxx_check(void);

int main(void)
{
    float a[2] = { 1.0f, 2.0f }, b[2] = { 3.0f, 4.0f };
    int failures = 0;
    if (opf_reduce_local(a, b, 2, types[0], ops[0]) != OPF_SUCCESS) failures++;
    if (b[0] != 4.0f || b[1] != 6.0f) failures++;
    if (ops[2] != OPF_OP_NULL || types[3] != OPF_DATATYPE_NULL) failures++;
    {
        int major = -1, minor = -1, patch = -1;
        if (opf_get_api_version(&major, &minor, &patch) != OPF_SUCCESS) failures++;
        if (major != OPF_VERSION_MAJOR || minor != OPF_VERSION_MINOR || patch != OPF_VERSION_PATCH) failures++;
        if (opf_get_api_version(NULL, NULL, NULL) != OPF_SUCCESS) failures++;
    }
    failures += header_cxx_check();
    opf_finalize();
    printf("header_c99: %d failed\n", failures);
    return failures != 0;
}
