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
//   adjust(op, row, support, features)  per-feature variants of some slots
//   and, optionally (avx512), split_priority_param and split_default with
//   widened_avx2(op, kernel_type, features): the slots whose kernels are AVX2's in
//   wider registers, offered at that priority on a core that executes
//   512-bit operations as two halves (opf_hw_info_t.x86_avx512_datapath_bits 256)
// The same template serves every architecture: its Check (X86Check below,
// ArmCheck, RiscvCheck) is the only architecture-specific part.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>

#include <opframe/component.h>
#include <opframe/introspect.h>
#include "base/matrix.h"
#include "base/type_description.h"

namespace opf::simd {

struct SlotFns {
    opf_kernel2_fn *fn2 = nullptr;
    opf_kernel3_fn *fn3 = nullptr;
    opf_kernel_n_fn *fn_n = nullptr;   // n-ary (driver.inc kernel_n)
    opf_kernel_n_fn *fn_n_once = nullptr;   // its OPF_ROUND_ONCE form where that differs (kernel_n_once)
    opf_kernel_n_fn *fn_premul = nullptr;   // PreMulSum, in SUM's row (kernel_n_arith)
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
// next provider (the base) does. A SIMD kernel ends with a masked partial
// register, and a masked store that the next call reads back (a 2-buffer
// reduction repeated into the same inout) cannot be forwarded: ~7 ns where
// the base's scalar tail costs 3. Measured on this machine (AMD EPYC, load
// ~9, ns per 2-buffer call, base / avx2 / avx512, in one run):
//   count 1:      SUM FLOAT 3.3 / 8.2 / 7.6   MAX DOUBLE 2.7 / 8.8 / 8.7   MAX INT32 2.4 / 7.8 / 6.9
//   SUM FLOAT:    68 B 3.5 / 8.0 / 7.6        132 B 4.6 / 8.0 / 7.6       260 B 10.3 / 11.2 / 8.4
//   MAX INT32:    68 B 3.8 / 7.5 / 7.0        124 B 10.2 / 10.0 / 7.2     192 B 14.9 / 6.1 / 6.3
//   MAX DOUBLE:   72 B 6.2 / 8.8 / 9.5        136 B 10.0 / 9.7 / 9.0      248 B 25.6 / 14.5 / 9.6
// (base: the vectorising base of the basevec branch; the base of main
// before it is slower on MAX from 40 B on). Where the base overtakes
// depends on the op; 128 bytes splits the difference: below it the base is
// at worst ~1.4x slower than a SIMD kernel (MAX INT32 at 124 B; 1.8x for SUM
// INT8 at an odd 127 B), above it a SIMD kernel at worst ~1.6x slower than
// the base (SUM FLOAT at 132 B, a masked tail against a vectorised loop). 3-buffer calls store to
// another buffer and pay less for the mask (avx512 SUM FLOAT count 1: 2.7
// against the base's 2.4). Measure a slot per count with
//   opframe_bench --op SUM --type FLOAT --sizes 4,16,64,68,128,132,256,260 --providers base,avx2,avx512,opframe
// FLOAT16 and BFLOAT16 are served from one element on: their base rounds
// through float one element at a time (SUM FLOAT16 count 3: 13.1 / 12.2 /
// 10.4; SUM BFLOAT16 count 32: 16.7 / 6.9 / 8.2). So are FLOAT8_E4M3 and
// FLOAT8_E5M2 (SUM FLOAT8_E4M3, base / avx2, ns: count 3 17.2 / 17.9,
// count 4 22.0 / 35.0, 8 41.3 / 35.9, 16 77.7 / 36.1, 64 667 / 40).
inline bool rounds_per_element(int kt) { return base::kernel_type_nature(kt) == base::Nature::Narrow; }
inline constexpr const char *component_min_bytes = "128";

// The offer's min_count for kernel type kt: the elements in min_bytes,
// rounded up; 0 (every count) when that is one element or less.
inline opf_count_t min_count_for(int kt, int64_t min_bytes)
{
    const int extent = opf_kernel_type_extent(kt);
    if (rounds_per_element(kt) || extent <= 0 || min_bytes <= extent) return 0;
    return (min_bytes + extent - 1) / extent;
}

// Offers a row's kernels (host memory, from min_count_for on) one kernel
// type at a time, each at priority_of(kernel_type); op_query's answer: 0
// when something was offered, 1 for nothing (REPLACE, NO_OP).
template <class PriorityOf>
inline int offer_row(opf_module_t *module, const SlotRow &row, PriorityOf priority_of, int64_t min_bytes)
{
    int offered = 0;
    for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
        if (!row[kt].fn2 && !row[kt].fn3 && !row[kt].fn_n && !row[kt].fn_n_once) continue;   // (AVG: n-ary kernels only)
        opf_offer_t offer{};
        offer.struct_size = sizeof offer;
        offer.kernel_type = kt;
        offer.priority = priority_of(kt);
        offer.min_count = min_count_for(kt, min_bytes);
        offer.kernel2 = row[kt].fn2;
        offer.kernel3 = row[kt].fn3;
        offer.kernel_n = row[kt].fn_n;
        offer.kernel_n_once = row[kt].fn_n_once;
        offer.premul_n = row[kt].fn_premul;
        offered += opf_module_offer(module, &offer) == OPF_SUCCESS;
    }
    return offered ? 0 : 1;
}

// The x86 hardware check of init_query: the ISA's features reported by
// CPUID and enabled by the OS (XGETBV). Other architectures bring their own
// (components/aarch64/arm.h, components/riscv/rvv.h): a struct with
//   qualify<Isa>(hw, reason, reason_len, features)  0 and the features the
//                                                   adjust hook sees, or 1 and why not
struct X86Check {
    template <class Isa>
    static int qualify(const opf_hw_info_t *hw, char *reason, std::size_t reason_len, unsigned &features)
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
        features = hw->x86_features;
        return 0;
    }
};

