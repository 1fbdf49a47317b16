// kernels.h — what a GPU backend's kernel tables give the device core
// (device_core.h), in words of no vendor: per (op, kernel type) slot, a
// launcher of the device kernel, the same computation on the host, and the
// kernel itself (for occupancy queries). A vendor's kernel file (cuda:
// components/cuda/cuda_kernels.cu) fills them; its error codes and streams
// travel as Error and Stream.
#pragma once

#include <cstdint>

#include <opframe/opframe.h>

namespace opf_gpu {

using Error = int;       // a vendor API's error code; 0 is success in every one
using Stream = void *;   // a vendor API's stream handle

// The most inputs of an n-ary kernel, and its forms: the op's chain result
// (kChain) and, where it differs, OPF_ROUND_ONCE's (kOnce).
constexpr int kMaxInputs = OPF_REDUCE_N_MAX;
enum NaryForm : int { kChain, kOnce, kNaryForms };

// How a launcher spreads the work: threads per block, and the most blocks
// (a grid-stride loop covers the rest).
struct Geometry {
    int block;
    int max_blocks;
};

struct SlotKernel {
    // out[i] = in1[i] op in2[i] for i < n, enqueued on `stream` of the current
    // device; out may be in1 or in2. Any element address (misaligned ones take
    // a byte-wise path). Returns the launch's error.
    Error (*launch)(const void *in1, const void *in2, void *out, int64_t n, Geometry g, Stream stream);
    // The same on host memory, synchronously.
    void (*host)(const void *in1, const void *in2, void *out, int64_t n);
    const void *kernel;   // the device function
    int element_size;     // sizeof the element type
};

// The n-ary kernels of a slot: out[i] = the op's n-ary result over
// in[0][i] .. in[k-1][i] (1 <= k <= OPF_REDUCE_N_MAX), in one form; out may
// be any in[j].
struct NaryKernel {
    // Enqueued on `stream` of the current device; `in` is read before it returns.
    Error (*launch)(const void *const in[], int k, void *out, int64_t n, Geometry g, Stream stream);
    void (*host)(const void *const in[], int k, void *out, int64_t n);
    const void *kernel;
    int element_size;
};

// What the vendor's kernel file defines (components/gpu/device_kernels.h
// for the tables): the slot's kernels, or nullptr where the GPU does not
// compute (op id, kernel type) — REPLACE and NO_OP have kernels for the types
// the GPU computes, copying data bytes only (no pair padding, nothing past the
// true end); the n-ary kernel of a form, or nullptr (no such kernel, a form
// the slot has not, REPLACE / NO_OP); and the architectures it was compiled
// for, as the vendor names them ("sm_80, sm_90", "gfx90a, gfx942").
const SlotKernel *slot_kernel(int op_id, int kernel_type);
const NaryKernel *nary_kernel(int op_id, int kernel_type, int form);
const char *arch_list();

} // namespace opf_gpu
