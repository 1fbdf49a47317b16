// type_description.h — every kernel type described once, in OPF_KT_* order:
// its id, its storage type and its nature. The lists that depend on the set
// of types are derived from this table (type_list.h's KernelTypes and names,
// which types are narrow floats or blocks) or fail the build naming the type
// that lacks a rule (the float conversion of a narrow type, its NaN codes in
// compare.h). docs/design.md, "Adding a datatype", lists what is written by
// hand.
#pragma once

#include <cstddef>
#include <iterator>
#include <type_traits>

#include <opframe/kernel.h>
#include "base/mx.h"
#include "base/storage.h"

namespace opf::base {

// What a kernel type is, as far as the rules that differ between types go:
//   Integer  two's complement or unsigned, wrapping arithmetic
//   Real     a native floating type (float, double, long double, binary128)
//   Narrow   a float stored in fewer bits, computed in float and rounded once
//            per operation (float16, bfloat16, fp8)
//   Complex  a pair of reals (re, im)
//   Pair     a value-index pair ({value; index;}, MAXLOC / MINLOC)
//   Block    a block of values sharing a scale, quantized once per result
//            (the MX formats: no chain of 3-buffer calls makes the n-ary one)
enum class Nature { Integer, Real, Narrow, Complex, Pair, Block, Unknown };

// X(ID, (storage type), Nature): one row per kernel type, in OPF_KT_* order.
// The storage type is parenthesised: a pair's has a comma.
#define OPF_KERNEL_TYPES(X)                                                                                 \
    X(INT8, (int8_t), Integer)                                                                             \
    X(UINT8, (uint8_t), Integer)                                                                           \
    X(INT16, (int16_t), Integer)                                                                           \
    X(UINT16, (uint16_t), Integer)                                                                         \
    X(INT32, (int32_t), Integer)                                                                           \
    X(UINT32, (uint32_t), Integer)                                                                         \
    X(INT64, (int64_t), Integer)                                                                           \
    X(UINT64, (uint64_t), Integer)                                                                         \
    X(INT128, (Int128), Integer)                                                                           \
    X(FLOAT16, (Half), Narrow)                                                                             \
    X(BFLOAT16, (BFloat16), Narrow)                                                                        \
    X(FLOAT, (float), Real)                                                                                \
    X(DOUBLE, (double), Real)                                                                              \
    X(LONG_DOUBLE, (long double), Real)                                                                    \
    X(FLOAT128, (Float128), Real)                                                                          \
    X(C_FLOAT_COMPLEX, (Complex<float>), Complex)                                                          \
    X(C_DOUBLE_COMPLEX, (Complex<double>), Complex)                                                        \
    X(C_LONG_DOUBLE_COMPLEX, (Complex<long double>), Complex)                                              \
    X(FLOAT_INT, (Pair<float, int>), Pair)                                                                 \
    X(DOUBLE_INT, (Pair<double, int>), Pair)                                                               \
    X(LONG_INT, (Pair<long, int>), Pair)                                                                   \
    X(2INT, (Pair<int, int>), Pair)                                                                        \
    X(SHORT_INT, (Pair<short, int>), Pair)                                                                 \
    X(LONG_DOUBLE_INT, (Pair<long double, int>), Pair)                                                     \
    X(2FLOAT, (Pair<float, float>), Pair)                                                                  \
    X(2DOUBLE, (Pair<double, double>), Pair)                                                               \
    X(FLOAT8_E4M3, (Float8E4M3), Narrow)                                                                   \
    X(FLOAT8_E5M2, (Float8E5M2), Narrow)                                                                   \
    X(MXFP8_E4M3, (MxBlock<MxE4M3>), Block)                                                                \
    X(MXFP8_E5M2, (MxBlock<MxE5M2>), Block)                                                                \
    X(MXFP6_E3M2, (MxBlock<MxE3M2>), Block)                                                                \
    X(MXFP6_E2M3, (MxBlock<MxE2M3>), Block)                                                                \
    X(MXFP4_E2M1, (MxBlock<MxE2M1>), Block)                                                                \
    X(MXINT8, (MxBlock<MxInt8>), Block)                                                                    \
    X(FLOAT8_E4M3FNUZ, (Float8E4M3Fnuz), Narrow)                                                           \
    X(FLOAT8_E5M2FNUZ, (Float8E5M2Fnuz), Narrow)                                                           \
    X(NVFP4, (MxBlock<BlockFormat<E2M1Element, 16, BlockScale::UE4M3>>), Block)

// (T) -> T: the table's parenthesised storage types.
template <class T> struct Unparen;
template <class T> struct Unparen<void(T)> { using type = T; };
#define OPF_KT_STORAGE(TYPE) typename ::opf::base::Unparen<void TYPE>::type

struct KernelTypeRow {
    int id;              // OPF_KT_*
    const char *name;    // OPF_KT_* without the prefix (opframe_info, messages)
    Nature nature;
};

inline constexpr KernelTypeRow kernel_type_rows[] = {
#define OPF_KT_ROW(ID, TYPE, NATURE) {OPF_KT_##ID, #ID, Nature::NATURE},
    OPF_KERNEL_TYPES(OPF_KT_ROW)
#undef OPF_KT_ROW
};
static_assert(std::size(kernel_type_rows) == OPF_KT_COUNT,
              "OPF_KERNEL_TYPES: one row per OPF_KT_* id (kernel.h's enum and this table differ)");
consteval bool rows_in_id_order()
{
    for (std::size_t i = 0; i < std::size(kernel_type_rows); ++i)
        if (kernel_type_rows[i].id != int(i)) return false;
    return true;
}
static_assert(rows_in_id_order(), "OPF_KERNEL_TYPES: rows out of OPF_KT_* order");

// The nature of kernel type kt (Unknown outside the table).
constexpr Nature kernel_type_nature(int kt)
{
    return kt >= 0 && kt < OPF_KT_COUNT ? kernel_type_rows[kt].nature : Nature::Unknown;
}

// The nature of a storage type: its row's, Unknown for a type with no row
// (a pair's members, a complex's parts are looked up as themselves).
template <class T> constexpr Nature nature_of()
{
    Nature n = Nature::Unknown;
#define OPF_KT_NATURE_OF(ID, TYPE, NATURE) \
    if (n == Nature::Unknown && std::is_same_v<T, OPF_KT_STORAGE(TYPE)>) n = Nature::NATURE;
    OPF_KERNEL_TYPES(OPF_KT_NATURE_OF)
#undef OPF_KT_NATURE_OF
    return n;
}
template <class T> inline constexpr bool is_narrow = nature_of<T>() == Nature::Narrow;
template <class T> inline constexpr bool is_block = nature_of<T>() == Nature::Block;

// For static_assert in an if-constexpr chain's last branch: false, naming T
// in the compiler's message.
template <class T> inline constexpr bool no_rule_for = false;

} // namespace opf::base
