/* inline_calls.c — opframe.h's inline opf_reduce_local / opf_reduce_local3
 * against the library's entry points, called by name in parentheses:
 *   - the same return code, the same bytes written (guards included) and the
 *     same opf_last_error() text on every case: success, count 0, negative
 *     and overflowing counts, NULL and misaligned buffers, invalid ops and
 *     types, an op undefined on the type, a user op, a derived type, before
 *     opf_init and after opf_finalize;
 *   - the table the inline calls read: each row of a predefined op on a
 *     basic type holds, for counts 1 .. limit, the very kernel the
 *     selection reports for that count (opf_slot_provider, opf_slot_kernels),
 *     so that the inline call runs what the entry point would; every
 *     (op, predefined type) the library takes has its rows open, whatever
 *     the type's id; the v3 rows (for programs built against earlier
 *     headers) are the same rows;
 *   - with a claiming memory kind loaded (OPF_TEST_EXPECT_CLAIMS=1, set by
 *     test/cuda_conformance_cpu.sh with the CUDA stand-in), the host window
 *     is in force and holds static, stack and brk-heap buffers but not an
 *     mmap'd one (which the entry point asks the claim hooks about); without
 *     one the window lets every buffer through. */
#define _DEFAULT_SOURCE 1   /* MAP_ANONYMOUS */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <opframe/device.h>
#include <opframe/introspect.h>
#include <opframe/kernel.h>
#include "check.h"

#ifndef OPF_INLINE_CALLS
#error "opframe.h gives C99 with GCC or Clang inline calls"
#endif

enum { N = 40, GUARD = 16 };
typedef unsigned char byte;

/* One case: both calls on identical copies of the buffers. */
struct call {
    const char *what;
    opf_op_t op;
    opf_datatype_t type;
    opf_count_t count;
    int offset;        /* bytes past the buffers' 64-byte alignment */
    int null_in;       /* pass NULL for in / in1 */
};

/* The rows of (op id, type id) in the table the inline calls read. */
#define ROW2(op, id) (&opf_call_table_v4_.rows2[(id) * OPF_CALL_ROWS_PER_TYPE_ + (op)])
#define ROW3(op, id) (&opf_call_table_v4_.rows3[(id) * OPF_CALL_ROWS_PER_TYPE_ + (op)])
/* The v3 layout, which the library still exports: [op id - 1][type id], ids below 64. */
extern const struct opf_call_row2_v3_ *const opf_call_rows2_v3_;
extern const struct opf_call_row3_v3_ *const opf_call_rows3_v3_;

#define BUFFER(name) static byte name[N * 16 + 2 * GUARD] __attribute__((aligned(64)))
BUFFER(in_a); BUFFER(io_a); BUFFER(out_a);
BUFFER(in_b); BUFFER(io_b); BUFFER(out_b);

static void fill(byte *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; ++i) p[i] = (byte)(seed * 131u + i * 29u + (i >> 3));
}

static void user_fn(void *in, void *inout, int *len, opf_datatype_t *type)
{
    (void)type;
    for (int i = 0; i < *len; ++i) ((unsigned *)inout)[i] += 3u * ((unsigned *)in)[i];   /* wrapping */
}

