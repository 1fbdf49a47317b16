// opf_op_opencl.cpp — the `opencl` component.
//
// What it offers:
//   * device memory: stream kernels of memory kind "opencl" for every
//     (op, kernel type) a device computes exactly, reached through
//     opf_reduce_local(3)_stream (libopframe-opencl's opf_cl_* calls,
//     include/opframe/opencl.h) on the caller's queue, for cl_mem buffers
//     and SVM pointers, on any context and device;
//   * host memory: kernels run on its own device (op_opencl_device), only
//     when asked (op_opencl_host_min_count), beside the device-buffer offers.
//
// Parameters (opframe_info --param op opencl):
//   op_opencl_priority        priority of its host offers (default 10)
//   op_opencl_device          index or name substring (default: first GPU, else first device)
//   op_opencl_host_min_count  host slots: -1 auto (report), -2 measure and serve, 0 never, N >= 1 counts >= N
//   op_opencl_cache_dir       on-disk program binary cache ("" : none)
//   op_opencl_library         the ICD loader to dlopen (default libOpenCL.so.1)
//   op_opencl_local_size      work-group size (0: CPUs 64 / 1024 by count, 256 elsewhere)
//   op_opencl_probe           probe platforms at init (default true; false: a cheap start)
//   op_opencl_probe_in_mpi    ... inside an MPI job too (default false: a cheap start there)
//   op_opencl_max_launch      elements per kernel launch (0: 2^30; small values test the split)
//   op_opencl_selftest        check each kernel against the base when built for a device (default true)
//   op_opencl_devices         read-only: the devices found
//   op_opencl_selected        read-only: the device chosen, and the host decision
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "cl_api.h"   // first: sets CL_TARGET_OPENCL_VERSION
#include "cl_engine.h"
#include "cl_source.h"
#include "base/matrix.h"

#include <opframe/component.h>
#include <opframe/component_device.h>
#include <opframe/introspect.h>
#include <opframe/opencl.h>

