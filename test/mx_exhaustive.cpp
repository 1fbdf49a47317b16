// mx_exhaustive.cpp — issue 35: the OCP MX block formats' element codecs and
// quantization, exhaustively where the inputs are few enough.
//
//  1. every element code of every format: base/mx.h's decode (mx_steps,
//     mx_nonfinite) against the reference's definition (test/engine/
//     mx_reference.h: the bit layout and ldexp), and the bit stream (every
//     code at every position of a block: base::mx_code against the
//     reference's bit-by-bit read, and mx_put_codes back);
//  2. hand-worked anchors from the OCP MX v1.0 tables and the rule
//     (largest values, scale rule, ties, saturation, the NaN block);
//  3. every (left, right) pair of element codes of each format (65,536 for
//     8 bits, 4,096 for 6, 256 for 4), in blocks, in three settings: equal
//     scales, the scale pinned by a largest element (coarse steps: ties),
//     and with OPF_CHECK_DEPTH=deep scales 3 apart; SUM, AVG, MAX, MIN through every provider (the base,
//     each component's kernels, the selected table, opf_reduce_local /
//     opf_reduce_local3 / opf_reduce_local_n) against the reference, bit
//     for bit (any NaN block matches any other).
//
// Usage: mx_exhaustive [-v]   (components: OPF_MCA_mca_component_path, as
// test/mx_exhaustive.sh sets it)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "test/engine/reference.h"
#pragma GCC diagnostic pop

#include "base/mx.h"

#include <opframe/introspect.h>
#include <opframe/opframe.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace {

int failures = 0;
long checks = 0;
bool verbose = false;

void expect(bool ok, const std::string& what)
{
    ++checks;
    if (!ok && ++failures <= 40) std::printf("FAIL %s\n", what.c_str());
}
std::string hex(unsigned v)
{
    char b[16];
    std::snprintf(b, sizeof b, "0x%02x", v);
    return b;
}

// ---- 1. codecs --------------------------------------------------------------
template <class F, class S> void check_codec(const char* name)
{
    for (unsigned c = 0; c < (1u << F::bits); ++c) {
        const bool nf = opf::base::mx_nonfinite<F>(c);
        expect(nf == S::nonfinite(c), std::string(name) + " code " + hex(c) + " non-finite");
        if (!nf && !S::nonfinite(c))
            expect(std::ldexp(double(opf::base::mx_steps<F>(c)), F::qmin) == S::value(c),
                   std::string(name) + " code " + hex(c) + " value");
    }
    // every code at every position: the stream both ways
    for (int pos = 0; pos < 32; ++pos)
        for (unsigned c = 0; c < (1u << F::bits); ++c) {
            uint8_t block[S::bytes];
            for (int b = 0; b < S::bytes; ++b) block[b] = uint8_t(0x5a ^ (b * 37));
            mxref::write_code<S>(block, pos, c);
            bool ok = opf::base::mx_code<F>(block, pos) == c;
            uint8_t codes[32], again[S::bytes];
            for (int i = 0; i < 32; ++i) codes[i] = uint8_t(opf::base::mx_code<F>(block, i));
            std::memcpy(again, block, sizeof again);
            opf::base::mx_put_codes<F>(again, codes);
            ok = ok && std::memcmp(again, block, sizeof again) == 0;
            for (int i = 0; i < 32; ++i) ok = ok && codes[i] == mxref::read_code<S>(block, i);
            expect(ok, std::string(name) + " stream: code " + hex(c) + " at element " + std::to_string(pos));
        }
}

