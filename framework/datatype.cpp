// datatype.cpp — predefined datatypes, derived-type constructors (flattened
// into blocks once, at construction), and the public datatype API.
#include "framework/datatype.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <cwchar>
#include <memory>
#include <type_traits>

#include "base/kernels.h"
#include "framework/error.h"
#include "framework/handles.h"

namespace opf {
namespace {

// ---- predefined types --------------------------------------------------------

constexpr uint32_t ops_of(TypeGroup g)
{
    constexpr uint32_t any = op_bit(OPF_OPID_REPLACE) | op_bit(OPF_OPID_NO_OP);
    constexpr uint32_t order = op_bit(OPF_OPID_MAX) | op_bit(OPF_OPID_MIN);
    constexpr uint32_t arith = op_bit(OPF_OPID_SUM) | op_bit(OPF_OPID_PROD);
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
};
static_assert(std::size(predefined_list) == OPF_TYPEID_COUNT_ - 1, "one row per predefined type id");

bool dense_layout(const Datatype &t)
{
    return t.blocks.size() == 1 && t.lb == 0 && t.blocks[0].offset == 0 &&
           t.blocks[0].count * base::kernel_type_extent(t.blocks[0].kernel_type) == t.extent;
}

// Fills one predefined descriptor from its row.
Datatype make_predefined(const Predefined &p)
{
    Datatype t;
    {
        t.name = p.name;
        t.kernel_type = p.kernel_type;
        t.valid_ops = ops_of(p.group);
        t.committed = true;
        t.supported = base::kernel_type_supported(p.kernel_type);
        t.alignment = base::kernel_type_alignment(p.kernel_type);
        t.size = base::kernel_type_data_size(p.kernel_type);
        t.basic_per_item = 1;
        t.extent = base::kernel_type_extent(p.kernel_type);
        t.true_ub = base::kernel_type_data_end(p.kernel_type);
        t.blocks = {{0, 1, p.kernel_type}};
        t.dense = true;
    }
    return t;
}

HandleTable<Datatype> &derived_types()
{
    static HandleTable<Datatype> table;
    return table;
}

// ---- derived types ---------------------------------------------------------

// `copies` consecutive copies of `child`, the first at byte `disp`.
struct Run {
    opf_aint_t disp;
    opf_count_t copies;
    const Datatype *child;
};

void append_block(std::vector<Block> &blocks, Block b)
{
    if (b.count == 0) return;
    if (!blocks.empty()) {
        Block &last = blocks.back();
        if (last.kernel_type == b.kernel_type &&
            last.offset + last.count * base::kernel_type_extent(b.kernel_type) == b.offset) {
            last.count += b.count;
            return;
        }
    }
    blocks.push_back(b);
}

// Lays the runs out as one type map (MPI's rules for bounds and the struct
// alignment epsilon) and returns a new, uncommitted handle.
int build(const char *combiner, const std::vector<Run> &runs, bool is_struct, opf_datatype_t *newtype)
{
    auto t = std::make_unique<Datatype>();
    t->name = combiner;
    t->valid_ops = ~uint32_t(0);
    bool first_kt = true, any_extent = false;
    opf_aint_t lo = 0, hi = 0;
    for (const Run &r : runs) {
        const Datatype &c = *r.child;
        t->valid_ops &= c.valid_ops;
        t->supported &= c.supported;
        t->explicit_bounds |= c.explicit_bounds;
        t->alignment = std::max(t->alignment, c.alignment);
        if (first_kt) t->kernel_type = c.kernel_type;
        else if (t->kernel_type != c.kernel_type) t->kernel_type = -1;
        first_kt = false;
        if (r.copies == 0) continue;

        opf_count_t bytes;
        if (__builtin_mul_overflow(r.copies, c.size, &bytes) || __builtin_add_overflow(t->size, bytes, &t->size))
            return fail(OPF_ERR_COUNT, "opf_type_%s: the type's size overflows 64 bits", combiner);

        const opf_aint_t span = (r.copies - 1) * c.extent;
        const opf_aint_t run_lo = r.disp + c.lb + std::min<opf_aint_t>(0, span);
        const opf_aint_t run_hi = r.disp + c.lb + c.extent + std::max<opf_aint_t>(0, span);
        lo = any_extent ? std::min(lo, run_lo) : run_lo;
        hi = any_extent ? std::max(hi, run_hi) : run_hi;
        any_extent = true;

        if (c.dense)   // copies of a dense child are one block
            append_block(t->blocks, {r.disp, r.copies * c.blocks[0].count, c.kernel_type});
        else
            for (opf_count_t k = 0; k < r.copies; ++k)
                for (const Block &b : c.blocks)
                    append_block(t->blocks, {r.disp + k * c.extent + b.offset, b.count, b.kernel_type});
    }
    if (t->kernel_type < 0) t->valid_ops &= op_bit(OPF_OPID_REPLACE) | op_bit(OPF_OPID_NO_OP);
    if (runs.empty()) t->valid_ops = op_bit(OPF_OPID_REPLACE) | op_bit(OPF_OPID_NO_OP);
    t->lb = lo;
    t->extent = hi - lo;
    if (is_struct && !t->explicit_bounds && t->extent % t->alignment)
        t->extent += t->alignment - t->extent % t->alignment;
    for (const Block &b : t->blocks) {
        t->basic_per_item += b.count;
        const opf_aint_t end = b.offset + (b.count - 1) * base::kernel_type_extent(b.kernel_type) +
                               base::kernel_type_data_end(b.kernel_type);
        t->true_lb = &b == &t->blocks[0] ? b.offset : std::min(t->true_lb, b.offset);
        t->true_ub = &b == &t->blocks[0] ? end : std::max(t->true_ub, end);
    }
    t->dense = dense_layout(*t);

    const uintptr_t h = derived_types().insert(std::move(t));
    if (!h) return fail(OPF_ERR_NO_MEM, "opf_type_%s: no memory for a new datatype", combiner);
    *newtype = reinterpret_cast<opf_datatype_t>(h);
    return OPF_SUCCESS;
}

// Common argument checks of the constructors.
int check_new(const char *combiner, int count, opf_datatype_t *newtype)
{
    if (!newtype) return fail(OPF_ERR_ARG, "opf_type_%s: newtype is NULL", combiner);
    if (count < 0) return fail(OPF_ERR_COUNT, "opf_type_%s: negative count %d", combiner, count);
    return OPF_SUCCESS;
}

int check_old(const char *combiner, opf_datatype_t oldtype, const Datatype **old)
{
    *old = find_type(oldtype);
    if (!*old) return fail(OPF_ERR_TYPE, "opf_type_%s: oldtype is null, freed or invalid", combiner);
    return OPF_SUCCESS;
}

// vector / hvector / indexed / hindexed: blocks of one old type.
int blocks_of(const char *combiner, int count, const int blocklengths[], const opf_aint_t *byte_displs,
              const int *elem_displs, opf_datatype_t oldtype, opf_datatype_t *newtype)
{
    if (int rc = check_new(combiner, count, newtype)) return rc;
    if (count > 0 && (!blocklengths || (!byte_displs && !elem_displs)))
        return fail(OPF_ERR_ARG, "opf_type_%s: NULL array with count %d", combiner, count);
    const Datatype *old;
    if (int rc = check_old(combiner, oldtype, &old)) return rc;
    std::vector<Run> runs;
    runs.reserve(std::size_t(count));
    for (int i = 0; i < count; ++i) {
        if (blocklengths[i] < 0)
            return fail(OPF_ERR_COUNT, "opf_type_%s: negative block length %d at %d", combiner, blocklengths[i], i);
        const opf_aint_t disp = byte_displs ? byte_displs[i] : opf_aint_t(elem_displs[i]) * old->extent;
        runs.push_back({disp, blocklengths[i], old});
    }
    return build(combiner, runs, false, newtype);
}

int regular_blocks(const char *combiner, int count, int blocklength, opf_aint_t stride_bytes,
                   opf_datatype_t oldtype, opf_datatype_t *newtype)
{
    if (int rc = check_new(combiner, count, newtype)) return rc;
    if (blocklength < 0) return fail(OPF_ERR_COUNT, "opf_type_%s: negative blocklength %d", combiner, blocklength);
    const Datatype *old;
    if (int rc = check_old(combiner, oldtype, &old)) return rc;
    std::vector<Run> runs;
    runs.reserve(std::size_t(count));
    for (int i = 0; i < count; ++i) runs.push_back({i * stride_bytes, blocklength, old});
    return build(combiner, runs, false, newtype);
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

const Datatype *find_derived_type(uintptr_t handle) { return derived_types().lookup(handle); }

void release_all_types() { derived_types().clear(); }

} // namespace opf

using namespace opf;

OPF_API int opf_type_contiguous(int count, opf_datatype_t oldtype, opf_datatype_t *newtype)
{
    if (int rc = check_new("contiguous", count, newtype)) return rc;
    const Datatype *old;
    if (int rc = check_old("contiguous", oldtype, &old)) return rc;
    return build("contiguous", {{0, count, old}}, false, newtype);
}

OPF_API int opf_type_vector(int count, int blocklength, int stride, opf_datatype_t oldtype,
                            opf_datatype_t *newtype)
{
    const Datatype *old = find_type(oldtype);
    return regular_blocks("vector", count, blocklength, old ? stride * old->extent : 0, oldtype, newtype);
}

OPF_API int opf_type_create_hvector(int count, int blocklength, opf_aint_t stride, opf_datatype_t oldtype,
                                    opf_datatype_t *newtype)
{
    return regular_blocks("hvector", count, blocklength, stride, oldtype, newtype);
}

OPF_API int opf_type_indexed(int count, const int blocklengths[], const int displacements[],
                             opf_datatype_t oldtype, opf_datatype_t *newtype)
{
    return blocks_of("indexed", count, blocklengths, nullptr, displacements, oldtype, newtype);
}

OPF_API int opf_type_create_hindexed(int count, const int blocklengths[], const opf_aint_t displacements[],
                                     opf_datatype_t oldtype, opf_datatype_t *newtype)
{
    return blocks_of("hindexed", count, blocklengths, displacements, nullptr, oldtype, newtype);
}

OPF_API int opf_type_create_struct(int count, const int blocklengths[], const opf_aint_t displacements[],
                                   const opf_datatype_t types[], opf_datatype_t *newtype)
{
    if (int rc = check_new("struct", count, newtype)) return rc;
    if (count > 0 && (!blocklengths || !displacements || !types))
        return fail(OPF_ERR_ARG, "opf_type_create_struct: NULL array with count %d", count);
    std::vector<Run> runs;
    runs.reserve(std::size_t(count));
    for (int i = 0; i < count; ++i) {
        const Datatype *member = find_type(types[i]);
        if (!member) return fail(OPF_ERR_TYPE, "opf_type_create_struct: types[%d] is null, freed or invalid", i);
        if (blocklengths[i] < 0)
            return fail(OPF_ERR_COUNT, "opf_type_create_struct: negative block length %d at %d", blocklengths[i], i);
        runs.push_back({displacements[i], blocklengths[i], member});
    }
    return build("struct", runs, true, newtype);
}

OPF_API int opf_type_create_resized(opf_datatype_t oldtype, opf_aint_t lb, opf_aint_t extent,
                                    opf_datatype_t *newtype)
{
    if (int rc = check_new("resized", 0, newtype)) return rc;
    const Datatype *old;
    if (int rc = check_old("resized", oldtype, &old)) return rc;
    auto t = std::make_unique<Datatype>(*old);
    t->name = "resized";
    t->committed = false;
    t->explicit_bounds = true;
    t->lb = lb;
    t->extent = extent;
    t->dense = dense_layout(*t);
    const uintptr_t h = derived_types().insert(std::move(t));
    if (!h) return fail(OPF_ERR_NO_MEM, "opf_type_create_resized: no memory for a new datatype");
    *newtype = reinterpret_cast<opf_datatype_t>(h);
    return OPF_SUCCESS;
}

OPF_API int opf_type_dup(opf_datatype_t oldtype, opf_datatype_t *newtype)
{
    if (int rc = check_new("dup", 0, newtype)) return rc;
    const Datatype *old;
    if (int rc = check_old("dup", oldtype, &old)) return rc;
    auto t = std::make_unique<Datatype>(*old);
    if (reinterpret_cast<uintptr_t>(oldtype) < OPF_TYPEID_COUNT_) t->name = "dup";
    const uintptr_t h = derived_types().insert(std::move(t));
    if (!h) return fail(OPF_ERR_NO_MEM, "opf_type_dup: no memory for a new datatype");
    *newtype = reinterpret_cast<opf_datatype_t>(h);
    return OPF_SUCCESS;
}

OPF_API int opf_type_commit(opf_datatype_t *datatype)
{
    if (!datatype) return fail(OPF_ERR_ARG, "opf_type_commit: datatype is NULL");
    const Datatype *t = find_type(*datatype);
    if (!t) return fail(OPF_ERR_TYPE, "opf_type_commit: datatype is null, freed or invalid");
    if (!t->committed) const_cast<Datatype *>(t)->committed = true;   // predefined types always are
    return OPF_SUCCESS;
}

OPF_API int opf_type_free(opf_datatype_t *datatype)
{
    if (!datatype) return fail(OPF_ERR_ARG, "opf_type_free: datatype is NULL");
    const auto h = reinterpret_cast<uintptr_t>(*datatype);
    if (h < OPF_TYPEID_COUNT_)
        return fail(OPF_ERR_TYPE, "opf_type_free: %s is predefined and cannot be freed",
                    h ? predefined_types[h].name : "DATATYPE_NULL");
    if (!derived_types().release(h))
        return fail(OPF_ERR_TYPE, "opf_type_free: datatype is freed or invalid");
    *datatype = OPF_DATATYPE_NULL;
    return OPF_SUCCESS;
}

// Queries accept uncommitted types (as MPI does) but not unsupported ones.
static int query(const char *function, opf_datatype_t datatype, const Datatype **t)
{
    *t = find_type(datatype);
    if (!*t) return fail(OPF_ERR_TYPE, "%s: datatype is null, freed or invalid", function);
    if (!(*t)->supported)
        return fail(OPF_ERR_TYPE, "%s: %s is not supported by this build", function, (*t)->name);
    return OPF_SUCCESS;
}

OPF_API int opf_type_size(opf_datatype_t datatype, opf_count_t *size)
{
    const Datatype *t;
    if (int rc = query("opf_type_size", datatype, &t)) return rc;
    if (!size) return fail(OPF_ERR_ARG, "opf_type_size: size is NULL");
    *size = t->size;
    return OPF_SUCCESS;
}

OPF_API int opf_type_get_extent(opf_datatype_t datatype, opf_aint_t *lb, opf_aint_t *extent)
{
    const Datatype *t;
    if (int rc = query("opf_type_get_extent", datatype, &t)) return rc;
    if (!lb || !extent) return fail(OPF_ERR_ARG, "opf_type_get_extent: NULL lb or extent");
    *lb = t->lb;
    *extent = t->extent;
    return OPF_SUCCESS;
}

OPF_API int opf_type_get_true_extent(opf_datatype_t datatype, opf_aint_t *true_lb, opf_aint_t *true_extent)
{
    const Datatype *t;
    if (int rc = query("opf_type_get_true_extent", datatype, &t)) return rc;
    if (!true_lb || !true_extent) return fail(OPF_ERR_ARG, "opf_type_get_true_extent: NULL argument");
    *true_lb = t->true_lb;
    *true_extent = t->true_ub - t->true_lb;
    return OPF_SUCCESS;
}

OPF_API const char *opf_type_name(opf_datatype_t datatype)
{
    if (datatype == OPF_DATATYPE_NULL) return "DATATYPE_NULL";
    const Datatype *t = find_type(datatype);
    return t ? t->name : nullptr;
}
