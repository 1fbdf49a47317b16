// cuda_semantics.cpp — the cuda component's device code and work splitting,
// checked on the host: no GPU, no driver, no CUDA library needed (the CUDA
// headers only). The device kernels call base/semantics.h's functors
// themselves (OPF_HD); what this checks, against the base:
//   1. base/storage.h's float16 / bfloat16 conversions against an
//      independent implementation, the CUDA headers' round-to-nearest-even
//      host emulation (__float2half_rn, __float2bfloat16_rn), for a sample of
//      floats that covers every exponent and the rounding boundaries
//      (--exhaustive: all 2^32 floats); widening for all 2^16 patterns;
//      the fp8 ones against the headers' __nv_cvt_float_to_fp8 (__NV_NOSAT)
//      on the same sample and their rounding ties (--exhaustive-fp8: all
//      2^32 floats for them too), widening for all 2^8 codes; and the
//      device path (base/storage_hw.h: the GPU's conversion instructions,
//      the fp8 ones saturating, with their fix-up) in the headers' host
//      emulation of those instructions, on the same floats;
//   1b. the fp8 word rules of the vector work items (fp8_words.h) against
//      the same vectors element by element: every operand pair, chains of
//      up to 8 inputs;
//   2. every slot the GPU computes (REPLACE and NO_OP included), at the
//      lengths of the device test: the component's host path (host_kernel),
//      and the device kernel's work items compiled as host C++ and run one by
//      one (plan_for + work_item) in each of their modes (16-byte vectors with
//      head and tail, scalar, byte-wise), 2-buffer, 3-buffer and 3-buffer with
//      out = in1; inputs must stay unchanged, bytes after the output's true
//      end and every element's padding untouched (data bytes only);
//   3. the life cycle: opf_finalize and opf_init three times with the
//      components of the component path (the cuda component, and the CUDA
//      runtime linked into it, unload and load again), host reductions
//      in between.
// What it cannot check is the device's own instructions (add/mul.rn,
// 16-byte loads): test/cuda_conformance does that on a GPU.
//
// Usage: cuda_semantics [--seed N] [--exhaustive | --exhaustive-fp8] [-v]
#include <opframe/introspect.h>
#include <opframe/opframe.h>

#include <chrono>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "base/storage_hw.h"
#include "test/cuda_testdata.h"

