/*
 * opframe.h — the user API of opframe: MPI-style local reductions.
 *
 * Plain C (C99 and C++). Every function returns OPF_SUCCESS or an OPF_ERR_*
 * code; on error nothing has been written, and opf_last_error() holds a
 * message for the calling thread naming the op, the datatype and the reason.
 *
 * Handles are opaque. Predefined handles are compile-time constants (usable
 * in static initialisers); created handles carry a generation, so a freed
 * handle is recognised as invalid instead of being dereferenced. Freeing an
 * op or a datatype only marks it for deallocation (as in MPI): calls in
 * progress finish on it, also when a user callback frees its own op or type
 * or another thread frees them meanwhile.
 *
 * A successful call leaves opf_last_error() unchanged. No C++ exception
 * leaves the library: allocation failure is OPF_ERR_NO_MEM.
 */
#ifndef OPFRAME_OPFRAME_H
#define OPFRAME_OPFRAME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OPF_VERSION_MAJOR 0
#define OPF_VERSION_MINOR 1
#define OPF_VERSION_PATCH 0
/* The version of the library in use (which may be newer than the header a
 * program was built with): major, minor, patch; any pointer may be NULL. */
int opf_get_api_version(int *major, int *minor, int *patch);

/* Signed 64-bit element counts and byte displacements. */
typedef int64_t opf_count_t;
typedef int64_t opf_aint_t;

typedef struct opf_op_handle *opf_op_t;
typedef struct opf_datatype_handle *opf_datatype_t;

/* ---- return codes ------------------------------------------------------ */
enum {
    OPF_SUCCESS = 0,
    OPF_ERR_OP,        /* null, freed or unknown op; op not defined for the type */
    OPF_ERR_TYPE,      /* null, freed, uncommitted or unsupported datatype      */
    OPF_ERR_COUNT,     /* negative count, or count * type size overflows         */
    OPF_ERR_BUFFER,    /* NULL buffer with count > 0                             */
    OPF_ERR_ARG,       /* any other invalid argument                             */
    OPF_ERR_NO_MEM,    /* allocation failed                                      */
    OPF_ERR_INTERN,    /* internal error (a bug: please report it)               */
    OPF_ERR_LASTCODE
};

#define OPF_MAX_ERROR_STRING 256

/* ---- predefined ops ---------------------------------------------------- */
/* Op ids: the predefined handle of id N is (opf_op_t)N. */
enum {
    OPF_OPID_NULL = 0,
    OPF_OPID_MAX, OPF_OPID_MIN, OPF_OPID_SUM, OPF_OPID_PROD,
    OPF_OPID_LAND, OPF_OPID_BAND, OPF_OPID_LOR, OPF_OPID_BOR,
    OPF_OPID_LXOR, OPF_OPID_BXOR, OPF_OPID_MAXLOC, OPF_OPID_MINLOC,
    OPF_OPID_REPLACE, OPF_OPID_NO_OP,
    OPF_OPID_AVG,      /* appended: the mean (see opf_reduce_local_n) */
    OPF_OPID_COUNT /* number of predefined op ids, including NULL */
};

#define OPF_OP_HANDLE_(id) ((opf_op_t)(uintptr_t)(id))
#define OPF_OP_NULL  OPF_OP_HANDLE_(OPF_OPID_NULL)
#define OPF_MAX      OPF_OP_HANDLE_(OPF_OPID_MAX)
#define OPF_MIN      OPF_OP_HANDLE_(OPF_OPID_MIN)
#define OPF_SUM      OPF_OP_HANDLE_(OPF_OPID_SUM)
#define OPF_PROD     OPF_OP_HANDLE_(OPF_OPID_PROD)
#define OPF_LAND     OPF_OP_HANDLE_(OPF_OPID_LAND)
#define OPF_BAND     OPF_OP_HANDLE_(OPF_OPID_BAND)
#define OPF_LOR      OPF_OP_HANDLE_(OPF_OPID_LOR)
#define OPF_BOR      OPF_OP_HANDLE_(OPF_OPID_BOR)
#define OPF_LXOR     OPF_OP_HANDLE_(OPF_OPID_LXOR)
#define OPF_BXOR     OPF_OP_HANDLE_(OPF_OPID_BXOR)
#define OPF_MAXLOC   OPF_OP_HANDLE_(OPF_OPID_MAXLOC)
#define OPF_MINLOC   OPF_OP_HANDLE_(OPF_OPID_MINLOC)
#define OPF_REPLACE  OPF_OP_HANDLE_(OPF_OPID_REPLACE)
#define OPF_NO_OP    OPF_OP_HANDLE_(OPF_OPID_NO_OP)
#define OPF_AVG      OPF_OP_HANDLE_(OPF_OPID_AVG)

