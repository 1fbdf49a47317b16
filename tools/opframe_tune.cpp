// opframe_tune — measured selection: times every provider of every host slot
// on this machine and writes a tuning file, a parameter file that opf_init
// reads below the parameter files (framework/params.h: where, and when a
// file is ignored). What it measures and what it writes:
//   per slot     each provider's 2- and 3-buffer kernel at each size class
//                (1 KiB-4 MiB; --quick: 4 KiB and 64 KiB), on each data kind
//                that can change a kernel's path (tools/data_kinds.h: random;
//                floats also integer-valued with zeros and sparse NaN / +-0;
//                pairs runs of ties), with the buffers at a 64-byte boundary
//                and 16 bytes past one (malloc's), plus the
//                after-effect of its ISA (below); a slot whose winner is
//                clearly faster than the provider the priorities pick
//                (kWinMargin over every cell, and no cell, whatever its
//                data or alignment, below kWorstCell) gets an op_base_pin
//                item; where none wins
//                the whole slot but one clearly wins a contiguous band of
//                two or more size classes, a size-bounded item
//                ("sum:float@64K-1M=avx2"). Providers compared
//                with each other are timed interleaved.
//                Every slot gets a note (opf_tuning_note_<op>_<type>) that
//                opframe_info --explain shows.
//   op_<c>_min_bytes         the tiny-count tier of each SIMD component: the
//                size from which its kernel beats the base's (in-place
//                2-buffer calls repeated on one buffer, the hard case)
//   op_<c>_stream_min_bytes  the streaming tier: from which size the
//                component's non-temporal 3-buffer kernel beats its plain one
//                by 10% or more (there and in the geometric mean of the
//                sizes from there up, losing at none of them)
//   op_base_threads_min_bytes  the worker pool: from which size two threads
//                beat one on the full call (each thread's share is written)
//   op_cuda_staging_min_count  where the cuda component is available (a
//                GPU): from which count a mixed synchronous call (a host
//                input, a device inout) is faster staged (the host operand
//                copied to the device, computed there) than on the host path
//                (the device operand copied to the host and back)
//   opf_tuning_aftereffect   per ISA: how much slower a fixed scalar + AVX2
//                workload runs right after each call of that ISA's kernel
//                than after the base's, at a collective's call rate (the
//                AVX-512 frequency licence of open-mpi/ompi#8334); it is
//                added to the ISA's kernel time when a slot is chosen.
// Timings are medians; the machine, ISA set and versions go into the file,
// and opf_init ignores the file (with a warning) anywhere else.
//
//   opframe_tune [--quick] [--output FILE] [--verbose]
// Default output: $OPF_TUNE_FILE_USER, else ~/.opframe/tuning.conf.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <opframe/introspect.h>
#include <opframe/opframe.h>

#include "config.h"
#include "tools/data_kinds.h"
#include "tools/timing.h"

