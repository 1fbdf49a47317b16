/*
 * ompi_bridge_test.c — a plain MPI program (no opframe header, no opframe
 * call) that checks every (predefined op, valid datatype) pair through
 * MPI_Reduce_local, MPI_Allreduce, MPI_Iallreduce, MPI_Reduce (two roots),
 * MPI_Scan, MPI_Reduce_scatter_block, MPI_Reduce_scatter and MPI_Accumulate
 * against exact expected results, and reads the bridge's counter
 * (MPI_T control variable op_opframe_calls) to tell who reduced:
 *
 *   --expect opframe   every MPI_Reduce_local call raised the counter by
 *                      exactly 1 and every collective call by at least 1
 *                      (summed over ranks): opframe's kernels ran;
 *   --expect stock     the counter is absent or never moved: Open MPI's
 *                      own kernels ran (component excluded or disqualified);
 *   --expect any       results only.
 *
 * Data: integer-valued floating point (sums and products exact in any
 * order, no NaN, no signed zero from products of non-zeros); full-range
 * integers (wrapping sums and products); small value ranges for MAXLOC /
 * MINLOC so ties exercise the smaller-index rule. Each run draws a seed and
 * prints it (failures repeat it); --seed N repeats a run.
 *
 * Depth: every pair at counts 1, 7, 33 and 1000, and a large Allreduce
 * (default); --quick: counts 1 and 33; --smoke: each type with one op
 * (rotating through the type's valid ops) at count 33, for a job that must
 * merely run on some kernels (Open MPI's own, after a broken install): it
 * takes seconds even on a loaded machine, where every collective of the
 * ranks waits for a time slice.
 *
 * Validity follows the MPI standard's op / type-group table; a type this
 * Open MPI cannot reduce (optional Fortran kinds) is reported and skipped.
 */
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>   /* MPIX_C_FLOAT16 (Open MPI 5.0's shortfloat extension) */
#endif

#include <complex.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Half precision through MPI, where this MPI and compiler have it */
#if defined(MPIX_C_FLOAT16) && defined(__FLT16_MANT_DIG__)
#define HAVE_F16 1
#endif
/* IEEE binary128 (Open MPI 6.0 computes MPI_REAL16 / MPI_COMPLEX32 in it) */
#if defined(__FLT128_MANT_DIG__)
#define HAVE_F128 1
typedef _Float128 f128_t;
typedef _Complex _Float128 cf128_t;
#endif

/* ---- element kinds: the C type Open MPI computes on ------------------------ */
enum kind {
    K_I8, K_U8, K_I16, K_U16, K_I32, K_U32, K_I64, K_U64,
    K_F16, K_F32, K_F64, K_LD, K_CF, K_CD, K_CLD, K_F128, K_CF128,
    K_BOOL, K_LOG32,
    K_FI, K_DI, K_LI, K_2I, K_SI, K_LDI, K_2F, K_2D,
    K_NONE
};

typedef struct { float v; int k; } fi_t;
typedef struct { double v; int k; } di_t;
typedef struct { long v; int k; } li_t;
typedef struct { int v; int k; } ii_t;
typedef struct { short v; int k; } si_t;
typedef struct { long double v; int k; } ldi_t;
typedef struct { float v; float k; } ff_t;
typedef struct { double v; double k; } dd_t;

static size_t kind_size(enum kind k)
{
    switch (k) {
    case K_I8: case K_U8: case K_BOOL: return 1;
    case K_I16: case K_U16: case K_F16: return 2;
    case K_I32: case K_U32: case K_LOG32: return 4;
    case K_I64: case K_U64: return 8;
    case K_F32: return sizeof(float);
    case K_F64: return sizeof(double);
    case K_LD: return sizeof(long double);
    case K_CF: return sizeof(float _Complex);
    case K_CD: return sizeof(double _Complex);
    case K_CLD: return sizeof(long double _Complex);
#ifdef HAVE_F128
    case K_F128: return sizeof(f128_t);
    case K_CF128: return sizeof(cf128_t);
#endif
    case K_FI: return sizeof(fi_t);
    case K_DI: return sizeof(di_t);
    case K_LI: return sizeof(li_t);
    case K_2I: return sizeof(ii_t);
    case K_SI: return sizeof(si_t);
    case K_LDI: return sizeof(ldi_t);
    case K_2F: return sizeof(ff_t);
    case K_2D: return sizeof(dd_t);
    default: return 0;
    }
}

static enum kind sint_kind(int size)
{
    return size == 1 ? K_I8 : size == 2 ? K_I16 : size == 4 ? K_I32 : size == 8 ? K_I64 : K_NONE;
}
static enum kind uint_kind(int size)
{
    return size == 1 ? K_U8 : size == 2 ? K_U16 : size == 4 ? K_U32 : size == 8 ? K_U64 : K_NONE;
}
static enum kind real_kind(int size)
{
    return size == 4 ? K_F32 : size == 8 ? K_F64 : K_NONE;
}

/* ---- the MPI standard's groups and which ops they take ------------------------ */
enum group { G_CINT, G_FINT, G_FLOAT, G_LOGICAL, G_COMPLEX, G_BYTE, G_MULTI, G_PAIR };

enum { O_MAX, O_MIN, O_SUM, O_PROD, O_LAND, O_BAND, O_LOR, O_BOR, O_LXOR, O_BXOR, O_MAXLOC, O_MINLOC, O_COUNT };
static const char *op_names[O_COUNT] = {"MAX", "MIN", "SUM", "PROD", "LAND", "BAND", "LOR", "BOR", "LXOR", "BXOR", "MAXLOC", "MINLOC"};
static MPI_Op op_handle(int o)
{
    const MPI_Op h[O_COUNT] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND,
                               MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC};
    return h[o];
}

static bool op_valid(int o, enum group g)
{
    switch (o) {
    case O_MAX: case O_MIN: return g == G_CINT || g == G_FINT || g == G_FLOAT || g == G_MULTI;
    case O_SUM: case O_PROD: return g == G_CINT || g == G_FINT || g == G_FLOAT || g == G_COMPLEX || g == G_MULTI;
    case O_LAND: case O_LOR: case O_LXOR: return g == G_CINT || g == G_LOGICAL;
    case O_BAND: case O_BOR: case O_BXOR: return g == G_CINT || g == G_FINT || g == G_BYTE || g == G_MULTI;
    case O_MAXLOC: case O_MINLOC: return g == G_PAIR;
    default: return false;
    }
}

