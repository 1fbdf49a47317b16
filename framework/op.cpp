// op.cpp — the mixed kernel table and the user-op API.
#include "framework/op.h"

#include <cstring>
#include <memory>

#include "base/kernels.h"
#include "framework/datatype.h"
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
            for (int f = 0; f < base::kNaryForms; ++f) {
                opf_kernel_n_fn *fn = base::nary_kernels(op, kt).fn[f];
                s.nary[f] = {{fn, fn ? "base" : nullptr, 0}, nullptr, 0};
            }
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

// A PreMulSum op: a user op without callback, holding its kernel type and scalar.
static int create_premul(const void *scalar, opf_datatype_t datatype, opf_op_t *op)
{
    const char *function = "opf_op_create_premul";
    if (!op) return fail(OPF_ERR_ARG, "%s: op is NULL", function);
    if (int rc = ensure_initialized()) return rc;
    const TypeUse use(datatype);
    const Datatype *t = use.get();
    if (!t || datatype == OPF_DATATYPE_NULL) return fail(OPF_ERR_TYPE, "%s: the datatype is null, freed or invalid", function);
    if (!usable_ops(*t)) return fail(OPF_ERR_TYPE, "%s: the datatype %s is not committed or not supported by this build",
                                     function, opf_type_name(datatype));
    const int kt = t->kernel_type;
    if (kt < 0 || !(t->valid_ops & op_bit(OPF_OPID_SUM)) || !base::nary_kernels(OPF_OPID_SUM, kt).fn[base::kPremul])
        return fail(OPF_ERR_TYPE, "%s: PreMulSum needs an arithmetic datatype (integer, floating or complex); %s is not",
                    function, opf_type_name(datatype));
    if (!scalar) return fail(OPF_ERR_ARG, "%s: scalar is NULL", function);
    auto u = std::make_unique<UserOp>();
    u->premul_kt = kt;
    std::memcpy(u->scalar, scalar, std::size_t(base::kernel_type_data_size(kt)));
    const uintptr_t h = user_ops().insert(std::move(u));
    if (!h) return fail(OPF_ERR_NO_MEM, "%s: no memory for a new op", function);
    *op = reinterpret_cast<opf_op_t>(h);
    return OPF_SUCCESS;
}

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

OPF_API int opf_op_create_premul(const void *scalar, opf_datatype_t datatype, opf_op_t *op)
try {
    return create_premul(scalar, datatype, op);
} catch (...) {
    return fail_exception("opf_op_create_premul");
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
    const UserOpUse u(op);
    if (!u.get()) return nullptr;
    return u.get()->premul_kt >= 0 ? "PREMUL_SUM" : "user";
}
