// params.h — the MCA parameter registry.
//
// Parameters are declared by the framework (register_framework_params) and by
// components (opf_param_register, component.h). A value comes from, highest
// first: API (opf_param_set) > command line (opf_param_set_cmdline) >
// environment OPF_MCA_<name> > user file > system file > default. A bad value
// warns on stderr and the next lower source is tried. The registry writes the
// resolved value to the parameter's storage at declaration and whenever a
// set changes it. See opframe.h and introspect.h for the public side.
#pragma once

#include <cstdint>

namespace opf {

// The framework's own parameters, written by the registry. String fields
// point to registry-owned text: never NULL, valid until the next opf_finalize
// even after the value changes.
struct Params {
    // op_base_user_int_limit: largest len handed to an int-count user
    // callback; larger counts are delivered in several calls (MPI 4: the
    // lengths sum to the count).
    int64_t user_int_limit;
    const char *op_list;          // op: components to use "a,b", or to exclude "^a,b"
    int64_t verbose;              // op_base_verbose, 0..100 (synonym op_verbose)
    const char *component_path;   // mca_component_path: directories, ':'-separated
    int show_load_errors;         // mca_component_show_load_errors
    const char *pin;              // op_base_pin: "sum:float=avx2,max:double=example"
    int selftest;                 // op_base_selftest
    int hwloc_opencl;             // op_base_hwloc_opencl: let hwloc's OpenCL plugin list devices
    int64_t isa_mask;             // op_base_isa_mask: OPF_X86_* features components may see
};

// The values in force (resolved at opf_init, updated by opf_param_set).
extern Params params;

// Declares the framework's parameters; idempotent (a second call re-resolves
// their values from the sources).
void register_framework_params();

// At opf_init: rereads the parameter files, then register_framework_params().
void load_params();

// At opf_finalize: drops the components' declarations and the warnings
// already given (they are given again after the next opf_init), and frees the
// texts opf_param_describe handed out. API and command-line values stay.
void params_finalize();

} // namespace opf