namespace {

using namespace cuda_test;
namespace oc = opf_cuda;
namespace ob = opf::base;


// ---- 1. conversions ---------------------------------------------------------------
bool half_nan(uint16_t h) { return (h & 0x7fff) > 0x7c00; }
bool bf16_nan(uint16_t h) { return (h & 0x7fff) > 0x7f80; }

// The CUDA headers' host conversions, on raw bits.
uint16_t cuda_half(float f) { return __half_raw(__float2half_rn(f)).x; }
uint16_t cuda_bfloat16(float f) { return __nv_bfloat16_raw(__float2bfloat16_rn(f)).x; }
float cuda_widen_half(uint16_t bits)
{
    __half_raw r;
    r.x = bits;
    return __half2float(__half(r));
}
float cuda_widen_bfloat16(uint16_t bits)
{
    __nv_bfloat16_raw r;
    r.x = bits;
    return __bfloat162float(__nv_bfloat16(r));
}

// fp8: the CUDA headers' __NV_NOSAT conversions (round to nearest even, no
// saturation: E4M3 overflow NaN, E5M2 overflow inf), the rule of base/semantics.h.
bool e4m3_nan(uint8_t b) { return (b & 0x7f) == 0x7f; }
bool e5m2_nan(uint8_t b) { return (b & 0x7f) > 0x7c; }
uint8_t cuda_fp8(float f, __nv_fp8_interpretation_t kind) { return __nv_cvt_float_to_fp8(f, __NV_NOSAT, kind); }
float cuda_widen_fp8(uint8_t bits, __nv_fp8_interpretation_t kind)
{
    return __half2float(__half(__half_raw(__nv_cvt_fp8_to_halfraw(bits, kind))));
}

void check_float8(uint32_t u)
{
    float f;
    std::memcpy(&f, &u, 4);
    const uint8_t e4 = cuda_fp8(f, __NV_E4M3), e4b = ob::to_float8_e4m3(f).bits;
    if (e4 != e4b && !(e4m3_nan(e4) && e4m3_nan(e4b)))
        fail("float 0x%08" PRIx32 " -> float8_e4m3: cuda 0x%02x, base 0x%02x", u, e4, e4b);
    const uint8_t e5 = cuda_fp8(f, __NV_E5M2), e5b = ob::to_float8_e5m2(f).bits;
    if (e5 != e5b && !(e5m2_nan(e5) && e5m2_nan(e5b)))
        fail("float 0x%08" PRIx32 " -> float8_e5m2: cuda 0x%02x, base 0x%02x", u, e5, e5b);
    // The device path (storage_hw.h: the saturating instruction and its fix-up), in the headers' emulation.
    const uint8_t h4 = ob::hw::float_to_e4m3(f), h5 = ob::hw::float_to_e5m2(f);
    if (h4 != e4b && !(e4m3_nan(h4) && e4m3_nan(e4b)))
        fail("float 0x%08" PRIx32 " -> float8_e4m3: device path 0x%02x, base 0x%02x", u, h4, e4b);
    if (h5 != e5b && !(e5m2_nan(h5) && e5m2_nan(e5b)))
        fail("float 0x%08" PRIx32 " -> float8_e5m2: device path 0x%02x, base 0x%02x", u, h5, e5b);
    checks += 4;
}

// The 16-bit conversions of one float; with_fp8: the 8-bit ones too (CUDA's
// fp8 emulation goes through double and costs 4x the 16-bit ones: every
// float through it is --exhaustive-fp8's, outside CI's time).
void check_float(uint32_t u, bool with_fp8 = true)
{
    if (with_fp8) check_float8(u);
    float f;
    std::memcpy(&f, &u, 4);
    const uint16_t h = cuda_half(f), hb = ob::to_half(f).bits, hh = ob::hw::float_to_half(f);
    if (h != hb && !(half_nan(h) && half_nan(hb)))
        fail("float 0x%08" PRIx32 " -> half: cuda 0x%04x, base 0x%04x", u, h, hb);
    if (hh != hb && !(half_nan(hh) && half_nan(hb)))
        fail("float 0x%08" PRIx32 " -> half: device path 0x%04x, base 0x%04x", u, hh, hb);
    const uint16_t b = cuda_bfloat16(f), bb = ob::to_bfloat16(f).bits;
    if (b != bb && !(bf16_nan(b) && bf16_nan(bb)))
        fail("float 0x%08" PRIx32 " -> bfloat16: cuda 0x%04x, base 0x%04x", u, b, bb);
    checks += 2;
}

void check_conversions(bool exhaustive, bool exhaustive_fp8, Rng &rng)
{
    const auto start = std::chrono::steady_clock::now();
    long long before = checks;
    for (uint32_t h = 0; h < 0x10000; ++h) {
        const float x = cuda_widen_half(uint16_t(h)), y = ob::to_float(ob::Half{uint16_t(h)});
        const float bx = cuda_widen_bfloat16(uint16_t(h)), by = ob::to_float(ob::BFloat16{uint16_t(h)});
        if (std::memcmp(&x, &y, 4) != 0 && !(x != x && y != y)) fail("half 0x%04x -> float differs", h);
        const float hx = ob::hw::half_to_float(uint16_t(h));   // the device path, in the headers' emulation
        if (std::memcmp(&hx, &y, 4) != 0 && !(hx != hx && y != y)) fail("half 0x%04x -> float: device path differs", h);
        if (std::memcmp(&bx, &by, 4) != 0 && !(bx != bx && by != by)) fail("bfloat16 0x%04x -> float differs", h);
        checks += 2;
    }
    for (uint32_t c = 0; c < 0x100; ++c) {
        const float x = cuda_widen_fp8(uint8_t(c), __NV_E4M3), y = ob::to_float(ob::Float8E4M3{uint8_t(c)});
        const float bx = cuda_widen_fp8(uint8_t(c), __NV_E5M2), by = ob::to_float(ob::Float8E5M2{uint8_t(c)});
        if (std::memcmp(&x, &y, 4) != 0 && !(x != x && y != y)) fail("float8_e4m3 0x%02x -> float differs", c);
        if (std::memcmp(&bx, &by, 4) != 0 && !(bx != bx && by != by)) fail("float8_e5m2 0x%02x -> float differs", c);
        const float hx = ob::hw::e4m3_to_float(uint8_t(c)), hy = ob::hw::e5m2_to_float(uint8_t(c));   // the device path
        if (std::memcmp(&hx, &y, 4) != 0 && !(hx != hx && y != y)) fail("float8_e4m3 0x%02x -> float: device path differs", c);
        if (std::memcmp(&hy, &by, 4) != 0 && !(hy != hy && by != by)) fail("float8_e5m2 0x%02x -> float: device path differs", c);
        checks += 4;
    }
    if (exhaustive) {
        for (uint64_t u = 0; u <= 0xffffffffu; ++u) check_float(uint32_t(u), exhaustive_fp8);
    }
    if (!exhaustive || !exhaustive_fp8) {
        // Per exponent (both signs): the low 16 mantissa patterns, the top
        // ones, every rounding boundary of half and bfloat16 (halfway +- 1),
        // and random mantissas.
        for (uint32_t sign = 0; sign < 2; ++sign)
            for (uint32_t exp = 0; exp < 256; ++exp) {
                const uint32_t top = sign << 31 | exp << 23;
                for (uint32_t m = 0; m < 16; ++m) check_float(top | m), check_float(top | (0x7fffff - m));
                for (uint32_t k = 0; k < 1024; ++k) {
                    const uint32_t h = k << 13, b = (k & 0x7f) << 16;
                    for (int d = -1; d <= 1; ++d) {
                        check_float(top | ((h | 0x1000) + d));   // half tie +- 1 ulp (13 dropped bits)
                        check_float(top | ((b | 0x8000) + d));   // bfloat16 tie +- 1 ulp (16 dropped bits)
                    }
                    check_float(top | (h | 0x1fff));
                    if (k < 8)   // fp8 ties +- 1 ulp (E4M3: 20 dropped bits, E5M2: 21)
                        for (int d = -1; d <= 1; ++d)
                            check_float(top | ((k << 20 | 0x80000) + d)), check_float(top | (((k & 3) << 21 | 0x100000) + d));
                    check_float(top | uint32_t(rng.next() & 0x7fffff));
                }
                for (uint32_t s = 0; s < 24; ++s) check_float(top | (1u << s)), check_float(top | ((1u << s) - 1));
            }
        for (int i = 0; i < 1 << 24; ++i) check_float(uint32_t(rng.next()));
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("conversions: %lld checks (%s) in %.1f s\n", checks - before,
                exhaustive_fp8 ? "every float" : exhaustive ? "every float; fp8 sampled, --exhaustive-fp8 for every float"
                                                           : "sampled; --exhaustive for every float", s);
}

// ---- 1b. fp8 word rules ------------------------------------------------------------------
// The vector work items' fp8 word rules (fp8_words.h, in the CUDA headers'
// emulation of the instructions) against the same vectors element by element
// (VectorAcc with no word rule: base/semantics.h's accumulators): every
// operand pair for two inputs, each in a different lane position, and chains
// of 1 to 8 inputs (random codes, a third of them adversarial).
template <class T> bool same_vectors(const uint4 &x, const uint4 &y)
{
    T a[16], b[16];
    std::memcpy(a, &x, 16), std::memcpy(b, &y, 16);
    for (int l = 0; l < 16; ++l)
        if (!ob::same_value(a[l], b[l])) return false;
    return true;
}
template <class T, class A> uint4 reduce_vectors(const uint4 *in, int k, bool by_words)
{
    auto run = [&](auto acc_type) {
        using VA = decltype(acc_type);
        auto acc = VA::first(in[0], k);
        for (int j = 1; j < k; ++j) acc = VA::add(acc, in[j], k);
        return VA::result(acc, k);
    };
    return by_words ? run(oc::VectorAcc<T, A>{}) : run(oc::VectorAcc<T, A, void>{});
}
template <class T, class A> void check_word_rule(const char *name, int max_k, Rng &rng)
{
    static_assert(!std::is_void_v<oc::fp8::WordRule<T, A>>, "a word rule");
    const int before = failures;
    auto check = [&](const uint4 *in, int k) {
        const uint4 w = reduce_vectors<T, A>(in, k, true), e = reduce_vectors<T, A>(in, k, false);
        ++checks;
        if (same_vectors<T>(w, e)) return;
        unsigned char c[8][16], x[16], y[16];
        std::memcpy(x, &w, 16), std::memcpy(y, &e, 16);
        for (int j = 0; j < k; ++j) std::memcpy(c[j], &in[j], 16);
        for (int l = 0; l < 16; ++l)
            if (x[l] != y[l] && failures < before + 5) {
                std::string ops;
                char buf[16];
                for (int j = 0; j < k; ++j) std::snprintf(buf, sizeof buf, "%s0x%02x", j ? ", " : "", c[j][l]), ops += buf;
                fail("%s, %d inputs (%s): word rule 0x%02x, elementwise 0x%02x", name, k, ops.c_str(), x[l], y[l]);
            }
    };
    uint4 in[8];
    for (uint32_t pair = 0; pair < 0x10000; pair += 16) {   // every (a, b), 16 to a vector
        unsigned char a[16], b[16];
        for (uint32_t l = 0; l < 16; ++l) a[l] = uint8_t((pair + l) >> 8), b[l] = uint8_t(pair + l);
        std::memcpy(&in[0], a, 16), std::memcpy(&in[1], b, 16);
        check(in, 2);
        std::swap(in[0], in[1]);
        check(in, 2);
    }
    for (int round = 0; round < 4096; ++round) {
        const int k = 1 + int(rng.below(uint64_t(max_k)));
        for (int j = 0; j < k; ++j) {
            unsigned char c[16];
            for (int l = 0; l < 16; ++l) cuda_test::scalar<T>(c + l, rng);
            std::memcpy(&in[j], c, 16);
        }
        check(in, k);
    }
    if (verbose || failures > before) std::printf("fp8 word rule %s: %s\n", name, failures > before ? "FAILED" : "ok");
}
void check_word_rules(Rng &rng)
{
    const long long before = checks;
    using E4 = ob::Float8E4M3;
    using E5 = ob::Float8E5M2;
    using ob::FoldAcc, ob::SumAcc, ob::Rounding;
    check_word_rule<E4, FoldAcc<ob::OpMax, E4>>("MAX FLOAT8_E4M3", 8, rng);
    check_word_rule<E5, FoldAcc<ob::OpMax, E5>>("MAX FLOAT8_E5M2", 8, rng);
    check_word_rule<E4, FoldAcc<ob::OpMin, E4>>("MIN FLOAT8_E4M3", 8, rng);
    check_word_rule<E5, FoldAcc<ob::OpMin, E5>>("MIN FLOAT8_E5M2", 8, rng);
    check_word_rule<E4, SumAcc<E4, Rounding::Chain>>("SUM FLOAT8_E4M3", 8, rng);
    check_word_rule<E5, SumAcc<E5, Rounding::Chain>>("SUM FLOAT8_E5M2", 8, rng);
    check_word_rule<E4, FoldAcc<ob::OpProd, E4>>("PROD FLOAT8_E4M3", 8, rng);
    check_word_rule<E5, FoldAcc<ob::OpProd, E5>>("PROD FLOAT8_E5M2", 8, rng);
    check_word_rule<E4, oc::fp8::MeanOfTwo<E4>>("AVG FLOAT8_E4M3, two inputs", 2, rng);
    check_word_rule<E5, oc::fp8::MeanOfTwo<E5>>("AVG FLOAT8_E5M2, two inputs", 2, rng);
    check_word_rule<E4, SumAcc<E4, Rounding::Once>>("SUM FLOAT8_E4M3, rounded once", 8, rng);
    check_word_rule<E5, SumAcc<E5, Rounding::Once>>("SUM FLOAT8_E5M2, rounded once", 8, rng);
    check_word_rule<E4, ob::MeanAcc<E4, Rounding::Chain>>("AVG FLOAT8_E4M3", 8, rng);
    check_word_rule<E5, ob::MeanAcc<E5, Rounding::Chain>>("AVG FLOAT8_E5M2", 8, rng);
    // What the launches of two inputs run (cuda_ops.h TwoInputs).
    static_assert(std::is_same_v<oc::TwoInputs<E4, SumAcc<E4, Rounding::Once>>, SumAcc<E4, Rounding::Chain>>);
    static_assert(std::is_same_v<oc::TwoInputs<E5, ob::MeanAcc<E5, Rounding::Once>>, oc::fp8::MeanOfTwo<E5>>);
    std::printf("fp8 word rules: %lld checks (every operand pair, chains of up to 8)\n", checks - before);
}

// ---- 2. slots ---------------------------------------------------------------------
// Runs the kernel's work items on the host; returns the plan mode used.
using EmulateFn = int (*)(const void *, const void *, void *, int64_t);
using HostFn = void (*)(const void *, const void *, void *, int64_t);

template <class Op, class T> int emulate(const void *a, const void *b, void *o, int64_t n)
{
    const oc::Plan p = oc::plan_for<T>(a, b, o, n);
    for (int64_t i = 0; i < p.total; ++i)
        oc::work_item<Op, T>(static_cast<const unsigned char *>(a), static_cast<const unsigned char *>(b),
                             static_cast<unsigned char *>(o), p, i);
    return p.mode;
}

struct SlotFns {
    EmulateFn emulate = nullptr;
    HostFn host = nullptr;
    int align = 1;
    bool vector = false;          // the plan may take 16-byte vectors
    ob::DataLayout layout{};      // the bytes of an element that are data
    std::size_t true_end = 0;     // where the last element's data ends
};
template <std::size_t O, std::size_t K> constexpr SlotFns slot_fns()
{
    using Op = ob::at_t<O, ob::Ops>;
    using T = ob::at_t<K, ob::KernelTypes>;
    if constexpr (oc::gpu_computes<Op, T>)
        return {&emulate<Op, T>, &oc::host_kernel<Op, T>, int(alignof(T)), oc::vectorizable<T>, ob::data_layout<T>,
                ob::data_end<T>};
    else return {};
}
template <std::size_t O, std::size_t... K> constexpr std::array<SlotFns, OPF_KT_COUNT> row(std::index_sequence<K...>)
{
    return {slot_fns<O, K>()...};
}
template <std::size_t... O> constexpr auto table(std::index_sequence<O...>)
{
    return std::array<std::array<SlotFns, OPF_KT_COUNT>, OPF_OPID_COUNT>{row<O>(std::make_index_sequence<OPF_KT_COUNT>{})...};
}
constexpr auto slots = table(std::make_index_sequence<OPF_OPID_COUNT>{});

const char *mode_name(int m) { return m == oc::kVector ? "vector" : m == oc::kScalar ? "scalar" : "bytes"; }

// Is byte `at` of an array of elements data (else padding)?
bool is_data(const SlotFns &f, std::size_t ext, std::size_t at)
{
    const std::size_t in = at % ext;
    for (int r = 0; r < f.layout.count; ++r)
        if (in >= f.layout.range[r].offset && in < f.layout.range[r].offset + f.layout.range[r].size) return true;
    return false;
}

// Buffers placed at chosen byte offsets from 64-byte aligned storage, ending
// at the true end of n elements, with guard bytes around; each element's
// padding holds the buffer's own guard byte (so that a kernel copying an
// input's padding into the output shows).
struct Buffer {
    std::vector<unsigned char> store;
    unsigned char *p = nullptr;
    std::size_t bytes = 0;
    unsigned char guard;
    Buffer(std::size_t n_bytes, std::size_t offset, unsigned char g) : store(n_bytes + offset + 256, 0xa5), bytes(n_bytes), guard(g)
    {
        auto base = reinterpret_cast<uintptr_t>(store.data());
        p = reinterpret_cast<unsigned char *>((base + 63) / 64 * 64 + offset + 64);
        std::memset(p, guard, bytes);   // an output's data is overwritten, its padding must stay
    }
    // The elements' data from `data`, padding set to the guard byte.
    void fill(const SlotFns &f, std::size_t ext, const unsigned char *data)
    {
        for (std::size_t at = 0; at < bytes; ++at) p[at] = is_data(f, ext, at) ? data[at] : guard;
    }
    bool guards_intact(const SlotFns &f, std::size_t ext) const
    {
        for (const unsigned char *q = store.data(); q < p; ++q)
            if (*q != 0xa5) return false;
        for (const unsigned char *q = p + bytes; q < store.data() + store.size(); ++q)
            if (*q != 0xa5) return false;
        for (std::size_t at = 0; at < bytes; ++at)
            if (!is_data(f, ext, at) && p[at] != guard) return false;
        return true;
    }
};

void check_slot(int op, int kt, uint64_t seed, int mode_hits[3])
{
    const SlotFns &fns = slots[op][kt];
    opf_kernel2_fn *base2 = nullptr;
    opf_kernel3_fn *base3 = nullptr;
    if (opf_slot_kernels(op, kt, "base", 1, &base2, &base3) != OPF_SUCCESS || !base3) {
        fail("%s %s: the base has no kernel: %s", ob::op_names[op], ob::kernel_type_names[kt], opf_last_error());
        return;
    }
    const std::size_t ext = std::size_t(opf_kernel_type_extent(kt));
    // Byte offsets of (in1, in2, out): same phase (vector), same phase one
    // element in (vector with a head), different phases (scalar), an odd
    // address (bytes, for types aligned to more than one byte).
    struct Layout { std::size_t a, b, o; };
    std::vector<Layout> layouts = {{0, 0, 0}, {ext, ext, ext}, {0, ext, 2 * ext}, {ext, 0, 3 * ext},
                                   {std::size_t(fns.align), 0, 0}};
    if (fns.align > 1) layouts.push_back({1, 0, 0}), layouts.push_back({0, 0, std::size_t(fns.align) + 1});
    for (int64_t n : lengths) {
        const std::size_t full = std::size_t(n) * ext;   // what fill and the base write
        const std::size_t bytes = n > 0 ? full - ext + fns.true_end : 0;   // the true end
        Rng rng(derive_seed(seed, op, kt, uint64_t(n)));
        std::vector<unsigned char> a0(full + 1), b0(full + 1), expect3(full + 1);
        fill(kt, a0.data(), b0.data(), n, rng);
        base3(a0.data(), b0.data(), expect3.data(), n);
        for (std::size_t li = 0; li < layouts.size(); ++li) {
            const Layout &L = layouts[li];
            for (int form = 0; form < 3; ++form) {   // 2-buffer, 3-buffer, 3-buffer with out = in1
                for (int path = 0; path < 2; ++path) {   // device work items, host path
                    Buffer A(bytes, L.a, 0x11), B(bytes, L.b, 0x22), O(bytes, L.o, 0x33);
                    A.fill(fns, ext, a0.data());
                    B.fill(fns, ext, b0.data());
                    const std::vector<unsigned char> a_in(A.p, A.p + bytes), b_in(B.p, B.p + bytes);
                    unsigned char *out = form == 0 ? B.p : form == 1 ? O.p : A.p;
                    int mode = -1;
                    if (path == 0) mode = fns.emulate(A.p, B.p, out, n);
                    else fns.host(A.p, B.p, out, n);
                    if (mode >= 0 && n > 0) ++mode_hits[mode];
                    ++checks;
                    const opf_count_t bad = first_difference(kt, out, expect3.data(), n);
                    const char *what = form == 0 ? "2-buffer" : form == 1 ? "3-buffer" : "3-buffer out=in1";
                    if (bad >= 0) {
                        fail("%s %s n=%lld %s %s (offsets %zu/%zu/%zu%s%s): element %lld differs from the base",
                             ob::op_names[op], ob::kernel_type_names[kt], (long long)n, what,
                             path == 0 ? "kernel work items" : "host path", L.a, L.b, L.o, mode >= 0 ? ", " : "",
                             mode >= 0 ? mode_name(mode) : "", (long long)bad);
                        continue;
                    }
                    const bool in1_kept = form == 2 || bytes == 0 || std::memcmp(A.p, a_in.data(), bytes) == 0;
                    const bool in2_kept = form == 0 || bytes == 0 || std::memcmp(B.p, b_in.data(), bytes) == 0;
                    if (!in1_kept || !in2_kept)
                        fail("%s %s n=%lld %s %s: an input changed", ob::op_names[op], ob::kernel_type_names[kt],
                             (long long)n, what, path == 0 ? "kernel work items" : "host path");
                    if (!A.guards_intact(fns, ext) || !B.guards_intact(fns, ext) || !O.guards_intact(fns, ext))
                        fail("%s %s n=%lld %s %s (offsets %zu/%zu/%zu%s%s): a guard byte was written (padding, or "
                             "past the true end)", ob::op_names[op], ob::kernel_type_names[kt], (long long)n, what,
                             path == 0 ? "kernel work items" : "host path", L.a, L.b, L.o, mode >= 0 ? ", " : "",
                             mode >= 0 ? mode_name(mode) : "");
                }
            }
        }
    }
}

} // namespace

int main(int argc, char **argv)
{
    uint64_t seed = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
    bool exhaustive = false, exhaustive_fp8 = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 0);
        else if (arg == "--exhaustive") exhaustive = true;
        else if (arg == "--exhaustive-fp8") exhaustive = exhaustive_fp8 = true;
        else if (arg == "-v") verbose = true;
        else {
            std::fprintf(stderr, "usage: %s [--seed N] [--exhaustive | --exhaustive-fp8] [-v]\n", argv[0]);
            return 2;
        }
    }
    std::printf("seed=%" PRIu64 "\n", seed);
    Rng rng(seed);
    check_conversions(exhaustive, exhaustive_fp8, rng);
    check_word_rules(rng);

    int n_slots = 0;
    for (int op = 1; op < OPF_OPID_COUNT; ++op)
        for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
            if (!slots[op][kt].host) continue;
            if (!opf_slot_exists(op, kt)) {
                fail("%s %s: computed by the cuda component but not a slot of the base", ob::op_names[op],
                     ob::kernel_type_names[kt]);
                continue;
            }
            int hits[3] = {0, 0, 0};
            const int before = failures;
            check_slot(op, kt, seed, hits);
            ++n_slots;
            // Every mode the slot's type allows must have been exercised.
            if (slots[op][kt].vector && !hits[oc::kVector]) fail("%s %s: vector mode never ran", ob::op_names[op], ob::kernel_type_names[kt]);
            if (!hits[oc::kScalar]) fail("%s %s: scalar mode never ran", ob::op_names[op], ob::kernel_type_names[kt]);
            if (slots[op][kt].align > 1 && !hits[oc::kBytes])
                fail("%s %s: byte mode never ran", ob::op_names[op], ob::kernel_type_names[kt]);
            if (verbose)
                std::printf("%-7s %-16s vector %d, scalar %d, bytes %d runs%s\n", ob::op_names[op],
                            ob::kernel_type_names[kt], hits[0], hits[1], hits[2], failures > before ? "  FAILED" : "");
        }
    // The slots the GPU must compute (DESIGN: every slot it can do exactly).
    int expected = 0;
    for (int op = 1; op < OPF_OPID_COUNT; ++op)
        for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
            if (!opf_slot_exists(op, kt)) continue;
            const bool exotic = kt == OPF_KT_INT128 || kt == OPF_KT_LONG_DOUBLE || kt == OPF_KT_FLOAT128 ||
                                kt == OPF_KT_C_LONG_DOUBLE_COMPLEX || kt == OPF_KT_LONG_DOUBLE_INT;
            if (exotic) continue;
            ++expected;
            if (!slots[op][kt].host)
                fail("%s %s: a slot the GPU can compute exactly has no cuda kernel", ob::op_names[op],
                     ob::kernel_type_names[kt]);
        }
    std::printf("slots: %d computed (of %d expected), %lld checks in all, %d failed\n", n_slots, expected, checks,
                failures);

    for (int cycle = 0; cycle < 3; ++cycle) {
        ++checks;
        if (opf_finalize() != OPF_SUCCESS || opf_init() != OPF_SUCCESS) {
            fail("life cycle %d: opf_finalize / opf_init failed: %s", cycle, opf_last_error());
            break;
        }
        float x[5] = {1, 2, 3, 4, 5}, y[5] = {10, 20, 30, 40, 50};
        int32_t i1[3] = {INT32_MAX, -1, 7}, i2[3] = {1, 1, 0};
        if (opf_reduce_local(x, y, 5, OPF_FLOAT, OPF_SUM) != OPF_SUCCESS || y[0] != 11 || y[4] != 55 ||
            opf_reduce_local(i1, i2, 3, OPF_INT32_T, OPF_SUM) != OPF_SUCCESS || i2[0] != INT32_MIN || i2[1] != 0)
            fail("life cycle %d: a host reduction failed or was wrong: %s", cycle, opf_last_error());
        for (int c = 0; c < opf_component_count(); ++c) {
            opf_component_info_t info;
            if (cycle == 0 && opf_component_describe(c, &info) == OPF_SUCCESS)
                std::printf("component %s: %s\n", info.name, info.status);
        }
    }
    std::printf("life cycle: 3 x opf_finalize + opf_init, host reductions %s\n", failures ? "checked" : "ok");
    std::printf("cuda_semantics: %s (rerun with --seed %" PRIu64 ")\n", failures ? "FAILED" : "ok", seed);
    return failures ? 1 : 0;
}
