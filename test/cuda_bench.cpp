// cuda_bench.cpp — the cuda component's speed, side by side with the GPU's
// own copy and with Thrust in the same run (the evidence for issue 33).
//
//   1a. every type class at 256 MiB per buffer (--max-bytes may lower it):
//       SUM FLOAT, SUM INT32, MAX DOUBLE, PROD DOUBLE, MAXLOC 2INT,
//       SUM/MAX/MIN FLOAT16, SUM/MAX BFLOAT16, SUM/MAX/MIN/PROD/AVG FLOAT8_E4M3,
//       SUM/MAX/PROD/AVG FLOAT8_E5M2;
//       stream calls opf_cuda_reduce_local (in, inout) and
//       opf_cuda_reduce_local3 (in1, in2, out: three buffers), in GB/s
//       counting 3 x bytes, next to a device-to-device cudaMemcpyAsync of the
//       same buffer (2 x bytes) and thrust::transform with the same op where
//       Thrust expresses it (test/cuda_bench_thrust.cu: a speed reference only,
//       its fp8 ops saturate and its maximum differs on NaN); the buffers hold
//       random finite values (random sign and mantissa, exponent -1 or 0:
//       magnitudes in [0.5, 2); integers in [0, 2^20)); every repetition runs
//       the contenders back to back, the copy (in to inout) last, so that inout
//       starts each repetition equal to in; medians of the repetitions, timed
//       with CUDA events;
//   1b. float SUM from 1 MiB to 4 GiB per buffer (--max-bytes): stream and
//       synchronous calls (opf_reduce_local on device memory), the copy and
//       Thrust (buffers set with cudaMemset 0x3c: 0.0115 in float);
//   1c. n-ary calls (opf_cuda_reduce_local_n, opf_cuda_reduce_local_n_mode
//       with OPF_ROUND_ONCE for the types computed in float), 64 MiB per input,
//       k = 2, 4, 8 inputs, SUM FLOAT / FLOAT16 / BFLOAT16 / FLOAT8_E4M3 /
//       FLOAT8_E5M2, MAX and AVG FLOAT8_E4M3, in GB/s counting (k + 1) x
//       bytes, next to the copy of one input and (not AVG) to the same result
//       as k - 1 opf_cuda_reduce_local3 calls;
//   2. per-call overhead at count 1: host time to enqueue a stream call, the
//      same for cudaMemcpyAsync / cudaMemsetAsync of 4 bytes, and the
//      latency of a synchronous call;
//   3. mixed host / device synchronous calls (host in, device inout) on both
//      sides of op_cuda_staging_min_count (host path vs staged), to place
//      that parameter's default;
//   4. the host-memory tax: ns per opf_reduce_local(SUM, FLOAT) on host
//      buffers (static, stack, small heap, mmap'd) at counts 16 and 1024,
//      with the cuda component loaded and excluded (OPF_MCA_op=^cuda), before
//      the application makes any CUDA call and after its cudaMalloc: each in
//      a child process (this program re-executed as --host-tax-child), so
//      that "before" is truly before the CUDA runtime starts; best of 5 runs
//      of 100,000 calls. --host-tax runs this section alone (no GPU needed:
//      without one the "after" phase reads n/a).
//
// Usage: cuda_bench [--device N] [--max-bytes SIZE] [--quick] [--host-tax] [--out FILE] [--help]
//   --out FILE: every table also as Markdown in FILE (device, driver, date
//   and the component's status at the top). --quick: fewer repetitions and
//   sizes, for a smoke run.
// Exit status: 0; 1 if a call failed; 77 (skipped) without a CUDA driver or
// device (but --host-tax); 2 for a bad argument.
#include <cuda_runtime_api.h>
#include <opframe/cuda.h>
#include <opframe/introspect.h>
#include <opframe/opframe.h>

#ifndef CUDA_BENCH_NO_THRUST
#include "cuda_bench_thrust.h"
#endif

#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <string>
#include <vector>

extern char **environ;

#ifdef CUDA_BENCH_NO_THRUST   // a build without Thrust (e.g. against test/cudastub): its columns read n/a
enum CudaBenchThrustCase {
    CB_THRUST_FLOAT_PLUS, CB_THRUST_INT32_PLUS, CB_THRUST_DOUBLE_MAXIMUM, CB_THRUST_DOUBLE_MULTIPLIES,
    CB_THRUST_HALF_PLUS, CB_THRUST_BF16_PLUS, CB_THRUST_E4M3_PLUS, CB_THRUST_E5M2_PLUS,
};
static const char *cuda_bench_thrust(CudaBenchThrustCase, const void *, void *, long long, cudaStream_t)
{
    return "not built";
}
static const char *cuda_bench_thrust_version() { return "Thrust: not built"; }
#endif

namespace {

const char usage_text[] =
    "usage: %s [--device N] [--max-bytes SIZE] [--quick] [--host-tax] [--out FILE] [--help]\n"
    "  --device N       the CUDA device (default 0)\n"
    "  --max-bytes SIZE the largest buffer of the float SUM sweep (default 4G; K, M, G suffixes); the\n"
    "                   type table uses min(256M, SIZE) per buffer, the n-ary table min(64M, SIZE)\n"
    "  --quick          fewer repetitions, sizes and calls (a smoke run)\n"
    "  --host-tax       only section 4, the host-memory tax (runs without a GPU too)\n"
    "  --out FILE       also write every table as Markdown to FILE\n"
    "Exit status: 0; 1 if a call failed; 77 (skipped) without a CUDA driver or device; 2: bad argument.\n";

#define CUDA_OK(call)                                                                                              \
    do {                                                                                                           \
        const cudaError_t e_ = (call);                                                                             \
        if (e_ != cudaSuccess) {                                                                                   \
            std::printf("FATAL: %s: %s (%s)\n", #call, cudaGetErrorName(e_), cudaGetErrorString(e_));             \
            std::fflush(nullptr);                                                                                  \
            std::exit(1);                                                                                          \
        }                                                                                                          \
    } while (0)

FILE *g_md = nullptr;   // --out FILE
int g_failures = 0;     // opframe calls that failed
std::string g_first_failure;

void note_failure(int rc)
{
    if (rc == OPF_SUCCESS) return;
    if (g_failures++ == 0) g_first_failure = opf_last_error();
}

std::string fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char *f, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, f);
    std::vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return buf;
}

