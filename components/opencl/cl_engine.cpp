// cl_engine.cpp — device capabilities, program cache, launches (cl_engine.h).
#include "cl_engine.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

#include <opframe/component.h>
#include <opframe/introspect.h>

#include "base/compare.h"
#include "base/type_list.h"

namespace opfcl {

Settings settings;

void log(int level, const char *fmt, ...)
{
    va_list args, again;   // formatted whole (build logs are long); opf_component_log checks op_base_verbose
    va_start(args, fmt);
    va_copy(again, args);
    std::string text(std::size_t(std::max(0, std::vsnprintf(nullptr, 0, fmt, args))), '\0');
    std::vsnprintf(text.data(), text.size() + 1, fmt, again);
    va_end(again);
    va_end(args);
    opf_component_log(level, "%s", text.c_str());
}

namespace {

// Work-group sizes on CPU devices (measured on PoCL 3.1, float SUM: see
// README.md, "Measurements").
constexpr std::size_t kCpuLocalSmall = 64, kCpuLocalLarge = 1024;
constexpr opf_count_t kCpuLargeFrom = 65536;

const char *op_text(int op_id)
{
    const char *n = opf_op_name(OPF_OP_HANDLE_(op_id));
    return n ? n : "?";
}
const char *kt_text(int kt)
{
    const char *n = opf_kernel_type_name(kt);
    return n ? n : "?";
}

std::string device_string(cl_device_id dev, cl_device_info what)
{
    size_t len = 0;
    if (cl.clGetDeviceInfo(dev, what, 0, nullptr, &len) != CL_SUCCESS || len == 0) return "";
    std::string s(len, '\0');
    if (cl.clGetDeviceInfo(dev, what, len, s.data(), nullptr) != CL_SUCCESS) return "";
    s.resize(std::strlen(s.c_str()));
    return s;
}

std::string platform_string(cl_platform_id p, cl_platform_info what)
{
    size_t len = 0;
    if (cl.clGetPlatformInfo(p, what, 0, nullptr, &len) != CL_SUCCESS || len == 0) return "";
    std::string s(len, '\0');
    if (cl.clGetPlatformInfo(p, what, len, s.data(), nullptr) != CL_SUCCESS) return "";
    s.resize(std::strlen(s.c_str()));
    return s;
}

template <class T> T device_value(cl_device_id dev, cl_device_info what, T fallback)
{
    T v{};
    return cl.clGetDeviceInfo(dev, what, sizeof v, &v, nullptr) == CL_SUCCESS ? v : fallback;
}

bool has_word(const std::string &list, const char *word)
{
    const std::size_t n = std::strlen(word);
    for (std::size_t at = list.find(word); at != std::string::npos; at = list.find(word, at + 1))
        if ((at == 0 || list[at - 1] == ' ') && (at + n == list.size() || list[at + n] == ' ')) return true;
    return false;
}

std::string cl_error(const char *call, cl_int err)
{
    return std::string(call) + ": " + error_name(err);
}

uint64_t fnv1a(const std::string &s, uint64_t h = 0xcbf29ce484222325ULL)
{
    for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
    return h;
}

} // namespace

// ---- capabilities ------------------------------------------------------------------

Caps query_caps(cl_device_id dev)
{
    Caps c;
    c.name = device_string(dev, CL_DEVICE_NAME);
    c.vendor = device_string(dev, CL_DEVICE_VENDOR);
    c.version = device_string(dev, CL_DEVICE_VERSION);
    c.driver = device_string(dev, CL_DRIVER_VERSION);
    if (cl_platform_id p = device_value<cl_platform_id>(dev, CL_DEVICE_PLATFORM, nullptr)) {
        c.platform_name = platform_string(p, CL_PLATFORM_NAME);
        c.platform_version = platform_string(p, CL_PLATFORM_VERSION);
    }
    c.type = device_value<cl_device_type>(dev, CL_DEVICE_TYPE, 0);
    c.unified_memory = device_value<cl_bool>(dev, CL_DEVICE_HOST_UNIFIED_MEMORY, CL_FALSE);
    c.compiler = device_value<cl_bool>(dev, CL_DEVICE_COMPILER_AVAILABLE, CL_FALSE);
    c.max_work_group = device_value<size_t>(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, 1);
    c.svm = device_value<cl_device_svm_capabilities>(dev, CL_DEVICE_SVM_CAPABILITIES, 0);
    const std::string ext = device_string(dev, CL_DEVICE_EXTENSIONS);
    const std::string profile = device_string(dev, CL_DEVICE_PROFILE);
    if (profile == "FULL_PROFILE" || has_word(ext, "cles_khr_int64")) c.have |= kNeedInt64;
    constexpr cl_device_fp_config exact = CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN;
    const auto fp32 = device_value<cl_device_fp_config>(dev, CL_DEVICE_SINGLE_FP_CONFIG, 0);
    if ((fp32 & exact) == exact) c.have |= kNeedFp32;
    if (fp32 & CL_FP_DENORM) c.have |= kNeedDenorm32;
    if (has_word(ext, "cl_khr_fp64")) {
        const auto fp64 = device_value<cl_device_fp_config>(dev, CL_DEVICE_DOUBLE_FP_CONFIG, 0);
        if ((fp64 & exact) == exact) c.have |= kNeedFp64;
        if (fp64 & CL_FP_DENORM) c.have |= kNeedDenorm64;
    }
    return c;
}

std::string missing_text(unsigned missing)
{
    std::string out;
    auto add = [&](unsigned bit, const char *text) {
        if (missing & bit) out += (out.empty() ? "" : ", ") + std::string(text);
    };
    add(kNeedInt64, "no 64-bit integers (EMBEDDED_PROFILE without cles_khr_int64)");
    add(kNeedFp32, "float lacks round-to-nearest or inf/NaN (CL_DEVICE_SINGLE_FP_CONFIG)");
    add(kNeedDenorm32, "no float denormals (CL_FP_DENORM not in CL_DEVICE_SINGLE_FP_CONFIG)");
    add(kNeedFp64, "no exact fp64 (cl_khr_fp64 with round-to-nearest and inf/NaN)");
    add(kNeedDenorm64, "no double denormals (CL_FP_DENORM not in CL_DEVICE_DOUBLE_FP_CONFIG)");
    return out;
}

const char *device_type_name(cl_device_type t)
{
    if (t & CL_DEVICE_TYPE_GPU) return "GPU";
    if (t & CL_DEVICE_TYPE_CPU) return "CPU";
    if (t & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
    if (t & CL_DEVICE_TYPE_CUSTOM) return "custom";
    return "device";
}

// ---- programs ----------------------------------------------------------------------

DeviceState::DeviceState(cl_context ctx, cl_device_id dev) : context(ctx), device(dev), caps(query_caps(dev))
{
    cl.clRetainContext(context);
}

DeviceState::~DeviceState()
{
    for (auto &row : slots_)
        for (Kernels &k : row)
            for (cl_kernel kernel : k.k)
                if (kernel) cl.clReleaseKernel(kernel);
    for (cl_program p : programs_) cl.clReleaseProgram(p);
    cl.clReleaseContext(context);
}

bool DeviceState::possible(int op_id, int kt, std::string &why) const
{
    if (!op_defined(op_id, kt) || !opf_slot_exists(op_id, kt)) {
        why = std::string(op_text(op_id)) + " is not defined on " + kt_text(kt);
        return false;
    }
    if (is_copy_op(op_id) && !copy_needs_kernel(op_id, kt)) return true;   // clEnqueueCopyBuffer / SVM memcpy
    const TypeInfo &t = type_info(kt);
    if (unsigned missing = t.needs & ~caps.have) {
        why = "the device (" + caps.name + ") cannot compute " + kt_text(kt) + " exactly: " + missing_text(missing);
        return false;
    }
    if (!caps.compiler) {
        why = "the device (" + caps.name + ") has no OpenCL C compiler";
        return false;
    }
    return true;
}

// Builds from the on-disk cache when it holds this exact program, else from
// source (and then stores the binary). nullptr with `error` on failure.
cl_program DeviceState::build(const std::string &source, const char *what, std::string &error)
{
    const char *options = "";   // never -cl-fast-relaxed-math, -cl-mad-enable, -cl-denorms-are-zero, ...
    cl_int err = CL_SUCCESS;
    std::string cache_file;
    if (!settings.cache_dir.empty()) {
        const uint64_t key = fnv1a(source + '\0' + options + '\0' + caps.name + '\0' + caps.vendor + '\0' +
                                   caps.driver + '\0' + caps.version + '\0' + caps.platform_version);
        char name[40];
        std::snprintf(name, sizeof name, "/opf-%016llx.bin", (unsigned long long)key);
        cache_file = settings.cache_dir + name;
        if (FILE *f = std::fopen(cache_file.c_str(), "rb")) {
            std::vector<unsigned char> bin;
            unsigned char chunk[65536];
            for (size_t got; (got = std::fread(chunk, 1, sizeof chunk, f)) > 0;) bin.insert(bin.end(), chunk, chunk + got);
            std::fclose(f);
            const unsigned char *ptr = bin.data();
            const size_t len = bin.size();
            cl_int status = CL_SUCCESS;
            cl_program p = len ? cl.clCreateProgramWithBinary(context, 1, &device, &len, &ptr, &status, &err) : nullptr;
            if (p && err == CL_SUCCESS && status == CL_SUCCESS &&
                cl.clBuildProgram(p, 1, &device, options, nullptr, nullptr) == CL_SUCCESS) {
                log(3, "%s program for %s loaded from %s", what, caps.name.c_str(), cache_file.c_str());
                return p;
            }
            if (p) cl.clReleaseProgram(p);
            log(2, "cached binary %s is unusable; building from source", cache_file.c_str());
        }
    }
    const char *text = source.c_str();
    const size_t len = source.size();
    cl_program p = cl.clCreateProgramWithSource(context, 1, &text, &len, &err);
    if (!p) {
        error = cl_error("clCreateProgramWithSource", err);
        return nullptr;
    }
    err = cl.clBuildProgram(p, 1, &device, options, nullptr, nullptr);
    if (err != CL_SUCCESS) {
        size_t log_len = 0;
        std::string build_log;
        if (cl.clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &log_len) == CL_SUCCESS && log_len) {
            build_log.resize(log_len);
            cl.clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG, log_len, build_log.data(), nullptr);
            build_log.resize(std::strlen(build_log.c_str()));
        }
        error = cl_error("clBuildProgram", err);
        log(1, "building the %s program for %s failed (%s); build log:\n%s", what, caps.name.c_str(), error_name(err),
            build_log.c_str());
        log(4, "source of the %s program:\n%s", what, source.c_str());
        cl.clReleaseProgram(p);
        return nullptr;
    }
    log(3, "%s program for %s built from source (%zu bytes)", what, caps.name.c_str(), len);
    if (!cache_file.empty()) {
        // The binary of our device among the program's devices.
        cl_uint ndev = 0;
        cl.clGetProgramInfo(p, CL_PROGRAM_NUM_DEVICES, sizeof ndev, &ndev, nullptr);
        std::vector<cl_device_id> devs(ndev);
        std::vector<size_t> sizes(ndev);
        if (ndev && cl.clGetProgramInfo(p, CL_PROGRAM_DEVICES, ndev * sizeof(cl_device_id), devs.data(), nullptr) == CL_SUCCESS &&
            cl.clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, ndev * sizeof(size_t), sizes.data(), nullptr) == CL_SUCCESS) {
            std::vector<std::vector<unsigned char>> bins(ndev);
            std::vector<unsigned char *> ptrs(ndev);
            for (cl_uint i = 0; i < ndev; ++i) {
                bins[i].resize(sizes[i]);
                ptrs[i] = sizes[i] ? bins[i].data() : nullptr;
            }
            for (cl_uint i = 0; i < ndev; ++i)
                if (devs[i] == device && sizes[i] &&
                    cl.clGetProgramInfo(p, CL_PROGRAM_BINARIES, ndev * sizeof(unsigned char *), ptrs.data(), nullptr) ==
                        CL_SUCCESS) {
                    mkdir(settings.cache_dir.c_str(), 0755);   // one level; an existing directory is fine
                    const std::string tmp = cache_file + "." + std::to_string(getpid()) + ".tmp";
                    FILE *f = std::fopen(tmp.c_str(), "wb");
                    bool ok = f && std::fwrite(bins[i].data(), 1, sizes[i], f) == sizes[i];
                    if (f) ok &= std::fclose(f) == 0;
                    if (ok && std::rename(tmp.c_str(), cache_file.c_str()) == 0)
                        log(3, "%s program binary stored in %s", what, cache_file.c_str());
                    else {
                        std::remove(tmp.c_str());
                        log(2, "cannot write the program cache file %s", cache_file.c_str());
                    }
                }
        }
    }
    return p;
}

