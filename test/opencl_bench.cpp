// opencl_bench.cpp — OpenCL reduction speed next to the base CPU kernel, in
// one run: float SUM (2-buffer, inout = in + inout) at the sizes asked for.
//
//   opencl_bench [--sizes 4,1M,256M] [--samples N] [--device I] [--quick]
//
// Rows per size (medians of --samples timed calls; GB/s counts 3 * bytes:
// read in, read inout, write inout, like opframe_bench):
//   base            the base kernel on host memory (opf_slot_kernels "base")
//   cl_mem          opf_cl_reduce_local on cl_mem, blocking: the whole call
//   cl_mem kernel   the same call's device time (CL_PROFILING_COMMAND_START..END)
//   cl_mem async    opf_cl_reduce_local with an event: the enqueue cost alone
//   raw launch      an empty OpenCL kernel, enqueue + wait (OpenCL's own floor)
//   raw enqueue     the same, the enqueue alone
//   host via cl     the component's host-memory kernel (USE_HOST_PTR), forced on
//                   with op_opencl_host_min_count=1 after the rest (then it
//                   serves host memory, not device buffers): what auto keeps off
#define CL_TARGET_OPENCL_VERSION 300
#include <opframe/introspect.h>
#include <opframe/opencl.h>
#include <opframe/opframe.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Seconds per call: median of `samples` batches, each long enough to time.
double time_call(const std::function<void()> &f, int samples, size_t bytes)
{
    f();   // warm up (builds, page faults)
    const int reps = bytes >= (size_t(64) << 20) ? 1 : bytes >= (size_t(1) << 20) ? 10 : 200;
    std::vector<double> t;
    for (int s = 0; s < samples; ++s) {
        const auto t0 = Clock::now();
        for (int r = 0; r < reps; ++r) f();
        t.push_back(std::chrono::duration<double>(Clock::now() - t0).count() / reps);
    }
    return median(t);
}

long parse_size(const std::string &s)
{
    char *end = nullptr;
    long v = std::strtol(s.c_str(), &end, 10);
    switch (*end) {
    case 'K': case 'k': return v << 10;
    case 'M': case 'm': return v << 20;
    case 'G': case 'g': return v << 30;
    default: return v;
    }
}

void row(const char *size, const char *what, double sec, size_t bytes, double base_sec)
{
    const double gbs = bytes ? 3.0 * double(bytes) / sec / 1e9 : 0;
    if (bytes)
        std::printf("%-9s %-14s %12.3f us %9.2f GB/s %9.2fx\n", size, what, sec * 1e6, gbs, base_sec / sec);
    else
        std::printf("%-9s %-14s %12.3f us %14s %10s\n", size, what, sec * 1e6, "-", "-");
}

} // namespace

