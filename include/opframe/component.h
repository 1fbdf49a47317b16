/*
 * component.h — the door between the opframe framework and its kernel
 * providers (the base, and components loaded at run time).
 *
 * Kernels are indexed by (op id, kernel type). A kernel type is a storage
 * layout plus arithmetic: OPF_INT and OPF_INT32_T share OPF_KT_INT32. Every
 * kernel takes a 64-bit element count and must give the base's result bit for
 * bit (any NaN matches any NaN). Kernels may assume element alignment only if
 * the provider says so; the base accepts any address.
 */
#ifndef OPFRAME_COMPONENT_H
#define OPFRAME_COMPONENT_H

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

/* Memory kinds a kernel works on. Host only for now; device components add
 * tables for theirs. */
enum { OPF_MEM_HOST, OPF_MEM_CUDA, OPF_MEM_OPENCL, OPF_MEM_KIND_COUNT };

/* inout[i] = in[i] op inout[i], i < n */
typedef void opf_kernel2_fn(const void *in, void *inout, opf_count_t n);
/* out[i] = in1[i] op in2[i], i < n; out may equal in1 or in2 */
typedef void opf_kernel3_fn(const void *in1, const void *in2, void *out, opf_count_t n);

#ifdef __cplusplus
}
#endif
#endif /* OPFRAME_COMPONENT_H */
