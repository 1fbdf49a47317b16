// kernels.h — the rvv<N> components' ISA edge for simd.h's kernels (the
// same kernel source as avx2, avx512, neon and sve<N>): RVV 1.0 registers of
// a fixed width, N = OPF_RVV_BITS bits, one module per N. Included by the
// kernel files only (rvv_kernels.cpp, rvv_zvfh_kernels.cpp), which are
// built with -march=rv64gcv[_zvfh]_zvl<N>b; the life cycle (opf_op_rvv.cpp)
// is built without V and sees the kernels only as constant tables.
//
// Why fixed widths: simd.h's kernels are GCC vector types of a size known
// at compile time; an RVV register's width (VLEN) is known at run time.
// GCC 14 compiles a vector of N/8 bytes under Zvl<N>b to one register group
// of LMUL 1 (vsetivli with the element count, vle/vse, the arithmetic),
// and a register of half that width to LMUL 1/2 (float16 widening), so each
// N is its own build of the same source. A vector-length-agnostic build
// would need every rule rewritten in RVV intrinsics: a second kernel source.
#pragma once

#include <riscv_vector.h>

#include "components/simd/kernels.h"

#if !defined(OPF_RVV_BITS) || !defined(__riscv_v) || !defined(__riscv_v_min_vlen) || __riscv_v_min_vlen != OPF_RVV_BITS
#error "the rvv kernels are built with -march=rv64gcv_zvl<N>b -DOPF_RVV_BITS=N"
#endif

namespace opf::simd {

// The tables (external linkage: opf_op_rvv.cpp reads them).
extern const SlotTable rvv_table;        // rvv_kernels.cpp: base V
extern const SlotTable rvv_zvfh_table;   // rvv_zvfh_kernels.cpp: the OPF_KT_FLOAT16 column, Zvfh

struct RvvRegs {
    static constexpr std::size_t bytes = OPF_RVV_BITS / 8;

    // Tails: the first nbytes bytes by one vle8 / vse8 with vl = nbytes
    // (whole bytes, whatever the element size: granule 1); lanes past them
    // are zeros, computed and never stored. vl <= N/8, at most VLMAX of an
    // LMUL-1 byte register on any CPU this build qualifies on.
    static constexpr std::size_t granule = 1;
    template <class V> [[gnu::always_inline]] static V load_partial(const unsigned char *p, std::size_t nbytes)
    {
        V v{};
        __riscv_vse8_v_u8m1(reinterpret_cast<uint8_t *>(&v), __riscv_vle8_v_u8m1(p, nbytes), nbytes);
        return v;
    }
    template <class V> [[gnu::always_inline]] static void store_partial(unsigned char *p, V v, std::size_t nbytes)
    {
        __riscv_vse8_v_u8m1(p, __riscv_vle8_v_u8m1(reinterpret_cast<const uint8_t *>(&v), nbytes), nbytes);
    }

    // float16 needs vector conversions (Zvfhmin) or arithmetic (Zvfh): the
    // base V table leaves it to the base, the Zvfh table serves it
    // (rvv_zvfh_kernels.cpp). fp8 widens through float16 (simd.h's
    // Fp8ViaFloat calls widen_half), so it stays with the base too, as does
    // every narrow float of type_description.h but bfloat16. Everything
    // else is simd.h's, bfloat16 included (integer rounding, base V only).
    template <class T> static constexpr bool via_half = base::is_narrow<T> && !std::is_same_v<T, base::BFloat16>;
    template <class Op, class T> static constexpr bool offers = !via_half<T>;
    template <class Op, class T> struct Family { using type = void; };
};

} // namespace opf::simd