/* Runs `c` 2- and 3-buffer, inline and through the entry point; compares. */
static void compare(const struct call *c)
{
    for (int three = 0; three <= 1; ++three) {
        char err_a[OPF_MAX_ERROR_STRING], err_b[OPF_MAX_ERROR_STRING];
        int rc_a, rc_b;
        fill(in_a, sizeof in_a, 1), fill(io_a, sizeof io_a, 2), fill(out_a, sizeof out_a, 3);
        memcpy(in_b, in_a, sizeof in_a), memcpy(io_b, io_a, sizeof io_a), memcpy(out_b, out_a, sizeof out_a);
        const void *ia = c->null_in ? NULL : in_a + c->offset, *ib = c->null_in ? NULL : in_b + c->offset;
        opf_reduce_local(NULL, NULL, -1, OPF_FLOAT, OPF_SUM);   /* leaves a known previous error */
        if (three) rc_a = opf_reduce_local3(ia, io_a + c->offset, out_a + c->offset, c->count, c->type, c->op);
        else rc_a = opf_reduce_local(ia, io_a + c->offset, c->count, c->type, c->op);
        snprintf(err_a, sizeof err_a, "%s", opf_last_error());
        (opf_reduce_local)(NULL, NULL, -1, OPF_FLOAT, OPF_SUM);
        if (three) rc_b = (opf_reduce_local3)(ib, io_b + c->offset, out_b + c->offset, c->count, c->type, c->op);
        else rc_b = (opf_reduce_local)(ib, io_b + c->offset, c->count, c->type, c->op);
        snprintf(err_b, sizeof err_b, "%s", opf_last_error());
        CHECK(rc_a == rc_b, "%s, %d-buffer: inline %d, entry point %d", c->what, three + 2, rc_a, rc_b);
        CHECK(!strcmp(err_a, err_b), "%s, %d-buffer: inline says \"%s\", entry point \"%s\"", c->what, three + 2,
              err_a, err_b);
        CHECK(!memcmp(in_a, in_b, sizeof in_a) && !memcmp(io_a, io_b, sizeof io_a) &&
                  !memcmp(out_a, out_b, sizeof out_a),
              "%s, %d-buffer: the inline call wrote other bytes than the entry point", c->what, three + 2);
    }
}

/* The host window: in force exactly where a claim hook is loaded; it holds
 * the program's static data, the main thread's stack and small heap
 * memory, not an mmap'd buffer (those ask the hooks). */
static float static_buffer[16];
static void check_window(int expect_claims)
{
    const struct opf_host_ranges_v3_ *w = ROW2(OPF_OPID_SUM, OPF_TYPEID_FLOAT)->window;
    float on_stack[16];
    /* from the brk heap itself: a sanitizer's malloc maps its own memory */
    void *brk_block = sbrk(16 * sizeof(float) + 64);
    float *heap = brk_block == (void *)-1 ? NULL : (float *)(((uintptr_t)brk_block + 63) & ~(uintptr_t)63);
    void *mapped = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(heap && mapped != MAP_FAILED, "buffers for the window check");
    CHECK(!w == !expect_claims, "the host window is %s with%s a claim hook loaded", w ? "in force" : "off",
          expect_claims ? "" : "out");
    if (expect_claims) {
        CHECK(opf_in_host_window_(w, (uintptr_t)static_buffer), "a static buffer is outside the host window");
        CHECK(opf_in_host_window_(w, (uintptr_t)on_stack), "a stack buffer of the main thread is outside the host window");
        CHECK(opf_in_host_window_(w, (uintptr_t)heap), "a block of the brk heap is outside the host window");
        CHECK(opf_in_host_window_(w, (uintptr_t)(void *)&check_window), "the program's code is outside the host window");
        CHECK(!opf_in_host_window_(w, (uintptr_t)mapped), "an mmap'd buffer is inside the host window");
        /* the inline call on it goes to the entry point, which asks the hooks: the same result; where the
         * claiming component counts its driver's mapping calls (the cuda stand-in does), the mapping is
         * remembered by its second unclaimed call, and the window holds it from then on */
        float *m = mapped;
        m[0] = 1, m[16] = 2;
        CHECK_RC(opf_reduce_local(m, m + 16, 1, OPF_FLOAT, OPF_SUM), OPF_SUCCESS);
        CHECK(m[16] == 3, "SUM FLOAT on an mmap'd buffer with claim hooks: %g", m[16]);
        CHECK_RC(opf_reduce_local(m, m + 16, 1, OPF_FLOAT, OPF_SUM), OPF_SUCCESS);
        CHECK(m[16] == 4, "SUM FLOAT on an mmap'd buffer with claim hooks, again: %g", m[16]);
        CHECK(!w->moved == !opf_in_host_window_(w, (uintptr_t)(m + 1000)),
              "after two calls the mmap'd buffer's mapping is %sremembered, where the mapping count is %s",
              opf_in_host_window_(w, (uintptr_t)(m + 1000)) ? "" : "not ", w->moved ? "known" : "unknown");
    }
    munmap(mapped, 1 << 20);
}

