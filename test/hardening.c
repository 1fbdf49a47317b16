/* hardening.c — hostile input never crashes, hangs or corrupts (issue 12).
 * One section per defect; each fails on the code before its fix:
 *   lazy init       a successful call leaves no stale opf_last_error()
 *   zero-length     a struct member of 0 elements adds no basic type (1)
 *   zero size       a type without data returns at once, whatever the count (2)
 *   huge regular    vector(INT_MAX, 1, 2, INT) is built in O(1) memory and walked (3)
 *   lifetime        a callback frees its own op and type, or finalizes (4)
 *   len copy        a callback that sets *len = 0 does not stall the loop (5)
 *   geometry        extents, bounds, displacements and counts that overflow 64 bits are refused (7)
 *   misaligned      a component kernel never sees a misaligned block (8)
 *   selftest        the self-test of a tier with min_count INT64_MAX does not throw out of opf_init (3)
 * Hangs end in SIGALRM (the test fails). Exit status: failures. */
#define _POSIX_C_SOURCE 200809L
#include "test/check.h"
#include <opframe/component.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static opf_datatype_t commit(opf_datatype_t t)
{
    CHECK_RC(opf_type_commit(&t), OPF_SUCCESS);
    return t;
}

static void free_type(opf_datatype_t *t) { CHECK_RC(opf_type_free(t), OPF_SUCCESS); }

static long long param_int(const char *name)
{
    char buf[64] = "";
    if (opf_param_get(name, buf, (int)sizeof buf) != OPF_SUCCESS) return -1;
    return atoll(buf);
}

/* ---- lazy init keeps the caller's last error ----------------------------- */
static int64_t taken_verbose;

static void test_lazy_init_error(void)
{
    /* A parameter declared before init makes the framework's own declaration
     * fail during lazy init (warned about, then recovered from). */
    const opf_param_spec_t spec = {"op_base_verbose", OPF_PARAM_INT, "0", "declared first by the test", 3,
                                   OPF_PARAM_SETTABLE, NULL, NULL, &taken_verbose};
    CHECK_RC(opf_param_register(&spec), OPF_SUCCESS);
    int a = 1, b = 2;
    CHECK_RC(opf_reduce_local(&a, &b, 1, OPF_INT, OPF_SUM), OPF_SUCCESS);
    CHECK(b == 3, "sum %d", b);
    CHECK(strcmp(opf_last_error(), "") == 0, "successful first call left \"%s\"", opf_last_error());
}

/* ---- 1. zero-length struct members --------------------------------------- */
static void test_zero_length_member(void)
{
    const int lens[] = {0, 1};
    const opf_aint_t displs[] = {0, 8};
    const opf_datatype_t types[] = {OPF_INT, OPF_DOUBLE};
    opf_datatype_t t;
    CHECK_RC(opf_type_create_struct(2, lens, displs, types, &t), OPF_SUCCESS);
    t = commit(t);
    opf_count_t size = 0;
    opf_aint_t lb = -1, extent = -1;
    CHECK_RC(opf_type_size(t, &size), OPF_SUCCESS);
    CHECK_RC(opf_type_get_extent(t, &lb, &extent), OPF_SUCCESS);
    CHECK(size == 8 && lb == 8 && extent == 8, "{0 x INT, 1 x DOUBLE}: size %lld lb %lld extent %lld", (long long)size,
          (long long)lb, (long long)extent);

    double in[3] = {0, 1.5, 2.5}, inout[3] = {0, 10, 20};
    /* buffers start at the type's origin; the data is at +8 */
    CHECK_RC(opf_reduce_local(in, inout, 2, t, OPF_REPLACE), OPF_SUCCESS);
    CHECK(inout[1] == 1.5 && inout[2] == 2.5, "REPLACE gave %g %g", inout[1], inout[2]);
    CHECK_RC(opf_reduce_local(in, inout, 2, t, OPF_SUM), OPF_SUCCESS);   /* one basic type: DOUBLE */
    CHECK(inout[1] == 3 && inout[2] == 5, "SUM gave %g %g", inout[1], inout[2]);

    opf_datatype_t outer;   /* used inside another constructor */
    CHECK_RC(opf_type_contiguous(2, t, &outer), OPF_SUCCESS);
    outer = commit(outer);
    CHECK_RC(opf_reduce_local(in, inout, 1, outer, OPF_SUM), OPF_SUCCESS);
    CHECK(inout[1] == 4.5 && inout[2] == 7.5, "contiguous(2, struct) SUM gave %g %g", inout[1], inout[2]);
    free_type(&outer);
    free_type(&t);
}

