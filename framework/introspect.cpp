// introspect.cpp — read-only views of the tables (include/opframe/introspect.h).
#include <opframe/introspect.h>

#include <cstdio>
#include <cstring>
#include <strings.h>

#include "base/kernels.h"
#include "framework/components.h"
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
try {
    const TypeUse use(datatype);   // another thread may free the handle meanwhile
    const Datatype *t = use.get();
    if (!t || !t->committed || !t->supported)
        return fail(OPF_ERR_TYPE, "opf_type_kernel_type: invalid, uncommitted or unsupported datatype");
    if (!kernel_type) return fail(OPF_ERR_ARG, "opf_type_kernel_type: kernel_type is NULL");
    *kernel_type = t->kernel_type;
    return OPF_SUCCESS;
} catch (...) {
    return fail_exception("opf_type_kernel_type");
}

OPF_API int opf_op_valid_for_type(opf_op_t op, opf_datatype_t datatype, int *valid)
try {
    if (!valid) return fail(OPF_ERR_ARG, "opf_op_valid_for_type: valid is NULL");
    const int id = predefined_op_id(op);
    if (!id && !find_user_op(op)) return fail(OPF_ERR_OP, "opf_op_valid_for_type: invalid op");
    const TypeUse use(datatype);
    const Datatype *t = use.get();
    if (!t || !t->committed || !t->supported)
        return fail(OPF_ERR_TYPE, "opf_op_valid_for_type: invalid, uncommitted or unsupported datatype");
    *valid = !id || (t->valid_ops & op_bit(id));   // a user op accepts any type
    return OPF_SUCCESS;
} catch (...) {
    return fail_exception("opf_op_valid_for_type");
}

OPF_API int opf_slot_exists(int op_id, int kt) { return valid_slot(op_id, kt); }

OPF_API int opf_slot_kernels(int op_id, int kt, const char *provider, opf_count_t count, opf_kernel2_fn **fn2,
                             opf_kernel3_fn **fn3)
try {
    if (!fn2 || !fn3) return fail(OPF_ERR_ARG, "opf_slot_kernels: NULL output pointer");
    *fn2 = nullptr;
    *fn3 = nullptr;
    if (!valid_slot(op_id, kt)) return fail(OPF_ERR_OP, "opf_slot_kernels: no slot (op %d, kernel type %d)", op_id, kt);
    if (int rc = ensure_initialized()) return rc;
    if (!provider) {
        const HostSlot &s = host_table.slot[op_id][kt];
        *fn2 = s.two.pick(count);
        *fn3 = s.three.pick(count);
        return OPF_SUCCESS;
    }
    if (std::strcmp(provider, "base") == 0) {
        *fn2 = base::kernels(op_id, kt).fn2;
        *fn3 = base::kernels(op_id, kt).fn3;
        return OPF_SUCCESS;
    }
    // A component may offer several size tiers for a slot, each half on its
    // own (a streaming tier may have a 3-buffer kernel only): per half, the
    // offer with the largest min_count <= count; below all of them, its
    // first tier (every kernel must be right at any count, and the
    // conformance engine checks each tier at every length it runs).
    const SlotCandidate *pick2 = nullptr, *pick3 = nullptr;
    auto better = [count](const SlotCandidate *old, const SlotCandidate &c) {
        if (!old) return true;
        if (c.min_count <= count) return old->min_count > count || c.min_count > old->min_count;
        return old->min_count > count && c.min_count < old->min_count;
    };
    for (const SlotCandidate &c : slot_candidates(op_id, OPF_MEM_HOST, kt)) {
        if (components()[c.component].name != provider) continue;
        if (c.fn2 && better(pick2, c)) pick2 = &c;
        if (c.fn3 && better(pick3, c)) pick3 = &c;
    }
    if (pick2 || pick3) {
        *fn2 = pick2 ? pick2->fn2 : nullptr;
        *fn3 = pick3 ? pick3->fn3 : nullptr;
        return OPF_SUCCESS;
    }
    for (const ComponentRecord &c : components())
        if (c.name == provider) return fail(OPF_ERR_ARG, "opf_slot_kernels: component \"%s\" offers nothing for %s %s",
                                            provider, base::op_name(op_id), base::kernel_type_name(kt));
    return fail(OPF_ERR_ARG, "opf_slot_kernels: unknown provider \"%s\"", provider);
} catch (...) {
    return fail_exception("opf_slot_kernels");
}

