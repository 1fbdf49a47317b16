// type_list.h — the two lists the (op x kernel type) matrix is generated
// from: the kernel types in OPF_KT_* order and the op functors in OPF_OPID_*
// order. Adding a type or an op means adding it here (and to the enums).
#pragma once

#include <cstddef>
#include <utility>

#include <opframe/component.h>
#include "base/semantics.h"

namespace opf::base {

template <class... T> struct TypeList {
    static constexpr std::size_t size = sizeof...(T);
};

template <std::size_t I, class List> struct At;
template <std::size_t I, class H, class... T> struct At<I, TypeList<H, T...>> : At<I - 1, TypeList<T...>> {};
template <class H, class... T> struct At<0, TypeList<H, T...>> { using type = H; };
template <std::size_t I, class List> using at_t = typename At<I, List>::type;

// Indexed by OPF_KT_*.
using KernelTypes = TypeList<
    int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t,
    Int128,
    Half, BFloat16, float, double, long double, Float128,
    Complex<float>, Complex<double>, Complex<long double>,
    Pair<float, int>, Pair<double, int>, Pair<long, int>, Pair<int, int>,
    Pair<short, int>, Pair<long double, int>, Pair<float, float>, Pair<double, double>,
    Float8E4M3, Float8E5M2,
    MxBlock<MxE4M3>, MxBlock<MxE5M2>, MxBlock<MxE3M2>, MxBlock<MxE2M3>, MxBlock<MxE2M1>, MxBlock<MxInt8>>;
static_assert(KernelTypes::size == OPF_KT_COUNT, "KernelTypes must follow the OPF_KT_* enum");

inline constexpr const char *kernel_type_names[OPF_KT_COUNT] = {
    "INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32", "INT64", "UINT64",
    "INT128",
    "FLOAT16", "BFLOAT16", "FLOAT", "DOUBLE", "LONG_DOUBLE", "FLOAT128",
    "C_FLOAT_COMPLEX", "C_DOUBLE_COMPLEX", "C_LONG_DOUBLE_COMPLEX",
    "FLOAT_INT", "DOUBLE_INT", "LONG_INT", "2INT",
    "SHORT_INT", "LONG_DOUBLE_INT", "2FLOAT", "2DOUBLE",
    "FLOAT8_E4M3", "FLOAT8_E5M2",
    "MXFP8_E4M3", "MXFP8_E5M2", "MXFP6_E3M2", "MXFP6_E2M3", "MXFP4_E2M1", "MXINT8"};

// Every entry named: a list shorter than its enum compiles, and leaves the
// new entries' names null (a type added to KernelTypes without its name).
template <std::size_t N> consteval bool all_named(const char *const (&names)[N])
{
    for (const char *n : names)
        if (n == nullptr || *n == '\0') return false;
    return true;
}
static_assert(all_named(kernel_type_names), "kernel_type_names: a kernel type has no name (one per OPF_KT_* id)");

// Indexed by OPF_OPID_*.
using Ops = TypeList<
    OpNull, OpMax, OpMin, OpSum, OpProd, OpLand, OpBand, OpLor, OpBor,
    OpLxor, OpBxor, OpMaxloc, OpMinloc, OpReplace, OpNoOp, OpAvg>;
static_assert(Ops::size == OPF_OPID_COUNT, "Ops must follow the OPF_OPID_* enum");

inline constexpr const char *op_names[OPF_OPID_COUNT] = {
    "OP_NULL", "MAX", "MIN", "SUM", "PROD", "LAND", "BAND", "LOR", "BOR",
    "LXOR", "BXOR", "MAXLOC", "MINLOC", "REPLACE", "NO_OP", "AVG"};
static_assert(all_named(op_names), "op_names: an op has no name (one per OPF_OPID_* id)");

// Whether a kernel type is usable on this build (binary128 / int128 exist).
template <class T> inline constexpr bool is_supported =
    !std::is_same_v<T, Int128> || is_integer<T>;
template <> inline constexpr bool is_supported<Float128> = is_real<Float128>;

} // namespace opf::base
