#include "framework/error.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>

namespace opf {
namespace {

thread_local char last_message[512];


const char *const code_texts[OPF_ERR_LASTCODE] = {
    "OPF_SUCCESS: no error",
    "OPF_ERR_OP: invalid operation, or operation not defined for the datatype",
    "OPF_ERR_TYPE: invalid datatype (null, freed, uncommitted or unsupported)",
    "OPF_ERR_COUNT: invalid count",
    "OPF_ERR_BUFFER: invalid buffer pointer",
    "OPF_ERR_ARG: invalid argument",
    "OPF_ERR_NO_MEM: out of memory",
    "OPF_ERR_INTERN: internal error",
};

void write_message(std::size_t at, const char *fmt, va_list args)
{
    if (at < sizeof last_message)
        std::vsnprintf(last_message + at, sizeof last_message - at, fmt, args);
}

const char *display_op(opf_op_t op)
{
    const char *name = opf_op_name(op);
    return name ? name : "<invalid>";
}
const char *display_type(opf_datatype_t type)
{
    const char *name = opf_type_name(type);
    return name ? name : "<invalid>";
}

} // namespace

int fail(int code, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    write_message(0, fmt, args);
    va_end(args);
    return code;
}

int fail_call(int code, const char *function, opf_op_t op, opf_datatype_t type, const char *fmt, ...)
{
    int n = std::snprintf(last_message, sizeof last_message, "%s(op %s, type %s): ", function,
                          display_op(op), display_type(type));
    va_list args;
    va_start(args, fmt);
    write_message(n < 0 ? 0 : std::size_t(n), fmt, args);
    va_end(args);
    return code;
}

int fail_exception(const char *function) noexcept
{
    try {
        throw;
    } catch (const std::bad_alloc &) {
        return fail(OPF_ERR_NO_MEM, "%s: out of memory", function);
    } catch (const std::exception &e) {
        return fail(OPF_ERR_INTERN, "%s: internal error: %s", function, e.what());
    } catch (...) {
        return fail(OPF_ERR_INTERN, "%s: internal error: an unknown exception", function);
    }
}

LastErrorScope::LastErrorScope() noexcept
{
    static_assert(sizeof saved_ == sizeof last_message);
    std::memcpy(saved_, last_message, sizeof saved_);
}

LastErrorScope::~LastErrorScope()
{
    if (restore_) std::memcpy(last_message, saved_, sizeof saved_);
}

} // namespace opf

OPF_API int opf_error_string(int code, char *buf, int *len)
{
    if (!buf || !len) return opf::fail(OPF_ERR_ARG, "opf_error_string: NULL buf or len");
    if (code < 0 || code >= OPF_ERR_LASTCODE)
        return opf::fail(OPF_ERR_ARG, "opf_error_string: unknown error code %d", code);
    std::snprintf(buf, OPF_MAX_ERROR_STRING, "%s", opf::code_texts[code]);
    *len = int(std::strlen(buf));
    return OPF_SUCCESS;
}

OPF_API const char *opf_last_error(void) { return opf::last_message; }