OPF_API int opf_slot_kernel_n(int op_id, int kt, int form, const char *provider, opf_count_t count, opf_kernel_n_fn **fn)
try {
    static_assert(int(OPF_FORM_COUNT) == int(base::kNaryForms), "introspect.h's forms are base::NaryForm");
    if (!fn) return fail(OPF_ERR_ARG, "opf_slot_kernel_n: NULL output pointer");
    *fn = nullptr;
    if (!valid_slot(op_id, kt) || form < 0 || form >= OPF_FORM_COUNT || !base::nary_kernels(op_id, kt).fn[form])
        return fail(OPF_ERR_OP, "opf_slot_kernel_n: no slot (op %d, kernel type %d, form %d)", op_id, kt, form);
    if (int rc = ensure_initialized()) return rc;
    if (!provider) {
        *fn = host_table.slot[op_id][kt].nary[form].pick(count);
        return OPF_SUCCESS;
    }
    if (std::strcmp(provider, "base") == 0) {
        *fn = base::nary_kernels(op_id, kt).fn[form];
        return OPF_SUCCESS;
    }
    using Field = opf_kernel_n_fn *SlotCandidate::*;
    constexpr Field fields[OPF_FORM_COUNT] = {&SlotCandidate::fn_n, &SlotCandidate::fn_n_once, &SlotCandidate::fn_premul,
                                              &SlotCandidate::fn_premul_once};
    const SlotCandidate *pick = nullptr;   // as opf_slot_kernels: the largest min_count <= count, else the first tier
    for (const SlotCandidate &c : slot_candidates(op_id, OPF_MEM_HOST, kt)) {
        if (components()[c.component].name != provider || !(c.*fields[form])) continue;
        if (!pick || (c.min_count <= count ? pick->min_count > count || c.min_count > pick->min_count
                                           : pick->min_count > count && c.min_count < pick->min_count))
            pick = &c;
    }
    if (pick) {
        *fn = pick->*fields[form];
        return OPF_SUCCESS;
    }
    return fail(OPF_ERR_ARG, "opf_slot_kernel_n: provider \"%s\" offers no %s kernel for %s %s", provider,
                base::nary_form_name(form), base::op_name(op_id), base::kernel_type_name(kt));
} catch (...) {
    return fail_exception("opf_slot_kernel_n");
}

OPF_API const char *opf_slot_provider_n(int op_id, int kt, int form, opf_count_t count)
try {
    if (!valid_slot(op_id, kt) || form < 0 || form >= OPF_FORM_COUNT || !base::nary_kernels(op_id, kt).fn[form] ||
        ensure_initialized())
        return nullptr;
    return host_table.slot[op_id][kt].nary[form].offer_for(count).provider;
} catch (...) {
    fail_exception("opf_slot_provider_n");
    return nullptr;
}

OPF_API const char *opf_slot_provider_mem(int op_id, int kt, int mem, int nbuf, opf_count_t count)
try {
    if (!valid_slot(op_id, kt) || (nbuf != 2 && nbuf != 3) || ensure_initialized() || mem < 0 ||
        mem >= memory_kind_count())
        return nullptr;
    if (mem == OPF_MEM_HOST) {
        const HostSlot &s = host_table.slot[op_id][kt];
        return nbuf == 2 ? s.two.offer_for(count).provider : s.three.offer_for(count).provider;
    }
    const DeviceSlot &s = device_tables[std::size_t(mem - 1)].slot[op_id][kt];
    return nbuf == 2 ? s.two.offer_for(count).provider : s.three.offer_for(count).provider;
} catch (...) {
    fail_exception("opf_slot_provider_mem");
    return nullptr;
}

OPF_API const char *opf_slot_provider(int op_id, int kt, int nbuf, opf_count_t count)
try {
    return opf_slot_provider_mem(op_id, kt, OPF_MEM_HOST, nbuf, count);
} catch (...) {
    fail_exception("opf_slot_provider");
    return nullptr;
}

OPF_API int opf_slot_explain(int op_id, int kt, int mem, int nbuf, char *buf, int len)
try {
    if (!buf || len <= 0 || (nbuf != 2 && nbuf != 3)) return fail(OPF_ERR_ARG, "opf_slot_explain: bad argument");
    if (!valid_slot(op_id, kt)) return fail(OPF_ERR_OP, "opf_slot_explain: no slot (op %d, kernel type %d)", op_id, kt);
    if (int rc = ensure_initialized()) return rc;
    if (mem < 0 || mem >= memory_kind_count())
        return fail(OPF_ERR_ARG, "opf_slot_explain: memory kind %d is not registered (%d known)", mem,
                    memory_kind_count());
    std::snprintf(buf, std::size_t(len), "%s", explain_slot(op_id, mem, kt, nbuf).c_str());
    return OPF_SUCCESS;
} catch (...) {
    return fail_exception("opf_slot_explain");
}

