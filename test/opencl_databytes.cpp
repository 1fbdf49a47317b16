// opencl_databytes.cpp — the opencl component writes data bytes only
// (component.h; docs/design.md, Data bytes only): not a pair's padding, not a
// long double's, and nothing past the last element's data (MPI's true end).
//
// Every operand is a guarded buffer: elements at their extent, random data in
// the bytes base/storage.h says hold data (data_layout), a guard pattern in
// every other byte of every element, and guard bytes after the true end.
// After each call the result must equal the base's (any NaN matches any NaN)
// and every guard byte must be intact; inputs must not change at all.
//   host path:  the component's host-memory kernels (op_opencl_host_min_count=1),
//               every slot it offers, 2- and 3-buffer;
//   cl_mem:     opf_cl_reduce_local(3) on buffers holding the true end plus a
//               guarded tail, and on buffers ending exactly at the true end
//               (which must be accepted), every op incl. REPLACE and NO_OP;
//   SVM:        the same on fine-grained SVM, where the device has it.
// Usage: opencl_databytes [engine options: --seed N, -v]. Exit 77 when there is no OpenCL
// device. The component must be on mca_component_path (test/opencl_databytes.sh).
#define CL_TARGET_OPENCL_VERSION 300
#include <opframe/introspect.h>
#include <opframe/opencl.h>
#include <opframe/opframe.h>

#include <array>
#include <chrono>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "base/compare.h"
#include "base/type_list.h"
#include "test/engine/opencl_backend.h"

namespace {

namespace ob = opf::base;

int failures = 0;
long long checks = 0;
bool verbose = false;

using engine::Rng;   // the engine's seeded randomness

// ---- per kernel type, from the base's type list ----------------------------------
struct TypeFacts {
    std::size_t extent, true_end;
    ob::DataLayout layout;
    opf_count_t (*first_difference)(const void *, const void *, opf_count_t);
};
template <std::size_t... K> constexpr std::array<TypeFacts, OPF_KT_COUNT> facts_of(std::index_sequence<K...>)
{
    return {TypeFacts{sizeof(ob::at_t<K, ob::KernelTypes>), ob::data_end<ob::at_t<K, ob::KernelTypes>>,
                      ob::data_layout<ob::at_t<K, ob::KernelTypes>>,
                      &ob::first_difference<ob::at_t<K, ob::KernelTypes>>}...};
}
constexpr auto kFacts = facts_of(std::make_index_sequence<OPF_KT_COUNT>{});

constexpr std::size_t kTail = 64;   // guard bytes after the true end

// Guard bytes differ between buffers (a kernel copying an input's padding
// into the output's must show) and along a buffer.
unsigned char guard_byte(std::size_t at, uint64_t salt) { return (unsigned char)((0xa5 ^ (at * 29)) + salt * 71); }

// A byte of element data?
bool is_data(const TypeFacts &t, std::size_t at, std::size_t n)
{
    const std::size_t i = at / t.extent, in = at % t.extent;
    if (i >= n) return false;
    for (int r = 0; r < t.layout.count; ++r)
        if (in >= t.layout.range[r].offset && in < t.layout.range[r].offset + t.layout.range[r].size) return true;
    return false;
}

// true end + tail bytes: data random, the rest guard bytes.
std::vector<unsigned char> guarded(const TypeFacts &t, std::size_t n, Rng &rng)
{
    std::vector<unsigned char> v((n ? (n - 1) * t.extent + t.true_end : 0) + kTail);
    const uint64_t salt = rng.next();
    for (std::size_t at = 0; at < v.size(); ++at)
        v[at] = is_data(t, at, n) ? (unsigned char)rng.next() : guard_byte(at, salt);
    return v;
}

// The first guard byte that changed, or -1.
long changed_guard(const TypeFacts &t, std::size_t n, const std::vector<unsigned char> &before,
                   const unsigned char *after, std::size_t len)
{
    for (std::size_t at = 0; at < len; ++at)
        if (!is_data(t, at, n) && after[at] != before[at]) return long(at);
    return -1;
}

void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fail(const char *fmt, ...)
{
    ++failures;
    if (failures > 40) return;   // the count says the rest
    va_list ap;
    va_start(ap, fmt);
    std::fputs("FAIL ", stdout);
    std::vprintf(fmt, ap);
    std::fputc('\n', stdout);
    va_end(ap);
}

const char *op_name(int op) { return ob::op_names[op]; }
const char *kt_name(int kt) { return ob::kernel_type_names[kt]; }

// Checks one result: `out` (len bytes, true end + tail) against the base's
// `want` (same shape), guards against `before`.
void verdict(const char *path, int op, int kt, int nbuf, std::size_t n, const std::vector<unsigned char> &before,
             const std::vector<unsigned char> &want, const unsigned char *out)
{
    const TypeFacts &t = kFacts[kt];
    ++checks;
    const opf_count_t bad = t.first_difference(want.data(), out, opf_count_t(n));
    const long guard = changed_guard(t, n, before, out, before.size());
    if (bad >= 0)
        fail("%s %s %s %d-buffer n=%zu: element %lld differs from the base", path, op_name(op), kt_name(kt), nbuf, n,
             (long long)bad);
    if (guard >= 0) {
        const std::size_t true_bytes = before.size() - kTail;
        fail("%s %s %s %d-buffer n=%zu: guard byte %ld written (%s)", path, op_name(op), kt_name(kt), nbuf, n, guard,
             std::size_t(guard) >= true_bytes ? "past the true end" : "padding inside an element");
    }
}

// The base's result on copies of the operands: `a` op `b` into a copy of
// `dst_before` (the output's bytes before the call).
std::vector<unsigned char> base_result(int op, int kt, int nbuf, std::size_t n, const std::vector<unsigned char> &a,
                                       const std::vector<unsigned char> &b, const std::vector<unsigned char> &dst_before)
{
    opf_kernel2_fn *f2 = nullptr;
    opf_kernel3_fn *f3 = nullptr;
    std::vector<unsigned char> out = dst_before;
    if (opf_slot_kernels(op, kt, "base", opf_count_t(n), &f2, &f3) != OPF_SUCCESS) {
        fail("%s %s: no base kernel (%s)", op_name(op), kt_name(kt), opf_last_error());
        return out;
    }
    if (nbuf == 2) f2(a.data(), out.data(), opf_count_t(n));
    else f3(a.data(), b.data(), out.data(), opf_count_t(n));
    return out;
}

const std::size_t kLengths[] = {1, 2, 3, 5, 17, 1000};

// ---- host path ------------------------------------------------------------------------
int host_path(uint64_t seed)
{
    int slots = 0;
    for (int op = 1; op < OPF_OPID_COUNT; ++op)
        for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
            if (!opf_slot_exists(op, kt)) continue;
            const TypeFacts &t = kFacts[kt];
            bool any = false;
            for (std::size_t n : kLengths) {
                opf_kernel2_fn *f2 = nullptr;
                opf_kernel3_fn *f3 = nullptr;
                if (opf_slot_kernels(op, kt, "opencl", opf_count_t(n), &f2, &f3) != OPF_SUCCESS || !f2 || !f3) continue;
                any = true;
                Rng rng{seed ^ (uint64_t(op) << 40) ^ (uint64_t(kt) << 32) ^ n};
                const auto a = guarded(t, n, rng), b = guarded(t, n, rng), o = guarded(t, n, rng);
                auto inout = b;
                f2(a.data(), inout.data(), opf_count_t(n));
                verdict("host", op, kt, 2, n, b, base_result(op, kt, 2, n, a, b, b), inout.data());
                auto a_copy = a, b_copy = b, out = o;
                f3(a_copy.data(), b_copy.data(), out.data(), opf_count_t(n));
                verdict("host", op, kt, 3, n, o, base_result(op, kt, 3, n, a, b, o), out.data());
                if (a_copy != a || b_copy != b) fail("host %s %s n=%zu: an input changed", op_name(op), kt_name(kt), n);
            }
            slots += any;
        }
    return slots;
}

