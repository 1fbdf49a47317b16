// opframe_bench — reduction speed, side by side in one run and one process:
//   opframe   the full call: opf_reduce_local, or opf_reduce_local3 for 3 buffers (selected table,
//             checks included; the only row --threads applies to)
//   <name>    each provider's kernel called directly (its 2- or 3-buffer kernel): base and every component
//   ompi      Open MPI's MPI_Reduce_local (when built with Open MPI). It has no 3-buffer form: for
//             3 buffers the row times a copy of in2 into out followed by MPI_Reduce_local(in1, out),
//             which is what an Open MPI program does to get out = in1 op in2
//   memref    the roofline: a plain float loop compiled for this host over the same bytes with the
//             same traffic, inout[i] += in[i] (2 buffers) or out[i] = in1[i] + in2[i] (3 buffers)
//
//   opframe_bench [--op SUM,MAX] [--type FLOAT,INT32_T] [--sizes 1K,64K,1M | --min 1K --max 256M]
//                 [--buffers 2,3] [--threads N] [--providers base,avx2] [--samples N] [--csv]
//                 [--plot FILE.png] [--quick] [--suite NAME] [--align 64,16] [--inputs K]
//
// --providers LIST times only the rows named: opframe, base, a component, ompi, memref (and, with
// --inputs, chain3); a ratio column whose row is not timed reads "-". A name that is not here is an
// error. --quick is a default for what is not given: --sizes, --min/--max and --samples win over it.
// A provider row at a count below the least count the provider offers the slot for (components
// offer from a min_count, e.g. the SIMD kernels from 32 elements) is marked "*": opf_slot_kernels
// hands back its first tier there, which the selected table never calls at that count.
//
// Names of ops, types, providers and suites are case-insensitive. --align
// places every buffer at a 64-byte boundary (64: posix_memalign, like huge
// pages and registered buffers) or 16 bytes past one (16: what malloc gives,
// which splits a cache line on most 64-byte loads); each row is measured at
// each alignment, and the summary reports the worse. Default 16; --suite: 64,16.
//
// --inputs K times instead opf_reduce_local_n on K inputs, side by side with the chain
// of K - 1 opf_reduce_local3 calls it equals ("chain3"), each provider's n-ary kernel called
// directly, and "memrefN", the roofline of the same traffic, (K + 1) * bytes per call: the fastest
// of a plain float loop out[i] = in_0[i] + ... + in_K-1[i] and (x86, AVX2) a loop that ors the
// inputs 256 bytes at a time and stores plainly or non-temporally (roofline_n_ns) (the GB/s column counts that for every row but chain3, whose
// traffic is 3 (K - 1) * bytes; "vs chain" is chain3's time / this time).
//
// Every figure is the median of --samples timed samples, the contenders of a row interleaved. GB/s counts 3 * bytes per call for both
// forms (read two buffers, write one). "vs ompi" is ompi's time / this time (> 1: faster than Open
// MPI); "of ref" is memref's time / this time (1.0: as fast as the roofline). The summary at the end
// gives, per buffers x op x type and provider, the worst of both ratios over all sizes and where.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <opframe/introspect.h>
#include <opframe/opframe.h>

#include "config.h"
#include "tools/data_kinds.h"
#include "tools/timing.h"

#ifdef OPF_HAVE_OMPI
#define OMPI_SKIP_MPICXX 1   // the C API is all the comparison needs
#include <mpi.h>
#endif