OPF_API int opf_component_count(void)
try {
    ensure_initialized();
    return int(components().size());
} catch (...) {
    return fail_exception("opf_component_count");
}

OPF_API int opf_component_describe(int index, opf_component_info_t *info)
try {
    if (!info || index < 0 || index >= int(components().size()))
        return fail(OPF_ERR_ARG, "opf_component_describe: no component %d", index);
    const ComponentRecord &c = components()[std::size_t(index)];
    info->name = c.name.c_str();
    info->path = c.path.c_str();
    info->description = c.component->description ? c.component->description : "";
    info->status = c.status_text.c_str();
    info->available = c.state == ComponentState::Available;
    for (int i = 0; i < 3; ++i) info->version[i] = c.component->version[i];
    info->abi_version = c.component->abi_version;
    return OPF_SUCCESS;
} catch (...) {
    return fail_exception("opf_component_describe");
}

OPF_API int opf_failed_count(void)
try {
    ensure_initialized();
    return int(failed_files().size());
} catch (...) {
    return fail_exception("opf_failed_count");
}

OPF_API int opf_failed_describe(int index, opf_failed_info_t *info)
try {
    if (!info || index < 0 || index >= int(failed_files().size()))
        return fail(OPF_ERR_ARG, "opf_failed_describe: no failed file %d", index);
    info->path = failed_files()[std::size_t(index)].path.c_str();
    info->reason = failed_files()[std::size_t(index)].reason.c_str();
    return OPF_SUCCESS;
} catch (...) {
    return fail_exception("opf_failed_describe");
}

// ---- memory kinds by name, stream kernels -------------------------------------
// (the kinds themselves are registered at run time: components.cpp)

namespace {
bool valid_mem(int mem) { return mem >= 0 && mem < memory_kind_count(); }
} // namespace

// opf_memory_kind_lookup's case-insensitive twin for tools: -1 when unknown.
OPF_API int opf_memory_kind_by_name(const char *name)
try {
    for (int mem = 0; name && mem < memory_kind_count(); ++mem)
        if (strcasecmp(name, memory_kind_name(mem)) == 0) return mem;
    return -1;
} catch (...) {
    return fail_exception("opf_memory_kind_by_name");
}

OPF_API const char *opf_slot_stream_provider(int op_id, int kt, int mem, int nbuf, opf_count_t count)
try {
    if (!valid_slot(op_id, kt) || (nbuf != 2 && nbuf != 3) || ensure_initialized() || !valid_mem(mem) ||
        mem == OPF_MEM_HOST)   // host memory has no stream kernels
        return nullptr;
    const DeviceSlot &s = device_tables[std::size_t(mem - 1)].slot[op_id][kt];
    return nbuf == 2 ? s.stream2.offer_for(count).provider : s.stream3.offer_for(count).provider;
} catch (...) {
    fail_exception("opf_slot_stream_provider");
    return nullptr;
}

OPF_API const char *opf_slot_provider_n_mem(int op_id, int kt, int mem, int form, int stream, opf_count_t count)
try {
    if (!valid_slot(op_id, kt) || (form != OPF_FORM_N && form != OPF_FORM_N_ONCE) || !base::nary_kernels(op_id, kt).fn[form] ||
        ensure_initialized() || !valid_mem(mem) || mem == OPF_MEM_HOST)
        return nullptr;
    const DeviceSlot &s = device_tables[std::size_t(mem - 1)].slot[op_id][kt];
    return stream ? s.stream_nary[form].offer_for(count).provider : s.nary[form].offer_for(count).provider;
} catch (...) {
    fail_exception("opf_slot_provider_n_mem");
    return nullptr;
}

OPF_API int opf_slot_explain_stream(int op_id, int kt, int mem, int nbuf, char *buf, int len)
try {
    if (!buf || len <= 0 || (nbuf != 2 && nbuf != 3) || mem < 0)
        return fail(OPF_ERR_ARG, "opf_slot_explain_stream: bad argument");
    if (!valid_slot(op_id, kt))
        return fail(OPF_ERR_OP, "opf_slot_explain_stream: no slot (op %d, kernel type %d)", op_id, kt);
    if (int rc = ensure_initialized()) return rc;
    if (!valid_mem(mem))
        return fail(OPF_ERR_ARG, "opf_slot_explain_stream: memory kind %d is not registered (%d known)", mem,
                    memory_kind_count());
    std::snprintf(buf, std::size_t(len), "%s", explain_slot(op_id, mem, kt, nbuf, true).c_str());
    return OPF_SUCCESS;
} catch (...) {
    return fail_exception("opf_slot_explain_stream");
}