/* ---- datatypes ------------------------------------------------------------------ */
enum sizing { FIXED, SINT_BY_SIZE, REAL_BY_SIZE, CPLX_BY_SIZE };
struct type {
    const char *name;
    MPI_Datatype dt;
    enum group group;
    enum kind kind;
    enum sizing sizing;
    bool optional;   /* may be unsupported by this Open MPI: skipped, not failed */
    bool has_gap;    /* MPI size < extent (pairs with padding) */
};

#define T(NAME, GROUP, KIND) {#NAME, NAME, GROUP, KIND, FIXED, false, false}
#define TS(NAME, GROUP, SIZING) {#NAME, NAME, GROUP, K_NONE, SIZING, false, false}
#define TO(NAME, GROUP, KIND) {#NAME, NAME, GROUP, KIND, FIXED, true, false}
static struct type types[] = {
    T(MPI_SIGNED_CHAR, G_CINT, K_I8), T(MPI_UNSIGNED_CHAR, G_CINT, K_U8),
    T(MPI_SHORT, G_CINT, K_I16), T(MPI_UNSIGNED_SHORT, G_CINT, K_U16),
    T(MPI_INT, G_CINT, K_I32), T(MPI_UNSIGNED, G_CINT, K_U32),
    T(MPI_LONG, G_CINT, K_NONE), T(MPI_UNSIGNED_LONG, G_CINT, K_NONE),
    T(MPI_LONG_LONG, G_CINT, K_I64), T(MPI_UNSIGNED_LONG_LONG, G_CINT, K_U64),
    T(MPI_INT8_T, G_CINT, K_I8), T(MPI_INT16_T, G_CINT, K_I16), T(MPI_INT32_T, G_CINT, K_I32), T(MPI_INT64_T, G_CINT, K_I64),
    T(MPI_UINT8_T, G_CINT, K_U8), T(MPI_UINT16_T, G_CINT, K_U16), T(MPI_UINT32_T, G_CINT, K_U32), T(MPI_UINT64_T, G_CINT, K_U64),
    TS(MPI_INTEGER, G_FINT, SINT_BY_SIZE),
    TO(MPI_INTEGER1, G_FINT, K_I8), TO(MPI_INTEGER2, G_FINT, K_I16), TO(MPI_INTEGER4, G_FINT, K_I32), TO(MPI_INTEGER8, G_FINT, K_I64),
#ifdef HAVE_F16
    TO(MPIX_C_FLOAT16, G_FLOAT, K_F16),
#endif
    T(MPI_FLOAT, G_FLOAT, K_F32), T(MPI_DOUBLE, G_FLOAT, K_F64), T(MPI_LONG_DOUBLE, G_FLOAT, K_LD),
    TS(MPI_REAL, G_FLOAT, REAL_BY_SIZE), TS(MPI_DOUBLE_PRECISION, G_FLOAT, REAL_BY_SIZE),
    TO(MPI_REAL4, G_FLOAT, K_F32), TO(MPI_REAL8, G_FLOAT, K_F64),
    /* Open MPI computes MPI_REAL16 as ompi_fortran_real16_t: C's long double
     * in Debian's 4.1 and 5.0, _Float128 in 6.0 (gfortran's real(16)); the
     * kind is found at run time (wide_real_kind), K_LD until then. */
    TO(MPI_REAL16, G_FLOAT, K_LD),
    T(MPI_C_BOOL, G_LOGICAL, K_BOOL), TO(MPI_CXX_BOOL, G_LOGICAL, K_BOOL),
    T(MPI_LOGICAL, G_LOGICAL, K_LOG32),
    T(MPI_C_COMPLEX, G_COMPLEX, K_CF), T(MPI_C_FLOAT_COMPLEX, G_COMPLEX, K_CF),
    T(MPI_C_DOUBLE_COMPLEX, G_COMPLEX, K_CD), T(MPI_C_LONG_DOUBLE_COMPLEX, G_COMPLEX, K_CLD),
    TO(MPI_CXX_FLOAT_COMPLEX, G_COMPLEX, K_CF), TO(MPI_CXX_DOUBLE_COMPLEX, G_COMPLEX, K_CD),
    TO(MPI_CXX_LONG_DOUBLE_COMPLEX, G_COMPLEX, K_CLD),
    TS(MPI_COMPLEX, G_COMPLEX, CPLX_BY_SIZE), TS(MPI_DOUBLE_COMPLEX, G_COMPLEX, CPLX_BY_SIZE),
    TO(MPI_COMPLEX8, G_COMPLEX, K_CF), TO(MPI_COMPLEX16, G_COMPLEX, K_CD), TO(MPI_COMPLEX32, G_COMPLEX, K_CLD),
    T(MPI_BYTE, G_BYTE, K_U8),
    T(MPI_AINT, G_MULTI, K_NONE), T(MPI_OFFSET, G_MULTI, K_NONE), T(MPI_COUNT, G_MULTI, K_NONE),
    T(MPI_FLOAT_INT, G_PAIR, K_FI), T(MPI_DOUBLE_INT, G_PAIR, K_DI), T(MPI_LONG_INT, G_PAIR, K_LI),
    T(MPI_2INT, G_PAIR, K_2I), T(MPI_SHORT_INT, G_PAIR, K_SI), T(MPI_LONG_DOUBLE_INT, G_PAIR, K_LDI),
    TS(MPI_2REAL, G_PAIR, REAL_BY_SIZE), TS(MPI_2DOUBLE_PRECISION, G_PAIR, REAL_BY_SIZE),
    TS(MPI_2INTEGER, G_PAIR, SINT_BY_SIZE),
};
#define NTYPES ((int)(sizeof(types) / sizeof(types[0])))

/* Resolves kinds that depend on sizes (long, Fortran defaults); K_NONE if the
 * type cannot be tested here. */
