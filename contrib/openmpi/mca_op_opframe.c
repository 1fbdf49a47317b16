/*
 * mca_op_opframe.c — an Open MPI "op" component that serves the predefined
 * MPI_Ops with opframe's selected kernels.
 *
 * Dropped into Open MPI's component directory (or ~/.openmpi/components) as
 * mca_op_opframe.so, it is loaded by every MPI process. At MPI_Init
 * (init_query) it initialises opframe (opf_init) and builds, for each
 * predefined op and each of Open MPI's op type slots (OMPI_OP_BASE_TYPE_*),
 * the kernel of opframe's selected host table for the matching opframe
 * kernel type (opf_slot_kernels). op_query then hands Open MPI one module per
 * op whose 2-buffer (and 3-buffer) function pointers are small trampolines
 * that call those kernels. MPI_Reduce_local, the collectives' reductions
 * and the one-sided accumulates all go through them.
 *
 * A slot is offered only where
 *   - Open MPI's base defines a function for it (the op is valid on the type
 *     by Open MPI's own rules: the bridge never widens or narrows them, and
 *     Open MPI's op selection insists on the same NULL pattern as the base);
 *   - the slot maps to an opframe kernel type of the same element size and
 *     the same arithmetic as the C type Open MPI's base uses for it;
 *   - opframe's selected table has a kernel there.
 * Everything else stays with Open MPI (op/avx or its base).
 *
 * Failure never breaks MPI_Init: if opf_init fails or opframe finds no
 * run-time component (a broken install), init_query disqualifies the
 * component and Open MPI's own kernels are used; rank 0 says so at default
 * verbosity, with its host (tell_job), whatever the reason, as it says a
 * value opframe refuses and an op_opframe_* name nothing registered.
 *
 * Each module keeps the functions it replaced (op/avx's or the base's):
 * op_opframe_enable=false, also written at run time through MPI_T, passes
 * every call to them, so one run can time both. op_opframe_calls (MPI_T)
 * counts the calls opframe served.
 *
 * Two defects of Open MPI (4.1.4, 5.0.7) are worked around here:
 *   - ompi_op_base_op_select releases the 2-buffer slot's module when it
 *     installs a 3-buffer function; opm_enable retains our module once more
 *     per 3-buffer function it is about to install, so the count never drops
 *     to zero while the op still points at the module.
 *   - MPI_Finalize never closes the op framework, so close() may never run:
 *     nothing here depends on it (opframe stays initialised until exit).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* dladdr */
#endif
#include "ompi_config.h"

#include <dlfcn.h>
#ifndef OPF_BINDIR
#define OPF_BINDIR "/usr/local/bin"   /* the build passes opframe's bindir */
#endif
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <stdint.h>
#include <wchar.h>

#include "opal/class/opal_object.h"
#include "opal/mca/base/mca_base_var.h"
#include "opal/util/output.h"
#include "ompi/constants.h"
#include "ompi/op/op.h"
#include "ompi/mca/op/op.h"
#include "ompi/mca/op/base/functions.h"
#include "opal/mca/base/mca_base_framework.h"
#include "opal/mca/base/mca_base_component_repository.h"
#include "opal/runtime/opal_progress.h"
#include "ompi/runtime/mpiruntime.h"
#include <pmix.h>
#include <sched.h>

/* The op framework (its output stream is op_base_verbose's), declared here
 * as ompi/mca/op/base/base.h declares it: that header pulls in
 * opal/mca/threads/mutex.h, which in Open MPI 5.0 includes a header of the
 * threads component Debian's libopenmpi-dev does not ship
 * (opal/mca/threads/pthreads/threads_pthreads_mutex.h). */
OMPI_DECLSPEC extern mca_base_framework_t ompi_op_base_framework;

#include <opframe/introspect.h>

/* The Open MPI series (major.minor) whose headers this file was compiled
 * with: its op type slots (41 in 4.1.x, 43 in 5.0.x with SHORT_FLOAT at 14)
 * and its ompi_op_t are that series'. Open MPI's loader checks only the MCA
 * version (2.1.0 in both), so init_query compares this with the running
 * library and refuses to serve another series. The test overrides it to
 * prove the refusal (a build "for" a series that is not running). */
#ifndef OPF_BRIDGE_BUILT_FOR
#define OPF_BRIDGE_BUILT_FOR OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION, OMPI_RELEASE_VERSION
#endif

#define OPF_BRIDGE_MAX_TIERS 8
#define OPF_BRIDGE_SLOTS 48 /* trampolines generated below; >= OMPI_OP_BASE_TYPE_MAX */

#if OMPI_OP_BASE_TYPE_MAX > OPF_BRIDGE_SLOTS
#error "this Open MPI has more op type slots than the bridge has trampolines"
#endif

/* ---- parameters ------------------------------------------------------------ */

static int bridge_priority = 75;              /* op/avx uses 50 */
static char *bridge_params = NULL;            /* "name=value;..." for opframe */
static bool bridge_require_components = true;
static bool bridge_base_kernels = true;
static bool bridge_enable = true;             /* MPI_T-settable: false passes calls through */
static unsigned long long bridge_calls = 0;   /* read-only: kernel calls so far */
static int bridge_slots = 0;                  /* read-only: 2-buffer functions installed (count_served_slots) */
static char *bridge_opframe_version = NULL;   /* read-only */
static const int bridge_built_for[3] = {OPF_BRIDGE_BUILT_FOR};
static char bridge_built_for_text[32];
static char *bridge_ompi_version = NULL;      /* read-only: bridge_built_for_text */

/* ---- the table built at init_query ----------------------------------------- */

typedef struct {
    opf_count_t min_count;
    opf_kernel2_fn *fn;
} tier2_t;

typedef struct {
    opf_count_t min_count;
    opf_kernel3_fn *fn;
} tier3_t;

/* What a trampoline needs for one (op, slot): the kernel for counts below
 * tiered_from (every count when opframe serves the slot with one kernel),
 * and, when opframe serves it with size tiers, the tiers (ascending
 * min_count, the first one from count 0, the second from tiered_from). The
 * small counts, where a call costs most relative to its work, cost one
 * comparison: the tiers are walked only from the first switch on. */
typedef struct {
    opf_kernel2_fn *fn2;
    opf_count_t tiered_from2;
    opf_kernel3_fn *fn3;
    opf_count_t tiered_from3;
    const tier2_t *tiers2;
    const tier3_t *tiers3;
    int ntiers2, ntiers3;
} bridge_slot_t;

static bridge_slot_t bridge_table[OMPI_OP_BASE_FORTRAN_OP_MAX][OPF_BRIDGE_SLOTS];
static bool bridge_available = false;
static bool bridge_opf_initialized_here = false;
/* Why opframe cannot serve, found at registration ("" when it can), and
 * whether the job must hear it: a choice the user made that opframe cannot
 * honour (opf_init refused a parameter) or an install error (another Open
 * MPI series), as opposed to asking for nothing (negative priority). */
static char bridge_unavailable[640];
static bool bridge_unavailable_is_news = false;
static bool bridge_series_differs = false;
static int bridge_live_modules = 0;

/* ---- the module -------------------------------------------------------------- */

typedef struct {
    ompi_op_base_module_t super;
    bridge_slot_t slot[OPF_BRIDGE_SLOTS];
    /* What Open MPI had installed before us (op/avx's or the base's), with
     * its module: op_opframe_enable=false calls these instead. */
    ompi_op_base_handler_fn_t prev_fn2[OPF_BRIDGE_SLOTS];
    ompi_op_base_3buff_handler_fn_t prev_fn3[OPF_BRIDGE_SLOTS];
    ompi_op_base_module_t *prev_mod2[OPF_BRIDGE_SLOTS];
    ompi_op_base_module_t *prev_mod3[OPF_BRIDGE_SLOTS];
} mca_op_opframe_module_t;

static void module_construct(mca_op_opframe_module_t *m)
{
    memset(m->slot, 0, sizeof(m->slot));
    memset(m->prev_fn2, 0, sizeof(m->prev_fn2));
    memset(m->prev_fn3, 0, sizeof(m->prev_fn3));
    memset(m->prev_mod2, 0, sizeof(m->prev_mod2));
    memset(m->prev_mod3, 0, sizeof(m->prev_mod3));
    ++bridge_live_modules;
}

static void module_destruct(mca_op_opframe_module_t *m)
{
    for (int s = 0; s < OPF_BRIDGE_SLOTS; ++s) {
        if (m->prev_mod2[s] != NULL) OBJ_RELEASE(m->prev_mod2[s]);
        if (m->prev_mod3[s] != NULL) OBJ_RELEASE(m->prev_mod3[s]);
    }
    --bridge_live_modules;
}

OBJ_CLASS_INSTANCE(mca_op_opframe_module_t, ompi_op_base_module_t, module_construct, module_destruct);

/* ---- trampolines: Open MPI's signatures onto opframe's kernels ---------------- */

/* The job check (below) runs once, after MPI_Init, before the first kernel
 * call that follows it: until then a trampoline pays one load and compare. */
enum { JOB_UNCHECKED, JOB_CHECKING, JOB_CHECKED };
static int job_state = JOB_CHECKED;   /* JOB_UNCHECKED once this rank published its entry */
static void job_check(void);
static inline void job_check_once(void)
{
    if (__builtin_expect(__atomic_load_n(&job_state, __ATOMIC_ACQUIRE) != JOB_CHECKED, 0)) job_check();
}

/* op_opframe_calls: a relaxed load and store, not a locked add (which costs
 * as much as a small kernel). Exact in one thread; reductions running in
 * several threads at once may lose counts. */
