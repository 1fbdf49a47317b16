// error.h — return codes with a per-thread message naming op, type, reason.
#pragma once

#include <opframe/opframe.h>

// Marks the functions of the public C API (the library hides everything else).
#define OPF_API extern "C" __attribute__((visibility("default")))

namespace opf {

// Records "<reason>" for the calling thread and returns `code`. Cold: only
// failed calls format text.
[[gnu::cold, gnu::format(printf, 2, 3)]] int fail(int code, const char *fmt, ...);

// Same, prefixed with "<function>(op <OP>, type <TYPE>): ".
[[gnu::cold, gnu::format(printf, 5, 6)]] int fail_call(int code, const char *function, opf_op_t op,
                                                       opf_datatype_t type, const char *fmt, ...);

// For `catch (...)` at a C entry point: maps the exception in flight to a
// code and message (std::bad_alloc: OPF_ERR_NO_MEM; anything else:
// OPF_ERR_INTERN naming it), so that no exception crosses the C API.
[[gnu::cold]] int fail_exception(const char *function) noexcept;

// Keeps the calling thread's last error message across internal work that
// may fail and recover (lazy initialisation): a call that succeeds leaves
// opf_last_error() as it was. keep() ends the scope's protection when the
// call itself fails.
class LastErrorScope {
public:
    LastErrorScope() noexcept;
    ~LastErrorScope();
    void keep() noexcept { restore_ = false; }
    LastErrorScope(const LastErrorScope &) = delete;
    LastErrorScope &operator=(const LastErrorScope &) = delete;

private:
    char saved_[512];
    bool restore_ = true;
};

} // namespace opf