static enum kind resolve_kind(struct type *t)
{
    int size = 0;
    if (t->dt == MPI_DATATYPE_NULL || MPI_Type_size(t->dt, &size) != MPI_SUCCESS) return K_NONE;
    if (t->dt == MPI_LONG) return sint_kind(size);
    if (t->dt == MPI_UNSIGNED_LONG) return uint_kind(size);
    if (t->group == G_MULTI) return sint_kind(size);   /* values kept >= 0: sign does not matter */
    if (t->group == G_PAIR && t->sizing != FIXED) {
        if (t->sizing == SINT_BY_SIZE) return size == 8 ? K_2I : K_NONE;
        return size == 8 ? K_2F : size == 16 ? K_2D : K_NONE;
    }
    switch (t->sizing) {
    case SINT_BY_SIZE: return sint_kind(size);
    case REAL_BY_SIZE: return real_kind(size);
    case CPLX_BY_SIZE: return size == 8 ? K_CF : size == 16 ? K_CD : K_NONE;
    default: return t->kind;
    }
}

/* ---- random data ------------------------------------------------------------------ */
static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* a non-zero integer in [-m, m] */
static int small_nz(uint64_t *s, int m)
{
    int v = (int)(splitmix(s) % (uint64_t)(2 * m)) - m;
    return v >= 0 ? v + 1 : v;
}

static void fill(enum kind k, enum group g, int op, void *buf, int n, uint64_t seed)
{
    uint64_t s = seed;
    const bool logic = op == O_LAND || op == O_LOR || op == O_LXOR;
    const int fm = op == O_PROD ? 4 : 64;    /* float magnitudes: exact in any order */
    memset(buf, 0, kind_size(k) * (size_t)n); /* padding of long double and pairs */
    for (int i = 0; i < n; ++i) {
        uint64_t r = splitmix(&s);
        if (logic && r % 4 == 0) r = 0;              /* plenty of false */
        if (g == G_MULTI) r >>= 2;                    /* MPI_AINT/OFFSET/COUNT: >= 0 */
        switch (k) {
        case K_I8: case K_U8: ((uint8_t *)buf)[i] = (uint8_t)r; break;
        case K_I16: case K_U16: ((uint16_t *)buf)[i] = (uint16_t)r; break;
        case K_I32: case K_U32: ((uint32_t *)buf)[i] = (uint32_t)r; break;
        case K_I64: case K_U64: ((uint64_t *)buf)[i] = r; break;
#ifdef HAVE_F16
        case K_F16: ((_Float16 *)buf)[i] = (_Float16)small_nz(&s, fm); break;
#endif
        case K_F32: ((float *)buf)[i] = (float)small_nz(&s, fm); break;
        case K_F64: ((double *)buf)[i] = small_nz(&s, fm); break;
        case K_LD: ((long double *)buf)[i] = small_nz(&s, fm); break;
        case K_CF: ((float _Complex *)buf)[i] = CMPLXF((float)small_nz(&s, fm), (float)small_nz(&s, fm)); break;
        case K_CD: ((double _Complex *)buf)[i] = CMPLX(small_nz(&s, fm), small_nz(&s, fm)); break;
        case K_CLD: ((long double _Complex *)buf)[i] = CMPLXL(small_nz(&s, fm), small_nz(&s, fm)); break;
#ifdef HAVE_F128
        case K_F128: ((f128_t *)buf)[i] = small_nz(&s, fm); break;
        case K_CF128: {
            cf128_t *z = (cf128_t *)buf + i;
            __real__ *z = small_nz(&s, fm);
            __imag__ *z = small_nz(&s, fm);
        } break;
#endif
        case K_BOOL: ((uint8_t *)buf)[i] = (uint8_t)(r & 1); break;
        case K_LOG32: ((int32_t *)buf)[i] = r % 3 == 0 ? 0 : r % 3 == 1 ? 1 : 7; break;
#define PAIR(T) { T *p = (T *)buf + i; p->v = small_nz(&s, 3); p->k = (int)(splitmix(&s) % 50); } break
        case K_FI: PAIR(fi_t);
        case K_DI: PAIR(di_t);
        case K_LI: PAIR(li_t);
        case K_2I: PAIR(ii_t);
        case K_SI: PAIR(si_t);
        case K_LDI: PAIR(ldi_t);
        case K_2F: PAIR(ff_t);
        case K_2D: PAIR(dd_t);
#undef PAIR
        default: break;
        }
    }
}

/* ---- the reference: inout[i] = in[i] op inout[i], Open MPI's semantics --------------- */
#define INT_OPS(T, UT)                                                                       \
    for (int i = 0; i < n; ++i) {                                                            \
        const T a = ((const T *)in)[i];                                                      \
        T *b = (T *)inout + i;                                                               \
        switch (op) {                                                                        \
        case O_MAX: *b = a > *b ? a : *b; break;                                             \
        case O_MIN: *b = a < *b ? a : *b; break;                                             \
        case O_SUM: *b = (T)((UT)a + (UT)*b); break;                                         \
        case O_PROD: *b = (T)((UT)a * (UT)*b); break;                                        \
        case O_LAND: *b = (T)(a && *b); break;                                               \
        case O_LOR: *b = (T)(a || *b); break;                                                \
        case O_LXOR: *b = (T)((a != 0) ^ (*b != 0)); break;                                  \
        case O_BAND: *b = (T)(a & *b); break;                                                \
        case O_BOR: *b = (T)(a | *b); break;                                                 \
        case O_BXOR: *b = (T)(a ^ *b); break;                                                \
        }                                                                                    \
    }
#define FLOAT_OPS(T)                                                                         \
    for (int i = 0; i < n; ++i) {                                                            \
        const T a = ((const T *)in)[i];                                                      \
        T *b = (T *)inout + i;                                                               \
        switch (op) {                                                                        \
        case O_MAX: *b = a > *b ? a : *b; break;                                             \
        case O_MIN: *b = a < *b ? a : *b; break;                                             \
        case O_SUM: *b = a + *b; break;                                                      \
        case O_PROD: *b = a * *b; break;                                                     \
        }                                                                                    \
    }