static inline void count_call(void)
{
    __atomic_store_n(&bridge_calls, __atomic_load_n(&bridge_calls, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

static inline opf_kernel2_fn *pick2(const bridge_slot_t *s, opf_count_t n)
{
    if (__builtin_expect(n < s->tiered_from2, 1)) return s->fn2;
    for (int i = s->ntiers2 - 1; i > 1; --i)
        if (n >= s->tiers2[i].min_count) return s->tiers2[i].fn;
    return s->tiers2[1].fn;
}

static inline opf_kernel3_fn *pick3(const bridge_slot_t *s, opf_count_t n)
{
    if (__builtin_expect(n < s->tiered_from3, 1)) return s->fn3;
    for (int i = s->ntiers3 - 1; i > 1; --i)
        if (n >= s->tiers3[i].min_count) return s->tiers3[i].fn;
    return s->tiers3[1].fn;
}

/* opframe's kernels touch only data bytes (component.h): a buffer of pairs
 * ends at its last element's data, as Open MPI sizes its temporaries
 * ((count - 1) * extent + true extent: 12 bytes for the last MPI_DOUBLE_INT),
 * and x87 long double padding is never written. So every slot takes the
 * direct path. */

/* Open MPI hands *count elements of the slot's C type (it resolves derived
 * types to their single predefined type before calling), inout = in op inout
 * for 2 buffers and out = in1 op in2 for 3: the same contract as opframe's
 * kernels. */
#define BRIDGE_TRAMPOLINES(S)                                                                    \
    static void bridge_fn2_##S(const void *in, void *inout, int *count,                          \
                               struct ompi_datatype_t **dtype, struct ompi_op_base_module_1_0_0_t *module) \
    {                                                                                            \
        const mca_op_opframe_module_t *m = (const mca_op_opframe_module_t *)module;             \
        const bridge_slot_t *s = &m->slot[S];                                                    \
        const opf_count_t n = *count;                                                            \
        job_check_once();                                                                        \
        if (__builtin_expect(!__atomic_load_n(&bridge_enable, __ATOMIC_RELAXED), 0) &&           \
            m->prev_fn2[S] != NULL) {                                                            \
            m->prev_fn2[S](in, inout, count, dtype, m->prev_mod2[S]);                            \
            return;                                                                              \
        }                                                                                        \
        count_call();                                                                            \
        pick2(s, n)(in, inout, n);                                                               \
    }                                                                                            \
    static void bridge_fn3_##S(const void *in1, const void *in2, void *out, int *count,          \
                               struct ompi_datatype_t **dtype, struct ompi_op_base_module_1_0_0_t *module) \
    {                                                                                            \
        const mca_op_opframe_module_t *m = (const mca_op_opframe_module_t *)module;             \
        const bridge_slot_t *s = &m->slot[S];                                                    \
        const opf_count_t n = *count;                                                            \
        job_check_once();                                                                        \
        if (__builtin_expect(!__atomic_load_n(&bridge_enable, __ATOMIC_RELAXED), 0) &&           \
            m->prev_fn3[S] != NULL) {                                                            \
            m->prev_fn3[S](in1, in2, out, count, dtype, m->prev_mod3[S]);                        \
            return;                                                                              \
        }                                                                                        \
        count_call();                                                                            \
        pick3(s, n)(in1, in2, out, n);                                                           \
    }

#define BRIDGE_FOR_EACH_SLOT(X)                                                                  \
    X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)       \
    X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30)  \
    X(31) X(32) X(33) X(34) X(35) X(36) X(37) X(38) X(39) X(40) X(41) X(42) X(43) X(44) X(45)  \
    X(46) X(47)

BRIDGE_FOR_EACH_SLOT(BRIDGE_TRAMPOLINES)

#define BRIDGE_FN2_ENTRY(S) bridge_fn2_##S,
#define BRIDGE_FN3_ENTRY(S) bridge_fn3_##S,
static const ompi_op_base_handler_fn_t bridge_fn2[OPF_BRIDGE_SLOTS] = {BRIDGE_FOR_EACH_SLOT(BRIDGE_FN2_ENTRY)};
static const ompi_op_base_3buff_handler_fn_t bridge_fn3[OPF_BRIDGE_SLOTS] = {BRIDGE_FOR_EACH_SLOT(BRIDGE_FN3_ENTRY)};

/* ---- Open MPI op type slots -> opframe kernel types ------------------------------ */

static int sint_kt(size_t size)
{
    switch (size) {
    case 1: return OPF_KT_INT8;
    case 2: return OPF_KT_INT16;
    case 4: return OPF_KT_INT32;
    case 8: return OPF_KT_INT64;
    case 16: return OPF_KT_INT128;
    default: return -1;
    }
}

static int uint_kt(size_t size)
{
    switch (size) {
    case 1: return OPF_KT_UINT8;
    case 2: return OPF_KT_UINT16;
    case 4: return OPF_KT_UINT32;
    case 8: return OPF_KT_UINT64;
    default: return -1;
    }
}

/* Fortran REAL kinds Open MPI computes as float / double. */
static int real_kt(size_t size)
{
    switch (size) {
    case 4: return OPF_KT_FLOAT;
    case 8: return OPF_KT_DOUBLE;
    default: return -1;
    }
}

static int real_pair_kt(size_t size)
{
    switch (size) {
    case 4: return OPF_KT_2FLOAT;
    case 8: return OPF_KT_2DOUBLE;
    default: return -1;
    }
}

/* The C layouts Open MPI's base uses for the value-index pairs. */
typedef struct { float v; int k; } pair_float_int_t;
typedef struct { double v; int k; } pair_double_int_t;
typedef struct { long v; int k; } pair_long_int_t;
typedef struct { int v; int k; } pair_2int_t;
typedef struct { short v; int k; } pair_short_int_t;
typedef struct { long double v; int k; } pair_long_double_int_t;

/* The opframe kernel type serving Open MPI slot `slot`, and the size of one
 * element of the C type Open MPI's base computes on; -1 if none. */
static int slot_kernel_type(int slot, size_t *size, const char **name)
{
#define SLOT(S, SIZE, KT) case OMPI_OP_BASE_TYPE_##S: *name = #S; *size = (SIZE); return (KT)
    switch (slot) {
    SLOT(INT8_T, 1, OPF_KT_INT8);
    SLOT(UINT8_T, 1, OPF_KT_UINT8);
    SLOT(INT16_T, 2, OPF_KT_INT16);
    SLOT(UINT16_T, 2, OPF_KT_UINT16);
    SLOT(INT32_T, 4, OPF_KT_INT32);
    SLOT(UINT32_T, 4, OPF_KT_UINT32);
    SLOT(INT64_T, 8, OPF_KT_INT64);
    SLOT(UINT64_T, 8, OPF_KT_UINT64);
    SLOT(INTEGER, OMPI_SIZEOF_FORTRAN_INTEGER, sint_kt(OMPI_SIZEOF_FORTRAN_INTEGER));
    SLOT(INTEGER1, OMPI_SIZEOF_FORTRAN_INTEGER1, sint_kt(OMPI_SIZEOF_FORTRAN_INTEGER1));
    SLOT(INTEGER2, OMPI_SIZEOF_FORTRAN_INTEGER2, sint_kt(OMPI_SIZEOF_FORTRAN_INTEGER2));
    SLOT(INTEGER4, OMPI_SIZEOF_FORTRAN_INTEGER4, sint_kt(OMPI_SIZEOF_FORTRAN_INTEGER4));
    SLOT(INTEGER8, OMPI_SIZEOF_FORTRAN_INTEGER8, sint_kt(OMPI_SIZEOF_FORTRAN_INTEGER8));
    SLOT(INTEGER16, OMPI_SIZEOF_FORTRAN_INTEGER16, sint_kt(OMPI_SIZEOF_FORTRAN_INTEGER16));
#if OMPI_MAJOR_VERSION >= 5
    /* 5.0's half-precision slots (MPIX_C_FLOAT16 = MPIX_SHORT_FLOAT). Open
     * MPI computes them on opal_short_float_t; where that is _Float16, C
     * evaluates each operation in float and rounds once to nearest-even,
     * as opframe's FLOAT16 kernels do. No opframe type for the complex one. */
#if defined(HAVE_OPAL_SHORT_FLOAT_T) && defined(__FLT16_MANT_DIG__)
    SLOT(SHORT_FLOAT, sizeof(opal_short_float_t),
         _Generic((opal_short_float_t)0, _Float16: OPF_KT_FLOAT16, default: -1));
#else
    SLOT(SHORT_FLOAT, 2, -1);
#endif
    SLOT(C_SHORT_FLOAT_COMPLEX, 4, -1);
#endif
    SLOT(FLOAT, sizeof(float), OPF_KT_FLOAT);
    SLOT(DOUBLE, sizeof(double), OPF_KT_DOUBLE);
    SLOT(REAL, OMPI_SIZEOF_FORTRAN_REAL, real_kt(OMPI_SIZEOF_FORTRAN_REAL));
    /* REAL2: Open MPI has no half-precision arithmetic of its own to match. */
    SLOT(REAL2, 2, -1);
    SLOT(REAL4, OMPI_SIZEOF_FORTRAN_REAL4, real_kt(OMPI_SIZEOF_FORTRAN_REAL4));
    SLOT(REAL8, OMPI_SIZEOF_FORTRAN_REAL8, real_kt(OMPI_SIZEOF_FORTRAN_REAL8));
#if OMPI_HAVE_FORTRAN_REAL16 && OMPI_REAL16_MATCHES_C && defined(__FLT128_MANT_DIG__)
    /* Open MPI computes REAL16 as ompi_fortran_real16_t where it "matches
     * C": C's long double in 4.1 and 5.0 (x86-64: the 80-bit x87 format;
     * MPI_REAL16 even shares MPI_LONG_DOUBLE's type id there), _Float128 in
     * 6.0 (gfortran's real(16), IEEE binary128). Served as whichever it is. */
    SLOT(REAL16, sizeof(ompi_fortran_real16_t),
         _Generic((ompi_fortran_real16_t)0, long double: OPF_KT_LONG_DOUBLE, _Float128: OPF_KT_FLOAT128,
                  default: -1));
#elif OMPI_HAVE_FORTRAN_REAL16 && OMPI_REAL16_MATCHES_C
    SLOT(REAL16, sizeof(long double),
         _Generic((ompi_fortran_real16_t)0, long double: OPF_KT_LONG_DOUBLE, default: -1));
#else
    SLOT(REAL16, 16, -1);
#endif
    SLOT(DOUBLE_PRECISION, OMPI_SIZEOF_FORTRAN_DOUBLE_PRECISION, real_kt(OMPI_SIZEOF_FORTRAN_DOUBLE_PRECISION));
    SLOT(LONG_DOUBLE, sizeof(long double), OPF_KT_LONG_DOUBLE);
    /* Fortran LOGICAL (4 bytes here) and C bool (1 byte): LAND/LOR/LXOR take
     * non-zero as true and give 1 or 0 in both Open MPI and opframe. */
    SLOT(LOGICAL, OMPI_SIZEOF_FORTRAN_LOGICAL, sint_kt(OMPI_SIZEOF_FORTRAN_LOGICAL));
    SLOT(BOOL, sizeof(bool), uint_kt(sizeof(bool)));
    SLOT(C_FLOAT_COMPLEX, sizeof(float _Complex), OPF_KT_C_FLOAT_COMPLEX);
    SLOT(C_DOUBLE_COMPLEX, sizeof(double _Complex), OPF_KT_C_DOUBLE_COMPLEX);
    SLOT(C_LONG_DOUBLE_COMPLEX, sizeof(long double _Complex), OPF_KT_C_LONG_DOUBLE_COMPLEX);
#if OMPI_MAJOR_VERSION >= 6
    /* 6.0's binary128 complex slot: opframe has no complex binary128 type. */
    SLOT(C_FLOAT128_COMPLEX, 32, -1);
#endif
    SLOT(BYTE, 1, OPF_KT_UINT8);
    SLOT(2REAL, 2 * OMPI_SIZEOF_FORTRAN_REAL, real_pair_kt(OMPI_SIZEOF_FORTRAN_REAL));
    SLOT(2DOUBLE_PRECISION, 2 * OMPI_SIZEOF_FORTRAN_DOUBLE_PRECISION,
         real_pair_kt(OMPI_SIZEOF_FORTRAN_DOUBLE_PRECISION));
    SLOT(2INTEGER, 2 * OMPI_SIZEOF_FORTRAN_INTEGER, OMPI_SIZEOF_FORTRAN_INTEGER == 4 ? OPF_KT_2INT : -1);
    SLOT(FLOAT_INT, sizeof(pair_float_int_t), OPF_KT_FLOAT_INT);
    SLOT(DOUBLE_INT, sizeof(pair_double_int_t), OPF_KT_DOUBLE_INT);
    SLOT(LONG_INT, sizeof(pair_long_int_t), OPF_KT_LONG_INT);
    SLOT(2INT, sizeof(pair_2int_t), OPF_KT_2INT);
    SLOT(SHORT_INT, sizeof(pair_short_int_t), OPF_KT_SHORT_INT);
    SLOT(LONG_DOUBLE_INT, sizeof(pair_long_double_int_t), OPF_KT_LONG_DOUBLE_INT);
    SLOT(LONG, sizeof(long), sint_kt(sizeof(long)));
    SLOT(UNSIGNED_LONG, sizeof(unsigned long), uint_kt(sizeof(unsigned long)));
    SLOT(WCHAR, sizeof(wchar_t), (WCHAR_MIN < 0 ? sint_kt(sizeof(wchar_t)) : uint_kt(sizeof(wchar_t))));
    default:
        *name = "?";
        *size = 0;
        return -1;
    }
#undef SLOT
}