/* One row (nbuf 2 or 3) against the selection: at counts around each tier
 * of the selection and of the row, the row's kernel is the selection's;
 * and the row's limit leaves the short path only where the selection has a
 * fourth tier (or the type's largest count, or a worker pool's threshold). */
static int check_row(int op, int id, int nbuf, opf_count_t limit, const opf_count_t split[2], void *const kernel[3])
{
    const opf_datatype_t type = (opf_datatype_t)(uintptr_t)id;
    const char *opn = opf_op_name((opf_op_t)(uintptr_t)op), *tn = opf_type_name(type);
    int kt = -1, valid = 0;
    opf_type_kernel_type(type, &kt);
    opf_op_valid_for_type((opf_op_t)(uintptr_t)op, type, &valid);
    CHECK(valid && kt >= 0, "row %s %s (%d-buffer) is open for an (op, type) the library refuses", opn, tn, nbuf);
    if (!valid || kt < 0) return 0;
    opf_slot_tier_t tiers[8];
    int ntiers = 0;
    CHECK_RC(opf_slot_tiers(op, kt, nbuf, tiers, 8, &ntiers), OPF_SUCCESS);
    if (ntiers > 3)
        CHECK(limit < tiers[3].min_count, "%s %s, %d-buffer: the row's limit %lld reaches the fourth tier (from %lld)",
              opn, tn, nbuf, (long long)limit, (long long)tiers[3].min_count);
    else   /* every tier of the selection takes the short path (issue 36: a third one left it) */
        CHECK(limit >= tiers[ntiers - 1].min_count, "%s %s, %d-buffer: the row stops at %lld, before the tier from "
              "%lld", opn, tn, nbuf, (long long)limit, (long long)tiers[ntiers - 1].min_count);
    opf_count_t counts[32] = { 1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 100, 1000, 4096, 65536, 1 << 20,
                               split[0] - 1, split[0], split[1] - 1, split[1], limit };
    int ncounts = 20;
    for (int t = 1; t < ntiers && t < 8 && ncounts + 2 <= 32; ++t) {
        counts[ncounts++] = tiers[t].min_count - 1;
        counts[ncounts++] = tiers[t].min_count;
    }
    for (int i = 0; i < ncounts; ++i) {
        const opf_count_t n = counts[i];
        if (n < 1 || n > limit) continue;
        const char *provider = opf_slot_provider(op, kt, nbuf, n);
        opf_kernel2_fn *fn2 = NULL;
        opf_kernel3_fn *fn3 = NULL;
        CHECK(provider && opf_slot_kernels(op, kt, provider, n, &fn2, &fn3) == OPF_SUCCESS,
              "no provider for %s %s at %lld", opn, tn, (long long)n);
        const int tier = n < split[0] ? 0 : n < split[1] ? 1 : 2;
        const void *want = nbuf == 2 ? (const void *)fn2 : (const void *)fn3;
        CHECK(kernel[tier] == want, "%s %s, %d-buffer, count %lld: the row's kernel is not %s's, which the selection "
              "names", opn, tn, nbuf, (long long)n, provider ? provider : "?");
    }
    return 1;
}

/* Each row of the table against the selection; every (op, predefined
 * type) the library takes has its rows open, ids from 64 on too (v3 had no
 * row there); each v3 row is its v4 row. */
