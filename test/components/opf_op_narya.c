/* narya: a test component that offers SUM INT32 with an n-ary kernel as well
 * (2-, 3-buffer and opf_reduce_local_n's plain form), at priority
 * op_narya_priority (default 40, below alpha's 50, which offers no n-ary
 * kernel): where alpha wins the 3-buffer slot, the n-ary calls must follow it
 * (its 3-buffer kernel composed), not fall to narya's n-ary kernel. */
#include "tc_common.h"

static void narya_sum_i32_n(const void *const *srcs, int k, void *dst, opf_count_t n, const void *scalar)
{
    (void)scalar;
    uint32_t *o = dst;
    for (opf_count_t i = 0; i < n; ++i) {
        uint32_t acc = 0;
        for (int j = 0; j < k; ++j) acc += ((const uint32_t *)srcs[j])[i];
        o[i] = acc;
    }
    TC_COUNT();
}

static int register_params(void) { return tc_register("op_narya_priority", "40", "op_narya_calls"); }

static int op_query(int op_id, opf_module_t *module)
{
    if (op_id != OPF_OPID_SUM) return 1;
    const opf_offer_t o = {.struct_size = sizeof o, .kernel_type = OPF_KT_INT32, .memory_kind = OPF_MEM_HOST,
                           .priority = (int)tc_priority, .kernel2 = tc_sum_i32_2, .kernel3 = tc_sum_i32_3,
                           .kernel_n = narya_sum_i32_n};
    return opf_module_offer(module, &o) == OPF_SUCCESS ? 0 : 1;
}

OPF_COMPONENT_DECLARE(narya) = {
    .abi_version = OPF_COMPONENT_ABI_VERSION,
    .framework = OPF_FRAMEWORK_NAME,
    .name = "narya",
    .version = {1, 0, 0},
    .description = "test component offering SUM INT32 with an n-ary kernel",
    .register_params = register_params,
    .init_query = tc_init_query_ok,
    .op_query = op_query,
};
