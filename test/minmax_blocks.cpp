// minmax_blocks.cpp — MAX / MIN on FLOAT and DOUBLE in long buffers with
// sparse special values (issue 36). The SIMD components compute the bodies
// of these slots by blocks of registers with fewer instructions than the
// exact form and fall back to it only for a block holding a value those
// get wrong (avx512: a NaN in either input; avx2 MAX: a NaN in in1, its
// zeros being fixed in the lanes): both paths must be taken, which needs blocks with and blocks without specials. The
// conformance engine's random data puts a special in nearly every block;
// here the density of specials (NaN of either sign, quiet or signalling,
// +-0, +-inf, denormals, +-1) runs from every element to one in 400, the
// lengths and offsets vary, and each call is checked 3-buffer, 2-buffer and
// with out = in1, against a reference written here (NaN from either operand
// propagates, any NaN matches any NaN, -0 < +0), for every available
// component and the selected table. No randomness between runs (fixed seed).
//
// Then the adversarial part (adversarial() below): integer-valued data
// (-3..3, zeros of either sign on both sides, never a NaN or a -0 against a
// +0), which a kernel computes on its fast path, with ONE lane planted per
// call at every element position of a buffer that spans several blocks of
// every component (so at every lane of a register and on both sides of
// every block boundary): -0 against +0 and +0 against -0, a NaN of either
// sign in either operand; and whole buffers of -0 against +0 both ways.
// 3-buffer, 2-buffer and out = in1, at an aligned start and one element off.
// A fast-path condition that misses one such lane fails here.
#include <opframe/introspect.h>
#include <opframe/opframe.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

int checks = 0, failures = 0;

template <class T> bool same(T x, T y)
{
    if (x != x && y != y) return true;
    return std::memcmp(&x, &y, sizeof x) == 0;
}

template <class T> T reference(bool is_max, T a, T b)
{
    if (a != a) return a;
    if (b != b) return b;
    if (a == b) return (std::signbit(a) == is_max) ? b : a;   // zeros: MAX the positive, MIN the negative
    return is_max ? (a > b ? a : b) : (a < b ? a : b);
}

template <class T> void run(const char *provider, int op, int kt, std::mt19937_64 &rng)
{
    using L = std::numeric_limits<T>;
    const T specials[] = {T(0), -T(0), L::quiet_NaN(), -L::quiet_NaN(), L::signaling_NaN(), L::infinity(),
                          -L::infinity(), L::denorm_min(), -L::denorm_min(), T(1), T(-1)};
    const bool is_max = op == OPF_OPID_MAX;
    std::uniform_real_distribution<double> moderate(-100.0, 100.0);
    for (int trial = 0; trial < 120; ++trial) {
        const std::size_t n = 1 + rng() % 3000, off = rng() % 8;
        const unsigned density = 1 + unsigned(rng() % 400);
        opf_kernel2_fn *f2 = nullptr;
        opf_kernel3_fn *f3 = nullptr;
        if (opf_slot_kernels(op, kt, provider, opf_count_t(n), &f2, &f3) != OPF_SUCCESS || !f2 || !f3) return;
        std::vector<T> a(n + 8), b(n + 8), want(n + 8), out(n + 8);
        for (std::size_t i = 0; i < n + 8; ++i) {
            a[i] = T(moderate(rng));
            b[i] = T(moderate(rng));
            if (rng() % density == 0) a[i] = specials[rng() % 11];
            if (rng() % density == 0) b[i] = specials[rng() % 11];
            if (rng() % (4 * density) == 0) b[i] = a[i];
        }
        for (std::size_t i = 0; i < n + 8; ++i) want[i] = reference(is_max, a[i], b[i]);
        const auto compare = [&](const std::vector<T> &got, const char *form) {
            ++checks;
            for (std::size_t i = 0; i < n; ++i)
                if (!same(got[off + i], want[off + i])) {
                    if (++failures <= 10)
                        std::printf("FAIL %s %s %s %s n=%zu i=%zu a=%g b=%g want=%g got=%g\n", provider,
                                    is_max ? "MAX" : "MIN", opf_kernel_type_name(kt), form, n, i, double(a[off + i]),
                                    double(b[off + i]), double(want[off + i]), double(got[off + i]));
                    return;
                }
        };
        f3(a.data() + off, b.data() + off, out.data() + off, opf_count_t(n));
        compare(out, "3-buffer");
        std::vector<T> inout = b;
        f2(a.data() + off, inout.data() + off, opf_count_t(n));
        compare(inout, "2-buffer");
        std::vector<T> in1 = a;
        f3(in1.data() + off, b.data() + off, in1.data() + off, opf_count_t(n));
        compare(in1, "out = in1");
    }
}