static void check_rows(void)
{
    int rows = 0, high_ids = 0;
    CHECK(opf_call_table_v4_.types == OPF_TYPEID_COUNT_, "the table holds %lu type ids, the header knows %d",
          (unsigned long)opf_call_table_v4_.types, (int)OPF_TYPEID_COUNT_);
    for (int id = 1; id < OPF_TYPEID_COUNT_; ++id)
        for (int op = 1; op < OPF_OPID_COUNT; ++op) {
            const struct opf_call_row2_v3_ *r2 = ROW2(op, id);
            const struct opf_call_row3_v3_ *r3 = ROW3(op, id);
            const opf_count_t limit2 = __atomic_load_n(&r2->limit, __ATOMIC_ACQUIRE);
            const opf_count_t limit3 = __atomic_load_n(&r3->limit, __ATOMIC_ACQUIRE);
            void *k2[3] = { (void *)r2->kernel[0], (void *)r2->kernel[1], (void *)r2->kernel[2] };
            void *k3[3] = { (void *)r3->kernel[0], (void *)r3->kernel[1], (void *)r3->kernel[2] };
            if (limit2) rows += check_row(op, id, 2, limit2, r2->split, k2);
            if (limit3) rows += check_row(op, id, 3, limit3, r3->split, k3);
            const opf_datatype_t type = (opf_datatype_t)(uintptr_t)id;
            int kt = -1, valid = 0;
            opf_type_kernel_type(type, &kt);
            opf_op_valid_for_type((opf_op_t)(uintptr_t)op, type, &valid);
            if (valid && kt >= 0) {   /* the row the inline call finds, as it finds it */
                const int open2 = opf_call_row2_((opf_op_t)(uintptr_t)op, type, 1) == r2;
                const int open3 = opf_call_row3_((opf_op_t)(uintptr_t)op, type, 1) == r3;
                CHECK(open2 && open3, "%s %s: the inline call finds no %s row (type id %d)",
                      opf_op_name((opf_op_t)(uintptr_t)op), opf_type_name(type), open2 ? "3-buffer" : "2-buffer", id);
                high_ids += id >= 64 && open2 && open3;
            }
            if (id < 64) {
                const long v3 = (long)(op - 1) * 64 + id;
                CHECK(!memcmp(&opf_call_rows2_v3_[v3], r2, sizeof *r2) && !memcmp(&opf_call_rows3_v3_[v3], r3, sizeof *r3),
                      "%s %s: the v3 row is not the v4 row", opf_op_name((opf_op_t)(uintptr_t)op), opf_type_name(type));
            }
        }
    CHECK(rows > 200, "only %d rows open after opf_init", rows);
    CHECK(high_ids >= 10, "only %d (op, type) pairs of type ids from 64 on have their rows open", high_ids);
}

