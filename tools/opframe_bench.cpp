// opframe_bench — reduction speed, side by side in one run and one process:
//   opframe   the full call, opf_reduce_local (selected table, checks included)
//   <name>    each provider's kernel called directly: base and every component
//   ompi      Open MPI's MPI_Reduce_local (when built with Open MPI)
//   memref    a plain float a[i] += b[i] loop compiled for this host, over the same bytes
//
//   opframe_bench [--op SUM,MAX] [--type FLOAT,INT32_T] [--sizes 1K,64K,1M | --min 1K --max 256M]
//                 [--providers base,avx2] [--samples N] [--csv] [--plot FILE.png] [--quick] [--suite NAME]
//
// Every figure is the median of --samples timed samples. GB/s counts 3 * bytes per 2-buffer call
// (read in, read inout, write inout). "vs ompi" is ompi's time / this time (> 1: faster than Open MPI);
// "of ref" is memref's time / this time (1.0: as fast as the memory reference).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

#include <opframe/introspect.h>
#include <opframe/opframe.h>

#include "config.h"

#ifdef OPF_HAVE_OMPI
#define OMPI_SKIP_MPICXX 1   // the C API is all the comparison needs
#include <mpi.h>
#endif

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
    std::vector<std::string> ops = {"SUM"}, types = {"FLOAT"}, providers;   // providers empty: all
    std::vector<long> sizes;
    long min_size = 1024, max_size = 256L << 20;
    int samples = 9;
    bool csv = false;
    std::string plot;
};

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

std::vector<std::string> split(const std::string &list)
{
    std::vector<std::string> out;
    std::string item;
    for (char c : list + ",")
        if (c == ',') { if (!item.empty()) out.push_back(item); item.clear(); }
        else item += c;
    return out;
}

// Median nanoseconds of one call of `fn`; each sample runs long enough
// (~1 ms, at least one call) to dwarf the clock's resolution.
double median_ns(const std::function<void()> &fn, int samples)
{
    fn();   // warm caches and lazy initialisation
    long iters = 1;
    for (;;) {
        const auto t0 = Clock::now();
        for (long i = 0; i < iters; ++i) fn();
        const double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
        if (ns > 1e6 || iters > (1L << 30)) break;
        iters *= 2;
    }
    std::vector<double> per_call;
    for (int s = 0; s < samples; ++s) {
        const auto t0 = Clock::now();
        for (long i = 0; i < iters; ++i) fn();
        per_call.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / double(iters));
    }
    std::nth_element(per_call.begin(), per_call.begin() + samples / 2, per_call.end());
    return per_call[samples / 2];
}

// The memory reference: what the compiler makes of the simplest loop with
// every ISA this CPU has (target_clones: one copy per ISA, chosen by an ifunc
// at load time; never inlined). ThreadSanitizer runs ifunc resolvers before
// its runtime is up and crashes, so a TSan build keeps the default copy only;
// non-x86 targets have no such clones.
#if defined(__SANITIZE_THREAD__)
#define OPF_TSAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define OPF_TSAN_BUILD 1
#endif
#endif
#if defined(__x86_64__) && !defined(OPF_TSAN_BUILD)
#define OPF_REFERENCE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define OPF_REFERENCE_CLONES __attribute__((noinline))
#endif
OPF_REFERENCE_CLONES void reference_add(const float *in, float *inout, long n)
{
    for (long i = 0; i < n; ++i) inout[i] += in[i];
}

std::string cpu_model()
{
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown CPU";
}