#define CPLX_OPS(T, RE, IM, MK)                                                              \
    for (int i = 0; i < n; ++i) {                                                            \
        const T a = ((const T *)in)[i];                                                      \
        T *b = (T *)inout + i;                                                               \
        if (op == O_SUM) *b = MK(RE(a) + RE(*b), IM(a) + IM(*b));                            \
        else *b = MK(RE(a) * RE(*b) - IM(a) * IM(*b), RE(a) * IM(*b) + IM(a) * RE(*b));      \
    }
#define PAIR_OPS(T)                                                                          \
    for (int i = 0; i < n; ++i) {                                                            \
        const T *a = (const T *)in + i;                                                      \
        T *b = (T *)inout + i;                                                               \
        const bool better = op == O_MAXLOC ? a->v > b->v : a->v < b->v;                      \
        if (better) { b->v = a->v; b->k = a->k; }                                            \
        else if (a->v == b->v && a->k < b->k) b->k = a->k;                                   \
    }

#ifdef HAVE_F128
#define F128_RE(z) __real__(z)
#define F128_IM(z) __imag__(z)
static cf128_t F128_MK(f128_t re, f128_t im)
{
    cf128_t z;
    __real__ z = re;
    __imag__ z = im;
    return z;
}
#endif

static void reference(enum kind k, int op, const void *in, void *inout, int n)
{
    switch (k) {
    case K_I8: INT_OPS(int8_t, uint8_t) break;
    case K_U8: INT_OPS(uint8_t, uint8_t) break;
    case K_I16: INT_OPS(int16_t, uint16_t) break;
    case K_U16: INT_OPS(uint16_t, uint16_t) break;
    case K_I32: INT_OPS(int32_t, uint32_t) break;
    case K_U32: INT_OPS(uint32_t, uint32_t) break;
    case K_I64: INT_OPS(int64_t, uint64_t) break;
    case K_U64: INT_OPS(uint64_t, uint64_t) break;
    case K_BOOL: INT_OPS(uint8_t, uint8_t) break;
    case K_LOG32: INT_OPS(int32_t, uint32_t) break;
#ifdef HAVE_F16
    case K_F16: FLOAT_OPS(_Float16) break;
#endif
    case K_F32: FLOAT_OPS(float) break;
    case K_F64: FLOAT_OPS(double) break;
    case K_LD: FLOAT_OPS(long double) break;
    case K_CF: CPLX_OPS(float _Complex, crealf, cimagf, CMPLXF) break;
    case K_CD: CPLX_OPS(double _Complex, creal, cimag, CMPLX) break;
    case K_CLD: CPLX_OPS(long double _Complex, creall, cimagl, CMPLXL) break;
#ifdef HAVE_F128
    case K_F128: FLOAT_OPS(f128_t) break;
    case K_CF128: CPLX_OPS(cf128_t, F128_RE, F128_IM, F128_MK) break;
#endif
    case K_FI: PAIR_OPS(fi_t) break;
    case K_DI: PAIR_OPS(di_t) break;
    case K_LI: PAIR_OPS(li_t) break;
    case K_2I: PAIR_OPS(ii_t) break;
    case K_SI: PAIR_OPS(si_t) break;
    case K_LDI: PAIR_OPS(ldi_t) break;
    case K_2F: PAIR_OPS(ff_t) break;
    case K_2D: PAIR_OPS(dd_t) break;
    default: break;
    }
}

/* Element i equal? Integers bit for bit; floating point by value (no NaN
 * is ever produced); pairs field by field (padding is not data). */
static bool same(enum kind k, const void *x, const void *y, int i)
{
    switch (k) {
#ifdef HAVE_F16
    case K_F16: return ((const _Float16 *)x)[i] == ((const _Float16 *)y)[i];
#endif
    case K_F32: return ((const float *)x)[i] == ((const float *)y)[i];
    case K_F64: return ((const double *)x)[i] == ((const double *)y)[i];
    case K_LD: return ((const long double *)x)[i] == ((const long double *)y)[i];
    case K_CF: return ((const float _Complex *)x)[i] == ((const float _Complex *)y)[i];
    case K_CD: return ((const double _Complex *)x)[i] == ((const double _Complex *)y)[i];
    case K_CLD: return ((const long double _Complex *)x)[i] == ((const long double _Complex *)y)[i];
#ifdef HAVE_F128
    case K_F128: return ((const f128_t *)x)[i] == ((const f128_t *)y)[i];
    case K_CF128: return ((const cf128_t *)x)[i] == ((const cf128_t *)y)[i];
#endif
#define PAIR_EQ(T) { const T *a = (const T *)x + i, *b = (const T *)y + i; return a->v == b->v && a->k == b->k; }
    case K_FI: PAIR_EQ(fi_t)
    case K_DI: PAIR_EQ(di_t)
    case K_LI: PAIR_EQ(li_t)
    case K_2I: PAIR_EQ(ii_t)
    case K_SI: PAIR_EQ(si_t)
    case K_LDI: PAIR_EQ(ldi_t)
    case K_2F: PAIR_EQ(ff_t)
    case K_2D: PAIR_EQ(dd_t)
#undef PAIR_EQ
    default: {
        const size_t sz = kind_size(k);
        return memcmp((const char *)x + sz * (size_t)i, (const char *)y + sz * (size_t)i, sz) == 0;
    }
    }
}

static void show(enum kind k, const void *x, int i, char *out, size_t len)
{
    switch (k) {
#ifdef HAVE_F16
    case K_F16: snprintf(out, len, "%g", (double)((const _Float16 *)x)[i]); break;
#endif
    case K_F32: snprintf(out, len, "%g", (double)((const float *)x)[i]); break;
    case K_F64: snprintf(out, len, "%g", ((const double *)x)[i]); break;
    case K_LD: snprintf(out, len, "%Lg", ((const long double *)x)[i]); break;
#ifdef HAVE_F128
    case K_F128: snprintf(out, len, "%g", (double)((const f128_t *)x)[i]); break;
#endif
    default: {
        const size_t sz = kind_size(k);
        const unsigned char *p = (const unsigned char *)x + sz * (size_t)i;
        size_t o = 0;
        for (size_t b = 0; b < sz && o + 3 < len; ++b) o += (size_t)snprintf(out + o, len - o, "%02x", p[b]);
    }
    }
}

