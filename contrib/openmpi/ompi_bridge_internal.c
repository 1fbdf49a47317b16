/*
 * ompi_bridge_internal.c — looks inside Open MPI's op objects (its internal
 * headers, as the component does) to check what MPI calls cannot reach:
 *
 *  - every 2-buffer and 3-buffer function the bridge installed gives the
 *    same result as Open MPI's base function of that (op, slot), on
 *    well-formed data (integer-valued floating point, 0/1 logicals), from
 *    count 0 to 67 (SIMD tails) — the 3-buffer functions are never called by
 *    Open MPI 4.1.4's collectives;
 *  - the module reference count equals the references the op holds (the
 *    workaround for op selection's release of the wrong module);
 *  - with op_opframe_enable=0 the functions pass through to what Open MPI
 *    had selected before the bridge.
 *
 * Run with one rank, the bridge loaded: mpirun -np 1 ompi_bridge_internal
 */
#include "ompi_config.h"

#include <mpi.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"
#include "ompi/mca/op/op.h"
#include "ompi/mca/op/base/functions.h"

static int failures, checked2, checked3, refs_ok;

static ompi_op_t *const ops[] = {
    &ompi_mpi_op_max.op, &ompi_mpi_op_min.op, &ompi_mpi_op_sum.op, &ompi_mpi_op_prod.op,
    &ompi_mpi_op_land.op, &ompi_mpi_op_band.op, &ompi_mpi_op_lor.op, &ompi_mpi_op_bor.op,
    &ompi_mpi_op_lxor.op, &ompi_mpi_op_bxor.op, &ompi_mpi_op_maxloc.op, &ompi_mpi_op_minloc.op,
};

/* How to make well-formed elements of a slot: element layout as fields. */
enum field { F_INT, F_BOOL, F_HALF, F_FLOAT, F_DOUBLE, F_LDOUBLE, F_QUAD, F_NONE };

/* Open MPI's REAL16: C's long double in 4.1 and 5.0, _Float128 in 6.0. */
#if OMPI_HAVE_FORTRAN_REAL16 && defined(__FLT128_MANT_DIG__)
#define REAL16_FIELD _Generic((ompi_fortran_real16_t)0, _Float128: F_QUAD, default: F_LDOUBLE)
#define REAL16_BYTES sizeof(ompi_fortran_real16_t)
#else
#define REAL16_FIELD F_LDOUBLE
#define REAL16_BYTES sizeof(long double)
#endif

/* Open MPI 5.0's half-precision slot, where its C type is _Float16 */
#if OMPI_MAJOR_VERSION >= 5 && defined(HAVE_OPAL_SHORT_FLOAT_T) && defined(__FLT16_MANT_DIG__)
#define HAVE_HALF_SLOT 1
#endif
struct layout {
    int size;                 /* bytes per element */
    int nf;
    struct { enum field f; int off, bytes; } f[2];
};

