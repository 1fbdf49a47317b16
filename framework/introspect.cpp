// introspect.cpp — read-only views of the tables (include/opframe/introspect.h).
#include <opframe/introspect.h>

#include <cstring>

#include "base/kernels.h"
#include "framework/datatype.h"
#include "framework/error.h"
#include "framework/op.h"
#include "framework/runtime.h"

using namespace opf;

namespace {
bool valid_kt(int kt) { return kt >= 0 && kt < OPF_KT_COUNT; }
bool valid_slot(int op_id, int kt)
{
    return op_id > 0 && op_id < OPF_OPID_COUNT && valid_kt(kt) && base::kernels(op_id, kt).fn2;
}
} // namespace

OPF_API const char *opf_kernel_type_name(int kt) { return valid_kt(kt) ? base::kernel_type_name(kt) : nullptr; }

OPF_API int opf_kernel_type_extent(int kt) { return valid_kt(kt) ? base::kernel_type_extent(kt) : 0; }

OPF_API int opf_type_kernel_type(opf_datatype_t datatype, int *kernel_type)
{
    const Datatype *t = find_type(datatype);
    if (!t || !t->committed || !t->supported)
        return fail(OPF_ERR_TYPE, "opf_type_kernel_type: invalid, uncommitted or unsupported datatype");
    if (!kernel_type) return fail(OPF_ERR_ARG, "opf_type_kernel_type: kernel_type is NULL");
    *kernel_type = t->kernel_type;
    return OPF_SUCCESS;
}

OPF_API int opf_op_valid_for_type(opf_op_t op, opf_datatype_t datatype, int *valid)
{
    if (!valid) return fail(OPF_ERR_ARG, "opf_op_valid_for_type: valid is NULL");
    const int id = predefined_op_id(op);
    if (!id && !find_user_op(op)) return fail(OPF_ERR_OP, "opf_op_valid_for_type: invalid op");
    const Datatype *t = find_type(datatype);
    if (!t || !t->committed || !t->supported)
        return fail(OPF_ERR_TYPE, "opf_op_valid_for_type: invalid, uncommitted or unsupported datatype");
    *valid = !id || (t->valid_ops & op_bit(id));   // a user op accepts any type
    return OPF_SUCCESS;
}

OPF_API int opf_slot_exists(int op_id, int kt) { return valid_slot(op_id, kt); }

OPF_API int opf_slot_kernels(int op_id, int kt, const char *provider, opf_count_t count, opf_kernel2_fn **fn2,
                             opf_kernel3_fn **fn3)
{
    if (!fn2 || !fn3) return fail(OPF_ERR_ARG, "opf_slot_kernels: NULL output pointer");
    *fn2 = nullptr;
    *fn3 = nullptr;
    if (!valid_slot(op_id, kt)) return fail(OPF_ERR_OP, "opf_slot_kernels: no slot (op %d, kernel type %d)", op_id, kt);
    if (int rc = ensure_initialized()) return rc;
    if (!provider) {
        const Slot &s = op_table[op_id][OPF_MEM_HOST][kt];
        *fn2 = s.two.pick(count);
        *fn3 = s.three.pick(count);
        return OPF_SUCCESS;
    }
    if (std::strcmp(provider, "base") == 0) {
        *fn2 = base::kernels(op_id, kt).fn2;
        *fn3 = base::kernels(op_id, kt).fn3;
        return OPF_SUCCESS;
    }
    return fail(OPF_ERR_ARG, "opf_slot_kernels: unknown provider \"%s\"", provider);
}

OPF_API const char *opf_slot_provider(int op_id, int kt, int nbuf, opf_count_t count)
{
    if (!valid_slot(op_id, kt) || (nbuf != 2 && nbuf != 3) || ensure_initialized()) return nullptr;
    const Slot &s = op_table[op_id][OPF_MEM_HOST][kt];
    return nbuf == 2 ? s.two.offer_for(count).provider : s.three.offer_for(count).provider;
}
