/* chatty: a test component that logs (opf_component_log) from each hook and
 * from its kernels, the log call last (a tail call once optimised), so that
 * the test sees which lines keep the "chatty: " prefix. Its init_query does
 * not log: the prefix must not depend on an earlier line. SUM INT32 at
 * priority 95. */
#include "tc_common.h"

static void sum_2(const void *in, void *inout, opf_count_t n)
{
    const uint32_t *a = in;
    uint32_t *b = inout;
    for (opf_count_t i = 0; i < n; ++i) b[i] += a[i];
    opf_component_log(1, "kernel sum_int32_2 ran on %lld", (long long)n);
}

static void sum_3(const void *in1, const void *in2, void *out, opf_count_t n)
{
    const uint32_t *a = in1, *b = in2;
    uint32_t *o = out;
    for (opf_count_t i = 0; i < n; ++i) o[i] = a[i] + b[i];
    opf_component_log(1, "kernel sum_int32_3 ran on %lld", (long long)n);
}

static int op_query(int op_id, opf_module_t *module)
{
    if (op_id != OPF_OPID_SUM) return 1;
    const opf_offer_t o = {.struct_size = sizeof o, .kernel_type = OPF_KT_INT32, .memory_kind = OPF_MEM_HOST,
                           .priority = 95, .kernel2 = sum_2, .kernel3 = sum_3};
    const int rc = opf_module_offer(module, &o) == OPF_SUCCESS ? 0 : 1;
    opf_component_log(1, "hook op_query offered SUM");
    return rc;
}

static void module_enable(opf_module_t *module)
{
    (void)module;
    opf_component_log(1, "hook module_enable");
}

OPF_COMPONENT_DECLARE(chatty) = {
    .abi_version = OPF_COMPONENT_ABI_VERSION,
    .framework = OPF_FRAMEWORK_NAME,
    .name = "chatty",
    .version = {1, 0, 0},
    .description = "test component logging from hooks and kernels",
    .init_query = tc_init_query_ok,
    .op_query = op_query,
    .module_enable = module_enable,
};
