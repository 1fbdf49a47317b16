// handles.h — created objects (user ops, derived datatypes) behind
// generation-checked handles, with MPI's lifetime: freeing a handle only marks
// its object for deallocation; the calls that resolved it finish on it.
//
// A handle is (generation << 24 | index). Indices below kFirstIndex are the
// predefined ids, so created handles never collide with them. Each entry
// holds one word of state: generation, a "freed" bit and a use count (the
// handle itself is one use while it is live). A call resolves a handle with
// begin_use() (one compare-and-swap: fails on a freed or stale handle) and
// ends with end_use(); whoever drops the last use of a freed object deletes
// it and recycles the entry under a new generation. Entries live in chunks
// that are never freed while the table exists, so a stale or forged handle is
// rejected without touching freed memory. Create/free/reclaim serialise on a
// mutex; begin_use/end_use take no lock.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

namespace opf {

template <class Object> class HandleTable {
public:
    static constexpr uintptr_t kFirstIndex = 256;
    static constexpr uintptr_t kIndexBits = 24;
    static constexpr uintptr_t kChunkSize = 1024;
    static constexpr uintptr_t kMaxChunks = (uintptr_t(1) << kIndexBits) / kChunkSize;

    // The object of a live handle with one more use, or nullptr. The object
    // stays valid until the matching end_use(), even if the handle is freed.
    Object *begin_use(uintptr_t handle)
    {
        Entry *e = entry_of(handle);
        if (!e) return nullptr;
        uint64_t s = e->state.load(std::memory_order_acquire);
        do {
            if (!live(s, handle)) return nullptr;
        } while (!e->state.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel, std::memory_order_acquire));
        return e->object.load(std::memory_order_acquire);
    }

    // Ends a use begun by begin_use(handle).
    void end_use(uintptr_t handle)
    {
        Entry &e = entry(handle & kIndexMask);
        if (uses(e.state.fetch_sub(1, std::memory_order_acq_rel)) == 1) {
            std::lock_guard lock(mutex_);
            reclaim(handle & kIndexMask);
        }
    }

    // The object of a live handle without a use: valid only while the caller
    // holds a use of it or nobody can free it concurrently.
    Object *lookup(uintptr_t handle) const
    {
        const Entry *e = entry_of(handle);
        if (!e || !live(e->state.load(std::memory_order_acquire), handle)) return nullptr;
        return e->object.load(std::memory_order_acquire);
    }

    // Takes ownership; returns the new handle, or 0 when full / out of memory.
    uintptr_t insert(std::unique_ptr<Object> object)
    {
        std::lock_guard lock(mutex_);
        uintptr_t index;
        if (!free_.empty()) {
            index = free_.back();
            free_.pop_back();
        } else {
            index = next_ < kFirstIndex ? kFirstIndex : next_;
            if (index / kChunkSize >= kMaxChunks) return 0;
            auto &slot = chunks_[index / kChunkSize];
            if (!slot.load(std::memory_order_relaxed)) {
                auto *chunk = new (std::nothrow) Entry[kChunkSize];
                if (!chunk) return 0;
                slot.store(chunk, std::memory_order_release);
            }
            // Room for every index on the free list: reclaim() must not allocate.
            if (free_.capacity() < index + 1 - kFirstIndex) free_.reserve(2 * (index + 1 - kFirstIndex));
            next_ = index + 1;
        }
        Entry &e = entry(index);
        e.object.store(object.release(), std::memory_order_release);
        const uint64_t generation = e.state.load(std::memory_order_relaxed) >> kGenerationShift;
        e.state.store((generation << kGenerationShift) | 1, std::memory_order_release);   // the handle's use
        return uintptr_t(generation << kIndexBits) | index;
    }

    // Marks a live handle freed (false if it is not live); its object goes
    // when its last use ends.
    bool release(uintptr_t handle)
    {
        std::lock_guard lock(mutex_);
        return retire(handle);
    }

    // Frees every live handle (finalize).
    void clear()
    {
        std::lock_guard lock(mutex_);
        for (uintptr_t index = kFirstIndex; index < next_; ++index) {
            const uint64_t s = entry(index).state.load(std::memory_order_relaxed);
            if (!(s & kFreed) && uses(s)) retire(((s >> kGenerationShift) << kIndexBits) | index);
        }
    }

    ~HandleTable()
    {
        clear();
        for (auto &c : chunks_) delete[] c.load();   // objects still in use at exit are left alone
    }

private:
    // state: generation (32 bits) | freed (1 bit) | uses (31 bits)
    static constexpr int kGenerationShift = 32;
    static constexpr uint64_t kFreed = uint64_t(1) << 31;
    static constexpr uint64_t kUseMask = kFreed - 1;
    static constexpr uintptr_t kIndexMask = (uintptr_t(1) << kIndexBits) - 1;

    struct Entry {
        std::atomic<uint64_t> state{uint64_t(1) << kGenerationShift};   // generation 1, no object
        std::atomic<Object *> object{nullptr};
    };

    static uint64_t uses(uint64_t s) { return s & kUseMask; }
    static bool live(uint64_t s, uintptr_t handle)
    {
        return (s >> kGenerationShift) == (handle >> kIndexBits) && !(s & kFreed) && uses(s);
    }

    Entry *entry_of(uintptr_t handle) const
    {
        const uintptr_t index = handle & kIndexMask;
        const uintptr_t generation = handle >> kIndexBits;
        if (index < kFirstIndex || generation == 0 || generation > UINT32_MAX) return nullptr;
        Entry *chunk = chunks_[index / kChunkSize].load(std::memory_order_acquire);
        return chunk ? &chunk[index % kChunkSize] : nullptr;
    }

    Entry &entry(uintptr_t index) { return chunks_[index / kChunkSize].load()[index % kChunkSize]; }

    // Under mutex_: marks the handle freed and drops its use.
    bool retire(uintptr_t handle)
    {
        Entry *e = entry_of(handle);
        if (!e) return false;
        uint64_t s = e->state.load(std::memory_order_acquire);
        do {
            if (!live(s, handle)) return false;
        } while (!e->state.compare_exchange_weak(s, (s | kFreed) - 1, std::memory_order_acq_rel,
                                                 std::memory_order_acquire));
        if (uses(s) == 1) reclaim(handle & kIndexMask);
        return true;
    }

    // Under mutex_, once a freed entry has no use left: deletes its object and
    // recycles the entry under the next generation.
    void reclaim(uintptr_t index)
    {
        Entry &e = entry(index);
        delete e.object.exchange(nullptr, std::memory_order_acq_rel);
        uint64_t generation = (e.state.load(std::memory_order_relaxed) >> kGenerationShift) + 1;
        if (generation > UINT32_MAX) generation = 1;   // wrapped: skip the "never valid" value 0
        e.state.store(generation << kGenerationShift, std::memory_order_release);
        free_.push_back(index);   // within the capacity insert() reserved: cannot throw
    }

    std::array<std::atomic<Entry *>, kMaxChunks> chunks_{};
    std::vector<uintptr_t> free_;
    uintptr_t next_ = kFirstIndex;
    std::mutex mutex_;
};

} // namespace opf