/* ---- 2. zero-size types with huge counts --------------------------------- */
static int calls;
static void count_calls(void *in, void *inout, int *len, opf_datatype_t *type)
{
    (void)in, (void)inout, (void)len, (void)type;
    ++calls;
}

static void test_zero_size_huge_count(void)
{
    int a = 7, b = 9;
    opf_datatype_t empty, one_empty;
    CHECK_RC(opf_type_contiguous(0, OPF_INT, &empty), OPF_SUCCESS);
    empty = commit(empty);
    const int lens[] = {0};
    const opf_aint_t displs[] = {0};
    const opf_datatype_t types[] = {OPF_DOUBLE};
    CHECK_RC(opf_type_create_struct(1, lens, displs, types, &one_empty), OPF_SUCCESS);
    one_empty = commit(one_empty);
    alarm(20);
    CHECK_RC(opf_reduce_local(&a, &b, INT64_MAX, empty, OPF_SUM), OPF_SUCCESS);
    CHECK_RC(opf_reduce_local3(&a, &a, &b, INT64_MAX, one_empty, OPF_REPLACE), OPF_SUCCESS);
    CHECK_RC(opf_reduce_local3(&a, &a, &b, INT64_MAX, empty, OPF_NO_OP), OPF_SUCCESS);
    opf_op_t op;
    CHECK_RC(opf_op_create(count_calls, 1, &op), OPF_SUCCESS);
    CHECK_RC(opf_reduce_local(&a, &b, INT64_MAX, empty, op), OPF_SUCCESS);
    CHECK_RC(opf_reduce_local3(&a, &a, &b, INT64_MAX, one_empty, op), OPF_SUCCESS);
    alarm(0);
    CHECK(calls == 0, "a user op was called %d times on a type without data", calls);
    CHECK(a == 7 && b == 9, "a type without data changed the buffers: %d %d", a, b);
    CHECK_RC(opf_op_free(&op), OPF_SUCCESS);
    free_type(&empty);
    free_type(&one_empty);
}

/* ---- 3. huge regular types ----------------------------------------------- */
static void test_huge_regular_types(void)
{
    alarm(20);
    opf_datatype_t v, vv, c;
    CHECK_RC(opf_type_vector(INT_MAX, 1, 2, OPF_INT, &v), OPF_SUCCESS);
    opf_count_t size = 0;
    opf_aint_t lb = -1, extent = -1;
    CHECK_RC(opf_type_size(v, &size), OPF_SUCCESS);
    CHECK_RC(opf_type_get_extent(v, &lb, &extent), OPF_SUCCESS);
    CHECK(size == 4LL * INT_MAX && extent == 8LL * (INT_MAX - 1) + 4, "vector(INT_MAX, 1, 2, INT): size %lld extent %lld",
          (long long)size, (long long)extent);
    /* nested regular types, non-dense at every level */
    CHECK_RC(opf_type_vector(INT_MAX, 1, 3, v, &vv), OPF_ERR_COUNT);   /* size overflows 64 bits */
    CHECK(strstr(opf_last_error(), "vector") != NULL, "message: %s", opf_last_error());
    CHECK_RC(opf_type_vector(1000, 2, 3, v, &vv), OPF_SUCCESS);
    CHECK_RC(opf_type_contiguous(INT_MAX, v, &c), OPF_ERR_COUNT);
    CHECK_RC(opf_type_contiguous(1000, v, &c), OPF_SUCCESS);
    free_type(&vv);
    free_type(&c);
    free_type(&v);

    /* a large strided vector walks as one loop: every other int summed, holes kept */
    enum { N = 1 << 20 };
    int *in = malloc(2 * N * sizeof *in), *inout = malloc(2 * N * sizeof *inout);
    for (int i = 0; i < 2 * N; ++i) in[i] = i, inout[i] = -1;
    CHECK_RC(opf_type_vector(N, 1, 2, OPF_INT, &v), OPF_SUCCESS);
    v = commit(v);
    CHECK_RC(opf_reduce_local(in, inout, 1, v, OPF_SUM), OPF_SUCCESS);
    int bad = 0;
    for (int i = 0; i < 2 * N - 1; ++i) bad += inout[i] != (i % 2 ? -1 : i - 1);
    CHECK(bad == 0, "strided vector SUM: %d wrong ints", bad);
    free_type(&v);
    free(in);
    free(inout);
    alarm(0);
}

