// conformance.cpp — opframe's conformance run, on the engine (test/engine):
// every provider against the independent reference of test/engine/reference.h.
//
//   * kernel level: every (op, kernel type) slot the library reports, for
//     each provider (the base, each available component's own offers, the
//     selected table), both the 2-buffer and the 3-buffer kernel, at every
//     ISA level the components can take: the run re-initialises opframe with
//     op_base_isa_mask hiding features (AVX512_FP16, AVX512_BF16, AVX-512 as
//     a whole) and checks each kernel it has not seen yet; with one buffer
//     for two operands where opframe_component(3) allows it, and (--deep,
//     --threads) on several threads at once (check_threads);
//   * datatype level: every predefined (op, datatype) through
//     opf_reduce_local / opf_reduce_local3, plus the valid-op matrix.
// Each call runs on guarded buffers (engine.h): guards before the start,
// after the true end and inside every element's padding, buffers against
// PROT_NONE pages, a fault captured and reported against its slot and
// provider. Results compare bit-exactly, except that any NaN matches any NaN
// and only data bytes count. The reference never uses library code.
//
// Usage: conformance [--seed N] [--function PAT]... [--bench] [--quick|--deep|--slow]
//                    [--provider NAME]... [--native] [--max-length N] [--lengths LIST]
//                    [--threads|--no-threads] [-v] [--self-test]
// (man/opframe_check.1 gives the lengths, layouts and thread check of each depth.)

#include "test/conformance.h"
#include "test/engine/reference.h"
#include "base/kernels.h"
#include "tools/data_kinds.h"

#include <opframe/introspect.h>
#include <opframe/opframe.h>

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include <dlfcn.h>

#ifdef CONF_OPENCL
#include "test/engine/opencl_backend.h"
#endif


