// params.h — the MCA parameter registry.
//
// Parameters are declared by the framework (register_framework_params) and by
// components (opf_param_register, component.h). A value comes from, highest
// first: API (opf_param_set) > command line (opf_param_set_cmdline) >
// environment OPF_MCA_<name> > user file > system file > user tuning file >
// system tuning file (apply_tuning below) > default. A bad value
// warns on stderr and the next lower source is tried. The registry writes the
// resolved value to the parameter's storage at declaration and whenever a
// set changes it. See opframe.h and introspect.h for the public side.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

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
    int64_t component_trust;      // mca_component_trust: kTrustOwner or kTrustAny (file_trust.h)
    const char *pin;              // op_base_pin: "sum:float=avx2,max:double=example"
    int selftest;                 // op_base_selftest
    int hwloc_opencl;             // op_base_hwloc_opencl: let hwloc's OpenCL plugin list devices
    int64_t isa_mask;             // op_base_isa_mask: OPF_X86_* features components may see
    int64_t avx512_datapath;      // op_base_avx512_datapath: 0 probed, 1 256 bits, 2 512 bits
    // The worker pool (workers.h)
    int64_t threads;              // op_base_threads: 1 off, N threads, 0 one per core
    int64_t threads_min_bytes;    // op_base_threads_min_bytes: the least each thread gets
    int threads_in_mpi;           // op_base_threads_in_mpi: the pool inside an MPI job too
    int quiet_absent;             // op_base_quiet_absent: no word on settings of absent components
};

// mca_component_trust's words, by index.
constexpr int64_t kTrustOwner = 0, kTrustAny = 1;

// The values in force (resolved at opf_init, updated by opf_param_set).
extern Params params;

// The component whose hooks run on this thread (components.cpp sets it
// around register_params, open and init_query), else empty. Its parameters
// and their synonyms must begin with "op_<name>_": no component declares,
// and so takes, another's (an application's own parameters are free).
extern thread_local std::string registering_component;

// Declares the framework's parameters; idempotent (a second call re-resolves
// their values from the sources).
void register_framework_params();

// At opf_init: rereads the parameter and tuning files, then
// register_framework_params(). What is wrong with a file is said there, once
// per process: a tuning file named by its variable that does not exist, one
// that is a directory, unreadable or too large, and one that a user other
// than root and this process's user can change (file_trust.h), which is
// refused unless mca_component_trust=any comes from the environment, a
// command line or opf_param_set (a file cannot vouch for itself).
void load_params();

// Tuning files (opframe_tune writes them): parameter files of measured
// choices, read below the system parameter file (a user's explicit setting
// wins): $OPF_TUNE_FILE_USER, else ~/.opframe/tuning.conf, then
// $OPF_TUNE_FILE_SYSTEM, else <sysconfdir>/opframe-tuning.conf. Each names
// the CPU, ISA set and versions it was measured with (opf_tuning_cpu,
// opf_tuning_isa, opf_tuning_versions). At opf_init, once the hardware and
// the components are known, apply_tuning takes each file made with these,
// warns about (and ignores) one made with others, and resolves every
// parameter again. Until then a tuning file gives no value.
void apply_tuning(const std::string &cpu, const std::string &isa, const std::string &versions);
// What an accepted tuning file says about itself, for opframe_info --explain:
// when and where it was measured, per slot a note ("sum_float" -> "avx2 1.12x
// base at 64 KiB"), and the after-effect per ISA.
struct TuningInfo {
    std::string path, date, cpu, aftereffect;
    std::map<std::string, std::string> notes;
};
std::vector<TuningInfo> tuning_in_force();
// The texts `name` is set to in each source, highest first (also values a
// parameter would reject), with their origin ("environment OPF_MCA_x",
// "file PATH:LINE", "tuning file PATH:LINE"); `tuning`: from an accepted
// tuning file. op_base_pin keeps a tuning file's pins beside the user's.
struct SourcedValue {
    std::string text, origin;
    bool tuning;
};
std::vector<SourcedValue> param_layers(const std::string &name);

// At opf_init, once the loaded components have declared their parameters:
// every name set in the environment (OPF_MCA_*), a parameter file, on a
// command line or through opf_param_set before opf_init that no parameter
// declares is said once per process, at default verbosity, with its source
// and either the closest declared name ("did you mean op_base_verbose?") or,
// for "op_<c>_..." where component <c> was found but is not in use, that
// component's state (`component_state(c)`: "" when no component <c> was
// found). op_base_quiet_absent quiets the names of components not found at
// all (a site-wide file naming op_cuda_* on nodes without the cuda
// component); misspellings are said regardless.
void check_unknown_names(std::string (*component_state)(const std::string &name));
// The declared parameter name closest to `name` (edit distance, at most about
// a third of the name), or "".
std::string closest_param_name(std::string_view name);

// At opf_finalize: drops the components' declarations and the warnings
// already given (they are given again after the next opf_init), and frees the
// texts opf_param_describe handed out. API and command-line values stay.
void params_finalize();

// ---- parsers, kept free of the registry so that fuzz/ can drive them ----------

// One setting read from a parameter file.
struct FileValue {
    std::string text, origin;   // origin: "file <path>:<line>"
};
// A parameter file longer than this is ignored (with a warning): it is read
// with a bound, so that a device (/dev/zero) or a runaway file cannot hang
// opf_init or exhaust memory.
constexpr std::size_t kMaxParamFileBytes = std::size_t(1) << 20;
// The settings of a parameter file's text (`path` only names it in warnings);
// a malformed line warns once and is skipped.
std::map<std::string, FileValue> parse_param_file(std::string_view text, const std::string &path);

// The `op` list: "" (every component), "a,b" (only these) or "^a,b" (all but
// these). Whether the names exist is for the component repository to check.
struct ComponentList {
    bool exclude = false;
    std::vector<std::string> names;
};
// The syntax of an `op` list; false with the reason for an empty name (",",
// " ", "a,,b", "^"), a '^' not at the start, or a character no component
// name has. Blanks around names are dropped.
bool parse_component_list(std::string_view text, ComponentList &out, std::string &why);

// One op_base_pin item "op:type=provider" or "op:type@LO-HI=provider": the
// slot (op id, kernel type), the provider ("base" or a component name; its
// existence is checked once the components are known) and, for a size-bounded
// pin, the bytes per buffer it covers, both ends included (sizes as the size
// parameters take them; an open end: "@-4K", "@1M-").
struct Pin {
    int op, kernel_type;
    std::string provider;
    std::string band;                        // "" for the whole slot, else the range as written ("64K-1M")
    int64_t min_bytes = 0, max_bytes = -1;   // max_bytes < 0: no upper bound
};
// Parses op_base_pin; an item that is not a pin is left out and its reason
// ("item": why) appended to `problems`: not op:type=provider, an unknown op
// or type, a pair that is not a slot (LAND on FLOAT), more than one '=',
// an empty provider, a malformed range (not LO-HI, a bad size, both ends
// open, LO above HI), or a second pin for the same slot whose bytes overlap
// the first's (the later wins; a whole-slot pin and size-bounded pins of the
// same slot stand together, the bounded ones serving their bytes).
std::vector<Pin> parse_pins(std::string_view text, std::vector<std::string> &problems);

} // namespace opf