// ---- 2. anchors ---------------------------------------------------------------
template <class S> std::vector<uint8_t> block(unsigned scale, std::initializer_list<unsigned> first, unsigned rest = 0)
{
    std::vector<uint8_t> b(S::bytes, 0);
    b[0] = uint8_t(scale);
    int i = 0;
    for (unsigned c : first) mxref::write_code<S>(b.data(), i++, c);
    for (; i < 32; ++i) mxref::write_code<S>(b.data(), i, rest);
    return b;
}
void anchors()
{
    using E4 = MxSpecE4M3;
    // largest magnitudes (OCP MX v1.0 tables)
    expect(E4::value(0x7e) == 448 && MxSpecE5M2::value(0x7b) == 57344 && MxSpecE3M2::value(0x1f) == 28 &&
               MxSpecE2M3::value(0x1f) == 7.5 && MxSpecE2M1::value(0x7) == 6 && MxSpecInt8::value(0x7f) == 127.0 / 64 &&
               MxSpecInt8::value(0x80) == -2 && MxSpecE2M1::value(0x1) == 0.5 && MxSpecE3M2::value(0x01) == 0.0625,
           "anchor: element values");
    auto sum = [](const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, opf_datatype_t t, opf_op_t op) {
        std::vector<uint8_t> o(a.size(), 0xee);
        const int rc = opf_reduce_local3(a.data(), b.data(), o.data(), 1, t, op);
        return rc == OPF_SUCCESS ? o : std::vector<uint8_t>{};
    };
    // 448 + 448 = 896: scale 2^(9 - 8), 448; 1 + 1 = 2 -> 1
    auto r = sum(block<E4>(127, {0x7e}, 0x38), block<E4>(127, {0x7e}, 0x38), OPF_MXFP8_E4M3, OPF_SUM);
    expect(r == block<E4>(128, {0x7e}, 0x38), "anchor: E4M3 448 + 448");
    // 1 + 0.0625 at scale 1 (the scale from amax 1.0625: 2^(0 - 8)): 1.0625 * 256 = 272, a tie between 256 and 288
    r = sum(block<E4>(127, {0x38}), block<E4>(127, {0x18}), OPF_MXFP8_E4M3, OPF_SUM);
    expect(r == block<E4>(119, {0x78}), "anchor: E4M3 tie to even");
    // all zero: scale 2^-127, elements +0; -0 + +0 = +0
    r = sum(block<E4>(200, {0x80}), block<E4>(3, {}), OPF_MXFP8_E4M3, OPF_SUM);
    expect(r == block<E4>(0, {}), "anchor: all zero");
    // scale 254 times 448 + 448: shared_exp 128 clamps to 127: saturated to 448
    r = sum(block<E4>(254, {0x7e}), block<E4>(254, {0x7e}), OPF_MXFP8_E4M3, OPF_SUM);
    expect(r == block<E4>(254, {0x7e}), "anchor: largest scale saturates");
    // the NaN scale and a NaN element: the NaN block
    r = sum(block<E4>(0xff, {}), block<E4>(127, {0x38}), OPF_MXFP8_E4M3, OPF_SUM);
    expect(!r.empty() && r[0] == 0xff, "anchor: NaN scale");
    r = sum(block<E4>(127, {0x7f}), block<E4>(127, {0x38}), OPF_MXFP8_E4M3, OPF_MAX);
    expect(!r.empty() && r[0] == 0xff, "anchor: NaN element");
    // AVG of 1 and 2 (E4M3) = 1.5; MXINT8 127/64 + 127/64: 254/64, scale 2, 127/64 * ... = 127
    r = sum(block<E4>(127, {0x38}), block<E4>(128, {0x38}), OPF_MXFP8_E4M3, OPF_AVG);
    expect(r == block<E4>(119, {0x7c}), "anchor: AVG 1, 2 = 1.5: scale 2^(0 - 8), 384");
    r = sum(block<MxSpecInt8>(127, {0x7f}), block<MxSpecInt8>(127, {0x7f}), OPF_MXINT8, OPF_SUM);
    expect(r == block<MxSpecInt8>(128, {0x7f}), "anchor: MXINT8 sum");
    // MXINT8 -2 + -2 = -4: scale 2^2, -1 = 0xc0; -2 alone stays -2 = 127... (-2 -> amax 2: scale 2, -1)
    r = sum(block<MxSpecInt8>(127, {0x80}), block<MxSpecInt8>(127, {0x80}), OPF_MXINT8, OPF_SUM);
    expect(r == block<MxSpecInt8>(129, {0xc0}), "anchor: MXINT8 -2 + -2");
    // MXFP4: 6 + 6 = 12: scale 2, 6; 0.5 + 0 at that scale: 0.25 -> a tie between 0 and 0.5: 0
    r = sum(block<MxSpecE2M1>(127, {0x7, 0x1}), block<MxSpecE2M1>(127, {0x7, 0x0}), OPF_MXFP4_E2M1, OPF_SUM);
    expect(r == block<MxSpecE2M1>(128, {0x7, 0x0}), "anchor: MXFP4 12, tie to 0");
    // MXFP6 E3M2 layout: element 1 straddles bytes 1 and 2
    r = sum(block<MxSpecE3M2>(127, {0x00, 0x1f}), block<MxSpecE3M2>(127, {}), OPF_MXFP6_E3M2, OPF_SUM);
    expect(r == block<MxSpecE3M2>(127, {0x00, 0x1f}) && r.size() == 25 && r[1] == 0xc0 && r[2] == 0x07,
           "anchor: MXFP6 stream");
}

