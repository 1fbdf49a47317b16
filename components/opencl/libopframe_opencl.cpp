// libopframe_opencl.cpp — libopframe-opencl, the library applications link
// for include/opframe/opencl.h. Each call becomes opf_reduce_local(3)_stream
// with memory kind OPF_MEM_OPENCL and an opf_cl_launch_t as the stream: the
// framework checks the call and picks the slot's stream kernel (the opencl
// component's, or another OpenCL component's that outranks it). The only
// OpenCL calls here are for count 0 (a marker, or waiting for the wait list),
// which the framework returns from before any kernel.
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <opframe/introspect.h>
#include <opframe/opencl.h>

#include <cstdarg>
#include <cstdlib>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#define OPF_CL_API extern "C" __attribute__((visibility("default")))

namespace {

thread_local char last_error[2 * OPF_MAX_ERROR_STRING];

[[gnu::format(printf, 5, 6)]] int fail(int code, const char *fn, opf_op_t op, opf_datatype_t type, const char *fmt,
                                       ...)
{
    const char *op_name = opf_op_name(op), *type_name = opf_type_name(type);
    int at = std::snprintf(last_error, sizeof last_error, "%s: op %s, datatype %s: ", fn, op_name ? op_name : "(invalid)",
                           type_name ? type_name : "(invalid)");
    if (at < 0 || std::size_t(at) >= sizeof last_error) at = 0;
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(last_error + at, sizeof last_error - std::size_t(at), fmt, args);
    va_end(args);
    return code;
}

// The framework's message without its "function(op ..., type ...): " head.
const char *framework_reason()
{
    const char *e = opf_last_error();
    if (std::strncmp(e, "opf_reduce_local", 16) == 0)
        if (const char *p = std::strstr(e, "): ")) return p + 3;
    return e;
}

// Why no stream kernel serves OpenCL memory: the opencl component's status.
std::string opencl_status()
{
    for (int i = 0; i < opf_component_count(); ++i) {
        opf_component_info_t info;
        if (opf_component_describe(i, &info) == OPF_SUCCESS && std::strcmp(info.name, "opencl") == 0) {
            if (!info.available) return std::string("the opencl component is ") + info.status;
            return "the opencl component has none for it (long double, float128 and int128 arithmetic stays on "
                   "the host)";
        }
    }
    return "no opencl component on mca_component_path";
}

// Runs one call through the framework. `svm` 1: the buffers are SVM pointers.
int run(const char *fn, int nbuf, const void *a, const void *b, void *out, const size_t off[3], opf_count_t count,
        opf_datatype_t type, opf_op_t op, cl_command_queue queue, cl_uint nwait, const cl_event *wait, cl_event *done,
        int svm, int control = OPF_CL_RUN, cl_context context = nullptr)
{
    if (!queue && control != OPF_CL_RELEASE) return fail(OPF_ERR_ARG, fn, op, type, "the command queue is NULL");
    if ((nwait > 0) != (wait != nullptr))
        return fail(OPF_ERR_ARG, fn, op, type, "nwait is %u but wait is %s", nwait, wait ? "not NULL" : "NULL");
    int flag = 0;
    if (opf_initialized(&flag) == OPF_SUCCESS && !flag)
        if (int rc = opf_init()) return fail(rc, fn, op, type, "opf_init failed: %s", opf_last_error());
    char error[2 * OPF_MAX_ERROR_STRING] = "";
    opf_cl_launch_t L{};
    L.queue = queue;
    for (int i = 0; i < 3; ++i) L.offset[i] = off ? off[i] : 0;
    L.nwait = nwait;
    L.wait = wait;
    L.done = done;
    L.svm = svm;
    L.error = error;
    L.error_len = sizeof error;
    L.control = control;
    L.context = context;
    int kind = -1;   // registered by the opencl component; -1 (refused below) when it is not there
    opf_memory_kind_lookup("opencl", &kind);
    const int rc = nbuf == 2 ? opf_reduce_local_stream(a, out, count, type, op, kind, &L)
                             : opf_reduce_local3_stream(a, b, out, count, type, op, kind, &L);
    if (rc != OPF_SUCCESS) {
        if (error[0]) return fail(rc, fn, op, type, "%s", error);
        if (std::strstr(opf_last_error(), "no component offers a stream kernel"))   // kind -1 too: no opencl component
            return fail(rc, fn, op, type, "no OpenCL kernel for this slot: %s", opencl_status().c_str());
        return fail(rc, fn, op, type, "%s", framework_reason());
    }
    if (count == 0 && control == OPF_CL_RUN) {
        // The framework checked the call and returned: keep the event promise.
        cl_int err = CL_SUCCESS;
        if (done) err = clEnqueueMarkerWithWaitList(queue, nwait, wait, done);
        else if (nwait) err = clWaitForEvents(nwait, wait);
        if (err != CL_SUCCESS)
            return fail(err == CL_INVALID_COMMAND_QUEUE || err == CL_INVALID_EVENT_WAIT_LIST || err == CL_INVALID_EVENT
                            ? OPF_ERR_ARG
                            : OPF_ERR_INTERN,
                        fn, op, type, "count 0: %s failed (OpenCL error %d)",
                        done ? "clEnqueueMarkerWithWaitList" : "clWaitForEvents", err);
    }
    return OPF_SUCCESS;
}

// Control calls carry no data: the framework wants non-NULL buffers for a
// count of 1, and the kernel touches none of them.
char no_buffer;

} // namespace

