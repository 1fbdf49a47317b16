// params.h — framework parameters. For now read from the environment as
// OPF_MCA_<name>; a bad value warns (naming the variable) and keeps the default.
#pragma once

#include <cstdint>

namespace opf {

struct Params {
    // Largest len handed to an int-count user callback; larger counts are
    // delivered in several calls (MPI 4: the lengths sum to the count).
    int64_t user_int_limit;
};

// The values in force since the last opf_init().
extern Params params;

// (Re)reads every parameter.
void load_params();

} // namespace opf