/* ---- predefined datatypes ---------------------------------------------- */
/* Type ids: the predefined handle of id N is (opf_datatype_t)N. */
enum {
    OPF_TYPEID_NULL = 0,
    /* C */
    OPF_TYPEID_CHAR, OPF_TYPEID_SIGNED_CHAR, OPF_TYPEID_UNSIGNED_CHAR, OPF_TYPEID_BYTE,
    OPF_TYPEID_WCHAR, OPF_TYPEID_SHORT, OPF_TYPEID_UNSIGNED_SHORT, OPF_TYPEID_INT,
    OPF_TYPEID_UNSIGNED, OPF_TYPEID_LONG, OPF_TYPEID_UNSIGNED_LONG, OPF_TYPEID_LONG_LONG,
    OPF_TYPEID_UNSIGNED_LONG_LONG,
    OPF_TYPEID_INT8_T, OPF_TYPEID_INT16_T, OPF_TYPEID_INT32_T, OPF_TYPEID_INT64_T,
    OPF_TYPEID_UINT8_T, OPF_TYPEID_UINT16_T, OPF_TYPEID_UINT32_T, OPF_TYPEID_UINT64_T,
    OPF_TYPEID_C_BOOL, OPF_TYPEID_CXX_BOOL, OPF_TYPEID_AINT, OPF_TYPEID_OFFSET, OPF_TYPEID_COUNT,
    OPF_TYPEID_FLOAT, OPF_TYPEID_DOUBLE, OPF_TYPEID_LONG_DOUBLE,
    OPF_TYPEID_FLOAT16, OPF_TYPEID_BFLOAT16,
    OPF_TYPEID_C_FLOAT_COMPLEX, OPF_TYPEID_C_DOUBLE_COMPLEX, OPF_TYPEID_C_LONG_DOUBLE_COMPLEX,
    /* Fortran layouts */
    OPF_TYPEID_INTEGER, OPF_TYPEID_INTEGER1, OPF_TYPEID_INTEGER2, OPF_TYPEID_INTEGER4,
    OPF_TYPEID_INTEGER8, OPF_TYPEID_INTEGER16,
    OPF_TYPEID_REAL, OPF_TYPEID_REAL2, OPF_TYPEID_REAL4, OPF_TYPEID_REAL8, OPF_TYPEID_REAL16,
    OPF_TYPEID_DOUBLE_PRECISION, OPF_TYPEID_COMPLEX, OPF_TYPEID_DOUBLE_COMPLEX,
    OPF_TYPEID_COMPLEX8, OPF_TYPEID_COMPLEX16, OPF_TYPEID_LOGICAL,
    /* value-index pairs for MAXLOC / MINLOC */
    OPF_TYPEID_FLOAT_INT, OPF_TYPEID_DOUBLE_INT, OPF_TYPEID_LONG_INT, OPF_TYPEID_2INT,
    OPF_TYPEID_SHORT_INT, OPF_TYPEID_LONG_DOUBLE_INT,
    OPF_TYPEID_2REAL, OPF_TYPEID_2DOUBLE_PRECISION, OPF_TYPEID_2INTEGER,
    /* OCP 8-bit floats (appended: ids are ABI) */
    OPF_TYPEID_FLOAT8_E4M3, OPF_TYPEID_FLOAT8_E5M2,
    /* OCP MX block formats (appended) */
    OPF_TYPEID_MXFP8_E4M3, OPF_TYPEID_MXFP8_E5M2, OPF_TYPEID_MXFP6_E3M2, OPF_TYPEID_MXFP6_E2M3,
    OPF_TYPEID_MXFP4_E2M1, OPF_TYPEID_MXINT8,
    /* AMD's FNUZ 8-bit floats (appended) */
    OPF_TYPEID_FLOAT8_E4M3FNUZ, OPF_TYPEID_FLOAT8_E5M2FNUZ,
    /* NVIDIA's NVFP4 block format (appended) */
    OPF_TYPEID_NVFP4,
    OPF_TYPEID_COUNT_ /* number of predefined type ids, including NULL */
};

