// opencl_backend.h — the engine's OpenCL backend: reductions on cl_mem
// buffers through libopframe-opencl (opframe/opencl.h), on the first OpenCL
// device (PoCL in CI). Each guarded operand's whole image (guards, data,
// padding pattern) is copied into a buffer of its own, the reduction runs at
// the data's byte offset, and the image comes back for the host checks
// (engine.h, MirroredTarget): a kernel that writes whole elements, or past
// the true end, shows in the guards as it would on the host.
#pragma once

#define CL_TARGET_OPENCL_VERSION 300
#include <opframe/opencl.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>

#include "test/engine/engine.h"

namespace engine {

// The first OpenCL device of any platform, with a context and a queue:
// what every OpenCL test opens (the engine's backend, opencl_conformance,
// opencl_databytes), one definition. Released by release().
struct OpenClDevice {
    cl_device_id id = nullptr;
    cl_context context = nullptr;
    cl_command_queue queue = nullptr;
    char name[256] = "";
    bool fine_svm = false;   // fine-grained SVM buffers

    static std::optional<OpenClDevice> open_first(bool out_of_order = false)
    {
        cl_uint np = 0;
        cl_platform_id platforms[8];
        if (clGetPlatformIDs(8, platforms, &np) != CL_SUCCESS || np == 0) return std::nullopt;
        const cl_queue_properties ooo[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
        for (cl_uint p = 0; p < np && p < 8; ++p) {
            OpenClDevice d;
            cl_uint nd = 0;
            if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 1, &d.id, &nd) != CL_SUCCESS || nd == 0) continue;
            cl_int err = CL_SUCCESS;
            d.context = clCreateContext(nullptr, 1, &d.id, nullptr, nullptr, &err);
            if (err != CL_SUCCESS) continue;
            d.queue = clCreateCommandQueueWithProperties(d.context, d.id, out_of_order ? ooo : nullptr, &err);
            if (err != CL_SUCCESS) {
                clReleaseContext(d.context);
                continue;
            }
            clGetDeviceInfo(d.id, CL_DEVICE_NAME, sizeof d.name, d.name, nullptr);
            cl_device_svm_capabilities svm = 0;
            if (clGetDeviceInfo(d.id, CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm, nullptr) == CL_SUCCESS)
                d.fine_svm = (svm & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) != 0;
            return d;
        }
        return std::nullopt;
    }
    // opframe's programs for the context first (opf_cl_release_context), then the queue and context.
    void release()
    {
        opf_cl_release_context(context);
        clReleaseCommandQueue(queue);
        clReleaseContext(context);
    }
};

class OpenClBackend {
public:
    // nullptr when there is no OpenCL platform or device.
    static std::unique_ptr<OpenClBackend> open()
    {
        std::optional<OpenClDevice> d = OpenClDevice::open_first();
        if (!d) return nullptr;
        auto b = std::unique_ptr<OpenClBackend>(new OpenClBackend);
        b->ctx_ = d->context;
        b->queue_ = d->queue;
        std::memcpy(b->device_, d->name, sizeof b->device_);
        return b;
    }
    ~OpenClBackend()
    {
        opf_cl_release_context(ctx_);
        clReleaseCommandQueue(queue_);
        clReleaseContext(ctx_);
    }
    const char *device() const { return device_; }
    cl_context context() const { return ctx_; }
    cl_command_queue queue() const { return queue_; }

    // Does the device run (op, type)? Else *why says why.
    bool supports(opf_datatype_t type, opf_op_t op, std::string *why) const
    {
        int ok = 0;
        if (opf_cl_supported(queue_, op, type, &ok) != OPF_SUCCESS || !ok) {
            if (why) *why = opf_cl_last_error();
            return false;
        }
        return true;
    }

    // opf_cl_reduce_local(3) of (type, op) as an engine target.
    std::unique_ptr<Target> target(opf_datatype_t type, opf_op_t op) const
    {
        return std::make_unique<Buffers>(*this, type, op);
    }

private:
    OpenClBackend() = default;

    class Buffers final : public MirroredTarget {
    public:
        Buffers(const OpenClBackend &b, opf_datatype_t type, opf_op_t op) : b_(b), type_(type), op_(op) {}

    protected:
        void *allocate(std::size_t bytes) override
        {
            cl_int err = CL_SUCCESS;
            cl_mem m = clCreateBuffer(b_.ctx_, CL_MEM_READ_WRITE, bytes ? bytes : 1, nullptr, &err);
            return err == CL_SUCCESS ? m : nullptr;
        }
        bool upload(void *h, const void *from, std::size_t bytes) override
        {
            return !bytes || clEnqueueWriteBuffer(b_.queue_, cl_mem(h), CL_TRUE, 0, bytes, from, 0, nullptr,
                                                  nullptr) == CL_SUCCESS;
        }
        bool download(void *to, void *h, std::size_t bytes) override
        {
            return !bytes || clEnqueueReadBuffer(b_.queue_, cl_mem(h), CL_TRUE, 0, bytes, to, 0, nullptr,
                                                 nullptr) == CL_SUCCESS;
        }
        void release(void *h) override { clReleaseMemObject(cl_mem(h)); }
        int call2(Image in, Image inout, std::size_t n) override
        {
            return opf_cl_reduce_local(cl_mem(in.handle), in.offset, cl_mem(inout.handle), inout.offset,
                                       opf_count_t(n), type_, op_, b_.queue_, 0, nullptr, nullptr);
        }
        int call3(Image a, Image b, Image o, std::size_t n) override
        {
            return opf_cl_reduce_local3(cl_mem(a.handle), a.offset, cl_mem(b.handle), b.offset, cl_mem(o.handle),
                                        o.offset, opf_count_t(n), type_, op_, b_.queue_, 0, nullptr, nullptr);
        }

    private:
        const OpenClBackend &b_;
        opf_datatype_t type_;
        opf_op_t op_;
    };

    cl_context ctx_ = nullptr;
    cl_command_queue queue_ = nullptr;
    char device_[256] = "";
};

} // namespace engine
