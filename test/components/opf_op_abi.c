/* abi: a broken test component built for a future component ABI (999). */
#include "tc_common.h"

static int op_query(int op_id, opf_module_t *module)
{
    (void)op_id;
    module->priority = 1000;
    module->fn2[OPF_KT_INT32] = tc_sum_i32_2;
    return 0;
}

OPF_COMPONENT_DECLARE(abi) = {
    .abi_version = 999,
    .framework = OPF_FRAMEWORK_NAME,
    .name = "abi",
    .version = {1, 0, 0},
    .description = "test component with a wrong ABI version",
    .init_query = tc_init_query_ok,
    .op_query = op_query,
};