void DeviceState::build_op(int op_id)
{
    std::vector<int> kts;
    std::string why;
    for (int kt = 0; kt < OPF_KT_COUNT; ++kt)
        if ((!is_copy_op(op_id) || copy_needs_kernel(op_id, kt)) && possible(op_id, kt, why)) kts.push_back(kt);
    if (kts.empty()) return;
    const Features f{caps.have};
    const std::size_t wg_default = settings.local_size ? settings.local_size
                                   : (caps.type & CL_DEVICE_TYPE_CPU) ? kCpuLocalLarge : 256;
    auto take_kernels = [&](cl_program p, int kt) {
        Kernels &k = slots_[op_id][kt];
        for (int b = 0; b < 2; ++b) {
            cl_int err = CL_SUCCESS;
            k.k[b] = cl.clCreateKernel(p, kernel_name(kt, b + 2).c_str(), &err);
            if (!k.k[b]) {
                failed_[op_id][kt] = cl_error("clCreateKernel", err);
                continue;
            }
            size_t wg = 1;
            if (cl.clGetKernelWorkGroupInfo(k.k[b], device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, nullptr) != CL_SUCCESS)
                wg = 1;
            size_t local = std::min({wg_default, wg, caps.max_work_group});
            while (local & (local - 1)) local &= local - 1;   // a power of two
            k.local[b] = local ? local : 1;
        }
        if (!k.k[0] || !k.k[1]) {   // both halves or none
            for (cl_kernel &kernel : k.k)
                if (kernel) cl.clReleaseKernel(kernel), kernel = nullptr;
        }
    };
    std::string error;
    const std::string what = op_text(op_id);
    if (cl_program p = build(program_source(op_id, kts, f), what.c_str(), error)) {
        programs_.push_back(p);
        for (int kt : kts) take_kernels(p, kt);
        return;
    }
    // The op's program failed: build its types one by one, so that only the
    // slots whose source does not build are lost.
    log(1, "building the %s kernel types one by one to find the ones that fail", what.c_str());
    for (int kt : kts) {
        const std::string slot_what = what + " " + kt_text(kt);
        std::string slot_error;
        if (cl_program p = build(program_source(op_id, {kt}, f), slot_what.c_str(), slot_error)) {
            programs_.push_back(p);
            take_kernels(p, kt);
        } else {
            failed_[op_id][kt] = "its OpenCL program did not build (" + slot_error +
                                 "; op_base_verbose >= 1 shows the build log)";
        }
    }
}

