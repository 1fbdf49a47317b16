/* component_system.c — the component system seen from a program: the `op`
 * include/exclude list and its errors, priorities and per-slot mixing of two
 * overlapping components, pins, the self-test, size tiers, broken component
 * files, and load/unload across init -> finalize -> init.
 *
 * Run by test/components.sh, which builds the component directories and
 * names them in the environment:
 *   OPF_TEST_DIR_GOOD      alpha, beta
 *   OPF_TEST_DIR_SELFTEST  alpha, beta, wrong (SUM INT32 off by one at element 3)
 *   OPF_TEST_DIR_TIER      alpha, beta, tier (SUM INT32 for counts >= 1000)
 *   OPF_TEST_DIR_BROKEN    alpha, refuse, empty and broken files
 *   OPF_TEST_DIR_DUP       a second opf_op_alpha.so
 *   OPF_TEST_DIR_MISSING   a directory that does not exist
 *   OPF_TEST_DIR_EXAMPLE   the example component built out of tree
 *   OPF_TEST_DIR_DEVICE    alpha, devfail (a device memory kind whose kernels fail on request)
 * Usage: component_system [lists|priorities|pins|selftest|tiers|broken|cycles|device|example|hardening|all]...
 *
 * Each section sets the parameters it needs with opf_param_set (API values
 * outlive opf_finalize) and starts a fresh opf_init. Every OPF_MCA_* variable
 * of the caller is cleared and no parameter file is read. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE 1   /* MAP_ANONYMOUS */
#include "check.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include <opframe/device.h>
#include <opframe/introspect.h>

extern char **environ;

#define SUM OPF_OPID_SUM
#define PROD OPF_OPID_PROD
#define MAX OPF_OPID_MAX
#define BAND OPF_OPID_BAND
#define I32 OPF_KT_INT32
#define I64 OPF_KT_INT64

/* ---- helpers ----------------------------------------------------------------- */

#define CONTAINS(hay, needle) \
    CHECK((hay) && strstr((hay), (needle)) != NULL, "\"%s\" not in:\n%s", (needle), (hay) ? (hay) : "(null)")
#define LACKS(hay, needle) \
    CHECK((hay) && strstr((hay), (needle)) == NULL, "\"%s\" unexpectedly in:\n%s", (needle), (hay) ? (hay) : "(null)")

static const char *dir_of(const char *var)
{
    const char *d = getenv(var);
    if (!d || !*d) {
        fprintf(stderr, "component_system: %s is not set (run me through test/components.sh)\n", var);
        exit(2);
    }
    return d;
}

static void set_param(const char *name, const char *value)
{
    CHECK_RC(opf_param_set(name, value), OPF_SUCCESS);
}

/* Back to defaults for everything a section may have set (before opf_init,
 * any name is accepted, including those of components not loaded). */
static void reset_params(void)
{
    static const char *names[] = {"op", "op_base_pin", "op_base_selftest", "mca_component_show_load_errors",
                                  "op_alpha_priority", "op_beta_priority", "op_wrong_priority", "op_tier_priority",
                                  "op_tier_min_count", "op_alpha_min_count", "op_devfail_base", "op_devfail_bytes", "op_devfail_fail", "op_devfail_min_count",
                                  "op_base_verbose", "op_narya_priority"};
    opf_finalize();
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) set_param(names[i], NULL);
}

/* A fresh init on component path `path`; returns opf_init's code. */
static int start(const char *path)
{
    opf_finalize();
    set_param("mca_component_path", path);
    return opf_init();
}

static const char *provider(int op, int kt, int nbuf, opf_count_t count)
{
    const char *p = opf_slot_provider(op, kt, nbuf, count);
    return p ? p : "(null)";
}

#define EXPECT_PROVIDER(op, kt, nbuf, count, expected) do { \
    const char *got_ = provider((op), (kt), (nbuf), (count)); \
    CHECK(strcmp(got_, (expected)) == 0, "%s %s %d-buffer count %lld: provider %s, expected %s", \
          opf_op_name((opf_op_t)(uintptr_t)(op)), opf_kernel_type_name(kt), (nbuf), (long long)(count), got_, \
          (expected)); \
} while (0)

/* Both halves of a slot, for small counts. */
#define EXPECT_SLOT(op, kt, p2, p3) do { \
    EXPECT_PROVIDER((op), (kt), 2, 1, (p2)); \
    EXPECT_PROVIDER((op), (kt), 3, 1, (p3)); \
} while (0)

/* op_<component>_calls, or -1 if the parameter is unknown. */
static long long calls(const char *component)
{
    char name[64], buf[64];
    snprintf(name, sizeof name, "op_%s_calls", component);
    if (opf_param_get(name, buf, (int)sizeof buf) != OPF_SUCCESS) return -1;
    return atoll(buf);
}

static int find_component(const char *name, opf_component_info_t *info)
{
    for (int i = 0; i < opf_component_count(); ++i)
        if (opf_component_describe(i, info) == OPF_SUCCESS && strcmp(info->name, name) == 0) return i;
    return -1;
}