const std::string na = "n/a";

// A line of text: on stdout, and as a paragraph line in the Markdown file.
void text(const std::string &s)
{
    std::printf("%s\n", s.c_str());
    if (g_md) std::fprintf(g_md, "%s\n\n", s.c_str());
    std::fflush(nullptr);
}

// A table printed row by row as it is measured: aligned text on stdout, a
// Markdown table in the --out file. The first column is left-aligned.
class Table {
public:
    Table(const std::string &title, std::vector<std::string> head, std::vector<int> widths = {})
        : head_(std::move(head))
    {
        for (size_t i = 0; i < head_.size(); ++i)
            width_.push_back(std::max(int(head_[i].size()), i < widths.size() ? widths[i] : 0));
        std::printf("\n%s\n", title.c_str());
        print_row(head_);
        if (g_md) {
            std::fprintf(g_md, "### %s\n\n|", title.c_str());
            for (const std::string &h : head_) std::fprintf(g_md, " %s |", h.c_str());
            std::fprintf(g_md, "\n|");
            for (size_t i = 0; i < head_.size(); ++i) std::fprintf(g_md, i == 0 ? ":---|" : "---:|");
            std::fprintf(g_md, "\n");
        }
        std::fflush(nullptr);
    }
    void row(std::vector<std::string> cells)
    {
        cells.resize(head_.size());
        print_row(cells);
        if (g_md) {
            std::fprintf(g_md, "|");
            for (const std::string &c : cells) std::fprintf(g_md, " %s |", c.c_str());
            std::fprintf(g_md, "\n");
        }
        std::fflush(nullptr);
    }
    // Lines under the table (call after the last row).
    void note(const std::string &s)
    {
        if (g_md && !noted_) std::fprintf(g_md, "\n");
        noted_ = true;
        std::printf("%s\n", s.c_str());
        if (g_md) std::fprintf(g_md, "%s\n\n", s.c_str());
        std::fflush(nullptr);
    }
    ~Table()
    {
        if (g_md && !noted_) std::fprintf(g_md, "\n");
    }

private:
    void print_row(const std::vector<std::string> &cells)
    {
        std::string line;
        for (size_t i = 0; i < cells.size(); ++i) {
            const int pad = std::max(0, width_[i] - int(cells[i].size()));
            if (i == 0) line += cells[i] + std::string(size_t(pad), ' ');
            else line += "  " + std::string(size_t(pad), ' ') + cells[i];
        }
        std::printf("%s\n", line.c_str());
    }
    std::vector<std::string> head_;
    std::vector<int> width_;
    bool noted_ = false;
};

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

std::string gbs(double bytes_moved, double ms) { return ms > 0 ? fmt("%.1f", bytes_moved / 1e9 / (ms / 1e3)) : na; }
std::string ratio(double a, double b) { return a > 0 && b > 0 ? fmt("%.2f", a / b) : na; }