/* ---- 4. callbacks that free their op or type, or finalize ----------------- */
static opf_op_t cb_op;
static opf_datatype_t cb_type;
static int cb_calls;
static int cb_finalize;
static opf_op_t decoy_op;
static opf_datatype_t decoy_type;

static void poison(void *in, void *inout, int *len, opf_datatype_t *type)
{
    (void)in, (void)type;
    int *io = inout;
    for (int i = 0; i < *len; ++i) io[2 * i] = -1000;
}

/* inout[i] += in[i] over the first int of each item (items are 2 ints apart) */
static void add_and_free(void *invec, void *inoutvec, int *len, opf_datatype_t *type)
{
    (void)type;
    const int *in = invec;
    int *inout = inoutvec;
    for (int i = 0; i < *len; ++i) inout[2 * i] += in[2 * i];
    if (cb_calls++ == 0) {
        if (cb_finalize) {
            CHECK_RC(opf_finalize(), OPF_SUCCESS);
            return;
        }
        CHECK_RC(opf_op_free(&cb_op), OPF_SUCCESS);
        CHECK_RC(opf_type_free(&cb_type), OPF_SUCCESS);
        /* new objects of the same sizes: were the freed ones deleted, these
         * would likely take their memory and the call would continue on them */
        CHECK_RC(opf_op_create(poison, 1, &decoy_op), OPF_SUCCESS);
        CHECK_RC(opf_type_create_resized(OPF_INT, 0, 12, &decoy_type), OPF_SUCCESS);
    }
}

static void run_freeing_callback(int finalize, int three_buffers)
{
    enum { N = 64 };
    int in[2 * N], inout[2 * N], expect[2 * N];
    for (int i = 0; i < 2 * N; ++i) in[i] = i, inout[i] = 1000 + i, expect[i] = 1000 + i + (i % 2 ? 0 : i);
    CHECK_RC(opf_param_set("op_base_user_int_limit", "8"), OPF_SUCCESS);   /* 8 callbacks */
    CHECK_RC(opf_op_create(add_and_free, 1, &cb_op), OPF_SUCCESS);
    CHECK_RC(opf_type_create_resized(OPF_INT, 0, 8, &cb_type), OPF_SUCCESS);
    cb_type = commit(cb_type);
    cb_calls = 0;
    cb_finalize = finalize;
    decoy_op = OPF_OP_NULL;
    decoy_type = OPF_DATATYPE_NULL;
    const opf_op_t op = cb_op;
    const opf_datatype_t type = cb_type;
    if (three_buffers) CHECK_RC(opf_reduce_local3(in, inout, inout, N, type, op), OPF_SUCCESS);
    else CHECK_RC(opf_reduce_local(in, inout, N, type, op), OPF_SUCCESS);
    CHECK(cb_calls == 8, "finalize %d, %d buffers: %d callbacks, expected 8", finalize, 2 + three_buffers, cb_calls);
    CHECK(memcmp(inout, expect, sizeof inout) == 0, "finalize %d, %d buffers: wrong result (item 20: %d, expected %d)",
          finalize, 2 + three_buffers, inout[40], expect[40]);
    if (finalize) {
        CHECK_RC(opf_init(), OPF_SUCCESS);
        CHECK_RC(opf_reduce_local(in, inout, N, type, op), OPF_ERR_OP);   /* finalize freed them */
    } else {
        CHECK(cb_op == OPF_OP_NULL && cb_type == OPF_DATATYPE_NULL, "free did not reset the handles");
        CHECK_RC(opf_reduce_local(in, inout, N, type, op), OPF_ERR_OP);   /* freed */
        CHECK_RC(opf_op_free(&decoy_op), OPF_SUCCESS);
        CHECK_RC(opf_type_free(&decoy_type), OPF_SUCCESS);
    }
    CHECK_RC(opf_param_set("op_base_user_int_limit", NULL), OPF_SUCCESS);
}

