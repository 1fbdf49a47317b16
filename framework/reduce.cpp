// reduce.cpp — opf_reduce_local and opf_reduce_local3: check the call in
// O(1) without allocating, then make one indirect call per contiguous run.
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <type_traits>
#include <vector>

#include "base/kernels.h"

#include "framework/components.h"
#include "framework/host_memory.h"
#include "framework/datatype.h"
#include "framework/error.h"
#include "framework/op.h"
#include "framework/params.h"
#include "framework/runtime.h"
#include "framework/workers.h"

namespace opf {
namespace {

using Bytes = unsigned char;

// A call's resolved op and type.
struct Call {
    int op_id = 0;                  // predefined op, or 0 for a user op
    const UserOp *user = nullptr;
    const Datatype *type = nullptr;
};

// Created ops and types are held (a use each) until the call ends, so that
// freeing them meanwhile (from a callback, from another thread) only marks
// them. Predefined ones are immortal: their calls hold nothing.
class CallUses {
public:
    CallUses() = default;
    CallUses(const CallUses &) = delete;
    CallUses &operator=(const CallUses &) = delete;
    ~CallUses()
    {
        if (op_) end_user_op_use(op_);
        if (type_) end_type_use(reinterpret_cast<uintptr_t>(type_));
    }

    // Resolves the created handles of a call; reports one that is null, freed or invalid.
    int resolve(const char *function, opf_op_t op, opf_datatype_t datatype, Call &c)
    {
        if (!c.op_id) {
            c.user = begin_user_op_use(op);
            if (!c.user) return fail_call(OPF_ERR_OP, function, op, datatype, "the op is null, freed or invalid");
            op_ = op;
        }
        const auto h = reinterpret_cast<uintptr_t>(datatype);
        if (h < OPF_TYPEID_COUNT_) {
            c.type = &predefined_types[h];   // entry 0 (DATATYPE_NULL) is never usable
            return OPF_SUCCESS;
        }
        c.type = begin_type_use(h);
        if (!c.type) return fail_call(OPF_ERR_TYPE, function, op, datatype, "the datatype is null, freed or invalid");
        type_ = datatype;
        return OPF_SUCCESS;
    }

private:
    opf_op_t op_ = nullptr;
    opf_datatype_t type_ = nullptr;
};

// Says why a resolved call is refused, in the documented order.
[[gnu::cold, gnu::noinline]] int reject_call(const char *function, opf_op_t op, opf_datatype_t datatype,
                                             opf_count_t count, int op_id, const Datatype &t)
{
    if (datatype == OPF_DATATYPE_NULL)
        return fail_call(OPF_ERR_TYPE, function, op, datatype, "the datatype is null, freed or invalid");
    if (!__atomic_load_n(&t.committed, __ATOMIC_RELAXED))
        return fail_call(OPF_ERR_TYPE, function, op, datatype, "the datatype is not committed");
    if (!t.supported)
        return fail_call(OPF_ERR_TYPE, function, op, datatype, "the datatype is not supported by this build");
    if (count < 0) return fail_call(OPF_ERR_COUNT, function, op, datatype, "negative count %lld", (long long)count);
    if (op_id && !(t.valid_ops & op_bit(op_id)))
        return fail_call(OPF_ERR_OP, function, op, datatype,
                         t.kernel_type < 0 ? "a predefined op needs one basic type; this type mixes several"
                                           : "the op is not defined for this datatype");
    return fail_call(OPF_ERR_COUNT, function, op, datatype,
                     "count %lld overflows the address space (the buffers would span more than 2^63 bytes)",
                     (long long)count);
}

// The op is defined on the type, the type committed and supported, the count
// in range, in one test each: usable_ops is 0 for an uncommitted or
// unsupported type, and a negative count fails the unsigned comparison.
[[gnu::always_inline]] inline int check_call(const char *function, opf_op_t op, opf_datatype_t datatype,
                                             opf_count_t count, int op_id, const Datatype &t)
{
    if (!(usable_ops(t) & op_bit(op_id)) || uint64_t(count) > uint64_t(t.max_count)) [[unlikely]]
        return reject_call(function, op, datatype, count, op_id, t);
    return OPF_SUCCESS;
}

// A call with a user op or a created type: runs `body` while holding them.
template <class Body>
[[gnu::noinline]] int with_created_call(const char *function, opf_op_t op, opf_datatype_t datatype, opf_count_t count,
                                        int op_id, Body body)
{
    CallUses uses;
    Call c{op_id, nullptr, nullptr};
    if (int rc = uses.resolve(function, op, datatype, c)) return rc;
    if (int rc = check_call(function, op, datatype, count, op_id, *c.type)) return rc;
    return body(op_id, c.user, *c.type);
}

// Initialises lazily, resolves and checks the handles and the count, then
// runs body(op id, user op, type). Every failure names the call, the op and the type. A
// predefined op on a predefined type takes the short way: nothing to hold.
template <class Body>
[[gnu::always_inline]] inline int with_call(const char *function, opf_op_t op, opf_datatype_t datatype,
                                            opf_count_t count, Body &&body)
{
    if (int rc = ensure_initialized()) [[unlikely]] return rc;
    const int op_id = predefined_op_id(op);
    const auto h = reinterpret_cast<uintptr_t>(datatype);
    if (!op_id || h >= OPF_TYPEID_COUNT_) [[unlikely]]
        return with_created_call(function, op, datatype, count, op_id, body);
    const Datatype &t = predefined_types[h];
    if (int rc = check_call(function, op, datatype, count, op_id, t)) [[unlikely]] return rc;
    return body(op_id, nullptr, t);
}

const HostSlot &slot(int op_id, int kernel_type) { return host_table.slot[op_id][kernel_type]; }
const DeviceSlot &device_slot(int op_id, int mem, int kernel_type)
{
    return device_tables[std::size_t(mem - 1)].slot[op_id][kernel_type];
}

// The memory kind of each of a call's buffers, each kind's hooks asked once
// for the whole call where the kind has a per-call claim (the cuda
// component's driver question is then one per call, not one per buffer).
class BufferKinds {
public:
    explicit BufferKinds(std::initializer_list<const void *> buffers) : n(buffers.size())
    {
        if (n > kInline) more.resize(n);
        memory_kinds_of(std::data(buffers), int(n), data());
    }
    const int *begin() const { return data(); }
    const int *end() const { return data() + n; }
private:
    static constexpr std::size_t kInline = 4;   // every call form but an n-ary one
    int *data() { return n > kInline ? more.data() : inline_kinds; }
    const int *data() const { return n > kInline ? more.data() : inline_kinds; }
    std::size_t n;
    int inline_kinds[kInline];
    std::vector<int> more;
};

// The memory kind a call runs on: host, unless a device component claims one
// of the buffers. Then the call runs on that device's kernels, which stage
// any host operand (the rule each device component documents); buffers of
// two different device kinds are refused.
[[gnu::cold]] int device_memory_kind(const char *function, opf_op_t op, opf_datatype_t datatype,
                                     std::initializer_list<const void *> buffers, int &mem)
{
    mem = OPF_MEM_HOST;
    for (const int kind : BufferKinds(buffers)) {
        if (kind == OPF_MEM_HOST || kind == mem) continue;
        if (mem != OPF_MEM_HOST)
            return fail_call(OPF_ERR_BUFFER, function, op, datatype,
                             "the buffers live in two different kinds of device memory");
        mem = kind;
    }
    return OPF_SUCCESS;
}

// Kernels get element-aligned addresses (component.h). A leaf that is not
// (a derived type's block at an odd offset, a caller's odd buffer) runs on
// the base kernel, whose loads and stores are memcpy: safe at any address.
inline bool misaligned(uintptr_t alignment, uintptr_t addresses) { return addresses & (alignment - 1); }

[[gnu::always_inline]] inline opf_kernel2_fn *kernel2(int op_id, int kt, opf_count_t n, uintptr_t alignment,
                                                      const void *in, const void *inout)
{
    if (misaligned(alignment, uintptr_t(in) | uintptr_t(inout))) [[unlikely]]
        return base::kernels(op_id, kt).fn2;
    return slot(op_id, kt).two.pick(n);
}

[[gnu::always_inline]] inline opf_kernel3_fn *kernel3(int op_id, int kt, opf_count_t n, uintptr_t alignment,
                                                      const void *in1, const void *in2, const void *out)
{
    if (misaligned(alignment, uintptr_t(in1) | uintptr_t(in2) | uintptr_t(out))) [[unlikely]]
        return base::kernels(op_id, kt).fn3;
    return slot(op_id, kt).three.pick(n);
}

// A type that is not dense: one kernel call per leaf of each item. A type
// without data has nothing to reduce, whatever the count.
[[gnu::noinline]] void walk2(int op_id, const Bytes *in, Bytes *inout, opf_count_t count, const Datatype &t)
{
    if (t.size == 0) return;
    auto leaf = [&](opf_aint_t at, int kt, opf_count_t n) {
        const uintptr_t alignment = base::kernel_type_alignment(kt);
        kernel2(op_id, kt, n, alignment, in + at, inout + at)(in + at, inout + at, n);
    };
    for (opf_count_t i = 0; i < count; ++i) for_each_leaf(*t.segments, uint64_t(i) * uint64_t(t.extent), leaf);
}

[[gnu::noinline]] void walk3(int op_id, const Bytes *in1, const Bytes *in2, Bytes *out, opf_count_t count,
                             const Datatype &t)
{
    if (t.size == 0) return;
    auto leaf = [&](opf_aint_t at, int kt, opf_count_t n) {
        const uintptr_t alignment = base::kernel_type_alignment(kt);
        kernel3(op_id, kt, n, alignment, in1 + at, in2 + at, out + at)(in1 + at, in2 + at, out + at, n);
    };
    for (opf_count_t i = 0; i < count; ++i) for_each_leaf(*t.segments, uint64_t(i) * uint64_t(t.extent), leaf);
}

// Predefined op, 2-buffer, on any datatype.
[[gnu::always_inline]] inline void apply2(int op_id, const Bytes *in, Bytes *inout, opf_count_t count,
                                          const Datatype &t)
{
    if (t.dense) [[likely]] {
        const opf_count_t n = count * t.basic_per_item;
        opf_kernel2_fn *fn = kernel2(op_id, t.kernel_type, n, t.alignment, in, inout);
        if (n >= workers_min_count[t.kernel_type]) [[unlikely]] return run_on_workers(fn, in, inout, n, t.kernel_type);
        fn(in, inout, n);
        return;
    }
    walk2(op_id, in, inout, count, t);
}

// Predefined op, 3-buffer, on any datatype.
[[gnu::always_inline]] inline void apply3(int op_id, const Bytes *in1, const Bytes *in2, Bytes *out,
                                          opf_count_t count, const Datatype &t)
{
    if (t.dense) [[likely]] {
        const opf_count_t n = count * t.basic_per_item;
        opf_kernel3_fn *fn = kernel3(op_id, t.kernel_type, n, t.alignment, in1, in2, out);
        if (n >= workers_min_count[t.kernel_type]) [[unlikely]] return run_on_workers(fn, in1, in2, out, n, t.kernel_type);
        fn(in1, in2, out, n);
        return;
    }
    walk3(op_id, in1, in2, out, count, t);
}

// A predefined op on device memory: the slot must have a kernel for that kind.
[[gnu::cold]] int check_device_slot(const char *function, opf_op_t op, opf_datatype_t datatype, const Call &c,
                                    int mem, int nbuf, opf_count_t count)
{
    for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
        if (!(c.type->kernel_types >> kt & 1)) continue;
        const DeviceSlot &s = device_slot(c.op_id, mem, kt);
        if (!(nbuf == 2 ? s.two.offer.fn || s.two.larger : s.three.offer.fn || s.three.larger))
            return fail_call(OPF_ERR_BUFFER, function, op, datatype,
                             "the buffers are %s memory and no component serves this op on it", memory_kind_name(mem));
    }
    // A device offer may start at a min_count: below a slot's smallest one
    // there is no kernel (apply_device would call none).
    const Datatype &t = *c.type;
    if (t.size == 0 || !t.dense || t.kernel_type < 0) return OPF_SUCCESS;   // apply_device's own answers
    const DeviceSlot &s = device_slot(c.op_id, mem, t.kernel_type);
    const opf_count_t n = count * t.basic_per_item;
    const bool served = nbuf == 2 ? s.two.offer_for(n).fn != nullptr : s.three.offer_for(n).fn != nullptr;
    if (served) return OPF_SUCCESS;
    const opf_count_t from = nbuf == 2 ? s.two.larger[s.two.n_larger - 1].min_count
                                       : s.three.larger[s.three.n_larger - 1].min_count;
    return fail_call(OPF_ERR_BUFFER, function, op, datatype,
                     "the buffers are %s memory, whose kernels for this op start at %lld elements (this call has "
                     "%lld)", memory_kind_name(mem), (long long)from, (long long)n);
}

// Runs a device kernel (synchronous or on a stream) and turns its failure
// into the caller's error: the code it returned, and the reason the
// component gave (opf_component_set_error), naming the component.
template <class Fn, class... Args>
[[gnu::cold]] int run_device(const char *function, opf_op_t op, opf_datatype_t datatype, const Offer<Fn> &offer,
                             Args... args)
{
    fail(OPF_SUCCESS, "%s", "");   // a reason left by an earlier call is not this kernel's
    const int rc = offer.fn(args...);
    if (rc == OPF_SUCCESS) [[likely]] return rc;
    char reason[OPF_MAX_ERROR_STRING * 2];
    std::snprintf(reason, sizeof reason, "%s", *opf_last_error() ? opf_last_error() : "no reason given");
    return fail_call(rc > OPF_SUCCESS && rc < OPF_ERR_LASTCODE ? rc : OPF_ERR_INTERN, function, op, datatype,
                     "component %s failed: %s", offer.provider, reason);
}

[[gnu::cold]] int refuse_gaps(const char *function, opf_op_t op, opf_datatype_t datatype, int mem)
{
    return fail_call(OPF_ERR_TYPE, function, op, datatype,
                     "the buffers are %s memory, which takes contiguous datatypes only (this one has gaps: "
                     "one kernel launch per block); pack the data or reduce it in host memory",
                     memory_kind_name(mem));
}

// Predefined op on device memory, 2- or 3-buffer (in2 == nullptr: 2-buffer,
// in place in out): one device kernel over the whole buffer. A type with gaps
// is refused, as stream calls refuse it: device kernels take one contiguous
// run, so it would cost a launch and a synchronisation per block (a
// vector of 1000 x 1 float: 1000 of each, slower than copying to the host).
[[gnu::cold]] int apply_device(const char *function, opf_op_t op, opf_datatype_t datatype, const Call &c, int mem,
                               const Bytes *in1, const Bytes *in2, Bytes *out, opf_count_t count)
{
    const Datatype &t = *c.type;
    if (t.size == 0) return OPF_SUCCESS;
    if (!t.dense) return refuse_gaps(function, op, datatype, mem);
    const opf_count_t n = count * t.basic_per_item;
    const DeviceSlot &s = device_slot(c.op_id, mem, t.kernel_type);
    return in2 ? run_device(function, op, datatype, s.three.offer_for(n), in1, in2, out, n)
               : run_device(function, op, datatype, s.two.offer_for(n), in1, out, n);
}

// User op: inoutvec = invec op inoutvec. An int callback gets at most
// params.user_int_limit items per call (MPI 4: the lengths sum to count).
// The callback gets copies of len and of the datatype handle: what it writes
// there is ignored (a len set to 0 must not stall the loop). A type without
// data has nothing to combine.
void call_user(const UserOp &u, const Bytes *in, Bytes *inout, opf_count_t count, opf_datatype_t datatype,
               const Datatype &t)
{
    if (t.size == 0) return;
    auto invec = const_cast<Bytes *>(in);   // MPI's callback signature is not const
    if (u.fn_c) {
        opf_count_t len = count;
        opf_datatype_t handle = datatype;
        u.fn_c(invec, inout, &len, &handle);
        return;
    }
    const opf_count_t limit = std::clamp<int64_t>(__atomic_load_n(&params.user_int_limit, __ATOMIC_RELAXED), 1, INT_MAX);
    for (opf_count_t done = 0; done < count;) {
        const int chunk = int(std::min(count - done, limit));
        const auto at = opf_aint_t(uint64_t(done) * uint64_t(t.extent));   // fits: count <= max_count
        int len = chunk;
        opf_datatype_t handle = datatype;
        u.fn(invec + at, inout + at, &len, &handle);
        done += chunk;
    }
}

// out = in1 op in2 with a user op: out receives in2, then the callback folds
// in1 into it. When out is in1, in1 is saved first.
int call_user3(const UserOp &u, const Bytes *in1, const Bytes *in2, Bytes *out, opf_count_t count,
               opf_op_t op, opf_datatype_t datatype, const Datatype &t)
{
    if (t.size == 0) return OPF_SUCCESS;
    if (out == in2) {
        call_user(u, in1, out, count, datatype, t);
        return OPF_SUCCESS;
    }
    if (out != in1) {
        apply2(OPF_OPID_REPLACE, in2, out, count, t);
        call_user(u, in1, out, count, datatype, t);
        return OPF_SUCCESS;
    }
    // The callback may read whole items (a pair's padding too): save [lb, ub)
    // of every item, not just the data bytes.
    const opf_aint_t item_lo = std::min(t.true_lb, t.lb), item_hi = std::max(t.true_ub, t.lb + t.extent);
    const opf_aint_t span_lo = item_lo + std::min<opf_aint_t>(0, (count - 1) * t.extent);
    const opf_aint_t span_hi = item_hi + std::max<opf_aint_t>(0, (count - 1) * t.extent);
    auto *saved = static_cast<Bytes *>(std::malloc(std::size_t(span_hi - span_lo)));
    if (!saved)
        return fail_call(OPF_ERR_NO_MEM, "opf_reduce_local3", op, datatype,
                         "no memory to save in1 (%lld bytes) while out aliases it", (long long)(span_hi - span_lo));
    std::memcpy(saved, in1 + span_lo, std::size_t(span_hi - span_lo));
    apply2(OPF_OPID_REPLACE, in2, out, count, t);
    call_user(u, saved - span_lo, out, count, datatype, t);
    std::free(saved);
    return OPF_SUCCESS;
}

} // namespace
// PreMulSum on opf_reduce_local / opf_reduce_local3 (defined with the n-ary calls below).
int premul_2_3(const char *function, const UserOp &u, const void *in1, const void *in2, void *out, opf_count_t count,
               opf_op_t op, opf_datatype_t datatype, const Datatype &t);
