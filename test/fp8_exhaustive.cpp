// fp8_exhaustive.cpp — FLOAT8_E4M3, FLOAT8_E5M2 and the FNUZ pair on every one of the
// 65,536 (left, right) input pairs, for every op the library defines on
// them, against the independent reference of test/engine/reference.h (which
// decodes and rounds by the OCP bit layout and the definition of rounding,
// never with library code). Every provider is checked: the base, each
// available component's own kernels, the selected table, and the public
// calls opf_reduce_local / opf_reduce_local3 on the predefined handles;
// 2-buffer and 3-buffer kernels, the 3-buffer one also one element off its
// alignment (heads and tails of the SIMD loops). Results compare bit for bit,
// except that any NaN matches any NaN. No randomness: the inputs are all of
// them.
//
// Usage: fp8_exhaustive [-v]   (components: OPF_MCA_mca_component_path, as
// test/fp8_exhaustive.sh sets it)

// reference.h is the whole reference (every type's conversions, the spec's
// datatype table); this test uses its fp8 part.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "test/engine/reference.h"
#pragma GCC diagnostic pop

#include <opframe/introspect.h>
#include <opframe/opframe.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

namespace {

const char* or_null(const char* s) { return s ? s : "(null)"; }

int failures = 0, checks = 0;
bool verbose = false;

void expect(bool ok, const std::string& what)
{
    ++checks;
    if (!ok) {
        ++failures;
        std::printf("FAIL %s\n", what.c_str());
    }
}

// The reference itself, on values the OCP OFP8 spec's tables state (largest
// and smallest values, the specials) and on rounding cases worked out by
// hand: a reference that rounds wrongly would pass a library that does too.
void reference_anchors()
{
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    struct Anchor { uint8_t code; float value; };
    for (Anchor a : {Anchor{0x7e, 448.0f}, {0x01, 0x1p-9f}, {0x07, 7 * 0x1p-9f}, {0x08, 0x1p-6f}, {0x38, 1.0f},
                     {0x39, 1.125f}, {0xfe, -448.0f}, {0x80, -0.0f}})
        expect(widen(F8E4M3{a.code}) == a.value && std::signbit(widen(F8E4M3{a.code})) == std::signbit(a.value),
               "E4M3 decode " + hex_bits(a.code, 2));
    expect(std::isnan(widen(F8E4M3{0x7f})) && std::isnan(widen(F8E4M3{0xff})), "E4M3 NaN is s.1111.111");
    expect(!std::isnan(widen(F8E4M3{0x7e})) && !std::isnan(widen(F8E4M3{0x78})), "E4M3 1111 exponent is finite");
    for (Anchor a : {Anchor{0x7b, 57344.0f}, {0x01, 0x1p-16f}, {0x04, 0x1p-14f}, {0x3c, 1.0f}, {0x3d, 1.25f}})
        expect(widen(F8E5M2{a.code}) == a.value, "E5M2 decode " + hex_bits(a.code, 2));
    expect(widen(F8E5M2{0x7c}) == inf && widen(F8E5M2{0xfc}) == -inf, "E5M2 inf");
    expect(std::isnan(widen(F8E5M2{0x7d})) && std::isnan(widen(F8E5M2{0xff})), "E5M2 NaN");

    struct Round { float in; uint8_t code; };
    for (Round r : {Round{464.0f, 0x7e},            // tie between 448 and (480): to even, 448
                    {464.5f, 0x7f}, {479.0f, 0x7f}, // beyond: NaN, no saturation
                    {1e6f, 0x7f}, {inf, 0x7f}, {-inf, 0xff}, {nan, 0x7f},
                    {1.0625f, 0x38},                // 1 + half an ulp: tie to even, 1
                    {1.1875f, 0x3a},                // 1.125 + half an ulp: tie to even, 1.25
                    {0x1p-10f, 0x00},               // half the smallest subnormal: tie to 0
                    {3 * 0x1p-10f, 0x02},           // 1.5 subnormal ulps: tie to even, 2
                    {-0x1p-11f, 0x80},              // underflow keeps the sign
                    {15 * 0x1p-10f, 0x08}})         // 7.5 ulps: rounds up into the smallest normal
        expect(E4M3Format::encode(r.in) == r.code, "E4M3 encode " + std::to_string(r.in));
    for (Round r : {Round{61440.0f, 0x7c},          // tie between 57344 and 65536: to even, inf
                    {61439.0f, 0x7b}, {57344.0f, 0x7b}, {-1e9f, 0xfc}, {inf, 0x7c},
                    {1.125f, 0x3c},                 // 1 + half an ulp: tie to even, 1
                    {1.375f, 0x3e},                 // 1.25 + half an ulp: tie to even, 1.5
                    {0x1p-17f, 0x00}, {3 * 0x1p-17f, 0x02}})
        expect(E5M2Format::encode(r.in) == r.code, "E5M2 encode " + std::to_string(r.in));
    expect(std::isnan(widen(F8E5M2{E5M2Format::encode(nan)})), "E5M2 encode NaN");
}

// Calls of one provider on n elements: the 2-buffer and the 3-buffer form
// (either may be missing); they return an OPF_* code.
struct Calls {
    std::string name;
    std::function<int(const void*, void*, opf_count_t)> two;
    std::function<int(const void*, const void*, void*, opf_count_t)> three;
};

template <class E> std::vector<Calls> providers_of(int op_id, int kt, opf_datatype_t type)
{
    std::vector<std::string> names = {"base"};
    for (int i = 0; i < opf_component_count(); ++i) {
        opf_component_info_t c;
        if (opf_component_describe(i, &c) == OPF_SUCCESS && c.available)
            names.push_back(c.name);
    }
    std::vector<Calls> out;
    for (const std::string& n : names) {
        opf_kernel2_fn* fn2 = nullptr;
        opf_kernel3_fn* fn3 = nullptr;
        opf_slot_kernels(op_id, kt, n.c_str(), 65536, &fn2, &fn3);
        if (!fn2 && !fn3)
            continue;   // a component that offers nothing here
        Calls c{n, nullptr, nullptr};
        if (fn2) c.two = [fn2](const void* in, void* io, opf_count_t m) { fn2(in, io, m); return 0; };
        if (fn3) c.three = [fn3](const void* x, const void* y, void* o, opf_count_t m) { fn3(x, y, o, m); return 0; };
        out.push_back(std::move(c));
    }
    opf_kernel2_fn* fn2 = nullptr;
    opf_kernel3_fn* fn3 = nullptr;
    if (opf_slot_kernels(op_id, kt, nullptr, 65536, &fn2, &fn3) == OPF_SUCCESS)
        out.push_back({std::string("selected->") + or_null(opf_slot_provider(op_id, kt, 2, 65536)),
                       [fn2](const void* in, void* io, opf_count_t m) { fn2(in, io, m); return 0; },
                       [fn3](const void* x, const void* y, void* o, opf_count_t m) { fn3(x, y, o, m); return 0; }});
    const opf_op_t op = OPF_OP_HANDLE_(op_id);
    out.push_back({"opf_reduce_local",
                   [=](const void* in, void* io, opf_count_t m) { return opf_reduce_local(in, io, m, type, op); },
                   [=](const void* x, const void* y, void* o, opf_count_t m) {
                       return opf_reduce_local3(x, y, o, m, type, op);
                   }});
    return out;
}

// The first element where got differs from want (any NaN matching any NaN), or -1.
template <class E> long first_wrong(const std::vector<E>& want, const E* got, size_t from, size_t n)
{
    for (size_t i = from; i < from + n; ++i)
        if (!same(want[i], got[i - from]))
            return long(i);
    return -1;
}

template <class E>
void check_format(int kt, opf_datatype_t type, const char* type_name)
{
    constexpr size_t N = 65536;
    std::vector<E> left(N), right(N);
    for (size_t i = 0; i < N; ++i) {
        left[i] = E{uint8_t(i >> 8)};
        right[i] = E{uint8_t(i)};
    }
    // The same pairs in order of their larger magnitude: registers of
    // pairs alike in size, so that a kernel which screens a register (takes
    // a faster form where no code in it passes some magnitude) gets every
    // pair below its threshold in a register of its fast form; in the order
    // above, a register of 64 codes holds codes of every binade.
    std::vector<size_t> by_size(N);
    for (size_t i = 0; i < N; ++i) by_size[i] = i;
    const auto larger = [&](size_t i) { return std::max(left[i].bits & 0x7f, right[i].bits & 0x7f); };
    std::stable_sort(by_size.begin(), by_size.end(), [&](size_t x, size_t y) { return larger(x) < larger(y); });
    std::vector<E> left_s(N), right_s(N);
    for (size_t i = 0; i < N; ++i) left_s[i] = left[by_size[i]], right_s[i] = right[by_size[i]];
    int slots = 0;
    for (int op_id = 1; op_id < OPF_OPID_COUNT; ++op_id) {
        const std::string op = or_null(opf_op_name(OPF_OP_HANDLE_(op_id)));
        const RefFn<E> ref = reference_for<E>(op_id);
        const bool exists = opf_slot_exists(op_id, kt) == 1;
        int valid = -1;
        opf_op_valid_for_type(OPF_OP_HANDLE_(op_id), type, &valid);
        // The library's slots and valid ops are the spec's (Group::Floating).
        expect(exists == (ref != nullptr) && (valid == 1) == spec_op_valid(op_id, Group::Floating),
               op + " " + type_name + ": slot " + std::to_string(exists) + ", valid " + std::to_string(valid) +
                   ", spec " + std::to_string(ref != nullptr));
        if (!exists || !ref)
            continue;
        ++slots;
        std::vector<E> want(N), want_s(N);
        ref(left.data(), right.data(), want.data(), N);
        for (size_t i = 0; i < N; ++i) want_s[i] = want[by_size[i]];
        if (op_id == OPF_OPID_AVG) {   // the mean of two finite values lies between them: never NaN, never inf
            long outside = 0;
            for (size_t i = 0; i < N; ++i) {
                const float a = widen(left[i]), b = widen(right[i]), m = widen(want[i]);
                outside += std::isfinite(a) && std::isfinite(b) && !(m >= std::min(a, b) && m <= std::max(a, b));
            }
            expect(outside == 0, std::string(type_name) + " AVG: " + std::to_string(outside) +
                                     " means of finite pairs outside [min, max]");
        }
        for (const Calls& p : providers_of<E>(op_id, kt, type)) {
            const std::string where = std::string(type_name) + " " + op + " " + p.name;
            auto report = [&](const char* form, long at, const E* got, size_t from) {
                if (at < 0)
                    return;
                std::printf("  %s %s: left %s right %s expected %s got %s\n", where.c_str(), form,
                            show(left[size_t(at)]).c_str(), show(right[size_t(at)]).c_str(),
                            show(want[size_t(at)]).c_str(), show(got[size_t(at) - from]).c_str());
            };
            if (p.two) {
                std::vector<E> io = right;
                const int rc = p.two(left.data(), io.data(), N);
                const long at = first_wrong(want, io.data(), 0, N);
                expect(rc == OPF_SUCCESS && at < 0, where + " 2-buffer");
                report("2-buffer", at, io.data(), 0);
            }
            if (p.three) {
                std::vector<E> out(N, E{0xee});   // 0xee: a finite value in both formats, never NaN
                int rc = p.three(left.data(), right.data(), out.data(), N);
                long at = first_wrong(want, out.data(), 0, N);
                expect(rc == OPF_SUCCESS && at < 0, where + " 3-buffer");
                report("3-buffer", at, out.data(), 0);
                // one element on: other heads, other tails (N - 1 is odd)
                std::vector<E> shifted(N, E{0xee});
                rc = p.three(left.data() + 1, right.data() + 1, shifted.data() + 1, N - 1);
                at = first_wrong(want, shifted.data() + 1, 1, N - 1);
                expect(rc == OPF_SUCCESS && at < 0, where + " 3-buffer, one element on");
                report("3-buffer, one element on", at, shifted.data() + 1, 1);
                // in order of size (reported with the index in that order)
                std::vector<E> sized(N, E{0xee});
                rc = p.three(left_s.data(), right_s.data(), sized.data(), N);
                at = first_wrong(want_s, sized.data(), 0, N);
                expect(rc == OPF_SUCCESS && at < 0, where + " 3-buffer, pairs in order of size");
                if (at >= 0)
                    std::printf("  %s 3-buffer, pairs in order of size: left %s right %s expected %s got %s\n",
                                where.c_str(), show(left_s[size_t(at)]).c_str(), show(right_s[size_t(at)]).c_str(),
                                show(want_s[size_t(at)]).c_str(), show(sized[size_t(at)]).c_str());
            }
            if (verbose)
                std::printf("%s: 65536 pairs checked\n", where.c_str());
        }
    }
    expect(slots == 7, std::string(type_name) + ": 7 ops (MAX MIN SUM PROD REPLACE NO_OP AVG), found " +
                           std::to_string(slots));
}

} // namespace

