// bench_simd.cpp — side-by-side timing of the SIMD components against the
// base, slot by slot: ns per call and GB/s (3 * bytes / time: two buffers
// read, one written) of the 3-buffer kernel, out distinct, for 1 KiB, 64 KiB,
// 1 MiB and 64 MiB per buffer; the median of several batches. A development
// tool, not built by make:
//
//   g++ -std=c++20 -O3 -march=native -I include components/simd/bench_simd.cpp -o /tmp/bench_simd .libs/libopframe.so
//   OPF_MCA_mca_component_path=$PWD/components/simd/.libs taskset -c 1 /tmp/bench_simd [--all] [--fresh]
//       [--misalign N] [--sizes 1K,64K] [OP:TYPE]...
//
// Without OP:TYPE arguments it runs one representative slot per family;
// --all runs every slot that some SIMD provider offers. --fresh (or --sets N,
// default 16) cycles through several input sets of 256 KiB in all, so that
// branchy kernels cannot learn the data. --misalign N offsets
// every buffer by N bytes from a 64-byte boundary (malloc gives 16). The
// buffers sit 1 KiB apart modulo 4 KiB (no 4K aliasing between them).
//
// --minmax [--sizes 1K,4K,64K]: MAX / MIN FLOAT and DOUBLE, avx2 and avx512,
// 2- and 3-buffer, on five kinds of data against a same-run memcpy
// (minmax_bench below says which).
//
// --pairs [--buffers 2|3] [--sizes 16K,256K] [--samples N]: MAXLOC / MINLOC
// on every pair type a SIMD component offers, against a same-run roofline and
// (built with mpicxx -DBENCH_OMPI) Open MPI's MPI_Reduce_local, on four kinds
// of data (pairs_bench below says which); prints, per pair type and op, the
// worst ratio over data kinds and sizes:
//
//   mpicxx -DBENCH_OMPI -std=c++20 -O3 -march=native -I include components/simd/bench_simd.cpp
//       -o /tmp/bench_simd .libs/libopframe.so   (one command)
//   OPF_MCA_mca_component_path=$PWD/components/simd/.libs taskset -c 1 /tmp/bench_simd --pairs
#include <opframe/introspect.h>
#include <opframe/opframe.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <x86intrin.h>   // __rdtsc: --pairs times single calls