static struct layout slot_layout(int s)
{
    struct layout l = {0, 0, {{F_NONE, 0, 0}, {F_NONE, 0, 0}}};
#define ONE(F, SZ) do { l.size = (SZ); l.nf = 1; l.f[0].f = (F); l.f[0].off = 0; l.f[0].bytes = (SZ); } while (0)
#define TWO(T, F1, S1, F2, S2) do { typedef T t_; l.size = sizeof(t_); l.nf = 2; \
        l.f[0].f = (F1); l.f[0].off = offsetof(t_, v); l.f[0].bytes = (S1); \
        l.f[1].f = (F2); l.f[1].off = offsetof(t_, k); l.f[1].bytes = (S2); } while (0)
    switch (s) {
    case OMPI_OP_BASE_TYPE_INT8_T: case OMPI_OP_BASE_TYPE_UINT8_T: case OMPI_OP_BASE_TYPE_BYTE: ONE(F_INT, 1); break;
    case OMPI_OP_BASE_TYPE_INT16_T: case OMPI_OP_BASE_TYPE_UINT16_T: ONE(F_INT, 2); break;
    case OMPI_OP_BASE_TYPE_INT32_T: case OMPI_OP_BASE_TYPE_UINT32_T: ONE(F_INT, 4); break;
    case OMPI_OP_BASE_TYPE_INT64_T: case OMPI_OP_BASE_TYPE_UINT64_T: ONE(F_INT, 8); break;
    case OMPI_OP_BASE_TYPE_LONG: case OMPI_OP_BASE_TYPE_UNSIGNED_LONG: ONE(F_INT, sizeof(long)); break;
    case OMPI_OP_BASE_TYPE_INTEGER: ONE(F_INT, OMPI_SIZEOF_FORTRAN_INTEGER); break;
    case OMPI_OP_BASE_TYPE_INTEGER1: ONE(F_INT, OMPI_SIZEOF_FORTRAN_INTEGER1); break;
    case OMPI_OP_BASE_TYPE_INTEGER2: ONE(F_INT, OMPI_SIZEOF_FORTRAN_INTEGER2); break;
    case OMPI_OP_BASE_TYPE_INTEGER4: ONE(F_INT, OMPI_SIZEOF_FORTRAN_INTEGER4); break;
    case OMPI_OP_BASE_TYPE_INTEGER8: ONE(F_INT, OMPI_SIZEOF_FORTRAN_INTEGER8); break;
    case OMPI_OP_BASE_TYPE_LOGICAL: ONE(F_BOOL, OMPI_SIZEOF_FORTRAN_LOGICAL); break;
    case OMPI_OP_BASE_TYPE_BOOL: ONE(F_BOOL, sizeof(bool)); break;
    case OMPI_OP_BASE_TYPE_FLOAT: ONE(F_FLOAT, 4); break;
#ifdef HAVE_HALF_SLOT
    case OMPI_OP_BASE_TYPE_SHORT_FLOAT: ONE(F_HALF, 2); break;
#endif
    case OMPI_OP_BASE_TYPE_DOUBLE: ONE(F_DOUBLE, 8); break;
    case OMPI_OP_BASE_TYPE_REAL: case OMPI_OP_BASE_TYPE_REAL4: case OMPI_OP_BASE_TYPE_REAL8:
    case OMPI_OP_BASE_TYPE_DOUBLE_PRECISION: {
        const int sz = s == OMPI_OP_BASE_TYPE_REAL ? OMPI_SIZEOF_FORTRAN_REAL
                     : s == OMPI_OP_BASE_TYPE_REAL4 ? OMPI_SIZEOF_FORTRAN_REAL4
                     : s == OMPI_OP_BASE_TYPE_REAL8 ? OMPI_SIZEOF_FORTRAN_REAL8 : OMPI_SIZEOF_FORTRAN_DOUBLE_PRECISION;
        ONE(sz == 4 ? F_FLOAT : F_DOUBLE, sz);
        break;
    }
    case OMPI_OP_BASE_TYPE_LONG_DOUBLE: ONE(F_LDOUBLE, sizeof(long double)); break;
    case OMPI_OP_BASE_TYPE_REAL16: ONE(REAL16_FIELD, REAL16_BYTES); break;
    case OMPI_OP_BASE_TYPE_C_FLOAT_COMPLEX: TWO(struct { float v; float k; }, F_FLOAT, 4, F_FLOAT, 4); break;
    case OMPI_OP_BASE_TYPE_C_DOUBLE_COMPLEX: TWO(struct { double v; double k; }, F_DOUBLE, 8, F_DOUBLE, 8); break;
    case OMPI_OP_BASE_TYPE_C_LONG_DOUBLE_COMPLEX:
        TWO(struct { long double v; long double k; }, F_LDOUBLE, sizeof(long double), F_LDOUBLE, sizeof(long double)); break;
    case OMPI_OP_BASE_TYPE_FLOAT_INT: TWO(struct { float v; int k; }, F_FLOAT, 4, F_INT, 4); break;
    case OMPI_OP_BASE_TYPE_DOUBLE_INT: TWO(struct { double v; int k; }, F_DOUBLE, 8, F_INT, 4); break;
    case OMPI_OP_BASE_TYPE_LONG_INT: TWO(struct { long v; int k; }, F_INT, sizeof(long), F_INT, 4); break;
    case OMPI_OP_BASE_TYPE_2INT: TWO(struct { int v; int k; }, F_INT, 4, F_INT, 4); break;
    case OMPI_OP_BASE_TYPE_SHORT_INT: TWO(struct { short v; int k; }, F_INT, 2, F_INT, 4); break;
    case OMPI_OP_BASE_TYPE_LONG_DOUBLE_INT: TWO(struct { long double v; int k; }, F_LDOUBLE, sizeof(long double), F_INT, 4); break;
    case OMPI_OP_BASE_TYPE_2REAL: TWO(struct { float v; float k; }, F_FLOAT, 4, F_FLOAT, 4); break;
    case OMPI_OP_BASE_TYPE_2DOUBLE_PRECISION: TWO(struct { double v; double k; }, F_DOUBLE, 8, F_DOUBLE, 8); break;
    case OMPI_OP_BASE_TYPE_2INTEGER: TWO(struct { int v; int k; }, F_INT, 4, F_INT, 4); break;
    default: break;
    }
    return l;
}

