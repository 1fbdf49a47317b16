/* tier: a test component whose module serves only large counts. SUM INT32
 * (2- and 3-buffer), exact, for counts >= op_tier_min_count (default 1000),
 * priority op_tier_priority (default 90, above alpha and beta), and a second
 * tier of other kernels (the same sum) from 64 times that count on, so that
 * a component's own tiers can be told apart by opf_slot_kernels. */
#include "tc_common.h"

TC_KERNELS(tier_huge_sum_i32, uint32_t, x + y)

static int64_t min_count;

static int register_params(void)
{
    const opf_param_spec_t spec = {"op_tier_min_count", OPF_PARAM_INT, "1000",
                                   "Smallest count the tier component serves", 3, OPF_PARAM_SETTABLE, NULL, NULL,
                                   &min_count};
    if (opf_param_register(&spec) != OPF_SUCCESS) return -1;
    return tc_register("op_tier_priority", "90", "op_tier_calls");
}

static const tc_offer_t offers[] = {
    {OPF_OPID_SUM, OPF_KT_INT32, tc_sum_i32_2, tc_sum_i32_3},
};
static const tc_offer_t huge_offers[] = {
    {OPF_OPID_SUM, OPF_KT_INT32, tier_huge_sum_i32_2, tier_huge_sum_i32_3},
};

static int op_query(int op_id, opf_module_t *module)
{
    const int rc = tc_offer_host(op_id, module, offers, sizeof offers / sizeof offers[0], min_count);
    if (rc == 0 && min_count > 0 && min_count <= INT64_MAX / 64)
        tc_offer_host(op_id, module, huge_offers, sizeof huge_offers / sizeof huge_offers[0], 64 * min_count);
    return rc;
}

OPF_COMPONENT_DECLARE(tier) = {
    .abi_version = OPF_COMPONENT_ABI_VERSION,
    .framework = OPF_FRAMEWORK_NAME,
    .name = "tier",
    .version = {1, 0, 0},
    .description = "test component serving SUM INT32 for large counts only",
    .register_params = register_params,
    .init_query = tc_init_query_ok,
    .op_query = op_query,
};