#define OPF_TYPE_HANDLE_(id) ((opf_datatype_t)(uintptr_t)(id))
#define OPF_DATATYPE_NULL           OPF_TYPE_HANDLE_(OPF_TYPEID_NULL)
#define OPF_CHAR                    OPF_TYPE_HANDLE_(OPF_TYPEID_CHAR)
#define OPF_SIGNED_CHAR             OPF_TYPE_HANDLE_(OPF_TYPEID_SIGNED_CHAR)
#define OPF_UNSIGNED_CHAR           OPF_TYPE_HANDLE_(OPF_TYPEID_UNSIGNED_CHAR)
#define OPF_BYTE                    OPF_TYPE_HANDLE_(OPF_TYPEID_BYTE)
#define OPF_WCHAR                   OPF_TYPE_HANDLE_(OPF_TYPEID_WCHAR)
#define OPF_SHORT                   OPF_TYPE_HANDLE_(OPF_TYPEID_SHORT)
#define OPF_UNSIGNED_SHORT          OPF_TYPE_HANDLE_(OPF_TYPEID_UNSIGNED_SHORT)
#define OPF_INT                     OPF_TYPE_HANDLE_(OPF_TYPEID_INT)
#define OPF_UNSIGNED                OPF_TYPE_HANDLE_(OPF_TYPEID_UNSIGNED)
#define OPF_LONG                    OPF_TYPE_HANDLE_(OPF_TYPEID_LONG)
#define OPF_UNSIGNED_LONG           OPF_TYPE_HANDLE_(OPF_TYPEID_UNSIGNED_LONG)
#define OPF_LONG_LONG               OPF_TYPE_HANDLE_(OPF_TYPEID_LONG_LONG)
#define OPF_LONG_LONG_INT           OPF_LONG_LONG
#define OPF_UNSIGNED_LONG_LONG      OPF_TYPE_HANDLE_(OPF_TYPEID_UNSIGNED_LONG_LONG)
#define OPF_INT8_T                  OPF_TYPE_HANDLE_(OPF_TYPEID_INT8_T)
#define OPF_INT16_T                 OPF_TYPE_HANDLE_(OPF_TYPEID_INT16_T)
#define OPF_INT32_T                 OPF_TYPE_HANDLE_(OPF_TYPEID_INT32_T)
#define OPF_INT64_T                 OPF_TYPE_HANDLE_(OPF_TYPEID_INT64_T)
#define OPF_UINT8_T                 OPF_TYPE_HANDLE_(OPF_TYPEID_UINT8_T)
#define OPF_UINT16_T                OPF_TYPE_HANDLE_(OPF_TYPEID_UINT16_T)
#define OPF_UINT32_T                OPF_TYPE_HANDLE_(OPF_TYPEID_UINT32_T)
#define OPF_UINT64_T                OPF_TYPE_HANDLE_(OPF_TYPEID_UINT64_T)
#define OPF_C_BOOL                  OPF_TYPE_HANDLE_(OPF_TYPEID_C_BOOL)
#define OPF_CXX_BOOL                OPF_TYPE_HANDLE_(OPF_TYPEID_CXX_BOOL)
#define OPF_AINT                    OPF_TYPE_HANDLE_(OPF_TYPEID_AINT)
#define OPF_OFFSET                  OPF_TYPE_HANDLE_(OPF_TYPEID_OFFSET)
#define OPF_COUNT                   OPF_TYPE_HANDLE_(OPF_TYPEID_COUNT)
#define OPF_FLOAT                   OPF_TYPE_HANDLE_(OPF_TYPEID_FLOAT)
#define OPF_DOUBLE                  OPF_TYPE_HANDLE_(OPF_TYPEID_DOUBLE)
#define OPF_LONG_DOUBLE             OPF_TYPE_HANDLE_(OPF_TYPEID_LONG_DOUBLE)
#define OPF_FLOAT16                 OPF_TYPE_HANDLE_(OPF_TYPEID_FLOAT16)
#define OPF_BFLOAT16                OPF_TYPE_HANDLE_(OPF_TYPEID_BFLOAT16)
#define OPF_C_FLOAT_COMPLEX         OPF_TYPE_HANDLE_(OPF_TYPEID_C_FLOAT_COMPLEX)
#define OPF_C_COMPLEX               OPF_C_FLOAT_COMPLEX
#define OPF_C_DOUBLE_COMPLEX        OPF_TYPE_HANDLE_(OPF_TYPEID_C_DOUBLE_COMPLEX)
#define OPF_C_LONG_DOUBLE_COMPLEX   OPF_TYPE_HANDLE_(OPF_TYPEID_C_LONG_DOUBLE_COMPLEX)
#define OPF_INTEGER                 OPF_TYPE_HANDLE_(OPF_TYPEID_INTEGER)
#define OPF_INTEGER1                OPF_TYPE_HANDLE_(OPF_TYPEID_INTEGER1)
#define OPF_INTEGER2                OPF_TYPE_HANDLE_(OPF_TYPEID_INTEGER2)
#define OPF_INTEGER4                OPF_TYPE_HANDLE_(OPF_TYPEID_INTEGER4)
#define OPF_INTEGER8                OPF_TYPE_HANDLE_(OPF_TYPEID_INTEGER8)
#define OPF_INTEGER16               OPF_TYPE_HANDLE_(OPF_TYPEID_INTEGER16) /* needs a 128-bit integer */
#define OPF_REAL                    OPF_TYPE_HANDLE_(OPF_TYPEID_REAL)
#define OPF_REAL2                   OPF_TYPE_HANDLE_(OPF_TYPEID_REAL2)
#define OPF_REAL4                   OPF_TYPE_HANDLE_(OPF_TYPEID_REAL4)
#define OPF_REAL8                   OPF_TYPE_HANDLE_(OPF_TYPEID_REAL8)
#define OPF_REAL16                  OPF_TYPE_HANDLE_(OPF_TYPEID_REAL16)    /* IEEE binary128 */
#define OPF_DOUBLE_PRECISION        OPF_TYPE_HANDLE_(OPF_TYPEID_DOUBLE_PRECISION)
#define OPF_COMPLEX                 OPF_TYPE_HANDLE_(OPF_TYPEID_COMPLEX)
#define OPF_DOUBLE_COMPLEX          OPF_TYPE_HANDLE_(OPF_TYPEID_DOUBLE_COMPLEX)
#define OPF_COMPLEX8                OPF_TYPE_HANDLE_(OPF_TYPEID_COMPLEX8)
#define OPF_COMPLEX16               OPF_TYPE_HANDLE_(OPF_TYPEID_COMPLEX16)
#define OPF_LOGICAL                 OPF_TYPE_HANDLE_(OPF_TYPEID_LOGICAL)
#define OPF_FLOAT_INT               OPF_TYPE_HANDLE_(OPF_TYPEID_FLOAT_INT)
#define OPF_DOUBLE_INT              OPF_TYPE_HANDLE_(OPF_TYPEID_DOUBLE_INT)
#define OPF_LONG_INT                OPF_TYPE_HANDLE_(OPF_TYPEID_LONG_INT)
#define OPF_2INT                    OPF_TYPE_HANDLE_(OPF_TYPEID_2INT)
#define OPF_SHORT_INT               OPF_TYPE_HANDLE_(OPF_TYPEID_SHORT_INT)
#define OPF_LONG_DOUBLE_INT         OPF_TYPE_HANDLE_(OPF_TYPEID_LONG_DOUBLE_INT)
#define OPF_2REAL                   OPF_TYPE_HANDLE_(OPF_TYPEID_2REAL)
#define OPF_2DOUBLE_PRECISION       OPF_TYPE_HANDLE_(OPF_TYPEID_2DOUBLE_PRECISION)
#define OPF_2INTEGER                OPF_TYPE_HANDLE_(OPF_TYPEID_2INTEGER)
/* OCP 8-bit floats, as PyTorch's float8_e4m3fn and float8_e5m2: computed in
 * float, rounded once to nearest even; E4M3 has no infinity (overflow and inf
 * give NaN), E5M2 overflows to inf (opframe(7), "fp8") */
