// hwprobe.h — what the machine offers: x86 ISA (CPUID + XGETBV), Arm ISA
// (getauxval, prctl for the SVE vector length), the CPU
// model, and hwloc's view of cores, caches and accelerator devices.
#pragma once

#include <cstddef>

#include <opframe/component.h>

namespace opf {

// Fills all of *hw (struct_size included). Never fails and never prints:
// without hwloc, or when its topology does not load, counts come from
// sysconf and cache sizes stay 0 (hw->hwloc = 0). Returns OPF_SUCCESS.
// Also remembers the result for opf_hw_describe().
int probe_hardware(opf_hw_info_t *hw);

// Name of one OPF_X86_* bit, as /proc/cpuinfo spells it ("avx512_fp16");
// `bit` is the flag value, not its index. NULL for anything else.
const char *x86_feature_name(unsigned bit);

// Writes the names of the bits of `features`, space-separated in bit order
// ("sse2 sse4_1 avx ..."), or "none", into buf (always terminated when
// len > 0). Returns the length the full text needs, like snprintf.
std::size_t format_x86_features(unsigned features, char *buf, std::size_t len);

// The same for the OPF_ARM_* bits ("asimd fphp asimdhp sve sve2 bf16 svebf16").
std::size_t format_arm_features(unsigned features, char *buf, std::size_t len);

// The same for the OPF_RISCV_* bits ("v zvfhmin zvfh zvfbfmin zvfbfwma").
std::size_t format_riscv_features(unsigned features, char *buf, std::size_t len);

// Every feature name, comma-separated in bit order: the words of the
// op_base_isa_mask parameter, whose value masks the probed features.
const char *x86_feature_word_list();

} // namespace opf
