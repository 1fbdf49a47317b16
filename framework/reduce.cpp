// reduce.cpp — opf_reduce_local and opf_reduce_local3: check the call in
// O(1) without allocating, then make one indirect call per contiguous run.
#include <algorithm>
#include <initializer_list>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "framework/components.h"
#include "framework/datatype.h"
#include "framework/error.h"
#include "framework/op.h"
#include "framework/params.h"
#include "framework/runtime.h"

namespace opf {
namespace {

using Bytes = unsigned char;

struct Call {
    int op_id;              // predefined op, or 0 for a user op
    const UserOp *user;
    const Datatype *type;
};

// Validates handles and count, in the documented order. Every failure names
// the call, the op and the type.
[[gnu::always_inline]] inline int check_call(const char *function, opf_op_t op, opf_datatype_t datatype, opf_count_t count, Call &c)
{
    if (int rc = ensure_initialized()) [[unlikely]] return rc;
    c.op_id = predefined_op_id(op);
    c.user = c.op_id ? nullptr : find_user_op(op);
    if (!c.op_id && !c.user) [[unlikely]]
        return fail_call(OPF_ERR_OP, function, op, datatype, "the op is null, freed or invalid");
    c.type = find_type(datatype);
    if (!c.type) [[unlikely]]
        return fail_call(OPF_ERR_TYPE, function, op, datatype, "the datatype is null, freed or invalid");
    if (!c.type->committed) [[unlikely]]
        return fail_call(OPF_ERR_TYPE, function, op, datatype, "the datatype is not committed");
    if (!c.type->supported) [[unlikely]]
        return fail_call(OPF_ERR_TYPE, function, op, datatype, "the datatype is not supported by this build");
    if (count < 0) [[unlikely]]
        return fail_call(OPF_ERR_COUNT, function, op, datatype, "negative count %lld", (long long)count);
    if (c.op_id && !(c.type->valid_ops & op_bit(c.op_id))) [[unlikely]]
        return fail_call(OPF_ERR_OP, function, op, datatype,
                         c.type->kernel_type < 0 ? "a predefined op needs one basic type; this type mixes several"
                                                 : "the op is not defined for this datatype");
    opf_aint_t bytes;
    if (__builtin_mul_overflow(count, std::max<opf_aint_t>(c.type->extent, c.type->true_ub), &bytes)) [[unlikely]]
        return fail_call(OPF_ERR_COUNT, function, op, datatype, "count %lld overflows the address space",
                         (long long)count);
    return OPF_SUCCESS;
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

// Predefined op, 2-buffer, on any datatype.
[[gnu::always_inline]] inline void apply2(int op_id, const Bytes *in, Bytes *inout, opf_count_t count,
                                          const Datatype &t)
{
    if (t.dense) [[likely]] {
        const opf_count_t n = count * t.basic_per_item;
        slot(op_id, t.kernel_type).two.pick(n)(in, inout, n);
        return;
    }
    for (opf_count_t i = 0; i < count; ++i)
        for (const Block &b : t.blocks) {
            const opf_aint_t at = i * t.extent + b.offset;
            slot(op_id, b.kernel_type).two.pick(b.count)(in + at, inout + at, b.count);
        }
}

// Predefined op, 3-buffer, on any datatype.
[[gnu::always_inline]] inline void apply3(int op_id, const Bytes *in1, const Bytes *in2, Bytes *out,
                                          opf_count_t count, const Datatype &t)
{
    if (t.dense) [[likely]] {
        const opf_count_t n = count * t.basic_per_item;
        slot(op_id, t.kernel_type).three.pick(n)(in1, in2, out, n);
        return;
    }
    for (opf_count_t i = 0; i < count; ++i)
        for (const Block &b : t.blocks) {
            const opf_aint_t at = i * t.extent + b.offset;
            slot(op_id, b.kernel_type).three.pick(b.count)(in1 + at, in2 + at, out + at, b.count);
        }
}

// A predefined op on device memory: the slot must have a kernel for that kind.
[[gnu::cold]] int check_device_slot(const char *function, opf_op_t op, opf_datatype_t datatype, const Call &c,
                                    int mem, int nbuf)
{
    for (const Block &b : c.type->blocks) {
        const DeviceSlot &s = device_slot(c.op_id, mem, b.kernel_type);
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
    auto run = [&](int kt, opf_aint_t at, opf_count_t n) {
        const DeviceSlot &s = device_slot(c.op_id, mem, kt);
        return in2 ? run_device(function, op, datatype, s.three.offer_for(n), in1 + at, in2 + at, out + at, n)
                   : run_device(function, op, datatype, s.two.offer_for(n), in1 + at, out + at, n);
    };
    if (t.dense) return run(t.kernel_type, 0, count * t.basic_per_item);
    for (opf_count_t i = 0; i < count; ++i)
        for (const Block &b : t.blocks)
            if (int rc = run(b.kernel_type, i * t.extent + b.offset, b.count)) return rc;
    return OPF_SUCCESS;
}

// User op: inoutvec = invec op inoutvec. An int callback gets at most
// params.user_int_limit items per call (MPI 4: the lengths sum to count).
void call_user(const UserOp &u, const Bytes *in, Bytes *inout, opf_count_t count, opf_datatype_t datatype,
               const Datatype &t)
{
    opf_datatype_t handle = datatype;
    void *invec = const_cast<Bytes *>(in);   // MPI's callback signature is not const
    if (u.fn_c) {
        opf_count_t len = count;
        u.fn_c(invec, inout, &len, &handle);
        return;
    }
    for (opf_count_t done = 0; done < count;) {
        int len = int(std::min<opf_count_t>(count - done, params.user_int_limit));
        const opf_aint_t at = done * t.extent;
        u.fn(static_cast<Bytes *>(invec) + at, inout + at, &len, &handle);
        done += len;
    }
}

// out = in1 op in2 with a user op: out receives in2, then the callback folds
// in1 into it. When out is in1, in1 is saved first.
int call_user3(const UserOp &u, const Bytes *in1, const Bytes *in2, Bytes *out, opf_count_t count,
               opf_op_t op, opf_datatype_t datatype, const Datatype &t)
{
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
{
    Call c{};
    if (int rc = check_call("opf_reduce_local", op, datatype, count, c)) [[unlikely]] return rc;
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
            if (c.user)
                return fail_call(OPF_ERR_BUFFER, "opf_reduce_local", op, datatype, "user ops run on host memory only");
            if (int rc = check_device_slot("opf_reduce_local", op, datatype, c, mem, 2)) return rc;
            return apply_device("opf_reduce_local", op, datatype, c, mem, in, nullptr, inout, count);
        }
    }
    if (c.user) [[unlikely]]
        call_user(*c.user, in, inout, count, datatype, *c.type);
    else
        apply2(c.op_id, in, inout, count, *c.type);
    return OPF_SUCCESS;
}

OPF_API int opf_reduce_local3(const void *in1, const void *in2, void *out, opf_count_t count,
                              opf_datatype_t datatype, opf_op_t op)
{
    Call c{};
    if (int rc = check_call("opf_reduce_local3", op, datatype, count, c)) [[unlikely]] return rc;
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
            if (c.user)
                return fail_call(OPF_ERR_BUFFER, "opf_reduce_local3", op, datatype, "user ops run on host memory only");
            if (int rc = check_device_slot("opf_reduce_local3", op, datatype, c, mem, 3)) return rc;
            return apply_device("opf_reduce_local3", op, datatype, c, mem, a, b, o, count);
        }
    }
    if (c.user) [[unlikely]]
        return call_user3(*c.user, a, b, o, count, op, datatype, *c.type);
    apply3(c.op_id, a, b, o, count, *c.type);
    return OPF_SUCCESS;
}

// ---- stream reductions (device.h) ------------------------------------------

namespace opf {
namespace {

// Checks shared by both stream calls; on success `n` is the element count.
int check_stream_call(const char *function, opf_op_t op, opf_datatype_t datatype, opf_count_t count,
                      int memory_kind, std::initializer_list<const void *> buffers, Call &c, opf_count_t &n)
{
    if (int rc = check_call(function, op, datatype, count, c)) return rc;
    if (c.user) return fail_call(OPF_ERR_OP, function, op, datatype, "user ops cannot be enqueued on a stream");
    if (!c.type->dense)
        return fail_call(OPF_ERR_TYPE, function, op, datatype, "stream reductions need a contiguous datatype");
    n = count * c.type->basic_per_item;
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
{
    Call c{};
    opf_count_t n = 0;
    if (int rc = check_stream_call("opf_reduce_local_stream", op, datatype, count, memory_kind, {inbuf, inoutbuf}, c, n))
        return rc;
    if (n == 0) return OPF_SUCCESS;
    const auto &offer = device_slot(c.op_id, memory_kind, c.type->kernel_type).stream2.offer_for(n);
    if (!offer.fn) return no_stream_kernel("opf_reduce_local_stream", op, datatype, memory_kind);
    return run_device("opf_reduce_local_stream", op, datatype, offer, inbuf, inoutbuf, n, stream);
}

OPF_API int opf_reduce_local3_stream(const void *in1, const void *in2, void *out, opf_count_t count,
                                     opf_datatype_t datatype, opf_op_t op, int memory_kind, void *stream)
{
    Call c{};
    opf_count_t n = 0;
    if (int rc = check_stream_call("opf_reduce_local3_stream", op, datatype, count, memory_kind, {in1, in2, out}, c, n))
        return rc;
    if (n == 0) return OPF_SUCCESS;
    const auto &offer = device_slot(c.op_id, memory_kind, c.type->kernel_type).stream3.offer_for(n);
    if (!offer.fn) return no_stream_kernel("opf_reduce_local3_stream", op, datatype, memory_kind);
    return run_device("opf_reduce_local3_stream", op, datatype, offer, in1, in2, out, n, stream);
}
