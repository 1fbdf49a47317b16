// cuda_bench.cpp — the cuda component's speed, side by side with the GPU's
// own copy in the same run.
//
//   1. throughput of float SUM, int32 SUM, double MAX and bfloat16 SUM from
//      1 MiB to 4 GiB per buffer: stream calls (opf_cuda_reduce_local) and
//      synchronous calls (opf_reduce_local on device memory), in GB/s
//      counting 3 * n * size (read in, read inout, write inout), next to a
//      device-to-device cudaMemcpyAsync of the same buffer (2 * n * size);
//      medians of repeated runs timed with CUDA events;
//   2. per-call overhead at count 1: host time to enqueue a stream call, the
//      same for cudaMemcpyAsync / cudaMemsetAsync of 4 bytes, and the
//      latency of a synchronous call;
//   3. mixed host / device synchronous calls (host in, device inout) on both
//      sides of op_cuda_staging_min_count (host path vs staged), to place
//      that parameter's default.
//
// Usage: cuda_bench [--device N] [--max-bytes SIZE] [--quick]
// Exit status: 0, or 77 (skipped) without a CUDA driver or device.
#include <cuda_runtime_api.h>
#include <opframe/cuda.h>
#include <opframe/introspect.h>
#include <opframe/opframe.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

#define CUDA_OK(call)                                                                                              \
    do {                                                                                                           \
        const cudaError_t e_ = (call);                                                                             \
        if (e_ != cudaSuccess) {                                                                                   \
            std::printf("FATAL: %s: %s (%s)\n", #call, cudaGetErrorName(e_), cudaGetErrorString(e_));             \
            std::exit(1);                                                                                          \
        }                                                                                                          \
    } while (0)

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

double now_us()
{
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string size_text(double bytes)
{
    char buf[32];
    if (bytes >= 1 << 30) std::snprintf(buf, sizeof buf, "%g GiB", bytes / (1 << 30));
    else if (bytes >= 1 << 20) std::snprintf(buf, sizeof buf, "%g MiB", bytes / (1 << 20));
    else if (bytes >= 1 << 10) std::snprintf(buf, sizeof buf, "%g KiB", bytes / (1 << 10));
    else std::snprintf(buf, sizeof buf, "%g B", bytes);
    return buf;
}

struct Case {
    const char *name;
    opf_op_t op;
    opf_datatype_t type;
    int size;
    int kernel_type;
};

// Median milliseconds of `fn` enqueued on `stream`, timed with events.
template <class F> double time_events(cudaStream_t stream, int reps, F fn)
{
    cudaEvent_t start, stop;
    CUDA_OK(cudaEventCreate(&start));
    CUDA_OK(cudaEventCreate(&stop));
    fn();   // warm up
    CUDA_OK(cudaStreamSynchronize(stream));
    std::vector<double> ms;
    for (int r = 0; r < reps; ++r) {
        CUDA_OK(cudaEventRecord(start, stream));
        fn();
        CUDA_OK(cudaEventRecord(stop, stream));
        CUDA_OK(cudaEventSynchronize(stop));
        float t = 0;
        CUDA_OK(cudaEventElapsedTime(&t, start, stop));
        ms.push_back(t);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return median(ms);
}

template <class F> double time_wall_us(int reps, F fn)
{
    fn();
    std::vector<double> us;
    for (int r = 0; r < reps; ++r) {
        const double t0 = now_us();
        fn();
        us.push_back(now_us() - t0);
    }
    return median(us);
}

} // namespace

int main(int argc, char **argv)
{
    int dev = 0;
    double max_bytes = 4.0 * (1 << 30);
    bool quick = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--device" && i + 1 < argc) dev = std::atoi(argv[++i]);
        else if (arg == "--max-bytes" && i + 1 < argc) {
            char *end = nullptr;
            max_bytes = std::strtod(argv[++i], &end);
            if (end && (*end == 'K' || *end == 'k')) max_bytes *= 1 << 10;
            if (end && (*end == 'M' || *end == 'm')) max_bytes *= 1 << 20;
            if (end && (*end == 'G' || *end == 'g')) max_bytes *= 1 << 30;
        } else if (arg == "--quick") {
            quick = true;
        } else {
            std::fprintf(stderr, "usage: %s [--device N] [--max-bytes SIZE] [--quick]\n", argv[0]);
            return 2;
        }
    }
    int ndev = 0, driver = 0;
    const cudaError_t e = cudaGetDeviceCount(&ndev);
    cudaDriverGetVersion(&driver);
    if (e != cudaSuccess || ndev <= dev) {
        std::printf("cuda_bench: skipped: %s\n",
                    driver == 0 ? "no CUDA driver (libcuda.so.1 cannot be loaded)"
                    : e == cudaErrorInsufficientDriver ? "the CUDA driver is too old for this runtime"
                    : e != cudaSuccess ? cudaGetErrorString(e) : "no such CUDA device");
        return 77;
    }
    CUDA_OK(cudaSetDevice(dev));
    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, dev));
    int clock_khz = 0, bus_bits = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, dev);
    cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev);
    const double peak = 2.0 * clock_khz * 1e3 * bus_bits / 8 / 1e9;
    std::printf("device %d: %s, sm_%d%d, %d SMs, %.0f GiB, memory peak %.0f GB/s (2 x clock x bus), driver %d.%d\n", dev,
                prop.name, prop.major, prop.minor, prop.multiProcessorCount, prop.totalGlobalMem / 1073741824.0, peak,
                driver / 1000, driver % 1000 / 10);
    const char *status = nullptr;
    if (!opf_cuda_available(&status)) {
        std::printf("cuda_bench: the cuda component is %s (is OPF_MCA_mca_component_path set?)\n", status);
        return 1;
    }
    char text[1024] = "";
    opf_param_get("op_cuda_devices", text, sizeof text);
    std::printf("cuda component: %s; %s\n", status, text);
    char staging_default[64] = "";
    opf_param_get("op_cuda_staging_min_count", staging_default, sizeof staging_default);

    cudaStream_t stream;
    CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    // ---- 1. throughput -------------------------------------------------------------
    const Case cases[] = {
        {"float SUM", OPF_SUM, OPF_FLOAT, 4, OPF_KT_FLOAT},
        {"int32 SUM", OPF_SUM, OPF_INT32_T, 4, OPF_KT_INT32},
        {"double MAX", OPF_MAX, OPF_DOUBLE, 8, OPF_KT_DOUBLE},
        {"bf16 SUM", OPF_SUM, OPF_BFLOAT16, 2, OPF_KT_BFLOAT16},
    };
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_OK(cudaMemGetInfo(&free_bytes, &total_bytes));
    std::printf("\n1. throughput, GB/s = 3 x n x size / time (memcpy: 2 x n x size / time), medians\n");
    std::printf("%-11s %9s %14s %8s %14s %8s %14s %8s\n", "case", "buffer", "stream GB/s", "(ms)", "sync GB/s", "(ms)",
                "memcpy GB/s", "ratio");
    for (const Case &c : cases) {
        for (double bytes = 1 << 20; bytes <= max_bytes; bytes *= quick ? 16 : 4) {
            if (2 * bytes + (256 << 20) > double(free_bytes)) {
                std::printf("%-11s %9s skipped (%zu MiB free)\n", c.name, size_text(bytes).c_str(), free_bytes >> 20);
                continue;
            }
            const opf_count_t n = opf_count_t(bytes / c.size);
            void *in = nullptr, *inout = nullptr;
            CUDA_OK(cudaMalloc(&in, size_t(bytes)));
            CUDA_OK(cudaMalloc(&inout, size_t(bytes)));
            CUDA_OK(cudaMemset(in, 0x3c, size_t(bytes)));   // small finite values of every type
            CUDA_OK(cudaMemset(inout, 0x3c, size_t(bytes)));
            CUDA_OK(cudaDeviceSynchronize());
            const int reps = int(std::clamp(2e9 / bytes, 5.0, quick ? 10.0 : 50.0));
            int rc = OPF_SUCCESS;
            const double t_stream = time_events(stream, reps, [&] {
                const int r = opf_cuda_reduce_local(in, inout, n, c.type, c.op, stream);
                if (r) rc = r;
            });
            const double t_sync = time_wall_us(reps, [&] {
                const int r = opf_reduce_local(in, inout, n, c.type, c.op);
                if (r) rc = r;
            }) / 1e3;
            const double t_copy = time_events(stream, reps, [&] {
                CUDA_OK(cudaMemcpyAsync(inout, in, size_t(bytes), cudaMemcpyDeviceToDevice, stream));
            });
            if (rc != OPF_SUCCESS) std::printf("  (a call failed: %s)\n", opf_last_error());
            const double gb = 3 * bytes / 1e9, copy_gb = 2 * bytes / 1e9;
            std::printf("%-11s %9s %14.1f %8.3f %14.1f %8.3f %14.1f %8.2f\n", c.name, size_text(bytes).c_str(),
                        gb / (t_stream / 1e3), t_stream, gb / (t_sync / 1e3), t_sync, copy_gb / (t_copy / 1e3),
                        (gb / t_stream) / (copy_gb / t_copy));
            cudaFree(in);
            cudaFree(inout);
        }
    }
    std::printf("(ratio: stream GB/s over memcpy GB/s; ~1 means the reduction moves bytes as fast as a copy)\n");

    // ---- 2. per-call overhead at count 1 ------------------------------------------------
    {
        float *d = nullptr;
        CUDA_OK(cudaMalloc(reinterpret_cast<void **>(&d), 64));
        CUDA_OK(cudaMemset(d, 0, 64));
        const int calls = quick ? 2000 : 20000;
        auto per_call = [&](auto fn) {
            fn();
            CUDA_OK(cudaStreamSynchronize(stream));
            const double t0 = now_us();
            for (int i = 0; i < calls; ++i) fn();
            const double t1 = now_us();
            CUDA_OK(cudaStreamSynchronize(stream));
            const double t2 = now_us();
            return std::make_pair((t1 - t0) / calls, (t2 - t0) / calls);
        };
        int rc = OPF_SUCCESS;
        const auto reduce = per_call([&] {
            const int r = opf_cuda_reduce_local(d, d + 4, 1, OPF_FLOAT, OPF_SUM, stream);
            if (r) rc = r;
        });
        const auto copy = per_call([&] { cudaMemcpyAsync(d + 8, d, 4, cudaMemcpyDeviceToDevice, stream); });
        const auto memset = per_call([&] { cudaMemsetAsync(d + 8, 0, 4, stream); });
        const double sync_us = time_wall_us(quick ? 200 : 2000, [&] {
            const int r = opf_reduce_local(d, d + 4, 1, OPF_FLOAT, OPF_SUM);
            if (r) rc = r;
        });
        char check[8] = "";
        opf_param_get("op_cuda_stream_check", check, sizeof check);
        opf_param_set("op_cuda_stream_check", "false");
        const auto unchecked = per_call([&] {
            const int r = opf_cuda_reduce_local(d, d + 4, 1, OPF_FLOAT, OPF_SUM, stream);
            if (r) rc = r;
        });
        opf_param_set("op_cuda_stream_check", check);
        std::printf("\n2. per call at count 1 (%d calls): host time to enqueue, and with the final synchronisation\n",
                    calls);
        std::printf("  opf_cuda_reduce_local float SUM  %7.2f us enqueue  %7.2f us per call in all\n", reduce.first,
                    reduce.second);
        std::printf("    same, op_cuda_stream_check=0   %7.2f us enqueue  %7.2f us per call in all\n",
                    unchecked.first, unchecked.second);
        std::printf("  cudaMemcpyAsync 4 B (reference)  %7.2f us enqueue  %7.2f us per call in all\n", copy.first,
                    copy.second);
        std::printf("  cudaMemsetAsync 4 B (reference)  %7.2f us enqueue  %7.2f us per call in all\n", memset.first,
                    memset.second);
        std::printf("  opf_reduce_local (synchronous)   %7.2f us per call (median)\n", sync_us);
        if (rc != OPF_SUCCESS) std::printf("  (a call failed: %s)\n", opf_last_error());
        cudaFree(d);
    }

    // ---- 3. mixed host / device calls: where staging starts to pay --------------------------------
    {
        std::printf("\n3. mixed synchronous float SUM, in = host (pageable), inout = device: median us per call\n");
        std::printf("%10s %14s %14s  %s\n", "count", "host path", "staged", "faster");
        const opf_count_t max_n = quick ? 1 << 16 : 1 << 22;
        std::vector<float> host(size_t(max_n), 1.0f);
        float *d = nullptr;
        CUDA_OK(cudaMalloc(reinterpret_cast<void **>(&d), size_t(max_n) * 4));
        CUDA_OK(cudaMemset(d, 0, size_t(max_n) * 4));
        opf_count_t crossover = -1;
        for (opf_count_t n = 1; n <= max_n; n *= 4) {
            const int reps = n < 65536 ? 200 : 20;
            opf_param_set("op_cuda_staging_min_count", "1G");
            const double t_host = time_wall_us(reps, [&] { opf_reduce_local(host.data(), d, n, OPF_FLOAT, OPF_SUM); });
            opf_param_set("op_cuda_staging_min_count", "0");
            const double t_dev = time_wall_us(reps, [&] { opf_reduce_local(host.data(), d, n, OPF_FLOAT, OPF_SUM); });
            if (crossover < 0 && t_dev < t_host) crossover = n;
            std::printf("%10lld %14.1f %14.1f  %s\n", (long long)n, t_host, t_dev, t_dev < t_host ? "staged" : "host");
        }
        opf_param_set("op_cuda_staging_min_count", staging_default);
        std::printf("  staging first wins at count %lld; op_cuda_staging_min_count is %s\n", (long long)crossover,
                    staging_default);
        cudaFree(d);
    }
    char errors[32] = "";
    opf_param_get("op_cuda_errors", errors, sizeof errors);
    std::printf("\nop_cuda_errors: %s\n", errors);
    cudaStreamDestroy(stream);

    // ---- 4. what the component costs host-memory calls -------------------------------
    // Every opf_reduce_local asks the component's memory_kind hook (one driver
    // query per buffer) once it is available; without it the framework asks
    // nothing. Measured with the component, then with op=^cuda (opf_finalize
    // and opf_init in between: the module unloads and loads again).
    auto host_call_ns = [&] {
        float hx[1] = {1}, hy[1] = {2};
        const int calls = quick ? 20000 : 200000;
        std::vector<double> ns;
        for (int r = 0; r < 5; ++r) {
            const double t0 = now_us();
            for (int i = 0; i < calls; ++i) opf_reduce_local(hx, hy, 1, OPF_FLOAT, OPF_SUM);
            ns.push_back((now_us() - t0) * 1e3 / calls);
        }
        return median(ns);
    };
    const double with_cuda = host_call_ns();
    opf_finalize();
    opf_param_set("op", "^cuda");
    const int rc = opf_init();
    const double without_cuda = host_call_ns();
    opf_finalize();
    opf_param_set("op", nullptr);
    std::printf("\n4. opf_reduce_local float SUM, count 1, on host memory: %.1f ns per call with the cuda component, "
                "%.1f ns with op=^cuda%s\n", with_cuda, without_cuda, rc ? " (opf_init failed)" : "");
    return 0;
}
