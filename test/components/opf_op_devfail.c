/* devfail: a test device component. It registers memory kind "devfail" and
 * claims the bytes [op_devfail_base, op_devfail_base + op_devfail_bytes) (an
 * address the test program passes as a number), and serves SUM INT32 there:
 * synchronous and stream kernels, which fail with OPF_ERR_INTERN and a reason
 * while op_devfail_fail is true, and compute exactly otherwise; and SUM
 * INT64's n-ary device kernels alone (device_n, stream_n: one call for k
 * inputs). op_devfail_min_count: the SUM INT32 kernels' smallest count. */
#include <stddef.h>
#include <stdint.h>
#include "tc_common.h"

static int64_t base, bytes, min_count;
static int fail_calls;
static int kind = -1;

static int register_params(void)
{
    const opf_param_spec_t specs[] = {
        {"op_devfail_base", OPF_PARAM_INT, "0", "Start address of the memory devfail claims", 9, OPF_PARAM_SETTABLE,
         NULL, NULL, &base},
        {"op_devfail_bytes", OPF_PARAM_INT, "0", "Bytes of memory devfail claims", 9, OPF_PARAM_SETTABLE, NULL, NULL,
         &bytes},
        {"op_devfail_fail", OPF_PARAM_BOOL, "true", "Whether devfail's kernels fail", 9, OPF_PARAM_SETTABLE, NULL,
         NULL, &fail_calls},
        {"op_devfail_min_count", OPF_PARAM_INT, "0", "Smallest count of devfail's SUM INT32 device kernels", 9,
         OPF_PARAM_SETTABLE, NULL, NULL, &min_count},
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; ++i)
        if (opf_param_register(&specs[i]) != OPF_SUCCESS) return -1;
    return tc_register("op_devfail_priority", "10", "op_devfail_calls");
}

static int claim(const void *ptr)
{
    const uintptr_t p = (uintptr_t)ptr, b = (uintptr_t)base;
    return p >= b && p < b + (uintptr_t)bytes;
}

static int init_query(const opf_hw_info_t *hw, char *reason, size_t reason_len)
{
    (void)hw;
    kind = opf_memory_kind_register("devfail", claim);
    if (kind < 0) snprintf(reason, reason_len, "memory kind devfail is taken");
    opf_component_log(2, "claims %lld bytes as memory kind %d", (long long)bytes, kind);
    return kind < 0;
}

static int device_failure(void)
{
    return opf_component_set_error(OPF_ERR_INTERN, "simulated device failure (op_devfail_fail)");
}

static int sum2(const void *in, void *inout, opf_count_t n)
{
    if (fail_calls) return device_failure();
    tc_sum_i32_2(in, inout, n);
    return OPF_SUCCESS;
}

static int sum3(const void *in1, const void *in2, void *out, opf_count_t n)
{
    if (fail_calls) return device_failure();
    tc_sum_i32_3(in1, in2, out, n);
    return OPF_SUCCESS;
}

static int stream_sum2(const void *in, void *inout, opf_count_t n, void *stream)
{
    (void)stream;
    return sum2(in, inout, n);
}

/* SUM INT64 over k inputs, every input read before out is written. */
static int sum_n64(const void *const in[], int k, void *out, opf_count_t n, const void *scalar)
{
    (void)scalar;
    if (fail_calls) return device_failure();
    TC_COUNT();
    for (opf_count_t i = 0; i < n; ++i) {
        uint64_t acc = 0;
        for (int j = 0; j < k; ++j) acc += (uint64_t)((const int64_t *)in[j])[i];
        ((int64_t *)out)[i] = (int64_t)acc;
    }
    return OPF_SUCCESS;
}
static int stream_sum_n64(const void *const in[], int k, void *out, opf_count_t n, const void *scalar, void *stream)
{
    (void)stream;
    return sum_n64(in, k, out, n, scalar);
}

/* ABI growth, both ways. Its SUM offer is laid out as a later ABI-2 header
 * might have it (a field appended after the ones this framework knows):
 * taken, the extra field unread. Two more offers are refused with the reason
 * and leave the rest alone: a kernel type appended after this framework's
 * OPF_KT_COUNT, and a struct_size smaller than an ABI-2 offer. */
struct later_offer {
    opf_offer_t known;
    int (*later_form)(void);   /* a kernel form a later framework would read */
};

static int later_form(void) { return 0; }

static int op_query(int op_id, opf_module_t *module)
{
    if (op_id != OPF_OPID_SUM) return 1;
    const struct later_offer later = {
        .known = {.struct_size = sizeof later, .kernel_type = OPF_KT_INT32, .memory_kind = kind,
                  .priority = (int)tc_priority, .min_count = min_count, .device2 = sum2, .device3 = sum3,
                  .stream2 = stream_sum2},
        .later_form = later_form,
    };
    opf_offer_t later_type = later.known, too_small = later.known;
    later_type.struct_size = sizeof later_type;
    later_type.kernel_type = OPF_KT_COUNT;
    too_small.struct_size = offsetof(opf_offer_t, stream2);
    const int refused = (opf_module_offer(module, &later_type) == OPF_ERR_ARG) +
                        (opf_module_offer(module, &too_small) == OPF_ERR_ARG);
    /* n-ary device kernels, and the same offered by a component built before
     * them (struct_size ends before device_n: the framework must not read it). */
    const opf_offer_t nary = {.struct_size = sizeof nary, .kernel_type = OPF_KT_INT64, .memory_kind = kind,
                              .priority = (int)tc_priority, .device_n = sum_n64, .stream_n = stream_sum_n64};
    opf_offer_t before_nary = nary;
    before_nary.kernel_type = OPF_KT_UINT64;
    before_nary.device3 = sum3;   /* (never called: UINT64 is not tested on device memory) */
    before_nary.struct_size = offsetof(opf_offer_t, device_n);
    return opf_module_offer(module, &later.known) != OPF_SUCCESS || refused != 2 ||
           opf_module_offer(module, &nary) != OPF_SUCCESS || opf_module_offer(module, &before_nary) != OPF_SUCCESS;
}

OPF_COMPONENT_DECLARE(devfail) = {
    .abi_version = OPF_COMPONENT_ABI_VERSION,
    .framework = OPF_FRAMEWORK_NAME,
    .name = "devfail",
    .version = {1, 0, 0},
    .description = "test device component whose kernels fail on request",
    .register_params = register_params,
    .init_query = init_query,
    .op_query = op_query,
};
