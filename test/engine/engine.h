// engine.h — the conformance engine every provider is checked with (dav1d's
// checkasm as the model), type-agnostic: it knows bytes, element layouts,
// buffers and where they live, never an op's arithmetic (the test supplies
// the independent reference and the comparison of values).
//
//   * seeded randomness (splitmix64, --seed replays a run);
//   * guarded buffers: guard bytes before the first element, after the TRUE
//     end (the last element's data bytes: MPI's true extent) and in EVERY
//     element's padding (pairs, x87 long double); variants that end exactly
//     at a PROT_NONE page (over-reads fault) and that start right after one
//     (under-reads fault);
//   * a named table of layouts: 2-buffer (in, inout distinct), in == inout,
//     3-buffer distinct, out == in1, out == in2, in1 == in2, all three one
//     buffer, at element offsets and misaligned by elements (opframe_check(1)
//     lists every name);
//   * a team of threads that calls one kernel on adjacent ranges of one
//     call's buffers at once (kernels must be reentrant: opframe_component(3));
//   * crash capture: a kernel that faults (SIGSEGV, SIGBUS, SIGILL, SIGFPE) is
//     reported against its slot and provider, and the run goes on;
//   * backends: where a call's buffers live. Host memory runs the call on
//     the guarded buffers themselves; a device backend (OpenCL here, the
//     CUDA stand-in later) mirrors each guarded buffer's whole image to its
//     memory, runs the call there, and copies the image back, so the same
//     guard, padding and input checks apply;
//   * --function PATTERN, --bench (median time per slot and provider, side
//     by side), --quick / --deep / --slow (the depth, see Options).
#pragma once

#include <csetjmp>
#include <cstddef>
#include <cstdint>
#include <climits>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace engine {

// ---- reproducible randomness ------------------------------------------------------
class Rng {
public:
    explicit Rng(uint64_t seed) : state_(seed) {}
    uint64_t next()
    {
        uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    uint64_t below(uint64_t n) { return next() % n; }   // bias is irrelevant here
    bool coin() { return next() & 1; }
    bool one_in(uint64_t n) { return below(n) == 0; }

private:
    uint64_t state_;
};

// Seed of one data set, so that a (slot, length) gets the same data whatever
// the other options (--function, --slow, providers) are.
uint64_t derive_seed(uint64_t seed, uint64_t a, uint64_t b, uint64_t c);

// ---- element layouts ------------------------------------------------------------------
// Which bytes of one element are data; the rest of the extent is padding
// (a pair's hole and tail, an x87 long double's 6 bytes) and gets guards.
struct ElementLayout {
    struct Field { std::size_t offset, size; };
    std::size_t extent = 0, align = 1;
    std::vector<Field> fields;
    // Where a buffer's last element ends (MPI's true upper bound): the end
    // of a pair's index, else the extent (MPI_LONG_DOUBLE has size 16).
    std::size_t last_end = 0;

    bool is_data(std::size_t byte_in_element) const;
    // Every byte of the extent is data (no padding to guard).
    bool dense() const { return fields.size() == 1 && fields[0].offset == 0 && fields[0].size == extent && last_end == extent; }
    // Bytes a buffer of n elements spans.
    std::size_t span(std::size_t n) const { return n ? (n - 1) * extent + last_end : 0; }
};

// ---- guarded buffers -------------------------------------------------------------------
enum class Fence {
    Bytes,        // guard bytes before and after
    PageAfter,    // ends at a PROT_NONE page (as close as element alignment allows)
    PageBefore,   // starts right after a PROT_NONE page
};
const char *fence_name(Fence f);

// What a check found wrong with a buffer's non-data bytes.
struct Damage {
    long offset;          // relative to data()
    std::string where;    // "padding byte 2 of element 5", "3 bytes past the true end", ...
};

class GuardedBuffer {
public:
    // n elements of `layout`, `shift` bytes after the natural start (a
    // multiple of the element alignment), fenced as asked.
    GuardedBuffer(const ElementLayout &layout, std::size_t n, std::size_t shift, Fence fence);
    ~GuardedBuffer();
    GuardedBuffer(const GuardedBuffer &) = delete;
    GuardedBuffer &operator=(const GuardedBuffer &) = delete;

    unsigned char *data() { return data_; }
    const unsigned char *data() const { return data_; }
    std::size_t bytes() const { return layout_.span(n_); }
    std::size_t count() const { return n_; }
    // The whole image a device backend mirrors: lead guard, data, tail guard.
    unsigned char *image() { return image_; }
    std::size_t image_bytes() const { return image_bytes_; }
    std::size_t data_offset() const { return std::size_t(data_ - image_); }

