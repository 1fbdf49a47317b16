/* derived_types.c — MPI semantics of derived datatypes: sizes, extents and
 * true extents of every constructor, and reductions over non-contiguous
 * layouts that write only the type's bytes (holes stay byte-identical). */
#include "test/check.h"
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static opf_datatype_t commit(opf_datatype_t t)
{
    CHECK_RC(opf_type_commit(&t), OPF_SUCCESS);
    return t;
}

static void free_type(opf_datatype_t *t)
{
    CHECK_RC(opf_type_free(t), OPF_SUCCESS);
    CHECK(*t == OPF_DATATYPE_NULL, "free did not reset the handle");
}

/* ---- sizes and extents -------------------------------------------------- */
static void check_layout(const char *what, opf_datatype_t t, opf_count_t size, opf_aint_t lb,
                         opf_aint_t extent, opf_aint_t true_lb, opf_aint_t true_extent)
{
    opf_count_t s = -1;
    opf_aint_t l = -1, e = -1, tl = -1, te = -1;
    CHECK_RC(opf_type_size(t, &s), OPF_SUCCESS);
    CHECK_RC(opf_type_get_extent(t, &l, &e), OPF_SUCCESS);
    CHECK_RC(opf_type_get_true_extent(t, &tl, &te), OPF_SUCCESS);
    CHECK(s == size, "%s: size %lld, expected %lld", what, (long long)s, (long long)size);
    CHECK(l == lb && e == extent, "%s: lb %lld extent %lld, expected %lld %lld", what, (long long)l,
          (long long)e, (long long)lb, (long long)extent);
    CHECK(tl == true_lb && te == true_extent, "%s: true lb %lld true extent %lld, expected %lld %lld", what,
          (long long)tl, (long long)te, (long long)true_lb, (long long)true_extent);
}

#define PAIR_LAYOUT(name, T1, T2) do { \
    struct p_ { T1 v; T2 i; }; \
    opf_aint_t sz_ = (opf_aint_t)(sizeof(T1) + sizeof(T2)); \
    check_layout(#name, OPF_##name, sz_, 0, (opf_aint_t)sizeof(struct p_), 0, \
                 (opf_aint_t)(offsetof(struct p_, i) + sizeof(T2))); \
} while (0)

static void test_predefined_layouts(void)
{
    check_layout("INT", OPF_INT, 4, 0, 4, 0, 4);
    check_layout("BYTE", OPF_BYTE, 1, 0, 1, 0, 1);
    check_layout("DOUBLE", OPF_DOUBLE, 8, 0, 8, 0, 8);
    check_layout("FLOAT16", OPF_FLOAT16, 2, 0, 2, 0, 2);
    check_layout("FLOAT8_E4M3", OPF_FLOAT8_E4M3, 1, 0, 1, 0, 1);
    check_layout("FLOAT8_E5M2", OPF_FLOAT8_E5M2, 1, 0, 1, 0, 1);
    check_layout("LOGICAL", OPF_LOGICAL, 4, 0, 4, 0, 4);
    check_layout("C_DOUBLE_COMPLEX", OPF_C_DOUBLE_COMPLEX, 16, 0, 16, 0, 16);
    check_layout("LONG_DOUBLE", OPF_LONG_DOUBLE, sizeof(long double), 0, sizeof(long double), 0,
                 sizeof(long double));
    check_layout("DOUBLE_INT", OPF_DOUBLE_INT, 12, 0, 16, 0, 12);
    PAIR_LAYOUT(FLOAT_INT, float, int);
    PAIR_LAYOUT(DOUBLE_INT, double, int);
    PAIR_LAYOUT(LONG_INT, long, int);
    PAIR_LAYOUT(2INT, int, int);
    PAIR_LAYOUT(SHORT_INT, short, int);
    PAIR_LAYOUT(LONG_DOUBLE_INT, long double, int);
    PAIR_LAYOUT(2REAL, float, float);
    PAIR_LAYOUT(2DOUBLE_PRECISION, double, double);
    PAIR_LAYOUT(2INTEGER, int, int);
}