static void test_callback_frees(void)
{
    for (int three = 0; three < 2; ++three) {
        run_freeing_callback(0, three);
        run_freeing_callback(1, three);
    }
}

/* ---- 5. a callback that writes back len = 0 ------------------------------ */
static void add_and_zero_len(void *invec, void *inoutvec, int *len, opf_datatype_t *type)
{
    const int *in = invec;
    int *inout = inoutvec;
    for (int i = 0; i < *len; ++i) inout[i] += in[i];
    *len = 0;
    *type = OPF_DATATYPE_NULL;
}

static void test_len_zero(void)
{
    enum { N = 100 };
    int in[N], inout[N];
    for (int i = 0; i < N; ++i) in[i] = i, inout[i] = 1;
    opf_op_t op;
    CHECK_RC(opf_op_create(add_and_zero_len, 1, &op), OPF_SUCCESS);
    CHECK_RC(opf_param_set("op_base_user_int_limit", "7"), OPF_SUCCESS);
    alarm(20);
    CHECK_RC(opf_reduce_local(in, inout, N, OPF_INT, op), OPF_SUCCESS);
    alarm(0);
    int bad = 0;
    for (int i = 0; i < N; ++i) bad += inout[i] != i + 1;
    CHECK(bad == 0, "%d wrong sums", bad);
    CHECK_RC(opf_param_set("op_base_user_int_limit", NULL), OPF_SUCCESS);
    CHECK_RC(opf_op_free(&op), OPF_SUCCESS);
}

/* ---- 7. geometry that overflows 64 bits ---------------------------------- */
#define EXPECT_REFUSED(call, code, what) do { \
    opf_datatype_t t_ = OPF_DATATYPE_NULL; \
    int rc_ = (call); \
    CHECK(rc_ == (code), "%s: rc %d, expected %d (%s)", what, rc_, (int)(code), opf_last_error()); \
    CHECK(strlen(opf_last_error()) > 0, "%s: no message", what); \
    if (rc_ == OPF_SUCCESS) opf_type_free(&t_); \
} while (0)

