/* wrong: a test component with deliberately broken kernels. SUM INT32 (2- and
 * 3-buffer) adds one to element 3; BAND INT32 is exact; SUM INT64 from
 * WRONG_LARGE_TIER elements on (a streaming-size tier, which the self-test
 * runs at one long count) adds one to every element from 65536 on, which no
 * short count reaches. Priority op_wrong_priority (default 99, above every
 * other test component), so it wins those slots unless op_base_selftest
 * drops the broken kernels. */
#include "tc_common.h"

static void sum_i32_off_2(const void *in, void *inout, opf_count_t n)
{
    const uint32_t *a = in;
    uint32_t *b = inout;
    for (opf_count_t i = 0; i < n; ++i) b[i] = a[i] + b[i] + (i == 3);
    TC_COUNT();
}

static void sum_i32_off_3(const void *in1, const void *in2, void *out, opf_count_t n)
{
    const uint32_t *a = in1, *b = in2;
    uint32_t *o = out;
    for (opf_count_t i = 0; i < n; ++i) o[i] = a[i] + b[i] + (i == 3);
    TC_COUNT();
}

#define WRONG_LARGE_TIER ((opf_count_t)1 << 17)
static void sum_i64_far_off_2(const void *in, void *inout, opf_count_t n)
{
    const uint64_t *a = in;
    uint64_t *b = inout;
    for (opf_count_t i = 0; i < n; ++i) b[i] = a[i] + b[i] + (i >= 65536);
    TC_COUNT();
}

static void sum_i64_far_off_3(const void *in1, const void *in2, void *out, opf_count_t n)
{
    const uint64_t *a = in1, *b = in2;
    uint64_t *o = out;
    for (opf_count_t i = 0; i < n; ++i) o[i] = a[i] + b[i] + (i >= 65536);
    TC_COUNT();
}

static int register_params(void) { return tc_register("op_wrong_priority", "99", "op_wrong_calls"); }

static const tc_offer_t offers[] = {
    {OPF_OPID_SUM, OPF_KT_INT32, sum_i32_off_2, sum_i32_off_3},
    {OPF_OPID_BAND, OPF_KT_INT32, tc_band_i32_2, tc_band_i32_3},
};

static const tc_offer_t large_offers[] = {
    {OPF_OPID_SUM, OPF_KT_INT64, sum_i64_far_off_2, sum_i64_far_off_3},
};

static int op_query(int op_id, opf_module_t *module)
{
    const int small = TC_OFFERS(offers);
    const int large = tc_offer_host(op_id, module, large_offers, 1, WRONG_LARGE_TIER);
    return small && large;   /* 0: something offered */
}

OPF_COMPONENT_DECLARE(wrong) = {
    .abi_version = OPF_COMPONENT_ABI_VERSION,
    .framework = OPF_FRAMEWORK_NAME,
    .name = "wrong",
    .version = {0, 0, 1},
    .description = "test component with a broken SUM INT32 kernel (element 3 off by one)",
    .register_params = register_params,
    .init_query = tc_init_query_ok,
    .op_query = op_query,
};