static int ends_with(const char *s, const char *suffix)
{
    const size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The failed file whose path ends with `suffix` ("/opf_op_abi.so"). */
static int find_failed(const char *suffix, opf_failed_info_t *info)
{
    for (int i = 0; i < opf_failed_count(); ++i)
        if (opf_failed_describe(i, info) == OPF_SUCCESS && ends_with(info->path, suffix)) return i;
    return -1;
}

static const char *explain(int op, int kt, int nbuf)
{
    static char buf[4096];
    if (opf_slot_explain(op, kt, OPF_MEM_HOST, nbuf, buf, (int)sizeof buf) != OPF_SUCCESS)
        snprintf(buf, sizeof buf, "<opf_slot_explain failed: %s>", opf_last_error());
    return buf;
}

/* SUM on `count` OPF_INT (INT32) elements, 2- or 3-buffer; checks the result
 * and returns the number of wrong elements. */
static int sum_int(int nbuf, opf_count_t count)
{
    int32_t *a = malloc((size_t)count * sizeof *a), *b = malloc((size_t)count * sizeof *b);
    int32_t *out = malloc((size_t)count * sizeof *out);
    int wrong = 0;
    if (!a || !b || !out) {
        fprintf(stderr, "component_system: out of memory\n");
        exit(2);
    }
    for (opf_count_t i = 0; i < count; ++i) {
        a[i] = (int32_t)(i * 7 + 1);
        b[i] = (int32_t)(1000 - i);
    }
    if (nbuf == 2) CHECK_RC(opf_reduce_local(a, b, count, OPF_INT, OPF_SUM), OPF_SUCCESS);
    else CHECK_RC(opf_reduce_local3(a, b, out, count, OPF_INT, OPF_SUM), OPF_SUCCESS);
    const int32_t *res = nbuf == 2 ? b : out;
    for (opf_count_t i = 0; i < count; ++i) wrong += res[i] != (int32_t)(i * 7 + 1 + 1000 - i);
    free(a);
    free(b);
    free(out);
    return wrong;
}

/* Runs SUM INT (nbuf, count) and checks that exactly component `who` counted
 * one call among `names` (a NULL-terminated list), and that the result is right. */
static void expect_run(int nbuf, opf_count_t count, const char *who, const char *const *names)
{
    long long before[8];
    int n = 0;
    for (; names[n]; ++n) before[n] = calls(names[n]);
    const int wrong = sum_int(nbuf, count);
    CHECK(wrong == 0, "SUM INT %d-buffer count %lld: %d wrong elements", nbuf, (long long)count, wrong);
    for (int i = 0; i < n; ++i) {
        const long long delta = calls(names[i]) - before[i];
        const long long expected = strcmp(names[i], who) == 0;
        CHECK(delta == expected, "SUM INT %d-buffer count %lld: %s counted %lld calls, expected %lld (winner %s)",
              nbuf, (long long)count, names[i], delta, expected, who);
    }
}

/* stderr capture: everything written to fd 2 between begin and end. */
static char capture_path[] = "/tmp/opf_components_stderr_XXXXXX";
static int saved_stderr = -1;
static char captured[32768];

static void capture_begin(void)
{
    fflush(stderr);
    saved_stderr = dup(2);
    const int fd = open(capture_path, O_WRONLY | O_TRUNC);
    dup2(fd, 2);
    close(fd);
}

static const char *capture_end(void)
{
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    FILE *f = fopen(capture_path, "r");
    const size_t n = f ? fread(captured, 1, sizeof captured - 1, f) : 0;
    captured[n] = '\0';
    if (f) fclose(f);
    fputs(captured, stderr);   /* still visible in the log */
    return captured;
}

/* ---- 1. the op include / exclude list --------------------------------------------- */

static void test_lists(void)
{
    const char *good = dir_of("OPF_TEST_DIR_GOOD");
    opf_component_info_t info;
    reset_params();

    set_param("op", "alpha");
    CHECK_RC(start(good), OPF_SUCCESS);
    CHECK(opf_component_count() == 2, "op=alpha: %d components found, expected 2", opf_component_count());
    CHECK(find_component("alpha", &info) >= 0 && info.available && strcmp(info.status, "available") == 0,
          "op=alpha: alpha is not available");
    CHECK(find_component("beta", &info) >= 0 && !info.available && strcmp(info.status, "excluded by op=alpha") == 0,
          "op=alpha: beta's status is \"%s\"", info.status);
    EXPECT_SLOT(SUM, I32, "alpha", "alpha");
    EXPECT_SLOT(SUM, I64, "alpha", "base");   /* beta's 3-buffer offer is excluded */
    EXPECT_SLOT(PROD, I32, "base", "base");
    CHECK(calls("beta") == -1, "op=alpha: the excluded beta registered its parameters");

    set_param("op", "^alpha");
    CHECK_RC(start(good), OPF_SUCCESS);
    CHECK(find_component("alpha", &info) >= 0 && !info.available && strcmp(info.status, "excluded by op=^alpha") == 0,
          "op=^alpha: alpha's status is \"%s\"", info.status);
    CHECK(find_component("beta", &info) >= 0 && info.available, "op=^alpha: beta is not available");
    EXPECT_SLOT(SUM, I32, "beta", "beta");
    EXPECT_SLOT(SUM, I64, "base", "beta");
    EXPECT_SLOT(MAX, I32, "beta", "base");

    set_param("op", "alpha,beta");
    CHECK_RC(start(good), OPF_SUCCESS);
    CHECK(find_component("alpha", &info) >= 0 && info.available, "op=alpha,beta: alpha is not available");
    CHECK(find_component("beta", &info) >= 0 && info.available, "op=alpha,beta: beta is not available");
    EXPECT_SLOT(SUM, I64, "alpha", "beta");
    EXPECT_SLOT(PROD, I32, "beta", "beta");

    set_param("op", "base");   /* the base alone */
    CHECK_RC(start(good), OPF_SUCCESS);
    CHECK(find_component("alpha", &info) >= 0 && !info.available, "op=base: alpha is available");
    CHECK(find_component("beta", &info) >= 0 && !info.available, "op=base: beta is available");
    EXPECT_SLOT(SUM, I32, "base", "base");

    /* Errors: opf_init fails with OPF_ERR_ARG naming the parameter, and leaves
     * the library uninitialised. */
    static const struct {
        const char *list, *words[2];
    } bad[] = {
        {"gamma", {"unknown component \"gamma\"", "alpha"}},
        {"alpha,gamma", {"unknown component \"gamma\"", NULL}},
        {"^alpha,gamma", {"unknown component \"gamma\"", NULL}},
        {"alpha,^beta", {"'^'", NULL}},
        {"^alpha,^beta", {"'^'", NULL}},
        {"^base", {"base", NULL}},
        {"^alpha,base", {"base", NULL}},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char param[128];
        set_param("op", bad[i].list);
        CHECK_RC(start(good), OPF_ERR_ARG);
        const char *err = opf_last_error();
        snprintf(param, sizeof param, "op=\"%s\"", bad[i].list);
        CONTAINS(err, "parameter op=");
        CONTAINS(err, param);
        for (int w = 0; w < 2; ++w)
            if (bad[i].words[w]) CONTAINS(err, bad[i].words[w]);
        int flag = -1;
        CHECK_RC(opf_initialized(&flag), OPF_SUCCESS);
        CHECK(flag == 0, "op=%s: the library is initialised after a failed opf_init", bad[i].list);
        /* A reduction retries the init and fails the same way, writing nothing. */
        int32_t a[2] = {1, 2}, b[2] = {3, 4};
        CHECK_RC(opf_reduce_local(a, b, 2, OPF_INT, OPF_SUM), OPF_ERR_ARG);
        CHECK(b[0] == 3 && b[1] == 4, "op=%s: a failed reduction wrote its buffer", bad[i].list);
    }

    /* After the errors, a good list works again. */
    set_param("op", NULL);
    CHECK_RC(start(good), OPF_SUCCESS);
    CHECK(opf_component_count() == 2, "after the errors: %d components", opf_component_count());
    EXPECT_SLOT(SUM, I32, "alpha", "alpha");
}

/* ---- 2. priorities and per-slot mixing --------------------------------------------- */

static const char *const ab[] = {"alpha", "beta", NULL};

static void test_priorities(void)
{
    const char *good = dir_of("OPF_TEST_DIR_GOOD");
    opf_kernel2_fn *f2, *g2;
    opf_kernel3_fn *f3, *g3;
    reset_params();

    /* Equal priorities (50): ties go to the name first in order, alpha. */
    CHECK_RC(start(good), OPF_SUCCESS);
    EXPECT_SLOT(SUM, I32, "alpha", "alpha");   /* both offer both halves */
    EXPECT_SLOT(SUM, I64, "alpha", "beta");    /* alpha only 2-buffer, beta only 3-buffer */
    EXPECT_SLOT(MAX, I32, "alpha", "alpha");   /* tie on the 2-buffer half; only alpha 3-buffer */
    EXPECT_SLOT(PROD, I32, "beta", "beta");    /* beta alone */
    EXPECT_SLOT(SUM, OPF_KT_UINT32, "base", "base");
    EXPECT_SLOT(MAX, I64, "base", "base");
    CONTAINS(explain(SUM, I32, 2), "alpha priority 50: SELECTED");
    CONTAINS(explain(SUM, I32, 2), "beta priority 50: outranked");
    CONTAINS(explain(SUM, I64, 2), "beta priority 50: offers no 2-buffer kernel");
    CONTAINS(explain(SUM, I64, 3), "alpha priority 50: offers no 3-buffer kernel");
    CONTAINS(explain(SUM, I64, 3), "beta priority 50: SELECTED");

    /* opf_slot_kernels: the selected table holds alpha's kernels, each
     * component's offer can be read by name, and a component without an offer
     * is OPF_ERR_ARG. */
    CHECK_RC(opf_slot_kernels(SUM, I32, NULL, 1, &f2, &f3), OPF_SUCCESS);
    CHECK_RC(opf_slot_kernels(SUM, I32, "alpha", 1, &g2, &g3), OPF_SUCCESS);
    CHECK(f2 && f2 == g2 && f3 && f3 == g3, "SUM INT32: the selected kernels are not alpha's");
    CHECK_RC(opf_slot_kernels(SUM, I32, "beta", 1, &g2, &g3), OPF_SUCCESS);
    CHECK(g2 && g3 && g2 != f2 && g3 != f3, "SUM INT32: beta's offer is missing or is alpha's");
    CHECK_RC(opf_slot_kernels(SUM, I64, "alpha", 1, &g2, &g3), OPF_SUCCESS);
    CHECK(g2 && !g3, "SUM INT64: alpha's offer should be 2-buffer only");
    CHECK_RC(opf_slot_kernels(SUM, I64, "beta", 1, &g2, &g3), OPF_SUCCESS);
    CHECK(!g2 && g3, "SUM INT64: beta's offer should be 3-buffer only");
    CHECK_RC(opf_slot_kernels(PROD, I32, "alpha", 1, &g2, &g3), OPF_ERR_ARG);
    CHECK_RC(opf_slot_kernels(SUM, I32, "gamma", 1, &g2, &g3), OPF_ERR_ARG);
    CHECK_RC(opf_slot_kernels(SUM, I32, "base", 1, &g2, &g3), OPF_SUCCESS);
    CHECK(g2 && g3 && g2 != f2 && g3 != f3, "SUM INT32: the base kernels are missing or are alpha's");

    /* The counters start at zero and the winner really runs. */
    CHECK(calls("alpha") == 0 && calls("beta") == 0, "counters at init: alpha %lld, beta %lld", calls("alpha"),
          calls("beta"));
    expect_run(2, 100, "alpha", ab);
    expect_run(3, 100, "alpha", ab);
    {
        int64_t a[5] = {1, 2, 3, 4, INT64_MAX}, b[5] = {10, 20, 30, 40, 1}, out[5];
        long long a0 = calls("alpha"), b0 = calls("beta");
        CHECK_RC(opf_reduce_local(a, b, 5, OPF_INT64_T, OPF_SUM), OPF_SUCCESS);
        CHECK(b[0] == 11 && b[3] == 44 && b[4] == INT64_MIN, "SUM INT64 2-buffer: wrong result");
        CHECK(calls("alpha") == a0 + 1 && calls("beta") == b0, "SUM INT64 2-buffer did not run alpha");
        CHECK_RC(opf_reduce_local3(a, b, out, 5, OPF_INT64_T, OPF_SUM), OPF_SUCCESS);
        CHECK(out[0] == 12 && out[3] == 48, "SUM INT64 3-buffer: wrong result");
        CHECK(calls("alpha") == a0 + 1 && calls("beta") == b0 + 1, "SUM INT64 3-buffer did not run beta");
        int32_t p[3] = {2, 3, -4}, q[3] = {5, 7, 6};
        CHECK_RC(opf_reduce_local(p, q, 3, OPF_INT, OPF_PROD), OPF_SUCCESS);
        CHECK(q[0] == 10 && q[1] == 21 && q[2] == -24, "PROD INT: wrong result");
        CHECK(calls("beta") == b0 + 2, "PROD INT did not run beta");
        int32_t m[3] = {2, 9, -4}, n[3] = {5, 7, -6};
        CHECK_RC(opf_reduce_local(m, n, 3, OPF_INT, OPF_MAX), OPF_SUCCESS);
        CHECK(n[0] == 5 && n[1] == 9 && n[2] == -4, "MAX INT: wrong result");
        CHECK(calls("alpha") == a0 + 2, "MAX INT 2-buffer did not run alpha");
        /* A type that no component serves runs the base. */
        uint32_t u[2] = {1, 2}, v[2] = {3, 4};
        CHECK_RC(opf_reduce_local(u, v, 2, OPF_UNSIGNED, OPF_SUM), OPF_SUCCESS);
        CHECK(v[0] == 4 && v[1] == 6 && calls("alpha") == a0 + 2 && calls("beta") == b0 + 2,
              "SUM UNSIGNED: wrong result or a component ran");
    }

    /* A higher priority for beta flips every slot it offers. */
    set_param("op_beta_priority", "60");
    CHECK_RC(start(good), OPF_SUCCESS);
    char buf[32] = "";
    CHECK_RC(opf_param_get("op_beta_priority", buf, (int)sizeof buf), OPF_SUCCESS);
    CHECK(strcmp(buf, "60") == 0, "op_beta_priority is %s", buf);
    EXPECT_SLOT(SUM, I32, "beta", "beta");
    EXPECT_SLOT(SUM, I64, "alpha", "beta");
    EXPECT_SLOT(MAX, I32, "beta", "alpha");
    EXPECT_SLOT(PROD, I32, "beta", "beta");
    CONTAINS(explain(SUM, I32, 2), "beta priority 60: SELECTED");
    CONTAINS(explain(SUM, I32, 2), "alpha priority 50: outranked");
    expect_run(2, 100, "beta", ab);
    expect_run(3, 100, "beta", ab);

    /* Priority, not the name: alpha below beta. */
    set_param("op_beta_priority", NULL);
    set_param("op_alpha_priority", "30");
    CHECK_RC(start(good), OPF_SUCCESS);
    EXPECT_SLOT(SUM, I32, "beta", "beta");
    EXPECT_SLOT(MAX, I32, "beta", "alpha");
    expect_run(2, 7, "beta", ab);

    /* And above again. */
    set_param("op_alpha_priority", "70");
    CHECK_RC(start(good), OPF_SUCCESS);
    EXPECT_SLOT(SUM, I32, "alpha", "alpha");
    EXPECT_SLOT(MAX, I32, "alpha", "alpha");
    expect_run(3, 7, "alpha", ab);
    set_param("op_alpha_priority", NULL);
}

/* ---- 3. pins ------------------------------------------------------------------------ */

static void test_pins(void)
{
    const char *good = dir_of("OPF_TEST_DIR_GOOD");
    reset_params();

    /* A pin beats priority (alpha would win the tie). */
    set_param("op_base_pin", "sum:int=beta");
    CHECK_RC(start(good), OPF_SUCCESS);
    EXPECT_SLOT(SUM, I32, "beta", "beta");
    EXPECT_SLOT(MAX, I32, "alpha", "alpha");   /* other slots are not touched */
    EXPECT_SLOT(SUM, I64, "alpha", "beta");
    CONTAINS(explain(SUM, I32, 2), "pinned by op_base_pin");
    expect_run(2, 10, "beta", ab);
    expect_run(3, 10, "beta", ab);

    /* ... even a higher one, and by kernel type name, any case. */
    set_param("op_alpha_priority", "90");
    set_param("op_base_pin", "SUM:INT32=beta");
    CHECK_RC(start(good), OPF_SUCCESS);
    EXPECT_SLOT(SUM, I32, "beta", "beta");
    EXPECT_SLOT(MAX, I32, "alpha", "alpha");
    set_param("op_alpha_priority", NULL);

    /* Pinned to the base. */
    set_param("op_base_pin", "sum:int=base");
    CHECK_RC(start(good), OPF_SUCCESS);
    EXPECT_SLOT(SUM, I32, "base", "base");
    EXPECT_SLOT(SUM, I64, "alpha", "beta");
    CONTAINS(explain(SUM, I32, 2), "base (default): SELECTED (pinned by op_base_pin)");
    expect_run(2, 10, "base", ab);
    expect_run(3, 10, "base", ab);

    /* A pin to a component that does not offer the slot: normal selection. */
    set_param("op_base_pin", "prod:int=alpha");   /* alpha offers no PROD; beta does */
    CHECK_RC(start(good), OPF_SUCCESS);
    EXPECT_SLOT(PROD, I32, "beta", "beta");
    EXPECT_SLOT(SUM, I32, "alpha", "alpha");
    set_param("op_base_pin", "sum:int=nosuch");   /* not a component at all */
    CHECK_RC(start(good), OPF_SUCCESS);
    EXPECT_SLOT(SUM, I32, "alpha", "alpha");
    expect_run(2, 10, "alpha", ab);
    /* beta offers only the 3-buffer half of SUM INT64: the 2-buffer half is
     * selected normally (alpha). */
    set_param("op_base_pin", "sum:int64_t=beta");
    CHECK_RC(start(good), OPF_SUCCESS);
    EXPECT_SLOT(SUM, I64, "alpha", "beta");

    /* Malformed pins warn, are ignored, and do not stop the good ones. */
    static const char *malformed[] = {"sum-int=beta", "sum:int", "nosuchop:int=beta", "sum:nosuchtype=beta",
                                      "sum:int=", "=beta"};
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; ++i) {
        char expected[128];
        set_param("op_base_pin", malformed[i]);
        capture_begin();
        const int rc = start(good);
        const char *err = capture_end();
        CHECK(rc == OPF_SUCCESS, "op_base_pin=%s: opf_init returned %d (%s)", malformed[i], rc, opf_last_error());
        snprintf(expected, sizeof expected, "op_base_pin: ignoring \"%s\"", malformed[i]);
        CONTAINS(err, "opframe: warning: ");
        CONTAINS(err, expected);
        EXPECT_SLOT(SUM, I32, "alpha", "alpha");
    }
    set_param("op_base_pin", "bogus,sum:int=beta");
    capture_begin();
    CHECK_RC(start(good), OPF_SUCCESS);
    const char *err = capture_end();
    CONTAINS(err, "op_base_pin: ignoring \"bogus\"");
    LACKS(err, "ignoring \"sum:int=beta\"");
    EXPECT_SLOT(SUM, I32, "beta", "beta");

    /* A size-bounded pin: beta serves 40-80 bytes per buffer (INT32 counts 10
     * to 20, both forms), alpha keeps the counts on either side. */
    char tiers[256];
    set_param("op_base_pin", "sum:int@40-80=beta");
    CHECK_RC(start(good), OPF_SUCCESS);
    for (int nbuf = 2; nbuf <= 3; ++nbuf) {
        static const struct { opf_count_t count; const char *who; } band[] = {
            {1, "alpha"}, {9, "alpha"}, {10, "beta"}, {20, "beta"}, {21, "alpha"}, {1000, "alpha"}};
        for (size_t i = 0; i < sizeof band / sizeof band[0]; ++i) {
            EXPECT_PROVIDER(SUM, I32, nbuf, band[i].count, band[i].who);
            expect_run(nbuf, band[i].count, band[i].who, ab);
        }
        CHECK_RC(opf_slot_tiers_text(SUM, I32, OPF_MEM_HOST, nbuf, 0, tiers, (int)sizeof tiers), OPF_SUCCESS);
        CHECK(strcmp(tiers, "alpha<10,beta@40-80>=10<21,alpha>=21") == 0, "%d-buffer tiers: %s", nbuf, tiers);
    }
    CONTAINS(explain(SUM, I32, 2), "serves counts 10 to 20 (pinned 40-80)");
    EXPECT_SLOT(MAX, I32, "alpha", "alpha");   /* other slots are not touched */
    /* With a whole-slot pin: the band serves its counts, the pin the rest;
     * open ends. */
    set_param("op_base_pin", "sum:int=beta,sum:int@-8=alpha,sum:int@1K-=base");
    CHECK_RC(start(good), OPF_SUCCESS);
    EXPECT_PROVIDER(SUM, I32, 2, 2, "alpha");
    EXPECT_PROVIDER(SUM, I32, 3, 2, "alpha");
    EXPECT_PROVIDER(SUM, I32, 2, 3, "beta");
    EXPECT_PROVIDER(SUM, I32, 3, 255, "beta");
    EXPECT_PROVIDER(SUM, I32, 2, 256, "base");
    expect_run(2, 256, "base", ab);
    CHECK_RC(opf_slot_tiers_text(SUM, I32, OPF_MEM_HOST, 2, 0, tiers, (int)sizeof tiers), OPF_SUCCESS);
    CHECK(strcmp(tiers, "alpha@-8<3,beta>=3<256,base@1K->=256") == 0, "tiers: %s", tiers);

    /* Malformed ranges warn at default verbosity, are ignored, and do not
     * stop the good pins. */
    static const char *bad_ranges[][2] = {
        {"sum:int@64K=beta", "is not LO-HI"},
        {"sum:int@-=beta", "has no bound"},
        {"sum:int@1M-64K=beta", "starts above its end"},
        {"sum:int@x-1M=beta", "has \"x\": not a size"},
        {"sum:int@1-3=beta", "bytes 1-3 to \"beta\": the range holds no whole INT32 element"},
    };
    for (size_t i = 0; i < sizeof bad_ranges / sizeof bad_ranges[0]; ++i) {
        set_param("op_base_pin", bad_ranges[i][0]);
        capture_begin();
        CHECK_RC(start(good), OPF_SUCCESS);
        const char *why = capture_end();
        CONTAINS(why, "opframe: warning: op_base_pin: ignoring");
        CONTAINS(why, bad_ranges[i][1]);
        EXPECT_SLOT(SUM, I32, "alpha", "alpha");
    }
    /* Overlapping bands of one slot: the later wins, and says so. */
    set_param("op_base_pin", "sum:int@0-100=beta,sum:int@80-200=alpha,sum:int@1K-2K=beta");
    capture_begin();
    CHECK_RC(start(good), OPF_SUCCESS);
    err = capture_end();
    CONTAINS(err, "bytes 0-100 are already pinned to beta; the later pin wins");
    EXPECT_PROVIDER(SUM, I32, 2, 10, "alpha");
    EXPECT_PROVIDER(SUM, I32, 2, 300, "beta");
    set_param("op_base_pin", NULL);
}