static void test_geometry_overflow(void)
{
    const opf_aint_t big = (opf_aint_t)1 << 62;
    EXPECT_REFUSED(opf_type_create_hvector(2, 1, INT64_MAX, OPF_INT, &t_), OPF_ERR_ARG, "hvector(2, 1, INT64_MAX)");
    EXPECT_REFUSED(opf_type_create_hvector(3, 1, big, OPF_INT, &t_), OPF_ERR_ARG, "hvector(3, 1, 2^62)");
    EXPECT_REFUSED(opf_type_create_hvector(3, 1, -big, OPF_INT, &t_), OPF_ERR_ARG, "hvector(3, 1, -2^62)");
    const int ones[] = {1, 1};
    const opf_aint_t extremes[] = {INT64_MIN, INT64_MAX};
    const opf_aint_t near_max[] = {0, INT64_MAX - 2};
    const opf_datatype_t ints[] = {OPF_INT, OPF_INT};
    EXPECT_REFUSED(opf_type_create_hindexed(2, ones, extremes, OPF_INT, &t_), OPF_ERR_ARG, "hindexed(INT64_MIN, MAX)");
    EXPECT_REFUSED(opf_type_create_hindexed(2, ones, near_max, OPF_INT, &t_), OPF_ERR_ARG, "hindexed(0, MAX - 2)");
    EXPECT_REFUSED(opf_type_create_struct(2, ones, extremes, ints, &t_), OPF_ERR_ARG, "struct(INT64_MIN, MAX)");
    EXPECT_REFUSED(opf_type_create_struct(1, ones, extremes + 1, ints, &t_), OPF_ERR_ARG, "struct(INT64_MAX)");
    EXPECT_REFUSED(opf_type_create_resized(OPF_INT, INT64_MAX, 8, &t_), OPF_ERR_ARG, "resized(INT64_MAX, 8)");

    /* strides and displacements in extents that overflow when scaled */
    opf_datatype_t wide;
    CHECK_RC(opf_type_create_resized(OPF_INT, 0, (opf_aint_t)1 << 40, &wide), OPF_SUCCESS);
    EXPECT_REFUSED(opf_type_vector(2, 1, INT_MAX, wide, &t_), OPF_ERR_ARG, "vector(stride INT_MAX x 2^40)");
    const int far[] = {0, INT_MAX};
    EXPECT_REFUSED(opf_type_indexed(2, ones, far, wide, &t_), OPF_ERR_ARG, "indexed(INT_MAX x 2^40)");
    /* nesting: each level fits, the next does not */
    opf_datatype_t h;
    CHECK_RC(opf_type_create_hvector(2, 1, big, OPF_INT, &h), OPF_SUCCESS);
    EXPECT_REFUSED(opf_type_contiguous(2, h, &t_), OPF_ERR_ARG, "contiguous(2, hvector(2, 1, 2^62))");
    free_type(&h);
    /* a member without data that only brings bounds (resized) */
    opf_datatype_t marker;
    CHECK_RC(opf_type_contiguous(0, OPF_INT, &h), OPF_SUCCESS);
    CHECK_RC(opf_type_create_resized(h, -big, 8, &marker), OPF_SUCCESS);
    const opf_aint_t low[] = {-20, -big - 10};   /* the marker's lb lands at -2^63 - 10, the extent fits */
    const opf_datatype_t marker_int[] = {OPF_INT, marker};
    EXPECT_REFUSED(opf_type_create_struct(2, ones, low, marker_int, &t_), OPF_ERR_ARG, "struct(lb marker below INT64_MIN)");
    free_type(&marker);
    free_type(&h);
    free_type(&wide);

    /* a count whose buffers would span more than 2^63 bytes */
    opf_datatype_t down;
    CHECK_RC(opf_type_create_resized(OPF_INT, 0, -big, &down), OPF_SUCCESS);
    down = commit(down);
    int a[4] = {0}, b[4] = {0};
    CHECK_RC(opf_reduce_local(a, b, 4, down, OPF_SUM), OPF_ERR_COUNT);
    CHECK(strstr(opf_last_error(), "count 4") != NULL, "message: %s", opf_last_error());
    CHECK_RC(opf_reduce_local3(a, a, b, 4, down, OPF_SUM), OPF_ERR_COUNT);
    free_type(&down);
    opf_datatype_t up;
    CHECK_RC(opf_type_create_resized(OPF_INT, INT64_MAX - 16, 8, &up), OPF_SUCCESS);
    up = commit(up);
    CHECK_RC(opf_reduce_local(a, b, 3, up, OPF_SUM), OPF_ERR_COUNT);   /* the third item's ub passes INT64_MAX */
    free_type(&up);
    CHECK_RC(opf_reduce_local(a, b, INT64_MAX, OPF_INT, OPF_SUM), OPF_ERR_COUNT);
    CHECK_RC(opf_reduce_local(a, b, INT64_MAX / 4 + 1, OPF_INT, OPF_SUM), OPF_ERR_COUNT);
}

