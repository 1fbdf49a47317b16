/* needdep: a test component that needs libopfdep.so, which
 * test/components.sh builds, links it against, and deletes: it must be
 * reported as failed (libltdl's reason) without crashing anything. Built by
 * the shell driver, not by automake. */
#include "tc_common.h"

int opfdep_answer(void);

static int init_query(const opf_hw_info_t *hw, char *reason, size_t reason_len)
{
    (void)hw;
    if (opfdep_answer() != 42) {
        snprintf(reason, reason_len, "libopfdep gave a wrong answer");
        return 1;
    }
    return 0;
}

static int op_query(int op_id, opf_module_t *module)
{
    (void)op_id;
    (void)module;
    return 1;
}

OPF_COMPONENT_DECLARE(needdep) = {
    .abi_version = OPF_COMPONENT_ABI_VERSION,
    .framework = OPF_FRAMEWORK_NAME,
    .name = "needdep",
    .version = {1, 0, 0},
    .description = "test component that needs a deleted library",
    .init_query = init_query,
    .op_query = op_query,
};