namespace {

using engine::Alias;
using engine::CallLayout;
using engine::ElementLayout;
using engine::Fence;
using engine::GuardedBuffer;
using engine::Tally;

// Fill of a 3-buffer output before the call: 0xee bytes are no NaN in any
// of the formats, so an output never written cannot pass as "any NaN".
constexpr unsigned char kOutFill = 0xee;

template <class E> const ElementLayout& layout_for()
{
    static const ElementLayout l = layout_of<E>();
    return l;
}

// ===========================================================================
// Harness state, options and reporting.
// ===========================================================================
struct Provider {
    std::string label;               // what the summary shows
    std::optional<std::string> name; // nullopt: the selected table
    Tally tally;
    long slots = 0, skipped = 0;
    const char* c_name() const { return name ? name->c_str() : nullptr; }
};

struct Options {
    engine::Options e;
    bool native_only = false, self_test = false;
    std::string backend = "host";   // where the datatype level's buffers live: host, opencl
    int max_failures = 30;
    std::vector<std::string> providers;
};

// Describes one call, for failure messages.
struct CallInfo {
    const char* level = "";
    std::string op, type, provider;
    const CallLayout* layout = nullptr;
    size_t n = 0;
};

struct Harness;
// The lengths of each depth (man/opframe_check.1 lists them; slot_lengths
// adds the powers of two and the size tiers' lengths). Quick (make check):
// the self-test's lengths for an offer to every count among them (1, 2, 18,
// 1001, and 38 for the n-ary forms: add_selftest_lengths), so that no
// kernel op_base_selftest=1 drops passes the quick form.
const std::vector<size_t> kQuickLengths = {0, 1, 2, 3, 8, 17, 18, 38, 65, 1000, 1001};
// Deep: 0, every 2^k - 1, 2^k, 2^k + 1, 2^k + 3 for k = 1 .. 7, and the
// quick ones.
const std::vector<size_t> kDeepShortLengths = {0,  1,  2,  3,  4,  5,   7,   8,   9,   11,   15,   16,  17,
                                               18, 19, 31, 32, 33, 35,  38,  63,  64,  65,   67,   127, 128,
                                               129, 131, 1000, 1001, 4099};
// Slow: every length up to 67 as well.
const std::vector<size_t> kSlowShortLengths = [] {
    std::vector<size_t> v;
    for (size_t n = 0; n <= 67; ++n)
        v.push_back(n);
    v.insert(v.end(), {127, 128, 129, 131, 1000, 1001, 4099});
    return v;
}();
// The datatype level's lengths (every predefined datatype through
// opf_reduce_local, the way to the kernels): these, and each size tier's
// first count and its neighbours (datatype_lengths).
const std::vector<size_t> kDatatypeQuickLengths = {0, 1, 3, 8, 17, 65, 1000};
const std::vector<size_t> kDatatypeDeepLengths = {0, 1, 2, 3, 7, 8, 15, 16, 17, 31, 33, 63, 64, 65, 127, 1000, 4099};
class Reporter {
public:
    uint64_t seed = 0;
    int budget = 30;   // failures shown in detail
    std::string isa;   // the ISA level in force ("" at native)
    // Header of a failure, or false once the print budget is used up.
    bool begin(const CallInfo& c, const char* what)
    {
        if (budget == 0) {
            std::printf("  (further failures not shown; --max-failures N shows more)\n");
            --budget;
        }
        if (budget < 0)
            return false;
        --budget;
        std::printf("FAIL %s: %s op=%s type=%s provider=%s layout=\"%s\" (%s) n=%zu seed=%" PRIu64 "%s%s\n", what,
                    c.level, c.op.c_str(), c.type.c_str(), c.provider.c_str(), c.layout ? c.layout->name : "-",
                    c.layout ? engine::alias_name(c.layout->alias) : "-", c.n, seed, isa.empty() ? "" : " isa=",
                    isa.c_str());
        return true;
    }
};

// A kernel's identity across re-initialisations (a component reloaded at
// another ISA level may sit at another address): its file and offset.
using KernelId = std::pair<std::string, uintptr_t>;
KernelId kernel_id(void* fn)
{
    Dl_info info{};
    if (!fn || !dladdr(fn, &info) || !info.dli_fname)
        return {"", uintptr_t(fn)};
    return {info.dli_fname, uintptr_t(fn) - uintptr_t(info.dli_fbase)};
}
std::tuple<int, int, KernelId, KernelId> slot_key(int op_id, int kt, opf_kernel2_fn* fn2, opf_kernel3_fn* fn3)
{
    return {op_id, kt, kernel_id(reinterpret_cast<void*>(fn2)), kernel_id(reinterpret_cast<void*>(fn3))};
}

struct Harness {
    Options opt;
    std::vector<Provider> providers;
    std::vector<size_t> lengths;
    Reporter report;
    Tally kernel_total, datatype_total;
    long slots_checked = 0, faults = 0, warnings = 0;
    // Kernels already checked, by slot and pointers, with the ISA level and
    // the provider that checked them.
    std::map<std::tuple<int, int, KernelId, KernelId>, std::pair<int, std::string>> seen;
    // The same for n-ary kernels (opf_slot_kernel_n's OPF_FORM_N), by slot and pointer.
    std::map<std::tuple<int, int, KernelId>, std::pair<int, std::string>> seen_n;
    int level_index = 0;
    // The backend every call runs on (host memory unless a device one is built in).
    std::function<std::unique_ptr<engine::Target>(engine::HostCall2, engine::HostCall3)> host_target =
        [](engine::HostCall2 two, engine::HostCall3 three) {
            return std::make_unique<engine::HostTarget>(std::move(two), std::move(three));
        };
    // The datatype level's calls: opf_reduce_local(3) on host memory, or a
    // device backend's entry points; `backend_skips` slots it cannot run.
    std::function<std::unique_ptr<engine::Target>(opf_datatype_t, opf_op_t)> datatype_target =
        [this](opf_datatype_t type, opf_op_t op) {
            return host_target(
                [=](const void* in, void* io, size_t m) { return opf_reduce_local(in, io, opf_count_t(m), type, op); },
                [=](const void* x, const void* y, void* o, size_t m) {
                    return opf_reduce_local3(x, y, o, opf_count_t(m), type, op);
                });
        };
    std::function<bool(opf_datatype_t, opf_op_t, std::string*)> datatype_supported =
        [](opf_datatype_t, opf_op_t, std::string*) { return true; };
    bool device_backend = false;
    long backend_skips = 0;
    // --self-test: damages the result bytes of the next calls before comparing.
    std::function<void(unsigned char*, size_t)> corrupt;
};

const char* or_unknown(const char* s) { return s ? s : "?"; }
std::string op_label(int op_id) { return or_unknown(opf_op_name(OPF_OP_HANDLE_(op_id))); }
std::string lower(std::string s)
{
    for (char& c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// The layouts a length runs (engine.h: each layout's reach; --slow: all).
// Above kMediumLength (below --slow) a length runs two of the Big ones, the
// 2-buffer one and one 3-buffer one, the slots and lengths taking the
// 3-buffer ones in turn (`turn`): buffers of megabytes cost their copies and
// compares more than the kernel costs.
std::vector<const CallLayout*> layouts_for(const Harness& h, size_t n, size_t turn)
{
    std::vector<const CallLayout*> all, out, three;
    for (const CallLayout& l : engine::call_layouts())
        if (engine::layout_runs(l, n, h.opt.e.slow()))
            all.push_back(&l);
    if (n <= engine::kMediumLength || h.opt.e.slow())
        return all;
    for (const CallLayout* l : all)
        (engine::alias_two(l->alias) ? out : three).push_back(l);
    if (!three.empty())
        out.push_back(three[turn % three.size()]);
    return out;
}

// The datatype level checks the way to the kernels (which the kernel level
// checks in depth): each alias once, against a page (all layouts: --slow).
// One buffer for both operands (host memory's rule, opf_reduce_local(3); a
// device backend leaves it out) runs up to kShortLength elements: the call
// hands the pointers on as they are, and the kernel level checks the
// kernels with them.
std::vector<const CallLayout*> datatype_layouts(const Harness& h, size_t n)
{
    std::vector<const CallLayout*> out;
    for (const CallLayout& l : engine::call_layouts()) {
        if (engine::alias_self(l.alias) && (h.device_backend || (n > engine::kShortLength && !h.opt.e.slow())))
            continue;
        if (h.opt.e.slow() || (l.alias == Alias::Two && l.fence == Fence::PageAfter) ||
            (l.alias == Alias::Distinct3 && l.fence == Fence::PageBefore) ||
            (l.alias == Alias::OutIsIn1 && l.fence == Fence::PageAfter) ||
            (l.alias == Alias::OutIsIn2 && l.fence == Fence::PageBefore) ||
            (l.alias == Alias::TwoSame && l.fence == Fence::PageAfter) ||
            (l.alias == Alias::AllSame3 && l.fence == Fence::PageAfter && !h.opt.e.quick()))
            out.push_back(&l);
    }
    return out;
}

// ===========================================================================
// Element types at run time. The checking code below is compiled once; only
// what needs the type (comparing, printing, drawing operands, the reference)
// is compiled once per type.
// ===========================================================================
struct ElementKind {
    const ElementLayout* layout;
    size_t size;
    bool (*same)(const unsigned char* want, const unsigned char* got);   // any NaN matches any NaN
    std::string (*show)(const unsigned char* element);
};
template <class E> const ElementKind& kind_of()
{
    static const ElementKind k{&layout_for<E>(), sizeof(E),
                               [](const unsigned char* x, const unsigned char* y) {
                                   E a, b;
                                   std::memcpy(&a, x, sizeof a);
                                   std::memcpy(&b, y, sizeof b);
                                   return same(a, b);
                               },
                               [](const unsigned char* x) {
                                   E a;
                                   std::memcpy(&a, x, sizeof a);
                                   return show(a);
                               }};
    return k;
}

// k operand arrays of n elements and the reference's result, as bytes
// (k = 2 for the 2- and 3-buffer kernels and the datatype level); for
// k = 2 also srcs[0] op srcs[0], the result where one buffer is both
// operands (in == inout, in1 == in2), computed when first asked for (the
// reference is the costly part of a data set, the MX block types' most of all).
struct DataSet {
    const ElementKind* kind = nullptr;
    size_t n = 0;
    std::vector<std::vector<unsigned char>> srcs;
    std::vector<unsigned char> expect;
    std::function<std::vector<unsigned char>(const DataSet&)> make_self;   // null: no x op x (n-ary data)
    // The elements the vectors hold: n, or fewer for a repeated block
    // (tiled); element i of the call is element (start + i) % rows of them
    // (edge_sensitive chooses start).
    size_t rows = 0, start = 0;
    const unsigned char* at(const std::vector<unsigned char>& v, size_t i) const
    {
        return v.data() + ((start + i) % rows) * kind->size;
    }
    // Whether n elements at `got` equal the (repeated) bytes of v.
    bool same_bytes(const unsigned char* got, const std::vector<unsigned char>& v) const
    {
        const size_t unit = kind->size;
        for (size_t i = 0, pos = start % std::max<size_t>(rows, 1); i < n; pos = 0) {
            const size_t m = std::min(rows - pos, n - i);
            if (std::memcmp(got + i * unit, v.data() + pos * unit, m * unit) != 0)
                return false;
            i += m;
        }
        return true;
    }
    // Fills a buffer with source j.
    void fill(GuardedBuffer& b, size_t j) const { b.set_elements(srcs[j].data(), rows, start); }
    mutable std::optional<std::vector<unsigned char>> self_made = {};   // self()'s, once made
    // srcs[0] op srcs[0], or nullptr.
    const std::vector<unsigned char>* self() const
    {
        if (!make_self)
            return nullptr;
        if (!self_made)
            self_made = make_self(*this);
        return &*self_made;
    }
};

// A data set of n elements that repeats `block` (its sources and results
// alike: the reference works element by element). The long lengths use it:
// the reference and the random draws cost per element what the kernels
// cost per vector, so a fresh data set per length made lengths of 2^20
// unaffordable for every slot. A block of kMediumLength (4,099, odd and
// prime) elements never lines up with a vector, a cache line or a power of
// two, so no element of a kernel's blocking sees the same neighbours twice.
// The block is not copied out n times: the buffers are filled from it and
// compared with it block by block (DataSet::rows).
DataSet tiled(const DataSet& block, size_t n)
{
    DataSet d = block;
    d.n = n;
    return d;
}

// Starts the data set where its first and its last element each have a
// result that differs from every source, if such a start is found in a few
// tries (a rotation: the reference works element by element). A kernel that
// skips or mishandles an edge element then always shows it: with the
// random operands as they come, 1 in 11 int32 pairs has a left operand of 0
// and SUM's result equals the right one, and a repeated block would have
// hidden the same edge at every long length.
void edge_sensitive(DataSet& d, uint64_t seed)
{
    if (d.n == 0 || d.rows == 0)
        return;
    const ElementKind& K = *d.kind;
    auto telling = [&](size_t i) {
        for (const auto& src : d.srcs)
            if (K.same(d.at(d.expect, i), d.at(src, i)))
                return false;
        return true;
    };
    const size_t first = size_t(seed % d.rows);
    for (size_t t = 0; t < 64; ++t) {
        d.start = (first + t * 7919) % d.rows;
        if (telling(0) && telling(d.n - 1))
            return;
    }
    d.start = first;
}
template <class E> std::vector<unsigned char> as_bytes(const std::vector<E>& v)
{
    std::vector<unsigned char> b(v.size() * sizeof(E));
    if (!b.empty())   // (length 0: no buffer to copy from)
        std::memcpy(b.data(), v.data(), b.size());
    return b;
}
// Sources drawn in pairs, so that ties and the special values gen_operands
// pairs up meet; the reference's result (2-buffer reference for k = 2 when
// given, the n-ary one otherwise).
template <class E> DataSet make_data(const std::vector<std::vector<E>>& srcs, RefFn<E> ref, RefNFn<E> ref_n)
{
    const size_t n = srcs[0].size();
    std::vector<E> expect(n);
    if (ref) {
        ref(srcs[0].data(), srcs[1].data(), expect.data(), n);
    } else {
        std::vector<const E*> in;
        for (const auto& v : srcs)
            in.push_back(v.data());
        ref_n(in.data(), int(srcs.size()), expect.data(), n);
    }
    DataSet d{&kind_of<E>(), n, {}, as_bytes(expect), nullptr, n};
    if (ref)
        d.make_self = [ref](const DataSet& data) {
            std::vector<E> x(data.rows), self(data.rows);
            if (data.rows)
                std::memcpy(x.data(), data.srcs[0].data(), data.rows * sizeof(E));
            ref(x.data(), x.data(), self.data(), data.rows);
            return as_bytes(self);
        };
    for (const auto& v : srcs)
        d.srcs.push_back(as_bytes(v));
    return d;
}
template <class E> std::vector<std::vector<E>> draw_sources(uint64_t seed, int k, size_t n)
{
    Rng r(seed);
    std::vector<std::vector<E>> srcs(size_t(k), std::vector<E>(n, E{}));
    E spare;
    for (size_t i = 0; i < n; ++i)
        for (int j = 0; j < k; j += 2)
            gen_operands(r, srcs[size_t(j)][i], j + 1 < k ? srcs[size_t(j) + 1][i] : spare);
    return srcs;
}
template <class E> DataSet make_data(uint64_t seed, RefFn<E> ref, size_t n)
{
    return make_data<E>(draw_sources<E>(seed, 2, n), ref, nullptr);
}
template <class E> DataSet make_data_n(uint64_t seed, RefNFn<E> ref_n, int k, size_t n)
{
    return make_data<E>(draw_sources<E>(seed, k, n), nullptr, ref_n);
}

// ===========================================================================
// One checked call: fill guarded buffers, call (faults captured), then
// verify the guards and padding, the inputs and every result element.
// ===========================================================================
// A buffer of a call, for verify(): its name in messages, and the source it
// holds that must come back unchanged (none: the result, or a 3-buffer out).
struct CallBuffer {
    std::string name;
    GuardedBuffer* buf;
    const std::vector<unsigned char>* source;
};

// The problems of one checked call. A failed check is one FAIL line, headed
// by its first problem; any other problem of the same call follows on the
// lines below it. So a summary's count of failures is its count of FAIL lines.
class Findings {
public:
    Findings(Harness& h, const CallInfo& info) : h_(h), info_(info) {}
    // Notes a problem; true if its details are to be printed.
    bool add(const char* what);
    bool failed() const { return failed_; }

private:
    Harness& h_;
    const CallInfo& info_;
    bool failed_ = false, shown_ = false;
};

// After the call: guards and padding of every buffer, every source that is
// not the result unchanged (data bytes only), the result against `expect`
// element by element.
bool verify(Harness& h, const CallInfo& info, const DataSet& d, const std::vector<CallBuffer>& bufs,
            GuardedBuffer* result, const std::vector<unsigned char>& expect, bool self = false)
{
    const ElementKind& K = *d.kind;
    Findings found(h, info);
    for (const CallBuffer& b : bufs) {
        if (auto dmg = b.buf->damage()) {
            if (found.add("guard bytes overwritten"))
                std::printf("  buffer %s: %s (%zu guard/padding bytes changed in all; buffer is %zu bytes)\n",
                            b.name.c_str(), dmg->where.c_str(), b.buf->damaged_bytes(), b.buf->bytes());
        }
        if (!b.source || b.buf == result)
            continue;
        // (one compare first: the walk below is for the message)
        if (K.layout->dense() && d.same_bytes(b.buf->data(), *b.source))
            continue;
        for (size_t i = 0; i < d.n; ++i) {
            const unsigned char *was = d.at(*b.source, i), *now = b.buf->data() + i * K.size;
            bool same_bytes = true;
            for (const ElementLayout::Field& f : K.layout->fields)
                same_bytes &= std::memcmp(was + f.offset, now + f.offset, f.size) == 0;
            if (!same_bytes) {
                if (found.add("input modified"))
                    std::printf("  buffer %s: element %zu was %s, now %s\n", b.name.c_str(), i, K.show(was).c_str(),
                                K.show(now).c_str());
                break;
            }
        }
    }

    if (h.corrupt)
        h.corrupt(result->data(), d.n);
    const size_t k = d.srcs.size();
    // Bit-identical results need no element-wise compare (any NaN matches any NaN is for the rest).
    if (K.layout->dense() && d.same_bytes(result->data(), expect))
        return !found.failed();
    size_t bad = 0;
    bool shown = false;
    for (size_t i = 0; i < d.n; ++i) {
        const unsigned char* got = result->data() + i * K.size;
        if (K.same(d.at(expect, i), got))
            continue;
        if (bad++ == 0)
            shown = found.add("wrong result");
        if (bad > 2 || !shown)
            continue;
        std::printf("  index    %zu\n", i);
        if (self)   // both operands were this element
            std::printf("  x        %s\n", K.show(d.at(d.srcs[0], i)).c_str());
        else
            for (size_t j = 0; j < k && j < 8; ++j)
                if (k == 2)
                    std::printf("  %-8s %s\n", j ? "right" : "left", K.show(d.at(d.srcs[j], i)).c_str());
                else
                    std::printf("  srcs %-3zu %s\n", j, K.show(d.at(d.srcs[j], i)).c_str());
        if (k > 8)
            std::printf("  ...      (%zu sources)\n", k);
        std::printf("  expected %s\n", K.show(d.at(expect, i)).c_str());
        std::printf("  got      %s\n", K.show(got).c_str());
    }
    if (shown && bad > 2)
        std::printf("  %zu wrong elements in all\n", bad);
    return !found.failed();
}

bool Findings::add(const char* what)
{
    if (!failed_) {
        failed_ = true;
        shown_ = h_.report.begin(info_, what);
    } else if (shown_) {
        std::printf("  and %s:\n", what);
    }
    return shown_;
}

bool report_fault(Harness& h, const CallInfo& info, int sig, Fence fence)
{
    ++h.faults;
    if (h.report.begin(info, "fault"))
        std::printf("  %s during the call: it read or wrote outside its buffers (%s)\n", engine::signal_name(sig),
                    engine::fence_name(fence));
    return false;
}

// A 2- or 3-buffer call (the layout's alias says which) on d's two sources;
// where the alias makes one buffer both operands, it holds srcs[0] and the
// result is srcs[0] op srcs[0].
bool check_call(Harness& h, engine::Target& t, const CallInfo& info, const DataSet& d)
{
    const CallLayout& lay = *info.layout;
    const ElementLayout& L = *d.kind->layout;
    const size_t n = d.n;
    const Fence fence = t.host_memory() ? lay.fence : Fence::Bytes;
    const bool two = engine::alias_two(lay.alias), self = engine::alias_self(lay.alias);
    if (two ? !t.has_two() : !t.has_three())
        return true;
    if (self && !d.self())
        return true;   // (no reference for x op x: not a pairs data set)
    auto make = [&](int k) { return std::make_unique<GuardedBuffer>(L, n, lay.shift[k] * d.kind->size, fence); };
    std::unique_ptr<GuardedBuffer> in1 = make(0), in2, out;
    d.fill(*in1, 0);
    if (!self) {
        in2 = make(1);
        d.fill(*in2, 1);
    }
    if (lay.alias == Alias::Distinct3 || lay.alias == Alias::In1IsIn2) {
        out = make(2);
        out->fill_data(kOutFill);
    }

    int rc = OPF_SUCCESS;
    const int sig = engine::run_capturing_faults([&] {
        switch (lay.alias) {
        case Alias::Two: rc = t.two(*in1, *in2, n); break;
        case Alias::TwoSame: rc = t.two(*in1, *in1, n); break;
        case Alias::Distinct3: rc = t.three(*in1, *in2, *out, n); break;
        case Alias::OutIsIn1: rc = t.three(*in1, *in2, *in1, n); break;
        case Alias::OutIsIn2: rc = t.three(*in1, *in2, *in2, n); break;
        case Alias::In1IsIn2: rc = t.three(*in1, *in1, *out, n); break;
        case Alias::AllSame3: rc = t.three(*in1, *in1, *in1, n); break;
        }
    });
    if (sig)
        return report_fault(h, info, sig, fence);
    if (rc != OPF_SUCCESS) {
        if (h.report.begin(info, "return code"))
            std::printf("  returned %d, expected OPF_SUCCESS (last error: %s)\n", rc, opf_last_error());
        return false;
    }
    GuardedBuffer* result = out ? out.get() : (lay.alias == Alias::Two || lay.alias == Alias::OutIsIn2) ? in2.get() : in1.get();
    std::vector<CallBuffer> bufs;
    switch (lay.alias) {
    case Alias::TwoSame: bufs = {{"in==inout", in1.get(), nullptr}}; break;
    case Alias::In1IsIn2: bufs = {{"in1==in2", in1.get(), &d.srcs[0]}}; break;
    case Alias::AllSame3: bufs = {{"in1==in2==out", in1.get(), nullptr}}; break;
    default:
        bufs = {{two ? "in" : "in1", in1.get(), &d.srcs[0]}, {two ? "inout" : "in2", in2.get(), &d.srcs[1]}};
    }
    if (out)
        bufs.push_back({"out", out.get(), nullptr});
    return verify(h, info, d, bufs, result, self ? *d.self() : d.expect, self);
}

// One checked n-ary call (opf_kernel_n_fn, d's k sources) on the 3-buffer
// layouts of the engine's table: sources take in1's shift when even and
// in2's when odd (misaligned by elements), dst is a buffer of its own
// (Distinct3, out's shift), srcs[0] (OutIsIn1) or srcs[k-1] (OutIsIn2).
bool check_call_n(Harness& h, opf_kernel_n_fn* fn, const CallInfo& info, const DataSet& d)
{
    const CallLayout& lay = *info.layout;
    const ElementLayout& L = *d.kind->layout;
    const int k = int(d.srcs.size());
    const size_t n = d.n;
    std::vector<std::unique_ptr<GuardedBuffer>> in;
    std::vector<CallBuffer> bufs;
    for (int j = 0; j < k; ++j) {
        in.push_back(std::make_unique<GuardedBuffer>(L, n, lay.shift[j % 2] * d.kind->size, lay.fence));
        d.fill(*in.back(), size_t(j));
        bufs.push_back({"srcs " + std::to_string(j), in.back().get(), &d.srcs[size_t(j)]});
    }
    std::unique_ptr<GuardedBuffer> own;
    GuardedBuffer* result;
    switch (lay.alias) {
    case Alias::OutIsIn1: result = in.front().get(); break;
    case Alias::OutIsIn2: result = in.back().get(); break;
    default:
        own = std::make_unique<GuardedBuffer>(L, n, lay.shift[2] * d.kind->size, lay.fence);
        own->fill_data(kOutFill);
        bufs.push_back({"dst", own.get(), nullptr});
        result = own.get();
    }
    std::vector<const void*> ptrs;
    for (auto& b : in)
        ptrs.push_back(b->data());
    const int sig = engine::run_capturing_faults([&] { fn(ptrs.data(), k, result->data(), opf_count_t(n), nullptr); });
    if (sig)
        return report_fault(h, info, sig, lay.fence);
    return verify(h, info, d, bufs, result, d.expect);
}

// One slot's element type and references, for check_slot (compiled once):
// null functions where the spec defines no such op.
struct SlotData {
    const ElementKind* kind = nullptr;
    std::function<DataSet(uint64_t seed, size_t n)> pairs;
    std::function<DataSet(uint64_t seed, int k, size_t n)> sources;
    // 8- and 16-bit floats: every bit pattern (8-bit: every pair) as the left
    // operand, or as the right one; null for the other types.
    std::function<DataSet(uint64_t seed, bool as_right)> patterns;
    // Operands drawn as the tuner and the benchmark time kernels
    // (tools/data_kinds.h: one definition of each kind), for kernel type kt.
    std::function<DataSet(opf::data::Kind kind, int kt, int op_id, uint64_t seed, size_t n)> kinds;
};
template <class E> SlotData slot_data(int op_id)
{
    SlotData s{&kind_of<E>(), nullptr, nullptr, nullptr, nullptr};
    if (const RefFn<E> ref = reference_for<E>(op_id)) {
        s.pairs = [ref](uint64_t seed, size_t n) { return make_data<E>(seed, ref, n); };
        s.kinds = [ref](opf::data::Kind kind, int kt, int op, uint64_t seed, size_t n) {
            std::vector<std::vector<E>> srcs(2, std::vector<E>(n));
            for (size_t j = 0; j < 2; ++j)   // (check_slot has checked that E and kt have one size)
                opf::data::fill(kind, kt, op, reinterpret_cast<unsigned char*>(srcs[j].data()), n, seed + j);
            return make_data<E>(srcs, ref, nullptr);
        };
        if constexpr (Narrow<E>) {
            // 16-bit floats: every bit pattern once as the left operand, so
            // the conversions are exercised on all of them (ties with the
            // right operand kept every fourth element); 8-bit floats: every pair.
            s.patterns = [ref](uint64_t seed, bool as_right) {
                std::vector<std::vector<E>> srcs = draw_sources<E>(seed, 2, 65536);
                for (size_t i = 0; i < 65536; ++i) {
                    if constexpr (sizeof(E) == 1) {
                        srcs[0][i].bits = uint8_t(i >> 8);
                        srcs[1][i].bits = uint8_t(i);
                    } else {
                        srcs[0][i].bits = uint16_t(i);
                        if (i % 4 == 0)
                            srcs[1][i] = srcs[0][i];
                    }
                }
                if (as_right)
                    std::swap(srcs[0], srcs[1]);
                return make_data<E>(srcs, ref, nullptr);
            };
        }
    }
    if (const RefNFn<E> ref_n = reference_n_for<E>(op_id))
        s.sources = [ref_n](uint64_t seed, int k, size_t n) { return make_data_n<E>(seed, ref_n, k, n); };
    return s;
}

// ===========================================================================
// Kernel level.
// ===========================================================================
void sentinel2(const void*, void*, opf_count_t) {}
void sentinel3(const void*, const void*, void*, opf_count_t) {}

std::unique_ptr<engine::Target> kernel_target(Harness& h, opf_kernel2_fn* fn2, opf_kernel3_fn* fn3)
{
    engine::HostCall2 two;
    engine::HostCall3 three;
    if (fn2)
        two = [fn2](const void* in, void* io, size_t m) { fn2(in, io, opf_count_t(m)); return 0; };
    if (fn3)
        three = [fn3](const void* x, const void* y, void* o, size_t m) { fn3(x, y, o, opf_count_t(m)); return 0; };
    return h.host_target(std::move(two), std::move(three));
}

// --bench: the median time of every provider's 2-buffer kernel of a slot
// on the same data, side by side, with the speed-up over the base.
void bench_slot(Harness& h, int op_id, int kt, const SlotData& s, const std::string& op, const std::string& type)
{
    std::vector<size_t> counts = {4096};
    if (h.opt.e.slow())
        counts = {64, 4096, 262144};
    for (size_t n : counts) {
        const DataSet d = s.pairs(derive_seed(h.opt.e.seed, op_id, kt, n), n);
        std::string line;
        double base_ns = 0;
        int shown = 0;
        for (Provider& prov : h.providers) {
            if (!h.opt.e.selected(prov.label, lower(op), lower(type)))
                continue;
            opf_kernel2_fn* fn2 = nullptr;
            opf_kernel3_fn* fn3 = nullptr;
            if (opf_slot_kernels(op_id, kt, prov.c_name(), opf_count_t(n), &fn2, &fn3) != OPF_SUCCESS || !fn2)
                continue;
            GuardedBuffer in(*s.kind->layout, n, 0, Fence::Bytes), io(*s.kind->layout, n, 0, Fence::Bytes);
            d.fill(in, 0);
            d.fill(io, 1);
            // NO_OP and REPLACE leave the data as they were; the others may
            // drift towards NaN or inf over the repetitions, as every
            // provider's data does alike.
            const double ns = engine::median_ns([&] { fn2(in.data(), io.data(), opf_count_t(n)); }, 15);
            std::string who = prov.label;
            if (!prov.name)
                who += "->" + std::string(or_unknown(opf_slot_provider(op_id, kt, 2, opf_count_t(n))));
            char cell[96];
            if (prov.name && *prov.name == "base") {
                base_ns = ns;
                std::snprintf(cell, sizeof cell, "  %s %.0f ns", who.c_str(), ns);
            } else {
                std::snprintf(cell, sizeof cell, "  %s %.0f ns%s", who.c_str(), ns, base_ns > 0 ? "" : "");
                if (base_ns > 0) {
                    char ratio[24];
                    std::snprintf(ratio, sizeof ratio, " (%.2fx)", base_ns / ns);
                    std::strncat(cell, ratio, sizeof cell - std::strlen(cell) - 1);
                }
            }
            line += cell;
            ++shown;
        }
        if (shown)
            std::printf("bench %-7s %-22s n=%-7zu%s%s%s\n", op.c_str(), type.c_str(), n, line.c_str(),
                        h.report.isa.empty() ? "" : "  isa=", h.report.isa.c_str());
    }
}

// One length a slot runs at, and how.
struct SlotLength {
    size_t n;              // the call's count
    size_t kernel_count;   // the count whose kernels run (opf_slot_kernels): n, or a size tier's first count
    bool pairs, nary;      // the 2- and 3-buffer kernels; the n-ary ones
    bool light;            // the n-ary ones as at --quick: one k and one layout, in turn
    int nbuf = 0;          // pairs: the 2-buffer (2) or the 3-buffer kernel (3) alone; 0: both
};

// The lengths op_base_selftest runs an offer at, from its min_count m on
// (framework/components.cpp: passes_selftest, passes_selftest_n): m, m + 1,
// m + 17 and m + 1000 below 2^16, m + 17 from there on, and m + 37 for the
// n-ary forms, where m is the min_count clamped to 1 .. 2^20 (1 for an
// offer to every count: 1, 2, 18, 1001 and 38, all in kQuickLengths), each
// on that offer's kernel even where the count is below its min_count (the
// self-test calls it so). Every depth runs every one of them, and m - 1, the
// count below the tier, on the kernel that serves it.
void add_selftest_lengths(std::vector<SlotLength>& out, opf_count_t min_count)
{
    const size_t first = size_t(std::clamp<opf_count_t>(min_count, 1, opf_count_t(1) << 20));
    const size_t tier = std::max<size_t>(size_t(std::max<opf_count_t>(min_count, 0)), first);
    auto add = [&](size_t n, bool pairs) { out.push_back({n, std::max(n, tier), pairs, !pairs, false}); };
    if (first < (size_t(1) << 16)) {
        out.push_back({first - 1, first - 1, true, false, false});
        for (size_t d : {0, 1, 17, 1000})
            add(first + d, true);
    } else {
        add(first + 17, true);
    }
    add(first + 37, false);
}

// The min_count of each offer in a slot's host halves by the providers
// checked: a component's own ("selected": every component's). Read from
// opf_slot_explain, the one view of the offers a slot did not select, one
// line per offer: "  NAME priority P, counts >= M: ...".
std::vector<opf_count_t> offer_min_counts(const Harness& h, int op_id, int kt,
                                          const std::function<bool(const Provider&)>& chosen)
{
    std::vector<opf_count_t> out;
    std::vector<char> text(size_t(1) << 16);
    for (int nbuf : {2, 3}) {
        if (opf_slot_explain(op_id, kt, OPF_MEM_HOST, nbuf, text.data(), int(text.size())) != OPF_SUCCESS)
            continue;
        for (const char* line = text.data(); line; line = std::strchr(line + 1, '\n')) {
            const char* at = *line == '\n' ? line + 1 : line;
            const char* priority = std::strstr(at, " priority ");
            const char* end = std::strchr(at, '\n');
            if (std::strncmp(at, "  ", 2) != 0 || !priority || (end && priority > end))
                continue;
            const std::string name(at + 2, priority);
            const bool ours = std::any_of(h.providers.begin(), h.providers.end(), [&](const Provider& p) {
                return chosen(p) && (!p.name || *p.name == name);
            });
            const char* counts = std::strstr(priority, ", counts >= ");
            if (ours && counts && (!end || counts < end))
                out.push_back(std::strtoll(counts + 12, nullptr, 10));
        }
    }
    return out;
}

// The lengths a slot runs at (man/opframe_check.1 lists them). Deep and
// slow add the powers of two from 2^8 on with their neighbours 2^k - 1,
// 2^k + 1, 2^k + 3, where a kernel's blocking changes (a vector, an
// unrolled loop, a cache-sized block, a streaming tier): --slow runs all
// four of each for every slot; --deep one per slot and power, the slots
// taking them in turn (op id + kernel type + k, modulo 4), so that every
// slot meets every power of two and the slots together every neighbour.
// The MX block types (33 bytes and 32 values an element, microseconds a
// block in the reference and on the base's exact path) keep the quick
// lengths below --slow and stop at 2^12 + 3 blocks (131,168 values):
// test/mx_exhaustive runs every pair of their element codes through every
// provider. Other types go to 2^20 + 3.
std::vector<SlotLength> slot_lengths(const Harness& h, int op_id, int kt, const std::vector<opf_count_t>& min_counts)
{
    const engine::Options& o = h.opt.e;
    std::vector<SlotLength> ls;
    for (size_t n : o.lengths)
        ls.push_back({n, n, true, true, false});
    if (o.lengths.empty()) {
        const bool block = opf::base::kernel_type_is_block(kt);
        for (size_t n : o.quick() || (block && !o.slow()) ? kQuickLengths : o.slow() ? kSlowShortLengths : kDeepShortLengths)
            ls.push_back({n, n, true, true, o.quick()});
        // The powers of two: at --deep the n-ary forms as at --quick up to
        // kMediumLength, and beyond it one kernel per length, the 2-buffer,
        // the 3-buffer and the n-ary one in turn (op id + kernel type + k,
        // modulo 3): each meets lengths from 2^13 to 2^20, and at least
        // one of 2^17 .. 2^20, while a length of megabytes costs one call
        // rather than three.
        if (!o.quick())
            for (int k = 8; k <= (block ? 12 : 20); ++k) {
                const long offsets[] = {-1, 0, 1, 3};
                for (int j = 0; j < 4; ++j)
                    if (o.slow() || j == (op_id + kt + k) % 4) {
                        const size_t n = size_t((long(1) << k) + offsets[j]);
                        if (o.slow() || n <= engine::kMediumLength) {
                            ls.push_back({n, n, true, true, !o.slow()});
                            continue;
                        }
                        const int form = (op_id + kt + k) % 3;
                        ls.push_back({n, n, form < 2, form == 2, false, form < 2 ? form + 2 : 0});
                    }
            }
        for (opf_count_t m : min_counts)
            add_selftest_lengths(ls, m);
    }
    std::vector<SlotLength> out;
    std::sort(ls.begin(), ls.end(), [](const SlotLength& x, const SlotLength& y) {
        return std::tie(x.n, x.kernel_count) < std::tie(y.n, y.kernel_count);
    });
    for (const SlotLength& l : ls) {
        if (l.n > o.max_length)
            continue;
        if (!out.empty() && out.back().n == l.n && out.back().kernel_count == l.kernel_count) {
            SlotLength& m = out.back();
            m.light = (m.nary ? m.light : true) && (l.nary ? l.light : true);
            m.nbuf = !m.pairs ? l.nbuf : !l.pairs ? m.nbuf : m.nbuf == l.nbuf ? m.nbuf : 0;
            m.pairs |= l.pairs;
            m.nary |= l.nary;
        } else {
            out.push_back(l);
        }
    }
    return out;
}

// The thread check (--deep, --threads): kernels are called by several
// threads at once (op_base_threads splits one call into adjacent ranges,
// framework/workers.cpp; a program's threads call the same slot), so a
// kernel must keep no mutable state outside its buffers
// (opframe_component(3)). Threads (as many as the CPUs this process may
// use, 2 to 4), started together, each run the kernel on its own range of
// one call's buffers, the ranges adjacent: chunks of a multiple of 64
// elements (where the pool cuts; 256 KiB per operand and thread, a call of
// microseconds) and of 3 more (odd: the boundaries fall inside vectors),
// 2- and 3-buffer. The data is the slot's repeated block, which no chunk is
// a multiple of, so each range holds other values and a shared scratch
// buffer shows. A race shows only when calls overlap in time, which a busy
// machine may not grant: each thread times its call, and rounds go on until
// kOverlapsWanted rounds had two calls overlap by half the shorter one, or
// kThreadRounds rounds were run (a warning then says how few overlapped).
// MX block types: 64 and 67 blocks.
constexpr int kThreadRounds = 64, kOverlapsWanted = 4;
int thread_count()
{
    static const int n = std::clamp(engine::usable_cpus(), 2, 4);
    return n;
}

const CallLayout& thread_layout(bool two, size_t chunk)
{
    static std::map<std::pair<bool, size_t>, std::pair<std::string, CallLayout>> made;
    auto [it, fresh] = made.try_emplace({two, chunk});
    if (fresh) {
        char name[96];
        std::snprintf(name, sizeof name, "%s, %d threads on adjacent ranges of %zu", two ? "2-buffer" : "3-buffer",
                      thread_count(), chunk);
        it->second.first = name;
        it->second.second = CallLayout{it->second.first.c_str(), two ? Alias::Two : Alias::Distinct3, {0, 0, 0},
                                       Fence::Bytes, engine::Reach::Big};
    }
    return it->second.second;
}

// Whether two of the calls' [start, end) times overlap by at least half the
// shorter call.
bool calls_overlapped(const std::vector<std::pair<int64_t, int64_t>>& spans)
{
    for (size_t i = 0; i < spans.size(); ++i)
        for (size_t j = i + 1; j < spans.size(); ++j) {
            const int64_t common = std::min(spans[i].second, spans[j].second) - std::max(spans[i].first, spans[j].first);
            const int64_t shorter = std::min(spans[i].second - spans[i].first, spans[j].second - spans[j].first);
            if (common > 0 && 2 * common >= shorter)
                return true;
        }
    return false;
}

// How long one call of the kernel (fn2, or fn3 where fn2 is null) on d.n
// elements takes, in nanoseconds.
int64_t time_one_call(const SlotData& s, const DataSet& d, opf_kernel2_fn* fn2, opf_kernel3_fn* fn3)
{
    const ElementLayout& L = *s.kind->layout;
    GuardedBuffer in1(L, d.n, 0, Fence::Bytes), in2(L, d.n, 0, Fence::Bytes), out(L, d.n, 0, Fence::Bytes);
    d.fill(in1, 0);
    d.fill(in2, 1);
    const auto t0 = std::chrono::steady_clock::now();
    if (fn2)
        fn2(in1.data(), in2.data(), opf_count_t(d.n));
    else
        fn3(in1.data(), in2.data(), out.data(), opf_count_t(d.n));
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
}

bool check_threads(Harness& h, const SlotData& s, int kt, CallInfo info, opf_kernel2_fn* fn2, opf_kernel3_fn* fn3,
                   Tally& tally, size_t period, const std::function<DataSet(size_t)>& data_at)
{
    const int threads = thread_count();
    static engine::Team team(threads);
    const ElementLayout& L = *s.kind->layout;
    const size_t ext = s.kind->size;
    bool all_ok = true;
    for (bool two : {true, false}) {
        if (two ? !fn2 : !fn3)
            continue;
        // The chunk, for this kernel: 256 KiB per operand (MX block types: 64
        // blocks), four times more while one call takes under 20 us (up to
        // 4 MiB; a quarter while it takes over 200 us, down to 64 elements):
        // calls that short would rarely overlap (threads start some
        // microseconds apart). Calls under 20 us even then (NO_OP's 2-buffer
        // kernel: it touches nothing) are run kOverlapsWanted rounds, their
        // overlap unreported.
        size_t grain =
            opf::base::kernel_type_is_block(kt) ? 64 : std::max<size_t>(64, (size_t(256) << 10) / ext / 64 * 64);
        int64_t ns = 0;
        for (;; grain *= 4) {
            if (size_t(threads) * grain > h.opt.e.max_length)
                return all_ok;
            const DataSet d = data_at(grain);
            ns = INT64_MAX;   // (the fastest of three: a busy machine stretches some)
            for (int k = 0; k < 3; ++k)
                ns = std::min(ns, time_one_call(s, d, two ? fn2 : nullptr, fn3));
            if (ns >= 20000 || grain * ext >= (size_t(4) << 20))
                break;
        }
        // A slow kernel (soft float, long double): a quarter of the chunk
        // while a call takes over 200 us (the time scales with the count).
        for (; ns > 200000 && grain >= 256; ns /= 4)
            grain = grain / 4 / 64 * 64;
        const bool measurable = ns >= 20000;
        for (size_t chunk : {grain, grain + 3}) {
            if (chunk % period == 0)   // (every range would hold the same values)
                ++chunk;
            const size_t n = size_t(threads) * chunk;
            if (n > h.opt.e.max_length)
                continue;
            const DataSet d = data_at(n);
            info.n = n;
            info.layout = &thread_layout(two, chunk);
            GuardedBuffer in1(L, n, 0, Fence::Bytes), in2(L, n, 0, Fence::Bytes), out(L, two ? 0 : n, 0, Fence::Bytes);
            d.fill(in1, 0);
            d.fill(in2, 1);
            std::vector<std::pair<int64_t, int64_t>> spans(static_cast<size_t>(threads));
            bool ok = true;
            int round = 0, overlapped = 0;
            const int rounds = measurable ? kThreadRounds : kOverlapsWanted;
            for (; round < rounds && overlapped < kOverlapsWanted && ok; ++round) {
                if (round > 0 && two)   // (the inputs were checked unchanged after each round)
                    d.fill(in2, 1);
                out.fill_data(kOutFill);
                std::vector<int> faults;
                team.run(
                    [&](int w) {
                        const size_t at = size_t(w) * chunk * ext;
                        const auto t0 = std::chrono::steady_clock::now();
                        if (two)
                            fn2(in1.data() + at, in2.data() + at, opf_count_t(chunk));
                        else
                            fn3(in1.data() + at, in2.data() + at, out.data() + at, opf_count_t(chunk));
                        const auto t1 = std::chrono::steady_clock::now();
                        spans[size_t(w)] = {t0.time_since_epoch().count(), t1.time_since_epoch().count()};
                    },
                    faults);
                const auto sig = std::find_if(faults.begin(), faults.end(), [](int f) { return f != 0; });
                if (sig != faults.end()) {
                    ok = report_fault(h, info, *sig, Fence::Bytes);
                    break;
                }
                overlapped += calls_overlapped(spans);
                std::vector<CallBuffer> bufs = {{two ? "in" : "in1", &in1, &d.srcs[0]},
                                                {two ? "inout" : "in2", &in2, &d.srcs[1]}};
                if (!two)
                    bufs.push_back({"out", &out, nullptr});
                ok = verify(h, info, d, bufs, two ? &in2 : &out, d.expect);
            }
            if (ok && measurable && overlapped < kOverlapsWanted) {
                ++h.warnings;
                std::printf("warning: thread check of %s %s (%s, %s): the calls overlapped in %d of %d rounds "
                            "(a busy machine?); races may go unseen\n",
                            info.op.c_str(), info.type.c_str(), info.provider.c_str(), info.layout->name, overlapped,
                            round);
            }
            if (h.opt.e.verbose)
                std::printf("  threads %-8s %-22s %-10s %s: %d rounds, %d overlapped%s\n", info.op.c_str(),
                            info.type.c_str(), info.provider.c_str(), info.layout->name, round, overlapped,
                            measurable ? "" : " (calls too short to overlap)");
            tally.record(ok);
            all_ok &= ok;
        }
    }
    return all_ok;
}

void check_slot(Harness& h, int op_id, int kt, const SlotData& s)
{
    const std::string op = op_label(op_id), type = or_unknown(opf_kernel_type_name(kt));
    if (!s.pairs) {
        // (a failure, not a warning: a type or op the harness does not know is
        // one whose kernels nothing checks)
        h.kernel_total.record(false);
        std::printf("FAIL slot %s/%s exists, but the harness's spec defines no such op on that kernel type\n",
                    op.c_str(), type.c_str());
        return;
    }
    const int extent = opf_kernel_type_extent(kt);
    if (extent != int(s.kind->size)) {
        h.kernel_total.record(false);
        std::printf("FAIL kernel type %s: opf_kernel_type_extent %d, spec layout is %zu bytes\n", type.c_str(),
                    extent, s.kind->size);
        return;
    }
    h.kernel_total.record(true);
    // A slot that --function / --skip leave to no provider costs nothing (the
    // size-tier probes below found its kernels "not seen" and drew data sets
    // of megabytes for it: a filtered run took longer than a whole one).
    const auto chosen = [&](const Provider& prov) { return h.opt.e.selected(prov.label, lower(op), lower(type)); };
    if (std::none_of(h.providers.begin(), h.providers.end(), chosen))
        return;

    struct SlotState {
        bool checked = false, missing2 = false, missing3 = false;
        Tally tally;
        // The kernels this provider checked here (for the thread check).
        std::vector<std::pair<opf_kernel2_fn*, opf_kernel3_fn*>> mine;
    };
    std::vector<SlotState> state(h.providers.size());
    // The data of a length: fresh random data up to `period` elements
    // (kMediumLength; the MX block types, whose reference costs microseconds
    // a block and whose kernels work block by block, 67 blocks); beyond, one
    // random block of `period` elements per slot (one seed), repeated.
    const size_t period = opf::base::kernel_type_is_block(kt) ? 67 : engine::kMediumLength;
    std::optional<DataSet> block_pairs;
    std::map<int, DataSet> block_sources;   // the n-ary forms', by k
    auto pairs_at = [&](size_t n) {
        DataSet d;
        if (n <= period) {
            d = s.pairs(derive_seed(h.opt.e.seed, op_id, kt, n), n);
        } else {
            if (!block_pairs)
                block_pairs = s.pairs(derive_seed(h.opt.e.seed, op_id, kt, size_t(1) << 41), period);
            d = tiled(*block_pairs, n);
        }
        edge_sensitive(d, derive_seed(h.opt.e.seed, op_id, kt, n + 1));
        return d;
    };
    auto sources_at = [&](int k, size_t n) {
        DataSet d;
        if (n <= period) {
            d = s.sources(derive_seed(h.opt.e.seed, op_id, 7000 + kt, n * 128 + size_t(k)), k, n);
        } else {
            auto it = block_sources.find(k);
            if (it == block_sources.end())
                it = block_sources
                         .emplace(k, s.sources(derive_seed(h.opt.e.seed, op_id, 7000 + kt, (size_t(1) << 41) + size_t(k)),
                                               k, period))
                         .first;
            d = tiled(it->second, n);
        }
        edge_sensitive(d, derive_seed(h.opt.e.seed, op_id, 7000 + kt, n + 1));
        return d;
    };
    // Whose turn it is among the long lengths' 3-buffer layouts (layouts_for).
    auto turn = [&](size_t n) { return size_t(op_id + kt) + size_t(std::bit_width(n)); };
    // Each provider's size tiers of this slot, in the order counts reach
    // them (lengths and probes grow): --tier N keeps the N-th.
    std::vector<std::vector<std::pair<opf_kernel2_fn*, opf_kernel3_fn*>>> tiers(h.providers.size());
    // Runs one data set through every provider's kernels (fetched for this
    // length: providers may offer size-tiered kernels).
    // (The data set is drawn when a kernel first needs it: its reference
    // costs more than most kernels, the MX block types' most of all.)
    auto run = [&](size_t n, size_t kernel_count, const std::function<DataSet()>& draw, int only_nbuf = 0) {
        std::optional<DataSet> drawn;
        for (size_t p = 0; p < h.providers.size(); ++p) {
            Provider& prov = h.providers[p];
            if (!chosen(prov))
                continue;
            opf_kernel2_fn* fn2 = &sentinel2;
            opf_kernel3_fn* fn3 = &sentinel3;
            const int rc = opf_slot_kernels(op_id, kt, prov.c_name(), opf_count_t(kernel_count), &fn2, &fn3);
            CallInfo info{"kernel", op, type, prov.label, nullptr, n};
            if (rc != OPF_SUCCESS && rc != OPF_ERR_ARG) {
                state[p].tally.record(false);
                if (h.report.begin(info, "opf_slot_kernels"))
                    std::printf("  returned %d for an existing slot\n", rc);
                continue;
            }
            if (fn2 == &sentinel2 || fn3 == &sentinel3) {
                state[p].tally.record(false);
                if (h.report.begin(info, "opf_slot_kernels"))
                    std::printf("  returned %d but left a kernel pointer unset\n", rc);
                continue;
            }
            if (!fn2 && !fn3) {
                state[p].missing2 = state[p].missing3 = true;
                continue;
            }
            auto& known = tiers[p];
            const auto tier = std::find(known.begin(), known.end(), std::make_pair(fn2, fn3));
            const long tier_index = tier - known.begin();
            if (tier == known.end())
                known.emplace_back(fn2, fn3);
            if (h.opt.e.tier >= 0 && tier_index != h.opt.e.tier)
                continue;
            // Kernels checked already, under another provider's name (the
            // selected table serves the base's and the components' kernels)
            // or at an earlier ISA level, are not checked again.
            const auto key = slot_key(op_id, kt, fn2, fn3);
            const auto [it, fresh] = h.seen.emplace(key, std::make_pair(h.level_index, prov.label));
            if (!fresh && it->second != std::make_pair(h.level_index, prov.label))
                continue;
            state[p].missing2 |= !fn2;
            state[p].missing3 |= !fn3;
            if (std::find(state[p].mine.begin(), state[p].mine.end(), std::make_pair(fn2, fn3)) == state[p].mine.end())
                state[p].mine.emplace_back(fn2, fn3);
            const std::unique_ptr<engine::Target> t = kernel_target(h, fn2, fn3);
            if (!drawn)
                drawn = draw();
            const DataSet& d = *drawn;
            for (const CallLayout* lay : layouts_for(h, n, turn(n))) {
                info.layout = lay;
                const int nbuf = engine::alias_two(lay->alias) ? 2 : 3;
                if ((nbuf == 2 ? !fn2 : !fn3) || (only_nbuf && nbuf != only_nbuf))
                    continue;
                if (!prov.name) { // name who serves the selected table, for messages
                    const char* who = opf_slot_provider(op_id, kt, nbuf, opf_count_t(kernel_count));
                    info.provider = std::string("selected->") + or_unknown(who);
                }
                state[p].tally.record(check_call(h, *t, info, d));
                state[p].checked = true;
            }
        }
    };
    // The n-ary form (OPF_FORM_N) of every provider, on the 3-buffer
    // layouts (check_call_n), k in {1, 2, 3, 8} and OPF_REDUCE_N_MAX with
    // --deep. Quick (make check's time budget): one k and one layout per
    // length, taken in turn and shifted by the slot, so that the slots
    // together cover every (length, k, layout) without multiplying the
    // calls; deep and slow: every k and every layout a length runs.
    // Lengths above kMediumLength: k = 3.
    long n_calls = 0;
    auto run_n = [&](size_t n, size_t kernel_count, bool light) {
        if (!s.sources)
            return;
        const bool huge = n > engine::kMediumLength;
        std::vector<int> ks = {1, 2, 3, 8};
        if (huge)
            ks = {3};
        else if (light)
            ks = {ks[size_t(n_calls + op_id + kt) % ks.size()]};
        else if (!h.opt.e.quick() && (n <= 65 || h.opt.e.slow()))
            ks.push_back(OPF_REDUCE_N_MAX);
        std::vector<const CallLayout*> lays;
        for (const CallLayout* l : layouts_for(h, n, turn(n) + 1))
            if (l->alias == Alias::Distinct3 || l->alias == Alias::OutIsIn1 || l->alias == Alias::OutIsIn2)
                lays.push_back(l);
        for (int k : ks) {
            std::optional<DataSet> d;
            for (size_t p = 0; p < h.providers.size(); ++p) {
                Provider& prov = h.providers[p];
                if (!chosen(prov))
                    continue;
                opf_kernel_n_fn* fn = nullptr;
                const int rc = opf_slot_kernel_n(op_id, kt, OPF_FORM_N, prov.c_name(), opf_count_t(kernel_count), &fn);
                if (rc != OPF_SUCCESS || !fn)
                    continue;
                const auto key = std::make_tuple(op_id, kt, kernel_id(reinterpret_cast<void*>(fn)));
                const auto [it, fresh] = h.seen_n.emplace(key, std::make_pair(h.level_index, prov.label));
                if (!fresh && it->second != std::make_pair(h.level_index, prov.label))
                    continue;
                if (!d)
                    d = sources_at(k, n);
                char level[32];
                std::snprintf(level, sizeof level, "kernel_n k=%d", k);
                CallInfo info{level, op, type, prov.label, nullptr, n};
                if (!prov.name)
                    info.provider = std::string("selected->") +
                                    or_unknown(opf_slot_provider_n(op_id, kt, OPF_FORM_N, opf_count_t(kernel_count)));
                for (size_t li = 0; li < lays.size(); ++li) {
                    if (light && li != size_t(n_calls + op_id) % lays.size())
                        continue;
                    info.layout = lays[li];
                    state[p].tally.record(check_call_n(h, fn, info, *d));
                    state[p].checked = true;
                }
            }
            ++n_calls;
        }
    };
    // A slot none of the providers serves costs nothing either: every
    // offer of a provider is its kernel for some count, and its first is
    // what opf_slot_kernels gives for a count below all of them.
    const bool served = std::any_of(h.providers.begin(), h.providers.end(), [&](const Provider& prov) {
        opf_kernel2_fn* fn2 = nullptr;
        opf_kernel3_fn* fn3 = nullptr;
        opf_kernel_n_fn* fn_n = nullptr;
        opf_slot_kernels(op_id, kt, prov.c_name(), 1, &fn2, &fn3);
        opf_slot_kernel_n(op_id, kt, OPF_FORM_N, prov.c_name(), 1, &fn_n);
        return chosen(prov) && (fn2 || fn3 || fn_n);
    });
    if (!served)
        return;
    for (const SlotLength& l : slot_lengths(h, op_id, kt, offer_min_counts(h, op_id, kt, chosen))) {
        if (l.pairs)
            run(l.n, l.kernel_count, [&] { return pairs_at(l.n); }, l.nbuf);
        if (l.nary)
            run_n(l.n, l.kernel_count, l.light);
    }
    // Size tiers beyond the listed lengths: a provider may serve large counts
    // with other kernels. Probe growing counts; run the ones that bring a
    // kernel not seen yet (+3: a ragged tail after the vector body).
    const bool listed = !h.opt.e.lengths.empty();   // --lengths: those alone
    for (size_t n = 8192 + 3; !listed && n <= std::min((size_t(1) << 20) + 3, h.opt.e.max_length);
         n = 2 * (n - 3) + 3) {
        bool fresh = false;
        for (size_t p = 0; p < h.providers.size(); ++p) {
            opf_kernel2_fn* fn2 = nullptr;
            opf_kernel3_fn* fn3 = nullptr;
            if (chosen(h.providers[p]))
                opf_slot_kernels(op_id, kt, h.providers[p].c_name(), opf_count_t(n), &fn2, &fn3);
            fresh |= (fn2 || fn3) && !h.seen.contains(slot_key(op_id, kt, fn2, fn3));
        }
        if (fresh)
            run(n, n, [&] { return pairs_at(n); });
        bool fresh_n = false;
        for (size_t p = 0; p < h.providers.size(); ++p) {
            opf_kernel_n_fn* fn = nullptr;
            if (chosen(h.providers[p]))
                opf_slot_kernel_n(op_id, kt, OPF_FORM_N, h.providers[p].c_name(), opf_count_t(n), &fn);
            fresh_n |= fn && !h.seen_n.contains(std::make_tuple(op_id, kt, kernel_id(reinterpret_cast<void*>(fn))));
        }
        if (fresh_n && !h.opt.e.quick())   // quick: make check's budget
            run_n(n, n, false);
    }
    // The data kinds the tuner and the benchmark time kernels on (integer
    // values with zeros, sparse NaN and signed zeros, runs of ties): a
    // kernel's data-dependent paths (a screen that switches forms at the
    // first block it flags, a NaN after the switch) on the data that takes
    // them: the ops whose kernels have such paths (the screened MAX / MIN,
    // MAXLOC / MINLOC's ties; --slow: every op). Every op at every ISA level
    // cost CI's deep step two minutes.
    const bool data_paths = op_id == OPF_OPID_MAX || op_id == OPF_OPID_MIN || op_id == OPF_OPID_MAXLOC ||
                            op_id == OPF_OPID_MINLOC || h.opt.e.slow();
    for (opf::data::Kind kind : opf::data::timing_kinds(kt)) {
        if (kind == opf::data::Kind::Random || !s.kinds || listed || !data_paths)
            continue;
        for (size_t n : {size_t(1000), size_t(4099)}) {
            if (n > h.opt.e.max_length || (n > 1000 && h.opt.e.quick()))
                continue;
            const uint64_t seed = derive_seed(h.opt.e.seed, op_id, kt, 9000 + n * 8 + size_t(kind));
            run(n, n, [&] { return s.kinds(kind, kt, op_id, seed, n); });
        }
    }
    if (s.patterns && !h.opt.e.quick() && !listed && h.opt.e.max_length >= 65536) {
        const uint64_t seed = derive_seed(h.opt.e.seed, op_id, kt, 65536);
        run(65536, 65536, [&] { return s.patterns(seed, false); });
        if (h.opt.e.slow())
            run(65536, 65536, [&] { return s.patterns(seed, true); });
    }
    // Several threads in each kernel that passed alone (a kernel that failed
    // would only fail again, and one that faulted could take a thread down).
    if (h.opt.e.threads())
        for (size_t p = 0; p < h.providers.size(); ++p)
            if (state[p].tally.failed == 0)
                for (const auto& [fn2, fn3] : state[p].mine) {
                    CallInfo info{"kernel", op, type, h.providers[p].label, nullptr, 0};
                    if (!h.providers[p].name)
                        info.provider = std::string("selected->") + or_unknown(opf_slot_provider(op_id, kt, fn3 ? 3 : 2, 1 << 16));
                    check_threads(h, s, kt, info, fn2, fn3, state[p].tally, period, pairs_at);
                }
    bool any = false;
    for (size_t p = 0; p < h.providers.size(); ++p) {
        Provider& prov = h.providers[p];
        const SlotState& s = state[p];
        prov.tally.checks += s.tally.checks;
        prov.tally.failed += s.tally.failed;
        prov.slots += s.checked;
        prov.skipped += s.checked ? s.missing2 + s.missing3 : 0;
        any |= s.checked;
        if (h.opt.e.verbose && s.checked)
            std::printf("  %-8s %-22s %-10s %6ld checks %s%s%s%s%s\n", op.c_str(), type.c_str(), prov.label.c_str(),
                        s.tally.checks, s.tally.failed ? "FAILED" : "ok", s.missing2 ? " (no 2-buffer)" : "",
                        s.missing3 ? " (no 3-buffer)" : "", h.report.isa.empty() ? "" : "  isa=",
                        h.report.isa.c_str());
    }
    h.slots_checked += any;
    if (h.opt.e.bench && any)
        bench_slot(h, op_id, kt, s, op, type);
}
void run_kernel_level(Harness& h)
{
    // Slots the spec implies: every (op, kernel type) valid for some
    // supported datatype. A missing one is only a warning: the datatype
    // level still checks that the reduction works.
    bool expected[OPF_OPID_COUNT][OPF_KT_COUNT] = {};
    for (const DatatypeSpec& d : kDatatypes) {
        opf_count_t size;
        if (opf_type_size(OPF_TYPE_HANDLE_(d.id), &size) != OPF_SUCCESS)
            continue;
        for (int op = 1; op < OPF_OPID_COUNT; ++op)
            if (op != OPF_OPID_REPLACE && op != OPF_OPID_NO_OP && spec_op_valid(op, d.group))
                expected[op][d.kt] = true;
    }
    for (int op = 1; op < OPF_OPID_COUNT; ++op) {
        for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
            if (opf_slot_exists(op, kt) != 1) {
                if (expected[op][kt]) {
                    h.kernel_total.record(false);
                    std::printf("FAIL no slot %s/%s although the harness's spec makes it valid\n", op_label(op).c_str(),
                                or_unknown(opf_kernel_type_name(kt)));
                }
                continue;
            }
            if (!with_kernel_type(kt, [&]<class E>() { check_slot(h, op, kt, slot_data<E>(op)); })) {
                h.kernel_total.record(false);
                std::printf("FAIL slot %s/%s (kernel type %d): the harness has no layout for the type "
                            "(test/engine/reference.h)\n", op_label(op).c_str(), or_unknown(opf_kernel_type_name(kt)), kt);
            }
        }
    }
}

// ===========================================================================
// ISA levels (dav1d's checkasm loops over CPU flags the same way): opframe
// is re-initialised with op_base_isa_mask hiding probed features, so each
// component takes every level it can, and each kernel it then offers that no
// earlier level brought is checked.
// ===========================================================================
struct IsaLevel {
    std::string name;   // "" for the native level
    unsigned hidden;    // OPF_X86_* bits masked off
};

std::vector<IsaLevel> isa_levels(unsigned features)
{
    std::vector<IsaLevel> levels = {{"", 0}};
    constexpr unsigned avx512 = OPF_X86_AVX512F | OPF_X86_AVX512BW | OPF_X86_AVX512VL | OPF_X86_AVX512DQ |
                                OPF_X86_AVX512_FP16 | OPF_X86_AVX512_BF16;
    const unsigned optional[] = {OPF_X86_AVX512_FP16, OPF_X86_AVX512_BF16,
                                 OPF_X86_AVX512_FP16 | OPF_X86_AVX512_BF16, avx512,
                                 avx512 | OPF_X86_AVX2 | OPF_X86_F16C | OPF_X86_FMA};
    for (unsigned hide : optional) {
        if ((features & hide) == 0)
            continue;
        const unsigned kept = features & hide;
        if (std::any_of(levels.begin(), levels.end(), [&](const IsaLevel& l) { return (features & l.hidden) == kept; }))
            continue;
        char names[200];
        opf_hw_format_features(kept, names, sizeof names);
        levels.push_back({std::string("without ") + names, kept});
    }
    return levels;
}

// The mask parameter's value: the names of the features kept, comma-separated.
std::string isa_mask_value(unsigned kept)
{
    char names[200];
    opf_hw_format_features(kept, names, sizeof names);
    std::string v = kept ? names : "";
    std::replace(v.begin(), v.end(), ' ', ',');
    return v;
}

// The providers of a level: those asked for, or the base (native level
// only: it does not depend on the ISA), the selected table and every
// available component.
void set_providers(Harness& h, bool native)
{
    std::vector<std::string> names = h.opt.providers;
    if (names.empty()) { // the selected table last: what it serves is checked under its provider's name
        if (native)
            names.push_back("base");
        for (int i = 0; i < opf_component_count(); ++i) {
            opf_component_info_t c;
            if (opf_component_describe(i, &c) == OPF_SUCCESS && c.available)
                names.push_back(c.name);
        }
        names.push_back("selected");
    }
    h.providers.clear();
    for (const std::string& p : names) {
        if (p == "selected")
            h.providers.push_back(Provider{"selected", std::nullopt, {}, 0, 0});
        else
            h.providers.push_back(Provider{p, p, {}, 0, 0});
    }
}

// Totals per provider over every level.
std::map<std::string, Provider> provider_totals;
void add_totals(const Harness& h)
{
    for (const Provider& p : h.providers) {
        Provider& t = provider_totals.try_emplace(p.label, Provider{p.label, p.name, {}, 0, 0}).first->second;
        t.tally.checks += p.tally.checks;
        t.tally.failed += p.tally.failed;
        t.slots += p.slots;
        t.skipped += p.skipped;
    }
}

// A predefined op the type does not support: OPF_ERR_OP, nothing touched.
bool check_rejected(Harness& h, const ElementKind& K, opf_datatype_t type, int op_id, const CallInfo& base_info)
{
    bool ok = true;
    const ElementLayout& L = *K.layout;
    for (opf_count_t count : {opf_count_t(5), opf_count_t(0)}) {
        for (int nbuf : {2, 3}) {
            GuardedBuffer x(L, 5, 0, Fence::Bytes), y(L, 5, 0, Fence::Bytes), z(L, 5, 0, Fence::Bytes);
            Rng r(derive_seed(h.opt.e.seed, op_id, 1000 + uintptr_t(type), count));
            std::vector<unsigned char> fill(5 * K.size);
            for (GuardedBuffer* g : {&x, &y, &z}) {
                for (unsigned char& c : fill)
                    c = static_cast<unsigned char>(r.next());
                g->set_elements(fill.data());
            }
            const size_t bytes = x.bytes();
            const std::vector<unsigned char> sx(x.data(), x.data() + bytes), sy(y.data(), y.data() + bytes),
                sz(z.data(), z.data() + bytes);
            const opf_op_t op = OPF_OP_HANDLE_(op_id);
            const int rc = nbuf == 2 ? opf_reduce_local(x.data(), y.data(), count, type, op)
                                     : opf_reduce_local3(x.data(), y.data(), z.data(), count, type, op);
            const bool untouched = std::memcmp(x.data(), sx.data(), bytes) == 0 &&
                                   std::memcmp(y.data(), sy.data(), bytes) == 0 &&
                                   std::memcmp(z.data(), sz.data(), bytes) == 0 && !x.damage() && !y.damage() &&
                                   !z.damage();
            // The message must name the op and the type (spec: "errors").
            const std::string msg = opf_last_error();
            const bool named = msg.find(base_info.op) != std::string::npos &&
                               msg.find(base_info.type) != std::string::npos;
            const bool good = rc == OPF_ERR_OP && untouched && named;
            h.datatype_total.record(good);
            if (!good) {
                ok = false;
                CallInfo info = base_info;
                info.n = size_t(count);
                if (h.report.begin(info, "invalid op not rejected cleanly"))
                    std::printf("  %d-buffer call returned %d (want OPF_ERR_OP=%d), buffers %s, last error \"%s\"%s\n",
                                nbuf, rc, OPF_ERR_OP, untouched ? "untouched" : "MODIFIED", msg.c_str(),
                                named ? "" : " (does not name op and type)");
            }
        }
    }
    return ok;
}

// The lengths a datatype runs at: the harness's, and both sides of each
// size tier's first count in the selected host table, where a call switches
// kernels (a SIMD component serves from op_<isa>_min_bytes on, the base
// below). Tiers beyond 64 Ki elements are the kernel level's (probed there).
std::vector<size_t> datatype_lengths(const Harness& h, int op_id, int kt)
{
    std::vector<size_t> lengths = h.lengths;
    if (h.device_backend)
        return lengths;
    for (int nbuf : {2, 3}) {
        if (!h.opt.e.lengths.empty())   // --lengths: those alone
            break;
        opf_slot_tier_t tiers[8];
        int n = 0;
        if (opf_slot_tiers(op_id, kt, nbuf, tiers, 8, &n) != OPF_SUCCESS)
            continue;
        for (int i = 1; i < std::min(n, 8); ++i) {
            const size_t first = size_t(tiers[i].min_count);
            if (first <= (size_t(1) << 16))
                lengths.insert(lengths.end(), {first - 1, first, first + 1});
        }
    }
    std::sort(lengths.begin(), lengths.end());
    lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
    lengths.erase(std::remove_if(lengths.begin(), lengths.end(), [&](size_t n) { return n > h.opt.e.max_length; }),
                  lengths.end());
    return lengths;
}

// spec_size: the type's size by the spec (the element's data bytes);
// data_for: slot_data<E> of the type's element.
void check_datatype(Harness& h, const DatatypeSpec& spec, size_t spec_size, SlotData (*data_for)(int op_id))
{
    const ElementKind& K = *data_for(OPF_OPID_SUM).kind;
    const opf_datatype_t type = OPF_TYPE_HANDLE_(spec.id);
    const std::string tname = or_unknown(opf_type_name(type));

    // Layout facts from the spec: size, extent, kernel type.
    opf_count_t size = -1;
    opf_aint_t lb = -1, extent = -1;
    int kt = -2;
    const bool size_ok = opf_type_size(type, &size) == OPF_SUCCESS && size_t(size) == spec_size;
    const bool extent_ok = opf_type_get_extent(type, &lb, &extent) == OPF_SUCCESS && lb == 0 &&
                           size_t(extent) == K.size;
    const bool kt_ok = opf_type_kernel_type(type, &kt) == OPF_SUCCESS && kt == spec.kt;
    h.datatype_total.record(size_ok && extent_ok && kt_ok);   // one check: one FAIL line
    if (!size_ok || !extent_ok || !kt_ok) {
        std::printf("FAIL datatype %s: size %lld (spec %zu), lb %lld extent %lld (spec 0, %zu), kernel type %d (spec %d)\n",
                    tname.c_str(), (long long)size, spec_size, (long long)lb, (long long)extent,
                    K.size, kt, spec.kt);
        if (!extent_ok)
            return; // the buffers below would have the wrong layout
    }

    for (int op_id = 1; op_id < OPF_OPID_COUNT; ++op_id) {
        const std::string oname = op_label(op_id);
        const bool spec_valid = spec_op_valid(op_id, spec.group);
        int lib_valid = -1;
        const int vrc = opf_op_valid_for_type(OPF_OP_HANDLE_(op_id), type, &lib_valid);
        const bool matrix_ok = vrc == OPF_SUCCESS && (lib_valid != 0) == spec_valid;
        h.datatype_total.record(matrix_ok);
        if (!matrix_ok)
            std::printf("FAIL valid matrix: op %s on %s: opf_op_valid_for_type rc %d valid %d, spec says %s\n",
                        oname.c_str(), tname.c_str(), vrc, lib_valid, spec_valid ? "valid" : "invalid");

        CallInfo info{"datatype", oname, tname, "-", nullptr, 0};
        if (vrc != OPF_SUCCESS || !lib_valid) {
            if (!h.device_backend)
                check_rejected(h, K, type, op_id, info);
            continue;
        }
        const SlotData data = data_for(op_id);
        if (!data.pairs)
            continue; // the library calls valid what the spec does not (reported above)
        const opf_op_t op = OPF_OP_HANDLE_(op_id);
        if (!h.opt.e.selected("datatype", lower(oname), lower(tname)))
            continue;
        std::string why;
        if (!h.datatype_supported(type, op, &why)) {
            ++h.backend_skips;
            if (h.opt.e.verbose)
                std::printf("  skip %s %s: %s\n", oname.c_str(), tname.c_str(), why.c_str());
            continue;
        }
        const std::unique_ptr<engine::Target> t = h.datatype_target(type, op);
        for (size_t n : datatype_lengths(h, op_id, spec.kt)) {
            DataSet d = data.pairs(derive_seed(h.opt.e.seed, op_id, 5000 + spec.id, n), n);
            edge_sensitive(d, derive_seed(h.opt.e.seed, op_id, 5000 + spec.id, n + 1));
            info.n = n;
            for (const CallLayout* lay : datatype_layouts(h, n)) {
                info.layout = lay;
                // Who served the call: the selected table's provider for this
                // count (a failure is that provider's kernel, or the way to it).
                const char* who = h.device_backend ? "device"
                                                   : opf_slot_provider(op_id, spec.kt,
                                                                       engine::alias_two(lay->alias) ? 2 : 3,
                                                                       opf_count_t(n));
                info.provider = std::string("selected->") + or_unknown(who);
                h.datatype_total.record(check_call(h, *t, info, d));
            }
        }
    }
}

void run_datatype_level(Harness& h)
{
    long types = 0, unsupported = 0;
    for (int id = 1; id < OPF_TYPEID_COUNT_; ++id) {
        const opf_datatype_t type = OPF_TYPE_HANDLE_(id);
        const DatatypeSpec* spec = find_datatype_spec(id);
        if (!spec) {
            h.datatype_total.record(false);
            std::printf("FAIL datatype id %d (%s): not in the harness's spec table\n", id,
                        or_unknown(opf_type_name(type)));
            continue;
        }
        opf_count_t size;
        if (opf_type_size(type, &size) == OPF_ERR_TYPE) {
            // Only INTEGER16 / REAL16 may be missing from a build (spec).
            const bool may_lack = id == OPF_TYPEID_INTEGER16 || id == OPF_TYPEID_REAL16;
            int dummy = 0;
            const bool rejects = opf_reduce_local(&dummy, &dummy, 1, type, OPF_SUM) == OPF_ERR_TYPE;
            h.datatype_total.record(may_lack && rejects);
            if (!may_lack || !rejects)
                std::printf("FAIL datatype %s: opf_type_size says unsupported%s\n", or_unknown(opf_type_name(type)),
                            may_lack ? ", but a reduction does not return OPF_ERR_TYPE" : ", the spec requires it");
            ++unsupported;
            continue;
        }
        ++types;
        const long failed_before = h.datatype_total.failed;
        if (!with_kernel_type(spec->kt, [&]<class E>() { check_datatype(h, *spec, spec_type_size<E>(), &slot_data<E>); })) {
            h.datatype_total.record(false);
            std::printf("FAIL datatype %s: the harness has no layout for its kernel type (test/engine/reference.h)\n",
                        or_unknown(opf_type_name(type)));
        }
        if (h.opt.e.verbose)
            std::printf("  datatype %-22s %s\n", or_unknown(opf_type_name(type)),
                        h.datatype_total.failed == failed_before ? "ok" : "FAILED");
    }
    std::printf("datatypes: %ld types (%ld unsupported by this build), %ld checks, %ld failed\n", types, unsupported,
                h.datatype_total.checks, h.datatype_total.failed);
}

// ===========================================================================
// --self-test: the harness must catch a corrupted result, and its
// comparison rules must hold.
// ===========================================================================
int run_self_test(Harness& h)
{
    int problems = 0;
    auto expect = [&](bool cond, const char* what) {
        if (!cond) {
            ++problems;
            std::printf("self-test FAILED: %s\n", what);
        }
    };

    // Comparison rules.
    Rng r(1);
    const float qnan = bits_float(0x7fc00000u), snan_neg = bits_float(0xff800001u);
    expect(same(qnan, snan_neg), "any float NaN matches any NaN");
    expect(!same(0.0f, -0.0f), "+0 and -0 differ");
    expect(!same(qnan, std::numeric_limits<float>::infinity()), "NaN does not match inf");
    expect(same(Half{0x7e00}, Half{0xfc01}), "half NaNs match");
    expect(!same(Half{0x7c00}, Half{0x7e00}), "half inf is no NaN");
    expect(same(BF16{0x7fc0}, BF16{0xff81}), "bf16 NaNs match");
#if LDBL_MANT_DIG == 64   // x87: padding bytes
    long double x = Scalar<long double>::make(false, 16383, 1ULL << 63, r), y = x;
    reinterpret_cast<unsigned char*>(&y)[12] ^= 0xff;
    expect(same(x, y), "long double padding is ignored");
    reinterpret_cast<unsigned char*>(&y)[9] ^= 0x40;
    expect(!same(x, y), "long double exponent counts");
#endif
    Pair<double, int> p1{}, p2{};
    p1.value = p2.value = 1.5;
    p1.index = p2.index = 7;
    reinterpret_cast<unsigned char*>(&p2)[13] ^= 0xff; // padding after the int
    expect(same(p1, p2), "pair padding is ignored");
    p2.index = 8;
    expect(!same(p1, p2), "pair index counts");
    expect(same(Cplx<float>{qnan, 1.0f}, Cplx<float>{snan_neg, 1.0f}), "complex NaN parts match");
    expect(!same(Cplx<float>{qnan, 1.0f}, Cplx<float>{qnan, 2.0f}), "complex parts count");

#ifdef CONF_HAVE_FLOAT16
    // The fallback half conversion agrees with the compiler's _Float16, on
    // every half, the midpoints between neighbours (rounding ties), their
    // float neighbours, and random floats.
    auto agree = [&](float f) {
        return std::isnan(f) || float_to_half_manual(f) == float_to_half(f);
    };
    bool conv_ok = true;
    for (uint32_t i = 0; i < 0xffff && conv_ok; ++i) {
        const float lo = half_to_float(uint16_t(i)), hi = half_to_float(uint16_t(i + 1));
        conv_ok = same(half_to_float_manual(uint16_t(i)), lo) && agree(lo);
        if ((i & 0x7fff) != 0x7bff && (i & 0x7c00) != 0x7c00) { // neighbours within one sign, finite
            const float mid = (lo + hi) / 2;
            conv_ok = conv_ok && agree(mid) && agree(std::nextafter(mid, 0.0f)) &&
                      agree(std::nextafter(mid, lo < 0 ? -INFINITY : INFINITY));
        }
    }
    for (int i = 0; i < (1 << 20) && conv_ok; ++i)
        conv_ok = agree(bits_float(uint32_t(r.next())));
    expect(conv_ok, "manual half conversions agree with _Float16");
#endif

    // The library's exported same-value rule agrees with the reference's.
    {
        opf_count_t at = 7;
        const float fa[2] = {1.0f, qnan}, fb[2] = {1.0f, snan_neg};
        expect(opf_kernel_type_first_difference(OPF_KT_FLOAT, fa, fb, 2, &at) == OPF_SUCCESS && at == -1,
               "opf_kernel_type_first_difference: any NaN matches any NaN");
        Pair<double, int> pa[2] = {p1, p1}, pb[2] = {p1, p1};
        reinterpret_cast<unsigned char*>(&pb[0])[13] ^= 0xff;
        expect(opf_kernel_type_first_difference(OPF_KT_DOUBLE_INT, pa, pb, 2, &at) == OPF_SUCCESS && at == -1,
               "opf_kernel_type_first_difference: pair padding is no value");
        pb[1].index = 9;
        expect(opf_kernel_type_first_difference(OPF_KT_DOUBLE_INT, pa, pb, 2, &at) == OPF_SUCCESS && at == 1,
               "opf_kernel_type_first_difference: the index counts");
        expect(opf_kernel_type_first_difference(OPF_KT_COUNT, pa, pb, 2, &at) == OPF_ERR_ARG &&
                   opf_kernel_type_first_difference(OPF_KT_FLOAT, fa, fb, -1, &at) == OPF_ERR_ARG &&
                   opf_kernel_type_first_difference(OPF_KT_FLOAT, nullptr, fb, 1, &at) == OPF_ERR_ARG,
               "opf_kernel_type_first_difference refuses bad arguments");
    }

    // A corrupted result of a SUM FLOAT call must be caught; a clean one not.
    const size_t n = 65;
    const DataSet d = make_data<float>(h.opt.e.seed, reference_for<float>(OPF_OPID_SUM), n);
    // Flipping the lowest exponent bit changes every float's class or value:
    // a NaN becomes finite, anything else changes its value or becomes NaN.
    auto flip = [](unsigned char* res, size_t m) {
        if (m)
            res[(m / 2) * sizeof(float) + 2] ^= 0x80;
    };
    opf_kernel2_fn* fn2 = nullptr;
    opf_kernel3_fn* fn3 = nullptr;
    opf_slot_kernels(OPF_OPID_SUM, OPF_KT_FLOAT, "base", n, &fn2, &fn3);
    expect(fn2 != nullptr, "the base has a SUM FLOAT 2-buffer kernel");
    const CallLayout& in_place = engine::call_layouts().front();
    auto sum2 = [](const void* in, void* io, size_t m) {
        return opf_reduce_local(in, io, opf_count_t(m), OPF_FLOAT, OPF_SUM);
    };
    std::vector<std::pair<const char*, std::unique_ptr<engine::Target>>> targets;
    if (fn2)
        targets.emplace_back("kernel", kernel_target(h, fn2, nullptr));
    targets.emplace_back("datatype", h.host_target(sum2, nullptr));
    for (auto& [level, t] : targets) {
        CallInfo info{level, "SUM", "FLOAT", std::strcmp(level, "kernel") == 0 ? "base" : "-", &in_place, n};
        h.corrupt = nullptr;
        expect(check_call(h, *t, info, d), "the clean SUM FLOAT call passes");
        std::printf("self-test: a deliberately corrupted %s SUM FLOAT result follows:\n", level);
        h.corrupt = flip;
        expect(!check_call(h, *t, info, d), "the corrupted SUM FLOAT result is caught");
        h.corrupt = nullptr;
    }

    // Misbehaving calls that produce right results must still be caught:
    // a write past the end, a write before the start, a changed input, and
    // a 3-buffer call that never writes its output.
    struct Rogue {
        const char* what;
        engine::HostCall2 two;
        engine::HostCall3 three;
    };
    const Rogue rogues[] = {
        {"write past the end", [=](const void* in, void* io, size_t m) {
             const int rc = sum2(in, io, m);
             static_cast<unsigned char*>(io)[m * sizeof(float)] ^= 1;
             return rc;
         }, nullptr},
        {"write before the start", [=](const void* in, void* io, size_t m) {
             const int rc = sum2(in, io, m);
             static_cast<unsigned char*>(io)[-1] ^= 1;
             return rc;
         }, nullptr},
        {"changed input", [=](const void* in, void* io, size_t m) {
             const int rc = sum2(in, io, m);
             const_cast<unsigned char*>(static_cast<const unsigned char*>(in))[5] ^= 1;
             return rc;
         }, nullptr},
        {"output never written", nullptr, [](const void*, const void*, void*, size_t) { return 0; }},
    };
    for (const Rogue& rogue : rogues) {
        const CallLayout* lay = &engine::call_layouts()[rogue.two ? 0 : 4];
        CallInfo info{"self-test", "SUM", "FLOAT", rogue.what, lay, n};
        std::printf("self-test: a rogue call (%s) follows:\n", rogue.what);
        const std::unique_ptr<engine::Target> t = h.host_target(rogue.two, rogue.three);
        expect(!check_call(h, *t, info, d), rogue.what);
    }

    // Whole-struct copies of DOUBLE_INT pairs give right values but write
    // every pair's padding and 4 bytes past the true end; a read of one
    // element too many faults against the page after the buffer, and the
    // run goes on.
    using DI = Pair<double, int>;
    const DataSet p = make_data<DI>(h.opt.e.seed, reference_for<DI>(OPF_OPID_REPLACE), 9);
    auto whole_copy = [](const void* in, void* io, size_t m) {
        std::memcpy(io, in, m * sizeof(DI));
        return 0;
    };
    auto over_read = [](const void* in, void* io, size_t m) {
        volatile unsigned char sink = 0;
        for (size_t i = 0; i < (m + 1) * sizeof(DI); ++i)
            sink = sink ^ static_cast<const unsigned char*>(in)[i];
        for (size_t i = 0; i < m; ++i) { // a correct REPLACE after it
            std::memcpy(static_cast<unsigned char*>(io) + i * sizeof(DI), static_cast<const unsigned char*>(in) + i * sizeof(DI), 8);
            std::memcpy(static_cast<unsigned char*>(io) + i * sizeof(DI) + 8, static_cast<const unsigned char*>(in) + i * sizeof(DI) + 8, 4);
        }
        return 0;
    };
    auto under_read = [whole_copy](const void* in, void* io, size_t m) {
        volatile unsigned char sink = static_cast<const unsigned char*>(in)[-1];
        (void)sink;
        return whole_copy(in, io, m);
    };
    const long faults_before = h.faults;
    struct PairRogue {
        const char* what;
        engine::HostCall2 fn;
        size_t layout;
    };
    const PairRogue pair_rogues[] = {
        {"whole-struct copy (padding and past the true end written)", whole_copy, 0},
        {"reads one element too many", over_read, 1},
        {"reads a byte before the start", under_read, 2},
    };
    for (const PairRogue& rogue : pair_rogues) {
        const CallLayout* lay = &engine::call_layouts()[rogue.layout];
        CallInfo info{"self-test", "REPLACE", "DOUBLE_INT", rogue.what, lay, p.n};
        std::printf("self-test: a rogue call (%s) follows:\n", rogue.what);
        const std::unique_ptr<engine::Target> t = h.host_target(rogue.fn, nullptr);
        expect(!check_call(h, *t, info, p), rogue.what);
    }
    expect(h.faults == faults_before + 2, "the two out-of-bounds reads faulted and were captured");
    std::printf("self-test: %s\n", problems ? "FAILED" : "ok (corruption detected)");
    return problems ? 1 : 0;
}

// ===========================================================================
// Command line and main.
// ===========================================================================
void usage(const char* argv0)
{
    std::printf("usage: %s [options]\n%s"
                "  --provider NAME   a provider (\"base\", a component) or \"selected\" for the selected\n"
                "                    table; repeatable (default: base, selected, every available component)\n"
                "  --native          the native ISA level only (no op_base_isa_mask levels)\n"
                "  --backend B       host (default: every level), or opencl: the datatype level on\n"
                "                    cl_mem buffers of the first OpenCL device (exit 77 without one)\n"
                "  --max-failures N  failures shown in detail (default 30)\n"
                "  --self-test       show that the engine catches wrong results, stray writes and faults\n",
                argv0, engine::Options::help());
}

bool parse_args(int argc, char** argv, Options& opt)
{
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (opt.e.parse(argc, argv, i))
            continue;
        if (arg == "--provider" && i + 1 < argc) {
            opt.providers.push_back(argv[++i]);
        } else if (arg == "--max-failures" && i + 1 < argc) {
            opt.max_failures = std::atoi(argv[++i]);
        } else if (arg == "--backend" && i + 1 < argc && (std::string(argv[i + 1]) == "host" ||
                                                           std::string(argv[i + 1]) == "opencl")) {
            opt.backend = argv[++i];
        } else if (arg == "--native") {
            opt.native_only = true;
        } else if (arg == "--self-test") {
            opt.self_test = true;
        } else {
            usage(argv[0]);
            return false;
        }
    }
    opt.e.finish();
    return true;
}

} // namespace