DeviceState::Kernels *DeviceState::kernels(int op_id, int kt, std::string &why)
{
    if (!possible(op_id, kt, why)) return nullptr;
    if (!built_[op_id].load(std::memory_order_acquire)) {
        std::lock_guard guard(build_lock_);
        if (!built_[op_id].load(std::memory_order_relaxed)) {
            build_op(op_id);
            if (settings.selftest) selftest_op(op_id);
            built_[op_id].store(true, std::memory_order_release);
        }
    }
    Kernels &k = slots_[op_id][kt];
    if (!k.k[0]) {
        why = failed_[op_id][kt].empty() ? std::string("no kernel was built") : failed_[op_id][kt];
        why = std::string(op_text(op_id)) + " on " + kt_text(kt) + " is not available on " + caps.name + ": " + why;
        return nullptr;
    }
    return &k;
}

// ---- the self-test: every kernel of an op against the base, on this device ----------

namespace {

// The first element of two arrays that is not the same value (base/compare.h:
// any NaN matches any NaN, padding is no value), per kernel type.
using DiffFn = opf_count_t (*)(const void *, const void *, opf_count_t);
template <std::size_t... K> constexpr std::array<DiffFn, OPF_KT_COUNT> diff_fns(std::index_sequence<K...>)
{
    return {&opf::base::first_difference<opf::base::at_t<K, opf::base::KernelTypes>>...};
}
constexpr auto kFirstDifference = diff_fns(std::make_index_sequence<OPF_KT_COUNT>{});

} // namespace

