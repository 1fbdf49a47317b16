/* api_errors.c — every bad input to the opframe C API returns the documented
 * error code and leaves every buffer and handle as it was.
 *
 * The (op, type) validity matrix below is written from the contract
 * (spec: "valid (op, group)"), independently of the library. */
#include "test/check.h"
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- buffers with a byte pattern, and "untouched" check ------------------ */
#define NB 512
static unsigned char b1[NB], b2[NB], b3[NB], s1[NB], s2[NB], s3[NB];

static void fill(void)
{
    for (int i = 0; i < NB; ++i) {
        b1[i] = (unsigned char)(i * 7 + 1);
        b2[i] = (unsigned char)(i * 13 + 5);
        b3[i] = (unsigned char)(i * 29 + 11);
    }
    memcpy(s1, b1, NB);
    memcpy(s2, b2, NB);
    memcpy(s3, b3, NB);
}

static int untouched(void)
{
    return !memcmp(b1, s1, NB) && !memcmp(b2, s2, NB) && !memcmp(b3, s3, NB);
}

/* Asserts rc of a call made on freshly filled buffers, and that no buffer changed. */
#define EXPECT(call, expected) do { \
    fill(); \
    CHECK_RC(call, expected); \
    CHECK(untouched(), "%s wrote to a buffer", #call); \
} while (0)

static int contains_ci(const char *hay, const char *needle)
{
    if (!hay || !needle) return 0;
    size_t n = strlen(needle);
    for (; *hay; ++hay) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i])) ++i;
        if (i == n) return 1;
    }
    return n == 0;
}

/* ---- the validity matrix, from the spec --------------------------------- */
enum { G_NONE, G_CINT, G_FINT, G_FLOAT, G_LOGICAL, G_COMPLEX, G_BYTE, G_PAIR, G_OTHER, G_BLOCK };

static const int group_of[OPF_TYPEID_COUNT_] = {
    [OPF_TYPEID_CHAR] = G_OTHER, [OPF_TYPEID_WCHAR] = G_OTHER,
    [OPF_TYPEID_SIGNED_CHAR] = G_CINT, [OPF_TYPEID_UNSIGNED_CHAR] = G_CINT,
    [OPF_TYPEID_SHORT] = G_CINT, [OPF_TYPEID_UNSIGNED_SHORT] = G_CINT,
    [OPF_TYPEID_INT] = G_CINT, [OPF_TYPEID_UNSIGNED] = G_CINT,
    [OPF_TYPEID_LONG] = G_CINT, [OPF_TYPEID_UNSIGNED_LONG] = G_CINT,
    [OPF_TYPEID_LONG_LONG] = G_CINT, [OPF_TYPEID_UNSIGNED_LONG_LONG] = G_CINT,
    [OPF_TYPEID_INT8_T] = G_CINT, [OPF_TYPEID_INT16_T] = G_CINT,
    [OPF_TYPEID_INT32_T] = G_CINT, [OPF_TYPEID_INT64_T] = G_CINT,
    [OPF_TYPEID_UINT8_T] = G_CINT, [OPF_TYPEID_UINT16_T] = G_CINT,
    [OPF_TYPEID_UINT32_T] = G_CINT, [OPF_TYPEID_UINT64_T] = G_CINT,
    [OPF_TYPEID_AINT] = G_CINT, [OPF_TYPEID_OFFSET] = G_CINT, [OPF_TYPEID_COUNT] = G_CINT,
    [OPF_TYPEID_BYTE] = G_BYTE,
    [OPF_TYPEID_C_BOOL] = G_LOGICAL, [OPF_TYPEID_CXX_BOOL] = G_LOGICAL,
    [OPF_TYPEID_LOGICAL] = G_LOGICAL,
    [OPF_TYPEID_FLOAT] = G_FLOAT, [OPF_TYPEID_DOUBLE] = G_FLOAT,
    [OPF_TYPEID_LONG_DOUBLE] = G_FLOAT, [OPF_TYPEID_FLOAT16] = G_FLOAT,
    [OPF_TYPEID_BFLOAT16] = G_FLOAT, [OPF_TYPEID_REAL] = G_FLOAT, [OPF_TYPEID_REAL2] = G_FLOAT,
    [OPF_TYPEID_REAL4] = G_FLOAT, [OPF_TYPEID_REAL8] = G_FLOAT, [OPF_TYPEID_REAL16] = G_FLOAT,
    [OPF_TYPEID_DOUBLE_PRECISION] = G_FLOAT,
    [OPF_TYPEID_C_FLOAT_COMPLEX] = G_COMPLEX, [OPF_TYPEID_C_DOUBLE_COMPLEX] = G_COMPLEX,
    [OPF_TYPEID_C_LONG_DOUBLE_COMPLEX] = G_COMPLEX, [OPF_TYPEID_COMPLEX] = G_COMPLEX,
    [OPF_TYPEID_DOUBLE_COMPLEX] = G_COMPLEX, [OPF_TYPEID_COMPLEX8] = G_COMPLEX,
    [OPF_TYPEID_COMPLEX16] = G_COMPLEX,
    [OPF_TYPEID_INTEGER] = G_FINT, [OPF_TYPEID_INTEGER1] = G_FINT, [OPF_TYPEID_INTEGER2] = G_FINT,
    [OPF_TYPEID_INTEGER4] = G_FINT, [OPF_TYPEID_INTEGER8] = G_FINT, [OPF_TYPEID_INTEGER16] = G_FINT,
    [OPF_TYPEID_FLOAT_INT] = G_PAIR, [OPF_TYPEID_DOUBLE_INT] = G_PAIR, [OPF_TYPEID_LONG_INT] = G_PAIR,
    [OPF_TYPEID_2INT] = G_PAIR, [OPF_TYPEID_SHORT_INT] = G_PAIR,
    [OPF_TYPEID_LONG_DOUBLE_INT] = G_PAIR, [OPF_TYPEID_2REAL] = G_PAIR,
    [OPF_TYPEID_2DOUBLE_PRECISION] = G_PAIR, [OPF_TYPEID_2INTEGER] = G_PAIR,
    [OPF_TYPEID_FLOAT8_E4M3] = G_FLOAT, [OPF_TYPEID_FLOAT8_E5M2] = G_FLOAT,
    /* OCP MX blocks: MAX MIN SUM AVG (no PROD) */
    [OPF_TYPEID_MXFP8_E4M3] = G_BLOCK, [OPF_TYPEID_MXFP8_E5M2] = G_BLOCK, [OPF_TYPEID_MXFP6_E3M2] = G_BLOCK,
    [OPF_TYPEID_MXFP6_E2M3] = G_BLOCK, [OPF_TYPEID_MXFP4_E2M1] = G_BLOCK, [OPF_TYPEID_MXINT8] = G_BLOCK,
    [OPF_TYPEID_FLOAT8_E4M3FNUZ] = G_FLOAT, [OPF_TYPEID_FLOAT8_E5M2FNUZ] = G_FLOAT,
    [OPF_TYPEID_NVFP4] = G_BLOCK,   /* NVIDIA's block format: as MX */
};