/* Open MPI's Fortran op handles (= index in ompi_op_base_functions) ->
 * opframe's op ids. */
static int opf_op_id(int ompi_op)
{
    switch (ompi_op) {
    case OMPI_OP_BASE_FORTRAN_MAX: return OPF_OPID_MAX;
    case OMPI_OP_BASE_FORTRAN_MIN: return OPF_OPID_MIN;
    case OMPI_OP_BASE_FORTRAN_SUM: return OPF_OPID_SUM;
    case OMPI_OP_BASE_FORTRAN_PROD: return OPF_OPID_PROD;
    case OMPI_OP_BASE_FORTRAN_LAND: return OPF_OPID_LAND;
    case OMPI_OP_BASE_FORTRAN_BAND: return OPF_OPID_BAND;
    case OMPI_OP_BASE_FORTRAN_LOR: return OPF_OPID_LOR;
    case OMPI_OP_BASE_FORTRAN_BOR: return OPF_OPID_BOR;
    case OMPI_OP_BASE_FORTRAN_LXOR: return OPF_OPID_LXOR;
    case OMPI_OP_BASE_FORTRAN_BXOR: return OPF_OPID_BXOR;
    case OMPI_OP_BASE_FORTRAN_MAXLOC: return OPF_OPID_MAXLOC;
    case OMPI_OP_BASE_FORTRAN_MINLOC: return OPF_OPID_MINLOC;
    /* REPLACE and NO_OP never go through Open MPI's op selection */
    default: return -1;
    }
}

/* ---- size tiers ---------------------------------------------------------------- */

/* opframe's selected kernel for a slot may change with the count (offers that
 * serve only large counts): opf_slot_tiers lists them. Returns the number of
 * tiers written (1: no tiers), or 0 unless opframe has a kernel for every
 * count. */
static int find_tiers(int op, int kt, int nbuf, opf_count_t *min_count, opf_kernel2_fn **fn2, opf_kernel3_fn **fn3)
{
    opf_slot_tier_t tiers[OPF_BRIDGE_MAX_TIERS];
    int n = 0;
    if (opf_slot_tiers(op, kt, nbuf, tiers, OPF_BRIDGE_MAX_TIERS, &n) != OPF_SUCCESS) return 0;
    if (n > OPF_BRIDGE_MAX_TIERS) n = OPF_BRIDGE_MAX_TIERS; /* the largest counts keep the last tier listed */
    for (int i = 0; i < n; ++i) {
        if (nbuf == 2 ? tiers[i].fn2 == NULL : tiers[i].fn3 == NULL) return 0;
        min_count[i] = tiers[i].min_count;
        if (fn2 != NULL) fn2[i] = tiers[i].fn2;
        if (fn3 != NULL) fn3[i] = tiers[i].fn3;
    }
    return n;
}

/* ---- the table ------------------------------------------------------------------ */

static void free_table(void)
{
    for (int op = 0; op < OMPI_OP_BASE_FORTRAN_OP_MAX; ++op)
        for (int s = 0; s < OPF_BRIDGE_SLOTS; ++s) {
            free((void *)bridge_table[op][s].tiers2);
            free((void *)bridge_table[op][s].tiers3);
        }
    memset(bridge_table, 0, sizeof(bridge_table));
}

static bool provider_is_base(int op, int kt, int nbuf)
{
    const char *small = opf_slot_provider(op, kt, nbuf, 1);
    const char *large = opf_slot_provider(op, kt, nbuf, INT_MAX);
    return small && large && strcmp(small, "base") == 0 && strcmp(large, "base") == 0;
}

static int build_table(void)
{
    const int out = ompi_op_base_framework.framework_output;
    int n2 = 0, n3 = 0, ntiered = 0;
    free_table();
    for (int op = 1; op < OMPI_OP_BASE_FORTRAN_OP_MAX; ++op) {
        const int opf_op = opf_op_id(op);
        if (opf_op < 0) continue;
        for (int s = 0; s < OMPI_OP_BASE_TYPE_MAX; ++s) {
            if (ompi_op_base_functions[op][s] == NULL) continue; /* not valid in Open MPI */
            size_t size;
            const char *name;
            const int kt = slot_kernel_type(s, &size, &name);
            if (kt < 0 || opf_kernel_type_extent(kt) != (int)size) {
                opal_output_verbose(40, out, "op:opframe: %s %s: no opframe kernel type of %zu bytes; left to Open MPI",
                                    opf_op_name(OPF_OP_HANDLE_(opf_op)), name, size);
                continue;
            }
            opf_kernel2_fn *f2 = NULL;
            opf_kernel3_fn *f3 = NULL;
            if (opf_slot_kernels(opf_op, kt, NULL, 0, &f2, &f3) != OPF_SUCCESS || f2 == NULL) continue;
            if (!bridge_base_kernels && provider_is_base(opf_op, kt, 2)) {
                opal_output_verbose(40, out, "op:opframe: %s %s: opframe has only its base kernel; left to Open MPI",
                                    opf_op_name(OPF_OP_HANDLE_(opf_op)), name);
                continue;
            }
            bridge_slot_t *e = &bridge_table[op][s];
            opf_count_t mc[OPF_BRIDGE_MAX_TIERS];
            opf_kernel2_fn *fn2[OPF_BRIDGE_MAX_TIERS];
            opf_kernel3_fn *fn3[OPF_BRIDGE_MAX_TIERS];
            int nt = find_tiers(opf_op, kt, 2, mc, fn2, NULL);
            if (nt == 0) continue;
            e->fn2 = fn2[0];
            e->tiered_from2 = nt > 1 ? mc[1] : INT64_MAX;
            if (nt > 1) {
                tier2_t *t = malloc(sizeof(*t) * nt);
                if (t == NULL) return OMPI_ERR_OUT_OF_RESOURCE;
                for (int i = 0; i < nt; ++i) t[i] = (tier2_t){mc[i], fn2[i]};
                e->tiers2 = t;
                e->ntiers2 = nt;
                ++ntiered;
            }
            ++n2;
            nt = ompi_op_base_3buff_functions[op][s] != NULL && f3 != NULL ? find_tiers(opf_op, kt, 3, mc, NULL, fn3) : 0;
            if (nt > 0) {
                e->fn3 = fn3[0];
                e->tiered_from3 = nt > 1 ? mc[1] : INT64_MAX;
                if (nt > 1) {
                    tier3_t *t = malloc(sizeof(*t) * nt);
                    if (t == NULL) return OMPI_ERR_OUT_OF_RESOURCE;
                    for (int i = 0; i < nt; ++i) t[i] = (tier3_t){mc[i], fn3[i]};
                    e->tiers3 = t;
                    e->ntiers3 = nt;
                }
                ++n3;
            }
            if (opal_output_get_verbosity(out) >= 40) { /* each provider with its counts, as opframe_info says it */
                char p2[256], p3[256];
                if (opf_slot_tiers_text(opf_op, kt, OPF_MEM_HOST, 2, 0, p2, sizeof(p2)) != OPF_SUCCESS) strcpy(p2, "-");
                if (e->fn3 == NULL) strcpy(p3, "(Open MPI)");
                else if (opf_slot_tiers_text(opf_op, kt, OPF_MEM_HOST, 3, 0, p3, sizeof(p3)) != OPF_SUCCESS) strcpy(p3, "-");
                opal_output_verbose(40, out, "op:opframe: %s %s -> opframe %s: 2-buffer %s, 3-buffer %s",
                                    opf_op_name(OPF_OP_HANDLE_(opf_op)), name, opf_kernel_type_name(kt), p2, p3);
            }
        }
    }
    bridge_slots = n2;
    opal_output_verbose(20, out, "op:opframe: serving %d 2-buffer and %d 3-buffer op/type slots (%d with size tiers)",
                        n2, n3, ntiered);
    return n2 > 0 ? OMPI_SUCCESS : OMPI_ERR_NOT_AVAILABLE;
}

