// opf_op_avx512.cpp — the avx512 component: simd.h's kernels on 512-bit
// registers, tails under byte masks (vmovdqu8 {k}). Build with
// -mavx512f -mavx512bw -mavx512vl -mavx512dq -ffp-contract=off
// -fno-fast-math and WITHOUT -mfma.
//
// Requires AVX-512 F, BW, VL and DQ in hw->x86_features (reported by CPUID
// and enabled by the OS). Two extensions are used where the CPU has them,
// each through functions compiled for it alone (a function-level target, so
// that nothing else in the module can pick up its instructions) and
// installed by op_query:
//   AVX512-FP16  float16 MAX/MIN/SUM/PROD natively in half precision
//                (vaddph, vmulph, vmaxph, vminph); otherwise through float
//                with AVX-512F vcvtph2ps / vcvtps2ph;
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
#include <immintrin.h>

#include "components/simd/component.h"

#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VL__) || !defined(__AVX512DQ__)
#error "opf_op_avx512.cpp is built with -mavx512f -mavx512bw -mavx512vl -mavx512dq"
#endif
#if defined(__FMA__)
#error "opf_op_avx512.cpp is built without -mfma: the kernels must not contract a*b+c"
#endif
#if defined(__AVX512FP16__) || defined(__AVX512BF16__)
#error "opf_op_avx512.cpp is built without -mavx512fp16 / -mavx512bf16: only the functions that need them are"
#endif

namespace opf::simd {

struct Avx512 {
    static constexpr std::size_t bytes = 64;
    static constexpr const char *name = "avx512";
    static constexpr const char *description =
        "AVX-512 kernels: integers, float, double, float16 (AVX512-FP16 where present), bfloat16, complex, "
        "MAXLOC/MINLOC";
    static constexpr unsigned required = OPF_X86_AVX512F | OPF_X86_AVX512BW | OPF_X86_AVX512VL | OPF_X86_AVX512DQ;
    static constexpr const char *required_text = "AVX-512 F, BW, VL and DQ";
    static constexpr const char *priority_param = "op_avx512_priority";
    static constexpr const char *default_priority = "50";
    static constexpr const char *support_param = "op_avx512_support";
    static constexpr const char *support_words = "fp16,bf16";
    static constexpr const char *support_help =
        "ISA features the avx512 component may use where the CPU has them (remove a word to switch it off): "
        "fp16 = float16 MAX/MIN/SUM/PROD in native half precision (AVX512-FP16; off: through float conversions), "
        "bf16 = bfloat16 rounding by AVX512-BF16 vcvtne2ps2bf16, guarded against its flushing of denormals "
        "(off: integer rounding)";
    enum : int64_t { use_fp16 = 1 << 0, use_bf16 = 1 << 1 };

    // Tails: one register under a byte mask, whatever the element size.
    static constexpr std::size_t granule = 1;
    static __mmask64 byte_mask(std::size_t nbytes) { return nbytes >= 64 ? ~__mmask64(0) : (__mmask64(1) << nbytes) - 1; }
    // Registers of 64 or (float16 through float) 32 bytes.
    template <class V> [[gnu::always_inline]] static V load_partial(const unsigned char *p, std::size_t nbytes)
    {
        if constexpr (sizeof(V) == 64) return as<V>(_mm512_maskz_loadu_epi8(byte_mask(nbytes), p));
        else return as<V>(_mm256_maskz_loadu_epi8(__mmask32(byte_mask(nbytes)), p));
    }
    template <class V> [[gnu::always_inline]] static void store_partial(unsigned char *p, V v, std::size_t nbytes)
    {
        if constexpr (sizeof(V) == 64) _mm512_mask_storeu_epi8(p, byte_mask(nbytes), as<__m512i>(v));
        else _mm256_mask_storeu_epi8(p, __mmask32(byte_mask(nbytes)), as<__m256i>(v));
    }

