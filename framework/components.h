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
    // opf_module_offer calls refused (bad offer, not a slot) and kept, and
    // the first refusal's reason: a component all of whose offers were
    // refused serves nothing, and says so in its status.
    int offers_refused = 0, offers_kept = 0;
    std::string first_refusal;
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

// One component's offer for one slot (opf_offer_t as the framework keeps it),
// kept for --explain.
struct SlotCandidate {
    int component;                      // index in components()
    ModuleRecord *module;
    int priority;
    opf_count_t min_count;
    opf_kernel2_fn *fn2;                // host memory
    opf_kernel3_fn *fn3;
    opf_device_kernel2_fn *device2;     // device memory, synchronous
    opf_device_kernel3_fn *device3;
    opf_stream_kernel2_fn *stream2;     // device memory, on a stream
    opf_stream_kernel3_fn *stream3;
    bool selftest_failed2 = false, selftest_failed3 = false;
    bool never_failed = false;   // device kernels are not self-tested (device memory)
    // n-ary forms (host memory), by base::NaryForm, each self-tested apart
    opf_kernel_n_fn *fn_n = nullptr, *fn_n_once = nullptr, *fn_premul = nullptr, *fn_premul_once = nullptr;
    bool failed_n = false, failed_n_once = false, failed_premul = false, failed_premul_once = false;
    // n-ary forms on device memory (kN, kNOnce), synchronous and on a stream
    opf_device_kernel_n_fn *device_n = nullptr, *device_n_once = nullptr;
    opf_stream_kernel_n_fn *stream_n = nullptr, *stream_n_once = nullptr;

    // Whether it offers a synchronous kernel for nbuf buffers (2 or 3).
    bool offers(int nbuf) const { return nbuf == 2 ? fn2 || device2 : fn3 || device3; }
};

// A device memory kind a component registered (id = index + 1).
struct MemoryKind {
    std::string name;
    opf_memory_claim_fn *claim;         // nullptr: reached by stream calls only
    int component;                      // index in components()
    opf_memory_claims_fn *claims = nullptr;   // all of a call's buffers at once (opf_memory_kind_set_claims)
    const uint64_t *mapping_count = nullptr;  // where its driver's mapping calls are counted (opf_memory_kind_set_mapping_count)
};

const std::vector<ComponentRecord> &components();
// For messages about a setting of component `name`: "in use", "is excluded
// by op=^x", "is disqualified: ...", "is not in use (failed: ...)", "failed
// to load from PATH (reason)", or "" when no such component was found.
std::string component_state(const std::string &name);
const std::vector<FailedFile> &failed_files();
const std::vector<MemoryKind> &memory_kinds();
// Host and the registered kinds: valid ids are 0 .. memory_kind_count() - 1.
inline int memory_kind_count() { return 1 + int(memory_kinds().size()); }
const char *memory_kind_name(int mem);
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

// Whether some registered memory kind has a claim hook: only then do
// opf_reduce_local's buffers need asking about.
extern bool have_memory_claims;
// The memory kind of a pointer (OPF_MEM_HOST when no component claims it).
int memory_kind_of(const void *ptr);
// The memory kind of each of one call's n (<= 16) buffers: each kind's hooks
// asked once for the call where it has a per-call claim, else per buffer.
void memory_kinds_of(const void *const *ptrs, int n, int *kinds);
// Whether no hook claims any of one call's n buffers: the short path's
// question, each kind's per-call hook asked once per 16 buffers.
bool none_claimed(const void *const *ptrs, int n);
// The same for m (<= 16) buffers host_memory.h cannot vouch for: the hooks alone.
bool none_claims(const void *const *asked, int m);

} // namespace opf