// Median milliseconds of each of `fns`, enqueued on `stream` back to back in
// every repetition (interleaved, so that clock drift hits all alike), each
// between its own pair of CUDA events; one untimed round first.
std::vector<double> time_events(cudaStream_t stream, int reps, const std::vector<std::function<void()>> &fns)
{
    const size_t k = fns.size();
    std::vector<cudaEvent_t> ev(2 * k);
    for (cudaEvent_t &e : ev) CUDA_OK(cudaEventCreate(&e));
    for (const auto &fn : fns) fn();
    CUDA_OK(cudaStreamSynchronize(stream));
    std::vector<std::vector<double>> ms(k);
    for (int r = 0; r < reps; ++r) {
        for (size_t i = 0; i < k; ++i) {
            CUDA_OK(cudaEventRecord(ev[2 * i], stream));
            fns[i]();
            CUDA_OK(cudaEventRecord(ev[2 * i + 1], stream));
        }
        CUDA_OK(cudaEventSynchronize(ev[2 * k - 1]));
        for (size_t i = 0; i < k; ++i) {
            float t = 0;
            CUDA_OK(cudaEventElapsedTime(&t, ev[2 * i], ev[2 * i + 1]));
            ms[i].push_back(t);
        }
    }
    for (cudaEvent_t e : ev) cudaEventDestroy(e);
    std::vector<double> out;
    for (auto &v : ms) out.push_back(median(v));
    return out;
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

// ---- buffer contents: random finite values of each type -----------------------------
// Each 64-bit word of random bits becomes (bits & keep) | set: the sign and
// mantissa random, the exponent -1 or 0 (magnitude in [0.5, 2)), so no NaN,
// infinity or subnormal; integers in [0, 2^20).
struct Shape {
    std::uint64_t keep, set;
};
constexpr Shape shape_f32{0x80FFFFFF80FFFFFFull, 0x3F0000003F000000ull};
constexpr Shape shape_f64{0x801FFFFFFFFFFFFFull, 0x3FE0000000000000ull};
constexpr Shape shape_f16{0x87FF87FF87FF87FFull, 0x3800380038003800ull};
constexpr Shape shape_bf16{0x80FF80FF80FF80FFull, 0x3F003F003F003F00ull};
constexpr Shape shape_e4m3{0x8F8F8F8F8F8F8F8Full, 0x3030303030303030ull};
constexpr Shape shape_e5m2{0x8787878787878787ull, 0x3838383838383838ull};
constexpr Shape shape_int{0x000FFFFF000FFFFFull, 0};   // int32, and both ints of a 2INT pair

void fill_random(void *dev_buf, size_t bytes, Shape shape, std::uint64_t seed)
{
    std::vector<std::uint64_t> chunk(size_t(1) << 21);   // 16 MiB
    std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    for (size_t off = 0; off < bytes; off += chunk.size() * 8) {
        for (std::uint64_t &w : chunk) {   // xorshift64*
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            w = ((x * 0x2545F4914F6CDD1Dull) & shape.keep) | shape.set;
        }
        CUDA_OK(cudaMemcpy(static_cast<char *>(dev_buf) + off, chunk.data(), std::min(bytes - off, chunk.size() * 8),
                           cudaMemcpyHostToDevice));
    }
}

bool served(opf_op_t op, opf_datatype_t type)
{
    int sup = 0;
    return opf_cuda_supported(op, type, &sup) == OPF_SUCCESS && sup;
}

struct TypeCase {
    const char *name;
    opf_op_t op;
    opf_datatype_t type;
    int size;
    Shape shape;
    int thrust;   // a CudaBenchThrustCase, or -1
    const char *thrust_op;
};

// ---- 1a. every type class at one size ------------------------------------------------
void bench_types(cudaStream_t stream, double max_bytes, bool quick)
{
    const TypeCase cases[] = {
        {"SUM FLOAT", OPF_SUM, OPF_FLOAT, 4, shape_f32, CB_THRUST_FLOAT_PLUS, "plus"},
        {"SUM INT32", OPF_SUM, OPF_INT32_T, 4, shape_int, CB_THRUST_INT32_PLUS, "plus (wrapping)"},
        {"MAX DOUBLE", OPF_MAX, OPF_DOUBLE, 8, shape_f64, CB_THRUST_DOUBLE_MAXIMUM, "maximum"},
        {"PROD DOUBLE", OPF_PROD, OPF_DOUBLE, 8, shape_f64, CB_THRUST_DOUBLE_MULTIPLIES, "multiplies"},
        {"MAXLOC 2INT", OPF_MAXLOC, OPF_2INT, 8, shape_int, -1, ""},
        {"SUM FLOAT16", OPF_SUM, OPF_FLOAT16, 2, shape_f16, CB_THRUST_HALF_PLUS, "plus via float"},
        {"MAX FLOAT16", OPF_MAX, OPF_FLOAT16, 2, shape_f16, -1, ""},
        {"MIN FLOAT16", OPF_MIN, OPF_FLOAT16, 2, shape_f16, -1, ""},
        {"SUM BFLOAT16", OPF_SUM, OPF_BFLOAT16, 2, shape_bf16, CB_THRUST_BF16_PLUS, "plus via float"},
        {"MAX BFLOAT16", OPF_MAX, OPF_BFLOAT16, 2, shape_bf16, -1, ""},
        {"SUM FLOAT8_E4M3", OPF_SUM, OPF_FLOAT8_E4M3, 1, shape_e4m3, CB_THRUST_E4M3_PLUS, "plus via float, satfinite"},
        {"MAX FLOAT8_E4M3", OPF_MAX, OPF_FLOAT8_E4M3, 1, shape_e4m3, -1, ""},
        {"MIN FLOAT8_E4M3", OPF_MIN, OPF_FLOAT8_E4M3, 1, shape_e4m3, -1, ""},
        {"PROD FLOAT8_E4M3", OPF_PROD, OPF_FLOAT8_E4M3, 1, shape_e4m3, -1, ""},
        {"AVG FLOAT8_E4M3", OPF_AVG, OPF_FLOAT8_E4M3, 1, shape_e4m3, -1, ""},
        {"SUM FLOAT8_E5M2", OPF_SUM, OPF_FLOAT8_E5M2, 1, shape_e5m2, CB_THRUST_E5M2_PLUS, "plus via float, satfinite"},
        {"MAX FLOAT8_E5M2", OPF_MAX, OPF_FLOAT8_E5M2, 1, shape_e5m2, -1, ""},
        {"PROD FLOAT8_E5M2", OPF_PROD, OPF_FLOAT8_E5M2, 1, shape_e5m2, -1, ""},
        {"AVG FLOAT8_E5M2", OPF_AVG, OPF_FLOAT8_E5M2, 1, shape_e5m2, -1, ""},
    };
    const size_t bytes = size_t(std::min(max_bytes, 256.0 * (1 << 20))) / 8 * 8;
    const int reps = quick ? 7 : 25;
    Table t(fmt("1a. every type class, %s per buffer: GB/s = 3 x bytes / time (copy: 2 x bytes / time), medians of %d "
                "repetitions",
                size_text(double(bytes)).c_str(), reps),
            {"case", "stream GB/s", "ms", "ratio", "local3 GB/s", "ratio", "copy GB/s", "thrust GB/s",
             "opframe / thrust", "thrust op"},
            {15, 11, 7, 5, 11, 5, 9, 11, 16, 25});
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_OK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (bytes == 0 || 3 * double(bytes) + (256 << 20) > double(free_bytes)) {
        t.note(fmt("skipped: %zu MiB free", free_bytes >> 20));
        return;
    }
    void *in = nullptr, *inout = nullptr, *out = nullptr;
    CUDA_OK(cudaMalloc(&in, bytes));
    CUDA_OK(cudaMalloc(&inout, bytes));
    CUDA_OK(cudaMalloc(&out, bytes));
    CUDA_OK(cudaMemset(out, 0, bytes));
    std::uint64_t seed = 1;
    for (const TypeCase &c : cases) {
        if (!served(c.op, c.type)) {
            t.row({c.name, "not served"});
            continue;
        }
        const opf_count_t n = opf_count_t(bytes / size_t(c.size));
        fill_random(in, bytes, c.shape, seed++);
        fill_random(inout, bytes, c.shape, seed++);
        CUDA_OK(cudaDeviceSynchronize());
        int rc = OPF_SUCCESS;
        const char *thrust_error = nullptr;
        std::vector<std::function<void()>> fns = {
            [&] {
                const int r = opf_cuda_reduce_local(in, inout, n, c.type, c.op, stream);
                if (r) rc = r;
            },
            [&] {
                const int r = opf_cuda_reduce_local3(in, inout, out, n, c.type, c.op, stream);
                if (r) rc = r;
            },
        };
        if (c.thrust >= 0)
            fns.push_back([&] {
                const char *e = cuda_bench_thrust(CudaBenchThrustCase(c.thrust), in, inout, n, stream);
                if (e) thrust_error = e;
            });
        fns.push_back([&] { CUDA_OK(cudaMemcpyAsync(inout, in, bytes, cudaMemcpyDeviceToDevice, stream)); });
        const std::vector<double> ms = time_events(stream, reps, fns);
        const double b = double(bytes);
        const double t_stream = ms[0], t_local3 = ms[1], t_copy = ms.back();
        const double t_thrust = c.thrust >= 0 && !thrust_error ? ms[2] : 0;
        const double g_stream = 3 * b / t_stream, g_local3 = 3 * b / t_local3, g_copy = 2 * b / t_copy;
        note_failure(rc);
        if (rc != OPF_SUCCESS) {
            t.row({c.name, "FAILED", opf_last_error()});
            continue;
        }
        t.row({c.name, gbs(3 * b, t_stream), fmt("%.3f", t_stream), ratio(g_stream, g_copy), gbs(3 * b, t_local3),
               ratio(g_local3, g_copy), gbs(2 * b, t_copy),
               c.thrust < 0 ? std::string("-") : thrust_error ? std::string(thrust_error) : gbs(3 * b, t_thrust),
               t_thrust > 0 ? ratio(g_stream, 3 * b / t_thrust) : std::string("-"),
               c.thrust >= 0 ? c.thrust_op : "-"});
    }
    t.note("stream: opf_cuda_reduce_local(in, inout); local3: opf_cuda_reduce_local3(in, inout, out), three buffers; "
           "ratio: its GB/s over the copy's GB/s (cudaMemcpyAsync device to device, in to inout, same run; ~1: the "
           "reduction moves bytes as fast as a copy).");
    t.note(fmt("thrust: thrust::transform(thrust::cuda::par_nosync.on(stream), in, in + n, inout, inout, op), %s "
               "(par_nosync: par's kernel without its synchronisation after the call); opframe / thrust: stream GB/s "
               "over thrust GB/s. Thrust's ops are a speed reference only: its fp8 sums saturate (__NV_SATFINITE) "
               "where opframe's overflow (E4M3 to NaN, E5M2 to inf), its maximum differs on NaN; '-': not "
               "expressed.",
               cuda_bench_thrust_version()));
    t.note("buffers: random finite values (random sign and mantissa, exponent -1 or 0: magnitudes in [0.5, 2); "
           "integers in [0, 2^20)); the copy resets inout to in in every repetition.");
    cudaFree(in);
    cudaFree(inout);
    cudaFree(out);
}

// ---- 1b. float SUM over buffer sizes -----------------------------------------------------
void bench_sweep(cudaStream_t stream, double max_bytes, bool quick)
{
    Table t("1b. float SUM by buffer size: GB/s = 3 x bytes / time (copy: 2 x bytes / time), medians",
            {"buffer", "stream GB/s", "ms", "sync GB/s", "ms", "copy GB/s", "ratio", "thrust GB/s", "opframe / thrust"},
            {9, 11, 8, 9, 8, 9, 5, 11, 16});
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_OK(cudaMemGetInfo(&free_bytes, &total_bytes));
    for (double bytes = 1 << 20; bytes <= max_bytes; bytes *= quick ? 16 : 4) {
        if (2 * bytes + (256 << 20) > double(free_bytes)) {
            t.row({size_text(bytes), fmt("skipped (%zu MiB free)", free_bytes >> 20)});
            continue;
        }
        const opf_count_t n = opf_count_t(bytes / 4);
        void *in = nullptr, *inout = nullptr;
        CUDA_OK(cudaMalloc(&in, size_t(bytes)));
        CUDA_OK(cudaMalloc(&inout, size_t(bytes)));
        CUDA_OK(cudaMemset(in, 0x3c, size_t(bytes)));   // 0x3c3c3c3c: 0.0115 in float
        CUDA_OK(cudaMemset(inout, 0x3c, size_t(bytes)));
        CUDA_OK(cudaDeviceSynchronize());
        const int reps = int(std::clamp(2e9 / bytes, 7.0, quick ? 10.0 : 50.0));
        int rc = OPF_SUCCESS;
        const char *thrust_error = nullptr;
        const std::vector<double> ms = time_events(
            stream, reps,
            {[&] {
                 const int r = opf_cuda_reduce_local(in, inout, n, OPF_FLOAT, OPF_SUM, stream);
                 if (r) rc = r;
             },
             [&] {
                 const char *e = cuda_bench_thrust(CB_THRUST_FLOAT_PLUS, in, inout, n, stream);
                 if (e) thrust_error = e;
             },
             [&] { CUDA_OK(cudaMemcpyAsync(inout, in, size_t(bytes), cudaMemcpyDeviceToDevice, stream)); }});
        const double t_sync = time_wall_us(reps, [&] {
            const int r = opf_reduce_local(in, inout, n, OPF_FLOAT, OPF_SUM);
            if (r) rc = r;
        }) / 1e3;
        note_failure(rc);
        const double t_stream = ms[0], t_thrust = thrust_error ? 0 : ms[1], t_copy = ms[2];
        if (rc != OPF_SUCCESS) t.row({size_text(bytes), "FAILED", opf_last_error()});
        else
            t.row({size_text(bytes), gbs(3 * bytes, t_stream), fmt("%.3f", t_stream), gbs(3 * bytes, t_sync),
                   fmt("%.3f", t_sync), gbs(2 * bytes, t_copy), ratio(3 * bytes / t_stream, 2 * bytes / t_copy),
                   thrust_error ? std::string(thrust_error) : gbs(3 * bytes, t_thrust),
                   t_thrust > 0 ? ratio(t_thrust, t_stream) : na});
        cudaFree(in);
        cudaFree(inout);
    }
    t.note("stream: opf_cuda_reduce_local; sync: opf_reduce_local on device memory (wall time, returns when done); "
           "ratio: stream GB/s over copy GB/s; thrust as in 1a; buffers set with cudaMemset 0x3c (0.0115 in float), "
           "inout reset to in by the copy in every repetition.");
}

// ---- 1c. n-ary calls ------------------------------------------------------------------
void bench_nary(cudaStream_t stream, double max_bytes, bool quick)
{
    struct NaryCase {
        const char *name;
        opf_op_t op;
        opf_datatype_t type;
        int size;
        Shape shape;
        bool narrow;   // SUM computed in float: OPF_ROUND_ONCE differs from the chain
    };
    const NaryCase cases[] = {
        {"SUM FLOAT", OPF_SUM, OPF_FLOAT, 4, shape_f32, false},
        {"SUM FLOAT16", OPF_SUM, OPF_FLOAT16, 2, shape_f16, true},
        {"SUM BFLOAT16", OPF_SUM, OPF_BFLOAT16, 2, shape_bf16, true},
        {"SUM FLOAT8_E4M3", OPF_SUM, OPF_FLOAT8_E4M3, 1, shape_e4m3, true},
        {"SUM FLOAT8_E5M2", OPF_SUM, OPF_FLOAT8_E5M2, 1, shape_e5m2, true},
        {"MAX FLOAT8_E4M3", OPF_MAX, OPF_FLOAT8_E4M3, 1, shape_e4m3, false},
        {"AVG FLOAT8_E4M3", OPF_AVG, OPF_FLOAT8_E4M3, 1, shape_e4m3, false},   // one rule, rounded once
    };
    constexpr int kmax = 8;
    const size_t bytes = size_t(std::min(max_bytes, 64.0 * (1 << 20))) / 8 * 8;
    const int reps = quick ? 7 : 25;
    Table t(fmt("1c. n-ary calls, k inputs of %s: GB/s = (k + 1) x bytes / time (copy of one input: 2 x bytes / time), "
                "medians of %d repetitions",
                size_text(double(bytes)).c_str(), reps),
            {"case", "k", "mode", "n-ary GB/s", "ms", "copy GB/s", "ratio", "k-1 local3 GB/s", "n-ary / local3"},
            {15, 1, 10, 10, 7, 9, 5, 15, 14});
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_OK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (bytes == 0 || (kmax + 1) * double(bytes) + (256 << 20) > double(free_bytes)) {
        t.note(fmt("skipped: %zu MiB free", free_bytes >> 20));
        return;
    }
    std::vector<void *> src(kmax);
    void *dst = nullptr;
    for (void *&p : src) CUDA_OK(cudaMalloc(&p, bytes));
    CUDA_OK(cudaMalloc(&dst, bytes));
    std::uint64_t seed = 100;
    for (const NaryCase &c : cases) {
        if (!served(c.op, c.type)) {
            t.row({c.name, "-", "-", "not served"});
            continue;
        }
        for (void *p : src) fill_random(p, bytes, c.shape, seed++);
        CUDA_OK(cudaDeviceSynchronize());
        const opf_count_t n = opf_count_t(bytes / size_t(c.size));
        for (const int k : {2, 4, 8}) {
            for (const int mode : {int(OPF_ROUND_CHAIN), int(OPF_ROUND_ONCE)}) {
                if (mode == OPF_ROUND_ONCE && !c.narrow) continue;
                const void *const *srcs = src.data();
                int rc = OPF_SUCCESS;
                const std::vector<double> ms = time_events(
                    stream, reps,
                    {[&] {
                         const int r = mode == OPF_ROUND_CHAIN
                                           ? opf_cuda_reduce_local_n(srcs, k, dst, n, c.type, c.op, stream)
                                           : opf_cuda_reduce_local_n_mode(srcs, k, dst, n, c.type, c.op, mode, stream);
                         if (r) rc = r;
                     },
                     [&] {
                         for (int j = 1; j < k && c.op != OPF_AVG; ++j) {   // a chain of means is not the mean
                             const int r = opf_cuda_reduce_local3(j == 1 ? src[0] : dst, src[size_t(j)], dst, n, c.type,
                                                                  c.op, stream);
                             if (r) rc = r;
                         }
                     },
                     [&] { CUDA_OK(cudaMemcpyAsync(dst, src[0], bytes, cudaMemcpyDeviceToDevice, stream)); }});
                note_failure(rc);
                const double b = double(bytes), moved = (k + 1) * b;
                const char *mode_name = mode == OPF_ROUND_CHAIN ? "chain" : "round-once";
                const bool chained = mode == OPF_ROUND_CHAIN && c.op != OPF_AVG;   // k - 1 local3 calls give its result
                if (rc != OPF_SUCCESS) {
                    t.row({c.name, fmt("%d", k), mode_name, "FAILED", opf_last_error()});
                    continue;
                }
                t.row({c.name, fmt("%d", k), mode_name, gbs(moved, ms[0]), fmt("%.3f", ms[0]), gbs(2 * b, ms[2]),
                       ratio(moved / ms[0], 2 * b / ms[2]), chained ? gbs(moved, ms[1]) : "-",
                       chained ? ratio(ms[1], ms[0]) : "-"});
            }
        }
    }
    t.note("n-ary: one opf_cuda_reduce_local_n (chain) or opf_cuda_reduce_local_n_mode(..., OPF_ROUND_ONCE) call, "
           "dst distinct from the inputs; ratio: n-ary GB/s over copy GB/s; k-1 local3: the chain's result as k - 1 "
           "opf_cuda_reduce_local3 calls, GB/s counting the same (k + 1) x bytes (not for AVG: a chain of means is "
           "not the mean); round-once is a row of its own for SUM of the types computed in float (AVG has one rule). "
           "Inputs: random finite values as in 1a.");
    for (void *p : src) cudaFree(p);
    cudaFree(dst);
}

// ---- 2. per-call overhead at count 1 ------------------------------------------------------
void bench_per_call(cudaStream_t stream, bool quick)
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
    note_failure(rc);
    Table t(fmt("2. per call at count 1 (%d calls): host time to enqueue, and with the final synchronisation", calls),
            {"call", "us enqueue", "us per call in all"}, {34, 10, 18});
    t.row({"opf_cuda_reduce_local float SUM", fmt("%.2f", reduce.first), fmt("%.2f", reduce.second)});
    t.row({"same, op_cuda_stream_check=0", fmt("%.2f", unchecked.first), fmt("%.2f", unchecked.second)});
    t.row({"cudaMemcpyAsync 4 B (reference)", fmt("%.2f", copy.first), fmt("%.2f", copy.second)});
    t.row({"cudaMemsetAsync 4 B (reference)", fmt("%.2f", memset.first), fmt("%.2f", memset.second)});
    t.row({"opf_reduce_local (synchronous)", "-", fmt("%.2f", sync_us)});
    t.note("opf_reduce_local (synchronous): the median latency of one call on device memory.");
    if (rc != OPF_SUCCESS) t.note(fmt("(a call failed: %s)", opf_last_error()));
    cudaFree(d);
}

