// opf_op_avx2.cpp — the avx2 component: simd.h's kernels on 256-bit
// registers. Build with -mavx2 -mf16c -ffp-contract=off -fno-fast-math and
// WITHOUT -mfma (no contraction can then happen, whatever the flags).
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
#include <immintrin.h>

#include "components/simd/component.h"

#if !defined(__AVX2__) || !defined(__F16C__)
#error "opf_op_avx2.cpp is built with -mavx2 -mf16c"
#endif
#if defined(__FMA__)
#error "opf_op_avx2.cpp is built without -mfma: the kernels must not contract a*b+c"
#endif

namespace opf::simd {

struct Avx2 {
    static constexpr std::size_t bytes = 32;
    static constexpr const char *name = "avx2";
    static constexpr const char *description =
        "AVX2 kernels: integers, float, double, float16 (F16C), bfloat16, complex, MAXLOC/MINLOC";
    static constexpr unsigned required = OPF_X86_AVX2 | OPF_X86_FMA | OPF_X86_F16C;
    static constexpr const char *required_text = "AVX2, FMA and F16C";
    static constexpr const char *priority_param = "op_avx2_priority";
    static constexpr const char *default_priority = "40";
    static constexpr const char *support_param = "op_avx2_support";
    static constexpr const char *support_words = "f16c";
    static constexpr const char *support_help =
        "ISA features the avx2 component may use (remove a word to switch it off): "
        "f16c = float16 MAX/MIN/SUM/PROD through F16C conversions (off: float16 stays with the base)";
    enum : int64_t { use_f16c = 1 << 0 };

    // Tails: vpmaskmovd, whole dwords (what is left below a dword: the base's scalar functor).
    static constexpr std::size_t granule = 4;
    // Registers of 32 or (float16) 16 bytes.
    template <class V> static V dword_mask(std::size_t nbytes)
    {
        const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(int(nbytes / 4)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        if constexpr (sizeof(V) == 32) return as<V>(m);
        else return as<V>(_mm256_castsi256_si128(m));
    }
    template <class V> [[gnu::always_inline]] static V load_partial(const unsigned char *p, std::size_t nbytes)
    {
        const auto *q = reinterpret_cast<const int *>(p);
        if constexpr (sizeof(V) == 32) return as<V>(_mm256_maskload_epi32(q, dword_mask<__m256i>(nbytes)));
        else return as<V>(_mm_maskload_epi32(q, dword_mask<__m128i>(nbytes)));
    }
    template <class V> [[gnu::always_inline]] static void store_partial(unsigned char *p, V v, std::size_t nbytes)
    {
        auto *q = reinterpret_cast<int *>(p);
        if constexpr (sizeof(V) == 32) _mm256_maskstore_epi32(q, dword_mask<__m256i>(nbytes), as<__m256i>(v));
        else _mm_maskstore_epi32(q, dword_mask<__m128i>(nbytes), as<__m128i>(v));
    }

    // float16 <-> float, 8 lanes; vcvtps2ph imm 0: round to nearest even.
    [[gnu::always_inline]] static Vec<float, 32> widen_half(Vec<uint16_t, 16> h)
    {
        return as<Vec<float, 32>>(_mm256_cvtph_ps(as<__m128i>(h)));
    }
    [[gnu::always_inline]] static Vec<uint16_t, 16> narrow_half(Vec<float, 32> f)
    {
        return as<Vec<uint16_t, 16>>(_mm256_cvtps_ph(as<__m256>(f), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }

    // Slots measured not to beat the base on AVX2 (see README.md).
    template <class Op, class T> static constexpr bool offers = true;

    static void adjust(int op_id, opf_module_t *module, int64_t support, unsigned x86);
};

#pragma GCC push_options
#pragma GCC target("no-sse3")   // runs from op_query: baseline code, like the rest of the life cycle
void Avx2::adjust(int, opf_module_t *module, int64_t support, unsigned)
{
    if (!(support & use_f16c)) {
        module->fn2[OPF_KT_FLOAT16] = nullptr;
        module->fn3[OPF_KT_FLOAT16] = nullptr;
    }
}
#pragma GCC pop_options

} // namespace opf::simd

OPF_COMPONENT_DECLARE(avx2) = opf::simd::Component<opf::simd::Avx2>::descriptor;