int main(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i)
        verbose |= std::string(argv[i]) == "-v";
    reference_anchors();
    if (opf_init() != OPF_SUCCESS) {
        std::printf("opf_init failed: %s\n", opf_last_error());
        return 1;
    }
    opf_count_t size = 0;
    int kt = -1;
    for (auto [type, kt_want, name] : {std::tuple{OPF_FLOAT8_E4M3, int(OPF_KT_FLOAT8_E4M3), "FLOAT8_E4M3"},
                                       std::tuple{OPF_FLOAT8_E5M2, int(OPF_KT_FLOAT8_E5M2), "FLOAT8_E5M2"},
                                       std::tuple{OPF_FLOAT8_E4M3FNUZ, int(OPF_KT_FLOAT8_E4M3FNUZ), "FLOAT8_E4M3FNUZ"},
                                       std::tuple{OPF_FLOAT8_E5M2FNUZ, int(OPF_KT_FLOAT8_E5M2FNUZ), "FLOAT8_E5M2FNUZ"}}) {
        expect(opf_type_size(type, &size) == OPF_SUCCESS && size == 1, std::string(name) + " size 1");
        expect(opf_type_kernel_type(type, &kt) == OPF_SUCCESS && kt == kt_want, std::string(name) + " kernel type");
        expect(std::string(or_null(opf_type_name(type))) == name, std::string(name) + " type name");
        expect(std::string(or_null(opf_kernel_type_name(kt_want))) == name, std::string(name) + " kernel type name");
    }
    check_format<F8E4M3>(OPF_KT_FLOAT8_E4M3, OPF_FLOAT8_E4M3, "FLOAT8_E4M3");
    check_format<F8E5M2>(OPF_KT_FLOAT8_E5M2, OPF_FLOAT8_E5M2, "FLOAT8_E5M2");
    check_format<F8E4M3FNUZ>(OPF_KT_FLOAT8_E4M3FNUZ, OPF_FLOAT8_E4M3FNUZ, "FLOAT8_E4M3FNUZ");
    check_format<F8E5M2FNUZ>(OPF_KT_FLOAT8_E5M2FNUZ, OPF_FLOAT8_E5M2FNUZ, "FLOAT8_E5M2FNUZ");
    opf_finalize();
    std::printf("fp8_exhaustive: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
