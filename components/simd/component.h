// component.h — the life cycle shared by the SIMD components: parameters,
// the hardware check, and the slot table generated from base/type_list.h.
// An ISA traits struct (opf_op_avx2.cpp, opf_op_avx512.cpp) supplies:
//
//   bytes                      register width in bytes
//   name, required, required_text, default_priority, support_words, support_help
//   granule                    masked tails come in multiples of this many bytes
//   load_partial, store_partial, widen_half, narrow_half
//   offers<Op, T>              false where the kernel was measured not to beat the base
//   adjust(op, module, support, x86)   per-feature variants of some slots
#pragma once

#include <cstddef>
#include <cstdio>

#include <opframe/component.h>
#include <opframe/introspect.h>
#include "components/simd/simd.h"

namespace opf::simd {

#include "components/simd/driver.inc"

struct SlotFns {
    opf_kernel2_fn *fn2 = nullptr;
    opf_kernel3_fn *fn3 = nullptr;
};
using SlotRow = std::array<SlotFns, OPF_KT_COUNT>;
using SlotTable = std::array<SlotRow, OPF_OPID_COUNT>;

// ---- the (op x kernel type) table, generated like base/kernels.cpp ---------------
template <class Isa, class Op, class T> constexpr SlotFns slot()
{
    using F = family_for<Op, T>;
    if constexpr (std::is_void_v<F>) return {};
    else if constexpr (!Isa::template offers<Op, T>) return {};
    else return {&kernel2<F, Isa>, &kernel3<F, Isa>};
}
template <class Isa, class Op, std::size_t... K> constexpr SlotRow row(std::index_sequence<K...>)
{
    return {slot<Isa, Op, base::at_t<K, base::KernelTypes>>()...};
}
template <class Isa, std::size_t... O> constexpr SlotTable make_table(std::index_sequence<O...>)
{
    return {row<Isa, base::at_t<O, base::Ops>>(std::make_index_sequence<OPF_KT_COUNT>{})...};
}
template <class Isa> inline constexpr SlotTable table = make_table<Isa>(std::make_index_sequence<OPF_OPID_COUNT>{});

// Number of slots a table offers (both halves count as one slot).
constexpr int offered_slots(const SlotTable &t)
{
    int n = 0;
    for (const SlotRow &r : t)
        for (const SlotFns &s : r) n += s.fn2 != nullptr;
    return n;
}

// ---- the life cycle ------------------------------------------------------------------
// These functions run before the component knows whether the CPU has its ISA
// (register_params, init_query) and the module file is built with -mavx2 /
// -mavx512*: compiled as they are, GCC may well use VEX or EVEX instructions
// to fill a struct, and the process would die of SIGILL instead of the
// component disqualifying itself. So they are compiled for baseline x86-64
// (SSE2). The kernels are only reachable through op_query, after init_query.
#pragma GCC push_options
#if defined(__x86_64__)   // (the aarch64 components have their own life cycle: components/aarch64/arm.h)
#pragma GCC target("no-sse3")
#endif

template <class Isa> struct Component {
    static inline int64_t priority = 0;
    static inline int64_t support = 0;   // bits of Isa::support_words
    static inline unsigned x86 = 0;      // hw->x86_features, seen at init_query

    static int register_params()
    {
        const opf_param_spec_t specs[] = {
            {Isa::priority_param, OPF_PARAM_INT, Isa::default_priority,
             "Priority of this SIMD component's offers (higher wins a slot; the base is below every component)", 3,
             OPF_PARAM_SETTABLE, nullptr, nullptr, &priority},
            {Isa::support_param, OPF_PARAM_FLAGS, Isa::support_words, Isa::support_help, 4, OPF_PARAM_SETTABLE,
             Isa::support_words, nullptr, &support},
        };
        for (const opf_param_spec_t &s : specs)
            if (opf_param_register(&s) != OPF_SUCCESS) return -1;
        return 0;
    }

    static int init_query(const opf_hw_info_t *hw, char *reason, std::size_t reason_len)
    {
        if (!hw || hw->struct_size < offsetof(opf_hw_info_t, x86_cpu_only) + sizeof hw->x86_cpu_only) {
            std::snprintf(reason, reason_len, "the framework's hardware description has no x86 features");
            return 1;
        }
        const unsigned missing = Isa::required & ~hw->x86_features;
        if (missing) {
            const unsigned cpu_lacks = missing & ~hw->x86_cpu_only;
            char names[160];
            opf_hw_format_features(cpu_lacks ? cpu_lacks : missing, names, sizeof names);
            if (cpu_lacks)
                std::snprintf(reason, reason_len, "the CPU lacks %s (%s needs %s)", names, Isa::name, Isa::required_text);
            else
                std::snprintf(reason, reason_len,
                              "the CPU has %s but the OS does not enable the register state they need "
                              "(XCR0, read with XGETBV)", names);
            return 1;
        }
        x86 = hw->x86_features;
        return 0;
    }

    static int op_query(int op_id, opf_module_t *module)
    {
        if (op_id <= 0 || op_id >= OPF_OPID_COUNT) return 1;
        module->priority = int(priority);
        module->memory_kind = OPF_MEM_HOST;
        const SlotRow &r = table<Isa>[op_id];
        for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
            module->fn2[kt] = r[kt].fn2;
            module->fn3[kt] = r[kt].fn3;
        }
        Isa::adjust(op_id, module, support, x86);
        for (int kt = 0; kt < OPF_KT_COUNT; ++kt)
            if (module->fn2[kt] || module->fn3[kt]) return 0;
        return 1;   // nothing for this op (REPLACE, NO_OP)
    }

    static constexpr opf_component_t descriptor = {
        .abi_version = OPF_COMPONENT_ABI_VERSION,
        .framework = OPF_FRAMEWORK_NAME,
        .name = Isa::name,
        .version = {1, 0, 0},
        .description = Isa::description,
        .register_params = register_params,
        .open = nullptr,
        .init_query = init_query,
        .op_query = op_query,
        .module_enable = nullptr,
        .module_release = nullptr,
        .memory_kind = nullptr,
        .close = nullptr,
    };
};

#pragma GCC pop_options

} // namespace opf::simd
