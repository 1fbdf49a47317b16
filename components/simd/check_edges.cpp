// check_edges.cpp — randomized edge check of one provider against the base,
// beyond the conformance harness's placements: every slot the provider
// offers, random counts (0..3000), each buffer at its own random
// element-aligned offset (so 16-byte elements also sit at 8 mod 16), all four
// aliasings (2-buffer in place, 3-buffer distinct, out == in1, out == in2),
// operands often equal (ties, signed zeros). A development tool, not built
// by make:
//
//   g++ -std=c++20 -O2 -I include components/simd/check_edges.cpp -o /tmp/check_edges .libs/libopframe.so
//   OPF_MCA_mca_component_path=/tmp/simd /tmp/check_edges avx2 [ROUNDS] [SEED]
//
// Results compare as the conformance rule says: any NaN matches any NaN,
// padding bytes of the pairs do not count.
#include <opframe/introspect.h>
#include <opframe/opframe.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace {

// Layout of a kernel type as (offset, size, kind) fields; kind: 'i' integer
// bits, 'h' binary16, 'b' bfloat16, 'f' float, 'd' double.
struct Field {
    int offset, size;
    char kind;
};
std::vector<Field> fields(int kt)
{
    switch (kt) {
    case OPF_KT_FLOAT16: return {{0, 2, 'h'}};
    case OPF_KT_BFLOAT16: return {{0, 2, 'b'}};
    case OPF_KT_FLOAT: return {{0, 4, 'f'}};
    case OPF_KT_DOUBLE: return {{0, 8, 'd'}};
    case OPF_KT_C_FLOAT_COMPLEX: return {{0, 4, 'f'}, {4, 4, 'f'}};
    case OPF_KT_C_DOUBLE_COMPLEX: return {{0, 8, 'd'}, {8, 8, 'd'}};
    case OPF_KT_FLOAT_INT: return {{0, 4, 'f'}, {4, 4, 'i'}};
    case OPF_KT_DOUBLE_INT: return {{0, 8, 'd'}, {8, 4, 'i'}};
    case OPF_KT_LONG_INT: return {{0, 8, 'i'}, {8, 4, 'i'}};
    case OPF_KT_2INT: return {{0, 4, 'i'}, {4, 4, 'i'}};
    case OPF_KT_SHORT_INT: return {{0, 2, 'i'}, {4, 4, 'i'}};
    case OPF_KT_2FLOAT: return {{0, 4, 'f'}, {4, 4, 'f'}};
    case OPF_KT_2DOUBLE: return {{0, 8, 'd'}, {8, 8, 'd'}};
    default: return {{0, opf_kernel_type_extent(kt), 'i'}};
    }
}
int alignment(int kt)
{
    const int ext = opf_kernel_type_extent(kt);
    return ext > 8 ? 8 : ext;   // 16-byte kernel types offered here are 8-aligned
}

bool is_nan(const unsigned char *p, char kind)
{
    uint64_t bits = 0;
    switch (kind) {
    case 'h': std::memcpy(&bits, p, 2); return (bits & 0x7fff) > 0x7c00;
    case 'b': std::memcpy(&bits, p, 2); return (bits & 0x7fff) > 0x7f80;
    case 'f': std::memcpy(&bits, p, 4); return (bits & 0x7fffffffu) > 0x7f800000u;
    case 'd': std::memcpy(&bits, p, 8); return (bits & ~(1ull << 63)) > 0x7ff0000000000000ull;
    default: return false;
    }
}

// Index of the first element that differs, or -1.
long first_difference(int kt, const unsigned char *a, const unsigned char *b, long n)
{
    const int ext = opf_kernel_type_extent(kt);
    const std::vector<Field> fs = fields(kt);
    for (long i = 0; i < n; ++i)
        for (const Field &f : fs) {
            const unsigned char *x = a + i * ext + f.offset, *y = b + i * ext + f.offset;
            if (std::memcmp(x, y, f.size) != 0 && !(is_nan(x, f.kind) && is_nan(y, f.kind))) return i;
        }
    return -1;
}

} // namespace

