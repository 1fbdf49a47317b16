/* refuse: a well-formed test component whose init_query disqualifies it. */
#include "tc_common.h"

static int init_query(const opf_hw_info_t *hw, char *reason, size_t reason_len)
{
    (void)hw;
    snprintf(reason, reason_len, "no refuse accelerator in this machine");
    return 1;
}

static const tc_offer_t offers[] = {
    {OPF_OPID_SUM, OPF_KT_INT32, tc_sum_i32_2, NULL},   /* never to be used: init_query refused */
};

static int op_query(int op_id, opf_module_t *module)
{
    tc_priority = 1000;   /* would win every slot it offers */
    return TC_OFFERS(offers);
}

OPF_COMPONENT_DECLARE(refuse) = {
    .abi_version = OPF_COMPONENT_ABI_VERSION,
    .framework = OPF_FRAMEWORK_NAME,
    .name = "refuse",
    .version = {1, 0, 0},
    .description = "test component that disqualifies itself",
    .init_query = init_query,
    .op_query = op_query,
};
