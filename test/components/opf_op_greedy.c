/* greedy: a test component that asks for more than a component may have
 * (issue 23, item 4). Its init_query registers memory kinds in a loop until
 * one is refused, and its register_params declares a parameter in another
 * component's namespace (op_avx512_enable) and one of its own whose synonym
 * is another's (op_beta_old). It stays available and shows the framework's
 * answers in read-only parameters: op_greedy_kinds (kinds granted),
 * op_greedy_foreign_rc and op_greedy_synonym_rc (what the two declarations
 * returned). */
#include <stdio.h>
#include "tc_common.h"

#define GREEDY_TRIES 1000

static int64_t kinds_granted, foreign_rc, synonym_rc;
static int64_t foreign_value, synonym_value;

static int register_params(void)
{
    const opf_param_spec_t answers[] = {
        {"op_greedy_kinds", OPF_PARAM_INT, "0", "Memory kinds the framework granted", 9, OPF_PARAM_READ_ONLY, NULL,
         NULL, &kinds_granted},
        {"op_greedy_foreign_rc", OPF_PARAM_INT, "0", "What declaring op_avx512_enable returned", 9,
         OPF_PARAM_READ_ONLY, NULL, NULL, &foreign_rc},
        {"op_greedy_synonym_rc", OPF_PARAM_INT, "0", "What declaring a synonym op_beta_old returned", 9,
         OPF_PARAM_READ_ONLY, NULL, NULL, &synonym_rc},
    };
    for (size_t i = 0; i < sizeof answers / sizeof answers[0]; ++i)
        if (opf_param_register(&answers[i]) != OPF_SUCCESS) return -1;
    const opf_param_spec_t foreign = {"op_avx512_enable", OPF_PARAM_INT, "1", "Another component's namespace", 3,
                                      OPF_PARAM_SETTABLE, NULL, NULL, &foreign_value};
    const opf_param_spec_t synonym = {"op_greedy_old", OPF_PARAM_INT, "1", "A synonym in another's namespace", 3,
                                      OPF_PARAM_SETTABLE, NULL, "op_beta_old", &synonym_value};
    foreign_rc = opf_param_register(&foreign);
    synonym_rc = opf_param_register(&synonym);
    return tc_register("op_greedy_priority", "5", "op_greedy_calls");
}

static int init_query(const opf_hw_info_t *hw, char *reason, size_t reason_len)
{
    (void)hw;
    (void)reason;
    (void)reason_len;
    for (int i = 0; i < GREEDY_TRIES; ++i) {
        char name[32];
        snprintf(name, sizeof name, "greedy_%d", i);
        if (opf_memory_kind_register(name, NULL) < 0) break;
        kinds_granted++;
    }
    return 0;
}

static int op_query(int op_id, opf_module_t *module)
{
    (void)op_id;
    (void)module;
    return 1;
}

OPF_COMPONENT_DECLARE(greedy) = {
    .abi_version = OPF_COMPONENT_ABI_VERSION,
    .framework = OPF_FRAMEWORK_NAME,
    .name = "greedy",
    .version = {1, 0, 0},
    .description = "test component that registers memory kinds without end and declares another's parameter",
    .register_params = register_params,
    .init_query = init_query,
    .op_query = op_query,
};
