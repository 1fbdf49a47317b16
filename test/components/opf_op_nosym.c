/* nosym: a broken test component exporting a misspelled symbol instead of
 * opf_op_nosym_component. */
#include "tc_common.h"

static int op_query(int op_id, opf_module_t *module)
{
    (void)op_id;
    (void)module;
    return 1;
}

__attribute__((visibility("default"))) extern const opf_component_t opf_op_nosym_componnet;
const opf_component_t opf_op_nosym_componnet = {
    .abi_version = OPF_COMPONENT_ABI_VERSION,
    .framework = OPF_FRAMEWORK_NAME,
    .name = "nosym",
    .version = {1, 0, 0},
    .description = "test component exporting the wrong symbol",
    .init_query = tc_init_query_ok,
    .op_query = op_query,
};
