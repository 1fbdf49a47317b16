// engine.cpp — the type-agnostic half of the conformance engine (engine.h).
#include "test/engine/engine.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <condition_variable>
#include <mutex>
#include <random>
#include <thread>

#include <fnmatch.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <opframe/opframe.h>

namespace engine {

uint64_t derive_seed(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
    Rng r(seed ^ (a * 0x9e3779b97f4a7c15ULL) ^ (b * 0xc2b2ae3d27d4eb4fULL) ^ (c * 0x165667b19e3779f9ULL));
    r.next();
    return r.next();
}

// ---- element layouts ------------------------------------------------------------------
bool ElementLayout::is_data(std::size_t b) const
{
    for (const Field &f : fields)
        if (b >= f.offset && b < f.offset + f.size) return true;
    return false;
}

// ---- guarded buffers -------------------------------------------------------------------
const char *fence_name(Fence f)
{
    switch (f) {
    case Fence::Bytes: return "guard bytes";
    case Fence::PageAfter: return "ends at a PROT_NONE page";
    default: return "starts after a PROT_NONE page";
    }
}

namespace {
constexpr std::size_t kGuardBytes = 64;   // before and after, for Fence::Bytes
std::size_t page_size()
{
    static const std::size_t p = std::size_t(sysconf(_SC_PAGESIZE));
    return p;
}
std::size_t round_up(std::size_t x, std::size_t to) { return (x + to - 1) / to * to; }

// Page-fenced mappings (data pages between two PROT_NONE pages) are reused:
// a quick run of the engine makes some 80,000 of them, and a fresh one costs
// an mmap, two mprotects, a munmap and zero-filled page faults (half of
// conformance_components.sh's time was the kernel's). A reused mapping keeps
// its fences; the buffer that takes it rewrites every byte between them.
// Per thread, at most kPoolBytes held, the oldest given back to the kernel
// first.
class FencedPool {
public:
    FencedPool() = default;
    FencedPool(const FencedPool &) = delete;
    FencedPool &operator=(const FencedPool &) = delete;
    ~FencedPool()
    {
        for (const Mapping &m : free_) munmap(m.at, m.bytes);
    }
    // A mapping of `bytes` (two fence pages included) with its fences set.
    unsigned char *take(std::size_t bytes)
    {
        for (std::size_t i = free_.size(); i-- > 0;)
            if (free_[i].bytes == bytes) {
                unsigned char *at = free_[i].at;
                free_.erase(free_.begin() + std::ptrdiff_t(i));
                held_ -= bytes;
                return at;
            }
        void *m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) throw std::bad_alloc();
        auto at = static_cast<unsigned char *>(m);
        const std::size_t page = page_size();
        if (mprotect(at, page, PROT_NONE) || mprotect(at + bytes - page, page, PROT_NONE)) {
            munmap(m, bytes);
            throw std::bad_alloc();
        }
        return at;
    }
    void give(unsigned char *at, std::size_t bytes)
    {
        if (bytes > kPoolBytes / 4) {
            munmap(at, bytes);
            return;
        }
        while (held_ + bytes > kPoolBytes || free_.size() >= kPoolMappings) {
            munmap(free_.front().at, free_.front().bytes);
            held_ -= free_.front().bytes;
            free_.erase(free_.begin());
        }
        free_.push_back({at, bytes});
        held_ += bytes;
    }

private:
    static constexpr std::size_t kPoolBytes = std::size_t(64) << 20, kPoolMappings = 64;
    struct Mapping {
        unsigned char *at;
        std::size_t bytes;
    };
    std::vector<Mapping> free_;   // oldest first
    std::size_t held_ = 0;
};
thread_local FencedPool fenced_pool;

// The heap is kept, not given back and grown again in small steps: the
// engine's data sets come and go by the thousand, and each trim and regrowth
// cost a brk and zero-filled page faults (with the pool above, the quick run
// of conformance_components.sh went from 27 to 11 s, 13 to 0.4 s of it in
// the kernel, on a 2-vCPU AMD EPYC).
[[maybe_unused]] const bool heap_kept = [] {
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    mallopt(M_TOP_PAD, 64 << 20);
    return true;
}();
} // namespace