/* Whether this process speaks for the job at default verbosity: rank 0 of
 * MPI_COMM_WORLD, or a process started without mpirun (a singleton). The op
 * framework is opened inside MPI_Init, before any communicator exists, so
 * the rank comes from the launcher's environment (mpirun of Open MPI 4.1
 * and 5.0 sets OMPI_COMM_WORLD_RANK; PMIx launchers set PMIX_RANK). */
static const char *job_rank(void)
{
    const char *rank = getenv("OMPI_COMM_WORLD_RANK");
    return rank != NULL ? rank : getenv("PMIX_RANK");
}

static bool speaks_for_job(void)
{
    const char *rank = job_rank();
    return rank == NULL || strcmp(rank, "0") == 0;
}

/* One line the user must hear, in the style of opframe's own lines (a
 * user reads both side by side): "opframe[host:rank 0]: warning: ...", or
 * "opframe: warning: ..." outside a job (ompi_info, a singleton). The rank
 * that speaks writes it on stderr as it is (opal_output's "[host:pid]"
 * would say the host twice); every other rank says it at op_base_verbose
 * >= 10. */
static void say_warning(bool speaks, const char *text)
{
    char where[300] = "";
    const char *rank = job_rank();
    if (rank != NULL) {
        char host[256] = "?";
        if (gethostname(host, sizeof(host)) != 0) strcpy(host, "?");
        host[sizeof(host) - 1] = '\0';
        snprintf(where, sizeof(where), "[%s:rank %.16s]", host, rank);
    }
    if (speaks) {
        fprintf(stderr, "opframe%s: warning: %s\n", where, text);
        fflush(stderr);
    } else
        opal_output_verbose(10, ompi_op_base_framework.framework_output, "opframe%s: warning: %s", where, text);
}

/* Says what the user must hear (a setting opframe refused, a name nothing
 * declares, opframe off): once per job, by rank 0 (say_warning). */
static void tell_job(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void tell_job(const char *fmt, ...)
{
    char text[1024];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof(text), fmt, args);
    va_end(args);
    say_warning(speaks_for_job(), text);
}

/* ---- one rule per job ---------------------------------------------------------------
 *
 * A collective whose ranks reduce by different rules (opframe's on some,
 * Open MPI's op/avx on others: int8 sums that wrap or saturate, a NaN kept
 * or dropped, the sign of a zero) gives each rank a different answer, and
 * nothing in the results says why. So every rank that loads the bridge
 * publishes, through PMIx before MPI_Init's modex fence, one entry: its
 * host and what it reduces with,
 *   "on <opframe version> <slots>:<slot-set hash>[ yields op/<c>=<prio>...]"
 *   "off <why>"
 * (a rank without the bridge publishes nothing). Ranks that differ only in
 * which opframe provider serves a slot compute the same bits: the entry
 * names the slot set, not the providers. After MPI_Init, before the first
 * kernel call (or at the first progress call, whichever comes first), each
 * rank reads every entry from PMIx's local copy of the modex. Where they
 * are not all the same "on" entry, every rank still on opframe passes its
 * calls to the kernels Open MPI had selected (op_opframe_enable=false), so
 * the whole job reduces with Open MPI's own kernels, and the lowest rank
 * on opframe says so once, naming the ranks and why. Reductions inside
 * MPI_Init itself (communicator ids: integer MAX) agree either way. */

#define JOB_KEY "opframe.bridge.1"
static char job_entry[600];                              /* this rank's, as published */
static ompi_op_t *job_ops[OMPI_OP_BASE_FORTRAN_OP_MAX];  /* ops holding our modules */
static bool job_progress_registered = false;

/* The (op, slot) 2-buffer functions Open MPI actually installed from us:
 * op_opframe_slots. A component of higher priority wins the slots it
 * offers, so this may be fewer than the bridge offered. */
static int count_served_slots(void)
{
    int n = 0;
    for (int op = 0; op < OMPI_OP_BASE_FORTRAN_OP_MAX; ++op)
        for (int s = 0; job_ops[op] != NULL && s < OMPI_OP_BASE_TYPE_MAX; ++s)
            n += job_ops[op]->o_func.intrinsic.fns[s] == bridge_fn2[s];
    return bridge_enable ? n : 0;
}

/* Other op components whose priority ties or beats ours take their slots
 * from us: " yields op/avx=50". A component's priority is its variable
 * op_<name>_priority where it has one; Open MPI's own op components (op/avx
 * in 4.1 to 6.0, op/aarch64 from 5.0) have none and answer their query
 * with 50, which is assumed for any component without the variable. */
static void yielding_to(char *out, size_t len)
{
    mca_base_component_list_item_t *cli;
    out[0] = '\0';
    OPAL_LIST_FOREACH (cli, &ompi_op_base_framework.framework_components, mca_base_component_list_item_t) {
        const char *name = cli->cli_component->mca_component_name;
        if (strcmp(name, "opframe") == 0) continue;
        const int idx = mca_base_var_find("ompi", "op", name, "priority");
        const int *var = NULL;
        if (idx < 0 || mca_base_var_get_value(idx, &var, NULL, NULL) != OPAL_SUCCESS) var = NULL;
        const int prio = var != NULL ? *var : 50;
        const int ours = bridge_priority > 100 ? 100 : bridge_priority;
        if (prio >= ours && strlen(out) + strlen(name) + 24 < len)
            snprintf(out + strlen(out), len - strlen(out), "%s op/%s=%d", out[0] ? "," : " yields", name, prio);
    }
}

/* This rank's entry, published for the others; "" where there is no job
 * to agree with (no PMIx server: a singleton, ompi_info). */
static void job_publish(const char *state)
{
    char host[256] = "?";
    if (getenv("PMIX_NAMESPACE") == NULL || !PMIx_Initialized()) return;
    if (gethostname(host, sizeof(host)) != 0) strcpy(host, "?");
    host[sizeof(host) - 1] = '\0';
    snprintf(job_entry, sizeof(job_entry), "%.64s\t%s", host, state);
    pmix_value_t value;
    memset(&value, 0, sizeof(value));
    value.type = PMIX_STRING;
    value.data.string = job_entry;
    if (PMIx_Put(PMIX_GLOBAL, JOB_KEY, &value) != PMIX_SUCCESS || PMIx_Commit() != PMIX_SUCCESS) {
        opal_output_verbose(10, ompi_op_base_framework.framework_output,
                            "op:opframe: could not publish this rank's state through PMIx; ranks are not compared");
        return;
    }
    __atomic_store_n(&job_state, JOB_UNCHECKED, __ATOMIC_RELEASE);
}

static void job_publish_on(void)
{
    uint64_t hash = 1469598103934665603ull;   /* FNV-1a over the offered (op, slot, 3-buffer) set */
    int offered = 0;
    for (int op = 0; op < OMPI_OP_BASE_FORTRAN_OP_MAX; ++op)
        for (int s = 0; s < OPF_BRIDGE_SLOTS; ++s) {
            if (bridge_table[op][s].fn2 == NULL) continue;
            const unsigned char key[3] = {(unsigned char)op, (unsigned char)s, bridge_table[op][s].fn3 != NULL};
            for (int i = 0; i < 3; ++i) hash = (hash ^ key[i]) * 1099511628211ull;
            ++offered;
        }
    char yields[200], state[400];
    yielding_to(yields, sizeof(yields));
    snprintf(state, sizeof(state), "on %s %d:%016llx%s", bridge_opframe_version, offered,
             (unsigned long long)hash, yields);
    job_publish(state);
}

static void job_publish_off(const char *why)
{
    char state[560];
    snprintf(state, sizeof(state), "off %.540s", why);
    job_publish(state);
}

/* "0,2-5,7" into out. */
static void rank_list(const bool *in, uint32_t n, char *out, size_t len)
{
    out[0] = '\0';
    for (uint32_t r = 0; r < n; ++r) {
        if (!in[r]) continue;
        uint32_t end = r;
        while (end + 1 < n && in[end + 1]) ++end;
        const size_t used = strlen(out);
        if (used + 32 >= len) { snprintf(out + used, len - used, ",..."); return; }
        if (end == r) snprintf(out + used, len - used, "%s%u", used ? "," : "", r);
        else snprintf(out + used, len - used, "%s%u-%u", used ? "," : "", r, end);
        r = end;
    }
}

/* What an entry says, for the line: the state without the host. */
static void describe_entry(const char *state, char *out, size_t len)
{
    if (state == NULL)
        snprintf(out, len, "no opframe bridge (not installed where they run, or excluded, as by OMPI_MCA_op=^opframe)");
    else if (strncmp(state, "off ", 4) == 0)
        snprintf(out, len, "opframe is off: %s", state + 4);
    else {
        char version[32] = "?";
        int slots = 0;
        sscanf(state, "on %31s %d:", version, &slots);
        const char *yields = strstr(state, " yields ");
        snprintf(out, len, "opframe %s on %d type slots%s%s", version, slots,
                 yields ? ", giving the slots they offer to" : "", yields ? yields + 7 : "");
    }
}

static uint32_t job_size(const char *nspace)
{
    pmix_proc_t wild;
    pmix_value_t *v = NULL;
    uint32_t n = 0;
    PMIX_LOAD_PROCID(&wild, nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) == PMIX_SUCCESS && v != NULL) {
        if (v->type == PMIX_UINT32) n = v->data.uint32;
        PMIX_VALUE_RELEASE(v);
    }
    return n;
}

/* Every rank's entry (NULL: none published), in one array the caller frees. */
static char **job_entries(const char *nspace, uint32_t n)
{
    char **entries = calloc(n, sizeof(*entries));
    if (entries == NULL) return NULL;
    pmix_info_t optional;   /* what the modex brought; never wait for a rank that published nothing */
    bool yes = true;
    PMIX_INFO_LOAD(&optional, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    for (uint32_t r = 0; r < n; ++r) {
        pmix_proc_t proc;
        pmix_value_t *v = NULL;
        PMIX_LOAD_PROCID(&proc, nspace, r);
        if (PMIx_Get(&proc, JOB_KEY, &optional, 1, &v) == PMIX_SUCCESS && v != NULL) {
            if (v->type == PMIX_STRING && v->data.string != NULL) entries[r] = strdup(v->data.string);
            PMIX_VALUE_RELEASE(v);
        }
    }
    PMIX_INFO_DESTRUCT(&optional);
    return entries;
}

static const char *entry_state(const char *entry)
{
    const char *tab = entry ? strchr(entry, '\t') : NULL;
    return tab ? tab + 1 : entry;
}

static bool same_state(const char *a, const char *b)
{
    return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(entry_state(a), entry_state(b)) == 0);
}