namespace {

namespace timing = opf::timing;

struct Options {
    std::vector<std::string> ops = {"SUM"}, types = {"FLOAT"}, providers;   // providers empty: all
    std::vector<long> sizes;
    std::vector<int> buffers = {2};
    std::vector<int> aligns;   // empty: 16, or 64,16 for a suite
    std::vector<opf::data::Kind> kinds = {opf::data::Kind::Random};   // --data
    long min_size = 1024, max_size = 256L << 20;
    std::string threads;   // op_base_threads; empty: leave the parameter alone
    int samples = 9;
    bool csv = false;
    std::string plot;
    int inputs = 0;   // --inputs K: the n-ary call on K inputs against the chain of 3-buffer calls
    bool quick = false, sizes_given = false, range_given = false, samples_given = false;
};

// Whether --providers asks for the row `name` (every row when not given).
bool wants(const Options &o, const char *name)
{
    return o.providers.empty() || std::find(o.providers.begin(), o.providers.end(), name) != o.providers.end();
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

std::vector<std::string> split(const std::string &list)
{
    std::vector<std::string> out;
    std::string item;
    for (char c : list + ",")
        if (c == ',') { if (!item.empty()) out.push_back(item); item.clear(); }
        else item += c;
    return out;
}

// Samples of about a millisecond (timing.h).
std::vector<double> medians_ns(const std::vector<std::function<void()>> &fns, int samples)
{
    return timing::medians_ns(fns, samples, 1e6);
}
double median_ns(const std::function<void()> &fn, int samples) { return medians_ns({fn}, samples)[0]; }

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
// The 3-buffer roofline: the same traffic as opf_reduce_local3 into a
// distinct buffer (read two, write a third).
OPF_REFERENCE_CLONES void reference_add3(const float *__restrict in1, const float *__restrict in2,
                                         float *__restrict out, long n)
{
    for (long i = 0; i < n; ++i) out[i] = in1[i] + in2[i];
}

std::string cpu_model()
{
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown CPU";
}

// A buffer of `bytes` at a chosen alignment: `align` 64 starts it at a
// 64-byte boundary, 16 starts it 16 bytes past one (16-byte aligned, never
// 64). posix_memalign, so that the placement does not depend on malloc.
class AlignedBuffer {
public:
    AlignedBuffer(std::size_t bytes, int align)
    {
        void *p = nullptr;
        if (posix_memalign(&p, 64, bytes + 64) != 0) throw std::bad_alloc();
        block_ = static_cast<unsigned char *>(p);
        data_ = block_ + (align == 64 ? 0 : 16);
        size_ = bytes;
    }
    ~AlignedBuffer() { std::free(block_); }
    AlignedBuffer(const AlignedBuffer &) = delete;
    AlignedBuffer &operator=(const AlignedBuffer &) = delete;
    unsigned char *data() { return data_; }
    std::size_t size() const { return size_; }

private:
    unsigned char *block_ = nullptr, *data_ = nullptr;
    std::size_t size_ = 0;
};

// Fills a buffer's whole elements of kernel type kt with data of `kind` for
// `op` (tools/data_kinds.h), reproducibly: `seed` tells the operands apart.
void fill(AlignedBuffer &buf, opf::data::Kind kind, int kt, int op, uint64_t seed)
{
    const int ext = opf_kernel_type_extent(kt);
    opf::data::fill(kind, kt, op, buf.data(), buf.size() / std::size_t(ext), seed);
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
    int buffers;
    int align;   // 64: at a 64-byte boundary; 16: 16 bytes past one
    opf::data::Kind kind;
    long bytes;
    opf_count_t count;
    double ns;
    bool unserved = false;   // a provider timed below the least count it offers the slot for
    std::string selected;    // the opframe row: the provider the selected table calls at this count
};

void progress(std::size_t done, std::size_t total)
{
    if (!isatty(2)) return;
    const int width = 40, filled = int(width * done / std::max<std::size_t>(total, 1));
    std::fprintf(stderr, "\r[%.*s%*s] %zu/%zu", filled, "########################################", width - filled, "",
                 done, total);
    if (done == total) std::fprintf(stderr, "\r%*s\r", width + 24, "");
}

// The summary: per (buffers, op, type) and provider, the worst ratio over all
// sizes against Open MPI and against the roofline, with the size where it
// occurs (the figures to look at first; the rows above have the rest).
template <class GroupTime>
void print_summary(const std::vector<Row> &rows, const GroupTime &group_time, bool csv)
{
    struct Worst {
        double vs_ompi = 0, of_ref = 0;
        long ompi_bytes = 0, ref_bytes = 0;
        int ompi_align = 0, ref_align = 0;
        opf::data::Kind ompi_kind{}, ref_kind{};
    };
    std::vector<std::pair<std::string, Worst>> order;   // first-seen order of the keys
    std::map<std::string, std::size_t> index;
    for (const Row &r : rows) {
        if (r.provider == "ompi" || r.provider == "memref" || r.unserved) continue;
        char key[256];
        std::snprintf(key, sizeof key, "%-3d %-6s %-16s %-9s", r.buffers, r.op.c_str(), r.type.c_str(), r.provider.c_str());
        auto [it, fresh] = index.emplace(key, order.size());
        if (fresh) order.push_back({key, Worst{}});
        Worst &w = order[it->second].second;
        const double ompi = group_time(r, "ompi"), ref = group_time(r, "memref");
        if (ompi > 0 && (w.ompi_bytes == 0 || ompi / r.ns < w.vs_ompi)) {
            w.vs_ompi = ompi / r.ns;
            w.ompi_bytes = r.bytes;
            w.ompi_align = r.align;
            w.ompi_kind = r.kind;
        }
        if (ref > 0 && (w.ref_bytes == 0 || ref / r.ns < w.of_ref)) {
            w.of_ref = ref / r.ns;
            w.ref_bytes = r.bytes;
            w.ref_align = r.align;
            w.ref_kind = r.kind;
        }
    }
    if (order.empty()) return;
    const char *lead = csv ? "# " : "";
    std::printf("\n%sworst over all sizes, alignments and data (ratio @ bytes/alignment/data):\n", lead);
    std::printf("%s%-3s %-6s %-16s %-9s %30s %30s\n", lead, "buf", "op", "type", "provider", "vs ompi", "of ref");
    for (const auto &[key, w] : order) {
        char vs[64] = "-", of[64] = "-";
        if (w.ompi_bytes)
            std::snprintf(vs, sizeof vs, "%.2fx @ %ld/%d/%s", w.vs_ompi, w.ompi_bytes, w.ompi_align, opf::data::kind_name(w.ompi_kind));
        if (w.ref_bytes)
            std::snprintf(of, sizeof of, "%.2f @ %ld/%d/%s", w.of_ref, w.ref_bytes, w.ref_align, opf::data::kind_name(w.ref_kind));
        std::printf("%s%s %30s %30s\n", lead, key.c_str(), vs, of);
    }
    // The selection's cost: cells where the full call (opframe) is slower than
    // the fastest provider timed beside it, per alignment; and, apart from
    // what the call adds to its kernel (checks, dispatch: test/bench_call),
    // cells where the kernel the selection calls, timed directly, is.
    struct Lag {
        std::map<int, std::array<int, 3>> cells;   // align -> {cells, below 0.97, below 0.90}
        double worst = 0;
        std::string worst_at;
        void add(const Row &r, double ratio)
        {
            std::array<int, 3> &l = cells[r.align];
            ++l[0];
            l[1] += ratio < 0.97;
            l[2] += ratio < 0.90;
            if (worst_at.empty() || ratio < worst) {
                worst = ratio;
                worst_at = std::to_string(r.buffers) + "-buffer " + r.op + " " + r.type + " " + std::to_string(r.bytes) +
                           "/" + std::to_string(r.align) + "/" + opf::data::kind_name(r.kind);
            }
        }
        void say(const char *lead, const char *what) const
        {
            if (cells.empty()) return;
            std::printf("%s%s below 0.97 (0.90) of the fastest opframe provider:", lead, what);
            for (const auto &[align, l] : cells) std::printf(" %d (%d) of %d cells at %d;", l[1], l[2], l[0], align);
            std::printf(" worst %.2f (%s)\n", worst, worst_at.c_str());
        }
    } full, kernel;
    const auto same_cell = [](const Row &x, const Row &r) {
        return x.buffers == r.buffers && x.align == r.align && x.kind == r.kind && x.op == r.op && x.type == r.type &&
               x.bytes == r.bytes;
    };
    for (const Row &r : rows) {
        if (r.provider != "opframe") continue;
        double fastest = 0, selected = 0;
        for (const Row &x : rows) {
            if (x.provider == "opframe" || x.provider == "ompi" || x.provider == "memref" || x.unserved ||
                !same_cell(x, r))
                continue;
            if (fastest == 0 || x.ns < fastest) fastest = x.ns;
            if (x.provider == r.selected) selected = x.ns;
        }
        if (fastest <= 0) continue;
        full.add(r, fastest / r.ns);
        if (selected > 0) kernel.add(r, fastest / selected);
    }
    if (full.cells.empty()) return;
    std::printf("\n");
    full.say(lead, "the full call");
    kernel.say(lead, "the selected kernel (timed directly)");
}

// Bandwidth against size for the first (op, type): one line per provider and
// buffer count, as a gnuplot data file and script beside `png`, then the image.
void write_plot(const std::string &png, const std::vector<Row> &rows)
{
    const Row &first = rows.front();
    const bool both = std::any_of(rows.begin(), rows.end(), [&](const Row &r) { return r.buffers != first.buffers; });
    auto series = [&](const Row &r) { return both ? r.provider + " (" + std::to_string(r.buffers) + "-buffer)" : r.provider; };
    const std::string data = png + ".dat", script = png + ".gp";
    std::ofstream d(data);
    std::vector<std::string> names;
    for (const Row &r : rows)
        if (r.op == first.op && r.type == first.type && std::find(names.begin(), names.end(), series(r)) == names.end())
            names.push_back(series(r));
    for (const std::string &name : names) {
        d << "\"" << name << "\"\n";
        for (const Row &r : rows)
            if (r.op == first.op && r.type == first.type && series(r) == name)
                d << r.bytes << " " << 3.0 * double(r.bytes) / r.ns << "\n";
        d << "\n\n";
    }
    std::ofstream g(script);
    g << "set terminal png size 1000,600\nset output '" << png << "'\n"
      << "set title '" << first.op << " " << first.type << " on " << cpu_model() << "'\n"
      << "set logscale x 2\nset format x '%.0b %BB'\nset xlabel 'buffer size (bytes)'\nset ylabel 'GB/s (3 x bytes / time)'\nset key outside\n"
      << "plot for [i=0:" << names.size() - 1 << "] '" << data << "' index i using 1:2 with linespoints title columnheader(1)\n";
    g.close();
    d.close();
    const std::string cmd = "gnuplot '" + script + "'";
    if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "opframe_bench: gnuplot failed; data in %s\n", data.c_str());
}

// The least count `provider` offers a kernel for, in one half (nbuf 2 or 3)
// of a host slot; -1 if it offers none or the offers cannot be read. Read
// from the offers opframe_info --explain shows (opf_slot_explain): lines
// "  NAME priority P, counts >= N: ..." (no ", counts" part: every count);
// "offers no 2-buffer kernel" lines do not count.
opf_count_t offered_from(int op_id, int kt, int nbuf, const std::string &provider)
{
    if (provider == "base") return 0;
    std::vector<char> buf(1 << 16);
    if (opf_slot_explain(op_id, kt, OPF_MEM_HOST, nbuf, buf.data(), int(buf.size())) != OPF_SUCCESS) return -1;
    const std::string lead = "  " + provider + " priority ";
    opf_count_t least = -1;
    for (const char *line = buf.data(); *line;) {
        const char *end = std::strchr(line, '\n');
        const std::string l(line, end ? std::size_t(end - line) : std::strlen(line));
        line = end ? end + 1 : line + l.size();
        if (l.rfind(lead, 0) != 0 || l.find("offers no") != std::string::npos) continue;
        const std::size_t colon = l.find(':'), counts = l.find(", counts >= ");
        opf_count_t from = 0;
        if (counts != std::string::npos && counts < colon) from = std::strtoll(l.c_str() + counts + 12, nullptr, 10);
        if (least < 0 || from < least) least = from;
    }
    return least;
}

int usage()
{
    std::fprintf(stderr,
                 "usage: opframe_bench [--op LIST] [--type LIST] [--sizes LIST | --min SIZE --max SIZE]\n"
                 "                     [--buffers 2,3] [--threads N] [--providers LIST] [--samples N]\n"
                 "                     [--csv] [--plot FILE.png] [--quick] [--suite openmpi|extra]\n"
                 "                     [--align 64,16] [--data LIST] [--inputs K]\n"
                 "  --data LIST       the data kinds (random, integers, sparse, runs, ones, or all; default random)\n"
                 "  --providers LIST  only these rows: opframe, base, components, ompi, memref (--inputs: chain3)\n"
                 "  --quick           3 samples of 4, 1K and 64K bytes, unless --samples / --sizes say otherwise\n");
    return 2;
}

} // namespace

