/*
 * introspect.h — read-only views of opframe's tables, for tools
 * (opframe_info, opframe_bench) and for the conformance harness.
 */
#ifndef OPFRAME_INTROSPECT_H
#define OPFRAME_INTROSPECT_H

#include <opframe/component.h>

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
/* Kernels of a slot. provider: NULL for the selected (mixed) table, or a
 * provider name ("base"). count selects among size-tiered offers.
 * OPF_ERR_OP if the slot does not exist, OPF_ERR_ARG if the provider has
 * no kernel there (*fn2 / *fn3 are set to NULL for a missing half). */
int opf_slot_kernels(int op_id, int kernel_type, const char *provider, opf_count_t count,
                     opf_kernel2_fn **fn2, opf_kernel3_fn **fn3);
/* Name of the provider serving a slot of the selected table, for a 2- or
 * 3-buffer call (nbuf 2 or 3) of `count` elements; NULL if no such slot. */
const char *opf_slot_provider(int op_id, int kernel_type, int nbuf, opf_count_t count);

#ifdef __cplusplus
}
#endif
#endif /* OPFRAME_INTROSPECT_H */