/* The line: each group of ranks with one state, its hosts (three at most). */
static void say_mixed(char **entries, uint32_t n, uint32_t speaker)
{
    size_t cap = 4096, used = 0;
    char *text = malloc(cap);
    bool *done = calloc(n, sizeof(bool)), *group = calloc(n, sizeof(bool));
    if (text == NULL || done == NULL || group == NULL) goto out;
    used = (size_t)snprintf(text, cap, "the ranks of this job do not all reduce by opframe's rules:");
    for (uint32_t r = 0; r < n && used + 200 < cap; ++r) {
        if (done[r]) continue;
        char hosts[200] = "";
        int nhosts = 0;
        memset(group, 0, n * sizeof(bool));
        for (uint32_t q = r; q < n; ++q) {
            group[q] = !done[q] && same_state(entries[q], entries[r]);
            if (!group[q]) continue;
            done[q] = true;
            const char *tab = entries[q] ? strchr(entries[q], '\t') : NULL;
            if (tab == NULL || nhosts > 3) continue;
            char host[80];
            snprintf(host, sizeof(host), "%.*s", (int)(tab - entries[q] > 64 ? 64 : tab - entries[q]), entries[q]);
            if (strstr(hosts, host) != NULL) continue;
            if (++nhosts > 3) { strcat(hosts, ", ..."); continue; }
            if (hosts[0]) strcat(hosts, ", ");
            strncat(hosts, host, sizeof(hosts) - strlen(hosts) - 1);
        }
        char ranks[256], what[700];
        rank_list(group, n, ranks, sizeof(ranks));
        describe_entry(entry_state(entries[r]), what, sizeof(what));
        used += (size_t)snprintf(text + used, cap - used, "%s rank%s %s%s%s%s: %s", r ? ";" : "",
                                 strpbrk(ranks, ",-") ? "s" : "", ranks, hosts[0] ? " (" : "", hosts,
                                 hosts[0] ? ")" : "", what);
    }
    if (used + 200 < cap)
        snprintf(text + used, cap - used, ". Every rank now reduces with Open MPI's own kernels, so that all "
                 "ranks compute the same results (op_opframe_calls stops counting)");
    say_warning(job_rank() != NULL && (uint32_t)atoi(job_rank()) == speaker, text);
out:
    free(text);
    free(done);
    free(group);
}

static void job_check(void)
{
    /* Only once MPI_Init has returned: the modex fence has brought every
     * rank's entry, and every op has its final functions. */
    if (ompi_mpi_state != OMPI_MPI_STATE_INIT_COMPLETED) return;
    int expected = JOB_UNCHECKED;
    if (!__atomic_compare_exchange_n(&job_state, &expected, JOB_CHECKING, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(&job_state, __ATOMIC_ACQUIRE) != JOB_CHECKED) sched_yield();
        return;
    }
    const char *nspace = getenv("PMIX_NAMESPACE"), *me = getenv("PMIX_RANK");
    const uint32_t n = nspace && me ? job_size(nspace) : 0;
    char **entries = n > 1 ? job_entries(nspace, n) : NULL;
    if (entries != NULL) {
        uint32_t speaker = n, self = (uint32_t)atoi(me);
        bool mixed = false;
        if (self < n && entries[self] == NULL) entries[self] = strdup(job_entry);   /* a PMIx that hides our own */
        for (uint32_t r = 0; r < n; ++r) {
            mixed |= !same_state(entries[r], entries[0]) || entries[r] == NULL ||
                     strncmp(entry_state(entries[r]), "on ", 3) != 0;
            if (speaker == n && entries[r] != NULL && strncmp(entry_state(entries[r]), "on ", 3) == 0) speaker = r;
        }
        if (mixed) {
            __atomic_store_n(&bridge_enable, false, __ATOMIC_RELAXED);
            say_mixed(entries, n, speaker);
        }
        for (uint32_t r = 0; r < n; ++r) free(entries[r]);
        free(entries);
    }
    bridge_slots = count_served_slots();
    __atomic_store_n(&job_state, JOB_CHECKED, __ATOMIC_RELEASE);
}

/* Progress runs inside MPI_Init's fence (every op has its functions by
 * then: op_opframe_slots is exact when MPI_Init returns) and at any wait
 * after it: the check then runs even on a rank whose first kernel call is
 * far away (or never comes: the bridge lost every slot). */
static int job_progress(void)
{
    if (__builtin_expect(__atomic_load_n(&job_state, __ATOMIC_ACQUIRE) == JOB_CHECKED, 1)) return 0;
    if (ompi_mpi_state != OMPI_MPI_STATE_INIT_COMPLETED) bridge_slots = count_served_slots();
    else job_check();
    return 0;
}

/* Hands "name=value;name=value" to opframe (API values: they beat
 * OPF_MCA_* variables and opframe's files). */
static void apply_opframe_params(const char *list)
{
    if (list == NULL || list[0] == '\0') return;
    char *copy = strdup(list);
    if (copy == NULL) return;
    char *save = NULL;
    for (char *item = strtok_r(copy, ";", &save); item != NULL; item = strtok_r(NULL, ";", &save)) {
        while (*item == ' ') ++item;
        if (*item == '\0') continue;
        char *eq = strchr(item, '=');
        if (eq == NULL) {
            tell_job("op_opframe_params: \"%s\" is not name=value; ignored", item);
            continue;
        }
        *eq = '\0';
        char *end = eq;
        while (end > item && end[-1] == ' ') *--end = '\0';
        if (opf_param_set(item, eq + 1) != OPF_SUCCESS)
            tell_job("op_opframe_params: %s; ignored", opf_last_error());
    }
    free(copy);
}

/* ---- opframe's parameters and kernels, as Open MPI parameters ----------------------- */

static bool same_series(char *why, size_t len);

/* Each opframe parameter NAME is mirrored as op_opframe_NAME: Open MPI's
 * sources (--mca, OMPI_MCA_*, its files) set it, ompi_info and MPI_T show
 * it. Its default is opframe's value at registration (from opframe's own
 * sources, named in the description). Every mirror is an Open MPI string,
 * whatever opframe's type: Open MPI would turn "abc" for an integer into 0
 * without a word, while opf_param_set checks the text by opframe's rules
 * (the job hears a value it refuses). A value that Open MPI took from one
 * of its sources (not the default) is passed to opf_param_set. Storage
 * lives as long as the process: Open MPI keeps pointers to it. */
typedef struct {
    char *value;
    char *opf_default;   /* opframe's value as text (kept: Open MPI copies strings) */
} mirror_t;

#define OPF_BRIDGE_MAX_MIRRORED 256
static mirror_t mirrored[OPF_BRIDGE_MAX_MIRRORED];
static int n_mirrored;

/* The names registered under op_opframe_ (without the prefix), for the
 * check of names nobody registered (check_unknown_names). */
#define OPF_BRIDGE_MAX_NAMES (OPF_BRIDGE_MAX_MIRRORED + 64)
static char *known_names[OPF_BRIDGE_MAX_NAMES];
static int n_known;

static void remember_name(const char *name)
{
    for (int i = 0; i < n_known; ++i)
        if (strcmp(known_names[i], name) == 0) return;
    if (n_known < OPF_BRIDGE_MAX_NAMES && (known_names[n_known] = strdup(name)) != NULL) ++n_known;
}

/* Registers op_opframe_NAME and remembers NAME. */
static int register_var(const mca_base_component_t *c, const char *name, const char *desc, mca_base_var_type_t type,
                        int flags, mca_base_var_info_lvl_t level, mca_base_var_scope_t scope, void *storage)
{
    remember_name(name);
    return mca_base_component_var_register(c, name, desc, type, NULL, 0, flags, level, scope, storage);
}

/* Mirrors opframe's parameters [from, to); returns how many Open MPI's
 * sources set (now passed to opframe). */
static int mirror_params(const mca_base_component_t *c, int from, int to)
{
    int changed = 0;
    for (int i = from; i < to && n_mirrored < OPF_BRIDGE_MAX_MIRRORED; ++i) {
        opf_param_info_t p;
        if (opf_param_describe(i, &p) != OPF_SUCCESS) continue;
        mirror_t *m = &mirrored[n_mirrored++];
        m->opf_default = strdup(p.value ? p.value : "");
        if (m->opf_default == NULL) return changed;
        m->value = m->opf_default;
        char desc[1024];
        snprintf(desc, sizeof(desc), "%s [opframe parameter %s, %s%s%s; %s, from %s]",
                 p.description ? p.description : "", p.name, p.type_name, p.values ? ": " : "",
                 p.values ? p.values : "", p.read_only ? "read-only, its value when the bridge started opframe"
                 : "default here: opframe's value", p.source ? p.source : "default");
        const int flags = p.read_only ? MCA_BASE_VAR_FLAG_DEFAULT_ONLY : 0;
        const int level = p.level < 1 ? 1 : p.level > 9 ? 9 : p.level;
        const int id = register_var(c, p.name, desc, MCA_BASE_VAR_TYPE_STRING, flags,
                                    (mca_base_var_info_lvl_t)(OPAL_INFO_LVL_1 + level - 1),
                                    MCA_BASE_VAR_SCOPE_READONLY, &m->value);
        if (id < 0 || p.read_only) continue;
        const void *unused = NULL;
        mca_base_var_source_t source = MCA_BASE_VAR_SOURCE_DEFAULT;
        if (mca_base_var_get_value(id, &unused, &source, NULL) != OPAL_SUCCESS ||
            source == MCA_BASE_VAR_SOURCE_DEFAULT)
            continue;
        const char *now = m->value ? m->value : "";
        if (opf_param_set(p.name, now) == OPF_SUCCESS) ++changed;
        else tell_job("op_opframe_%s: %s; ignored", p.name, opf_last_error());
    }
    return changed;
}

/* The edit distance of a and b (insertions, deletions, substitutions and
 * swaps of neighbours count 1), for names of at most 127 characters. */
