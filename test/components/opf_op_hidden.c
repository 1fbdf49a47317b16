/* hidden: a test component whose symbol is right but not exported: declared
 * without OPF_COMPONENT_DECLARE and built with -fvisibility=hidden, as a
 * newcomer's first component often is. */
#include "tc_common.h"

static int op_query(int op_id, opf_module_t *module)
{
    (void)op_id;
    (void)module;
    return 1;
}

const opf_component_t opf_op_hidden_component = {
    .abi_version = OPF_COMPONENT_ABI_VERSION,
    .framework = OPF_FRAMEWORK_NAME,
    .name = "hidden",
    .version = {1, 0, 0},
    .description = "test component whose symbol is hidden",
    .init_query = tc_init_query_ok,
    .op_query = op_query,
};
