// component.h — the life cycle shared by the SIMD components: parameters,
// the hardware check and the offers. Compiled WITHOUT ISA flags (Open MPI's
// op/avx layout): register_params and init_query run before the component
// knows whether the CPU has its ISA, and a -mavx2 / -mavx512* build of them
// could fill a struct with VEX / EVEX instructions and die of SIGILL instead
// of disqualifying itself. The kernels live in <isa>_kernels.cpp, built with
// the ISA's flags (kernels.h), and reach the life cycle only as the constant
// tables declared below, read by op_query after init_query said yes.
//
// An ISA's life-cycle traits (opf_op_avx2.cpp, opf_op_avx512.cpp) supply:
//   name, description, required, required_text
//   priority_param, default_priority, support_param, support_words, support_help
//   min_bytes_param                     its op_<isa>_min_bytes (component_min_bytes says why and the default)
//   table                               its kernels' SlotTable
//   adjust(op, row, support, x86)       per-feature variants of some slots
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>

#include <opframe/component.h>
#include <opframe/introspect.h>
#include "base/matrix.h"

namespace opf::simd {

struct SlotFns {
    opf_kernel2_fn *fn2 = nullptr;
    opf_kernel3_fn *fn3 = nullptr;
};
using SlotTable = base::Matrix<SlotFns>;
using SlotRow = SlotFns[OPF_KT_COUNT];

// The tables the kernel files define (constant-initialised: loading the
// module runs no ISA code).
extern const SlotTable avx2_table;
extern const SlotTable avx512_table;
extern const SlotTable avx512_fp16_table;   // the OPF_KT_FLOAT16 column: AVX512-FP16
extern const SlotTable avx512_bf16_table;   // the OPF_KT_BFLOAT16 column: AVX512-BF16

// The smallest call a SIMD kernel serves, in bytes per buffer: below it the
// next provider (the base) does. Under one 64-byte register a SIMD kernel is
// nothing but its masked tail, and a masked store costs more than a short
// scalar loop: measured at 2-buffer count 1 (this machine, AMD EPYC, ns per
// call, base / avx2 / avx512): SUM FLOAT 3.3 / 8.2 / 7.6, MAX DOUBLE 2.7 /
// 8.8 / 8.7, MAX INT32 2.4 / 7.8 / 6.9; from 64 bytes on the SIMD body
// carries (SUM FLOAT at 64 B 4.1 / 3.5 / 4.2). FLOAT16 is the exception:
// the base converts every element in software, and the SIMD kernels are as
// fast from one element and 1.3-3x faster from three.
inline constexpr const char *component_min_bytes = "64";

// The offer's min_count for kernel type kt: the elements in min_bytes,
// rounded up; 0 (every count) when that is one element or less.
inline opf_count_t min_count_for(int kt, int64_t min_bytes)
{
    const int extent = opf_kernel_type_extent(kt);
    if (kt == OPF_KT_FLOAT16 || extent <= 0 || min_bytes <= extent) return 0;
    return (min_bytes + extent - 1) / extent;
}

// Offers a row's kernels (host memory, from min_count_for on) one kernel
// type at a time; op_query's answer: 0 when something was offered, 1 for
// nothing (REPLACE, NO_OP).
inline int offer_row(opf_module_t *module, const SlotRow &row, int priority, int64_t min_bytes)
{
    int offered = 0;
    for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
        if (!row[kt].fn2 && !row[kt].fn3) continue;
        opf_offer_t offer{};
        offer.struct_size = sizeof offer;
        offer.kernel_type = kt;
        offer.priority = priority;
        offer.min_count = min_count_for(kt, min_bytes);
        offer.kernel2 = row[kt].fn2;
        offer.kernel3 = row[kt].fn3;
        offered += opf_module_offer(module, &offer) == OPF_SUCCESS;
    }
    return offered ? 0 : 1;
}

template <class Isa> struct Component {
    static inline int64_t priority = 0;
    static inline int64_t support = 0;   // bits of Isa::support_words
    static inline int64_t min_bytes = 0;
    static inline unsigned x86 = 0;      // hw->x86_features, seen at init_query

    static int register_params()
    {
        const opf_param_spec_t specs[] = {
            {Isa::priority_param, OPF_PARAM_INT, Isa::default_priority,
             "Priority of this SIMD component's offers (higher wins a slot; the base is below every component)", 3,
             OPF_PARAM_SETTABLE, nullptr, nullptr, &priority},
            {Isa::support_param, OPF_PARAM_FLAGS, Isa::support_words, Isa::support_help, 4, OPF_PARAM_SETTABLE,
             Isa::support_words, nullptr, &support},
            {Isa::min_bytes_param, OPF_PARAM_SIZE, component_min_bytes,
             "Smallest call, in bytes per buffer, that this component's kernels serve; smaller ones go to the next "
             "provider (the base): below one register a SIMD kernel is only its masked tail, slower than a scalar "
             "loop. 0: every count. FLOAT16 is served from one element on (its base converts in software)", 4,
             OPF_PARAM_SETTABLE, nullptr, nullptr, &min_bytes},
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
        SlotRow row;
        for (int kt = 0; kt < OPF_KT_COUNT; ++kt) row[kt] = Isa::table[op_id][kt];
        Isa::adjust(op_id, row, support, x86);
        return offer_row(module, row, int(priority), min_bytes);
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
        .close = nullptr,
    };
};

} // namespace opf::simd
