// cl_api.cpp — loads the OpenCL ICD loader with dlopen (see cl_api.h).
#include "cl_api.h"

#include <dlfcn.h>

#include <mutex>

namespace opfcl {

Api cl;

namespace {
std::mutex load_lock;
std::string loaded_from;   // the library the table came from ("" : not loaded)
} // namespace

bool load(const char *library, std::string &why)
{
    std::lock_guard guard(load_lock);
    if (!loaded_from.empty()) {
        if (loaded_from == library) return true;
        // A different file asked for after one was loaded: the table stays
        // (functions of two loaders must not mix).
        why = std::string("the OpenCL loader ") + loaded_from + " is already in use (asked for " + library + ")";
        return true;
    }
    dlerror();
    void *h = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        why = std::string("no OpenCL ICD loader: ") + (e ? e : library);
        return false;
    }
    Api table;
    table.handle = h;
    std::string missing;
#define OPFCL_LOAD_REQUIRED(name) \
    table.name = reinterpret_cast<decltype(table.name)>(dlsym(h, #name)); \
    if (!table.name) missing += (missing.empty() ? "" : ", ") + std::string(#name);
    OPFCL_REQUIRED(OPFCL_LOAD_REQUIRED)
#undef OPFCL_LOAD_REQUIRED
#define OPFCL_LOAD_OPTIONAL(name) table.name = reinterpret_cast<decltype(table.name)>(dlsym(h, #name));
    OPFCL_OPTIONAL(OPFCL_LOAD_OPTIONAL)
#undef OPFCL_LOAD_OPTIONAL
    if (!missing.empty()) {
        why = std::string("the OpenCL loader ") + library + " lacks " + missing + " (an OpenCL 1.2 loader is needed)";
        dlclose(h);
        return false;
    }
    cl = table;
    loaded_from = library;
    return true;
}

const char *error_name(cl_int code)
{
    switch (code) {
#define N(c) case c: return #c;
    N(CL_SUCCESS) N(CL_DEVICE_NOT_FOUND) N(CL_DEVICE_NOT_AVAILABLE) N(CL_COMPILER_NOT_AVAILABLE)
    N(CL_MEM_OBJECT_ALLOCATION_FAILURE) N(CL_OUT_OF_RESOURCES) N(CL_OUT_OF_HOST_MEMORY)
    N(CL_PROFILING_INFO_NOT_AVAILABLE) N(CL_MEM_COPY_OVERLAP) N(CL_IMAGE_FORMAT_MISMATCH)
    N(CL_IMAGE_FORMAT_NOT_SUPPORTED) N(CL_BUILD_PROGRAM_FAILURE) N(CL_MAP_FAILURE)
    N(CL_MISALIGNED_SUB_BUFFER_OFFSET) N(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    N(CL_COMPILE_PROGRAM_FAILURE) N(CL_LINKER_NOT_AVAILABLE) N(CL_LINK_PROGRAM_FAILURE)
    N(CL_DEVICE_PARTITION_FAILED) N(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    N(CL_INVALID_VALUE) N(CL_INVALID_DEVICE_TYPE) N(CL_INVALID_PLATFORM) N(CL_INVALID_DEVICE)
    N(CL_INVALID_CONTEXT) N(CL_INVALID_QUEUE_PROPERTIES) N(CL_INVALID_COMMAND_QUEUE) N(CL_INVALID_HOST_PTR)
    N(CL_INVALID_MEM_OBJECT) N(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) N(CL_INVALID_IMAGE_SIZE) N(CL_INVALID_SAMPLER)
    N(CL_INVALID_BINARY) N(CL_INVALID_BUILD_OPTIONS) N(CL_INVALID_PROGRAM) N(CL_INVALID_PROGRAM_EXECUTABLE)
    N(CL_INVALID_KERNEL_NAME) N(CL_INVALID_KERNEL_DEFINITION) N(CL_INVALID_KERNEL) N(CL_INVALID_ARG_INDEX)
    N(CL_INVALID_ARG_VALUE) N(CL_INVALID_ARG_SIZE) N(CL_INVALID_KERNEL_ARGS) N(CL_INVALID_WORK_DIMENSION)
    N(CL_INVALID_WORK_GROUP_SIZE) N(CL_INVALID_WORK_ITEM_SIZE) N(CL_INVALID_GLOBAL_OFFSET)
    N(CL_INVALID_EVENT_WAIT_LIST) N(CL_INVALID_EVENT) N(CL_INVALID_OPERATION) N(CL_INVALID_GL_OBJECT)
    N(CL_INVALID_BUFFER_SIZE) N(CL_INVALID_MIP_LEVEL) N(CL_INVALID_GLOBAL_WORK_SIZE) N(CL_INVALID_PROPERTY)
    N(CL_INVALID_IMAGE_DESCRIPTOR) N(CL_INVALID_COMPILER_OPTIONS) N(CL_INVALID_LINKER_OPTIONS)
    N(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef N
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "an unknown OpenCL error";
    }
}

} // namespace opfcl
