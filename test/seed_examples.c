/*
 * seed_examples.c — the examples of the MPI source texts (work/shared/seeds 000 and 003),
 * run as local reductions.
 *
 * There is no communicator, so a reduce over n "ranks" is simulated the way the
 * naive implementation of seed 000 does it: the accumulated value of ranks
 * 0..r-1 is the LEFT operand (invec) and rank r's buffer the right one
 * (inoutvec): acc = acc op a[r], for r in rank order.
 */
#define _POSIX_C_SOURCE 200112L
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

#define MAXBUF 4096 /* bytes of one rank's buffer in fold() */

static int same_bits(const void *a, const void *b, size_t n) { return memcmp(a, b, n) == 0; }

/* acc = a[order[0]] op a[order[1]] op ... (left to right); bufs holds n rank
 * buffers of rank_bytes each. Returns the first failing return code. */
static int fold(const void *bufs, size_t rank_bytes, const int *order, int n, void *acc,
                opf_count_t count, opf_datatype_t type, opf_op_t op)
{
    static unsigned char tmp[MAXBUF];
    const unsigned char *b = bufs;
    memcpy(acc, b + (size_t)order[0] * rank_bytes, rank_bytes);
    for (int k = 1; k < n; ++k) {
        memcpy(tmp, b + (size_t)order[k] * rank_bytes, rank_bytes);
        int rc = opf_reduce_local(acc, tmp, count, type, op);
        if (rc != OPF_SUCCESS)
            return rc;
        memcpy(acc, tmp, rank_bytes);
    }
    return OPF_SUCCESS;
}

/* fwd = 0..n-1, rev = n-1..0 */
static void rank_orders(int n, int *fwd, int *rev)
{
    for (int r = 0; r < n; ++r) {
        fwd[r] = r;
        rev[r] = n - 1 - r;
    }
}

/* ---- MAXLOC / MINLOC with ties (examples 4.17, 4.18, 4.19) -------------- */
#define NRANK 7
#define NLOC 30

typedef struct { double val; int rank; } DoubleInt;      /* MPI_DOUBLE_INT */
typedef struct { double val; double rank; } Double2;     /* MPI_2DOUBLE_PRECISION */
typedef struct { float value; int index; } FloatInt;     /* MPI_FLOAT_INT */

/* Rank r's ain[i]: few distinct values, so several ranks tie at most locations.
 * Location NLOC-2: every rank holds the same value. Location NLOC-1: every rank
 * holds a signed zero (-0.0 on even ranks): -0.0 == +0.0 is a tie. */
static double ain(int r, int i)
{
    if (i == NLOC - 1)
        return (r % 2) ? 0.0 : -0.0;
    if (i == NLOC - 2)
        return 5.0;
    return (double)((i * 3 + r * 5) % 4) - 1.5 * (i % 3);
}

/* The expected (value, index) of MAXLOC (is_max) or MINLOC over v[0..n-1]: the
 * extreme value, and the first rank holding it; max(-0,+0) = +0, min = -0. */
static void ref_loc(const double *v, int n, int is_max, double *val, int *idx)
{
    double best = v[0];
    int at = 0;
    for (int r = 1; r < n; ++r) {
        if (is_max ? v[r] > best : v[r] < best) {
            best = v[r];
            at = r;
        } else if (v[r] == best && best == 0.0 && signbit(v[r]) != signbit(best)) {
            best = is_max ? 0.0 : -0.0;
        }
    }
    *val = best;
    *idx = at;
}

static void test_maxloc_double_int(opf_op_t op, int is_max)
{
    static DoubleInt in[NRANK][NLOC];
    DoubleInt out[2][NLOC];
    int order[2][NRANK];
    rank_orders(NRANK, order[0], order[1]);
    for (int r = 0; r < NRANK; ++r)
        for (int i = 0; i < NLOC; ++i) {
            in[r][i].val = ain(r, i);
            in[r][i].rank = r; /* ex. 4.17: in[i].rank = myrank */
        }
    for (int o = 0; o < 2; ++o)
        CHECK_RC(fold(in, sizeof in[0], order[o], NRANK, out[o], NLOC, OPF_DOUBLE_INT, op), OPF_SUCCESS);
    for (int i = 0; i < NLOC; ++i) {
        double v[NRANK], val;
        int idx;
        for (int r = 0; r < NRANK; ++r)
            v[r] = ain(r, i);
        ref_loc(v, NRANK, is_max, &val, &idx);
        for (int o = 0; o < 2; ++o)
            CHECK(same_bits(&out[o][i].val, &val, sizeof val) && out[o][i].rank == idx,
                  "DOUBLE_INT %s loc %d order %d: got (%g, %d), expected (%g, %d)",
                  opf_op_name(op), i, o, out[o][i].val, out[o][i].rank, val, idx);
    }
}

