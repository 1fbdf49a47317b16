// opencl_source.cpp — the OpenCL C that components/opencl/cl_source.cpp
// generates, pinned against base/storage.h on a real OpenCL device (PoCL in
// CI), bit for bit (any NaN matches any NaN):
//   * float16 -> float and bfloat16 -> float: all 2^16 bit patterns, and
//     back to float16 / bfloat16 unchanged (NaN: any NaN);
//   * float -> float16 and float -> bfloat16 (round to nearest even): every
//     one of the 2^16 upper halves of a float with low halves that put it on,
//     beside and between the rounding boundaries of both formats (ties at the
//     13th and 16th dropped bit with either parity, all ones, one ulp), plus
//     random low halves (--exhaustive: all 2^32 floats);
//   * the generated type facts agree with the framework (extent, the true end)
//     and every (op, kernel type) the base defines on an OpenCL C type has an
//     OpenCL kernel; every op's program for all its kernel types builds on the
//     device (which checks the host's struct layouts there).
// Usage: opencl_source [--seed N] [--exhaustive]. Exit 77 without an OpenCL device.
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

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

#include "base/type_list.h"
#include "components/opencl/cl_source.h"

namespace {

namespace ob = opf::base;

int failures = 0;
long long checks = 0;

void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fail(const char *fmt, ...)
{
    if (++failures > 30) return;
    va_list ap;
    va_start(ap, fmt);
    std::fputs("FAIL ", stdout);
    std::vprintf(fmt, ap);
    std::fputc('\n', stdout);
    va_end(ap);
}

struct Device {
    cl_device_id dev = nullptr;
    cl_context ctx = nullptr;
    cl_command_queue q = nullptr;
    cl_program prog = nullptr;
    bool open()
    {
        cl_uint np = 0;
        cl_platform_id platforms[8];
        if (clGetPlatformIDs(8, platforms, &np) != CL_SUCCESS || np == 0) return false;
        for (cl_uint p = 0; p < np && p < 8; ++p) {
            cl_uint nd = 0;
            if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 1, &dev, &nd) != CL_SUCCESS || nd == 0) continue;
            cl_int err = CL_SUCCESS;
            ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &err);
            if (ctx) q = clCreateCommandQueueWithProperties(ctx, dev, nullptr, &err);
            if (!q) continue;
            char name[256] = "";
            clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, nullptr);
            std::printf("device: %s\n", name);
            return true;
        }
        return false;
    }
    // Builds `src`; the build log on failure.
    cl_program build(const std::string &src, std::string &log)
    {
        const char *text = src.c_str();
        const size_t len = src.size();
        cl_int err = CL_SUCCESS;
        cl_program p = clCreateProgramWithSource(ctx, 1, &text, &len, &err);
        if (p && clBuildProgram(p, 1, &dev, "", nullptr, nullptr) == CL_SUCCESS) return p;
        size_t n = 0;
        if (p && clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n) == CL_SUCCESS && n) {
            log.resize(n);
            clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
        }
        if (p) clReleaseProgram(p);
        return nullptr;
    }
    // out[i] = kernel(in[i]) for `count` elements.
    bool run(const char *kernel, const void *in, std::size_t in_size, void *out, std::size_t out_size, std::size_t count)
    {
        cl_int err = CL_SUCCESS;
        cl_kernel k = clCreateKernel(prog, kernel, &err);
        cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in_size * count, const_cast<void *>(in), &err);
        cl_mem b = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, out_size * count, nullptr, &err);
        bool ok = k && a && b && clSetKernelArg(k, 0, sizeof a, &a) == CL_SUCCESS &&
                  clSetKernelArg(k, 1, sizeof b, &b) == CL_SUCCESS &&
                  clEnqueueNDRangeKernel(q, k, 1, nullptr, &count, nullptr, 0, nullptr, nullptr) == CL_SUCCESS &&
                  clEnqueueReadBuffer(q, b, CL_TRUE, 0, out_size * count, out, 0, nullptr, nullptr) == CL_SUCCESS;
        if (b) clReleaseMemObject(b);
        if (a) clReleaseMemObject(a);
        if (k) clReleaseKernel(k);
        if (!ok) fail("running %s failed", kernel);
        return ok;
    }
};

