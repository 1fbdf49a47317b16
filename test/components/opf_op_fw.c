/* fw: a broken test component of another framework ("coll"). */
#include "tc_common.h"

static int op_query(int op_id, opf_module_t *module)
{
    (void)op_id;
    (void)module;
    return 1;
}

OPF_COMPONENT_DECLARE(fw) = {
    .abi_version = OPF_COMPONENT_ABI_VERSION,
    .framework = "coll",
    .name = "fw",
    .version = {1, 0, 0},
    .description = "test component of another framework",
    .init_query = tc_init_query_ok,
    .op_query = op_query,
};