// ---- size tiers of a slot (the Open MPI bridge) ------------------------------

namespace {
// A slot half's tiers in ascending min_count: its all-sizes offer, then the
// large-count offers (kept in descending order for pick()).
template <class Fn>
int write_tiers(const SlotHalf<Fn> &half, Fn *opf_slot_tier_t::*fn, opf_slot_tier_t *tiers, int max)
{
    const int n = 1 + half.n_larger;
    for (int i = 0; i < n && i < max; ++i) {
        const Offer<Fn> &o = i == 0 ? half.offer : half.larger[half.n_larger - i];
        tiers[i] = {o.min_count, o.provider, nullptr, nullptr};
        tiers[i].*fn = o.fn;
    }
    return n;
}
} // namespace

OPF_API int opf_slot_tiers(int op_id, int kt, int nbuf, opf_slot_tier_t *tiers, int max, int *ntiers)
try {
    if (!ntiers || (nbuf != 2 && nbuf != 3) || max < 0 || (!tiers && max > 0))
        return fail(OPF_ERR_ARG, "opf_slot_tiers: bad argument (nbuf %d, max %d, %s)", nbuf, max,
                    ntiers ? "ntiers set" : "ntiers NULL");
    if (!valid_slot(op_id, kt)) return fail(OPF_ERR_OP, "opf_slot_tiers: no slot (op %d, kernel type %d)", op_id, kt);
    if (int rc = ensure_initialized()) return rc;
    const HostSlot &s = host_table.slot[op_id][kt];
    *ntiers = nbuf == 2 ? write_tiers(s.two, &opf_slot_tier_t::fn2, tiers, max)
                        : write_tiers(s.three, &opf_slot_tier_t::fn3, tiers, max);
    return OPF_SUCCESS;
} catch (...) {
    return fail_exception("opf_slot_tiers");
}

// ---- which counts each provider serves: the one text of every listing -------
// (opframe_info --explain and --kernels, the Open MPI bridge's verbose line and
// its op_opframe_kernels_* variables)

namespace opf {
namespace {
template <class Fn> std::vector<TierSpan> spans_of(const SlotHalf<Fn> &half)
{
    const Offer<Fn> &first = half.offer;
    std::vector<TierSpan> spans{{first.provider, 0, -1, first.offered_from, first.pinned, first.chains_three}};
    for (int i = half.n_larger - 1; i >= 0; --i) {   // `larger` is in descending min_count
        const Offer<Fn> &o = half.larger[i];
        spans.back().to = o.min_count;
        spans.push_back({o.provider, o.min_count, -1, o.offered_from, o.pinned, o.chains_three});
    }
    return spans;
}
} // namespace

std::vector<TierSpan> slot_spans(int op_id, int mem, int kt, int nbuf, bool stream)
{
    if (mem == OPF_MEM_HOST) {
        if (stream) return {{nullptr, 0, -1}};   // host memory has no stream kernels
        const HostSlot &s = host_table.slot[op_id][kt];
        return nbuf == 2 ? spans_of(s.two) : spans_of(s.three);
    }
    const DeviceSlot &s = device_tables[std::size_t(mem - 1)].slot[op_id][kt];
    if (stream) return nbuf == 2 ? spans_of(s.stream2) : spans_of(s.stream3);
    return nbuf == 2 ? spans_of(s.two) : spans_of(s.three);
}

std::vector<TierSpan> slot_spans_n(int op_id, int kt, int form)
{
    const SlotHalf<opf_kernel_n_fn> &half = host_table.slot[op_id][kt].nary[form];
    if (!half.offer.fn) return {};
    return spans_of(half);
}

std::string counts_served(const std::vector<TierSpan> &spans, const std::string &provider, opf_count_t min_count)
{
    std::string out;
    for (const TierSpan &t : spans) {
        if (!t.provider || provider != t.provider || (min_count >= 0 && t.offered_from != min_count)) continue;
        const std::string from = std::to_string(t.from), below = std::to_string(t.to);
        const std::string range = t.from == 0 && t.to < 0 ? "every count"
                                  : t.from == 0           ? "counts < " + below
                                  : t.to < 0              ? "counts >= " + from
                                                          : "counts " + from + " to " + std::to_string(t.to - 1);
        out += (out.empty() ? "" : " and ") + range + (t.pinned ? std::string(" (pinned ") + t.pinned + ")" : "");
    }
    return out;
}

std::string spans_text(const std::vector<TierSpan> &spans)
{
    std::vector<TierSpan> merged;   // a provider's consecutive offers read as one range
    for (const TierSpan &t : spans) {
        const bool same = !merged.empty() && merged.back().provider && t.provider &&
                          std::strcmp(merged.back().provider, t.provider) == 0 && merged.back().pinned == t.pinned &&
                          merged.back().chains_three == t.chains_three;
        if (same) merged.back().to = t.to;
        else merged.push_back(t);
    }
    std::string out;
    for (const TierSpan &t : merged) {
        out += out.empty() ? "" : ",";
        out += t.provider ? t.provider : "none";
        if (t.chains_three) out += "(chain)";
        // a band pin in the pin's own syntax: no blank in the list (the Open
        // MPI bridge's op_opframe_kernels_* separates slots with blanks)
        if (t.pinned) out += std::string("@") + t.pinned;
        if (t.from > 0) out += ">=" + std::to_string(t.from);
        if (t.to >= 0) out += "<" + std::to_string(t.to);
    }
    return out;
}
} // namespace opf