namespace {

using opf::timing::Clock;
namespace timing = opf::timing;

struct Mode {
    bool quick = false, verbose = false;
    double sample_ns = 200e3;   // each timed sample runs at least this long
    int samples = 5;
};
Mode mode;

// The median ns of one call of each of `fns` (timing.h), samples of mode.sample_ns.
std::vector<double> medians_ns(const std::vector<std::function<void()>> &fns)
{
    return timing::medians_ns(fns, mode.samples, mode.sample_ns);
}
double median_ns(const std::function<void()> &fn) { return medians_ns({fn})[0]; }
double median_of(std::vector<double> v)
{
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

// The operands a, b, c and inv (a's inverse, tools/data_kinds.h), 64-byte
// aligned with 64 bytes to spare: a cell's data may start 16 bytes past the
// boundary. Zeroed; the slots' cells fill them with each data kind.
struct Buffers {
    unsigned char *a = nullptr, *b = nullptr, *c = nullptr, *inv = nullptr;
    explicit Buffers(std::size_t bytes)
    {
        for (unsigned char **p : {&a, &b, &c, &inv}) {
            void *v = nullptr;
            if (posix_memalign(&v, 64, bytes + 64) != 0) { std::fprintf(stderr, "opframe_tune: out of memory\n"); std::exit(1); }
            std::memset(v, 0, bytes + 64);
            *p = static_cast<unsigned char *>(v);
        }
    }
    ~Buffers() { std::free(a); std::free(b); std::free(c); std::free(inv); }
};

// The data kinds beside random run up to this size: a kernel's data-dependent
// path (an exact form for NaN or zeros) shows in the cache, and above it the
// memory's speed hides it. Random data and both alignments run at every size.
// (Every kind at every size made a full run take over 10 minutes on an
// AVX-512 Xeon: the 256 KiB-4 MiB cells cost milliseconds each.)
constexpr long kKindsUpTo = 64L << 10;
// A provider this many times slower than the fastest at a size, on the same
// data, alignment and form, is not timed at the larger sizes: it cannot win
// the slot there, and the base's MX and fp8 kernels cost milliseconds a call
// at 4 MiB (they took most of a full run).
constexpr double kOutOfRace = 3.0;

// One data kind at one alignment: with the forms and sizes, a slot's cells.
struct Variant {
    opf::data::Kind kind;
    int align;   // 64: at a 64-byte boundary; 16: 16 bytes past one
};
std::string variant_text(const Variant &v) { return std::string(opf::data::kind_name(v.kind)) + " at " + std::to_string(v.align); }

// Fills n elements of a, b (and inv) at `at` bytes past their start with
// data of `kind` for (op, kt).
void fill_operands(Buffers &buf, std::size_t at, opf::data::Kind kind, int op, int kt, std::size_t n)
{
    opf::data::fill(kind, kt, op, buf.a + at, n, 1);
    opf::data::fill(kind, kt, op, buf.b + at, n, 2);
    if (opf::data::accumulates(op)) opf::data::inverse(op, kt, buf.a + at, buf.inv + at, n);
}
// A 2-buffer call repeated in place, b = a op b: SUM and PROD alternate a
// with its inverse, so that b keeps its data kind (tools/data_kinds.h).
std::function<void()> in_place(opf_kernel2_fn *k, int op, const unsigned char *a, const unsigned char *inv,
                               unsigned char *b, opf_count_t n)
{
    if (!opf::data::accumulates(op)) return [=] { k(a, b, n); };
    return [=, flip = false]() mutable { k((flip = !flip) ? a : inv, b, n); };
}

std::string lower(std::string s)
{
    for (char &ch : s) ch = std::isalnum(static_cast<unsigned char>(ch)) ? char(std::tolower(static_cast<unsigned char>(ch))) : '_';
    return s;
}

std::string size_text(long bytes)
{
    char buf[32];
    if (bytes >= (1L << 20) && bytes % (1L << 20) == 0) std::snprintf(buf, sizeof buf, "%ld MiB", bytes >> 20);
    else if (bytes >= 1024 && bytes % 1024 == 0) std::snprintf(buf, sizeof buf, "%ld KiB", bytes >> 10);
    else std::snprintf(buf, sizeof buf, "%ld B", bytes);
    return buf;
}

// A size as op_base_pin's ranges take it: "64K", "1M", "1536".
std::string pin_size(long bytes)
{
    for (const auto &[shift, suffix] : {std::pair{30, 'G'}, std::pair{20, 'M'}, std::pair{10, 'K'}})
        if (bytes >= (1L << shift) && bytes % (1L << shift) == 0) return std::to_string(bytes >> shift) + suffix;
    return std::to_string(bytes);
}

opf_op_t op_handle(int id) { return reinterpret_cast<opf_op_t>(uintptr_t(id)); }

// ---- the after-effect workload --------------------------------------------------
// A slowdown of the workload below this fraction of its time is noise, not charged.
constexpr double kAfterEffectNoise = 0.05;
// A fixed piece of application work: a dependent scalar integer chain and an
// AVX2 multiply-add loop over 4 KiB, about a few microseconds in all.
volatile uint64_t sink;
[[gnu::noinline]] void scalar_work()
{
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 2000; ++i) x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ull + uint64_t(i);
    sink = x;
}
#if defined(__x86_64__)
[[gnu::noinline, gnu::target("avx2,fma")]] void avx2_work(float *v)
{
    for (int r = 0; r < 8; ++r)
        for (int i = 0; i < 1024; ++i) v[i] = v[i] * 0.999f + 0.001f;
}
#endif

// Median ns of the workload right after each call of `kernel`, one call per
// workload (a collective's rate: one reduction every few microseconds).
double workload_after(const std::function<void()> &kernel, bool avx2)
{
    static float v[1024];
    std::vector<double> ns;
    const int rounds = mode.quick ? 300 : 3000;
    for (int i = 0; i < rounds; ++i) {
        kernel();
        const auto t0 = Clock::now();
        scalar_work();
#if defined(__x86_64__)
        if (avx2) avx2_work(v);
#endif
        ns.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count());
    }
    (void)avx2;
    return median_of(std::move(ns));
}

// A slot is pinned against the priorities only when the measured winner is
// this much faster in the geometric mean over sizes and forms, and no cell
// slower than kWorstCell of the priorities' pick.
constexpr double kWinMargin = 1.05, kWorstCell = 0.95;
// The streaming tier starts only where its kernel wins by this much, at that
// size and in the geometric mean of it and every larger one, losing at none
// of them: non-temporal stores send the output past the
// caches, so where the three buffers still fit there (a 2-vCPU Zen 5 VM,
// 32 MiB L3: 4 MiB measured 1.05x here, then 0.7-0.9x of the plain kernel
// in opframe_bench's repeated calls) a win within the noise is a loss.
constexpr double kStreamMargin = 1.10;

struct Provider {
    std::string name;
    double after_ns = 0;   // workload slowdown per call after its kernel (>= 0 when charged)
};

// The smallest size of `sizes` from which `wins(size)` holds at that size and
// every larger one; -1 if it does not hold at the largest.
long crossover(const std::vector<long> &sizes, const std::function<bool(long)> &wins)
{
    long from = -1;
    for (auto it = sizes.rbegin(); it != sizes.rend(); ++it) {
        if (!wins(*it)) break;
        from = *it;
    }
    return from;
}

struct Output {
    std::vector<std::string> lines;
    void add(const std::string &l) { lines.push_back(l); }
};

bool param_exists(const std::string &name)
{
    char v[256];
    return opf_param_get(name.c_str(), v, sizeof v) == OPF_SUCCESS;
}