int main(int argc, char **argv)
{
    const char *provider = argc > 1 ? argv[1] : "avx2";
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 200;
    const uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 0) : 1;
    if (opf_init() != OPF_SUCCESS) return 2;
    std::mt19937_64 rng(seed);
    long calls = 0, failures = 0, slots = 0;
    for (int op = 1; op < OPF_OPID_COUNT; ++op)
        for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
            opf_kernel2_fn *f2, *r2;
            opf_kernel3_fn *f3, *r3;
            if (opf_slot_kernels(op, kt, provider, 0, &f2, &f3) != OPF_SUCCESS || !f2 || !f3) continue;
            opf_slot_kernels(op, kt, "base", 0, &r2, &r3);
            ++slots;
            const int ext = opf_kernel_type_extent(kt), al = alignment(kt);
            for (int r = 0; r < rounds; ++r) {
                const long n = long(rng() % 3001);
                const std::size_t bytes = std::size_t(n) * ext;
                std::vector<unsigned char> mem_a(bytes + 256), mem_b(bytes + 256), mem_o(bytes + 256);
                auto align64 = [](std::vector<unsigned char> &m) {
                    return m.data() + ((64 - reinterpret_cast<uintptr_t>(m.data()) % 64) % 64);
                };
                unsigned char *a = align64(mem_a) + al * (rng() % (128 / al));
                unsigned char *b = align64(mem_b) + al * (rng() % (128 / al));
                unsigned char *o = align64(mem_o) + al * (rng() % (128 / al));
                for (std::size_t i = 0; i < bytes; ++i) a[i] = (unsigned char)rng(), b[i] = (unsigned char)rng();
                for (long i = 0; i < n; ++i)
                    if (rng() % 4 == 0) std::memcpy(b + i * ext, a + i * ext, ext);   // ties
                    else if (rng() % 8 == 0) {   // small integers and zeros of either sign in every field
                        for (const Field &f : fields(kt)) {
                            std::memset(a + i * ext + f.offset, 0, f.size);
                            std::memset(b + i * ext + f.offset, 0, f.size);
                            a[i * ext + f.offset + f.size - 1] = (unsigned char)(rng() % 2 ? 0x80 : 0);
                            b[i * ext + f.offset + f.size - 1] = (unsigned char)(rng() % 2 ? 0x80 : 0);
                            a[i * ext + f.offset] |= (unsigned char)(rng() % 3);
                        }
                    }
                const int alias = int(rng() % 4);
                std::vector<unsigned char> want(bytes), got_a(a, a + bytes), got_b(b, b + bytes);
                std::vector<unsigned char> in_a(a, a + bytes), in_b(b, b + bytes);
                r3(in_a.data(), in_b.data(), want.data(), n);   // the reference, distinct buffers
                unsigned char *result;
                switch (alias) {
                case 0: f2(a, b, n); result = b; break;
                case 1: f3(a, b, o, n); result = o; break;
                case 2: f3(a, b, a, n); result = a; break;
                default: f3(a, b, b, n); result = b; break;
                }
                ++calls;
                const long bad = first_difference(kt, want.data(), result, n);
                if (bad >= 0) {
                    if (++failures <= 10)
                        std::printf("FAIL %s %s %s n=%ld alias=%d offsets a%%64=%ld b%%64=%ld o%%64=%ld: element %ld\n",
                                    provider, opf_op_name(OPF_OP_HANDLE_(op)), opf_kernel_type_name(kt), n, alias,
                                    long(reinterpret_cast<uintptr_t>(a) % 64), long(reinterpret_cast<uintptr_t>(b) % 64),
                                    long(reinterpret_cast<uintptr_t>(o) % 64), bad);
                }
            }
        }
    std::printf("%s: %ld slots, %ld calls, %ld failures (seed %llu)\n", provider, slots, calls, failures,
                (unsigned long long)seed);
    opf_finalize();
    return failures != 0;
}