static int op_valid(int op, int g)
{
    switch (op) {
    case OPF_OPID_MAX: case OPF_OPID_MIN:
        return g == G_CINT || g == G_FINT || g == G_FLOAT || g == G_BLOCK;
    case OPF_OPID_SUM: case OPF_OPID_AVG:
        return g == G_CINT || g == G_FINT || g == G_FLOAT || g == G_COMPLEX || g == G_BLOCK;
    case OPF_OPID_PROD:
        return g == G_CINT || g == G_FINT || g == G_FLOAT || g == G_COMPLEX;
    case OPF_OPID_LAND: case OPF_OPID_LOR: case OPF_OPID_LXOR:
        return g == G_CINT || g == G_LOGICAL;
    case OPF_OPID_BAND: case OPF_OPID_BOR: case OPF_OPID_BXOR:
        return g == G_CINT || g == G_FINT || g == G_BYTE;
    case OPF_OPID_MAXLOC: case OPF_OPID_MINLOC:
        return g == G_PAIR;
    case OPF_OPID_REPLACE: case OPF_OPID_NO_OP:
        return 1;
    }
    return 0;
}

static const char *const op_names[OPF_OPID_COUNT] = {
    NULL, "MAX", "MIN", "SUM", "PROD", "LAND", "BAND", "LOR", "BOR", "LXOR", "BXOR",
    "MAXLOC", "MINLOC", "REPLACE", "NO_OP", "AVG",
};

#define OPH(id) OPF_OP_HANDLE_(id)
#define TYH(id) OPF_TYPE_HANDLE_(id)

static void user_fn(void *in, void *inout, int *len, opf_datatype_t *dt)
{
    (void)in; (void)inout; (void)len; (void)dt;
}

static void user_fn_c(void *in, void *inout, opf_count_t *len, opf_datatype_t *dt)
{
    (void)in; (void)inout; (void)len; (void)dt;
}

/* A type handle that is unsupported on this build (INTEGER16 / REAL16 may be). */
static int type_supported(int t)
{
    int rc = opf_reduce_local(NULL, NULL, 0, TYH(t), OPF_REPLACE);
    if (t == OPF_TYPEID_INTEGER16 || t == OPF_TYPEID_REAL16) {
        CHECK(rc == OPF_SUCCESS || rc == OPF_ERR_TYPE, "REPLACE on %s count 0 gave %d",
              opf_type_name(TYH(t)), rc);
        if (rc == OPF_ERR_TYPE) printf("note: type id %d unsupported on this build\n", t);
        return rc == OPF_SUCCESS;
    }
    CHECK(rc == OPF_SUCCESS, "REPLACE on type id %d count 0 gave %d (%s)", t, rc, opf_last_error());
    return 1;
}

