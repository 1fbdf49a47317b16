/* spurn: a test component every offer of which the framework refuses
 * (struct_size left 0), so that it serves nothing. */
#include "tc_common.h"

static int op_query(int op_id, opf_module_t *module)
{
    if (op_id != OPF_OPID_SUM) return 1;
    const opf_offer_t o = {.struct_size = 0, .kernel_type = OPF_KT_INT32, .memory_kind = OPF_MEM_HOST,
                           .priority = 60, .kernel2 = tc_sum_i32_2, .kernel3 = tc_sum_i32_3};
    return opf_module_offer(module, &o) == OPF_SUCCESS ? 0 : 1;
}

OPF_COMPONENT_DECLARE(spurn) = {
    .abi_version = OPF_COMPONENT_ABI_VERSION,
    .framework = OPF_FRAMEWORK_NAME,
    .name = "spurn",
    .version = {1, 0, 0},
    .description = "test component whose offers are all refused",
    .init_query = tc_init_query_ok,
    .op_query = op_query,
};
