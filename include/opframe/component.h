/*
 * component.h — the one door between the opframe framework and its kernel
 * providers: the base, and components loaded at run time. Component ABI 2.
 *
 * Kernels are indexed by (op id, kernel type, memory kind) (kernel.h). Every
 * kernel takes a 64-bit element count and must give the base's result bit
 * for bit (any NaN matches any NaN). Kernels accept any element-aligned
 * address (the framework sends misaligned blocks to the base's memcpy
 * kernels), and touch data bytes only: a buffer of n pairs ends at the last
 * pair's data (MPI's true extent: 12 bytes for the last DOUBLE_INT, not 16),
 * and the padding of an x87 long double is never written.
 *
 * A component is a shared object named opf_op_<name>.so that exports one
 * symbol, `opf_op_<name>_component`, of type opf_component_t. Its life:
 *
 *   register_params()   declare its MCA parameters (opf_param_register)
 *   open()              acquire what it needs; nonzero: the component is skipped
 *   init_query(hw)      probe the hardware; may disqualify itself with a reason;
 *                       a device component registers its memory kind here
 *   op_query(op, m)     per predefined op: offer kernels, one opf_module_offer
 *                       call per (kernel type, memory kind)
 *   module_enable(m)    the framework installed at least one of m's kernels
 *   module_release(m)   the last installed kernel of m is gone
 *   close()             at finalize, after every module was released
 *
 * ---- ABI change list for component writers: version 1 -> 2 ----------------
 *  1. OPF_COMPONENT_ABI_VERSION is 2. The framework refuses a version-1 file
 *     ("component ABI version 1, this framework speaks 2"): rebuild it.
 *  2. opf_module_t is no longer filled in: its fixed [OPF_KT_COUNT] arrays,
 *     `priority`, `memory_kind` and `min_count` are gone. op_query calls
 *     opf_module_offer(module, &offer) once per (kernel type, memory kind),
 *     with the priority, memory kind, minimum count and kernels in the
 *     opf_offer_t. Kernel types can now be appended without moving anything
 *     under a built component; new kernel forms are appended to opf_offer_t,
 *     whose struct_size (set it to sizeof(opf_offer_t)) tells the framework
 *     which fields the component knows.
 *  3. Memory kinds are registered at run time: opf_memory_kind_register(name,
 *     claim) in init_query returns the kind's id; OPF_MEM_CUDA,
 *     OPF_MEM_OPENCL and the component's `memory_kind` hook are gone (the
 *     claim hook replaces it). Applications find a kind by name with
 *     opf_memory_kind_lookup (device.h).
 *  4. Synchronous kernels on device memory are opf_device_kernel2_fn /
 *     opf_device_kernel3_fn (offer.device2 / .device3): they return an OPF_*
 *     code and say why with opf_component_set_error; the caller of
 *     opf_reduce_local gets that code and message. Host kernels stay void.
 *     Stream kernels (offer.stream2 / .stream3) report errors the same way.
 *  5. opf_component_log(level, fmt, ...) prints when op_base_verbose >= level,
 *     prefixed with the component's name: no more reading op_base_verbose
 *     through opf_param_get.
 *  6. Applications no longer see this header through device.h or
 *     introspect.h: the shared words (kernel types and signatures, the
 *     hardware description, parameter types) moved to kernel.h, which
 *     component.h includes.
 */
#ifndef OPFRAME_COMPONENT_H
#define OPFRAME_COMPONENT_H

#include <stddef.h>
#include <opframe/opframe.h>
#include <opframe/kernel.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- offers: what a component serves -------------------------------------- */
/* One offer: kernels for (the module's op, kernel_type, memory_kind). Set
 * struct_size to sizeof(opf_offer_t) and leave unused fields zero:
 *
 *   opf_offer_t o = {.struct_size = sizeof o, .kernel_type = OPF_KT_INT32,
 *                    .priority = 20, .kernel2 = sum2, .kernel3 = sum3};    (C99)
 *   opf_module_offer(module, &o);
 *
 * (In C++, zero it with `opf_offer_t o{};` and assign the fields.)
 *
 * Host memory takes kernel2 / kernel3; a registered device kind takes
 * device2 / device3 (synchronous calls) and stream2 / stream3 (opf_reduce_
 * local_stream). Each NULL kernel is no offer for that form. */
