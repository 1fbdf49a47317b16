// opframe_bench — reduction speed, side by side in one run: opframe's
// selected table, Open MPI's MPI_Reduce_local (when built with it), and a
// memory reference (a plain a[i] += b[i] loop compiled for this host).
//
//   opframe_bench [--op SUM] [--type FLOAT] [--sizes 4,1K,64K,1M] [--samples 15] [--csv] [--quick]
//
// GB/s counts 3 * bytes per 2-buffer call (read in, read inout, write inout).
// Every figure is the median of --samples timed samples.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <opframe/opframe.h>

#include "config.h"

#ifdef OPF_HAVE_OMPI
#define OMPI_SKIP_MPICXX 1  // the C API is all the comparison needs
#include <mpi.h>
#endif

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
    std::string op = "SUM", type = "FLOAT";
    std::vector<long> sizes = {4, 1024, 64 * 1024, 1 << 20, 16 << 20};
    int samples = 15;
    bool csv = false;
};

long parse_size(const std::string &s)
{
    char *end = nullptr;
    long v = std::strtol(s.c_str(), &end, 10);
    if (*end == 'K' || *end == 'k') v <<= 10;
    else if (*end == 'M' || *end == 'm') v <<= 20;
    else if (*end == 'G' || *end == 'g') v <<= 30;
    return v;
}

