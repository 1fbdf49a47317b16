// host_memory.h — memory that is host memory whatever device components are
// loaded: the program's own image (its code, constant and static data), the
// brk heap, the main thread's stack and the calling thread's stack. Device
// and managed memory are mapped by their drivers with mmap, never there, so
// a buffer there needs no claim hook (and no driver call behind one): the
// claim path asks the hooks only about the other buffers (issue 33: a host
// reduction with the cuda component loaded cost 5-50x the same call without).
//
// Every range is exact for as long as it is in use: the program's image is
// never unmapped; the heap is [its start, the current break) at the moment
// of the question; a stack is its thread's while the thread runs (the
// calling thread's is asked by the calling thread, the main thread's never
// goes away). Memory outside them (mmap'd buffers, other libraries' data)
// may be unmapped and its addresses reused by a driver at any time, so no
// answer about it is remembered: the hooks are asked every call.
#pragma once

#include <cstdint>

#include <unistd.h>

#if defined(__GLIBC__)
extern "C" void *__curbrk;   // glibc's current break, what sbrk(0) returns (exported since 2.2.5)
#endif

namespace opf {

struct HostRanges {
    uintptr_t image_low = 0, image_span = 0;   // the program's image (executable's segments), one span if contiguous
    uintptr_t image2_low = 0, image2_span = 0; // its writable part where not contiguous with the rest
    uintptr_t heap_low = UINTPTR_MAX;          // where the brk heap began
    uintptr_t stack_low = 0, stack_span = 0;   // the main thread's stack
};
extern HostRanges host_ranges;

// Reads the ranges (the executable's program headers, the process's mappings
// once): at components_init, before any claim hook can be asked.
void note_host_ranges();

// The calling thread's stack: [low, high), looked up once per thread.
bool on_this_threads_stack(uintptr_t at);
inline uintptr_t current_break()
{
#if defined(__GLIBC__)
    return reinterpret_cast<uintptr_t>(__curbrk);
#else
    return reinterpret_cast<uintptr_t>(sbrk(0));
#endif
}

// Whether p is host memory by the ranges above; false means "ask the hooks".
inline bool surely_host(const void *p)
{
    const auto at = reinterpret_cast<uintptr_t>(p);
    const HostRanges &r = host_ranges;
    return at - r.image_low < r.image_span || at - r.stack_low < r.stack_span || at - r.image2_low < r.image2_span ||
           (at >= r.heap_low && at < current_break()) || on_this_threads_stack(at);
}

} // namespace opf