namespace {

using namespace opfcl;

// ---- parameters ---------------------------------------------------------------------
int64_t priority;
const char *device_param;
int64_t host_min_param;
const char *cache_dir_param;
const char *library_param;
int64_t local_size_param;
int probe_param;
int probe_in_mpi_param;
int64_t max_launch_param;
int selftest_param;
const char *devices_text = "";    // read-only
const char *selected_text = "";   // read-only
std::string devices_storage, selected_storage;

int register_params()
{
    const opf_param_spec_t specs[] = {
        {"op_opencl_priority", OPF_PARAM_INT, "10", "Priority of the opencl component's host-memory offers", 3,
         OPF_PARAM_SETTABLE, nullptr, nullptr, &priority},
        {"op_opencl_device", OPF_PARAM_STRING, "",
         "OpenCL device of the component's host-memory kernels: an index in op_opencl_devices, or a substring of a "
         "platform, device or hwloc name (case-insensitive); empty: the first GPU, else the first device. Device "
         "buffers always run on the device of the caller's queue", 2, OPF_PARAM_SETTABLE, nullptr, nullptr,
         &device_param},
        {"op_opencl_host_min_count", OPF_PARAM_INT, "-1",
         "Host memory through the OpenCL device: -1 auto (measure at init on a GPU sharing host memory and report it "
         "in op_opencl_selected; never on a CPU device or a discrete GPU), -2 measure on any device and serve host "
         "memory from the crossover, 0 never, N >= 1 serve counts >= N. Device buffers are served either way",
         3, OPF_PARAM_SETTABLE, nullptr, nullptr, &host_min_param},
        {"op_opencl_cache_dir", OPF_PARAM_STRING, "",
         "Directory of the on-disk cache of built OpenCL programs (faster start); empty: no cache", 4,
         OPF_PARAM_SETTABLE, nullptr, nullptr, &cache_dir_param},
        {"op_opencl_library", OPF_PARAM_STRING, "libOpenCL.so.1", "The OpenCL ICD loader the component opens", 5,
         OPF_PARAM_SETTABLE, nullptr, nullptr, &library_param},
        {"op_opencl_local_size", OPF_PARAM_INT, "0",
         "Work-group size of the reduction kernels (0: on CPU devices 64 below 65536 elements, 1024 from there; 256 on others)", 6, OPF_PARAM_SETTABLE,
         nullptr, nullptr, &local_size_param},
        {"op_opencl_selftest", OPF_PARAM_BOOL, "true",
         "When a program is built for a device (first use of an op per context), run each of its kernels on random "
         "data against the base; a kernel that differs (a compiler that contracts into FMA or flushes denormals "
         "despite the rules) is not used, with the reason", 5, OPF_PARAM_SETTABLE, nullptr, nullptr, &selftest_param},
        {"op_opencl_max_launch", OPF_PARAM_INT, "0",
         "Most elements one kernel launch covers; larger counts run as several launches (0: 2^30). For testing", 9,
         OPF_PARAM_SETTABLE, nullptr, nullptr, &max_launch_param},
        {"op_opencl_probe", OPF_PARAM_BOOL, "true",
         "Probe the OpenCL platforms and devices at init (about 40 ms with PoCL, which also starts its worker "
         "threads). false: only check that the ICD loader is there; device buffers are served all the same, host "
         "memory never, and op_opencl_devices stays empty", 4, OPF_PARAM_SETTABLE, nullptr, nullptr, &probe_param},
        {"op_opencl_probe_in_mpi", OPF_PARAM_BOOL, "false",
         "Probe at init inside an MPI job as well. Off by default because there the probe serves nothing: no MPI "
         "library hands opframe OpenCL buffers, and host memory is served only when op_opencl_host_min_count asks "
         "for it (which probes anyway); device buffers of an application calling opframe directly are served all "
         "the same (platforms start on the first such call)", 4, OPF_PARAM_SETTABLE, nullptr, nullptr,
         &probe_in_mpi_param},
        {"op_opencl_devices", OPF_PARAM_STRING, "",
         "The OpenCL devices found at init, '; '-separated: index: hwloc name [platform] device (type, version, "
         "features)", 2, OPF_PARAM_READ_ONLY, nullptr, nullptr, &devices_text},
        {"op_opencl_selected", OPF_PARAM_STRING, "",
         "The device of the host-memory kernels and whether host memory is served (with what was measured)", 2,
         OPF_PARAM_READ_ONLY, nullptr, nullptr, &selected_text},
    };
    for (const opf_param_spec_t &s : specs)
        if (opf_param_register(&s) != OPF_SUCCESS) return -1;
    return 0;
}

// ---- kernel tables, generated from the (op, kernel type) matrix ------------------------

// A stream kernel's failure: the reason goes to the caller's launch record
// (opf_cl_* calls) and to the framework (opf_last_error).
int stream_failed(const opf_cl_launch_t &L, int rc, const std::string &why)
{
    if (L.error && L.error_len) std::snprintf(L.error, L.error_len, "%s", why.c_str());
    return opf_component_set_error(rc, "%s", why.c_str());
}

// The slot's entry points below are one line each (generated for every
// slot): the work is here, compiled once.
int stream_call(int op, int kt, int nbuf, const void *const bufs[3], opf_count_t n, void *stream)
{
    auto *L = static_cast<opf_cl_launch_t *>(stream);
    std::string why;
    const int rc = launch(op, kt, nbuf, bufs, n, *L, why);
    return rc == OPF_SUCCESS ? rc : stream_failed(*L, rc, why);
}

template <int Op, int Kt> int stream2(const void *in, void *inout, opf_count_t n, void *stream)
{
    const void *bufs[3] = {in, inout, nullptr};
    return stream_call(Op, Kt, 2, bufs, n, stream);
}

template <int Op, int Kt> int stream3(const void *in1, const void *in2, void *out, opf_count_t n, void *stream)
{
    const void *bufs[3] = {in1, in2, out};
    return stream_call(Op, Kt, 3, bufs, n, stream);
}

// A host kernel has no error channel: when the device fails before it could
// touch the output, the base computes the call; after, it can only warn.
void host_failed(int op, int kt, int nbuf, const void *a, const void *b, void *out, opf_count_t n, bool started,
                 const std::string &why)
{
    const char *op_name = opf_op_name(OPF_OP_HANDLE_(op)), *kt_name = opf_kernel_type_name(kt);
    if (started) {
        std::fprintf(stderr, "opframe: opencl: warning: %s %s %d-buffer on host memory failed on the device after it "
                     "started (%s); the result may be wrong\n", op_name, kt_name, nbuf, why.c_str());
        return;
    }
    int initialized = 0;
    opf_initialized(&initialized);
    if (!initialized) {   // inside opf_init (the self-test): the base cannot be asked; the self-test drops us
        log(1, "%s %s %d-buffer on host memory failed on the device (%s)", op_name, kt_name, nbuf, why.c_str());
        return;
    }
    log(1, "%s %s %d-buffer on host memory failed on the device (%s); the base computes it", op_name, kt_name, nbuf,
        why.c_str());
    opf_kernel2_fn *f2 = nullptr;
    opf_kernel3_fn *f3 = nullptr;
    opf_slot_kernels(op, kt, "base", n, &f2, &f3);
    if (nbuf == 2 && f2) f2(a, out, n);
    if (nbuf == 3 && f3) f3(a, b, out, n);
}

void host_entry(int op, int kt, int nbuf, const void *a, const void *b, void *out, opf_count_t n)
{
    std::string why;
    bool started = false;
    if (host_call(op, kt, nbuf, a, b, out, n, why, started) != OPF_SUCCESS)
        host_failed(op, kt, nbuf, a, b, out, n, started, why);
}

template <int Op, int Kt> void host2(const void *in, void *inout, opf_count_t n)
{
    host_entry(Op, Kt, 2, in, nullptr, inout, n);
}

template <int Op, int Kt> void host3(const void *in1, const void *in2, void *out, opf_count_t n)
{
    host_entry(Op, Kt, 3, in1, in2, out, n);
}

// Every slot's entry points, generated over the (op x kernel type) matrix.
struct Entries {
    opf_stream_kernel2_fn *stream2 = nullptr;
    opf_stream_kernel3_fn *stream3 = nullptr;
    opf_kernel2_fn *host2 = nullptr;
    opf_kernel3_fn *host3 = nullptr;
};
struct EntryGen {
    template <std::size_t Op, std::size_t Kt> static constexpr Entries entry()
    {
        return {&stream2<int(Op), int(Kt)>, &stream3<int(Op), int(Kt)>, &host2<int(Op), int(Kt)>,
                &host3<int(Op), int(Kt)>};
    }
};
constexpr auto kEntries = opf::base::make_matrix<Entries, EntryGen>();

// Whether a slot has an OpenCL kernel on some device (device-independent).
bool device_slot(int op, int kt)
{
    return op_defined(op, kt) && opf_slot_exists(op, kt) && (is_copy_op(op) || type_info(kt).cat != Cat::None);
}

// ---- devices ---------------------------------------------------------------------------

struct Found {
    cl_uint platform_index = 0, device_index = 0;
    cl_device_id device = nullptr;
    Caps caps;
    std::string hwloc;   // hwloc's OS device name ("opencl0d1"), if hwloc saw it
};

// The kernel types the generator has no kernels for, by reason:
// "REASON: TYPE TYPE ...; REASON: ...".
std::string not_generated_text()
{
    std::vector<std::pair<std::string, std::string>> groups;   // reason, names
    for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
        const char *why = opfcl::type_info(kt).not_generated;
        if (!why) continue;
        auto g = std::find_if(groups.begin(), groups.end(), [&](const auto &x) { return x.first == why; });
        if (g == groups.end()) g = groups.insert(groups.end(), {why, ""});
        g->second += (g->second.empty() ? "" : " ") + std::string(opf_kernel_type_name(kt));
    }
    std::string text;
    for (const auto &[why, names] : groups) text += (text.empty() ? "" : "; ") + names + " (" + why + ")";
    return text.empty() ? "none" : text;
}