// ---- 3. every pair of codes on every provider ---------------------------------------
struct Calls {
    std::string name;
    std::function<int(const void*, void*, opf_count_t)> two;
    std::function<int(const void*, const void*, void*, opf_count_t)> three;
};
std::vector<Calls> providers_of(int op_id, int kt, opf_datatype_t type, opf_count_t n)
{
    std::vector<std::string> names = {"base"};
    for (int i = 0; i < opf_component_count(); ++i) {
        opf_component_info_t c;
        if (opf_component_describe(i, &c) == OPF_SUCCESS && c.available) names.push_back(c.name);
    }
    std::vector<Calls> out;
    for (const std::string& nm : names) {
        opf_kernel2_fn* fn2 = nullptr;
        opf_kernel3_fn* fn3 = nullptr;
        opf_slot_kernels(op_id, kt, nm.c_str(), n, &fn2, &fn3);
        if (!fn2 && !fn3) continue;
        Calls c{nm, nullptr, nullptr};
        if (fn2) c.two = [fn2](const void* in, void* io, opf_count_t m) { fn2(in, io, m); return 0; };
        if (fn3) c.three = [fn3](const void* x, const void* y, void* o, opf_count_t m) { fn3(x, y, o, m); return 0; };
        out.push_back(std::move(c));
        opf_kernel_n_fn* fn = nullptr;
        if (opf_slot_kernel_n(op_id, kt, OPF_FORM_N, nm.c_str(), n, &fn) == OPF_SUCCESS && fn)
            out.push_back({nm + " n-ary k=2", nullptr, [fn](const void* x, const void* y, void* o, opf_count_t m) {
                               const void* in[2] = {x, y};
                               fn(in, 2, o, m, nullptr);
                               return 0;
                           }});
    }
    const opf_op_t op = OPF_OP_HANDLE_(op_id);
    out.push_back({"opf_reduce_local", [=](const void* in, void* io, opf_count_t m) { return opf_reduce_local(in, io, m, type, op); },
                   [=](const void* x, const void* y, void* o, opf_count_t m) { return opf_reduce_local3(x, y, o, m, type, op); }});
    out.push_back({"opf_reduce_local_n", nullptr, [=](const void* x, const void* y, void* o, opf_count_t m) {
                       const void* in[2] = {x, y};
                       return opf_reduce_local_n(in, 2, o, m, type, op);
                   }});
    return out;
}

template <class S> void check_pairs(opf_datatype_t type, const char* name)
{
    const unsigned codes = 1u << S::bits;
    const size_t pairs = size_t(codes) * codes;
    const auto largest = S::magnitudes().back().second;
    // setting 0: equal scales, 32 pairs a block; 1: element 0 the largest in
    // both (the scale pinned high), 31 pairs a block; 2: scales 127 and 124
    const char* depth = std::getenv("OPF_CHECK_DEPTH");
    const bool deep = depth && (std::string(depth) == "deep" || std::string(depth) == "slow");
    for (int setting = 0; setting < (deep ? 3 : 2); ++setting) {
        const size_t per = setting == 1 ? 31 : 32, n = (pairs + per - 1) / per;
        std::vector<uint8_t> left(n * S::bytes, 0), right(n * S::bytes, 0), want(n * S::bytes);
        for (size_t b = 0; b < n; ++b) {
            uint8_t *l = &left[b * S::bytes], *r = &right[b * S::bytes];
            l[0] = 127;
            r[0] = setting == 2 ? 124 : 127;
            for (size_t i = 0; i < 32; ++i) {
                size_t p = b * per + i - (setting == 1);
                if (setting == 1 && i == 0) {
                    mxref::write_code<S>(l, 0, largest);
                    mxref::write_code<S>(r, 0, largest);
                    continue;
                }
                p %= pairs;
                unsigned lc = unsigned(p / codes), rc = unsigned(p % codes);
                if (S::nonfinite(lc)) lc = 0;   // non-finite elements: the anchors' and the engine's
                if (S::nonfinite(rc)) rc = 0;
                mxref::write_code<S>(l, int(i), lc);
                mxref::write_code<S>(r, int(i), rc);
            }
        }
        const int kt = S::kt;
        for (auto [op_id, rop] : {std::pair{OPF_OPID_SUM, mxref::Op::Sum}, std::pair{OPF_OPID_AVG, mxref::Op::Avg},
                                  std::pair{OPF_OPID_MAX, mxref::Op::Max}, std::pair{OPF_OPID_MIN, mxref::Op::Min}}) {
            for (size_t b = 0; b < n; ++b) {
                const uint8_t* in[2] = {&left[b * S::bytes], &right[b * S::bytes]};
                mxref::reduce<S>(in, 2, &want[b * S::bytes], rop);
            }
            auto wrong = [&](const uint8_t* got) -> long {
                for (size_t b = 0; b < n; ++b) {
                    const uint8_t *w = &want[b * S::bytes], *g = got + b * S::bytes;
                    if (std::memcmp(w, g, S::bytes) != 0 && !(w[0] == 0xff && g[0] == 0xff)) return long(b);
                }
                return -1;
            };
            const std::string op = opf_op_name(OPF_OP_HANDLE_(op_id));
            for (const Calls& c : providers_of(op_id, kt, type, opf_count_t(n))) {
                const std::string where = std::string(name) + " " + op + " setting " + std::to_string(setting) + " " + c.name;
                auto report = [&](long at, const uint8_t* got) {
                    if (at < 0) return;
                    MxE<S> x, y, w, g;
                    std::memcpy(x.bytes, &left[size_t(at) * S::bytes], S::bytes);
                    std::memcpy(y.bytes, &right[size_t(at) * S::bytes], S::bytes);
                    std::memcpy(w.bytes, &want[size_t(at) * S::bytes], S::bytes);
                    std::memcpy(g.bytes, got + size_t(at) * S::bytes, S::bytes);
                    std::printf("  block %ld\n  left     %s\n  right    %s\n  expected %s\n  got      %s\n", at,
                                show(x).c_str(), show(y).c_str(), show(w).c_str(), show(g).c_str());
                };
                if (c.two) {
                    std::vector<uint8_t> io = right;
                    const int rc = c.two(left.data(), io.data(), opf_count_t(n));
                    const long at = wrong(io.data());
                    expect(rc == OPF_SUCCESS && at < 0, where + " 2-buffer");
                    if (failures < 4) report(at, io.data());
                }
                if (c.three) {
                    std::vector<uint8_t> out(n * S::bytes, 0xee);
                    const int rc = c.three(left.data(), right.data(), out.data(), opf_count_t(n));
                    const long at = wrong(out.data());
                    expect(rc == OPF_SUCCESS && at < 0, where + " 3-buffer");
                    if (failures < 4) report(at, out.data());
                }
                if (verbose) std::printf("%s: %zu blocks checked\n", where.c_str(), n);
            }
        }
    }
}

} // namespace