// Runs each kernel type of the op, 2- and 3-buffer, on random data (every bit
// pattern is as likely: NaNs, infinities, denormals, ties of pairs are all
// there) and compares with the base. A kernel that differs is dropped, with
// the first difference as the reason. Only after opf_init (the base is asked
// through opf_slot_kernels), on a queue of our own in the same context.
void DeviceState::selftest_op(int op_id)
{
    int initialized = 0;
    if (opf_initialized(&initialized) != OPF_SUCCESS || !initialized) return;
    cl_int err = CL_SUCCESS;
    cl_command_queue q = cl.clCreateCommandQueue(context, device, 0, &err);
    if (!q) {
        log(1, "self-test of %s on %s skipped: %s", op_text(op_id), caps.name.c_str(), cl_error("clCreateCommandQueue", err).c_str());
        return;
    }
    constexpr opf_count_t n = 4099;
    uint64_t seed = 0x0f0b5eedULL + uint64_t(op_id);
    auto next = [&seed] {
        uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    };
    for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
        Kernels &k = slots_[op_id][kt];
        if (!k.k[0]) continue;
        opf_kernel2_fn *ref2 = nullptr;
        opf_kernel3_fn *ref3 = nullptr;
        if (opf_slot_kernels(op_id, kt, "base", n, &ref2, &ref3) != OPF_SUCCESS || !ref2 || !ref3) continue;
        const std::size_t ext = std::size_t(opf_kernel_type_extent(kt)), bytes = std::size_t(n) * ext;
        std::vector<unsigned char> a(bytes), b(bytes), want2, want3(bytes), got(bytes);
        for (auto &c : a) c = (unsigned char)next();
        for (std::size_t i = 0; i < bytes; ++i) b[i] = (i / ext) % 5 == 0 ? a[i] : (unsigned char)next();   // ties
        want2 = b;
        ref2(a.data(), want2.data(), n);
        ref3(a.data(), b.data(), want3.data(), n);
        std::string failure;
        for (int nbuf = 2; nbuf <= 3 && failure.empty(); ++nbuf) {
            cl_mem ma = cl.clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, a.data(), &err);
            cl_mem mb = cl.clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, b.data(), &err);
            cl_mem mc = cl.clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &err);
            if (!ma || !mb || !mc) {
                failure = "skipped";   // no memory for the test: keep the kernel
            } else {
                const size_t local = k.local[nbuf - 2];
                const size_t global = (size_t(n) + local - 1) / local * local;
                const cl_ulong zero = 0, count = cl_ulong(n);
                cl_mem args[3] = {ma, mb, mc};
                cl_kernel kernel = k.k[nbuf - 2];
                for (int i = 0; i < nbuf && err == CL_SUCCESS; ++i) {
                    err = cl.clSetKernelArg(kernel, cl_uint(2 * i), sizeof(cl_mem), &args[i]);
                    if (err == CL_SUCCESS) err = cl.clSetKernelArg(kernel, cl_uint(2 * i + 1), sizeof zero, &zero);
                }
                if (err == CL_SUCCESS) err = cl.clSetKernelArg(kernel, cl_uint(2 * nbuf), sizeof count, &count);
                if (err == CL_SUCCESS) err = cl.clEnqueueNDRangeKernel(q, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr);
                void *p = err == CL_SUCCESS ? cl.clEnqueueMapBuffer(q, nbuf == 2 ? mb : mc, CL_TRUE, CL_MAP_READ, 0, bytes, 0,
                                                                    nullptr, nullptr, &err)
                                            : nullptr;
                if (!p) {
                    failure = "the kernel did not run (" + cl_error("clEnqueueNDRangeKernel", err) + ")";
                } else {
                    std::memcpy(got.data(), p, bytes);
                    cl.clEnqueueUnmapMemObject(q, nbuf == 2 ? mb : mc, p, 0, nullptr, nullptr);
                    cl.clFinish(q);
                    const std::vector<unsigned char> &want = nbuf == 2 ? want2 : want3;
                    if (const opf_count_t i = kFirstDifference[kt](want.data(), got.data(), n); i >= 0) {
                        char text[160];
                        std::snprintf(text, sizeof text, "its %d-buffer kernel differs from the base on this device "
                                      "(self-test, element %lld of %lld)", nbuf, (long long)i, (long long)n);
                        failure = text;
                    }
                }
            }
            for (cl_mem m : {ma, mb, mc})
                if (m) cl.clReleaseMemObject(m);
        }
        if (!failure.empty() && failure != "skipped") {
            log(1, "%s %s on %s: %s; not used", op_text(op_id), kt_text(kt), caps.name.c_str(), failure.c_str());
            for (cl_kernel &kernel : k.k)
                if (kernel) cl.clReleaseKernel(kernel), kernel = nullptr;
            failed_[op_id][kt] = failure;
        }
    }
    cl.clReleaseCommandQueue(q);
}