/* ---- 4. self-test ------------------------------------------------------------------- */

static void test_selftest(void)
{
    const char *dir = dir_of("OPF_TEST_DIR_SELFTEST");
    static const char *const abw[] = {"alpha", "beta", "wrong", NULL};
    reset_params();

    /* Off (the default): the broken kernel wins on priority, and runs. */
    CHECK_RC(start(dir), OPF_SUCCESS);
    EXPECT_SLOT(SUM, I32, "wrong", "wrong");
    EXPECT_SLOT(BAND, I32, "wrong", "wrong");
    LACKS(explain(SUM, I32, 2), "self-test");
    long long w0 = calls("wrong");
    CHECK(sum_int(2, 8) == 1, "selftest off: the broken kernel should give exactly one wrong element");
    CHECK(sum_int(3, 8) == 1, "selftest off: the broken 3-buffer kernel should give one wrong element");
    CHECK(calls("wrong") == w0 + 2, "selftest off: the broken kernel did not run");
    /* its streaming-size tier of SUM INT64 (wrong from element 65536 on) too */
    EXPECT_PROVIDER(SUM, I64, 2, (opf_count_t)1 << 17, "wrong");
    EXPECT_PROVIDER(SUM, I64, 3, (opf_count_t)1 << 17, "wrong");

    /* On: the broken kernels are dropped, the next offer (alpha) serves, the
     * exact BAND kernels of the same component stay. */
    set_param("op_base_selftest", "1");
    capture_begin();
    CHECK_RC(start(dir), OPF_SUCCESS);
    const char *err = capture_end();
    EXPECT_SLOT(SUM, I32, "alpha", "alpha");
    EXPECT_SLOT(BAND, I32, "wrong", "wrong");
    EXPECT_SLOT(SUM, I64, "alpha", "beta");
    for (int nbuf = 2; nbuf <= 3; ++nbuf) {
        const char *text = explain(SUM, I32, nbuf);
        CONTAINS(text, "wrong priority 99: self-test FAILED");
        CONTAINS(text, "alpha priority 50: SELECTED");
    }
    LACKS(explain(BAND, I32, 2), "FAILED");
    /* The large tier is tested at its own length, and dropped: what it says
     * is about element 65536 or later, which a short count never reaches. */
    EXPECT_PROVIDER(SUM, I64, 2, (opf_count_t)1 << 17, "alpha");
    EXPECT_PROVIDER(SUM, I64, 3, (opf_count_t)1 << 17, "beta");
    CONTAINS(err, "SUM INT64 host 2-buffer kernel of component wrong differs from the base at element 65536");
    CONTAINS(err, "SUM INT64 host 3-buffer kernel of component wrong differs from the base at element 65536");
    CONTAINS(err, "self-test");
    CONTAINS(err, "component wrong");
    LACKS(err, "component alpha");
    LACKS(err, "component beta");
    expect_run(2, 8, "alpha", abw);
    expect_run(3, 8, "alpha", abw);
    {
        int32_t a[4] = {1, 2, 3, 0xF0}, b[4] = {3, 3, 3, 0x3C};
        w0 = calls("wrong");
        CHECK_RC(opf_reduce_local(a, b, 4, OPF_INT, OPF_BAND), OPF_SUCCESS);
        CHECK(b[0] == 1 && b[1] == 2 && b[2] == 3 && b[3] == 0x30, "BAND INT: wrong result");
        CHECK(calls("wrong") == w0 + 1, "BAND INT did not run the component wrong");
    }

    /* With alpha excluded the next offer is beta's. */
    set_param("op", "^alpha");
    CHECK_RC(start(dir), OPF_SUCCESS);
    EXPECT_SLOT(SUM, I32, "beta", "beta");
    set_param("op", NULL);
    set_param("op_base_selftest", NULL);
}