static void test_derived_layouts(void)
{
    opf_datatype_t t;

    /* size and extent may be asked of an uncommitted type (MPI) */
    CHECK_RC(opf_type_contiguous(3, OPF_INT, &t), OPF_SUCCESS);
    check_layout("contiguous(3, INT) uncommitted", t, 12, 0, 12, 0, 12);
    t = commit(t);
    check_layout("contiguous(3, INT)", t, 12, 0, 12, 0, 12);
    free_type(&t);

    CHECK_RC(opf_type_contiguous(2, OPF_DOUBLE_INT, &t), OPF_SUCCESS);
    t = commit(t);
    check_layout("contiguous(2, DOUBLE_INT)", t, 24, 0, 32, 0, 28);
    free_type(&t);

    CHECK_RC(opf_type_vector(3, 2, 4, OPF_FLOAT, &t), OPF_SUCCESS); /* floats 0,1 4,5 8,9 */
    t = commit(t);
    check_layout("vector(3, 2, 4, FLOAT)", t, 24, 0, 40, 0, 40);
    free_type(&t);

    CHECK_RC(opf_type_create_hvector(3, 2, 20, OPF_FLOAT, &t), OPF_SUCCESS); /* bytes 0-7 20-27 40-47 */
    t = commit(t);
    check_layout("hvector(3, 2, 20B, FLOAT)", t, 24, 0, 48, 0, 48);
    free_type(&t);

    const int ibl[2] = { 2, 1 }, idisp[2] = { 3, 1 };                 /* ints 3,4 and 1 */
    CHECK_RC(opf_type_indexed(2, ibl, idisp, OPF_INT, &t), OPF_SUCCESS);
    t = commit(t);
    check_layout("indexed({2,1}, {3,1}, INT)", t, 12, 4, 16, 4, 16);
    free_type(&t);

    const int hbl[2] = { 1, 1 };
    const opf_aint_t hdisp[2] = { 24, 8 };                            /* doubles at 24 and 8 */
    CHECK_RC(opf_type_create_hindexed(2, hbl, hdisp, OPF_DOUBLE, &t), OPF_SUCCESS);
    t = commit(t);
    check_layout("hindexed({1,1}, {24B,8B}, DOUBLE)", t, 16, 8, 24, 8, 24);
    free_type(&t);

    /* struct: extent rounded up to the largest member alignment */
    const int sbl[2] = { 1, 1 };
    const opf_aint_t sd_di[2] = { 0, 8 };
    opf_datatype_t st_di[2] = { OPF_DOUBLE, OPF_INT };
    CHECK_RC(opf_type_create_struct(2, sbl, sd_di, st_di, &t), OPF_SUCCESS);
    t = commit(t);
    check_layout("struct{DOUBLE@0, INT@8}", t, 12, 0, 16, 0, 12);
    free_type(&t);

    const opf_aint_t sd_ic[2] = { 0, 4 };
    opf_datatype_t st_ic[2] = { OPF_INT, OPF_CHAR };
    CHECK_RC(opf_type_create_struct(2, sbl, sd_ic, st_ic, &t), OPF_SUCCESS);
    t = commit(t);
    check_layout("struct{INT@0, CHAR@4}", t, 5, 0, 8, 0, 5);
    free_type(&t);

    const opf_aint_t sd_ii[2] = { 4, 12 };
    opf_datatype_t st_ii[2] = { OPF_INT, OPF_INT };
    CHECK_RC(opf_type_create_struct(2, sbl, sd_ii, st_ii, &t), OPF_SUCCESS);
    t = commit(t);
    check_layout("struct{INT@4, INT@12}", t, 8, 4, 12, 4, 12);
    free_type(&t);

    const int sbl3[1] = { 3 };
    const opf_aint_t sd_c[1] = { 0 };
    opf_datatype_t st_c[1] = { OPF_CHAR };
    CHECK_RC(opf_type_create_struct(1, sbl3, sd_c, st_c, &t), OPF_SUCCESS);
    t = commit(t);
    check_layout("struct{3 CHAR}", t, 3, 0, 3, 0, 3);
    free_type(&t);

    /* resized: lb and extent exactly as given; true extent unchanged */
    CHECK_RC(opf_type_create_resized(OPF_INT, -4, 16, &t), OPF_SUCCESS);
    t = commit(t);
    check_layout("resized(INT, -4, 16)", t, 4, -4, 16, 0, 4);
    free_type(&t);

    /* a struct of resized members gets no epsilon */
    opf_datatype_t r;
    CHECK_RC(opf_type_create_resized(OPF_DOUBLE, 0, 10, &r), OPF_SUCCESS);
    check_layout("resized(DOUBLE, 0, 10)", r, 8, 0, 10, 0, 8);
    const opf_aint_t sd_rr[2] = { 0, 10 };
    opf_datatype_t st_rr[2] = { r, r };
    CHECK_RC(opf_type_create_struct(2, sbl, sd_rr, st_rr, &t), OPF_SUCCESS);
    t = commit(t);
    check_layout("struct{resized@0, resized@10}", t, 16, 0, 20, 0, 18);
    free_type(&t);
    const int one[1] = { 1 };
    CHECK_RC(opf_type_create_struct(1, one, sd_c, &r, &t), OPF_SUCCESS);
    t = commit(t);
    check_layout("struct{resized(DOUBLE, 0, 10)}", t, 8, 0, 10, 0, 8);
    free_type(&t);
    free_type(&r);

    /* dup: same layout as the original, of a derived and of a predefined type */
    opf_datatype_t v, d;
    CHECK_RC(opf_type_vector(2, 1, 3, OPF_DOUBLE, &v), OPF_SUCCESS);
    v = commit(v);
    CHECK_RC(opf_type_dup(v, &d), OPF_SUCCESS);
    CHECK(d != v, "dup returned the same handle");
    check_layout("vector(2, 1, 3, DOUBLE)", v, 16, 0, 32, 0, 32);
    check_layout("dup(vector(2, 1, 3, DOUBLE))", d, 16, 0, 32, 0, 32);
    free_type(&d);
    free_type(&v);
    CHECK_RC(opf_type_dup(OPF_DOUBLE_INT, &d), OPF_SUCCESS);
    check_layout("dup(DOUBLE_INT)", d, 12, 0, 16, 0, 12);
    free_type(&d);

    /* count 0 constructors: an empty type */
    CHECK_RC(opf_type_contiguous(0, OPF_INT, &t), OPF_SUCCESS);
    t = commit(t);
    check_layout("contiguous(0, INT)", t, 0, 0, 0, 0, 0);
    free_type(&t);
}

