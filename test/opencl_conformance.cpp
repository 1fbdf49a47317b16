// opencl_conformance.cpp — every OpenCL slot on device memory, against the
// base kernels (opf_slot_kernels provider "base"), bit for bit (any NaN
// matches any NaN, padding is not a value).
//
// For each (op, kernel type) slot the queue's device supports, for the
// lengths {0,1,2,3,7,8,15,16,17,31,33,63,64,65,127,1000,4099}:
//   cl_mem: 2-buffer (separate buffers, and in/inout in one buffer), 3-buffer
//           (separate, out == in1, out == in2, all three in one buffer), at
//           byte offsets 0, one element and 3 * alignment, blocking and with
//           an event; guard bytes around every operand must survive and the
//           inputs must come back byte for byte;
//   SVM:    the same aliasing cases, where the device has fine-grained SVM.
// Then: refusals with the right code (bad queue, range, alignment, overlap,
// user op, undefined op, long double arithmetic, derived types with gaps,
// wait-list mismatch, buffer of another context), the wait list honoured,
// and opf_cl_release_context.
//
// Usage: opencl_conformance [engine options: --seed N, --quick/--deep, --function PAT, -v]
// [--out-of-order]. Exit 77 (skip) when there is no OpenCL device (the engine's
// OpenClDevice opens it); the component must be on mca_component_path.
#define CL_TARGET_OPENCL_VERSION 300
#include <opframe/introspect.h>
#include <opframe/opencl.h>
#include <opframe/opframe.h>

#include "test/engine/opencl_backend.h"

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using engine::Rng;   // the engine's seeded randomness

// ---- element layouts: the fields that are values ---------------------------------------
enum class F { I8, I16, I32, I64, I128, F16, BF16, F32, F64, X87, F128 };
struct Field {
    int offset;
    F kind;
};
int field_size(F k)
{
    switch (k) {
    case F::I8: return 1;
    case F::I16: case F::F16: case F::BF16: return 2;
    case F::I32: case F::F32: return 4;
    case F::I64: case F::F64: return 8;
    case F::X87: return 10;
    default: return 16;
    }
}
std::vector<Field> fields(int kt)
{
    switch (kt) {
    case OPF_KT_INT8: case OPF_KT_UINT8: return {{0, F::I8}};
    case OPF_KT_INT16: case OPF_KT_UINT16: return {{0, F::I16}};
    case OPF_KT_INT32: case OPF_KT_UINT32: return {{0, F::I32}};
    case OPF_KT_INT64: case OPF_KT_UINT64: return {{0, F::I64}};
    case OPF_KT_INT128: return {{0, F::I128}};
    case OPF_KT_FLOAT16: return {{0, F::F16}};
    case OPF_KT_BFLOAT16: return {{0, F::BF16}};
    case OPF_KT_FLOAT: return {{0, F::F32}};
    case OPF_KT_DOUBLE: return {{0, F::F64}};
    case OPF_KT_LONG_DOUBLE: return {{0, F::X87}};
    case OPF_KT_FLOAT128: return {{0, F::F128}};
    case OPF_KT_C_FLOAT_COMPLEX: return {{0, F::F32}, {4, F::F32}};
    case OPF_KT_C_DOUBLE_COMPLEX: return {{0, F::F64}, {8, F::F64}};
    case OPF_KT_C_LONG_DOUBLE_COMPLEX: return {{0, F::X87}, {16, F::X87}};
    case OPF_KT_FLOAT_INT: return {{0, F::F32}, {4, F::I32}};
    case OPF_KT_DOUBLE_INT: return {{0, F::F64}, {8, F::I32}};
    case OPF_KT_LONG_INT: return {{0, F::I64}, {8, F::I32}};
    case OPF_KT_2INT: return {{0, F::I32}, {4, F::I32}};
    case OPF_KT_SHORT_INT: return {{0, F::I16}, {4, F::I32}};
    case OPF_KT_LONG_DOUBLE_INT: return {{0, F::X87}, {16, F::I32}};
    case OPF_KT_2FLOAT: return {{0, F::F32}, {4, F::F32}};
    case OPF_KT_2DOUBLE: return {{0, F::F64}, {8, F::F64}};
    default: return {};
    }
}

