// components.h — the component repository (libltdl), per-slot selection of
// the mixed table, and what opframe_info shows about both.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <opframe/component.h>

namespace opf {

enum class ComponentState { Excluded, OpenFailed, Disqualified, Available };

struct ComponentRecord {
    std::string name, path, reason;     // reason: why it is not available
    const opf_component_t *component = nullptr;
    void *handle = nullptr;             // lt_dlhandle; nullptr for a linked-in component
    ComponentState state = ComponentState::Excluded;
    bool opened = false;
    std::string status_text;            // "available", "disqualified: ..."
};

// A file in the component path that could not be used.
struct FailedFile {
    std::string path, reason;
};

// A module a component returned for one op, shared by every slot it won.
struct ModuleRecord {
    opf_module_t module{};
    int component = -1;                 // index in components()
    int references = 0;                 // installed kernels
};

// One component's offer for one slot, kept for --explain.
struct SlotCandidate {
    int component;                      // index in components()
    ModuleRecord *module;
    int priority;
    opf_count_t min_count;
    opf_kernel2_fn *fn2;
    opf_kernel3_fn *fn3;
    opf_stream_kernel2_fn *stream_fn2;
    opf_stream_kernel3_fn *stream_fn3;
    bool selftest_failed2 = false, selftest_failed3 = false;
    bool never_failed = false;   // stream kernels are not self-tested (device memory)
};

const std::vector<ComponentRecord> &components();
const std::vector<FailedFile> &failed_files();
const std::vector<SlotCandidate> &slot_candidates(int op_id, int mem, int kt);
const opf_hw_info_t &hardware();
// Explains the selection of a slot half in words, for opframe_info --explain:
// its host-style kernels, or (stream) those enqueued on a caller's stream.
std::string explain_slot(int op_id, int mem, int kt, int nbuf, bool stream = false);

// init: probe, load, open, query, select, self-test, enable. Returns an
// OPF_* code; a bad `op` list is OPF_ERR_ARG.
int components_init();
// finalize: release modules, close components, unload files.
void components_finalize();

// Whether any loaded component answers memory-kind queries (device memory).
extern bool have_memory_kind_components;
// The memory kind of a pointer (OPF_MEM_HOST when no component claims it).
int memory_kind_of(const void *ptr);

} // namespace opf
