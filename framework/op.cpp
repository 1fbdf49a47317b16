// op.cpp — the mixed kernel table and the user-op API.
#include "framework/op.h"

#include <memory>

#include "base/kernels.h"
#include "framework/error.h"
#include "framework/handles.h"
#include "framework/runtime.h"

namespace opf {

SlotTable<HostSlot> host_table;
std::vector<SlotTable<DeviceSlot>> device_tables;

void load_base_table()
{
    device_tables.clear();
    for (int op = 1; op < OPF_OPID_COUNT; ++op)
        for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
            const base::SlotKernels &k = base::kernels(op, kt);
            HostSlot &s = host_table.slot[op][kt];
            s.two = {{k.fn2, k.fn2 ? "base" : nullptr, 0}, nullptr, 0};
            s.three = {{k.fn3, k.fn3 ? "base" : nullptr, 0}, nullptr, 0};
        }
}

namespace {
HandleTable<UserOp> &user_ops()
{
    static HandleTable<UserOp> table;
    return table;
}

int create(opf_user_function *fn, opf_user_function_c *fn_c, int commute, opf_op_t *op, const char *function)
{
    if (!fn && !fn_c) return fail(OPF_ERR_ARG, "%s: the user function is NULL", function);
    if (!op) return fail(OPF_ERR_ARG, "%s: op is NULL", function);
    if (int rc = ensure_initialized()) return rc;
    auto u = std::make_unique<UserOp>();
    u->fn = fn;
    u->fn_c = fn_c;
    u->commutative = commute != 0;
    const uintptr_t h = user_ops().insert(std::move(u));
    if (!h) return fail(OPF_ERR_NO_MEM, "%s: no memory for a new op", function);
    *op = reinterpret_cast<opf_op_t>(h);
    return OPF_SUCCESS;
}
} // namespace

const UserOp *find_user_op(opf_op_t op) { return user_ops().lookup(reinterpret_cast<uintptr_t>(op)); }
const UserOp *begin_user_op_use(opf_op_t op) { return user_ops().begin_use(reinterpret_cast<uintptr_t>(op)); }
void end_user_op_use(opf_op_t op) { user_ops().end_use(reinterpret_cast<uintptr_t>(op)); }

void release_all_user_ops() { user_ops().clear(); }

} // namespace opf

using namespace opf;

OPF_API int opf_op_create(opf_user_function *function, int commute, opf_op_t *op)
try {
    return create(function, nullptr, commute, op, "opf_op_create");
} catch (...) {
    return fail_exception("opf_op_create");
}

OPF_API int opf_op_create_c(opf_user_function_c *function, int commute, opf_op_t *op)
try {
    return create(nullptr, function, commute, op, "opf_op_create_c");
} catch (...) {
    return fail_exception("opf_op_create_c");
}

// Only marks the op for deallocation: calls in progress (its own callback
// included) finish on it.
OPF_API int opf_op_free(opf_op_t *op)
try {
    if (!op) return fail(OPF_ERR_ARG, "opf_op_free: op is NULL");
    if (*op == OPF_OP_NULL) return fail(OPF_ERR_OP, "opf_op_free: op is OP_NULL");
    if (int id = predefined_op_id(*op))
        return fail(OPF_ERR_OP, "opf_op_free: %s is predefined and cannot be freed", base::op_name(id));
    if (!user_ops().release(reinterpret_cast<uintptr_t>(*op)))
        return fail(OPF_ERR_OP, "opf_op_free: op is freed or invalid");
    *op = OPF_OP_NULL;
    return OPF_SUCCESS;
} catch (...) {
    return fail_exception("opf_op_free");
}

OPF_API int opf_op_commutative(opf_op_t op, int *commute)
{
    if (!commute) return fail(OPF_ERR_ARG, "opf_op_commutative: commute is NULL");
    if (predefined_op_id(op)) {
        // MPI declares every predefined op commutative, REPLACE and NO_OP
        // included (Open MPI flags them so too); collectives rely on it.
        *commute = 1;
        return OPF_SUCCESS;
    }
    const UserOpUse u(op);
    if (!u.get()) return fail(OPF_ERR_OP, "opf_op_commutative: op is null, freed or invalid");
    *commute = u.get()->commutative;
    return OPF_SUCCESS;
}

OPF_API const char *opf_op_name(opf_op_t op)
{
    if (op == OPF_OP_NULL) return "OP_NULL";
    if (int id = predefined_op_id(op)) return base::op_name(id);
    return find_user_op(op) ? "user" : nullptr;   // the handle's liveness only: the op is not read
}
