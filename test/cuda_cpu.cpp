// cuda_cpu.cpp — the cuda component's real host code and kernels on the CPU,
// under the stand-in runtime (test/cudastub), loaded by libopframe through
// libltdl like the real module (issue 13). Each defect the stand-in found has
// its check here:
//   1. data bytes only: pair types on every path (device kernel, host path,
//      staging and copy-back, REPLACE / NO_OP copies, stream calls), with
//      host buffers ending exactly at an inaccessible page (reading or writing
//      past the true end faults), device buffers allocated to the true end
//      (a copy past it fails), and guard bytes inside pair padding;
//   2. a failed launch / kernel / copy inside opf_reduce_local returns an
//      error code with a message, and no success for work not done;
//   3. the caller's current context is restored exactly ("none" included,
//      and a context the application made itself);
//   4. memory of a context other than the primary one is refused
//      (OPF_ERR_BUFFER), not launched on;
//   5. a failed pointer query does not mean "host";
//   9. refused stream calls give their own reason, not a stale one;
// and pinned and managed operands of synchronous calls, both directions.
// Issue 21 (section issue21, each case in a child process: the component's
// first use of a device is part of what it checks):
//   2. a first stream call from a thread with no context leaves none, and
//      creates no context on device 0;
//   3. REPLACE on managed memory from such a thread: the same;
//   4. a transient failure of the first-use kernel probe fails that call only;
//   5. failed cuCtxGetCurrent / cuCtxSetCurrent fail the call;
//   6. an asynchronous failure of the result copy is named as such;
//   a host pointer query that fails: heap and stack buffers are not asked
//   about; other plain host memory (private anonymous read-write mappings)
//   is reduced on the host; device memory is refused with the reason;
//   a stream of device 1 used from a thread whose device is 0;
//   a sticky fault fails the device's calls with the reason until the
//   application resets it; after the reset its staged calls run as kernels.
// Usage: cuda_cpu [--seed N] [-v] [SECTION...]: data errors contexts other query pinned refusals derived stream0
// issue21 (default: all)
#include <cuda.h>
#include <opframe/cuda.h>
#include <opframe/introspect.h>
#include <opframe/opframe.h>

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "test/cudastub/cudastub.h"

int reduce_on_stream0_per_thread(const void *in, void *inout, opf_count_t n);   // cuda_cpu_ptds.cpp

