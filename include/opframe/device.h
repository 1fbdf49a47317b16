/*
 * device.h — reductions enqueued on a device stream or queue.
 *
 * opf_reduce_local / opf_reduce_local3 run on a device when a device
 * component claims the pointers through its memory_kind hook (cuda does;
 * opencl cannot recognise its buffers from a pointer: use opencl.h); they
 * return once the result is in place. The calls here instead enqueue the reduction on the caller's
 * stream (a cudaStream_t, a cl_command_queue, ... passed as void *) and return
 * at once. `memory_kind` is an OPF_MEM_* value of component.h. The datatype
 * must be contiguous (a predefined type, or a derived one without holes), and
 * the op predefined. When no component offers a stream kernel for the slot,
 * the call fails with OPF_ERR_OP and enqueues nothing.
 *
 * cuda.h and opencl.h wrap these with their API's types.
 */
#ifndef OPFRAME_DEVICE_H
#define OPFRAME_DEVICE_H

#include <opframe/component.h>

#ifdef __cplusplus
extern "C" {
#endif

int opf_reduce_local_stream(const void *inbuf, void *inoutbuf, opf_count_t count, opf_datatype_t datatype,
                            opf_op_t op, int memory_kind, void *stream);
int opf_reduce_local3_stream(const void *in1, const void *in2, void *out, opf_count_t count,
                             opf_datatype_t datatype, opf_op_t op, int memory_kind, void *stream);

#ifdef __cplusplus
}
#endif
#endif /* OPFRAME_DEVICE_H */
