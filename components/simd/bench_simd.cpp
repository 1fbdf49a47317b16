// bench_simd.cpp — side-by-side timing of the SIMD components against the
// base, slot by slot: ns per call and GB/s (3 * bytes / time: two buffers
// read, one written) of the 3-buffer kernel, out distinct, for 1 KiB, 64 KiB,
// 1 MiB and 64 MiB per buffer; the median of several batches. A development
// tool, not built by make:
//
//   g++ -std=c++20 -O2 -I include components/simd/bench_simd.cpp -o /tmp/bench_simd .libs/libopframe.so
//   OPF_MCA_mca_component_path=/tmp/simd taskset -c 1 /tmp/bench_simd [--all] [--fresh] [--misalign N]
//       [--sizes 1K,64K] [OP:TYPE]...
//
// Without OP:TYPE arguments it runs one representative slot per family;
// --all runs every slot that some SIMD provider offers. --fresh (or --sets N,
// default 16) cycles through several input sets of 256 KiB in all, so that
// branchy kernels cannot learn the data. --misalign N offsets
// every buffer by N bytes from a 64-byte boundary (malloc gives 16). The
// buffers sit 1 KiB apart modulo 4 KiB (no 4K aliasing between them).
#include <opframe/introspect.h>
#include <opframe/opframe.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

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

} // namespace

int main(int argc, char **argv)
{
    std::vector<Slot> slots;
    std::vector<std::size_t> sizes = {1u << 10, 64u << 10, 1u << 20, 64u << 20};
    std::size_t misalign = 0;
    bool all = false, fresh = false;
    int max_sets = 16;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--all") all = true;
        else if (arg == "--fresh") fresh = true;
        else if (arg == "--sets" && i + 1 < argc) max_sets = std::atoi(argv[++i]), fresh = true;
        else if (arg == "--misalign" && i + 1 < argc) misalign = std::strtoul(argv[++i], nullptr, 0);
        else if (arg == "--sizes" && i + 1 < argc) {
            sizes.clear();
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
