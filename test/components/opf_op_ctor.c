/* ctor: a test component whose library constructor writes a marker file (the
 * path in OPF_TEST_CTOR_MARKER) the moment the loader opens it, as hostile
 * code would: test/component_trust.sh checks that a file opframe refuses is
 * never opened, and that one it accepts is. Otherwise it offers nothing. */
#include "tc_common.h"

#include <stdlib.h>

__attribute__((constructor)) static void mark_loaded(void)
{
    const char *marker = getenv("OPF_TEST_CTOR_MARKER");
    if (!marker || !*marker) return;
    FILE *f = fopen(marker, "a");
    if (!f) return;
    fputs("constructor ran\n", f);
    fclose(f);
}

static int op_query(int op_id, opf_module_t *module)
{
    (void)op_id;
    (void)module;
    return 1;
}

OPF_COMPONENT_DECLARE(ctor) = {
    .abi_version = OPF_COMPONENT_ABI_VERSION,
    .framework = OPF_FRAMEWORK_NAME,
    .name = "ctor",
    .version = {1, 0, 0},
    .description = "test component whose constructor writes a marker file",
    .init_query = tc_init_query_ok,
    .op_query = op_query,
};