// expected(i) repeats every 65,536 bytes (i * 29 and i >> 8 taken modulo
// 256): the guards before and after the data, up to a page per buffer on
// every call, are written and compared eight bytes at a time from a table
// of one period (byte by byte, they were a third of a deep run).
namespace {
const unsigned char *guard_period()
{
    static const std::vector<unsigned char> table = [] {
        std::vector<unsigned char> t(65536 + 8);
        for (std::size_t i = 0; i < t.size(); ++i) t[i] = static_cast<unsigned char>(0xa5 ^ (i * 29) ^ (i >> 8));
        return t;
    }();
    return table.data();
}
} // namespace

void GuardedBuffer::fill_guards(std::size_t from, std::size_t to)
{
    const unsigned char *period = guard_period();
    const uint64_t salt = 0x0101010101010101ULL * salt_;
    std::size_t i = from;
    for (; i + 8 <= to; i += 8) {
        uint64_t w;
        std::memcpy(&w, period + (i & 0xffff), 8);   // (the table runs 8 bytes past its period)
        w ^= salt;
        std::memcpy(image_ + i, &w, 8);
    }
    for (; i < to; ++i) image_[i] = expected(i);
}

std::size_t GuardedBuffer::first_bad_guard(std::size_t from, std::size_t to) const
{
    const unsigned char *period = guard_period();
    const uint64_t salt = 0x0101010101010101ULL * salt_;
    std::size_t i = from;
    for (; i + 8 <= to; i += 8) {
        uint64_t want, got;
        std::memcpy(&want, period + (i & 0xffff), 8);
        std::memcpy(&got, image_ + i, 8);
        if ((want ^ salt) != got) break;
    }
    for (; i < to; ++i)
        if (image_[i] != expected(i)) return i;
    return to;
}

GuardedBuffer::GuardedBuffer(const ElementLayout &layout, std::size_t n, std::size_t shift, Fence fence)
    : layout_(layout), n_(n)
{
    for (std::size_t p = 0; p < layout.extent; ++p)
        if (!layout.is_data(p)) padding_.push_back(p);
    static unsigned char next_salt = 0;
    salt_ = next_salt += 0x3b;
    const std::size_t span = layout.span(n), page = page_size();
    if (fence == Fence::Bytes) {
        image_bytes_ = kGuardBytes + shift + span + kGuardBytes;
        mapping_bytes_ = image_bytes_;
        mapping_ = static_cast<unsigned char *>(::operator new(mapping_bytes_, std::align_val_t(64)));
        image_ = mapping_;
        data_ = image_ + kGuardBytes + shift;
    } else {
        // Data pages between PROT_NONE pages; the data touches the fenced side.
        const std::size_t body = round_up(shift + span + layout.extent + 1, page);
        mapping_bytes_ = body + 2 * page;
        mapping_ = fenced_pool.take(mapping_bytes_);
        mapped_ = true;
        image_ = mapping_ + page;
        image_bytes_ = body;
        if (fence == Fence::PageBefore) {
            data_ = image_ + shift;
        } else {
            // The true end as close to the page as the element alignment
            // lets it be (a DOUBLE_INT buffer ends 4 bytes short: those 4
            // are guard bytes); `shift` moves the start back, not the end.
            std::size_t start = image_bytes_ - span;
            start -= start % layout.align;
            data_ = image_ + start;
        }
    }
    // Guard pattern on every non-data byte; data bytes start at zero (the
    // caller sets them: set_elements, fill_data).
    const std::size_t start = data_offset(), end = start + span;
    fill_guards(0, start);
    std::memset(image_ + start, 0, span);
    if (!layout.dense()) {
        // (element by element, no bound check but for the last: megabytes of
        // pairs at the long lengths)
        const std::size_t ext = layout.extent, whole = span / ext;
        for (std::size_t e = 0, at = start; e < whole; ++e, at += ext)
            for (std::size_t p : padding_) image_[at + p] = expected(at + p);
        for (std::size_t p : padding_)
            if (whole * ext + p < span) image_[start + whole * ext + p] = expected(start + whole * ext + p);
    }
    fill_guards(end, image_bytes_);
}

GuardedBuffer::~GuardedBuffer()
{
    if (mapped_) fenced_pool.give(mapping_, mapping_bytes_);
    else ::operator delete(mapping_, std::align_val_t(64));
}

