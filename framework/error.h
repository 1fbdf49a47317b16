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

} // namespace opf