/* ---- 5. size tiers ------------------------------------------------------------------- */

static void test_tiers(void)
{
    const char *dir = dir_of("OPF_TEST_DIR_TIER");
    static const char *const abt[] = {"alpha", "beta", "tier", NULL};
    opf_kernel2_fn *f2, *a2, *t2;
    opf_kernel3_fn *f3, *a3, *t3;
    reset_params();

    CHECK_RC(start(dir), OPF_SUCCESS);
    for (int nbuf = 2; nbuf <= 3; ++nbuf) {
        EXPECT_PROVIDER(SUM, I32, nbuf, 0, "alpha");
        EXPECT_PROVIDER(SUM, I32, nbuf, 1, "alpha");
        EXPECT_PROVIDER(SUM, I32, nbuf, 999, "alpha");
        EXPECT_PROVIDER(SUM, I32, nbuf, 1000, "tier");
        EXPECT_PROVIDER(SUM, I32, nbuf, 1001, "tier");
        EXPECT_PROVIDER(SUM, I32, nbuf, (opf_count_t)1 << 40, "tier");
    }
    EXPECT_SLOT(SUM, I64, "alpha", "beta");   /* tier offers no other slot */
    CONTAINS(explain(SUM, I32, 2), "tier priority 90, counts >= 1000");
    CHECK_RC(opf_slot_kernels(SUM, I32, "alpha", 0, &a2, &a3), OPF_SUCCESS);
    CHECK_RC(opf_slot_kernels(SUM, I32, "tier", 0, &t2, &t3), OPF_SUCCESS);
    CHECK_RC(opf_slot_kernels(SUM, I32, NULL, 999, &f2, &f3), OPF_SUCCESS);
    CHECK(f2 == a2 && f3 == a3, "SUM INT32 count 999: the selected kernels are not alpha's");
    CHECK_RC(opf_slot_kernels(SUM, I32, NULL, 1000, &f2, &f3), OPF_SUCCESS);
    CHECK(f2 == t2 && f3 == t3, "SUM INT32 count 1000: the selected kernels are not tier's");
    /* A component's own tiers, by count: its first below 64000, the huge one from there. */
    {
        opf_kernel2_fn *h2, *u2;
        opf_kernel3_fn *h3, *u3;
        CHECK_RC(opf_slot_kernels(SUM, I32, "tier", 63999, &u2, &u3), OPF_SUCCESS);
        CHECK(u2 == t2 && u3 == t3, "opf_slot_kernels tier count 63999: not its first tier");
        CHECK_RC(opf_slot_kernels(SUM, I32, "tier", 64000, &h2, &h3), OPF_SUCCESS);
        CHECK(h2 && h3 && h2 != t2 && h3 != t3, "opf_slot_kernels tier count 64000: not its second tier");
        CHECK_RC(opf_slot_kernels(SUM, I32, NULL, 64000, &f2, &f3), OPF_SUCCESS);
        CHECK(f2 == h2 && f3 == h3, "SUM INT32 count 64000: the selected kernels are not tier's second tier");
    }
    /* The tier query gives the same boundaries without probing. */
    {
        opf_slot_tier_t tiers[4];
        int n = 0;
        CHECK_RC(opf_slot_tiers(OPF_OPID_SUM, OPF_KT_INT32, 2, tiers, 4, &n), OPF_SUCCESS);
        CHECK(n == 3 && tiers[0].min_count == 0 && tiers[0].fn2 == a2 && tiers[0].fn3 == NULL &&
                  !strcmp(tiers[0].provider, "alpha") && tiers[1].min_count == 1000 && tiers[1].fn2 == t2 &&
                  !strcmp(tiers[1].provider, "tier") && tiers[2].min_count == 64000 && tiers[2].fn2 != t2 &&
                  !strcmp(tiers[2].provider, "tier"),
              "opf_slot_tiers SUM INT32 2-buffer: %d tiers, not alpha from 0, tier from 1000 and 64000", n);
        CHECK_RC(opf_slot_tiers(OPF_OPID_SUM, OPF_KT_INT32, 3, tiers, 1, &n), OPF_SUCCESS);
        CHECK(n == 3 && tiers[0].fn3 == a3 && tiers[0].fn2 == NULL, "opf_slot_tiers SUM INT32 3-buffer, max 1");
        CHECK_RC(opf_slot_tiers(OPF_OPID_SUM, OPF_KT_INT64, 2, tiers, 4, &n), OPF_SUCCESS);
        CHECK(n == 1 && !strcmp(tiers[0].provider, "alpha"), "opf_slot_tiers SUM INT64: %d tiers", n);
        CHECK_RC(opf_slot_tiers(OPF_OPID_SUM, OPF_KT_INT32, 4, tiers, 4, &n), OPF_ERR_ARG);
        CHECK_RC(opf_slot_tiers(OPF_OPID_SUM, OPF_KT_INT32, 2, NULL, 4, &n), OPF_ERR_ARG);
        CHECK_RC(opf_slot_tiers(OPF_OPID_MAXLOC, OPF_KT_INT32, 2, tiers, 4, &n), OPF_ERR_OP);
    }
    expect_run(2, 999, "alpha", abt);
    expect_run(2, 1000, "tier", abt);
    expect_run(3, 999, "alpha", abt);
    expect_run(3, 4096, "tier", abt);

    /* The self-test runs a tiered kernel at counts it serves: it passes. */
    set_param("op_base_selftest", "1");
    CHECK_RC(start(dir), OPF_SUCCESS);
    EXPECT_PROVIDER(SUM, I32, 2, 1000, "tier");
    EXPECT_PROVIDER(SUM, I32, 3, 999, "alpha");
    set_param("op_base_selftest", NULL);

    /* The threshold is the module's: min_count 0 serves every count. */
    set_param("op_tier_min_count", "0");
    CHECK_RC(start(dir), OPF_SUCCESS);
    EXPECT_PROVIDER(SUM, I32, 2, 1, "tier");
    EXPECT_PROVIDER(SUM, I32, 3, 1, "tier");
    expect_run(2, 5, "tier", abt);
    set_param("op_tier_min_count", NULL);

    /* Three tiers: beta below 10, alpha from 10, tier from 1000. A call
     * takes the kernel of its count's tier on both sides of each boundary
     * (the short path holds the first boundary, the general path the rest). */
    set_param("op_alpha_min_count", "10");
    CHECK_RC(start(dir), OPF_SUCCESS);
    for (int nbuf = 2; nbuf <= 3; ++nbuf) {
        EXPECT_PROVIDER(SUM, I32, nbuf, 9, "beta");
        EXPECT_PROVIDER(SUM, I32, nbuf, 10, "alpha");
        EXPECT_PROVIDER(SUM, I32, nbuf, 1000, "tier");
        expect_run(nbuf, 1, "beta", abt);
        expect_run(nbuf, 9, "beta", abt);
        expect_run(nbuf, 10, "alpha", abt);
        expect_run(nbuf, 999, "alpha", abt);
        expect_run(nbuf, 1000, "tier", abt);
        expect_run(nbuf, 1001, "tier", abt);
    }
    set_param("op_alpha_min_count", NULL);

    /* A tier ranked below an all-counts offer never serves. */
    set_param("op_tier_priority", "10");
    CHECK_RC(start(dir), OPF_SUCCESS);
    EXPECT_PROVIDER(SUM, I32, 2, 5000, "alpha");
    EXPECT_PROVIDER(SUM, I32, 3, 5000, "alpha");
    expect_run(2, 5000, "alpha", abt);
    set_param("op_tier_priority", NULL);

    /* With alpha and beta excluded, the base serves the small counts. */
    set_param("op", "tier");
    CHECK_RC(start(dir), OPF_SUCCESS);
    EXPECT_PROVIDER(SUM, I32, 2, 999, "base");
    EXPECT_PROVIDER(SUM, I32, 2, 1000, "tier");
    expect_run(2, 10, "base", abt);
    expect_run(2, 2000, "tier", abt);
    set_param("op", NULL);
}

/* ---- 6. broken component files ----------------------------------------------------- */

