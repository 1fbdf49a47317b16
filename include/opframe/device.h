/*
 * device.h — reductions enqueued on a device stream or queue.
 *
 * opf_reduce_local / opf_reduce_local3 run on a device when a device
 * component claims the pointers (cuda does; opencl cannot recognise its
 * buffers from a pointer: use opencl.h); they return once the result is in
 * place, with the device's error code and reason if it failed. The calls here
 * instead enqueue the reduction on the caller's stream (a cudaStream_t, a
 * cl_command_queue, ... passed as void *) and return at once. `memory_kind`
 * is the id a device component registered its memory under at opf_init
 * (opf_memory_kind_lookup: "cuda", "opencl"). The datatype
 * must be contiguous (a predefined type, or a derived one without holes), and
 * the op predefined. When no component offers a stream kernel for the slot
 * (or none registered `memory_kind`), the call fails with OPF_ERR_OP and
 * enqueues nothing; a count of 0 enqueues nothing and succeeds.
 *
 * cuda.h and opencl.h wrap these with their API's types.
 */
#ifndef OPFRAME_DEVICE_H
#define OPFRAME_DEVICE_H

#include <opframe/kernel.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The memory kind registered under `name` by a component opf_init loaded
 * (initialising the library if needed). OPF_ERR_ARG, *memory_kind = -1, when
 * no available component registered it. OPF_MEM_HOST is "host". */
int opf_memory_kind_lookup(const char *name, int *memory_kind);
/* Memory kinds known now (host included: ids 0 .. count-1), and the name of
 * one (NULL for an id out of range). */
int opf_memory_kind_count(void);
const char *opf_memory_kind_name(int memory_kind);

int opf_reduce_local_stream(const void *inbuf, void *inoutbuf, opf_count_t count, opf_datatype_t datatype,
                            opf_op_t op, int memory_kind, void *stream);
int opf_reduce_local3_stream(const void *in1, const void *in2, void *out, opf_count_t count,
                             opf_datatype_t datatype, opf_op_t op, int memory_kind, void *stream);
/* dst = srcs[0] op srcs[1] op ... op srcs[nsrc-1] (opf_reduce_local_n's
 * result; _mode: opf_reduce_local_n_mode's), enqueued on the stream:
 * predefined ops; dst may be any of srcs. `srcs` (a host array of device
 * addresses) is read before the call returns. The slot's n-ary stream kernel
 * serves it in one launch (the cuda component offers one for every slot it
 * computes); where no component offers one, the chain of 3-buffer stream
 * calls does when that is the result, and the call is refused otherwise:
 * OPF_ERR_OP for AVG of more than two inputs and for a round-once sum,
 * OPF_ERR_BUFFER for dst among srcs[2..] (the chain would overwrite it
 * before reading it); nsrc 1 copies srcs[0]. A chain step that fails stops
 * the chain with its error: what earlier steps enqueued stays enqueued. */
int opf_reduce_local_n_stream(const void *const srcs[], int nsrc, void *dst, opf_count_t count,
                              opf_datatype_t datatype, opf_op_t op, int memory_kind, void *stream);
int opf_reduce_local_n_stream_mode(const void *const srcs[], int nsrc, void *dst, opf_count_t count,
                                   opf_datatype_t datatype, opf_op_t op, int mode, int memory_kind, void *stream);

#ifdef __cplusplus
}
#endif
#endif /* OPFRAME_DEVICE_H */