// ---- 3. mixed host / device calls: where staging starts to pay ------------------------------
void bench_mixed(bool quick)
{
    char staging_default[64] = "";
    opf_param_get("op_cuda_staging_min_count", staging_default, sizeof staging_default);
    Table t("3. mixed synchronous float SUM, in = host (pageable), inout = device: median us per call",
            {"count", "host path", "staged", "faster"}, {10, 14, 14, 6});
    const opf_count_t max_n = quick ? 1 << 16 : 1 << 22;
    std::vector<float> host(size_t(max_n), 1.0f);
    float *d = nullptr;
    CUDA_OK(cudaMalloc(reinterpret_cast<void **>(&d), size_t(max_n) * 4));
    CUDA_OK(cudaMemset(d, 0, size_t(max_n) * 4));
    opf_count_t crossover = -1;
    int rc = OPF_SUCCESS;
    for (opf_count_t n = 1; n <= max_n; n *= 4) {
        const int reps = n < 65536 ? 200 : 20;
        opf_param_set("op_cuda_staging_min_count", "1G");
        const double t_host = time_wall_us(reps, [&] {
            const int r = opf_reduce_local(host.data(), d, n, OPF_FLOAT, OPF_SUM);
            if (r) rc = r;
        });
        opf_param_set("op_cuda_staging_min_count", "0");
        const double t_dev = time_wall_us(reps, [&] {
            const int r = opf_reduce_local(host.data(), d, n, OPF_FLOAT, OPF_SUM);
            if (r) rc = r;
        });
        if (crossover < 0 && t_dev < t_host) crossover = n;
        t.row({fmt("%lld", (long long)n), fmt("%.1f", t_host), fmt("%.1f", t_dev), t_dev < t_host ? "staged" : "host"});
    }
    opf_param_set("op_cuda_staging_min_count", staging_default);
    note_failure(rc);
    t.note(fmt("staging first wins at count %lld; op_cuda_staging_min_count is %s", (long long)crossover,
               staging_default));
    if (rc != OPF_SUCCESS) t.note(fmt("(a call failed: %s)", opf_last_error()));
    cudaFree(d);
}