/* ---- reductions over 4-byte elements with holes -------------------------
 * A layout is given as the word offsets (4-byte units) one item touches,
 * and the item stride (the extent) in words. Everything else is a hole. */
typedef struct {
    const int *offs;
    int noffs;
    int stride;
    int is_float;
} layout4;

static float getf(const uint32_t *w, int k) { float f; memcpy(&f, &w[k], 4); return f; }
static void setf(uint32_t *w, int k, float f) { memcpy(&w[k], &f, 4); }

/* the expected "left op right" on one word */
static uint32_t sum_word(const layout4 *L, uint32_t a, uint32_t b)
{
    if (!L->is_float) return (uint32_t)((int32_t)a + (int32_t)b);
    uint32_t w[3] = { a, b, 0 };
    setf(w, 2, getf(w, 0) + getf(w, 1));
    return w[2];
}

/* the user op's view of the layout (set before each user-op reduction) */
static const layout4 *cur_layout;
static opf_datatype_t seen_type;
static long long seen_len;
static void *seen_in, *seen_inout;
static int seen_calls;

static void user_sum(void *in, void *inout, int *len, opf_datatype_t *dt)
{
    const uint32_t *a = in;
    uint32_t *b = inout;
    ++seen_calls;
    seen_type = *dt;
    seen_len = *len;
    seen_in = in;
    seen_inout = inout;
    for (int it = 0; it < *len; ++it)
        for (int j = 0; j < cur_layout->noffs; ++j) {
            int k = it * cur_layout->stride + cur_layout->offs[j];
            b[k] = sum_word(cur_layout, a[k], b[k]);
        }
}

static void user_sum_c(void *in, void *inout, opf_count_t *len, opf_datatype_t *dt)
{
    int n = (int)*len;
    user_sum(in, inout, &n, dt);
    seen_len = *len;
}

static void fill_words(uint32_t *w, int n, const layout4 *L, int seed)
{
    for (int k = 0; k < n; ++k) {
        if (L->is_float) setf(w, k, (float)(seed + 3 * k));
        else w[k] = (uint32_t)(seed * 1000 + 7 * k);
    }
}

/* Runs `op` (SUM or a user op computing SUM) over `count` items of t in the
 * 2-buffer form and the 3-buffer form (separate out, out == in1, out == in2),
 * and checks data words and holes. */