// ---- the states, by (context, device) ------------------------------------------------

namespace {
std::mutex states_lock;
std::map<std::pair<cl_context, cl_device_id>, std::shared_ptr<DeviceState>> states;
} // namespace

std::shared_ptr<DeviceState> state_for(cl_context ctx, cl_device_id dev)
{
    std::lock_guard guard(states_lock);
    std::shared_ptr<DeviceState> &s = states[{ctx, dev}];
    if (!s) s = std::make_shared<DeviceState>(ctx, dev);
    return s;
}

void release_context(cl_context ctx)
{
    std::vector<std::shared_ptr<DeviceState>> dropped;   // destroyed outside the lock
    std::lock_guard guard(states_lock);
    for (auto it = states.begin(); it != states.end();)
        if (it->first.first == ctx) {
            dropped.push_back(std::move(it->second));
            it = states.erase(it);
        } else {
            ++it;
        }
}

void release_all()
{
    std::map<std::pair<cl_context, cl_device_id>, std::shared_ptr<DeviceState>> dropped;
    {
        std::lock_guard guard(states_lock);
        dropped.swap(states);
    }
}

// ---- launches ----------------------------------------------------------------------

namespace {

const char *const kNames2[] = {"in", "inout"};
const char *const kNames3[] = {"in1", "in2", "out"};

int finish(cl_event ev, const opf_cl_launch_t &L, std::string &why)
{
    if (L.done) {
        *L.done = ev;
        return OPF_SUCCESS;
    }
    const cl_int err = cl.clWaitForEvents(1, &ev);
    cl.clReleaseEvent(ev);
    if (err != CL_SUCCESS) {
        why = "the device reported a failure while waiting for the reduction (" + cl_error("clWaitForEvents", err) + ")";
        return OPF_ERR_INTERN;
    }
    return OPF_SUCCESS;
}

int enqueue_failed(const char *call, cl_int err, std::string &why)
{
    why = cl_error(call, err);
    if (err == CL_INVALID_EVENT_WAIT_LIST || err == CL_INVALID_EVENT) {
        why += " (the wait list)";
        return OPF_ERR_ARG;
    }
    if (err == CL_INVALID_COMMAND_QUEUE || err == CL_INVALID_CONTEXT) return OPF_ERR_ARG;
    if (err == CL_INVALID_MEM_OBJECT) return OPF_ERR_BUFFER;
    if (err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY || err == CL_MEM_OBJECT_ALLOCATION_FAILURE)
        return OPF_ERR_NO_MEM;
    return OPF_ERR_INTERN;
}

} // namespace