/* ---- 8. misaligned blocks never reach component kernels ------------------- */
/* Test component alpha serves SUM INT32 and counts its calls in op_alpha_calls. */
static void test_misaligned_blocks(void)
{
    CHECK_RC(opf_finalize(), OPF_SUCCESS);
    setenv("OPF_MCA_mca_component_path", "test/components", 1);
    setenv("OPF_MCA_mca_component_show_load_errors", "0", 1);
    setenv("OPF_MCA_op", "alpha", 1);
    CHECK_RC(opf_init(), OPF_SUCCESS);
    if (param_int("op_alpha_calls") < 0) {
        CHECK(0, "test component alpha not loaded from test/components");
    } else {
        /* positive control: an aligned int goes to alpha */
        int x = 1, y = 2;
        CHECK_RC(opf_reduce_local(&x, &y, 1, OPF_INT, OPF_SUM), OPF_SUCCESS);
        const long long served = param_int("op_alpha_calls");
        CHECK(served >= 1 && y == 3, "alpha served %lld calls, y %d", served, y);

        /* an INT at byte 2 of a 12-byte item */
        const int one[] = {1};
        const opf_aint_t at2[] = {2};
        opf_datatype_t odd, odd_items;
        CHECK_RC(opf_type_create_hindexed(1, one, at2, OPF_INT, &odd), OPF_SUCCESS);
        CHECK_RC(opf_type_create_resized(odd, 0, 12, &odd_items), OPF_SUCCESS);
        odd_items = commit(odd_items);
        _Alignas(16) unsigned char in[48], inout[48], expect[48];
        for (int i = 0; i < 48; ++i) in[i] = (unsigned char)(3 * i + 1), inout[i] = expect[i] = (unsigned char)(200 - i);
        for (int k = 0; k < 4; ++k) {
            int a, b;
            memcpy(&a, in + 12 * k + 2, 4);
            memcpy(&b, expect + 12 * k + 2, 4);
            b = (int)((unsigned)a + (unsigned)b);
            memcpy(expect + 12 * k + 2, &b, 4);
        }
        CHECK_RC(opf_reduce_local(in, inout, 4, odd_items, OPF_SUM), OPF_SUCCESS);
        CHECK(memcmp(inout, expect, 48) == 0, "misaligned SUM INT: wrong bytes");
        /* and a caller's odd buffer with a predefined type */
        int words[3] = {0, 0, 0};
        CHECK_RC(opf_reduce_local((unsigned char *)words + 1, (unsigned char *)words + 1, 2, OPF_INT, OPF_SUM),
                 OPF_SUCCESS);
        CHECK_RC(opf_reduce_local3(in + 2, in + 14, inout + 1, 1, OPF_INT, OPF_SUM), OPF_SUCCESS);
        CHECK(param_int("op_alpha_calls") == served,
              "alpha was handed %lld misaligned blocks", param_int("op_alpha_calls") - served);
        free_type(&odd_items);
        free_type(&odd);
    }
    unsetenv("OPF_MCA_op");
    unsetenv("OPF_MCA_mca_component_path");
    unsetenv("OPF_MCA_mca_component_show_load_errors");
    CHECK_RC(opf_finalize(), OPF_SUCCESS);
    CHECK_RC(opf_init(), OPF_SUCCESS);
}

/* ---- 3. no exception out of opf_init: a tier from INT64_MAX on, self-tested ---- */
static void test_selftest_huge_min_count(void)
{
    CHECK_RC(opf_finalize(), OPF_SUCCESS);
    setenv("OPF_MCA_mca_component_path", "test/components", 1);
    setenv("OPF_MCA_mca_component_show_load_errors", "0", 1);
    setenv("OPF_MCA_op", "tier", 1);
    setenv("OPF_MCA_op_tier_min_count", "9223372036854775807", 1);
    setenv("OPF_MCA_op_base_selftest", "1", 1);
    CHECK_RC(opf_init(), OPF_SUCCESS);
    CHECK(param_int("op_tier_min_count") == INT64_MAX, "tier not loaded, or min_count %lld",
          param_int("op_tier_min_count"));
    int a = 2, b = 3;
    CHECK_RC(opf_reduce_local(&a, &b, 1, OPF_INT, OPF_SUM), OPF_SUCCESS);
    CHECK(b == 5, "sum %d", b);
    unsetenv("OPF_MCA_op");
    unsetenv("OPF_MCA_op_tier_min_count");
    unsetenv("OPF_MCA_op_base_selftest");
    unsetenv("OPF_MCA_mca_component_path");
    unsetenv("OPF_MCA_mca_component_show_load_errors");
    CHECK_RC(opf_finalize(), OPF_SUCCESS);
    CHECK_RC(opf_init(), OPF_SUCCESS);
}

static const struct {
    const char *name;
    void (*run)(void);
} sections[] = {
    {"lazy-init", test_lazy_init_error},   /* first: it needs the lazy init */
    {"zero-length", test_zero_length_member},
    {"zero-size", test_zero_size_huge_count},
    {"huge-regular", test_huge_regular_types},
    {"lifetime", test_callback_frees},
    {"len-copy", test_len_zero},
    {"geometry", test_geometry_overflow},
    {"misaligned", test_misaligned_blocks},
    {"selftest", test_selftest_huge_min_count},
};

/* hardening [section...]: all sections, or the named ones */
int main(int argc, char **argv)
{
    setenv("OPF_MCA_PARAM_FILE_USER", "", 1);
    setenv("OPF_MCA_PARAM_FILE_SYSTEM", "", 1);
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; ++i) {
        int wanted = argc < 2;
        for (int a = 1; a < argc; ++a) wanted |= strcmp(argv[a], sections[i].name) == 0;
        if (wanted) sections[i].run();
    }
    CHECK_RC(opf_finalize(), OPF_SUCCESS);
    return check_summary("hardening");
}