// One call of each form on a / b, checked against the reference.
template <class T>
void check_forms(const char *provider, bool is_max, int kt, opf_kernel2_fn *f2, opf_kernel3_fn *f3,
                 const std::vector<T> &a, const std::vector<T> &b, std::size_t off, std::size_t n, const char *what,
                 std::size_t at)
{
    std::vector<T> out(a.size()), inout = b, in1 = a;
    f3(a.data() + off, b.data() + off, out.data() + off, opf_count_t(n));
    f2(a.data() + off, inout.data() + off, opf_count_t(n));
    f3(in1.data() + off, b.data() + off, in1.data() + off, opf_count_t(n));
    const std::vector<T> *got[3] = {&out, &inout, &in1};
    const char *forms[3] = {"3-buffer", "2-buffer", "out = in1"};
    for (int f = 0; f < 3; ++f) {
        ++checks;
        for (std::size_t i = off; i < off + n; ++i)
            if (!same((*got[f])[i], reference(is_max, a[i], b[i]))) {
                if (++failures <= 10)
                    std::printf("FAIL %s %s %s %s adversarial %s at %zu (off %zu, n %zu): element %zu a=%g b=%g got=%g\n",
                                provider, is_max ? "MAX" : "MIN", opf_kernel_type_name(kt), forms[f], what, at, off, n,
                                i - off, double(a[i]), double(b[i]), double((*got[f])[i]));
                break;
            }
    }
}

template <class T> void adversarial(const char *provider, int op, int kt, std::mt19937_64 &rng)
{
    using L = std::numeric_limits<T>;
    const bool is_max = op == OPF_OPID_MAX;
    // 1 KiB (four of the largest block: avx2's 8 registers of 32 bytes,
    // avx512's 4 of 64) and two 64-byte registers more, and an odd tail
    const std::size_t n = 1024 / sizeof(T) + 128 / sizeof(T) + 5;
    opf_kernel2_fn *f2 = nullptr;
    opf_kernel3_fn *f3 = nullptr;
    if (opf_slot_kernels(op, kt, provider, opf_count_t(n), &f2, &f3) != OPF_SUCCESS || !f2 || !f3) return;
    std::vector<T> a0(n + 1), b0(n + 1);
    for (std::size_t i = 0; i < n + 1; ++i) {
        // -4 stands for -0; a zero facing a zero takes its sign
        const int x = int(rng() % 9) - 4, y = int(rng() % 9) - 4;
        a0[i] = x == -4 ? -T(0) : T(x);
        b0[i] = (y == -4 || y == 0) ? (x == -4 ? -T(0) : x == 0 ? T(0) : y == -4 ? -T(0) : T(0)) : T(y);
    }
    const T nan = L::quiet_NaN();
    struct Plant { const char *what; T a, b; bool a_keeps, b_keeps; };
    const Plant plants[] = {{"-0 vs +0", -T(0), T(0), false, false}, {"+0 vs -0", T(0), -T(0), false, false},
                            {"NaN in a", nan, T(0), false, true},    {"NaN in b", T(0), nan, true, false},
                            {"-NaN in a", -nan, T(0), false, true},  {"-NaN in b", T(0), -nan, true, false}};
    for (std::size_t off : {std::size_t(0), std::size_t(1)})
        for (const Plant &pl : plants)
            for (std::size_t at = 0; at < n; ++at) {
                std::vector<T> a = a0, b = b0;
                a[off + at] = pl.a_keeps ? a[off + at] : pl.a;
                b[off + at] = pl.b_keeps ? b[off + at] : pl.b;
                check_forms(provider, is_max, kt, f2, f3, a, b, off, n, pl.what, at);
            }
    for (bool minus_first : {false, true}) {   // whole buffers, both orders
        const std::vector<T> m(n + 1, -T(0)), p(n + 1, T(0));
        check_forms(provider, is_max, kt, f2, f3, minus_first ? m : p, minus_first ? p : m, 0, n,
                    minus_first ? "all -0 vs +0" : "all +0 vs -0", 0);
    }
}

} // namespace

int main()
{
    if (opf_init() != OPF_SUCCESS) return 2;
    std::vector<std::string> providers;
    for (int i = 0; i < opf_component_count(); ++i) {
        opf_component_info_t c;
        if (opf_component_describe(i, &c) == OPF_SUCCESS && c.available) providers.push_back(c.name);
    }
    providers.push_back("selected");
    std::mt19937_64 rng(36);
    for (const std::string &p : providers)
        for (int op : {OPF_OPID_MAX, OPF_OPID_MIN}) {
            run<float>(p.c_str(), op, OPF_KT_FLOAT, rng);
            run<double>(p.c_str(), op, OPF_KT_DOUBLE, rng);
            adversarial<float>(p.c_str(), op, OPF_KT_FLOAT, rng);
            adversarial<double>(p.c_str(), op, OPF_KT_DOUBLE, rng);
        }
    std::printf("minmax_blocks: %d checks, %d failed\n", checks, failures);
    opf_finalize();
    return failures ? 1 : 0;
}