typedef struct opf_offer {
    size_t struct_size;          /* sizeof(opf_offer_t) the component was built with */
    int kernel_type;             /* OPF_KT_* */
    int memory_kind;             /* OPF_MEM_HOST, or a kind this component registered */
    int priority;                /* higher wins a slot; ties break by component name */
    opf_count_t min_count;       /* serve only counts >= min_count (0: all) */
    opf_kernel2_fn *kernel2;
    opf_kernel3_fn *kernel3;
    opf_device_kernel2_fn *device2;
    opf_device_kernel3_fn *device3;
    opf_stream_kernel2_fn *stream2;
    opf_stream_kernel3_fn *stream3;
    /* Appended (n-ary, host memory; a component built before them has a
     * smaller struct_size and offers none): kernel_n is the op's n-ary kernel
     * (OPF_ROUND_CHAIN); kernel_n_once the same in OPF_ROUND_ONCE, taken only
     * for the slots whose result differs there (SUM and AVG of the types
     * computed in float); premul_n / premul_n_once, on the offers of SUM's
     * module only, are PreMulSum's. A slot with no n-ary offer runs the 3-
     * buffer kernels one after the other (AVG and PreMulSum: the base). */
    opf_kernel_n_fn *kernel_n;
    opf_kernel_n_fn *kernel_n_once;
    opf_kernel_n_fn *premul_n;
    opf_kernel_n_fn *premul_n_once;
    /* Appended (n-ary, device memory; same struct_size rule): device_n is
     * the op's n-ary kernel on a registered device kind, synchronous
     * (opf_reduce_local_n), stream_n the same enqueued on a stream
     * (opf_reduce_local_n_stream); the _once forms are OPF_ROUND_ONCE's,
     * taken for the same slots as kernel_n_once. The `in` array handed to
     * them is the caller's (host memory): read it before returning, and copy
     * what a launch needs. A device slot without device_n / stream_n runs
     * the chain of its 3-buffer device kernels where the op's n-ary result
     * is that chain, and refuses the call (OPF_ERR_OP) where it is not (AVG
     * of more than two inputs, round-once sums). */
    opf_device_kernel_n_fn *device_n;
    opf_device_kernel_n_fn *device_n_once;
    opf_stream_kernel_n_fn *stream_n;
    opf_stream_kernel_n_fn *stream_n_once;
    /* new forms are appended here; struct_size says which ones a component knows */
} opf_offer_t;

/* What a component offers for one op: the unit the framework enables and
 * releases. Allocated by the framework (it may grow at the end). */
typedef struct opf_module {
    int op_id;                   /* the predefined op of this module */
    void *component_data;        /* the component's own */
} opf_module_t;

/* The size of an ABI-2 offer before the n-ary forms: the smallest struct_size taken. */
#define OPF_OFFER_SIZE_V2 (offsetof(opf_offer_t, stream3) + sizeof(opf_stream_kernel3_fn *))

/* Offers kernels for one (kernel type, memory kind) of `module`'s op; call
 * from op_query. OPF_ERR_ARG, and the offer is not taken, for a kernel type
 * or memory kind the framework does not know, a form that the memory kind
 * does not take, a negative min_count or no kernel (each warned about on
 * stderr with the reason), or a slot that does not exist (said at
 * op_base_verbose >= 1). */
int opf_module_offer(opf_module_t *module, const opf_offer_t *offer);

/* ---- memory kinds ------------------------------------------------------------ */
/* Answers whether `ptr` is memory of the registering component's kind. */
typedef int opf_memory_claim_fn(const void *ptr);

/* Registers a device memory kind named `name` (letters, digits, '_') for the
 * calling component; call from init_query. Returns its id (> 0), or a
 * negative OPF_ERR_* code (name taken or malformed, or OPF_MEMORY_KINDS_MAX
 * reached). `claim` may be NULL: the
 * kind is then reached through stream calls only; otherwise opf_reduce_local
 * asks it about each buffer (only while some component registered a claim)
 * but those that are host memory whatever a hook would say: the program's
 * image (code, constant and static data), the brk heap and the threads'
 * stacks, where no driver maps device memory. */
int opf_memory_kind_register(const char *name, opf_memory_claim_fn *claim);

/* Answers, for the n buffers of one call at once, which are memory of the
 * registering component's kind: bit i set for ptrs[i] (n <= 16). */
typedef unsigned opf_memory_claims_fn(const void *const *ptrs, int n);

/* Gives the caller's memory kind `kind` (opf_memory_kind_register's id) a
 * hook that the framework asks once per synchronous call, with all of the
 * call's buffers, instead of `claim` once per buffer: for a component whose
 * answer costs a question per call rather than per buffer (the cuda
 * component learns whether the driver is initialised once per call). Call
 * from init_query, after registering the kind with its claim hook. Returns
 * OPF_SUCCESS, or OPF_ERR_ARG (said on stderr) for a kind that is not the
 * caller's or has no claim hook. A framework older than this function
 * lacks it: declare it weak to run there too (the claim hook then serves). */
int opf_memory_kind_set_claims(int kind, opf_memory_claims_fn *claims);

/* Tells the framework that memory of the caller's kind `kind` (registered
 * with a claim hook) can appear where host memory was only by a change of
 * the process's mappings that the component counts at *count: it adds 1
 * there (atomically, before the change is made) for every call by which its
 * driver maps, remaps, protects or attaches memory. A buffer its hooks did
 * not claim then lies in a mapping that stays host memory while *count
 * stands: the framework remembers such mappings (readable ones no device
 * file backs, read from /proc/self/maps at a buffer's second unclaimed
 * call), asks the hooks nothing about buffers in them, and the inline calls
 * of opframe.h take them. With more than one kind claiming buffers nothing
 * is remembered. Call from init_query after registering the kind; count
 * must stay valid while the library is initialised (the component's module
 * stays loaded: -z nodelete). OPF_SUCCESS, or OPF_ERR_ARG (said on stderr)
 * as opf_memory_kind_set_claims. Declare it weak to run on an older
 * framework, which remembers nothing. */
