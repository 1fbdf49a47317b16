// fuzz_params — the parameter file parser and the value parser of every
// parameter type (libFuzzer). The first byte picks which; the rest is the
// input. Properties beyond "no crash, no sanitizer report":
//  - a value opf_param_set accepts reads back with opf_param_get, and that
//    text is accepted again and reads back the same (format and parse agree);
//  - a refused value changes nothing;
//  - every setting a file yields has a non-empty name without blanks.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include <opframe/component.h>
#include <opframe/opframe.h>

#include "framework/params.h"

namespace {

int64_t int_storage, size_storage, enum_storage, flags_storage;
int bool_storage;
double double_storage;
const char *string_storage;

const opf_param_spec_t kSpecs[] = {
    {"op_fuzz_bool", OPF_PARAM_BOOL, "false", "", 9, OPF_PARAM_SETTABLE, nullptr, nullptr, &bool_storage},
    {"op_fuzz_int", OPF_PARAM_INT, "0", "", 9, OPF_PARAM_SETTABLE, nullptr, "op_fuzz_old_int", &int_storage},
    {"op_fuzz_size", OPF_PARAM_SIZE, "4K", "", 9, OPF_PARAM_SETTABLE, nullptr, nullptr, &size_storage},
    {"op_fuzz_double", OPF_PARAM_DOUBLE, "0.5", "", 9, OPF_PARAM_SETTABLE, nullptr, nullptr, &double_storage},
    {"op_fuzz_string", OPF_PARAM_STRING, "", "", 9, OPF_PARAM_SETTABLE, nullptr, nullptr, &string_storage},
    {"op_fuzz_enum", OPF_PARAM_ENUM, "mid", "", 9, OPF_PARAM_SETTABLE, "low,mid,high", nullptr, &enum_storage},
    {"op_fuzz_flags", OPF_PARAM_FLAGS, "", "", 9, OPF_PARAM_SETTABLE, "read,write,exec", nullptr, &flags_storage},
};
constexpr int kNumSpecs = int(sizeof kSpecs / sizeof kSpecs[0]);

void check(bool ok, const char *what, const std::string &input)
{
    if (ok) return;
    std::fprintf(stderr, "fuzz_params: %s for input \"%s\"\n", what, input.c_str());
    std::abort();
}

void fuzz_value(const opf_param_spec_t &spec, const std::string &value)
{
    char before[4096], after[4096], again[4096];
    check(opf_param_get(spec.name, before, sizeof before) == OPF_SUCCESS, "get before", value);
    if (opf_param_set(spec.name, value.c_str()) != OPF_SUCCESS) {
        check(opf_param_get(spec.name, after, sizeof after) == OPF_SUCCESS && std::strcmp(before, after) == 0,
              "a refused value changed the parameter", value);
        return;
    }
    if (opf_param_get(spec.name, after, sizeof after) != OPF_SUCCESS) {   // only a string may be too long
        check(spec.type == OPF_PARAM_STRING, "get after a good set", value);
    } else {
        check(opf_param_set(spec.name, after) == OPF_SUCCESS, "the value read back is refused", value);
        check(opf_param_get(spec.name, again, sizeof again) == OPF_SUCCESS && std::strcmp(after, again) == 0,
              "the value read back reads back differently", value);
    }
    opf_param_set(spec.name, nullptr);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    setenv("OPF_MCA_PARAM_FILE_USER", "", 1);
    setenv("OPF_MCA_PARAM_FILE_SYSTEM", "", 1);
    opf_param_set("mca_component_path", "");
    for (const opf_param_spec_t &spec : kSpecs)
        if (opf_param_register(&spec) != OPF_SUCCESS) {
            std::fprintf(stderr, "fuzz_params: cannot register %s: %s\n", spec.name, opf_last_error());
            std::abort();
        }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    const unsigned mode = data[0] % (kNumSpecs + 1);
    const std::string_view input(reinterpret_cast<const char *>(data + 1), size - 1);
    if (mode == 0) {   // a parameter file's text
        for (const auto &[name, setting] : opf::parse_param_file(input, "fuzz.conf"))
            check(!name.empty() && name.find_first_of(" \t\r\n=") == std::string::npos, "a bad setting name",
                  std::string(input));
        return 0;
    }
    const std::string value(input.substr(0, input.find('\0')));   // C strings end at the first NUL
    fuzz_value(kSpecs[mode - 1], value);
    return 0;
}