// ---- 4. the host-memory tax ------------------------------------------------------------------
// The child (--host-tax-child loaded|excluded): phase "before" with no CUDA
// runtime call made yet in this process, then cudaFree(0) and a cudaMalloc
// of the application's, then phase "after". It prints lines the parent parses:
//   status TEXT
//   tax PHASE KIND COUNT NS
//   after-error TEXT
const char *const buffer_kinds[] = {"static", "stack", "heap", "mmap"};
const int tax_counts[] = {16, 1024};
float g_static_in[1024], g_static_inout[1024];   // .bss

// Best of 5 runs of `calls` calls, ns per call.
double tax_ns(const float *in, float *inout, int count, int calls)
{
    double best = 1e30;
    int rc = OPF_SUCCESS;
    for (int r = 0; r < 5; ++r) {
        const double t0 = now_us();
        for (int i = 0; i < calls; ++i) {
            const int e = opf_reduce_local(in, inout, count, OPF_FLOAT, OPF_SUM);
            if (e) rc = e;
        }
        best = std::min(best, (now_us() - t0) * 1e3 / calls);
    }
    if (rc != OPF_SUCCESS) std::printf("call-error %s\n", opf_last_error());
    return best;
}

void tax_phase(const char *phase, int calls)
{
    float stack_in[1024], stack_inout[1024];   // the stack
    float *heap_in = static_cast<float *>(std::malloc(1024 * sizeof(float)));   // small: the brk heap
    float *heap_inout = static_cast<float *>(std::malloc(1024 * sizeof(float)));
    void *map = mmap(nullptr, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (!heap_in || !heap_inout || map == MAP_FAILED) {
        std::printf("after-error out of memory\n");
        std::exit(1);
    }
    float *map_in = static_cast<float *>(map), *map_inout = map_in + (1 << 17);
    const float *ins[] = {g_static_in, stack_in, heap_in, map_in};
    float *inouts[] = {g_static_inout, stack_inout, heap_inout, map_inout};
    for (int b = 0; b < 4; ++b) {
        for (int i = 0; i < 1024; ++i) {
            const_cast<float *>(ins[b])[i] = 1e-3f;
            inouts[b][i] = 0;
        }
        for (const int count : tax_counts)
            std::printf("tax %s %s %d %.2f\n", phase, buffer_kinds[b], count, tax_ns(ins[b], inouts[b], count, calls));
    }
    std::fflush(stdout);
    std::free(heap_in);
    std::free(heap_inout);
    munmap(map, 1 << 20);
}

int host_tax_child(const std::string &mode, int dev, bool quick)
{
    if (mode == "excluded") setenv("OPF_MCA_op", "^cuda", 1);
    else if (mode != "loaded") return 2;
    const char *status = nullptr;
    opf_cuda_available(&status);   // opf_init: loads the component, which leaves the driver alone
    std::printf("status %s\n", status);
    const int calls = quick ? 10000 : 100000;
    tax_phase("before", calls);   // no CUDA runtime call before this line
    cudaError_t e = cudaSetDevice(dev);
    if (e == cudaSuccess) e = cudaFree(nullptr);
    void *app = nullptr;
    if (e == cudaSuccess) e = cudaMalloc(&app, 1 << 20);
    if (e != cudaSuccess) {
        std::printf("after-error %s\n", cudaGetErrorName(e));
        opf_finalize();
        return 0;
    }
    tax_phase("after", calls);
    cudaFree(app);
    opf_finalize();
    return 0;
}

// Runs this program again as --host-tax-child MODE; returns its output.
std::string run_child(const char *mode, int dev, bool quick)
{
    char exe[4096];
    const ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) return "spawn-error readlink /proc/self/exe failed\n";
    exe[len] = 0;
    int fds[2];
    if (pipe(fds) != 0) return "spawn-error pipe failed\n";
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    const std::string dev_text = std::to_string(dev);
    std::vector<char *> argv = {exe, const_cast<char *>("--host-tax-child"), const_cast<char *>(mode),
                                const_cast<char *>("--device"), const_cast<char *>(dev_text.c_str())};
    if (quick) argv.push_back(const_cast<char *>("--quick"));
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int e = posix_spawn(&pid, exe, &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    std::string out;
    if (e != 0) {
        close(fds[0]);
        return std::string("spawn-error ") + std::strerror(e) + "\n";
    }
    char buf[4096];
    for (ssize_t k; (k = read(fds[0], buf, sizeof buf)) != 0;) {
        if (k < 0) break;
        out.append(buf, size_t(k));
    }
    close(fds[0]);
    int ws = 0;
    waitpid(pid, &ws, 0);
    if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) out += fmt("spawn-error the child exited with status %d\n", ws);
    return out;
}