int opf_memory_kind_set_mapping_count(int kind, const uint64_t *count);

/* The most memory kinds the components of a process register together (host
 * not counted): each kind costs the framework a table of every (op, type)
 * slot, about 125 KB. A registration past it is refused with -OPF_ERR_ARG,
 * said on stderr once per component. */
#define OPF_MEMORY_KINDS_MAX 32

/* ---- errors and logging --------------------------------------------------------- */
/* Sets the calling thread's opf_last_error reason (the framework prefixes the
 * call, op, type and component) and returns `code`, for a kernel to write
 * `return opf_component_set_error(OPF_ERR_INTERN, "copy failed: %s", why);` */
int opf_component_set_error(int code, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Prints "opframe: <component>: <message>" on stderr when op_base_verbose >= level,
 * from any hook or kernel, on any thread. It is a macro passing
 * opf_component_log_at an address inside the calling component's file (an
 * object each file including this header gets), by which the framework knows
 * the component; the function of the same name guesses it from its return
 * address, which a tail call from a kernel hides (binaries built before the
 * macro). */
void opf_component_log(int level, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void opf_component_log_at(const void *anchor, int level, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;
#ifdef __GNUC__
__attribute__((unused))
#endif
static const char opf_component_log_anchor_ = 0;
#define opf_component_log(level, ...) opf_component_log_at(&opf_component_log_anchor_, (level), __VA_ARGS__)

/* ---- parameters --------------------------------------------------------- */
/* A parameter's declaration. The framework resolves its value from the
 * sources (API > command line > environment > user file > system file >
 * default) and writes it to `storage`:
 *   BOOL -> int, INT -> int64_t, SIZE -> int64_t (accepts 4K, 2M, 1G),
 *   DOUBLE -> double, STRING -> const char * (owned by the framework),
 *   ENUM -> int64_t (the index of the word in `values`),
 *   FLAGS -> int64_t (bitwise or of 1 << index of each word, "a,b")
 * `values` is a comma-separated word list for ENUM and FLAGS.
 * opf_param_register copies every string of the spec (name, default,
 * description, values, synonyms): the spec may live on the stack. It keeps
 * `storage`, which must stay valid while the component is loaded: a
 * read-only parameter (OPF_PARAM_READ_ONLY, a counter) is read from it live
 * each time its value is asked for (opf_param_get, opframe_info, MPI_T
 * through the Open MPI bridge), so the component just updates its variable
 * (atomically when kernels run on several threads); nothing is set from
 * outside. */
typedef struct opf_param_spec {
    const char *name;            /* full name: "op_<component>_<param>" */
    int type;                    /* OPF_PARAM_* */
    const char *default_value;   /* text, as a user would write it */
    const char *description;
    int level;                   /* 1 (basic) .. 9 (developer) */
    int flags;                   /* OPF_PARAM_READ_ONLY, OPF_PARAM_LIVE (kernel.h) */
    const char *values;          /* ENUM / FLAGS words, else NULL */
    const char *synonyms;        /* deprecated names, comma-separated, or NULL */
    void *storage;
} opf_param_spec_t;

/* Registers a parameter (any time before the component's init_query). */
int opf_param_register(const opf_param_spec_t *spec);

/* Nonzero when this process is a rank of an MPI job, as its launcher's
 * environment says (Open MPI, PMIx, PMI-1/2): the one test the framework
 * uses too (op_base_threads_in_mpi). A component whose init work serves
 * nothing an MPI library can hand it may skip that work there. */
int opf_in_mpi_job(void);

/* ---- the component ------------------------------------------------------ */
#define OPF_COMPONENT_ABI_VERSION 2
#define OPF_FRAMEWORK_NAME "op"

typedef struct opf_component {
    int abi_version;             /* OPF_COMPONENT_ABI_VERSION it was built with: says the layout below */
    const char *framework;       /* OPF_FRAMEWORK_NAME */
    const char *name;            /* must match the file name opf_op_<name> */
    int version[3];              /* the component's major, minor, release */
    const char *description;

    int (*register_params)(void);
    int (*open)(void);
    /* 0: available. Nonzero: disqualified; `reason` says why. */
    int (*init_query)(const opf_hw_info_t *hw, char *reason, size_t reason_len);
    /* Offer kernels for predefined op `op_id` through opf_module_offer;
     * return 0 to keep the module, nonzero to drop it with its offers. */
    int (*op_query)(int op_id, opf_module_t *module);
    void (*module_enable)(opf_module_t *module);
    void (*module_release)(opf_module_t *module);
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
