// host_mappings.h — host mappings remembered between calls, for as long as
// the driver has changed no mapping (issue 33: once the driver is
// initialised, a host reduction on an mmap'd buffer paid one pointer query
// per buffer, 112-121 ns on an H200, against a 5 ns call).
//
// Why it is sound: a mapping host code can read (anonymous, a file's, shared
// memory; not a device file's) that the driver called host memory stays host
// memory until the process's mappings change there. Host code changing them
// (munmap, then mmap) makes host memory again, or none; only the driver can
// put device or managed memory there, and it does so with the C library's
// mmap, mremap, mprotect or shmat. So the driver library's own calls of those
// functions (its relocations: the GOT slots the dynamic linker filled) are
// hooked and counted, each counted before it acts, and a remembered mapping
// holds only while that count is what it was when the mapping was read from
// /proc/self/maps. A driver that changed mappings another way (a raw system
// call) would make this unsound; none is hooked where the driver library
// calls no mmap through its relocations, and the cache is then off.
//
// Remembered: a buffer's whole mapping, at the second call that finds the
// driver calling it host memory (a buffer seen once costs what it did: one
// pointer query; seen again, one read of /proc/self/maps), 16 mappings at
// most, the oldest replaced.
#pragma once

#include <cstddef>
#include <cstdint>

namespace opf_cuda::host_mappings {

// Hooks the mapping calls of the driver library opened as `driver` (a dlopen
// handle), once per process (the hooks live in this module, which is never
// unloaded: -z nodelete). Returns whether remembering is on; when it is not,
// `why` says why. `wanted` false (op_cuda_host_cache) turns it off.
bool start(void *driver, bool wanted, char *why, size_t why_len);
// Forgets every mapping and stops remembering (close_component).
void stop();

// The driver library's mapping calls since the parameter op_cuda_driver_mappings,
// which reads this, was registered.
int64_t *driver_mapping_calls();

// Where remembering is on: the count now, to pass to note_host after asking
// the driver about a buffer.
uint64_t stamp();
// Whether p lies in a mapping remembered as host memory at the current count.
bool remembered(const void *p);
// The driver called p host memory, asked when the count was `asked_at`:
// remembers p's mapping at its second sighting if host code can use it and
// the count has not moved since.
void note_host(const void *p, uint64_t asked_at);

} // namespace opf_cuda::host_mappings