// The n-ary roofline: out[i] = in[0][i] + ... + in[k-1][i] in blocks that
// stay in L1, the same traffic as opf_reduce_local_n.
OPF_REFERENCE_CLONES void reference_add_n(const float *const *in, int k, float *__restrict out, long n)
{
    constexpr long block = 1024;
    float acc[block];
    for (long at = 0; at < n; at += block) {
        const long m = std::min(block, n - at);
        for (long e = 0; e < m; ++e) acc[e] = in[0][at + e];
        for (int j = 1; j < k; ++j)
            for (long e = 0; e < m; ++e) acc[e] += in[j][at + e];
        for (long e = 0; e < m; ++e) out[at + e] = acc[e];
    }
}

#if defined(__x86_64__)
// The n-ary traffic bound on x86: k inputs read and one output written with
// the least work per byte (a bitwise or), 256 bytes per step in AVX2
// registers; stored plainly or non-temporally (as the kernels' streaming
// tier does past the caches). out must be 32-byte aligned for the latter.
__attribute__((target("avx2"))) void traffic_n_avx2(const float *const *in, int k, float *out, long n, bool nt)
{
    constexpr int R = 8, F = 8;   // registers per step, floats per register
    long i = 0;
    for (; i + R * F <= n; i += R * F) {
        __m256i a[R];
        for (int r = 0; r < R; ++r) a[r] = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(in[0] + i) + r);
        for (int j = 1; j < k; ++j)
            for (int r = 0; r < R; ++r)
                a[r] = _mm256_or_si256(a[r], _mm256_loadu_si256(reinterpret_cast<const __m256i *>(in[j] + i) + r));
        auto *o = reinterpret_cast<__m256i *>(out + i);
        if (nt)
            for (int r = 0; r < R; ++r) _mm256_stream_si256(o + r, a[r]);
        else
            for (int r = 0; r < R; ++r) _mm256_storeu_si256(o + r, a[r]);
    }
    for (; i < n; ++i) out[i] = in[0][i];
    if (nt) _mm_sfence();
}
#endif

