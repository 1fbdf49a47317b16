// opf_op_neon.cpp — the neon component: simd.h's kernels on 128-bit
// Advanced SIMD registers. Build for plain armv8-a with -ffp-contract=off
// -fno-fast-math (aarch64 has FMA instructions; no contraction may use them).
//
// Requires ASIMD in hw->arm_features (every aarch64 Linux system has it).
// Two extensions are used where the CPU has them, each through functions
// compiled for it alone (a target region, so nothing else in the module can
// pick up its instructions) and installed by op_query:
//   FEAT_FP16 (ASIMDHP)  float16 MAX/MIN/SUM/PROD natively in half precision
//                        (native_half.inc); otherwise through float with
//                        FCVTL / FCVTN;
//   FEAT_BF16 (BF16)     bfloat16 results rounded by BFCVTN / BFCVTN2, which
//                        round to nearest even like base::to_bfloat16 (NaN
//                        stays a quiet NaN with its top payload; denormals are
//                        kept while FPCR.FZ is 0, the default); otherwise by
//                        integer instructions (simd.h's BFloat16ViaFloat).
//
// Tails: NEON has no masked loads or stores, so the last partial register
// goes through a zeroed register on the stack (memcpy of its bytes), and is
// computed by the same rule as the rest.
//
// Parameters:
//   op_neon_priority   priority of its offers (default 40)
//   op_neon_support    ISA features it may use where the CPU has them
//                      (flags, default "fp16,bf16"):
//                        fp16  FEAT_FP16 half-precision arithmetic for float16
//                        bf16  FEAT_BF16 BFCVTN for bfloat16 rounding
#include <arm_neon.h>

#include "components/aarch64/arm.h"

#if defined(__ARM_FEATURE_SVE) || defined(__ARM_FEATURE_FP16_VECTOR_ARITHMETIC) || defined(__ARM_FEATURE_BF16)
#error "opf_op_neon.cpp is built for plain armv8-a: only the functions that need FP16 / BF16 get them"
#endif

namespace opf::simd {

extern const SlotTable neon_table;   // its kernels, defined below

struct Neon {
    static constexpr std::size_t bytes = 16;
    static constexpr const char *name = "neon";
    static constexpr const char *description =
        "Advanced SIMD (NEON) kernels: integers, float, double, float16 (FEAT_FP16 where present), bfloat16 "
        "(FEAT_BF16 where present), complex, MAXLOC/MINLOC";
    static constexpr unsigned required = OPF_ARM_ASIMD;
    static constexpr const char *required_text = "Advanced SIMD (asimd)";
    static constexpr unsigned sve_bits = 0;
    static constexpr const char *priority_param = "op_neon_priority";
    static constexpr const char *default_priority = "40";
    static constexpr const char *support_param = "op_neon_support";
    static constexpr const char *support_words = "fp16,bf16";
    static constexpr const char *support_help =
        "ISA features the neon component may use where the CPU has them (remove a word to switch it off): "
        "fp16 = float16 MAX/MIN/SUM/PROD in native half precision (FEAT_FP16; off: through float conversions), "
        "bf16 = bfloat16 rounding by FEAT_BF16 BFCVTN (off: integer rounding)";
    enum : int64_t { use_fp16 = 1 << 0, use_bf16 = 1 << 1 };

    // Tails through a zeroed register (lanes past nbytes are computed, never stored).
    static constexpr std::size_t granule = 1;
    template <class V> [[gnu::always_inline]] static V load_partial(const unsigned char *p, std::size_t nbytes)
    {
        V v{};
        __builtin_memcpy(&v, p, nbytes);
        return v;
    }
    template <class V> [[gnu::always_inline]] static void store_partial(unsigned char *p, V v, std::size_t nbytes)
    {
        __builtin_memcpy(p, &v, nbytes);
    }

    // float16 <-> float, 4 lanes: FCVTL / FCVTN (base ARMv8).
    [[gnu::always_inline]] static Vec<float, 16> widen_half(Vec<uint16_t, 8> h)
    {
        return as<Vec<float, 16>>(vcvt_f32_f16(as<float16x4_t>(h)));
    }
    [[gnu::always_inline]] static Vec<uint16_t, 8> narrow_half(Vec<float, 16> f)
    {
        return as<Vec<uint16_t, 8>>(vcvt_f16_f32(as<float32x4_t>(f)));
    }