static void test_maxloc_2double(opf_op_t op, int is_max)
{
    static Double2 in[NRANK][NLOC];
    Double2 out[2][NLOC];
    int order[2][NRANK];
    rank_orders(NRANK, order[0], order[1]);
    for (int r = 0; r < NRANK; ++r)
        for (int i = 0; i < NLOC; ++i) {
            in[r][i].val = ain(r, i);
            in[r][i].rank = r; /* ex. 4.18: myrank is coerced to a double */
        }
    for (int o = 0; o < 2; ++o)
        CHECK_RC(fold(in, sizeof in[0], order[o], NRANK, out[o], NLOC, OPF_2DOUBLE_PRECISION, op),
                 OPF_SUCCESS);
    for (int i = 0; i < NLOC; ++i) {
        double v[NRANK], val;
        int idx;
        for (int r = 0; r < NRANK; ++r)
            v[r] = ain(r, i);
        ref_loc(v, NRANK, is_max, &val, &idx);
        for (int o = 0; o < 2; ++o)
            CHECK(same_bits(&out[o][i].val, &val, sizeof val) && out[o][i].rank == (double)idx,
                  "2DOUBLE_PRECISION %s loc %d order %d: got (%g, %g), expected (%g, %d)",
                  opf_op_name(op), i, o, out[o][i].val, out[o][i].rank, val, idx);
    }
}

/* Example 4.19: every rank finds its local minimum and its index, then a global
 * MINLOC over (value, myrank*LEN + index). The minimum 0.5 is held by ranks 2
 * (twice: indices 17 and 40), 4 and 5: the answer is rank 2, index 17. */
#define LEN 1000
static void test_minloc_float_int(void)
{
    static float val[NRANK][LEN];
    FloatInt in[NRANK], out[2];
    int order[2][NRANK];
    unsigned seed = 12345;
    rank_orders(NRANK, order[0], order[1]);
    for (int r = 0; r < NRANK; ++r)
        for (int i = 0; i < LEN; ++i) {
            seed = seed * 1103515245u + 12345u;
            val[r][i] = 1.0f + (float)((seed >> 8) % 100000) / 100.0f;
        }
    val[2][17] = val[2][40] = val[4][3] = val[5][150] = 0.5f;
    for (int r = 0; r < NRANK; ++r) {
        int count = 200 + 100 * r; /* local number of values */
        in[r].value = val[r][0];   /* local minloc, as in the seed */
        in[r].index = 0;
        for (int i = 1; i < count; i++)
            if (in[r].value > val[r][i]) {
                in[r].value = val[r][i];
                in[r].index = i;
            }
        in[r].index = r * LEN + in[r].index;
    }
    for (int o = 0; o < 2; ++o) {
        CHECK_RC(fold(in, sizeof in[0], order[o], NRANK, &out[o], 1, OPF_FLOAT_INT, OPF_MINLOC),
                 OPF_SUCCESS);
        CHECK(out[o].value == 0.5f && out[o].index / LEN == 2 && out[o].index % LEN == 17,
              "FLOAT_INT MINLOC order %d: got (%g, rank %d, index %d), expected (0.5, 2, 17)", o,
              out[o].value, out[o].index / LEN, out[o].index % LEN);
    }
}

/* ---- example 4.20 / seed 000: complex product ---------------------------- */
typedef struct { double real, imag; } Complex;

static opf_datatype_t g_ctype;
static int g_bad_dtype; /* callbacks seeing a datatype other than the caller's */