static void expect_failed(const char *file, const char *why, const char *why2)
{
    char suffix[128];
    opf_failed_info_t f;
    snprintf(suffix, sizeof suffix, "/%s", file);
    const int i = find_failed(suffix, &f);
    CHECK(i >= 0, "%s is not listed as failed", file);
    if (i < 0) return;
    CHECK(strstr(f.reason, why) != NULL, "%s: \"%s\" not in its reason \"%s\"", file, why, f.reason);
    if (why2) CHECK(strstr(f.reason, why2) != NULL, "%s: \"%s\" not in its reason \"%s\"", file, why2, f.reason);
}

static void test_broken(void)
{
    const char *broken = dir_of("OPF_TEST_DIR_BROKEN"), *dup = dir_of("OPF_TEST_DIR_DUP");
    const char *missing = dir_of("OPF_TEST_DIR_MISSING");
    char path[4096], prefix[2048];
    opf_component_info_t info;
    opf_failed_info_t f;
    reset_params();

    /* A directory that does not exist comes first: the others are still searched. */
    snprintf(path, sizeof path, "%s:%s:%s", missing, broken, dup);
    capture_begin();
    CHECK_RC(start(path), OPF_SUCCESS);
    const char *err = capture_end();

    CHECK(opf_component_count() == 3, "%d components, expected alpha, empty and refuse", opf_component_count());
    snprintf(prefix, sizeof prefix, "%s/", broken);
    CHECK(find_component("alpha", &info) >= 0 && info.available && strncmp(info.path, prefix, strlen(prefix)) == 0,
          "alpha is not available from %s (path %s)", broken, find_component("alpha", &info) >= 0 ? info.path : "-");
    EXPECT_SLOT(SUM, I32, "alpha", "alpha");
    expect_run(2, 10, "alpha", (const char *const[]){"alpha", NULL});

    /* init_query refusing: disqualified with its reason, not failed. */
    CHECK(find_component("refuse", &info) >= 0 && !info.available &&
              strcmp(info.status, "disqualified: no refuse accelerator in this machine") == 0,
          "refuse: status \"%s\"", find_component("refuse", &info) >= 0 ? info.status : "(not listed)");
    CHECK(find_failed("/opf_op_refuse.so", &f) < 0, "refuse is listed as failed");

    /* op_query offering nothing: available, but serves no slot. */
    CHECK(find_component("empty", &info) >= 0 && info.available && strcmp(info.status, "available") == 0,
          "empty: status \"%s\"", find_component("empty", &info) >= 0 ? info.status : "(not listed)");
    CHECK(find_failed("/opf_op_empty.so", &f) < 0, "empty is listed as failed");
    int served_by_empty = 0, served_by_refuse = 0;
    for (int op = 1; op < OPF_OPID_COUNT; ++op)
        for (int kt = 0; kt < OPF_KT_COUNT; ++kt)
            for (int nbuf = 2; nbuf <= 3; ++nbuf) {
                const char *p = opf_slot_provider(op, kt, nbuf, 1);
                served_by_empty += p && strcmp(p, "empty") == 0;
                served_by_refuse += p && strcmp(p, "refuse") == 0;
            }
    CHECK(served_by_empty == 0, "empty serves %d slot halves", served_by_empty);
    CHECK(served_by_refuse == 0, "refuse serves %d slot halves", served_by_refuse);
    {
        opf_kernel2_fn *f2;
        opf_kernel3_fn *f3;
        CHECK_RC(opf_slot_kernels(SUM, I32, "empty", 1, &f2, &f3), OPF_ERR_ARG);
        CHECK_RC(opf_slot_kernels(SUM, I32, "refuse", 1, &f2, &f3), OPF_ERR_ARG);
    }

    /* Each broken file: skipped with its reason, not a component. */
    expect_failed("opf_op_abi.so", "ABI version 999", NULL);
    expect_failed("opf_op_abiv1.so", "component ABI version 1, this framework speaks 2", NULL);
    expect_failed("opf_op_nosym.so", "missing symbol opf_op_nosym_component", NULL);
    expect_failed("opf_op_mismatch.so", "name mismatch", "\"other\"");
    expect_failed("opf_op_fw.so", "framework \"coll\"", NULL);
    /* libltdl's own message for any dlopen failure is "file not found"; the
     * reason must be the loader's (the missing library, the bad file). */
    expect_failed("opf_op_needdep.so", "cannot load", "libopfdep");
    expect_failed("opf_op_garbage.so", "cannot load", NULL);
    if (find_failed("/opf_op_garbage.so", &f) >= 0)
        CHECK(strstr(f.reason, "file not found") == NULL, "opf_op_garbage.so exists, yet its reason is \"%s\"",
              f.reason);
    static const char *not_components[] = {"abi", "abiv1", "nosym", "mismatch", "other", "fw", "needdep", "garbage"};
    for (size_t i = 0; i < sizeof not_components / sizeof not_components[0]; ++i)
        CHECK(find_component(not_components[i], &info) < 0, "%s is listed as a component", not_components[i]);

    /* The same name in a later directory: the first wins, the second is failed. */
    snprintf(prefix, sizeof prefix, "%s/opf_op_alpha.so", dup);
    const int d = find_failed("/opf_op_alpha.so", &f);
    CHECK(d >= 0 && strcmp(f.path, prefix) == 0, "the second alpha (%s) is not listed as failed", prefix);
    if (d >= 0) {
        CONTAINS(f.reason, "duplicate");
        CONTAINS(f.reason, broken);
    }
    CHECK(opf_failed_count() == 8, "%d failed files, expected 8", opf_failed_count());
    for (int i = 0; i < opf_failed_count(); ++i)
        if (opf_failed_describe(i, &f) == OPF_SUCCESS)
            printf("  failed: %s\n          %s\n", f.path, f.reason);

    /* mca_component_show_load_errors (default on) warns about each file. */
    CONTAINS(err, "opf_op_garbage.so skipped");
    CONTAINS(err, "opf_op_abi.so skipped");
    LACKS(err, "opf_op_refuse.so");
    set_param("mca_component_show_load_errors", "0");
    capture_begin();
    CHECK_RC(start(path), OPF_SUCCESS);
    err = capture_end();
    LACKS(err, "skipped");
    CHECK(opf_failed_count() == 8, "quiet: %d failed files, expected 8", opf_failed_count());
    set_param("mca_component_show_load_errors", NULL);

    /* Only missing directories: no component, the base serves everything. */
    snprintf(path, sizeof path, "%s:%s/deeper", missing, missing);
    capture_begin();
    CHECK_RC(start(path), OPF_SUCCESS);
    err = capture_end();
    /* a path the user set that names no directory is said (a typo there
     * leaves every component out) */
    CONTAINS(err, "/deeper, which is not a directory: no component is loaded from it");
    CHECK(opf_component_count() == 0 && opf_failed_count() == 0, "missing directories: %d components, %d failed",
          opf_component_count(), opf_failed_count());
    EXPECT_SLOT(SUM, I32, "base", "base");
}

/* ---- 9. load / unload across init -> finalize -> init ------------------------------ */

/* 1 if a mapping of the process names `file`, 0 if not, -1 if unknown. */
static int mapped(const char *file)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return -1;
    char line[4096];
    int found = 0;
    while (fgets(line, sizeof line, f)) found |= strstr(line, file) != NULL;
    fclose(f);
    return found;
}

static void add_one(void *in, void *inout, int *len, opf_datatype_t *type)
{
    (void)type;
    for (int i = 0; i < *len; ++i) ((int32_t *)inout)[i] += ((int32_t *)in)[i] + 1;
}

static void test_cycles(void)
{
    const char *good = dir_of("OPF_TEST_DIR_GOOD");
    opf_datatype_t old_type = OPF_DATATYPE_NULL;
    opf_op_t old_op = OPF_OP_NULL;
    reset_params();
    set_param("mca_component_path", good);

    for (int cycle = 0; cycle < 4; ++cycle) {
        opf_component_info_t info;
        int flag = -1;
        CHECK_RC(opf_init(), OPF_SUCCESS);
        CHECK_RC(opf_initialized(&flag), OPF_SUCCESS);
        CHECK(flag == 1, "cycle %d: not initialised", cycle);
        CHECK(opf_component_count() == 2, "cycle %d: %d components", cycle, opf_component_count());
        CHECK(find_component("alpha", &info) >= 0 && info.available, "cycle %d: alpha not available", cycle);
        CHECK(find_component("beta", &info) >= 0 && info.available, "cycle %d: beta not available", cycle);
        CHECK(opf_failed_count() == 0, "cycle %d: %d failed files", cycle, opf_failed_count());
        CHECK(mapped("opf_op_alpha.so") != 0, "cycle %d: opf_op_alpha.so is not mapped", cycle);
        /* A fresh load: the counters start from zero again. */
        CHECK(calls("alpha") == 0 && calls("beta") == 0, "cycle %d: counters alpha %lld, beta %lld at init", cycle,
              calls("alpha"), calls("beta"));
        EXPECT_SLOT(SUM, I32, "alpha", "alpha");
        EXPECT_SLOT(PROD, I32, "beta", "beta");
        expect_run(2, 64, "alpha", ab);
        expect_run(3, 64, "alpha", ab);
        CHECK(calls("alpha") == 2, "cycle %d: alpha counted %lld calls", cycle, calls("alpha"));

        /* Handles of the previous cycle are invalid; new ones work. */
        int32_t a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b[8] = {0};
        if (cycle > 0) {
            CHECK_RC(opf_reduce_local(a, b, 1, old_type, OPF_SUM), OPF_ERR_TYPE);
            CHECK_RC(opf_reduce_local(a, b, 1, OPF_INT, old_op), OPF_ERR_OP);
            CHECK(b[0] == 0, "cycle %d: a stale handle wrote the buffer", cycle);
        }
        opf_datatype_t quad;
        opf_op_t op;
        CHECK_RC(opf_type_contiguous(4, OPF_INT, &quad), OPF_SUCCESS);
        CHECK_RC(opf_type_commit(&quad), OPF_SUCCESS);
        const long long a0 = calls("alpha");
        CHECK_RC(opf_reduce_local(a, b, 2, quad, OPF_SUM), OPF_SUCCESS);
        CHECK(b[0] == 1 && b[7] == 8, "cycle %d: SUM on a contiguous type: wrong result", cycle);
        CHECK(calls("alpha") == a0 + 1, "cycle %d: SUM on a contiguous INT type did not run alpha", cycle);
        CHECK_RC(opf_op_create(add_one, 1, &op), OPF_SUCCESS);
        CHECK_RC(opf_reduce_local(a, b, 8, OPF_INT, op), OPF_SUCCESS);
        CHECK(b[0] == 3 && b[7] == 17, "cycle %d: user op: wrong result", cycle);
        old_type = quad;   /* left for opf_finalize to invalidate */
        old_op = op;

        CHECK_RC(opf_finalize(), OPF_SUCCESS);
        CHECK_RC(opf_initialized(&flag), OPF_SUCCESS);
        CHECK(flag == 0, "cycle %d: still initialised after opf_finalize", cycle);
        const int m = mapped("opf_op_alpha.so");
        CHECK(m <= 0, "cycle %d: opf_op_alpha.so is still mapped after opf_finalize", cycle);
        if (m < 0 && cycle == 0) printf("component_system: no /proc/self/maps; unmapping not checked\n");
        /* The component's parameters went with it. */
        char buf[32];
        CHECK(opf_param_get("op_alpha_calls", buf, (int)sizeof buf) == OPF_ERR_ARG,
              "cycle %d: op_alpha_calls still known after opf_finalize", cycle);
    }
    /* Lazy init after the last cycle: the first reduction loads them again. */
    CHECK(sum_int(2, 3) == 0, "lazy init: wrong result");
    CHECK(calls("alpha") == 1 && calls("beta") == 0, "lazy init: alpha counted %lld, beta %lld", calls("alpha"),
          calls("beta"));
    CHECK_RC(opf_finalize(), OPF_SUCCESS);
}