// ---- device paths --------------------------------------------------------------------
using Device = engine::OpenClDevice;

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

// One call on device memory: cl_mem buffers (exact: sized to the true end,
// else true end + tail) or SVM. Returns false when the slot is not supported.
bool device_call(Device &d, const char *path, int op, int kt, int nbuf, std::size_t n, bool svm, bool exact, Rng &rng)
{
    const TypeFacts &t = kFacts[kt];
    const opf_datatype_t type = type_of(op, kt);
    const auto a = guarded(t, n, rng), b = guarded(t, n, rng), o = guarded(t, n, rng);
    const std::vector<unsigned char> &dst_before = nbuf == 2 ? b : o;
    const std::size_t len = exact ? a.size() - kTail : a.size();
    std::vector<unsigned char> got(a.size());
    int rc;
    if (svm) {
        void *p[3];
        for (int i = 0; i < 3; ++i) {
            p[i] = clSVMAlloc(d.context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, a.size(), 0);
            std::memcpy(p[i], (i == 0 ? a : i == 1 ? b : o).data(), a.size());
        }
        rc = nbuf == 2 ? opf_cl_reduce_local_svm(p[0], p[1], opf_count_t(n), type, OPF_OP_HANDLE_(op), d.queue, 0, nullptr, nullptr)
                       : opf_cl_reduce_local3_svm(p[0], p[1], p[2], opf_count_t(n), type, OPF_OP_HANDLE_(op), d.queue, 0,
                                                  nullptr, nullptr);
        std::memcpy(got.data(), p[nbuf - 1], a.size());
        for (void *q : p) clSVMFree(d.context, q);
    } else {
        cl_mem m[3];
        cl_int err = CL_SUCCESS;
        for (int i = 0; i < 3; ++i)
            m[i] = clCreateBuffer(d.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, len,
                                  const_cast<unsigned char *>((i == 0 ? a : i == 1 ? b : o).data()), &err);
        rc = nbuf == 2 ? opf_cl_reduce_local(m[0], 0, m[1], 0, opf_count_t(n), type, OPF_OP_HANDLE_(op), d.queue, 0, nullptr, nullptr)
                       : opf_cl_reduce_local3(m[0], 0, m[1], 0, m[2], 0, opf_count_t(n), type, OPF_OP_HANDLE_(op), d.queue, 0,
                                              nullptr, nullptr);
        got = dst_before;   // the tail of an exact buffer is not on the device
        clEnqueueReadBuffer(d.queue, m[nbuf - 1], CL_TRUE, 0, len, got.data(), 0, nullptr, nullptr);
        for (cl_mem x : m) clReleaseMemObject(x);
    }
    if (rc == OPF_ERR_OP) {   // not on this device (no fp64, ...)
        if (verbose) std::printf("%s %s %s: %s\n", path, op_name(op), kt_name(kt), opf_cl_last_error());
        return false;
    }
    ++checks;
    if (rc != OPF_SUCCESS) {
        fail("%s %s %s %d-buffer n=%zu%s: rc %d: %s", path, op_name(op), kt_name(kt), nbuf, n,
             exact ? " (buffers end at the true end)" : "", rc, opf_cl_last_error());
        return true;
    }
    verdict(path, op, kt, nbuf, n, dst_before, base_result(op, kt, nbuf, n, a, b, dst_before), got.data());
    return true;
}