// The roofline of the n-ary call's traffic, (k + 1) x bytes: the fastest of
// the plain loop above and, on x86 with AVX2, the traffic loop with plain and
// with non-temporal stores, each timed (median) in this run on the same
// buffers.
double roofline_n_ns(const float *const *in, int k, float *out, long floats, int samples)
{
    double best = median_ns([&] { reference_add_n(in, k, out, floats); }, samples);
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx2"))
        for (bool nt : {false, true})
            best = std::min(best, median_ns([&] { traffic_n_avx2(in, k, out, floats, nt); }, samples));
#endif
    return best;
}

// The legend of the "*" mark (offered_from).
const char kUnservedLegend[] =
    "# *: timed at a count below the least count this provider offers the slot for: its kernel never\n"
    "#    serves that count in the selected table (opframe_info --explain OP TYPE shows the offers)\n";

// --inputs K: one table of the n-ary call per (op, type, size).
int bench_inputs(const Options &o, const std::vector<std::string> &providers)
{
    const int k = o.inputs;
    bool unserved_rows = false;
    std::printf("# opframe_bench --inputs %d: opf_reduce_local_n on %d inputs vs the chain of %d opf_reduce_local3 "
                "calls, median of %d samples\n# machine: %s\n", k, k, k - 1, o.samples, cpu_model().c_str());
    std::printf("%-6s %-10s %10s %-10s %12s %9s %9s %7s\n", "op", "type", "bytes", "provider", "ns/call", "GB/s",
                "vs chain", "of ref");
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
            if (!valid || kt < 0) continue;
            const int op_id = int(reinterpret_cast<uintptr_t>(op));
            for (long bytes : o.sizes) {
                const opf_count_t count = std::max<opf_count_t>(1, bytes / extent);
                const long n_bytes = long(count * extent);
                std::vector<std::unique_ptr<AlignedBuffer>> in;   // 64-byte aligned
                AlignedBuffer out(std::size_t(n_bytes), 64);
                std::vector<const void *> srcs;
                for (int j = 0; j < k; ++j) {
                    in.push_back(std::make_unique<AlignedBuffer>(std::size_t(n_bytes), 64));
                    fill(*in.back(), o.kinds.front(), kt, op_id, uint64_t(j + 1));
                    srcs.push_back(in.back()->data());
                }
                fill(out, o.kinds.front(), kt, op_id, 0);
                struct Timed { std::string provider; double ns; bool unserved = false; };
                std::vector<Timed> t;
                if (wants(o, "chain3"))
                    t.push_back({"chain3", median_ns([&] {
                                     opf_reduce_local3(srcs[0], k > 1 ? srcs[1] : srcs[0], out.data(), count, type, op);
                                     for (int j = 2; j < k; ++j) opf_reduce_local3(out.data(), srcs[std::size_t(j)], out.data(), count, type, op);
                                 }, o.samples)});
                for (const std::string &p : providers) {
                    if (p == "opframe") {
                        t.push_back({p, median_ns([&] { opf_reduce_local_n(srcs.data(), k, out.data(), count, type, op); },
                                                  o.samples)});
                        continue;
                    }
                    opf_kernel_n_fn *fn = nullptr;
                    if (opf_slot_kernel_n(op_id, kt, OPF_FORM_N, p.c_str(), count, &fn) != OPF_SUCCESS || !fn) continue;
                    const opf_count_t from = offered_from(op_id, kt, 3, p);   // n-ary kernels come with 3-buffer offers
                    t.push_back({p, median_ns([&] { fn(srcs.data(), k, out.data(), count, nullptr); }, o.samples),
                                 from > count});
                }
                // The roofline on the same (64-byte-aligned) buffers, read as floats.
                const long floats = n_bytes / 4;
                std::vector<const float *> rp;
                for (const void *p : srcs) rp.push_back(static_cast<const float *>(p));
                double chain_ns = t.empty() || t[0].provider != "chain3" ? 0 : t[0].ns, ref_ns = 0;
                if (wants(o, "memref")) {
                    if (floats > 0)
                        ref_ns = roofline_n_ns(rp.data(), k, reinterpret_cast<float *>(out.data()), floats, o.samples);
                    else   // under 4 bytes: no float loop
                        ref_ns = median_ns([] {}, o.samples);
                    t.push_back({"memref" + std::to_string(k), ref_ns});
                }
                for (const Timed &x : t) {
                    const double traffic = x.provider == "chain3" ? 3.0 * (k - 1) : double(k + 1);
                    char vs[16] = "-", of[16] = "-";
                    if (chain_ns > 0) std::snprintf(vs, sizeof vs, "%.2fx", chain_ns / x.ns);
                    if (ref_ns > 0) std::snprintf(of, sizeof of, "%.2f", ref_ns / x.ns);
                    if (x.unserved) unserved_rows = true;
                    std::printf("%-6s %-10s %10ld %-10s %12.1f %9.2f %9s %7s\n", op_name.c_str(), type_name.c_str(),
                                n_bytes, (x.provider + (x.unserved ? "*" : "")).c_str(), x.ns,
                                traffic * double(n_bytes) / x.ns, vs, of);
                }
            }
        }
    if (unserved_rows) std::printf("%s", kUnservedLegend);
    opf_finalize();
    return 0;
}

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
        else if (a == "--providers") {
            o.providers = split(next());
            for (std::string &p : o.providers)   // component names are lower case
                std::transform(p.begin(), p.end(), p.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        }
        else if (a == "--align") {
            o.aligns.clear();
            for (auto &al : split(next())) {
                if (al != "64" && al != "16") {
                    std::fprintf(stderr, "opframe_bench: --align takes 64, 16 or 64,16 (bytes: at a 64-byte boundary, "
                                         "or 16 bytes past one)\n");
                    return 2;
                }
                if (std::find(o.aligns.begin(), o.aligns.end(), std::stoi(al)) == o.aligns.end()) o.aligns.push_back(std::stoi(al));
            }
            if (o.aligns.empty()) return usage();
        }
        else if (a == "--data") {
            o.kinds.clear();
            for (auto &name : split(next())) {
                opf::data::Kind k;
                if (name == "all") {
                    for (const auto &info : opf::data::kKinds) o.kinds.push_back(info.kind);
                    continue;
                }
                if (!opf::data::kind_by_name(name, k)) {
                    std::string names;
                    for (const auto &info : opf::data::kKinds) names += std::string(names.empty() ? "" : ", ") + info.name;
                    std::fprintf(stderr, "opframe_bench: --data: no data kind \"%s\"; the kinds: %s, or all\n", name.c_str(),
                                 names.c_str());
                    return 2;
                }
                if (std::find(o.kinds.begin(), o.kinds.end(), k) == o.kinds.end()) o.kinds.push_back(k);
            }
            if (o.kinds.empty()) return usage();
        }
        else if (a == "--samples") {
            const std::string v = next();
            char *end = nullptr;
            const long n = std::strtol(v.c_str(), &end, 10);
            if (v.empty() || *end || n < 1 || n > 100000) {
                std::fprintf(stderr, "opframe_bench: --samples takes a count from 1\n");
                return 2;
            }
            o.samples = int(n);
            o.samples_given = true;
        }
        else if (a == "--csv") o.csv = true;
        else if (a == "--plot") o.plot = next();
        else if (a == "--min") { o.min_size = parse_size(next()); o.range_given = true; }
        else if (a == "--max") { o.max_size = parse_size(next()); o.range_given = true; }
        else if (a == "--sizes") {
            o.sizes.clear();
            for (auto &s : split(next())) o.sizes.push_back(parse_size(s));
            if (o.sizes.empty()) return usage();
            o.sizes_given = true;
        }
        else if (a == "--buffers") {
            o.buffers.clear();
            for (auto &b : split(next())) {
                if (b != "2" && b != "3") { std::fprintf(stderr, "opframe_bench: --buffers takes 2, 3 or 2,3\n"); return 2; }
                if (std::find(o.buffers.begin(), o.buffers.end(), std::stoi(b)) == o.buffers.end()) o.buffers.push_back(std::stoi(b));
            }
            if (o.buffers.empty()) return usage();
        } else if (a == "--threads") {
            o.threads = next();
            if (o.threads.empty() || o.threads.find_first_not_of("0123456789") != std::string::npos) {
                std::fprintf(stderr, "opframe_bench: --threads takes a count (0: one per core)\n");
                return 2;
            }
        }
        else if (a == "--quick") o.quick = true;   // applied below, to what no option gave
        else if (a == "--inputs") {
            o.inputs = std::atoi(next().c_str());
            if (o.inputs < 1 || o.inputs > OPF_REDUCE_N_MAX) {
                std::fprintf(stderr, "opframe_bench: --inputs takes 1 to %d\n", OPF_REDUCE_N_MAX);
                return 2;
            }
        }
        else if (a == "--suite") {
            const std::string suite = next();
            if (!strcasecmp(suite.c_str(), "openmpi")) {   // the slots Open MPI's op/avx vectorises
                o.ops = {"SUM", "PROD", "MAX", "MIN", "BAND", "BOR", "BXOR"};
                o.types = {"INT8_T", "UINT8_T", "INT16_T", "UINT16_T", "INT32_T", "UINT32_T", "INT64_T", "UINT64_T",
                           "FLOAT", "DOUBLE"};
            } else if (!strcasecmp(suite.c_str(), "extra")) {   // slots Open MPI leaves scalar or lacks (ops filtered per type below)
                o.ops = {"SUM", "PROD", "MAX", "MAXLOC", "MINLOC", "LAND"};
                o.types = {"DOUBLE_INT", "FLOAT_INT", "2INT", "C_FLOAT_COMPLEX", "C_DOUBLE_COMPLEX", "FLOAT16",
                           "BFLOAT16", "LONG", "INTEGER", "REAL8", "LOGICAL", "C_BOOL", "FLOAT8_E4M3", "FLOAT8_E5M2"};
            } else return usage();
            if (o.aligns.empty()) o.aligns = {64, 16};
        } else return usage();
    }
    if (o.aligns.empty()) o.aligns = {16};
    if (o.sizes_given && o.range_given) {
        std::fprintf(stderr, "opframe_bench: --sizes and --min/--max both given: give one\n");
        return 2;
    }
    if (o.quick) {   // the quick form's defaults, below whatever was given explicitly
        if (!o.samples_given) o.samples = 3;
        if (!o.sizes_given && !o.range_given) o.sizes = {4, 1024, 65536};
    }
    // Names are case-insensitive: each becomes the library's spelling, which
    // the rows print and the Open MPI table is keyed by.
    for (std::string &name : o.ops) {
        const opf_op_t op = op_by_name(name);
        if (op == OPF_OP_NULL) { std::fprintf(stderr, "opframe_bench: unknown op '%s'\n", name.c_str()); return 2; }
        name = opf_op_name(op);
    }
    for (std::string &name : o.types) {
        const opf_datatype_t type = type_by_name(name);
        if (type == OPF_DATATYPE_NULL) { std::fprintf(stderr, "opframe_bench: unknown type '%s'\n", name.c_str()); return 2; }
        name = opf_type_name(type);
    }
    if (o.sizes.empty())
        for (long s = o.min_size; s <= o.max_size; s *= 4) o.sizes.push_back(s);