void GuardedBuffer::set_elements(const void *elements, std::size_t rows, std::size_t start)
{
    auto src = static_cast<const unsigned char *>(elements);
    const std::size_t ext = layout_.extent;
    if (rows > n_) rows = n_;
    if (rows == 0) return;   // (nothing to repeat: n is 0 too)
    for (std::size_t i = 0, at = start % rows; i < n_; at = 0) {
        const std::size_t m = std::min(rows - at, n_ - i);
        unsigned char *to = data_ + i * ext;
        const unsigned char *from = src + at * ext;
        if (layout_.dense()) {   // (element by element, field by field, it was a third of a quick run)
            std::memcpy(to, from, m * ext);
        } else {
            for (std::size_t e = 0; e < m; ++e)
                for (const ElementLayout::Field &f : layout_.fields)
                    std::memcpy(to + e * ext + f.offset, from + e * ext + f.offset, f.size);
        }
        i += m;
    }
}

void GuardedBuffer::fill_data(unsigned char byte)
{
    const std::size_t ext = layout_.extent;
    if (layout_.dense()) {
        std::memset(data_, byte, n_ * ext);
        return;
    }
    for (std::size_t i = 0; i < n_; ++i)
        for (const ElementLayout::Field &f : layout_.fields) std::memset(data_ + i * ext + f.offset, byte, f.size);
}

// The first non-data byte at or after image offset `from` that differs from
// its guard pattern, or image_bytes_. The data span is skipped whole for a
// dense layout (most types): a byte-wise walk made these checks the
// engine's largest cost.
std::size_t GuardedBuffer::next_damaged(std::size_t from) const
{
    const std::size_t start = data_offset(), span = layout_.span(n_), end = start + span, ext = layout_.extent;
    if (from < start) {
        const std::size_t bad = first_bad_guard(from, std::min(start, image_bytes_));
        if (bad < std::min(start, image_bytes_)) return bad;
    }
    // Inside the data span only padding bytes are guards: element by element
    // (the first and the last with bound checks, the others without).
    if (!layout_.dense() && from < end) {
        const std::size_t first = from > start ? (from - start) / ext : 0, whole = span / ext;
        for (std::size_t e = first; e * ext < span; ++e) {
            const std::size_t at = start + e * ext;
            if (e == first || e >= whole) {
                for (std::size_t p : padding_)
                    if (at + p >= from && at + p < end && image_[at + p] != expected(at + p)) return at + p;
                continue;
            }
            for (std::size_t p : padding_)
                if (image_[at + p] != expected(at + p)) return at + p;
        }
    }
    return first_bad_guard(std::max(from, end), image_bytes_);
}

std::optional<Damage> GuardedBuffer::damage() const
{
    const std::size_t i = next_damaged(0);
    if (i == image_bytes_) return std::nullopt;
    const std::size_t span = layout_.span(n_), ext = layout_.extent;
    const long off = long(i) - long(data_offset());
    char where[96];
    if (off < 0)
        std::snprintf(where, sizeof where, "%ld bytes before the start", -off);
    else if (std::size_t(off) >= span)
        std::snprintf(where, sizeof where, "%zu bytes past the true end (at byte %zu of the element there)",
                      std::size_t(off) - span + 1, std::size_t(off) % ext);
    else
        std::snprintf(where, sizeof where, "padding byte %zu of element %zu", std::size_t(off) % ext,
                      std::size_t(off) / ext);
    return Damage{off, where};
}

std::size_t GuardedBuffer::damaged_bytes() const
{
    std::size_t bad = 0;
    for (std::size_t i = next_damaged(0); i < image_bytes_; i = next_damaged(i + 1)) ++bad;
    return bad;
}

// ---- layouts ------------------------------------------------------------------------------
const char *alias_name(Alias a)
{
    switch (a) {
    case Alias::Two: return "inout = in op inout";
    case Alias::TwoSame: return "x = x op x, in == inout";
    case Alias::Distinct3: return "out = in1 op in2";
    case Alias::OutIsIn1: return "in1 = in1 op in2";
    case Alias::OutIsIn2: return "in2 = in1 op in2";
    case Alias::In1IsIn2: return "out = x op x, in1 == in2";
    default: return "x = x op x, in1 == in2 == out";
    }
}

