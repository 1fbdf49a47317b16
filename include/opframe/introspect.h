/*
 * introspect.h — read-only views of opframe's tables, for tools
 * (opframe_info, opframe_bench) and for the conformance harness.
 */
#ifndef OPFRAME_INTROSPECT_H
#define OPFRAME_INTROSPECT_H

#include <opframe/kernel.h>
#include <opframe/device.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Name of a kernel type ("INT32", "FLOAT_INT", ...), NULL if out of range. */
const char *opf_kernel_type_name(int kernel_type);
/* Bytes between consecutive elements of a kernel type; 0 if out of range. */
int opf_kernel_type_extent(int kernel_type);
/* Kernel type of a predefined or committed derived type; -1 when the
 * derived type mixes basic types. */
int opf_type_kernel_type(opf_datatype_t datatype, int *kernel_type);
/* 1 if predefined op `op` is defined on `datatype` (after handle checks). */
int opf_op_valid_for_type(opf_op_t op, opf_datatype_t datatype, int *valid);

/* Does the base define a kernel for (op id, kernel type)? 0 or 1. */
int opf_slot_exists(int op_id, int kernel_type);
/* Host kernels of a slot. provider: NULL for the selected (mixed) table,
 * "base", or a component's name (its offer, whether selected or not).
 * count selects among size tiers, of the selected table or of the named
 * component's own offers (per half, the offer with the largest min_count
 * <= count; below all of them, its first tier).
 * OPF_ERR_OP if the slot does not exist, OPF_ERR_ARG if the provider has
 * no kernel there (*fn2 / *fn3 are set to NULL for a missing half). */
int opf_slot_kernels(int op_id, int kernel_type, const char *provider, opf_count_t count,
                     opf_kernel2_fn **fn2, opf_kernel3_fn **fn3);
/* n-ary forms of a slot (opf_offer_t's kernel_n, kernel_n_once, premul_n,
 * premul_n_once: OPF_FORM_N .. OPF_FORM_PREMUL_ONCE; the premul forms are
 * SUM's). provider as for opf_slot_kernels. OPF_ERR_OP if the base has no
 * kernel of that form there (a form that would not differ from
 * OPF_FORM_N); OPF_ERR_ARG if the provider offers none (*fn = NULL). */
enum { OPF_FORM_N, OPF_FORM_N_ONCE, OPF_FORM_PREMUL, OPF_FORM_PREMUL_ONCE, OPF_FORM_COUNT };
int opf_slot_kernel_n(int op_id, int kernel_type, int form, const char *provider, opf_count_t count,
                      opf_kernel_n_fn **fn);
/* The provider of an n-ary form in the selected table for `count`
 * elements ("base", a component), NULL if no such slot or form. A chain
 * op's n-ary call composes the 3-buffer kernels of a component that wins
 * the 3-buffer slot without offering the form: see opf_reduce_local_n. */
const char *opf_slot_provider_n(int op_id, int kernel_type, int form, opf_count_t count);
/* Name of the provider serving a slot of the selected table, for a 2- or
 * 3-buffer call (nbuf 2 or 3) of `count` elements; NULL if no such slot. */
const char *opf_slot_provider(int op_id, int kernel_type, int nbuf, opf_count_t count);

/* ---- parameters ----------------------------------------------------------- */
/* A declared MCA parameter (see opframe.h for where values come from). */
typedef struct opf_param_info {
    const char *name;
    int type;                  /* OPF_PARAM_* */
    const char *type_name;     /* "bool", "int", "size", "double", "string", "enum", "flags" */
    const char *value;         /* current value, as text */
    const char *default_value;
    const char *description;
    int level;                 /* 1 (basic) .. 9 (developer) */
    int read_only;
    /* "default", "file <path>:<line>", "environment OPF_MCA_<name>",
     * "command line" or "API"; + " (synonym <old>)" when the value came
     * under a deprecated name */
    const char *source;
    const char *values;        /* ENUM / FLAGS words "a,b,c"; NULL for other types */
    const char *synonyms;      /* deprecated names "a,b", or NULL */
} opf_param_info_t;