namespace {

// ---- the short path -------------------------------------------------------
// A predefined op on a predefined type in host memory: everything such a call
// needs was decided at init and sits in one row per (op, type), so the call
// is two range checks, one row, a few tests and one indirect call. Whatever
// the row cannot vouch for goes the general way (reduce*_general), which
// gives every error its message and every odd case its kernel: a count of 0,
// a negative or overflowing one (outside 1 .. limit), a NULL buffer, a
// misaligned one (the base serves it), an op undefined on the type, memory
// a device component claims, a library not (or no longer) initialised
// (the row's limit is 0 then). Where a component registered a memory kind
// with a claim hook, a row takes only buffers in the host window (opframe.h,
// framework/host_memory.h: the program's image, the main thread's stack, the
// brk heap); for the others the entry points ask the hooks
// (reduce*_off_row): a host call then costs the hooks' answers, not the
// general path (host-only users of a build with the cuda component pay
// nothing for it; most host buffers ask nothing at all).
// The rows and the window are opframe.h's opf_call_row2_v3_ /
// opf_call_row3_v3_ and opf_host_ranges_v3_: the header's inline calls read
// the same table (opf_call_table_v4_) and the window a row points to before
// the entry points do. A row per call form, each with its own limit and
// three size tiers (a tuned machine's base, AVX2 and AVX-512 tiers all take
// the short path; with one limit and two tiers for both forms, every count
// from the second tier on left it).
using CallRow2 = opf_call_row2_v3_;
using CallRow3 = opf_call_row3_v3_;
static_assert(sizeof(CallRow2) == 64 && sizeof(CallRow3) == 64, "a row is one cache line");
constexpr int kRowTiers = 3;
static_assert(OPF_OPID_COUNT <= OPF_CALL_ROWS_PER_TYPE_,
              "programs built against opframe.h index the rows by OPF_CALL_ROWS_PER_TYPE_ ops a type: a table with "
              "more ops is a new layout (opf_call_table_v5_), not the same name");
// [type id][op id]: every predefined type id has its rows (the bound
// programs read is OPF_TYPEID_COUNT_, exported with the rows).
alignas(64) CallRow2 call_rows2[OPF_TYPEID_COUNT_][OPF_CALL_ROWS_PER_TYPE_];
alignas(64) CallRow3 call_rows3[OPF_TYPEID_COUNT_][OPF_CALL_ROWS_PER_TYPE_];
// The v3 layout, for programs built against earlier headers: [op id -
// 1][type id], type ids below 64; each row a copy of its v4 row.
constexpr int kV3RowsPerOp = 64;
alignas(64) CallRow2 call_rows2_v3[OPF_OPID_COUNT - 1][kV3RowsPerOp];
alignas(64) CallRow3 call_rows3_v3[OPF_OPID_COUNT - 1][kV3RowsPerOp];

#ifndef OPF_INLINE_CALLS
#error "opframe.h's call-row rule (opf_call_row2_, opf_call_row3_) is built with GCC or Clang, as the library is"
#endif
// The row of a call that may take the short path, or nullptr: opframe.h's
// rule, the one the inline calls apply. `limit` is written last at init
// (release) and cleared first at finalize: a row read with a nonzero limit is
// complete.
[[gnu::always_inline]] inline const CallRow2 *call_row(opf_op_t op, opf_datatype_t datatype, opf_count_t count,
                                                       const CallRow2 *)
{
    return opf_call_row2_(op, datatype, count);
}
[[gnu::always_inline]] inline const CallRow3 *call_row(opf_op_t op, opf_datatype_t datatype, opf_count_t count,
                                                       const CallRow3 *)
{
    return opf_call_row3_(op, datatype, count);
}

template <class Row> inline bool aligned(const Row &r, uintptr_t addresses) { return !(addresses & r.align_mask); }

// One half of a slot as a row holds it: the kernel below the first size
// tier and the next two tiers'. Counts from a fourth tier on go the general
// way (the row's limit ends below it).
template <class Fn>
void take_tiers(const SlotHalf<Fn> &half, opf_count_t &limit, Fn *(&kernel)[kRowTiers], opf_count_t (&split)[kRowTiers - 1])
{
    int tier = 0;
    kernel[0] = half.offer.fn;
    for (int i = half.n_larger - 1; i >= 0; --i) {   // larger is sorted by min_count, descending
        if (tier + 1 == kRowTiers) {
            limit = std::min(limit, half.larger[i].min_count - 1);
            break;
        }
        split[tier] = half.larger[i].min_count;
        kernel[++tier] = half.larger[i].fn;
    }
    for (; tier + 1 < kRowTiers; ++tier) split[tier] = INT64_MAX, kernel[tier + 1] = kernel[tier];
}

// Every 2-buffer call the short path does not take: user ops, derived types,
// device memory, errors. Resolves, checks and runs it (with_call).
[[gnu::noinline]] int reduce2_general(const void *inbuf, void *inoutbuf, opf_count_t count, opf_datatype_t datatype,
                                      opf_op_t op)
{
    return with_call("opf_reduce_local", op, datatype, count, [=](int op_id, const UserOp *user, const Datatype &t) __attribute__((always_inline)) -> int {
        if (user && user->premul_kt >= 0 && user->premul_kt != t.kernel_type && t.size) [[unlikely]]
            return premul_2_3("opf_reduce_local", *user, inbuf, inoutbuf, inoutbuf, count, op, datatype, t);   // refused: mismatch
        if (count == 0) return OPF_SUCCESS;
        if (!inbuf || !inoutbuf) [[unlikely]]
            return fail_call(OPF_ERR_BUFFER, "opf_reduce_local", op, datatype, "%s is NULL with count %lld",
                             inbuf ? "inoutbuf" : "inbuf", (long long)count);
        auto in = static_cast<const Bytes *>(inbuf);
        auto inout = static_cast<Bytes *>(inoutbuf);
        if (have_memory_claims) [[unlikely]] {
            int mem = OPF_MEM_HOST;
            if (int rc = device_memory_kind("opf_reduce_local", op, datatype, {inoutbuf, inbuf}, mem)) return rc;
            if (mem != OPF_MEM_HOST) {
                if (user)
                    return fail_call(OPF_ERR_BUFFER, "opf_reduce_local", op, datatype, "user ops run on host memory only");
                const Call c{op_id, user, &t};
                if (int rc = check_device_slot("opf_reduce_local", op, datatype, c, mem, 2, count)) return rc;
                return apply_device("opf_reduce_local", op, datatype, c, mem, in, nullptr, inout, count);
            }
        }
        if (user && user->premul_kt >= 0) [[unlikely]]
            return premul_2_3("opf_reduce_local", *user, in, inout, inout, count, op, datatype, t);
        if (user) [[unlikely]]
            call_user(*user, in, inout, count, datatype, t);
        else
            apply2(op_id, in, inout, count, t);
        return OPF_SUCCESS;
    });
}

// The same for 3-buffer calls.
[[gnu::noinline]] int reduce3_general(const void *in1, const void *in2, void *out, opf_count_t count,
                                      opf_datatype_t datatype, opf_op_t op)
{
    return with_call("opf_reduce_local3", op, datatype, count, [=](int op_id, const UserOp *user, const Datatype &t) __attribute__((always_inline)) -> int {
        if (user && user->premul_kt >= 0 && user->premul_kt != t.kernel_type && t.size) [[unlikely]]
            return premul_2_3("opf_reduce_local3", *user, in1, in2, out, count, op, datatype, t);   // refused: mismatch
        if (count == 0) return OPF_SUCCESS;
        if (!in1 || !in2 || !out) [[unlikely]]
            return fail_call(OPF_ERR_BUFFER, "opf_reduce_local3", op, datatype, "%s is NULL with count %lld",
                             !in1 ? "in1" : !in2 ? "in2" : "out", (long long)count);
        auto a = static_cast<const Bytes *>(in1);
        auto b = static_cast<const Bytes *>(in2);
        auto o = static_cast<Bytes *>(out);
        if (have_memory_claims) [[unlikely]] {
            int mem = OPF_MEM_HOST;
            if (int rc = device_memory_kind("opf_reduce_local3", op, datatype, {out, in1, in2}, mem)) return rc;
            if (mem != OPF_MEM_HOST) {
                if (user)
                    return fail_call(OPF_ERR_BUFFER, "opf_reduce_local3", op, datatype, "user ops run on host memory only");
                const Call c{op_id, user, &t};
                if (int rc = check_device_slot("opf_reduce_local3", op, datatype, c, mem, 3, count)) return rc;
                return apply_device("opf_reduce_local3", op, datatype, c, mem, a, b, o, count);
            }
        }
        if (user && user->premul_kt >= 0) [[unlikely]]
            return premul_2_3("opf_reduce_local3", *user, a, b, o, count, op, datatype, t);
        if (user) [[unlikely]]
            return call_user3(*user, a, b, o, count, op, datatype, t);
        apply3(op_id, a, b, o, count, t);
        return OPF_SUCCESS;
    });
}

// Where claim hooks exist, the row a host call outside the host window may
// take: aligned for the row's type, and each buffer on the calling thread's
// stack (host_memory.h) or claimed by no hook. The row first: its limit, read with acquire, is what
// orders have_memory_claims (written at init) before the read of it (a call
// racing the lazy init finds no row and reads nothing else).
template <class Row>
const Row *claimable_row(opf_op_t op, opf_datatype_t datatype, opf_count_t count,
                         std::initializer_list<const void *> buffers)
{
    const Row *r = call_row(op, datatype, count, static_cast<const Row *>(nullptr));
    if (!r || !have_memory_claims) return nullptr;
    uintptr_t addresses = 0;
    const void *asked[3];   // the buffers host_memory.h cannot vouch for (each tested once): only they are asked about
    int m = 0;
    for (const void *p : buffers) {
        if (!p) return nullptr;
        addresses |= uintptr_t(p);
        if (!surely_host(p)) asked[m++] = p;
    }
    return aligned(*r, addresses) && (m == 0 || none_claims(asked, m)) ? r : nullptr;
}

// Every 2-buffer call its row does not take: the short path past the claim
// hooks, else the general one. Out of line, so that the entry point saves no
// registers for either.
[[gnu::noinline]] int reduce2_off_row(const void *inbuf, void *inoutbuf, opf_count_t count, opf_datatype_t datatype,
                                      opf_op_t op)
{
    if (const CallRow2 *r = claimable_row<CallRow2>(op, datatype, count, {inbuf, inoutbuf})) {
        OPF_CALL_KERNEL_(r, count)(inbuf, inoutbuf, count);
        return OPF_SUCCESS;
    }
    return reduce2_general(inbuf, inoutbuf, count, datatype, op);
}

[[gnu::noinline]] int reduce3_off_row(const void *in1, const void *in2, void *out, opf_count_t count,
                                      opf_datatype_t datatype, opf_op_t op)
{
    if (const CallRow3 *r = claimable_row<CallRow3>(op, datatype, count, {in1, in2, out})) {
        OPF_CALL_KERNEL_(r, count)(in1, in2, out, count);
        return OPF_SUCCESS;
    }
    return reduce3_general(in1, in2, out, count, datatype, op);
}

} // namespace

