// handles.h — created objects (user ops, derived datatypes) behind
// generation-checked handles.
//
// A handle is (generation << 24 | index). Indices below kFirstIndex are the
// predefined ids, so created handles never collide with them. Freeing an
// object bumps its entry's generation: a stale or forged handle is rejected
// by lookup() without ever dereferencing freed memory. Lookups take no lock;
// create/release serialise on a mutex.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace opf {

template <class Object> class HandleTable {
public:
    static constexpr uintptr_t kFirstIndex = 256;
    static constexpr uintptr_t kIndexBits = 24;
    static constexpr uintptr_t kChunkSize = 1024;
    static constexpr uintptr_t kMaxChunks = (uintptr_t(1) << kIndexBits) / kChunkSize;

    // The live object of a handle, or nullptr.
    Object *lookup(uintptr_t handle) const
    {
        const uintptr_t index = handle & ((uintptr_t(1) << kIndexBits) - 1);
        const uintptr_t generation = handle >> kIndexBits;
        if (index < kFirstIndex || generation == 0 || generation > UINT32_MAX) return nullptr;
        const Entry *chunk = chunks_[index / kChunkSize].load(std::memory_order_acquire);
        if (!chunk) return nullptr;
        const Entry &e = chunk[index % kChunkSize];
        if (e.generation.load(std::memory_order_acquire) != generation) return nullptr;
        return e.object.load(std::memory_order_acquire);
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
            next_ = index + 1;
        }
        Entry &e = entry(index);
        e.object.store(object.release(), std::memory_order_release);
        return (uintptr_t(e.generation.load(std::memory_order_relaxed)) << kIndexBits) | index;
    }

    // Invalidates the handle; returns its object (nullptr if already invalid).
    std::unique_ptr<Object> release(uintptr_t handle)
    {
        std::lock_guard lock(mutex_);
        if (!lookup(handle)) return nullptr;
        const uintptr_t index = handle & ((uintptr_t(1) << kIndexBits) - 1);
        return retire(index);
    }

    // Invalidates every handle (finalize).
    void clear()
    {
        std::lock_guard lock(mutex_);
        for (uintptr_t index = kFirstIndex; index < next_; ++index)
            if (entry(index).object.load(std::memory_order_relaxed)) retire(index);
    }

    ~HandleTable()
    {
        clear();
        for (auto &c : chunks_) delete[] c.load();
    }

private:
    struct Entry {
        std::atomic<uint32_t> generation{1};
        std::atomic<Object *> object{nullptr};
    };

    Entry &entry(uintptr_t index) { return chunks_[index / kChunkSize].load()[index % kChunkSize]; }

    std::unique_ptr<Object> retire(uintptr_t index)
    {
        Entry &e = entry(index);
        uint32_t next_generation = e.generation.load(std::memory_order_relaxed) + 1;
        if (next_generation == 0) next_generation = 1;   // wrapped: skip the "never valid" value
        e.generation.store(next_generation, std::memory_order_release);
        std::unique_ptr<Object> object(e.object.exchange(nullptr, std::memory_order_acq_rel));
        free_.push_back(index);
        return object;
    }

    std::array<std::atomic<Entry *>, kMaxChunks> chunks_{};
    std::vector<uintptr_t> free_;
    uintptr_t next_ = kFirstIndex;
    std::mutex mutex_;
};

} // namespace opf
