// opf_op_avx2.cpp — the avx2 component: simd.h's kernels on 256-bit
// registers.
//
// Requires AVX2, FMA and F16C (the x86-64-v3 level; FMA itself is never
// used) in hw->x86_features, i.e. reported by CPUID and enabled by the OS.
//
// Parameters:
//   op_avx2_priority   priority of its offers (default 40)
//   op_avx2_support    ISA features it may use (flags, default "f16c"):
//                        f16c  float16 MAX/MIN/SUM/PROD through F16C
//                              vcvtph2ps / vcvtps2ph; without it float16
//                              stays with the base
//   op_avx2_min_bytes  smallest call it serves, bytes per buffer (size, default 128;
//                      smaller calls go to the base, FLOAT16, BFLOAT16 and FLOAT8_* excepted: component.h,
//                      min_count_for)
//
// This file is the life cycle, built WITHOUT ISA flags (component.h says
// why); the kernels are in avx2_kernels.cpp.
#include "components/simd/component.h"
#include "components/simd/stream_offers.h"

namespace opf::simd {

struct Avx2 {
    static constexpr const char *name = "avx2";
    static constexpr const char *description =
        "AVX2 kernels: integers, float, double, float16 (F16C), bfloat16, fp8, complex, MAXLOC/MINLOC, MX and NVFP4 blocks";
    static constexpr unsigned required = OPF_X86_AVX2 | OPF_X86_FMA | OPF_X86_F16C;
    static constexpr const char *required_text = "AVX2, FMA and F16C";
    static constexpr const char *priority_param = "op_avx2_priority";
    static constexpr const char *default_priority = "40";
    static constexpr const char *support_param = "op_avx2_support";
    static constexpr const char *min_bytes_param = "op_avx2_min_bytes";
    static constexpr const char *support_words = "f16c";
    static constexpr const char *support_help =
        "ISA features the avx2 component may use (remove a word to switch it off): "
        "f16c = float16 MAX/MIN/SUM/PROD through F16C conversions (off: float16 stays with the base)";
    enum : int64_t { use_f16c = 1 << 0 };
    static constexpr const SlotTable &table = avx2_table;
    // The streaming tier (stream_offers.h).
    static constexpr const char *stream_param = "op_avx2_stream_min_bytes";
    static constexpr const SlotTable &stream_table = avx2_stream_table;

    static void adjust(int, SlotRow &row, int64_t support, unsigned)
    {
        if (!(support & use_f16c)) row[OPF_KT_FLOAT16] = {};
    }
};

} // namespace opf::simd

OPF_COMPONENT_DECLARE(avx2) = opf::simd::WithStreaming<opf::simd::Avx2>::descriptor;
