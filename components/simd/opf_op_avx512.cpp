// opf_op_avx512.cpp — the avx512 component: simd.h's kernels on 512-bit
// registers (avx512_kernels.cpp). This file is the life cycle, built WITHOUT
// ISA flags (component.h says why).
//
// Requires AVX-512 F, BW, VL and DQ in hw->x86_features (reported by CPUID
// and enabled by the OS). Two extensions are used where the CPU has them,
// each through functions compiled for it alone (a function-level target, so
// that nothing else in the module can pick up its instructions) and
// installed by op_query:
//   AVX512-FP16  float16 MAX/MIN/SUM/PROD natively in half precision
//                (vaddph, vmulph, vmaxph, vminph); otherwise through float
//                with AVX-512F vcvtph2ps / vcvtps2ph; and fp8 SUM, whose
//                binary16 sums (simd.h, Fp8SumViaHalf) it then does by
//                vaddph instead of through float;
//   AVX512-BF16  bfloat16 results rounded by vcvtne2ps2bf16, which takes
//                denormal floats for zeros (checked on all 2^32 floats: the
//                denormals are the only inputs that differ from
//                base::to_bfloat16), so a register of results holding a
//                denormal is rounded with integer instructions instead;
//                otherwise always with integer instructions.
//
// Parameters:
//   op_avx512_priority   priority of its offers (default 50)
//   op_avx512_support    ISA features it may use (flags, default "fp16,bf16"):
//                          fp16  AVX512-FP16 for float16 (off: float conversions)
//                          bf16  AVX512-BF16 for bfloat16 rounding (off: integer rounding)
//   op_avx512_min_bytes  smallest call it serves, bytes per buffer (size, default 128; smaller
//                        calls go to the base, FLOAT16 and BFLOAT16 excepted: component.h, min_count_for)
//   op_avx512_split_priority  priority of the kernels that are AVX2's in wider registers
//                        (widened_avx2) on a core that runs 512-bit operations as two
//                        halves (Zen 4; default 35, below avx2's 40)
#include "components/simd/component.h"
#include "components/simd/stream_offers.h"

namespace opf::simd {

struct Avx512 {
    static constexpr const char *name = "avx512";
    static constexpr const char *description =
        "AVX-512 kernels: integers, float, double, float16 (AVX512-FP16 where present), bfloat16, fp8, complex, "
        "MAXLOC/MINLOC, MX and NVFP4 blocks";
    static constexpr unsigned required = OPF_X86_AVX512F | OPF_X86_AVX512BW | OPF_X86_AVX512VL | OPF_X86_AVX512DQ;
    static constexpr const char *required_text = "AVX-512 F, BW, VL and DQ";
    static constexpr const char *priority_param = "op_avx512_priority";
    static constexpr const char *default_priority = "50";
    static constexpr const char *support_param = "op_avx512_support";
    static constexpr const char *min_bytes_param = "op_avx512_min_bytes";
    static constexpr const char *support_words = "fp16,bf16";
    static constexpr const char *split_priority_param = "op_avx512_split_priority";
    static constexpr const char *split_default = "35";
    static constexpr const char *split_help =
        "Priority of the avx512 kernels that are AVX2's in wider registers (integers, float, double and complex but "
        "LAND and 64-bit integer MAX, MIN and PROD; float16 SUM and PROD through float conversions) on a core that "
        "runs a 512-bit operation as two 256-bit halves (AMD Zen 4: opframe_info --hw says 'AVX-512 datapath: 256 "
        "bits'). There they took 1.0-1.4x avx2's time, so the default, 35, is below avx2's 40; elsewhere "
        "op_avx512_priority applies";

    // On a split datapath a 512-bit load or store moves no more bytes a cycle
    // than a 256-bit one, so a kernel that is AVX2's widened gains nothing and
    // its two halves cost issue slots. The kernels that use what AVX-512 adds
    // keep op_avx512_priority: LAND (the second compare under the first's
    // mask: three instructions a register where AVX2 takes five; 0.7-0.85x
    // avx2's time to 256 KiB on a Zen 4), 64-bit integer compares and
    // multiplies (AVX2 has none), float16 natively (AVX512-FP16) and its
    // MAX / MIN on the codes, bfloat16 and fp8 rounding, the pairs' blends,
    // the blocks.
    static bool widened_avx2(int op_id, int kt, unsigned x86)
    {
        const bool int64 = kt == OPF_KT_INT64 || kt == OPF_KT_UINT64;
        if (int64 && (op_id == OPF_OPID_MAX || op_id == OPF_OPID_MIN || op_id == OPF_OPID_PROD)) return false;
        if (kt == OPF_KT_FLOAT16)   // through float, as avx2's F16C kernels, unless vaddph / vmulph do it
            return (op_id == OPF_OPID_SUM || op_id == OPF_OPID_PROD) && !(x86 & OPF_X86_AVX512_FP16);
        const base::Nature nature = base::kernel_type_nature(kt);
        return op_id != OPF_OPID_LAND &&
               (nature == base::Nature::Integer || nature == base::Nature::Real || nature == base::Nature::Complex);
    }
    static constexpr const char *support_help =
        "ISA features the avx512 component may use where the CPU has them (remove a word to switch it off): "
        "fp16 = float16 MAX/MIN/SUM/PROD in native half precision and the binary16 sums of fp8 SUM (AVX512-FP16; off: "
        "through float conversions), "
        "bf16 = bfloat16 rounding by AVX512-BF16 vcvtne2ps2bf16, guarded against its flushing of denormals "
        "(off: integer rounding)";
    enum : int64_t { use_fp16 = 1 << 0, use_bf16 = 1 << 1 };
    static constexpr const SlotTable &table = avx512_table;
    // The streaming tier (stream_offers.h).
    static constexpr const char *stream_param = "op_avx512_stream_min_bytes";
    static constexpr const SlotTable &stream_table = avx512_stream_table;

    // The FP16 / BF16 kernels replace the plain ones where the CPU has the
    // extension and op_avx512_support allows it.
    static void adjust(int op_id, SlotRow &row, int64_t support, unsigned x86)
    {
        struct Variant {
            int kernel_type;
            int64_t word;
            unsigned feature;
            const SlotTable &table;
        };
        const Variant variants[] = {
            {OPF_KT_FLOAT16, use_fp16, OPF_X86_AVX512_FP16, avx512_fp16_table},
            {OPF_KT_FLOAT8_E4M3, use_fp16, OPF_X86_AVX512_FP16, avx512_fp16_table},   // SUM: binary16 sums by vaddph
            {OPF_KT_FLOAT8_E5M2, use_fp16, OPF_X86_AVX512_FP16, avx512_fp16_table},
            {OPF_KT_FLOAT8_E4M3FNUZ, use_fp16, OPF_X86_AVX512_FP16, avx512_fp16_table},
            {OPF_KT_FLOAT8_E5M2FNUZ, use_fp16, OPF_X86_AVX512_FP16, avx512_fp16_table},
            {OPF_KT_BFLOAT16, use_bf16, OPF_X86_AVX512_BF16, avx512_bf16_table},
        };
        for (const Variant &v : variants)
            if ((support & v.word) && (x86 & v.feature) && v.table[op_id][v.kernel_type].fn2)
                row[v.kernel_type] = v.table[op_id][v.kernel_type];
    }
};

} // namespace opf::simd

OPF_COMPONENT_DECLARE(avx512) = opf::simd::WithStreaming<opf::simd::Avx512>::descriptor;
