/*
 * component.h — the one door between the opframe framework and its kernel
 * providers: the base, and components loaded at run time.
 *
 * Kernels are indexed by (op id, kernel type). A kernel type is a storage
 * layout plus arithmetic: OPF_INT and OPF_INT32_T share OPF_KT_INT32. Every
 * kernel takes a 64-bit element count and must give the base's result bit for
 * bit (any NaN matches any NaN). Kernels accept any element-aligned address
 * (the framework sends misaligned blocks to the base's memcpy kernels),
 * and touch data bytes only: a buffer of n pairs ends at the last pair's data
 * (MPI's true extent: 12 bytes for the last DOUBLE_INT, not 16), and the
 * padding of an x87 long double is never written.
 *
 * A component is a shared object named opf_op_<name>.so that exports one
 * symbol, `opf_op_<name>_component`, of type opf_component_t. Its life:
 *
 *   register_params()   declare its MCA parameters (opf_param_register)
 *   open()              acquire what it needs; nonzero: the component is skipped
 *   init_query(hw)      probe the hardware; may disqualify itself with a reason
 *   op_query(op, m)     per predefined op: offer some slots in module m
 *   module_enable(m)    the framework installed at least one of m's kernels
 *   close()             at finalize, after every module was released
 *
 * Modules are reference-counted by the framework: it calls module_release
 * once per module when the last installed kernel of that module is gone.
 */
#ifndef OPFRAME_COMPONENT_H
#define OPFRAME_COMPONENT_H

#include <stddef.h>
#include <opframe/opframe.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Kernel types. Order is part of the ABI: append only. */
enum {
    OPF_KT_INT8, OPF_KT_UINT8, OPF_KT_INT16, OPF_KT_UINT16,
    OPF_KT_INT32, OPF_KT_UINT32, OPF_KT_INT64, OPF_KT_UINT64,
    OPF_KT_INT128,
    OPF_KT_FLOAT16, OPF_KT_BFLOAT16, OPF_KT_FLOAT, OPF_KT_DOUBLE,
    OPF_KT_LONG_DOUBLE, OPF_KT_FLOAT128,
    OPF_KT_C_FLOAT_COMPLEX, OPF_KT_C_DOUBLE_COMPLEX, OPF_KT_C_LONG_DOUBLE_COMPLEX,
    /* value-index pairs, laid out as the C struct {value; index;} */
    OPF_KT_FLOAT_INT, OPF_KT_DOUBLE_INT, OPF_KT_LONG_INT, OPF_KT_2INT,
    OPF_KT_SHORT_INT, OPF_KT_LONG_DOUBLE_INT, OPF_KT_2FLOAT, OPF_KT_2DOUBLE,
    OPF_KT_COUNT
};

/* Memory kinds a kernel works on. */
enum { OPF_MEM_HOST, OPF_MEM_CUDA, OPF_MEM_OPENCL, OPF_MEM_KIND_COUNT };

/* inout[i] = in[i] op inout[i], i < n */
typedef void opf_kernel2_fn(const void *in, void *inout, opf_count_t n);
/* out[i] = in1[i] op in2[i], i < n; out may equal in1 or in2 */
typedef void opf_kernel3_fn(const void *in1, const void *in2, void *out, opf_count_t n);
/* Device kernels, enqueued on a stream / queue of the component's API
 * (cudaStream_t, cl_command_queue); they return an OPF_* code. */
typedef int opf_stream_kernel2_fn(const void *in, void *inout, opf_count_t n, void *stream);
typedef int opf_stream_kernel3_fn(const void *in1, const void *in2, void *out, opf_count_t n, void *stream);

/* ---- the hardware, probed once at init and handed to every component ---- */
enum {
    OPF_X86_SSE2 = 1u << 0, OPF_X86_SSE4_1 = 1u << 1, OPF_X86_AVX = 1u << 2,
    OPF_X86_AVX2 = 1u << 3, OPF_X86_FMA = 1u << 4, OPF_X86_F16C = 1u << 5,
    OPF_X86_AVX512F = 1u << 6, OPF_X86_AVX512BW = 1u << 7, OPF_X86_AVX512VL = 1u << 8,
    OPF_X86_AVX512DQ = 1u << 9, OPF_X86_AVX512_FP16 = 1u << 10, OPF_X86_AVX512_BF16 = 1u << 11
};
/* Arm (aarch64), as Linux reports them in getauxval(AT_HWCAP / AT_HWCAP2) */
enum {
    OPF_ARM_ASIMD = 1u << 0,     /* Advanced SIMD (NEON) */
    OPF_ARM_FPHP = 1u << 1,      /* scalar half-precision arithmetic (FEAT_FP16) */
    OPF_ARM_ASIMDHP = 1u << 2,   /* Advanced SIMD half-precision arithmetic (FEAT_FP16) */
    OPF_ARM_SVE = 1u << 3, OPF_ARM_SVE2 = 1u << 4,
    OPF_ARM_BF16 = 1u << 5,      /* BFloat16 conversions in Advanced SIMD (FEAT_BF16) */
    OPF_ARM_SVEBF16 = 1u << 6    /* ... and in SVE */
};