struct ChildResult {
    std::string status = "?", after_error, error;
    std::map<std::string, double> ns;   // "phase kind count"
};

ChildResult parse_child(const std::string &out)
{
    ChildResult r;
    size_t pos = 0;
    while (pos < out.size()) {
        size_t end = out.find('\n', pos);
        if (end == std::string::npos) end = out.size();
        const std::string line = out.substr(pos, end - pos);
        pos = end + 1;
        char phase[16], kind[16];
        int count = 0;
        double ns = 0;
        if (line.rfind("status ", 0) == 0) r.status = line.substr(7);
        else if (line.rfind("after-error ", 0) == 0) r.after_error = line.substr(12);
        else if (line.rfind("spawn-error ", 0) == 0 || line.rfind("call-error ", 0) == 0)
            r.error += (r.error.empty() ? "" : "; ") + line;
        else if (std::sscanf(line.c_str(), "tax %15s %15s %d %lf", phase, kind, &count, &ns) == 4)
            r.ns[fmt("%s %s %d", phase, kind, count)] = ns;
    }
    return r;
}

void bench_host_tax(int dev, bool quick)
{
    const ChildResult loaded = parse_child(run_child("loaded", dev, quick));
    const ChildResult excluded = parse_child(run_child("excluded", dev, quick));
    Table t(fmt("4. host-memory tax: opf_reduce_local float SUM on host buffers, ns per call (best of 5 x %d calls)",
                quick ? 10000 : 100000),
            {"buffer", "count", "before: loaded", "excluded", "ratio", "after: loaded", "excluded", "ratio"},
            {6, 5, 14, 8, 5, 13, 8, 5});
    auto cell = [](const ChildResult &r, const std::string &key) {
        const auto it = r.ns.find(key);
        return it == r.ns.end() ? 0.0 : it->second;
    };
    auto ns_text = [](double v) { return v > 0 ? fmt("%.1f", v) : na; };
    for (const char *kind : buffer_kinds)
        for (const int count : tax_counts) {
            const double bl = cell(loaded, fmt("before %s %d", kind, count)),
                         be = cell(excluded, fmt("before %s %d", kind, count)),
                         al = cell(loaded, fmt("after %s %d", kind, count)),
                         ae = cell(excluded, fmt("after %s %d", kind, count));
            t.row({kind, fmt("%d", count), ns_text(bl), ns_text(be), ratio(bl, be), ns_text(al), ns_text(ae),
                   ratio(al, ae)});
        }
    t.note("each column pair measured in its own child process (this program re-executed): loaded = the cuda "
           "component as configured, excluded = OPF_MCA_op=^cuda; before = no CUDA runtime call yet in that process "
           "(opf_init made), after = after its cudaFree(0) and cudaMalloc; ratio = loaded / excluded. Buffers: static "
           "= .bss arrays, stack = local arrays, heap = malloc of 4 KiB (brk), mmap = an anonymous 1 MiB mapping.");
    t.note(fmt("component status: loaded child: %s; excluded child: %s", loaded.status.c_str(),
               excluded.status.c_str()));
    for (const ChildResult *r : {&loaded, &excluded}) {
        const char *who = r == &loaded ? "loaded" : "excluded";
        if (!r->after_error.empty()) t.note(fmt("%s child: no after phase: %s", who, r->after_error.c_str()));
        if (!r->error.empty()) {
            t.note(fmt("%s child: %s", who, r->error.c_str()));
            ++g_failures;
        }
    }
}