const char kConversionKernels[] = R"CL(
__kernel void h2f(__global const ushort *in, __global uint *out) { size_t i = get_global_id(0); out[i] = as_uint(opf_h2f(in[i])); }
__kernel void b2f(__global const ushort *in, __global uint *out) { size_t i = get_global_id(0); out[i] = as_uint(opf_b2f(in[i])); }
__kernel void f2h(__global const uint *in, __global ushort *out) { size_t i = get_global_id(0); out[i] = opf_f2h(as_float(in[i])); }
__kernel void f2b(__global const uint *in, __global ushort *out) { size_t i = get_global_id(0); out[i] = opf_f2b(as_float(in[i])); }
)CL";

bool f32_nan(uint32_t x) { return (x & 0x7fffffffu) > 0x7f800000u; }
bool f16_nan(uint16_t h) { return (h & 0x7fff) > 0x7c00; }
bool bf16_nan(uint16_t h) { return (h & 0x7fff) > 0x7f80; }

void widen_all(Device &d)
{
    std::vector<uint16_t> in(1 << 16);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = uint16_t(i);
    std::vector<uint32_t> half(in.size()), bf(in.size());
    if (!d.run("h2f", in.data(), 2, half.data(), 4, in.size()) || !d.run("b2f", in.data(), 2, bf.data(), 4, in.size())) return;
    // And back: every float16 / bfloat16 survives widening and narrowing
    // unchanged (a NaN stays a NaN).
    std::vector<uint16_t> half_back(in.size()), bf_back(in.size());
    if (!d.run("f2h", half.data(), 4, half_back.data(), 2, in.size()) || !d.run("f2b", bf.data(), 4, bf_back.data(), 2, in.size()))
        return;
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (half_back[i] != in[i] && !(f16_nan(half_back[i]) && f16_nan(in[i])))
            fail("float16 0x%04x -> float -> float16 gives 0x%04x on the device", in[i], half_back[i]);
        if (bf_back[i] != in[i] && !(bf16_nan(bf_back[i]) && bf16_nan(in[i])))
            fail("bfloat16 0x%04x -> float -> bfloat16 gives 0x%04x on the device", in[i], bf_back[i]);
        checks += 2;
    }
    for (std::size_t i = 0; i < in.size(); ++i) {
        const uint32_t h = ob::bits_as<uint32_t>(ob::to_float(ob::Half{in[i]}));
        const uint32_t b = ob::bits_as<uint32_t>(ob::to_float(ob::BFloat16{in[i]}));
        if (half[i] != h && !(f32_nan(half[i]) && f32_nan(h)))
            fail("float16 0x%04x -> float: OpenCL 0x%08" PRIx32 ", storage.h 0x%08" PRIx32, in[i], half[i], h);
        if (bf[i] != b && !(f32_nan(bf[i]) && f32_nan(b)))
            fail("bfloat16 0x%04x -> float: OpenCL 0x%08" PRIx32 ", storage.h 0x%08" PRIx32, in[i], bf[i], b);
        checks += 2;
    }
}

void narrow_batch(Device &d, const std::vector<uint32_t> &in)
{
    std::vector<uint16_t> half(in.size()), bf(in.size());
    if (!d.run("f2h", in.data(), 4, half.data(), 2, in.size()) || !d.run("f2b", in.data(), 4, bf.data(), 2, in.size())) return;
    for (std::size_t i = 0; i < in.size(); ++i) {
        const float f = ob::bits_as<float>(in[i]);
        const uint16_t h = ob::to_half(f).bits, b = ob::to_bfloat16(f).bits;
        if (half[i] != h && !(f16_nan(half[i]) && f16_nan(h)))
            fail("float 0x%08" PRIx32 " -> float16: OpenCL 0x%04x, storage.h 0x%04x", in[i], half[i], h);
        if (bf[i] != b && !(bf16_nan(bf[i]) && bf16_nan(b)))
            fail("float 0x%08" PRIx32 " -> bfloat16: OpenCL 0x%04x, storage.h 0x%04x", in[i], bf[i], b);
        checks += 2;
    }
}

