// cuda_conformance.cpp — the cuda component on a GPU, against the base, bit
// for bit (any NaN matches any NaN, padding ignored).
//
// For every slot the component serves on CUDA memory, at the lengths
// {0, 1, 2, 3, 7, 8, 15, 16, 17, 31, 33, 63, 64, 65, 127, 1000, 4099}, with the
// buffers aligned, all misaligned by one element, at different phases (no
// common 16-byte alignment), and at an odd byte address:
//   - synchronous calls (opf_reduce_local / opf_reduce_local3) on device
//     memory: 2-buffer, 3-buffer, out = in1, out = in2;
//   - stream calls (opf_cuda_reduce_local / opf_cuda_reduce_local3 of cuda.h)
//     on a non-blocking stream: the same four forms;
//   - mixed host / device calls, on both sides of op_cuda_staging_min_count
//     (host path and staged device path), and managed memory;
// the result is copied back and compared with the base's kernel
// (opf_slot_kernels provider "base") on the same data; inputs must be
// unchanged and the bytes around the output untouched. Then: every slot the
// GPU can compute exactly is served by the component, types it cannot
// compute are refused on device memory, stream calls refuse inaccessible host
// memory, a count above 2^31 elements, and op_cuda_errors stays 0.
//
// Usage: cuda_conformance [--seed N] [--quick] [--device N] [-v]
// Exit status: 0 passed, 1 failed, 77 skipped (no CUDA driver or device).
#include <cuda_runtime_api.h>
#include <opframe/cuda.h>
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

#include "test/cuda_testdata.h"