/* The C type this Open MPI computes MPI_REAL16 in: long double (Debian's
 * 4.1 and 5.0, where the Fortran kind "matches C" as long double) or
 * _Float128 (6.0), told apart by what 1.5 + 1.5 gives in each encoding;
 * K_NONE where it is neither (the type is then skipped). MPI_COMPLEX32 is
 * its complex. */
static enum kind wide_real_kind(void)
{
    unsigned char in[32] = {0}, inout[32] = {0};
#ifdef HAVE_F128
    const f128_t q = 1.5;
    memcpy(in, &q, sizeof(q));
    memcpy(inout, &q, sizeof(q));
    if (MPI_Reduce_local(in, inout, 1, MPI_REAL16, MPI_SUM) == MPI_SUCCESS) {
        f128_t r;
        memcpy(&r, inout, sizeof(r));
        if (r == 3) return K_F128;
    }
#endif
    const long double l = 1.5;
    memset(in, 0, sizeof(in));
    memset(inout, 0, sizeof(inout));
    memcpy(in, &l, sizeof(l));
    memcpy(inout, &l, sizeof(l));
    if (MPI_Reduce_local(in, inout, 1, MPI_REAL16, MPI_SUM) == MPI_SUCCESS) {
        long double r;
        memcpy(&r, inout, sizeof(r));
        if (r == 3) return K_LD;
    }
    return K_NONE;
}

/* ---- the counter ------------------------------------------------------------------ */
static MPI_T_cvar_handle calls_handle;
static bool calls_present = false;

static void counter_init(void)
{
    int provided, num, index;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    if (MPI_T_cvar_get_index("op_opframe_calls", &index) != MPI_SUCCESS) return;
    char name[256], desc[1024];
    int nlen = sizeof(name), dlen = sizeof(desc), verb, bind, scope;
    MPI_Datatype dt;
    MPI_T_enum en;
    if (MPI_T_cvar_get_info(index, name, &nlen, &verb, &dt, &en, desc, &dlen, &bind, &scope) != MPI_SUCCESS) return;
    if (dt != MPI_UNSIGNED_LONG_LONG) return;
    if (MPI_T_cvar_handle_alloc(index, NULL, &calls_handle, &num) != MPI_SUCCESS) return;
    calls_present = true;
}

static unsigned long long counter(void)
{
    unsigned long long v = 0;
    if (calls_present) MPI_T_cvar_read(calls_handle, &v);
    return v;
}

/* ---- the run ------------------------------------------------------------------------ */
enum expect { EXPECT_ANY, EXPECT_OPFRAME, EXPECT_STOCK };
static enum expect expect = EXPECT_ANY;
static int rank, nprocs;
static uint64_t seed;
static long failures, checks, proof_failures, max_report = 20;
static unsigned long long total_delta;

static uint64_t data_seed(int t, int op, int r, int n, int purpose)
{
    return seed ^ ((uint64_t)t << 48) ^ ((uint64_t)op << 40) ^ ((uint64_t)r << 32) ^ ((uint64_t)n << 8) ^ (uint64_t)purpose;
}

/* Wrong results stock Open MPI 4.1.4 gives (Debian 12), tolerated (and
 * counted) only with --expect stock; the bridge must get them right:
 *  - op/avx adds 8- and 16-bit integers with saturating instructions
 *    (MPI_SUM of 100 + 100 in MPI_INT8_T is 127, not -56);
 *  - the base's MPI_MAX / MPI_MIN on MPI_UNSIGNED_LONG compare as signed long. */
static long known_defects;
static bool known_stock_defect(const struct type *t, int op)
{
    const enum kind k = t->kind;
    if (op == O_SUM && (k == K_I8 || k == K_U8 || k == K_I16 || k == K_U16)) return true;
    if ((op == O_MAX || op == O_MIN) && t->dt == MPI_UNSIGNED_LONG) return true;
    return false;
}

static void report(const char *what, const struct type *t, int op, int n, enum kind k,
                   const void *got, const void *want)
{
    for (int i = 0; i < n; ++i)
        if (!same(k, got, want, i)) {
            char g[80], w[80];
            show(k, got, i, g, sizeof(g));
            show(k, want, i, w, sizeof(w));
            if (expect != EXPECT_OPFRAME && known_stock_defect(t, op)) {
                if (known_defects++ < 2)
                    fprintf(stderr, "rank %d: KNOWN Open MPI defect, %s %s %s count %d: element %d is %s, expected %s\n",
                            rank, what, op_names[op], t->name, n, i, g, w);
                return;
            }
            if (failures < max_report)
                fprintf(stderr, "rank %d: FAIL %s %s %s count %d: element %d is %s, expected %s (seed %" PRIu64 ")\n",
                        rank, what, op_names[op], t->name, n, i, g, w, seed);
            ++failures;
            return;
        }
}

/* Who must reduce type t: opframe has no complex binary128 type, so the
 * bridge leaves Open MPI 6.0's MPI_COMPLEX32 (_Complex _Float128) to Open
 * MPI; every other type follows --expect. */
static enum expect expect_for(const struct type *t)
{
    return t->kind == K_CF128 && expect == EXPECT_OPFRAME ? EXPECT_STOCK : expect;
}

/* The counter moved as expected for one call on this rank (`exact`: by 1). */
static void proof_local(const char *what, const struct type *t, int op, unsigned long long delta, bool exact)
{
    total_delta += delta;
    const enum expect want = expect_for(t);
    bool ok = want == EXPECT_ANY || (want == EXPECT_STOCK && delta == 0) ||
              (want == EXPECT_OPFRAME && (exact ? delta == 1 : true));
    if (!ok) {
        if (proof_failures < max_report)
            fprintf(stderr, "rank %d: PROOF %s %s %s: op_opframe_calls moved by %llu\n", rank, what,
                    op_names[op], t->name, delta);
        ++proof_failures;
    }
}