static void check_sum4(const char *what, opf_datatype_t t, opf_op_t op, int count, const layout4 *L)
{
    int n = count * L->stride + 3;   /* a tail after the last item */
    uint32_t *in = malloc(n * 4), *io = malloc(n * 4), *io0 = malloc(n * 4), *in0 = malloc(n * 4);
    uint32_t *out = malloc(n * 4), *exp_io = malloc(n * 4), *exp_out = malloc(n * 4);
    char *mask = calloc(n, 1);
    for (int it = 0; it < count; ++it)
        for (int j = 0; j < L->noffs; ++j) mask[it * L->stride + L->offs[j]] = 1;

    fill_words(in0, n, L, 1);
    fill_words(io0, n, L, 100);
    for (int k = 0; k < n; ++k) {
        exp_io[k] = mask[k] ? sum_word(L, in0[k], io0[k]) : io0[k];
        exp_out[k] = mask[k] ? exp_io[k] : 0xA5A5A5A5u;
    }
    int user = op != OPF_SUM;
    cur_layout = L;

    /* 2-buffer */
    memcpy(in, in0, n * 4);
    memcpy(io, io0, n * 4);
    seen_calls = 0;
    CHECK_RC(opf_reduce_local(in, io, count, t, op), OPF_SUCCESS);
    CHECK(!memcmp(in, in0, n * 4), "%s: inbuf changed", what);
    for (int k = 0; k < n; ++k)
        CHECK(io[k] == exp_io[k], "%s: 2-buffer word %d (%s) is %08x, expected %08x", what, k,
              mask[k] ? "data" : "hole", io[k], exp_io[k]);
    if (user) {
        CHECK(seen_calls == 1 && seen_type == t && seen_len == count && seen_in == in && seen_inout == io,
              "%s: user op saw calls %d type %p len %lld in %p inout %p", what, seen_calls, (void *)seen_type,
              seen_len, seen_in, seen_inout);
    }

    /* 3-buffer into a separate out prefilled with a sentinel */
    memcpy(io, io0, n * 4);
    for (int k = 0; k < n; ++k) out[k] = 0xA5A5A5A5u;
    seen_calls = 0;
    CHECK_RC(opf_reduce_local3(in, io, out, count, t, op), OPF_SUCCESS);
    CHECK(!memcmp(in, in0, n * 4) && !memcmp(io, io0, n * 4), "%s: 3-buffer changed an input", what);
    for (int k = 0; k < n; ++k)
        CHECK(out[k] == exp_out[k], "%s: 3-buffer out word %d (%s) is %08x, expected %08x", what, k,
              mask[k] ? "data" : "hole", out[k], exp_out[k]);
    if (user) {
        CHECK(seen_calls == 1 && seen_type == t && seen_len == count && seen_in == in && seen_inout == out,
              "%s: 3-buffer user op saw calls %d len %lld in %p inout %p", what, seen_calls, seen_len,
              seen_in, seen_inout);
    }

    /* 3-buffer with out == in2: same as the 2-buffer form */
    memcpy(io, io0, n * 4);
    CHECK_RC(opf_reduce_local3(in, io, io, count, t, op), OPF_SUCCESS);
    CHECK(!memcmp(io, exp_io, n * 4), "%s: 3-buffer with out == in2 wrong", what);
    /* out == in1: the sum lands in in1, holes of in1 kept (SUM commutes) */
    memcpy(io, io0, n * 4);
    memcpy(out, in0, n * 4);
    for (int k = 0; k < n; ++k) exp_out[k] = mask[k] ? exp_io[k] : in0[k];
    CHECK_RC(opf_reduce_local3(out, io, out, count, t, op), OPF_SUCCESS);
    CHECK(!memcmp(out, exp_out, n * 4) && !memcmp(io, io0, n * 4), "%s: 3-buffer with out == in1 wrong", what);

    free(in); free(io); free(io0); free(in0); free(out); free(exp_io); free(exp_out); free(mask);
}

/* Byte-level check of REPLACE / NO_OP over a layout given as a byte mask of
 * one item (extent bytes long): only data bytes may be written. */
static void check_copy_op(const char *what, opf_datatype_t t, opf_op_t op, int count, const char *item_mask,
                          int extent)
{
    /* size_t: a count * extent the compiler cannot bound would be a
     * negative int to memcpy (GCC 16 warns) */
    const size_t data = (size_t)count * (size_t)extent, n = data + 5;
    unsigned char *a = malloc(n), *b = malloc(n), *b0 = malloc(n), *o = malloc(n), *e = malloc(n);
    for (size_t k = 0; k < n; ++k) {
        a[k] = (unsigned char)(k * 3 + 1);
        b0[k] = (unsigned char)(k * 5 + 2);
    }
    int replace = op == OPF_REPLACE;
    /* 2-buffer: REPLACE copies in's data bytes; NO_OP changes nothing */
    memcpy(b, b0, n);
    for (size_t k = 0; k < n; ++k) e[k] = (replace && k < data && item_mask[k % extent]) ? a[k] : b0[k];
    CHECK_RC(opf_reduce_local(a, b, count, t, op), OPF_SUCCESS);
    CHECK(!memcmp(b, e, n), "%s: 2-buffer result wrong (holes or data)", what);
    /* 3-buffer: out = in1 (REPLACE) or in2 (NO_OP) on data bytes only */
    memcpy(b, b0, n);
    memset(o, 0x5A, n);
    for (size_t k = 0; k < n; ++k)
        e[k] = (k < data && item_mask[k % extent]) ? (replace ? a[k] : b0[k]) : 0x5A;
    CHECK_RC(opf_reduce_local3(a, b, o, count, t, op), OPF_SUCCESS);
    CHECK(!memcmp(o, e, n), "%s: 3-buffer result wrong (holes or data)", what);
    CHECK(!memcmp(b, b0, n), "%s: 3-buffer changed in2", what);
    free(a); free(b); free(b0); free(o); free(e);
}