static int name_distance(const char *a, const char *b)
{
    const int la = (int)strlen(a), lb = (int)strlen(b);
    if (la > 127 || lb > 127) return INT_MAX;
    static int d[128][128];
    for (int i = 0; i <= la; ++i) d[i][0] = i;
    for (int j = 0; j <= lb; ++j) d[0][j] = j;
    for (int i = 1; i <= la; ++i)
        for (int j = 1; j <= lb; ++j) {
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

/* The registered name closest to `name`, or NULL when none is close (at
 * most a third of its letters, and at least 2, differ). */
static const char *closest_name(const char *name)
{
    const char *best = NULL;
    int best_d = INT_MAX;
    const int len = (int)strlen(name);
    const int limit = len / 3 > 2 ? len / 3 : 2;
    for (int i = 0; i < n_known; ++i) {
        const int d = name_distance(name, known_names[i]);
        if (d < best_d) {
            best_d = d;
            best = known_names[i];
        }
    }
    return best_d <= limit ? best : NULL;
}

extern char **environ;

/* Names under op_opframe_ that the environment sets (OMPI_MCA_op_opframe_*:
 * mpirun's --mca op_opframe_* reaches each MPI process so, as do -x and
 * the caller's environment) and that nothing registered: Open MPI drops
 * them in silence. The job hears each once, with the closest registered
 * name, or with the state of the opframe component the name belongs to
 * when that component could not be used. */
static void check_unknown_names(void)
{
    static const char prefix[] = "OMPI_MCA_op_opframe_";
    for (char **e = environ; e != NULL && *e != NULL; ++e) {
        if (strncmp(*e, prefix, sizeof(prefix) - 1) != 0) continue;
        const char *name = *e + sizeof(prefix) - 1;
        const char *eq = strchr(name, '=');
        const size_t len = eq != NULL ? (size_t)(eq - name) : strlen(name);
        char suffix[160], full[200];
        if (len == 0 || len >= sizeof(suffix)) continue;
        memcpy(suffix, name, len);
        suffix[len] = '\0';
        snprintf(full, sizeof(full), "op_opframe_%s", suffix);
        int vari = -1;
        if (mca_base_var_find_by_name(full, &vari) == OPAL_SUCCESS && vari >= 0) continue;
        const char *value = eq != NULL ? eq + 1 : "";
        /* op_<component>_...: a component of opframe that failed to load */
        bool said = false;
        for (int i = 0; !said && i < opf_failed_count(); ++i) {
            opf_failed_info_t f;
            if (opf_failed_describe(i, &f) != OPF_SUCCESS || f.path == NULL) continue;
            const char *base = strrchr(f.path, '/');
            base = base != NULL ? base + 1 : f.path;
            if (strncmp(base, "opf_op_", 7) != 0) continue;
            char comp[128];
            snprintf(comp, sizeof(comp), "%.*s", (int)strcspn(base + 7, "."), base + 7);
            const size_t n = strlen(comp);
            if (n == 0 || strncmp(suffix, "op_", 3) != 0 || strncmp(suffix + 3, comp, n) != 0 || suffix[3 + n] != '_')
                continue;
            tell_job("%s=\"%.200s\" is ignored: it belongs to opframe component %s, which could not be used (%s: %s)",
                     full, value, comp, f.path, f.reason ? f.reason : "?");
            said = true;
        }
        if (said) continue;
        const char *best = closest_name(suffix);
        if (best != NULL)
            tell_job("%s=\"%.200s\" is ignored: no such parameter of the bridge or of opframe (did you mean op_opframe_%s?)",
                     full, value, best);
        else
            tell_job("%s=\"%.200s\" is ignored: no such parameter of the bridge or of opframe (ompi_info --param op "
                     "opframe --level 9 lists them)", full, value);
    }
}

/* op_opframe_kernels_<op>: which opframe provider serves each Open MPI type
 * slot, each provider with the counts it serves (opf_slot_tiers_text:
 * "float=base<32,avx512>=32 int32_t=alpha ..."), what build_table
 * installs; or why none. */
static char *kernels_var[OMPI_OP_BASE_FORTRAN_OP_MAX];
static char *kernels_text[OMPI_OP_BASE_FORTRAN_OP_MAX];

static void append(char **buf, size_t *len, size_t *cap, const char *text)
{
    const size_t n = strlen(text);
    if (*buf == NULL || *len + n + 1 > *cap) {
        const size_t want = (*cap ? *cap * 2 : 512) + n;
        char *b = realloc(*buf, want);
        if (b == NULL) return;
        *buf = b;
        *cap = want;
    }
    memcpy(*buf + *len, text, n + 1);
    *len += n;
}

static char *describe_kernels(int op)
{
    const int opf_op = opf_op_id(op);
    char *buf = NULL;
    size_t len = 0, cap = 0;
    append(&buf, &len, &cap, "");
    if (bridge_unavailable[0]) {
        append(&buf, &len, &cap, "none: ");
        append(&buf, &len, &cap, bridge_unavailable);
        return buf;
    }
    for (int s = 0; s < OMPI_OP_BASE_TYPE_MAX; ++s) {
        size_t size;
        const char *name;
        const int kt = slot_kernel_type(s, &size, &name);
        if (ompi_op_base_functions[op][s] == NULL || kt < 0 || opf_kernel_type_extent(kt) != (int)size) continue;
        char tiers[256];
        if (opf_slot_tiers_text(opf_op, kt, OPF_MEM_HOST, 2, 0, tiers, sizeof(tiers)) != OPF_SUCCESS) continue;
        if (!bridge_base_kernels && provider_is_base(opf_op, kt, 2)) continue;
        char item[320], lower[48];
        size_t i = 0;
        for (; name[i] && i + 1 < sizeof(lower); ++i) lower[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
        lower[i] = '\0';
        snprintf(item, sizeof(item), "%s%s=%s", len ? " " : "", lower, tiers);
        append(&buf, &len, &cap, item);
    }
    return buf;
}

static void register_kernel_vars(const mca_base_component_t *c)
{
    for (int op = 1; op < OMPI_OP_BASE_FORTRAN_OP_MAX; ++op) {
        const int opf_op = opf_op_id(op);
        if (opf_op < 0) continue;
        char name[64], desc[256];
        snprintf(name, sizeof(name), "kernels_%s", opf_op_name(OPF_OP_HANDLE_(opf_op)));
        for (char *p = name; *p; ++p) *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
        snprintf(desc, sizeof(desc), "Read-only: for MPI_%s, the opframe provider serving each Open MPI type slot "
                 "(slot=provider, or slot=provider<count,provider>=count where kernels take over at large counts); slots not "
                 "listed stay with Open MPI", opf_op_name(OPF_OP_HANDLE_(opf_op)));
        free(kernels_text[op]);
        kernels_text[op] = describe_kernels(op);
        kernels_var[op] = kernels_text[op];
        (void)register_var(c, name, desc, MCA_BASE_VAR_TYPE_STRING, MCA_BASE_VAR_FLAG_DEFAULT_ONLY, OPAL_INFO_LVL_4,
                           MCA_BASE_VAR_SCOPE_CONSTANT, &kernels_var[op]);
    }
}

/* Starts opframe while Open MPI registers the component (MPI_Init, ompi_info),
 * so that its parameters and kernels are Open MPI parameters: opframe's
 * framework parameters are mirrored and applied before opf_init, its
 * components' after (then opframe starts again with them). */
static void start_opframe(const mca_base_component_t *c)
{
    int was_initialized = 0;
    bridge_unavailable[0] = '\0';
    bridge_series_differs = !same_series(bridge_unavailable, sizeof(bridge_unavailable));
    bridge_unavailable_is_news = bridge_series_differs;
    if (bridge_series_differs) return register_kernel_vars(c);
    if (bridge_priority < 0) {
        snprintf(bridge_unavailable, sizeof(bridge_unavailable), "op_opframe_priority is negative");
        return register_kernel_vars(c);
    }
    opf_initialized(&was_initialized);
    apply_opframe_params(bridge_params);
    const int nframework = opf_param_count();
    mirror_params(c, 0, nframework);
    if (opf_init() != OPF_SUCCESS) {
        snprintf(bridge_unavailable, sizeof(bridge_unavailable), "opf_init failed: %s", opf_last_error());
        bridge_unavailable_is_news = true;
        return register_kernel_vars(c);
    }
    bridge_opf_initialized_here = !was_initialized;
    if (mirror_params(c, nframework, opf_param_count()) > 0 && bridge_opf_initialized_here) {
        opf_finalize();   /* the components' parameters take part in selection: start again */
        if (opf_init() != OPF_SUCCESS) {
            bridge_opf_initialized_here = false;
            snprintf(bridge_unavailable, sizeof(bridge_unavailable), "opf_init failed: %s", opf_last_error());
            bridge_unavailable_is_news = true;
        }
    }
    register_kernel_vars(c);
}

/* ---- will MPI jobs load this file? ------------------------------------------------- */

#if OMPI_MAJOR_VERSION >= 5
/* Whether `dir` is one of the directories of the ':'-separated `path` (by
 * the file they name, so links and trailing '/' do not matter). */
static bool path_has_dir(const char *path, const char *dir)
{
    char want[PATH_MAX], got[PATH_MAX], item[PATH_MAX];
    if (realpath(dir, want) == NULL) return false;
    for (const char *at = path; *at;) {
        const size_t n = strcspn(at, ":");
        if (n > 0 && n < sizeof(item)) {
            memcpy(item, at, n);
            item[n] = '\0';
            if (realpath(item, got) != NULL && strcmp(got, want) == 0) return true;
        }
        at += n + (at[n] == ':');
    }
    return false;
}

/* The mca_base_component_path line of PMIx's parameter file, found by the
 * libpmix this process loaded, <prefix>/lib/libpmix.so (Debian:
 * <prefix>/share/pmix-mca-params.conf, prefix .../pmix2; upstream:
 * <prefix>/etc); false when there is none. */
static bool pmix_file_component_path(char *path, size_t len, char file[PATH_MAX], size_t file_len)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[PATH_MAX + 128], libdir[PATH_MAX] = "";
    if (maps == NULL) return false;
    while (libdir[0] == '\0' && fgets(line, sizeof(line), maps) != NULL) {
        char *lib = strstr(line, "/libpmix.so");
        char *start = strchr(line, '/');
        if (lib != NULL && start != NULL && lib >= start) snprintf(libdir, sizeof(libdir), "%.*s", (int)(lib - start), start);
    }
    fclose(maps);
    if (libdir[0] == '\0') return false;
    const char *const where[] = {"%s/../share/pmix-mca-params.conf", "%s/../etc/pmix-mca-params.conf"};
    for (size_t w = 0; w < sizeof(where) / sizeof(where[0]); ++w) {
        char name[PATH_MAX + 64];
        snprintf(name, sizeof(name), where[w], libdir);
        if (realpath(name, file) == NULL || strlen(file) >= file_len) continue;
        FILE *f = fopen(file, "r");
        if (f == NULL) continue;
        bool found = false;
        while (!found && fgets(line, sizeof(line), f) != NULL) {
            char *at = line + strspn(line, " \t");
            if (strncmp(at, "mca_base_component_path", 23) != 0) continue;
            at += 23 + strspn(at + 23, " \t");
            if (*at != '=') continue;
            ++at;
            at += strspn(at, " \t");
            at[strcspn(at, " \t\r\n")] = '\0';
            snprintf(path, len, "%s", at);
            found = true;
        }
        fclose(f);
        if (found) return true;
    }
    return false;
}
#endif

/* Open MPI 5's mpirun (prterun) gives every MPI process one component path,
 * as OMPI_MCA_mca_base_component_path: the caller's setting of it, else the
 * mca_base_component_path of PMIx's parameter file. Debian 13 sets the
 * latter to PMIx's own directory, so MPI processes never search Open MPI's
 * directory or ~/.openmpi/components, while ompi_info (no mpirun) finds the
 * bridge there and lists it. Outside a job, `why` gets that plainly, with
 * the fix, when the directory of this file is not on the path MPI processes
 * will get; "" otherwise. Inside a job the file was loaded: nothing to say. */
static void check_job_component_path(char *why, size_t len)
{
    why[0] = '\0';
#if OMPI_MAJOR_VERSION >= 5
    if (getenv("PMIX_RANK") != NULL || getenv("OMPI_COMM_WORLD_RANK") != NULL) return;
    Dl_info self;
    char path[2048], source[PATH_MAX + 64], dir[PATH_MAX];
    if (!dladdr((const void *)check_job_component_path, &self) || self.dli_fname == NULL) return;
    snprintf(dir, sizeof(dir), "%s", self.dli_fname);
    char *slash = strrchr(dir, '/');
    if (slash == NULL) return;
    *slash = '\0';
    const char *set = getenv("OMPI_MCA_mca_base_component_path");
    if (set != NULL) {
        snprintf(path, sizeof(path), "%s", set);
        snprintf(source, sizeof(source), "OMPI_MCA_mca_base_component_path");
    } else {
        char file[PATH_MAX];
        if (!pmix_file_component_path(path, sizeof(path), file, sizeof(file))) return;
        snprintf(source, sizeof(source), "from PMIx's %s", file);
    }
    if (path_has_dir(path, dir)) return;
    /* Open MPI's own path here (its directory and ~/.openmpi/components,
     * unless set otherwise), which found this file */
    char **ompi_path = NULL;
    const int id = mca_base_var_find("opal", "mca", "base", "component_path");
    if (id < 0 || mca_base_var_get_value(id, &ompi_path, NULL, NULL) != OPAL_SUCCESS || ompi_path == NULL ||
        *ompi_path == NULL || !path_has_dir(*ompi_path, dir))
        ompi_path = NULL;
    /* PMIx's line repeats libpmix's built-in directory on Debian 13: the
     * script drops it once per machine (it refuses any other value) */
    char once[PATH_MAX + 160] = "";
    if (set == NULL)
        snprintf(once, sizeof(once), "once per machine, as root: %s/opframe_ompi_path fix (see its --help); or ",
                 OPF_BINDIR);
    snprintf(why, len, "MPI jobs will not load this bridge (%s/mca_op_opframe.so): Open MPI's mpirun gives every "
             "MPI process the component path \"%s\" (%s), which does not contain %s. Fix: %sgive every job "
             "OMPI_MCA_mca_base_component_path=%s and PMIX_MCA_mca_base_component_path=%s in mpirun's "
             "environment (see mca_op_opframe(7))",
             dir, path, source, dir, once, ompi_path ? *ompi_path : dir, path);
#else
    (void)len;
#endif
}

/* ---- component functions ---------------------------------------------------------- */

static int component_register(void);
static int component_open(void);
static int component_close(void);
static int component_init_query(bool enable_progress_threads, bool enable_mpi_threads);
static struct ompi_op_base_module_1_0_0_t *component_op_query(struct ompi_op_t *op, int *priority);

__attribute__((visibility("default"))) ompi_op_base_component_1_0_0_t mca_op_opframe_component = {
    .opc_version = {
        OMPI_OP_BASE_VERSION_1_0_0,
        .mca_component_name = "opframe",
        MCA_BASE_MAKE_VERSION(component, OPF_VERSION_MAJOR, OPF_VERSION_MINOR, OPF_VERSION_PATCH),
        .mca_open_component = component_open,
        .mca_close_component = component_close,
        .mca_register_component_params = component_register,
    },
    .opc_data = {.param_field = MCA_BASE_METADATA_PARAM_CHECKPOINT},
    .opc_init_query = component_init_query,
    .opc_op_query = component_op_query,
};

/* Open MPI reads an integer variable as far as it is a number and drops
 * the rest in silence ("two" is 0, "2x" is 2: a bridge that loses every
 * slot to op/avx). The bridge's integers are refused as opframe refuses
 * its own: a value from the environment (where mpirun's --mca and -x put
 * it for the ranks) that is not an integer, with an optional k/m/g as
 * Open MPI allows, leaves the default in place, and the job hears it. */
static void refuse_non_integer(const char *name, int *value, int fallback)
{
    char env[96];
    snprintf(env, sizeof(env), "OMPI_MCA_op_opframe_%s", name);
    const char *text = getenv(env);
    if (text == NULL) return;
    char *end = NULL;
    errno = 0;
    const long v = strtol(text, &end, 0);
    if (end != text && *end != '\0' && strchr("kKmMgG", *end) != NULL) ++end;
    while (end != NULL && (*end == ' ' || *end == '\t')) ++end;
    if (end != text && *end == '\0' && errno == 0 && v >= INT_MIN && v <= INT_MAX) return;
    *value = fallback;
    tell_job("op_opframe_%s=\"%s\" is not an integer; the bridge keeps its default, %d", name, text, fallback);
}

static int component_register(void)
{
    const mca_base_component_t *c = &mca_op_opframe_component.opc_version;
    static char version[32];
    snprintf(version, sizeof(version), "%d.%d.%d", OPF_VERSION_MAJOR, OPF_VERSION_MINOR, OPF_VERSION_PATCH);
    bridge_opframe_version = version;
    snprintf(bridge_built_for_text, sizeof(bridge_built_for_text), "%d.%d.%d", bridge_built_for[0],
             bridge_built_for[1], bridge_built_for[2]);
    bridge_ompi_version = bridge_built_for_text;

    bridge_priority = 75;
    (void)register_var(c, "priority",
        "Priority of the opframe bridge in Open MPI's op selection (the highest wins each type slot; "
        "op/avx uses 50; values above 100 count as 100; negative: offer nothing)",
        MCA_BASE_VAR_TYPE_INT, 0, OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_READONLY, &bridge_priority);
    refuse_non_integer("priority", &bridge_priority, 75);

    bridge_params = NULL;
    (void)register_var(c, "params",
        "opframe parameters, \"name=value;name=value\" (e.g. \"op_base_verbose=5;op=^example\"), "
        "set with opf_param_set before opf_init: they beat OPF_MCA_<name> environment variables and "
        "opframe's mca-params.conf files (opframe_info --param op all --level 9 lists them)",
        MCA_BASE_VAR_TYPE_STRING, 0, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY, &bridge_params);

    bridge_require_components = true;
    (void)register_var(c, "require_components",
        "Disqualify the bridge (Open MPI's own kernels are used) when opframe finds no run-time "
        "component on its mca_component_path, i.e. a broken or partial opframe install",
        MCA_BASE_VAR_TYPE_BOOL, 0, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
        &bridge_require_components);

    bridge_base_kernels = true;
    (void)register_var(c, "base_kernels",
        "Also serve the type slots where opframe's selection fell to its own base kernels "
        "(false: only kernels of opframe's run-time components are installed, the other slots "
        "stay with Open MPI's op/avx or base)",
        MCA_BASE_VAR_TYPE_BOOL, 0, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
        &bridge_base_kernels);

    bridge_enable = true;
    (void)register_var(c, "enable",
        "Reduce with opframe's kernels (true) or pass each call to the function Open MPI had "
        "selected before the bridge (op/avx or its base); settable at run time through MPI_T "
        "(MPI_T_cvar_write), e.g. to compare both in one run",
        MCA_BASE_VAR_TYPE_BOOL, MCA_BASE_VAR_FLAG_SETTABLE, OPAL_INFO_LVL_4,
        MCA_BASE_VAR_SCOPE_LOCAL, &bridge_enable);

    (void)register_var(c, "calls",
        "Read-only counter: calls of opframe kernels through this bridge in this process "
        "(MPI_T control variable op_opframe_calls; proof that opframe, not Open MPI, reduced; "
        "calls made by several threads at the same time may be undercounted)",
        MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG, MCA_BASE_VAR_FLAG_DEFAULT_ONLY, OPAL_INFO_LVL_4,
        MCA_BASE_VAR_SCOPE_READONLY, &bridge_calls);

    (void)register_var(c, "slots",
        "Read-only: number of (op, type slot) 2-buffer functions of the bridge that Open MPI "
        "installed in this process, i.e. that no op component of equal or higher priority took "
        "(0 until MPI_Init, when the bridge disqualified itself, and when the job's ranks did not "
        "all reduce with opframe and every rank went to Open MPI's own kernels)",
        MCA_BASE_VAR_TYPE_INT, MCA_BASE_VAR_FLAG_DEFAULT_ONLY, OPAL_INFO_LVL_4,
        MCA_BASE_VAR_SCOPE_READONLY, &bridge_slots);

    (void)register_var(c, "ompi_version",
        "Read-only: the Open MPI version whose headers the bridge was built with; the bridge "
        "disqualifies itself under another Open MPI series (major.minor)",
        MCA_BASE_VAR_TYPE_STRING, MCA_BASE_VAR_FLAG_DEFAULT_ONLY, OPAL_INFO_LVL_4,
        MCA_BASE_VAR_SCOPE_CONSTANT, &bridge_ompi_version);

    (void)register_var(c, "opframe_version",
        "Read-only: the opframe version the bridge was built with",
        MCA_BASE_VAR_TYPE_STRING, MCA_BASE_VAR_FLAG_DEFAULT_ONLY, OPAL_INFO_LVL_4,
        MCA_BASE_VAR_SCOPE_CONSTANT, &bridge_opframe_version);

    start_opframe(c);
    if (bridge_unavailable[0] == '\0') check_unknown_names();   /* else the job hears why opframe is off */
    char hidden[PATH_MAX * 3 + 512];
    check_job_component_path(hidden, sizeof(hidden));
    if (hidden[0]) say_warning(true, hidden);
    return OMPI_SUCCESS;
}

static int component_open(void)
{
    return OMPI_SUCCESS;
}

static void release_opframe(void)
{
    free_table();
    bridge_available = false;
    bridge_slots = 0;
    if (bridge_opf_initialized_here) {
        opf_finalize();
        bridge_opf_initialized_here = false;
    }
}

static int component_close(void)
{
    if (job_progress_registered) opal_progress_unregister(job_progress);
    job_progress_registered = false;
    /* Open MPI 4.1 never closes the op framework at MPI_Finalize; this runs
     * when the component is disqualified, or in ompi_info. Keep opframe while
     * an op still points at our kernels. */
    if (bridge_live_modules == 0) release_opframe();
    return OMPI_SUCCESS;
}

static int disqualify(const char *why)
{
    job_publish_off(why);
    opal_output_verbose(10, ompi_op_base_framework.framework_output,
                        "op:opframe: disqualified (Open MPI's own kernels are used): %s", why);
    release_opframe();
    return OMPI_ERR_NOT_AVAILABLE;
}

/* The directories of the ':'-separated `path` that do not exist ("~/" is
 * the home directory, as opframe reads it), comma-separated into `out`. */
static void missing_dirs(const char *path, char *out, size_t len)
{
    out[0] = '\0';
    for (const char *at = path; *at;) {
        const size_t n = strcspn(at, ":");
        char dir[PATH_MAX];
        const char *home = getenv("HOME");
        if (n > 1 && at[0] == '~' && at[1] == '/' && home != NULL)
            snprintf(dir, sizeof(dir), "%s%.*s", home, (int)n - 1, at + 1);
        else
            snprintf(dir, sizeof(dir), "%.*s", (int)n, at);
        if (n > 0 && access(dir, F_OK) != 0 && strlen(out) + n + 3 < len) {
            if (out[0]) strcat(out, ", ");
            strncat(out, at, n);
        }
        at += n + (at[n] == ':');
    }
}

/* The bridge switches itself off where the user asked for it (it is
 * installed, and its priority is not negative): the job hears why once, at
 * default verbosity (tell_job), whatever the reason. */
static int switch_off(const char *why)
{
    job_publish_off(why);
    tell_job("opframe is off, Open MPI's own kernels are used: %s", why);
    release_opframe();
    return OMPI_ERR_NOT_AVAILABLE;
}

/* Whether the running Open MPI is the series the bridge was built for; if
 * not, `why` says which. MPI_Get_library_version reports the libmpi that is
 * loaded ("Open MPI v5.0.7, package: ..."), not the headers. */
static bool same_series(char *why, size_t len)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int n = 0, major = -1, minor = -1, release = -1;
    if (MPI_Get_library_version(lib, &n) != MPI_SUCCESS ||
        sscanf(lib, "Open MPI v%d.%d.%d", &major, &minor, &release) < 2) {
        snprintf(why, len, "cannot tell the running Open MPI's version (\"%.60s\"); the bridge was built for %s",
                 lib, bridge_built_for_text);
        return false;
    }
    if (major == bridge_built_for[0] && minor == bridge_built_for[1]) return true;
    snprintf(why, len, "built for Open MPI %s, but Open MPI %d.%d.%d is running: the op type slots and "
             "structures differ between series (rebuild the bridge against this Open MPI)",
             bridge_built_for_text, major, minor, release < 0 ? 0 : release);
    return false;
}

static int component_init_query(bool enable_progress_threads, bool enable_mpi_threads)
{
    const int out = ompi_op_base_framework.framework_output;
    char why[1024];
    (void)enable_progress_threads;
    (void)enable_mpi_threads; /* kernels are pure functions: any thread level is fine */

    /* opframe was started (or found unusable) at registration */
    if (bridge_unavailable_is_news) return switch_off(bridge_unavailable);
    if (bridge_unavailable[0]) return disqualify(bridge_unavailable);

    const int ncomp = opf_component_count();
    int navail = 0;
    char names[256] = "";
    for (int i = 0; i < ncomp; ++i) {
        opf_component_info_t info;
        if (opf_component_describe(i, &info) != OPF_SUCCESS) continue;
        navail += info.available;
        if (info.available && strlen(names) + strlen(info.name) + 2 < sizeof(names)) {
            if (names[0]) strcat(names, ",");
            strcat(names, info.name);
        }
        opal_output_verbose(20, out, "op:opframe: opframe component %s (%s): %s", info.name, info.path, info.status);
    }
    for (int i = 0; i < opf_failed_count(); ++i) {
        opf_failed_info_t f;
        if (opf_failed_describe(i, &f) == OPF_SUCCESS)
            opal_output_verbose(10, out, "op:opframe: opframe could not use %s: %s", f.path, f.reason);
    }
    if (ncomp == 0 && bridge_require_components) {
        char path[512] = "", missing[200] = "";
        opf_param_get("mca_component_path", path, (int)sizeof(path));
        missing_dirs(path, missing, sizeof(missing));
        snprintf(why, sizeof(why), "opframe found no component on mca_component_path \"%.300s\" (%s%s; "
                 "op_opframe_require_components=0 uses opframe's base kernels instead)", path,
                 missing[0] ? "no such directory: " : "a broken install?", missing);
        return switch_off(why);
    }
    const int rc = build_table();
    if (rc != OMPI_SUCCESS) return switch_off("opframe serves none of Open MPI's op type slots");
    bridge_available = true;
    job_publish_on();
    job_progress_registered = opal_progress_register(job_progress) == OPAL_SUCCESS;
    opal_output_verbose(10, out, "op:opframe: available: opframe %s, %d of %d components available (%s), "
                        "%d slots, priority %d", bridge_opframe_version, navail, ncomp, names[0] ? names : "none",
                        bridge_slots, bridge_priority);
    return OMPI_SUCCESS;
}

/* Called by Open MPI's op selection just before it copies our function
 * pointers into the op, after every lower-priority module (op/avx) and the
 * base have been installed there. */
static int module_enable(struct ompi_op_base_module_1_0_0_t *module, struct ompi_op_t *op)
{
    mca_op_opframe_module_t *m = (mca_op_opframe_module_t *)module;
    if (op->o_f_to_c_index > 0 && op->o_f_to_c_index < OMPI_OP_BASE_FORTRAN_OP_MAX) job_ops[op->o_f_to_c_index] = op;
    for (int s = 0; s < OMPI_OP_BASE_TYPE_MAX; ++s) {
        /* Keep what we replace, for op_opframe_enable=false. */
        if (module->opm_fns[s] != NULL && op->o_func.intrinsic.fns[s] != NULL &&
            op->o_func.intrinsic.modules[s] != NULL) {
            m->prev_fn2[s] = op->o_func.intrinsic.fns[s];
            m->prev_mod2[s] = op->o_func.intrinsic.modules[s];
            OBJ_RETAIN(m->prev_mod2[s]);
        }
        if (module->opm_3buff_fns[s] != NULL && op->o_3buff_intrinsic.fns[s] != NULL &&
            op->o_3buff_intrinsic.modules[s] != NULL) {
            m->prev_fn3[s] = op->o_3buff_intrinsic.fns[s];
            m->prev_mod3[s] = op->o_3buff_intrinsic.modules[s];
            OBJ_RETAIN(m->prev_mod3[s]);
        }
#if OMPI_MAJOR_VERSION <= 5
        /* Open MPI's ompi_op_base_op_select (seen in 4.1.4 and 5.0.7; the
         * internal test checks the counts), for each 3-buffer function
         * it installs, releases the module of the 2-buffer function of the
         * same slot (ours, just installed) instead of the one it replaces.
         * One more reference per 3-buffer function keeps our count equal to
         * the references the op holds (and releases in its destructor). */
        if (module->opm_3buff_fns[s] != NULL) OBJ_RETAIN(module);
#endif
    }
    return OMPI_SUCCESS;
}

static struct ompi_op_base_module_1_0_0_t *component_op_query(struct ompi_op_t *op, int *priority)
{
    if (!bridge_available || bridge_priority < 0) return NULL;
    if (0 == (op->o_flags & OMPI_OP_FLAGS_INTRINSIC)) return NULL;
    const int id = op->o_f_to_c_index;
    if (id <= 0 || id >= OMPI_OP_BASE_FORTRAN_OP_MAX || opf_op_id(id) < 0) return NULL;

    int n = 0;
    for (int s = 0; s < OMPI_OP_BASE_TYPE_MAX; ++s) n += bridge_table[id][s].fn2 != NULL;
    if (n == 0) return NULL;

    mca_op_opframe_module_t *m = OBJ_NEW(mca_op_opframe_module_t);
    if (m == NULL) return NULL;
    for (int s = 0; s < OMPI_OP_BASE_TYPE_MAX; ++s) {
        const bridge_slot_t *e = &bridge_table[id][s];
        if (e->fn2 == NULL) continue;
        m->slot[s] = *e;
        m->super.opm_fns[s] = bridge_fn2[s];
        if (e->fn3 != NULL) m->super.opm_3buff_fns[s] = bridge_fn3[s];
    }
    m->super.opm_enable = module_enable;
    m->super.opm_op = op;
    *priority = bridge_priority > 100 ? 100 : bridge_priority;
    opal_output_verbose(20, ompi_op_base_framework.framework_output,
                        "op:opframe: %s: offering %d type slots at priority %d", op->o_name, n, *priority);
    return &m->super;
}
