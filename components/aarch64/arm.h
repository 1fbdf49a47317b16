// arm.h — what the aarch64 components (neon, sve<N>) share: the slot table
// and the kernel loop of components/simd (component.h, driver.inc, simd.h:
// the same kernel source as avx2 / avx512), and a life cycle qualified by
// the Arm features of opf_hw_info_t (getauxval(AT_HWCAP / AT_HWCAP2) and the
// SVE vector length, probed by the framework).
//
// An Arm traits struct (opf_op_neon.cpp, opf_op_sve.cpp) supplies what
// components/simd/kernels.h lists (bytes, granule, load_partial,
// store_partial, widen_half, narrow_half, offers) and, for component.h's
// life cycle (Component<Isa, ArmCheck>):
//   name, description, required (OPF_ARM_* bits), required_text,
//   priority_param, default_priority, support_param, support_words, support_help,
//   table                              its kernels (isa_table of itself)
//   sve_bits                           the SVE vector length it is built for (0: any)
//   adjust(op, row, support, arm)      per-feature variants of some slots
// float16 <-> float conversions (widen_half / narrow_half: FCVTL / FCVTN,
// SVE FCVT) are base ARMv8, no FEAT_FP16; float -> half rounds by
// FPCR.RMode, nearest even unless the program changed it (the base's float
// arithmetic assumes the same), to IEEE half while FPCR.AHP = 0 (the default).
#pragma once

#include <cstddef>
#include <cstdio>

#include <opframe/component.h>
#include <opframe/introspect.h>

#if !defined(__aarch64__)
#error "components/aarch64 is built for aarch64 only"
#endif

// Life-cycle code (register_params, init_query, op_query, adjust) runs
// before the component knows the CPU has its ISA: an SVE module compiled
// with +sve could otherwise use SVE to fill a struct and die of SIGILL on a
// CPU without it instead of disqualifying itself. So it is compiled without
// SVE (NEON is part of every aarch64 Linux target): component.h's template
// is first seen here, inside the region, and its instantiations keep the
// region's target.
#if defined(__ARM_FEATURE_SVE)
#define OPF_ARM_BASELINE_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"+nosve\")")
#else
#define OPF_ARM_BASELINE_BEGIN _Pragma("GCC push_options")
#endif
#define OPF_ARM_BASELINE_END _Pragma("GCC pop_options")

OPF_ARM_BASELINE_BEGIN
#include "components/simd/component.h"
OPF_ARM_BASELINE_END
#include "components/simd/kernels.h"

namespace opf::simd {

OPF_ARM_BASELINE_BEGIN

// component.h's life cycle, qualified by the Arm features (and, for
// sve<N>, the SVE vector length) of opf_hw_info_t.
struct ArmCheck {
    template <class Isa>
    static int qualify(const opf_hw_info_t *hw, char *reason, std::size_t reason_len, unsigned &features)
    {
        if (!hw || hw->struct_size < offsetof(opf_hw_info_t, arm_sve_vector_bits) + sizeof hw->arm_sve_vector_bits) {
            std::snprintf(reason, reason_len, "the framework's hardware description has no Arm features");
            return 1;
        }
        if (const unsigned missing = Isa::required & ~hw->arm_features) {
            char names[160];
            opf_hw_format_arm_features(missing, names, sizeof names);
            std::snprintf(reason, reason_len, "the CPU lacks %s (%s needs %s)", names, Isa::name, Isa::required_text);
            return 1;
        }
        if (Isa::sve_bits && hw->arm_sve_vector_bits != Isa::sve_bits) {
            std::snprintf(reason, reason_len,
                          "the SVE vector length is %u bits; this build is for %u bits (-msve-vector-bits=%u)",
                          hw->arm_sve_vector_bits, unsigned(Isa::sve_bits), unsigned(Isa::sve_bits));
            return 1;
        }
        features = hw->arm_features;
        return 0;
    }
};
// No min_bytes parameter: every count is offered, as where the base
// overtakes NEON/SVE at tiny counts is not measured on Arm hardware (QEMU
// times nothing real).
template <class Isa> using ArmComponent = Component<Isa, ArmCheck>;

// Installs one kernel type's variant kernels (fns indexed by op id) where
// the support word is on, the CPU has the feature and the variant exists.
struct Variant {
    int kernel_type;
    int64_t word;
    unsigned feature;
    const SlotFns &fns;
};
inline void install(SlotRow &row, int64_t support, unsigned arm, const Variant &v)
{
    if ((support & v.word) && (arm & v.feature) == v.feature && v.fns.fn2) row[v.kernel_type] = v.fns;
}

OPF_ARM_BASELINE_END

} // namespace opf::simd