// Adversarial values of one field: specials of the format, small integers
// (logic ops), any bit pattern, moderate floats; `tie` copies the other
// operand's value to make MAXLOC/MINLOC ties and NaN pairs.
void fill_field(F k, unsigned char *p, Rng &r)
{
    const int size = field_size(k);
    uint64_t w[2] = {r.next(), r.next()};
    const int pick = int(r.below(8));
    auto put = [&](uint64_t v) { std::memcpy(p, &v, size < 8 ? size : 8); };
    switch (k) {
    case F::I8: case F::I16: case F::I32: case F::I64: case F::I128: {
        const int bits = 8 * size;
        const uint64_t max_s = bits >= 64 ? ~0ULL >> 1 : (1ULL << (bits - 1)) - 1;
        if (pick == 0) put(max_s);                     // INT_MAX
        else if (pick == 1) put(max_s + 1);            // INT_MIN
        else if (pick == 2) put(~0ULL);                // -1 / UINT_MAX
        else if (pick == 3) put(r.below(3));           // 0, 1, 2
        else std::memcpy(p, w, size);
        return;
    }
    case F::F16: case F::BF16: case F::F32: case F::F64: {
        const int exp_bits = k == F::F16 ? 5 : k == F::F64 ? 11 : 8;
        const int man_bits = 8 * size - 1 - exp_bits;
        const uint64_t exp_all = (1ULL << exp_bits) - 1, man_mask = (1ULL << man_bits) - 1;
        const uint64_t sign = r.below(2) << (8 * size - 1);
        auto make = [&](uint64_t e, uint64_t m) { put(sign | (e << man_bits) | (m & man_mask)); };
        switch (r.below(14)) {
        case 0: make(0, 0); break;                                   // +-0
        case 1: make(exp_all, 0); break;                             // +-inf
        case 2: make(exp_all, (1ULL << (man_bits - 1)) | w[0]); break;   // quiet NaN
        case 3: make(exp_all, (w[0] & ((1ULL << (man_bits - 1)) - 1)) | 1); break;   // signalling NaN
        case 4: make(0, 1); break;                                   // smallest denormal
        case 5: make(0, w[0]); break;                                // a denormal
        case 6: make(1, 0); break;                                   // smallest normal
        case 7: make(exp_all - 1, man_mask); break;                  // largest finite
        case 8: make(exp_all / 2, r.below(2) ? 0 : 1); break;        // 1, or 1 + ulp
        case 9: make(exp_all / 2 - man_bits - 1, 0); break;          // half an ulp of 1: a tie
        case 10: std::memcpy(p, w, size); break;                     // any pattern
        default: make(exp_all / 2 - 8 + r.below(17), w[0]); break;   // moderate range
        }
        return;
    }
    default:   // long double / float128: only copied (REPLACE, NO_OP)
        std::memcpy(p, w, size);
        return;
    }
}

struct Slot {
    int op, kt;
    opf_datatype_t type;
    opf_kernel2_fn *ref2;
    opf_kernel3_fn *ref3;
    int ext;
    std::vector<Field> fields;
    int align;
};

void fill(const Slot &s, unsigned char *p, size_t n, Rng &r, const unsigned char *other)
{
    std::memset(p, 0, n * s.ext);
    for (size_t i = 0; i < n; ++i) {
        unsigned char *e = p + i * s.ext;
        if (other && r.below(4) == 0) {   // tie with the other operand (value; index may differ)
            std::memcpy(e, other + i * s.ext, s.ext);
            if (s.fields.size() == 2 && r.below(2)) fill_field(s.fields[1].kind, e + s.fields[1].offset, r);
            continue;
        }
        for (const Field &f : s.fields) fill_field(f.kind, e + f.offset, r);
        if (s.fields.size() == 2 && s.fields[1].kind == F::I32 && r.below(2)) {
            const int32_t small = int32_t(r.below(8)) - 2;   // small indices: equal ones too
            std::memcpy(e + s.fields[1].offset, &small, 4);
        }
    }
}

// Index of the first element whose values differ, or -1: the base's rule
// (any NaN matches any NaN, padding is no value), through introspect.h.
long first_difference(const Slot &s, const unsigned char *a, const unsigned char *b, size_t n)
{
    opf_count_t at = -1;
    return opf_kernel_type_first_difference(s.kt, a, b, opf_count_t(n), &at) == OPF_SUCCESS ? long(at) : 0;
}

std::string hex(const unsigned char *p, int n)
{
    std::string s;
    char b[4];
    for (int i = n - 1; i >= 0; --i) {
        std::snprintf(b, sizeof b, "%02x", p[i]);
        s += b;
    }
    return s;
}

