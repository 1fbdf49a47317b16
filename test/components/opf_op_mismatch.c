/* mismatch: a broken test component: the file and symbol say "mismatch",
 * the component's name field says "other". */
#include "tc_common.h"

static int op_query(int op_id, opf_module_t *module)
{
    (void)op_id;
    (void)module;
    return 1;
}

OPF_COMPONENT_DECLARE(mismatch) = {
    .abi_version = OPF_COMPONENT_ABI_VERSION,
    .framework = OPF_FRAMEWORK_NAME,
    .name = "other",
    .version = {1, 0, 0},
    .description = "test component whose name does not match its file",
    .init_query = tc_init_query_ok,
    .op_query = op_query,
};
