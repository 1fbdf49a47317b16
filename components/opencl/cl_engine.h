// cl_engine.h — what the opencl component does with a device: its
// capabilities, the programs built for it (once per context, device and op,
// optionally from an on-disk binary cache), and the launches on a queue.
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cl_api.h"   // before opencl.h: sets CL_TARGET_OPENCL_VERSION
#include "cl_source.h"

#include <opframe/opencl.h>

namespace opfcl {

// ---- settings the component passes down ------------------------------------
struct Settings {
    std::string cache_dir;      // op_opencl_cache_dir ("" : no disk cache)
    size_t local_size = 0;      // op_opencl_local_size (0 : per device kind)
    opf_count_t max_launch = 0; // op_opencl_max_launch: items per kernel launch (0 : 2^30)
    bool selftest = true;       // op_opencl_selftest: check each kernel against the base per device
};
extern Settings settings;

// A line on stderr when op_base_verbose >= level (opf_component_log).
[[gnu::format(printf, 2, 3)]] void log(int level, const char *fmt, ...);

// ---- a device's capabilities ---------------------------------------------------
struct Caps {
    std::string name, vendor, version, driver, platform_name, platform_version;
    cl_device_type type = 0;
    bool unified_memory = false, compiler = false;
    unsigned have = 0;                       // Need bits that hold
    cl_device_svm_capabilities svm = 0;
    size_t max_work_group = 1;
};
Caps query_caps(cl_device_id device);
// Why a Need bit does not hold, in words ("no fp64 (cl_khr_fp64)").
std::string missing_text(unsigned missing);
const char *device_type_name(cl_device_type type);

// ---- programs and kernels of one (context, device) ---------------------------------
class DeviceState {
public:
    DeviceState(cl_context context, cl_device_id device);   // retains the context
    ~DeviceState();
    DeviceState(const DeviceState &) = delete;
    DeviceState &operator=(const DeviceState &) = delete;

    struct Kernels {
        cl_kernel k[2] = {nullptr, nullptr};   // 2-buffer, 3-buffer
        size_t local[2] = {1, 1};
        std::mutex lock;                       // clSetKernelArg .. clEnqueueNDRangeKernel
    };
    // Can the device compute (op, kt) exactly? (Not: did it build.)
    bool possible(int op_id, int kt, std::string &why) const;
    // The kernels of a slot, building the op's program on first use; nullptr
    // with `why` if the device cannot do it or the build failed.
    Kernels *kernels(int op_id, int kt, std::string &why);

    const cl_context context;
    const cl_device_id device;
    const Caps caps;

private:
    void build_op(int op_id);
    void selftest_op(int op_id);
    cl_program build(const std::string &source, const char *what, std::string &error);

    std::mutex build_lock_;
    std::array<std::atomic<bool>, OPF_OPID_COUNT> built_{};
    std::vector<cl_program> programs_;
    Kernels slots_[OPF_OPID_COUNT][OPF_KT_COUNT];
    std::string failed_[OPF_OPID_COUNT][OPF_KT_COUNT];   // build failures
};

// The state of (context, device), created on first use and kept until
// release_context / release_all.
std::shared_ptr<DeviceState> state_for(cl_context context, cl_device_id device);
void release_context(cl_context context);
void release_all();

// ---- launches ----------------------------------------------------------------------
// Enqueues (op, kt) on L.queue over nbuf buffers (cl_mem or SVM, in argument
// order: in, inout / in1, in2, out). Returns an OPF_* code; `why` on failure.
// `enqueued` (optional) tells whether the work was enqueued before a failure.
int launch(int op_id, int kt, int nbuf, const void *const buffers[3], opf_count_t n, const opf_cl_launch_t &L,
           std::string &why, bool *enqueued = nullptr);

// ---- host memory through the component's own device ----------------------------------
// Opens a context and an in-order queue on `device` (host slots).
bool host_open(cl_device_id device, std::string &why);
void host_close();
std::shared_ptr<DeviceState> host_state();
// Runs (op, kt) on host buffers through the device (zero-copy buffers where
// the device can, CL_MEM_USE_HOST_PTR) and waits; OPF_* code. `started`:
// the device may have written `out` before the failure.
int host_call(int op_id, int kt, int nbuf, const void *a, const void *b, void *out, opf_count_t n, std::string &why,
              bool &started);

} // namespace opfcl