    // Copies the data bytes of n elements (laid out with the element
    // extent) in; padding keeps its guard pattern. `elements` holds `rows`
    // elements (n if not given); element i is (start + i) % rows of them.
    void set_elements(const void *elements, std::size_t rows = SIZE_MAX, std::size_t start = 0);
    // Every data byte set to `byte` (an output never written must not pass).
    void fill_data(unsigned char byte);
    // The first non-data byte (guard or padding) that changed, if any.
    std::optional<Damage> damage() const;
    // Number of damaged non-data bytes in all (for reports).
    std::size_t damaged_bytes() const;

private:
    // The guard pattern of a non-data byte: varies with the position (a
    // shifted copy of the buffer onto itself is no match) and with the buffer
    // (nor is a copy of another operand's padding). Inline: it runs once per
    // padding byte of every element, megabytes at the long lengths.
    unsigned char expected(std::size_t i) const
    {
        return static_cast<unsigned char>(0xa5 ^ (i * 29) ^ (i >> 8) ^ salt_);
    }
    std::size_t next_damaged(std::size_t from) const;
    // Image bytes [from, to) set to, or compared with, their guard pattern
    // (the first that differs, or `to`).
    void fill_guards(std::size_t from, std::size_t to);
    std::size_t first_bad_guard(std::size_t from, std::size_t to) const;
    const ElementLayout &layout_;
    std::size_t n_;
    std::vector<std::size_t> padding_;   // the byte offsets in an element that are no data
    unsigned char *mapping_ = nullptr;   // mmap'd pages (Fence::Page*) or heap
    std::size_t mapping_bytes_ = 0;
    bool mapped_ = false;
    unsigned char *image_ = nullptr, *data_ = nullptr;
    std::size_t image_bytes_ = 0;
    unsigned char salt_;   // differs between buffers: a copy of another buffer's padding is caught
};

// ---- layouts: how the operands of a call sit ----------------------------------------
// Which operands are one buffer. The 2-buffer call computes inout = in op
// inout; the 3-buffer one out = in1 op in2.
enum class Alias {
    Two,        // in and inout distinct
    TwoSame,    // in == inout: inout = inout op inout
    Distinct3,  // in1, in2, out distinct
    OutIsIn1,   // out == in1
    OutIsIn2,   // out == in2
    In1IsIn2,   // in1 == in2, out distinct: out = in1 op in1
    AllSame3,   // in1 == in2 == out
};
const char *alias_name(Alias a);   // the call it makes, e.g. "in1 = in1 op in2"
bool alias_two(Alias a);           // a 2-buffer call
// Both operands are one buffer (the reference is then x op x).
bool alias_self(Alias a);
// The longest lengths a layout runs at, below --slow (which runs every
// layout at every length).
enum class Reach {
    Short,    // lengths up to kShortLength
    Medium,   // up to kMediumLength
    Big,      // every length
};
constexpr std::size_t kShortLength = 65, kMediumLength = 4099;
struct CallLayout {
    const char *name;
    Alias alias;
    std::size_t shift[3];   // elements after the natural start of in1, in2, out
    Fence fence;
    Reach reach;
};
// The named table (opframe_check(1) lists it).
const std::vector<CallLayout> &call_layouts();
// Whether a layout runs at length n (slow: every layout at every length).
bool layout_runs(const CallLayout &l, std::size_t n, bool slow);

// ---- threads: one kernel called on several threads at once ---------------------------
// A team of `threads` threads (the caller is thread 0) that run one
// function at the same moment: each waits at a start line until all are
// there, so that their calls overlap in time as far as the cores allow.
class Team {
public:
    explicit Team(int threads);
    ~Team();
    Team(const Team &) = delete;
    Team &operator=(const Team &) = delete;
    int threads() const { return threads_; }
    // Runs f(w) for w = 0 .. threads-1, each on its own thread, all
    // released at once; returns when every call has returned. A fault in
    // a call (SIGSEGV, ...) is captured on its thread: faults[w] is the
    // signal, or 0.
    void run(const std::function<void(int)> &f, std::vector<int> &faults);

private:
    struct State;
    int threads_;
    State *state_;
};
// The CPUs this process may run on (sched_getaffinity), at least 1.
int usable_cpus();

// ---- crash capture ------------------------------------------------------------------------
// Runs f; 0 if it returned, else the number of the signal it died of (the
// process goes on: the kernel's stack is abandoned with siglongjmp). Per
// thread: a Team's threads capture their own faults.
int run_capturing_faults(const std::function<void()> &f);
const char *signal_name(int sig);

// ---- backends: where a call's buffers live ------------------------------------------------
// A call on guarded operands (for out == in1 or out == in2 the caller passes
// the same object twice). Returns an OPF_* code (host kernels: OPF_SUCCESS).
class Target {
public:
    virtual ~Target() = default;
    virtual int two(GuardedBuffer &in, GuardedBuffer &inout, std::size_t n) = 0;
    virtual int three(GuardedBuffer &in1, GuardedBuffer &in2, GuardedBuffer &out, std::size_t n) = 0;
    virtual bool has_two() const { return true; }
    virtual bool has_three() const { return true; }
    // Page fences mean something only where the call reads host memory.
    virtual bool host_memory() const { return true; }
};

using HostCall2 = std::function<int(const void *, void *, std::size_t)>;
using HostCall3 = std::function<int(const void *, const void *, void *, std::size_t)>;

// Host memory: the call runs on the guarded buffers themselves.
class HostTarget final : public Target {
public:
    HostTarget(HostCall2 two, HostCall3 three) : two_(std::move(two)), three_(std::move(three)) {}
    int two(GuardedBuffer &in, GuardedBuffer &inout, std::size_t n) override
    {
        return two_(in.data(), inout.data(), n);
    }
    int three(GuardedBuffer &a, GuardedBuffer &b, GuardedBuffer &o, std::size_t n) override
    {
        return three_(a.data(), b.data(), o.data(), n);
    }
    bool has_two() const override { return bool(two_); }
    bool has_three() const override { return bool(three_); }

private:
    HostCall2 two_;
    HostCall3 three_;
};

// Device memory: each distinct operand's whole image (lead guard, data with
// its padding pattern, tail guard) goes to one device allocation, the call
// runs there at the data's offset, and every image comes back, so the host
// checks see what the device wrote, guards and padding included. A backend
// supplies the four memory operations and the two calls: OpenCL buffers
// (test/engine/opencl_backend.h); the CUDA stand-in runtime plugs in the
// same way (cudaMalloc / cudaMemcpy / opf_cuda_reduce_local*).
class MirroredTarget : public Target {
public:
    struct Image { void *handle; std::size_t offset; };
    int two(GuardedBuffer &in, GuardedBuffer &inout, std::size_t n) override;
    int three(GuardedBuffer &in1, GuardedBuffer &in2, GuardedBuffer &out, std::size_t n) override;
    bool host_memory() const override { return false; }

protected:
    virtual void *allocate(std::size_t bytes) = 0;   // nullptr: failed
    virtual bool upload(void *handle, const void *from, std::size_t bytes) = 0;
    virtual bool download(void *to, void *handle, std::size_t bytes) = 0;
    virtual void release(void *handle) = 0;
    virtual int call2(Image in, Image inout, std::size_t n) = 0;
    virtual int call3(Image in1, Image in2, Image out, std::size_t n) = 0;

private:
    int mirrored(std::vector<GuardedBuffer *> operands, const std::function<int(const std::vector<Image> &)> &call);
};

// ---- options ---------------------------------------------------------------------------------
// How deep a run goes; one meaning for every test of the project (tests that
// are shell scripts read the same variable): `make check` runs the quick
// form, CI's deep step (`make check-deep`) the deep one, --slow is for hand
// runs. Without --quick/--deep/--slow, $OPF_CHECK_DEPTH decides, else quick.
enum class Depth { Quick, Deep, Slow };
const char *depth_name(Depth d);

struct Options {
    uint64_t seed = 0;
    std::vector<std::string> functions;   // --function patterns (fnmatch, case-insensitive)
    std::vector<std::string> skips;       // --skip patterns: checks left out
    bool bench = false, verbose = false;
    Depth depth = Depth::Quick;
    int tier = -1;   // --tier N: only each provider's N-th size tier of a slot (0: its first); -1: all
    // --max-length N: no call longer than N elements; --lengths LIST: exactly
    // these lengths (no rotation, no size-tier lengths, no pattern runs).
    std::size_t max_length = SIZE_MAX;
    std::vector<std::size_t> lengths;
    // The thread check (kernels called on several threads at once): on by
    // default from --deep on; --threads / --no-threads decide at any depth.
    bool threads() const { return threads_ != 0 ? threads_ > 0 : depth != Depth::Quick; }
    bool quick() const { return depth == Depth::Quick; }
    bool slow() const { return depth == Depth::Slow; }
    // Takes argv[i] (and its value) if it is an engine option; false otherwise.
    bool parse(int argc, char **argv, int &i);
    // The depth from the environment unless given; a random seed unless --seed was given.
    void finish();
    static const char *help();
    // Does "provider.op.type" pass the --function filter?
    bool selected(const std::string &provider, const std::string &op, const std::string &type) const;

private:
    bool seeded_ = false, depth_given_ = false;
    int threads_ = 0;   // 1: --threads, -1: --no-threads, 0: the depth's default
};

// ---- benchmarks -------------------------------------------------------------------------------
// Median nanoseconds per call of f over `reps` timed runs (after a warm-up).
double median_ns(const std::function<void()> &f, int reps);

// ---- tallies ------------------------------------------------------------------------------------
struct Tally {
    long checks = 0, failed = 0;
    void record(bool ok) { ++checks; failed += !ok; }
};

} // namespace engine