// ---- the harness ------------------------------------------------------------------------
struct Harness {
    cl_context ctx = nullptr;
    cl_device_id dev = nullptr;
    cl_command_queue q = nullptr;
    bool svm = false;
    engine::Options opt;   // --seed, --quick / --deep, --function, -v: the engine's options
    bool out_of_order = false;
    long checks = 0, failed = 0, slots = 0, skipped = 0, svm_checks = 0;
    std::string skipped_list;
};

bool expect(Harness &h, bool ok, const std::string &what)
{
    ++h.checks;
    if (!ok) {
        ++h.failed;
        if (h.failed <= 50) std::printf("FAIL %s (seed=%" PRIu64 ")\n", what.c_str(), h.opt.seed);
    }
    return ok;
}

#define CL_OK(call) do { cl_int e_ = (call); if (e_ != CL_SUCCESS) { std::printf("OpenCL error %d at %s:%d: %s\n", e_, __FILE__, __LINE__, #call); std::exit(1); } } while (0)

const char *const kModes[] = {"2-buffer", "2-buffer one cl_mem", "3-buffer", "3-buffer out==in1", "3-buffer out==in2",
                              "3-buffer one cl_mem"};

// One (slot, n, mode, offset) on cl_mem; returns false on a failure.
void run_clmem(Harness &h, const Slot &s, size_t n, int mode, size_t off, bool with_event, Rng &r)
{
    const size_t bytes = n * s.ext, guard = 64;
    std::vector<unsigned char> a(bytes + 1), b(bytes + 1), expect_v(bytes + 1);
    fill(s, a.data(), n, r, nullptr);
    fill(s, b.data(), n, r, a.data());
    const int nbuf = mode < 2 ? 2 : 3;
    // Reference: the base.
    expect_v = b;
    if (nbuf == 2) s.ref2(a.data(), expect_v.data(), opf_count_t(n));
    else if (mode == 3) { expect_v = a; s.ref3(expect_v.data(), b.data(), expect_v.data(), opf_count_t(n)); }
    else if (mode == 4) { s.ref3(a.data(), expect_v.data(), expect_v.data(), opf_count_t(n)); }
    else { std::vector<unsigned char> o(bytes + 1); s.ref3(a.data(), b.data(), o.data(), opf_count_t(n)); expect_v = o; }

    // Layout: operands in their own buffers, or side by side in one.
    const bool one = mode == 1 || mode == 5;
    const size_t span = off + bytes + guard;          // one operand's region
    const int regions = one ? nbuf : 1;
    const size_t size = guard + regions * span + 8;
    std::vector<unsigned char> pattern(size);
    for (auto &c : pattern) c = (unsigned char)r.next();
    auto place = [&](std::vector<unsigned char> &img, int region, const std::vector<unsigned char> &data) {
        std::memcpy(img.data() + guard + region * span + off, data.data(), bytes);
    };
    cl_int err = CL_SUCCESS;
    auto make = [&](const std::vector<unsigned char> &img) {
        cl_mem m = clCreateBuffer(h.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, img.size(),
                                  const_cast<unsigned char *>(img.data()), &err);
        CL_OK(err);
        return m;
    };
    std::vector<unsigned char> img[3];
    cl_mem mem[3] = {nullptr, nullptr, nullptr};
    size_t offs[3] = {0, 0, 0};
    const std::vector<unsigned char> zero(bytes + 1, 0xA5);
    if (one) {
        img[0] = pattern;
        place(img[0], 0, a);
        place(img[0], 1, b);
        if (nbuf == 3) place(img[0], 2, zero);
        mem[0] = mem[1] = mem[2] = make(img[0]);
        for (int i = 0; i < 3; ++i) offs[i] = guard + i * span + off;
    } else {
        const int nmem = mode == 2 ? 3 : 2;
        for (int i = 0; i < nmem; ++i) {
            img[i] = pattern;
            place(img[i], 0, i == 0 ? a : i == 1 ? b : zero);
            mem[i] = make(img[i]);
            offs[i] = guard + off;
        }
        if (mode == 3) { mem[2] = mem[0]; offs[2] = offs[0]; }   // out == in1
        if (mode == 4) { mem[2] = mem[1]; offs[2] = offs[1]; }   // out == in2
    }
    cl_event done = nullptr;
    int rc;
    if (nbuf == 2)
        rc = opf_cl_reduce_local(mem[0], offs[0], mem[1], offs[1], opf_count_t(n), s.type, OPF_OP_HANDLE_(s.op), h.q, 0,
                                 nullptr, with_event ? &done : nullptr);
    else
        rc = opf_cl_reduce_local3(mem[0], offs[0], mem[1], offs[1], mem[2], offs[2], opf_count_t(n), s.type,
                                  OPF_OP_HANDLE_(s.op), h.q, 0, nullptr, with_event ? &done : nullptr);
    char what[256];
    std::snprintf(what, sizeof what, "cl_mem %s %s %s n=%zu offset=%zu %s", opf_op_name(OPF_OP_HANDLE_(s.op)),
                  opf_kernel_type_name(s.kt), kModes[mode], n, off, with_event ? "event" : "blocking");
    if (!expect(h, rc == OPF_SUCCESS, std::string(what) + ": rc " + std::to_string(rc) + ": " + opf_cl_last_error())) {
        for (cl_mem m : {mem[0], mem[1], mem[2]}) if (m) clReleaseMemObject(m);
        return;
    }
    if (with_event) {
        expect(h, done != nullptr, std::string(what) + ": no event");
        if (done) {
            CL_OK(clWaitForEvents(1, &done));
            clReleaseEvent(done);
        }
    }
    // Read everything back: results, inputs, guards.
    const int nmem = one ? 1 : (mode == 2 ? 3 : 2);
    std::vector<unsigned char> got[3];
    for (int i = 0; i < nmem; ++i) {
        got[i].resize(img[i].size());
        CL_OK(clEnqueueReadBuffer(h.q, mem[i], CL_TRUE, 0, got[i].size(), got[i].data(), 0, nullptr, nullptr));
    }
    // The expected image of every buffer: the output region holds the result.
    std::vector<unsigned char> want[3];
    for (int i = 0; i < nmem; ++i) want[i] = img[i];
    auto region_of = [&](int operand) -> std::pair<int, size_t> {   // (buffer, byte offset)
        if (one) return {0, offs[operand]};
        if (mode == 3 && operand == 2) return {0, offs[0]};
        if (mode == 4 && operand == 2) return {1, offs[1]};
        return {operand, offs[operand]};
    };
    const auto [ob, oo] = region_of(nbuf - 1);
    // Compare the result with value rules, then everything else byte for byte.
    long bad = first_difference(s, expect_v.data(), got[ob].data() + oo, n);
    if (!expect(h, bad < 0, std::string(what) + ": wrong result")) {
        const size_t i = size_t(bad);
        std::printf("  element %zu: in %s inout/in2 %s expected %s got %s\n", i, hex(a.data() + i * s.ext, s.ext).c_str(),
                    hex(b.data() + i * s.ext, s.ext).c_str(), hex(expect_v.data() + i * s.ext, s.ext).c_str(),
                    hex(got[ob].data() + oo + i * s.ext, s.ext).c_str());
    }
    std::memcpy(want[ob].data() + oo, got[ob].data() + oo, bytes);   // result checked above (padding may differ)
    for (int i = 0; i < nmem; ++i) {
        size_t at = 0;
        while (at < want[i].size() && want[i][at] == got[i][at]) ++at;
        expect(h, at == want[i].size(),
               std::string(what) + ": buffer " + std::to_string(i) + " changed outside the output (byte " +
                   std::to_string(at) + ": an input or a guard was written)");
    }
    for (int i = 0; i < nmem; ++i) clReleaseMemObject(mem[i]);
}