static uint64_t rng = 0x1234567;
static uint64_t next(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return rng;
}

static void fill(const struct layout *l, unsigned char *p, int n, bool pair_values)
{
    memset(p, 0, (size_t)l->size * (size_t)n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < l->nf; ++j) {
            unsigned char *q = p + (size_t)i * l->size + l->f[j].off;
            /* pair values: few, for ties; other numbers: small, non-zero */
            const int small = pair_values && j == 0 ? (int)(next() % 5) - 2 : (int)(next() % 15) - 7;
            const int v = small == 0 && !pair_values ? 3 : small;
            const uint64_t r = next();
            switch (l->f[j].f) {
            case F_INT:
                if (pair_values) {
                    const int64_t x = j == 1 ? (int64_t)(next() % 40) : v;
                    memcpy(q, &x, l->f[j].bytes);
                } else {
                    memcpy(q, &r, l->f[j].bytes);
                }
                break;
            case F_BOOL: { uint64_t b = r & 1; memcpy(q, &b, l->f[j].bytes); break; }
#ifdef HAVE_HALF_SLOT
            case F_HALF: { _Float16 x = (_Float16)v; memcpy(q, &x, 2); break; }
#endif
            case F_FLOAT: { float x = j == 1 && pair_values ? (float)(next() % 40) : (float)v; memcpy(q, &x, 4); break; }
            case F_DOUBLE: { double x = j == 1 && pair_values ? (double)(next() % 40) : v; memcpy(q, &x, 8); break; }
            case F_LDOUBLE: { long double x = v; memcpy(q, &x, sizeof(x)); break; }
#if defined(__FLT128_MANT_DIG__)
            case F_QUAD: { _Float128 x = v; memcpy(q, &x, sizeof(x)); break; }
#endif
            default: break;
            }
        }
}

