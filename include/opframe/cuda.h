/*
 * cuda.h — opframe reductions on NVIDIA GPU memory, enqueued on a
 * cudaStream_t. Inline wrappers over device.h: nothing to link but
 * libopframe (and the CUDA runtime the application uses anyway).
 *
 *   cc app.c $(pkg-config --cflags --libs opframe) -I$CUDA_HOME/include -lcudart
 *
 * The kernels come from the `cuda` component (opf_op_cuda.so), which opf_init
 * loads from the component path like every other component. If it is not
 * available (no driver, excluded with op=^cuda) the stream calls fail with
 * OPF_ERR_OP and enqueue nothing; opf_cuda_available() tells why. opf_init
 * does not initialise the CUDA driver: the devices are found at the first call
 * that needs them, so a machine without one answers OPF_ERR_OP ("no CUDA
 * device") there (op_cuda_lazy_init=false: at opf_init, which then
 * disqualifies the component).
 *
 * Semantics are the host's (opframe.h), bit for bit: inout[i] = in[i] op
 * inout[i]; out[i] = in1[i] op in2[i], where out may be exactly in1 or in2
 * but must not partly overlap them.
 *
 * Stream calls:
 *   - return at once; the reduction runs in stream order on the stream's
 *     device (use cudaStreamSynchronize or an event to wait for it);
 *   - every buffer must be accessible from that device: its device memory,
 *     managed memory, mapped pinned host memory (cudaHostAlloc /
 *     cudaHostRegister), or any host memory on devices with pageable memory
 *     access. Otherwise OPF_ERR_BUFFER, nothing enqueued (the check costs one
 *     driver query per buffer; op_cuda_stream_check=false skips it);
 *   - datatype: a predefined type, or a derived one that is contiguous
 *     without holes; op: a predefined op (user ops run on host memory only);
 *   - served types: integers of 8 to 64 bits, float16, bfloat16, fp8
 *     (FLOAT8_E4M3 / E5M2, in float as the base), float,
 *     double, complex float / double, the MAXLOC / MINLOC pairs but the
 *     long double one; REPLACE and NO_OP on every type. Others (long double,
 *     float128, int128): OPF_ERR_OP.
 *
 * Synchronous calls: opf_reduce_local / opf_reduce_local3 on device or
 * managed memory run on the GPU too, and may mix host and device buffers
 * (host operands are staged through device scratch; small mixed calls run on
 * the host, see op_cuda_staging_min_count). They return when the result is
 * in place. The component's source (components/gpu/device_core.h, the
 * host logic it shares with other GPU components) documents the full rule.
 *
 * Streams and device pointers of the application's CUDA runtime work with the
 * component's statically linked runtime: both use the primary context of
 * each device (memory of contexts made with cuCtxCreate is not supported).
 */
#ifndef OPFRAME_CUDA_H
#define OPFRAME_CUDA_H

#include <string.h>
#include <cuda_runtime_api.h>
#include <opframe/device.h>
#include <opframe/introspect.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The memory kind the cuda component registered, or -1 when it is not
 * available (the stream calls then fail with OPF_ERR_OP). */
static inline int opf_cuda_memory_kind(void)
{
    int kind = -1;
    opf_memory_kind_lookup("cuda", &kind);
    return kind;
}

/* Stream 0 means what it means where the call is compiled: the per-thread
 * default stream under nvcc --default-stream per-thread (which defines
 * CUDA_API_PER_THREAD_DEFAULT_STREAM), else the legacy one. The component
 * cannot tell, so these inline wrappers, compiled with the caller, say which. */
static inline void *opf_cuda_stream_(cudaStream_t stream)
{
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
    if (!stream) return (void *)cudaStreamPerThread;
#endif
    return (void *)stream;
}

/* inout = in op inout, enqueued on `stream`. */
static inline int opf_cuda_reduce_local(const void *in, void *inout, opf_count_t count, opf_datatype_t datatype,
                                        opf_op_t op, cudaStream_t stream)
{
    return opf_reduce_local_stream(in, inout, count, datatype, op, opf_cuda_memory_kind(), opf_cuda_stream_(stream));
}

/* out = in1 op in2, enqueued on `stream`; out may be in1 or in2. */
static inline int opf_cuda_reduce_local3(const void *in1, const void *in2, void *out, opf_count_t count,
                                         opf_datatype_t datatype, opf_op_t op, cudaStream_t stream)
{
    return opf_reduce_local3_stream(in1, in2, out, count, datatype, op, opf_cuda_memory_kind(),
                                    opf_cuda_stream_(stream));
}

/* dst = srcs[0] op ... op srcs[nsrc-1], enqueued on `stream` in one launch
 * (opf_reduce_local_n_stream in device.h); _mode: in OPF_ROUND_CHAIN or
 * OPF_ROUND_ONCE (opf_reduce_local_n_mode's rule). */
static inline int opf_cuda_reduce_local_n(const void *const srcs[], int nsrc, void *dst, opf_count_t count,
                                          opf_datatype_t datatype, opf_op_t op, cudaStream_t stream)
{
    return opf_reduce_local_n_stream(srcs, nsrc, dst, count, datatype, op, opf_cuda_memory_kind(),
                                     opf_cuda_stream_(stream));
}
static inline int opf_cuda_reduce_local_n_mode(const void *const srcs[], int nsrc, void *dst, opf_count_t count,
                                               opf_datatype_t datatype, opf_op_t op, int mode, cudaStream_t stream)
{
    return opf_reduce_local_n_stream_mode(srcs, nsrc, dst, count, datatype, op, mode, opf_cuda_memory_kind(),
                                          opf_cuda_stream_(stream));
}

/* 1 if the cuda component is loaded and available, else 0; `status` (may be
 * NULL) receives its status line ("available", "disqualified: no CUDA
 * device", ...) or "not loaded". Initialises opframe if needed. */
static inline int opf_cuda_available(const char **status)
{
    int i, n;
    if (status) *status = "not loaded";
    if (opf_init() != OPF_SUCCESS) return 0;
    n = opf_component_count();
    for (i = 0; i < n; ++i) {
        opf_component_info_t info;
        if (opf_component_describe(i, &info) == OPF_SUCCESS && info.name && strcmp(info.name, "cuda") == 0) {
            if (status) *status = info.status;
            return info.available;
        }
    }
    return 0;
}

/* Whether (op, datatype) has a stream kernel on CUDA memory: *supported is
 * 1 or 0. op must be predefined; OPF_ERR_OP / OPF_ERR_TYPE otherwise. */
static inline int opf_cuda_supported(opf_op_t op, opf_datatype_t datatype, int *supported)
{
    int kernel_type = -1, valid = 0, rc;
    const uintptr_t op_id = (uintptr_t)op;
    if (!supported) return OPF_ERR_ARG;
    *supported = 0;
    if (op_id == 0 || op_id >= OPF_OPID_COUNT) return OPF_ERR_OP;
    if ((rc = opf_op_valid_for_type(op, datatype, &valid)) != OPF_SUCCESS) return rc;
    if ((rc = opf_type_kernel_type(datatype, &kernel_type)) != OPF_SUCCESS) return rc;
    if (!valid || kernel_type < 0) return OPF_SUCCESS;
    {
        const char *who = opf_slot_provider_mem((int)op_id, kernel_type, opf_cuda_memory_kind(), 2, 1);
        *supported = who != NULL && strcmp(who, "base") != 0;
    }
    return OPF_SUCCESS;
}

#ifdef __cplusplus
}
#endif
#endif /* OPFRAME_CUDA_H */
