// reduce.cpp — opf_reduce_local and opf_reduce_local3: check the call in
// O(1) without allocating, then make one indirect call per contiguous run.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "base/kernels.h"

#include "framework/components.h"
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

// The memory kind a call runs on: host, unless a device component claims one
// of the buffers. Then the call runs on that device's kernels, which stage
// any host operand (the rule each device component documents); buffers of
// two different device kinds are refused.
[[gnu::cold]] int device_memory_kind(const char *function, opf_op_t op, opf_datatype_t datatype,
                                     std::initializer_list<const void *> buffers, int &mem)
{
    mem = OPF_MEM_HOST;
    for (const void *p : buffers) {
        const int kind = memory_kind_of(p);
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
                                    int mem, int nbuf)
{
    for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
        if (!(c.type->kernel_types >> kt & 1)) continue;
        const DeviceSlot &s = device_slot(c.op_id, mem, kt);
        if (!(nbuf == 2 ? s.two.offer.fn || s.two.larger : s.three.offer.fn || s.three.larger))
            return fail_call(OPF_ERR_BUFFER, function, op, datatype,
                             "the buffers are %s memory and no component serves this op on it", memory_kind_name(mem));
    }
    return OPF_SUCCESS;
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

// Predefined op on device memory, 2- or 3-buffer (in2 == nullptr: 2-buffer,
// in place in out): one device kernel per contiguous run; stops at the first
// failure and returns it.
[[gnu::cold]] int apply_device(const char *function, opf_op_t op, opf_datatype_t datatype, const Call &c, int mem,
                               const Bytes *in1, const Bytes *in2, Bytes *out, opf_count_t count)
{
    const Datatype &t = *c.type;
    auto run = [&](opf_aint_t at, int kt, opf_count_t n) {
        const DeviceSlot &s = device_slot(c.op_id, mem, kt);
        return in2 ? run_device(function, op, datatype, s.three.offer_for(n), in1 + at, in2 + at, out + at, n)
                   : run_device(function, op, datatype, s.two.offer_for(n), in1 + at, out + at, n);
    };
    if (t.size == 0) return OPF_SUCCESS;
    if (t.dense) return run(0, t.kernel_type, count * t.basic_per_item);
    int rc = OPF_SUCCESS;
    auto leaf = [&](opf_aint_t at, int kt, opf_count_t n) {
        if (rc == OPF_SUCCESS) rc = run(at, kt, n);
    };
    for (opf_count_t i = 0; i < count && rc == OPF_SUCCESS; ++i)
        for_each_leaf(*t.segments, uint64_t(i) * uint64_t(t.extent), leaf);
    return rc;
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
} // namespace opf

using namespace opf;

OPF_API int opf_reduce_local(const void *inbuf, void *inoutbuf, opf_count_t count, opf_datatype_t datatype,
                             opf_op_t op)
try {
    return with_call("opf_reduce_local", op, datatype, count, [=](int op_id, const UserOp *user, const Datatype &t) __attribute__((always_inline)) -> int {
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
                if (int rc = check_device_slot("opf_reduce_local", op, datatype, c, mem, 2)) return rc;
                return apply_device("opf_reduce_local", op, datatype, c, mem, in, nullptr, inout, count);
            }
        }
        if (user) [[unlikely]]
            call_user(*user, in, inout, count, datatype, t);
        else
            apply2(op_id, in, inout, count, t);
        return OPF_SUCCESS;
    });
} catch (...) {
    return fail_exception("opf_reduce_local");
}

OPF_API int opf_reduce_local3(const void *in1, const void *in2, void *out, opf_count_t count,
                              opf_datatype_t datatype, opf_op_t op)
try {
    return with_call("opf_reduce_local3", op, datatype, count, [=](int op_id, const UserOp *user, const Datatype &t) __attribute__((always_inline)) -> int {
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
                if (int rc = check_device_slot("opf_reduce_local3", op, datatype, c, mem, 3)) return rc;
                return apply_device("opf_reduce_local3", op, datatype, c, mem, a, b, o, count);
            }
        }
        if (user) [[unlikely]]
            return call_user3(*user, a, b, o, count, op, datatype, t);
        apply3(op_id, a, b, o, count, t);
        return OPF_SUCCESS;
    });
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

[[gnu::cold]] int no_stream_kernel(const char *function, opf_op_t op, opf_datatype_t datatype, int memory_kind)
{
    return fail_call(OPF_ERR_OP, function, op, datatype,
                     "no component offers a stream kernel for this slot on %s memory", memory_kind_name(memory_kind));
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
