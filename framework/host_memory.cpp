// host_memory.cpp — see host_memory.h.
#include "framework/host_memory.h"

#include "base/proc_maps.h"

#include <link.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#if defined(__GLIBC__)
extern "C" void *__curbrk;   // glibc's current break, what sbrk(0) returns (exported since 2.2.5)
#endif

namespace opf {

namespace {
// The heap range is [heap_low, *brk): empty (0 .. 0) until the ranges are
// read, and where the C library's break is not known.
void *const no_break = nullptr;
#if defined(__GLIBC__)
void *const *const break_pointer = &__curbrk;
#else
void *const *const break_pointer = &no_break;   // those buffers ask the hooks
#endif
} // namespace

opf_host_ranges_v3_ host_window = {0, {0, 0, 0}, {0, 0, 0}, 0, &no_break, nullptr, {}};

namespace {

constexpr uintptr_t page_down(uintptr_t a, uintptr_t page) { return a & ~(page - 1); }
constexpr uintptr_t page_up(uintptr_t a, uintptr_t page) { return (a + page - 1) & ~(page - 1); }

struct Span {
    uintptr_t low, high;
};

// The executable's loadable segments, page-rounded and merged where they
// touch (the first object dl_iterate_phdr reports is the program itself).
int program_segments(dl_phdr_info *info, size_t, void *data)
{
    auto &spans = *static_cast<std::pair<Span[8], int> *>(data);
    const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
    for (int i = 0; i < info->dlpi_phnum && spans.second < 8; ++i) {
        const ElfW(Phdr) &ph = info->dlpi_phdr[i];
        if (ph.p_type != PT_LOAD || ph.p_memsz == 0) continue;
        const uintptr_t low = page_down(info->dlpi_addr + ph.p_vaddr, page);
        const uintptr_t high = page_up(info->dlpi_addr + ph.p_vaddr + ph.p_memsz, page);
        spans.first[spans.second++] = {low, high};
    }
    return 1;   // the program only
}

// ---- remembered mappings --------------------------------------------------------
// Writers hold `writer`; readers (opframe.h's opf_in_remembered_) take none.
std::mutex writer;
constexpr int kSightings = 8;
struct Sighting {
    uintptr_t page = 0;   // of a buffer the hooks did not claim once
    uint64_t stamp = 0;
};
Sighting sightings[kSightings];
int next_sighting = 0;
// Every entry holding a mapping that exists: /proc/self/maps is read again
// only after `backoff` more buffers that would read it (64, doubling to
// 65536 while it stays so), for an entry frees only when the application
// unmaps a mapping, which is not counted.
uint64_t full_at = 0, backoff = 0, calls_to_wait = 0;
// Mappings found not to be remembered at a count (unreadable, a device
// file's, or none: pinned memory of a driver's device file, say), so that
// their buffers do not have /proc/self/maps read at every call.
struct Refused {
    uintptr_t low = 0, high = 0;
    uint64_t stamp = 0;
};
Refused refused[kSightings];
int next_refused = 0;

void forget_sightings()
{
    std::lock_guard<std::mutex> lock(writer);
    for (Sighting &s : sightings) s = {};
    for (Refused &r : refused) r = {};
    full_at = backoff = calls_to_wait = 0;
}

bool refused_at(uintptr_t at, uint64_t stamp)
{
    for (const Refused &r : refused)
        if (r.stamp == stamp && at - r.low < r.high - r.low) return true;
    return false;
}

// The process's mappings (/proc/self/maps), each with whether host code can
// read it and no device file backs it (anonymous, a regular file's, shared
// memory's): the ones that may be remembered.
struct Mapped {
    uintptr_t low, high;
    bool host;
};
std::vector<Mapped> process_mappings()
{
    std::vector<Mapped> out;
    base::for_each_mapping([&](const base::ProcMapping &m) {
        out.push_back({m.low, m.high, m.readable() && !m.device_file()});
        return false;
    });
    return out;
}
const Mapped *mapping_at(const std::vector<Mapped> &maps, uintptr_t at)
{
    for (const Mapped &m : maps)
        if (at >= m.low && at < m.high) return &m;
    return nullptr;
}

// An entry free to write at `stamp`: one of another count, else one whose
// mapping is gone (the application unmapped it: no answer about it is
// needed); -1 when every entry holds a mapping that exists. None is
// replaced while its mapping exists: with more mappings in use than
// entries, the others ask the hooks (one question) rather than have
// /proc/self/maps read at every call.
int free_entry(uint64_t stamp, const std::vector<Mapped> &maps)
{
    for (int slot = 0; slot < OPF_REMEMBERED_RANGES_; ++slot)
        if (__atomic_load_n(&host_window.remembered[slot].stamp, __ATOMIC_RELAXED) != stamp) return slot;
    for (int slot = 0; slot < OPF_REMEMBERED_RANGES_; ++slot)
        if (!mapping_at(maps, host_window.remembered[slot].low)) return slot;
    return -1;
}

// Remembers [low, high) as of `stamp` in entry `slot` (a seqlock: stamp 0
// while the range is written, for readers of the entry it replaces).
void remember_range(int slot, uintptr_t low, uintptr_t high, uint64_t stamp)
{
    opf_remembered_range_v3_ &e = host_window.remembered[slot];
    __atomic_store_n(&e.stamp, 0, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __atomic_store_n(&e.low, low, __ATOMIC_RELAXED);
    __atomic_store_n(&e.span, high - low, __ATOMIC_RELAXED);
    __atomic_store_n(&e.stamp, stamp, __ATOMIC_RELEASE);
}

} // namespace

uint64_t mapping_stamp()
{
    return host_window.moved ? __atomic_load_n(host_window.moved, __ATOMIC_ACQUIRE) + 1 : 0;
}

void remember_host(const void *const *asked, int m, uint64_t asked_at)
{
    std::unique_lock<std::mutex> lock(writer, std::try_to_lock);
    if (!lock.owns_lock()) return;   // another thread is remembering: not worth a wait
    for (int i = 0; i < m; ++i) {
        const auto at = reinterpret_cast<uintptr_t>(asked[i]);
        if (opf_in_remembered_(&host_window, at)) continue;   // an earlier buffer of the call's mapping
        int seen = 0;
        while (seen < kSightings && !(sightings[seen].page == at / 4096 && sightings[seen].stamp == asked_at)) ++seen;
        if (seen == kSightings) {   // its first unclaimed call: noted only
            sightings[next_sighting] = {at / 4096, asked_at};
            next_sighting = (next_sighting + 1) % kSightings;
            continue;
        }
        if (refused_at(at, asked_at)) continue;
        if (full_at == asked_at && calls_to_wait) {
            --calls_to_wait;
            continue;
        }
        const std::vector<Mapped> maps = process_mappings();
        const Mapped *holder = mapping_at(maps, at);
        if (!holder || !holder->host) {
            const uintptr_t page = at & ~uintptr_t(4095);
            refused[next_refused] = {holder ? holder->low : page, holder ? holder->high : page + 4096, asked_at};
            next_refused = (next_refused + 1) % kSightings;
            continue;
        }
        const int slot = free_entry(asked_at, maps);
        if (slot < 0) {
            backoff = full_at == asked_at ? std::min<uint64_t>(backoff * 2, 65536) : 64;
            full_at = asked_at, calls_to_wait = backoff;
        }
        if (slot < 0 || mapping_stamp() != asked_at) continue;   // nowhere to keep it, or the count moved meanwhile
        remember_range(slot, holder->low, holder->high, asked_at);
    }
}

void note_host_ranges(bool claims, const uint64_t *moved)
{
    forget_sightings();
    opf_host_ranges_v3_ r = {claims, {0, 0, 0}, {0, 0, 0}, 0, &no_break, claims ? moved : nullptr, {}};
    if (!claims) {   // every buffer is host memory: nothing to read
        host_window = r;
        return;
    }
    std::pair<Span[8], int> segments{};
    dl_iterate_phdr(program_segments, &segments);
    Span *s = segments.first;
    const int n = segments.second;
    std::sort(s, s + n, [](const Span &a, const Span &b) { return a.low < b.low; });
    int merged = 0;   // in place: touching spans become one
    for (int i = 0; i < n; ++i) {
        if (merged && s[i].low <= s[merged - 1].high) s[merged - 1].high = std::max(s[merged - 1].high, s[i].high);
        else s[merged++] = s[i];
    }
    // The largest two spans (a program is one or two: its text and its data, apart where the linker left a gap).
    std::sort(s, s + merged, [](const Span &a, const Span &b) { return a.high - a.low > b.high - b.low; });
    for (int i = 0; i < std::min(merged, 2); ++i) r.low[i] = s[i].low, r.span[i] = s[i].high - s[i].low;

    // The heap's start and the main thread's stack, from the process's
    // mappings: the stack may grow down to its limit, bounded by the mapping
    // below it (glibc's rule for the main thread's pthread_getattr_np).
#if defined(__GLIBC__)
    r.heap_low = reinterpret_cast<uintptr_t>(__curbrk), r.brk = break_pointer;
#endif
    uintptr_t previous_end = 0;
    base::for_each_mapping([&](const base::ProcMapping &m) {
        if (std::strcmp(m.name, "[heap]") == 0 && r.brk != &no_break) r.heap_low = std::min(r.heap_low, m.low);
        if (std::strcmp(m.name, "[stack]") == 0) {
            // Without a limit only the mapping as it is now (the space
            // below may hold other mappings before the stack grows there).
            rlimit limit{};
            uintptr_t floor = m.low;
            if (getrlimit(RLIMIT_STACK, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < m.high)
                floor = std::min<uintptr_t>(floor, std::max<uintptr_t>(previous_end, uintptr_t(m.high - limit.rlim_cur)));
            r.low[2] = floor, r.span[2] = m.high - floor;
        }
        previous_end = m.high;
        return false;
    });
    host_window = r;
}

bool on_this_threads_stack(uintptr_t at)
{
    // A live buffer of the calling thread's stack lies above this frame (every
    // stack here grows down): anything below it is not one, known without
    // the thread's range (a thread-local, __tls_get_addr in a shared library).
    // The frame's address, not a local's: a sanitizer may keep locals elsewhere.
    if (at < reinterpret_cast<uintptr_t>(__builtin_frame_address(0))) return false;
    struct Range {
        uintptr_t low = 0, high = 0;
    };
    thread_local Range stack;
    if (!stack.high) [[unlikely]] {
        pthread_attr_t attr;
        void *low = nullptr;
        size_t size = 0;
        stack.high = 1;   // unknown: never matches
        if (pthread_getattr_np(pthread_self(), &attr) == 0) {
            if (pthread_attr_getstack(&attr, &low, &size) == 0)
                stack = {reinterpret_cast<uintptr_t>(low), reinterpret_cast<uintptr_t>(low) + size};
            pthread_attr_destroy(&attr);
        }
    }
    return at >= stack.low && at < stack.high;
}

} // namespace opf