int main(int argc, char **argv)
{
    std::vector<long> sizes = {4, 1L << 20, 256L << 20};
    int samples = 9;
    cl_uint device_index = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--sizes" && i + 1 < argc) {
            sizes.clear();
            std::string list = argv[++i];
            for (size_t at = 0; at <= list.size();) {
                size_t comma = list.find(',', at);
                if (comma == std::string::npos) comma = list.size();
                sizes.push_back(parse_size(list.substr(at, comma - at)));
                at = comma + 1;
            }
        } else if (a == "--samples" && i + 1 < argc) samples = std::atoi(argv[++i]);
        else if (a == "--device" && i + 1 < argc) device_index = cl_uint(std::atoi(argv[++i]));
        else if (a == "--quick") samples = 3;
        else {
            std::printf("usage: %s [--sizes 4,1M,256M] [--samples N] [--device I] [--quick]\n", argv[0]);
            return 2;
        }
    }
    if (opf_init() != OPF_SUCCESS) {
        std::printf("opf_init: %s\n", opf_last_error());
        return 1;
    }
    cl_platform_id platforms[8];
    cl_uint np = 0;
    if (clGetPlatformIDs(8, platforms, &np) != CL_SUCCESS || np == 0) {
        std::printf("opencl_bench: no OpenCL platform: skipped\n");
        return 77;
    }
    std::vector<cl_device_id> devices;
    for (cl_uint p = 0; p < np; ++p) {
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS) continue;
        std::vector<cl_device_id> d(nd);
        clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, nd, d.data(), nullptr);
        devices.insert(devices.end(), d.begin(), d.end());
    }
    if (device_index >= devices.size()) {
        std::printf("opencl_bench: no device %u\n", device_index);
        return 77;
    }
    cl_device_id dev = devices[device_index];
    char name[256] = "";
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, nullptr);
    cl_int err;
    cl_context ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &err);
    const cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, props, &err);
    if (err != CL_SUCCESS) {
        std::printf("cannot create a queue: %d\n", err);
        return 1;
    }
    opf_hw_info_t hw;
    opf_hw_describe(&hw);
    char local[32] = "0";
    opf_param_get("op_opencl_local_size", local, sizeof local);
    std::printf("machine: %s, %d cores; device: %s; op_opencl_local_size=%s; medians of %d samples\n", hw.cpu_model,
                hw.cores, name, local, samples);
    std::printf("%-9s %-14s %15s %14s %10s\n", "size", "provider", "time/call", "bandwidth", "vs base");

    opf_kernel2_fn *base2 = nullptr, *cl_host2 = nullptr;
    opf_kernel3_fn *unused = nullptr;
    opf_slot_kernels(OPF_OPID_SUM, OPF_KT_FLOAT, "base", 1, &base2, &unused);
    std::vector<double> base_times;

    // An empty kernel: what one launch costs in this OpenCL implementation.
    const char *empty_src = "__kernel void nothing(__global float *x) { }";
    cl_program prog = clCreateProgramWithSource(ctx, 1, &empty_src, nullptr, &err);
    clBuildProgram(prog, 1, &dev, "", nullptr, nullptr);
    cl_kernel empty = clCreateKernel(prog, "nothing", &err);

    for (long size : sizes) {
        const size_t n = size_t(size) / sizeof(float) ? size_t(size) / sizeof(float) : 1;
        const size_t bytes = n * sizeof(float);
        char label[32];
        if (bytes >= (size_t(1) << 20)) std::snprintf(label, sizeof label, "%zu MiB", bytes >> 20);
        else if (bytes >= 1024) std::snprintf(label, sizeof label, "%zu KiB", bytes >> 10);
        else std::snprintf(label, sizeof label, "%zu B", bytes);
        std::vector<float> a(n), b(n);
        for (size_t i = 0; i < n; ++i) { a[i] = float(i % 1000) * 0.25f; b[i] = 1.0f; }
        cl_mem ma = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, a.data(), &err);
        cl_mem mb = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, b.data(), &err);
        if (!ma || !mb) {
            std::printf("%-9s cannot allocate device buffers (%d)\n", label, err);
            continue;
        }
        const double t_base = time_call([&] { base2(a.data(), b.data(), opf_count_t(n)); }, samples, bytes);
        base_times.push_back(t_base);
        row(label, "base", t_base, bytes, t_base);
        int rc = OPF_SUCCESS;
        const double t_cl = time_call([&] {
            rc |= opf_cl_reduce_local(ma, 0, mb, 0, opf_count_t(n), OPF_FLOAT, OPF_SUM, q, 0, nullptr, nullptr);
        }, samples, bytes);
        if (rc != OPF_SUCCESS) {
            std::printf("opf_cl_reduce_local: %s\n", opf_cl_last_error());
            return 1;
        }
        row(label, "cl_mem", t_cl, bytes, t_base);
        // Device time of the kernel alone, from the profiling counters.
        std::vector<double> dev_t;
        for (int s = 0; s < samples; ++s) {
            cl_event ev = nullptr;
            opf_cl_reduce_local(ma, 0, mb, 0, opf_count_t(n), OPF_FLOAT, OPF_SUM, q, 0, nullptr, &ev);
            clWaitForEvents(1, &ev);
            cl_ulong t0 = 0, t1 = 0;
            clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, nullptr);
            clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, nullptr);
            clReleaseEvent(ev);
            dev_t.push_back(double(t1 - t0) * 1e-9);
        }
        row(label, "cl_mem kernel", median(dev_t), bytes, t_base);
        // The enqueue alone (the call returns an event), drained between samples.
        std::vector<double> enq;
        for (int s = 0; s < samples * 10; ++s) {
            cl_event ev = nullptr;
            const auto t0 = Clock::now();
            opf_cl_reduce_local(ma, 0, mb, 0, opf_count_t(n), OPF_FLOAT, OPF_SUM, q, 0, nullptr, &ev);
            enq.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
            clWaitForEvents(1, &ev);
            clReleaseEvent(ev);
        }
        row(label, "cl_mem async", median(enq), 0, t_base);
        if (n == 1) {
            const size_t one = 1;
            clSetKernelArg(empty, 0, sizeof ma, &ma);
            const double t_raw = time_call([&] {
                cl_event ev;
                clEnqueueNDRangeKernel(q, empty, 1, nullptr, &one, &one, 0, nullptr, &ev);
                clWaitForEvents(1, &ev);
                clReleaseEvent(ev);
            }, samples, bytes);
            row(label, "raw launch", t_raw, 0, t_base);
            std::vector<double> raw_enq;
            for (int s = 0; s < samples * 10; ++s) {
                cl_event ev = nullptr;
                const auto t0 = Clock::now();
                clEnqueueNDRangeKernel(q, empty, 1, nullptr, &one, &one, 0, nullptr, &ev);
                raw_enq.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
                clWaitForEvents(1, &ev);
                clReleaseEvent(ev);
            }
            row(label, "raw enqueue", median(raw_enq), 0, t_base);
        }
        clReleaseMemObject(ma);
        clReleaseMemObject(mb);
    }
    clReleaseKernel(empty);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    opf_finalize();

    // The component's host-memory kernel, forced on (it then serves host
    // memory instead of device buffers): what the auto rule keeps off.
    opf_param_set("op_opencl_host_min_count", "1");
    opf_init();
    opf_slot_kernels(OPF_OPID_SUM, OPF_KT_FLOAT, "opencl", 1, &cl_host2, &unused);
    for (size_t i = 0; cl_host2 && i < sizes.size(); ++i) {
        const size_t n = size_t(sizes[i]) / sizeof(float) ? size_t(sizes[i]) / sizeof(float) : 1;
        const size_t bytes = n * sizeof(float);
        char label[32];
        if (bytes >= (size_t(1) << 20)) std::snprintf(label, sizeof label, "%zu MiB", bytes >> 20);
        else if (bytes >= 1024) std::snprintf(label, sizeof label, "%zu KiB", bytes >> 10);
        else std::snprintf(label, sizeof label, "%zu B", bytes);
        std::vector<float> a(n, 0.25f), b(n, 1.0f);
        const double t_host = time_call([&] { cl_host2(a.data(), b.data(), opf_count_t(n)); }, samples, bytes);
        row(label, "host via cl", t_host, bytes, base_times[i]);
    }
    opf_finalize();
    return 0;
}