bool alias_two(Alias a) { return a == Alias::Two || a == Alias::TwoSame; }
bool alias_self(Alias a) { return a == Alias::TwoSame || a == Alias::In1IsIn2 || a == Alias::AllSame3; }

// Names say which call (2- or 3-buffer), which operands are one buffer
// (==), how the starts are shifted and which fence the buffers have; the
// rest is guard bytes, no shift. The self-test picks entries by index:
// new ones go at the end.
const std::vector<CallLayout> &call_layouts()
{
    using F = Fence;
    using A = Alias;
    using R = Reach;
    static const std::vector<CallLayout> table = {
        {"2-buffer", A::Two, {0, 0, 0}, F::Bytes, R::Short},
        {"2-buffer, page after", A::Two, {0, 0, 0}, F::PageAfter, R::Big},
        {"2-buffer, page before", A::Two, {0, 0, 0}, F::PageBefore, R::Medium},
        {"2-buffer, in +1, inout +3 elements", A::Two, {1, 3, 0}, F::Bytes, R::Short},
        {"3-buffer", A::Distinct3, {0, 0, 0}, F::Bytes, R::Short},
        {"3-buffer, page after", A::Distinct3, {0, 0, 0}, F::PageAfter, R::Big},
        {"3-buffer, page before", A::Distinct3, {0, 0, 0}, F::PageBefore, R::Medium},
        {"3-buffer, in2 +1, out +2 elements", A::Distinct3, {0, 1, 2}, F::Bytes, R::Short},
        {"3-buffer, out==in1", A::OutIsIn1, {0, 0, 0}, F::Bytes, R::Medium},
        {"3-buffer, out==in1, page after", A::OutIsIn1, {0, 0, 0}, F::PageAfter, R::Big},
        {"3-buffer, out==in2", A::OutIsIn2, {0, 0, 0}, F::Bytes, R::Big},
        {"3-buffer, out==in2, +1 element, page before", A::OutIsIn2, {1, 1, 0}, F::PageBefore, R::Short},
        {"2-buffer, in==inout", A::TwoSame, {0, 0, 0}, F::Bytes, R::Short},
        {"2-buffer, in==inout, page after", A::TwoSame, {0, 0, 0}, F::PageAfter, R::Medium},
        {"3-buffer, in1==in2", A::In1IsIn2, {0, 0, 0}, F::Bytes, R::Short},
        {"3-buffer, in1==in2==out, page after", A::AllSame3, {0, 0, 0}, F::PageAfter, R::Medium},
    };
    return table;
}

bool layout_runs(const CallLayout &l, std::size_t n, bool slow)
{
    if (slow) return true;
    switch (l.reach) {
    case Reach::Short: return n <= kShortLength;
    case Reach::Medium: return n <= kMediumLength;
    default: return true;
    }
}

// ---- crash capture ------------------------------------------------------------------------
namespace {
// Per thread: a fault is a synchronous signal, delivered to the thread that
// caused it, so each thread jumps back into its own captured call.
thread_local sigjmp_buf fault_jump;
thread_local volatile sig_atomic_t fault_armed = 0;
const int kFaultSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};

void on_fault(int sig)
{
    if (fault_armed) {
        fault_armed = 0;
        siglongjmp(fault_jump, sig);
    }
    signal(sig, SIG_DFL);   // not inside a captured call: die as usual
    raise(sig);
}

// A signal stack of the engine's own for the calling thread (a stack
// overflow is a fault too), and the thread's previous one put back when the
// thread ends: a sanitizer's runtime unmaps the stack it finds at thread exit,
// which must be the one it mapped (AddressSanitizer aborts on a heap block).
struct AltStack {
    std::vector<char> memory = std::vector<char>(1 << 16);
    stack_t previous{};
    AltStack()
    {
        stack_t ss{};
        ss.ss_sp = memory.data();
        ss.ss_size = memory.size();
        sigaltstack(&ss, &previous);
    }
    ~AltStack() { sigaltstack(&previous, nullptr); }
};