// A row's fields, then its limit (release): a reader that sees the limit
// sees the rest. The limit is only ever written atomically (a reader may
// read it at any time); the fields after it, while it is 0.
template <class Row> void publish_row(Row &to, const Row &from)
{
    static_assert(offsetof(Row, limit) == 0 && std::is_trivially_copyable_v<Row>, "the limit comes first");
    __atomic_store_n(&to.limit, 0, __ATOMIC_RELAXED);
    constexpr std::size_t fields = sizeof(from.limit);
    std::memcpy(reinterpret_cast<unsigned char *>(&to) + fields, reinterpret_cast<const unsigned char *>(&from) + fields,
                sizeof(Row) - fields);
    __atomic_store_n(&to.limit, from.limit, __ATOMIC_RELEASE);
}

void build_call_rows()
{
    auto fill = [](auto &r, const auto &half, const Datatype &t) {
        std::remove_reference_t<decltype(r)> row{};
        // Counts above the limit go the general way: a branch that only
        // large calls need (a worker pool) belongs there, with its
        // threshold - 1 folded into this limit.
        opf_count_t limit = std::min(t.max_count, workers_min_count[std::size_t(t.kernel_type)] - 1);
        take_tiers(half, limit, row.kernel, row.split);
        row.align_mask = uintptr_t(t.alignment) - 1;
        row.window = host_window.claims ? &host_window : nullptr;
        const bool complete = std::all_of(std::begin(row.kernel), std::end(row.kernel), [](auto *fn) { return fn != nullptr; });
        row.limit = complete ? limit : 0;
        publish_row(r, row);
    };
    clear_call_rows();
    for (int id = 0; id < OPF_TYPEID_COUNT_; ++id) {
        const Datatype &t = predefined_types[std::size_t(id)];
        // One run of basic elements, n = count, on host memory only.
        if (!t.dense || t.basic_per_item != 1 || t.kernel_type < 0) continue;
        for (int op = 1; op < OPF_OPID_COUNT; ++op) {
            if (!(usable_ops(t) & op_bit(op))) continue;
            const HostSlot &s = slot(op, t.kernel_type);
            fill(call_rows2[id][op], s.two, t);
            fill(call_rows3[id][op], s.three, t);
            if (id < kV3RowsPerOp) {
                publish_row(call_rows2_v3[op - 1][id], call_rows2[id][op]);
                publish_row(call_rows3_v3[op - 1][id], call_rows3[id][op]);
            }
        }
    }
}