void narrow_sampled(Device &d, uint64_t seed, bool exhaustive)
{
    std::vector<uint32_t> lows;
    if (exhaustive) {
        for (uint32_t low = 0; low < 0x10000; ++low) lows.push_back(low);
    } else {
        // Bits 13..15 decide float16's parity and bfloat16's tie; bits 0..12
        // float16's dropped bits (tie 0x1000), bits 0..15 bfloat16's (tie 0x8000).
        for (uint32_t top = 0; top < 8; ++top)
            for (uint32_t low13 : {0x0000u, 0x0001u, 0x0fffu, 0x1000u, 0x1001u, 0x1fffu})
                lows.push_back(top << 13 | low13);
        for (uint32_t low : {0x7fffu, 0x8000u, 0x8001u, 0xffffu}) lows.push_back(low);
    }
    uint64_t s = seed;
    auto next = [&s] {
        uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    };
    const std::size_t randoms = exhaustive ? 0 : 8;
    std::vector<uint32_t> batch;
    for (uint32_t high = 0; high < 0x10000; ++high) {
        for (uint32_t low : lows) batch.push_back(high << 16 | low);
        for (std::size_t r = 0; r < randoms; ++r) batch.push_back(high << 16 | uint32_t(next() & 0xffff));
        if (batch.size() >= (1u << 22) || high == 0xffff) {
            narrow_batch(d, batch);
            batch.clear();
        }
    }
}

// The type facts cl_source derives from base/type_list.h, against the
// framework, and the slots against the base's.
void type_facts()
{
    for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
        const opfcl::TypeInfo &t = opfcl::type_info(kt);
        ++checks;
        if (t.extent != opf_kernel_type_extent(kt))
            fail("%s: extent %d, the framework says %d", ob::kernel_type_names[kt], t.extent, opf_kernel_type_extent(kt));
        for (int op = 1; op < OPF_OPID_COUNT; ++op) {
            ++checks;
            const bool cl_type = t.cat != opfcl::Cat::None;
            const bool want = opf_slot_exists(op, kt) && (cl_type || opfcl::is_copy_op(op));
            if (opfcl::op_defined(op, kt) != want)
                fail("%s %s: op_defined %d, the base's slot and the OpenCL C types say %d", ob::op_names[op],
                     ob::kernel_type_names[kt], opfcl::op_defined(op, kt), want);
        }
    }
}

// Every op's program, for every kernel type it defines, builds on the device
// (structs checked against the host's sizes there).
void programs_build(Device &d)
{
    const opfcl::Features all{~0u};
    for (int op = 1; op < OPF_OPID_COUNT; ++op) {
        std::vector<int> kts;
        for (int kt = 0; kt < OPF_KT_COUNT; ++kt)
            if (opfcl::op_defined(op, kt) && (!opfcl::is_copy_op(op) || opfcl::copy_needs_kernel(op, kt)))
                kts.push_back(kt);
        if (kts.empty()) continue;
        ++checks;
        std::string log;
        if (cl_program p = d.build(opfcl::program_source(op, kts, all), log)) clReleaseProgram(p);
        else fail("the %s program (%zu kernel types) does not build:\n%s", ob::op_names[op], kts.size(), log.c_str());
    }
}

} // namespace

int main(int argc, char **argv)
{
    uint64_t seed = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
    bool exhaustive = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 0);
        else if (arg == "--exhaustive") exhaustive = true;
        else {
            std::fprintf(stderr, "usage: %s [--seed N] [--exhaustive]\n", argv[0]);
            return 2;
        }
    }
    std::printf("seed=%" PRIu64 "\n", seed);
    if (opf_init() != OPF_SUCCESS) {
        std::printf("opencl_source: opf_init failed: %s\n", opf_last_error());
        return 1;
    }
    type_facts();
    Device d;
    if (!d.open()) {
        std::printf("opencl_source: no OpenCL device: skipped (%d of %lld type checks failed)\n", failures, checks);
        return failures ? 1 : 77;
    }
    const opfcl::Features f{opfcl::kNeedFp32 | opfcl::kNeedDenorm32};
    std::string log;
    d.prog = d.build(opfcl::program_prelude({OPF_KT_FLOAT16, OPF_KT_BFLOAT16}, f) + kConversionKernels, log);
    if (!d.prog) {
        fail("the conversion program does not build:\n%s", log.c_str());
    } else {
        const auto start = std::chrono::steady_clock::now();
        widen_all(d);
        narrow_sampled(d, seed, exhaustive);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("conversions: %lld checks (%s) in %.1f s\n", checks, exhaustive ? "every float" : "sampled", s);
        clReleaseProgram(d.prog);
    }
    programs_build(d);
    std::printf("opencl_source: %lld checks, %d failed (rerun with --seed %" PRIu64 ")\n", checks, failures, seed);
    clReleaseCommandQueue(d.q);
    clReleaseContext(d.ctx);
    opf_finalize();
    return failures ? 1 : 0;
}
