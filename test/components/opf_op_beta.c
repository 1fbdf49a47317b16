/* beta: a test component (see tc_common.h). Priority op_beta_priority
 * (default 50, equal to alpha's). Offers:
 *   SUM INT32  2- and 3-buffer      (alpha offers both too)
 *   SUM INT64  3-buffer only        (alpha offers only the 2-buffer kernel)
 *   MAX INT32  2-buffer only        (alpha offers both)
 *   PROD INT32 2- and 3-buffer      (alpha offers none)
 */
#include "tc_common.h"

static int register_params(void) { return tc_register("op_beta_priority", "50", "op_beta_calls"); }

static const tc_offer_t offers[] = {
    {OPF_OPID_SUM, OPF_KT_INT32, tc_sum_i32_2, tc_sum_i32_3},
    {OPF_OPID_SUM, OPF_KT_INT64, NULL, tc_sum_i64_3},
    {OPF_OPID_MAX, OPF_KT_INT32, tc_max_i32_2, NULL},
    {OPF_OPID_PROD, OPF_KT_INT32, tc_prod_i32_2, tc_prod_i32_3},
};

static int op_query(int op_id, opf_module_t *module) { return TC_OFFERS(offers); }

OPF_COMPONENT_DECLARE(beta) = {
    .abi_version = OPF_COMPONENT_ABI_VERSION,
    .framework = OPF_FRAMEWORK_NAME,
    .name = "beta",
    .version = {2, 1, 3},
    .description = "test component beta",
    .register_params = register_params,
    .init_query = tc_init_query_ok,
    .op_query = op_query,
};