#ifdef OPF_HAVE_OMPI
    MPI_Init(&argc, &argv);
#endif
    // op_base_threads is set before opf_init (which reads it); afterwards a
    // name the build does not declare is an error, which is how we tell.
    if (!o.threads.empty()) opf_param_set("op_base_threads", o.threads.c_str());
    if (opf_init() != OPF_SUCCESS) {
        std::fprintf(stderr, "opframe_bench: opf_init failed: %s\n", opf_last_error());
        return 1;
    }
    std::string threads_note;
    if (!o.threads.empty()) {
        char value[64] = "";
        if (opf_param_get("op_base_threads", value, sizeof value) != OPF_SUCCESS)
            threads_note = "--threads " + o.threads + " ignored: this build has no parameter op_base_threads";
        else if (o.threads != value)
            threads_note = "--threads " + o.threads + " not taken: op_base_threads is " + value;
        else
            threads_note = "op_base_threads = " + o.threads + " (the opframe rows; the provider rows call one kernel, one thread)";
    }

    // Providers: the full call, then each provider's kernels called directly;
    // beside them (not in this list) the comparisons: ompi, memref, chain3.
    std::vector<std::string> providers = {"opframe", "base"};
    for (int i = 0; i < opf_component_count(); ++i) {
        opf_component_info_t c;
        if (opf_component_describe(i, &c) == OPF_SUCCESS && c.available) providers.push_back(c.name);
    }
    if (!o.providers.empty()) {
        std::vector<std::string> known = providers, chosen;
        if (o.inputs) known.insert(known.end(), {"chain3", "memref"});
        else known.push_back("memref");
#ifdef OPF_HAVE_OMPI
        if (!o.inputs) known.push_back("ompi");
#endif
        for (auto &p : o.providers)
            if (std::find(known.begin(), known.end(), p) == known.end()) {
                std::string names;
                for (auto &n : known) names += (names.empty() ? "" : ", ") + n;
                std::fprintf(stderr, "opframe_bench: --providers: no row \"%s\" here; the rows here: %s (a component "
                                     "that is not available is not timed: opframe_info --show-failed)\n",
                             p.c_str(), names.c_str());
                return 2;
            }
        for (auto &p : providers)
            if (std::find(o.providers.begin(), o.providers.end(), p) != o.providers.end()) chosen.push_back(p);
        providers = chosen;
    }

    if (o.inputs) return bench_inputs(o, providers);

    opf_hw_info_t hw;
    char isa[512] = "";
    if (opf_hw_describe(&hw) == OPF_SUCCESS) {
        if (hw.arm_features) opf_hw_format_arm_features(hw.arm_features, isa, sizeof isa);
        else if (hw.riscv_features) opf_hw_format_riscv_features(hw.riscv_features, isa, sizeof isa);
        else opf_hw_format_features(hw.x86_features, isa, sizeof isa);
    }
    std::string forms;
    for (int b : o.buffers)
        forms += std::string(forms.empty() ? "" : " and ") +
                 (b == 2 ? "2-buffer (inout = in op inout)" : "3-buffer (out = in1 op in2)");
    std::printf("# opframe_bench %s: %s, median of %d samples\n", PACKAGE_VERSION, forms.c_str(), o.samples);
    std::printf("# machine: %s; ISA: %s; L3 %lld KiB\n", cpu_model().c_str(), isa, (long long)(hw.l3_bytes / 1024));
    std::printf("# compared with: %s\n",
#ifdef OPF_HAVE_OMPI
                "Open MPI MPI_Reduce_local, same process (3-buffer: a copy of in2 into out, then MPI_Reduce_local)"
#else
                "(no Open MPI in this build)"
#endif
    );
    std::printf("# memref (roofline): float inout[i] += in[i] (2-buffer), out[i] = in1[i] + in2[i] (3-buffer),\n"
                "#   over the same bytes, vectorised for this host\n");
    if (!threads_note.empty()) std::printf("# %s\n", threads_note.c_str());
    std::string aligns;
    for (int al : o.aligns) aligns += std::string(aligns.empty() ? "" : ", ") + (al == 64 ? "64 (at a 64-byte boundary)" : "16 (16 bytes past a 64-byte boundary)");
    std::printf("# buffer alignment: %s%s\n", aligns.c_str(), o.aligns.size() > 1 ? "; the summary gives the worse" : "");
    for (opf::data::Kind k : o.kinds)
        for (const auto &info : opf::data::kKinds)
            if (info.kind == k) std::printf("# data %s: %s\n", info.name, info.what);
    std::printf("# SUM and PROD 2-buffer calls alternate in with its inverse (negated, reciprocal): inout keeps its data\n");
    // Slots that get no Open MPI row, and why (said once per op and type).
    std::vector<std::string> no_ompi;

    std::vector<Row> rows;
    const std::size_t per_slot = o.sizes.size() * o.buffers.size() * o.aligns.size() * o.kinds.size();
    std::size_t total = o.ops.size() * o.types.size() * per_slot, done = 0;
    for (const std::string &op_name : o.ops)
        for (const std::string &type_name : o.types) {
            const opf_op_t op = op_by_name(op_name);
            const opf_datatype_t type = type_by_name(type_name);
            int valid = 0, kt = -1;
            opf_aint_t lb = 0, extent = 0;
            opf_op_valid_for_type(op, type, &valid);
            opf_type_kernel_type(type, &kt);
            opf_type_get_extent(type, &lb, &extent);
            if (!valid || kt < 0) {   // e.g. LAND on a complex type in a suite
                done += per_slot;
                continue;
            }
#ifdef OPF_HAVE_OMPI
            const MPI_Datatype mt = mpi_type_of(type_name);
            const MPI_Op mo = mpi_op_of(op_name);
            if (mt == MPI_DATATYPE_NULL)
                no_ompi.push_back(op_name + " " + type_name + ": MPI has no datatype " + type_name);
            else if (mo == MPI_OP_NULL)
                no_ompi.push_back(op_name + " " + type_name + ": MPI has no op " + op_name);
#endif
            const int op_id = int(reinterpret_cast<uintptr_t>(op));
            for (long bytes : o.sizes)
                for (int nbuf : o.buffers)
                for (int align : o.aligns)
                for (opf::data::Kind kind : o.kinds) {
                    progress(done++, total);
                    if (!opf::data::kind_applies(kind, kt)) continue;
                    const bool three = nbuf == 3;
                    const opf_count_t count = std::max<opf_count_t>(1, bytes / extent);
                    const long n_bytes = long(count * extent);
                    // in (in1), inout (in2), out: distinct allocations; out only for 3 buffers;
                    // inv: in's inverse, which 2-buffer SUM and PROD alternate with in.
                    const bool alternate = !three && opf::data::accumulates(op_id);
                    AlignedBuffer in(n_bytes, align), inout(n_bytes, align), out(three ? n_bytes : 0, align),
                        inv(alternate ? n_bytes : 0, align);
                    fill(in, kind, kt, op_id, 1);
                    fill(inout, kind, kt, op_id, 2);
                    if (alternate) opf::data::inverse(op_id, kt, in.data(), inv.data(), std::size_t(count));
                    // in, then inv, then in ... for the 2-buffer calls
                    auto in_turn = [a = in.data(), b = alternate ? inv.data() : in.data(), flip = false]() mutable {
                        return (flip = !flip) ? a : b;
                    };
                    // The cell's contenders (the library, each provider, Open MPI), timed
                    // together (interleaved) once all are known, on the same buffers.
                    std::vector<std::string> names, unserved;
                    std::vector<std::function<void()>> fns;
                    auto add = [&](const std::string &provider, std::function<void()> fn) {
                        names.push_back(provider);
                        fns.push_back(std::move(fn));
                    };
                    for (const std::string &p : providers) {
                        if (p == "opframe") {
                            if (three)
                                add(p, [a = in.data(), b = inout.data(), o = out.data(), count, type, op] {
                                    opf_reduce_local3(a, b, o, count, type, op);
                                });
                            else
                                add(p, [a = in_turn, b = inout.data(), count, type, op]() mutable {
                                    opf_reduce_local(a(), b, count, type, op);
                                });
                            continue;
                        }
                        opf_kernel2_fn *fn2 = nullptr;
                        opf_kernel3_fn *fn3 = nullptr;
                        if (opf_slot_kernels(op_id, kt, p.c_str(), count, &fn2, &fn3) != OPF_SUCCESS) continue;
                        if (three && fn3) add(p, [a = in.data(), b = inout.data(), o = out.data(), count, fn3] { fn3(a, b, o, count); });
                        if (!three && fn2) add(p, [a = in_turn, b = inout.data(), count, fn2]() mutable { fn2(a(), b, count); });
                        if ((three && fn3) || (!three && fn2)) {
                            const opf_count_t from = offered_from(op_id, kt, nbuf, p);
                            if (from > count) unserved.push_back(p);
                        }
                    }
#ifdef OPF_HAVE_OMPI
                    if (mt != MPI_DATATYPE_NULL && mo != MPI_OP_NULL && count > 0x7fffffff)
                        no_ompi.push_back(op_name + " " + type_name + " at " + std::to_string(n_bytes) +
                                          " bytes: the count does not fit MPI's int");
                    if (wants(o, "ompi") && mt != MPI_DATATYPE_NULL && mo != MPI_OP_NULL && count <= 0x7fffffff) {
                        if (three)   // Open MPI has no 3-buffer local reduction: copy, then reduce in place
                            add("ompi", [&] {
                                std::memcpy(out.data(), inout.data(), std::size_t(n_bytes));
                                MPI_Reduce_local(in.data(), out.data(), int(count), mt, mo);
                            });
                        else
                            add("ompi", [&, a = in_turn]() mutable { MPI_Reduce_local(a(), inout.data(), int(count), mt, mo); });
                    }
#endif
                    const std::size_t floats = std::size_t(std::max<long>(1, n_bytes / 4));
                    AlignedBuffer ra(floats * 4, align), rb(floats * 4, align), rc(three ? floats * 4 : 0, align);
                    fill(ra, opf::data::Kind::Ones, OPF_KT_FLOAT, OPF_OPID_SUM, 1);   // (the roofline: data-blind)
                    fill(rb, opf::data::Kind::Ones, OPF_KT_FLOAT, OPF_OPID_SUM, 2);
                    auto fa = reinterpret_cast<float *>(ra.data()), fb = reinterpret_cast<float *>(rb.data()),
                         fc = reinterpret_cast<float *>(rc.data());
                    const std::vector<double> ns = medians_ns(fns, o.samples);
                    const char *selected = opf_slot_provider(op_id, kt, nbuf, count);
                    for (std::size_t k = 0; k < fns.size(); ++k)
                        rows.push_back({op_name, type_name, names[k], nbuf, align, kind, n_bytes, count, ns[k],
                                        std::find(unserved.begin(), unserved.end(), names[k]) != unserved.end(),
                                        names[k] == "opframe" && selected ? selected : ""});
                    // The roofline on its own, after them: interleaved, its buffers
                    // evicted theirs (from 4 MiB the one timed after it ran up to 4x slower).
                    if (!wants(o, "memref")) continue;
                    const double ref = three ? median_ns([&] { reference_add3(fa, fb, fc, long(floats)); }, o.samples)
                                             : median_ns([&] { reference_add(fa, fb, long(floats)); }, o.samples);
                    rows.push_back({op_name, type_name, "memref", nbuf, align, kind, n_bytes, count, ref, false, ""});
                }
        }
    progress(total, total);

    // Ratios within each (buffers, op, type, size) group.
    auto group_time = [&](const Row &r, const char *provider) {
        for (const Row &x : rows)
            if (x.buffers == r.buffers && x.align == r.align && x.kind == r.kind && x.op == r.op && x.type == r.type &&
                x.bytes == r.bytes &&
                x.provider == provider)
                return x.ns;
        return 0.0;
    };
    for (const std::string &why : no_ompi) std::printf("# no Open MPI comparison for %s\n", why.c_str());
    if (o.csv) std::printf("op,type,bytes,count,provider,ns_per_call,GBps,vs_ompi,of_ref,buffers,align,served,data\n");
    else std::printf("%-6s %-16s %3s %10s %-9s %12s %9s %8s %7s %5s %s\n", "op", "type", "buf", "bytes", "provider", "ns/call",
                     "GB/s", "vs ompi", "of ref", "align", "data");
    bool any_unserved = false;
    for (const Row &r : rows) {
        const double gbps = 3.0 * double(r.bytes) / r.ns, ompi = group_time(r, "ompi"), ref = group_time(r, "memref");
        char vs[16] = "-", of[16] = "-";
        if (ompi > 0) std::snprintf(vs, sizeof vs, "%.2fx", ompi / r.ns);
        if (ref > 0) std::snprintf(of, sizeof of, "%.2f", ref / r.ns);
        if (r.unserved) any_unserved = true;
        if (o.csv)
            std::printf("%s,%s,%ld,%lld,%s,%.2f,%.3f,%.3f,%.3f,%d,%d,%d,%s\n", r.op.c_str(), r.type.c_str(), r.bytes,
                        (long long)r.count, r.provider.c_str(), r.ns, gbps, ompi > 0 ? ompi / r.ns : 0.0,
                        ref > 0 ? ref / r.ns : 0.0, r.buffers, r.align, r.unserved ? 0 : 1, opf::data::kind_name(r.kind));
        else
            std::printf("%-6s %-16s %3d %10ld %-9s %12.1f %9.2f %8s %7s %5d %s\n", r.op.c_str(), r.type.c_str(), r.buffers,
                        r.bytes, (r.provider + (r.unserved ? "*" : "")).c_str(), r.ns, gbps, vs, of, r.align,
                        opf::data::kind_name(r.kind));
    }
    if (any_unserved) std::printf("%s", o.csv ? "# served=0: timed at a count below the least count the provider offers "
                                                "the slot for (opframe_info --explain OP TYPE)\n" : kUnservedLegend);
    if (any_unserved && !o.csv) std::printf("#    (the summary leaves these rows out)\n");
    print_summary(rows, group_time, o.csv);

    if (!o.plot.empty() && !rows.empty()) write_plot(o.plot, rows);
#ifdef OPF_HAVE_OMPI
    MPI_Finalize();
#endif
    opf_finalize();
    return 0;
}