// Fills a buffer with the value 1 of a kernel type (index 1 for pairs): a
// reduction repeated in place on it stays finite and normal.
void fill_ones(std::vector<unsigned char> &buf, int kt)
{
    const int ext = opf_kernel_type_extent(kt);
    std::vector<unsigned char> one(ext, 0);
    auto put = [&](auto v, int at = 0) { std::memcpy(one.data() + at, &v, sizeof v); };
    switch (kt) {
    case OPF_KT_FLOAT16: put(uint16_t(0x3c00)); break;
    case OPF_KT_BFLOAT16: put(uint16_t(0x3f80)); break;
    case OPF_KT_FLOAT: case OPF_KT_C_FLOAT_COMPLEX: put(1.0f); break;
    case OPF_KT_DOUBLE: case OPF_KT_C_DOUBLE_COMPLEX: put(1.0); break;
    case OPF_KT_LONG_DOUBLE: case OPF_KT_C_LONG_DOUBLE_COMPLEX: put(1.0L); break;
    case OPF_KT_FLOAT_INT: put(1.0f); put(1, 4); break;
    case OPF_KT_DOUBLE_INT: put(1.0); put(1, 8); break;
    case OPF_KT_LONG_INT: put(1L); put(1, 8); break;
    case OPF_KT_2INT: put(1); put(1, 4); break;
    case OPF_KT_SHORT_INT: put(short(1)); put(1, 4); break;
    case OPF_KT_LONG_DOUBLE_INT: put(1.0L); put(1, 16); break;
    case OPF_KT_2FLOAT: put(1.0f); put(1.0f, 4); break;
    case OPF_KT_2DOUBLE: put(1.0); put(1.0, 8); break;
#ifdef __SIZEOF_FLOAT128__
    case OPF_KT_FLOAT128: put(__float128(1)); break;
#endif
    default: one[0] = 1; break;   // integers (little endian)
    }
    for (std::size_t i = 0; i + ext <= buf.size(); i += ext) std::memcpy(&buf[i], one.data(), ext);
}

opf_op_t op_by_name(const std::string &name)
{
    for (int id = 1; id < OPF_OPID_COUNT; ++id)
        if (!strcasecmp(name.c_str(), opf_op_name(reinterpret_cast<opf_op_t>(uintptr_t(id)))))
            return reinterpret_cast<opf_op_t>(uintptr_t(id));
    return OPF_OP_NULL;
}
opf_datatype_t type_by_name(const std::string &name)
{
    for (int id = 1; id < OPF_TYPEID_COUNT_; ++id)
        if (!strcasecmp(name.c_str(), opf_type_name(reinterpret_cast<opf_datatype_t>(uintptr_t(id)))))
            return reinterpret_cast<opf_datatype_t>(uintptr_t(id));
    return OPF_DATATYPE_NULL;
}

#ifdef OPF_HAVE_OMPI
MPI_Datatype mpi_type_of(const std::string &name)
{
    static const std::map<std::string, MPI_Datatype> map = {
        {"FLOAT", MPI_FLOAT}, {"DOUBLE", MPI_DOUBLE}, {"LONG_DOUBLE", MPI_LONG_DOUBLE}, {"INT", MPI_INT},
        {"UNSIGNED", MPI_UNSIGNED}, {"SHORT", MPI_SHORT}, {"UNSIGNED_SHORT", MPI_UNSIGNED_SHORT},
        {"LONG", MPI_LONG}, {"UNSIGNED_LONG", MPI_UNSIGNED_LONG}, {"LONG_LONG", MPI_LONG_LONG},
        {"SIGNED_CHAR", MPI_SIGNED_CHAR}, {"UNSIGNED_CHAR", MPI_UNSIGNED_CHAR}, {"BYTE", MPI_BYTE},
        {"INT8_T", MPI_INT8_T}, {"INT16_T", MPI_INT16_T}, {"INT32_T", MPI_INT32_T}, {"INT64_T", MPI_INT64_T},
        {"UINT8_T", MPI_UINT8_T}, {"UINT16_T", MPI_UINT16_T}, {"UINT32_T", MPI_UINT32_T}, {"UINT64_T", MPI_UINT64_T},
        {"C_BOOL", MPI_C_BOOL}, {"C_FLOAT_COMPLEX", MPI_C_FLOAT_COMPLEX}, {"C_DOUBLE_COMPLEX", MPI_C_DOUBLE_COMPLEX},
        {"FLOAT_INT", MPI_FLOAT_INT}, {"DOUBLE_INT", MPI_DOUBLE_INT}, {"LONG_INT", MPI_LONG_INT}, {"2INT", MPI_2INT},
        {"SHORT_INT", MPI_SHORT_INT}, {"INTEGER", MPI_INTEGER}, {"REAL", MPI_REAL},
        {"DOUBLE_PRECISION", MPI_DOUBLE_PRECISION}, {"LOGICAL", MPI_LOGICAL}, {"COMPLEX", MPI_COMPLEX},
        {"DOUBLE_COMPLEX", MPI_DOUBLE_COMPLEX}, {"2REAL", MPI_2REAL}, {"2DOUBLE_PRECISION", MPI_2DOUBLE_PRECISION},
        {"2INTEGER", MPI_2INTEGER}};
    auto it = map.find(name);
    return it == map.end() ? MPI_DATATYPE_NULL : it->second;
}
MPI_Op mpi_op_of(const std::string &name)
{
    static const std::map<std::string, MPI_Op> map = {
        {"MAX", MPI_MAX}, {"MIN", MPI_MIN}, {"SUM", MPI_SUM}, {"PROD", MPI_PROD}, {"LAND", MPI_LAND},
        {"BAND", MPI_BAND}, {"LOR", MPI_LOR}, {"BOR", MPI_BOR}, {"LXOR", MPI_LXOR}, {"BXOR", MPI_BXOR},
        {"MAXLOC", MPI_MAXLOC}, {"MINLOC", MPI_MINLOC}, {"REPLACE", MPI_REPLACE}};
    auto it = map.find(name);
    return it == map.end() ? MPI_OP_NULL : it->second;
}
#endif