void install_fault_handlers()
{
    thread_local AltStack alt_stack;
    (void)alt_stack;
    static std::atomic<bool> done{false};
    if (done.exchange(true)) return;
    struct sigaction sa{};
    sa.sa_handler = on_fault;
    sa.sa_flags = SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (int s : kFaultSignals) sigaction(s, &sa, nullptr);
}
} // namespace

int run_capturing_faults(const std::function<void()> &f)
{
    install_fault_handlers();
    if (const int sig = sigsetjmp(fault_jump, 1)) return sig;
    fault_armed = 1;
    f();
    fault_armed = 0;
    return 0;
}

const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    default: return "signal";
    }
}

// ---- threads ---------------------------------------------------------------------------------
// The team's threads are helpers, each bound to a CPU of its own where the
// process may use enough of them (else they share), and they sleep between
// runs: they must not take CPU time from the caller's checks, nor from the
// other programs of a busy machine. The caller sleeps while they work. At a
// run each counts itself in at a start line and spins until all are there
// (a woken thread takes a scheduler's tick or more to run: without the line
// the first would be done before the last began), yielding its CPU after a
// while only when two of them share one.
struct Team::State {
    std::vector<std::thread> helpers;
    std::mutex m;
    std::condition_variable wake, done;
    uint64_t generation = 0;   // guarded by m
    int finished = 0;          // guarded by m
    bool stopping = false;     // guarded by m
    std::atomic<int> at_start{0};
    bool share_cpus = false;
    const std::function<void(int)> *work = nullptr;
    std::vector<int> *faults = nullptr;
};

namespace {
template <class Ready> void spin_until(Ready ready, bool yield_soon)
{
    using clock = std::chrono::steady_clock;
    const auto patience = yield_soon ? std::chrono::microseconds(20) : std::chrono::milliseconds(20);
    const auto t0 = clock::now();
    for (unsigned spins = 0; !ready(); ++spins)
        if ((spins & 255) == 0 && clock::now() - t0 > patience) sched_yield();
}
} // namespace

Team::Team(int threads) : threads_(std::max(1, threads)), state_(new State)
{
    State *st = state_;
    const int all = threads_;
    std::vector<int> cpus;   // the CPUs this process may use, in order
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (int c = 0; c < CPU_SETSIZE; ++c)
            if (CPU_ISSET(c, &set)) cpus.push_back(c);
    st->share_cpus = int(cpus.size()) < all;
    for (int w = 0; w < all; ++w)
        st->helpers.emplace_back([st, w, all, cpus] {
            if (!st->share_cpus) {
                cpu_set_t one;
                CPU_ZERO(&one);
                CPU_SET(cpus[std::size_t(w)], &one);
                pthread_setaffinity_np(pthread_self(), sizeof one, &one);
            }
            uint64_t seen = 0;
            for (;;) {
                {
                    std::unique_lock lock(st->m);
                    st->wake.wait(lock, [&] { return st->stopping || st->generation != seen; });
                    if (st->stopping) return;
                    seen = st->generation;
                }
                st->at_start.fetch_add(1);
                spin_until([&] { return st->at_start.load() >= all; }, st->share_cpus);
                const std::function<void(int)> &f = *st->work;
                (*st->faults)[std::size_t(w)] = run_capturing_faults([&] { f(w); });
                std::lock_guard lock(st->m);
                if (++st->finished == all) st->done.notify_one();
            }
        });
}

Team::~Team()
{
    {
        std::lock_guard lock(state_->m);
        state_->stopping = true;
    }
    state_->wake.notify_all();
    for (std::thread &t : state_->helpers) t.join();
    delete state_;
}

void Team::run(const std::function<void(int)> &f, std::vector<int> &faults)
{
    State *st = state_;
    faults.assign(std::size_t(threads_), 0);
    std::unique_lock lock(st->m);
    st->at_start.store(0);
    st->finished = 0;
    st->work = &f;
    st->faults = &faults;
    ++st->generation;
    st->wake.notify_all();
    st->done.wait(lock, [&] { return st->finished == threads_; });
}

// The threads this process may run on at once (its CPU affinity), at least 1.
int usable_cpus()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return int(std::max(1u, std::thread::hardware_concurrency()));
    return std::max(1, CPU_COUNT(&set));
}