/* the user-defined function, as in the seed */
static void myProd(void *inP, void *inoutP, int *len, opf_datatype_t *dptr)
{
    int i;
    Complex c;
    Complex *in = (Complex *)inP, *inout = (Complex *)inoutP;

    if (*dptr != g_ctype)
        ++g_bad_dtype;
    for (i = 0; i < *len; ++i) {
        c.real = inout->real * in->real - inout->imag * in->imag;
        c.imag = inout->real * in->imag + inout->imag * in->real;
        *inout = c;
        in++;
        inout++;
    }
}

#define NCPLX 100
#define NCRANK 5
static void test_complex_product(void)
{
    /* small integer parts: every product below is exact in double */
    static Complex a[NCRANK][NCPLX];
    Complex answer[NCPLX], pred[NCPLX], expect[2][NCPLX];
    int order[2][NCRANK];
    opf_op_t myOp = OPF_OP_NULL;
    int commute = -1;
    rank_orders(NCRANK, order[0], order[1]);
    for (int r = 0; r < NCRANK; ++r)
        for (int i = 0; i < NCPLX; ++i) {
            a[r][i].real = (double)((i + 2 * r) % 7 - 3);
            a[r][i].imag = (double)((3 * i + r) % 5 - 2);
        }
    /* The product, computed directly in each rank order. Exact, but the sign of
     * a zero part may depend on the order, so each order has its own answer;
     * myProd and PROD (left operand = the accumulated product) both give
     * exactly these bits, IEEE + and * being commutative. */
    for (int o = 0; o < 2; ++o)
        for (int i = 0; i < NCPLX; ++i) {
            const Complex *first = &a[order[o][0]][i];
            double re = first->real, im = first->imag;
            for (int k = 1; k < NCRANK; ++k) {
                const Complex *b = &a[order[o][k]][i];
                double nre = re * b->real - im * b->imag;
                im = re * b->imag + im * b->real;
                re = nre;
            }
            expect[o][i].real = re;
            expect[o][i].imag = im;
        }

    g_ctype = OPF_DATATYPE_NULL;
    CHECK_RC(opf_type_contiguous(2, OPF_DOUBLE, &g_ctype), OPF_SUCCESS);
    CHECK_RC(opf_type_commit(&g_ctype), OPF_SUCCESS);
    CHECK_RC(opf_op_create(myProd, 1, &myOp), OPF_SUCCESS);
    CHECK_RC(opf_op_commutative(myOp, &commute), OPF_SUCCESS);
    CHECK(commute == 1, "commutative flag %d", commute);
    g_bad_dtype = 0;
    for (int o = 0; o < 2; ++o) {
        CHECK_RC(fold(a, sizeof a[0], order[o], NCRANK, answer, NCPLX, g_ctype, myOp), OPF_SUCCESS);
        CHECK_RC(fold(a, sizeof a[0], order[o], NCRANK, pred, NCPLX, OPF_C_DOUBLE_COMPLEX, OPF_PROD),
                 OPF_SUCCESS);
        for (int i = 0; i < NCPLX; ++i) {
            const Complex *e = &expect[o][i];
            CHECK(same_bits(&answer[i], e, sizeof *e),
                  "myProd [%d] order %d: got (%g,%g), expected (%g,%g)", i, o, answer[i].real,
                  answer[i].imag, e->real, e->imag);
            CHECK(same_bits(&pred[i], e, sizeof *e),
                  "PROD C_DOUBLE_COMPLEX [%d] order %d: got (%g,%g), expected (%g,%g)", i, o,
                  pred[i].real, pred[i].imag, e->real, e->imag);
        }
    }
    CHECK(g_bad_dtype == 0, "myProd got a datatype other than ctype %d times", g_bad_dtype);
    CHECK_RC(opf_op_free(&myOp), OPF_SUCCESS);
    CHECK(myOp == OPF_OP_NULL, "op_free did not reset the handle");
    CHECK_RC(opf_type_free(&g_ctype), OPF_SUCCESS);
}

/* ---- example 4.22: segmented scan ---------------------------------------- */
typedef struct { double val; int log; } SegScanPair;

/* (u,i) o (v,j) = (w,j), w = u+v if i == j else v. As in the seed, except that
 * the seed's loop forgets "in++" (it would pair every inout with in[0]). */
static void segScan(void *inP, void *inoutP, int *len, opf_datatype_t *dptr)
{
    SegScanPair *in = inP, *inout = inoutP, c;
    (void)dptr;
    for (int i = 0; i < *len; ++i) {
        if (in->log == inout->log)
            c.val = in->val + inout->val;
        else
            c.val = inout->val;
        c.log = inout->log;
        *inout = c;
        in++;
        inout++;
    }
}

