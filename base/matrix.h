// matrix.h — the one walk over the (op x kernel type) matrix, for every
// table indexed [op id][kernel type] (the base's kernels, each component's
// offers, device launchers) and every table indexed [kernel type].
//
// A generator is a class with a static member template
//
//   template <std::size_t Op, std::size_t Kt> static constexpr Entry entry();
//
// called once per cell (base/type_list.h turns the indices into types:
// at_t<Op, Ops>, at_t<Kt, KernelTypes>). The tables are built by constexpr
// functions: at compile time when every entry() is constexpr, else at the
// first use (cuda_kernels.cu). Plain templates over the C enums only, so that
// nvcc can compile this header for device code as well (C++17 is enough).
#pragma once

#include <cstddef>
#include <utility>

#include <opframe/kernel.h>

namespace opf::base {

template <class Entry> struct Matrix {
    Entry at[OPF_OPID_COUNT][OPF_KT_COUNT];
    constexpr const Entry *operator[](std::size_t op_id) const { return at[op_id]; }
};

template <class Entry> struct KernelTypeTable {
    Entry at[OPF_KT_COUNT];
    constexpr const Entry &operator[](std::size_t kernel_type) const { return at[kernel_type]; }
};

namespace matrix_detail {
template <class Entry, class Gen, std::size_t Op, std::size_t... Kt>
constexpr void fill_row(Entry (&row)[OPF_KT_COUNT], std::index_sequence<Kt...>)
{
    ((row[Kt] = Gen::template entry<Op, Kt>()), ...);
}
template <class Entry, class Gen, std::size_t... Op>
constexpr Matrix<Entry> fill(std::index_sequence<Op...>)
{
    Matrix<Entry> m{};
    (fill_row<Entry, Gen, Op>(m.at[Op], std::make_index_sequence<OPF_KT_COUNT>{}), ...);
    return m;
}
template <class Entry, class Gen, std::size_t... Kt>
constexpr KernelTypeTable<Entry> fill_types(std::index_sequence<Kt...>)
{
    KernelTypeTable<Entry> t{};
    ((t.at[Kt] = Gen::template entry<Kt>()), ...);
    return t;
}
} // namespace matrix_detail

// The table of Gen::entry<Op, Kt>() over every op id and kernel type.
template <class Entry, class Gen> constexpr Matrix<Entry> make_matrix()
{
    return matrix_detail::fill<Entry, Gen>(std::make_index_sequence<OPF_OPID_COUNT>{});
}

// The table of Gen::entry<Kt>() over every kernel type.
template <class Entry, class Gen> constexpr KernelTypeTable<Entry> make_kernel_type_table()
{
    return matrix_detail::fill_types<Entry, Gen>(std::make_index_sequence<OPF_KT_COUNT>{});
}

} // namespace opf::base
