/* abiv1: a broken test component built for component ABI 1 (the layout
 * before opf_offer_t: fixed [kernel type] arrays in opf_module_t). The
 * framework must refuse it with a reason naming the version. */
#include "tc_common.h"

/* The head of ABI 1's opf_component_t, as such a file has it. */
typedef struct v1_component {
    int abi_version;
    const char *framework;
    const char *name;
    int version[3];
    const char *description;
    int (*register_params)(void);
    int (*open)(void);
    int (*init_query)(const opf_hw_info_t *hw, char *reason, size_t reason_len);
    int (*op_query)(int op_id, void *module);
} v1_component_t;

static int op_query(int op_id, void *module)
{
    (void)op_id;
    (void)module;
    return 1;
}

__attribute__((visibility("default"))) extern const v1_component_t opf_op_abiv1_component;
const v1_component_t opf_op_abiv1_component = {
    .abi_version = 1,
    .framework = OPF_FRAMEWORK_NAME,
    .name = "abiv1",
    .version = {1, 0, 0},
    .description = "test component built for component ABI 1",
    .init_query = tc_init_query_ok,
    .op_query = op_query,
};
