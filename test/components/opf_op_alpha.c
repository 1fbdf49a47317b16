/* alpha: a test component (see tc_common.h). Priority op_alpha_priority
 * (default 50, equal to beta's, so that ties are broken by name: alpha wins);
 * it serves counts >= op_alpha_min_count (default 0: all; with tier's offer
 * above it, a slot of three size tiers).
 * Offers, overlapping beta's on purpose:
 *   SUM INT32  2- and 3-buffer      (beta offers both too)
 *   SUM INT64  2-buffer only        (beta offers only the 3-buffer kernel)
 *   MAX INT32  2- and 3-buffer      (beta offers only the 2-buffer kernel)
 */
#include "tc_common.h"

static int64_t min_count;

static int register_params(void)
{
    const opf_param_spec_t spec = {"op_alpha_min_count", OPF_PARAM_INT, "0",
                                   "Smallest count the alpha component serves", 3, OPF_PARAM_SETTABLE, NULL, NULL,
                                   &min_count};
    if (opf_param_register(&spec) != OPF_SUCCESS) return -1;
    return tc_register("op_alpha_priority", "50", "op_alpha_calls");
}

static const tc_offer_t offers[] = {
    {OPF_OPID_SUM, OPF_KT_INT32, tc_sum_i32_2, tc_sum_i32_3},
    {OPF_OPID_SUM, OPF_KT_INT64, tc_sum_i64_2, NULL},
    {OPF_OPID_MAX, OPF_KT_INT32, tc_max_i32_2, tc_max_i32_3},
};

static int op_query(int op_id, opf_module_t *module)
{
    return tc_offer_host(op_id, module, offers, sizeof offers / sizeof offers[0], min_count);
}

OPF_COMPONENT_DECLARE(alpha) = {
    .abi_version = OPF_COMPONENT_ABI_VERSION,
    .framework = OPF_FRAMEWORK_NAME,
    .name = "alpha",
    .version = {1, 0, 0},
    .description = "test component alpha",
    .register_params = register_params,
    .init_query = tc_init_query_ok,
    .op_query = op_query,
};