// Device memory for the cuda component's mixed calls, from the driver library
// the component opens itself (libcuda.so.1, its entry points through
// cuGetProcAddress_v2): opframe_tune links no CUDA library and runs where
// there is none. Device 0's primary context, current on this thread, as the
// CUDA runtime inside the component uses it.
class DeviceBuffer {
public:
    explicit DeviceBuffer(std::size_t bytes)
    {
        lib_ = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        using GetProc = int (*)(const char *, void **, int, unsigned long long, int *);
        const auto get_proc = lib_ ? reinterpret_cast<GetProc>(dlsym(lib_, "cuGetProcAddress_v2")) : nullptr;
        if (!get_proc) { why_ = "no CUDA driver with cuGetProcAddress_v2 (libcuda.so.1)"; return; }
        auto entry = [&](const char *name, int version, auto &fn) {
            void *p = nullptr;
            int found = 0;
            if (get_proc(name, &p, version, 0, &found) != 0 || !p) why_ = std::string("the CUDA driver lacks ") + name;
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
        };
        int (*init)(unsigned) = nullptr;
        int (*device_get)(int *, int) = nullptr;
        int (*retain)(void **, int) = nullptr;
        int (*set_current)(void *) = nullptr;
        int (*alloc)(unsigned long long *, std::size_t) = nullptr;
        entry("cuInit", 2000, init);
        entry("cuDeviceGet", 2000, device_get);
        entry("cuDevicePrimaryCtxRetain", 7000, retain);
        entry("cuCtxSetCurrent", 4000, set_current);
        entry("cuMemAlloc", 3020, alloc);
        entry("cuMemFree", 3020, free_);
        entry("cuDevicePrimaryCtxRelease", 11000, release_);
        if (!why_.empty()) return;
        void *ctx = nullptr;
        int rc = init(0);
        if (rc == 0) rc = device_get(&device_, 0);
        if (rc == 0) rc = retain(&ctx, device_);
        if (rc == 0) retained_ = true, rc = set_current(ctx);
        if (rc == 0) rc = alloc(&ptr_, bytes);
        if (rc != 0) why_ = "CUDA device 0 gave no memory (CUresult " + std::to_string(rc) + ")", ptr_ = 0;
    }
    ~DeviceBuffer()
    {
        if (ptr_) free_(ptr_);
        if (retained_) release_(device_);
        // (the driver library stays loaded: the component holds it too)
    }
    DeviceBuffer(const DeviceBuffer &) = delete;
    DeviceBuffer &operator=(const DeviceBuffer &) = delete;
    void *get() const { return reinterpret_cast<void *>(uintptr_t(ptr_)); }
    const std::string &why() const { return why_; }

private:
    void *lib_ = nullptr;
    int (*free_)(unsigned long long) = nullptr;
    int (*release_)(int) = nullptr;
    unsigned long long ptr_ = 0;
    int device_ = 0;
    bool retained_ = false;
    std::string why_;
};

} // namespace