namespace {

int failures = 0;
long long checks = 0;
bool verbose = false;
const char *volatile current_check = "start";

void on_segv(int)
{
    const char msg[] = "FAILED: segmentation fault (an access past a buffer's true end, or host code on device "
                       "memory) in: ";
    ssize_t r = write(2, msg, sizeof msg - 1);
    r = write(2, current_check, std::strlen(current_check));
    r = write(2, "\n", 1);
    (void)r;
    _exit(1);
}

[[gnu::format(printf, 2, 3)]] void check(bool ok, const char *fmt, ...)
{
    ++checks;
    if (ok && !verbose) return;
    va_list ap;
    va_start(ap, fmt);
    std::printf("%s: ", ok ? "ok" : "FAILED");
    std::vprintf(fmt, ap);
    va_end(ap);
    std::printf("%s%s\n", ok ? "" : " — ", ok ? "" : opf_last_error());
    failures += !ok;
}

// ---- pair layouts ----------------------------------------------------------------------
struct PairType {
    opf_datatype_t type;
    const char *name;
    std::size_t extent, value_size, index_offset;   // index: int (4 bytes)
    bool copies_only;                               // the GPU does not compute it: REPLACE / NO_OP only
    bool data(std::size_t byte) const
    {
        const std::size_t b = byte % extent;
        return b < value_size || (b >= index_offset && b < index_offset + 4);
    }
    std::size_t true_bytes(std::size_t n) const { return n ? (n - 1) * extent + index_offset + 4 : 0; }
};
const PairType pairs[] = {
    {OPF_SHORT_INT, "SHORT_INT", 8, 2, 4, false},              // padding inside
    {OPF_DOUBLE_INT, "DOUBLE_INT", 16, 8, 8, false},           // padding after the index
    {OPF_LONG_INT, "LONG_INT", 16, 8, 8, false},
    {OPF_LONG_DOUBLE_INT, "LONG_DOUBLE_INT", 32, 10, 16, true}, // both, 12 bytes after the true end
};

constexpr unsigned char kOutPad = 0xa5, kInPad = 0x5a;

// Host memory whose true end is the start of an inaccessible page.
struct HostBuf {
    unsigned char *map = nullptr, *p = nullptr;
    std::size_t mapped = 0;
    explicit HostBuf(std::size_t bytes)
    {
        const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
        const std::size_t data = (bytes + page - 1) / page * page;
        mapped = data + page;
        map = static_cast<unsigned char *>(
            mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
        mprotect(map + data, page, PROT_NONE);
        p = map + data - bytes;
    }
    ~HostBuf() { munmap(map, mapped); }
};

// An operand: host (ending at a guard page) or device (allocated to the true end).
struct Operand {
    bool device;
    std::size_t bytes;
    HostBuf *host = nullptr;
    void *dev = nullptr;
    Operand(bool on_device, std::size_t b) : device(on_device), bytes(b)
    {
        if (device) dev = cudastub::device_alloc(b ? b : 1, 1);   // device 1: not the default one
        else host = new HostBuf(b);
    }
    ~Operand()
    {
        if (device) cudastub::free(dev);
        else delete host;
    }
    void *ptr() const { return device ? dev : host->p; }
    void put(const std::vector<unsigned char> &v)
    {
        if (device) cudastub::copy_to_device(dev, v.data(), bytes);
        else std::memcpy(host->p, v.data(), bytes);
    }
    std::vector<unsigned char> get() const
    {
        std::vector<unsigned char> v(bytes);
        if (device) cudastub::copy_from_device(v.data(), dev, bytes);
        else std::memcpy(v.data(), host->p, bytes);
        return v;
    }
};

std::vector<unsigned char> random_pairs(const PairType &t, std::size_t n, unsigned char pad, uint64_t &state)
{
    std::vector<unsigned char> v(t.true_bytes(n));
    for (std::size_t i = 0; i < v.size(); ++i) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        v[i] = t.data(i) ? (unsigned char)(state >> 58) : pad;   // small values: equal ones occur
    }
    return v;
}

// One call on one path: in (or in1, in2) -> inout (or out).
enum Form { kReduce2, kReduce3, kStream2 };
void run_case(const PairType &t, opf_op_t op, const char *op_name, Form form, bool in_dev, bool out_dev,
              std::size_t n, uint64_t &state, cudaStream_t stream)
{
    const std::size_t bytes = t.true_bytes(n);
    const auto a = random_pairs(t, n, kInPad, state), b = random_pairs(t, n, kInPad, state),
               o = random_pairs(t, n, kOutPad, state);
    // Expected: the base on ordinary host memory of n x extent.
    std::vector<unsigned char> ea(n * t.extent + 1), eb(n * t.extent + 1), eo(n * t.extent + 1);
    std::memcpy(ea.data(), a.data(), bytes);
    std::memcpy(eb.data(), b.data(), bytes);
    std::memcpy(eo.data(), o.data(), bytes);
    if (form == kReduce3) opf_reduce_local3(ea.data(), eb.data(), eo.data(), opf_count_t(n), t.type, op);
    else opf_reduce_local(ea.data(), eo.data(), opf_count_t(n), t.type, op);

    Operand A(in_dev, bytes), B(in_dev, bytes), O(out_dev, bytes);
    if ((in_dev && (!A.dev || !B.dev)) || (out_dev && !O.dev)) {   // a sticky fault of an earlier case poisoned device 1
        check(false, "%s %s: no device memory for the operands", op_name, t.name);
        return;
    }
    A.put(a);
    B.put(b);
    O.put(o);
    static const char *const forms[] = {"opf_reduce_local", "opf_reduce_local3", "opf_cuda_reduce_local"};
    char what[200];
    std::snprintf(what, sizeof what, "%s %s %s, %zu elements, in %s, out %s", forms[form], op_name, t.name, n,
                  in_dev ? "device" : "host", out_dev ? "device" : "host");
    current_check = what;
    int rc = OPF_SUCCESS;
    if (form == kReduce2) rc = opf_reduce_local(A.ptr(), O.ptr(), opf_count_t(n), t.type, op);
    else if (form == kReduce3) rc = opf_reduce_local3(A.ptr(), B.ptr(), O.ptr(), opf_count_t(n), t.type, op);
    else {
        rc = opf_cuda_reduce_local(A.ptr(), O.ptr(), opf_count_t(n), t.type, op, stream);
        if (rc == OPF_SUCCESS && cudaStreamSynchronize(stream) != cudaSuccess) rc = OPF_ERR_INTERN;
    }
    if (rc != OPF_SUCCESS) {
        check(false, "%s: returned %d", what, rc);
        return;
    }
    const auto got = O.get();
    bool data_ok = true, pad_ok = true;
    for (std::size_t i = 0; i < bytes; ++i) {
        if (t.data(i)) data_ok &= got[i] == eo[i];
        else pad_ok &= got[i] == kOutPad;
    }
    check(data_ok, "%s: the result is the base's", what);
    check(pad_ok, "%s: padding inside the output pairs untouched", what);
    check(A.get() == a && (form != kReduce3 || B.get() == b), "%s: inputs unchanged", what);
}

void check_data_bytes(uint64_t seed)
{
    cudaStream_t stream = nullptr;
    cudaSetDevice(1);
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    struct OpCase {
        opf_op_t op;
        const char *name;
        bool copy;
    } ops[] = {{OPF_MAXLOC, "MAXLOC", false}, {OPF_MINLOC, "MINLOC", false}, {OPF_REPLACE, "REPLACE", true},
               {OPF_NO_OP, "NO_OP", true}};
    const std::size_t lengths[] = {1, 3, 17, 255, 256, 257, 1000};
    uint64_t state = seed;
    for (const char *staging : {"1000000", "1"}) {   // the host path, then the staged device path
        opf_param_set("op_cuda_staging_min_count", staging);
        for (const PairType &t : pairs)
            for (const OpCase &oc : ops)
                for (std::size_t n : lengths) {
                    if (t.copies_only && !oc.copy) continue;
                    for (Form f : {kReduce2, kReduce3}) {
                        run_case(t, oc.op, oc.name, f, true, true, n, state, stream);
                        run_case(t, oc.op, oc.name, f, false, true, n, state, stream);
                        run_case(t, oc.op, oc.name, f, true, false, n, state, stream);
                    }
                    if (staging[1] == 0) run_case(t, oc.op, oc.name, kStream2, true, true, n, state, stream);
                }
    }
    opf_param_set("op_cuda_staging_min_count", nullptr);
    cudaStreamDestroy(stream);
}

// ---- 2: errors reach the caller ------------------------------------------------------------
void check_errors()
{
    const int n = 3000;
    std::vector<float> host(n, 1.0f), back(n);
    float *a = static_cast<float *>(cudastub::device_alloc(n * sizeof(float), 0));
    float *o = static_cast<float *>(cudastub::device_alloc(n * sizeof(float), 0));
    struct Case {
        cudastub::Fault fault;
        int code;
        const char *what, *expect;
    } cases[] = {
        {cudastub::kLaunch, cudaErrorLaunchFailure, "a failed launch", "kernel launch"},
        {cudastub::kSync, cudaErrorIllegalAddress, "a kernel failing on the device", "cudaErrorIllegalAddress"},
    };
    for (const Case &c : cases) {
        cudastub::copy_to_device(a, host.data(), n * sizeof(float));
        cudastub::copy_to_device(o, host.data(), n * sizeof(float));
        cudastub::inject(c.fault, 1, c.code);
        current_check = c.what;
        const int rc = opf_reduce_local(a, o, n, OPF_FLOAT, OPF_SUM);
        cudastub::clear_faults();
        const std::string msg = opf_last_error();
        check(rc != OPF_SUCCESS, "%s inside opf_reduce_local returns an error (got %d)", c.what, rc);
        check(msg.find(c.expect) != std::string::npos && msg.find("SUM") != std::string::npos,
              "%s: opf_last_error names the op and the failure (\"%s\")", c.what, msg.c_str());
    }
    // A failed copy of a REPLACE.
    cudastub::inject(cudastub::kMemcpy, 1, cudaErrorInvalidValue);
    const int rc = opf_reduce_local(host.data(), o, n, OPF_FLOAT, OPF_REPLACE);
    cudastub::clear_faults();
    check(rc != OPF_SUCCESS && std::strstr(opf_last_error(), "REPLACE"),
          "a failed copy of REPLACE returns an error with a message (got %d: \"%s\")", rc, opf_last_error());
    // No scratch on the device: the staged call still computes (on the host).
    opf_param_set("op_cuda_staging_min_count", "1");
    std::vector<float> h2(n, 2.0f);
    cudastub::copy_to_device(o, host.data(), n * sizeof(float));
    cudastub::inject(cudastub::kMalloc, 1, cudaErrorMemoryAllocation);
    const int rc2 = opf_reduce_local(h2.data(), o, n, OPF_FLOAT, OPF_SUM);
    cudastub::clear_faults();
    cudastub::copy_from_device(back.data(), o, n * sizeof(float));
    check(rc2 == OPF_SUCCESS && back[0] == 3.0f && back[n - 1] == 3.0f,
          "no device scratch: the staged call computes on the host (rc %d, %g)", rc2, double(back[n - 1]));
    opf_param_set("op_cuda_staging_min_count", nullptr);
    cudastub::free(a);
    cudastub::free(o);
}

// ---- 3: the caller's context, exactly ---------------------------------------------------
void check_contexts()
{
    const int n = 100;
    std::vector<int> ones(n, 1);
    int *a = static_cast<int *>(cudastub::device_alloc(n * sizeof(int), 1));
    int *o = static_cast<int *>(cudastub::device_alloc(n * sizeof(int), 1));
    cudastub::copy_to_device(a, ones.data(), n * sizeof(int));
    cudastub::copy_to_device(o, ones.data(), n * sizeof(int));
    std::thread([&] {   // a fresh thread: no context current
        current_check = "a thread with no current context";
        const int rc = opf_reduce_local(a, o, n, OPF_INT, OPF_SUM);
        check(rc == OPF_SUCCESS, "device-1 call from a thread with no context (rc %d)", rc);
        check(cudastub::current_context() == nullptr,
              "a thread with no current context has none after a device-1 call (has the primary of device %s)",
              cudastub::current_context() == cudastub::primary_context(0) ? "0" : "1 or another");
    }).join();
    void *mine = cudastub::create_context(0);
    std::thread([&] {   // a context the application made itself
        cudastub::set_current_context(mine);
        current_check = "the application's own context";
        const int rc = opf_reduce_local(a, o, n, OPF_INT, OPF_SUM);
        check(rc == OPF_SUCCESS, "device-1 call with the application's own context current (rc %d)", rc);
        check(cudastub::current_context() == mine, "the application's own context is current again after the call");
        const int rc2 = opf_cuda_reduce_local(a, o, n, OPF_INT, OPF_SUM, cudaStreamLegacy);
        check(rc2 == OPF_SUCCESS || rc2 == OPF_ERR_BUFFER, "a stream call from it (rc %d)", rc2);
        check(cudastub::current_context() == mine, "... and after a stream call");
    }).join();
    std::vector<int> back(n);
    cudastub::copy_from_device(back.data(), o, n * sizeof(int));
    check(back[0] == 3 && back[n - 1] == 3, "both calls computed (%d)", back[n - 1]);
    cudastub::free(a);
    cudastub::free(o);
}

// ---- 4: memory of another context ------------------------------------------------------
void check_other_context()
{
    const int n = 100;
    std::vector<int> ones(n, 1), back(n);
    std::thread([&] {
        void *ctx = cudastub::create_context(0);
        cudastub::set_current_context(ctx);
        int *a = static_cast<int *>(cudastub::device_alloc(n * sizeof(int)));
        int *o = static_cast<int *>(cudastub::device_alloc(n * sizeof(int)));
        cudastub::copy_to_device(a, ones.data(), n * sizeof(int));
        cudastub::copy_to_device(o, ones.data(), n * sizeof(int));
        current_check = "memory of a created context";
        const uint64_t launches = cudastub::counters().launches;
        const int rc = opf_reduce_local(a, o, n, OPF_INT, OPF_SUM);
        check(rc == OPF_ERR_BUFFER && std::strstr(opf_last_error(), "context"),
              "memory of a context other than the primary one is refused with OPF_ERR_BUFFER (got %d: \"%s\")", rc,
              opf_last_error());
        check(cudastub::counters().launches == launches, "... and nothing is launched on it");
        cudastub::copy_from_device(back.data(), o, n * sizeof(int));
        check(back[0] == 1 && back[n - 1] == 1, "... and its output is unchanged");
        cudastub::free(a);
        cudastub::free(o);
    }).join();
}

// ---- 5: a failed pointer query is not "host" -------------------------------------------------
void check_failed_query()
{
    const int n = 64;
    std::vector<float> ones(n, 1.0f), back(n);
    float *a = static_cast<float *>(cudastub::device_alloc(n * sizeof(float), 0));
    float *o = static_cast<float *>(cudastub::device_alloc(n * sizeof(float), 0));
    cudastub::copy_to_device(a, ones.data(), n * sizeof(float));
    cudastub::copy_to_device(o, ones.data(), n * sizeof(float));
    cudastub::inject(cudastub::kPointerQuery, 1, 801 /* CUDA_ERROR_NOT_SUPPORTED */, 1000);
    current_check = "failed pointer queries on device memory";
    const int rc = opf_reduce_local(a, o, n, OPF_FLOAT, OPF_SUM);
    cudastub::clear_faults();
    check(rc == OPF_ERR_BUFFER && std::strstr(opf_last_error(), "cuPointerGetAttributes"),
          "buffers the driver cannot classify are refused, not taken for host memory (got %d: \"%s\")", rc,
          opf_last_error());
    cudastub::copy_from_device(back.data(), o, n * sizeof(float));
    check(back[0] == 1.0f, "... and the output is unchanged");
    cudastub::free(a);
    cudastub::free(o);
}

// ---- pinned and managed memory in synchronous calls ---------------------------------------
void check_pinned_managed()
{
    const int n = 5000;
    std::vector<int> twos(n, 2), ones(n, 1), back(n);
    int *pinned = static_cast<int *>(cudastub::pinned_alloc(n * sizeof(int)));
    int *managed = static_cast<int *>(cudastub::managed_alloc(n * sizeof(int)));
    int *dev = static_cast<int *>(cudastub::device_alloc(n * sizeof(int), 0));
    for (const char *staging : {"1000000", "1"})
        for (int *in : {pinned, managed}) {
            opf_param_set("op_cuda_staging_min_count", staging);
            std::memcpy(in, twos.data(), n * sizeof(int));   // both are readable from the host
            cudastub::copy_to_device(dev, ones.data(), n * sizeof(int));
            current_check = in == pinned ? "pinned in, device out" : "managed in, device out";
            const int rc = opf_reduce_local(in, dev, n, OPF_INT, OPF_SUM);
            cudastub::copy_from_device(back.data(), dev, n * sizeof(int));
            check(rc == OPF_SUCCESS && back[0] == 3 && back[n - 1] == 3, "%s, staging from %s elements (rc %d, %d)",
                  current_check, staging, rc, back[n - 1]);
            const int rc2 = opf_reduce_local(dev, in, n, OPF_INT, OPF_PROD);   // and the other way
            check(rc2 == OPF_SUCCESS && in[0] == 6 && in[n - 1] == 6, "%s, reversed (rc %d, %d)", current_check, rc2,
                  in[n - 1]);
        }
    opf_param_set("op_cuda_staging_min_count", nullptr);
    cudastub::free(pinned);
    cudastub::free(managed);
    cudastub::free(dev);
}

// ---- 9: refused stream calls say why (no stale message) ---------------------------------
void check_stream_refusals()
{
    void *a = cudastub::device_alloc(4096, 0), *o = cudastub::device_alloc(4096, 0);
    float host[16] = {};
    opf_datatype_t vec = OPF_DATATYPE_NULL;
    opf_type_vector(4, 1, 2, OPF_FLOAT, &vec);
    opf_type_commit(&vec);
    cudaSetDevice(0);
    struct Case {
        const char *what;
        const void *in;
        opf_count_t n;
        opf_datatype_t type;
        cudaStream_t stream;
        const char *expect;
    } cases[] = {
        {"a slot no component serves (LONG_DOUBLE SUM)", a, 4, OPF_LONG_DOUBLE, cudaStreamLegacy, "LONG_DOUBLE"},
        {"host memory the device cannot reach", host, 4, OPF_FLOAT, cudaStreamLegacy, "not accessible"},
        {"a stream that is none", a, 4, OPF_FLOAT, reinterpret_cast<cudaStream_t>(uintptr_t(0x1234)), "stream"},
        {"a non-contiguous type", a, 1, vec, cudaStreamLegacy, "contiguous"},
    };
    for (const Case &c : cases) {
        opf_reduce_local(nullptr, nullptr, -1, OPF_FLOAT, OPF_SUM);   // leaves a message of its own
        const std::string stale = opf_last_error();
        current_check = c.what;
        const int rc = opf_cuda_reduce_local(c.in, o, c.n, c.type, OPF_SUM, c.stream);
        const std::string msg = opf_last_error();
        check(rc != OPF_SUCCESS && msg != stale && msg.find(c.expect) != std::string::npos,
              "a stream call on %s is refused with its own reason (rc %d: \"%s\")", c.what, rc, msg.c_str());
    }
    opf_type_free(&vec);
    cudastub::free(a);
    cudastub::free(o);
}

// ---- 9: stream 0 is the default stream of the caller's compilation ---------------------
void check_stream_zero()
{
    void *a = cudastub::device_alloc(64, 0), *o = cudastub::device_alloc(64, 0);
    cudaSetDevice(0);
    current_check = "stream 0, legacy default stream";
    int rc = opf_cuda_reduce_local(a, o, 16, OPF_FLOAT, OPF_SUM, 0);
    check(rc == OPF_SUCCESS && cudastub::last_launch_stream() == nullptr,
          "stream 0 from code built with the legacy default stream is launched on it (rc %d, stream %p)", rc,
          cudastub::last_launch_stream());
    current_check = "stream 0, per-thread default stream";
    rc = reduce_on_stream0_per_thread(a, o, 16);
    check(rc == OPF_SUCCESS && cudastub::last_launch_stream() == static_cast<const void *>(cudaStreamPerThread),
          "stream 0 from code built with --default-stream per-thread is launched on cudaStreamPerThread (rc %d, "
          "stream %p)", rc, cudastub::last_launch_stream());
    cudastub::free(a);
    cudastub::free(o);
}

// ---- 6: a type with gaps on device memory is refused, before any launch -----------------
// (it ran one launch, one synchronise and two pointer queries per block: a
// vector of 1000 x 1 float cost 1000 launches).
void check_derived_on_device()
{
    const int n = 2000;
    std::vector<float> twos(n, 2.0f), back(n);
    void *a = cudastub::device_alloc(n * sizeof(float), 0), *o = cudastub::device_alloc(n * sizeof(float), 0);
    cudastub::copy_to_device(a, twos.data(), n * sizeof(float));
    cudastub::copy_to_device(o, twos.data(), n * sizeof(float));
    opf_datatype_t vec = OPF_DATATYPE_NULL, contig = OPF_DATATYPE_NULL;
    opf_type_vector(1000, 1, 2, OPF_FLOAT, &vec);
    opf_type_commit(&vec);
    for (const bool three : {false, true}) {
        current_check = three ? "vector on device memory, 3 buffers" : "vector on device memory";
        const uint64_t launches = cudastub::counters().launches;
        const int rc = three ? opf_reduce_local3(a, o, o, 1, vec, OPF_SUM) : opf_reduce_local(a, o, 1, vec, OPF_SUM);
        const std::string msg = opf_last_error();
        cudastub::copy_from_device(back.data(), o, n * sizeof(float));
        check(rc == OPF_ERR_TYPE && msg.find("contiguous") != std::string::npos &&
                  msg.find(three ? "opf_reduce_local3" : "opf_reduce_local") != std::string::npos &&
                  cudastub::counters().launches == launches && back[0] == 2.0f,
              "%s is refused with the reason, nothing launched or written (rc %d, %llu launches, [0] = %g: \"%s\")",
              current_check, rc, (unsigned long long)(cudastub::counters().launches - launches), double(back[0]),
              msg.c_str());
    }
    // A contiguous derived type is one launch over the whole buffer.
    opf_type_contiguous(1000, OPF_FLOAT, &contig);
    opf_type_commit(&contig);
    current_check = "contiguous(1000, FLOAT) on device memory";
    const uint64_t launches = cudastub::counters().launches;
    const int rc = opf_reduce_local(a, o, 2, contig, OPF_SUM);
    cudastub::copy_from_device(back.data(), o, n * sizeof(float));
    check(rc == OPF_SUCCESS && cudastub::counters().launches == launches + 1 && back[0] == 4.0f && back[n - 1] == 4.0f,
          "%s: one launch (rc %d, %llu launches, [n-1] = %g)", current_check, rc,
          (unsigned long long)(cudastub::counters().launches - launches), double(back[n - 1]));
    opf_type_free(&contig);
    opf_type_free(&vec);
    cudastub::free(a);
    cudastub::free(o);
}

// ---- issue 21 -------------------------------------------------------------------------
// Runs fn in a child process (the component's per-device state starts
// fresh there); its failed checks count here.
void in_child(const char *what, void (*fn)())
{
    std::fflush(stdout);
    const pid_t child = fork();
    if (child == 0) {
        failures = 0;
        fn();
        std::fflush(stdout);
        _exit(failures ? 1 : 0);
    }
    int status = -1;
    const bool waited = child > 0 && waitpid(child, &status, 0) == child;
    check(waited && WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s (child: wait status %d)", what, status);
}

// Device memory and a stream of device 1, made by a thread of the application.
struct OnDevice1 {
    int *a = nullptr, *o = nullptr;
    cudaStream_t stream = nullptr;
    int n;
    explicit OnDevice1(int count, bool managed = false) : n(count)
    {
        std::thread([&] {
            cudaSetDevice(1);
            std::vector<int> ones(size_t(n), 1);
            a = static_cast<int *>(managed ? cudastub::managed_alloc(n * sizeof(int)) : cudastub::device_alloc(n * sizeof(int), 1));
            o = static_cast<int *>(managed ? cudastub::managed_alloc(n * sizeof(int)) : cudastub::device_alloc(n * sizeof(int), 1));
            cudastub::copy_to_device(a, ones.data(), n * sizeof(int));
            cudastub::copy_to_device(o, ones.data(), n * sizeof(int));
            cudaStreamCreate(&stream);
        }).join();
    }
    int out(int i) const
    {
        int v = 0;
        cudastub::copy_from_device(&v, o + i, sizeof v);
        return v;
    }
};

// 2: the first stream call of a thread with no context.
void first_stream_call()
{
    OnDevice1 d(300);
    std::thread([&] {
        current_check = "first stream call from a thread with no context";
        const int rc = opf_cuda_reduce_local(d.a, d.o, d.n, OPF_INT, OPF_SUM, d.stream);
        check(rc == OPF_SUCCESS, "a stream call on device 1 (rc %d)", rc);
        check(cudastub::current_context() == nullptr, "... leaves the thread with no current context (has %s)",
              cudastub::current_context() == cudastub::primary_context(0) ? "device 0's primary" : "another");
        check(!cudastub::primary_active(0), "... and creates no context on device 0");
    }).join();
    cudaStreamSynchronize(d.stream);
    check(d.out(0) == 2 && d.out(d.n - 1) == 2, "... and computed once the stream is synchronised (%d)", d.out(0));
}

// 3: REPLACE / NO_OP on managed memory from a thread with no context.
void managed_copy()
{
    OnDevice1 d(300, true);
    d.a[0] = 7;
    std::thread([&] {
        current_check = "REPLACE on managed memory from a thread with no context";
        const int rc = opf_reduce_local(d.a, d.o, d.n, OPF_INT, OPF_REPLACE);
        check(rc == OPF_SUCCESS && d.o[0] == 7, "REPLACE on managed memory (rc %d, [0] = %d)", rc, d.o[0]);
        check(cudastub::current_context() == nullptr, "... leaves the thread with no current context");
        const int rc3 = opf_reduce_local3(d.a, d.o, d.o, d.n, OPF_INT, OPF_SUM);
        check(rc3 == OPF_SUCCESS && d.o[0] == 14, "SUM on managed memory (rc %d, [0] = %d)", rc3, d.o[0]);
        check(cudastub::current_context() == nullptr, "... leaves the thread with no current context");
        check(!cudastub::primary_active(0), "... and neither created a context on device 0 (they ran on the "
              "managed memory's device)");
    }).join();
}

// 4: one transient failure of the first-use kernel probe.
void transient_probe()
{
    OnDevice1 d(5000);
    cudastub::inject(cudastub::kFuncAttributes, 1, cudaErrorMemoryAllocation);
    current_check = "a transient failure of the kernel probe";
    const int rc1 = opf_reduce_local(d.a, d.o, d.n, OPF_INT, OPF_SUM);
    const std::string msg1 = opf_last_error();
    check(rc1 != OPF_SUCCESS && msg1.find("cudaErrorMemoryAllocation") != std::string::npos && d.out(0) == 1,
          "the call whose kernel probe fails fails, says why, and writes nothing (rc %d, [0] = %d: \"%s\")", rc1,
          d.out(0), msg1.c_str());
    const uint64_t launches = cudastub::counters().launches;
    const int rc2 = opf_reduce_local(d.a, d.o, d.n, OPF_INT, OPF_SUM);
    check(rc2 == OPF_SUCCESS && d.out(0) == 2 && cudastub::counters().launches == launches + 1,
          "the next call probes again and runs on the device (rc %d, [0] = %d, %llu launches)", rc2, d.out(0),
          (unsigned long long)(cudastub::counters().launches - launches));
    check(!std::strstr(opf_last_error(), "kernel"), "... and no failure of a kernel is its reason (\"%s\")",
          opf_last_error());
    const int rc3 = opf_cuda_reduce_local(d.a, d.o, d.n, OPF_INT, OPF_SUM, d.stream);
    cudaStreamSynchronize(d.stream);
    check(rc3 == OPF_SUCCESS && d.out(0) == 3, "a stream call after it runs (rc %d, [0] = %d: %s)", rc3, d.out(0),
          rc3 ? opf_last_error() : "");
}

// A transient failure of the occupancy query: that call guesses, the next
// asks again (with op_cuda_max_blocks=0, the grid of resident blocks; the
// default grid gives every work item a thread and asks nothing).
void transient_occupancy()
{
    opf_param_set("op_cuda_max_blocks", "0");
    OnDevice1 d(5000);
    const char *occupancy = "cudaOccupancyMaxActiveBlocksPerMultiprocessor";
    cudastub::inject(cudastub::kOccupancy, 1, cudaErrorMemoryAllocation);
    const int rc4 = opf_reduce_local(d.a, d.o, d.n, OPF_INT, OPF_MAX);   // a slot not launched before
    const uint64_t asked = cudastub::calls(occupancy, "opf_op_cuda");
    const int rc5 = opf_reduce_local(d.a, d.o, d.n, OPF_INT, OPF_MAX);
    check(rc4 == OPF_SUCCESS && rc5 == OPF_SUCCESS && cudastub::calls(occupancy, "opf_op_cuda") == asked + 1,
          "a failed occupancy query is asked again by the next call (rc %d %d, %llu more queries)", rc4, rc5,
          (unsigned long long)(cudastub::calls(occupancy, "opf_op_cuda") - asked));
}

// 5: context calls that fail.
void failing_context_calls()
{
    OnDevice1 d(100);
    void *mine = cudastub::create_context(0);
    std::thread([&] {
        cudastub::set_current_context(mine);
        opf_reduce_local(d.a, d.o, d.n, OPF_INT, OPF_MAX);   // the component's first call: it knows the driver is up
        current_check = "cuCtxGetCurrent fails";
        cudastub::inject(cudastub::kCtxGetCurrent, 1, CUDA_ERROR_INVALID_CONTEXT);
        int rc = opf_reduce_local(d.a, d.o, d.n, OPF_INT, OPF_SUM);
        cudastub::clear_faults();
        check(rc != OPF_SUCCESS && std::strstr(opf_last_error(), "cuCtxGetCurrent") && d.out(0) == 1 &&
                  cudastub::current_context() == mine,
              "a failed cuCtxGetCurrent fails the call, nothing done, the context unchanged (rc %d, [0] = %d: %s)",
              rc, d.out(0), opf_last_error());
        current_check = "cuCtxSetCurrent fails";
        cudastub::inject(cudastub::kCtxSetCurrent, 1, CUDA_ERROR_INVALID_CONTEXT);
        rc = opf_reduce_local(d.a, d.o, d.n, OPF_INT, OPF_SUM);
        cudastub::clear_faults();
        check(rc != OPF_SUCCESS && std::strstr(opf_last_error(), "cuCtxSetCurrent"),
              "a failed cuCtxSetCurrent restoring the caller's context fails the call (rc %d: %s)", rc,
              opf_last_error());
        cudastub::set_current_context(mine);
        current_check = "cuCtxGetCurrent fails in a stream call";
        cudastub::inject(cudastub::kCtxGetCurrent, 1, CUDA_ERROR_INVALID_CONTEXT);
        const uint64_t launches = cudastub::counters().launches;
        rc = opf_cuda_reduce_local(d.a, d.o, d.n, OPF_INT, OPF_SUM, d.stream);
        cudastub::clear_faults();
        check(rc != OPF_SUCCESS && cudastub::counters().launches == launches && cudastub::current_context() == mine,
              "... and a stream call: fails, nothing enqueued, the context unchanged (rc %d)", rc);
    }).join();
}

// 6: an asynchronous failure of the copy of the result.
void result_copy_fails()
{
    OnDevice1 d(5000);
    int *pinned = static_cast<int *>(cudastub::pinned_alloc(d.n * sizeof(int)));   // the copy to it is asynchronous
    opf_param_set("op_cuda_staging_min_count", "1");
    cudastub::inject(cudastub::kCopyRun, 1, cudaErrorLaunchFailure);   // the only copy: device result to host
    current_check = "the copy of the result fails when it runs";
    const int rc = opf_reduce_local3(d.a, d.o, pinned, d.n, OPF_INT, OPF_SUM);
    cudastub::free(pinned);
    cudastub::clear_faults();
    opf_param_set("op_cuda_staging_min_count", nullptr);
    check(rc != OPF_SUCCESS && std::strstr(opf_last_error(), "copy of the result"),
          "an asynchronous failure of the result copy is named as such (rc %d: \"%s\")", rc, opf_last_error());
}

// Host pointer queries that fail (decided: kept refused, but heap and
// stack buffers are never asked about).
void failing_host_queries()
{
    OnDevice1 d(64);   // the driver is initialised
    const int n = 64;
    float *in = cudastub::brk_floats(n, 1.0f), *inout = cudastub::brk_floats(n, 2.0f);   // on the heap, under a sanitizer too
    cudastub::inject(cudastub::kHostPointerQuery, 1, 801 /* CUDA_ERROR_NOT_SUPPORTED */, 1000000);
    current_check = "host pointer queries fail";
    int rc = opf_reduce_local(in, inout, n, OPF_FLOAT, OPF_SUM);
    check(rc == OPF_SUCCESS && inout[n - 1] == 3.0f, "heap buffers: a host reduction runs, not asked about (rc %d)", rc);
    const std::size_t bytes = std::size_t(1) << 21;   // malloc's own mapping, not the heap
    HostBuf big(bytes);
    float *b = reinterpret_cast<float *>(big.p);
    std::fill(b, b + n, 1.0f);
    rc = opf_reduce_local(in, b, n, OPF_FLOAT, OPF_SUM);
    check(rc == OPF_SUCCESS && b[0] == 2.0f && b[n - 1] == 2.0f,
          "mapped host memory the driver cannot classify, private anonymous read-write memory in the process's "
          "mappings: reduced on the host (rc %d: %s; [0] = %g)", rc, rc ? opf_last_error() : "", double(b[0]));
    cudastub::clear_faults();
    // Device memory whose query fails (the stand-in maps it inaccessible, as
    // a driver does) is still refused: host code on it would crash.
    cudastub::inject(cudastub::kPointerQuery, 1, 801 /* CUDA_ERROR_NOT_SUPPORTED */, 1000000);
    rc = opf_reduce_local(in, d.o, n, OPF_INT, OPF_BOR);
    check(rc == OPF_ERR_BUFFER && std::strstr(opf_last_error(), "cuPointerGetAttributes"),
          "device memory the driver cannot classify: refused with the reason (rc %d: %s)", rc, opf_last_error());
    cudastub::clear_faults();
}

// A stream of device 1 from a thread whose runtime device is 0 (the
// component makes the stream's device current: without it, the launch fails).
void stream_of_another_device()
{
    OnDevice1 d(100);
    std::thread([&] {
        cudaSetDevice(0);
        current_check = "a stream of device 1 from device 0";
        const int rc = opf_cuda_reduce_local(d.a, d.o, d.n, OPF_INT, OPF_SUM, d.stream);
        check(rc == OPF_SUCCESS, "a stream call on device 1's stream from a thread on device 0 (rc %d: %s)", rc,
              rc ? opf_last_error() : "");
        const int rc2 = opf_cuda_reduce_local(d.a, d.o, d.n, OPF_INT, OPF_REPLACE, d.stream);
        check(rc2 == OPF_SUCCESS, "... REPLACE on it (rc %d)", rc2);
        int dev = -1;
        cudaGetDevice(&dev);
        check(dev == 0, "... the thread's device is 0 again (%d)", dev);
    }).join();
    cudaStreamSynchronize(d.stream);
    check(d.out(0) == 1 && d.out(d.n - 1) == 1, "... computed once synchronised (%d)", d.out(0));
}

// A sticky fault, then the application's reset: an illegal address on device
// 1 (a stream call on host memory with op_cuda_stream_check=false) fails
// every later call on device 1 with the reason, never success, while device 0
// still works; after cudaDeviceReset, a staged call on device 1 runs as a
// kernel again (not on the memory pool of the destroyed context, whose
// failure would send every staged call to the host path for good).
void sticky_fault_and_reset()
{
    const int n = 5000;
    opf_param_set("op_cuda_staging_min_count", "1");
    std::vector<float> host(n, 1.0f), back(n);
    float *d1 = static_cast<float *>(cudastub::device_alloc(n * sizeof(float), 1));
    cudastub::copy_to_device(d1, host.data(), n * sizeof(float));
    int rc = opf_reduce_local(host.data(), d1, n, OPF_FLOAT, OPF_SUM);   // device 1 set up, its scratch pool made
    check(rc == OPF_SUCCESS, "a staged call on device 1 (rc %d: %s)", rc, opf_last_error());

    cudaSetDevice(1);
    cudaStream_t stream = nullptr;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    opf_param_set("op_cuda_stream_check", "false");
    std::vector<float> in(n, 1.0f), inout(n, 1.0f);
    rc = opf_cuda_reduce_local(in.data(), inout.data(), n, OPF_FLOAT, OPF_SUM, stream);
    opf_param_set("op_cuda_stream_check", nullptr);
    const cudaError_t fault = cudaStreamSynchronize(stream);
    check(rc == OPF_SUCCESS && fault == cudaErrorIllegalAddress,
          "a kernel on host memory faults (rc %d, synchronise: %s)", rc, cudaGetErrorName(fault));
    uint64_t launches = cudastub::counters().launches;
    rc = opf_reduce_local(host.data(), d1, n, OPF_FLOAT, OPF_SUM);
    check(rc != OPF_SUCCESS && std::strstr(opf_last_error(), "cudaErrorIllegalAddress") &&
              cudastub::counters().launches == launches,
          "the poisoned device's next call fails with the reason, launching nothing (rc %d: %s)", rc, opf_last_error());
    float *d0 = static_cast<float *>(cudastub::device_alloc(n * sizeof(float), 0));
    cudastub::copy_to_device(d0, host.data(), n * sizeof(float));
    rc = opf_reduce_local(d0, d0, n, OPF_FLOAT, OPF_SUM);
    cudastub::copy_from_device(back.data(), d0, n * sizeof(float));
    check(rc == OPF_SUCCESS && back[n - 1] == 2.0f, "device 0 still computes (rc %d: %s)", rc, opf_last_error());

    cudaSetDevice(1);
    cudaDeviceReset();   // d1 and the stream are gone with the context
    d1 = static_cast<float *>(cudastub::device_alloc(n * sizeof(float), 1));
    cudastub::copy_to_device(d1, host.data(), n * sizeof(float));
    launches = cudastub::counters().launches;
    rc = opf_reduce_local(host.data(), d1, n, OPF_FLOAT, OPF_SUM);
    cudastub::copy_from_device(back.data(), d1, n * sizeof(float));
    check(rc == OPF_SUCCESS && back[0] == 2.0f && back[n - 1] == 2.0f && cudastub::counters().launches == launches + 1,
          "after the reset, a staged call on device 1 runs as a kernel again (rc %d: %s; %llu launches, [0] = %g)", rc,
          opf_last_error(), (unsigned long long)(cudastub::counters().launches - launches), double(back[0]));
    opf_param_set("op_cuda_staging_min_count", nullptr);
}

void check_issue21()
{
    in_child("a first stream call leaves no context", first_stream_call);
    in_child("managed REPLACE / SUM leave no context", managed_copy);
    in_child("a transient kernel-probe failure", transient_probe);
    in_child("a transient occupancy failure", transient_occupancy);
    in_child("failing context calls", failing_context_calls);
    in_child("a failing result copy", result_copy_fails);
    in_child("failing host pointer queries", failing_host_queries);
    in_child("a stream of another device", stream_of_another_device);
    in_child("a sticky fault and a reset", sticky_fault_and_reset);
}

} // namespace

int main(int argc, char **argv)
{
    uint64_t seed = uint64_t(std::time(nullptr));
    std::vector<std::string> only;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--seed") && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 0);
        else if (!std::strcmp(argv[i], "-v")) verbose = true;
        else only.push_back(argv[i]);
    }
    auto want = [&](const char *s) { return only.empty() || std::find(only.begin(), only.end(), s) != only.end(); };
    std::setvbuf(stdout, nullptr, _IOLBF, 0);   // lines before a fault report stay in order
    std::printf("cuda_cpu: seed %" PRIu64 ", %d stand-in devices\n", seed, cudastub::device_count());
    struct sigaction sa {};
    sa.sa_handler = on_segv;
    sigaction(SIGSEGV, &sa, nullptr);
    setenv("OPF_MCA_mca_component_path", CUDASTUB_MODULE_DIR, 0);   // CI step 47 points it at another build
    setenv("OPF_MCA_PARAM_FILE_USER", "", 1);
    setenv("OPF_MCA_PARAM_FILE_SYSTEM", "", 1);
    if (opf_init() != OPF_SUCCESS) {
        std::printf("FAILED: opf_init: %s\n", opf_last_error());
        return 1;
    }
    const char *status = "";
    if (!opf_cuda_available(&status)) {
        std::printf("FAILED: the stand-in cuda component is not available: %s\n", status);
        return 1;
    }
    if (want("issue21")) check_issue21();   // first: its children start from a component no call used
    if (want("data")) check_data_bytes(seed);
    if (want("errors")) check_errors();
    if (want("contexts")) check_contexts();
    if (want("other")) check_other_context();
    if (want("query")) check_failed_query();
    if (want("pinned")) check_pinned_managed();
    if (want("refusals")) check_stream_refusals();
    if (want("derived")) check_derived_on_device();
    if (want("stream0")) check_stream_zero();
    const auto c = cudastub::counters();
    std::printf("cuda_cpu: %lld checks, %d failed; stand-in: %" PRIu64 " launches, %" PRIu64 " grid threads, %" PRIu64
                " copies, %" PRIu64 " pointer queries (rerun with --seed %" PRIu64 ")\n",
                checks, failures, c.launches, c.threads, c.copies, c.pointer_queries, seed);
    opf_finalize();
    return failures ? 1 : 0;
}
