// bench_big.cpp — large buffers, side by side in one run: SUM FLOAT (or
// another op:type) 3-buffer and 2-buffer, per buffer size, against a plain
// vectorised loop over the same bytes (`o[i] = a[i] + b[i]`, -O3
// -march=native), with
//   plain    the selected component's plain kernel (its all-sizes offer)
//   stream   opf_reduce_local[3] as selected for the count (the streaming
//            tier above op_<isa>_stream_min_bytes), one thread
//   T        opf_reduce_local[3] with op_base_threads=T (re-initialised)
// Medians of --reps calls, rounds interleaved so that load hits all alike.
// A development tool, not built by make:
//
//   g++ -std=c++20 -O3 -march=native -I include test/bench_big.cpp -o /tmp/bench_big .libs/libopframe.so
//   OPF_MCA_mca_component_path=components/simd/.libs /tmp/bench_big [--sizes 1M,16M,128M,1G]
//       [--threads 2] [--reps 9] [--stream-min 0]
//
// Prints GB/s (bytes moved: 3 per element 3-buffer, 3 per element 2-buffer:
// in read, inout read and written) and each column's ratio to the loop.
#include <opframe/introspect.h>
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

double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

std::size_t parse_size(const std::string &s)
{
    char *end = nullptr;
    std::size_t n = std::strtoull(s.c_str(), &end, 10);
    switch (*end) {
    case 'K': return n << 10;
    case 'M': return n << 20;
    case 'G': return n << 30;
    default: return n;
    }
}

std::vector<std::size_t> parse_sizes(const std::string &list)
{
    std::vector<std::size_t> out;
    std::size_t at = 0;
    while (at <= list.size()) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        out.push_back(parse_size(list.substr(at, comma - at)));
        at = comma + 1;
    }
    return out;
}

[[gnu::noinline]] void loop3(const float *a, const float *b, float *o, std::size_t n)
{
    for (std::size_t i = 0; i < n; ++i) o[i] = a[i] + b[i];
}
[[gnu::noinline]] void loop2(const float *a, float *io, std::size_t n)
{
    for (std::size_t i = 0; i < n; ++i) io[i] = a[i] + io[i];
}

void reinit(int threads, const char *stream_min)
{
    opf_finalize();
    opf_param_set("op_base_threads", std::to_string(threads).c_str());
    if (stream_min) {
        opf_param_set("op_avx512_stream_min_bytes", stream_min);
        opf_param_set("op_avx2_stream_min_bytes", stream_min);
    }
    if (opf_init() != OPF_SUCCESS) {
        std::fprintf(stderr, "opf_init: %s\n", opf_last_error());
        std::exit(1);
    }
}

} // namespace

int main(int argc, char **argv)
{
    std::vector<std::size_t> sizes = parse_sizes("1M,4M,16M,32M,64M,128M,256M,1G");
    int threads = 2, reps = 9;
    const char *stream_min = nullptr;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--sizes" && i + 1 < argc) sizes = parse_sizes(argv[++i]);
        else if (a == "--threads" && i + 1 < argc) threads = std::atoi(argv[++i]);
        else if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
        else if (a == "--stream-min" && i + 1 < argc) stream_min = argv[++i];
        else {
            std::fprintf(stderr, "usage: %s [--sizes 1M,16M] [--threads T] [--reps N] [--stream-min BYTES]\n", argv[0]);
            return 2;
        }
    }
    reinit(1, stream_min);
    const int kt = OPF_KT_FLOAT;
    for (int nbuf : {3, 2}) {
        std::printf("%d-buffer SUM FLOAT, GB/s (ratio to the loop); plain = %s's all-sizes kernel\n", nbuf,
                    opf_slot_provider(OPF_OPID_SUM, kt, nbuf, 1));
        std::printf("%8s %9s %15s %15s %15s   stream by\n", "bytes", "loop", "plain", "stream", (std::to_string(threads) + " threads").c_str());
        for (std::size_t bytes : sizes) {
            const std::size_t n = bytes / sizeof(float);
            // 64-byte aligned, distinct buffers, touched before timing
            auto alloc = [&] {
                auto *p = static_cast<float *>(std::aligned_alloc(64, n * sizeof(float)));
                for (std::size_t i = 0; i < n; ++i) p[i] = float(i % 1000) * 0.5f;
                return p;
            };
            float *a = alloc(), *b = alloc(), *o = alloc();
            opf_kernel2_fn *plain2 = nullptr;
            opf_kernel3_fn *plain3 = nullptr;
            opf_slot_kernels(OPF_OPID_SUM, kt, opf_slot_provider(OPF_OPID_SUM, kt, nbuf, 1), 1, &plain2, &plain3);
            auto one_call = [&](int variant) {
                if (variant == 0) nbuf == 3 ? loop3(a, b, o, n) : loop2(a, o, n);
                else if (variant == 1) nbuf == 3 ? plain3(a, b, o, opf_count_t(n)) : plain2(a, o, opf_count_t(n));
                else nbuf == 3 ? (void)opf_reduce_local3(a, b, o, opf_count_t(n), OPF_FLOAT, OPF_SUM)
                               : (void)opf_reduce_local(a, o, opf_count_t(n), OPF_FLOAT, OPF_SUM);
            };
            // calls per sample: enough for ~20 ms
            const int inner = int(std::max<std::size_t>(1, (std::size_t(64) << 20) / bytes));
            std::vector<double> t[4];
            const char *stream_by = "";
            for (int r = 0; r < reps; ++r) {
                for (int v = 0; v < 4; ++v) {
                    if (v == 3) reinit(threads, stream_min);
                    one_call(v < 3 ? v : 2);   // warm
                    const double t0 = now();
                    for (int k = 0; k < inner; ++k) one_call(v < 3 ? v : 2);
                    t[v].push_back((now() - t0) / inner);
                    if (v == 2) stream_by = opf_slot_provider(OPF_OPID_SUM, kt, nbuf, opf_count_t(n));
                    if (v == 3) reinit(1, stream_min);
                }
            }
            const double moved = 3.0 * double(bytes), loop = median(t[0]);
            std::printf("%7zuK %9.1f", bytes >> 10, moved / loop * 1e-9);
            for (int v = 1; v < 4; ++v)
                std::printf(" %8.1f (%.2f)", moved / median(t[v]) * 1e-9, loop / median(t[v]));
            std::printf("   %s\n", stream_by);
            std::fflush(stdout);
            std::free(a);
            std::free(b);
            std::free(o);
        }
    }
    opf_finalize();
    return 0;
}
