// rvv_zvfh_kernels.cpp — the rvv<N> components' float16 kernels with Zvfh
// (vector half-precision arithmetic): MAX / MIN / SUM / PROD on _Float16
// lanes, simd.h's rules as they stand (RMax / RMin compare and blend, so NaN
// propagates and -0 < +0 as in the base; vfmax / vfmin would return the
// number of a NaN-and-number pair). SUM and PROD round the exact result once
// in half precision, where the base rounds it to float and then to half:
// the two agree because float has 24 >= 2*11 + 2 significand bits
// (Figueroa 1995; components/aarch64/native_half.inc and
// components/simd/check_narrow.cpp say the same for FEAT_FP16 and
// AVX512-FP16). A NaN result is RISC-V's canonical NaN (any NaN matches
// any NaN). Built with -march=rv64gcv_zvfh_zvl<N>b: only this file's
// code may use Zvfh, installed by op_query where the CPU has it.
#include "components/riscv/kernels.h"

#if !defined(__riscv_zvfh)
#error "rvv_zvfh_kernels.cpp is built with -march=rv64gcv_zvfh_zvl<N>b"
#endif

namespace opf::simd {
namespace {

struct RvvZvfh : RvvRegs {
    template <class Op, class T> static constexpr bool offers = std::is_same_v<T, base::Half>;
    template <class Op, class T> struct Family { using type = void; };
    template <class Op>
        requires(Op::template defined<base::Half> && !std::is_void_v<rule_of<Op>>)
    struct Family<Op, base::Half> { using type = Lanes<rule_of<Op>, _Float16, Op, base::Half>; };
};

} // namespace

// Only the OPF_KT_FLOAT16 column is filled.
constinit const SlotTable rvv_zvfh_table = isa_table<RvvZvfh>();

} // namespace opf::simd