// The run's entry point: test/conformance_main.cpp calls it, and so does the
// installed tool (tools/opframe_check.cpp) after its own options: one build of
// this file for both.
int opf_conformance_main(int argc, char** argv)
{
    Harness h;
    if (!parse_args(argc, argv, h.opt))
        return 2;
    std::printf("seed=%" PRIu64 " depth=%s\n", h.opt.e.seed, engine::depth_name(h.opt.e.depth));
    std::fflush(stdout);
    h.report.seed = h.opt.e.seed;
    h.report.budget = h.opt.max_failures;

    if (const int rc = opf_init(); rc != OPF_SUCCESS) {
        std::printf("opf_init failed: %d\n", rc);
        return 1;
    }
    if (h.opt.backend == "opencl") {
#ifdef CONF_OPENCL
    // The datatype level on cl_mem buffers of the first OpenCL device.
    std::unique_ptr<engine::OpenClBackend> cl = engine::OpenClBackend::open();
    if (!cl) {
        std::printf("conformance: no OpenCL device: skipped\n");
        opf_finalize();
        return 77;
    }
    std::printf("backend: OpenCL buffers on %s\n", cl->device());
    h.device_backend = true;
    h.datatype_target = [&](opf_datatype_t type, opf_op_t op) { return cl->target(type, op); };
    h.datatype_supported = [&](opf_datatype_t type, opf_op_t op, std::string* why) {
        return cl->supports(type, op, why);
    };
    h.lengths = {0, 1, 2, 3, 7, 8, 17, 33, 65, 1000, 4099};
    run_datatype_level(h);
    std::printf("conformance (OpenCL): %ld checks, %ld failed, %ld (op, type) pairs the device does not run\n",
                h.datatype_total.checks, h.datatype_total.failed, h.backend_skips);
    const bool cl_failed = h.datatype_total.failed || h.datatype_total.checks == 0;
    cl.reset();   // its context and queue go before opf_finalize
    opf_finalize();
    return cl_failed ? 1 : 0;
#else
    std::printf("conformance: built without an OpenCL loader: --backend opencl skipped\n");
    opf_finalize();
    return 77;
#endif
    }
    if (h.opt.self_test) {
        const int rc = run_self_test(h);
        opf_finalize();
        return rc;
    }

    // The datatype level's lengths (the kernel level's are each slot's: slot_lengths).
    if (!h.opt.e.lengths.empty())
        h.lengths = h.opt.e.lengths;
    else if (h.opt.e.quick())
        h.lengths = kDatatypeQuickLengths;
    else if (h.opt.e.slow())
        h.lengths = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 18, 23, 31, 32, 33, 38, 47, 63, 64, 65, 127, 128, 129,
                     255, 257, 1000, 1001, 4099, 65537};
    else
        h.lengths = kDatatypeDeepLengths;

    opf_hw_info_t hw{};
    opf_hw_describe(&hw);
    std::vector<IsaLevel> levels = isa_levels(hw.x86_features);
    if (h.opt.e.quick() || h.opt.native_only)
        levels.resize(1);
    char cpu_features[200];
    opf_hw_format_features(hw.x86_features, cpu_features, sizeof cpu_features);
    std::printf("cpu: %s [%s]; ISA levels: %zu\n", hw.cpu_model[0] ? hw.cpu_model : "?", cpu_features, levels.size());

    for (size_t li = 0; li < levels.size(); ++li) {
        const IsaLevel& level = levels[li];
        if (li > 0) {
            // Re-initialise with the features of this level hidden.
            opf_finalize();
            const std::string kept = isa_mask_value(hw.x86_features & ~level.hidden);
            opf_param_set("op_base_isa_mask", kept.c_str());
            if (const int rc = opf_init(); rc != OPF_SUCCESS) {
                std::printf("FAIL opf_init with op_base_isa_mask=%s: %d\n", kept.c_str(), rc);
                h.kernel_total.record(false);
                continue;
            }
            opf_hw_info_t masked{};
            opf_hw_describe(&masked);
            const bool applied = masked.x86_features == (hw.x86_features & ~level.hidden);
            h.kernel_total.record(applied);
            if (!applied)
                std::printf("FAIL op_base_isa_mask=%s: opf_hw_describe still reports features 0x%x\n", kept.c_str(),
                            masked.x86_features);
        }
        h.level_index = int(li);
        h.report.isa = level.name;
        set_providers(h, li == 0);
        const long before = h.slots_checked;
        run_kernel_level(h);
        std::printf("ISA level %s: %ld slots with kernels not seen before\n",
                    level.name.empty() ? "native" : level.name.c_str(), h.slots_checked - before);
        add_totals(h);
    }
    h.report.isa.clear();
    if (levels.size() > 1) { // the datatype level runs on the native tables
        opf_finalize();
        opf_param_set("op_base_isa_mask", nullptr);
        opf_init();
    }
    for (const auto& [label, p] : provider_totals)
        std::printf("provider %s: %ld slots, %ld checks, %ld failed, %ld kernels missing (skipped)\n",
                    label.c_str(), p.slots, p.tally.checks, p.tally.failed, p.skipped);
    run_datatype_level(h);

    long checks = h.kernel_total.checks + h.datatype_total.checks,
         failed = h.kernel_total.failed + h.datatype_total.failed;
    for (const auto& [label, p] : provider_totals) {
        checks += p.tally.checks;
        failed += p.tally.failed;
    }
    if (h.warnings)
        std::printf("%ld warnings (see above)\n", h.warnings);
    std::printf("conformance: %ld slots over %zu ISA levels, %ld checks, %ld failed, %ld faults captured\n",
                h.slots_checked, levels.size(), checks, failed, h.faults);
    opf_finalize();
    if (h.slots_checked == 0 && h.opt.e.functions.empty())
        std::printf("conformance: no slot was checked: failing\n");
    return failed || (h.slots_checked == 0 && h.opt.e.functions.empty()) ? 1 : 0;
}