#ifdef BENCH_OMPI
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace {

const char *const providers[] = {"base", "avx2", "avx512"};
constexpr int n_providers = 3;

struct Slot {
    int op, kt;
};

int op_by_name(const std::string &s)
{
    for (int op = 1; op < OPF_OPID_COUNT; ++op) {
        std::string name = opf_op_name(OPF_OP_HANDLE_(op));
        if (name.rfind("OPF_", 0) == 0) name = name.substr(4);
        if (strcasecmp(name.c_str(), s.c_str()) == 0) return op;
    }
    return -1;
}
int kt_by_name(const std::string &s)
{
    for (int kt = 0; kt < OPF_KT_COUNT; ++kt)
        if (strcasecmp(opf_kernel_type_name(kt), s.c_str()) == 0) return kt;
    return -1;
}

// Realistic operands: moderate finite floats, any integers, indices 0..n.
void fill(unsigned char *p, std::size_t bytes, int kt, std::mt19937_64 &rng)
{
    std::uniform_real_distribution<double> real(-1000.0, 1000.0);
    auto put = [&](std::size_t at, const void *v, std::size_t size) {
        if (at + size <= bytes) std::memcpy(p + at, v, size);
    };
    const std::size_t ext = std::size_t(opf_kernel_type_extent(kt));
    for (std::size_t at = 0; at < bytes; at += ext) {
        const uint64_t bits = rng();
        const double r = real(rng);
        const int index = int(rng() % 1000000);
        switch (kt) {
        case OPF_KT_FLOAT: case OPF_KT_C_FLOAT_COMPLEX: case OPF_KT_2FLOAT: {
            const float f[2] = {float(r), kt == OPF_KT_2FLOAT ? float(index) : float(real(rng))};
            put(at, f, kt == OPF_KT_FLOAT ? 4 : 8);
            break;
        }
        case OPF_KT_DOUBLE: case OPF_KT_C_DOUBLE_COMPLEX: case OPF_KT_2DOUBLE: {
            const double d[2] = {r, kt == OPF_KT_2DOUBLE ? double(index) : real(rng)};
            put(at, d, kt == OPF_KT_DOUBLE ? 8 : 16);
            break;
        }
        case OPF_KT_FLOAT16: {   // |r| < 1000 as binary16 bits: any sign, exponent 0..24
            const uint16_t h = uint16_t((bits & 0x83ff) | ((bits >> 16) % 25) << 10);
            put(at, &h, 2);
            break;
        }
        case OPF_KT_BFLOAT16: {
            const float f = float(r);
            uint32_t u;
            std::memcpy(&u, &f, 4);
            const uint16_t h = uint16_t(u >> 16);
            put(at, &h, 2);
            break;
        }
        case OPF_KT_FLOAT_INT: { const float f = float(r); put(at, &f, 4); put(at + 4, &index, 4); break; }
        case OPF_KT_DOUBLE_INT: { put(at, &r, 8); put(at + 8, &index, 4); break; }
        case OPF_KT_LONG_INT: { const long v = long(bits % 1000); put(at, &v, 8); put(at + 8, &index, 4); break; }
        case OPF_KT_2INT: { const int v = int(bits % 1000); put(at, &v, 4); put(at + 4, &index, 4); break; }
        case OPF_KT_SHORT_INT: { const short v = short(bits % 1000); put(at, &v, 2); put(at + 4, &index, 4); break; }
        default:
            for (std::size_t k = 0; k < ext; k += 8) {
                const uint64_t w = rng();
                put(at + k, &w, std::min<std::size_t>(8, ext - k));
            }
        }
    }
}

double now_ns()
{
    return double(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

// Calls per batch so that one batch of fn takes about 2 ms.
long batch_calls(opf_kernel3_fn *fn, const unsigned char *a, const unsigned char *b, unsigned char *o, opf_count_t n)
{
    fn(a, b, o, n);   // warm up
    const double t0 = now_ns();
    fn(a, b, o, n);
    return std::max<long>(1, long(2e6 / std::max(now_ns() - t0, 1.0)));
}

// Median ns per call of each provider's kernel; the providers take turns
// batch by batch, so that a noisy neighbour slows them alike. Call c reads
// input set c % sets.
void time_kernels(opf_kernel3_fn *const *fns, double *ns, int count, unsigned char *const *a,
                  unsigned char *const *b, int sets, unsigned char *o, opf_count_t n, std::size_t bytes)
{
    long calls[8];
    std::vector<double> per[8];
    for (int p = 0; p < count; ++p)
        if (fns[p]) calls[p] = batch_calls(fns[p], a[0], b[0], o, n);
    const int reps = bytes >= (16u << 20) ? 7 : 15;
    for (int r = 0; r < reps; ++r)
        for (int p = 0; p < count; ++p) {
            if (!fns[p]) continue;
            const double t0 = now_ns();
            for (long c = 0; c < calls[p]; ++c) fns[p](a[c % sets], b[c % sets], o, n);
            per[p].push_back((now_ns() - t0) / double(calls[p]));
        }
    for (int p = 0; p < count; ++p) {
        ns[p] = 0;
        if (!fns[p]) continue;
        std::sort(per[p].begin(), per[p].end());
        ns[p] = per[p][per[p].size() / 2];
    }
}

std::size_t parse_size(const std::string &s)
{
    char *end;
    std::size_t v = std::strtoull(s.c_str(), &end, 10);
    if (*end == 'K' || *end == 'k') v <<= 10;
    if (*end == 'M' || *end == 'm') v <<= 20;
    return v;
}

// ---- --pairs: MAXLOC / MINLOC against a roofline and Open MPI -----------------
// Each timed call gets fresh operands: a 2-buffer call reduces into a copy of
// its pristine inout, made just before the call (untimed; every provider,
// the roofline included, pays the same cache state), since reducing in place
// over and over makes inout the winner everywhere and a branchy kernel
// (the base, Open MPI) then predicts every branch. Calls are timed one by
// one with the TSC, the providers taking turns sample by sample, medians.
// Data kinds, for the value members (indices random in 0..999999):
//   random  uniform (floating point in +-1000, integers any bit pattern)
//   ties    values from {0, 1} (floating point {-0, +0, 1}): the index decides often
//   nans    floating point: a quarter NaN (either sign, any payload), a quarter
//           +-0; integers: the extremes, 0 and random values
//   runs    runs of 64 elements that one buffer wins (a branch predictor's best case)
constexpr int n_kinds = 4;
const char *const kind_names[n_kinds] = {"random", "ties", "nans", "runs"};

template <class V, class I> struct PairOf { V value; I index; };

template <class V, class I>
void fill_pairs(unsigned char *p, std::size_t n, int kind, bool first, std::mt19937_64 &rng)
{
    using P = PairOf<V, I>;
    for (std::size_t i = 0; i < n; ++i) {
        const uint64_t bits = rng();
        V v;
        if constexpr (std::is_floating_point_v<V>) {
            const double r = std::uniform_real_distribution<double>(-1000.0, 1000.0)(rng);
            switch (kind) {
            case 0: v = V(r); break;
            case 1: { const V pick[3] = {V(-0.0), V(0.0), V(1.0)}; v = pick[bits % 3]; break; }
            case 2:
                if (bits % 4 == 0) {
                    using U = std::conditional_t<sizeof(V) == 4, uint32_t, uint64_t>;
                    const U nan = sizeof(V) == 4 ? U(0x7fc00000u) | U(bits >> 44) : U(0x7ff8000000000000ull) | (bits >> 20);
                    const U sign = U(bits >> 2 & 1) << (8 * sizeof(V) - 1);
                    const U u = nan | sign;
                    std::memcpy(&v, &u, sizeof v);
                } else {
                    v = bits % 4 == 1 ? (bits >> 2 & 1 ? V(-0.0) : V(0.0)) : V(r);
                }
                break;
            default: v = V(2 * (i % 1000) + ((i / 64 % 2 == 0) == first)); break;
            }
        } else {
            switch (kind) {
            case 0: std::memcpy(&v, &bits, sizeof v); break;
            case 1: v = V(bits % 2); break;
            case 2: {
                const V pick[4] = {std::numeric_limits<V>::min(), std::numeric_limits<V>::max(), V(0), V(bits >> 8)};
                v = pick[bits % 4];
                break;
            }
            default: v = V(2 * (i % 1000) + ((i / 64 % 2 == 0) == first)); break;
            }
        }
        const I index = I(rng() % 1000000);
        // data bytes only, as an MPI buffer holds them (padding left as it was)
        std::memcpy(p + i * sizeof(P) + offsetof(P, value), &v, sizeof v);
        std::memcpy(p + i * sizeof(P) + offsetof(P, index), &index, sizeof index);
    }
}

void fill_pair_kind(int kt, unsigned char *p, std::size_t n, int kind, bool first, std::mt19937_64 &rng)
{
    switch (kt) {
    case OPF_KT_FLOAT_INT: fill_pairs<float, int>(p, n, kind, first, rng); break;
    case OPF_KT_DOUBLE_INT: fill_pairs<double, int>(p, n, kind, first, rng); break;
    case OPF_KT_LONG_INT: fill_pairs<long, int>(p, n, kind, first, rng); break;
    case OPF_KT_2INT: fill_pairs<int, int>(p, n, kind, first, rng); break;
    case OPF_KT_SHORT_INT: fill_pairs<short, int>(p, n, kind, first, rng); break;
    case OPF_KT_2FLOAT: fill_pairs<float, float>(p, n, kind, first, rng); break;
    case OPF_KT_2DOUBLE: fill_pairs<double, double>(p, n, kind, first, rng); break;
    default: break;
    }
}

#ifdef BENCH_OMPI
MPI_Datatype mpi_pair_type(int kt)
{
    switch (kt) {
    case OPF_KT_FLOAT_INT: return MPI_FLOAT_INT;
    case OPF_KT_DOUBLE_INT: return MPI_DOUBLE_INT;
    case OPF_KT_LONG_INT: return MPI_LONG_INT;
    case OPF_KT_2INT: return MPI_2INT;
    case OPF_KT_SHORT_INT: return MPI_SHORT_INT;
    case OPF_KT_2FLOAT: return MPI_2REAL;
    case OPF_KT_2DOUBLE: return MPI_2DOUBLE_PRECISION;
    default: return MPI_DATATYPE_NULL;
    }
}
#endif

// The roofline: the compiler's vectorised loop over the same bytes (this
// file is built -O3 -march=native), with the same traffic as the kernel.
[[gnu::noinline]] void roof2(const float *in, float *inout, std::size_t n)
{
    for (std::size_t i = 0; i < n; ++i) inout[i] += in[i];
}
[[gnu::noinline]] void roof3(const float *a, const float *b, float *o, std::size_t n)
{
    for (std::size_t i = 0; i < n; ++i) o[i] = a[i] + b[i];
}

[[gnu::always_inline]] inline uint64_t ticks()
{
    _mm_lfence();
    const uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}

double ns_per_tick()
{
    const double t0 = now_ns();
    const uint64_t c0 = ticks();
    while (now_ns() - t0 < 2e7) {}
    return (now_ns() - t0) / double(ticks() - c0);
}

double median(std::vector<double> v)
{
    if (v.empty()) return 0;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

int pairs_bench(const std::vector<std::size_t> &sizes, int buffers, int samples)
{
    const int kts[] = {OPF_KT_FLOAT_INT, OPF_KT_DOUBLE_INT, OPF_KT_LONG_INT, OPF_KT_2INT,
                       OPF_KT_SHORT_INT, OPF_KT_2FLOAT, OPF_KT_2DOUBLE};
    const int ops[] = {OPF_OPID_MAXLOC, OPF_OPID_MINLOC};
    // columns: roof, base, avx2, avx512, ompi
    constexpr int n_cols = 5;
    const char *const cols[n_cols] = {"roof", "base", "avx2", "avx512", "ompi"};
    const double tick_ns = ns_per_tick();
    double overhead = 0;
    {
        std::vector<double> v;
        for (int k = 0; k < 1001; ++k) {
            const uint64_t t0 = ticks();
            v.push_back(double(ticks() - t0));
        }
        overhead = median(v);
    }
    opf_hw_info_t hw;
    opf_hw_describe(&hw);
    std::printf("# %s; MAXLOC/MINLOC, %d-buffer, GB/s = 3 * bytes / time, median of %d single calls on fresh data\n",
                hw.cpu_model, buffers, samples);
    std::printf("# roof: %s over the same bytes (-O3 -march=native); ompi: %s\n",
                buffers == 2 ? "float inout[i] += in[i]" : "float o[i] = a[i] + b[i]",
#ifdef BENCH_OMPI
                buffers == 2 ? "Open MPI MPI_Reduce_local" : "(2-buffer only)"
#else
                "not built (mpicxx -DBENCH_OMPI)"
#endif
    );
    std::printf("%-10s %-6s %-6s %5s %8s %8s %8s %8s %8s  %9s %9s %9s %9s\n", "type", "op", "data", "bytes", cols[0],
                cols[1], cols[2], cols[3], cols[4], "avx2/roof", "a512/roof", "avx2/ompi", "a512/ompi");
    struct Worst { double roof[2] = {1e9, 1e9}, ompi[2] = {1e9, 1e9}; };
    std::vector<std::pair<std::string, Worst>> worst;
    std::mt19937_64 rng(42);
    for (int kt : kts)
        for (int op : ops) {
            Worst w;
            for (std::size_t bytes : sizes) {
                const std::size_t ext = std::size_t(opf_kernel_type_extent(kt));
                const std::size_t n = bytes / ext;
                const int sets = int(std::clamp<std::size_t>((64u << 10) / bytes, 1, 4));
                // one arena; buffers 64-byte aligned, each at its own offset modulo
                // 4 KiB (320 bytes apart): no load 4K-aliases a store of another
                const std::size_t stride = (bytes + 4095) / 4096 * 4096 + 4096;
                const std::size_t nbuf = 3 * sets + 3;
                auto *arena = static_cast<unsigned char *>(std::aligned_alloc(4096, nbuf * stride));
                std::memset(arena, 0, nbuf * stride);
                auto buf = [&](std::size_t k) { return arena + k * stride + k * 320 % 4096; };
                // the roofline reads its own sets of floats in the same rotation as the kernels
                unsigned char *work = buf(2 * sets), *rwork = buf(2 * sets + 1), *rout = buf(2 * sets + 2);
                auto rin = [&](int k) { return buf(2 * sets + 3 + k); };
                std::vector<unsigned char> rpristine(bytes);
                for (std::size_t i = 0; i + 4 <= bytes; i += 4) {
                    const float one = 1.0f;
                    for (int k = 0; k < sets; ++k) std::memcpy(rin(k) + i, &one, 4);
                    std::memcpy(rwork + i, &one, 4);
                    std::memcpy(rpristine.data() + i, &one, 4);
                }
                opf_kernel2_fn *f2[3] = {};
                opf_kernel3_fn *f3[3] = {};
                const char *const prov[3] = {"base", "avx2", "avx512"};
                for (int p = 0; p < 3; ++p)
                    if (opf_slot_kernels(op, kt, prov[p], opf_count_t(n), &f2[p], &f3[p]) != OPF_SUCCESS) f2[p] = nullptr, f3[p] = nullptr;
                for (int kind = 0; kind < n_kinds; ++kind) {
                    for (int k = 0; k < sets; ++k) {
                        fill_pair_kind(kt, buf(2 * k), n, kind, true, rng);
                        fill_pair_kind(kt, buf(2 * k + 1), n, kind, false, rng);
                    }
                    std::vector<double> t[n_cols];
                    for (int r = 0; r < samples; ++r) {
                        const int k = r % sets;
                        const unsigned char *a = buf(2 * k), *b = buf(2 * k + 1);
                        for (int c = 0; c < n_cols; ++c) {
                            uint64_t t0 = 0, t1 = 0;
                            if (c == 0) {
                                if (buffers == 2) {
                                    std::memcpy(rwork, rpristine.data(), bytes);
                                    t0 = ticks();
                                    roof2(reinterpret_cast<const float *>(rin(k)), reinterpret_cast<float *>(rwork), bytes / 4);
                                    t1 = ticks();
                                } else {
                                    t0 = ticks();
                                    roof3(reinterpret_cast<const float *>(rin(k)), reinterpret_cast<const float *>(rwork),
                                          reinterpret_cast<float *>(rout), bytes / 4);
                                    t1 = ticks();
                                }
                            } else if (c <= 3) {
                                const int p = c - 1;
                                if (buffers == 2 ? !f2[p] : !f3[p]) continue;
                                if (buffers == 2) {
                                    std::memcpy(work, b, n * ext);
                                    t0 = ticks();
                                    f2[p](a, work, opf_count_t(n));
                                    t1 = ticks();
                                } else {
                                    t0 = ticks();
                                    f3[p](a, b, work, opf_count_t(n));
                                    t1 = ticks();
                                }
                            } else {
#ifdef BENCH_OMPI
                                if (buffers != 2) continue;
                                const MPI_Datatype mt = mpi_pair_type(kt);
                                std::memcpy(work, b, n * ext);
                                t0 = ticks();
                                MPI_Reduce_local(a, work, int(n), mt, op == OPF_OPID_MAXLOC ? MPI_MAXLOC : MPI_MINLOC);
                                t1 = ticks();
#else
                                continue;
#endif
                            }
                            t[c].push_back((double(t1 - t0) - overhead) * tick_ns);
                        }
                    }
                    double ns[n_cols];
                    for (int c = 0; c < n_cols; ++c) ns[c] = median(t[c]);
                    std::printf("%-10s %-6s %-6s %4zuK", opf_kernel_type_name(kt), op == OPF_OPID_MAXLOC ? "MAXLOC" : "MINLOC",
                                kind_names[kind], bytes >> 10);
                    for (int c = 0; c < n_cols; ++c)
                        if (ns[c] > 0) std::printf(" %8.1f", 3.0 * double(bytes) / ns[c]);
                        else std::printf(" %8s", "-");
                    for (int isa = 0; isa < 2; ++isa) {
                        const double x = ns[2 + isa] > 0 ? ns[0] / ns[2 + isa] : 0;
                        std::printf("  %9.2f", x);
                        if (x > 0) w.roof[isa] = std::min(w.roof[isa], x);
                    }
                    for (int isa = 0; isa < 2; ++isa) {
                        const double x = ns[2 + isa] > 0 && ns[4] > 0 ? ns[4] / ns[2 + isa] : 0;
                        if (x > 0) std::printf("  %8.2fx", x), w.ompi[isa] = std::min(w.ompi[isa], x);
                        else std::printf("  %9s", "-");
                    }
                    std::printf("\n");
                    std::fflush(stdout);
                }
                std::free(arena);
            }
            worst.push_back({std::string(opf_kernel_type_name(kt)) + " " + (op == OPF_OPID_MAXLOC ? "MAXLOC" : "MINLOC"), w});
        }
    std::printf("\n# worst over data kinds and sizes (target: >= 0.80 of roof, >= 2x ompi)\n");
    std::printf("%-18s %9s %9s %9s %9s\n", "slot", "avx2/roof", "a512/roof", "avx2/ompi", "a512/ompi");
    for (const auto &[name, w] : worst) {
        std::printf("%-18s", name.c_str());
        for (double x : w.roof) std::printf(" %9.2f", x < 1e9 ? x : 0.0);
        for (double x : w.ompi) if (x < 1e9) std::printf(" %8.2fx", x); else std::printf(" %9s", "-");
        std::printf("\n");
    }
    return 0;
}

} // namespace

// ---- --minmax: MAX / MIN FLOAT and DOUBLE on five kinds of data ------------
// The avx2 kernels once sent every block holding a zero to their exact form,
// so these slots' time depended on the data. Kinds (in = in1, inout = in2):
//   random  uniform in +-1000
//   int     integers -3..3 (zeros of one sign, on either side or both, common)
//   zeros   all +0 on both sides
//   sparse  random, one element in 1,000 NaN, one in 1,000 a zero of either sign
//   pm0     adversarial: in +0 and inout -0 (MAX), in -0 and inout +0 (MIN),
//           the order x86's vmaxps / vminps answer wrongly
// Per size (bytes per buffer), a same-run memcpy of that size is the
// reference. 2-buffer calls reduce into the same inout over and over (it holds
// the previous result, a fixed point: the specials of `in` stay, those of
// inout become the result's); up to 16 input sets are cycled (256 KiB in
// all), so that the branches on sparse specials cannot be learnt. Medians
// of 15 batches of about 2 ms, providers taking turns batch by batch.
constexpr int n_mm_kinds = 5;
const char *const mm_kind_names[n_mm_kinds] = {"random", "int", "zeros", "sparse", "pm0"};

template <class T> void fill_minmax(T *p, std::size_t n, int kind, bool in, bool is_max, std::mt19937_64 &rng)
{
    std::uniform_real_distribution<double> real(-1000.0, 1000.0);
    for (std::size_t i = 0; i < n; ++i) {
        switch (kind) {
        case 0: p[i] = T(real(rng)); break;
        case 1: p[i] = T(int(rng() % 7) - 3); break;
        case 2: p[i] = T(0); break;
        case 3: {
            const uint64_t r = rng() % 1000;
            p[i] = r == 0 ? std::numeric_limits<T>::quiet_NaN() : r == 1 ? (rng() & 1 ? T(0) : -T(0)) : T(real(rng));
            break;
        }
        default: p[i] = (in == is_max) ? T(0) : -T(0);
        }
    }
}

int minmax_bench(const std::vector<std::size_t> &sizes)
{
    const char *const mm_providers[] = {"avx2", "avx512"};
    opf_hw_info_t hw;
    opf_hw_describe(&hw);
    std::printf("# %s; ns per call, median; memcpy: same size, same run\n", hw.cpu_model);
    std::printf("%-8s %-4s %-6s %4s %5s %8s", "provider", "op", "type", "bufs", "bytes", "memcpy");
    for (const char *k : mm_kind_names) std::printf(" %8s", k);
    std::printf("   int/random zeros/random pm0/random\n");
    std::mt19937_64 rng(7);
    for (std::size_t bytes : sizes) {
        const int sets = int(std::clamp<std::size_t>((256u << 10) / bytes, 1, 16));
        const std::size_t stride = (bytes + 4095) / 4096 * 4096 + 4096;
        auto *arena = static_cast<unsigned char *>(std::aligned_alloc(4096, (2 * sets + 1) * stride + 4096));
        std::vector<unsigned char *> a(sets), b(sets);
        for (int k = 0; k < sets; ++k) a[k] = arena + 2 * k * stride, b[k] = arena + (2 * k + 1) * stride + 1024;
        unsigned char *o = arena + 2 * sets * stride + 2048;
        // memcpy of `bytes`, same layout
        std::vector<double> mc;
        for (int k = 0; k < sets; ++k) std::memset(a[k], 1, bytes);
        long calls = 1;
        {
            const double t0 = now_ns();
            std::memcpy(o, a[0], bytes);
            calls = std::max<long>(1, long(2e6 / std::max(now_ns() - t0, 20.0)));
        }
        for (int r = 0; r < 15; ++r) {
            const double t0 = now_ns();
            for (long c = 0; c < calls; ++c) {
                std::memcpy(o, a[c % sets], bytes);
                asm volatile("" ::: "memory");
            }
            mc.push_back((now_ns() - t0) / double(calls));
        }
        std::sort(mc.begin(), mc.end());
        const double memcpy_ns = mc[mc.size() / 2];
        for (const char *prov : mm_providers)
            for (int op : {OPF_OPID_MAX, OPF_OPID_MIN})
                for (int kt : {OPF_KT_FLOAT, OPF_KT_DOUBLE})
                    for (int bufs : {2, 3}) {
                        const std::size_t ext = std::size_t(opf_kernel_type_extent(kt));
                        const opf_count_t n = opf_count_t(bytes / ext);
                        opf_kernel2_fn *f2 = nullptr;
                        opf_kernel3_fn *f3 = nullptr;
                        if (opf_slot_kernels(op, kt, prov, n, &f2, &f3) != OPF_SUCCESS || !f2 || !f3) continue;
                        const bool is_max = op == OPF_OPID_MAX;
                        double t[n_mm_kinds];
                        for (int kind = 0; kind < n_mm_kinds; ++kind) {
                            for (int k = 0; k < sets; ++k) {
                                if (kt == OPF_KT_FLOAT) {
                                    fill_minmax(reinterpret_cast<float *>(a[k]), n, kind, true, is_max, rng);
                                    fill_minmax(reinterpret_cast<float *>(b[k]), n, kind, false, is_max, rng);
                                } else {
                                    fill_minmax(reinterpret_cast<double *>(a[k]), n, kind, true, is_max, rng);
                                    fill_minmax(reinterpret_cast<double *>(b[k]), n, kind, false, is_max, rng);
                                }
                            }
                            const auto call = [&](long c) {
                                if (bufs == 3) f3(a[c % sets], b[c % sets], o, n);
                                else f2(a[c % sets], b[c % sets], n);
                            };
                            call(0);
                            const double t0 = now_ns();
                            call(1);
                            const long nc = std::max<long>(1, long(2e6 / std::max(now_ns() - t0, 20.0)));
                            std::vector<double> per;
                            for (int r = 0; r < 15; ++r) {
                                const double t1 = now_ns();
                                for (long c = 0; c < nc; ++c) call(c);
                                per.push_back((now_ns() - t1) / double(nc));
                            }
                            std::sort(per.begin(), per.end());
                            t[kind] = per[per.size() / 2];
                        }
                        std::printf("%-8s %-4s %-6s %4d %5zuK %8.1f", prov, is_max ? "MAX" : "MIN",
                                    kt == OPF_KT_FLOAT ? "FLOAT" : "DOUBLE", bufs, bytes >> 10, memcpy_ns);
                        for (double v : t) std::printf(" %8.1f", v);
                        std::printf("   %10.2f %11.2f %10.2f\n", t[1] / t[0], t[2] / t[0], t[4] / t[0]);
                        std::fflush(stdout);
                    }
        std::free(arena);
    }
    return 0;
}

int main(int argc, char **argv)
{
    std::vector<Slot> slots;
    std::vector<std::size_t> sizes = {1u << 10, 64u << 10, 1u << 20, 64u << 20};
    std::size_t misalign = 0;
    bool all = false, fresh = false, pairs = false, minmax = false, sizes_given = false;
    int max_sets = 16, buffers = 2, samples = 301;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--all") all = true;
        else if (arg == "--fresh") fresh = true;
        else if (arg == "--pairs") pairs = true;
        else if (arg == "--minmax") minmax = true;
        else if (arg == "--buffers" && i + 1 < argc) buffers = std::atoi(argv[++i]) == 3 ? 3 : 2;
        else if (arg == "--samples" && i + 1 < argc) samples = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--sets" && i + 1 < argc) max_sets = std::atoi(argv[++i]), fresh = true;
        else if (arg == "--misalign" && i + 1 < argc) misalign = std::strtoul(argv[++i], nullptr, 0);
        else if (arg == "--sizes" && i + 1 < argc) {
            sizes.clear();
            sizes_given = true;
            std::string list = argv[++i];
            for (std::size_t p = 0; p != std::string::npos;) {
                const std::size_t q = list.find(',', p);
                sizes.push_back(parse_size(list.substr(p, q == std::string::npos ? q : q - p)));
                p = q == std::string::npos ? q : q + 1;
            }
        } else {
            const std::size_t colon = arg.find(':');
            const int op = colon == std::string::npos ? -1 : op_by_name(arg.substr(0, colon));
            const int kt = colon == std::string::npos ? -1 : kt_by_name(arg.substr(colon + 1));
            if (op < 0 || kt < 0) {
                std::fprintf(stderr, "bad slot \"%s\" (OP:TYPE, e.g. sum:float)\n", arg.c_str());
                return 2;
            }
            slots.push_back({op, kt});
        }
    }
    if (opf_init() != OPF_SUCCESS) return 2;
    if (minmax) {
        const int rc = minmax_bench(sizes_given ? sizes : std::vector<std::size_t>{1u << 10, 4u << 10, 64u << 10});
        opf_finalize();
        return rc;
    }
    if (pairs) {
#ifdef BENCH_OMPI
        MPI_Init(&argc, &argv);
#endif
        const int rc = pairs_bench(sizes_given ? sizes : std::vector<std::size_t>{16u << 10, 256u << 10}, buffers, samples);
#ifdef BENCH_OMPI
        MPI_Finalize();
#endif
        opf_finalize();
        return rc;
    }
    if (slots.empty() && !all) {
        const char *reps[] = {"sum:int8", "prod:int8", "max:int16", "sum:int32", "land:int32", "max:uint64",
                              "prod:int64", "bxor:int64", "sum:float", "max:float", "min:double", "prod:double",
                              "sum:float16", "max:float16", "prod:bfloat16", "sum:c_float_complex",
                              "prod:c_float_complex", "prod:c_double_complex", "maxloc:float_int",
                              "minloc:double_int", "maxloc:2int", "maxloc:short_int", "maxloc:long_int",
                              "minloc:2double"};
        for (const char *r : reps) {
            const std::string s = r;
            slots.push_back({op_by_name(s.substr(0, s.find(':'))), kt_by_name(s.substr(s.find(':') + 1))});
        }
    }
    if (all)
        for (int op = 1; op < OPF_OPID_COUNT; ++op)
            for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
                opf_kernel2_fn *f2;
                opf_kernel3_fn *f3;
                bool any = false;
                for (int p = 1; p < n_providers; ++p)
                    any |= opf_slot_kernels(op, kt, providers[p], 0, &f2, &f3) == OPF_SUCCESS && f3;
                if (any) slots.push_back({op, kt});
            }

    opf_hw_info_t hw;
    opf_hw_describe(&hw);
    std::printf("# %s, misalign %zu%s; ns per 3-buffer call (GB/s = 3*bytes/time), median\n", hw.cpu_model, misalign,
                fresh ? ", fresh data" : "");
    std::printf("%-24s %6s", "slot", "bytes");
    for (const char *p : providers) std::printf(" %20s", p);
    std::printf("   avx2/base avx512/base\n");
    std::mt19937_64 rng(42);
    for (const Slot &s : slots) {
        const std::size_t ext = std::size_t(opf_kernel_type_extent(s.kt));
        for (std::size_t bytes : sizes) {
            const opf_count_t n = opf_count_t(bytes / ext);
            // One arena; the buffers start 1 KiB apart modulo 4 KiB, so that
            // loads of one never 4K-alias the stores of another. --fresh: up
            // to 16 input sets (at most 256 KiB of them), one per call in turn,
            // so that branchy kernels cannot learn the data.
            const int sets = fresh ? int(std::clamp<std::size_t>((256u << 10) / bytes, 1, max_sets)) : 1;
            const std::size_t stride = (n * ext + 4095) / 4096 * 4096 + 4096;
            auto *arena = static_cast<unsigned char *>(std::aligned_alloc(4096, (2 * sets + 1) * stride + 4096));
            std::vector<unsigned char *> a(sets), b(sets);
            for (int k = 0; k < sets; ++k) {
                a[k] = arena + 2 * k * stride + misalign;
                b[k] = arena + (2 * k + 1) * stride + 1024 + misalign;
                fill(a[k], n * ext, s.kt, rng);
                fill(b[k], n * ext, s.kt, rng);
            }
            unsigned char *o = arena + 2 * sets * stride + 2048 + misalign;
            std::memset(o, 0, n * ext);
            char label[64];
            std::snprintf(label, sizeof label, "%s:%s", opf_op_name(OPF_OP_HANDLE_(s.op)), opf_kernel_type_name(s.kt));
            const std::string size_label = bytes >= (1u << 20) ? std::to_string(bytes >> 20) + "M"
                                           : bytes >= 1024     ? std::to_string(bytes >> 10) + "K"
                                                               : std::to_string(bytes) + "B";
            std::printf("%-24s %6s", label, size_label.c_str());
            opf_kernel3_fn *fns[n_providers] = {};
            for (int p = 0; p < n_providers; ++p) {
                opf_kernel2_fn *f2 = nullptr;
                if (opf_slot_kernels(s.op, s.kt, providers[p], 0, &f2, &fns[p]) != OPF_SUCCESS) fns[p] = nullptr;
            }
            double t[n_providers];
            time_kernels(fns, t, n_providers, a.data(), b.data(), sets, o, n, n * ext);
            for (int p = 0; p < n_providers; ++p)
                if (fns[p]) std::printf(" %10.0f %6.1fG/s", t[p], 3.0 * double(n * ext) / t[p]);
                else std::printf(" %20s", "-");
            for (int p = 1; p < n_providers; ++p)
                if (t[p] > 0) std::printf(" %10.2fx", t[0] / t[p]);
                else std::printf(" %11s", "-");
            std::printf("\n");
            std::fflush(stdout);
            std::free(arena);
        }
    }
    opf_finalize();
    return 0;
}