static void ref_segscan(const SegScanPair *u, const SegScanPair *v, SegScanPair *w)
{
    w->val = u->log == v->log ? u->val + v->val : v->val;
    w->log = v->log;
}

#define NSEG 8
static void test_segmented_scan(void)
{
    /* Column 0 is the seed's table: logicals 0 0 1 1 1 0 0 1, values v_k = 2^(k-1)
     * so that each sum names its terms. The inclusive scan on rank k is
     * a_1 o a_2 o ... o a_k folded left to right in rank order (the operator is
     * not associative across segment boundaries, so the order matters). Rank 5:
     * (v1+v2, 0) o (v3, 1) = (v3, 1); o (v4, 1) = (v3+v4, 1); o (v5, 1) =
     * (v3+v4+v5, 1). The seed's result column prints "v5 + v4 + v5" there: a typo
     * for v3 + v4 + v5 (= 4+8+16 = 28), since v3, v4 and v5 all share logical 1
     * and the segment starts at v3 (logical changes 0 -> 1 between v2 and v3).
     * Column 1 has other logicals, checked against a plain C fold. */
    static const int logs[2][NSEG] = {{0, 0, 1, 1, 1, 0, 0, 1}, {1, 1, 1, 0, 0, 1, 1, 1}};
    static const double seed_result[NSEG] = {1, 1 + 2, 4, 4 + 8, 4 + 8 + 16, 32, 32 + 64, 128};
    SegScanPair a[NSEG][2], answer[NSEG][2], ref[2], x, y, z;
    int blocklen[2] = {1, 1};
    opf_aint_t disp[2] = {offsetof(SegScanPair, val), offsetof(SegScanPair, log)};
    opf_datatype_t type[2] = {OPF_DOUBLE, OPF_INT}, sspair = OPF_DATATYPE_NULL;
    opf_aint_t lb = -1, extent = -1;
    opf_count_t size = -1;
    opf_op_t myOp = OPF_OP_NULL;
    int commute = -1;

    CHECK_RC(opf_type_create_struct(2, blocklen, disp, type, &sspair), OPF_SUCCESS);
    CHECK_RC(opf_type_commit(&sspair), OPF_SUCCESS);
    CHECK_RC(opf_type_get_extent(sspair, &lb, &extent), OPF_SUCCESS);
    CHECK_RC(opf_type_size(sspair, &size), OPF_SUCCESS);
    CHECK(lb == 0 && extent == (opf_aint_t)sizeof(SegScanPair) && size == 12,
          "sspair lb %lld extent %lld size %lld, expected 0 %zu 12", (long long)lb,
          (long long)extent, (long long)size, sizeof(SegScanPair));
    CHECK_RC(opf_op_create(segScan, 0, &myOp), OPF_SUCCESS);
    CHECK_RC(opf_op_commutative(myOp, &commute), OPF_SUCCESS);
    CHECK(commute == 0, "commutative flag %d", commute);

    for (int k = 0; k < NSEG; ++k)
        for (int c = 0; c < 2; ++c) {
            a[k][c].val = (double)(1 << k) * (c ? 3 : 1);
            a[k][c].log = logs[c][k];
        }
    /* inclusive scan: answer[k] = answer[k-1] o a[k] */
    memcpy(answer[0], a[0], sizeof a[0]);
    memcpy(ref, a[0], sizeof ref);
    for (int k = 1; k < NSEG; ++k) {
        memcpy(answer[k], a[k], sizeof a[k]);
        CHECK_RC(opf_reduce_local(answer[k - 1], answer[k], 2, sspair, myOp), OPF_SUCCESS);
    }
    for (int k = 0; k < NSEG; ++k) {
        if (k > 0)
            for (int c = 0; c < 2; ++c) {
                SegScanPair w;
                ref_segscan(&ref[c], &a[k][c], &w);
                ref[c] = w;
            }
        CHECK(answer[k][0].val == seed_result[k] && answer[k][0].log == logs[0][k],
              "segscan rank %d: got (%g, %d), expected (%g, %d)", k + 1, answer[k][0].val,
              answer[k][0].log, seed_result[k], logs[0][k]);
        CHECK(answer[k][1].val == ref[1].val && answer[k][1].log == ref[1].log,
              "segscan column 1 rank %d: got (%g, %d), expected (%g, %d)", k + 1,
              answer[k][1].val, answer[k][1].log, ref[1].val, ref[1].log);
    }

    /* Operand order: in is the left operand, inout the right. With different
     * logicals x o y = y and y o x = x. */
    x.val = 3.0; x.log = 0;
    y.val = 4.0; y.log = 1;
    z = y;
    CHECK_RC(opf_reduce_local(&x, &z, 1, sspair, myOp), OPF_SUCCESS);
    CHECK(z.val == 4.0 && z.log == 1, "x o y: got (%g, %d), expected (4, 1)", z.val, z.log);
    z = x;
    CHECK_RC(opf_reduce_local(&y, &z, 1, sspair, myOp), OPF_SUCCESS);
    CHECK(z.val == 3.0 && z.log == 0, "y o x: got (%g, %d), expected (3, 0)", z.val, z.log);
    CHECK_RC(opf_reduce_local3(&x, &y, &z, 1, sspair, myOp), OPF_SUCCESS);
    CHECK(z.val == 4.0 && z.log == 1, "3-buffer x o y: got (%g, %d), expected (4, 1)", z.val, z.log);
    /* equal logicals: sums, left and right alike */
    y.log = 0;
    z = y;
    CHECK_RC(opf_reduce_local(&x, &z, 1, sspair, myOp), OPF_SUCCESS);
    CHECK(z.val == 7.0 && z.log == 0, "x o y (same segment): got (%g, %d)", z.val, z.log);

    CHECK_RC(opf_op_free(&myOp), OPF_SUCCESS);
    CHECK_RC(opf_type_free(&sspair), OPF_SUCCESS);
}