/* ---- 8. the example component built out of tree ---------------------------------- */

static void test_example(void)
{
    const char *dir = dir_of("OPF_TEST_DIR_EXAMPLE");
    opf_component_info_t info;
    reset_params();
    CHECK_RC(start(dir), OPF_SUCCESS);
    CHECK(find_component("example", &info) >= 0 && info.available, "example: not available");
    EXPECT_SLOT(SUM, I32, "example", "example");
    EXPECT_SLOT(OPF_OPID_BXOR, I64, "example", "base");
    expect_run(2, 16, "example", (const char *const[]){"example", NULL});
    expect_run(3, 16, "example", (const char *const[]){"example", NULL});
    CHECK(calls("example") == 2, "op_example_calls is %lld, expected 2", calls("example"));
    opf_finalize();
}

/* ---- 10. device memory kinds: registered at run time; kernels that fail -------------- */

static void test_device(void)
{
    const char *dir = dir_of("OPF_TEST_DIR_DEVICE");
    /* The memory devfail claims: a mapping of its own, as a driver's device
     * memory is (the framework never asks hooks about the program's image,
     * the heap or a stack: framework/host_memory.h). */
    int32_t *device = mmap(NULL, 64 * sizeof(int32_t), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(device != MAP_FAILED, "mmap for devfail's memory");
    if (device == MAP_FAILED) return;
    int32_t host[64], in[64], expect[64];
    char number[32];
    int kind = -1;
    reset_params();
    snprintf(number, sizeof number, "%lld", (long long)(uintptr_t)device);
    set_param("op_devfail_base", number);
    set_param("op_devfail_bytes", "256");
    capture_begin();
    CHECK_RC(start(dir), OPF_SUCCESS);
    const char *err = capture_end();

    /* Offers are growable: a later kernel type and a too-short offer are
     * refused with the reason; devfail's SUM offer, longer than this
     * framework's opf_offer_t, is taken (op_query returned 0 only if all
     * three calls answered so). */
    char later_type[128];
    snprintf(later_type, sizeof later_type, "component devfail: offer for SUM refused: kernel type %d is unknown",
             OPF_KT_COUNT);
    /* At default verbosity once per component: the count and the first
     * reason (a program's writer sees it); each refusal at verbosity 1. */
    snprintf(later_type, sizeof later_type, "component devfail: 2 of its 5 offers refused (op_base_verbose=1 lists "
             "each), the first: SUM: kernel type %d is unknown", OPF_KT_COUNT);
    CONTAINS(err, later_type);
    LACKS(err, "offer for SUM refused");
    /* opf_component_log: silent below its level, named after the component at it. */
    LACKS(err, "claims 256 bytes");
    set_param("op_base_verbose", "2");
    capture_begin();
    CHECK_RC(start(dir), OPF_SUCCESS);
    err = capture_end();
    snprintf(later_type, sizeof later_type, "component devfail: offer for SUM refused: kernel type %d is unknown",
             OPF_KT_COUNT);
    CONTAINS(err, later_type);
    CONTAINS(err, "component devfail: offer for SUM refused: struct_size");
    LACKS(err, "2 of its 5 offers refused");   /* said once per process */
    CONTAINS(err, "opframe: devfail: claims 256 bytes as memory kind 1\n");
    set_param("op_base_verbose", NULL);
    CHECK_RC(start(dir), OPF_SUCCESS);

    /* The kind exists by name while devfail is loaded; host memory is 0. */
    CHECK(opf_memory_kind_count() == 2, "%d memory kinds, expected host and devfail", opf_memory_kind_count());
    CHECK_RC(opf_memory_kind_lookup("devfail", &kind), OPF_SUCCESS);
    CHECK(kind == 1 && strcmp(opf_memory_kind_name(kind), "devfail") == 0, "devfail is kind %d (\"%s\")", kind,
          opf_memory_kind_name(kind) ? opf_memory_kind_name(kind) : "(null)");
    CHECK(strcmp(opf_memory_kind_name(OPF_MEM_HOST), "host") == 0, "kind 0 is not host");
    int none = 7;
    CHECK_RC(opf_memory_kind_lookup("cuda", &none), OPF_ERR_ARG);
    CHECK(none == -1, "an unknown kind gave %d", none);
    CHECK(opf_slot_provider_mem(SUM, I32, kind, 2, 1) && strcmp(opf_slot_provider_mem(SUM, I32, kind, 2, 1), "devfail") == 0,
          "SUM INT32 on devfail memory is not devfail's");

    /* A failing synchronous device kernel: its code and reason reach the
     * caller, naming the component; nothing is written. */
    for (int i = 0; i < 64; ++i) {
        device[i] = i;
        in[i] = 1000 + i;
    }
    CHECK_RC(opf_reduce_local(in, device, 64, OPF_INT32_T, OPF_SUM), OPF_ERR_INTERN);
    CONTAINS(opf_last_error(), "opf_reduce_local(op SUM, type INT32_T)");
    CONTAINS(opf_last_error(), "component devfail failed: simulated device failure");
    CHECK(device[5] == 5, "the failed call wrote device[5] = %d", device[5]);
    CHECK_RC(opf_reduce_local3(in, device, device, 64, OPF_INT32_T, OPF_SUM), OPF_ERR_INTERN);
    CONTAINS(opf_last_error(), "opf_reduce_local3(op SUM, type INT32_T)");
    CHECK_RC(opf_reduce_local_stream(in, device, 64, OPF_INT32_T, OPF_SUM, kind, NULL), OPF_ERR_INTERN);
    CONTAINS(opf_last_error(), "component devfail failed: simulated device failure");
    /* A type with gaps on device memory is refused (one launch per block
     * otherwise), before any kernel runs. */
    opf_datatype_t vec;
    CHECK_RC(opf_type_vector(4, 2, 4, OPF_INT32_T, &vec), OPF_SUCCESS);
    CHECK_RC(opf_type_commit(&vec), OPF_SUCCESS);
    CHECK_RC(opf_reduce_local(in, device, 1, vec, OPF_SUM), OPF_ERR_TYPE);
    CONTAINS(opf_last_error(), "devfail memory, which takes contiguous datatypes only");
    opf_type_free(&vec);
    /* No kernel for the slot on that memory: refused, not run on the host. */
    CHECK_RC(opf_reduce_local(in, device, 64, OPF_INT32_T, OPF_MAX), OPF_ERR_BUFFER);
    CONTAINS(opf_last_error(), "devfail memory and no component serves this op on it");
    /* Host memory is untouched by all this: alpha serves it. */
    for (int i = 0; i < 64; ++i) host[i] = i;
    CHECK_RC(opf_reduce_local(in, host, 64, OPF_INT32_T, OPF_SUM), OPF_SUCCESS);
    CHECK(host[5] == 1010, "host SUM gave %d", host[5]);
    CHECK_RC(opf_reduce_local_stream(in, host, 64, OPF_INT32_T, OPF_SUM, 9, NULL), OPF_ERR_OP);
    CONTAINS(opf_last_error(), "no available component registered it");

    /* The same kernels working: the result is in place, success. */
    set_param("op_devfail_fail", "false");
    CHECK_RC(start(dir), OPF_SUCCESS);
    for (int i = 0; i < 64; ++i) {
        device[i] = i;
        expect[i] = in[i] + i;
    }
    CHECK_RC(opf_reduce_local(in, device, 64, OPF_INT32_T, OPF_SUM), OPF_SUCCESS);
    CHECK(memcmp(device, expect, sizeof expect) == 0, "devfail SUM result differs");
    CHECK(calls("devfail") == 1, "op_devfail_calls is %lld, expected 1", calls("devfail"));
    /* Issue 26: opf_reduce_local_n on device memory without an n-ary device
     * kernel is the chain of 3-buffer device calls (one per further input),
     * in place in the first input too; AVG of more than two inputs, and dst
     * among the inputs after the first two, are refused there. */
    {
        const void *srcs[3] = {in, device, in};
        for (int i = 0; i < 64; ++i) {
            device[i] = i;
            expect[i] = in[i] + i + in[i];
        }
        CHECK_RC(opf_reduce_local_n(srcs, 3, device, 64, OPF_INT32_T, OPF_SUM), OPF_SUCCESS);
        CHECK(memcmp(device, expect, sizeof expect) == 0, "devfail n-ary SUM result differs");
        CHECK(calls("devfail") == 3, "op_devfail_calls is %lld, expected 3", calls("devfail"));
        CHECK_RC(opf_reduce_local_n(srcs, 3, device, 64, OPF_INT32_T, OPF_AVG), OPF_ERR_OP);
        CONTAINS(opf_last_error(), "no component offers an n-ary kernel for this slot on devfail memory, and "
                                   "OPF_AVG of more than two inputs is not a chain");
        const void *late[3] = {in, in, device};
        CHECK_RC(opf_reduce_local_n(late, 3, device, 64, OPF_INT32_T, OPF_SUM), OPF_ERR_BUFFER);
        CONTAINS(opf_last_error(), "the chain would overwrite dst, one of srcs[2..]");
        CHECK_RC(opf_reduce_local_n_stream(late, 3, device, 64, OPF_INT32_T, OPF_SUM, kind, NULL), OPF_ERR_BUFFER);
        CHECK(memcmp(device, expect, sizeof expect) == 0, "a refused n-ary call wrote device memory");
        CHECK(calls("devfail") == 3, "refused n-ary calls ran kernels: op_devfail_calls is %lld", calls("devfail"));
        /* SUM INT64 has devfail's n-ary kernels: one call for k inputs, dst
         * any of them (a chain could not serve dst = srcs[2]), synchronous
         * and on the stream; UINT64's offer was built before device_n, whose
         * value it carries must not be read: no n-ary kernel there. */
        CHECK(opf_slot_provider_n_mem(SUM, OPF_KT_INT64, kind, OPF_FORM_N, 0, 32) &&
                  strcmp(opf_slot_provider_n_mem(SUM, OPF_KT_INT64, kind, OPF_FORM_N, 0, 32), "devfail") == 0 &&
                  opf_slot_provider_n_mem(SUM, OPF_KT_INT64, kind, OPF_FORM_N, 1, 32) &&
                  strcmp(opf_slot_provider_n_mem(SUM, OPF_KT_INT64, kind, OPF_FORM_N, 1, 32), "devfail") == 0,
              "SUM INT64's n-ary device slot is not devfail's");
        CHECK(opf_slot_provider_n_mem(SUM, OPF_KT_UINT64, kind, OPF_FORM_N, 0, 32) == NULL,
              "an offer whose struct_size ends before device_n gave SUM UINT64 an n-ary device kernel");
        int64_t *d64 = (int64_t *)device, in64[32], want64[32];
        const void *late64[3] = {in64, in64, d64};
        for (int i = 0; i < 32; ++i) {
            in64[i] = INT64_MAX - i;
            d64[i] = 3 * i;
            want64[i] = (int64_t)((uint64_t)in64[i] * 2u + (uint64_t)d64[i]);   /* wraps */
        }
        CHECK_RC(opf_reduce_local_n(late64, 3, d64, 32, OPF_INT64_T, OPF_SUM), OPF_SUCCESS);
        CHECK(memcmp(d64, want64, sizeof want64) == 0, "devfail n-ary SUM INT64 (dst = srcs[2]) differs");
        CHECK(calls("devfail") == 4, "the n-ary SUM INT64 made %lld devfail calls, expected 1", calls("devfail") - 3);
        for (int i = 0; i < 32; ++i) {
            d64[i] = 3 * i;
            want64[i] = (int64_t)((uint64_t)in64[i] * 2u + (uint64_t)d64[i]);
        }
        CHECK_RC(opf_reduce_local_n_stream(late64, 3, d64, 32, OPF_INT64_T, OPF_SUM, kind, NULL), OPF_SUCCESS);
        CHECK(memcmp(d64, want64, sizeof want64) == 0, "devfail n-ary stream SUM INT64 (dst = srcs[2]) differs");
        CHECK(calls("devfail") == 5, "the n-ary stream SUM INT64 made %lld devfail calls", calls("devfail") - 4);
        set_param("op_devfail_fail", "true");   /* its failure reaches the caller, naming it */
        CHECK_RC(opf_reduce_local_n(late64, 3, d64, 32, OPF_INT64_T, OPF_SUM), OPF_ERR_INTERN);
        CONTAINS(opf_last_error(), "opf_reduce_local_n(op SUM, type INT64_T): component devfail failed: simulated");
        set_param("op_devfail_fail", "false");
    }

    /* Device kernels from a min_count (issue 37, item 1): below it the
     * synchronous calls are refused with the reason, nothing written (they
     * crashed, calling no kernel); from it they run. */
    set_param("op_devfail_min_count", "32");
    set_param("op_devfail_fail", "false");
    CHECK_RC(start(dir), OPF_SUCCESS);
    for (int i = 0; i < 64; ++i) device[i] = i, in[i] = 1;
    CHECK_RC(opf_reduce_local(in, device, 10, OPF_INT32_T, OPF_SUM), OPF_ERR_BUFFER);
    CONTAINS(opf_last_error(), "whose kernels for this op start at 32 elements (this call has 10)");
    CHECK_RC(opf_reduce_local3(in, device, device, 10, OPF_INT32_T, OPF_SUM), OPF_ERR_BUFFER);
    CONTAINS(opf_last_error(), "start at 32 elements");
    {
        const void *srcs3[3] = {device, in, in};
        CHECK_RC(opf_reduce_local_n(srcs3, 3, device, 10, OPF_INT32_T, OPF_SUM), OPF_ERR_BUFFER);
        CONTAINS(opf_last_error(), "start at 32 elements");
    }
    CHECK(device[0] == 0 && device[9] == 9, "a refused call below min_count wrote device memory");
    CHECK_RC(opf_reduce_local(in, device, 40, OPF_INT32_T, OPF_SUM), OPF_SUCCESS);
    CHECK(device[0] == 1 && device[39] == 40 && device[40] == 40, "SUM INT32 from min_count: [0] %d, [39] %d",
          device[0], device[39]);
    set_param("op_devfail_min_count", NULL);
    set_param("op_devfail_fail", NULL);

    /* Without the component the kind is gone and the host path never asks. */
    set_param("op", "alpha");
    CHECK_RC(start(dir), OPF_SUCCESS);
    CHECK(opf_memory_kind_count() == 1, "op=alpha: %d memory kinds", opf_memory_kind_count());
    CHECK_RC(opf_reduce_local(in, device, 64, OPF_INT32_T, OPF_SUM), OPF_SUCCESS);
    opf_finalize();
    munmap(device, 64 * sizeof(int32_t));
}

/* ---- 11. hostile component files and paths (issue 12, items 10, 12, 13, 15) ------------
 * test/components.sh builds, for "hardening":
 *   OPF_TEST_DIR_HOSTILE   nonul (init_query reason without NUL), junk.la (garbage
 *                          .la), loop.so (symlink to itself), dangle.so (dangling
 *                          link), foreign.so and foreign32.so (ELF headers of
 *                          another machine / class), alpha
 *   OPF_TEST_DIR_MOVED     alpha as installed (opf_op_alpha.la, installed=yes, libdir
 *                          OPF_TEST_DIR_OLDPREFIX) and its .so, copied elsewhere
 *   OPF_TEST_DIR_OLDPREFIX the prefix that .la names, holding another opf_op_alpha.so
 *   OPF_TEST_DIR_GOODLINK  a symbolic link to OPF_TEST_DIR_GOOD */

static void expect_status(const char *name, const char *status)
{
    opf_component_info_t info;
    const int i = find_component(name, &info);
    CHECK(i >= 0 && strcmp(info.status, status) == 0, "%s: status \"%s\", expected \"%s\"", name,
          i >= 0 ? info.status : "(not listed)", status);
}

static void test_hardening(void)
{
    const char *hostile = dir_of("OPF_TEST_DIR_HOSTILE"), *moved = dir_of("OPF_TEST_DIR_MOVED");
    const char *oldprefix = dir_of("OPF_TEST_DIR_OLDPREFIX"), *good = dir_of("OPF_TEST_DIR_GOOD");
    const char *goodlink = dir_of("OPF_TEST_DIR_GOODLINK");
    opf_component_info_t info;
    opf_failed_info_t f;
    char expected[4096];
    reset_params();

    /* Item 10: the reason is cut to the buffer's 255 bytes and a NUL, not read past it. */
    capture_begin();
    CHECK_RC(start(hostile), OPF_SUCCESS);
    capture_end();
    {
        char status[300] = "disqualified: ";
        memset(status + strlen(status), 'x', 255);
        status[sizeof "disqualified: " - 1 + 255] = '\0';
        expect_status("nonul", status);
    }
    expect_status("alpha", "available");

    /* Item 12: each file that does not load says what it is, under its own name. */
    expect_failed("opf_op_junk.la", "not a libtool library file", "starts with \"this is no libtool file\"");
    CHECK(find_failed("/opf_op_junk.so", &f) < 0, "the garbage .la is listed under a .so name");
    expect_failed("opf_op_loop.so", "symbolic link loop", NULL);
    expect_failed("opf_op_dangle.so", "dangling symbolic link", "nowhere.so");
    expect_failed("opf_op_foreign.so", "built for another machine", "ELF 64-bit");
    expect_failed("opf_op_foreign32.so", "ELF 32-bit", NULL);
    for (int i = 0; i < opf_failed_count(); ++i)
        if (opf_failed_describe(i, &f) == OPF_SUCCESS)
            CHECK(strstr(f.reason, "file not found") == NULL && strstr(f.reason, "unknown libltdl error") == NULL &&
                      strstr(f.reason, "No such file or directory") == NULL,
                  "%s: a reason that says nothing: \"%s\"", f.path, f.reason);

    /* Item 13: an installed .la copied elsewhere loads the .so beside it, not
     * the one in the libdir it names. */
    CHECK_RC(start(moved), OPF_SUCCESS);
    snprintf(expected, sizeof expected, "%s/opf_op_alpha.so", moved);
    CHECK(find_component("alpha", &info) >= 0 && strcmp(info.path, expected) == 0,
          "alpha from the moved tree: loaded from %s, expected %s (not %s)",
          find_component("alpha", &info) >= 0 ? info.path : "(not listed)", expected, oldprefix);
    expect_status("alpha", "available");
    CHECK(opf_failed_count() == 0, "moved tree: %d failed files", opf_failed_count());

    /* Item 15: one directory named 10,000 times (and once more through a link)
     * is searched once: no self-duplicates. */
    {
        const size_t one = strlen(good) + 1, n = 10000;
        char *path = malloc(one * n + strlen(goodlink) + 1);
        char *at = path;
        for (size_t i = 0; i < n; ++i) at += sprintf(at, "%s:", good);
        strcpy(at, goodlink);
        CHECK_RC(start(path), OPF_SUCCESS);
        CHECK(opf_component_count() == 2 && opf_failed_count() == 0,
              "a directory named 10001 times: %d components, %d failed files (expected 2, 0)", opf_component_count(),
              opf_failed_count());
        free(path);
    }
    set_param("mca_component_path", NULL);
}

/* ---- main ---------------------------------------------------------------------------- */

static void clear_environment(void)
{
    char names[64][128];
    int n = 0;
    for (char **e = environ; *e && n < 64; ++e)
        if (strncmp(*e, "OPF_MCA_", 8) == 0) {
            const size_t len = strcspn(*e, "=");
            snprintf(names[n++], sizeof names[0], "%.*s", (int)len, *e);
        }
    for (int i = 0; i < n; ++i) unsetenv(names[i]);
    setenv("OPF_MCA_PARAM_FILE_USER", "", 1);
    setenv("OPF_MCA_PARAM_FILE_SYSTEM", "", 1);
}

/* ---- 10. one selection: n-ary calls, late parameters, pins that cannot apply ---- */

/* opf_reduce_local_n SUM INT32 of 3 sources, `count` elements: the result is
 * checked, and the calls alpha and narya counted are returned. */
static void sum_int_n(opf_count_t count, long long *alpha_calls, long long *narya_calls)
{
    enum { K = 3 };
    int32_t src[K][64], dst[64];
    const void *srcs[K] = {src[0], src[1], src[2]};
    for (int j = 0; j < K; ++j)
        for (int i = 0; i < 64; ++i) src[j][i] = (int32_t)(i * (j + 3) - j);
    const long long a0 = calls("alpha"), n0 = calls("narya");
    CHECK_RC(opf_reduce_local_n(srcs, K, dst, count, OPF_INT, OPF_SUM), OPF_SUCCESS);
    for (opf_count_t i = 0; i < count; ++i)
        CHECK(dst[i] == (int32_t)(i * 3 + i * 4 - 1 + i * 5 - 2), "n-ary SUM element %lld is %d", (long long)i, dst[i]);
    *alpha_calls = calls("alpha") - a0;
    *narya_calls = calls("narya") - n0;
}

static void test_settings(void)
{
    const char *nary = dir_of("OPF_TEST_DIR_NARY");
    char text[512];
    long long a = 0, n = 0;
    reset_params();

    /* alpha (priority 50, no n-ary kernel) wins the 3-buffer slot: the n-ary
     * call composes alpha's 3-buffer kernel (k - 1 calls), never narya's
     * n-ary kernel (priority 40), and the listing says so. */
    CHECK_RC(start(nary), OPF_SUCCESS);
    EXPECT_SLOT(SUM, I32, "alpha", "alpha");
    sum_int_n(64, &a, &n);
    CHECK(a == 2 && n == 0, "n-ary under alpha: alpha %lld calls (expected 2), narya %lld (expected 0)", a, n);
    CHECK_RC(opf_slot_tiers_text_n(SUM, I32, OPF_FORM_N, text, (int)sizeof text), OPF_SUCCESS);
    CHECK(strcmp(text, "alpha(chain)") == 0, "n-ary tiers \"%s\", expected alpha(chain)", text);
    /* A higher priority moves both: narya's own n-ary kernel, once. */
    set_param("op_narya_priority", "60");
    CHECK_RC(start(nary), OPF_SUCCESS);
    sum_int_n(64, &a, &n);
    CHECK(a == 0 && n == 1, "n-ary under narya: alpha %lld calls (expected 0), narya %lld (expected 1)", a, n);
    /* A pin reaches the n-ary call as it reaches the 3-buffer one. */
    set_param("op_base_pin", "sum:int32_t=alpha");
    CHECK_RC(start(nary), OPF_SUCCESS);
    EXPECT_SLOT(SUM, I32, "alpha", "alpha");
    sum_int_n(64, &a, &n);
    CHECK(a == 2 && n == 0, "pinned to alpha: alpha %lld calls (expected 2), narya %lld (expected 0)", a, n);
    /* ... and a size-bounded pin from 32 elements (128 bytes) on: below it narya's n-ary, from it alpha's chain. */
    set_param("op_base_pin", "sum:int32_t@128-=alpha");
    CHECK_RC(start(nary), OPF_SUCCESS);
    CHECK_RC(opf_slot_tiers_text_n(SUM, I32, OPF_FORM_N, text, (int)sizeof text), OPF_SUCCESS);
    CHECK(strcmp(text, "narya<32,alpha(chain)@128->=32") == 0, "banded n-ary tiers \"%s\"", text);
    sum_int_n(16, &a, &n);
    CHECK(a == 0 && n == 1, "16 elements, band from 32: alpha %lld, narya %lld (expected 0, 1)", a, n);
    sum_int_n(64, &a, &n);
    CHECK(a == 2 && n == 0, "64 elements, band from 32: alpha %lld, narya %lld (expected 2, 0)", a, n);
    set_param("op_base_pin", NULL);
    set_param("op_narya_priority", NULL);

    /* A component's parameter set after opf_init applies at the next one and
     * reads back saying so; the selection stays until then. */
    CHECK_RC(start(nary), OPF_SUCCESS);
    set_param("op_narya_priority", "60");
    opf_param_info_t info;
    int found = 0;
    for (int i = 0; i < opf_param_count(); ++i)
        if (opf_param_describe(i, &info) == OPF_SUCCESS && strcmp(info.name, "op_narya_priority") == 0) {
            found = 1;
            CHECK(strstr(info.source, "applies at the next opf_init, in force until then: \"40\"") != NULL,
                  "op_narya_priority set after opf_init reads as source \"%s\"", info.source);
        }
    CHECK(found, "op_narya_priority is not listed");
    EXPECT_SLOT(SUM, I32, "alpha", "alpha");
    CHECK_RC(opf_init(), OPF_SUCCESS);   /* already initialised: nothing changes */
    EXPECT_SLOT(SUM, I32, "alpha", "alpha");
    CHECK_RC(start(nary), OPF_SUCCESS);
    EXPECT_SLOT(SUM, I32, "narya", "narya");
    set_param("op_narya_priority", NULL);

    /* Pins that cannot apply are said, with the reason. */
    set_param("op", "^narya");
    set_param("op_base_pin", "sum:int32_t=narya,max:int32_t@64-127=alpha,prod:int32_t=alpha");
    capture_begin();
    CHECK_RC(start(nary), OPF_SUCCESS);
    const char *err = capture_end();
    CONTAINS(err, "op_base_pin: the pin of SUM INT32 to \"narya\" does not apply: component narya is excluded by op=^narya");
    CONTAINS(err, "op_base_pin: the pin of PROD INT32 to \"alpha\" does not apply: alpha offers no host kernel for PROD INT32");
    LACKS(err, "MAX INT32 bytes 64-127");   /* alpha serves MAX INT32 at every count: this one applies */
    set_param("op_alpha_min_count", "100");
    set_param("op_base_pin", "max:int32_t@64-127=alpha");
    capture_begin();
    CHECK_RC(start(nary), OPF_SUCCESS);
    err = capture_end();
    CONTAINS(err, "op_base_pin: the pin of MAX INT32 bytes 64-127 to \"alpha\" does not apply: alpha serves counts >= 100 only");
    set_param("op_alpha_min_count", NULL);
    set_param("op_base_pin", NULL);
    set_param("op", NULL);

    /* Unknown names: said once, with the closest declared name; after
     * opf_init opf_param_set refuses them with the same hint. */
    opf_finalize();   /* before opf_init any name is taken: it may be a component's */
    set_param("op_narya_prio", "60");
    set_param("op_base_verbos", "5");
    capture_begin();
    CHECK_RC(start(nary), OPF_SUCCESS);
    err = capture_end();
    CONTAINS(err, "ignoring unknown parameter op_narya_prio (opf_param_set): did you mean op_narya_priority?");
    CONTAINS(err, "ignoring unknown parameter op_base_verbos (opf_param_set): did you mean op_base_verbose?");
    CHECK_RC(opf_param_set("op_alpha_priorty", "1"), OPF_ERR_ARG);
    CONTAINS(opf_last_error(), "unknown parameter \"op_alpha_priorty\" (did you mean op_alpha_priority?)");
    opf_finalize();
    set_param("op_narya_prio", NULL);
    set_param("op_base_verbos", NULL);
    reset_params();
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
        int in_all;
    } sections[] = {
        {"lists", test_lists, 1},       {"priorities", test_priorities, 1}, {"pins", test_pins, 1},
        {"selftest", test_selftest, 1}, {"tiers", test_tiers, 1},           {"broken", test_broken, 1},
        {"cycles", test_cycles, 1},     {"device", test_device, 1},         {"example", test_example, 0},
        {"hardening", test_hardening, 0}, {"settings", test_settings, 1},
    };
    const int n_sections = (int)(sizeof sections / sizeof sections[0]);
    clear_environment();
    const int fd = mkstemp(capture_path);
    if (fd < 0) {
        perror("mkstemp");
        return 2;
    }
    close(fd);
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *name = "component_system";
    for (int a = argc > 1 ? 1 : 0; a < (argc > 1 ? argc : 1); ++a) {
        const char *want = argc > 1 ? argv[a] : "all";
        int found = 0;
        for (int s = 0; s < n_sections; ++s)
            if (strcmp(want, sections[s].name) == 0 || (strcmp(want, "all") == 0 && sections[s].in_all)) {
                const int before = check_failures_;
                sections[s].run();
                printf("component_system: %s: %s\n", sections[s].name, check_failures_ == before ? "ok" : "FAILED");
                found = 1;
            }
        if (!found) {
            fprintf(stderr, "usage: component_system [lists|priorities|pins|selftest|tiers|broken|cycles|device|example|"
                            "hardening|settings|all]...\n");
            unlink(capture_path);
            return 2;
        }
    }
    opf_finalize();
    unlink(capture_path);
    return check_summary(name);
}