#define OPF_FLOAT8_E4M3             OPF_TYPE_HANDLE_(OPF_TYPEID_FLOAT8_E4M3)
#define OPF_FLOAT8_E5M2             OPF_TYPE_HANDLE_(OPF_TYPEID_FLOAT8_E5M2)
/* AMD's FNUZ 8-bit floats (CDNA3), as PyTorch's and ml_dtypes' float8_e4m3fnuz
 * and float8_e5m2fnuz: bias 8 / 16, no infinity and no negative zero, 0x80
 * the one NaN; computed in float, rounded once to nearest even, overflow and
 * inf give NaN, a zero result is +0 (opframe(7), "fp8") */
#define OPF_FLOAT8_E4M3FNUZ         OPF_TYPE_HANDLE_(OPF_TYPEID_FLOAT8_E4M3FNUZ)
#define OPF_FLOAT8_E5M2FNUZ         OPF_TYPE_HANDLE_(OPF_TYPEID_FLOAT8_E5M2FNUZ)
/* Block-scaled formats (OCP Microscaling, MX v1.0). One element of these
 * types is one block: 32 values sharing a power-of-two scale. Byte 0 is the
 * E8M0 scale, 2^(byte - 127) (0xFF: NaN); the 32 elements follow as a
 * little-endian bit stream, element i at bits [b*i, b*i + b) of the bytes
 * from byte 1 on:
 *   MXFP8_E4M3, MXFP8_E5M2, MXINT8   b = 8, a byte each           33 bytes
 *   MXFP6_E3M2, MXFP6_E2M3           b = 6, 24 bytes of elements   25 bytes
 *   MXFP4_E2M1                       b = 4, two a byte, element 0
 *                                    in the low nibble (PyTorch's
 *                                    float4_e2m1fn_x2)             17 bytes
 * (E4M3 as float8_e4m3fn, E5M2 as float8_e5m2, MXINT8 an int8 times 2^-6).
 * Counts are in blocks; alignment 1. Ops: MAX, MIN, SUM, AVG, REPLACE,
 * NO_OP. A result block is the exact reduction of the decoded values (SUM,
 * AVG: the exact sum, divided by the number of inputs; MAX, MIN: the largest,
 * the smallest), quantized once by the OCP rule: scale from the largest
 * magnitude, floor(log2(amax)) - emax_elem clamped to [-127, 127]; elements
 * rounded to nearest even, saturated; zeros +0. A NaN scale, a NaN or an
 * infinite element in any input makes the result block NaN (scale 0xFF,
 * element bytes 0). The n-ary call quantizes once in either mode: it is not
 * the chain of 3-buffer calls. opframe(7), "Block-scaled formats". */
#define OPF_MXFP8_E4M3              OPF_TYPE_HANDLE_(OPF_TYPEID_MXFP8_E4M3)
#define OPF_MXFP8_E5M2              OPF_TYPE_HANDLE_(OPF_TYPEID_MXFP8_E5M2)
#define OPF_MXFP6_E3M2              OPF_TYPE_HANDLE_(OPF_TYPEID_MXFP6_E3M2)
#define OPF_MXFP6_E2M3              OPF_TYPE_HANDLE_(OPF_TYPEID_MXFP6_E2M3)
#define OPF_MXFP4_E2M1              OPF_TYPE_HANDLE_(OPF_TYPEID_MXFP4_E2M1)
#define OPF_MXINT8                  OPF_TYPE_HANDLE_(OPF_TYPEID_MXINT8)
/* NVIDIA's NVFP4 (Blackwell): one element is one block of 9 bytes, byte 0 a
 * UE4M3 scale (an E4M3 code, float8_e4m3fn's, with sign 0; S.1111.111 NaN),
 * then 16 E2M1 values, two a byte, the even one in the low nibble (NVIDIA's
 * layout with the scale moved in front, as MX puts its E8M0). A value is
 * element * scale. Counts in blocks; ops as the MX formats. A result block
 * is the exact reduction of the decoded values quantized once: scale = the
 * E4M3 value nearest amax / 6 (ties to even; 448 where above; 2^-9 where
 * amax > 0 would round to 0), elements = the E2M1 value nearest value /
 * scale, ties to even, saturated at +-6; a zero block is scale +0, elements
 * +0; a NaN scale in any input gives the NaN block (scale 0x7F, element
 * bytes 0). The tensor-wide FP32 scale of NVFP4 tensors is the caller's
 * (opframe(7), "Block-scaled formats"). */
#define OPF_NVFP4                   OPF_TYPE_HANDLE_(OPF_TYPEID_NVFP4)

/* ---- life cycle --------------------------------------------------------- */
/* opf_init is idempotent; the first reduction initialises lazily. After
 * opf_finalize every created op and datatype handle is invalid; opf_init may
 * be called again. As in MPI, opf_finalize must not be called while other
 * threads are inside opframe calls; a user callback may call it (the
 * reduction in progress finishes). */
int opf_init(void);
int opf_finalize(void);
int opf_initialized(int *flag);

/* ---- reductions --------------------------------------------------------- */
/* inoutbuf[i] = inbuf[i] op inoutbuf[i]   (inbuf is the left operand);
 * inbuf may be the same pointer as inoutbuf: inoutbuf[i] = x op x. */