// Traits that name a min_bytes_param get it (x86: measured, component_min_bytes);
// the others offer every count.
template <class Isa> inline constexpr bool has_min_bytes_param = requires { Isa::min_bytes_param; };
template <class Isa> inline constexpr bool has_split_priority = requires { Isa::split_priority_param; };

template <class Isa, class Check = X86Check> struct Component {
    static inline int64_t priority = 0;
    static inline int64_t support = 0;   // bits of Isa::support_words
    static inline int64_t min_bytes = 0;
    static inline unsigned features = 0; // the ISA features seen at init_query (Check)
    static inline int64_t split_priority = 0;   // Isa::split_priority_param, where it has one
    static inline bool split_datapath = false;  // 512-bit operations run as two halves here

    // The priority of slot (op_id, kernel type kt): the component's, or on a
    // split datapath its split priority for the slots Isa::widened_avx2
    // names (the streaming tier adds 1 to either).
    static int priority_of(int op_id, int kt)
    {
        if constexpr (has_split_priority<Isa>)
            if (split_datapath && Isa::widened_avx2(op_id, kt, features)) return int(split_priority);
        return int(priority);
    }

    static int register_params()
    {
        const char *min_bytes_param = nullptr;
        if constexpr (has_min_bytes_param<Isa>) min_bytes_param = Isa::min_bytes_param;
        const opf_param_spec_t specs[] = {
            {Isa::priority_param, OPF_PARAM_INT, Isa::default_priority,
             "Priority of this SIMD component's offers (higher wins a slot; the base is below every component)", 3,
             OPF_PARAM_SETTABLE, nullptr, nullptr, &priority},
            {Isa::support_param, OPF_PARAM_FLAGS, Isa::support_words, Isa::support_help, 4, OPF_PARAM_SETTABLE,
             Isa::support_words, nullptr, &support},
            {min_bytes_param, OPF_PARAM_SIZE, component_min_bytes,
             "Smallest call, in bytes per buffer, that this component's kernels serve; smaller ones go to the next "
             "provider (the base): below one register a SIMD kernel is only its masked tail, slower than a scalar "
             "loop. 0: every count. FLOAT16, BFLOAT16 and the FLOAT8 types are served from one element on (their base "
             "rounds through float element by element)", 4,
             OPF_PARAM_SETTABLE, nullptr, nullptr, &min_bytes},
        };
        for (const opf_param_spec_t &s : specs)
            if (s.name && opf_param_register(&s) != OPF_SUCCESS) return -1;
        if constexpr (has_split_priority<Isa>) {
            const opf_param_spec_t split = {
                Isa::split_priority_param, OPF_PARAM_INT, Isa::split_default, Isa::split_help, 3, OPF_PARAM_SETTABLE,
                nullptr, nullptr, &split_priority};
            if (opf_param_register(&split) != OPF_SUCCESS) return -1;
        }
        return 0;
    }

    static int init_query(const opf_hw_info_t *hw, char *reason, std::size_t reason_len)
    {
        const int rc = Check::template qualify<Isa>(hw, reason, reason_len, features);
        split_datapath = rc == 0 &&
                         hw->struct_size >= offsetof(opf_hw_info_t, x86_avx512_datapath_bits) + sizeof(unsigned) &&
                         hw->x86_avx512_datapath_bits == 256;
        return rc;
    }

    static int op_query(int op_id, opf_module_t *module)
    {
        if (op_id <= 0 || op_id >= OPF_OPID_COUNT) return 1;
        SlotRow row;
        for (int kt = 0; kt < OPF_KT_COUNT; ++kt) row[kt] = Isa::table[op_id][kt];
        Isa::adjust(op_id, row, support, features);
        return offer_row(module, row, [op_id](int kt) { return priority_of(op_id, kt); }, min_bytes);
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
