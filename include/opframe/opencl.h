/*
 * opencl.h — opframe reductions on OpenCL memory: cl_mem buffers (with byte
 * offsets) and shared virtual memory, enqueued on the caller's command queue.
 *
 *   cc app.c $(pkg-config --cflags --libs opframe-opencl)
 *   (that is -lopframe-opencl -lopframe -lOpenCL)
 *
 * The kernels come from the `opencl` component (opf_op_opencl.so), which
 * opf_init loads from the component path like every other component. These
 * functions, in the small library libopframe-opencl, wrap
 * opf_reduce_local(3)_stream (device.h) with memory kind "opencl": the
 * framework picks the stream kernel of the slot (priority, op=..., pins). If
 * no component serves OpenCL memory (no ICD loader, no platform or device,
 * op=^opencl), the calls return
 * OPF_ERR_OP and opf_cl_last_error() says why. The first call runs opf_init
 * if needed.
 *
 * Semantics are the host's (opframe.h), bit for bit: inout[i] = in[i] op
 * inout[i]; out[i] = in1[i] op in2[i], where out may be exactly in1 or in2
 * (same cl_mem and offset, or same SVM pointer) but must not partly overlap
 * them. A slot the device cannot compute exactly is refused (OPF_ERR_OP):
 * double without fp64, float without denormals, long double, float128 and
 * int128 (REPLACE and NO_OP are byte copies and work on every type).
 *
 * Arguments:
 *   in, inout, ...  buffers of the queue's context; *_off are byte offsets,
 *                   multiples of the type's alignment (as in C); the range
 *                   [off, off + count * extent) must lie in the buffer
 *   count, type, op as opf_reduce_local; datatype: a predefined type, or a
 *                   derived type that is contiguous, without gaps, of one
 *                   predefined type (user ops: host memory only)
 *   queue           the caller's command queue (in-order or out-of-order)
 *   nwait, wait     events the reduction waits for (as clEnqueue*)
 *   done            NULL: the call blocks until the reduction has completed.
 *                   Otherwise it returns at once with *done set to an event
 *                   the caller owns (clReleaseEvent); count 0 gives a marker.
 *
 * Every function returns OPF_SUCCESS or an OPF_ERR_* code; on error nothing
 * was enqueued, and opf_cl_last_error() names the op, the datatype and the
 * reason (an op or type the device cannot do is OPF_ERR_OP, an invalid queue
 * or wait list OPF_ERR_ARG, a bad buffer or range OPF_ERR_BUFFER, an OpenCL
 * resource failure OPF_ERR_NO_MEM, any other OpenCL failure OPF_ERR_INTERN,
 * with the OpenCL error's name). One exception: a
 * count above 2^30 runs as several kernel launches, and if a later one fails
 * to enqueue, the earlier ones still run. A failure reported while waiting
 * (done == NULL) means the device may have written part of the output.
 *
 * Programs are built once per (context, device, op) on first use (and each
 * kernel checked against the base there: op_opencl_selftest) and kept until
 * opf_finalize; they hold a reference to the context, so a context is really
 * destroyed only after opf_cl_release_context(ctx) or opf_finalize.
 * Thread safety: any thread, any queue, concurrently.
 */
#ifndef OPFRAME_OPENCL_H
#define OPFRAME_OPENCL_H

#if defined(__APPLE__)
#include <OpenCL/opencl.h>
#else
#include <CL/cl.h>
#endif
#include <stddef.h>
#include <opframe/opframe.h>
#include <opframe/device.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- applications ------------------------------------------------------- */
/* inout = in op inout on cl_mem buffers. */
int opf_cl_reduce_local(cl_mem in, size_t in_off, cl_mem inout, size_t inout_off, opf_count_t count,
                        opf_datatype_t datatype, opf_op_t op, cl_command_queue queue, cl_uint nwait,
                        const cl_event *wait, cl_event *done);
/* out = in1 op in2 on cl_mem buffers. */
int opf_cl_reduce_local3(cl_mem in1, size_t in1_off, cl_mem in2, size_t in2_off, cl_mem out, size_t out_off,
                         opf_count_t count, opf_datatype_t datatype, opf_op_t op, cl_command_queue queue,
                         cl_uint nwait, const cl_event *wait, cl_event *done);
/* The same on SVM pointers (OpenCL 2.0 shared virtual memory, from
 * clSVMAlloc in the queue's context; the device must report SVM support, or
 * OPF_ERR_BUFFER). Coarse-grained SVM must not be mapped during the call. */
int opf_cl_reduce_local_svm(const void *in, void *inout, opf_count_t count, opf_datatype_t datatype,
                            opf_op_t op, cl_command_queue queue, cl_uint nwait, const cl_event *wait,
                            cl_event *done);
int opf_cl_reduce_local3_svm(const void *in1, const void *in2, void *out, opf_count_t count,
                             opf_datatype_t datatype, opf_op_t op, cl_command_queue queue, cl_uint nwait,
                             const cl_event *wait, cl_event *done);

/* Whether (op, datatype) runs on the queue's device: *supported is 1 or 0
 * (then opf_cl_last_error() says why: no fp64, no denormals, a build error). */
int opf_cl_supported(cl_command_queue queue, opf_op_t op, opf_datatype_t datatype, int *supported);

/* Drops the programs and kernels cached for `context` (every device), so
 * that the context can be destroyed before opf_finalize. */
int opf_cl_release_context(cl_context context);

/* The detailed message of the calling thread's last failed opf_cl_* call. */
const char *opf_cl_last_error(void);

/* ---- OpenCL components (not for applications) -----------------------------
 * Stream kernels of memory kind "opencl" (opf_offer_t.stream2 / stream3),
 * reached through opf_reduce_local(3)_stream, are called as
 *     fn2((const void *)in, (void *)inout, n, &launch)
 *     fn3((const void *)in1, (const void *)in2, (void *)out, n, &launch)
 * where the buffers are cl_mem handles (or SVM pointers when launch.svm),
 * n counts elements of the kernel type, and `stream` points to: */
typedef struct opf_cl_launch {
    cl_command_queue queue;
    size_t offset[3];       /* byte offsets of the buffers, in argument order (cl_mem only) */
    cl_uint nwait;
    const cl_event *wait;
    cl_event *done;         /* NULL: complete before returning */
    int svm;                /* 1: the buffers are SVM pointers */
    char *error;            /* on failure the kernel writes its reason here */
    size_t error_len;
    /* OPF_CL_RUN: reduce. The others touch no buffer and enqueue nothing:
     * OPF_CL_QUERY: OPF_SUCCESS if the slot runs on the queue's device, else
     *   OPF_ERR_OP with the reason; OPF_CL_RELEASE: drop what is cached for
     *   `context` (queue may be NULL). */
    int control;
    cl_context context;
} opf_cl_launch_t;
enum { OPF_CL_RUN = 0, OPF_CL_QUERY = 1, OPF_CL_RELEASE = 2 };

#ifdef __cplusplus
}
#endif
#endif /* OPFRAME_OPENCL_H */