int main(void)
{
    const int expect_claims = getenv("OPF_TEST_EXPECT_CLAIMS") && !strcmp(getenv("OPF_TEST_EXPECT_CLAIMS"), "1");
    /* Before opf_init the rows are closed: the inline call initialises through the entry point. */
    CHECK(__atomic_load_n(&ROW2(OPF_OPID_SUM, OPF_TYPEID_FLOAT)->limit, __ATOMIC_ACQUIRE) == 0, "a row is open before opf_init");
    {
        float a[3] = { 1, 2, 3 }, b[3] = { 10, 20, 30 };
        CHECK_RC(opf_reduce_local(a, b, 3, OPF_FLOAT, OPF_SUM), OPF_SUCCESS);
        CHECK(b[0] == 11 && b[1] == 22 && b[2] == 33, "the first (lazily initialising) call computed %g %g %g",
              b[0], b[1], b[2]);
    }
    if (expect_claims) {
        int kind = 0;
        CHECK_RC(opf_memory_kind_lookup("cuda", &kind), OPF_SUCCESS);   /* the claiming component is there */
    }
    check_window(expect_claims);
    check_rows();

    opf_op_t user = OPF_OP_NULL;
    CHECK_RC(opf_op_create(user_fn, 1, &user), OPF_SUCCESS);
    opf_datatype_t vec = OPF_DATATYPE_NULL, uncommitted = OPF_DATATYPE_NULL;
    CHECK_RC(opf_type_vector(3, 1, 2, OPF_INT, &vec), OPF_SUCCESS);
    CHECK_RC(opf_type_commit(&vec), OPF_SUCCESS);
    CHECK_RC(opf_type_contiguous(2, OPF_INT, &uncommitted), OPF_SUCCESS);
    opf_op_t freed = OPF_OP_NULL;
    CHECK_RC(opf_op_create(user_fn, 1, &freed), OPF_SUCCESS);
    const opf_op_t freed_handle = freed;
    CHECK_RC(opf_op_free(&freed), OPF_SUCCESS);

    const struct call calls[] = {
        { "SUM FLOAT 40", OPF_SUM, OPF_FLOAT, N, 0, 0 },
        { "SUM FLOAT 1", OPF_SUM, OPF_FLOAT, 1, 0, 0 },
        { "MAX DOUBLE 40", OPF_MAX, OPF_DOUBLE, N, 0, 0 },
        { "BXOR UINT8 40, 1 byte off", OPF_BXOR, OPF_UINT8_T, N, 1, 0 },
        { "SUM FLOAT 40, 4 bytes off", OPF_SUM, OPF_FLOAT, N, 4, 0 },
        { "SUM DOUBLE 40, 4 bytes off (misaligned: the base)", OPF_SUM, OPF_DOUBLE, N, 4, 0 },
        { "MAXLOC FLOAT_INT 20", OPF_MAXLOC, OPF_FLOAT_INT, 20, 0, 0 },
        { "AVG FLOAT 40", OPF_AVG, OPF_FLOAT, N, 0, 0 },
        { "SUM FLOAT8_E4M3FNUZ 40 (type id 69)", OPF_SUM, OPF_FLOAT8_E4M3FNUZ, N, 0, 0 },
        { "MAX FLOAT8_E5M2FNUZ 40, 1 byte off", OPF_MAX, OPF_FLOAT8_E5M2FNUZ, N, 1, 0 },
        { "SUM MXFP8_E4M3 1 block", OPF_SUM, OPF_MXFP8_E4M3, 1, 0, 0 },
        { "SUM FLOAT count 0", OPF_SUM, OPF_FLOAT, 0, 0, 0 },
        { "SUM FLOAT count -1", OPF_SUM, OPF_FLOAT, -1, 0, 0 },
        { "SUM FLOAT count INT64_MAX", OPF_SUM, OPF_FLOAT, INT64_MAX, 0, 0 },
        { "SUM FLOAT NULL in", OPF_SUM, OPF_FLOAT, N, 0, 1 },
        { "SUM FLOAT NULL in, count 0", OPF_SUM, OPF_FLOAT, 0, 0, 1 },
        { "BAND FLOAT (undefined)", OPF_BAND, OPF_FLOAT, N, 0, 0 },
        { "OP_NULL", OPF_OP_NULL, OPF_FLOAT, N, 0, 0 },
        { "op 999", (opf_op_t)(uintptr_t)999, OPF_FLOAT, N, 0, 0 },
        { "DATATYPE_NULL", OPF_SUM, OPF_DATATYPE_NULL, N, 0, 0 },
        { "type id past the last", OPF_SUM, (opf_datatype_t)(uintptr_t)OPF_TYPEID_COUNT_, N, 0, 0 },
        { "user op on INT", user, OPF_INT, N, 0, 0 },
        { "freed op", freed_handle, OPF_INT, N, 0, 0 },
        { "SUM on a vector of INT", OPF_SUM, vec, 5, 0, 0 },
        { "SUM on an uncommitted type", OPF_SUM, uncommitted, 5, 0, 0 },
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; ++i) compare(&calls[i]);

    CHECK_RC(opf_op_free(&user), OPF_SUCCESS);
    CHECK_RC(opf_type_free(&vec), OPF_SUCCESS);
    CHECK_RC(opf_type_free(&uncommitted), OPF_SUCCESS);

    /* After opf_finalize the rows are closed again; a call initialises anew. */
    CHECK_RC(opf_finalize(), OPF_SUCCESS);
    CHECK(__atomic_load_n(&ROW2(OPF_OPID_SUM, OPF_TYPEID_FLOAT)->limit, __ATOMIC_ACQUIRE) == 0, "a row is still open after opf_finalize");
    {
        double a[2] = { 1, -0.0 }, b[2] = { 2, 0.0 };
        CHECK_RC(opf_reduce_local3(a, b, b, 2, OPF_DOUBLE, OPF_MIN), OPF_SUCCESS);
        uint64_t bits;
        memcpy(&bits, &b[1], sizeof bits);
        CHECK(b[0] == 1 && b[1] == 0 && bits >> 63 == 1, "MIN after re-initialisation: %g %g", b[0], b[1]);
    }
    opf_finalize();
    return check_summary("inline_calls");
}
