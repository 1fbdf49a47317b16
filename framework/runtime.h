// runtime.h — library life cycle.
#pragma once

#include <atomic>

namespace opf {

extern std::atomic<bool> initialized;

[[gnu::cold]] int initialize_slow() noexcept;

// The first call of any entry point initialises the library.
inline int ensure_initialized()
{
    if (initialized.load(std::memory_order_acquire)) [[likely]] return 0;
    return initialize_slow();
}

} // namespace opf