void clear_call_rows()
{
    auto close = [](auto &table) {
        for (auto &line : table)
            for (auto &r : line) __atomic_store_n(&r.limit, 0, __ATOMIC_RELAXED);
    };
    close(call_rows2), close(call_rows3), close(call_rows2_v3), close(call_rows3_v3);
}

} // namespace opf

using namespace opf;

OPF_API const struct opf_call_table_v4_ opf_call_table_v4_ = {&call_rows2[0][0], &call_rows3[0][0], OPF_TYPEID_COUNT_};
// The v3 rows by the names programs built against v3 refer to, and by v2's
// (a row is v2's, and a v3 window begins with a v2 window: v2 programs read
// no further).
OPF_API const opf_call_row2_v3_ *const opf_call_rows2_v3_;
OPF_API const opf_call_row3_v3_ *const opf_call_rows3_v3_;
OPF_API const opf_call_row2_v3_ *const opf_call_rows2_v2_;
OPF_API const opf_call_row3_v3_ *const opf_call_rows3_v2_;
OPF_API const opf_call_row2_v3_ *const opf_call_rows2_v3_ = &call_rows2_v3[0][0];
OPF_API const opf_call_row3_v3_ *const opf_call_rows3_v3_ = &call_rows3_v3[0][0];
OPF_API const opf_call_row2_v3_ *const opf_call_rows2_v2_ = &call_rows2_v3[0][0];
OPF_API const opf_call_row3_v3_ *const opf_call_rows3_v2_ = &call_rows3_v3[0][0];