OPF_CL_API int opf_cl_reduce_local(cl_mem in, size_t in_off, cl_mem inout, size_t inout_off, opf_count_t count,
                                   opf_datatype_t datatype, opf_op_t op, cl_command_queue queue, cl_uint nwait,
                                   const cl_event *wait, cl_event *done)
{
    const size_t off[3] = {in_off, inout_off, 0};
    return run("opf_cl_reduce_local", 2, in, nullptr, inout, off, count, datatype, op, queue, nwait, wait, done, 0);
}

OPF_CL_API int opf_cl_reduce_local3(cl_mem in1, size_t in1_off, cl_mem in2, size_t in2_off, cl_mem out,
                                    size_t out_off, opf_count_t count, opf_datatype_t datatype, opf_op_t op,
                                    cl_command_queue queue, cl_uint nwait, const cl_event *wait, cl_event *done)
{
    const size_t off[3] = {in1_off, in2_off, out_off};
    return run("opf_cl_reduce_local3", 3, in1, in2, out, off, count, datatype, op, queue, nwait, wait, done, 0);
}

OPF_CL_API int opf_cl_reduce_local_svm(const void *in, void *inout, opf_count_t count, opf_datatype_t datatype,
                                       opf_op_t op, cl_command_queue queue, cl_uint nwait, const cl_event *wait,
                                       cl_event *done)
{
    return run("opf_cl_reduce_local_svm", 2, in, nullptr, inout, nullptr, count, datatype, op, queue, nwait, wait, done,
               1);
}

OPF_CL_API int opf_cl_reduce_local3_svm(const void *in1, const void *in2, void *out, opf_count_t count,
                                        opf_datatype_t datatype, opf_op_t op, cl_command_queue queue, cl_uint nwait,
                                        const cl_event *wait, cl_event *done)
{
    return run("opf_cl_reduce_local3_svm", 3, in1, in2, out, nullptr, count, datatype, op, queue, nwait, wait, done, 1);
}

OPF_CL_API int opf_cl_supported(cl_command_queue queue, opf_op_t op, opf_datatype_t datatype, int *supported)
{
    const char *fn = "opf_cl_supported";
    if (!supported) return fail(OPF_ERR_ARG, fn, op, datatype, "supported is NULL");
    *supported = 0;
    const int rc = run(fn, 2, &no_buffer, nullptr, &no_buffer, nullptr, 1, datatype, op, queue, 0, nullptr, nullptr, 0,
                       OPF_CL_QUERY);
    if (rc == OPF_ERR_OP) return OPF_SUCCESS;   // not here: *supported 0, the reason in opf_cl_last_error()
    *supported = rc == OPF_SUCCESS;
    return rc;
}

OPF_CL_API int opf_cl_release_context(cl_context context)
{
    const char *fn = "opf_cl_release_context";
    if (!context) return fail(OPF_ERR_ARG, fn, OPF_REPLACE, OPF_BYTE, "context is NULL");
    int flag = 0;
    if (opf_initialized(&flag) == OPF_SUCCESS && !flag) return OPF_SUCCESS;   // nothing is cached
    // REPLACE on BYTE: a slot every OpenCL provider serves (a copy).
    const int rc = run(fn, 2, &no_buffer, nullptr, &no_buffer, nullptr, 1, OPF_BYTE, OPF_REPLACE, nullptr, 0, nullptr,
                       nullptr, 0, OPF_CL_RELEASE, context);
    return rc == OPF_ERR_OP ? OPF_SUCCESS : rc;   // no OpenCL provider: nothing cached
}

OPF_CL_API const char *opf_cl_last_error(void) { return last_error; }