/* Parameters in declaration order: the framework's (known before opf_init
 * too), then those of the components opf_init loaded. The strings of a
 * description stay valid until the next opf_finalize. OPF_ERR_ARG for an
 * index outside 0 .. opf_param_count() - 1. */
int opf_param_count(void);
int opf_param_describe(int index, opf_param_info_t *info);

/* ---- components ------------------------------------------------------------ */
/* Components found on mca_component_path by the last opf_init, by name. */
typedef struct opf_component_info {
    const char *name;
    const char *path;            /* the file it was loaded from */
    const char *description;
    /* "available", "disqualified: <reason>", "excluded by op=...", "failed: ..." */
    const char *status;
    int available;               /* 1 if its offers take part in selection */
    int version[3];
    int abi_version;
} opf_component_info_t;
int opf_component_count(void);
int opf_component_describe(int index, opf_component_info_t *info);

/* Component files that could not be used, with the reason (libltdl's message,
 * missing symbol, ABI version, name mismatch, duplicate name). */
typedef struct opf_failed_info {
    const char *path;
    const char *reason;
} opf_failed_info_t;
int opf_failed_count(void);
int opf_failed_describe(int index, opf_failed_info_t *info);

/* As opf_slot_provider, for a memory kind (OPF_MEM_HOST, or an id of device.h's
 * opf_memory_kind_lookup). */
const char *opf_slot_provider_mem(int op_id, int kernel_type, int memory_kind, int nbuf, opf_count_t count);
/* The offers for one slot half, their priorities and why the winner won, as
 * text (opframe_info --explain). */
int opf_slot_explain(int op_id, int kernel_type, int memory_kind, int nbuf, char *buf, int len);

/* ---- the "same value" rule ------------------------------------------------ */
/* Compares n elements of kernel type `kernel_type` at a and b as every
 * provider's results are compared with the base's: the value bytes must be
 * equal, except that any NaN matches any NaN, and padding (a pair's hole and
 * tail, an x87 long double's 6 bytes) is no value. *index is the first
 * element that differs, or -1. OPF_ERR_ARG for an unknown kernel type, a
 * negative n, or a NULL pointer (a and b may be NULL when n is 0). */
int opf_kernel_type_first_difference(int kernel_type, const void *a, const void *b, opf_count_t n,
                                     opf_count_t *index);

/* ---- hardware ----------------------------------------------------------------- */
/* The hardware opframe probed at init (probing now if no opf_init ran yet):
 * ISA, CPU model, topology, accelerators. OPF_ERR_ARG if hw is NULL. */
int opf_hw_describe(opf_hw_info_t *hw);
/* Names of the OPF_X86_* bits set in `features`, space-separated in bit order
 * ("sse2 sse4_1 avx ..."), or "none"; truncated like snprintf. Returns the
 * length of the full text. */
size_t opf_hw_format_features(unsigned features, char *buf, size_t len);
/* The same for the OPF_ARM_* bits ("asimd fphp asimdhp sve sve2 bf16 svebf16",
 * as Linux names them in /proc/cpuinfo). */
size_t opf_hw_format_arm_features(unsigned features, char *buf, size_t len);
/* The same for the OPF_RISCV_* bits ("v zvfhmin zvfh zvfbfmin zvfbfwma", as
 * Linux names them in /proc/cpuinfo's isa line). */
size_t opf_hw_format_riscv_features(unsigned features, char *buf, size_t len);

/* ---- devices the components found and use ------------------------------------- */
/* Reported by components through opf_component_device_add
 * (component_device.h) during opf_init; only those of available components
 * are listed. Strings stay valid until the next opf_finalize. */
typedef struct opf_device_info {
    const char *component;   /* the component that uses it: "opencl", "cuda" */
    const char *name;        /* hwloc's OS device name where there is one: "opencl0d0", "cuda0" */
    const char *kind;        /* "gpu", "cpu", "accelerator", ... */
    const char *model;       /* free text, "" if none */
} opf_device_info_t;
int opf_device_count(void);
/* OPF_ERR_ARG for an index outside 0 .. opf_device_count() - 1. */
int opf_device_describe(int index, opf_device_info_t *info);