int launch(int op_id, int kt, int nbuf, const void *const bufs[3], opf_count_t n, const opf_cl_launch_t &L,
           std::string &why, bool *enqueued)
{
    const char *const *names = nbuf == 2 ? kNames2 : kNames3;
    if (L.control == OPF_CL_RELEASE) {   // opf_cl_release_context
        if (L.context) release_context(L.context);
        return OPF_SUCCESS;
    }
    cl_context ctx = nullptr;
    cl_device_id dev = nullptr;
    cl_int err = L.queue ? cl.clGetCommandQueueInfo(L.queue, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, nullptr)
                         : CL_INVALID_COMMAND_QUEUE;
    if (err == CL_SUCCESS) err = cl.clGetCommandQueueInfo(L.queue, CL_QUEUE_DEVICE, sizeof dev, &dev, nullptr);
    if (err != CL_SUCCESS) {
        why = "the command queue is not valid (" + cl_error("clGetCommandQueueInfo", err) + ")";
        return OPF_ERR_ARG;
    }
    if ((L.nwait > 0) != (L.wait != nullptr)) {
        why = "nwait and wait disagree (a wait list needs both)";
        return OPF_ERR_ARG;
    }
    const std::shared_ptr<DeviceState> state = state_for(ctx, dev);
    const bool copy = is_copy_op(op_id);
    const bool by_copy = copy && !copy_needs_kernel(op_id, kt);   // a byte copy, no kernel
    if (L.control == OPF_CL_QUERY) {   // opf_cl_supported: builds the op's program if needed
        const bool ok = by_copy ? state->possible(op_id, kt, why) : state->kernels(op_id, kt, why) != nullptr;
        return ok ? OPF_SUCCESS : OPF_ERR_OP;
    }
    if (L.control != OPF_CL_RUN) {
        why = "unknown control " + std::to_string(L.control) + " in opf_cl_launch_t";
        return OPF_ERR_ARG;
    }
    DeviceState::Kernels *kernels = nullptr;
    if (!by_copy && n > 0 && !(kernels = state->kernels(op_id, kt, why))) return OPF_ERR_OP;
    if (L.svm && !(state->caps.svm && cl.clSetKernelArgSVMPointer && cl.clEnqueueSVMMemcpy)) {
        why = "the device (" + state->caps.name + ") or the ICD loader has no shared virtual memory";
        return OPF_ERR_BUFFER;
    }

    // The byte range each operand covers, up to the last element's data
    // (MPI's true extent), checked against its buffer.
    const TypeInfo &type = type_info(kt);
    const int64_t ext = type.extent;
    int64_t bytes = 0;
    if (n > 0 && (__builtin_mul_overflow(n - 1, ext, &bytes) || __builtin_add_overflow(bytes, int64_t(type.true_end), &bytes))) {
        why = "count * extent overflows";
        return OPF_ERR_COUNT;
    }
    const std::size_t align = copy ? 1 : std::size_t(type.align);
    std::size_t start[3] = {0, 0, 0};   // SVM: the address; cl_mem: the offset
    for (int i = 0; i < nbuf; ++i) {
        if (L.svm) {
            start[i] = reinterpret_cast<std::uintptr_t>(bufs[i]);
            if (!bufs[i] && n > 0) {
                why = std::string(names[i]) + " is NULL";
                return OPF_ERR_BUFFER;
            }
        } else {
            start[i] = L.offset[i];
            if (n == 0) continue;
            auto mem = static_cast<cl_mem>(const_cast<void *>(bufs[i]));
            size_t size = 0;
            cl_context owner = nullptr;
            err = mem ? cl.clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof size, &size, nullptr) : CL_INVALID_MEM_OBJECT;
            if (err == CL_SUCCESS) err = cl.clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof owner, &owner, nullptr);
            if (err != CL_SUCCESS) {
                why = std::string(names[i]) + " is not a valid cl_mem (" + cl_error("clGetMemObjectInfo", err) + ")";
                return OPF_ERR_BUFFER;
            }
            if (owner != ctx) {
                why = std::string(names[i]) + " belongs to another context than the queue";
                return OPF_ERR_BUFFER;
            }
            cl_mem_flags flags = 0;
            cl.clGetMemObjectInfo(mem, CL_MEM_FLAGS, sizeof flags, &flags, nullptr);
            const bool written = i == nbuf - 1;
            if ((written && (flags & CL_MEM_READ_ONLY)) || (!written && (flags & CL_MEM_WRITE_ONLY))) {
                why = std::string(names[i]) + (written ? " is a read-only buffer (CL_MEM_READ_ONLY)"
                                                       : " is a write-only buffer (CL_MEM_WRITE_ONLY)");
                return OPF_ERR_BUFFER;
            }
            if (L.offset[i] > size || uint64_t(bytes) > size - L.offset[i]) {
                why = std::string(names[i]) + ": offset " + std::to_string(L.offset[i]) + " + " + std::to_string(bytes) +
                      " bytes is past the end of the buffer (" + std::to_string(size) + " bytes)";
                return OPF_ERR_BUFFER;
            }
        }
        if (n > 0 && start[i] % align) {
            why = std::string(names[i]) + (L.svm ? " address " : " offset ") + std::to_string(start[i]) +
                  " is not a multiple of the alignment of " + kt_text(kt) + " (" + std::to_string(align) + ")";
            return OPF_ERR_ARG;
        }
    }
    // The output may be an input exactly, never partly.
    const int out = nbuf - 1;
    bool same[2] = {false, false};   // output is input i, exactly
    for (int i = 0; i < out && n > 0; ++i) {
        const bool one_object = L.svm || bufs[i] == bufs[out];
        if (!one_object) continue;
        if (start[i] == start[out]) {
            same[i] = L.svm ? bufs[i] == bufs[out] : true;
            continue;
        }
        const std::size_t lo = std::max(start[i], start[out]), hi = std::min(start[i], start[out]) + std::size_t(bytes);
        if (lo < hi) {
            why = std::string(names[out]) + " partly overlaps " + names[i] + " (allowed: the same buffer and offset, or apart)";
            return OPF_ERR_BUFFER;
        }
    }

    cl_event ev = nullptr;
    // Nothing to compute: a marker keeps the wait list and the event promise.
    const bool nothing = n == 0 || (op_id == OPF_OPID_NO_OP && nbuf == 2) ||
                         (op_id == OPF_OPID_REPLACE && same[0]) || (op_id == OPF_OPID_NO_OP && nbuf == 3 && same[1]);
    if (nothing) {
        err = cl.clEnqueueMarkerWithWaitList(L.queue, L.nwait, L.wait, &ev);
        if (err != CL_SUCCESS) return enqueue_failed("clEnqueueMarkerWithWaitList", err, why);
        if (enqueued) *enqueued = true;
        return finish(ev, L, why);
    }
    if (by_copy) {   // REPLACE: out = in (in1); NO_OP (3-buffer): out = in2; dense elements
        const int src = op_id == OPF_OPID_REPLACE ? 0 : 1;
        if (L.svm) {
            err = cl.clEnqueueSVMMemcpy(L.queue, CL_FALSE, const_cast<void *>(bufs[out]), bufs[src], std::size_t(bytes),
                                        L.nwait, L.wait, &ev);
            if (err != CL_SUCCESS) return enqueue_failed("clEnqueueSVMMemcpy", err, why);
        } else {
            err = cl.clEnqueueCopyBuffer(L.queue, static_cast<cl_mem>(const_cast<void *>(bufs[src])),
                                         static_cast<cl_mem>(const_cast<void *>(bufs[out])), L.offset[src],
                                         L.offset[out], std::size_t(bytes), L.nwait, L.wait, &ev);
            if (err != CL_SUCCESS) return enqueue_failed("clEnqueueCopyBuffer", err, why);
        }
        if (enqueued) *enqueued = true;
        return finish(ev, L, why);
    }

    const int half = nbuf - 2;
    cl_kernel k = kernels->k[half];
    size_t local = kernels->local[half];
    // CPU devices (PoCL) run a work-group as one loop: small counts get small
    // groups (a count-1 call then runs 64 items, not 1024), large counts
    // large ones (fewer groups to schedule). Two sizes: two compiled variants.
    if (!settings.local_size && (state->caps.type & CL_DEVICE_TYPE_CPU) && n < kCpuLargeFrom)
        local = std::min(local, kCpuLocalSmall);
    // A launch covers at most 2^30 items (some devices cap the global size
    // near 2^32); larger counts run as several launches joined by a marker.
    std::vector<cl_event> parts;
    const opf_count_t per_launch = settings.max_launch > 0 ? settings.max_launch : opf_count_t(1) << 30;
    for (opf_count_t first = 0; first < n; first += per_launch) {
        const opf_count_t m = std::min(n - first, per_launch);
        const size_t global = (size_t(m) + local - 1) / local * local;
        const std::size_t skip = std::size_t(first) * std::size_t(ext);
        cl_event part = nullptr;
        std::lock_guard guard(kernels->lock);   // arguments are captured at enqueue
        err = CL_SUCCESS;
        for (int i = 0; i < nbuf && err == CL_SUCCESS; ++i) {
            const cl_ulong off = L.svm ? 0 : L.offset[i] + skip;
            if (L.svm)
                err = cl.clSetKernelArgSVMPointer(k, cl_uint(2 * i), static_cast<const char *>(bufs[i]) + skip);
            else {
                cl_mem mem = static_cast<cl_mem>(const_cast<void *>(bufs[i]));
                err = cl.clSetKernelArg(k, cl_uint(2 * i), sizeof mem, &mem);
            }
            if (err == CL_SUCCESS) err = cl.clSetKernelArg(k, cl_uint(2 * i + 1), sizeof off, &off);
        }
        const cl_ulong count = cl_ulong(m);
        if (err == CL_SUCCESS) err = cl.clSetKernelArg(k, cl_uint(2 * nbuf), sizeof count, &count);
        if (err == CL_SUCCESS) err = cl.clEnqueueNDRangeKernel(L.queue, k, 1, nullptr, &global, &local, L.nwait, L.wait, &part);
        if (err != CL_SUCCESS) {
            // Launches already enqueued (counts above 2^30 only) still run.
            if (enqueued) *enqueued = !parts.empty();
            for (cl_event e : parts) cl.clReleaseEvent(e);
            return enqueue_failed(parts.empty() ? "clEnqueueNDRangeKernel" : "clEnqueueNDRangeKernel (a later part)", err,
                                  why);
        }
        parts.push_back(part);
    }
    if (enqueued) *enqueued = true;
    if (parts.size() == 1) {
        ev = parts[0];
    } else {
        err = cl.clEnqueueMarkerWithWaitList(L.queue, cl_uint(parts.size()), parts.data(), &ev);
        for (cl_event e : parts) cl.clReleaseEvent(e);
        if (err != CL_SUCCESS) return enqueue_failed("clEnqueueMarkerWithWaitList", err, why);
    }
    return finish(ev, L, why);
}