struct Row {
    std::string op, type, provider;
    long bytes;
    opf_count_t count;
    double ns;
};

void progress(std::size_t done, std::size_t total)
{
    if (!isatty(2)) return;
    const int width = 40, filled = int(width * done / std::max<std::size_t>(total, 1));
    std::fprintf(stderr, "\r[%.*s%*s] %zu/%zu", filled, "########################################", width - filled, "",
                 done, total);
    if (done == total) std::fprintf(stderr, "\r%*s\r", width + 24, "");
}

int usage()
{
    std::fprintf(stderr,
                 "usage: opframe_bench [--op LIST] [--type LIST] [--sizes LIST | --min SIZE --max SIZE]\n"
                 "                     [--providers LIST] [--samples N] [--csv] [--plot FILE.png] [--quick]\n"
                 "                     [--suite openmpi|extra]\n");
    return 2;
}

} // namespace

int main(int argc, char **argv)
{
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) { std::fprintf(stderr, "opframe_bench: %s needs a value\n", a.c_str()); std::exit(2); }
            return argv[++i];
        };
        if (a == "--op") o.ops = split(next());
        else if (a == "--type") o.types = split(next());
        else if (a == "--providers") o.providers = split(next());
        else if (a == "--samples") o.samples = std::max(1, std::atoi(next().c_str()));
        else if (a == "--csv") o.csv = true;
        else if (a == "--plot") o.plot = next();
        else if (a == "--min") o.min_size = parse_size(next());
        else if (a == "--max") o.max_size = parse_size(next());
        else if (a == "--sizes") { o.sizes.clear(); for (auto &s : split(next())) o.sizes.push_back(parse_size(s)); }
        else if (a == "--quick") { o.samples = 3; o.sizes = {4, 1024, 65536}; }
        else if (a == "--suite") {
            const std::string suite = next();
            if (suite == "openmpi") {   // the slots Open MPI's op/avx vectorises
                o.ops = {"SUM", "PROD", "MAX", "MIN", "BAND", "BOR", "BXOR"};
                o.types = {"INT8_T", "UINT8_T", "INT16_T", "UINT16_T", "INT32_T", "UINT32_T", "INT64_T", "UINT64_T",
                           "FLOAT", "DOUBLE"};
            } else if (suite == "extra") {   // slots Open MPI leaves scalar (ops filtered per type below)
                o.ops = {"SUM", "PROD", "MAX", "MAXLOC", "MINLOC", "LAND"};
                o.types = {"DOUBLE_INT", "FLOAT_INT", "2INT", "C_FLOAT_COMPLEX", "C_DOUBLE_COMPLEX", "FLOAT16",
                           "BFLOAT16", "LONG", "INTEGER", "REAL8", "LOGICAL", "C_BOOL"};
            } else return usage();
        } else return usage();
    }
    if (o.sizes.empty())
        for (long s = o.min_size; s <= o.max_size; s *= 4) o.sizes.push_back(s);