int opf_reduce_local(const void *inbuf, void *inoutbuf, opf_count_t count,
                     opf_datatype_t datatype, opf_op_t op);
/* out[i] = in1[i] op in2[i]; out may be the same pointer as in1, in2 or
 * both, and in1 the same as in2; otherwise the buffers must be disjoint:
 * a partial overlap is undefined (not detected: the kernel gets the
 * pointers as they are). opf_reduce_local(3), "Buffers that are one".
 * Both calls accept buffers at any address: blocks that are not aligned for
 * their basic type run on the base kernels. A count whose buffers would span
 * more than 2^63 bytes is OPF_ERR_COUNT; a type without data does nothing. */
int opf_reduce_local3(const void *in1, const void *in2, void *out, opf_count_t count,
                      opf_datatype_t datatype, opf_op_t op);

/* ---- the inline short path ---------------------------------------------------
 * With GCC or Clang, C99 or C++, the two calls above are inline: a predefined
 * op on a predefined type, count >= 1, non-NULL buffers aligned for the type,
 * in host memory, calls the selected kernel directly from the caller's code
 * through the library's table of such calls (one row per op and type, filled
 * at opf_init); every other call (an error included) goes to the library's
 * entry point, which checks it and says why. The results, errors and
 * messages are the same either way. What it saves is the call into the
 * shared library before the kernel: 2.3 ns per call on a 2.4 GHz AMD EPYC
 * (Zen 3), against 0.3 ns for the inline checks (docs/performance.md).
 * With a memory kind loaded whose component claims buffers (cuda), a buffer
 * is host memory for the inline call where the library's host window says
 * so: the program's image (code, constant and static data), the main
 * thread's stack, the brk heap up to the current break, and the mappings
 * the library remembers as host memory (where the component counts its
 * driver's mapping calls: while that count stands); any other buffer
 * (another thread's stack, an mmap'd one not remembered, device memory)
 * goes to the entry point, which asks the component.
 * Define OPF_NO_INLINE_CALLS before including this header to call the entry
 * points alone; `(opf_reduce_local)(...)` and `&opf_reduce_local` name them
 * too. The rows' and the window's layouts are not interfaces of their own: a
 * program built against them refers to opf_call_table_v4_, and a library
 * with other layouts exports other names (the program then fails to load,
 * never misreads). The library still exports the v3 rows (type ids below
 * 64, op-major; v2 is the same rows by another name), filled as these, for
 * programs built against earlier headers. */
/* Where buffers are host memory whatever a claiming component would say
 * (written before the rows open: a row read with acquire orders it); the
 * rows point to it where a component claims buffers. */
#define OPF_REMEMBERED_RANGES_ 8
struct opf_remembered_range_v3_ {
    uint64_t stamp;
    uintptr_t low, span;
};
struct opf_host_ranges_v3_ {
    uintptr_t claims;            /* 0: no component claims buffers, every buffer is host memory */
    uintptr_t low[3], span[3];   /* [low, low + span): the program's image (two spans), the main thread's stack */
    uintptr_t heap_low;          /* the brk heap: heap_low .. the current break (*brk >= heap_low) */
    void *const *brk;            /* where the C library keeps the current break */
    /* v3: mappings the claiming component called host memory, each held
     * while *moved + 1 == its stamp (the component counts there its driver's
     * calls that change mappings); moved NULL: none. Each entry a seqlock:
     * stamp 0 while it is written. */
    const uint64_t *moved;
    struct opf_remembered_range_v3_ remembered[OPF_REMEMBERED_RANGES_];
};
/* A row: one per (op, type) for the 2-buffer call and one for the 3-buffer
 * call, each a cache line, each with its own limit and up to three size
 * tiers of the selection (a tuned machine has a base, an AVX2 and an
 * AVX-512 tier; a further tier caps the limit: those counts go to the entry
 * point). */
#define OPF_CALL_ROW_FIELDS_(kernel_type)                                                                      \
    opf_count_t limit;     /* counts 1 .. limit may take the row; 0: none (read with acquire: written last) */ \
    uintptr_t align_mask;  /* a buffer address with one of these bits set goes to the entry point */          \
    opf_count_t split[2];  /* below split[0] kernel[0] serves, below split[1] kernel[1], else kernel[2] */      \
    kernel_type kernel[3];                                                                                      \
    const struct opf_host_ranges_v3_ *window; /* NULL: every buffer is host memory; else those the window holds */
typedef void (*opf_call_kernel2_v3_)(const void *, void *, opf_count_t);
typedef void (*opf_call_kernel3_v3_)(const void *, const void *, void *, opf_count_t);
struct opf_call_row2_v3_ { OPF_CALL_ROW_FIELDS_(opf_call_kernel2_v3_) };
struct opf_call_row3_v3_ { OPF_CALL_ROW_FIELDS_(opf_call_kernel3_v3_) };
/* The kernel for count: the tier index without a branch (measured against a
 * compare per tier on an AVX-512 Xeon: a steady 0.3 ns above the old
 * two-tier row's one compare, where branches cost 0 to 0.8 ns by tier). */
#define OPF_CALL_KERNEL_(row, count) ((row)->kernel[((count) >= (row)->split[0]) + ((count) >= (row)->split[1])])
/* v4: the rows by type id, then op id (row [type id][op id], 16 rows a
 * type, row 0 of each unused: OPF_OP_NULL), and how many type ids the
 * library's table holds. The bound is the library's, not the header's: a
 * type id added later takes the inline call with no new layout, and a type
 * a program knows but the library does not goes to the entry point, which
 * says so. (v3 bounded type ids by a constant 64: the FNUZ 8-bit floats,
 * ids 69 and 70, had no row.) */