// ---- host memory ----------------------------------------------------------------------

namespace {
std::mutex host_lock;
cl_context host_context = nullptr;
cl_command_queue host_queue = nullptr;
std::shared_ptr<DeviceState> host_device;
} // namespace

bool host_open(cl_device_id device, std::string &why)
{
    std::lock_guard guard(host_lock);
    if (host_queue) return true;
    cl_int err = CL_SUCCESS;
    host_context = cl.clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
    if (!host_context) {
        why = cl_error("clCreateContext", err);
        return false;
    }
    host_queue = cl.clCreateCommandQueue(host_context, device, 0, &err);
    if (!host_queue) {
        why = cl_error("clCreateCommandQueue", err);
        cl.clReleaseContext(host_context);
        host_context = nullptr;
        return false;
    }
    host_device = state_for(host_context, device);
    return true;
}

void host_close()
{
    std::lock_guard guard(host_lock);
    if (host_queue) {
        cl.clFinish(host_queue);
        cl.clReleaseCommandQueue(host_queue);
    }
    host_device.reset();
    if (host_context) {
        release_context(host_context);
        cl.clReleaseContext(host_context);
    }
    host_queue = nullptr;
    host_context = nullptr;
}

std::shared_ptr<DeviceState> host_state()
{
    std::lock_guard guard(host_lock);
    return host_device;
}

