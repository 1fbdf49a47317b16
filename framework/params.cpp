#include "framework/params.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace opf {

Params params;

namespace {
int64_t int_param(const char *name, int64_t fallback, int64_t lo, int64_t hi)
{
    const std::string var = std::string("OPF_MCA_") + name;
    const char *text = std::getenv(var.c_str());
    if (!text) return fallback;
    char *end = nullptr;
    errno = 0;
    const long long v = std::strtoll(text, &end, 0);
    if (errno || end == text || *end != '\0' || v < lo || v > hi) {
        std::fprintf(stderr, "opframe: warning: environment variable %s=\"%s\" is not an integer in [%lld, %lld]; "
                     "using the default %lld\n", var.c_str(), text, (long long)lo, (long long)hi, (long long)fallback);
        return fallback;
    }
    return v;
}
} // namespace

void load_params()
{
    params.user_int_limit = int_param("op_base_user_int_limit", INT_MAX, 1, INT_MAX);
}

} // namespace opf