struct opf_call_table_v4_ {
    const struct opf_call_row2_v3_ *rows2;
    const struct opf_call_row3_v3_ *rows3;
    uintptr_t types;   /* type ids 0 .. types - 1 have rows */
};
extern const struct opf_call_table_v4_ opf_call_table_v4_;
#define OPF_CALL_ROWS_PER_TYPE_ 16   /* the layout's op ids 0 .. 15: a 16th op is a new layout */
#if !defined(OPF_NO_INLINE_CALLS) && defined(__GNUC__) && \
    (defined(__cplusplus) || (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L))
#define OPF_INLINE_CALLS 1
#ifdef __cplusplus
#define OPF_ADDRESS_(p) reinterpret_cast<uintptr_t>(p)
#else
#define OPF_ADDRESS_(p) ((uintptr_t)(p))
#endif
/* The index of an (op, type) in the rows, or -1. */
static inline long opf_call_index_(opf_op_t op, opf_datatype_t datatype)
{
    const uintptr_t o = OPF_ADDRESS_(op), d = OPF_ADDRESS_(datatype);
    return o - 1 < OPF_CALL_ROWS_PER_TYPE_ - 1 && d < opf_call_table_v4_.types ? (long)(d * OPF_CALL_ROWS_PER_TYPE_ + o) : -1;
}
/* The row a call may take, or NULL. */
static inline const struct opf_call_row2_v3_ *opf_call_row2_(opf_op_t op, opf_datatype_t datatype, opf_count_t count)
{
    const long i = opf_call_index_(op, datatype);
    return i >= 0 && count >= 1 && count <= __atomic_load_n(&opf_call_table_v4_.rows2[i].limit, __ATOMIC_ACQUIRE)
               ? opf_call_table_v4_.rows2 + i : 0;
}
static inline const struct opf_call_row3_v3_ *opf_call_row3_(opf_op_t op, opf_datatype_t datatype, opf_count_t count)
{
    const long i = opf_call_index_(op, datatype);
    return i >= 0 && count >= 1 && count <= __atomic_load_n(&opf_call_table_v4_.rows3[i].limit, __ATOMIC_ACQUIRE)
               ? opf_call_table_v4_.rows3 + i : 0;
}
/* Whether a lies in a mapping the window remembers as host memory now. */
static inline int opf_in_remembered_(const struct opf_host_ranges_v3_ *w, uintptr_t a)
{
    if (!w->moved) return 0;
    const uint64_t now = __atomic_load_n(w->moved, __ATOMIC_ACQUIRE) + 1;
    for (int i = 0; i < OPF_REMEMBERED_RANGES_; ++i) {
        const struct opf_remembered_range_v3_ *r = &w->remembered[i];
        if (__atomic_load_n(&r->stamp, __ATOMIC_ACQUIRE) != now) continue;
        const uintptr_t low = __atomic_load_n(&r->low, __ATOMIC_RELAXED), span = __atomic_load_n(&r->span, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&r->stamp, __ATOMIC_RELAXED) == now && a - low < span) return 1;
    }
    return 0;
}
/* Whether the host window holds address a: four unsigned range tests, no
 * branch between them (the heap's first: most buffers are there), then the
 * remembered mappings. */
static inline int opf_in_host_window_(const struct opf_host_ranges_v3_ *w, uintptr_t a)
{
    const uintptr_t heap_end = OPF_ADDRESS_(__atomic_load_n(w->brk, __ATOMIC_RELAXED));
    return ((a - w->heap_low < heap_end - w->heap_low) | (a - w->low[2] < w->span[2]) | (a - w->low[0] < w->span[0]) |
            (a - w->low[1] < w->span[1])) ||
           opf_in_remembered_(w, a);
}
/* Whether the window holds every buffer of a call (c NULL for two). Inline:
 * out of line it cost a GPU node's host call about 1.5 ns more (count 16 on
 * the CPU stand-in); a call without a window skips it on the row's field. */
static inline int opf_window_holds_(const struct opf_host_ranges_v3_ *w, const void *a, const void *b,
                                    const void *c)
{
    return opf_in_host_window_(w, OPF_ADDRESS_(a)) && opf_in_host_window_(w, OPF_ADDRESS_(b)) &&
           (!c || opf_in_host_window_(w, OPF_ADDRESS_(c)));
}
static inline int opf_reduce_local_inline_(const void *inbuf, void *inoutbuf, opf_count_t count,
                                           opf_datatype_t datatype, opf_op_t op)
{
    const struct opf_call_row2_v3_ *row = opf_call_row2_(op, datatype, count);
    if (row && inbuf && inoutbuf && !((OPF_ADDRESS_(inbuf) | OPF_ADDRESS_(inoutbuf)) & row->align_mask) &&
        (__builtin_expect(!row->window, 1) || opf_window_holds_(row->window, inbuf, inoutbuf, 0))) {
        OPF_CALL_KERNEL_(row, count)(inbuf, inoutbuf, count);
        return OPF_SUCCESS;
    }
    return (opf_reduce_local)(inbuf, inoutbuf, count, datatype, op);
}
static inline int opf_reduce_local3_inline_(const void *in1, const void *in2, void *out, opf_count_t count,
                                            opf_datatype_t datatype, opf_op_t op)
{
    const struct opf_call_row3_v3_ *row = opf_call_row3_(op, datatype, count);
    if (row && in1 && in2 && out && !((OPF_ADDRESS_(in1) | OPF_ADDRESS_(in2) | OPF_ADDRESS_(out)) & row->align_mask) &&
        (__builtin_expect(!row->window, 1) || opf_window_holds_(row->window, in1, in2, out))) {
        OPF_CALL_KERNEL_(row, count)(in1, in2, out, count);
        return OPF_SUCCESS;
    }
    return (opf_reduce_local3)(in1, in2, out, count, datatype, op);
}
#define opf_reduce_local(inbuf, inoutbuf, count, datatype, op) \
    opf_reduce_local_inline_(inbuf, inoutbuf, count, datatype, op)