/* ---- memory kinds by name ------------------------------------------------------ */
/* Memory kinds are registered at run time by device components
 * (opf_memory_kind_count / _name / _lookup in device.h). For tools: the
 * memory kind of a name (case-insensitive), -1 if unknown. */
int opf_memory_kind_by_name(const char *name);

/* ---- stream kernels (device.h) of a slot --------------------------------------- */
/* As opf_slot_provider_mem and opf_slot_explain, for the kernels that
 * opf_reduce_local_stream / opf_reduce_local3_stream enqueue. */
const char *opf_slot_stream_provider(int op_id, int kernel_type, int memory_kind, int nbuf, opf_count_t count);
int opf_slot_explain_stream(int op_id, int kernel_type, int memory_kind, int nbuf, char *buf, int len);
/* The provider of an n-ary form (OPF_FORM_N or OPF_FORM_N_ONCE) on a device
 * memory kind for `count` elements: its synchronous kernel (stream 0) or its
 * stream kernel (stream 1); NULL where no component offers one (the call
 * then composes 3-buffer device kernels, or is refused: device.h), or for no
 * such slot, form or kind. */
const char *opf_slot_provider_n_mem(int op_id, int kernel_type, int memory_kind, int form, int stream,
                                    opf_count_t count);

/* ---- size tiers ------------------------------------------------------------- */
/* One size tier of a slot half of the selected host table: from min_count
 * elements on (up to the next tier's min_count) `provider`'s kernel serves. */
typedef struct opf_slot_tier {
    opf_count_t min_count;     /* 0 for the first tier */
    const char *provider;      /* "base" or a component's name */
    opf_kernel2_fn *fn2;       /* the kernel of a 2-buffer half (nbuf 2), else NULL */
    opf_kernel3_fn *fn3;       /* the kernel of a 3-buffer half (nbuf 3), else NULL */
} opf_slot_tier_t;
/* The size tiers of one half (nbuf 2 or 3) of a slot of the selected host
 * table, in ascending min_count, the first from count 0: what
 * opf_slot_kernels(..., count, ...) picks for every count, without probing.
 * Writes at most `max` tiers and sets *ntiers to the slot's number of tiers
 * (1 when no offer is limited to large counts; it may exceed max). Valid
 * until the next opf_init / opf_finalize. OPF_ERR_OP if the slot does not
 * exist, OPF_ERR_ARG for a bad nbuf, a NULL ntiers, or tiers NULL with max > 0. */
int opf_slot_tiers(int op_id, int kernel_type, int nbuf, opf_slot_tier_t *tiers, int max, int *ntiers);

/* Every provider of one half (nbuf 2 or 3; stream 1: the kernels the stream
 * calls enqueue) of a slot of the selected table on a memory kind, each with
 * the counts it serves, in ascending counts: "avx512" when one provider serves
 * every count, "base<32,avx2>=32", "base<32,avx2>=32<1000,alpha>=1000";
 * "none" where no kernel serves (a device kind's synchronous half, host
 * memory's stream half). The text every listing shows (opframe_info --kernels,
 * the Open MPI bridge's op_opframe_kernels_* variables). Truncated like
 * snprintf. OPF_ERR_OP if the slot does not exist, OPF_ERR_ARG for a bad
 * nbuf, memory kind or buffer. */
int opf_slot_tiers_text(int op_id, int kernel_type, int memory_kind, int nbuf, int stream, char *buf, int len);

/* The same text for an n-ary form (OPF_FORM_*) of a host slot: who serves
 * opf_reduce_local_n from which count on. The plain n-ary form of every op
 * but AVG follows the 3-buffer half (its result is the chain of 3-buffer
 * calls): at each count the 3-buffer provider serves it, with its own n-ary
 * kernel, or else with its 3-buffer kernel composed left to right, written
 * "name(chain)": "base<32,example(chain)>=32". The other forms are ranked on
 * their own, like a half. OPF_ERR_OP where the slot or the form does not
 * exist, OPF_ERR_ARG for a bad form or buffer. */
int opf_slot_tiers_text_n(int op_id, int kernel_type, int form, char *buf, int len);

#ifdef __cplusplus
}
#endif
#endif /* OPFRAME_INTROSPECT_H */