// The entry points (in parentheses: opframe.h's inline calls are macros of
// these names); the row test is the header's, for callers without it. A row
// with a window (a claiming component) leaves the window to the off-row
// path, whose host test holds it (host_memory.h): no call but the kernel's
// here, so no register is saved on the way to it.
OPF_API int(opf_reduce_local)(const void *inbuf, void *inoutbuf, opf_count_t count, opf_datatype_t datatype,
                              opf_op_t op)
try {
    if (const CallRow2 *r = opf_call_row2_(op, datatype, count)) [[likely]]
        if (inbuf && inoutbuf && aligned(*r, uintptr_t(inbuf) | uintptr_t(inoutbuf)) && !r->window) [[likely]] {
            OPF_CALL_KERNEL_(r, count)(inbuf, inoutbuf, count);
            return OPF_SUCCESS;
        }
    return reduce2_off_row(inbuf, inoutbuf, count, datatype, op);
} catch (...) {
    return fail_exception("opf_reduce_local");
}

OPF_API int(opf_reduce_local3)(const void *in1, const void *in2, void *out, opf_count_t count,
                               opf_datatype_t datatype, opf_op_t op)
try {
    if (const CallRow3 *r = opf_call_row3_(op, datatype, count)) [[likely]]
        if (in1 && in2 && out && aligned(*r, uintptr_t(in1) | uintptr_t(in2) | uintptr_t(out)) && !r->window)
            [[likely]] {
            OPF_CALL_KERNEL_(r, count)(in1, in2, out, count);
            return OPF_SUCCESS;
        }
    return reduce3_off_row(in1, in2, out, count, datatype, op);
} catch (...) {
    return fail_exception("opf_reduce_local3");
}

// ---- stream reductions (device.h) ------------------------------------------