/* Equal field by field (padding is not data; long doubles by value). */
static bool same(const struct layout *l, const unsigned char *a, const unsigned char *b, int n)
{
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < l->nf; ++j) {
            const size_t o = (size_t)i * l->size + l->f[j].off;
            if (l->f[j].f == F_LDOUBLE) {
                long double x, y;
                memcpy(&x, a + o, sizeof(x));
                memcpy(&y, b + o, sizeof(y));
                if (x != y) return false;
#if defined(__FLT128_MANT_DIG__)
            } else if (l->f[j].f == F_QUAD) {
                _Float128 x, y;
                memcpy(&x, a + o, sizeof(x));
                memcpy(&y, b + o, sizeof(y));
                if (x != y) return false;
#endif
            } else if (memcmp(a + o, b + o, l->f[j].bytes) != 0) return false;
        }
    return true;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int provided, index, num;
    MPI_T_cvar_handle enable;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    if (MPI_T_cvar_get_index("op_opframe_enable", &index) != MPI_SUCCESS ||
        MPI_T_cvar_handle_alloc(index, NULL, &enable, &num) != MPI_SUCCESS) {
        printf("ompi_bridge_internal: FAIL: the bridge is not loaded\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const int maxn = 67;
    ompi_op_base_module_t *bridge = NULL;
    for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); ++o) {
        ompi_op_t *op = ops[o];
        const int f = op->o_f_to_c_index;
        /* the bridge's module is the one holding most slots of this op */
        ompi_op_base_module_t *m = NULL;
        int best = 0;
        for (int s = 0; s < OMPI_OP_BASE_TYPE_MAX; ++s) {
            int c = 0;
            for (int t = 0; t < OMPI_OP_BASE_TYPE_MAX; ++t)
                c += op->o_func.intrinsic.modules[t] == op->o_func.intrinsic.modules[s];
            if (op->o_func.intrinsic.fns[s] != ompi_op_base_functions[f][s] && c > best) {
                best = c;
                m = op->o_func.intrinsic.modules[s];
            }
        }
        if (m == NULL) {
            printf("FAIL %s: no slot is served by a component\n", op->o_name);
            ++failures;
            continue;
        }
        bridge = m;
        int refs = 0;
        for (int s = 0; s < OMPI_OP_BASE_TYPE_MAX; ++s)
            refs += (op->o_func.intrinsic.modules[s] == m) + (op->o_3buff_intrinsic.modules[s] == m);
        if (m->super.obj_reference_count != refs) {
            printf("FAIL %s: module reference count %d, the op holds %d references\n", op->o_name,
                   (int)m->super.obj_reference_count, refs);
            ++failures;
        } else {
            ++refs_ok;
        }
        for (int s = 0; s < OMPI_OP_BASE_TYPE_MAX; ++s) {
            if (op->o_func.intrinsic.modules[s] != m) continue;
            const struct layout l = slot_layout(s);
            if (l.size == 0) continue;
            const bool pairs = f == OMPI_OP_BASE_FORTRAN_MAXLOC || f == OMPI_OP_BASE_FORTRAN_MINLOC;
            const size_t bytes = (size_t)l.size * maxn + 64;
            unsigned char *in1 = malloc(bytes), *in2 = malloc(bytes), *o2 = malloc(bytes), *o3 = malloc(bytes),
                          *ob = malloc(bytes), *op3 = malloc(bytes);
            for (int n = 0; n <= maxn; n += n < 20 ? 1 : 7) {
                fill(&l, in1, n, pairs);
                fill(&l, in2, n, pairs);
                struct ompi_datatype_t *dt = NULL;   /* the functions do not look at it */
                int cnt = n;
                memcpy(ob, in2, (size_t)l.size * n);
                ompi_op_base_functions[f][s](in1, ob, &cnt, &dt, NULL);                 /* Open MPI's base */
                memcpy(o2, in2, (size_t)l.size * n);
                op->o_func.intrinsic.fns[s](in1, o2, &cnt, &dt, op->o_func.intrinsic.modules[s]);
                ++checked2;
                /* Open MPI 4.1.4's base compares MPI_UNSIGNED_LONG as signed for
                 * MAX / MIN: there the 3-buffer result is held to the 2-buffer one */
                const bool base_wrong = s == OMPI_OP_BASE_TYPE_UNSIGNED_LONG &&
                                        (f == OMPI_OP_BASE_FORTRAN_MAX || f == OMPI_OP_BASE_FORTRAN_MIN);
                if (base_wrong) memcpy(ob, o2, (size_t)l.size * n);
                else if (!same(&l, o2, ob, n)) {
                    printf("FAIL %s slot %d count %d: 2-buffer result differs from Open MPI's base\n", op->o_name, s, n);
                    ++failures;
                }
                if (op->o_3buff_intrinsic.modules[s] == m && op->o_3buff_intrinsic.fns[s] != NULL) {
                    op->o_3buff_intrinsic.fns[s](in1, in2, o3, &cnt, &dt, op->o_3buff_intrinsic.modules[s]);
                    memcpy(op3, in2, (size_t)l.size * n);   /* in place: out == in2 */
                    op->o_3buff_intrinsic.fns[s](in1, op3, op3, &cnt, &dt, op->o_3buff_intrinsic.modules[s]);
                    ++checked3;
                    if (!same(&l, o3, ob, n) || !same(&l, op3, ob, n)) {
                        printf("FAIL %s slot %d count %d: 3-buffer result differs from Open MPI's base\n", op->o_name, s, n);
                        ++failures;
                    }
                }
            }
            free(in1); free(in2); free(o2); free(o3); free(ob); free(op3);
        }
    }

    /* op_opframe_enable=0: SUM on int8 goes to what Open MPI had before
     * (op/avx saturates: 100 + 100 = 127; the base wraps: -56) */
    {
        int8_t a[64], b[64], c[64];
        int off = 0, on = 1, cnt = 64;
        struct ompi_datatype_t *dt = NULL;
        ompi_op_t *sum = &ompi_mpi_op_sum.op;
        const int s = OMPI_OP_BASE_TYPE_INT8_T;
        for (int i = 0; i < 64; ++i) a[i] = b[i] = c[i] = 100;
        MPI_T_cvar_write(enable, &off);
        sum->o_func.intrinsic.fns[s](a, b, &cnt, &dt, sum->o_func.intrinsic.modules[s]);
        MPI_T_cvar_write(enable, &on);
        sum->o_func.intrinsic.fns[s](a, c, &cnt, &dt, sum->o_func.intrinsic.modules[s]);
        printf("ompi_bridge_internal: int8 100 + 100: %d with op_opframe_enable=0, %d with the bridge\n", b[0], c[0]);
        if (c[0] != -56) {
            printf("FAIL: the bridge's int8 SUM gives %d\n", c[0]);
            ++failures;
        }
    }
    MPI_T_cvar_handle_free(&enable);
    MPI_T_finalize();
    printf("ompi_bridge_internal: %d 2-buffer and %d 3-buffer checks against Open MPI's base, module reference "
           "counts right for %d of %d ops, %d failures: %s\n", checked2, checked3, refs_ok,
           (int)(sizeof(ops) / sizeof(ops[0])), failures, failures ? "FAIL" : "PASS");
    (void)bridge;
    MPI_Finalize();
    return failures ? 1 : 0;
}
