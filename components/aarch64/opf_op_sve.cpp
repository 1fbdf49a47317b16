// opf_op_sve.cpp — the sve<N> components: simd.h's kernels on SVE registers
// of a fixed length, N = OPF_SVE_BITS bits, one module per N (sve128,
// sve256, sve512, sve1024, sve2048). Build with -march=armv8.2-a+sve
// -msve-vector-bits=N -DOPF_SVE_BITS=N -ffp-contract=off -fno-fast-math.
//
// Why fixed-length builds, selected at run time
// ----------------------------------------------
// The kernels are GCC vector extensions of a size known at compile time;
// SVE's registers have a length known only at run time (128 to 2048 bits).
// GCC 12 compiles a vector type of N/8 bytes to whole SVE registers under
// -msve-vector-bits=N (PTRUE VLn, LD1W / ADD z / ST1W), and keeps the whole
// (op x type) matrix of simd.h, so each N is its own build of the same
// source, and the one whose N equals the vector length the kernel reports
// for this thread (prctl(PR_SVE_GET_VL), probed by the framework)
// qualifies; the others disqualify themselves with the length they saw. A
// vector-length-agnostic build would need every rule rewritten in ACLE
// intrinsics (svmax_x, svsel, ...): a second kernel source, which is what
// simd.h exists to avoid. The price: a module per length, and a program that
// changes its vector length after opf_init keeps the kernels of the old
// length (which would then be wrong: don't).
//
// Tails: one register under an SVE predicate (WHILELT on bytes, LD1B / ST1B),
// whatever the element size. float16: SVE has half-precision arithmetic
// (FEAT_FP16 is part of SVE), used natively (native_half.inc). bfloat16:
// simd.h's integer rounding (exact, and whole registers wide).
//
// Requires SVE in hw->arm_features and hw->arm_sve_vector_bits == N.
//
// Parameters (N is the build's length, e.g. op_sve256_priority):
//   op_sve<N>_priority   priority of its offers (default 50, above neon)
//   op_sve<N>_support    ISA features it may use (flags, default "fp16"):
//                          fp16  float16 in native half precision (off: through float conversions)
#include <arm_sve.h>

#include "components/aarch64/arm.h"

#if !defined(OPF_SVE_BITS) || !defined(__ARM_FEATURE_SVE_BITS) || __ARM_FEATURE_SVE_BITS != OPF_SVE_BITS
#error "opf_op_sve.cpp is built with -march=armv8.2-a+sve -msve-vector-bits=N -DOPF_SVE_BITS=N"
#endif

#define OPF_SVE_TEXT_(n) #n
#define OPF_SVE_TEXT(n) OPF_SVE_TEXT_(n)
#define OPF_SVE_NAME(suffix) "op_sve" OPF_SVE_TEXT(OPF_SVE_BITS) suffix

namespace opf::simd {

extern const SlotTable sve_table;   // its kernels, defined below

struct Sve {
    static constexpr std::size_t bytes = OPF_SVE_BITS / 8;
    static constexpr const char *name = "sve" OPF_SVE_TEXT(OPF_SVE_BITS);
    static constexpr const char *description =
        "SVE kernels for " OPF_SVE_TEXT(OPF_SVE_BITS) "-bit vectors: integers, float, double, float16 (native), "
        "bfloat16, complex, MAXLOC/MINLOC";
    static constexpr unsigned required = OPF_ARM_SVE;
    static constexpr const char *required_text = "SVE";
    static constexpr unsigned sve_bits = OPF_SVE_BITS;
    static constexpr const char *priority_param = OPF_SVE_NAME("_priority");
    static constexpr const char *default_priority = "50";
    static constexpr const char *support_param = OPF_SVE_NAME("_support");
    static constexpr const char *support_words = "fp16";
    static constexpr const char *support_help =
        "ISA features the SVE component may use (remove a word to switch it off): "
        "fp16 = float16 MAX/MIN/SUM/PROD in native half precision (off: through float conversions)";
    enum : int64_t { use_fp16 = 1 << 0 };

