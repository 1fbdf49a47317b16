// block_calls.h — the 2-buffer, 3-buffer and n-ary calls of a block
// format's SIMD kernels, block by block, from a kernel's one-block function
// K::block<Arity>(in, k, out, op, mean) (Arity: k known at compile time, or
// 0). Every input block is read before its result is stored, so out may be
// any input. An n-ary call of one input copies it (base::mx_reduce).
#pragma once

#include <cstring>

#include <opframe/opframe.h>   // OPF_REDUCE_N_MAX

#include "base/mx.h"

namespace opf::simd {

template <class K, std::size_t B> struct BlockCalls {
    template <base::MxOp O, bool Mean> static void nary(const void *const in[], int k, void *out, opf_count_t n, const void *)
    {
        if (k == 1) {
            if (in[0] != out) std::memmove(out, in[0], std::size_t(n) * B);
            return;
        }
        const uint8_t *p[OPF_REDUCE_N_MAX];
        for (std::size_t b = 0; b < std::size_t(n); ++b) {
            for (int j = 0; j < k; ++j) p[j] = static_cast<const uint8_t *>(in[j]) + b * B;
            K::template block<0>(p, k, static_cast<uint8_t *>(out) + b * B, O, Mean);
        }
    }
    template <base::MxOp O, bool Mean> static void three(const void *a, const void *b, void *out, opf_count_t n)
    {
        for (std::size_t i = 0; i < std::size_t(n); ++i) {
            const uint8_t *p[2] = {static_cast<const uint8_t *>(a) + i * B, static_cast<const uint8_t *>(b) + i * B};
            K::template block<2>(p, 2, static_cast<uint8_t *>(out) + i * B, O, Mean);
        }
    }
    template <base::MxOp O, bool Mean> static void two(const void *a, void *inout, opf_count_t n)
    {
        three<O, Mean>(a, inout, inout, n);
    }
};

} // namespace opf::simd