std::string nvidia_driver_text()
{
    FILE *f = std::fopen("/proc/driver/nvidia/version", "r");
    if (!f) return "";
    char line[512] = "";
    const bool ok = std::fgets(line, sizeof line, f) != nullptr;
    std::fclose(f);
    if (!ok) return "";
    // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 ..."
    const char *p = std::strstr(line, "Kernel Module");
    if (!p) p = line;
    else p += std::strlen("Kernel Module");
    while (*p == ' ' || *p == '\t') ++p;
    std::string v;
    while (*p && *p != ' ' && *p != '\n') v += *p++;
    return v;
}

} // namespace

int main(int argc, char **argv)
{
    int dev = 0;
    double max_bytes = 4.0 * (1 << 30);
    bool quick = false, host_tax_only = false;
    std::string out_path, child_mode;
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
        } else if (arg == "--host-tax") {
            host_tax_only = true;
        } else if (arg == "--out" && i + 1 < argc) {
            out_path = argv[++i];
        } else if (arg == "--host-tax-child" && i + 1 < argc) {
            child_mode = argv[++i];
        } else if (arg == "--help" || arg == "-h") {
            std::printf(usage_text, "cuda_bench");
            return 0;
        } else {
            std::fprintf(stderr, usage_text, "cuda_bench");
            return 2;
        }
    }
    // Before any CUDA runtime call: the child's first phase must run in a
    // process where the runtime has not started.
    if (!child_mode.empty()) return host_tax_child(child_mode, dev, quick);

    int ndev = 0, driver = 0, runtime = 0;
    const cudaError_t e = cudaGetDeviceCount(&ndev);
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    const bool have_device = e == cudaSuccess && ndev > dev;
    const std::string why = driver == 0 ? "no CUDA driver (libcuda.so.1 cannot be loaded)"
                            : e == cudaErrorInsufficientDriver ? "the CUDA driver is too old for this runtime"
                            : e != cudaSuccess ? cudaGetErrorString(e) : "no such CUDA device";
    if (!have_device && !host_tax_only) {
        std::printf("cuda_bench: skipped: %s\n", why.c_str());
        return 77;
    }
    if (!out_path.empty()) {
        g_md = std::fopen(out_path.c_str(), "w");
        if (!g_md) {
            std::fprintf(stderr, "cuda_bench: cannot write %s: %s\n", out_path.c_str(), std::strerror(errno));
            return 2;
        }
    }
    char date[64] = "";
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&now));
    if (g_md) {
        std::string cmd;
        for (int i = 0; i < argc; ++i) cmd += std::string(i ? " " : "") + argv[i];
        std::fprintf(g_md, "# cuda_bench, %s\n\n`%s`\n\n", date, cmd.c_str());
    }
    text(fmt("date: %s", date));
    const std::string nv = nvidia_driver_text();
    if (have_device) {
        CUDA_OK(cudaSetDevice(dev));
        cudaDeviceProp prop;
        CUDA_OK(cudaGetDeviceProperties(&prop, dev));
        int clock_khz = 0, bus_bits = 0;
        cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, dev);
        cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev);
        const double peak = 2.0 * clock_khz * 1e3 * bus_bits / 8 / 1e9;
        text(fmt("device %d: %s, sm_%d%d, %d SMs, %.0f GiB, memory peak %.0f GB/s (2 x clock x bus), driver %d.%d%s%s, "
                 "runtime %d.%d",
                 dev, prop.name, prop.major, prop.minor, prop.multiProcessorCount, prop.totalGlobalMem / 1073741824.0,
                 peak, driver / 1000, driver % 1000 / 10, nv.empty() ? "" : " (kernel module ", nv.empty() ? "" : (nv + ")").c_str(),
                 runtime / 1000, runtime % 1000 / 10));
    } else {
        text(fmt("device %d: none (%s)", dev, why.c_str()));
    }
    const char *status = nullptr;
    const bool available = opf_cuda_available(&status);
    char devices[1024] = "";
    opf_param_get("op_cuda_devices", devices, sizeof devices);
    text(fmt("cuda component: %s; %s", status, devices));
    text(cuda_bench_thrust_version());
    if (!host_tax_only) {
        if (!available) {
            text(fmt("cuda_bench: the cuda component is %s (is OPF_MCA_mca_component_path set?)", status));
            if (g_md) std::fclose(g_md);
            return 1;
        }
        cudaStream_t stream;
        CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        bench_types(stream, max_bytes, quick);
        bench_sweep(stream, max_bytes, quick);
        bench_nary(stream, max_bytes, quick);
        bench_per_call(stream, quick);
        bench_mixed(quick);
        char errors[32] = "";
        opf_param_get("op_cuda_errors", errors, sizeof errors);
        std::printf("\n");
        text(fmt("op_cuda_errors: %s", errors));
        cudaStreamDestroy(stream);
    }
    bench_host_tax(dev, quick);
    if (g_failures) text(fmt("cuda_bench: %d failed call(s); the first: %s", g_failures, g_first_failure.c_str()));
    if (g_md) std::fclose(g_md);
    opf_finalize();
    return g_failures ? 1 : 0;
}