/* ---- a non-commutative user op f(a, b) = 2a + b on ints -------------------
 * Layout 0: an item is one int. Layout 1: an item is {int, hole, int} (vector
 * of 2 ints with stride 2: size 8, extent 12); f applies to both ints and the
 * callback leaves the hole alone. Every call is recorded. */
#define MAXCALLS 64
static struct {
    const char *in;
    char *inout;
    opf_count_t len;
    opf_datatype_t type;
} g_calls[MAXCALLS];
static int g_ncalls;
static int g_layout;

static void two_a_plus_b(void *invec, void *inoutvec, opf_count_t len, opf_datatype_t type)
{
    const int *in = invec;
    int *inout = inoutvec;
    if (g_ncalls < MAXCALLS) {
        g_calls[g_ncalls].in = invec;
        g_calls[g_ncalls].inout = inoutvec;
        g_calls[g_ncalls].len = len;
        g_calls[g_ncalls].type = type;
    }
    ++g_ncalls;
    for (opf_count_t k = 0; k < len; ++k) {
        if (g_layout == 0) {
            inout[k] = 2 * in[k] + inout[k];
        } else {
            inout[3 * k] = 2 * in[3 * k] + inout[3 * k];
            inout[3 * k + 2] = 2 * in[3 * k + 2] + inout[3 * k + 2];
        }
    }
}
static void fn_int(void *in, void *inout, int *len, opf_datatype_t *type)
{
    two_a_plus_b(in, inout, *len, *type);
}
static void fn_c(void *in, void *inout, opf_count_t *len, opf_datatype_t *type)
{
    two_a_plus_b(in, inout, *len, *type);
}

#define HOLE (-7777)
#define MAXITEMS 5000
enum { OUT_DISTINCT, OUT_IS_IN1, OUT_IS_IN2, TWO_BUFFER };
static const char *const mode_name[] = {"out distinct", "out == in1", "out == in2", "2-buffer"};

/* Applies op (two_a_plus_b) to count items of type (layout g_layout) in the
 * given mode, checks every value and that holes are unchanged, then checks the
 * recorded calls: lengths in [1, limit] summing to count, pointers contiguous
 * and in order from the start of the left / right buffers (left = in or in1,
 * right = inout or out), advancing by len * extent. expect_calls > 0: exact
 * number of calls. */
