// host_memory.h — memory that is host memory whatever device components are
// loaded: the program's own image (its code, constant and static data), the
// brk heap, the main thread's stack and the calling thread's stack. Device
// and managed memory are mapped by their drivers with mmap, never there, so
// a buffer there needs no claim hook (and no driver call behind one): the
// claim path asks the hooks only about the other buffers (asking about every
// buffer made a host reduction with the cuda component loaded cost 5-50x the
// same call without it).
//
// Every range is exact for as long as it is in use: the program's image is
// never unmapped; the heap is [its start, the current break) at the moment
// of the question; a stack is its thread's while the thread runs (the
// calling thread's is asked by the calling thread, the main thread's never
// goes away). Memory outside them (mmap'd buffers, other libraries' data)
// may be unmapped and its addresses reused by a driver at any time: an
// answer about it is remembered only where the claiming component counts
// its driver's mapping calls (opf_memory_kind_set_mapping_count), for the
// whole mapping, while that count stands; else the hooks are asked every call.
#pragma once

#include <cstdint>

#include <opframe/opframe.h>

namespace opf {

// The ranges (opframe.h's host window, which the inline calls read too):
// claims, and the image's, main stack's and heap's ranges.
extern opf_host_ranges_v3_ host_window;

// Reads the ranges (the executable's program headers, the process's mappings
// once) and sets `claims` and `moved` (the only claiming kind's mapping
// count, or nullptr: nothing is remembered): at components_init, before any
// claim hook can be asked and before the call rows open.
void note_host_ranges(bool claims, const uint64_t *moved);

// The mapping count + 1 now (the stamp a mapping is remembered with), or 0
// where nothing is remembered. Read before asking the hooks.
uint64_t mapping_stamp();
// The hooks claimed none of asked[0 .. m), asked when mapping_stamp() was
// `asked_at`: each buffer's mapping is remembered at its second such call
// (the first costs nothing more), if host code can read it and no device
// file backs it, and the count has not moved.
void remember_host(const void *const *asked, int m, uint64_t asked_at);

// The calling thread's stack: [low, high), looked up once per thread.
bool on_this_threads_stack(uintptr_t at);

// Whether p is host memory by the ranges above; false means "ask the hooks".
inline bool surely_host(const void *p)
{
    const auto at = reinterpret_cast<uintptr_t>(p);
    return opf_in_host_window_(&host_window, at) || on_this_threads_stack(at);
}

} // namespace opf