/* A collective: summed over ranks, the counter moved (opframe) or not (stock). */
static void proof_collective(const char *what, const struct type *t, int op, unsigned long long delta)
{
    unsigned long long sum = 0;
    total_delta += delta;
    MPI_Allreduce(&delta, &sum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    const enum expect want = expect_for(t);
    const bool ok = want == EXPECT_ANY || (want == EXPECT_STOCK && sum == 0) || (want == EXPECT_OPFRAME && sum >= 1);
    if (!ok) {
        if (rank == 0 && proof_failures < max_report)
            fprintf(stderr, "PROOF %s %s %s: op_opframe_calls moved by %llu over all ranks\n", what, op_names[op],
                    t->name, sum);
        ++proof_failures;
    }
}

/* The fold over ranks [r0, r1] of every rank's contribution, in rank order. */
static void fold(enum kind k, enum group g, int ti, int op, int n, int r0, int r1, void *acc, void *tmp)
{
    fill(k, g, op, acc, n, data_seed(ti, op, r1, n, 1));
    for (int r = r1 - 1; r >= r0; --r) {
        fill(k, g, op, tmp, n, data_seed(ti, op, r, n, 1));
        reference(k, op, tmp, acc, n);   /* acc = data_r op acc */
    }
}

static void test_pair(int ti, int op, const int *counts, int ncounts, bool full)
{
    struct type *t = &types[ti];
    const enum kind k = t->kind;
    const size_t sz = kind_size(k);
    const MPI_Op mop = op_handle(op);
    for (int c = 0; c < ncounts; ++c) {
        const int n = counts[c];
        const size_t bytes = sz * (size_t)n * (size_t)nprocs + 64;
        char *in = malloc(bytes), *io = malloc(bytes), *want = malloc(bytes), *tmp = malloc(bytes);
        unsigned long long c0;

        /* MPI_Reduce_local: inout = in op inout */
        fill(k, t->group, op, in, n, data_seed(ti, op, rank, n, 2));
        fill(k, t->group, op, io, n, data_seed(ti, op, rank, n, 3));
        memcpy(want, io, sz * (size_t)n);
        reference(k, op, in, want, n);
        c0 = counter();
        MPI_Reduce_local(in, io, n, t->dt, mop);
        proof_local("Reduce_local", t, op, counter() - c0, true);
        report("Reduce_local", t, op, n, k, io, want);
        ++checks;

        /* collectives: every rank's data is known to all, so each rank
         * computes the exact expected result itself */
        fill(k, t->group, op, in, n, data_seed(ti, op, rank, n, 1));
        fold(k, t->group, ti, op, n, 0, nprocs - 1, want, tmp);

        memset(io, 0, sz * (size_t)n);
        c0 = counter();
        MPI_Allreduce(in, io, n, t->dt, mop, MPI_COMM_WORLD);
        proof_collective("Allreduce", t, op, counter() - c0);
        report("Allreduce", t, op, n, k, io, want);
        ++checks;
        if (!full) goto next;

        {
            MPI_Request req;
            memset(io, 0, sz * (size_t)n);
            c0 = counter();
            MPI_Iallreduce(in, io, n, t->dt, mop, MPI_COMM_WORLD, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            proof_collective("Iallreduce", t, op, counter() - c0);
            report("Iallreduce", t, op, n, k, io, want);
            ++checks;
        }

        for (int root = 0; root < nprocs; root += nprocs - 1) {
            memset(io, 0, sz * (size_t)n);
            c0 = counter();
            MPI_Reduce(in, io, n, t->dt, mop, root, MPI_COMM_WORLD);
            proof_collective(root ? "Reduce(root last)" : "Reduce(root 0)", t, op, counter() - c0);
            if (rank == root) report(root ? "Reduce(root last)" : "Reduce(root 0)", t, op, n, k, io, want);
            ++checks;
            if (nprocs == 1) break;
        }

        {   /* scan: rank r gets the fold of ranks 0..r */
            char *sw = malloc(bytes);
            fold(k, t->group, ti, op, n, 0, rank, sw, tmp);
            memset(io, 0, sz * (size_t)n);
            c0 = counter();
            MPI_Scan(in, io, n, t->dt, mop, MPI_COMM_WORLD);
            proof_collective("Scan", t, op, counter() - c0);
            report("Scan", t, op, n, k, io, sw);
            ++checks;
            free(sw);
        }

        {   /* reduce_scatter_block: n elements per rank out of n * nprocs */
            const int total = n * nprocs;
            char *all = malloc(sz * (size_t)total + 64), *allw = malloc(sz * (size_t)total + 64),
                 *tmp2 = malloc(sz * (size_t)total + 64);
            fill(k, t->group, op, all, total, data_seed(ti, op, rank, total, 4));
            fill(k, t->group, op, allw, total, data_seed(ti, op, nprocs - 1, total, 4));
            for (int r = nprocs - 2; r >= 0; --r) {
                fill(k, t->group, op, tmp2, total, data_seed(ti, op, r, total, 4));
                reference(k, op, tmp2, allw, total);
            }
            memset(io, 0, sz * (size_t)n);
            c0 = counter();
            MPI_Reduce_scatter_block(all, io, n, t->dt, mop, MPI_COMM_WORLD);
            proof_collective("Reduce_scatter_block", t, op, counter() - c0);
            report("Reduce_scatter_block", t, op, n, k, io, allw + sz * (size_t)n * (size_t)rank);
            ++checks;

            /* reduce_scatter: rank r gets n - r elements (at least 1) */
            int *rc = malloc(sizeof(int) * (size_t)nprocs), off = 0, mine = 0, sum = 0;
            for (int r = 0; r < nprocs; ++r) {
                rc[r] = n - r > 0 ? n - r : 1;
                sum += rc[r];
            }
            if (sum <= total) {
                for (int r = 0; r < rank; ++r) off += rc[r];
                mine = rc[rank];
                memset(io, 0, sz * (size_t)n);
                /* the first `sum` elements of the same contributions */
                c0 = counter();
                MPI_Reduce_scatter(all, io, rc, t->dt, mop, MPI_COMM_WORLD);
                proof_collective("Reduce_scatter", t, op, counter() - c0);
                report("Reduce_scatter", t, op, mine, k, io, allw + sz * (size_t)off);
                ++checks;
            }
            free(rc);
            free(all);
            free(allw);
            free(tmp2);
        }

        if (t->has_gap) {
            /* Open MPI 4.1.4's osc/rdma corrupts the heap (and osc/pt2pt
             * refuses) on MPI_Accumulate with a datatype that has a gap
             * (MPI_DOUBLE_INT, MPI_LONG_INT, MPI_SHORT_INT,
             * MPI_LONG_DOUBLE_INT): a defect of the one-sided layer, not of
             * any op kernel. */
        } else {   /* accumulate into rank 0's window: init op data_0 op ... op data_{P-1} */
            MPI_Win win;
            char *wbuf = malloc(sz * (size_t)n + 64);
            fill(k, t->group, op, wbuf, n, data_seed(ti, op, 0, n, 5));
            if (rank == 0) {
                memcpy(want, wbuf, sz * (size_t)n);
                for (int r = 0; r < nprocs; ++r) {
                    fill(k, t->group, op, tmp, n, data_seed(ti, op, r, n, 1));
                    reference(k, op, tmp, want, n);
                }
            }
            MPI_Win_create(wbuf, (MPI_Aint)(sz * (size_t)n), (int)sz, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
            MPI_Win_fence(0, win);
            c0 = counter();
            MPI_Accumulate(in, n, t->dt, 0, 0, n, t->dt, mop, win);
            MPI_Win_fence(0, win);
            /* osc may use the network's atomics for some pairs: no per-call proof */
            total_delta += counter() - c0;
            if (rank == 0) report("Accumulate", t, op, n, k, wbuf, want);
            ++checks;
            MPI_Win_free(&win);
            free(wbuf);
        }
    next:
        free(in);
        free(io);
        free(want);
        free(tmp);
    }
}

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; ++i) ((int *)inout)[i] += ((int *)in)[i];
}

int main(int argc, char **argv)
{
    bool quick = false, smoke = false;   /* smoke: counts too (33 is in both lists) */
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    /* a fresh seed per run (rank 0's clock), printed; --seed N repeats one */
    seed = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ULL ^ (uint64_t)clock();
    MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--quick")) quick = true;
        else if (!strcmp(argv[i], "--smoke")) smoke = true;
        else if (!strcmp(argv[i], "--max-report") && i + 1 < argc) max_report = strtol(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--expect") && i + 1 < argc) {
            ++i;
            expect = !strcmp(argv[i], "opframe") ? EXPECT_OPFRAME : !strcmp(argv[i], "stock") ? EXPECT_STOCK : EXPECT_ANY;
        }
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (MPI_REAL16 != MPI_DATATYPE_NULL) {
        const enum kind wide = wide_real_kind();
        for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); ++t) {
            if (types[t].dt == MPI_REAL16) types[t].kind = wide;
            if (types[t].dt == MPI_COMPLEX32) types[t].kind = wide == K_F128 ? K_CF128 : wide == K_LD ? K_CLD : K_NONE;
        }
    }
    counter_init();
    if (rank == 0)
        printf("ompi_bridge_test: %d ranks, seed %" PRIu64 ", expect %s, op_opframe_calls %s\n", nprocs, seed,
               expect == EXPECT_OPFRAME ? "opframe" : expect == EXPECT_STOCK ? "stock" : "any",
               calls_present ? "present" : "absent");
    if (expect == EXPECT_OPFRAME && !calls_present) {
        if (rank == 0) fprintf(stderr, "PROOF: op_opframe_calls is not an MPI_T control variable here: the bridge is not loaded\n");
        ++proof_failures;
    }

    if (calls_present) {   /* opframe's kernels per slot, as an MPI_T control variable */
        int index, num = 0;
        MPI_T_cvar_handle h;
        char *text = calloc(1, 1 << 16);   /* Open MPI copies the whole string */
        if (MPI_T_cvar_get_index("op_opframe_kernels_sum", &index) == MPI_SUCCESS &&
            MPI_T_cvar_handle_alloc(index, NULL, &h, &num) == MPI_SUCCESS) {
            if (num < (1 << 16)) MPI_T_cvar_read(h, text);
            MPI_T_cvar_handle_free(&h);
        }
        const bool listed = strstr(text, "float=") != NULL;
        if (rank == 0) printf("ompi_bridge_test: op_opframe_kernels_sum through MPI_T: \"%.60s%s\"\n", text,
                              strlen(text) > 60 ? "..." : "");
        if (expect == EXPECT_OPFRAME && !listed) {
            fprintf(stderr, "rank %d: FAIL op_opframe_kernels_sum (MPI_T) lists no float slot\n", rank);
            ++failures;
        }
        free(text);
    }

    const int counts_full[] = {1, 7, 33, 1000};
    const int counts_quick[] = {1, 33};
    const int *counts = smoke ? counts_quick + 1 : quick ? counts_quick : counts_full;
    const int ncounts = smoke ? 1 : quick ? 2 : 4;
    int pairs = 0, skipped = 0;
    for (int ti = 0; ti < NTYPES; ++ti) {
        struct type *t = &types[ti];
        t->kind = resolve_kind(t);
        MPI_Aint lb = 0, extent = 0;
        if (t->kind != K_NONE) MPI_Type_get_extent(t->dt, &lb, &extent);
        int tsize = 0;
        if (t->kind != K_NONE) MPI_Type_size(t->dt, &tsize);
        t->has_gap = tsize != extent;
        if (t->kind == K_NONE || (size_t)extent != kind_size(t->kind)) {
            if (rank == 0) printf("  skip %s: no C layout to test it with\n", t->name);
            ++skipped;
            continue;
        }
        int nvalid = 0, valid_index = 0;
        for (int op = 0; op < O_COUNT; ++op) nvalid += op_valid(op, t->group);
        for (int op = 0; op < O_COUNT; ++op) {
            if (!op_valid(op, t->group)) continue;
            if (smoke && valid_index++ != ti % nvalid) continue;
            /* can this Open MPI reduce it at all? (optional Fortran kinds) */
            char a[64] = {0}, b[64] = {0};
            if (MPI_Reduce_local(a, b, 1, t->dt, op_handle(op)) != MPI_SUCCESS) {
                if (rank == 0) printf("  skip %s %s: %s\n", op_names[op], t->name,
                                      t->optional ? "not supported by this Open MPI" : "REJECTED (a required pair)");
                if (!t->optional) ++failures;
                ++skipped;
                continue;
            }
            test_pair(ti, op, counts, ncounts, true);
            ++pairs;
        }
    }

    /* a large Allreduce (segmented algorithms) for a few pairs */
    if (!quick && !smoke) {
        const int big[] = {1 << 17};
        for (int ti = 0; ti < NTYPES; ++ti) {
            const MPI_Datatype d = types[ti].dt;
            if (d == MPI_FLOAT) test_pair(ti, O_SUM, big, 1, false);
            if (d == MPI_DOUBLE) test_pair(ti, O_MAX, big, 1, false);
            if (d == MPI_DOUBLE_INT) test_pair(ti, O_MAXLOC, big, 1, false);
            if (d == MPI_INT) test_pair(ti, O_BXOR, big, 1, false);
        }
    }

