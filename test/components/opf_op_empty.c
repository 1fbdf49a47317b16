/* empty: a well-formed, available test component that offers nothing. */
#include "tc_common.h"

static int op_query(int op_id, opf_module_t *module)
{
    (void)op_id;
    (void)module;
    return 1;
}

OPF_COMPONENT_DECLARE(empty) = {
    .abi_version = OPF_COMPONENT_ABI_VERSION,
    .framework = OPF_FRAMEWORK_NAME,
    .name = "empty",
    .version = {1, 0, 0},
    .description = "test component that offers no slot",
    .init_query = tc_init_query_ok,
    .op_query = op_query,
};
