// opf_op_rvv.cpp — the rvv<N> components: simd.h's kernels on RISC-V
// vector (RVV 1.0) registers of VLEN = N bits, one module per N (rvv128,
// rvv256, rvv512, rvv1024; kernels.h says why). This file is the life
// cycle, built WITHOUT V (-march=rv64gc): register_params and init_query
// run before the component knows the CPU has V, and a V build of them could
// fill a struct with vector stores and die of SIGILL instead of
// disqualifying itself (the x86 components' layout, components/simd/component.h).
// The kernels are rvv_kernels.cpp (base V) and rvv_zvfh_kernels.cpp (Zvfh).
//
// Qualifies where the framework's probe (framework/hwprobe.cpp) saw V in
// getauxval(AT_HWCAP) and a VLEN (CSR vlenb * 8) of exactly N bits;
// otherwise it disqualifies itself saying what it saw. The kernels would
// also be right on a longer VLEN (vsetivli sets vl to their own element
// count), but only VLEN = N is tested (QEMU, contrib/riscv64/check.sh), and
// one rule keeps one module per CPU, as sve<N> does.
//
// Serves, on every CPU it qualifies on, the slots of simd.h's table but
// float16: the 8 integer kernel types x MAX MIN SUM PROD LAND LOR LXOR BAND
// BOR BXOR; float, double, bfloat16 x MAX MIN SUM PROD (bfloat16 through
// float with integer rounding: exact, base V only); complex SUM / PROD; the
// 7 pair types but long double's x MAXLOC / MINLOC. float16 MAX MIN SUM
// PROD in half precision where the CPU has Zvfh; without Zvfh float16 stays
// with the base (V alone has no half-precision conversion).
//
// Parameters (N is the build's VLEN, e.g. op_rvv256_priority):
//   op_rvv<N>_priority   priority of its offers (default 50)
//   op_rvv<N>_support    ISA features it may use where the CPU has them
//                        (flags, default "zvfh"):
//                          zvfh  float16 MAX/MIN/SUM/PROD in half precision
//                                (off: float16 stays with the base)
#include "components/simd/component.h"

#if !defined(OPF_RVV_BITS)
#error "opf_op_rvv.cpp is built with -DOPF_RVV_BITS=N"
#endif
#if defined(__riscv_v) || defined(__riscv_zve32x)
#error "opf_op_rvv.cpp is the life cycle: built without V (-march=rv64gc)"
#endif

#define OPF_RVV_TEXT_(n) #n
#define OPF_RVV_TEXT(n) OPF_RVV_TEXT_(n)
#define OPF_RVV_NAME(suffix) "op_rvv" OPF_RVV_TEXT(OPF_RVV_BITS) suffix

namespace opf::simd {

extern const SlotTable rvv_table;        // rvv_kernels.cpp
extern const SlotTable rvv_zvfh_table;   // rvv_zvfh_kernels.cpp: the OPF_KT_FLOAT16 column

// component.h's life cycle, qualified by the RISC-V features and VLEN of opf_hw_info_t.
struct RiscvCheck {
    template <class Isa>
    static int qualify(const opf_hw_info_t *hw, char *reason, std::size_t reason_len, unsigned &features)
    {
        if (!hw || hw->struct_size < offsetof(opf_hw_info_t, riscv_vlen_bits) + sizeof hw->riscv_vlen_bits) {
            std::snprintf(reason, reason_len, "the framework's hardware description has no RISC-V features");
            return 1;
        }
        if (const unsigned missing = Isa::required & ~hw->riscv_features) {
            char names[160];
            opf_hw_format_riscv_features(missing, names, sizeof names);
            std::snprintf(reason, reason_len, "the CPU lacks %s (%s needs %s)", names, Isa::name, Isa::required_text);
            return 1;
        }
        if (hw->riscv_vlen_bits != Isa::vlen_bits) {
            std::snprintf(reason, reason_len, "VLEN is %u bits; this build is for %u bits (Zvl%ub)",
                          hw->riscv_vlen_bits, unsigned(Isa::vlen_bits), unsigned(Isa::vlen_bits));
            return 1;
        }
        features = hw->riscv_features;
        return 0;
    }
};

struct Rvv {
    static constexpr const char *name = "rvv" OPF_RVV_TEXT(OPF_RVV_BITS);
    static constexpr const char *description =
        "RISC-V vector (RVV 1.0) kernels for VLEN " OPF_RVV_TEXT(OPF_RVV_BITS) ": integers, float, double, "
        "float16 (Zvfh where present), bfloat16, complex, MAXLOC/MINLOC";
    static constexpr unsigned required = OPF_RISCV_V;
    static constexpr const char *required_text = "V (RVV 1.0)";
    static constexpr unsigned vlen_bits = OPF_RVV_BITS;
    static constexpr const char *priority_param = OPF_RVV_NAME("_priority");
    static constexpr const char *default_priority = "50";
    static constexpr const char *support_param = OPF_RVV_NAME("_support");
    static constexpr const char *support_words = "zvfh";
    static constexpr const char *support_help =
        "ISA features the rvv component may use where the CPU has them (remove a word to switch it off): "
        "zvfh = float16 MAX/MIN/SUM/PROD in half precision (Zvfh; off: float16 stays with the base)";
    enum : int64_t { use_zvfh = 1 << 0 };
    static constexpr const SlotTable &table = rvv_table;

    static void adjust(int op_id, SlotRow &row, int64_t support, unsigned riscv)
    {
        const SlotFns &half = rvv_zvfh_table[op_id][OPF_KT_FLOAT16];
        if ((support & use_zvfh) && (riscv & OPF_RISCV_ZVFH) && half.fn2) row[OPF_KT_FLOAT16] = half;
    }
};

} // namespace opf::simd

#define OPF_RVV_DECLARE_(n) OPF_COMPONENT_DECLARE(rvv##n)
#define OPF_RVV_DECLARE(n) OPF_RVV_DECLARE_(n)
OPF_RVV_DECLARE(OPF_RVV_BITS) = opf::simd::Component<opf::simd::Rvv, opf::simd::RiscvCheck>::descriptor;
