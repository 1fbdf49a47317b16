/*
 * device_core.h — the host logic of a GPU component, written once for every
 * vendor: a component (components/cuda: NVIDIA's) fills a Backend with its
 * API's calls and hands it to the core, which does the rest.
 *
 * What the core does:
 *   - registers the memory kind "<component>" and claims device memory,
 *     managed memory and memory whose place the runtime cannot tell, so that
 *     opf_reduce_local / opf_reduce_local3 on such buffers reach the
 *     component (a buffer of unknown place is refused with the reason, never
 *     taken for host memory); before the runtime is initialised (a host-only
 *     process) it asks nothing about any pointer;
 *   - synchronous calls run on the "home" device: op_<component>_device if
 *     set, else the device holding the output buffer, else the one holding an
 *     input, else (managed memory only) the calling thread's current device
 *     when it has a context, else the managed memory's device. Device memory
 *     of the home device and managed memory are used in place; any other
 *     operand (host memory, pinned or not, another device's memory) is copied
 *     into scratch on the home device first (from the device's memory pool
 *     where it has one), and a result whose output is not in place is copied
 *     back. A mixed call (some operand in host memory) of fewer than
 *     op_<component>_staging_min_count elements copies the device operands to
 *     the host and computes there (the kernels' host twins, the same
 *     functors); so does a call without scratch, or on a device without a
 *     kernel image for its architecture. The call returns when the result is
 *     in place (the calling thread's per-thread stream is synchronised);
 *   - stream calls: enqueued on the caller's stream, on the stream's device;
 *     every buffer must be accessible from there (its device memory, managed
 *     memory, pinned host memory the device can use, or any host memory on
 *     devices with pageable memory access), else OPF_ERR_BUFFER and nothing
 *     enqueued (op_<component>_stream_check=false trusts the caller);
 *   - REPLACE / NO_OP as copies of the data bytes; every copy of a padded
 *     type goes range by range (2D copies): nothing is read or written past
 *     the last element's data (MPI's true extent) or in a pair's padding;
 *   - the calling thread's current context is restored exactly after a call
 *     (none stays none; a context of the application's own stays current);
 *   - failures return their OPF_* code with the reason (opf_last_error),
 *     are counted in op_<component>_errors and printed when
 *     op_<component>_verbose > 0; nothing aborts;
 *   - the runtime is set up at the first call that needs it
 *     (op_<component>_lazy_init), and host mappings the runtime called host
 *     memory are remembered while the driver library maps nothing
 *     (op_<component>_host_cache);
 *   - one entry point per slot, generated, offered at op_<component>_priority.
 *
 * The kernel tables (kernels.h: slot_kernel, nary_kernel, from the one kernel
 * source device_kernels.h) are compiled into the same module by the vendor's
 * kernel file; the core launches them.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <opframe/component.h>

#include "kernels.h"

namespace opf_gpu {

using Context = void *;   // a vendor's context handle (nullptr: none)
using Pool = void *;      // a vendor's memory pool handle (nullptr: none)

// Where a buffer lives. Unknown: the runtime's pointer query failed on memory
// that is not plainly host memory: refused, never taken for host memory.
enum class Where { Host, Pinned, Device, Managed, Unknown };

// The runtime's answer about a pointer.
struct PointerInfo {
    enum Status { Known, NotInitialised, Failed } status = NotInitialised;
    Where where = Where::Host;   // when Known
    int device = -1;             // the device's ordinal, when Known
    Context context = nullptr;   // the context the memory belongs to, where the API says
    int code = 0;                // the query's result, for messages
};

struct DeviceAttributes {
    int sm_count = 1;
    bool pageable_access = false;   // host pageable memory is device-accessible
    bool host_pointer_ok = false;   // registered host memory is usable at its host address
    bool pools = false;             // memory pools (stream-ordered allocation)
};

// The words a vendor's messages and parameters use.
struct Names {
    const char *component;         // "cuda": op_<component>_* parameters, the memory kind
    const char *vendor;            // "CUDA"
    const char *result_type;       // "CUresult": the driver's codes in messages
    const char *pointer_query;     // "cuPointerGetAttributes"
    const char *context_get;       // "cuCtxGetCurrent"
    const char *context_set;       // "cuCtxSetCurrent"
    const char *copy;              // "cudaMemcpy"
    const char *copy_async;        // "cudaMemcpyAsync"
    const char *private_contexts;  // "cuCtxCreate or a green context": contexts the core cannot work in
    int priority;                  // op_<component>_priority's default
};

// A vendor's API, as the core calls it. Error is the runtime's code (0
// success); `int` results of the context calls are the driver's.
class Backend {
public:
    explicit Backend(const Names &n) : names(n) {}
    Backend(const Backend &) = delete;
    Backend &operator=(const Backend &) = delete;
    const Names names;

    // ---- the runtime: opened without initialising it
    virtual int open(char *reason, size_t reason_len) = 0;   // 0, or 1 with the reason
    virtual bool is_open() const = 0;
    virtual void close() = 0;
    virtual std::string build_text() = 0;   // what the build holds (architectures, runtime)
    // The first call that initialises the runtime: count the devices, add the
    // usable ones to opframe_info's list when `list`, describe them in `text`;
    // OPF_SUCCESS or an OPF_* code with the reason.
    virtual int set_up_devices(bool list, int64_t device_param, std::string &text, char *reason, size_t reason_len,
                               int &count) = 0;
    virtual bool runtime_initialised() = 0;   // whether device memory can exist yet (asks no more once true)
    // The count of the driver library's mapping calls (nullptr, with `state`
    // saying why, where they are not counted) and what counts them.
    virtual const uint64_t *host_mapping_count(bool wanted, char *state, size_t state_len) = 0;
    virtual int64_t *driver_mapping_calls() = 0;

    // ---- errors
    virtual void clear_error() = 0;   // the runtime's last error, taken
    virtual const char *error_name(Error) = 0;
    virtual const char *error_string(Error) = 0;
    virtual int opf_code(Error) = 0;
    virtual bool no_kernel_image(Error) = 0;   // a probe's failure no retry cures

    // ---- pointers and contexts
    virtual PointerInfo query_pointer(const void *p) = 0;
    virtual int current_context(Context &ctx) = 0;
    virtual int set_context(Context ctx) = 0;
    virtual Context primary_context(int dev) = 0;   // nullptr when not active
    virtual Error set_device(int dev) = 0;
    virtual Error get_device(int &dev) = 0;

    // ---- devices (the current one)
    virtual DeviceAttributes attributes(int dev) = 0;
    virtual Error probe_kernels() = 0;   // loads the kernels on the current device
    virtual Pool create_pool(int dev, uint64_t keep_bytes) = 0;   // nullptr where none can be had
    virtual void destroy_pool(Pool) = 0;
    virtual Error occupancy(int &blocks_per_sm, const void *kernel, int block) = 0;

    // ---- memory, copies, streams
    virtual Error allocate(void *&p, size_t bytes, Pool pool, Stream stream) = 0;   // from the pool where one is given
    virtual void release(void *p, Pool pool, Stream stream) = 0;
    virtual Error copy(void *dst, const void *src, size_t bytes, Stream stream) = 0;
    virtual Error copy_2d(void *dst, size_t dst_pitch, const void *src, size_t src_pitch, size_t width, size_t height,
                          Stream stream) = 0;
    virtual Error synchronize(Stream stream) = 0;
    virtual Stream thread_stream() = 0;        // the calling thread's per-thread default stream
    virtual bool default_stream(Stream) = 0;   // one of the API's default streams
    virtual Error stream_device(Stream stream, int &dev) = 0;

protected:
    ~Backend() = default;
};

// The component's hooks (OPF_COMPONENT_DECLARE), on `backend` (kept).
int register_params(Backend &backend);
int init_query(char *reason, size_t reason_len);
int op_query(int op_id, opf_module_t *module);
void close_component();

} // namespace opf_gpu