#ifdef HAVE_F16
    {   /* half precision through MPI: one Allreduce, its opframe calls counted */
        enum { N16 = 4096 };
        _Float16 *x = malloc(sizeof(_Float16) * N16), *y = malloc(sizeof(_Float16) * N16);
        for (int i = 0; i < N16; ++i) x[i] = (_Float16)((rank + i) % 7 + 1);
        const unsigned long long c0 = counter();
        MPI_Allreduce(x, y, N16, MPIX_C_FLOAT16, MPI_SUM, MPI_COMM_WORLD);
        unsigned long long d = counter() - c0, all = 0;
        MPI_Allreduce(&d, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        int wrong = 0;
        for (int i = 0; i < N16; ++i) {
            int want = 0;
            for (int r = 0; r < nprocs; ++r) want += (r + i) % 7 + 1;
            wrong += y[i] != (_Float16)want;
        }
        failures += wrong;
        if (expect == EXPECT_OPFRAME ? all == 0 : expect == EXPECT_STOCK && all != 0) ++proof_failures;
        if (rank == 0)
            printf("ompi_bridge_test: MPIX_C_FLOAT16 MPI_SUM Allreduce of %d: %d wrong, %llu opframe kernel calls "
                   "over %d ranks\n", N16, wrong, all, nprocs);
        ++checks;
        free(x);
        free(y);
    }
#endif

    if (calls_present) {   /* op_opframe_enable, written through MPI_T, passes calls to Open MPI's kernels */
        int index, num;
        MPI_T_cvar_handle h;
        if (MPI_T_cvar_get_index("op_opframe_enable", &index) != MPI_SUCCESS ||
            MPI_T_cvar_handle_alloc(index, NULL, &h, &num) != MPI_SUCCESS) {
            fprintf(stderr, "rank %d: FAIL op_opframe_enable is not an MPI_T control variable\n", rank);
            ++failures;
        } else {
            int a[3] = {1, 2, 3}, b[3] = {10, 20, 30}, off = 0, on = 1;
            unsigned long long c0 = counter();
            MPI_T_cvar_write(h, &off);
            MPI_Reduce_local(a, b, 3, MPI_INT, MPI_SUM);
            const unsigned long long d_off = counter() - c0;
            c0 = counter();
            MPI_T_cvar_write(h, &on);
            MPI_Reduce_local(a, b, 3, MPI_INT, MPI_SUM);
            const unsigned long long d_on = counter() - c0;
            if (b[0] != 12 || b[1] != 24 || b[2] != 36 || d_off != 0 || d_on != 1) {
                fprintf(stderr, "rank %d: FAIL op_opframe_enable switch: results %d %d %d, calls %llu off / %llu on\n",
                        rank, b[0], b[1], b[2], d_off, d_on);
                ++failures;
            }
            MPI_T_cvar_handle_free(&h);
        }
        ++checks;
    }

    {   /* a user-defined op is not the bridge's: right result, counter still */
        MPI_Op uop;
        int x[5], y[5];
        for (int i = 0; i < 5; ++i) x[i] = rank * 10 + i;
        MPI_Op_create(user_sum, 1, &uop);
        const unsigned long long c0 = counter();
        MPI_Allreduce(x, y, 5, MPI_INT, uop, MPI_COMM_WORLD);
        const unsigned long long d = counter() - c0;
        for (int i = 0; i < 5; ++i)
            if (y[i] != 10 * nprocs * (nprocs - 1) / 2 + nprocs * i) {
                fprintf(stderr, "rank %d: FAIL user op Allreduce element %d = %d\n", rank, i, y[i]);
                ++failures;
                break;
            }
        if (d != 0) {
            fprintf(stderr, "rank %d: PROOF user op went through the bridge (%llu calls)\n", rank, d);
            ++proof_failures;
        }
        MPI_Op_free(&uop);
        ++checks;
    }

    long f[4] = {failures, proof_failures, checks, known_defects}, g[4];
    unsigned long long calls = total_delta, all_calls = 0;
    MPI_Reduce(f, g, 4, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&calls, &all_calls, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (calls_present) MPI_T_cvar_handle_free(&calls_handle);
    MPI_T_finalize();
    if (rank == 0) {
        printf("ompi_bridge_test: %d (op, type) pairs, %d skipped, %ld checks over %d ranks, "
               "%ld failures, %ld proof failures, opframe kernel calls during the checks: %llu\n",
               pairs, skipped, g[2], nprocs, g[0], g[1], all_calls);
        if (g[3] > 0)
            printf("ompi_bridge_test: %ld wrong results from known stock Open MPI defects (op/avx's saturating "
                   "8/16-bit MPI_SUM, MPI_MAX/MIN on MPI_UNSIGNED_LONG compared as signed) tolerated (--expect stock or any)\n",
                   g[3]);
        printf("ompi_bridge_test: %s\n", g[0] == 0 && g[1] == 0 ? "PASS" : "FAIL");
    }
    MPI_Finalize();
    return (rank == 0 && (g[0] != 0 || g[1] != 0)) ? 1 : 0;
}
