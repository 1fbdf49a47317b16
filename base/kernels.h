// kernels.h — the base provider: a correct default kernel for every valid
// (op, kernel type) slot, generated from semantics.h.
#pragma once

#include <opframe/component.h>
#include "base/type_description.h"

namespace opf::base {

struct SlotKernels {
    opf_kernel2_fn *fn2 = nullptr;   // both null: no such slot
    opf_kernel3_fn *fn3 = nullptr;
};

// Indexed [op id][kernel type]; op id 0 (OP_NULL) has no slots.
const SlotKernels &kernels(int op_id, int kernel_type);

// The n-ary forms of a slot (opf_offer_t's kernel_n, kernel_n_once,
// premul_n, premul_n_once, in that order). Every slot has kN; kNOnce only
// where OPF_ROUND_ONCE differs (SUM and AVG of the Narrow types); the premul
// forms sit in SUM's row, for the arithmetic types (kPremulOnce: Narrow).
enum NaryForm { kN, kNOnce, kPremul, kPremulOnce, kNaryForms };
struct NaryKernels {
    opf_kernel_n_fn *fn[kNaryForms] = {};
};
const NaryKernels &nary_kernels(int op_id, int kernel_type);
inline const char *nary_form_name(int form)
{
    constexpr const char *names[kNaryForms] = {"n-ary", "n-ary round-once", "PreMulSum n-ary", "PreMulSum n-ary round-once"};
    return names[form];
}

// Index of the first element where two arrays of a kernel type differ
// (compare.h's rule: any NaN matches any NaN, padding ignored), or -1.
opf_count_t first_difference(int kernel_type, const void *a, const void *b, opf_count_t n);

// Bytes between consecutive elements, and alignment, of a kernel type.
int kernel_type_extent(int kernel_type);
int kernel_type_alignment(int kernel_type);
// Bytes of data in one element (MPI's type size: a pair counts its members, not its padding).
int kernel_type_data_size(int kernel_type);
// Offset just past the last data byte of one element (MPI's true upper bound:
// a pair's trailing padding is not data).
int kernel_type_data_end(int kernel_type);
bool kernel_type_supported(int kernel_type);
// The block formats (type_description.h's Block nature, mx.h): their n-ary
// result is no chain of 3-buffer calls.
inline bool kernel_type_is_block(int kt) { return kernel_type_nature(kt) == Nature::Block; }
// Whether op's plain n-ary result is the left-to-right chain of its 3-buffer
// calls: every op's but AVG's (the sum divided by k) and the MX block
// formats' arithmetic (quantized once: base/mx.h; their copies, REPLACE and
// NO_OP, chain). Where it is, the n-ary calls follow the selection's
// 3-buffer half (framework/components.cpp: install_chain), and a device call
// may compose 3-buffer device kernels (framework/reduce.cpp).
inline bool nary_is_chain(int op_id, int kt)
{
    const bool copy = op_id == OPF_OPID_REPLACE || op_id == OPF_OPID_NO_OP;
    return op_id != OPF_OPID_AVG && (!kernel_type_is_block(kt) || copy);
}
const char *kernel_type_name(int kernel_type);
const char *op_name(int op_id);

} // namespace opf::base
