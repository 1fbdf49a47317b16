// host_mappings.h — the driver's calls that change the process's mappings,
// counted, so that the framework may remember host mappings between calls
// (without it, once the driver is initialised, a host reduction on an mmap'd
// buffer paid one pointer query per buffer, 112-121 ns on an H200, against
// a 5 ns call).
//
// Why a count is enough: a mapping host code can read that the driver
// called host memory stays host memory until the process's mappings change
// there. Host code changing them (munmap, then mmap) makes host memory
// again, or none; only the driver puts device or managed memory in the
// process, and it maps it with the C library's mmap, mremap, mprotect or
// shmat. So the driver library's own calls of those functions (its
// relocations: the slots the dynamic linker filled) are hooked, and each
// adds 1 to the count before it acts; the framework remembers a mapping
// while the count stands (opf_memory_kind_set_mapping_count, component.h).
// A driver that changed mappings another way (a raw system call) would make
// this unsound; where the driver library calls no mmap through its
// relocations nothing is hooked and nothing remembered.
#pragma once

#include <cstddef>
#include <cstdint>

namespace opf_cuda::host_mappings {

// Hooks the mapping calls of the driver library opened as `driver` (a dlopen
// handle), once per process (the hooks live in this module, which is never
// unloaded: -z nodelete). Returns the count to hand to the framework, or
// nullptr with `state` saying why; `state` says what is hooked otherwise.
// `wanted` false (op_cuda_host_cache) hooks nothing.
const uint64_t *start(void *driver, bool wanted, char *state, size_t state_len);

// The driver library's mapping calls since the parameter op_cuda_driver_mappings,
// which reads this, was registered.
int64_t *driver_mapping_calls();

} // namespace opf_cuda::host_mappings
