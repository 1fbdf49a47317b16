// datatype.cpp — predefined datatypes, derived-type constructors (flattened
// into blocks once, at construction), and the public datatype API.
#include "framework/datatype.h"

#include <algorithm>
#include <bit>
#include <array>
#include <climits>
#include <cstddef>
#include <cwchar>
#include <memory>
#include <type_traits>
#include <utility>

#include "base/kernels.h"
#include "base/type_list.h"
#include "framework/error.h"
#include "framework/handles.h"

namespace opf {
namespace {

// ---- predefined types --------------------------------------------------------

constexpr uint32_t ops_of(TypeGroup g)
{
    constexpr uint32_t any = op_bit(OPF_OPID_REPLACE) | op_bit(OPF_OPID_NO_OP);
    constexpr uint32_t order = op_bit(OPF_OPID_MAX) | op_bit(OPF_OPID_MIN);
    constexpr uint32_t arith = op_bit(OPF_OPID_SUM) | op_bit(OPF_OPID_PROD) | op_bit(OPF_OPID_AVG);
    constexpr uint32_t logic = op_bit(OPF_OPID_LAND) | op_bit(OPF_OPID_LOR) | op_bit(OPF_OPID_LXOR);
    constexpr uint32_t bits = op_bit(OPF_OPID_BAND) | op_bit(OPF_OPID_BOR) | op_bit(OPF_OPID_BXOR);
    constexpr uint32_t loc = op_bit(OPF_OPID_MAXLOC) | op_bit(OPF_OPID_MINLOC);
    switch (g) {
    case TypeGroup::CInteger: return any | order | arith | logic | bits;
    case TypeGroup::FortranInteger: return any | order | arith | bits;
    case TypeGroup::Floating: return any | order | arith;
    case TypeGroup::Logical: return any | logic;
    case TypeGroup::Complex: return any | arith;
    case TypeGroup::Byte: return any | bits;
    case TypeGroup::Pair: return any | loc;
    case TypeGroup::Text: return any;
    case TypeGroup::Block: return any | order | op_bit(OPF_OPID_SUM) | op_bit(OPF_OPID_AVG);   // MX: no PROD
    }
    return any;
}

// The kernel type of a C integer type, from its size and signedness.
template <class T> constexpr int int_kt()
{
    constexpr int by_size = sizeof(T) == 1 ? 0 : sizeof(T) == 2 ? 1 : sizeof(T) == 4 ? 2 : 3;
    constexpr int signed_kts[] = {OPF_KT_INT8, OPF_KT_INT16, OPF_KT_INT32, OPF_KT_INT64};
    constexpr int unsigned_kts[] = {OPF_KT_UINT8, OPF_KT_UINT16, OPF_KT_UINT32, OPF_KT_UINT64};
    return std::is_signed_v<T> ? signed_kts[by_size] : unsigned_kts[by_size];
}
static_assert(sizeof(long) == 8, "OPF_KT_LONG_INT assumes an LP64 'long'");

struct Predefined {
    int id;
    const char *name;
    int kernel_type;
    TypeGroup group;
};

using G = TypeGroup;
constexpr Predefined predefined_list[] = {
    {OPF_TYPEID_CHAR, "CHAR", int_kt<char>(), G::Text},
    {OPF_TYPEID_SIGNED_CHAR, "SIGNED_CHAR", OPF_KT_INT8, G::CInteger},
    {OPF_TYPEID_UNSIGNED_CHAR, "UNSIGNED_CHAR", OPF_KT_UINT8, G::CInteger},
    {OPF_TYPEID_BYTE, "BYTE", OPF_KT_UINT8, G::Byte},
    {OPF_TYPEID_WCHAR, "WCHAR", int_kt<wchar_t>(), G::Text},
    {OPF_TYPEID_SHORT, "SHORT", int_kt<short>(), G::CInteger},
    {OPF_TYPEID_UNSIGNED_SHORT, "UNSIGNED_SHORT", int_kt<unsigned short>(), G::CInteger},
    {OPF_TYPEID_INT, "INT", int_kt<int>(), G::CInteger},
    {OPF_TYPEID_UNSIGNED, "UNSIGNED", int_kt<unsigned>(), G::CInteger},
    {OPF_TYPEID_LONG, "LONG", int_kt<long>(), G::CInteger},
    {OPF_TYPEID_UNSIGNED_LONG, "UNSIGNED_LONG", int_kt<unsigned long>(), G::CInteger},
    {OPF_TYPEID_LONG_LONG, "LONG_LONG", int_kt<long long>(), G::CInteger},
    {OPF_TYPEID_UNSIGNED_LONG_LONG, "UNSIGNED_LONG_LONG", int_kt<unsigned long long>(), G::CInteger},
    {OPF_TYPEID_INT8_T, "INT8_T", OPF_KT_INT8, G::CInteger},
    {OPF_TYPEID_INT16_T, "INT16_T", OPF_KT_INT16, G::CInteger},
    {OPF_TYPEID_INT32_T, "INT32_T", OPF_KT_INT32, G::CInteger},
    {OPF_TYPEID_INT64_T, "INT64_T", OPF_KT_INT64, G::CInteger},
    {OPF_TYPEID_UINT8_T, "UINT8_T", OPF_KT_UINT8, G::CInteger},
    {OPF_TYPEID_UINT16_T, "UINT16_T", OPF_KT_UINT16, G::CInteger},
    {OPF_TYPEID_UINT32_T, "UINT32_T", OPF_KT_UINT32, G::CInteger},
    {OPF_TYPEID_UINT64_T, "UINT64_T", OPF_KT_UINT64, G::CInteger},
    {OPF_TYPEID_C_BOOL, "C_BOOL", OPF_KT_UINT8, G::Logical},
    {OPF_TYPEID_CXX_BOOL, "CXX_BOOL", OPF_KT_UINT8, G::Logical},
    {OPF_TYPEID_AINT, "AINT", int_kt<opf_aint_t>(), G::CInteger},
    {OPF_TYPEID_OFFSET, "OFFSET", OPF_KT_INT64, G::CInteger},
    {OPF_TYPEID_COUNT, "COUNT", int_kt<opf_count_t>(), G::CInteger},
    {OPF_TYPEID_FLOAT, "FLOAT", OPF_KT_FLOAT, G::Floating},
    {OPF_TYPEID_DOUBLE, "DOUBLE", OPF_KT_DOUBLE, G::Floating},
    {OPF_TYPEID_LONG_DOUBLE, "LONG_DOUBLE", OPF_KT_LONG_DOUBLE, G::Floating},
    {OPF_TYPEID_FLOAT16, "FLOAT16", OPF_KT_FLOAT16, G::Floating},
    {OPF_TYPEID_BFLOAT16, "BFLOAT16", OPF_KT_BFLOAT16, G::Floating},
    {OPF_TYPEID_C_FLOAT_COMPLEX, "C_FLOAT_COMPLEX", OPF_KT_C_FLOAT_COMPLEX, G::Complex},
    {OPF_TYPEID_C_DOUBLE_COMPLEX, "C_DOUBLE_COMPLEX", OPF_KT_C_DOUBLE_COMPLEX, G::Complex},
    {OPF_TYPEID_C_LONG_DOUBLE_COMPLEX, "C_LONG_DOUBLE_COMPLEX", OPF_KT_C_LONG_DOUBLE_COMPLEX, G::Complex},
    {OPF_TYPEID_INTEGER, "INTEGER", OPF_KT_INT32, G::FortranInteger},
    {OPF_TYPEID_INTEGER1, "INTEGER1", OPF_KT_INT8, G::FortranInteger},
    {OPF_TYPEID_INTEGER2, "INTEGER2", OPF_KT_INT16, G::FortranInteger},
    {OPF_TYPEID_INTEGER4, "INTEGER4", OPF_KT_INT32, G::FortranInteger},
    {OPF_TYPEID_INTEGER8, "INTEGER8", OPF_KT_INT64, G::FortranInteger},
    {OPF_TYPEID_INTEGER16, "INTEGER16", OPF_KT_INT128, G::FortranInteger},
    {OPF_TYPEID_REAL, "REAL", OPF_KT_FLOAT, G::Floating},
    {OPF_TYPEID_REAL2, "REAL2", OPF_KT_FLOAT16, G::Floating},
    {OPF_TYPEID_REAL4, "REAL4", OPF_KT_FLOAT, G::Floating},
    {OPF_TYPEID_REAL8, "REAL8", OPF_KT_DOUBLE, G::Floating},
    {OPF_TYPEID_REAL16, "REAL16", OPF_KT_FLOAT128, G::Floating},
    {OPF_TYPEID_DOUBLE_PRECISION, "DOUBLE_PRECISION", OPF_KT_DOUBLE, G::Floating},
    {OPF_TYPEID_COMPLEX, "COMPLEX", OPF_KT_C_FLOAT_COMPLEX, G::Complex},
    {OPF_TYPEID_DOUBLE_COMPLEX, "DOUBLE_COMPLEX", OPF_KT_C_DOUBLE_COMPLEX, G::Complex},
    {OPF_TYPEID_COMPLEX8, "COMPLEX8", OPF_KT_C_FLOAT_COMPLEX, G::Complex},
    {OPF_TYPEID_COMPLEX16, "COMPLEX16", OPF_KT_C_DOUBLE_COMPLEX, G::Complex},
    {OPF_TYPEID_LOGICAL, "LOGICAL", OPF_KT_INT32, G::Logical},
    {OPF_TYPEID_FLOAT_INT, "FLOAT_INT", OPF_KT_FLOAT_INT, G::Pair},
    {OPF_TYPEID_DOUBLE_INT, "DOUBLE_INT", OPF_KT_DOUBLE_INT, G::Pair},
    {OPF_TYPEID_LONG_INT, "LONG_INT", OPF_KT_LONG_INT, G::Pair},
    {OPF_TYPEID_2INT, "2INT", OPF_KT_2INT, G::Pair},
    {OPF_TYPEID_SHORT_INT, "SHORT_INT", OPF_KT_SHORT_INT, G::Pair},
    {OPF_TYPEID_LONG_DOUBLE_INT, "LONG_DOUBLE_INT", OPF_KT_LONG_DOUBLE_INT, G::Pair},
    {OPF_TYPEID_2REAL, "2REAL", OPF_KT_2FLOAT, G::Pair},
    {OPF_TYPEID_2DOUBLE_PRECISION, "2DOUBLE_PRECISION", OPF_KT_2DOUBLE, G::Pair},
    {OPF_TYPEID_2INTEGER, "2INTEGER", OPF_KT_2INT, G::Pair},
    {OPF_TYPEID_FLOAT8_E4M3, "FLOAT8_E4M3", OPF_KT_FLOAT8_E4M3, G::Floating},
    {OPF_TYPEID_FLOAT8_E5M2, "FLOAT8_E5M2", OPF_KT_FLOAT8_E5M2, G::Floating},
    {OPF_TYPEID_MXFP8_E4M3, "MXFP8_E4M3", OPF_KT_MXFP8_E4M3, G::Block},
    {OPF_TYPEID_MXFP8_E5M2, "MXFP8_E5M2", OPF_KT_MXFP8_E5M2, G::Block},
    {OPF_TYPEID_MXFP6_E3M2, "MXFP6_E3M2", OPF_KT_MXFP6_E3M2, G::Block},
    {OPF_TYPEID_MXFP6_E2M3, "MXFP6_E2M3", OPF_KT_MXFP6_E2M3, G::Block},
    {OPF_TYPEID_MXFP4_E2M1, "MXFP4_E2M1", OPF_KT_MXFP4_E2M1, G::Block},
    {OPF_TYPEID_MXINT8, "MXINT8", OPF_KT_MXINT8, G::Block},
    {OPF_TYPEID_FLOAT8_E4M3FNUZ, "FLOAT8_E4M3FNUZ", OPF_KT_FLOAT8_E4M3FNUZ, G::Floating},
    {OPF_TYPEID_FLOAT8_E5M2FNUZ, "FLOAT8_E5M2FNUZ", OPF_KT_FLOAT8_E5M2FNUZ, G::Floating},
    {OPF_TYPEID_NVFP4, "NVFP4", OPF_KT_NVFP4, G::Block},
};
static_assert(std::size(predefined_list) == OPF_TYPEID_COUNT_ - 1, "one row per predefined type id");

// The ops a datatype takes (its group's, ops_of) and the ops its kernel
// type's functors define (semantics.h: each op's `defined`) are one rule: a
// group may promise no op the functor lacks, or a valid (op, type) pair
// would have no kernel. Checked for every row where this build has the
// kernel type; a failure names the row (PromisedOps<row>).
template <class T> constexpr uint32_t functor_ops()
{
    if (!base::is_supported<T>) return ~uint32_t(0);   // a type this build lacks: nothing to check
    return []<std::size_t... O>(std::index_sequence<O...>) {
        return ((base::at_t<O, base::Ops>::template defined<T> ? op_bit(int(O)) : 0u) | ...);
    }(std::make_index_sequence<OPF_OPID_COUNT>{});
}
constexpr auto functor_ops_by_kt = []<std::size_t... K>(std::index_sequence<K...>) {
    return std::array<uint32_t, sizeof...(K)>{functor_ops<base::at_t<K, base::KernelTypes>>()...};
}(std::make_index_sequence<OPF_KT_COUNT>{});
template <std::size_t Row> struct PromisedOps {
    static constexpr const Predefined &p = predefined_list[Row];
    static_assert((ops_of(p.group) & ~functor_ops_by_kt[std::size_t(p.kernel_type)]) == 0,
                  "predefined_list: this row's group promises an op its kernel type's functor does not define");
    static constexpr bool ok = true;
};
static_assert([]<std::size_t... R>(std::index_sequence<R...>) { return (PromisedOps<R>::ok && ...); }(
    std::make_index_sequence<std::size(predefined_list)>{}));

// ---- geometry ---------------------------------------------------------------
// Every offset, bound and size is computed in 128 bits and checked to fit in
// 64 before it is stored: a type whose geometry overflows is refused.

using Wide = __int128;
constexpr bool fits(Wide v) { return v >= INT64_MIN && v <= INT64_MAX; }

// How many kernel calls a type may flatten into per item before it keeps
// its loops nested instead (a flat leaf list walks fastest).
constexpr opf_count_t kFlattenLimit = 64;
// Deeper nesting is refused: the walk recurses once per level.
constexpr int kMaxDepth = 256;

opf_count_t saturating_mul(opf_count_t a, opf_count_t b)
{
    opf_count_t r;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}
opf_count_t saturating_add(opf_count_t a, opf_count_t b)
{
    opf_count_t r;
    return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

opf_count_t calls_of(const Segments &segments)
{
    opf_count_t n = 0;
    for (const Segment &s : segments) n = saturating_add(n, saturating_mul(s.reps, s.kernel_type >= 0 ? 1 : s.inner_calls));
    return n;
}

// Largest count whose buffer offsets all fit: item i spans
// i * extent + [lo, hi) with lo = min(true_lb, lb), hi = max(true_ub, lb + extent).
opf_count_t max_count_of(const Datatype &t)
{
    if (t.extent == 0) return INT64_MAX;
    const Wide lo = std::min<Wide>(t.true_lb, t.lb), hi = std::max<Wide>(t.true_ub, Wide(t.lb) + t.extent);
    const Wide step = t.extent > 0 ? Wide(t.extent) : -Wide(t.extent);
    // the last item's end (or start, going down) and the whole span stay in range
    const Wide room_position = t.extent > 0 ? Wide(INT64_MAX) - hi : lo - Wide(INT64_MIN);
    const Wide room_span = Wide(INT64_MAX) - (hi - lo);
    const Wide room = std::min(room_position, room_span);
    if (room < 0) return 0;
    const Wide n = room / step + 1;
    return n > INT64_MAX ? INT64_MAX : opf_count_t(n);
}

bool is_dense(const Datatype &t)
{
    if (t.segments->size() != 1) return false;
    const Segment &s = t.segments->front();
    return s.kernel_type >= 0 && s.reps == 1 && s.offset == 0 && t.lb == 0 &&
           Wide(s.count) * base::kernel_type_extent(s.kernel_type) == t.extent;
}

// Derived state: density, the count limit, and what calls may check.
void finish(Datatype &t)
{
    t.dense = is_dense(t);
    t.max_count = max_count_of(t);
    t.usable_ops = t.committed && t.supported ? t.valid_ops | kUserOpBit : 0;
}

// Fills one predefined descriptor from its row.
Datatype make_predefined(const Predefined &p)
{
    Datatype t;
    t.name = p.name;
    t.kernel_type = p.kernel_type;
    t.valid_ops = ops_of(p.group);
    t.committed = true;
    t.supported = base::kernel_type_supported(p.kernel_type);
    t.alignment = base::kernel_type_alignment(p.kernel_type);
    t.kernel_types = uint64_t(1) << p.kernel_type;
    t.size = base::kernel_type_data_size(p.kernel_type);
    t.basic_per_item = 1;
    t.leaf_calls = 1;
    t.extent = base::kernel_type_extent(p.kernel_type);
    t.true_ub = base::kernel_type_data_end(p.kernel_type);
    Segment leaf;
    leaf.kernel_type = p.kernel_type;
    leaf.count = 1;
    t.segments = std::make_shared<const Segments>(Segments{leaf});
    finish(t);
    return t;
}

HandleTable<Datatype> &derived_types()
{
    static HandleTable<Datatype> table;
    return table;
}

// ---- derived types ---------------------------------------------------------

// `reps` repetitions, `rep_stride` bytes apart, of `copies` consecutive
// copies of `child`, the first at byte `disp`.
struct Run {
    opf_aint_t disp;
    opf_count_t copies;
    const Datatype *child;
    opf_count_t reps = 1;
    opf_aint_t rep_stride = 0;
};

// A type map and what walking one copy of it costs: leaves, and recursion depth.
struct Body {
    std::shared_ptr<const Segments> segments;
    opf_count_t calls;
    int depth;
};

int depth_of(const Segments &segments)
{
    int d = 0;
    for (const Segment &s : segments) d = std::max(d, s.kernel_type >= 0 ? 1 : 1 + s.inner_depth);
    return d;
}

Body body_of(Segments segments)
{
    const opf_count_t calls = calls_of(segments);
    const int depth = depth_of(segments);
    return {std::make_shared<const Segments>(std::move(segments)), calls, depth};
}

// Offsets inside a type map are kept modulo 2^64 (as the walk computes them):
// only the final offset of each leaf must fit, and the bounds checks ensure it.
uint64_t shifted(uint64_t base, opf_aint_t offset) { return base + uint64_t(offset); }

// Appends a leaf of one copy, merged into the previous leaf where the two are
// contiguous (one longer leaf) or continue its regular pattern (one more rep).
void append_leaf(Segments &out, uint64_t offset, int kt, opf_count_t count)
{
    if (!out.empty() && out.back().kernel_type == kt) {
        Segment &last = out.back();
        const uint64_t ext = uint64_t(base::kernel_type_extent(kt));
        opf_count_t sum;
        if (last.reps == 1 && uint64_t(last.offset) + uint64_t(last.count) * ext == offset &&
            !__builtin_add_overflow(last.count, count, &sum)) {
            last.count = sum;
            return;
        }
        if (last.count == count && last.reps < INT64_MAX) {
            const uint64_t stride = last.reps == 1 ? offset - uint64_t(last.offset) : uint64_t(last.stride);
            if (uint64_t(last.offset) + uint64_t(last.reps) * stride == offset) {
                last.stride = opf_aint_t(stride);
                ++last.reps;
                return;
            }
        }
    }
    Segment leaf;
    leaf.offset = opf_aint_t(offset);
    leaf.kernel_type = kt;
    leaf.count = count;
    out.push_back(std::move(leaf));
}

// Appends every leaf of `segments` at `base` one by one (callers bound the number).
void append_flat(Segments &out, uint64_t base, const Segments &segments)
{
    for (const Segment &s : segments)
        for (opf_count_t r = 0; r < s.reps; ++r) {
            const uint64_t at = shifted(base, s.offset) + uint64_t(r) * uint64_t(s.stride);
            if (s.kernel_type >= 0) append_leaf(out, at, s.kernel_type, s.count);
            else append_flat(out, at, *s.inner);
        }
}

// Appends `n` copies of `body`, `stride` bytes apart, the first at `disp`:
// flat when that makes few leaves, else as one loop segment.
void append_copies(Segments &out, uint64_t disp, opf_count_t n, opf_aint_t stride, const Body &body)
{
    if (n == 0 || body.segments->empty()) return;
    if (saturating_mul(n, body.calls) <= kFlattenLimit) {
        for (opf_count_t k = 0; k < n; ++k) append_flat(out, disp + uint64_t(k) * uint64_t(stride), *body.segments);
        return;
    }
    if (n == 1) {   // one copy: its pieces, moved by disp
        for (const Segment &s : *body.segments) {
            if (s.kernel_type >= 0 && s.reps == 1) {
                append_leaf(out, shifted(disp, s.offset), s.kernel_type, s.count);
                continue;
            }
            out.push_back(s);
            out.back().offset = opf_aint_t(shifted(disp, s.offset));
        }
        return;
    }
    Segment loop;
    if (body.segments->size() == 1 && body.segments->front().reps == 1) {   // a single piece: loop over it
        loop = body.segments->front();
        loop.offset = opf_aint_t(shifted(disp, loop.offset));
    } else {
        loop.offset = opf_aint_t(disp);
        loop.inner = body.segments;
        loop.inner_calls = body.calls;
        loop.inner_depth = body.depth;
    }
    loop.reps = n;
    loop.stride = stride;
    out.push_back(std::move(loop));
}

int insert_type(const char *combiner, std::unique_ptr<Datatype> t, opf_datatype_t *newtype)
{
    const uintptr_t h = derived_types().insert(std::move(t));
    if (!h) return fail(OPF_ERR_NO_MEM, "opf_type_%s: no memory for a new datatype", combiner);
    *newtype = reinterpret_cast<opf_datatype_t>(h);
    return OPF_SUCCESS;
}

// Lays the runs out as one type map (MPI's rules for bounds and the struct
// alignment epsilon) and returns a new, uncommitted handle. Runs without
// data add no basic type (a zero-length struct member does not make the type
// mixed); they add bounds only when resized.
int build(const char *combiner, const std::vector<Run> &runs, bool is_struct, opf_datatype_t *newtype)
{
    auto t = std::make_unique<Datatype>();
    t->name = combiner;
    uint32_t data_ops = ~uint32_t(0), declared_ops = ~uint32_t(0);
    bool any_data = false, any_bounds = false, any_true = false;
    Wide lo = 0, hi = 0, true_lo = 0, true_hi = 0, size = 0, elements = 0;
    Segments segments;
    for (const Run &r : runs) {
        const Datatype &c = *r.child;
        declared_ops &= c.valid_ops;
        if (r.copies == 0 || r.reps == 0) continue;
        const bool data = c.size > 0;
        if (!data && !c.explicit_bounds) continue;
        t->explicit_bounds |= c.explicit_bounds;

        // the run covers disp + k * c.extent + r * rep_stride + [a, b) for k < copies, r < reps
        const Wide copies_span = Wide(r.copies - 1) * c.extent, reps_span = Wide(r.reps - 1) * r.rep_stride;
        const Wide low_shift = Wide(r.disp) + std::min<Wide>(0, copies_span) + std::min<Wide>(0, reps_span);
        const Wide high_shift = Wide(r.disp) + std::max<Wide>(0, copies_span) + std::max<Wide>(0, reps_span);
        const Wide run_lo = low_shift + c.lb, run_hi = high_shift + c.lb + c.extent;
        lo = any_bounds ? std::min(lo, run_lo) : run_lo;
        hi = any_bounds ? std::max(hi, run_hi) : run_hi;
        any_bounds = true;
        if (!data) continue;

        any_data = true;
        data_ops &= c.valid_ops;
        t->supported &= c.supported;
        t->alignment = std::max(t->alignment, c.alignment);
        t->kernel_types |= c.kernel_types;
        const Wide copies = Wide(r.copies) * r.reps;
        size += copies * c.size;
        elements += copies * c.basic_per_item;
        if (size > INT64_MAX)
            return fail(OPF_ERR_COUNT, "opf_type_%s: the type's size overflows 64 bits", combiner);
        true_lo = any_true ? std::min(true_lo, low_shift + c.true_lb) : low_shift + c.true_lb;
        true_hi = any_true ? std::max(true_hi, high_shift + c.true_ub) : high_shift + c.true_ub;
        any_true = true;
        if (!fits(lo) || !fits(hi) || !fits(true_lo) || !fits(true_hi))
            return fail(OPF_ERR_ARG, "opf_type_%s: a displacement or bound overflows 64 bits", combiner);

        // copies of a dense child are one leaf; otherwise the child's map repeats
        Body child{c.segments, c.leaf_calls, c.depth};
        if (c.dense) {
            Segment leaf;
            leaf.kernel_type = c.kernel_type;
            leaf.count = opf_count_t(Wide(r.copies) * c.basic_per_item);
            append_copies(segments, uint64_t(r.disp), r.reps, r.rep_stride, body_of({leaf}));
        } else if (r.reps == 1) {
            append_copies(segments, uint64_t(r.disp), r.copies, c.extent, child);
        } else {
            Segments copies;
            append_copies(copies, 0, r.copies, c.extent, child);
            append_copies(segments, uint64_t(r.disp), r.reps, r.rep_stride, body_of(std::move(copies)));
        }
    }
    if (!fits(lo) || !fits(hi) || !fits(hi - lo) || !fits(true_hi - true_lo))   // bounds-only runs are checked here
        return fail(OPF_ERR_ARG, "opf_type_%s: the type's extent overflows 64 bits", combiner);
    if (any_data) {
        t->valid_ops = data_ops;
        if (std::popcount(t->kernel_types) == 1) t->kernel_type = std::countr_zero(t->kernel_types);
        else t->valid_ops &= op_bit(OPF_OPID_REPLACE) | op_bit(OPF_OPID_NO_OP);
    } else {
        // no basic element: the ops of what it was declared from (contiguous(0, INT) sums as INT does)
        t->valid_ops = runs.empty() ? op_bit(OPF_OPID_REPLACE) | op_bit(OPF_OPID_NO_OP) : declared_ops;
    }
    Wide extent = hi - lo;
    if (is_struct && !t->explicit_bounds && extent % t->alignment) extent += t->alignment - extent % t->alignment;
    if (!fits(extent) || !fits(lo + extent))
        return fail(OPF_ERR_ARG, "opf_type_%s: the type's extent overflows 64 bits", combiner);
    t->lb = opf_aint_t(lo);
    t->extent = opf_aint_t(extent);
    t->true_lb = opf_aint_t(true_lo);
    t->true_ub = opf_aint_t(true_hi);
    t->size = opf_count_t(size);
    t->basic_per_item = opf_count_t(elements);
    t->leaf_calls = calls_of(segments);
    t->depth = depth_of(segments);
    if (t->depth > kMaxDepth)
        return fail(OPF_ERR_ARG, "opf_type_%s: types nested more than %d levels deep are not supported", combiner,
                    kMaxDepth);
    t->segments = std::make_shared<const Segments>(std::move(segments));
    finish(*t);
    return insert_type(combiner, std::move(t), newtype);
}

// Common argument checks of the constructors.
int check_new(const char *combiner, int count, opf_datatype_t *newtype)
{
    if (!newtype) return fail(OPF_ERR_ARG, "opf_type_%s: newtype is NULL", combiner);
    if (count < 0) return fail(OPF_ERR_COUNT, "opf_type_%s: negative count %d", combiner, count);
    return OPF_SUCCESS;
}

int check_old(const char *combiner, const TypeUse &old)
{
    if (!old.get()) return fail(OPF_ERR_TYPE, "opf_type_%s: oldtype is null, freed or invalid", combiner);
    return OPF_SUCCESS;
}

int check_length(const char *combiner, int length, int at)
{
    if (length < 0) return fail(OPF_ERR_COUNT, "opf_type_%s: negative block length %d at %d", combiner, length, at);
    return OPF_SUCCESS;
}

// vector / hvector: `count` blocks of `blocklength` old types, `stride` apart
// (in bytes, or in old extents for vector): one run, however large the count.
int regular_blocks(const char *combiner, int count, int blocklength, Wide stride, bool stride_in_extents,
                   opf_datatype_t oldtype, opf_datatype_t *newtype)
{
    if (int rc = check_new(combiner, count, newtype)) return rc;
    if (blocklength < 0) return fail(OPF_ERR_COUNT, "opf_type_%s: negative blocklength %d", combiner, blocklength);
    const TypeUse old(oldtype);
    if (int rc = check_old(combiner, old)) return rc;
    if (stride_in_extents) stride *= old.get()->extent;
    if (!fits(stride)) return fail(OPF_ERR_ARG, "opf_type_%s: the stride in bytes overflows 64 bits", combiner);
    return build(combiner, {{0, blocklength, old.get(), count, opf_aint_t(stride)}}, false, newtype);
}

// indexed / hindexed: blocks of one old type at displacements (in bytes, or
// in old extents for indexed).
int blocks_of(const char *combiner, int count, const int blocklengths[], const opf_aint_t *byte_displs,
              const int *elem_displs, opf_datatype_t oldtype, opf_datatype_t *newtype)
{
    if (int rc = check_new(combiner, count, newtype)) return rc;
    if (count > 0 && (!blocklengths || (!byte_displs && !elem_displs)))
        return fail(OPF_ERR_ARG, "opf_type_%s: NULL array with count %d", combiner, count);
    const TypeUse old(oldtype);
    if (int rc = check_old(combiner, old)) return rc;
    std::vector<Run> runs;
    runs.reserve(std::size_t(count));
    for (int i = 0; i < count; ++i) {
        if (int rc = check_length(combiner, blocklengths[i], i)) return rc;
        const Wide disp = byte_displs ? Wide(byte_displs[i]) : Wide(elem_displs[i]) * old.get()->extent;
        if (!fits(disp))
            return fail(OPF_ERR_ARG, "opf_type_%s: displacement %d in bytes overflows 64 bits", combiner, i);
        runs.push_back({opf_aint_t(disp), blocklengths[i], old.get()});
    }
    return build(combiner, runs, false, newtype);
}

// resized / dup: a copy of the old type's descriptor (its map is shared).
int copy_type(const char *combiner, opf_datatype_t oldtype, opf_datatype_t *newtype,
              void (*change)(Datatype &, opf_aint_t, opf_aint_t), opf_aint_t lb, opf_aint_t extent)
{
    if (int rc = check_new(combiner, 0, newtype)) return rc;
    const TypeUse old(oldtype);
    if (int rc = check_old(combiner, old)) return rc;
    auto t = std::make_unique<Datatype>(*old.get());
    change(*t, lb, extent);
    finish(*t);
    return insert_type(combiner, std::move(t), newtype);
}

// Generated from predefined_list (one row per id, in id order).
template <std::size_t... I> std::array<Datatype, OPF_TYPEID_COUNT_> all_predefined(std::index_sequence<I...>)
{
    return {Datatype{}, make_predefined(predefined_list[I])...};
}
constexpr bool rows_in_id_order()
{
    for (std::size_t i = 0; i < std::size(predefined_list); ++i)
        if (predefined_list[i].id != int(i) + 1) return false;
    return true;
}
static_assert(rows_in_id_order(), "predefined_list rows must be in type id order");

} // namespace

const std::array<Datatype, OPF_TYPEID_COUNT_> predefined_types =
    all_predefined(std::make_index_sequence<std::size(predefined_list)>{});

const Datatype *begin_type_use(uintptr_t handle) { return derived_types().begin_use(handle); }
void end_type_use(uintptr_t handle) { derived_types().end_use(handle); }

void release_all_types() { derived_types().clear(); }

} // namespace opf

using namespace opf;

// Every entry point catches what the C++ inside may throw (allocation
// failure): no exception crosses the C API.

OPF_API int opf_type_contiguous(int count, opf_datatype_t oldtype, opf_datatype_t *newtype)
try {
    if (int rc = check_new("contiguous", count, newtype)) return rc;
    const TypeUse old(oldtype);
    if (int rc = check_old("contiguous", old)) return rc;
    return build("contiguous", {{0, count, old.get()}}, false, newtype);
} catch (...) {
    return fail_exception("opf_type_contiguous");
}

OPF_API int opf_type_vector(int count, int blocklength, int stride, opf_datatype_t oldtype,
                            opf_datatype_t *newtype)
try {
    return regular_blocks("vector", count, blocklength, stride, true, oldtype, newtype);
} catch (...) {
    return fail_exception("opf_type_vector");
}

OPF_API int opf_type_create_hvector(int count, int blocklength, opf_aint_t stride, opf_datatype_t oldtype,
                                    opf_datatype_t *newtype)
try {
    return regular_blocks("hvector", count, blocklength, stride, false, oldtype, newtype);
} catch (...) {
    return fail_exception("opf_type_create_hvector");
}

OPF_API int opf_type_indexed(int count, const int blocklengths[], const int displacements[],
                             opf_datatype_t oldtype, opf_datatype_t *newtype)
try {
    return blocks_of("indexed", count, blocklengths, nullptr, displacements, oldtype, newtype);
} catch (...) {
    return fail_exception("opf_type_indexed");
}

OPF_API int opf_type_create_hindexed(int count, const int blocklengths[], const opf_aint_t displacements[],
                                     opf_datatype_t oldtype, opf_datatype_t *newtype)
try {
    return blocks_of("hindexed", count, blocklengths, displacements, nullptr, oldtype, newtype);
} catch (...) {
    return fail_exception("opf_type_create_hindexed");
}

OPF_API int opf_type_create_struct(int count, const int blocklengths[], const opf_aint_t displacements[],
                                   const opf_datatype_t types[], opf_datatype_t *newtype)
try {
    if (int rc = check_new("struct", count, newtype)) return rc;
    if (count > 0 && (!blocklengths || !displacements || !types))
        return fail(OPF_ERR_ARG, "opf_type_create_struct: NULL array with count %d", count);
    std::vector<std::unique_ptr<TypeUse>> members;   // held until the new type no longer needs them
    std::vector<Run> runs;
    members.reserve(std::size_t(count));
    runs.reserve(std::size_t(count));
    for (int i = 0; i < count; ++i) {
        members.push_back(std::make_unique<TypeUse>(types[i]));
        const Datatype *member = members.back()->get();
        if (!member) return fail(OPF_ERR_TYPE, "opf_type_create_struct: types[%d] is null, freed or invalid", i);
        if (int rc = check_length("create_struct", blocklengths[i], i)) return rc;
        runs.push_back({displacements[i], blocklengths[i], member});
    }
    return build("struct", runs, true, newtype);
} catch (...) {
    return fail_exception("opf_type_create_struct");
}

OPF_API int opf_type_create_resized(opf_datatype_t oldtype, opf_aint_t lb, opf_aint_t extent,
                                    opf_datatype_t *newtype)
try {
    if (Wide(lb) + extent > INT64_MAX || Wide(lb) + extent < INT64_MIN)
        return fail(OPF_ERR_ARG, "opf_type_create_resized: lb %lld + extent %lld overflows 64 bits", (long long)lb,
                    (long long)extent);
    return copy_type("resized", oldtype, newtype, [](Datatype &t, opf_aint_t new_lb, opf_aint_t new_extent) {
        t.name = "resized";
        t.committed = false;
        t.explicit_bounds = true;
        t.lb = new_lb;
        t.extent = new_extent;
    }, lb, extent);
} catch (...) {
    return fail_exception("opf_type_create_resized");
}

OPF_API int opf_type_dup(opf_datatype_t oldtype, opf_datatype_t *newtype)
try {
    const bool predefined = reinterpret_cast<uintptr_t>(oldtype) < OPF_TYPEID_COUNT_;
    return copy_type("dup", oldtype, newtype, predefined ? [](Datatype &t, opf_aint_t, opf_aint_t) { t.name = "dup"; }
                                                         : [](Datatype &, opf_aint_t, opf_aint_t) {}, 0, 0);
} catch (...) {
    return fail_exception("opf_type_dup");
}

OPF_API int opf_type_commit(opf_datatype_t *datatype)
{
    if (!datatype) return fail(OPF_ERR_ARG, "opf_type_commit: datatype is NULL");
    const TypeUse use(*datatype);
    const Datatype *t = use.get();
    if (!t) return fail(OPF_ERR_TYPE, "opf_type_commit: datatype is null, freed or invalid");
    if (!t->committed) {   // predefined types always are; racing commits store the same values
        auto &d = const_cast<Datatype &>(*t);
        __atomic_store_n(&d.committed, true, __ATOMIC_RELAXED);
        __atomic_store_n(&d.usable_ops, t->supported ? t->valid_ops | kUserOpBit : 0, __ATOMIC_RELAXED);
    }
    return OPF_SUCCESS;
}

OPF_API int opf_type_free(opf_datatype_t *datatype)
try {
    if (!datatype) return fail(OPF_ERR_ARG, "opf_type_free: datatype is NULL");
    const auto h = reinterpret_cast<uintptr_t>(*datatype);
    if (h < OPF_TYPEID_COUNT_)
        return fail(OPF_ERR_TYPE, "opf_type_free: %s is predefined and cannot be freed",
                    h ? predefined_types[h].name : "DATATYPE_NULL");
    if (!derived_types().release(h)) return fail(OPF_ERR_TYPE, "opf_type_free: datatype is freed or invalid");
    *datatype = OPF_DATATYPE_NULL;
    return OPF_SUCCESS;
} catch (...) {
    return fail_exception("opf_type_free");
}

// Queries accept uncommitted types (as MPI does) but not unsupported ones.
static int query(const char *function, const TypeUse &use)
{
    if (!use.get()) return fail(OPF_ERR_TYPE, "%s: datatype is null, freed or invalid", function);
    if (!use.get()->supported)
        return fail(OPF_ERR_TYPE, "%s: %s is not supported by this build", function, use.get()->name);
    return OPF_SUCCESS;
}

OPF_API int opf_type_size(opf_datatype_t datatype, opf_count_t *size)
{
    const TypeUse t(datatype);
    if (int rc = query("opf_type_size", t)) return rc;
    if (!size) return fail(OPF_ERR_ARG, "opf_type_size: size is NULL");
    *size = t.get()->size;
    return OPF_SUCCESS;
}

OPF_API int opf_type_get_extent(opf_datatype_t datatype, opf_aint_t *lb, opf_aint_t *extent)
{
    const TypeUse t(datatype);
    if (int rc = query("opf_type_get_extent", t)) return rc;
    if (!lb || !extent) return fail(OPF_ERR_ARG, "opf_type_get_extent: NULL lb or extent");
    *lb = t.get()->lb;
    *extent = t.get()->extent;
    return OPF_SUCCESS;
}

OPF_API int opf_type_get_true_extent(opf_datatype_t datatype, opf_aint_t *true_lb, opf_aint_t *true_extent)
{
    const TypeUse t(datatype);
    if (int rc = query("opf_type_get_true_extent", t)) return rc;
    if (!true_lb || !true_extent) return fail(OPF_ERR_ARG, "opf_type_get_true_extent: NULL argument");
    *true_lb = t.get()->true_lb;
    *true_extent = t.get()->true_ub - t.get()->true_lb;   // both fit, and true_ub >= true_lb
    return OPF_SUCCESS;
}

OPF_API const char *opf_type_name(opf_datatype_t datatype)
{
    if (datatype == OPF_DATATYPE_NULL) return "DATATYPE_NULL";
    const TypeUse t(datatype);
    return t.get() ? t.get()->name : nullptr;   // names are static strings
}
