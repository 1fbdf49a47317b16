/*
 * The example component: the one to copy when writing a hardware component.
 *
 * It includes nothing of opframe but <opframe/component.h>, builds in or out
 * of tree (see Makefile.example), registers parameters, probes its
 * "hardware" (a parameter says whether it is present), offers a few slots
 * and counts the calls its kernels serve.
 *
 * Parameters:
 *   op_example_priority   priority of its offers (default 20; the base is below every component)
 *   op_example_present    whether the "hardware" is there (default true)
 *   op_example_calls      read-only: kernel calls served so far
 */
#include <stdio.h>
#include <opframe/component.h>

static int64_t priority;
static int present;
static int64_t calls;   /* a real component would count per device/queue */

/* The kernels. They must match the base bit for bit: SUM on int32 wraps,
 * so it is computed in unsigned arithmetic. */
static void sum_int32_2(const void *in, void *inout, opf_count_t n)
{
    const uint32_t *a = in;
    uint32_t *b = inout;
    for (opf_count_t i = 0; i < n; ++i) b[i] = a[i] + b[i];
    __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
}

static void sum_int32_3(const void *in1, const void *in2, void *out, opf_count_t n)
{
    const uint32_t *a = in1, *b = in2;
    uint32_t *o = out;
    for (opf_count_t i = 0; i < n; ++i) o[i] = a[i] + b[i];
    __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
}

static void bxor_int64_2(const void *in, void *inout, opf_count_t n)
{
    const uint64_t *a = in;
    uint64_t *b = inout;
    for (opf_count_t i = 0; i < n; ++i) b[i] ^= a[i];
    __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
}

static int register_params(void)
{
    const opf_param_spec_t specs[] = {
        {"op_example_priority", OPF_PARAM_INT, "20", "Priority of the example component's offers", 3,
         OPF_PARAM_SETTABLE, NULL, NULL, &priority},
        {"op_example_present", OPF_PARAM_BOOL, "true",
         "Whether the example's (imaginary) hardware is present; false disqualifies the component", 3,
         OPF_PARAM_SETTABLE, NULL, NULL, &present},
        {"op_example_calls", OPF_PARAM_INT, "0", "Kernel calls served by the example component (read-only counter)", 9,
         OPF_PARAM_READ_ONLY, NULL, NULL, &calls},
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; ++i)
        if (opf_param_register(&specs[i]) != OPF_SUCCESS) return -1;
    return 0;
}

static int init_query(const opf_hw_info_t *hw, char *reason, size_t reason_len)
{
    (void)hw;   /* a real component checks hw->x86_features, hw->devices, ... */
    if (!present) {
        snprintf(reason, reason_len, "no example hardware (op_example_present is false)");
        return 1;
    }
    calls = 0;
    return 0;
}

/* One opf_module_offer call per (kernel type, memory kind) of an op. */
static int op_query(int op_id, opf_module_t *module)
{
    opf_offer_t offer = {.struct_size = sizeof offer, .memory_kind = OPF_MEM_HOST, .priority = (int)priority};
    switch (op_id) {
    case OPF_OPID_SUM:
        offer.kernel_type = OPF_KT_INT32;
        offer.kernel2 = sum_int32_2;
        offer.kernel3 = sum_int32_3;
        break;
    case OPF_OPID_BXOR:
        offer.kernel_type = OPF_KT_INT64;
        offer.kernel2 = bxor_int64_2;   /* a 2-buffer kernel only: the base keeps 3-buffer */
        break;
    default:
        return 1;   /* nothing for the other ops */
    }
    return opf_module_offer(module, &offer) == OPF_SUCCESS ? 0 : 1;
}

OPF_COMPONENT_DECLARE(example) = {
    .abi_version = OPF_COMPONENT_ABI_VERSION,
    .framework = OPF_FRAMEWORK_NAME,
    .name = "example",
    .version = {1, 0, 0},
    .description = "Example component: SUM int32, BXOR int64 (2-buffer); counts its calls",
    .register_params = register_params,
    .init_query = init_query,
    .op_query = op_query,
};
