// datatype.h — datatypes as the reduction path sees them: a kernel type,
// the ops defined on it, and its type map as nested loops over runs of basic
// elements.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include <opframe/component.h>

namespace opf {

// MPI's type groups (seed 003), which decide the ops defined on a type.
enum class TypeGroup : uint8_t { CInteger, FortranInteger, Floating, Logical, Complex, Byte, Pair, Text, Block };

constexpr uint32_t op_bit(int op_id) { return uint32_t(1) << op_id; }
// In Datatype::usable_ops: user ops may run on the type (op id 0 is no predefined op).
constexpr uint32_t kUserOpBit = op_bit(0);

// One piece of a type map, as a loop: `reps` copies, `stride` bytes apart,
// the first `offset` bytes from the item's start, of either `count`
// contiguous basic elements of `kernel_type` (a leaf) or the nested map
// `inner`. Regular types stay small whatever their counts:
// vector(INT_MAX, 1, 2, INT) is one segment, not INT_MAX blocks.
struct Segment;
using Segments = std::vector<Segment>;
struct Segment {
    opf_aint_t offset = 0;
    opf_count_t reps = 1;
    opf_aint_t stride = 0;
    int kernel_type = -1;                    // >= 0: a leaf
    opf_count_t count = 0;                   // leaf: elements per copy
    std::shared_ptr<const Segments> inner;   // not a leaf: the nested map
    opf_count_t inner_calls = 0;             // not a leaf: leaves in one copy of inner (saturating)
    int inner_depth = 0;                     // not a leaf: nesting of inner
};

struct Datatype {
    const char *name = "derived";
    int kernel_type = -1;          // the kernel type of every basic element; -1: several, or none
    uint32_t valid_ops = 0;        // op_bit(id) for each predefined op defined on the type
    // valid_ops | kUserOpBit once committed and supported, else 0: what a
    // call checks, in one test. Written by commit: read it with usable_ops().
    uint32_t usable_ops = 0;
    bool committed = false;
    bool supported = true;         // false: this build lacks the type (INTEGER16 without int128)
    bool dense = false;            // one leaf at offset 0 filling the extent: items are contiguous
    bool explicit_bounds = false;  // lb/extent were set by create_resized (no alignment epsilon)
    int alignment = 1;             // largest alignment of a basic element
    int depth = 0;                 // nesting of `segments`
    uint64_t kernel_types = 0;     // bit k: some basic element has kernel type k
    static_assert(OPF_KT_COUNT <= 64, "Datatype::kernel_types is a 64-bit mask: one bit per kernel type");
    opf_count_t size = 0;          // bytes of data in one item
    opf_count_t basic_per_item = 0;  // basic elements in one item
    opf_count_t leaf_calls = 0;    // leaves in one item (saturating)
    opf_count_t max_count = 0;     // largest count whose buffers' byte offsets all fit in 64 bits
    opf_aint_t lb = 0, extent = 0;
    opf_aint_t true_lb = 0, true_ub = 0;
    std::shared_ptr<const Segments> segments;
};

inline uint32_t usable_ops(const Datatype &t) { return __atomic_load_n(&t.usable_ops, __ATOMIC_RELAXED); }

// Indexed by predefined type id (entry 0, DATATYPE_NULL, is unused: never usable).
extern const std::array<Datatype, OPF_TYPEID_COUNT_> predefined_types;

// Every reader of a datatype handle holds a use of it (TypeUse below): another
// thread may free the handle at any time, and a freed descriptor is reclaimed
// when its last use ends.
const Datatype *begin_type_use(uintptr_t handle);
void end_type_use(uintptr_t handle);

// A resolved datatype handle that stays valid while this object lives, even
// if the handle is freed meanwhile (MPI: freeing marks for deallocation).
// Predefined types are immortal and cost nothing.
class TypeUse {
public:
    explicit TypeUse(opf_datatype_t handle) : h_(reinterpret_cast<uintptr_t>(handle))
    {
        if (h_ < OPF_TYPEID_COUNT_) [[likely]] t_ = h_ ? &predefined_types[h_] : nullptr;
        else t_ = begin_type_use(h_);
    }
    ~TypeUse()
    {
        if (h_ >= OPF_TYPEID_COUNT_ && t_) [[unlikely]] end_type_use(h_);
    }
    TypeUse(const TypeUse &) = delete;
    TypeUse &operator=(const TypeUse &) = delete;
    const Datatype *get() const { return t_; }

private:
    uintptr_t h_;
    const Datatype *t_;
};

// Calls leaf(offset, kernel_type, count) for each leaf of one item, in
// type-map order. Offsets are computed modulo 2^64: construction checked that
// each final offset fits, not that every partial sum does.
template <class Leaf> void for_each_leaf(const Segments &segments, uint64_t base, Leaf &leaf)
{
    for (const Segment &s : segments)
        for (opf_count_t r = 0; r < s.reps; ++r) {
            const uint64_t at = base + uint64_t(s.offset) + uint64_t(r) * uint64_t(s.stride);
            if (s.kernel_type >= 0) leaf(opf_aint_t(at), s.kernel_type, s.count);
            else for_each_leaf(*s.inner, at, leaf);
        }
}

// Frees every derived type (finalize); types in use go when their use ends.
void release_all_types();

} // namespace opf