namespace opf {
namespace {

// Checks of both stream calls after with_call's; on success `n` is the element count.
int check_stream_call(const char *function, opf_op_t op, opf_datatype_t datatype, opf_count_t count,
                      int memory_kind, std::initializer_list<const void *> buffers, const Call &c, opf_count_t &n)
{
    const Datatype &t = *c.type;
    if (c.user) return fail_call(OPF_ERR_OP, function, op, datatype, "user ops cannot be enqueued on a stream");
    if (!t.dense && t.size > 0)
        return fail_call(OPF_ERR_TYPE, function, op, datatype, "stream reductions need a contiguous datatype");
    n = t.dense ? count * t.basic_per_item : 0;
    if (n == 0) return OPF_SUCCESS;
    if (memory_kind <= OPF_MEM_HOST || memory_kind >= memory_kind_count())   // as a kind nobody serves
        return fail_call(OPF_ERR_OP, function, op, datatype,
                         "no component offers a stream kernel on memory kind %d: no available component registered it",
                         memory_kind);
    for (const void *p : buffers)
        if (!p) return fail_call(OPF_ERR_BUFFER, function, op, datatype, "a buffer is NULL with count %lld",
                                 (long long)count);
    return OPF_SUCCESS;
}

// The n-ary calls' sources (opf_reduce_local_n, _mode, _stream): nsrc in
// range (check_nsrc, before anything else), then, for a count above 0,
// srcs and every srcs[j] not NULL (check_srcs).
int check_nsrc(const char *function, opf_op_t op, opf_datatype_t datatype, int nsrc)
{
    if (nsrc >= 1 && nsrc <= OPF_REDUCE_N_MAX) return OPF_SUCCESS;
    return fail_call(OPF_ERR_ARG, function, op, datatype, "nsrc %d is outside 1 .. OPF_REDUCE_N_MAX (%d)", nsrc,
                     OPF_REDUCE_N_MAX);
}
int check_srcs(const char *function, opf_op_t op, opf_datatype_t datatype, const void *const srcs[], int nsrc,
               opf_count_t count)
{
    if (!srcs) return fail_call(OPF_ERR_BUFFER, function, op, datatype, "srcs is NULL with count %lld", (long long)count);
    for (int j = 0; j < nsrc; ++j)
        if (!srcs[j])
            return fail_call(OPF_ERR_BUFFER, function, op, datatype, "srcs[%d] is NULL with count %lld", j,
                             (long long)count);
    return OPF_SUCCESS;
}

int check_mode(const char *function, opf_op_t op, opf_datatype_t datatype, int mode)
{
    if (mode == OPF_ROUND_CHAIN || mode == OPF_ROUND_ONCE) return OPF_SUCCESS;
    return fail_call(OPF_ERR_ARG, function, op, datatype, "mode %d is neither OPF_ROUND_CHAIN (0) nor OPF_ROUND_ONCE (1)",
                     mode);
}

[[gnu::cold]] int no_stream_kernel(const char *function, opf_op_t op, opf_datatype_t datatype, int memory_kind)
{
    return fail_call(OPF_ERR_OP, function, op, datatype,
                     "no component offers a stream kernel for this slot on %s memory", memory_kind_name(memory_kind));
}

// The n-ary form of a call on device memory: kN, or kNOnce where round-once
// has a result of its own for the slot (as on the host).
int device_form(int op_id, int kt, int mode)
{
    return mode == OPF_ROUND_ONCE && base::nary_kernels(op_id, kt).fn[base::kNOnce] ? base::kNOnce : base::kN;
}

// Why the n-ary result cannot be the chain of 3-buffer device calls (the
// code to fail with, and the reason), or {OPF_SUCCESS, nullptr} when it can.
struct NoChain {
    int code;
    const char *why;
};
NoChain no_device_chain(int op_id, int kt, int form, int nsrc, bool dst_read_late)
{
    if (form == base::kNOnce) return {OPF_ERR_OP, "round-once has no chain form"};
    if (!base::nary_is_chain(op_id, kt) && nsrc > 2)
        return {OPF_ERR_OP, op_id == OPF_OPID_AVG
                                ? "OPF_AVG of more than two inputs is not a chain of 3-buffer calls"
                                : "an MX block format's n-ary result (quantized once) is not a chain of 3-buffer calls"};
    if (dst_read_late) return {OPF_ERR_BUFFER, "the chain would overwrite dst, one of srcs[2..], before reading it"};
    return {OPF_SUCCESS, nullptr};
}

// The n-ary call on a stream: the slot's n-ary stream kernel, one call;
// where no component offers one, the chain of its 3-buffer stream kernel in
// stream order (each step reads what the one before wrote) when that is the
// n-ary result (no_device_chain), one input copied by the REPLACE stream
// kernel.
int reduce_n_stream(const char *function, const void *const srcs[], int nsrc, void *dst, opf_count_t count,
                    opf_datatype_t datatype, opf_op_t op, int mode, int memory_kind, void *stream)
{
    return with_call(function, op, datatype, count, [=](int op_id, const UserOp *user, const Datatype &t) -> int {
        if (int rc = check_mode(function, op, datatype, mode)) return rc;
        if (int rc = check_nsrc(function, op, datatype, nsrc)) return rc;
        opf_count_t n = 0;
        if (int rc = check_stream_call(function, op, datatype, count, memory_kind, {dst}, {op_id, user, &t}, n)) return rc;
        if (n == 0) return OPF_SUCCESS;
        if (int rc = check_srcs(function, op, datatype, srcs, nsrc, count)) return rc;
        const int form = device_form(op_id, t.kernel_type, mode);
        const DeviceSlot &s = device_slot(op_id, memory_kind, t.kernel_type);
        if (const auto &nary = s.stream_nary[form].offer_for(n); nary.fn)
            return run_device(function, op, datatype, nary, srcs, nsrc, dst, n, static_cast<const void *>(nullptr), stream);
        bool dst_read_late = false;
        for (int j = 2; j < nsrc; ++j) dst_read_late |= srcs[j] == dst;
        if (const NoChain no = no_device_chain(op_id, t.kernel_type, form, nsrc, dst_read_late); no.why)
            return fail_call(no.code, function, op, datatype, "no component offers an n-ary stream kernel for this "
                             "slot on %s memory, and %s", memory_kind_name(memory_kind), no.why);
        if (nsrc == 1) {
            const auto &copy = device_slot(OPF_OPID_REPLACE, memory_kind, t.kernel_type).stream2.offer_for(n);
            if (!copy.fn) return no_stream_kernel(function, op, datatype, memory_kind);
            return srcs[0] == dst ? OPF_SUCCESS : run_device(function, op, datatype, copy, srcs[0], dst, n, stream);
        }
        const auto &offer = s.stream3.offer_for(n);
        if (!offer.fn) return no_stream_kernel(function, op, datatype, memory_kind);
        int rc = run_device(function, op, datatype, offer, srcs[0], srcs[1], dst, n, stream);
        for (int j = 2; j < nsrc && rc == OPF_SUCCESS; ++j) rc = run_device(function, op, datatype, offer, dst, srcs[j], dst, n, stream);
        return rc;
    });
}

} // namespace
} // namespace opf

OPF_API int opf_reduce_local_stream(const void *inbuf, void *inoutbuf, opf_count_t count, opf_datatype_t datatype,
                                    opf_op_t op, int memory_kind, void *stream)
try {
    return with_call("opf_reduce_local_stream", op, datatype, count, [=](int op_id, const UserOp *user, const Datatype &t) __attribute__((always_inline)) -> int {
        opf_count_t n = 0;
        if (int rc = check_stream_call("opf_reduce_local_stream", op, datatype, count, memory_kind,
                                       {inbuf, inoutbuf}, {op_id, user, &t}, n))
            return rc;
        if (n == 0) return OPF_SUCCESS;
        const auto &offer = device_slot(op_id, memory_kind, t.kernel_type).stream2.offer_for(n);
        if (!offer.fn) return no_stream_kernel("opf_reduce_local_stream", op, datatype, memory_kind);
        return run_device("opf_reduce_local_stream", op, datatype, offer, inbuf, inoutbuf, n, stream);
    });
} catch (...) {
    return fail_exception("opf_reduce_local_stream");
}