int main(int argc, char **argv)
{
    std::string output;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--quick") mode.quick = true;
        else if (a == "--verbose" || a == "-v") mode.verbose = true;
        else if (a == "--output" && i + 1 < argc) output = argv[++i];
        else {
            std::fprintf(stderr, "usage: opframe_tune [--quick] [--output FILE] [--verbose]\n"
                                 "  times every provider of every slot on this machine and writes a tuning file\n"
                                 "  (default: $OPF_TUNE_FILE_USER, else ~/.opframe/tuning.conf)\n");
            return 2;
        }
    }
    if (mode.quick) { mode.sample_ns = 20e3; mode.samples = 3; }
    if (output.empty()) {
        if (const char *env = std::getenv("OPF_TUNE_FILE_USER"); env && *env) output = env;
        else if (const char *home = std::getenv("HOME"); home && *home) {
            output = std::string(home) + "/.opframe";
            mkdir(output.c_str(), 0755);
            output += "/tuning.conf";
        } else {
            std::fprintf(stderr, "opframe_tune: no HOME and no OPF_TUNE_FILE_USER: name the file with --output\n");
            return 2;
        }
    }
    // Measure the priorities as they stand, not a previous tuning.
    setenv("OPF_TUNE_FILE_USER", "", 1);
    setenv("OPF_TUNE_FILE_SYSTEM", "", 1);
    if (opf_init() != OPF_SUCCESS) {
        std::fprintf(stderr, "opframe_tune: opf_init failed: %s\n", opf_last_error());
        return 1;
    }
    const auto started = Clock::now();

    // What the file is valid for: the texts opf_init compares (components.cpp, apply_tuning_files).
    opf_hw_info_t hw{};
    opf_hw_describe(&hw);
    char isa[512] = "";
    if (hw.arm_features) opf_hw_format_arm_features(hw.arm_features, isa, sizeof isa);
    else opf_hw_format_features(hw.x86_features, isa, sizeof isa);
    std::vector<std::string> versions_list;
    std::vector<Provider> providers = {{"base"}};
    for (int i = 0; i < opf_component_count(); ++i) {
        opf_component_info_t c;
        if (opf_component_describe(i, &c) != OPF_SUCCESS) continue;
        versions_list.push_back(std::string(c.name) + " " + std::to_string(c.version[0]) + "." +
                                std::to_string(c.version[1]) + "." + std::to_string(c.version[2]));
        if (c.available) providers.push_back({c.name});
    }
    std::sort(versions_list.begin(), versions_list.end());
    std::string versions = "opframe " PACKAGE_VERSION;
    for (const std::string &v : versions_list) versions += "; " + v;
    const bool have_avx2 = (hw.x86_features & OPF_X86_AVX2) != 0;

    char date[64];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    std::fprintf(stderr, "opframe_tune: %s mode on %s (%s), providers:", mode.quick ? "quick" : "full", hw.cpu_model, isa);
    for (const Provider &p : providers) std::fprintf(stderr, " %s", p.name.c_str());
    std::fprintf(stderr, "\n");

    Output out;
    const long max_slot_bytes = mode.quick ? 64L << 10 : 4L << 20;
    Buffers buf(std::size_t(mode.quick ? 4L << 20 : 64L << 20));

    // 1. The after-effect per ISA: SUM FLOAT at 16 KiB, then the workload.
    {
        const int kt_float = OPF_KT_FLOAT;
        const opf_count_t n = (16 << 10) / 4;
        double reference = 0;
        std::string text;
        for (Provider &p : providers) {
            opf_kernel2_fn *f2 = nullptr;
            opf_kernel3_fn *f3 = nullptr;
            if (opf_slot_kernels(OPF_OPID_SUM, kt_float, p.name.c_str(), n, &f2, &f3) != OPF_SUCCESS || !f2) continue;
            const double t = workload_after([&] { f2(buf.a, buf.b, n); }, have_avx2);
            // Charged only above the noise of the measurement: seven runs on
            // one shared AMD EPYC read avx2 (no licence) from -6.8 % to +3.1 %,
            // and one +1.6 % alone flipped 22 band pins to the base; the
            // licence slowdowns of open-mpi/ompi#8334 are several times that.
            if (p.name == "base") reference = t;
            else p.after_ns = t - reference > kAfterEffectNoise * reference ? t - reference : 0.0;
            char item[160];
            if (p.name == "base")
                std::snprintf(item, sizeof item, "base %.2f us (the reference)", t / 1e3);
            else
                std::snprintf(item, sizeof item, "%s %+.1f%% (%+.0f ns per call)", p.name.c_str(),
                              100.0 * (t - reference) / reference, t - reference);
            text += (text.empty() ? "" : "; ") + std::string(item);
        }
        out.add("# After-effect: a fixed scalar + AVX2 workload timed right after each SUM FLOAT 16 KiB call of each");
        out.add("# ISA's kernel, one call per workload; the slowdown against the base's is added to the ISA's kernel");
        out.add("# time below when it exceeds 5% of the workload (less is noise, not charged).");
        out.add("opf_tuning_aftereffect = \"workload after the kernel: " + text + "\"");
        std::fprintf(stderr, "opframe_tune: after-effect: %s\n", text.c_str());
    }

    // 2. Per slot: every provider at every size class, both forms, on every
    // data kind that can change its kernels' path, at both alignments.
    std::vector<long> classes = mode.quick ? std::vector<long>{4L << 10, 64L << 10}
                                           : std::vector<long>{1L << 10, 4L << 10, 16L << 10, 64L << 10, 256L << 10,
                                                               1L << 20, 4L << 20};
    std::string pins;
    int slots = 0, pinned = 0;
    std::vector<std::string> notes;
    // Samples of 100 us in the full mode here (200 elsewhere): a slot's
    // cells are many (data kinds x alignments), and the providers of a cell
    // are timed interleaved, so a cell's noise is shared. (With 200 us a
    // full run took 354 s on 2 vCPUs of an AVX-512 Xeon.)
    const Mode before_slots = mode;
    if (!mode.quick) mode.sample_ns = 100e3;
    for (int op = 1; op < OPF_OPID_COUNT; ++op)
        for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
            if (!opf_slot_exists(op, kt)) continue;
            const int extent = opf_kernel_type_extent(kt);
            if (extent <= 0) continue;
            std::vector<Variant> variants;
            std::string kinds_text;
            for (opf::data::Kind k : opf::data::timing_kinds(kt)) {
                for (int align : {64, 16})   // (--quick: the kinds beside random at malloc's offset alone)
                    if (!mode.quick || k == opf::data::Kind::Random || align == 16) variants.push_back({k, align});
                kinds_text += (kinds_text.empty() ? "" : ", ") + std::string(opf::data::kind_name(k));
            }
            if (variants.size() > 2)
                kinds_text += " (random at every size, the others to " + size_text(mode.quick ? classes.front() : kKindsUpTo) + ")";
            // A cell: form f (0: 2-buffer, 1: 3-buffer), size class c, variant v.
            const std::size_t nc = classes.size(), nv = variants.size(), ncells = 2 * nc * nv;
            auto cell = [&](int f, std::size_t c, std::size_t v) { return (std::size_t(f) * nc + c) * nv + v; };
            auto measured = [&](std::size_t c, std::size_t v) {
                return variants[v].kind == opf::data::Kind::Random || classes[c] <= (mode.quick ? classes.front() : kKindsUpTo);
            };
            std::size_t nmeasured = 0;
            for (std::size_t c = 0; c < nc; ++c)
                for (std::size_t v = 0; v < nv; ++v) nmeasured += measured(c, v) ? 2 : 0;
            std::vector<std::vector<double>> time(providers.size(), std::vector<double>(ncells, 0));   // [provider][cell]
            std::vector<bool> offers(providers.size(), false);
            // [provider][form * nv + v]: out of the race from the size after the one that showed it
            std::vector<std::vector<bool>> dropped(providers.size(), std::vector<bool>(2 * nv, false));
            for (std::size_t v = 0; v < nv; ++v) {
                // The largest class's operands; each smaller class calls on their start.
                const long largest = variants[v].kind == opf::data::Kind::Random ? classes.back()
                                                                                 : std::min(classes.back(), kKindsUpTo);
                const std::size_t at = variants[v].align == 64 ? 0 : 16;
                unsigned char *a = buf.a + at, *b = buf.b + at, *out = buf.c + at, *inv = buf.inv + at;
                fill_operands(buf, at, variants[v].kind, op, kt, std::size_t(std::max<long>(1, largest / extent)));
                for (std::size_t c = 0; c < nc; ++c) {
                    if (!measured(c, v)) continue;
                    const opf_count_t n = std::max<opf_count_t>(1, classes[c] / extent);
                    std::vector<opf_kernel2_fn *> f2(providers.size(), nullptr);
                    std::vector<opf_kernel3_fn *> f3(providers.size(), nullptr);
                    for (std::size_t p = 0; p < providers.size(); ++p)
                        if (opf_slot_kernels(op, kt, providers[p].name.c_str(), n, &f2[p], &f3[p]) == OPF_SUCCESS)
                            offers[p] = offers[p] || f2[p] || f3[p];
                    for (int f = 0; f < 2; ++f) {   // the providers of one cell, interleaved
                        std::vector<std::function<void()>> fns;
                        std::vector<std::size_t> who;
                        for (std::size_t p = 0; p < providers.size(); ++p) {
                            if (dropped[p][std::size_t(f) * nv + v]) continue;
                            if (f == 0 && f2[p]) fns.push_back(in_place(f2[p], op, a, inv, b, n));
                            else if (f == 1 && f3[p]) fns.push_back([=, k = f3[p]] { k(a, b, out, n); });
                            else continue;
                            who.push_back(p);
                        }
                        const std::vector<double> ns = medians_ns(fns);
                        for (std::size_t k = 0; k < who.size(); ++k)
                            time[who[k]][cell(f, c, v)] = ns[k] + providers[who[k]].after_ns;
                        const double fastest = ns.empty() ? 0 : *std::min_element(ns.begin(), ns.end());
                        for (std::size_t k = 0; k < who.size(); ++k)
                            if (ns[k] > kOutOfRace * fastest) dropped[who[k]][std::size_t(f) * nv + v] = true;
                    }
                }
            }
            if (std::count(offers.begin(), offers.end(), true) < 2) continue;
            ++slots;
            // Score: geometric mean over every cell of time / the fastest there.
            std::vector<double> score(providers.size(), 0);
            std::vector<int> cells(providers.size(), 0);
            for (std::size_t x = 0; x < ncells; ++x) {
                double best = 0;
                for (std::size_t p = 0; p < providers.size(); ++p)
                    if (time[p][x] > 0 && (best == 0 || time[p][x] < best)) best = time[p][x];
                for (std::size_t p = 0; p < providers.size(); ++p)
                    if (time[p][x] > 0) { score[p] += std::log(time[p][x] / best); ++cells[p]; }
            }
            std::size_t winner = 0;
            bool have_winner = false;
            for (std::size_t p = 0; p < providers.size(); ++p) {
                // A provider that leaves a cell out cannot serve the slot alone.
                if (cells[p] == 0 || std::size_t(cells[p]) < nmeasured) continue;
                if (!have_winner || score[p] < score[winner]) { winner = p; have_winner = true; }
            }
            if (!have_winner) continue;
            // The runner-up, and the cell where the winner's lead over it is least.
            std::size_t second = winner;
            for (std::size_t p = 0; p < providers.size(); ++p)
                if (p != winner && cells[p] > 0 && (second == winner || score[p] < score[second])) second = p;
            double least = 0;
            std::string least_at;
            for (int f = 0; f < 2; ++f)
                for (std::size_t c = 0; c < nc; ++c)
                    for (std::size_t v = 0; v < nv; ++v) {
                        const std::size_t x = cell(f, c, v);
                        if (time[second][x] <= 0 || time[winner][x] <= 0) continue;
                        const double r = time[second][x] / time[winner][x];
                        if (least_at.empty() || r < least) {
                            least = r;
                            least_at = size_text(classes[c]) + " " + (f ? "3" : "2") + "-buffer " + variant_text(variants[v]);
                        }
                    }
            const double geo = std::exp((score[second] / std::max(1, cells[second])) - score[winner] / cells[winner]);
            // The provider the priorities pick for the largest class (above every tiny-count tier).
            const opf_count_t big = std::max<opf_count_t>(1, classes.back() / extent);
            const char *by_priority = opf_slot_provider_mem(op, kt, OPF_MEM_HOST, 2, big);
            const std::string op_name = opf_op_name(op_handle(op)), kt_name = opf_kernel_type_name(kt);
            // Against the priorities only on a clear win: kWinMargin in the
            // geometric mean and no cell kWorstCell slower (two kernels that
            // tie, e.g. both at memory speed, must not flip with the noise).
            // The rule, over the size classes [c0, c1]: does `q` clearly beat
            // `p` there (every cell of q's measured, both forms)?
            auto beats = [&](std::size_t q, std::size_t p, std::size_t c0, std::size_t c1, double &lead, double &worst) {
                lead = worst = 0;
                int n = 0;
                for (int f = 0; f < 2; ++f)
                    for (std::size_t c = c0; c <= c1; ++c)
                        for (std::size_t v = 0; v < nv; ++v) {
                            if (!measured(c, v)) continue;
                            const std::size_t x = cell(f, c, v);
                            if (time[q][x] <= 0) return false;
                            if (time[p][x] <= 0) continue;
                            const double r = time[p][x] / time[q][x];
                            lead += std::log(r);
                            worst = n++ == 0 ? r : std::min(worst, r);
                        }
                lead = n ? std::exp(lead / n) : 0;
                return n > 0 && lead >= kWinMargin && worst >= kWorstCell;
            };
            bool clear_win = false;
            std::string against, band_pin, band_note;
            for (std::size_t p = 0; p < providers.size(); ++p) {
                if (!by_priority || providers[p].name != by_priority || cells[p] == 0) continue;
                double lead = 0, worst = 0;
                if (p != winner) clear_win = beats(winner, p, 0, classes.size() - 1, lead, worst);
                // No provider wins the whole slot: one may still clearly win a
                // contiguous band of at least two size classes (avx2 over
                // avx512 at 64 KiB-1 MiB): the widest such band, then the
                // largest lead, is pinned to its sizes (both ends included).
                std::size_t band_width = 0;
                double band_lead = 0;
                for (std::size_t q = 0; q < providers.size() && !clear_win; ++q)
                    for (std::size_t c0 = 0; q != p && c0 + 1 < classes.size(); ++c0)
                        for (std::size_t c1 = c0 + 1; c1 < classes.size(); ++c1) {
                            double l = 0, w = 0;
                            if ((c0 == 0 && c1 + 1 == classes.size()) || !beats(q, p, c0, c1, l, w)) continue;
                            const std::size_t width = c1 - c0 + 1;
                            if (width < band_width || (width == band_width && l <= band_lead)) continue;
                            band_width = width;
                            band_lead = l;
                            const std::string range = pin_size(classes[c0]) + "-" + pin_size(classes[c1]);
                            band_pin = lower(op_name) + ":" + lower(kt_name) + "@" + range + "=" + providers[q].name;
                            char text[200];
                            std::snprintf(text, sizeof text, "; %s %.2fx the priorities' %s at %s, worst cell %.2fx: pinned there",
                                          providers[q].name.c_str(), l, by_priority, range.c_str(), w);
                            band_note = text;
                        }
                if (p == winner) {
                    against = band_note;
                    continue;
                }
                char text[160];
                std::snprintf(text, sizeof text, "; %s %.2fx the priorities' %s, worst cell %.2fx: %s", providers[winner].name.c_str(),
                              lead, by_priority, worst, clear_win ? "pinned" : "not a clear win, the priorities stand");
                against = text + band_note;
            }
            char note[900];
            std::snprintf(note, sizeof note,
                          "%s %.2fx %s at %s (its least lead; geomean %.2fx over %s-%s, 2- and 3-buffer, data %s, "
                          "buffers at 64 and 16 bytes past a 64-byte boundary)%s",
                          providers[winner].name.c_str(), least, providers[second].name.c_str(), least_at.c_str(), geo,
                          size_text(classes.front()).c_str(), size_text(classes.back()).c_str(), kinds_text.c_str(),
                          against.c_str());
            notes.push_back("opf_tuning_note_" + lower(op_name) + "_" + lower(kt_name) + " = \"" + note + "\"");
            if (clear_win) {
                pins += (pins.empty() ? "" : ",") + lower(op_name) + ":" + lower(kt_name) + "=" + providers[winner].name;
                ++pinned;
            } else if (!band_pin.empty()) {
                pins += (pins.empty() ? "" : ",") + band_pin;
                ++pinned;
            }
            if (mode.verbose) std::fprintf(stderr, "  %s %s: %s\n", op_name.c_str(), kt_name.c_str(), note);
        }
    mode = before_slots;
    std::fprintf(stderr, "opframe_tune: %d slots timed, %d pinned against the priorities\n", slots, pinned);
    (void)max_slot_bytes;

    // 3. The tiny-count tier of each SIMD component against the base.
    struct Probe { int op, kt; };
    const std::vector<Probe> probes = mode.quick
        ? std::vector<Probe>{{OPF_OPID_SUM, OPF_KT_FLOAT}, {OPF_OPID_MAX, OPF_KT_INT32}}
        : std::vector<Probe>{{OPF_OPID_SUM, OPF_KT_FLOAT}, {OPF_OPID_MAX, OPF_KT_DOUBLE}, {OPF_OPID_MAX, OPF_KT_INT32},
                             {OPF_OPID_SUM, OPF_KT_INT8}, {OPF_OPID_BAND, OPF_KT_INT64}, {OPF_OPID_PROD, OPF_KT_DOUBLE}};
    const std::vector<long> tiny = mode.quick ? std::vector<long>{32, 128, 512}
                                              : std::vector<long>{16, 32, 64, 96, 128, 192, 256, 384, 512, 768, 1024};
    for (const Provider &p : providers) {
        if (p.name == "base" || !param_exists("op_" + p.name + "_min_bytes")) continue;
        std::vector<long> found;
        std::string detail;
        for (const Probe &pr : probes) {
            const int extent = opf_kernel_type_extent(pr.kt);
            opf_kernel2_fn *b2 = nullptr, *c2 = nullptr;
            opf_kernel3_fn *b3 = nullptr, *c3 = nullptr;
            if (opf_slot_kernels(pr.op, pr.kt, "base", 1, &b2, &b3) != OPF_SUCCESS || !b2) continue;
            if (opf_slot_kernels(pr.op, pr.kt, p.name.c_str(), 1, &c2, &c3) != OPF_SUCCESS || !c2) continue;
            std::vector<long> sizes;
            for (long s : tiny)
                if (s >= extent && s % extent == 0) sizes.push_back(s);
            fill_operands(buf, 0, opf::data::Kind::Random, pr.op, pr.kt, std::size_t(tiny.back() / extent));
            // A loss is timed twice before it counts: crossover stops at the
            // first loss from the top, so one disturbed median at 1 KiB once
            // sent every count below 2 KiB to the base (three probes of six
            // "above 1 KiB" in one run, 64-128 B in the next, same machine).
            const long from = crossover(sizes, [&](long s) {
                const opf_count_t n = s / extent;
                auto wins = [&] {
                    const std::vector<double> ns =
                        medians_ns({in_place(c2, pr.op, buf.a, buf.inv, buf.b, n), in_place(b2, pr.op, buf.a, buf.inv, buf.b, n)});
                    return ns[0] <= ns[1];
                };
                return wins() || wins();
            });
            const long at = from < 0 ? 2 * sizes.back() : from;
            found.push_back(at);
            detail += (detail.empty() ? "" : ", ") + std::string(opf_op_name(op_handle(pr.op))) + " " +
                      opf_kernel_type_name(pr.kt) + " " + (from < 0 ? "above " + size_text(sizes.back()) : size_text(from));
        }
        if (found.empty()) continue;
        std::sort(found.begin(), found.end());
        const long chosen = found[found.size() / 2];
        out.add("# Tiny-count tier: " + p.name + " beats the base from (2-buffer, in place, repeated): " + detail +
                "; the median");
        out.add("op_" + p.name + "_min_bytes = " + std::to_string(chosen));
        std::fprintf(stderr, "opframe_tune: op_%s_min_bytes = %ld (%s)\n", p.name.c_str(), chosen, detail.c_str());
    }

    // 4. The streaming tier: the component's stream kernel against its plain one (3-buffer SUM FLOAT).
    // (4 to 6 on random floats: a and b up to the largest size, inv a's negation.)
    fill_operands(buf, 0, opf::data::Kind::Random, OPF_OPID_SUM, OPF_KT_FLOAT,
                  std::size_t(mode.quick ? 4L << 20 : 64L << 20) / 4);
    const std::vector<long> big = mode.quick ? std::vector<long>{1L << 20, 4L << 20}
                                             : std::vector<long>{1L << 20, 2L << 20, 4L << 20, 8L << 20, 16L << 20,
                                                                 32L << 20, 64L << 20};
    for (const Provider &p : providers) {
        if (p.name == "base" || !param_exists("op_" + p.name + "_stream_min_bytes")) continue;
        opf_kernel2_fn *f2 = nullptr;
        opf_kernel3_fn *plain = nullptr, *stream = nullptr;
        if (opf_slot_kernels(OPF_OPID_SUM, OPF_KT_FLOAT, p.name.c_str(), 1024, &f2, &plain) != OPF_SUCCESS || !plain) continue;
        if (opf_slot_kernels(OPF_OPID_SUM, OPF_KT_FLOAT, p.name.c_str(), opf_count_t(1) << 40, &f2, &stream) != OPF_SUCCESS ||
            !stream || stream == plain) {
            out.add("# Streaming tier: " + p.name + " offers none here (no last-level cache size known?)");
            continue;
        }
        // Every size measured, each kernel timed alone (its samples one
        // after another), not interleaved: a size takes one tier for every
        // call, and the stream kernel's calls leave the output out of the
        // caches, which the plain kernel's next call, interleaved, would pay
        // for (a 2-vCPU Zen 5, 4 MiB: stream 1.05x plain interleaved, 0.91x
        // alone).
        std::vector<double> speedup;
        std::string detail;
        for (long s : big) {
            const opf_count_t n = s / 4;
            const double tp = median_ns([&] { plain(buf.a, buf.b, buf.c, n); });
            const double ts = median_ns([&] { stream(buf.a, buf.b, buf.c, n); });
            speedup.push_back(tp / ts);
            char item[96];
            std::snprintf(item, sizeof item, "%s%s %.2fx", detail.empty() ? "" : ", ", size_text(s).c_str(), tp / ts);
            detail += item;
        }
        // The tier starts at the smallest size where the stream kernel wins
        // by kStreamMargin there and in the geometric mean from there to the
        // largest, and loses at none of those sizes: one size's noise (a
        // neighbour's burst on a shared VM) cannot push the tier past every
        // size, and no size inside the tier runs slower for it.
        long chosen = 2 * big.back();
        double log_sum = 0, least = INFINITY;   // over the speed-ups from size i up
        for (std::size_t i = big.size(); i-- > 0;) {
            log_sum += std::log(speedup[i]);
            least = std::min(least, speedup[i]);
            if (least < 1.0) break;
            if (speedup[i] >= kStreamMargin && std::exp(log_sum / double(big.size() - i)) >= kStreamMargin) chosen = big[i];
        }
        char rule[200];
        std::snprintf(rule, sizeof rule, "from the least size where it wins %.2fx there and in the geometric mean "
                      "above, and loses at none of them", kStreamMargin);
        out.add("# Streaming tier: " + p.name + " stream/plain speed-up, 3-buffer SUM FLOAT, each kernel timed alone (" +
                rule + "): " + detail + (chosen > big.back() ? "; it never did: the tier starts above them" : ""));
        out.add("op_" + p.name + "_stream_min_bytes = " + std::to_string(chosen));
        std::fprintf(stderr, "opframe_tune: op_%s_stream_min_bytes = %ld (%s)\n", p.name.c_str(), chosen, detail.c_str());
    }

    // 5. The worker pool: the full call with two threads against one.
    const int cores = std::max(hw.cores, 1);
    if (cores >= 2 && param_exists("op_base_threads_min_bytes")) {
        const std::vector<long> sizes = mode.quick ? std::vector<long>{1L << 20, 4L << 20}
                                                   : std::vector<long>{256L << 10, 512L << 10, 1L << 20, 2L << 20,
                                                                       4L << 20, 8L << 20, 16L << 20, 32L << 20};
        // op_base_threads is read at opf_init: one init per setting and
        // round, the rounds alternating (interleaved, as medians_ns).
        std::map<long, std::vector<double>> samples[2];
        const Mode saved = mode;
        mode.samples = 1;
        for (int round = 0; round < saved.samples; ++round)
            for (int k = 0; k < 2; ++k) {
                opf_finalize();
                opf_param_set("op_base_threads", k == 0 ? "1" : "2");
                opf_param_set("op_base_threads_min_bytes", "4K");
                if (opf_init() != OPF_SUCCESS) continue;
                for (long s : sizes) {
                    const opf_count_t n = s / 4;
                    samples[k][s].push_back(median_ns([&, flip = false]() mutable {
                        opf_reduce_local((flip = !flip) ? buf.a : buf.inv, buf.b, n, OPF_FLOAT, OPF_SUM);
                    }));
                }
            }
        mode = saved;
        std::map<long, double> one, two;
        for (int k = 0; k < 2; ++k)
            for (const auto &[size, v] : samples[k]) (k == 0 ? one : two)[size] = median_of(v);
        opf_finalize();
        opf_param_set("op_base_threads", nullptr);
        opf_param_set("op_base_threads_min_bytes", nullptr);
        opf_init();
        std::string detail;
        for (long s : sizes)
            if (one.count(s) && two.count(s)) {
                char item[64];
                std::snprintf(item, sizeof item, "%s %.2fx", size_text(s).c_str(), one.at(s) / two.at(s));
                detail += (detail.empty() ? "" : ", ") + std::string(item);
            }
        const long from = crossover(sizes, [&](long s) { return one.count(s) && two.count(s) && two.at(s) < one.at(s); });
        const long share = from < 0 ? sizes.back() : from / 2;   // the parameter is each thread's least share
        out.add("# Worker pool: 2 threads / 1 thread, 2-buffer SUM FLOAT full call: " + detail +
                (from < 0 ? "; two never won: only calls above twice the largest size would use them"
                          : "; each thread's share from the first size won on"));
        out.add("op_base_threads_min_bytes = " + std::to_string(share));
        std::fprintf(stderr, "opframe_tune: op_base_threads_min_bytes = %ld (%s)\n", share, detail.c_str());
    } else {
        out.add("# Worker pool: not measured (one core)");
    }

    // 6. The cuda component (a GPU): its mixed synchronous calls staged or on the host path.
    const bool have_cuda = std::any_of(providers.begin(), providers.end(), [](const Provider &p) { return p.name == "cuda"; });
    if (have_cuda && param_exists("op_cuda_staging_min_count")) {
        const std::vector<long> counts = mode.quick ? std::vector<long>{1, 256, 4096}
                                                    : std::vector<long>{1, 16, 256, 4096, 65536, 1L << 20};
        DeviceBuffer device(std::size_t(counts.back()) * sizeof(float));
        void *dev = device.get();
        const int rc = dev ? opf_reduce_local(buf.a, dev, 1, OPF_FLOAT, OPF_SUM) : OPF_SUCCESS;
        if (!dev || rc != OPF_SUCCESS) {
            const std::string why = dev ? std::string("a mixed call failed: ") + opf_last_error() : device.why();
            out.add("# cuda: op_cuda_staging_min_count not measured: " + why);
            std::fprintf(stderr, "opframe_tune: cuda: not measured: %s\n", why.c_str());
        } else {
            // Staged from count 1, or never up to twice the largest count, set
            // before each sample (the parameter is live: read at every call).
            const std::string never = std::to_string(2 * counts.back());
            std::map<long, std::vector<double>> staged, host;
            const Mode saved = mode;
            mode.samples = 1;
            for (int round = 0; round < saved.samples; ++round)
                for (long count : counts) {
                    auto call = [&, n = opf_count_t(count)] { opf_reduce_local(buf.a, dev, n, OPF_FLOAT, OPF_SUM); };
                    opf_param_set("op_cuda_staging_min_count", "1");
                    staged[count].push_back(median_ns(call));
                    opf_param_set("op_cuda_staging_min_count", never.c_str());
                    host[count].push_back(median_ns(call));
                }
            mode = saved;
            opf_param_set("op_cuda_staging_min_count", nullptr);
            std::string detail;
            for (long count : counts) {
                char item[96];
                std::snprintf(item, sizeof item, "%ld: %.1f / %.1f", count, median_of(staged[count]) / 1e3,
                              median_of(host[count]) / 1e3);
                detail += (detail.empty() ? "" : ", ") + std::string(item);
            }
            const long from = crossover(counts, [&](long c) { return median_of(staged[c]) <= median_of(host[c]); });
            const long chosen = from < 0 ? 2 * counts.back() : from;
            out.add("# cuda: mixed synchronous calls (SUM FLOAT, host in, device inout), staged / on the host, us "
                    "at each count: " + detail + (from < 0 ? "; staging never won: the host path up to twice the "
                                                            "largest count"
                                                          : "; staged from the first count it won at and above"));
            out.add("op_cuda_staging_min_count = " + std::to_string(chosen));
            std::fprintf(stderr, "opframe_tune: op_cuda_staging_min_count = %ld (%s)\n", chosen, detail.c_str());
        }
    }

    if (!pins.empty()) {
        out.add("# Per slot: the provider whose kernels were fastest over the size classes, where the priorities pick");
        out.add("# another (opf_tuning_note_* below says by how much).");
        out.add("op_base_pin = \"" + pins + "\"");
    }
    for (const std::string &n : notes) out.add(n);

    const double took = std::chrono::duration<double>(Clock::now() - started).count();
    const std::string tmp = output + ".tmp";
    FILE *f = std::fopen(tmp.c_str(), "w");
    if (!f) {
        std::fprintf(stderr, "opframe_tune: cannot write %s: %s\n", tmp.c_str(), std::strerror(errno));
        return 1;
    }
    std::fprintf(f, "# opframe tuning file, written by opframe_tune %s (%s mode, %.1f s).\n", PACKAGE_VERSION,
                 mode.quick ? "quick" : "full", took);
    std::fprintf(f, "# opf_init reads it below the parameter files (a value set there, in the environment or by the\n"
                    "# API wins) and ignores it, with a warning, on another CPU, ISA set or opframe/component\n"
                    "# versions. Remove it to return to the priorities; run opframe_tune again after an upgrade.\n");
    std::fprintf(f, "opf_tuning_cpu = \"%s\"\nopf_tuning_isa = \"%s\"\nopf_tuning_versions = \"%s\"\n", hw.cpu_model,
                 isa, versions.c_str());
    std::fprintf(f, "opf_tuning_date = \"%s\"\nopf_tuning_mode = %s\n", date, mode.quick ? "quick" : "full");
    for (const std::string &l : out.lines) std::fprintf(f, "%s\n", l.c_str());
    const bool ok = std::fclose(f) == 0 && std::rename(tmp.c_str(), output.c_str()) == 0;
    if (!ok) {
        std::fprintf(stderr, "opframe_tune: cannot write %s: %s\n", output.c_str(), std::strerror(errno));
        std::remove(tmp.c_str());
        return 1;
    }
    std::fprintf(stderr, "opframe_tune: wrote %s in %.1f s\n", output.c_str(), took);
    opf_finalize();
    return 0;
}