// Median nanoseconds of one call of `fn`, over `samples` samples each long
// enough (~2 ms) to dwarf the clock's resolution.
double median_ns(const std::function<void()> &fn, int samples)
{
    fn();   // warm caches and lazy initialisation
    long iters = 1;
    for (;;) {
        const auto t0 = Clock::now();
        for (long i = 0; i < iters; ++i) fn();
        const double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
        if (ns > 2e6 || iters > (1L << 30)) break;
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

// The memory reference: what a compiler makes of the simplest float loop on
// this CPU, with every ISA it can use.
__attribute__((target_clones("avx512f", "avx2", "default"), noinline)) void reference_add(const float *in, float *inout,
                                                                                         long n)
{
    for (long i = 0; i < n; ++i) inout[i] += in[i];
}

struct Named {
    const char *name;
    opf_datatype_t opf;
};
struct NamedOp {
    const char *name;
    opf_op_t opf;
};

std::string cpu_model()
{
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown CPU";
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
        if (a == "--op") o.op = next();
        else if (a == "--type") o.type = next();
        else if (a == "--samples") o.samples = std::max(1, std::atoi(next().c_str()));
        else if (a == "--csv") o.csv = true;
        else if (a == "--quick") { o.samples = 3; o.sizes = {4, 64 * 1024}; }
        else if (a == "--sizes") {
            o.sizes.clear();
            std::string list = next(), item;
            for (size_t p = 0; p <= list.size(); ++p)
                if (p == list.size() || list[p] == ',') { o.sizes.push_back(parse_size(item)); item.clear(); }
                else item += list[p];
        } else {
            std::fprintf(stderr, "usage: opframe_bench [--op OP] [--type TYPE] [--sizes LIST] [--samples N] [--csv] [--quick]\n");
            return 2;
        }
    }

    // Resolve op and type by name through opframe's own names.
    opf_op_t op = OPF_OP_NULL;
    for (int id = 1; id < OPF_OPID_COUNT; ++id)
        if (o.op == opf_op_name(reinterpret_cast<opf_op_t>(uintptr_t(id)))) op = reinterpret_cast<opf_op_t>(uintptr_t(id));
    opf_datatype_t type = OPF_DATATYPE_NULL;
    for (int id = 1; id < OPF_TYPEID_COUNT_; ++id)
        if (o.type == opf_type_name(reinterpret_cast<opf_datatype_t>(uintptr_t(id))))
            type = reinterpret_cast<opf_datatype_t>(uintptr_t(id));
    opf_count_t elem = 0;
    if (op == OPF_OP_NULL || opf_type_size(type, &elem) != OPF_SUCCESS) {
        std::fprintf(stderr, "opframe_bench: unknown op '%s' or type '%s'\n", o.op.c_str(), o.type.c_str());
        return 2;
    }
    opf_aint_t lb, extent;
    opf_type_get_extent(type, &lb, &extent);

#ifdef OPF_HAVE_OMPI
    MPI_Init(&argc, &argv);
    // The MPI handles of the few types and ops the comparison knows.
    struct { const char *name; MPI_Datatype t; } mpi_types[] = {
        {"FLOAT", MPI_FLOAT}, {"DOUBLE", MPI_DOUBLE}, {"INT", MPI_INT}, {"INT8_T", MPI_INT8_T},
        {"INT16_T", MPI_INT16_T}, {"INT32_T", MPI_INT32_T}, {"INT64_T", MPI_INT64_T}, {"UINT8_T", MPI_UINT8_T},
        {"UINT16_T", MPI_UINT16_T}, {"UINT32_T", MPI_UINT32_T}, {"UINT64_T", MPI_UINT64_T}, {"LONG", MPI_LONG},
        {"DOUBLE_INT", MPI_DOUBLE_INT}, {"FLOAT_INT", MPI_FLOAT_INT}, {"2INT", MPI_2INT},
        {"C_FLOAT_COMPLEX", MPI_C_FLOAT_COMPLEX}, {"C_DOUBLE_COMPLEX", MPI_C_DOUBLE_COMPLEX}};
    struct { const char *name; MPI_Op op; } mpi_ops[] = {
        {"MAX", MPI_MAX}, {"MIN", MPI_MIN}, {"SUM", MPI_SUM}, {"PROD", MPI_PROD}, {"LAND", MPI_LAND},
        {"BAND", MPI_BAND}, {"LOR", MPI_LOR}, {"BOR", MPI_BOR}, {"LXOR", MPI_LXOR}, {"BXOR", MPI_BXOR},
        {"MAXLOC", MPI_MAXLOC}, {"MINLOC", MPI_MINLOC}, {"REPLACE", MPI_REPLACE}};
    MPI_Datatype mpi_type = MPI_DATATYPE_NULL;
    MPI_Op mpi_op = MPI_OP_NULL;
    for (auto &t : mpi_types) if (o.type == t.name) mpi_type = t.t;
    for (auto &m : mpi_ops) if (o.op == m.name) mpi_op = m.op;
    const bool with_mpi = mpi_type != MPI_DATATYPE_NULL && mpi_op != MPI_OP_NULL;
#else
    const bool with_mpi = false;
#endif

    std::printf("# opframe_bench: %s %s, 2-buffer (inout = in op inout), median of %d samples\n", o.op.c_str(),
                o.type.c_str(), o.samples);
    std::printf("# machine: %s\n", cpu_model().c_str());
    std::printf("# compared with: %s; memory reference: float a[i] += b[i] over the same bytes\n",
                with_mpi ? "Open MPI MPI_Reduce_local (same process)" : "(no Open MPI in this build)");
    if (o.csv) std::printf("bytes,count,provider,ns_per_call,GBps,ratio_vs_ompi,fraction_of_reference\n");
    else std::printf("%10s %10s  %-10s %12s %9s %10s %10s\n", "bytes", "count", "provider", "ns/call", "GB/s",
                     "vs ompi", "of ref");

    for (long bytes : o.sizes) {
        const opf_count_t count = std::max<opf_count_t>(1, bytes / extent);
        const long n_bytes = long(count * extent);
        // Inputs: small positive values so repeated in-place reductions stay finite.
        std::vector<unsigned char> in(n_bytes + 64), inout(n_bytes + 64);
        for (long i = 0; i < n_bytes; ++i) { in[i] = (unsigned char)(i * 7 % 61); inout[i] = (unsigned char)(i % 13); }
        if (o.type == "FLOAT" || o.type == "DOUBLE") {   // finite, non-denormal values
            for (long i = 0; i + extent <= n_bytes; i += extent) {
                if (o.type == "FLOAT") { float v = 1.0f + float(i % 7); std::memcpy(&in[i], &v, 4); std::memcpy(&inout[i], &v, 4); }
                else { double v = 1.0 + double(i % 7); std::memcpy(&in[i], &v, 8); std::memcpy(&inout[i], &v, 8); }
            }
        }
        struct Row { const char *provider; double ns; };
        std::vector<Row> rows;
        rows.push_back({"opframe", median_ns([&] { opf_reduce_local(in.data(), inout.data(), count, type, op); }, o.samples)});
#ifdef OPF_HAVE_OMPI
        if (with_mpi)
            rows.push_back({"ompi", median_ns([&] { MPI_Reduce_local(in.data(), inout.data(), int(count), mpi_type, mpi_op); },
                                              o.samples)});
#endif
        std::vector<float> ra(std::max<long>(1, n_bytes / 4), 1.0f), rb(std::max<long>(1, n_bytes / 4), 1.0f);
        rows.push_back({"memref", median_ns([&] { reference_add(ra.data(), rb.data(), long(ra.size())); }, o.samples)});

        double ompi_ns = 0, ref_ns = 0;
        for (auto &r : rows) {
            if (!std::strcmp(r.provider, "ompi")) ompi_ns = r.ns;
            if (!std::strcmp(r.provider, "memref")) ref_ns = r.ns;
        }
        for (auto &r : rows) {
            const double gbps = 3.0 * double(n_bytes) / r.ns;
            const double vs_ompi = ompi_ns > 0 ? ompi_ns / r.ns : 0;
            const double of_ref = ref_ns / r.ns;
            if (o.csv)
                std::printf("%ld,%lld,%s,%.2f,%.3f,%.3f,%.3f\n", n_bytes, (long long)count, r.provider, r.ns, gbps, vs_ompi, of_ref);
            else
                std::printf("%10ld %10lld  %-10s %12.1f %9.2f %10s %10.2f\n", n_bytes, (long long)count, r.provider, r.ns,
                            gbps, vs_ompi > 0 ? (std::to_string(vs_ompi).substr(0, 5) + "x").c_str() : "-", of_ref);
        }
    }
#ifdef OPF_HAVE_OMPI
    MPI_Finalize();
#endif
    opf_finalize();
    return 0;
}