namespace {

using namespace cuda_test;
namespace ob = opf::base;


#define CUDA_OK(call)                                                                                              \
    do {                                                                                                           \
        const cudaError_t e_ = (call);                                                                             \
        if (e_ != cudaSuccess) {                                                                                   \
            std::printf("FATAL: %s: %s (%s)\n", #call, cudaGetErrorName(e_), cudaGetErrorString(e_));             \
            std::exit(1);                                                                                          \
        }                                                                                                          \
    } while (0)

// ---- memory regions: device, host, managed -----------------------------------------
enum Kind { kDevice, kHost, kManaged };

constexpr std::size_t kGuard = 256;
constexpr unsigned char kGuardByte = 0xa5;

// The first byte of [p, p + len) that is not kGuardByte, or nullptr (block
// by block: regions are sized for the longest count, and a byte loop over
// them was most of a quick run's time).
const unsigned char *first_unguarded(const unsigned char *p, std::size_t len)
{
    static const std::vector<unsigned char> guards(4096, kGuardByte);
    for (std::size_t at = 0; at < len; at += guards.size()) {
        const std::size_t step = std::min(guards.size(), len - at);
        if (std::memcmp(p + at, guards.data(), step) == 0) continue;
        for (std::size_t k = at;; ++k)
            if (p[k] != kGuardByte) return p + k;
    }
    return nullptr;
}

struct Region {
    Kind kind;
    unsigned char *raw = nullptr;
    std::size_t size = 0;
    Region(Kind k, std::size_t bytes) : kind(k), size(bytes + 2 * kGuard + 64)
    {
        if (k == kDevice) CUDA_OK(cudaMalloc(reinterpret_cast<void **>(&raw), size));
        else if (k == kManaged) CUDA_OK(cudaMallocManaged(reinterpret_cast<void **>(&raw), size));
        else raw = static_cast<unsigned char *>(std::aligned_alloc(256, (size + 255) / 256 * 256));
    }
    ~Region()
    {
        if (kind == kHost) std::free(raw);
        else cudaFree(raw);
    }
    Region(const Region &) = delete;
    Region &operator=(const Region &) = delete;
    unsigned char *at(std::size_t offset) { return raw + kGuard + offset; }
    void reset()
    {
        if (kind == kHost) {
            std::memset(raw, kGuardByte, size);
        } else {
            CUDA_OK(cudaMemset(raw, kGuardByte, size));
            CUDA_OK(cudaDeviceSynchronize());
        }
    }
    std::vector<unsigned char> read() const
    {
        std::vector<unsigned char> v(size);
        CUDA_OK(cudaMemcpy(v.data(), raw, size, cudaMemcpyDefault));
        return v;
    }
};

void upload(unsigned char *dst, const unsigned char *src, std::size_t bytes)
{
    if (bytes) CUDA_OK(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault));
}

// ---- the forms of a call -------------------------------------------------------------
enum Api { kSync, kStream, kStreamN };   // kStreamN: opf_cuda_reduce_local_n with k = 2
struct Form {
    const char *name;
    int nbuf;
    Api api;
    Kind ka, kb, ko;   // where in1, in2 (inout for 2-buffer), out live
    int alias;         // 3-buffer: 0 none, 1 out = in1, 2 out = in2
    int staging;       // -1 default, 0: op_cuda_staging_min_count 0 (staged), 1: huge (host path)
};
const Form forms[] = {
    {"sync 2-buffer", 2, kSync, kDevice, kDevice, kDevice, 0, -1},
    {"sync 3-buffer", 3, kSync, kDevice, kDevice, kDevice, 0, -1},
    {"sync out=in1", 3, kSync, kDevice, kDevice, kDevice, 1, -1},
    {"sync out=in2", 3, kSync, kDevice, kDevice, kDevice, 2, -1},
    {"stream 2-buffer", 2, kStream, kDevice, kDevice, kDevice, 0, -1},
    {"stream 3-buffer", 3, kStream, kDevice, kDevice, kDevice, 0, -1},
    {"stream out=in1", 3, kStream, kDevice, kDevice, kDevice, 1, -1},
    {"stream out=in2", 3, kStream, kDevice, kDevice, kDevice, 2, -1},
    {"stream n-ary k=2", 3, kStreamN, kDevice, kDevice, kDevice, 0, -1},
    {"stream n-ary k=2 dst=srcs[1]", 3, kStreamN, kDevice, kDevice, kDevice, 2, -1},
    {"mixed in=host, staged", 2, kSync, kHost, kDevice, kDevice, 0, 0},
    {"mixed in=host, host path", 2, kSync, kHost, kDevice, kDevice, 0, 1},
    {"mixed inout=host, staged", 2, kSync, kDevice, kHost, kHost, 0, 0},
    {"mixed inout=host, host path", 2, kSync, kDevice, kHost, kHost, 0, 1},
    {"mixed 3-buffer out=host, staged", 3, kSync, kDevice, kDevice, kHost, 0, 0},
    {"mixed 3-buffer out=host, host path", 3, kSync, kDevice, kDevice, kHost, 0, 1},
    {"mixed 3-buffer in1=host out=device, staged", 3, kSync, kHost, kDevice, kDevice, 0, 0},
    {"mixed 3-buffer in2=host out=in2, staged", 3, kSync, kDevice, kHost, kHost, 2, 0},
    {"mixed 3-buffer in2=host out=in2, host path", 3, kSync, kDevice, kHost, kHost, 2, 1},
    {"managed 2-buffer", 2, kSync, kManaged, kManaged, kManaged, 0, -1},
    {"managed + device 3-buffer", 3, kSync, kManaged, kDevice, kManaged, 0, -1},
    {"managed + host 2-buffer, staged", 2, kSync, kHost, kManaged, kManaged, 0, 0},
    {"managed stream 3-buffer", 3, kStream, kManaged, kManaged, kManaged, 0, -1},
};

// Byte offsets of in1, in2, out inside their regions.
struct Layout {
    const char *name;
    int a, b, o;        // in elements
    int byte_shift;     // added to all three (1: odd addresses)
};
const Layout layouts[] = {
    {"aligned", 0, 0, 0, 0},
    {"misaligned by one element", 1, 1, 1, 0},
    {"different phases", 0, 1, 3, 0},
    {"odd addresses", 0, 0, 0, 1},
};

struct Harness {
    cudaStream_t stream = nullptr;
    Region *regions[3][3] = {};   // [kind][buffer]
    opf_datatype_t type_of[OPF_OPID_COUNT][OPF_KT_COUNT] = {};   // a predefined type valid for (op, kt)
    std::string staging_default;
};

void set_staging(const Harness &h, int staging)
{
    const char *value = staging < 0 ? h.staging_default.c_str() : staging == 0 ? "0" : "1G";
    if (opf_param_set("op_cuda_staging_min_count", value) != OPF_SUCCESS)
        fail("opf_param_set(op_cuda_staging_min_count, %s): %s", value, opf_last_error());
}

void run_form(Harness &h, const Form &f, const Layout &L, int op, int kt, int64_t n, const unsigned char *a0,
              const unsigned char *b0, const unsigned char *expect)
{
    const std::size_t ext = std::size_t(opf_kernel_type_extent(kt));
    const std::size_t bytes = std::size_t(n) * ext;
    if (L.byte_shift && ext == 1) return;   // an odd address is aligned for bytes: the aligned case again
    Region &RA = *h.regions[f.ka][0], &RB = *h.regions[f.kb][1], &RO = *h.regions[f.ko][2];
    RA.reset(), RB.reset(), RO.reset();
    unsigned char *a = RA.at(L.a * ext + L.byte_shift), *b = RB.at(L.b * ext + L.byte_shift);
    unsigned char *o = f.nbuf == 2 ? b : f.alias == 1 ? a : f.alias == 2 ? b : RO.at(L.o * ext + L.byte_shift);
    upload(a, a0, bytes);
    upload(b, b0, bytes);
    set_staging(h, f.staging);
    const opf_op_t handle = (opf_op_t)(uintptr_t)op;
    int rc;
    if (f.api == kSync)
        rc = f.nbuf == 2 ? opf_reduce_local(a, b, n, h.type_of[op][kt], handle)
                         : opf_reduce_local3(a, b, o, n, h.type_of[op][kt], handle);
    else if (f.api == kStream)
        rc = f.nbuf == 2 ? opf_cuda_reduce_local(a, b, n, h.type_of[op][kt], handle, h.stream)
                         : opf_cuda_reduce_local3(a, b, o, n, h.type_of[op][kt], handle, h.stream);
    else {
        const void *srcs[2] = {a, b};
        rc = opf_cuda_reduce_local_n(srcs, 2, o, n, h.type_of[op][kt], handle, h.stream);
    }
    if (f.api != kSync) CUDA_OK(cudaStreamSynchronize(h.stream));
    ++checks;
    const char *opn = ob::op_names[op], *ktn = ob::kernel_type_names[kt];
    if (rc != OPF_SUCCESS) {
        fail("%s %s n=%lld %s, %s: returned %d (%s)", opn, ktn, (long long)n, f.name, L.name, rc, opf_last_error());
        return;
    }
    // The result, the inputs, the guards.
    const std::vector<unsigned char> ra = RA.read(), rb = RB.read(), ro = RO.read();
    const Region *regs[3] = {&RA, &RB, &RO};
    const std::vector<unsigned char> *copies[3] = {&ra, &rb, &ro};
    auto view = [&](const unsigned char *p) -> const unsigned char * {
        for (int i = 0; i < 3; ++i)
            if (p >= regs[i]->raw && p < regs[i]->raw + regs[i]->size) return copies[i]->data() + (p - regs[i]->raw);
        return nullptr;
    };
    const opf_count_t bad = first_difference(kt, view(o), expect, n);
    if (bad >= 0) {
        char got[80] = "", want[80] = "";
        for (std::size_t k = 0; k < ext && k < 16; ++k) {
            std::snprintf(got + 2 * k, 3, "%02x", view(o)[bad * ext + k]);
            std::snprintf(want + 2 * k, 3, "%02x", expect[bad * ext + k]);
        }
        fail("%s %s n=%lld %s, %s: element %lld is %s, the base gives %s (seed data: in1 %02x.., in2 %02x..)", opn,
             ktn, (long long)n, f.name, L.name, (long long)bad, got, want, a0[bad * ext], b0[bad * ext]);
        return;
    }
    if (o != a && std::memcmp(view(a), a0, bytes) != 0) fail("%s %s n=%lld %s, %s: in1 changed", opn, ktn, (long long)n, f.name, L.name);
    if (o != b && std::memcmp(view(b), b0, bytes) != 0) fail("%s %s n=%lld %s, %s: in2 changed", opn, ktn, (long long)n, f.name, L.name);
    for (int i = 0; i < 3; ++i) {
        const unsigned char *base = copies[i]->data();
        const unsigned char *lo = view(i == 0 ? a : i == 1 ? b : o);
        if (i == 2 && (o == a || o == b)) continue;
        const unsigned char *end = base + copies[i]->size(), *q = first_unguarded(base, std::size_t(lo - base));
        if (!q) q = first_unguarded(lo + bytes, std::size_t(end - (lo + bytes)));
        if (q)
            fail("%s %s n=%lld %s, %s: byte %lld outside the %s buffer was written", opn, ktn, (long long)n, f.name,
                 L.name, (long long)(q - lo), i == 0 ? "in1" : i == 1 ? "in2" : "out");
    }
}

bool gpu_exact(int op, int kt)
{
    if (op == OPF_OPID_REPLACE || op == OPF_OPID_NO_OP) return true;
    return !(kt == OPF_KT_INT128 || kt == OPF_KT_LONG_DOUBLE || kt == OPF_KT_FLOAT128 ||
             kt == OPF_KT_C_LONG_DOUBLE_COMPLEX || kt == OPF_KT_LONG_DOUBLE_INT);
}

bool served(int op, int kt)
{
    const char *p2 = opf_slot_provider_mem(op, kt, opf_cuda_memory_kind(), 2, 1 << 20);
    const char *p3 = opf_slot_provider_mem(op, kt, opf_cuda_memory_kind(), 3, 1 << 20);
    return p2 && p3 && std::strcmp(p2, "cuda") == 0 && std::strcmp(p3, "cuda") == 0;
}

void check_refusals(Harness &h, int dev)
{
    // A type the GPU does not compute, on device memory: refused, untouched.
    unsigned char *d = h.regions[kDevice][0]->at(0);
    h.regions[kDevice][0]->reset();
    int rc = opf_reduce_local(d, d + 64, 2, OPF_LONG_DOUBLE, OPF_SUM);
    ++checks;
    if (rc != OPF_ERR_BUFFER) fail("SUM LONG_DOUBLE on device memory returned %d, expected OPF_ERR_BUFFER", rc);
    rc = opf_cuda_reduce_local(d, d + 64, 2, OPF_LONG_DOUBLE, OPF_SUM, h.stream);
    ++checks;
    if (rc != OPF_ERR_OP) fail("stream SUM LONG_DOUBLE returned %d, expected OPF_ERR_OP", rc);
    int supported = -1;
    opf_cuda_supported(OPF_SUM, OPF_LONG_DOUBLE, &supported);
    ++checks;
    if (supported != 0) fail("opf_cuda_supported(SUM, LONG_DOUBLE) = %d", supported);
    opf_cuda_supported(OPF_SUM, OPF_BFLOAT16, &supported);
    ++checks;
    if (supported != 1) fail("opf_cuda_supported(SUM, BFLOAT16) = %d", supported);
    for (unsigned char byte : h.regions[kDevice][0]->read())
        if (byte != kGuardByte) {
            fail("a refused call wrote device memory");
            break;
        }
    // A stream call on pageable host memory: refused unless the device can
    // access pageable memory (then it must compute correctly).
    int pageable = 0;
    cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, dev);
    std::vector<float> hx(100, 1.5f), hy(100, 2.0f);
    rc = opf_cuda_reduce_local(hx.data(), hy.data(), 100, OPF_FLOAT, OPF_SUM, h.stream);
    CUDA_OK(cudaStreamSynchronize(h.stream));
    ++checks;
    if (!pageable && rc != OPF_ERR_BUFFER)
        fail("stream call on pageable host memory returned %d, expected OPF_ERR_BUFFER", rc);
    if (pageable && (rc != OPF_SUCCESS || hy[99] != 3.5f))
        fail("stream call on pageable host memory (device has pageable access): rc %d, y = %g", rc, hy[99]);
    // Count 0 with NULL buffers: nothing to do.
    ++checks;
    if (opf_cuda_reduce_local(nullptr, nullptr, 0, OPF_FLOAT, OPF_SUM, h.stream) != OPF_SUCCESS)
        fail("count 0 stream call failed: %s", opf_last_error());
}