#define opf_reduce_local3(in1, in2, out, count, datatype, op) \
    opf_reduce_local3_inline_(in1, in2, out, count, datatype, op)
#endif

/* ---- n-ary reductions ----------------------------------------------------- */
/* dst[i] = srcs[0][i] op srcs[1][i] op ... op srcs[nsrc-1][i], evaluated left
 * to right (((srcs[0] op srcs[1]) op srcs[2]) ...): the values of the chain
 * opf_reduce_local3(srcs[0], srcs[1], dst), opf_reduce_local3(dst, srcs[j],
 * dst) for j = 2 .. nsrc-1, bit for bit except that where the chain gives a
 * NaN the n-ary call gives a NaN whose sign and payload may differ (as
 * everywhere in opframe, any NaN is the same result), and with nsrc == 1 a
 * copy of srcs[0]. The call is served by the provider the selection gives
 * its 3-buffer form (pins and priorities alike): with that provider's n-ary
 * kernel, or its 3-buffer kernel composed as above. dst may be
 * the same pointer as any srcs[j] (srcs may repeat a pointer); otherwise the
 * buffers must be disjoint. 1 <= nsrc <= OPF_REDUCE_N_MAX (else OPF_ERR_ARG);
 * srcs NULL, or an entry of it NULL, with count > 0 is OPF_ERR_BUFFER. The
 * checks, errors and datatype rules are opf_reduce_local3's; on error
 * nothing is written.
 *
 * Two ops are not the chain:
 *   OPF_AVG      the sum of the nsrc inputs (left to right, rounded as SUM
 *                rounds), divided by nsrc (rounded once more); integers: the
 *                exact mean rounded toward zero, never overflowing; FLOAT16,
 *                BFLOAT16 and the fp8 types, in both modes: each input
 *                widened to float and scaled by 2^-6, summed left to right
 *                in float, divided by nsrc, scaled back by 2^6, rounded to
 *                the type once (the mean of in-range inputs is in range). On
 *                opf_reduce_local / opf_reduce_local3 it is the mean of two.
 *   PreMulSum    (opf_op_create_premul) scalar * srcs[0] + ... + scalar *
 *                srcs[nsrc-1]: each product rounded to the type as PROD
 *                rounds it, summed left to right as SUM.
 * In mode OPF_ROUND_ONCE (opf_reduce_local_n_mode), SUM and PreMulSum
 * of the types computed in float (FLOAT16, BFLOAT16, FLOAT8_E4M3, FLOAT8_E5M2) sum in float and round
 * to the type once, at the end; every other (op, type) is as in
 * OPF_ROUND_CHAIN, the default. */
#define OPF_REDUCE_N_MAX 64
enum { OPF_ROUND_CHAIN = 0, OPF_ROUND_ONCE = 1 };
int opf_reduce_local_n(const void *const srcs[], int nsrc, void *dst, opf_count_t count,
                       opf_datatype_t datatype, opf_op_t op);
int opf_reduce_local_n_mode(const void *const srcs[], int nsrc, void *dst, opf_count_t count,
                            opf_datatype_t datatype, opf_op_t op, int mode);

/* ---- user-defined ops --------------------------------------------------- */
/* The callback computes inoutvec[i] = invec[i] op inoutvec[i] for i < *len.
 * With the int form, a count above INT_MAX is delivered in several calls
 * whose lengths sum to the count. The datatype passed is the caller's. len
 * and datatype point to copies: what the callback writes there is ignored. */
typedef void opf_user_function(void *invec, void *inoutvec, int *len, opf_datatype_t *datatype);
typedef void opf_user_function_c(void *invec, void *inoutvec, opf_count_t *len,
                                 opf_datatype_t *datatype);

int opf_op_create(opf_user_function *function, int commute, opf_op_t *op);
int opf_op_create_c(opf_user_function_c *function, int commute, opf_op_t *op);
int opf_op_free(opf_op_t *op);                 /* sets *op = OPF_OP_NULL */
/* PreMulSum (NCCL's ncclRedOpCreatePreMulSum): an op that multiplies each
 * input by *scalar, a value of `datatype`, and sums the products (see
 * opf_reduce_local_n). `datatype` is an arithmetic type: integer, floating
 * (FLOAT16 and BFLOAT16 included) or complex (else OPF_ERR_TYPE); the op
 * reduces only datatypes whose basic type is the same (OPF_ERR_OP). On the
 * 2- and 3-buffer calls it is scalar * in1 + scalar * in2. Free it with
 * opf_op_free; it is commutative. */
int opf_op_create_premul(const void *scalar, opf_datatype_t datatype, opf_op_t *op);
int opf_op_commutative(opf_op_t op, int *commute);

