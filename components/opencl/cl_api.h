// cl_api.h — the OpenCL entry points the opencl component uses, loaded at
// run time from the ICD loader (dlopen "libOpenCL.so.1", or the file named by
// op_opencl_library).
//
// Why dlopen and not -lOpenCL: a component linked against the loader fails to
// load where the loader is missing, and then shows up only as a failed file
// (opframe_info --show-failed) with the dynamic linker's message. Loading the
// loader itself lets the component load everywhere and disqualify itself with
// a reason that says what is missing ("no OpenCL ICD loader: ..."), like every
// other "hardware not here" case. It costs a table of function pointers.
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
// clCreateCommandQueue: the one queue constructor every loader and platform has.
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS 1
#include <CL/cl.h>

#include <string>

namespace opfcl {

// Entry points every OpenCL 1.2 loader has (the component refuses a loader
// without them).
#define OPFCL_REQUIRED(X) \
    X(clGetPlatformIDs) X(clGetPlatformInfo) X(clGetDeviceIDs) X(clGetDeviceInfo) \
    X(clCreateContext) X(clRetainContext) X(clReleaseContext) \
    X(clCreateCommandQueue) X(clReleaseCommandQueue) X(clGetCommandQueueInfo) \
    X(clCreateBuffer) X(clReleaseMemObject) X(clGetMemObjectInfo) \
    X(clCreateProgramWithSource) X(clCreateProgramWithBinary) X(clBuildProgram) \
    X(clGetProgramInfo) X(clGetProgramBuildInfo) X(clReleaseProgram) \
    X(clCreateKernel) X(clReleaseKernel) X(clSetKernelArg) X(clGetKernelWorkGroupInfo) \
    X(clEnqueueNDRangeKernel) X(clEnqueueCopyBuffer) X(clEnqueueMarkerWithWaitList) \
    X(clEnqueueMapBuffer) X(clEnqueueUnmapMemObject) \
    X(clWaitForEvents) X(clReleaseEvent) X(clFinish) X(clFlush)

// OpenCL 2.0 shared virtual memory: optional (NULL where the loader lacks it).
#define OPFCL_OPTIONAL(X) X(clSetKernelArgSVMPointer) X(clEnqueueSVMMemcpy)

struct Api {
#define OPFCL_MEMBER(name) decltype(&::name) name = nullptr;
    OPFCL_REQUIRED(OPFCL_MEMBER)
    OPFCL_OPTIONAL(OPFCL_MEMBER)
#undef OPFCL_MEMBER
    void *handle = nullptr;
};

// The table, filled by load(); usable only after load() returned true.
extern Api cl;

// Loads the loader (once per process: it is never unloaded, ICDs do not
// survive that). `library`: file name or path. False with `why` set on failure.
bool load(const char *library, std::string &why);

// "CL_OUT_OF_RESOURCES" etc.
const char *error_name(cl_int code);

} // namespace opfcl