// opf_cuda_reduce_local_n beyond the slot checks (check_nary_slots): the
// order left to right (SUM FLOAT on 1e8, 1, -1e8 gives 0 that way, 1 in any
// other order), dst as srcs[0] or srcs[1], one input (a copy), and the
// refusals, which enqueue nothing.
void check_nary_stream(Harness &h)
{
    constexpr int n = 1000, k = 5;
    const float values[k] = {1e8f, 1.0f, -1e8f, 0.25f, 3.0f};
    float *d[k + 1] = {};
    for (int j = 0; j <= k; ++j) {
        CUDA_OK(cudaMalloc(reinterpret_cast<void **>(&d[j]), n * sizeof(float)));
        const std::vector<float> v(n, j < k ? values[j] : 7.0f);
        CUDA_OK(cudaMemcpy(d[j], v.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    }
    auto result = [&](const float *dev) {
        std::vector<float> v(n);
        CUDA_OK(cudaStreamSynchronize(h.stream));
        CUDA_OK(cudaMemcpy(v.data(), dev, n * sizeof(float), cudaMemcpyDeviceToHost));
        for (float x : v)
            if (std::memcmp(&x, &v[0], sizeof x) != 0) return std::nanf("");   // elements disagree
        return v[0];
    };
    const void *srcs[k] = {d[0], d[1], d[2], d[3], d[4]};
    struct Case {
        int nsrc;
        float *dst;
        float want;
    };
    const float chain3 = (1e8f + 1.0f) + -1e8f, chain5 = (chain3 + 0.25f) + 3.0f;
    for (const Case &c : {Case{3, d[k], chain3}, Case{5, d[k], chain5}, Case{1, d[k], 1e8f}, Case{2, d[1], 1e8f + 1.0f},
                          Case{3, d[0], chain3}}) {
        const int rc = opf_cuda_reduce_local_n(srcs, c.nsrc, c.dst, n, OPF_FLOAT, OPF_SUM, h.stream);
        const float got = result(c.dst);
        ++checks;
        if (rc != OPF_SUCCESS || got != c.want)
            fail("stream n-ary SUM FLOAT k=%d dst=%s: rc %d (%s), result %g, the chain gives %g", c.nsrc,
                 c.dst == d[k] ? "apart" : c.dst == d[0] ? "srcs[0]" : "srcs[1]", rc, rc ? opf_last_error() : "", got,
                 c.want);
        if (c.dst != d[k]) {   // restore the input
            const std::vector<float> v(n, c.dst == d[0] ? values[0] : values[1]);
            CUDA_OK(cudaMemcpy(c.dst, v.data(), n * sizeof(float), cudaMemcpyHostToDevice));
        }
    }
    // Refusals: the code, and dst untouched.
    const std::vector<float> seven(n, 7.0f);
    CUDA_OK(cudaMemcpy(d[k], seven.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    const void *with_null[3] = {d[0], nullptr, d[2]};
    struct Refusal {
        const char *what;
        const void *const *srcs;
        int nsrc;
        opf_op_t op;
        int mode, want;
    };
    for (const Refusal &r : {Refusal{"nsrc 0", srcs, 0, OPF_SUM, OPF_ROUND_CHAIN, OPF_ERR_ARG},
                             Refusal{"nsrc OPF_REDUCE_N_MAX + 1", srcs, OPF_REDUCE_N_MAX + 1, OPF_SUM, OPF_ROUND_CHAIN, OPF_ERR_ARG},
                             Refusal{"srcs[1] NULL", with_null, 3, OPF_SUM, OPF_ROUND_CHAIN, OPF_ERR_BUFFER},
                             Refusal{"mode 2", srcs, 3, OPF_SUM, 2, OPF_ERR_ARG},
                             Refusal{"OPF_OP_NULL", srcs, 3, OPF_OP_NULL, OPF_ROUND_CHAIN, OPF_ERR_OP}}) {
        const int rc = opf_cuda_reduce_local_n_mode(r.srcs, r.nsrc, d[k], n, OPF_FLOAT, r.op, r.mode, h.stream);
        const float left = result(d[k]);
        ++checks;
        if (rc != r.want || left != 7.0f)
            fail("stream n-ary, %s: rc %d (want %d: %s), dst %g (want 7, untouched)", r.what, rc, r.want,
                 opf_last_error(), left);
    }
    for (float *p : d) cudaFree(p);
}

// ---- n-ary calls, slot by slot ----------------------------------------------------------
// opf_reduce_local_n_mode (synchronous) and opf_cuda_reduce_local_n_mode (on
// the stream) in each n-ary form the base has for the slot (the chain
// result; round-once where it differs), against the base's n-ary kernel on
// the same data, for k inputs, dst apart or one of the inputs (the last one:
// a chain could not serve it), all on device memory, or srcs[min(1, k-1)] and
// dst in host memory (staged, and the host path). Inputs must be unchanged
// where dst is not one of them, and the bytes around dst untouched.
struct NaryCase {
    const char *name;
    bool stream, mixed, dst_is_last;
    int staging;
};
const NaryCase nary_cases[] = {
    {"sync", false, false, false, -1},
    {"sync dst=srcs[k-1]", false, false, true, -1},
    {"stream", true, false, false, -1},
    {"stream dst=srcs[k-1]", true, false, true, -1},
    {"mixed, staged", false, true, false, 0},
    {"mixed, host path", false, true, false, 1},
};

struct NaryRegions {
    std::vector<Region *> in;   // device, one per input
    Region *host_in, *dst_device, *dst_host;
};

// Fills [0, kGuard + bytes + kGuard) of r with guard bytes: the span a call of
// `bytes` can reach (regions are sized for the longest count).
void reset_span(Region &r, std::size_t bytes)
{
    const std::size_t span = std::min(r.size, 2 * kGuard + bytes + 64);
    if (r.kind == kHost) std::memset(r.raw, kGuardByte, span);
    else CUDA_OK(cudaMemset(r.raw, kGuardByte, span));
}
std::vector<unsigned char> read_span(const Region &r, std::size_t bytes)
{
    std::vector<unsigned char> v(std::min(r.size, 2 * kGuard + bytes + 64));
    CUDA_OK(cudaMemcpy(v.data(), r.raw, v.size(), cudaMemcpyDefault));
    return v;
}

void run_nary(Harness &h, NaryRegions &R, const NaryCase &c, const Layout &L, int op, int kt, int form, int k,
              int64_t n, const std::vector<std::vector<unsigned char>> &src0, const unsigned char *expect)
{
    const std::size_t ext = std::size_t(opf_kernel_type_extent(kt)), bytes = std::size_t(n) * ext;
    if (L.byte_shift && ext == 1) return;
    const int host_input = c.mixed ? std::min(1, k - 1) : -1;
    Region *where[OPF_REDUCE_N_MAX + 1];
    const void *srcs[OPF_REDUCE_N_MAX];
    for (int j = 0; j < k; ++j) {
        where[j] = j == host_input ? R.host_in : R.in[std::size_t(j)];
        reset_span(*where[j], bytes);
        unsigned char *p = where[j]->at((j % 2 ? L.b : L.a) * ext + L.byte_shift);
        upload(p, src0[std::size_t(j)].data(), bytes);
        srcs[j] = p;
    }
    Region &D = c.mixed ? *R.dst_host : *R.dst_device;
    unsigned char *dst = c.dst_is_last ? const_cast<unsigned char *>(static_cast<const unsigned char *>(srcs[k - 1]))
                                       : D.at(L.o * ext + L.byte_shift);
    if (!c.dst_is_last) reset_span(D, bytes);
    CUDA_OK(cudaDeviceSynchronize());
    set_staging(h, c.staging);
    const opf_op_t handle = (opf_op_t)(uintptr_t)op;
    const int mode = form == OPF_FORM_N_ONCE ? OPF_ROUND_ONCE : OPF_ROUND_CHAIN;
    const int rc = c.stream ? opf_cuda_reduce_local_n_mode(srcs, k, dst, n, h.type_of[op][kt], handle, mode, h.stream)
                            : opf_reduce_local_n_mode(srcs, k, dst, n, h.type_of[op][kt], handle, mode);
    if (c.stream) CUDA_OK(cudaStreamSynchronize(h.stream));
    ++checks;
    char what[200];
    std::snprintf(what, sizeof what, "%s %s %s k=%d n=%lld %s, %s", ob::op_names[op], ob::kernel_type_names[kt],
                  mode == OPF_ROUND_ONCE ? "n-ary round-once" : "n-ary", k, (long long)n, c.name, L.name);
    if (rc != OPF_SUCCESS) {
        fail("%s: returned %d (%s)", what, rc, opf_last_error());
        return;
    }
    // dst against the base, inputs unchanged, guards intact (dst's region, or the last input's).
    Region &out_region = c.dst_is_last ? *where[k - 1] : D;
    const std::vector<unsigned char> got = read_span(out_region, bytes);
    const unsigned char *lo = got.data() + (dst - out_region.raw);
    if (const opf_count_t bad = first_difference(kt, lo, expect, n); bad >= 0) {
        fail("%s: element %lld differs from the base's", what, (long long)bad);
        return;
    }
    const unsigned char *q = first_unguarded(got.data(), std::size_t(lo - got.data()));
    if (!q) q = first_unguarded(lo + bytes, got.size() - std::size_t(lo + bytes - got.data()));
    if (q) fail("%s: byte %lld outside dst was written", what, (long long)(q - lo));
    for (int j = 0; j < k - (c.dst_is_last ? 1 : 0); ++j) {
        std::vector<unsigned char> now(bytes);
        if (bytes) CUDA_OK(cudaMemcpy(now.data(), srcs[j], bytes, cudaMemcpyDefault));
        if (now != std::vector<unsigned char>(src0[std::size_t(j)].begin(), src0[std::size_t(j)].begin() + long(bytes))) {
            fail("%s: srcs[%d] changed", what, j);
            return;
        }
    }
}

// Every served slot, every form, the k and lengths above; returns the slots checked.
int check_nary_slots(Harness &h, uint64_t seed, bool quick)
{
    const std::size_t max_bytes = 4099 * 33 + 64;   // the largest extent: an MX block (33 bytes)
    NaryRegions R;
    for (int j = 0; j < OPF_REDUCE_N_MAX; ++j) R.in.push_back(new Region(kDevice, max_bytes));
    R.host_in = new Region(kHost, max_bytes);
    R.dst_device = new Region(kDevice, max_bytes);
    R.dst_host = new Region(kHost, max_bytes);
    const int ks_full[] = {1, 2, 3, 5, 8, OPF_REDUCE_N_MAX}, ks_quick[] = {1, 2, 3, 8};
    const int64_t ns_full[] = {1, 17, 1000, 4099}, ns_quick[] = {17, 4099};
    int slots = 0;
    for (int op = 1; op < OPF_OPID_COUNT; ++op)
        for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
            if (!opf_slot_exists(op, kt) || !served(op, kt) || !h.type_of[op][kt]) continue;
            if (op == OPF_OPID_REPLACE || op == OPF_OPID_NO_OP) continue;   // copies: the chain of 3-buffer calls
            for (int form : {OPF_FORM_N, OPF_FORM_N_ONCE}) {
                opf_kernel_n_fn *base_n = nullptr;
                if (opf_slot_kernel_n(op, kt, form, "base", 1, &base_n) != OPF_SUCCESS) continue;   // no such form
                const char *provider = opf_slot_provider_n_mem(op, kt, opf_cuda_memory_kind(), form, 0, 1 << 20);
                const char *stream_provider = opf_slot_provider_n_mem(op, kt, opf_cuda_memory_kind(), form, 1, 1 << 20);
                ++checks;
                if (!provider || !stream_provider || std::strcmp(provider, "cuda") || std::strcmp(stream_provider, "cuda")) {
                    fail("%s %s %s: the n-ary device slot is served by %s / %s, not by cuda", ob::op_names[op],
                         ob::kernel_type_names[kt], form == OPF_FORM_N ? "n-ary" : "n-ary round-once",
                         provider ? provider : "nobody", stream_provider ? stream_provider : "nobody");
                    continue;
                }
                ++slots;
                for (int k : quick ? std::vector<int>(std::begin(ks_quick), std::end(ks_quick))
                                   : std::vector<int>(std::begin(ks_full), std::end(ks_full)))
                    for (int64_t n : quick ? std::vector<int64_t>(std::begin(ns_quick), std::end(ns_quick))
                                           : std::vector<int64_t>(std::begin(ns_full), std::end(ns_full))) {
                        const std::size_t bytes = std::size_t(n) * std::size_t(opf_kernel_type_extent(kt));
                        std::vector<std::vector<unsigned char>> src0(std::size_t(k), std::vector<unsigned char>(bytes + 1));
                        std::vector<unsigned char> spare(bytes + 1), expect(bytes + 1);
                        Rng rng(derive_seed(seed, uint64_t(op), uint64_t(kt), uint64_t(n) * 131 + uint64_t(k)));
                        for (int j = 0; j < k; j += 2)
                            fill(kt, src0[std::size_t(j)].data(), j + 1 < k ? src0[std::size_t(j) + 1].data() : spare.data(), n, rng);
                        std::vector<const void *> ptrs;
                        for (auto &s : src0) ptrs.push_back(s.data());
                        base_n(ptrs.data(), k, expect.data(), n, nullptr);
                        for (const NaryCase &c : nary_cases)
                            for (const Layout &L : layouts) {
                                if (quick && &L != &layouts[0] && &L != &layouts[2]) continue;
                                run_nary(h, R, c, L, op, kt, form, k, n, src0, expect.data());
                            }
                    }
            }
        }
    set_staging(h, -1);
    for (Region *r : R.in) delete r;
    delete R.host_in;
    delete R.dst_device;
    delete R.dst_host;
    return slots;
}

// BXOR on int8 with more than 2^31 elements: 64-bit indexing, checked at the
// ends and at sampled positions.
void check_large(Harness &h, uint64_t seed)
{
    const int64_t n = (int64_t(1) << 31) + 4099;
    size_t free_bytes = 0, total = 0;
    cudaMemGetInfo(&free_bytes, &total);
    if (free_bytes < size_t(3 * n) + (size_t(1) << 30)) {
        std::printf("large count: skipped (%zu MiB free)\n", free_bytes >> 20);
        return;
    }
    unsigned char *a = nullptr, *b = nullptr;
    CUDA_OK(cudaMalloc(reinterpret_cast<void **>(&a), size_t(n)));
    CUDA_OK(cudaMalloc(reinterpret_cast<void **>(&b), size_t(n)));
    CUDA_OK(cudaMemset(a, 0x5a, size_t(n)));
    CUDA_OK(cudaMemset(b, 0x0f, size_t(n)));
    Rng rng(seed);
    std::vector<int64_t> where = {0, 1, 15, 16, n / 2, (int64_t(1) << 31) - 1, int64_t(1) << 31, n - 17, n - 1};
    for (int i = 0; i < 1000; ++i) where.push_back(int64_t(rng.below(uint64_t(n))));
    for (int64_t i : where) {
        const unsigned char v = (unsigned char)(i * 131);
        CUDA_OK(cudaMemcpy(a + i, &v, 1, cudaMemcpyHostToDevice));
    }
    const int rc = opf_cuda_reduce_local(a, b, n, OPF_INT8_T, OPF_BXOR, h.stream);
    CUDA_OK(cudaStreamSynchronize(h.stream));
    ++checks;
    if (rc != OPF_SUCCESS) fail("BXOR INT8 n=%lld: returned %d (%s)", (long long)n, rc, opf_last_error());
    int bad = 0;
    for (int64_t i : where) {
        unsigned char got = 0;
        CUDA_OK(cudaMemcpy(&got, b + i, 1, cudaMemcpyDeviceToHost));
        const unsigned char want = (unsigned char)((unsigned char)(i * 131) ^ 0x0f);
        if (got != want && bad++ < 3)
            fail("BXOR INT8 n=%lld: element %lld is 0x%02x, expected 0x%02x", (long long)n, (long long)i, got, want);
    }
    std::printf("large count: BXOR INT8 n=%lld checked at %zu positions\n", (long long)n, where.size());
    cudaFree(a);
    cudaFree(b);
}

} // namespace

int main(int argc, char **argv)
{
    uint64_t seed = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
    bool quick = false;
    int dev = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 0);
        else if (arg == "--quick") quick = true;
        else if (arg == "--device" && i + 1 < argc) dev = std::atoi(argv[++i]);
        else if (arg == "-v") verbose = true;
        else {
            std::fprintf(stderr, "usage: %s [--seed N] [--quick] [--device N] [-v]\n", argv[0]);
            return 2;
        }
    }
    int ndev = 0, driver = 0;
    const cudaError_t e = cudaGetDeviceCount(&ndev);
    cudaDriverGetVersion(&driver);
    if (e != cudaSuccess || ndev <= dev) {
        std::printf("cuda_conformance: skipped: %s\n",
                    driver == 0 ? "no CUDA driver (libcuda.so.1 cannot be loaded)"
                    : e == cudaErrorInsufficientDriver ? "the CUDA driver is too old for this runtime"
                    : e != cudaSuccess ? cudaGetErrorString(e) : "no such CUDA device");
        return 77;
    }
    std::printf("seed=%" PRIu64 "\n", seed);
    CUDA_OK(cudaSetDevice(dev));
    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, dev));
    std::printf("device %d: %s, sm_%d%d, %d SMs\n", dev, prop.name, prop.major, prop.minor, prop.multiProcessorCount);
    const char *status = nullptr;
    if (!opf_cuda_available(&status)) {
        std::printf("FAIL: a CUDA device is here but the cuda component is %s "
                    "(is OPF_MCA_mca_component_path set to its directory?)\n", status);
        return 1;
    }
    std::printf("cuda component: %s\n", status);

    Harness h;
    char value[64] = "";
    opf_param_get("op_cuda_staging_min_count", value, sizeof value);
    h.staging_default = value;
    CUDA_OK(cudaStreamCreateWithFlags(&h.stream, cudaStreamNonBlocking));
    const std::size_t max_bytes = 4099 * 33 + 64;   // the largest extent: an MX block (33 bytes)
    for (int k = 0; k < 3; ++k)
        for (int i = 0; i < 3; ++i) h.regions[k][i] = new Region(Kind(k), max_bytes);
    // Per slot, a predefined datatype of that kernel type, one element per
    // item, valid for the op (CHAR is INT8 but takes no arithmetic).
    for (int id = OPF_TYPEID_COUNT_ - 1; id > 0; --id) {
        const opf_datatype_t t = (opf_datatype_t)(uintptr_t)id;
        int kt = -1;
        opf_aint_t lb = 0, extent = 0;
        if (opf_type_kernel_type(t, &kt) != OPF_SUCCESS || kt < 0 || opf_type_get_extent(t, &lb, &extent) != OPF_SUCCESS ||
            extent != opf_kernel_type_extent(kt))
            continue;
        for (int op = 1; op < OPF_OPID_COUNT; ++op) {
            int valid = 0;
            if (opf_op_valid_for_type((opf_op_t)(uintptr_t)op, t, &valid) == OPF_SUCCESS && valid) h.type_of[op][kt] = t;
        }
    }

    int n_slots = 0;
    for (int op = 1; op < OPF_OPID_COUNT; ++op)
        for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
            if (!opf_slot_exists(op, kt)) continue;
            const bool is_served = served(op, kt);
            ++checks;
            if (gpu_exact(op, kt) != is_served) {
                fail("%s %s: %s", ob::op_names[op], ob::kernel_type_names[kt],
                     is_served ? "served on CUDA memory, but the GPU cannot compute it exactly"
                               : "not served by the cuda component on CUDA memory");
                continue;
            }
            if (!is_served || !h.type_of[op][kt]) continue;
            opf_kernel2_fn *base2 = nullptr;
            opf_kernel3_fn *base3 = nullptr;
            if (opf_slot_kernels(op, kt, "base", 1, &base2, &base3) != OPF_SUCCESS || !base3) {
                fail("%s %s: no base kernel", ob::op_names[op], ob::kernel_type_names[kt]);
                continue;
            }
            ++n_slots;
            const int before = failures;
            const auto t0 = std::chrono::steady_clock::now();
            for (int64_t n : lengths) {
                if (quick && n != 0 && n != 1 && n != 17 && n != 65 && n != 4099) continue;
                const std::size_t bytes = std::size_t(n) * std::size_t(opf_kernel_type_extent(kt));
                std::vector<unsigned char> a0(bytes + 1), b0(bytes + 1), expect(bytes + 1);
                Rng rng(derive_seed(seed, uint64_t(op), uint64_t(kt), uint64_t(n)));
                fill(kt, a0.data(), b0.data(), n, rng);
                base3(a0.data(), b0.data(), expect.data(), n);
                for (const Form &f : forms)
                    for (const Layout &L : layouts) {
                        if (quick && &L != &layouts[0] && &L != &layouts[1]) continue;
                        run_form(h, f, L, op, kt, n, a0.data(), b0.data(), expect.data());
                    }
            }
            if (verbose)
                std::printf("%-7s %-22s %s (%.2f s)\n", ob::op_names[op], ob::kernel_type_names[kt],
                            failures > before ? "FAILED" : "ok",
                            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
    set_staging(h, -1);
    check_refusals(h, dev);
    check_nary_stream(h);
    const int nary_slots = check_nary_slots(h, seed, quick);
    if (!quick) check_large(h, seed);
    char errors[32] = "";
    opf_param_get("op_cuda_errors", errors, sizeof errors);
    ++checks;
    if (std::strcmp(errors, "0") != 0) fail("op_cuda_errors is %s (CUDA failures in synchronous calls)", errors);
    for (int k = 0; k < 3; ++k)
        for (int i = 0; i < 3; ++i) delete h.regions[k][i];
    cudaStreamDestroy(h.stream);
    char text[1024] = "";   // known once the devices are set up (at the first call on them)
    opf_param_get("op_cuda_devices", text, sizeof text);
    std::printf("cuda component devices: %s\n", text);
    std::printf("cuda_conformance: %d slots, %d n-ary slot forms, %lld checks, %d failed (rerun with --seed %" PRIu64
                ")\n", n_slots, nary_slots, checks, failures, seed);
    return failures ? 1 : 0;
}