static void test_sum_layouts(void)
{
    opf_datatype_t t, u;
    opf_op_t user, user_c;
    CHECK_RC(opf_op_create(user_sum, 1, &user), OPF_SUCCESS);
    CHECK_RC(opf_op_create_c(user_sum_c, 0, &user_c), OPF_SUCCESS);

    /* vector(3, 2, 4, FLOAT): floats 0,1 4,5 8,9; extent 10 floats */
    static const int vo[] = { 0, 1, 4, 5, 8, 9 };
    layout4 lv = { vo, 6, 10, 1 };
    CHECK_RC(opf_type_vector(3, 2, 4, OPF_FLOAT, &t), OPF_SUCCESS);
    t = commit(t);
    check_sum4("SUM vector(3,2,4,FLOAT) x3", t, OPF_SUM, 3, &lv);
    check_sum4("user op vector(3,2,4,FLOAT) x3", t, user, 3, &lv);
    check_sum4("user op (_c) vector(3,2,4,FLOAT) x2", t, user_c, 2, &lv);
    {
        char m[40] = { 0 };
        for (int j = 0; j < 6; ++j) memset(m + 4 * vo[j], 1, 4);
        check_copy_op("REPLACE vector(3,2,4,FLOAT) x3", t, OPF_REPLACE, 3, m, 40);
        check_copy_op("NO_OP vector(3,2,4,FLOAT) x3", t, OPF_NO_OP, 3, m, 40);
    }
    /* a derived type made from another stays usable after the other is freed */
    CHECK_RC(opf_type_contiguous(2, t, &u), OPF_SUCCESS);
    free_type(&t);
    u = commit(u);
    {
        static const int co[] = { 0, 1, 4, 5, 8, 9, 10, 11, 14, 15, 18, 19 };
        layout4 lc = { co, 12, 20, 1 };
        check_layout("contiguous(2, freed vector)", u, 48, 0, 80, 0, 80);
        check_sum4("SUM contiguous(2, freed vector) x2", u, OPF_SUM, 2, &lc);
    }
    free_type(&u);

    /* hvector(2, 3, 20 bytes, FLOAT): floats 0,1,2 5,6,7; extent 8 floats */
    static const int ho[] = { 0, 1, 2, 5, 6, 7 };
    layout4 lh = { ho, 6, 8, 1 };
    CHECK_RC(opf_type_create_hvector(2, 3, 20, OPF_FLOAT, &t), OPF_SUCCESS);
    t = commit(t);
    check_sum4("SUM hvector(2,3,20B,FLOAT) x3", t, OPF_SUM, 3, &lh);
    free_type(&t);

    /* indexed with blocks in non-increasing order: {2@7, 1@4, 3@0}; extent 9 */
    static const int xo[] = { 7, 8, 4, 0, 1, 2 };
    static const int xbl[3] = { 2, 1, 3 }, xd[3] = { 7, 4, 0 };
    layout4 lx = { xo, 6, 9, 1 };
    CHECK_RC(opf_type_indexed(3, xbl, xd, OPF_FLOAT, &t), OPF_SUCCESS);
    t = commit(t);
    check_layout("indexed({2,1,3}, {7,4,0}, FLOAT)", t, 24, 0, 36, 0, 36);
    check_sum4("SUM indexed(decreasing) x3", t, OPF_SUM, 3, &lx);
    check_sum4("user op indexed(decreasing) x2", t, user, 2, &lx);
    free_type(&t);

    /* hindexed {1@12B, 2@0B}: floats 3, 0,1; extent 4 floats */
    static const int hxo[] = { 3, 0, 1 };
    static const int hxbl[2] = { 1, 2 };
    static const opf_aint_t hxd[2] = { 12, 0 };
    layout4 lhx = { hxo, 3, 4, 1 };
    CHECK_RC(opf_type_create_hindexed(2, hxbl, hxd, OPF_FLOAT, &t), OPF_SUCCESS);
    t = commit(t);
    check_sum4("SUM hindexed x3", t, OPF_SUM, 3, &lhx);
    free_type(&t);

    /* resized to a larger extent: vector(2,1,2,FLOAT) = floats 0,2 (extent 3) -> extent 5 */
    static const int ro[] = { 0, 2 };
    layout4 lr = { ro, 2, 5, 1 };
    opf_datatype_t v;
    CHECK_RC(opf_type_vector(2, 1, 2, OPF_FLOAT, &v), OPF_SUCCESS);
    CHECK_RC(opf_type_create_resized(v, 0, 20, &t), OPF_SUCCESS);
    free_type(&v);
    t = commit(t);
    check_layout("resized(vector(2,1,2,FLOAT), 0, 20)", t, 8, 0, 20, 0, 12);
    check_sum4("SUM resized(vector, extent 20) x3", t, OPF_SUM, 3, &lr);
    check_sum4("user op resized(vector, extent 20) x3", t, user, 3, &lr);
    free_type(&t);

    /* struct {INT@0, INT32_T@8}: one kernel type, SUM valid; extent 12 */
    static const int so[] = { 0, 2 };
    layout4 ls = { so, 2, 3, 0 };
    static const int sbl[2] = { 1, 1 };
    static const opf_aint_t sd[2] = { 0, 8 };
    opf_datatype_t sty[2] = { OPF_INT, OPF_INT32_T };
    CHECK_RC(opf_type_create_struct(2, sbl, sd, sty, &t), OPF_SUCCESS);
    t = commit(t);
    check_layout("struct{INT@0, INT32_T@8}", t, 8, 0, 12, 0, 12);
    check_sum4("SUM struct{INT, INT32_T} x3", t, OPF_SUM, 3, &ls);
    free_type(&t);

    CHECK_RC(opf_op_free(&user), OPF_SUCCESS);
    CHECK_RC(opf_op_free(&user_c), OPF_SUCCESS);
}