    // Tails: whole bytes under a WHILELT predicate; lanes past nbytes load as
    // zeros, are computed and never stored. (Through memory: GCC 12 has no
    // conversion between ACLE and GNU vector types.)
    static constexpr std::size_t granule = 1;
    template <class V> [[gnu::always_inline]] static V load_partial(const unsigned char *p, std::size_t nbytes)
    {
        V v;
        svst1_u8(svwhilelt_b8_u64(0, sizeof v), reinterpret_cast<uint8_t *>(&v),
                 svld1_u8(svwhilelt_b8_u64(0, nbytes), p));
        return v;
    }
    template <class V> [[gnu::always_inline]] static void store_partial(unsigned char *p, V v, std::size_t nbytes)
    {
        svst1_u8(svwhilelt_b8_u64(0, nbytes), p,
                 svld1_u8(svwhilelt_b8_u64(0, sizeof v), reinterpret_cast<const uint8_t *>(&v)));
    }

    // float16 <-> float on a register of floats. SVE's FCVT converts the
    // half in the low 16 bits of each 32-bit lane: zero-extend (UUNPKLO) /
    // truncate (UZP1) around it.
    using Floats = Vec<float, bytes>;
    using Words = Vec<uint32_t, bytes>;
    using Halves = Vec<uint16_t, bytes / 2>;
    typedef svfloat32_t SvFloats __attribute__((arm_sve_vector_bits(OPF_SVE_BITS)));
    typedef svuint32_t SvWords __attribute__((arm_sve_vector_bits(OPF_SVE_BITS)));
    [[gnu::always_inline]] static Floats widen_half(Halves h)
    {
        const SvWords w = SvWords(__builtin_convertvector(h, Words));
        return Floats(SvFloats(svcvt_f32_f16_x(svptrue_b32(), svreinterpret_f16_u32(w))));
    }
    [[gnu::always_inline]] static Halves narrow_half(Floats f)
    {
        const SvWords w = SvWords(svreinterpret_u32_f16(svcvt_f16_f32_x(svptrue_b32(), SvFloats(f))));
        return __builtin_convertvector(Words(w), Halves);
    }

    // fp8 at 2048 bits stays with the base: under qemu-aarch64 (-cpu
    // max,sve2048=on) GCC 12's code gave wrong codes from element 128 on,
    // systematically: MAX, then MIN once MAX was left out (E4M3 and E5M2;
    // the engine's report stopped at its print budget), while every other
    // slot and every other length is exact. All fp8 slots are left out. Suspect: the
    // byte shuffles that pack four registers of codes into one (more than 256
    // byte lanes across two registers do not fit 8-bit indices). Not yet
    // pinned on GCC or QEMU; no SVE hardware has 2048-bit vectors.
    // (Every 8-bit float: the FNUZ pair packs its codes the same way.)
    template <class Op, class T> static constexpr bool offers = !(OPF_SVE_BITS >= 2048 && base::is_narrow<T> && sizeof(T) == 1);
    static constexpr const SlotTable &table = sve_table;

    static void adjust(int op_id, SlotRow &row, int64_t support, unsigned arm);
};
// Constant-initialised: loading the module runs no ISA code.
constinit const SlotTable sve_table = isa_table<Sve>();

// float16 natively: the whole module is compiled for SVE, which includes
// half-precision arithmetic, so the kernels need no region of their own.
struct Edge {
    using H = Vec<HalfLane, Sve::bytes>;
    typedef svfloat16_t SvHalves __attribute__((arm_sve_vector_bits(OPF_SVE_BITS)));
    [[gnu::always_inline]] static H max(H a, H b) { return H(SvHalves(svmax_f16_x(svptrue_b16(), SvHalves(a), SvHalves(b)))); }
    [[gnu::always_inline]] static H min(H a, H b) { return H(SvHalves(svmin_f16_x(svptrue_b16(), SvHalves(a), SvHalves(b)))); }
};
#include "components/aarch64/native_half.inc"
constexpr const auto &native_half = native_half_slots<Sve>;

OPF_ARM_BASELINE_BEGIN
void Sve::adjust(int op_id, SlotRow &row, int64_t support, unsigned arm)
{
    install(row, support, arm, {OPF_KT_FLOAT16, use_fp16, OPF_ARM_SVE, native_half[op_id]});
}
OPF_ARM_BASELINE_END

} // namespace opf::simd

#define OPF_SVE_DECLARE_(n) OPF_COMPONENT_DECLARE(sve##n)
#define OPF_SVE_DECLARE(n) OPF_SVE_DECLARE_(n)
OPF_SVE_DECLARE(OPF_SVE_BITS) = opf::simd::ArmComponent<opf::simd::Sve>::descriptor;