// The same cases on fine-grained SVM pointers.
void run_svm(Harness &h, const Slot &s, size_t n, int mode, Rng &r)
{
    const size_t bytes = n * s.ext, guard = 64, size = guard * 2 + 3 * (bytes + guard);
    auto *base = static_cast<unsigned char *>(clSVMAlloc(h.ctx, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, size, 0));
    if (!base) {
        expect(h, false, "clSVMAlloc failed");
        return;
    }
    std::vector<unsigned char> image(size);
    for (auto &c : image) c = (unsigned char)r.next();
    unsigned char *p[3] = {base + guard, base + guard + (bytes + guard), base + guard + 2 * (bytes + guard)};
    std::vector<unsigned char> a(bytes + 1), b(bytes + 1), want(bytes + 1);
    fill(s, a.data(), n, r, nullptr);
    fill(s, b.data(), n, r, a.data());
    std::memcpy(image.data() + (p[0] - base), a.data(), bytes);
    std::memcpy(image.data() + (p[1] - base), b.data(), bytes);
    std::memcpy(base, image.data(), size);
    const int nbuf = mode < 2 ? 2 : 3;
    unsigned char *out = nbuf == 2 ? p[1] : mode == 3 ? p[0] : mode == 4 ? p[1] : p[2];
    want = b;
    if (nbuf == 2) s.ref2(a.data(), want.data(), opf_count_t(n));
    else if (mode == 3) { want = a; s.ref3(want.data(), b.data(), want.data(), opf_count_t(n)); }
    else if (mode == 4) s.ref3(a.data(), want.data(), want.data(), opf_count_t(n));
    else s.ref3(a.data(), b.data(), want.data(), opf_count_t(n));
    const int rc = nbuf == 2 ? opf_cl_reduce_local_svm(p[0], p[1], opf_count_t(n), s.type, OPF_OP_HANDLE_(s.op), h.q, 0,
                                                       nullptr, nullptr)
                             : opf_cl_reduce_local3_svm(p[0], p[1], out, opf_count_t(n), s.type, OPF_OP_HANDLE_(s.op),
                                                        h.q, 0, nullptr, nullptr);
    char what[200];
    std::snprintf(what, sizeof what, "SVM %s %s %s n=%zu", opf_op_name(OPF_OP_HANDLE_(s.op)), opf_kernel_type_name(s.kt),
                  kModes[mode], n);
    ++h.svm_checks;
    if (expect(h, rc == OPF_SUCCESS, std::string(what) + ": " + opf_cl_last_error())) {
        expect(h, first_difference(s, want.data(), out, n) < 0, std::string(what) + ": wrong result");
        std::memcpy(image.data() + (out - base), out, bytes);
        expect(h, std::memcmp(image.data(), base, size) == 0, std::string(what) + ": wrote outside the output");
    }
    clSVMFree(h.ctx, base);
}