int device_path(Device &d, uint64_t seed, bool svm)
{
    int slots = 0;
    const char *path = svm ? "svm" : "cl_mem";
    for (int op = 1; op < OPF_OPID_COUNT; ++op)
        for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
            if (!opf_slot_exists(op, kt) || type_of(op, kt) == OPF_DATATYPE_NULL) continue;
            bool any = false;
            for (std::size_t n : kLengths)
                for (int nbuf = 2; nbuf <= 3; ++nbuf)
                    for (int exact = 0; exact < (svm ? 1 : 2); ++exact) {
                        Rng rng{seed ^ (uint64_t(op) << 40) ^ (uint64_t(kt) << 32) ^ (n << 2) ^ uint64_t(nbuf + 8 * exact)};
                        any |= device_call(d, path, op, kt, nbuf, n, svm, exact, rng);
                    }
            slots += any;
            if (verbose) std::printf("%s %s %s: %s\n", path, op_name(op), kt_name(kt), any ? "checked" : "not supported");
        }
    return slots;
}

} // namespace

int main(int argc, char **argv)
{
    engine::Options opt;   // --seed, -v (and the other engine options)
    for (int i = 1; i < argc; ++i)
        if (!opt.parse(argc, argv, i)) {
            std::fprintf(stderr, "usage: %s [options]\n%s", argv[0], engine::Options::help());
            return 2;
        }
    opt.finish();
    const uint64_t seed = opt.seed;
    verbose = opt.verbose;
    std::printf("seed=%" PRIu64 "\n", seed);
    std::optional<Device> device = Device::open_first();
    if (!device) {
        std::printf("opencl_databytes: no OpenCL device: skipped\n");
        return 77;
    }
    Device &d = *device;
    std::printf("device: %s (fine-grained SVM: %s)\n", d.name, d.fine_svm ? "yes" : "no");
    // Host memory first: the component then serves host memory (one module
    // per op), so device memory comes after a restart without the setting.
    setenv("OPF_MCA_op_opencl_host_min_count", "1", 1);
    setenv("OPF_MCA_op_opencl_selftest", "0", 1);   // a wrong kernel must show here, not be dropped
    if (opf_init() != OPF_SUCCESS) {
        std::printf("opencl_databytes: opf_init failed: %s\n", opf_last_error());
        return 1;
    }
    const int host = host_path(seed);
    std::printf("host path: %d slots\n", host);
    if (host == 0) fail("host path: the opencl component offers no host slot (is it on mca_component_path?)");
    unsetenv("OPF_MCA_op_opencl_host_min_count");
    if (opf_finalize() != OPF_SUCCESS || opf_init() != OPF_SUCCESS) {
        std::printf("opencl_databytes: opf_finalize / opf_init failed: %s\n", opf_last_error());
        return 1;
    }
    const int mem = device_path(d, seed, false);
    std::printf("cl_mem path: %d slots\n", mem);
    if (mem == 0) fail("cl_mem path: no slot ran");
    if (d.fine_svm) std::printf("svm path: %d slots\n", device_path(d, seed, true));
    std::printf("opencl_databytes: %lld checks, %d failed (rerun with --seed %" PRIu64 ")\n", checks, failures, seed);
    d.release();
    opf_finalize();
    return failures ? 1 : 0;
}