OPF_API int opf_slot_tiers_text(int op_id, int kt, int mem, int nbuf, int stream, char *buf, int len)
try {
    if (!buf || len <= 0 || (nbuf != 2 && nbuf != 3))
        return fail(OPF_ERR_ARG, "opf_slot_tiers_text: bad argument (nbuf %d, len %d%s)", nbuf, len, buf ? "" : ", buf NULL");
    if (!valid_slot(op_id, kt)) return fail(OPF_ERR_OP, "opf_slot_tiers_text: no slot (op %d, kernel type %d)", op_id, kt);
    if (int rc = ensure_initialized()) return rc;
    if (!valid_mem(mem))
        return fail(OPF_ERR_ARG, "opf_slot_tiers_text: memory kind %d is not registered (%d known)", mem,
                    memory_kind_count());
    std::snprintf(buf, std::size_t(len), "%s", spans_text(slot_spans(op_id, mem, kt, nbuf, stream != 0)).c_str());
    return OPF_SUCCESS;
} catch (...) {
    return fail_exception("opf_slot_tiers_text");
}

OPF_API int opf_slot_tiers_text_n(int op_id, int kt, int form, char *buf, int len)
try {
    if (!buf || len <= 0 || form < 0 || form >= OPF_FORM_COUNT)
        return fail(OPF_ERR_ARG, "opf_slot_tiers_text_n: bad argument (form %d, len %d%s)", form, len, buf ? "" : ", buf NULL");
    if (!valid_slot(op_id, kt)) return fail(OPF_ERR_OP, "opf_slot_tiers_text_n: no slot (op %d, kernel type %d)", op_id, kt);
    if (int rc = ensure_initialized()) return rc;
    const std::vector<TierSpan> spans = slot_spans_n(op_id, kt, form);
    if (spans.empty())
        return fail(OPF_ERR_OP, "opf_slot_tiers_text_n: %s %s has no n-ary form %d", base::op_name(op_id),
                    base::kernel_type_name(kt), form);
    std::snprintf(buf, std::size_t(len), "%s", spans_text(spans).c_str());
    return OPF_SUCCESS;
} catch (...) {
    return fail_exception("opf_slot_tiers_text_n");
}

// ---- the one "same value" comparator (base/compare.h), for tests -------------

OPF_API int opf_kernel_type_first_difference(int kt, const void *a, const void *b, opf_count_t n,
                                             opf_count_t *index)
try {
    if (!index) return fail(OPF_ERR_ARG, "opf_kernel_type_first_difference: index is NULL");
    if (!valid_kt(kt) || !base::kernel_type_supported(kt))
        return fail(OPF_ERR_ARG, "opf_kernel_type_first_difference: unknown kernel type %d", kt);
    if (n < 0) return fail(OPF_ERR_ARG, "opf_kernel_type_first_difference: negative count %lld", (long long)n);
    if (n > 0 && (!a || !b)) return fail(OPF_ERR_ARG, "opf_kernel_type_first_difference: NULL buffer");
    *index = n > 0 ? base::first_difference(kt, a, b, n) : -1;
    return OPF_SUCCESS;
} catch (...) {
    return fail_exception("opf_kernel_type_first_difference");
}
