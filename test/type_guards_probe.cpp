// type_guards_probe.cpp — instantiates, for every kernel type of type_description.h's
// table, the rules a type must bring (a narrow float's rounding from float,
// its NaN rule in compare.h): test/type_guards.sh compiles it against
// headers with one line of a type taken out, and the build must fail naming
// what is missing.
#include "base/compare.h"
#include "base/type_list.h"

#include <utility>

namespace {

template <class T> void one()
{
    if constexpr (opf::base::is_narrow<T>) (void)opf::base::narrow<T>(1.0f);
    const T x{};
    (void)opf::base::same_value(x, x);
}
template <std::size_t... K> void every(std::index_sequence<K...>)
{
    (one<opf::base::at_t<K, opf::base::KernelTypes>>(), ...);
}

} // namespace

int main()
{
    every(std::make_index_sequence<opf::base::KernelTypes::size>{});
    return 0;
}