// ---- device backends: mirrored images ------------------------------------------------------
int MirroredTarget::mirrored(std::vector<GuardedBuffer *> operands,
                             const std::function<int(const std::vector<Image> &)> &call)
{
    std::vector<GuardedBuffer *> distinct;
    for (GuardedBuffer *b : operands)
        if (std::find(distinct.begin(), distinct.end(), b) == distinct.end()) distinct.push_back(b);
    std::vector<void *> handles;
    int rc = OPF_SUCCESS;
    for (GuardedBuffer *b : distinct) {
        void *h = allocate(b->image_bytes());
        if (!h || !upload(h, b->image(), b->image_bytes())) {
            if (h) release(h);
            rc = OPF_ERR_NO_MEM;
            break;
        }
        handles.push_back(h);
    }
    if (rc == OPF_SUCCESS) {
        std::vector<Image> images;
        for (GuardedBuffer *b : operands) {
            const std::size_t k = std::size_t(std::find(distinct.begin(), distinct.end(), b) - distinct.begin());
            images.push_back({handles[k], b->data_offset()});
        }
        rc = call(images);
        for (std::size_t k = 0; k < handles.size(); ++k)
            if (!download(distinct[k]->image(), handles[k], distinct[k]->image_bytes()) && rc == OPF_SUCCESS)
                rc = OPF_ERR_INTERN;
    }
    for (void *h : handles) release(h);
    return rc;
}

int MirroredTarget::two(GuardedBuffer &in, GuardedBuffer &inout, std::size_t n)
{
    return mirrored({&in, &inout}, [&](const std::vector<Image> &im) { return call2(im[0], im[1], n); });
}

int MirroredTarget::three(GuardedBuffer &in1, GuardedBuffer &in2, GuardedBuffer &out, std::size_t n)
{
    return mirrored({&in1, &in2, &out}, [&](const std::vector<Image> &im) { return call3(im[0], im[1], im[2], n); });
}

// ---- options -----------------------------------------------------------------------------------
bool Options::parse(int argc, char **argv, int &i)
{
    const std::string arg = argv[i];
    auto value = [&](const char *name) -> const char * {
        const std::string eq = std::string(name) + "=";
        if (arg.rfind(eq, 0) == 0) return argv[i] + eq.size();
        if (arg == name && i + 1 < argc) return argv[++i];
        return nullptr;
    };
    if (const char *v = value("--seed")) {
        char *end = nullptr;
        seed = std::strtoull(v, &end, 0);
        if (!end || *end || !*v) {
            std::fprintf(stderr, "bad seed '%s'\n", v);
            std::exit(2);
        }
        seeded_ = true;
    } else if (const char *v = value("--function")) {
        functions.push_back(v);
    } else if (const char *v = value("--skip")) {
        skips.push_back(v);
    } else if (const char *v = value("--tier")) {
        char *end = nullptr;
        const long t = std::strtol(v, &end, 10);
        if (!end || *end || !*v || t < 0 || t > 64) {
            std::fprintf(stderr, "bad tier '%s': a size tier's index, 0 for the first\n", v);
            std::exit(2);
        }
        tier = int(t);
    } else if (const char *v = value("--max-length")) {
        char *end = nullptr;
        const unsigned long long m = std::strtoull(v, &end, 10);
        if (!end || *end || !*v || *v == '-') {
            std::fprintf(stderr, "bad --max-length '%s': a count of elements\n", v);
            std::exit(2);
        }
        max_length = std::size_t(m);
    } else if (const char *v = value("--lengths")) {
        // Comma-separated counts, e.g. 1,4099,131075.
        lengths.clear();
        for (const char *p = v;;) {
            char *end = nullptr;
            const unsigned long long m = std::strtoull(p, &end, 10);
            if (end == p || *p == '-' || (*end && *end != ',') || m > (1ULL << 40)) {
                std::fprintf(stderr, "bad --lengths '%s': counts of elements separated by commas\n", v);
                std::exit(2);
            }
            lengths.push_back(std::size_t(m));
            if (!*end) break;
            p = end + 1;
        }
        std::sort(lengths.begin(), lengths.end());
        lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
    } else if (arg == "--threads" || arg == "--no-threads") {
        threads_ = arg == "--threads" ? 1 : -1;
    } else if (arg == "--bench") {
        bench = true;
    } else if (arg == "--quick" || arg == "--deep" || arg == "--slow") {
        depth = arg == "--quick" ? Depth::Quick : arg == "--deep" ? Depth::Deep : Depth::Slow;
        depth_given_ = true;
    } else if (arg == "-v" || arg == "--verbose") {
        verbose = true;
    } else {
        return false;
    }
    return true;
}