std::string lower(std::string s)
{
    for (char &c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string describe(std::size_t index, const Found &f)
{
    std::string s = std::to_string(index) + ": ";
    if (!f.hwloc.empty()) s += f.hwloc + " ";
    s += "[" + f.caps.platform_name + "] " + f.caps.name + " (" + device_type_name(f.caps.type) + ", " + f.caps.version;
    if (f.caps.have & kNeedFp64) s += ", fp64";
    if (!(f.caps.have & kNeedDenorm32)) s += ", no float denormals";
    if (f.caps.svm & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM) s += ", svm system";
    else if (f.caps.svm & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) s += ", svm fine";
    else if (f.caps.svm) s += ", svm coarse";
    if (f.caps.unified_memory) s += ", host memory";
    if (!f.caps.compiler) s += ", no compiler";
    return s + ")";
}

// hwloc's OpenCL OS devices are named opencl<platform>d<device>.
std::string hwloc_name(const opf_hw_info_t *hw, cl_uint p, cl_uint d)
{
    if (!hw) return "";
    const std::string want = "opencl" + std::to_string(p) + "d" + std::to_string(d);
    for (int i = 0; i < hw->n_devices && i < OPF_HW_MAX_DEVICES; ++i)
        if (want == hw->devices[i].name) return want;
    return "";
}

// ---- devices reported to the framework (opframe_info --hw; component_device.h) ----------

void report_devices(const std::vector<Found> &found)
{
    for (const Found &f : found)
        opf_component_device_add("opencl", ("opencl" + std::to_string(f.platform_index) + "d" + std::to_string(f.device_index)).c_str(),
                                 lower(device_type_name(f.caps.type)).c_str(), (f.caps.name + " [" + f.caps.platform_name + "]").c_str());
}

// ---- host memory: is the device a net win? ------------------------------------------

// The CPU reference: float SUM as the base compiles it (a plain loop).
[[gnu::noinline]] void cpu_sum(const float *a, float *b, std::size_t n)
{
    for (std::size_t i = 0; i < n; ++i) b[i] = a[i] + b[i];
}

template <class F> double median_seconds(F &&f, int samples)
{
    std::vector<double> t;
    for (int s = 0; s < samples; ++s) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

// The smallest count of float SUM from which the device beats the CPU loop
// by 10% at every larger size measured (up to 16M floats), or 0 if never;
// `report` gets the figures.
opf_count_t measure_crossover(std::string &report)
{
    opf_count_t crossover = 0;
    std::vector<float> a(std::size_t(1) << 24, 1.5f), b(a.size(), 2.5f);
    std::string why;
    bool started = false;
    for (std::size_t n = std::size_t(1) << 12; n <= a.size(); n <<= 2) {
        const double cpu = median_seconds([&] { cpu_sum(a.data(), b.data(), n); }, 5);
        int rc = OPF_SUCCESS;
        const double dev = median_seconds(
            [&] { rc |= host_call(OPF_OPID_SUM, OPF_KT_FLOAT, 2, a.data(), nullptr, b.data(), opf_count_t(n), why, started); },
            5);
        if (rc != OPF_SUCCESS) {
            report += " (device failed: " + why + ")";
            return 0;
        }
        char line[96];
        std::snprintf(line, sizeof line, "%s%zu: cpu %.1f us, device %.1f us", report.empty() ? "" : "; ", n, cpu * 1e6,
                      dev * 1e6);
        report += line;
        if (dev < 0.9 * cpu) {
            if (!crossover) crossover = opf_count_t(n);
        } else {
            crossover = 0;   // must win at every larger size too
        }
    }
    return crossover;
}

// ---- life cycle ---------------------------------------------------------------------------

bool host_slots = false;
opf_count_t host_min_count = 0;
bool host_ok[OPF_OPID_COUNT][OPF_KT_COUNT];

int probe(const opf_hw_info_t *hw, char *reason, size_t reason_len);
int memory_kind = -1;   // "opencl", registered at init_query

// The device buffers' memory kind exists whenever the component is usable;
// cl_mem handles cannot be told from a pointer, so it claims none (stream
// calls name the kind).
int init_query(const opf_hw_info_t *hw, char *reason, size_t reason_len)
{
    if (int rc = probe(hw, reason, reason_len)) return rc;
    memory_kind = opf_memory_kind_register("opencl", nullptr);
    if (memory_kind < 0) {
        std::snprintf(reason, reason_len, "memory kind \"opencl\" is taken");
        return 1;
    }
    return 0;
}

// Loads the ICD loader and probes the devices; decides the host slots.
int probe(const opf_hw_info_t *hw, char *reason, size_t reason_len)
{
    auto refuse = [&](const std::string &why) {
        std::snprintf(reason, reason_len, "%s", why.c_str());
        return 1;
    };
    host_slots = false;
    host_min_count = 0;
    std::memset(host_ok, 0, sizeof host_ok);
    settings.cache_dir = cache_dir_param ? cache_dir_param : "";
    settings.local_size = local_size_param > 0 ? size_t(local_size_param) : 0;
    settings.max_launch = max_launch_param > 0 ? opf_count_t(max_launch_param) : 0;
    settings.selftest = selftest_param != 0;

    std::string why;
    if (!load(library_param && *library_param ? library_param : "libOpenCL.so.1", why)) return refuse(why);
    // The cheap start: the loader is there; platforms start on the first
    // call on a device buffer (the caller's queue says which). Asked for,
    // or in an MPI rank where the probe would only make a report (its
    // MPI_Init cost: ~40 ms with PoCL) unless host memory is asked for.
    const bool host_asked = host_min_param == -2 || host_min_param > 0;
    const char *skip = !probe_param && host_min_param <= 0 ? "op_opencl_probe=false"
                       : probe_param && !host_asked && !probe_in_mpi_param && opf_in_mpi_job()
                           ? "an MPI rank; op_opencl_probe_in_mpi=true probes here"
                           : nullptr;
    if (skip) {
        devices_storage = std::string("not probed (") + skip + ")";
        selected_storage = std::string("none; host memory: off (not probed: ") + skip + ")";
        devices_text = devices_storage.c_str();
        selected_text = selected_storage.c_str();
        return 0;
    }
    cl_uint np = 0;
    cl_int err = cl.clGetPlatformIDs(0, nullptr, &np);
    if (err != CL_SUCCESS || np == 0) {
        const char *vendors = std::getenv("OCL_ICD_VENDORS");
        return refuse(std::string("no OpenCL platform (clGetPlatformIDs: ") +
                      (err == CL_SUCCESS ? "0 platforms" : error_name(err)) + "; the ICD loader reads " +
                      (vendors ? std::string("OCL_ICD_VENDORS=") + vendors : std::string("/etc/OpenCL/vendors")) + ")");
    }
    std::vector<cl_platform_id> platforms(np);
    cl.clGetPlatformIDs(np, platforms.data(), nullptr);
    std::vector<Found> found;
    for (cl_uint p = 0; p < np; ++p) {
        cl_uint nd = 0;
        if (cl.clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
        std::vector<cl_device_id> devs(nd);
        cl.clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, nd, devs.data(), nullptr);
        for (cl_uint d = 0; d < nd; ++d) found.push_back({p, d, devs[d], query_caps(devs[d]), hwloc_name(hw, p, d)});
    }
    devices_storage.clear();
    for (std::size_t i = 0; i < found.size(); ++i)
        devices_storage += (i ? "; " : "") + describe(i, found[i]);
    devices_text = devices_storage.c_str();
    report_devices(found);
    if (found.empty()) return refuse("no OpenCL device on " + std::to_string(np) + " platform(s)");

    // The device of the host kernels.
    std::size_t pick = found.size();
    const std::string want = device_param ? device_param : "";
    if (want.empty()) {
        for (std::size_t i = 0; i < found.size() && pick == found.size(); ++i)
            if ((found[i].caps.type & CL_DEVICE_TYPE_GPU) && found[i].caps.compiler) pick = i;
        for (std::size_t i = 0; i < found.size() && pick == found.size(); ++i)
            if (found[i].caps.compiler) pick = i;
        if (pick == found.size()) pick = 0;
    } else if (want.find_first_not_of("0123456789") == std::string::npos) {
        pick = std::size_t(std::strtoul(want.c_str(), nullptr, 10));
    } else {
        for (std::size_t i = 0; i < found.size() && pick == found.size(); ++i) {
            const Found &f = found[i];
            if (lower(f.caps.platform_name + " " + f.caps.name + " " + f.caps.vendor + " " + f.hwloc).find(lower(want)) !=
                std::string::npos)
                pick = i;
        }
    }
    if (pick >= found.size())
        return refuse("op_opencl_device=\"" + want + "\" matches none of the " + std::to_string(found.size()) +
                      " devices (" + devices_storage + ")");
    const Found &dev = found[pick];
    selected_storage = describe(pick, dev);

    // Host memory: served only where it pays.
    std::string host_note;
    const bool cpu = dev.caps.type & CL_DEVICE_TYPE_CPU;
    bool measure = false;
    if (host_min_param == 0) {
        host_note = "host memory: off (op_opencl_host_min_count=0)";
    } else if (host_min_param > 0) {
        host_slots = true;
        host_min_count = host_min_param;
        host_note = "host memory: counts >= " + std::to_string(host_min_count) + " (op_opencl_host_min_count)";
    } else if (host_min_param == -2) {
        measure = true;
    } else if (cpu) {
        host_note = "host memory: off (a CPU device competes for the cores the caller runs on; "
                    "op_opencl_host_min_count=-2 measures anyway)";
    } else if (!dev.caps.unified_memory) {
        host_note = "host memory: off (the device does not share host memory: copies would cost more than the CPU)";
    } else {
        measure = true;
    }
    if (host_slots || measure) {
        if (!host_open(dev.device, why)) {
            host_slots = measure = false;
            host_note = "host memory: off (cannot open the device: " + why + ")";
        }
    }
    if (measure) {
        std::string report;
        const auto state = host_state();
        std::string build_why;
        if (!state || !state->kernels(OPF_OPID_SUM, OPF_KT_FLOAT, build_why)) {
            host_note = "host memory: off (no float SUM kernel: " + build_why + ")";
        } else if (const opf_count_t c = measure_crossover(report)) {
            // A crossover in float elements is one in bytes: counted in the
            // smallest element (1 byte) it holds for every type of the op.
            const opf_count_t from = c * opf_count_t(sizeof(float));
            if (host_min_param == -2) {
                host_slots = true;
                host_min_count = from;
                host_note = "host memory: counts >= " + std::to_string(from) + " (measured float SUM: " + report + ")";
            } else {
                // Auto only reports: -2 (or the count) serves host memory.
                host_note = "host memory: not served, would win from " + std::to_string(from) +
                            " (op_opencl_host_min_count=" + std::to_string(from) +
                            " serves it; measured float SUM: " + report + ")";
            }
        } else {
            host_note = "host memory: off (measured float SUM, never 10% faster than the CPU: " + report + ")";
        }
    }
    if (host_slots) {
        // Build every host slot now: op_query offers only what built.
        const auto state = host_state();
        int offered = 0;
        for (int op = 1; op < OPF_OPID_COUNT; ++op)
            for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
                std::string slot_why;
                if (!device_slot(op, kt) || is_copy_op(op)) continue;   // copies: the base's memcpy is unbeatable
                host_ok[op][kt] = state && state->kernels(op, kt, slot_why);
                offered += host_ok[op][kt];
                if (!host_ok[op][kt]) log(2, "host slot %s %s not offered: %s", opf_op_name(OPF_OP_HANDLE_(op)),
                                          opf_kernel_type_name(kt), slot_why.c_str());
            }
        host_note += ", " + std::to_string(offered) + " slots";
    } else {
        host_close();
    }
    selected_storage += "; " + host_note;
    selected_text = selected_storage.c_str();
    log(1, "devices: %s", devices_text);
    log(1, "selected %s", selected_text);
    log(1, "kernel types without OpenCL kernels (copies only): %s", not_generated_text().c_str());
    return 0;
}

// Host memory where it pays (op_opencl_host_min_count), and device buffers
// (stream kernels, reached through opf_reduce_local(3)_stream by
// libopframe-opencl's opf_cl_* calls): one offer per kernel type and memory.
int op_query(int op_id, opf_module_t *module)
{
    int offered = 0;
    for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
        const Entries &e = kEntries[op_id][kt];
        opf_offer_t offer{};
        offer.struct_size = sizeof offer;
        offer.kernel_type = kt;
        offer.priority = int(priority);
        if (host_slots && host_ok[op_id][kt]) {
            opf_offer_t host = offer;
            host.min_count = host_min_count;
            host.kernel2 = e.host2;
            host.kernel3 = e.host3;
            offered += opf_module_offer(module, &host) == OPF_SUCCESS;
        }
        if (memory_kind > 0 && device_slot(op_id, kt)) {
            opf_offer_t device = offer;
            device.memory_kind = memory_kind;
            device.stream2 = e.stream2;
            device.stream3 = e.stream3;
            offered += opf_module_offer(module, &device) == OPF_SUCCESS;
        }
    }
    return offered ? 0 : 1;
}

void close()
{
    memory_kind = -1;
    host_close();
    release_all();
    host_slots = false;
}

} // namespace

OPF_COMPONENT_DECLARE(opencl) = {
    .abi_version = OPF_COMPONENT_ABI_VERSION,
    .framework = OPF_FRAMEWORK_NAME,
    .name = "opencl",
    .version = {1, 0, 0},
    .description = "OpenCL: reductions on cl_mem and SVM buffers (opframe/opencl.h) on any device, host memory only "
                   "where a device wins (devices: op_opencl_devices)",
    .register_params = register_params,
    .open = nullptr,
    .init_query = init_query,
    .op_query = op_query,
    .module_enable = nullptr,
    .module_release = nullptr,
    .close = close,
};