int main(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) verbose |= std::string(argv[i]) == "-v";
    check_codec<opf::base::MxE4M3, MxSpecE4M3>("E4M3");
    check_codec<opf::base::MxE5M2, MxSpecE5M2>("E5M2");
    check_codec<opf::base::MxE3M2, MxSpecE3M2>("E3M2");
    check_codec<opf::base::MxE2M3, MxSpecE2M3>("E2M3");
    check_codec<opf::base::MxE2M1, MxSpecE2M1>("E2M1");
    check_codec<opf::base::MxInt8, MxSpecInt8>("INT8");
    if (opf_init() != OPF_SUCCESS) {
        std::printf("opf_init failed: %s\n", opf_last_error());
        return 1;
    }
    anchors();
    check_pairs<MxSpecE4M3>(OPF_MXFP8_E4M3, "MXFP8_E4M3");
    check_pairs<MxSpecE5M2>(OPF_MXFP8_E5M2, "MXFP8_E5M2");
    check_pairs<MxSpecE3M2>(OPF_MXFP6_E3M2, "MXFP6_E3M2");
    check_pairs<MxSpecE2M3>(OPF_MXFP6_E2M3, "MXFP6_E2M3");
    check_pairs<MxSpecE2M1>(OPF_MXFP4_E2M1, "MXFP4_E2M1");
    check_pairs<MxSpecInt8>(OPF_MXINT8, "MXINT8");
    // A derived type over a block type: a vector of 3 blocks, stride 2, as 3 separate predefined calls
    {
        opf_datatype_t vec = OPF_DATATYPE_NULL;
        expect(opf_type_vector(3, 1, 2, OPF_MXFP8_E4M3, &vec) == OPF_SUCCESS && opf_type_commit(&vec) == OPF_SUCCESS,
               "vector of MXFP8_E4M3");
        std::vector<uint8_t> a(6 * 33), b(6 * 33), want;
        for (size_t i = 0; i < a.size(); ++i) a[i] = uint8_t(i * 37 + 5), b[i] = uint8_t(i * 91 + 11);
        for (size_t blk = 0; blk < 6; ++blk) a[blk * 33] = uint8_t(120 + blk), b[blk * 33] = uint8_t(124 - blk);
        want = b;
        for (int i = 0; i < 3; ++i) opf_reduce_local(&a[size_t(i) * 66], &want[size_t(i) * 66], 1, OPF_MXFP8_E4M3, OPF_SUM);
        std::vector<uint8_t> got = b;
        expect(opf_reduce_local(a.data(), got.data(), 1, vec, OPF_SUM) == OPF_SUCCESS && got == want,
               "SUM on a vector of MXFP8_E4M3 blocks: as the blocks one by one, the gaps untouched");
        opf_type_free(&vec);
    }
    // PreMulSum: its scalar is a value of the datatype, here a whole block: not offered
    opf_op_t pm = OPF_OP_NULL;
    uint8_t scalar[33] = {127};
    expect(opf_op_create_premul(scalar, OPF_MXFP8_E4M3, &pm) == OPF_ERR_TYPE, "PreMulSum on MXFP8_E4M3 refused");
    opf_finalize();
    std::printf("mx_exhaustive: %ld checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