static void run_two_a_plus_b(opf_op_t op, opf_datatype_t type, opf_count_t count, int mode,
                             opf_count_t limit, int expect_calls)
{
    static int l[MAXITEMS * 3], r[MAXITEMS * 3], out[MAXITEMS * 3];
    const int ipi = g_layout ? 3 : 1; /* ints per item */
    const opf_aint_t extent = ipi * (opf_aint_t)sizeof(int);
    const opf_count_t n = count * ipi;
    const int *left = l;
    int *right = out;
    int rc;
    for (opf_count_t k = 0; k < n; ++k) {
        int hole = g_layout && k % 3 == 1;
        l[k] = hole ? HOLE - 1 : (int)(k % 97) - 40;
        r[k] = hole ? HOLE - 2 : (int)(3 * k % 101) - 50;
        out[k] = HOLE;
    }
    g_ncalls = 0;
    switch (mode) {
    case OUT_DISTINCT:
        rc = opf_reduce_local3(l, r, out, count, type, op);
        break;
    case OUT_IS_IN1:
        memcpy(out, l, n * sizeof(int));
        rc = opf_reduce_local3(out, r, out, count, type, op);
        left = NULL; /* the library needs a copy of in1 here: pointer not checked */
        break;
    case OUT_IS_IN2:
        memcpy(out, r, n * sizeof(int));
        rc = opf_reduce_local3(l, out, out, count, type, op);
        break;
    default:
        memcpy(out, r, n * sizeof(int));
        rc = opf_reduce_local(l, out, count, type, op);
        break;
    }
    CHECK(rc == OPF_SUCCESS, "%s count %lld: rc %d (%s)", mode_name[mode], (long long)count, rc,
          opf_last_error());
    int bad = 0, first = -1;
    for (opf_count_t k = 0; k < n; ++k) {
        int hole = g_layout && k % 3 == 1;
        int want = !hole ? 2 * l[k] + r[k] : mode == OUT_DISTINCT ? HOLE : mode == OUT_IS_IN1 ? l[k] : r[k];
        if (out[k] != want && !bad++)
            first = (int)k;
    }
    CHECK(bad == 0, "%s count %lld layout %d: %d wrong ints, first at int %d: got %d",
          mode_name[mode], (long long)count, g_layout, bad, first, first >= 0 ? out[first] : 0);

    opf_count_t sum = 0;
    int ok = g_ncalls >= 1 && g_ncalls <= MAXCALLS;
    CHECK(ok, "%s count %lld: %d callback calls", mode_name[mode], (long long)count, g_ncalls);
    for (int c = 0; ok && c < g_ncalls; ++c) {
        CHECK(g_calls[c].len >= 1 && g_calls[c].len <= limit, "call %d: len %lld, limit %lld", c,
              (long long)g_calls[c].len, (long long)limit);
        CHECK(left == NULL || g_calls[c].in == (const char *)left + sum * extent,
              "call %d: invec at offset %lld, expected %lld", c,
              (long long)(g_calls[c].in - (const char *)left), (long long)(sum * extent));
        CHECK(g_calls[c].inout == (char *)right + sum * extent,
              "call %d: inoutvec at offset %lld, expected %lld", c,
              (long long)(g_calls[c].inout - (char *)right), (long long)(sum * extent));
        CHECK(g_calls[c].type == type, "call %d: datatype is not the caller's", c);
        sum += g_calls[c].len;
    }
    CHECK(!ok || sum == count, "lengths sum to %lld, expected %lld", (long long)sum,
          (long long)count);
    CHECK(expect_calls <= 0 || g_ncalls == expect_calls, "%s count %lld: %d calls, expected %d",
          mode_name[mode], (long long)count, g_ncalls, expect_calls);
}

/* restarts opframe with OPF_MCA_op_base_user_int_limit set (value) or unset (NULL) */
static void restart_with_int_limit(const char *value)
{
    if (value)
        setenv("OPF_MCA_op_base_user_int_limit", value, 1);
    else
        unsetenv("OPF_MCA_op_base_user_int_limit");
    CHECK_RC(opf_finalize(), OPF_SUCCESS);
    CHECK_RC(opf_init(), OPF_SUCCESS);
}