// ---- refusals and the odd cases ------------------------------------------------------------
void run_errors(Harness &h)
{
    cl_int err;
    const size_t nb = 4096;
    cl_mem a = clCreateBuffer(h.ctx, CL_MEM_READ_WRITE, nb, nullptr, &err);
    cl_mem b = clCreateBuffer(h.ctx, CL_MEM_READ_WRITE, nb, nullptr, &err);
    auto rc_is = [&](int rc, int want, const char *what) {
        expect(h, rc == want, std::string("refusal: ") + what + ": rc " + std::to_string(rc) + ", expected " +
                                  std::to_string(want) + " (" + opf_cl_last_error() + ")");
        if (h.opt.verbose && rc != OPF_SUCCESS) std::printf("  %s -> %s\n", what, opf_cl_last_error());
    };
    rc_is(opf_cl_reduce_local(a, 0, b, 0, 10, OPF_FLOAT, OPF_SUM, nullptr, 0, nullptr, nullptr), OPF_ERR_ARG, "NULL queue");
    rc_is(opf_cl_reduce_local(a, 0, b, 4080, 10, OPF_FLOAT, OPF_SUM, h.q, 0, nullptr, nullptr), OPF_ERR_BUFFER,
          "range past the end");
    rc_is(opf_cl_reduce_local(a, 2, b, 0, 10, OPF_FLOAT, OPF_SUM, h.q, 0, nullptr, nullptr), OPF_ERR_ARG,
          "misaligned offset");
    rc_is(opf_cl_reduce_local3(a, 0, b, 0, a, 8, 10, OPF_FLOAT, OPF_SUM, h.q, 0, nullptr, nullptr), OPF_ERR_BUFFER,
          "out partly overlaps in1");
    rc_is(opf_cl_reduce_local(a, 0, b, 0, -1, OPF_FLOAT, OPF_SUM, h.q, 0, nullptr, nullptr), OPF_ERR_COUNT,
          "negative count");
    rc_is(opf_cl_reduce_local(a, 0, b, 0, 10, OPF_FLOAT, OPF_BAND, h.q, 0, nullptr, nullptr), OPF_ERR_OP,
          "BAND on FLOAT");
    rc_is(opf_cl_reduce_local(a, 0, b, 0, 10, OPF_LONG_DOUBLE, OPF_SUM, h.q, 0, nullptr, nullptr), OPF_ERR_OP,
          "SUM on LONG_DOUBLE");
    rc_is(opf_cl_reduce_local(nullptr, 0, b, 0, 10, OPF_FLOAT, OPF_SUM, h.q, 0, nullptr, nullptr), OPF_ERR_BUFFER,
          "NULL in");
    rc_is(opf_cl_reduce_local(a, 0, b, 0, 10, OPF_FLOAT, OPF_SUM, h.q, 1, nullptr, nullptr), OPF_ERR_ARG,
          "nwait 1, wait NULL");
    rc_is(opf_cl_reduce_local(a, 0, b, 0, 10, OPF_DATATYPE_NULL, OPF_SUM, h.q, 0, nullptr, nullptr), OPF_ERR_TYPE,
          "DATATYPE_NULL");
    rc_is(opf_cl_reduce_local(a, 0, b, 0, 10, OPF_FLOAT, OPF_OP_NULL, h.q, 0, nullptr, nullptr), OPF_ERR_OP, "OP_NULL");
    opf_op_t user;
    opf_op_create_c([](void *, void *, opf_count_t *, opf_datatype_t *) {}, 1, &user);
    rc_is(opf_cl_reduce_local(a, 0, b, 0, 10, OPF_FLOAT, user, h.q, 0, nullptr, nullptr), OPF_ERR_OP, "user op");
    opf_op_free(&user);
    opf_datatype_t vec, contig;
    opf_type_vector(2, 1, 2, OPF_FLOAT, &vec);
    opf_type_commit(&vec);
    rc_is(opf_cl_reduce_local(a, 0, b, 0, 10, vec, OPF_SUM, h.q, 0, nullptr, nullptr), OPF_ERR_TYPE,
          "vector type (gaps)");
    opf_type_free(&vec);
    cl_mem ro = clCreateBuffer(h.ctx, CL_MEM_READ_ONLY, nb, nullptr, &err);
    rc_is(opf_cl_reduce_local(a, 0, ro, 0, 10, OPF_FLOAT, OPF_SUM, h.q, 0, nullptr, nullptr), OPF_ERR_BUFFER,
          "read-only inout");
    clReleaseMemObject(ro);
    // Another context's buffer.
    cl_context other = clCreateContext(nullptr, 1, &h.dev, nullptr, nullptr, &err);
    cl_mem foreign = clCreateBuffer(other, CL_MEM_READ_WRITE, nb, nullptr, &err);
    rc_is(opf_cl_reduce_local(foreign, 0, b, 0, 10, OPF_FLOAT, OPF_SUM, h.q, 0, nullptr, nullptr), OPF_ERR_BUFFER,
          "buffer of another context");
    clReleaseMemObject(foreign);
    clReleaseContext(other);

    // A contiguous derived type: count 3 of 4 floats is 12 floats.
    opf_type_contiguous(4, OPF_FLOAT, &contig);
    opf_type_commit(&contig);
    std::vector<float> x(12), y(12), z(12);
    for (int i = 0; i < 12; ++i) { x[i] = float(i); y[i] = 0.5f * float(i); z[i] = x[i] + y[i]; }
    CL_OK(clEnqueueWriteBuffer(h.q, a, CL_TRUE, 0, 48, x.data(), 0, nullptr, nullptr));
    CL_OK(clEnqueueWriteBuffer(h.q, b, CL_TRUE, 0, 48, y.data(), 0, nullptr, nullptr));
    rc_is(opf_cl_reduce_local(a, 0, b, 0, 3, contig, OPF_SUM, h.q, 0, nullptr, nullptr), OPF_SUCCESS,
          "contiguous(4, FLOAT)");
    CL_OK(clEnqueueReadBuffer(h.q, b, CL_TRUE, 0, 48, y.data(), 0, nullptr, nullptr));
    expect(h, std::memcmp(y.data(), z.data(), 48) == 0, "contiguous(4, FLOAT): wrong result");
    opf_type_free(&contig);

    // The wait list is honoured: nothing runs before a user event completes.
    cl_event gate = clCreateUserEvent(h.ctx, &err);
    for (int i = 0; i < 12; ++i) y[i] = 1.0f;
    CL_OK(clEnqueueWriteBuffer(h.q, b, CL_TRUE, 0, 48, y.data(), 0, nullptr, nullptr));
    cl_event done = nullptr;
    rc_is(opf_cl_reduce_local(a, 0, b, 0, 12, OPF_FLOAT, OPF_SUM, h.q, 1, &gate, &done), OPF_SUCCESS,
          "waits for a user event");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    cl_int status = CL_COMPLETE;
    if (done) clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
    expect(h, status != CL_COMPLETE, "the reduction ran before its wait list completed");
    clSetUserEventStatus(gate, CL_COMPLETE);
    if (done) {
        CL_OK(clWaitForEvents(1, &done));
        clReleaseEvent(done);
    }
    clReleaseEvent(gate);
    CL_OK(clEnqueueReadBuffer(h.q, b, CL_TRUE, 0, 48, y.data(), 0, nullptr, nullptr));
    expect(h, y[5] == x[5] + 1.0f, "the gated reduction's result");
    // Count 0 with an event: a marker.
    done = nullptr;
    rc_is(opf_cl_reduce_local(a, 0, b, 0, 0, OPF_FLOAT, OPF_SUM, h.q, 0, nullptr, &done), OPF_SUCCESS, "count 0");
    expect(h, done != nullptr, "count 0 gives an event");
    if (done) { clWaitForEvents(1, &done); clReleaseEvent(done); }
    // REPLACE on long double is a copy.
    rc_is(opf_cl_reduce_local(a, 0, b, 0, 8, OPF_LONG_DOUBLE, OPF_REPLACE, h.q, 0, nullptr, nullptr), OPF_SUCCESS,
          "REPLACE on LONG_DOUBLE");
    // Supported / not.
    int sup = -1;
    opf_cl_supported(h.q, OPF_SUM, OPF_FLOAT, &sup);
    expect(h, sup == 1, "opf_cl_supported(SUM, FLOAT)");
    opf_cl_supported(h.q, OPF_SUM, OPF_LONG_DOUBLE, &sup);
    expect(h, sup == 0, "opf_cl_supported(SUM, LONG_DOUBLE) is 0");
    // Dropping the context's programs, then using it again: rebuilt.
    rc_is(opf_cl_release_context(h.ctx), OPF_SUCCESS, "opf_cl_release_context");
    rc_is(opf_cl_reduce_local(a, 0, b, 0, 12, OPF_FLOAT, OPF_MAX, h.q, 0, nullptr, nullptr), OPF_SUCCESS,
          "a call after opf_cl_release_context");
    clReleaseMemObject(a);
    clReleaseMemObject(b);
}

