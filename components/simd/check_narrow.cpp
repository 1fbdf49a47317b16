// check_narrow.cpp — exhaustive check of one provider's float16 and
// bfloat16 kernels against the base: every pair of 16-bit patterns (2^32
// pairs) through MAX, MIN, SUM and PROD, 3-buffer. A development tool, not
// built by make:
//
//   g++ -std=c++20 -O2 -I include components/simd/check_narrow.cpp -o /tmp/check_narrow .libs/libopframe.so
//   OPF_MCA_mca_component_path=/tmp/simd /tmp/check_narrow avx512 [FLOAT16|BFLOAT16]
//   OPF_MCA_mca_component_path=/tmp/simd OPF_MCA_op_avx512_support= /tmp/check_narrow avx512
//
// Any NaN matches any NaN (the conformance rule); everything else must be
// the same bits.
#include <opframe/introspect.h>
#include <opframe/opframe.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

static bool same(uint16_t x, uint16_t y, int kt)
{
    const unsigned inf = kt == OPF_KT_FLOAT16 ? 0x7c00u : 0x7f80u;
    return x == y || ((x & 0x7fffu) > inf && (y & 0x7fffu) > inf);
}

int main(int argc, char **argv)
{
    const char *provider = argc > 1 ? argv[1] : "avx512";
    const char *only = argc > 2 ? argv[2] : nullptr;
    if (opf_init() != OPF_SUCCESS) return 2;
    const int kts[] = {OPF_KT_FLOAT16, OPF_KT_BFLOAT16};
    const int ops[] = {OPF_OPID_MAX, OPF_OPID_MIN, OPF_OPID_SUM, OPF_OPID_PROD};
    std::vector<uint16_t> a(65536), b(65536), want(65536), got(65536);
    for (unsigned i = 0; i < 65536; ++i) b[i] = uint16_t(i);
    long total_bad = 0;
    for (int kt : kts) {
        if (only && std::strcmp(only, opf_kernel_type_name(kt)) != 0) continue;
        for (int op : ops) {
            opf_kernel2_fn *ref2, *fn2;
            opf_kernel3_fn *ref3, *fn3;
            if (opf_slot_kernels(op, kt, "base", 0, &ref2, &ref3) != OPF_SUCCESS ||
                opf_slot_kernels(op, kt, provider, 0, &fn2, &fn3) != OPF_SUCCESS || !fn3) {
                std::printf("%s %s: %s offers no kernel\n", opf_op_name(OPF_OP_HANDLE_(op)), opf_kernel_type_name(kt),
                            provider);
                continue;
            }
            long bad = 0;
            for (unsigned x = 0; x < 65536; ++x) {
                for (auto &v : a) v = uint16_t(x);
                ref3(a.data(), b.data(), want.data(), 65536);
                fn3(a.data(), b.data(), got.data(), 65536);
                for (unsigned i = 0; i < 65536; ++i)
                    if (!same(want[i], got[i], kt) && bad++ < 5)
                        std::printf("  %04x op %04x: base %04x, %s %04x\n", x, i, want[i], provider, got[i]);
            }
            std::printf("%s %s %s: %ld of 2^32 pairs differ\n", provider, opf_op_name(OPF_OP_HANDLE_(op)),
                        opf_kernel_type_name(kt), bad);
            total_bad += bad;
        }
    }
    opf_finalize();
    return total_bad != 0;
}