int host_call(int op_id, int kt, int nbuf, const void *a, const void *b, void *out, opf_count_t n, std::string &why,
              bool &started)
{
    started = false;
    if (n <= 0) return OPF_SUCCESS;
    const std::size_t bytes = type_info(kt).true_bytes(std::size_t(n));   // no further: the caller's buffer ends there
    const void *ptrs[3] = {a, nbuf == 3 ? b : out, out};
    cl_mem mems[3] = {nullptr, nullptr, nullptr};
    cl_int err = CL_SUCCESS;
    int rc = OPF_SUCCESS;
    // One buffer per distinct address: two buffers over the same host memory
    // would be undefined when one of them is written.
    for (int i = 0; i < nbuf && rc == OPF_SUCCESS; ++i) {
        for (int j = 0; j < i; ++j)
            if (ptrs[j] == ptrs[i]) mems[i] = mems[j];
        if (mems[i]) continue;
        const bool written = ptrs[i] == out;
        mems[i] = cl.clCreateBuffer(host_context, (written ? CL_MEM_READ_WRITE : CL_MEM_READ_ONLY) | CL_MEM_USE_HOST_PTR,
                                    bytes, const_cast<void *>(ptrs[i]), &err);
        if (!mems[i]) {
            why = cl_error("clCreateBuffer", err);
            rc = OPF_ERR_NO_MEM;
        }
    }
    if (rc == OPF_SUCCESS) {
        opf_cl_launch_t L{};
        L.queue = host_queue;
        const void *bufs[3] = {mems[0], mems[1], mems[2]};
        rc = launch(op_id, kt, nbuf, bufs, n, L, why, &started);
    }
    if (rc == OPF_SUCCESS) {
        // Make the result visible in host memory (a map of a USE_HOST_PTR
        // buffer is that memory), then let go.
        cl_mem o = mems[nbuf - 1];
        void *p = cl.clEnqueueMapBuffer(host_queue, o, CL_TRUE, CL_MAP_READ, 0, bytes, 0, nullptr, nullptr, &err);
        if (!p) {
            why = cl_error("clEnqueueMapBuffer", err);
            rc = OPF_ERR_INTERN;
        } else {
            cl_event ev = nullptr;
            err = cl.clEnqueueUnmapMemObject(host_queue, o, p, 0, nullptr, &ev);
            if (err == CL_SUCCESS) {
                cl.clWaitForEvents(1, &ev);
                cl.clReleaseEvent(ev);
            }
        }
    }
    for (int i = 0; i < nbuf; ++i) {
        bool first = true;
        for (int j = 0; j < i; ++j) first &= mems[j] != mems[i];
        if (mems[i] && first) cl.clReleaseMemObject(mems[i]);
    }
    return rc;
}

} // namespace opfcl
