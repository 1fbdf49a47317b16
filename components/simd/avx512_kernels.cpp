// avx512_kernels.cpp — the avx512 component's kernels: simd.h's kernels on
// 512-bit registers, tails under byte masks (vmovdqu8 {k}). Built with
// -mavx512f -mavx512bw -mavx512vl -mavx512dq -ffp-contract=off
// -fno-fast-math and WITHOUT -mfma. The AVX512-FP16 and AVX512-BF16 kernels
// get function-level targets (a function only inlines code of its own
// target, hence driver.inc's second and third copies). Data only reaches the
// life cycle (opf_op_avx512.cpp, built without ISA flags): the constant
// tables below.
#include <immintrin.h>

#include "components/simd/kernels.h"

#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VL__) || !defined(__AVX512DQ__)
#error "avx512_kernels.cpp is built with -mavx512f -mavx512bw -mavx512vl -mavx512dq"
#endif
#if defined(__FMA__)
#error "avx512_kernels.cpp is built without -mfma: the kernels must not contract a*b+c"
#endif
#if defined(__AVX512FP16__) || defined(__AVX512BF16__)
#error "avx512_kernels.cpp is built without -mavx512fp16 / -mavx512bf16: only the functions that need them are"
#endif

namespace opf::simd {
namespace {

struct Avx512 {
    static constexpr std::size_t bytes = 64;
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
};

// ---- float16 in native half precision (AVX512-FP16) ---------------------------------
// Compiled for avx512fp16 (function-level target), installed by the life
// cycle's adjust only where hw->x86_features has it. Exactly base::in_float: MAX/MIN pick an
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

// The OPF_KT_FLOAT16 column.
struct Slots {
    template <std::size_t O, std::size_t K> static constexpr SlotFns entry()
    {
        using Op = base::at_t<O, base::Ops>;
        if constexpr (K == OPF_KT_FLOAT16 && Op::template defined<base::Half> && !std::is_void_v<rule_of<Op>>) {
            using F = NativeHalf<rule_of<Op>>;
            return {&kernel2<F, Avx512>, &kernel3<F, Avx512>};
        } else {
            return {};
        }
    }
};

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

// The OPF_KT_BFLOAT16 column.
struct Slots {
    template <std::size_t O, std::size_t K> static constexpr SlotFns entry()
    {
        using Op = base::at_t<O, base::Ops>;
        if constexpr (K == OPF_KT_BFLOAT16 && Op::template defined<base::BFloat16> && !std::is_void_v<rule_of<Op>>) {
            using F = WithOp<GuardedBFloat16<rule_of<Op>>, Op>;
            return {&kernel2<F, Avx512>, &kernel3<F, Avx512>};
        } else {
            return {};
        }
    }
};

} // namespace bf16
#pragma GCC pop_options

} // namespace

constinit const SlotTable avx512_table = isa_table<Avx512>();
constinit const SlotTable avx512_fp16_table = base::make_matrix<SlotFns, fp16::Slots>();
constinit const SlotTable avx512_bf16_table = base::make_matrix<SlotFns, bf16::Slots>();

} // namespace opf::simd
