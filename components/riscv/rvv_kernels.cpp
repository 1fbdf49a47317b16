// rvv_kernels.cpp — the rvv<N> components' kernels on base V (RVV 1.0):
// simd.h's (op x kernel type) table, float16 excepted. Built with
// -march=rv64gcv_zvl<N>b -DOPF_RVV_BITS=N -ffp-contract=off -fno-fast-math.
#include "components/riscv/kernels.h"

namespace opf::simd {

constinit const SlotTable rvv_table = isa_table<RvvRegs>();

} // namespace opf::simd