/* struct {DOUBLE@0, INT@8}: mixed kernel types. SUM is OPF_ERR_OP and writes
 * nothing; REPLACE / NO_OP work and touch only the 12 data bytes. */
static void test_mixed_struct(void)
{
    static const int bl[2] = { 1, 1 };
    static const opf_aint_t d[2] = { 0, 8 };
    opf_datatype_t ty[2] = { OPF_DOUBLE, OPF_INT }, t;
    CHECK_RC(opf_type_create_struct(2, bl, d, ty, &t), OPF_SUCCESS);
    t = commit(t);

    unsigned char a[64], b[64], c[64], a0[64], b0[64], c0[64];
    for (int k = 0; k < 64; ++k) { a0[k] = (unsigned char)k; b0[k] = (unsigned char)(200 - k); c0[k] = 0x33; }
    static const opf_op_t bad[] = { OPF_SUM, OPF_PROD, OPF_MAX, OPF_BAND, OPF_MAXLOC };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        memcpy(a, a0, 64); memcpy(b, b0, 64); memcpy(c, c0, 64);
        CHECK_RC(opf_reduce_local(a, b, 3, t, bad[i]), OPF_ERR_OP);
        CHECK_RC(opf_reduce_local3(a, b, c, 3, t, bad[i]), OPF_ERR_OP);
        CHECK(!memcmp(a, a0, 64) && !memcmp(b, b0, 64) && !memcmp(c, c0, 64),
              "struct{DOUBLE, INT} with %s wrote to a buffer", opf_op_name(bad[i]));
        CHECK(strstr(opf_last_error(), opf_op_name(bad[i])) != NULL, "message does not name the op: \"%s\"",
              opf_last_error());
    }
    char m[16] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0 };
    check_copy_op("REPLACE struct{DOUBLE, INT} x3", t, OPF_REPLACE, 3, m, 16);
    check_copy_op("NO_OP struct{DOUBLE, INT} x3", t, OPF_NO_OP, 3, m, 16);
    free_type(&t);

    /* struct {INT, INT} is not a pair type: MAXLOC does not apply;
     * contiguous(2, INT) neither; struct {INT, FLOAT} has mixed kernels */
    opf_datatype_t ii[2] = { OPF_INT, OPF_INT }, fi[2] = { OPF_FLOAT, OPF_INT };
    static const opf_aint_t d4[2] = { 0, 4 };
    int x[8] = { 0 }, y[8] = { 0 };
    CHECK_RC(opf_type_contiguous(2, OPF_INT, &t), OPF_SUCCESS);
    t = commit(t);
    CHECK_RC(opf_reduce_local(x, y, 2, t, OPF_MAXLOC), OPF_ERR_OP);
    CHECK_RC(opf_reduce_local(x, y, 2, t, OPF_LAND), OPF_SUCCESS);
    free_type(&t);
    CHECK_RC(opf_type_create_struct(2, bl, d4, fi, &t), OPF_SUCCESS);
    t = commit(t);
    CHECK_RC(opf_reduce_local(x, y, 2, t, OPF_SUM), OPF_ERR_OP);
    CHECK_RC(opf_reduce_local(x, y, 2, t, OPF_REPLACE), OPF_SUCCESS);
    free_type(&t);
    CHECK_RC(opf_type_create_struct(2, bl, d4, ii, &t), OPF_SUCCESS);
    t = commit(t);
    CHECK_RC(opf_reduce_local(x, y, 2, t, OPF_BXOR), OPF_SUCCESS);
    free_type(&t);
    /* INT and UNSIGNED are different kernel types: mixed */
    opf_datatype_t iu[2] = { OPF_INT, OPF_UNSIGNED };
    CHECK_RC(opf_type_create_struct(2, bl, d4, iu, &t), OPF_SUCCESS);
    t = commit(t);
    CHECK_RC(opf_reduce_local(x, y, 2, t, OPF_SUM), OPF_ERR_OP);
    free_type(&t);
}