    // float16 <-> float, 16 lanes; vcvtps2ph imm 0: round to nearest even. (The
    // maskz forms with an all-ones mask are the plain instructions, without
    // GCC 12's -Wmaybe-uninitialized on the unmasked forms' undefined source.)
    static constexpr __mmask16 all16 = 0xffff;
    [[gnu::always_inline]] static Vec<float, 64> widen_half(Vec<uint16_t, 32> h)
    {
        return as<Vec<float, 64>>(_mm512_maskz_cvtph_ps(all16, as<__m256i>(h)));
    }
    [[gnu::always_inline]] static Vec<uint16_t, 32> narrow_half(Vec<float, 64> f)
    {
        return as<Vec<uint16_t, 32>>(_mm512_maskz_cvtps_ph(all16, as<__m512>(f), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }

    // Slots measured not to beat the base with AVX-512 (see README.md).
    template <class Op, class T> static constexpr bool offers = true;

    static void adjust(int op_id, opf_module_t *module, int64_t support, unsigned x86);
};

// ---- float16 in native half precision (AVX512-FP16) ---------------------------------
// Compiled for avx512fp16 (function-level target), installed by adjust only
// where hw->x86_features has it. Exactly base::in_float: MAX/MIN pick an
// operand (or a NaN) and use the same rules as float; SUM and PROD round the
// exact result once in half precision, while the base rounds it first to
// float and then to half. The two agree because float has 24 >= 2*11 + 2
// significand bits, which makes the double rounding innocuous for + and *
// (Figueroa 1995); products of halves are even exact in float, and sums
// below the half normal range are exact in both. (Checked on all 2^32 pairs
// of halves for the four ops: check_narrow.cpp.)
#pragma GCC push_options
#pragma GCC target("avx512fp16")
namespace fp16 {

#include "components/simd/driver.inc"

template <class Rule> struct NativeHalf {
    using BaseT = base::Half;
    template <std::size_t R> using Reg = Vec<uint16_t, R>;
    template <class Isa, class V> [[gnu::always_inline]] static V compute(V a, V b)
    {
        using H = Vec<_Float16, sizeof(V)>;
        return as<V>(Rule::apply(as<H>(a), as<H>(b)));
    }
};

template <class Op> constexpr SlotFns slot()
{
    if constexpr (Op::template defined<base::Half> && !std::is_void_v<rule_of<Op>>) {
        using F = NativeHalf<rule_of<Op>>;
        return {&kernel2<F, Avx512>, &kernel3<F, Avx512>};
    } else {
        return {};
    }
}
template <std::size_t... O> constexpr std::array<SlotFns, OPF_OPID_COUNT> row(std::index_sequence<O...>)
{
    return {slot<base::at_t<O, base::Ops>>()...};
}
// Indexed by op id: the OPF_KT_FLOAT16 kernels.
constexpr auto slots = row(std::make_index_sequence<OPF_OPID_COUNT>{});

} // namespace fp16
#pragma GCC pop_options

// ---- bfloat16 rounded by AVX512-BF16 ----------------------------------------------------
// vcvtne2ps2bf16 rounds two registers of floats to nearest even in one
// instruction, exactly as base::to_bfloat16 except that it takes denormal
// floats for zeros (all 2^32 inputs checked: only denormals differ, NaN stays
// NaN). So each register of results is first classified (vfpclassps,
// denormal); one that holds a denormal is rounded by the integer path
// instead. The widening and the float rule are BFloat16ViaFloat's.
#pragma GCC push_options
#pragma GCC target("avx512bf16")
namespace bf16 {

#include "components/simd/driver.inc"

template <class Rule> struct GuardedBFloat16 : BFloat16ViaFloat<Rule> {
    using Via = BFloat16ViaFloat<Rule>;
    template <class Isa, class V> [[gnu::always_inline]] static V compute(V a, V b)
    {
        using M = Vec<int16_t, sizeof(V)>;
        // vpermw: the even results come packed first, the odd ones second
        constexpr M interleave = index_vector<M>([](std::size_t k) { return k / 2 + (k & 1) * lane_count<M> / 2; });
        const auto e = Rule::apply(Via::even(a), Via::even(b)), o = Rule::apply(Via::odd(a), Via::odd(b));
        constexpr int denormal = 0x20;
        if (__builtin_expect((_mm512_fpclass_ps_mask(as<__m512>(e), denormal) |
                              _mm512_fpclass_ps_mask(as<__m512>(o), denormal)) != 0, 0))
            return Via::template narrow<V>(e, o);
        const __m512bh packed = _mm512_cvtne2ps_pbh(as<__m512>(o), as<__m512>(e));   // low half: e
        return as<V>(_mm512_permutexvar_epi16(as<__m512i>(interleave), as<__m512i>(packed)));
    }
};

template <class Op> constexpr SlotFns slot()
{
    if constexpr (Op::template defined<base::BFloat16> && !std::is_void_v<rule_of<Op>>) {
        using F = WithOp<GuardedBFloat16<rule_of<Op>>, Op>;
        return {&kernel2<F, Avx512>, &kernel3<F, Avx512>};
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

#pragma GCC push_options
#pragma GCC target("no-sse3")   // runs from op_query: baseline code, like the rest of the life cycle
void Avx512::adjust(int op_id, opf_module_t *module, int64_t support, unsigned x86)
{
    struct Variant {
        int kernel_type;
        int64_t word;
        unsigned feature;
        const SlotFns &fns;
    };
    const Variant variants[] = {
        {OPF_KT_FLOAT16, use_fp16, OPF_X86_AVX512_FP16, fp16::slots[op_id]},
        {OPF_KT_BFLOAT16, use_bf16, OPF_X86_AVX512_BF16, bf16::slots[op_id]},
    };
    for (const Variant &v : variants)
        if ((support & v.word) && (x86 & v.feature) && v.fns.fn2) {
            module->fn2[v.kernel_type] = v.fns.fn2;
            module->fn3[v.kernel_type] = v.fns.fn3;
        }
}
#pragma GCC pop_options

} // namespace opf::simd

OPF_COMPONENT_DECLARE(avx512) = opf::simd::Component<opf::simd::Avx512>::descriptor;