OPF_API int opf_reduce_local3_stream(const void *in1, const void *in2, void *out, opf_count_t count,
                                     opf_datatype_t datatype, opf_op_t op, int memory_kind, void *stream)
try {
    return with_call("opf_reduce_local3_stream", op, datatype, count, [=](int op_id, const UserOp *user, const Datatype &t) __attribute__((always_inline)) -> int {
        opf_count_t n = 0;
        if (int rc = check_stream_call("opf_reduce_local3_stream", op, datatype, count, memory_kind,
                                       {in1, in2, out}, {op_id, user, &t}, n))
            return rc;
        if (n == 0) return OPF_SUCCESS;
        const auto &offer = device_slot(op_id, memory_kind, t.kernel_type).stream3.offer_for(n);
        if (!offer.fn) return no_stream_kernel("opf_reduce_local3_stream", op, datatype, memory_kind);
        return run_device("opf_reduce_local3_stream", op, datatype, offer, in1, in2, out, n, stream);
    });
} catch (...) {
    return fail_exception("opf_reduce_local3_stream");
}

OPF_API int opf_reduce_local_n_stream(const void *const srcs[], int nsrc, void *dst, opf_count_t count,
                                      opf_datatype_t datatype, opf_op_t op, int memory_kind, void *stream)
try {
    return reduce_n_stream("opf_reduce_local_n_stream", srcs, nsrc, dst, count, datatype, op, OPF_ROUND_CHAIN,
                           memory_kind, stream);
} catch (...) {
    return fail_exception("opf_reduce_local_n_stream");
}

OPF_API int opf_reduce_local_n_stream_mode(const void *const srcs[], int nsrc, void *dst, opf_count_t count,
                                           opf_datatype_t datatype, opf_op_t op, int mode, int memory_kind,
                                           void *stream)
try {
    return reduce_n_stream("opf_reduce_local_n_stream_mode", srcs, nsrc, dst, count, datatype, op, mode, memory_kind,
                           stream);
} catch (...) {
    return fail_exception("opf_reduce_local_n_stream_mode");
}

// ---- n-ary reductions (opf_reduce_local_n) -----------------------------------

