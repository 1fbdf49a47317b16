// mx.h — the SIMD kernels of the OCP MX block formats (base/mx.h states the
// rule; this is a faster way to the same bits). Included by kernels.h into
// each ISA's kernel file: registers of Isa::bytes (AVX2 32, AVX-512 64).
//
// A result block is computed in 32-bit integer lanes when that is exact:
// every input element is an integer number of steps of 2^qmin (E4M3 below
// 2^18, E3M2 2^9, E2M3 2^6, E2M1 2^4, INT8 2^8 in magnitude); the inputs
// are aligned to the smallest scale of the block's inputs, so an input of
// scale s is shifted left by s - s_min; the sum of k of them fits 31 bits
// when steps_bits + (s_max - s_min) + ceil(log2 k) <= 30. Then every
// result is an exact integer, its floor(log2) exact through a float
// conversion (exact below 2^24: a larger amax takes the fallback), and the
// rounding to nearest even is integer shifts with the exact sticky bits.
// Any other block (a NaN scale, a non-finite element, scales too far apart,
// AVG of a k that is not a power of two, amax >= 2^24) is computed by
// base::mx_reduce itself, the rule's own code: the same result by
// construction. MXFP8_E5M2 (steps up to 2^32) always would be: not offered.
#pragma once

#include "base/mx.h"
#include "base/semantics.h"
#include "components/simd/block_calls.h"
#if defined(__x86_64__)
#include "components/simd/nvfp4.h"
#endif