/* ---- names -------------------------------------------------------------- */
static void test_names(void)
{
    for (int o = 1; o < OPF_OPID_COUNT; ++o) {
        const char *n = opf_op_name(OPH(o));
        CHECK(n && !strcmp(n, op_names[o]), "opf_op_name(%d) = %s, expected %s", o, n ? n : "(null)", op_names[o]);
    }
    /* the header says NULL for invalid handles; the library names the null
     * handle "OP_NULL", which is accepted too */
    CHECK(opf_op_name(OPF_OP_NULL) == NULL || strstr(opf_op_name(OPF_OP_NULL), "NULL"),
          "opf_op_name(OPF_OP_NULL) = %s", opf_op_name(OPF_OP_NULL));
    CHECK(opf_op_name((opf_op_t)(uintptr_t)0x12345678) == NULL, "garbage op has a name");
    CHECK(opf_type_name((opf_datatype_t)(uintptr_t)0x12345678) == NULL, "garbage type has a name");

    static const struct { opf_datatype_t t; const char *name; } few[] = {
        { OPF_BYTE, "BYTE" }, { OPF_FLOAT, "FLOAT" }, { OPF_INT, "INT" }, { OPF_DOUBLE_INT, "DOUBLE_INT" },
        { OPF_2INT, "2INT" }, { OPF_UNSIGNED_LONG_LONG, "UNSIGNED_LONG_LONG" }, { OPF_LOGICAL, "LOGICAL" },
        { OPF_INTEGER8, "INTEGER8" }, { OPF_CHAR, "CHAR" }, { OPF_FLOAT16, "FLOAT16" },
        { OPF_FLOAT8_E4M3, "FLOAT8_E4M3" }, { OPF_FLOAT8_E5M2, "FLOAT8_E5M2" },
        { OPF_FLOAT8_E4M3FNUZ, "FLOAT8_E4M3FNUZ" }, { OPF_FLOAT8_E5M2FNUZ, "FLOAT8_E5M2FNUZ" },
        { OPF_MXFP8_E4M3, "MXFP8_E4M3" }, { OPF_MXFP4_E2M1, "MXFP4_E2M1" }, { OPF_MXINT8, "MXINT8" }, { OPF_NVFP4, "NVFP4" },
    };
    for (size_t i = 0; i < sizeof few / sizeof few[0]; ++i) {
        const char *n = opf_type_name(few[i].t);
        CHECK(n && !strcmp(n, few[i].name), "opf_type_name = %s, expected %s", n ? n : "(null)", few[i].name);
    }
    /* every predefined type: a non-empty upper-case name, all distinct */
    for (int t = 1; t < OPF_TYPEID_COUNT_; ++t) {
        const char *n = opf_type_name(TYH(t));
        CHECK(n && *n, "type id %d has no name", t);
        if (!n) continue;
        int upper = 1;
        for (const char *p = n; *p; ++p)
            if (!(isupper((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_')) upper = 0;
        CHECK(upper, "type id %d name \"%s\" is not upper case", t, n);
        for (int u = 1; u < t; ++u) {
            const char *m = opf_type_name(TYH(u));
            CHECK(!m || strcmp(m, n), "type ids %d and %d share the name %s", u, t, n);
        }
    }
}

/* ---- the full op x type matrix ------------------------------------------ */
static void test_matrix(void)
{
    int n_invalid = 0;
    for (int t = 1; t < OPF_TYPEID_COUNT_; ++t)
        CHECK(group_of[t] != G_NONE, "test bug: type id %d has no group", t);

    for (int t = 1; t < OPF_TYPEID_COUNT_; ++t) {
        opf_datatype_t ty = TYH(t);
        int supported = type_supported(t);
        for (int o = 1; o < OPF_OPID_COUNT; ++o) {
            opf_op_t op = OPH(o);
            const char *on = op_names[o], *tn = opf_type_name(ty);
            if (!tn) tn = "?";
            int valid = op_valid(o, group_of[t]);
            int cerr = !supported ? OPF_ERR_TYPE : valid ? OPF_SUCCESS : OPF_ERR_OP;
            int rc;

            /* count < 0 is reported before the op/type mismatch */
            fill();
            rc = opf_reduce_local(b1, b2, -1, ty, op);
            CHECK(rc == (supported ? OPF_ERR_COUNT : OPF_ERR_TYPE) && untouched(),
                  "reduce_local(%s, %s, count -1) = %d", on, tn, rc);
            rc = opf_reduce_local3(b1, b2, b3, -5, ty, op);
            CHECK(rc == (supported ? OPF_ERR_COUNT : OPF_ERR_TYPE) && untouched(),
                  "reduce_local3(%s, %s, count -5) = %d", on, tn, rc);

            /* count 0 and 5 on real buffers, count 0 and 5 on NULL buffers */
            for (int c = 0; c <= 5; c += 5) {
                fill();
                rc = opf_reduce_local(b1, b2, c, ty, op);
                if (cerr != OPF_SUCCESS || c == 0) {
                    CHECK(rc == cerr, "reduce_local(%s, %s, count %d) = %d, expected %d", on, tn, c, rc, cerr);
                    CHECK(untouched(), "reduce_local(%s, %s, count %d) wrote to a buffer", on, tn, c);
                } else {
                    CHECK(rc == OPF_SUCCESS, "reduce_local(%s, %s, count %d) = %d (%s)", on, tn, c, rc,
                          opf_last_error());
                }
                if (cerr == OPF_ERR_OP) {
                    const char *msg = opf_last_error();
                    CHECK(msg && *msg && strstr(msg, on) && strstr(msg, tn),
                          "last error after (%s, %s) does not name both: \"%s\"", on, tn, msg ? msg : "(null)");
                }
                fill();
                rc = opf_reduce_local3(b1, b2, b3, c, ty, op);
                if (cerr != OPF_SUCCESS || c == 0) {
                    CHECK(rc == cerr, "reduce_local3(%s, %s, count %d) = %d, expected %d", on, tn, c, rc, cerr);
                    CHECK(untouched(), "reduce_local3(%s, %s, count %d) wrote to a buffer", on, tn, c);
                } else {
                    CHECK(rc == OPF_SUCCESS, "reduce_local3(%s, %s, count %d) = %d (%s)", on, tn, c, rc,
                          opf_last_error());
                    CHECK(!memcmp(b1, s1, NB) && !memcmp(b2, s2, NB), "reduce_local3 wrote to an input");
                }
                if (cerr == OPF_ERR_OP) {
                    const char *msg = opf_last_error();
                    CHECK(msg && *msg && strstr(msg, on) && strstr(msg, tn),
                          "last error after 3-buffer (%s, %s) does not name both: \"%s\"", on, tn,
                          msg ? msg : "(null)");
                }

                /* NULL buffers: the mismatch comes before the buffer check;
                 * count 0 succeeds even with NULL buffers */
                int nerr = cerr != OPF_SUCCESS ? cerr : c == 0 ? OPF_SUCCESS : OPF_ERR_BUFFER;
                rc = opf_reduce_local(NULL, NULL, c, ty, op);
                CHECK(rc == nerr, "reduce_local(NULL, NULL, %d, %s, %s) = %d, expected %d", c, tn, on, rc, nerr);
                rc = opf_reduce_local3(NULL, NULL, NULL, c, ty, op);
                CHECK(rc == nerr, "reduce_local3(NULL x3, %d, %s, %s) = %d, expected %d", c, tn, on, rc, nerr);
            }
            if (supported && !valid) ++n_invalid;
        }
    }
    printf("op x type matrix: %d invalid pairs checked\n", n_invalid);
}

/* ---- bad handles, counts and buffers ------------------------------------ */
static void test_bad_handles(void)
{
    opf_op_t garbage_op = (opf_op_t)(uintptr_t)0x12345678;
    opf_datatype_t garbage_ty = (opf_datatype_t)(uintptr_t)0x12345678;
    opf_op_t bad_ops[3] = { OPF_OP_NULL, garbage_op, OPH(OPF_OPID_COUNT) };
    opf_datatype_t bad_tys[3] = { OPF_DATATYPE_NULL, garbage_ty, TYH(OPF_TYPEID_COUNT_) };

    for (int i = 0; i < 3; ++i) {
        EXPECT(opf_reduce_local(b1, b2, 4, OPF_INT, bad_ops[i]), OPF_ERR_OP);
        EXPECT(opf_reduce_local3(b1, b2, b3, 4, OPF_INT, bad_ops[i]), OPF_ERR_OP);
        EXPECT(opf_reduce_local(b1, b2, 0, OPF_INT, bad_ops[i]), OPF_ERR_OP);
        EXPECT(opf_reduce_local(NULL, NULL, 0, OPF_INT, bad_ops[i]), OPF_ERR_OP);
        /* the op is checked first: a bad op with a bad type or count is OPF_ERR_OP */
        EXPECT(opf_reduce_local(b1, b2, -1, garbage_ty, bad_ops[i]), OPF_ERR_OP);
        CHECK(strlen(opf_last_error()) > 0, "no message for a bad op handle");

        EXPECT(opf_reduce_local(b1, b2, 4, bad_tys[i], OPF_SUM), OPF_ERR_TYPE);
        EXPECT(opf_reduce_local3(b1, b2, b3, 4, bad_tys[i], OPF_SUM), OPF_ERR_TYPE);
        EXPECT(opf_reduce_local(b1, b2, 4, bad_tys[i], OPF_REPLACE), OPF_ERR_TYPE);
        EXPECT(opf_reduce_local(NULL, NULL, 0, bad_tys[i], OPF_SUM), OPF_ERR_TYPE);
        /* the type is checked before the count and before the buffers */
        EXPECT(opf_reduce_local(b1, b2, -1, bad_tys[i], OPF_SUM), OPF_ERR_TYPE);
        EXPECT(opf_reduce_local(NULL, b2, 4, bad_tys[i], OPF_SUM), OPF_ERR_TYPE);
        CHECK(strlen(opf_last_error()) > 0, "no message for a bad type handle");
    }

    /* freed user op, and a stale copy after another op took its place */
    opf_op_t u = OPF_OP_NULL, stale, u2 = OPF_OP_NULL;
    CHECK_RC(opf_op_create(user_fn, 1, &u), OPF_SUCCESS);
    stale = u;
    EXPECT(opf_reduce_local(b1, b2, 4, OPF_INT, u), OPF_SUCCESS);
    CHECK_RC(opf_op_free(&u), OPF_SUCCESS);
    CHECK(u == OPF_OP_NULL, "opf_op_free did not set the handle to OPF_OP_NULL");
    EXPECT(opf_reduce_local(b1, b2, 4, OPF_INT, stale), OPF_ERR_OP);
    EXPECT(opf_reduce_local3(b1, b2, b3, 4, OPF_INT, stale), OPF_ERR_OP);
    CHECK_RC(opf_op_create(user_fn, 1, &u2), OPF_SUCCESS);
    EXPECT(opf_reduce_local(b1, b2, 4, OPF_INT, stale), OPF_ERR_OP);
    EXPECT(opf_reduce_local3(b1, b2, b3, 4, OPF_INT, stale), OPF_ERR_OP);
    int flag = -7;
    CHECK_RC(opf_op_commutative(stale, &flag), OPF_ERR_OP);
    CHECK(flag == -7, "commutative wrote through a failed call");
    opf_op_t stale2 = stale;
    CHECK_RC(opf_op_free(&stale2), OPF_ERR_OP);
    CHECK(stale2 == stale, "failed opf_op_free changed the handle");
    EXPECT(opf_reduce_local(b1, b2, 4, OPF_INT, u2), OPF_SUCCESS); /* the new op survived */

    /* uncommitted and freed derived types, stale copies */
    opf_datatype_t d = OPF_DATATYPE_NULL, dstale, d2 = OPF_DATATYPE_NULL;
    CHECK_RC(opf_type_contiguous(2, OPF_INT, &d), OPF_SUCCESS);
    EXPECT(opf_reduce_local(b1, b2, 3, d, OPF_SUM), OPF_ERR_TYPE);
    EXPECT(opf_reduce_local3(b1, b2, b3, 3, d, OPF_SUM), OPF_ERR_TYPE);
    EXPECT(opf_reduce_local(b1, b2, 3, d, OPF_REPLACE), OPF_ERR_TYPE);
    EXPECT(opf_reduce_local(NULL, NULL, 0, d, OPF_SUM), OPF_ERR_TYPE);
    EXPECT(opf_reduce_local(b1, b2, 3, d, u2), OPF_ERR_TYPE);
    CHECK_RC(opf_type_commit(&d), OPF_SUCCESS);
    EXPECT(opf_reduce_local(b1, b2, 0, d, OPF_SUM), OPF_SUCCESS);
    dstale = d;
    CHECK_RC(opf_type_free(&d), OPF_SUCCESS);
    CHECK(d == OPF_DATATYPE_NULL, "opf_type_free did not set the handle to OPF_DATATYPE_NULL");
    EXPECT(opf_reduce_local(b1, b2, 3, dstale, OPF_SUM), OPF_ERR_TYPE);
    EXPECT(opf_reduce_local3(b1, b2, b3, 3, dstale, OPF_SUM), OPF_ERR_TYPE);
    CHECK_RC(opf_type_contiguous(2, OPF_INT, &d2), OPF_SUCCESS);
    CHECK_RC(opf_type_commit(&d2), OPF_SUCCESS);
    EXPECT(opf_reduce_local(b1, b2, 3, dstale, OPF_SUM), OPF_ERR_TYPE);
    opf_datatype_t dstale2 = dstale;
    CHECK_RC(opf_type_free(&dstale2), OPF_ERR_TYPE);
    CHECK(dstale2 == dstale, "failed opf_type_free changed the handle");
    opf_count_t sz = -1;
    CHECK_RC(opf_type_size(dstale, &sz), OPF_ERR_TYPE);
    CHECK_RC(opf_type_size(d2, &sz), OPF_SUCCESS); /* the new type survived */
    CHECK(sz == 8, "size of contiguous(2, INT) = %lld", (long long)sz);
    CHECK(opf_type_name(d2) && !strcmp(opf_type_name(d2), "contiguous"), "derived type name %s (expected its constructor)",
          opf_type_name(d2) ? opf_type_name(d2) : "(null)");
    CHECK(opf_type_name(dstale) == NULL, "freed type still has a name");
    CHECK(opf_op_name(u2) && !strcmp(opf_op_name(u2), "user"), "user op name %s",
          opf_op_name(u2) ? opf_op_name(u2) : "(null)");
    CHECK(opf_op_name(stale) == NULL, "freed op still has a name");
    CHECK_RC(opf_type_free(&d2), OPF_SUCCESS);
    CHECK_RC(opf_op_free(&u2), OPF_SUCCESS);

    /* counts */
    EXPECT(opf_reduce_local(b1, b2, -1, OPF_INT, OPF_SUM), OPF_ERR_COUNT);
    CHECK(contains_ci(opf_last_error(), "negative"), "count message lacks the reason: \"%s\"", opf_last_error());
    CHECK(strstr(opf_last_error(), "SUM") && strstr(opf_last_error(), "INT"),
          "count message does not name op and type: \"%s\"", opf_last_error());
    EXPECT(opf_reduce_local(b1, b2, INT64_MIN, OPF_INT, OPF_SUM), OPF_ERR_COUNT);
    EXPECT(opf_reduce_local3(b1, b2, b3, -1, OPF_DOUBLE, OPF_MAX), OPF_ERR_COUNT);
    EXPECT(opf_reduce_local(NULL, NULL, -3, OPF_INT, OPF_SUM), OPF_ERR_COUNT);
    /* count * size overflowing is OPF_ERR_COUNT (header), checked before any access */
    EXPECT(opf_reduce_local(b1, b2, INT64_MAX / 2, OPF_DOUBLE, OPF_SUM), OPF_ERR_COUNT);
    EXPECT(opf_reduce_local3(b1, b2, b3, INT64_MAX / 4, OPF_LONG_DOUBLE, OPF_SUM), OPF_ERR_COUNT);

    /* NULL buffers with count > 0; count 0 with NULL buffers is fine */
    EXPECT(opf_reduce_local(NULL, b2, 5, OPF_INT, OPF_SUM), OPF_ERR_BUFFER);
    EXPECT(opf_reduce_local(b1, NULL, 5, OPF_INT, OPF_SUM), OPF_ERR_BUFFER);
    EXPECT(opf_reduce_local(b1, NULL, 1, OPF_INT, OPF_NO_OP), OPF_ERR_BUFFER);
    EXPECT(opf_reduce_local3(NULL, b2, b3, 5, OPF_INT, OPF_SUM), OPF_ERR_BUFFER);
    EXPECT(opf_reduce_local3(b1, NULL, b3, 5, OPF_INT, OPF_SUM), OPF_ERR_BUFFER);
    EXPECT(opf_reduce_local3(b1, b2, NULL, 5, OPF_INT, OPF_SUM), OPF_ERR_BUFFER);
    EXPECT(opf_reduce_local3(b1, b2, NULL, 1, OPF_INT, OPF_REPLACE), OPF_ERR_BUFFER);
    EXPECT(opf_reduce_local3(NULL, b2, b3, 1, OPF_INT, OPF_NO_OP), OPF_ERR_BUFFER);
    CHECK(strlen(opf_last_error()) > 0, "no message for a NULL buffer");
    EXPECT(opf_reduce_local(NULL, NULL, 0, OPF_INT, OPF_SUM), OPF_SUCCESS);
    EXPECT(opf_reduce_local3(NULL, NULL, NULL, 0, OPF_INT, OPF_SUM), OPF_SUCCESS);
    EXPECT(opf_reduce_local(b1, b2, 0, OPF_INT, OPF_SUM), OPF_SUCCESS);
    EXPECT(opf_reduce_local3(b1, b2, b3, 0, OPF_INT, OPF_SUM), OPF_SUCCESS);
}

/* ---- op life cycle ------------------------------------------------------ */
static void test_op_calls(void)
{
    for (int o = 0; o < OPF_OPID_COUNT; ++o) {
        opf_op_t h = OPH(o);
        CHECK_RC(opf_op_free(&h), OPF_ERR_OP);
        CHECK(h == OPH(o), "opf_op_free changed predefined handle %d", o);
    }
    CHECK_RC(opf_op_free(NULL), OPF_ERR_ARG);

    opf_op_t u = OPF_OP_NULL;
    CHECK_RC(opf_op_create(NULL, 1, &u), OPF_ERR_ARG);
    CHECK(u == OPF_OP_NULL, "failed create wrote a handle");
    CHECK_RC(opf_op_create_c(NULL, 1, &u), OPF_ERR_ARG);
    CHECK_RC(opf_op_create(user_fn, 1, NULL), OPF_ERR_ARG);
    CHECK_RC(opf_op_create_c(user_fn_c, 1, NULL), OPF_ERR_ARG);

    int flag = -1;
    /* MPI: "all predefined operations are also assumed to be commutative";
     * Open MPI flags REPLACE and NO_OP commutative as well */
    for (int o = 1; o < OPF_OPID_COUNT; ++o) {
        flag = -1;
        CHECK_RC(opf_op_commutative(OPH(o), &flag), OPF_SUCCESS);
        CHECK(flag == 1, "predefined op %d commutative flag %d", o, flag);
    }
    opf_op_t nc = OPF_OP_NULL, cc = OPF_OP_NULL;
    CHECK_RC(opf_op_create(user_fn, 0, &nc), OPF_SUCCESS);
    CHECK_RC(opf_op_create_c(user_fn_c, 1, &cc), OPF_SUCCESS);
    CHECK(nc != OPF_OP_NULL && cc != OPF_OP_NULL && nc != cc, "created handles not distinct");
    flag = -1;
    CHECK_RC(opf_op_commutative(nc, &flag), OPF_SUCCESS);
    CHECK(flag == 0, "commute=0 op reports %d", flag);
    flag = -1;
    CHECK_RC(opf_op_commutative(cc, &flag), OPF_SUCCESS);
    CHECK(flag == 1, "commute=1 op reports %d", flag);
    CHECK_RC(opf_op_commutative(OPF_OP_NULL, &flag), OPF_ERR_OP);
    CHECK_RC(opf_op_commutative((opf_op_t)(uintptr_t)0x12345678, &flag), OPF_ERR_OP);
    CHECK_RC(opf_op_commutative(nc, NULL), OPF_ERR_ARG);

    opf_op_t copy = nc;
    CHECK_RC(opf_op_free(&nc), OPF_SUCCESS);
    CHECK(nc == OPF_OP_NULL, "free did not reset the handle");
    CHECK_RC(opf_op_free(&nc), OPF_ERR_OP);   /* second free through the reset handle */
    CHECK_RC(opf_op_free(&copy), OPF_ERR_OP); /* second free through a stale copy */
    CHECK_RC(opf_op_commutative(copy, &flag), OPF_ERR_OP);
    CHECK_RC(opf_op_free(&cc), OPF_SUCCESS);
}

/* ---- datatype life cycle and constructor errors ------------------------- */
static void test_type_calls(void)
{
    for (int t = 0; t < OPF_TYPEID_COUNT_; ++t) {
        opf_datatype_t h = TYH(t);
        CHECK_RC(opf_type_free(&h), OPF_ERR_TYPE);
        CHECK(h == TYH(t), "opf_type_free changed predefined handle %d", t);
    }
    CHECK_RC(opf_type_free(NULL), OPF_ERR_ARG);

    opf_datatype_t d = OPF_DATATYPE_NULL, copy;
    CHECK_RC(opf_type_vector(2, 1, 3, OPF_INT, &d), OPF_SUCCESS);
    CHECK_RC(opf_type_commit(&d), OPF_SUCCESS);
    copy = d;
    CHECK_RC(opf_type_free(&d), OPF_SUCCESS);
    CHECK(d == OPF_DATATYPE_NULL, "type free did not reset the handle");
    CHECK_RC(opf_type_free(&d), OPF_ERR_TYPE);
    CHECK_RC(opf_type_free(&copy), OPF_ERR_TYPE);
    CHECK_RC(opf_type_commit(&copy), OPF_ERR_TYPE);
    opf_aint_t lb, ext;
    opf_count_t sz;
    CHECK_RC(opf_type_get_extent(copy, &lb, &ext), OPF_ERR_TYPE);
    CHECK_RC(opf_type_get_true_extent(copy, &lb, &ext), OPF_ERR_TYPE);
    CHECK_RC(opf_type_size(copy, &sz), OPF_ERR_TYPE);
    CHECK_RC(opf_type_size(OPF_DATATYPE_NULL, &sz), OPF_ERR_TYPE);
    CHECK_RC(opf_type_size(OPF_INT, NULL), OPF_ERR_ARG);

    /* constructors: negative count, NULL newtype, invalid oldtype */
    const int bl[2] = { 1, 1 }, disp[2] = { 0, 2 };
    const opf_aint_t hdisp[2] = { 0, 8 };
    opf_datatype_t tys[2] = { OPF_INT, OPF_INT };
    opf_datatype_t n = OPF_DATATYPE_NULL;
    CHECK_RC(opf_type_contiguous(-1, OPF_INT, &n), OPF_ERR_COUNT);
    CHECK_RC(opf_type_vector(-1, 1, 1, OPF_INT, &n), OPF_ERR_COUNT);
    CHECK_RC(opf_type_create_hvector(-1, 1, 4, OPF_INT, &n), OPF_ERR_COUNT);
    CHECK_RC(opf_type_indexed(-1, bl, disp, OPF_INT, &n), OPF_ERR_COUNT);
    CHECK_RC(opf_type_create_hindexed(-1, bl, hdisp, OPF_INT, &n), OPF_ERR_COUNT);
    CHECK_RC(opf_type_create_struct(-1, bl, hdisp, tys, &n), OPF_ERR_COUNT);
    CHECK(n == OPF_DATATYPE_NULL, "a failed constructor wrote a handle");
    /* a negative block length is an error too (code not fixed by the spec) */
    CHECK(opf_type_vector(2, -1, 1, OPF_INT, &n) != OPF_SUCCESS, "vector with blocklength -1 accepted");
    const int negbl[2] = { 1, -2 };
    CHECK(opf_type_indexed(2, negbl, disp, OPF_INT, &n) != OPF_SUCCESS, "indexed with blocklength -2 accepted");
    n = OPF_DATATYPE_NULL;

    CHECK_RC(opf_type_contiguous(2, OPF_INT, NULL), OPF_ERR_ARG);
    CHECK_RC(opf_type_vector(2, 1, 1, OPF_INT, NULL), OPF_ERR_ARG);
    CHECK_RC(opf_type_create_hvector(2, 1, 4, OPF_INT, NULL), OPF_ERR_ARG);
    CHECK_RC(opf_type_indexed(2, bl, disp, OPF_INT, NULL), OPF_ERR_ARG);
    CHECK_RC(opf_type_create_hindexed(2, bl, hdisp, OPF_INT, NULL), OPF_ERR_ARG);
    CHECK_RC(opf_type_create_struct(2, bl, hdisp, tys, NULL), OPF_ERR_ARG);
    CHECK_RC(opf_type_create_resized(OPF_INT, 0, 8, NULL), OPF_ERR_ARG);
    CHECK_RC(opf_type_dup(OPF_INT, NULL), OPF_ERR_ARG);
    CHECK_RC(opf_type_commit(NULL), OPF_ERR_ARG);
    /* NULL arrays with count > 0 */
    CHECK_RC(opf_type_indexed(2, NULL, disp, OPF_INT, &n), OPF_ERR_ARG);
    CHECK_RC(opf_type_indexed(2, bl, NULL, OPF_INT, &n), OPF_ERR_ARG);
    CHECK_RC(opf_type_create_hindexed(2, NULL, hdisp, OPF_INT, &n), OPF_ERR_ARG);
    CHECK_RC(opf_type_create_struct(2, bl, hdisp, NULL, &n), OPF_ERR_ARG);
    CHECK_RC(opf_type_create_struct(2, bl, NULL, tys, &n), OPF_ERR_ARG);

    opf_datatype_t bad[3] = { OPF_DATATYPE_NULL, (opf_datatype_t)(uintptr_t)0x12345678, copy };
    for (int i = 0; i < 3; ++i) {
        opf_datatype_t bt[2] = { OPF_INT, bad[i] };
        CHECK_RC(opf_type_contiguous(2, bad[i], &n), OPF_ERR_TYPE);
        CHECK_RC(opf_type_vector(2, 1, 1, bad[i], &n), OPF_ERR_TYPE);
        CHECK_RC(opf_type_create_hvector(2, 1, 4, bad[i], &n), OPF_ERR_TYPE);
        CHECK_RC(opf_type_indexed(2, bl, disp, bad[i], &n), OPF_ERR_TYPE);
        CHECK_RC(opf_type_create_hindexed(2, bl, hdisp, bad[i], &n), OPF_ERR_TYPE);
        CHECK_RC(opf_type_create_struct(2, bl, hdisp, bt, &n), OPF_ERR_TYPE);
        CHECK_RC(opf_type_create_resized(bad[i], 0, 8, &n), OPF_ERR_TYPE);
        CHECK_RC(opf_type_dup(bad[i], &n), OPF_ERR_TYPE);
        CHECK(n == OPF_DATATYPE_NULL, "a failed constructor wrote a handle");
    }
}

/* ---- error strings and the last-error message --------------------------- */
static void test_error_strings(void)
{
    char s[OPF_ERR_LASTCODE][OPF_MAX_ERROR_STRING];
    for (int c = OPF_SUCCESS; c < OPF_ERR_LASTCODE; ++c) {
        int len = -1;
        memset(s[c], 0, sizeof s[c]);
        CHECK_RC(opf_error_string(c, s[c], &len), OPF_SUCCESS);
        CHECK(s[c][0] != '\0', "error string of %d is empty", c);
        CHECK(len == (int)strlen(s[c]), "error string of %d: len %d, strlen %d", c, len, (int)strlen(s[c]));
        for (int d = 0; d < c; ++d)
            CHECK(strcmp(s[c], s[d]), "codes %d and %d share the text \"%s\"", d, c, s[c]);
    }
    char buf[OPF_MAX_ERROR_STRING];
    int len;
    CHECK_RC(opf_error_string(OPF_ERR_LASTCODE, buf, &len), OPF_ERR_ARG);
    CHECK_RC(opf_error_string(-1, buf, &len), OPF_ERR_ARG);
    CHECK_RC(opf_error_string(12345, buf, &len), OPF_ERR_ARG);

    const int six[6] = { OPF_SUCCESS, OPF_ERR_OP, OPF_ERR_TYPE, OPF_ERR_COUNT, OPF_ERR_BUFFER, OPF_ERR_ARG };
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < i; ++j)
            CHECK(six[i] != six[j], "error codes %d and %d are equal", j, i);
    CHECK(OPF_SUCCESS == 0, "OPF_SUCCESS is not 0");

    /* The last error is the last FAILED call's message: a later success
     * leaves it in place (observed and documented in opframe.h). */
    int a[2] = { 1, 2 }, b[2] = { 3, 4 };
    CHECK_RC(opf_reduce_local(a, b, -2, OPF_INT, OPF_SUM), OPF_ERR_COUNT);
    char saved[1024];
    snprintf(saved, sizeof saved, "%s", opf_last_error());
    CHECK(contains_ci(saved, "negative"), "negative-count message lacks the reason: \"%s\"", saved);
    CHECK_RC(opf_reduce_local(a, b, 2, OPF_INT, OPF_SUM), OPF_SUCCESS);
    CHECK(!strcmp(opf_last_error(), saved), "a success changed the last error to \"%s\"", opf_last_error());
    CHECK_RC(opf_reduce_local(a, b, 2, OPF_BYTE, OPF_SUM), OPF_ERR_OP);
    CHECK(strcmp(opf_last_error(), saved), "a new failure did not replace the message");
    CHECK(strstr(opf_last_error(), "SUM") && strstr(opf_last_error(), "BYTE"), "message: \"%s\"", opf_last_error());
}

/* ---- init / finalize ---------------------------------------------------- */
static int calls_;
static void counting_fn(void *in, void *inout, int *len, opf_datatype_t *dt)
{
    (void)in; (void)inout; (void)len; (void)dt;
    ++calls_;
}

static void test_lifecycle(void)
{
    int flag = -1;
    opf_op_t u = OPF_OP_NULL;
    opf_datatype_t d = OPF_DATATYPE_NULL;
    int a[4] = { 1, 2, 3, 4 }, b[4] = { 10, 20, 30, 40 };

    CHECK_RC(opf_op_create(counting_fn, 1, &u), OPF_SUCCESS);
    CHECK_RC(opf_type_contiguous(2, OPF_INT, &d), OPF_SUCCESS);
    CHECK_RC(opf_type_commit(&d), OPF_SUCCESS);
    CHECK_RC(opf_finalize(), OPF_SUCCESS);
    CHECK_RC(opf_initialized(&flag), OPF_SUCCESS);
    CHECK(flag == 0, "initialized after finalize: %d", flag);

    /* reductions re-initialise lazily */
    CHECK_RC(opf_reduce_local(a, b, 4, OPF_INT, OPF_SUM), OPF_SUCCESS);
    CHECK(b[0] == 11 && b[3] == 44, "SUM after finalize gave %d %d", b[0], b[3]);
    CHECK_RC(opf_initialized(&flag), OPF_SUCCESS);
    CHECK(flag == 1, "a reduction did not re-initialise: %d", flag);

    /* handles created before finalize are invalid */
    calls_ = 0;
    fill();
    CHECK_RC(opf_reduce_local(b1, b2, 2, OPF_INT, u), OPF_ERR_OP);
    CHECK(untouched() && calls_ == 0, "stale op was used");
    CHECK_RC(opf_op_commutative(u, &flag), OPF_ERR_OP);
    EXPECT(opf_reduce_local(b1, b2, 2, d, OPF_SUM), OPF_ERR_TYPE);
    opf_count_t sz;
    CHECK_RC(opf_type_size(d, &sz), OPF_ERR_TYPE);

    /* explicit finalize / init cycle; new handles work, old ones stay dead */
    CHECK_RC(opf_finalize(), OPF_SUCCESS);
    CHECK_RC(opf_init(), OPF_SUCCESS);
    CHECK_RC(opf_init(), OPF_SUCCESS);
    CHECK_RC(opf_initialized(&flag), OPF_SUCCESS);
    CHECK(flag == 1, "not initialized after opf_init: %d", flag);
    opf_op_t u2 = OPF_OP_NULL;
    CHECK_RC(opf_op_create(counting_fn, 1, &u2), OPF_SUCCESS);
    calls_ = 0;
    CHECK_RC(opf_reduce_local(a, b, 4, OPF_INT, u2), OPF_SUCCESS);
    CHECK(calls_ == 1, "new user op called %d times", calls_);
    calls_ = 0;
    CHECK_RC(opf_reduce_local(a, b, 4, OPF_INT, u), OPF_ERR_OP);
    CHECK(calls_ == 0, "stale op called after re-init");
    CHECK_RC(opf_op_free(&u), OPF_ERR_OP);
    CHECK_RC(opf_type_free(&d), OPF_ERR_TYPE);
    CHECK_RC(opf_op_free(&u2), OPF_SUCCESS);
}

int main(void)
{
    int flag = -1;
    CHECK(strcmp(opf_last_error(), "") == 0, "last error before any failure: \"%s\"", opf_last_error());
    CHECK_RC(opf_initialized(&flag), OPF_SUCCESS);
    CHECK(flag == 0, "initialized before opf_init: %d", flag);
    CHECK_RC(opf_init(), OPF_SUCCESS);
    CHECK_RC(opf_init(), OPF_SUCCESS); /* idempotent */
    CHECK_RC(opf_initialized(&flag), OPF_SUCCESS);
    CHECK(flag == 1, "initialized after opf_init: %d", flag);
    CHECK_RC(opf_initialized(NULL), OPF_ERR_ARG);

    test_names();
    test_matrix();
    test_bad_handles();
    test_op_calls();
    test_type_calls();
    test_error_strings();
    test_lifecycle();
    opf_finalize();
    return check_summary("api_errors");
}