namespace opf {
namespace {

// What one n-ary call runs: the op's row (SUM's for PreMulSum), the form
// (base::NaryForm), the PreMulSum scalar, and whether dst is one of the
// inputs after the first two (then composing 3-buffer calls into dst would
// overwrite an input before it is read).
struct NaryCall {
    int op_id, form;
    const void *scalar;
    bool dst_read_late;
};

// One contiguous run of n elements of kernel type kt: the slot's n-ary
// kernel; where the 3-buffer provider offers no n-ary kernel (a component
// built before n-ary kernels, a pin to one), its 3-buffer kernel composed
// left to right (components.cpp: install_chain); misaligned, the base.
void run_nary(const NaryCall &c, int kt, const Bytes *const src[], int k, Bytes *dst, opf_count_t n)
{
    uintptr_t addresses = uintptr_t(dst);
    for (int j = 0; j < k; ++j) addresses |= uintptr_t(src[j]);
    if (misaligned(uintptr_t(base::kernel_type_alignment(kt)), addresses)) [[unlikely]]
        return base::nary_kernels(c.op_id, kt).fn[c.form](reinterpret_cast<const void *const *>(src), k, dst, n, c.scalar);
    const HostSlot &s = slot(c.op_id, kt);
    const Offer<opf_kernel_n_fn> &nary = s.nary[c.form].offer_for(n);
    const bool pooled = n >= workers_min_count[std::size_t(kt)];   // op_base_threads, as the 2- and 3-buffer calls
    if (nary.chains_three && k >= 2 && !c.dst_read_late) {   // the selection follows the 3-buffer half here
        opf_kernel3_fn *three = s.three.offer_for(n).fn;
        for (int j = 1; j < k; ++j) {
            const Bytes *left = j == 1 ? src[0] : dst;
            if (pooled) run_on_workers(three, left, src[j], dst, n, kt);
            else three(left, src[j], dst, n);
        }
        return;
    }
    const auto srcs = reinterpret_cast<const void *const *>(src);
    if (pooled) [[unlikely]] return run_on_workers(nary.fn, srcs, k, dst, n, kt, c.scalar);
    nary.fn(srcs, k, dst, n, c.scalar);
}

// A predefined op or PreMulSum on any datatype: one run when dense, else one
// per leaf of each item.
void apply_n(const NaryCall &c, const Bytes *const src[], int k, Bytes *dst, opf_count_t count, const Datatype &t)
{
    if (t.size == 0) return;
    if (t.dense) [[likely]] return run_nary(c, t.kernel_type, src, k, dst, count * t.basic_per_item);
    const Bytes *at_src[OPF_REDUCE_N_MAX];
    auto leaf = [&](opf_aint_t at, int kt, opf_count_t n) {
        for (int j = 0; j < k; ++j) at_src[j] = src[j] + at;
        run_nary(c, kt, at_src, k, dst + at, n);
    };
    for (opf_count_t i = 0; i < count; ++i) for_each_leaf(*t.segments, uint64_t(i) * uint64_t(t.extent), leaf);
}

// A user op: the chain of 3-buffer calls, into a scratch copy of the items'
// span when dst is read late (then copied to dst, data bytes only).
int call_user_n(const UserOp &u, const Bytes *const src[], int k, Bytes *dst, opf_count_t count, opf_op_t op,
                opf_datatype_t datatype, const Datatype &t, bool dst_read_late)
{
    const char *function = "opf_reduce_local_n";
    if (t.size == 0) return OPF_SUCCESS;
    if (k == 1) {
        apply2(OPF_OPID_REPLACE, src[0], dst, count, t);
        return OPF_SUCCESS;
    }
    Bytes *out = dst, *scratch = nullptr;
    if (dst_read_late) {
        const opf_aint_t item_lo = std::min(t.true_lb, t.lb), item_hi = std::max(t.true_ub, t.lb + t.extent);
        const opf_aint_t span_lo = item_lo + std::min<opf_aint_t>(0, (count - 1) * t.extent);
        const opf_aint_t span_hi = item_hi + std::max<opf_aint_t>(0, (count - 1) * t.extent);
        scratch = static_cast<Bytes *>(std::malloc(std::size_t(span_hi - span_lo)));
        if (!scratch)
            return fail_call(OPF_ERR_NO_MEM, function, op, datatype,
                             "no memory for a scratch buffer (%lld bytes) while dst is one of srcs[2..]",
                             (long long)(span_hi - span_lo));
        out = scratch - span_lo;
    }
    int rc = call_user3(u, src[0], src[1], out, count, op, datatype, t);
    for (int j = 2; j < k && rc == OPF_SUCCESS; ++j) rc = call_user3(u, out, src[j], out, count, op, datatype, t);
    if (scratch) {
        if (rc == OPF_SUCCESS) apply2(OPF_OPID_REPLACE, out, dst, count, t);
        std::free(scratch);
    }
    return rc;
}

// A PreMulSum op reduces the basic type it was created for only.
[[gnu::cold]] int premul_type_mismatch(const char *function, opf_op_t op, opf_datatype_t datatype, const UserOp &u,
                                       const Datatype &t)
{
    if (t.kernel_type == u.premul_kt || t.size == 0) return OPF_SUCCESS;
    return fail_call(OPF_ERR_OP, function, op, datatype, "this PreMulSum op was created for %s elements; the datatype's are %s",
                     base::kernel_type_name(u.premul_kt),
                     t.kernel_type < 0 ? "of several types" : base::kernel_type_name(t.kernel_type));
}

// opf_reduce_local_n on device memory: the slot's n-ary device kernel, one
// call over the whole buffer; where no component offers one, the chain of
// its 3-buffer device kernels when that is the n-ary result (see
// no_device_chain), else refused. Contiguous datatypes only (apply_device).
[[gnu::cold]] int reduce_n_device(const char *function, opf_op_t op, opf_datatype_t datatype, const Call &c, int mode,
                                  const Bytes *const src[], int nsrc, Bytes *out, opf_count_t count, int mem,
                                  bool dst_read_late)
{
    const Datatype &t = *c.type;
    if (c.user)
        return fail_call(OPF_ERR_BUFFER, function, op, datatype, "user ops (PreMulSum too) run on host memory only");
    if (t.size == 0) return OPF_SUCCESS;
    if (!t.dense) return refuse_gaps(function, op, datatype, mem);
    const int form = device_form(c.op_id, t.kernel_type, mode);
    const opf_count_t n = count * t.basic_per_item;
    const DeviceSlot &s = device_slot(c.op_id, mem, t.kernel_type);
    if (const auto &nary = s.nary[form].offer_for(n); nary.fn)
        return run_device(function, op, datatype, nary, reinterpret_cast<const void *const *>(src), nsrc,
                          static_cast<void *>(out), n, static_cast<const void *>(nullptr));
    if (const NoChain no = no_device_chain(c.op_id, t.kernel_type, form, nsrc, dst_read_late); no.why)
        return fail_call(no.code, function, op, datatype, "no component offers an n-ary kernel for this slot on %s "
                         "memory, and %s", memory_kind_name(mem), no.why);
    if (nsrc == 1) {   // dst = srcs[0]
        const Call copy{OPF_OPID_REPLACE, nullptr, &t};
        if (int rc = check_device_slot(function, op, datatype, copy, mem, 2, count)) return rc;
        return src[0] == out ? OPF_SUCCESS : apply_device(function, op, datatype, copy, mem, src[0], nullptr, out, count);
    }
    if (int rc = check_device_slot(function, op, datatype, c, mem, 3, count)) return rc;
    int rc = apply_device(function, op, datatype, c, mem, src[0], src[1], out, count);
    for (int j = 2; j < nsrc && rc == OPF_SUCCESS; ++j) rc = apply_device(function, op, datatype, c, mem, out, src[j], out, count);
    return rc;
}

int reduce_n(const char *function, const void *const srcs[], int nsrc, void *dst, opf_count_t count,
             opf_datatype_t datatype, opf_op_t op, int mode)
{
    return with_call(function, op, datatype, count, [=](int op_id, const UserOp *user, const Datatype &t) -> int {
        if (int rc = check_mode(function, op, datatype, mode)) return rc;
        if (int rc = check_nsrc(function, op, datatype, nsrc)) return rc;
        const bool premul = user && user->premul_kt >= 0;
        if (premul)
            if (int rc = premul_type_mismatch(function, op, datatype, *user, t)) return rc;
        if (count == 0) return OPF_SUCCESS;
        if (int rc = check_srcs(function, op, datatype, srcs, nsrc, count)) return rc;
        if (!dst) return fail_call(OPF_ERR_BUFFER, function, op, datatype, "dst is NULL with count %lld", (long long)count);
        auto src = reinterpret_cast<const Bytes *const *>(srcs);
        auto out = static_cast<Bytes *>(dst);
        bool dst_read_late = false;
        for (int j = 2; j < nsrc; ++j) dst_read_late |= src[j] == out;
        if (have_memory_claims) [[unlikely]] {
            // every buffer's kind in one question per kind (and 16 buffers), dst first
            const void *buffers[1 + OPF_REDUCE_N_MAX];
            int kinds[1 + OPF_REDUCE_N_MAX];
            buffers[0] = dst;
            std::copy(srcs, srcs + nsrc, buffers + 1);
            memory_kinds_of(buffers, 1 + nsrc, kinds);
            int mem = kinds[0];
            for (int j = 0; j < nsrc; ++j) {
                const int kind = kinds[1 + j];
                if (kind == OPF_MEM_HOST || kind == mem) continue;
                if (mem != OPF_MEM_HOST)
                    return fail_call(OPF_ERR_BUFFER, function, op, datatype,
                                     "the buffers live in two different kinds of device memory");
                mem = kind;
            }
            if (mem != OPF_MEM_HOST)
                return reduce_n_device(function, op, datatype, {op_id, user, &t}, mode, src, nsrc, out, count, mem,
                                       dst_read_late);
        }
        if (user && !premul) return call_user_n(*user, src, nsrc, out, count, op, datatype, t, dst_read_late);
        const bool once = mode == OPF_ROUND_ONCE;
        NaryCall c{premul ? OPF_OPID_SUM : op_id, premul ? base::kPremul : base::kN, premul ? user->scalar : nullptr,
                   dst_read_late};
        // Round-once differs from the chain only where the base has a kernel for it.
        if (once && t.kernel_type >= 0 && base::nary_kernels(c.op_id, t.kernel_type).fn[c.form + 1]) c.form += 1;
        apply_n(c, src, nsrc, out, count, t);
        return OPF_SUCCESS;
    });
}

} // namespace

// PreMulSum on the 2- and 3-buffer calls: the n-ary kernel with k = 2.
int premul_2_3(const char *function, const UserOp &u, const void *in1, const void *in2, void *out, opf_count_t count,
               opf_op_t op, opf_datatype_t datatype, const Datatype &t)
{
    if (int rc = premul_type_mismatch(function, op, datatype, u, t)) return rc;
    const Bytes *src[2] = {static_cast<const Bytes *>(in1), static_cast<const Bytes *>(in2)};
    apply_n({OPF_OPID_SUM, base::kPremul, u.scalar, false}, src, 2, static_cast<Bytes *>(out), count, t);
    return OPF_SUCCESS;
}

} // namespace opf

OPF_API int opf_reduce_local_n(const void *const srcs[], int nsrc, void *dst, opf_count_t count,
                               opf_datatype_t datatype, opf_op_t op)
try {
    return reduce_n("opf_reduce_local_n", srcs, nsrc, dst, count, datatype, op, OPF_ROUND_CHAIN);
} catch (...) {
    return fail_exception("opf_reduce_local_n");
}

OPF_API int opf_reduce_local_n_mode(const void *const srcs[], int nsrc, void *dst, opf_count_t count,
                                    opf_datatype_t datatype, opf_op_t op, int mode)
try {
    return reduce_n("opf_reduce_local_n_mode", srcs, nsrc, dst, count, datatype, op, mode);
} catch (...) {
    return fail_exception("opf_reduce_local_n_mode");
}
