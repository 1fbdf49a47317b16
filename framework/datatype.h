// datatype.h — datatypes as the reduction path sees them: a kernel type,
// the ops defined on it, and its type map flattened into blocks of basic
// elements.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <opframe/component.h>

namespace opf {

// MPI's type groups (seed 003), which decide the ops defined on a type.
enum class TypeGroup : uint8_t { CInteger, FortranInteger, Floating, Logical, Complex, Byte, Pair, Text };

constexpr uint32_t op_bit(int op_id) { return uint32_t(1) << op_id; }

// A run of `count` basic elements of kernel type `kernel_type`, `offset`
// bytes from the start of the item.
struct Block {
    opf_aint_t offset;
    opf_count_t count;
    int kernel_type;
};

struct Datatype {
    const char *name = "derived";
    int kernel_type = -1;          // -1: the basic elements mix kernel types
    uint32_t valid_ops = 0;        // op_bit(id) for each predefined op defined on the type
    bool committed = false;
    bool supported = true;         // false: this build lacks the type (INTEGER16 without int128)
    bool dense = false;            // one block at offset 0 filling the extent: items are contiguous
    bool explicit_bounds = false;  // lb/extent were set by create_resized (no alignment epsilon)
    int alignment = 1;             // largest alignment of a basic element
    opf_count_t size = 0;          // bytes of data in one item
    opf_count_t basic_per_item = 0;  // basic elements in one item (dense types)
    opf_aint_t lb = 0, extent = 0;
    opf_aint_t true_lb = 0, true_ub = 0;
    std::vector<Block> blocks;
};

// Indexed by predefined type id (entry 0, DATATYPE_NULL, is unused).
extern const std::array<Datatype, OPF_TYPEID_COUNT_> predefined_types;

// A derived type's descriptor, or nullptr (freed, forged).
const Datatype *find_derived_type(uintptr_t handle);

// The descriptor of a handle, or nullptr (null, freed, forged). Uncommitted
// and unsupported types are returned; callers check.
inline const Datatype *find_type(opf_datatype_t handle)
{
    const auto h = reinterpret_cast<uintptr_t>(handle);
    if (h < OPF_TYPEID_COUNT_) [[likely]] return h ? &predefined_types[h] : nullptr;
    return find_derived_type(h);
}

// Invalidates every derived type (finalize).
void release_all_types();

} // namespace opf