#ifdef OPF_HAVE_OMPI
    MPI_Init(&argc, &argv);
#endif
    opf_init();

    // Providers: the full call, then each provider's kernels called directly.
    std::vector<std::string> providers = {"opframe", "base"};
    for (int i = 0; i < opf_component_count(); ++i) {
        opf_component_info_t c;
        if (opf_component_describe(i, &c) == OPF_SUCCESS && c.available) providers.push_back(c.name);
    }
    if (!o.providers.empty()) {
        std::vector<std::string> chosen;
        for (auto &p : providers)
            if (std::find(o.providers.begin(), o.providers.end(), p) != o.providers.end()) chosen.push_back(p);
        providers = chosen;
    }

    opf_hw_info_t hw;
    char isa[512] = "";
    if (opf_hw_describe(&hw) == OPF_SUCCESS) {
        if (hw.arm_features) opf_hw_format_arm_features(hw.arm_features, isa, sizeof isa);
        else opf_hw_format_features(hw.x86_features, isa, sizeof isa);
    }
    std::printf("# opframe_bench %s: 2-buffer (inout = in op inout), median of %d samples\n", PACKAGE_VERSION, o.samples);
    std::printf("# machine: %s; ISA: %s; L3 %lld KiB\n", cpu_model().c_str(), isa, (long long)(hw.l3_bytes / 1024));
    std::printf("# compared with: %s; memref: float a[i] += b[i] over the same bytes\n",
#ifdef OPF_HAVE_OMPI
                "Open MPI MPI_Reduce_local, same process"
#else
                "(no Open MPI in this build)"
#endif
    );

    std::vector<Row> rows;
    std::size_t total = o.ops.size() * o.types.size() * o.sizes.size(), done = 0;
    for (const std::string &op_name : o.ops)
        for (const std::string &type_name : o.types) {
            const opf_op_t op = op_by_name(op_name);
            const opf_datatype_t type = type_by_name(type_name);
            int valid = 0, kt = -1;
            opf_aint_t lb = 0, extent = 0;
            if (op == OPF_OP_NULL || type == OPF_DATATYPE_NULL) {
                std::fprintf(stderr, "opframe_bench: unknown op '%s' or type '%s'\n", op_name.c_str(), type_name.c_str());
                return 2;
            }
            opf_op_valid_for_type(op, type, &valid);
            opf_type_kernel_type(type, &kt);
            opf_type_get_extent(type, &lb, &extent);
            if (!valid || kt < 0) { done += o.sizes.size(); continue; }   // e.g. LAND on a complex type in a suite
            const int op_id = int(reinterpret_cast<uintptr_t>(op));
            for (long bytes : o.sizes) {
                progress(done++, total);
                const opf_count_t count = std::max<opf_count_t>(1, bytes / extent);
                const long n_bytes = long(count * extent);
                std::vector<unsigned char> in(n_bytes), inout(n_bytes);
                fill_ones(in, kt);
                fill_ones(inout, kt);
                auto add = [&](const std::string &provider, const std::function<void()> &fn) {
                    rows.push_back({op_name, type_name, provider, n_bytes, count, median_ns(fn, o.samples)});
                };
                for (const std::string &p : providers) {
                    if (p == "opframe") {
                        add(p, [&] { opf_reduce_local(in.data(), inout.data(), count, type, op); });
                        continue;
                    }
                    opf_kernel2_fn *fn2 = nullptr;
                    opf_kernel3_fn *fn3 = nullptr;
                    if (opf_slot_kernels(op_id, kt, p.c_str(), count, &fn2, &fn3) != OPF_SUCCESS || !fn2) continue;
                    add(p, [&] { fn2(in.data(), inout.data(), count); });
                }
#ifdef OPF_HAVE_OMPI
                const MPI_Datatype mt = mpi_type_of(type_name);
                const MPI_Op mo = mpi_op_of(op_name);
                if (mt != MPI_DATATYPE_NULL && mo != MPI_OP_NULL && count <= 0x7fffffff)
                    add("ompi", [&] { MPI_Reduce_local(in.data(), inout.data(), int(count), mt, mo); });
#endif
                std::vector<float> ra(std::max<long>(1, n_bytes / 4), 1.0f), rb(ra.size(), 1.0f);
                add("memref", [&] { reference_add(ra.data(), rb.data(), long(ra.size())); });
            }
        }
    progress(total, total);

    // Ratios within each (op, type, size) group.
    auto group_time = [&](const Row &r, const char *provider) {
        for (const Row &x : rows)
            if (x.op == r.op && x.type == r.type && x.bytes == r.bytes && x.provider == provider) return x.ns;
        return 0.0;
    };
    if (o.csv) std::printf("op,type,bytes,count,provider,ns_per_call,GBps,vs_ompi,of_ref\n");
    else std::printf("%-6s %-16s %10s %-9s %12s %9s %8s %7s\n", "op", "type", "bytes", "provider", "ns/call", "GB/s",
                     "vs ompi", "of ref");
    for (const Row &r : rows) {
        const double gbps = 3.0 * double(r.bytes) / r.ns, ompi = group_time(r, "ompi"), ref = group_time(r, "memref");
        char vs[16] = "-";
        if (ompi > 0) std::snprintf(vs, sizeof vs, "%.2fx", ompi / r.ns);
        if (o.csv)
            std::printf("%s,%s,%ld,%lld,%s,%.2f,%.3f,%.3f,%.3f\n", r.op.c_str(), r.type.c_str(), r.bytes,
                        (long long)r.count, r.provider.c_str(), r.ns, gbps, ompi > 0 ? ompi / r.ns : 0.0, ref / r.ns);
        else
            std::printf("%-6s %-16s %10ld %-9s %12.1f %9.2f %8s %7.2f\n", r.op.c_str(), r.type.c_str(), r.bytes,
                        r.provider.c_str(), r.ns, gbps, vs, ref / r.ns);
    }

    if (!o.plot.empty()) {   // bandwidth vs size, one line per provider, for the first (op, type)
        const std::string data = o.plot + ".dat", script = o.plot + ".gp";
        std::ofstream d(data);
        std::vector<std::string> names;
        for (const Row &r : rows)
            if (r.op == rows.front().op && r.type == rows.front().type &&
                std::find(names.begin(), names.end(), r.provider) == names.end())
                names.push_back(r.provider);
        for (const std::string &p : names) {
            d << "\"" << p << "\"\n";
            for (const Row &r : rows)
                if (r.op == rows.front().op && r.type == rows.front().type && r.provider == p)
                    d << r.bytes << " " << 3.0 * double(r.bytes) / r.ns << "\n";
            d << "\n\n";
        }
        std::ofstream g(script);
        g << "set terminal png size 1000,600\nset output '" << o.plot << "'\n"
          << "set title '" << rows.front().op << " " << rows.front().type << " on " << cpu_model() << "'\n"
          << "set logscale x 2\nset format x '%.0b %BB'\nset xlabel 'buffer size (bytes)'\nset ylabel 'GB/s (3 x bytes / time)'\nset key outside\n"
          << "plot for [i=0:" << names.size() - 1 << "] '" << data << "' index i using 1:2 with linespoints title columnheader(1)\n";
        g.close();
        d.close();
        const std::string cmd = "gnuplot '" + script + "'";
        if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "opframe_bench: gnuplot failed; data in %s\n", data.c_str());
    }
#ifdef OPF_HAVE_OMPI
    MPI_Finalize();
#endif
    opf_finalize();
    return 0;
}