/* MAXLOC / MINLOC on contiguous(3, OPF_2INT) */
typedef struct { int v, i; } int2;

static int2 loc(int2 a, int2 b, int max)
{
    int2 r;
    int a_wins = max ? a.v > b.v : a.v < b.v;
    int b_wins = max ? a.v < b.v : a.v > b.v;
    r.v = a_wins ? a.v : b.v;
    r.i = a_wins ? a.i : b_wins ? b.i : (a.i < b.i ? a.i : b.i);
    return r;
}

static void test_maxloc(void)
{
    opf_datatype_t t;
    CHECK_RC(opf_type_contiguous(3, OPF_2INT, &t), OPF_SUCCESS);
    t = commit(t);
    check_layout("contiguous(3, 2INT)", t, 24, 0, 24, 0, 24);
    enum { N = 6 }; /* 2 items of 3 pairs */
    static const int2 in0[N] = { { 5, 1 }, { 3, 9 }, { 7, 4 }, { -2, 8 }, { 0, 6 }, { 9, 2 } };
    static const int2 io0[N] = { { 4, 0 }, { 3, 2 }, { 8, 3 }, { -2, 5 }, { 1, 7 }, { 9, 1 } };
    for (int max = 0; max <= 1; ++max) {
        opf_op_t op = max ? OPF_MAXLOC : OPF_MINLOC;
        int2 io[N + 1], out[N + 1], exp[N + 1];
        memcpy(io, io0, sizeof io0);
        io[N].v = io[N].i = 77;
        for (int k = 0; k < N; ++k) exp[k] = loc(in0[k], io0[k], max);
        exp[N] = io[N];
        CHECK_RC(opf_reduce_local(in0, io, 2, t, op), OPF_SUCCESS);
        for (int k = 0; k <= N; ++k)
            CHECK(io[k].v == exp[k].v && io[k].i == exp[k].i, "%s contiguous(3,2INT) pair %d: (%d,%d), expected (%d,%d)",
                  opf_op_name(op), k, io[k].v, io[k].i, exp[k].v, exp[k].i);
        out[N].v = out[N].i = 55;
        exp[N] = out[N];
        CHECK_RC(opf_reduce_local3(in0, io0, out, 2, t, op), OPF_SUCCESS);
        for (int k = 0; k <= N; ++k)
            CHECK(out[k].v == exp[k].v && out[k].i == exp[k].i,
                  "%s 3-buffer contiguous(3,2INT) pair %d: (%d,%d), expected (%d,%d)", opf_op_name(op), k,
                  out[k].v, out[k].i, exp[k].v, exp[k].i);
    }
    free_type(&t);
}

