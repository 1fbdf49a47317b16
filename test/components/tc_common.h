/* tc_common.h — shared pieces of the test components (test/components.sh
 * copies each built opf_op_<name>.so into scratch directories).
 *
 * Like a real component, a test component includes nothing of opframe but
 * <opframe/component.h>. Each one counts the calls its kernels serve in a
 * read-only parameter op_<name>_calls, and takes its priority from
 * op_<name>_priority, so that the test program sees which kernel ran and can
 * flip the winners. The kernels are exact (unsigned arithmetic for the wrapping
 * integer ops), unless a component breaks one on purpose. */
#ifndef OPF_TEST_COMPONENT_COMMON_H
#define OPF_TEST_COMPONENT_COMMON_H

#include <stdio.h>
#include <opframe/component.h>

#define TC_UNUSED __attribute__((unused))

static int64_t tc_priority;
static int64_t tc_calls;   /* zero on each fresh load: the test checks that it is unloaded */

#define TC_COUNT() __atomic_add_fetch(&tc_calls, 1, __ATOMIC_RELAXED)

/* Declares op_<name>_priority (default `prio`) and op_<name>_calls. */
static TC_UNUSED int tc_register(const char *prio_name, const char *prio, const char *calls_name)
{
    const opf_param_spec_t specs[] = {
        {prio_name, OPF_PARAM_INT, prio, "Priority of this test component's offers", 3, OPF_PARAM_SETTABLE, NULL,
         NULL, &tc_priority},
        {calls_name, OPF_PARAM_INT, "0", "Kernel calls served (read-only counter)", 9, OPF_PARAM_READ_ONLY, NULL, NULL,
         &tc_calls},
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; ++i)
        if (opf_param_register(&specs[i]) != OPF_SUCCESS) return -1;
    return 0;
}

static TC_UNUSED int tc_init_query_ok(const opf_hw_info_t *hw, char *reason, size_t reason_len)
{
    (void)hw;
    (void)reason;
    (void)reason_len;
    return 0;
}

/* ---- offers ------------------------------------------------------------------ */
/* One host offer: (op, kernel type) -> kernels. */
typedef struct tc_offer {
    int op_id, kernel_type;
    opf_kernel2_fn *kernel2;
    opf_kernel3_fn *kernel3;
} tc_offer_t;

/* op_query's body for a component that offers the host kernels of `list`
 * (n entries) at priority tc_priority, for counts >= min_count. */
static TC_UNUSED int tc_offer_host(int op_id, opf_module_t *module, const tc_offer_t *list, size_t n,
                                   opf_count_t min_count)
{
    int offered = 0;
    for (size_t i = 0; i < n; ++i) {
        if (list[i].op_id != op_id) continue;
        const opf_offer_t o = {.struct_size = sizeof o, .kernel_type = list[i].kernel_type,
                               .memory_kind = OPF_MEM_HOST, .priority = (int)tc_priority, .min_count = min_count,
                               .kernel2 = list[i].kernel2, .kernel3 = list[i].kernel3};
        offered += opf_module_offer(module, &o) == OPF_SUCCESS;
    }
    return offered ? 0 : 1;
}
#define TC_OFFERS(list) tc_offer_host(op_id, module, list, sizeof list / sizeof list[0], 0)

/* ---- exact kernels ---------------------------------------------------------- */
#define TC_KERNELS(NAME, T, EXPR)                                                           \
    static TC_UNUSED void NAME##_2(const void *in, void *inout, opf_count_t n)              \
    {                                                                                       \
        const T *a = in;                                                                    \
        T *b = inout;                                                                       \
        for (opf_count_t i = 0; i < n; ++i) {                                               \
            const T x = a[i], y = b[i];                                                     \
            b[i] = (T)(EXPR);                                                               \
        }                                                                                   \
        TC_COUNT();                                                                         \
    }                                                                                       \
    static TC_UNUSED void NAME##_3(const void *in1, const void *in2, void *out, opf_count_t n) \
    {                                                                                       \
        const T *a = in1, *b = in2;                                                         \
        T *o = out;                                                                         \
        for (opf_count_t i = 0; i < n; ++i) {                                               \
            const T x = a[i], y = b[i];                                                     \
            o[i] = (T)(EXPR);                                                               \
        }                                                                                   \
        TC_COUNT();                                                                         \
    }

TC_KERNELS(tc_sum_i32, uint32_t, x + y)
TC_KERNELS(tc_sum_i64, uint64_t, x + y)
TC_KERNELS(tc_prod_i32, uint32_t, x * y)
TC_KERNELS(tc_band_i32, uint32_t, x & y)
TC_KERNELS(tc_max_i32, int32_t, x > y ? x : y)

#endif