static opf_datatype_t make_holey_type(void)
{
    opf_datatype_t t = OPF_DATATYPE_NULL;
    opf_aint_t lb = -1, extent = -1;
    opf_count_t size = -1;
    CHECK_RC(opf_type_vector(2, 1, 2, OPF_INT, &t), OPF_SUCCESS);
    CHECK_RC(opf_type_commit(&t), OPF_SUCCESS);
    CHECK_RC(opf_type_get_extent(t, &lb, &extent), OPF_SUCCESS);
    CHECK_RC(opf_type_size(t, &size), OPF_SUCCESS);
    CHECK(lb == 0 && extent == 12 && size == 8, "vector(2,1,2,INT): lb %lld extent %lld size %lld",
          (long long)lb, (long long)extent, (long long)size);
    return t;
}

/* The 3-buffer form with a non-commutative user op: out = in1 op in2. */
static void test_three_buffer(void)
{
    opf_op_t ops[2] = {OPF_OP_NULL, OPF_OP_NULL};
    CHECK_RC(opf_op_create(fn_int, 0, &ops[0]), OPF_SUCCESS);
    CHECK_RC(opf_op_create_c(fn_c, 0, &ops[1]), OPF_SUCCESS);
    opf_datatype_t holey = make_holey_type();
    for (int o = 0; o < 2; ++o)
        for (int mode = OUT_DISTINCT; mode <= TWO_BUFFER; ++mode) {
            g_layout = 0;
            run_two_a_plus_b(ops[o], OPF_INT, 37, mode, INT_MAX, 1);
            g_layout = 1;
            run_two_a_plus_b(ops[o], holey, 37, mode, INT_MAX, 1);
        }
    CHECK_RC(opf_type_free(&holey), OPF_SUCCESS);
    CHECK_RC(opf_op_free(&ops[0]), OPF_SUCCESS);
    CHECK_RC(opf_op_free(&ops[1]), OPF_SUCCESS);
}

/* OPF_MCA_op_base_user_int_limit = 1000: an int callback sees chunks of at most
 * 1000 items; a _c callback is called once. */
static void test_int_chunking(void)
{
    opf_op_t op_int = OPF_OP_NULL, op_c = OPF_OP_NULL;
    restart_with_int_limit("1000");
    CHECK_RC(opf_op_create(fn_int, 0, &op_int), OPF_SUCCESS);
    CHECK_RC(opf_op_create_c(fn_c, 0, &op_c), OPF_SUCCESS);
    opf_datatype_t holey = make_holey_type();
    for (int mode = OUT_DISTINCT; mode <= TWO_BUFFER; ++mode) {
        g_layout = 0;
        run_two_a_plus_b(op_int, OPF_INT, 4099, mode, 1000, 0);
        run_two_a_plus_b(op_int, OPF_INT, 1000, mode, 1000, 1);
        run_two_a_plus_b(op_int, OPF_INT, 1001, mode, 1000, 0);
        run_two_a_plus_b(op_c, OPF_INT, 4099, mode, 4099, 1);
        g_layout = 1; /* pointers advance by len * 12 */
        run_two_a_plus_b(op_int, holey, 2500, mode, 1000, 0);
        run_two_a_plus_b(op_c, holey, 2500, mode, 2500, 1);
    }
    CHECK_RC(opf_type_free(&holey), OPF_SUCCESS);
    CHECK_RC(opf_op_free(&op_int), OPF_SUCCESS);
    CHECK_RC(opf_op_free(&op_c), OPF_SUCCESS);

    /* back to the default (INT_MAX): one call */
    restart_with_int_limit(NULL);
    CHECK_RC(opf_op_create(fn_int, 0, &op_int), OPF_SUCCESS);
    g_layout = 0;
    run_two_a_plus_b(op_int, OPF_INT, 4099, TWO_BUFFER, 4099, 1);
    CHECK_RC(opf_op_free(&op_int), OPF_SUCCESS);
}

int main(void)
{
    CHECK_RC(opf_init(), OPF_SUCCESS);
    test_maxloc_double_int(OPF_MAXLOC, 1);
    test_maxloc_double_int(OPF_MINLOC, 0);
    test_maxloc_2double(OPF_MAXLOC, 1);
    test_maxloc_2double(OPF_MINLOC, 0);
    test_minloc_float_int();
    test_complex_product();
    test_segmented_scan();
    test_three_buffer();
    test_int_chunking();
    CHECK_RC(opf_finalize(), OPF_SUCCESS);
    return check_summary("seed_examples");
}