/* commit rules, uncommitted use, dup of committed types */
static void test_commit_rules(void)
{
    opf_datatype_t t, c, d;
    float a[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, b[8] = { 10, 20, 30, 40, 50, 60, 70, 80 };
    float b0[8];
    memcpy(b0, b, sizeof b);

    CHECK_RC(opf_type_vector(2, 1, 2, OPF_FLOAT, &t), OPF_SUCCESS);
    CHECK_RC(opf_reduce_local(a, b, 2, t, OPF_SUM), OPF_ERR_TYPE);
    CHECK_RC(opf_reduce_local3(a, b, b, 2, t, OPF_SUM), OPF_ERR_TYPE);
    CHECK_RC(opf_reduce_local(a, b, 2, t, OPF_REPLACE), OPF_ERR_TYPE);
    CHECK(!memcmp(b, b0, sizeof b), "uncommitted type wrote to the buffer");
    /* a type built from an uncommitted one can be committed and used */
    CHECK_RC(opf_type_contiguous(2, t, &c), OPF_SUCCESS);
    c = commit(c);
    /* floats 0,2 | 3,5 are data; 1, 4, 6, 7 are holes */
    static const float e[8] = { 11, 20, 33, 44, 50, 66, 70, 80 };
    CHECK_RC(opf_reduce_local(a, b, 1, c, OPF_SUM), OPF_SUCCESS);
    CHECK(!memcmp(b, e, sizeof e), "SUM contiguous(2, vector(2,1,2)) wrong");
    CHECK_RC(opf_reduce_local(a, b, 2, t, OPF_SUM), OPF_ERR_TYPE); /* t itself still uncommitted */
    /* commit twice is fine */
    CHECK_RC(opf_type_commit(&t), OPF_SUCCESS);
    opf_datatype_t same = t;
    CHECK_RC(opf_type_commit(&t), OPF_SUCCESS);
    CHECK(t == same, "second commit changed the handle");
    memcpy(b, b0, sizeof b);
    CHECK_RC(opf_reduce_local(a, b, 2, t, OPF_SUM), OPF_SUCCESS);
    CHECK(!memcmp(b, e, sizeof e), "SUM vector(2,1,2) x2 wrong");

    /* dup of a committed type has its committed state (MPI) and layout */
    CHECK_RC(opf_type_dup(t, &d), OPF_SUCCESS);
    memcpy(b, b0, sizeof b);
    CHECK_RC(opf_reduce_local(a, b, 2, d, OPF_SUM), OPF_SUCCESS);
    CHECK(!memcmp(b, e, sizeof e), "SUM dup(vector) x2 wrong");
    free_type(&t);
    /* the dup and the type built from t survive freeing t */
    memcpy(b, b0, sizeof b);
    CHECK_RC(opf_reduce_local(a, b, 2, d, OPF_SUM), OPF_SUCCESS);
    CHECK(!memcmp(b, e, sizeof e), "SUM dup(vector) after freeing the original wrong");
    memcpy(b, b0, sizeof b);
    static const float emin[8] = { 1, 20, 3, 4, 50, 6, 70, 80 };
    CHECK_RC(opf_reduce_local(a, b, 1, c, OPF_MIN), OPF_SUCCESS);
    CHECK(!memcmp(b, emin, sizeof b), "MIN contiguous(2, freed vector) wrong");
    free_type(&d);
    free_type(&c);

    /* dup of a predefined type is usable at once */
    CHECK_RC(opf_type_dup(OPF_INT, &d), OPF_SUCCESS);
    int x[2] = { 1, 2 }, y[2] = { 3, 4 };
    CHECK_RC(opf_reduce_local(x, y, 2, d, OPF_PROD), OPF_SUCCESS);
    CHECK(y[0] == 3 && y[1] == 8, "PROD dup(INT) wrong: %d %d", y[0], y[1]);
    free_type(&d);

    /* a struct made of types freed before its commit */
    opf_datatype_t m1, m2, s;
    CHECK_RC(opf_type_contiguous(2, OPF_INT, &m1), OPF_SUCCESS);
    CHECK_RC(opf_type_create_resized(OPF_INT, 0, 8, &m2), OPF_SUCCESS);
    static const int bl[2] = { 1, 1 };
    static const opf_aint_t sd[2] = { 0, 12 };
    opf_datatype_t st[2] = { m1, m2 };
    CHECK_RC(opf_type_create_struct(2, bl, sd, st, &s), OPF_SUCCESS);
    free_type(&m1);
    free_type(&m2);
    s = commit(s);
    check_layout("struct{contig(2,INT)@0, resized(INT,0,8)@12}", s, 12, 0, 20, 0, 16);
    int p[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 }, q[10] = { 0 };
    CHECK_RC(opf_reduce_local(p, q, 2, s, OPF_SUM), OPF_SUCCESS);
    static const int qe[10] = { 1, 2, 0, 4, 0, 6, 7, 0, 9, 0 };
    CHECK(!memcmp(q, qe, sizeof q), "SUM struct of freed members wrong: %d %d %d %d %d %d %d %d %d %d", q[0], q[1],
          q[2], q[3], q[4], q[5], q[6], q[7], q[8], q[9]);
    free_type(&s);
}

int main(void)
{
    test_predefined_layouts();
    test_derived_layouts();
    test_sum_layouts();
    test_mixed_struct();
    test_maxloc();
    test_commit_rules();
    opf_finalize();
    return check_summary("derived_types");
}
