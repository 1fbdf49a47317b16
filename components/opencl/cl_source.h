// cl_source.h — generates the OpenCL C of the reductions: one template per
// op (its body per type category), instantiated for each kernel type the
// device computes exactly. Semantics are base/semantics.h's, rule for rule.
#pragma once

#include <string>
#include <vector>

#include <opframe/component.h>

#include "base/storage.h"

namespace opfcl {

// What a kernel type needs from the device to be computed exactly.
enum Need : unsigned {
    kNeedInt64 = 1u << 0,     // 64-bit integers (FULL_PROFILE, or cles_khr_int64)
    kNeedFp32 = 1u << 1,      // float: round to nearest, inf and NaN
    kNeedDenorm32 = 1u << 2,  // float denormals (CL_FP_DENORM in CL_DEVICE_SINGLE_FP_CONFIG)
    kNeedFp64 = 1u << 3,      // double: cl_khr_fp64, round to nearest, inf and NaN
    kNeedDenorm64 = 1u << 4,  // double denormals
};

enum class Cat { None, Int, Real, Half, BFloat16, Complex, Pair };

// A kernel type as the OpenCL C sees it, derived from base/type_list.h's
// KernelTypes (the one type list): OpenCL C names, layout, needs.
struct TypeInfo {
    Cat cat = Cat::None;      // None: no OpenCL C type (long double, float128, int128): copies only
    std::string cl;           // storage type in OpenCL C
    std::string arith;        // Int: the unsigned type it wraps in; Real: itself;
                              // Half/BFloat16: float; Complex: the part; Pair: the value type
    std::string index;        // Pair: the index type
    int extent = 0, align = 1;
    int true_end = 0;         // where the last element's data ends (base::data_end)
    opf::base::DataLayout layout{};   // the bytes of an element that are data
    bool dense = true;        // no padding in an element: byte copies may cover it whole
    unsigned needs = 0;
    const char *not_generated = nullptr;   // cat None: why the type has no OpenCL kernels (said at init)
    // Bytes n elements cover, up to the last one's data (MPI's true extent).
    std::size_t true_bytes(std::size_t n) const { return n ? (n - 1) * std::size_t(extent) + std::size_t(true_end) : 0; }
};

const TypeInfo &type_info(int kernel_type);

// Is (op, kernel type) a slot the OpenCL kernels define? The base's rule
// (Op::defined<T>) on the types OpenCL C has; REPLACE and NO_OP are copies:
// every kernel type.
bool op_defined(int op_id, int kernel_type);
// Ops done by copies: clEnqueueCopyBuffer / SVM memcpy on dense types, a
// kernel copying the data bytes where elements have padding.
constexpr bool is_copy_op(int op_id) { return op_id == OPF_OPID_REPLACE || op_id == OPF_OPID_NO_OP; }
// A copy op on this type needs a kernel (it must skip padding).
inline bool copy_needs_kernel(int op_id, int kernel_type) { return is_copy_op(op_id) && !type_info(kernel_type).dense; }

// The device features a program may use (kNeed* bits that hold).
struct Features {
    unsigned have = 0;
};

// The declarations every program of these kernel types starts with: the
// element structs, float16 / bfloat16 conversions (base/storage.h's
// algorithm, rewritten on the bits), the ordered helpers.
std::string program_prelude(const std::vector<int> &kernel_types, const Features &f);

// OpenCL C source of one op for the given kernel types (each must be
// op_defined and satisfied by `f`): kernels "opf2_<TYPE>" (in, inout) and
// "opf3_<TYPE>" (in1, in2, out). Arguments: (buffer, byte offset) per
// operand, then the element count (ulong).
std::string program_source(int op_id, const std::vector<int> &kernel_types, const Features &f);

// Kernel names of a slot.
std::string kernel_name(int kernel_type, int nbuf);

} // namespace opfcl