/* ---- derived datatypes -------------------------------------------------- */
/* As in MPI. A predefined op applies to a derived type whose basic elements
 * are all of one predefined type valid for the op (REPLACE and NO_OP apply to
 * any type; blocks of length 0 add no basic element). A derived type must be
 * committed before use. A constructor whose sizes, bounds, extent or
 * displacements do not fit in 64 bits returns OPF_ERR_ARG (OPF_ERR_COUNT for
 * the size) and creates nothing. */
int opf_type_contiguous(int count, opf_datatype_t oldtype, opf_datatype_t *newtype);
int opf_type_vector(int count, int blocklength, int stride, opf_datatype_t oldtype,
                    opf_datatype_t *newtype);
int opf_type_create_hvector(int count, int blocklength, opf_aint_t stride,
                            opf_datatype_t oldtype, opf_datatype_t *newtype);
int opf_type_indexed(int count, const int blocklengths[], const int displacements[],
                     opf_datatype_t oldtype, opf_datatype_t *newtype);
int opf_type_create_hindexed(int count, const int blocklengths[],
                             const opf_aint_t displacements[], opf_datatype_t oldtype,
                             opf_datatype_t *newtype);
int opf_type_create_struct(int count, const int blocklengths[], const opf_aint_t displacements[],
                           const opf_datatype_t types[], opf_datatype_t *newtype);
int opf_type_create_resized(opf_datatype_t oldtype, opf_aint_t lb, opf_aint_t extent,
                            opf_datatype_t *newtype);
int opf_type_dup(opf_datatype_t oldtype, opf_datatype_t *newtype);
int opf_type_commit(opf_datatype_t *datatype);
int opf_type_free(opf_datatype_t *datatype);   /* sets *datatype = OPF_DATATYPE_NULL */
int opf_type_size(opf_datatype_t datatype, opf_count_t *size);
int opf_type_get_extent(opf_datatype_t datatype, opf_aint_t *lb, opf_aint_t *extent);
int opf_type_get_true_extent(opf_datatype_t datatype, opf_aint_t *true_lb, opf_aint_t *true_extent);

/* ---- errors ------------------------------------------------------------- */
/* Writes the short text of an error code into buf (at least
 * OPF_MAX_ERROR_STRING bytes) and its length into *len. */
int opf_error_string(int errorcode, char *buf, int *len);
/* The detailed message of the calling thread's last failed call ("" if none). */
const char *opf_last_error(void);

/* ---- parameters --------------------------------------------------------- */
/* MCA parameters, declared by the framework and by components (list them
 * with opframe_info --param, or opf_param_describe in introspect.h). A
 * parameter's value comes from the first of these sources that holds a valid
 * value for it:
 *   1. opf_param_set (source "API")
 *   2. opf_param_set_cmdline (source "command line": tools' --mca name value)
 *   3. the environment variable OPF_MCA_<name>
 *   4. the user file $HOME/.opframe/mca-params.conf
 *   5. the system file <sysconfdir>/opframe-mca-params.conf
 *   6. its default.
 * The environment variables OPF_MCA_PARAM_FILE_USER and
 * OPF_MCA_PARAM_FILE_SYSTEM replace the paths of the two files (set to ""
 * for no file). A file holds `name = value` lines; blanks around name and
 * value are dropped, "..." keeps them, lines starting with # are comments.
 * Booleans read 1/0, true/false, yes/no, on/off; sizes are bytes or take a
 * K, M or G suffix (binary). A bad value (or a malformed file line) warns on
 * stderr, "opframe: warning: ...", naming where it came from, and the next
 * source is used. A deprecated name of a parameter works with a warning.
 *
 * opf_param_set(name, value) sets the API value; value NULL removes it.
 * Before opf_init any name is accepted, and a value for a parameter not yet
 * declared is applied when it is declared. For a declared parameter the value
 * is checked (OPF_ERR_ARG if invalid, or if the parameter is read-only;
 * nothing changes) and takes effect at once, except for the parameters only
 * opf_init reads (op, op_base_pin, mca_component_path, ...: their
 * description says so): a change while initialized applies at the next
 * opf_init, and their source shows the value in force meanwhile. The lists
 * of `op` and op_base_pin are checked at opf_init: an empty or malformed name
 * in `op` fails it like an unknown one; a pin that cannot apply is warned
 * about and ignored. A component's parameters are read by its hooks at
 * opf_init, so they apply at the next opf_init as well (and read back so),
 * unless the component declared one live (OPF_PARAM_LIVE). A name set before
 * opf_init that no loaded component declares is warned about at opf_init,
 * with the closest declared name. After opf_init an undeclared
 * name is OPF_ERR_ARG (the message names the closest declared one). API and
 * command-line values outlive opf_finalize. */
int opf_param_set(const char *name, const char *value);
int opf_param_set_cmdline(const char *name, const char *value);
/* The current value as text, NUL-terminated, into buf of len bytes;
 * OPF_ERR_ARG for an unknown name or a buffer too small. */
int opf_param_get(const char *name, char *buf, int len);

/* ---- names -------------------------------------------------------------- */
/* "MAX", "FLOAT", "OP_NULL", "DATATYPE_NULL", ...; "user" for a user op;
 * "PREMUL_SUM" for an op of opf_op_create_premul;
 * the constructor of a derived type ("contiguous", "vector", "hvector",
 * "indexed", "hindexed", "struct", "resized", "dup"); NULL for a freed or
 * invalid handle. */
const char *opf_op_name(opf_op_t op);
const char *opf_type_name(opf_datatype_t datatype);

#ifdef __cplusplus
}
#endif
#endif /* OPFRAME_OPFRAME_H */
