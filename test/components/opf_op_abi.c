/* abi: a broken test component built for a future component ABI (999). */
#include "tc_common.h"

static const tc_offer_t offers[] = {
    {OPF_OPID_SUM, OPF_KT_INT32, tc_sum_i32_2, NULL},   /* never to be used: the file is refused */
};

static int op_query(int op_id, opf_module_t *module)
{
    tc_priority = 1000;   /* would win every slot it offers */
    return TC_OFFERS(offers);
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
