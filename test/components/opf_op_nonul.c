/* nonul: init_query fills every byte of its reason buffer and leaves no
 * terminating NUL (issue 12 item 10: the framework must bound the text
 * itself). Built by test/components.sh with $CC. */
#include <string.h>

#include <opframe/component.h>

static int init_query(const opf_hw_info_t *hw, char *reason, size_t reason_len)
{
    (void)hw;
    memset(reason, 'x', reason_len);
    return 1;
}

static int op_query(int op_id, opf_module_t *module)
{
    (void)op_id;
    (void)module;
    return 1;
}

OPF_COMPONENT_DECLARE(nonul) = {
    .abi_version = OPF_COMPONENT_ABI_VERSION,
    .framework = OPF_FRAMEWORK_NAME,
    .name = "nonul",
    .version = {1, 0, 0},
    .description = "test component whose disqualification reason has no NUL",
    .init_query = init_query,
    .op_query = op_query,
};