#define OPF_HW_MAX_DEVICES 16
typedef struct opf_hw_device {
    char name[64];      /* hwloc OS device name, e.g. "cuda0", "opencl0d0" */
    char kind[16];      /* "gpu", "opencl", "cuda", "coproc" */
    char model[96];
} opf_hw_device_t;

typedef struct opf_hw_info {
    size_t struct_size;          /* sizeof(opf_hw_info_t) of the framework */
    char cpu_model[96];
    /* ISA usable here: the CPU reports it (CPUID) AND the OS saves its
     * register state (XGETBV) */
    unsigned int x86_features;
    unsigned int x86_cpu_only;   /* reported by CPUID but not enabled by the OS */
    int cores, pus, numa_nodes;
    int64_t l1d_bytes, l2_bytes, l3_bytes;   /* per cache instance; 0 if unknown */
    int hwloc;                   /* 1 if the topology came from hwloc */
    int n_devices;
    opf_hw_device_t devices[OPF_HW_MAX_DEVICES];
    /* Appended (check struct_size before reading): the Arm ISA, 0 elsewhere */
    unsigned int arm_features;         /* OPF_ARM_* */
    unsigned int arm_sve_vector_bits;  /* this thread's SVE vector length (prctl); 0 without SVE */
} opf_hw_info_t;

/* ---- modules: what a component offers for one op ------------------------ */
typedef struct opf_module opf_module_t;
struct opf_module {
    int priority;                /* higher wins a slot; ties break by component name */
    int memory_kind;             /* OPF_MEM_*: which table the kernels go in */
    opf_count_t min_count;       /* serve only counts >= min_count (0: all) */
    opf_kernel2_fn *fn2[OPF_KT_COUNT];   /* NULL: no offer for that slot */
    opf_kernel3_fn *fn3[OPF_KT_COUNT];
    opf_stream_kernel2_fn *stream_fn2[OPF_KT_COUNT];   /* device components only */
    opf_stream_kernel3_fn *stream_fn3[OPF_KT_COUNT];
    void *component_data;        /* the component's own */
};

/* ---- parameters --------------------------------------------------------- */
enum {
    OPF_PARAM_BOOL, OPF_PARAM_INT, OPF_PARAM_SIZE, OPF_PARAM_DOUBLE,
    OPF_PARAM_STRING, OPF_PARAM_ENUM, OPF_PARAM_FLAGS
};
enum {
    OPF_PARAM_SETTABLE = 0, OPF_PARAM_READ_ONLY = 1
};

/* A parameter's declaration. The framework resolves its value from the
 * sources (API > command line > environment > user file > system file >
 * default) and writes it to `storage`:
 *   BOOL -> int, INT -> int64_t, SIZE -> int64_t (accepts 4K, 2M, 1G),
 *   DOUBLE -> double, STRING -> const char * (owned by the framework),
 *   ENUM -> int64_t (the index of the word in `values`),
 *   FLAGS -> int64_t (bitwise or of 1 << index of each word, "a,b")
 * `values` is a comma-separated word list for ENUM and FLAGS. */
typedef struct opf_param_spec {
    const char *name;            /* full name: "op_<component>_<param>" */
    int type;                    /* OPF_PARAM_* */
    const char *default_value;   /* text, as a user would write it */
    const char *description;
    int level;                   /* 1 (basic) .. 9 (developer) */
    int flags;                   /* OPF_PARAM_READ_ONLY */
    const char *values;          /* ENUM / FLAGS words, else NULL */
    const char *synonyms;        /* deprecated names, comma-separated, or NULL */
    void *storage;
} opf_param_spec_t;

/* Registers a parameter (any time before the component's init_query). */
int opf_param_register(const opf_param_spec_t *spec);

/* ---- the component ------------------------------------------------------ */
#define OPF_COMPONENT_ABI_VERSION 1
#define OPF_FRAMEWORK_NAME "op"

typedef struct opf_component {
    int abi_version;             /* OPF_COMPONENT_ABI_VERSION it was built with */
    const char *framework;       /* OPF_FRAMEWORK_NAME */
    const char *name;            /* must match the file name opf_op_<name> */
    int version[3];              /* the component's major, minor, release */
    const char *description;

    int (*register_params)(void);
    int (*open)(void);
    /* 0: available. Nonzero: disqualified; `reason` says why. */
    int (*init_query)(const opf_hw_info_t *hw, char *reason, size_t reason_len);
    /* Fill `module` (zeroed by the framework) for predefined op `op_id`;
     * return 0 to offer it, nonzero to offer nothing for this op. */
    int (*op_query)(int op_id, opf_module_t *module);
    void (*module_enable)(opf_module_t *module);
    void (*module_release)(opf_module_t *module);
    /* Device components: the OPF_MEM_* kind of `ptr`, or -1 if not theirs. */
    int (*memory_kind)(const void *ptr);
    void (*close)(void);
} opf_component_t;

/* Declares the exported component symbol of component NAME. */
#define OPF_COMPONENT_DECLARE(NAME) \
    __attribute__((visibility("default"))) extern const opf_component_t opf_op_##NAME##_component; \
    const opf_component_t opf_op_##NAME##_component

#ifdef __cplusplus
}
#endif
#endif /* OPFRAME_COMPONENT_H */
