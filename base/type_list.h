// type_list.h — the two lists the (op x kernel type) matrix is generated
// from: the kernel types in OPF_KT_* order (type_description.h's table) and
// the op functors in OPF_OPID_* order. An op is added here and to the enum;
// a type, in type_description.h (docs/design.md, "Adding a datatype").
#pragma once

#include <cstddef>
#include <utility>

#include <opframe/component.h>
#include "base/semantics.h"
#include "base/type_description.h"

namespace opf::base {

template <class... T> struct TypeList {
    static constexpr std::size_t size = sizeof...(T);
};

template <std::size_t I, class List> struct At;
template <std::size_t I, class H, class... T> struct At<I, TypeList<H, T...>> : At<I - 1, TypeList<T...>> {};
template <class H, class... T> struct At<0, TypeList<H, T...>> { using type = H; };
template <std::size_t I, class List> using at_t = typename At<I, List>::type;

// Indexed by OPF_KT_*: the storage types of type_description.h's table.
template <class List> struct DropFirst;
template <class H, class... T> struct DropFirst<TypeList<H, T...>> { using type = TypeList<T...>; };
#define OPF_KT_COMMA_STORAGE(ID, TYPE, NATURE) , OPF_KT_STORAGE(TYPE)
using KernelTypes = typename DropFirst<TypeList<void OPF_KERNEL_TYPES(OPF_KT_COMMA_STORAGE)>>::type;
#undef OPF_KT_COMMA_STORAGE
static_assert(KernelTypes::size == OPF_KT_COUNT, "KernelTypes must follow the OPF_KT_* enum");

inline constexpr const char *kernel_type_names[OPF_KT_COUNT] = {
#define OPF_KT_NAME(ID, TYPE, NATURE) #ID,
    OPF_KERNEL_TYPES(OPF_KT_NAME)
#undef OPF_KT_NAME
};

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