// A predefined datatype of kernel type kt on which op is defined.
opf_datatype_t type_of(int op, int kt)
{
    for (int id = 1; id < OPF_TYPEID_COUNT_; ++id) {
        int k = -1, valid = 0;
        if (opf_type_kernel_type(OPF_TYPE_HANDLE_(id), &k) == OPF_SUCCESS && k == kt &&
            opf_op_valid_for_type(OPF_OP_HANDLE_(op), OPF_TYPE_HANDLE_(id), &valid) == OPF_SUCCESS && valid)
            return OPF_TYPE_HANDLE_(id);
    }
    return OPF_DATATYPE_NULL;
}

} // namespace

int main(int argc, char **argv)
{
    Harness h;
    for (int i = 1; i < argc; ++i) {
        if (h.opt.parse(argc, argv, i)) continue;
        if (std::string(argv[i]) == "--out-of-order") {
            h.out_of_order = true;
            continue;
        }
        std::printf("usage: %s [options] [--out-of-order]\n%s", argv[0], engine::Options::help());
        return 2;
    }
    h.opt.finish();
    std::printf("seed=%" PRIu64 " depth=%s\n", h.opt.seed, engine::depth_name(h.opt.depth));

    std::optional<engine::OpenClDevice> device = engine::OpenClDevice::open_first(h.out_of_order);
    if (!device) {
        std::printf("opencl_conformance: no OpenCL device: skipped\n");
        return 77;
    }
    h.dev = device->id;
    h.ctx = device->context;
    h.q = device->queue;
    h.svm = device->fine_svm;
    const char *name = device->name;
    std::printf("device: %s (fine-grained SVM: %s), %s queue\n", name, h.svm ? "yes" : "no",
                h.out_of_order ? "out-of-order" : "in-order");

    if (opf_init() != OPF_SUCCESS) {
        std::printf("opf_init failed: %s\n", opf_last_error());
        return 1;
    }
    int sup = 0;
    if (opf_cl_supported(h.q, OPF_SUM, OPF_INT, &sup) != OPF_SUCCESS) {
        std::printf("FAIL the opencl provider is not there: %s\n", opf_cl_last_error());
        return 1;
    }

    std::vector<size_t> lengths = {0, 1, 2, 3, 7, 8, 15, 16, 17, 31, 33, 63, 64, 65, 127, 1000, 4099};
    if (h.opt.quick()) lengths = {0, 1, 3, 17, 65, 1000};
    for (int op = 1; op < OPF_OPID_COUNT; ++op)
        for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
            if (!opf_slot_exists(op, kt) ||
                !h.opt.selected("opencl", opf_op_name(OPF_OP_HANDLE_(op)), opf_kernel_type_name(kt)))
                continue;
            Slot s{op, kt, type_of(op, kt), nullptr, nullptr, opf_kernel_type_extent(kt), fields(kt), 1};
            opf_slot_kernels(op, kt, "base", 1, &s.ref2, &s.ref3);
            for (const Field &f : s.fields) s.align = std::max(s.align, std::min(field_size(f.kind), 8));
            if (kt == OPF_KT_LONG_DOUBLE || kt == OPF_KT_FLOAT128 || kt == OPF_KT_INT128 ||
                kt == OPF_KT_C_LONG_DOUBLE_COMPLEX || kt == OPF_KT_LONG_DOUBLE_INT)
                s.align = 16;
            if (s.type == OPF_DATATYPE_NULL || !s.ref2 || !s.ref3) {
                if (h.opt.verbose) std::printf("  skip %s %s: no datatype of this kernel type takes the op\n",
                                           opf_op_name(OPF_OP_HANDLE_(op)), opf_kernel_type_name(kt));
                continue;
            }
            opf_cl_supported(h.q, OPF_OP_HANDLE_(op), s.type, &sup);
            if (!sup) {
                ++h.skipped;
                if (h.opt.verbose) std::printf("  skip %s %s: %s\n", opf_op_name(OPF_OP_HANDLE_(op)), opf_kernel_type_name(kt),
                                           opf_cl_last_error());
                continue;
            }
            ++h.slots;
            const long failed_before = h.failed, checks_before = h.checks;
            Rng r{h.opt.seed ^ (uint64_t(op) * 0x9e3779b97f4a7c15ULL) ^ (uint64_t(kt) * 0xc2b2ae3d27d4eb4fULL)};
            const size_t offsets[3] = {0, size_t(s.ext), size_t(3 * s.align)};
            for (size_t li = 0; li < lengths.size(); ++li)
                for (int mode = 0; mode < 6; ++mode) {
                    const size_t off = offsets[(li + mode) % 3];
                    run_clmem(h, s, lengths[li], mode, off, (li + mode) % 2 == 1, r);
                    if (h.svm && (li % 3 == 0 || lengths[li] >= 1000)) run_svm(h, s, lengths[li], mode, r);
                }
            if (h.opt.verbose)
                std::printf("  %-8s %-22s %5ld checks %s\n", opf_op_name(OPF_OP_HANDLE_(op)), opf_kernel_type_name(kt),
                            h.checks - checks_before, h.failed > failed_before ? "FAILED" : "ok");
        }
    run_errors(h);
    // Finalize, then a call without opf_init: the call initialises again, the
    // component registers again, the programs are rebuilt.
    {
        opf_finalize();
        cl_int e = CL_SUCCESS;
        float x[5] = {1, 2, 3, 4, 5}, y[5] = {10, 20, 30, 40, 50};
        cl_mem a = clCreateBuffer(h.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof x, x, &e);
        cl_mem b = clCreateBuffer(h.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof y, y, &e);
        const int rc = opf_cl_reduce_local(a, 0, b, 0, 5, OPF_FLOAT, OPF_SUM, h.q, 0, nullptr, nullptr);
        expect(h, rc == OPF_SUCCESS, std::string("a call after opf_finalize: ") + opf_cl_last_error());
        CL_OK(clEnqueueReadBuffer(h.q, b, CL_TRUE, 0, sizeof y, y, 0, nullptr, nullptr));
        expect(h, y[4] == 55.0f, "a call after opf_finalize: result");
        clReleaseMemObject(a);
        clReleaseMemObject(b);
    }
    std::printf("opencl_conformance: %ld slots on %s (%ld not supported there), %ld checks (%ld on SVM), %ld failed\n",
                h.slots, name, h.skipped, h.checks, h.svm_checks, h.failed);
    clReleaseCommandQueue(h.q);
    clReleaseContext(h.ctx);
    opf_finalize();
    return h.failed || h.slots == 0 ? 1 : 0;
}