    template <class Op, class T> static constexpr bool offers = true;
    static constexpr const SlotTable &table = neon_table;

    static void adjust(int op_id, SlotRow &row, int64_t support, unsigned arm);
};
// Constant-initialised: loading the module runs no ISA code.
constinit const SlotTable neon_table = isa_table<Neon>();

// ---- float16 in native half precision (FEAT_FP16) ------------------------------------
#pragma GCC push_options
#pragma GCC target("arch=armv8.2-a+fp16")
namespace fp16 {
#include "components/simd/driver.inc"
struct Edge {
    using H = Vec<HalfLane, 16>;
    [[gnu::always_inline]] static H max(H a, H b) { return as<H>(vmaxq_f16(as<float16x8_t>(a), as<float16x8_t>(b))); }
    [[gnu::always_inline]] static H min(H a, H b) { return as<H>(vminq_f16(as<float16x8_t>(a), as<float16x8_t>(b))); }
};
#include "components/aarch64/native_half.inc"
constexpr const auto &slots = native_half_slots<Neon>;   // instantiated here, for +fp16
} // namespace fp16
#pragma GCC pop_options

// ---- bfloat16 rounded by FEAT_BF16 -------------------------------------------------------
// A register of 8 bfloat16 widens into two registers of floats (a bfloat16
// is the high half of its float: interleave with zeros), the float rule,
// then BFCVTN / BFCVTN2 round both back into one register.
#pragma GCC push_options
#pragma GCC target("arch=armv8.2-a+bf16")
namespace bf16 {
#include "components/simd/driver.inc"

template <class Rule, class Op> struct RoundedByBfcvtn {
    using BaseOp = Op;
    using BaseT = base::BFloat16;
    template <std::size_t R> using Reg = Vec<uint16_t, R>;
    template <class Isa, class V> [[gnu::always_inline]] static V compute(V a, V b)
    {
        static_assert(sizeof(V) == 16);
        using F = Vec<float, 16>;
        using M = Vec<int16_t, 16>;
        constexpr M low = {8, 0, 8, 1, 8, 2, 8, 3}, high = {8, 4, 8, 5, 8, 6, 8, 7};   // lane 8: a zero
        const V zero{};
        const F lo = Rule::apply(as<F>(__builtin_shuffle(a, zero, low)), as<F>(__builtin_shuffle(b, zero, low)));
        const F hi = Rule::apply(as<F>(__builtin_shuffle(a, zero, high)), as<F>(__builtin_shuffle(b, zero, high)));
        return as<V>(vcvtq_high_bf16_f32(vcvtq_low_bf16_f32(as<float32x4_t>(lo)), as<float32x4_t>(hi)));
    }
};

template <class Op> constexpr SlotFns slot()
{
    if constexpr (Op::template defined<base::BFloat16> && !std::is_void_v<rule_of<Op>>) {
        using F = RoundedByBfcvtn<rule_of<Op>, Op>;
        return {&kernel2<F, Neon>, &kernel3<F, Neon>, &kernel_n<F, Neon>};
    } else {
        return {};
    }
}
template <std::size_t... O> constexpr std::array<SlotFns, OPF_OPID_COUNT> row(std::index_sequence<O...>)
{
    return {slot<base::at_t<O, base::Ops>>()...};
}
// Indexed by op id: the OPF_KT_BFLOAT16 kernels.
constexpr auto slots = row(std::make_index_sequence<OPF_OPID_COUNT>{});
} // namespace bf16
#pragma GCC pop_options

OPF_ARM_BASELINE_BEGIN
void Neon::adjust(int op_id, SlotRow &row, int64_t support, unsigned arm)
{
    install(row, support, arm, {OPF_KT_FLOAT16, use_fp16, OPF_ARM_ASIMDHP, fp16::slots[op_id]});
    install(row, support, arm, {OPF_KT_BFLOAT16, use_bf16, OPF_ARM_BF16, bf16::slots[op_id]});
}
OPF_ARM_BASELINE_END

} // namespace opf::simd

OPF_COMPONENT_DECLARE(neon) = opf::simd::ArmComponent<opf::simd::Neon>::descriptor;