namespace opf::simd::mx {

using base::MxBlock;
using base::MxOp;

// Bits of the largest |steps| (floats: (2^mb | m) << (e_field - 1) with e_field at most 2^E - 1).
template <class F> constexpr int steps_bits = F::is_int ? 8 : F::mbits + (1 << F::ebits) - 1;
// The E8M0 formats but E5M2 (the lanes below are the E8M0 rule's).
template <class F> constexpr bool has_fast = F::scale == base::BlockScale::E8M0 && !(F::special == 2);
static_assert(steps_bits<base::MxE4M3> == 18 && steps_bits<base::MxE3M2> == 9 && steps_bits<base::MxE2M3> == 6 &&
              steps_bits<base::MxE2M1> == 4);

template <class F, class Isa> struct Kernels : BlockCalls<Kernels<F, Isa>, sizeof(MxBlock<F>)> {
    static_assert(F::scale == base::BlockScale::E8M0 && F::length == 32, "simd::mx: the E8M0 rule's 32-element blocks");
    static constexpr int W = int(Isa::bytes / 4);   // int32 lanes per register
    static constexpr int R = 32 / W;                // registers per block
    using I = Vec<int32_t, Isa::bytes>;
    using U8 = Vec<uint8_t, Isa::bytes / 4>;
    using Fl = Vec<float, Isa::bytes>;
    static constexpr std::size_t B = sizeof(MxBlock<F>);

    // The codes of element j*W .. j*W+W-1 as int32 lanes.
    [[gnu::always_inline]] static I codes(const uint8_t *block, const uint8_t *unpacked, int j)
    {
        const uint8_t *p = (F::bits == 8 ? block + 1 : unpacked) + j * W;
#if defined(__x86_64__) || defined(__i386__)
        // vpmovzxbd: GCC 12 builds __builtin_convertvector of a byte vector lane by lane (vpinsrd)
        using B16 = Vec<uint8_t, 16>;
        using B8 = Vec<uint8_t, 8>;
        if constexpr (W == 16) {
            B16 c;
            std::memcpy(&c, p, sizeof c);
            return as<I>(__builtin_ia32_pmovzxbd512_mask(as<Vec<char, 16>>(c), as<Vec<int, 64>>(I{}), 0xffff));
        } else if constexpr (W == 8) {
            Vec<long long, 16> c = {};
            std::memcpy(&c, p, sizeof(B8));
            return as<I>(__builtin_ia32_pmovzxbd256((Vec<char, 16>)c));
        } else
#endif
        {   // other ISAs (the aarch64 and riscv64 components include this file too)
            Vec<uint8_t, W> c;
            std::memcpy(&c, p, sizeof c);
            return __builtin_convertvector(c, I);
        }
    }
    [[gnu::always_inline]] static I steps(I c)
    {
        if constexpr (F::is_int) {
            return (c ^ 0x80) - 0x80;
        } else {
            const I mag = c & int32_t(F::sign_bit - 1);
            const I e = mag >> F::mbits, m = mag & int32_t((1 << F::mbits) - 1);
            const I normal = (m | (1 << F::mbits)) << (e - 1);
            const I v = e == 0 ? m : normal;
            return (c & int32_t(F::sign_bit)) != 0 ? -v : v;
        }
    }

    // One result block of k inputs; false: not exact in lanes (the caller
    // runs base::mx_reduce).
    template <int K = 0>
    [[gnu::always_inline]] static bool fast_block(const uint8_t *const in[], int k_, uint8_t *out, MxOp op, bool mean)
    {
        const int k = K ? K : k_;   // (K: known at compile time, the 2- and 3-buffer kernels)
        int smin = 255, smax = -1;
        for (int j = 0; j < k; ++j) {
            const int s = in[j][0];
            smin = s < smin ? s : smin;
            smax = s > smax ? s : smax;
        }
        const int log2k = k <= 1 ? 0 : 32 - __builtin_clz(unsigned(k - 1));   // ceil(log2 k)
        if (smax == base::kMxNanScale || steps_bits<F> + (smax - smin) + (op == MxOp::Sum ? log2k : 0) > 30) return false;
        if (mean && (k & (k - 1))) return false;
        I acc[R];
        I bad = {};
        for (int j = 0; j < k; ++j) {
            alignas(64) uint8_t unpacked[32];
            if constexpr (F::bits != 8)
                for (int i = 0; i < 32; ++i) unpacked[i] = uint8_t(base::mx_code<F>(in[j], i));
            const int shift = in[j][0] - smin;
            for (int r = 0; r < R; ++r) {
                const I c = codes(in[j], unpacked, r);
                if constexpr (F::special == 1) bad |= (c & 0x7f) == 0x7f;
                const I v = steps(c) << shift;
                if (j == 0) acc[r] = v;
                else if (op == MxOp::Sum) acc[r] += v;
                else if (op == MxOp::Max) acc[r] = v > acc[r] ? v : acc[r];
                else acc[r] = v < acc[r] ? v : acc[r];
            }
        }
        I mag[R], amax = bad & (1 << 30);   // a non-finite element: past 2^24, the fallback
        for (int r = 0; r < R; ++r) {
            mag[r] = acc[r] < 0 ? -acc[r] : acc[r];
            amax = mag[r] > amax ? mag[r] : amax;
        }
        // the largest lane: a butterfly of log2(W) permutes (vpermd) and maxima
        I lane;
        for (int l = 0; l < W; ++l) lane[l] = l;
        for (int w = W / 2; w >= 1; w /= 2) {
            const I other = __builtin_shuffle(amax, lane ^ w);
            amax = other > amax ? other : amax;
        }
        const int32_t top = amax[0];
        if (top >= (1 << 24)) return false;
        // one integer unit weighs 2^lsb
        const int lsb = smin - 127 + F::qmin - (mean ? log2k : 0);
        int x = top == 0 ? -127 : (31 - __builtin_clz(unsigned(top))) + lsb - F::emax;
        x = x < -127 ? -127 : x > 127 ? 127 : x;
        out[0] = uint8_t(x + 127);
        alignas(64) uint8_t result[32];
        for (int r = 0; r < R; ++r) {
            const I a = mag[r];
            I sh;
            I e = {};
            if constexpr (F::is_int) {
                sh = I{} + (x + F::qmin - lsb);
            } else {
                // floor(log2 a), exact: a < 2^24 converts exactly
                const I fexp = (as<I>(__builtin_convertvector(a, Fl)) >> 23) - 127;
                e = fexp + (lsb - x);
                e = e < F::emin ? I{} + F::emin : e;
                sh = e + (x - F::mbits - lsb);
            }
            const I right = sh > 0 ? sh : 0, left = sh < 0 ? -sh : 0;
            I q = (a >> right) << left;
            const I rm1 = right > 0 ? right - 1 : I{};
            const I half = sh > 0 ? (a >> rm1) & 1 : I{};
            const I below = (I{} + 1) << rm1;   // (vector shifts by >= 32 give 0: below - 1 = all ones)
            const I sticky = sh > 0 ? ((a & (below - 1)) != 0) & 1 : I{};
            q += half & (sticky | (q & 1));
            I code;
            if constexpr (F::is_int) {
                code = q > 127 ? I{} + 127 : q;
                code = acc[r] < 0 ? -code : code;
            } else {
                code = ((e - F::emin) << F::mbits) + q;
                code = code > int32_t(F::max_code) ? I{} + int32_t(F::max_code) : code;
                code = q == 0 ? I{} : code;
                code = acc[r] < 0 && q != 0 ? code | int32_t(F::sign_bit) : code;
            }
            const U8 b = __builtin_convertvector(code & 0xff, U8);
            std::memcpy(result + r * W, &b, sizeof b);
        }
        if constexpr (F::bits == 8) std::memcpy(out + 1, result, 32);
        else base::mx_put_codes<F>(out, reinterpret_cast<const uint8_t(&)[32]>(result));
        return true;
    }

    // One result block: the lanes where they are exact, the rule's own code elsewhere (BlockCalls: the calls).
    template <int K>
    [[gnu::always_inline]] static void block(const uint8_t *const in[], int k, uint8_t *out, MxOp op, bool mean)
    {
        if (!fast_block<K>(in, k, out, op, mean)) [[unlikely]] base::mx_reduce<F>(in, k, out, op, mean);
    }
};

// The slot of (Op, MX type) on an ISA: SUM, AVG, MAX and MIN of the formats
// with a fast path; nothing else (REPLACE and NO_OP: the base's copies).
// A block's 32 lanes fill whole registers: registers of more than 32 int32
// lanes (SVE 2048, RVV from VLEN 2048) get no MX kernels.
// NVFP4 (nvfp4.h): on x86, AVX2 and AVX-512 registers.
template <class F, class Isa> constexpr bool has_nvfp4 = [] {
#if defined(__x86_64__)
    if constexpr (nvfp4::serves<F>) return Isa::bytes == 32 || Isa::bytes == 64;
#endif
    return false;
}();
template <class Op, class F, class Isa> constexpr SlotFns slot_of()
{
    constexpr bool sum = std::is_same_v<Op, base::OpSum>, avg = std::is_same_v<Op, base::OpAvg>;
    constexpr bool max = std::is_same_v<Op, base::OpMax>, min = std::is_same_v<Op, base::OpMin>;
    constexpr bool fits = Isa::bytes / 4 <= 32 && 32 % (Isa::bytes / 4) == 0;
    constexpr MxOp o = max ? MxOp::Max : min ? MxOp::Min : MxOp::Sum;
    if constexpr (!(sum || avg || max || min)) {
        return {};
    } else if constexpr (has_nvfp4<F, Isa>) {
#if defined(__x86_64__)
        using K = nvfp4::Kernels<F, Isa>;
        return {&K::template two<o, avg>, &K::template three<o, avg>, &K::template nary<o, avg>, nullptr, nullptr};
#endif
    } else if constexpr (!has_fast<F> || !fits) {
        return {};
    } else {
        using K = Kernels<F, Isa>;
        return {&K::template two<o, avg>, &K::template three<o, avg>, &K::template nary<o, avg>, nullptr, nullptr};
    }
}
template <class Op, class T, class Isa> struct SlotOf;
template <class Op, class F, class Isa> struct SlotOf<Op, MxBlock<F>, Isa> {
    static constexpr SlotFns value = slot_of<Op, F, Isa>();
};

} // namespace opf::simd::mx