const char *depth_name(Depth d) { return d == Depth::Quick ? "quick" : d == Depth::Deep ? "deep" : "slow"; }

void Options::finish()
{
    if (!depth_given_)
        if (const char *env = std::getenv("OPF_CHECK_DEPTH")) {
            const std::string e = env;
            if (e == "deep" || e == "slow") depth = e == "deep" ? Depth::Deep : Depth::Slow;
            else if (!e.empty() && e != "quick") {
                std::fprintf(stderr, "OPF_CHECK_DEPTH=%s: not quick, deep or slow\n", env);
                std::exit(2);
            }
        }
    if (seeded_) return;
    std::random_device rd;
    seed = (uint64_t(rd()) << 32) ^ rd() ^ uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
}

const char *Options::help()
{
    return "  --seed N          replay the data of a run (printed at its start)\n"
           "  --function PAT    only the checks named provider.op.type matching PAT (glob, any case;\n"
           "                    repeatable), e.g. 'avx2.maxloc.*', '*.sum.float16'; the datatype\n"
           "                    level's checks are named datatype.op.type\n"
           "  --skip PAT        leave out the checks matching PAT (repeatable)\n"
           "  --tier N          only each provider's N-th size tier of a slot: the N-th distinct\n"
           "                    kernel it serves as counts grow (0: its first; a streaming tier is 1)\n"
           "  --bench           time every kernel checked (median ns, and the ratio to the base)\n"
           "  --quick           the quick form (make check): lengths 0 1 2 3 8 17 18 38 65 1000 1001\n"
           "                    and each offer's self-test lengths, one ISA level\n"
           "  --deep            the deep form (CI): every power of two to 2^20 and its neighbours,\n"
           "                    every ISA level, the thread check, exhaustive 16-bit runs (8-bit\n"
           "                    floats: every pair of patterns)\n"
           "  --slow            deeper still: every neighbour of every power of two for every slot,\n"
           "                    every layout at every length\n"
           "                    (default: $OPF_CHECK_DEPTH = quick, deep or slow; else quick)\n"
           "  --max-length N    no call on more than N elements\n"
           "  --lengths LIST    exactly these lengths (comma-separated) for every slot\n"
           "  --threads         the thread check at any depth (several threads in one kernel at once)\n"
           "  --no-threads      no thread check, at any depth\n"
           "  -v                one line per slot and provider\n";
}

bool Options::selected(const std::string &provider, const std::string &op, const std::string &type) const
{
    const std::string name = provider + "." + op + "." + type;
    for (const std::string &p : skips)
        if (fnmatch(p.c_str(), name.c_str(), FNM_CASEFOLD) == 0) return false;
    if (functions.empty()) return true;
    for (const std::string &p : functions)
        if (fnmatch(p.c_str(), name.c_str(), FNM_CASEFOLD) == 0) return true;
    return false;
}

// ---- benchmarks -------------------------------------------------------------------------------
double median_ns(const std::function<void()> &f, int reps)
{
    using clock = std::chrono::steady_clock;
    f();   // warm-up: caches, page faults, lazy binding
    // Batch calls so one timing is at least ~20 us (short calls are below the clock's resolution).
    int batch = 1;
    for (;;) {
        const auto t0 = clock::now();
        for (int k = 0; k < batch; ++k) f();
        const double ns = std::chrono::duration<double, std::nano>(clock::now() - t0).count();
        if (ns > 20000 || batch >= (1 << 20)) break;
        batch *= 4;
    }
    std::vector<double> t(static_cast<std::size_t>(reps));
    for (double &x : t) {
        const auto t0 = clock::now();
        for (int k = 0; k < batch; ++k) f();
        x = std::chrono::duration<double, std::nano>(clock::now() - t0).count() / batch;
    }
    std::nth_element(t.begin(), t.begin() + reps / 2, t.end());
    return t[std::size_t(reps / 2)];
}

} // namespace engine
