// components.cpp — finds component files on mca_component_path, loads them
// with libltdl, runs their life cycle, and overlays their offers on the base
// table slot by slot.
#include "framework/components.h"
#include "framework/host_memory.h"
#include "framework/component_files.h"
#include "framework/file_trust.h"

#include "config.h"

#ifndef OPF_COMPONENT_PATH_DEFAULT
#define OPF_COMPONENT_PATH_DEFAULT ""
#endif

#include <algorithm>
#include <cctype>
#include <climits>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <set>

#include <dirent.h>
#include <dlfcn.h>
#include <ltdl.h>
#include <sys/stat.h>

#include <opframe/introspect.h>

#include "base/kernels.h"
#include "framework/datatype.h"
#include "framework/devices.h"
#include "framework/error.h"
#include "framework/hwprobe.h"
#include "framework/op.h"
#include "framework/params.h"
#include "framework/messages.h"
#include "framework/runtime.h"

namespace opf {

bool have_memory_claims = false;

namespace {

// ---- state of one init..finalize ------------------------------------------

// A size-bounded op_base_pin item ("sum:float@64K-1M=avx2") in counts of its
// slot's type: the provider serves counts [from, to] (to < 0: no bound).
struct BandPin {
    opf_count_t from, to;
    std::string provider, band;
};

// Storage of the size-tiered offers a table slot points into.
struct Tiers {
    std::vector<Offer<opf_kernel2_fn>> two;
    std::vector<Offer<opf_kernel3_fn>> three;
    std::vector<Offer<opf_device_kernel2_fn>> device2;
    std::vector<Offer<opf_device_kernel3_fn>> device3;
    std::vector<Offer<opf_stream_kernel2_fn>> stream2;
    std::vector<Offer<opf_stream_kernel3_fn>> stream3;
    std::vector<Offer<opf_kernel_n_fn>> nary[base::kNaryForms];
    std::vector<Offer<opf_device_kernel_n_fn>> device_n[2];
    std::vector<Offer<opf_stream_kernel_n_fn>> stream_n[2];
};

// The n-ary forms of a candidate, by base::NaryForm.
using NaryField = opf_kernel_n_fn *SlotCandidate::*;
using NaryFailed = bool SlotCandidate::*;
constexpr NaryField nary_field[base::kNaryForms] = {&SlotCandidate::fn_n, &SlotCandidate::fn_n_once,
                                                    &SlotCandidate::fn_premul, &SlotCandidate::fn_premul_once};
constexpr NaryFailed nary_failed[base::kNaryForms] = {&SlotCandidate::failed_n, &SlotCandidate::failed_n_once,
                                                      &SlotCandidate::failed_premul, &SlotCandidate::failed_premul_once};
// ... and on device memory (kN, kNOnce), synchronous and on a stream.
constexpr opf_device_kernel_n_fn *SlotCandidate::*device_n_field[2] = {&SlotCandidate::device_n,
                                                                       &SlotCandidate::device_n_once};
constexpr opf_stream_kernel_n_fn *SlotCandidate::*stream_n_field[2] = {&SlotCandidate::stream_n,
                                                                       &SlotCandidate::stream_n_once};

// The offers on one memory kind, per slot.
struct KindOffers {
    std::vector<SlotCandidate> candidates[OPF_OPID_COUNT][OPF_KT_COUNT];
    Tiers tiers[OPF_OPID_COUNT][OPF_KT_COUNT];
};

struct Repository {
    opf_hw_info_t hw{};
    std::vector<ComponentRecord> components;
    std::vector<FailedFile> failed;
    std::vector<std::unique_ptr<ModuleRecord>> modules;
    std::vector<MemoryKind> memory_kinds;             // id - 1
    std::vector<std::unique_ptr<KindOffers>> offers;   // by memory kind id: host first
    std::map<std::pair<int, int>, std::string> pins;   // (op, kernel type) -> provider
    std::map<std::pair<int, int>, std::vector<BandPin>> band_pins;   // size-bounded pins, by slot
    std::map<std::pair<int, int>, std::string> pin_overrides;   // slots whose tuning pins a user's replaced -> its origin
    bool ltdl_up = false;
    // Whose hook runs now: the component registering a memory kind, the
    // module receiving offers (init is single-threaded, under runtime's lock).
    int calling = -1;
    int told_kind_limit = -1;   // the component last told that OPF_MEMORY_KINDS_MAX is reached
    ModuleRecord *querying = nullptr;
    struct Pending {
        int memory_kind, kernel_type;
        SlotCandidate offer;
    };
    std::vector<Pending> pending;   // offers of `querying`, kept if its op_query returns 0
};

Repository repo;

[[gnu::format(printf, 2, 0)]] void say(Say kind, const char *fmt, va_list args)
{
    char text[2048];
    std::vsnprintf(text, sizeof text, fmt, args);
    say_line(kind, text);
}

[[gnu::format(printf, 2, 3)]] void verbose(int level, const char *fmt, ...)
{
    if (params.verbose < level) return;
    va_list args;
    va_start(args, fmt);
    say(Say::Verbose, fmt, args);
    va_end(args);
}

[[gnu::format(printf, 1, 2)]] void warn(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    say(Say::Warning, fmt, args);
    va_end(args);
}

// A warning once per process: opframe_info initialises more than once, a
// program may finalize and initialise again.
[[gnu::format(printf, 1, 2)]] void say_once(const char *fmt, ...)
{
    static std::set<std::string> said;
    char text[2048];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    if (said.insert(text).second) say_line(Say::Warning, text);
}

bool is_directory(const std::string &path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// ---- discovery and loading ---------------------------------------------------

constexpr char kPrefix[] = "opf_op_";

// The component name of a file "opf_op_<name>.so" / ".la", or "".
std::string component_name_of(const std::string &file)
{
    const std::size_t dot = file.rfind('.');
    if (file.rfind(kPrefix, 0) != 0 || dot == std::string::npos) return "";
    const std::string ext = file.substr(dot);
    if (ext != ".so" && ext != ".la") return "";
    const std::string name = file.substr(sizeof kPrefix - 1, dot - (sizeof kPrefix - 1));
    const bool valid = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
    return valid ? name : "";
}

// Each file's failure is listed by every init (opf_failed_describe) but
// warned about once per process: a program (opframe_info) that initialises
// again, or whose init failed and is retried by the next call, must not
// repeat the same warning.
// `say`: false where one line speaks for several files (a refused directory).
void record_failure(const std::string &path, const std::string &reason, bool say = true)
{
    static std::set<std::pair<std::string, std::string>> warned;
    repo.failed.push_back({path, reason});
    if (say && params.show_load_errors && warned.insert({path, reason}).second)
        warn("component %s skipped: %s", path.c_str(), reason.c_str());
}

// ---- who may put code into the process (file_trust.h) -----------------------------

constexpr char kTrustHint[] = "mca_component_trust=any loads it anyway";

// Why `path` (a component file, .so or .la) must not be opened, or "": the
// file it resolves to, or that file's directory, can be changed by a user
// other than root and this process's user. `real_path` gets the resolved
// path, which is what the loader is then given: a link on the way cannot be
// swapped between this check and the open.
std::string untrusted_component_file(const std::string &path, std::string &real_path)
{
    const TrustCheck check = check_file_trust(path, DirectoryUse::Searched);
    real_path = check.real_path.empty() ? path : check.real_path;
    if (check.problem.empty()) return "";
    if (params.component_trust == kTrustAny) {
        verbose(1, "component %s: %s; loaded all the same (mca_component_trust=any)", path.c_str(),
                check.problem.c_str());
        return "";
    }
    return "refused: " + check.problem + ", so another user could run code in this process; " + kTrustHint;
}

// Why a shared object that looked loadable (diagnose_shared_object, before
// the open) failed to open: libltdl reports its last loader's "file not
// found" even when the file exists, so the system loader's message comes
// first (a missing dependency, an undefined symbol).
std::string load_error(const std::string &so)
{
    const char *ltdl_message = lt_dlerror();
    dlerror();
    if (void *h = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL)) {
        dlclose(h);   // loads now: the failure was libltdl's own
    } else if (const char *why = dlerror()) {
        return why;
    }
    return ltdl_message ? ltdl_message : "unknown libltdl error";
}

// The shared object to load for component `name` in `dir`, or "" after
// recording why there is none. A libtool archive (.la) names it with dlname,
// looked for next to the .la, then in .libs/ (a build tree); the archive's
// libdir is never used: a copied or relocated tree loads its own files, not
// those of the prefix it was built for.
std::string shared_object_of(const std::string &dir, const std::string &name)
{
    const std::string stem = dir + "/" + kPrefix + name, la_path = stem + ".la";
    struct stat st;
    if (lstat(la_path.c_str(), &st) != 0) return stem + ".so";
    // The archive chooses which file is opened: whoever may write it must be trusted too.
    std::string real_la;
    if (std::string refused = untrusted_component_file(la_path, real_la); !refused.empty()) {
        record_failure(la_path, refused);
        return "";
    }
    LaFile la;
    std::string why;
    if (!read_la(la_path, la, why)) {
        record_failure(la_path, "cannot load: " + why);
        return "";
    }
    for (const std::string &candidate : {dir + "/" + la.dlname, dir + "/.libs/" + la.dlname})
        if (lstat(candidate.c_str(), &st) == 0) return candidate;
    std::string reason = "cannot load: the libtool library file names " + la.dlname + ", which is neither in " + dir +
                         " nor in " + dir + "/.libs";
    if (!la.libdir.empty() && la.libdir != dir)
        reason += " (its libdir " + la.libdir + " is not searched: components load from where they are found)";
    record_failure(la_path, reason);
    return "";
}

// Opens one file; on success appends a record in state Excluded (not yet opened).
void load_file(const std::string &dir, const std::string &name)
{
    for (const ComponentRecord &c : repo.components)
        if (c.name == name) {
            record_failure(dir + "/" + kPrefix + name + ".so",
                           "duplicate component name \"" + name + "\": the one in " + c.path + " was found first");
            return;
        }
    const std::string so = shared_object_of(dir, name);
    if (so.empty()) return;
    // The file's own kind before the loader opens it: a FIFO would block the
    // loader's open for ever, and the loader says "No such file or
    // directory" for an ELF file of another machine.
    if (std::string problem = diagnose_shared_object(so); !problem.empty()) {
        record_failure(so, "cannot load: " + problem);
        return;
    }
    // Before the open: the loader runs the file's constructors as it opens it.
    std::string real_so;
    if (std::string refused = untrusted_component_file(so, real_so); !refused.empty()) {
        record_failure(so, refused);
        return;
    }
    lt_dladvise advise;
    lt_dladvise_init(&advise);
    lt_dladvise_local(&advise);   // components must not see each other's symbols
    lt_dlhandle handle = lt_dlopenadvise(real_so.c_str(), advise);
    lt_dladvise_destroy(&advise);
    if (!handle) {
        record_failure(so, "cannot load: " + load_error(so));
        return;
    }
    const std::string symbol = std::string(kPrefix) + name + "_component";
    auto *comp = static_cast<const opf_component_t *>(lt_dlsym(handle, symbol.c_str()));
    std::string reason;
    if (!comp && defines_unexported_symbol(so, symbol))
        reason = "symbol " + symbol + " is defined but not exported (hidden visibility, as -fvisibility=hidden makes "
                 "it): declare it with OPF_COMPONENT_DECLARE(" + name + "), which exports it";
    else if (!comp) reason = "missing symbol " + symbol;
    else if (comp->abi_version != OPF_COMPONENT_ABI_VERSION)
        reason = "component ABI version " + std::to_string(comp->abi_version) + ", this framework speaks " +
                 std::to_string(OPF_COMPONENT_ABI_VERSION);
    else if (!comp->framework || std::strcmp(comp->framework, OPF_FRAMEWORK_NAME) != 0)
        reason = std::string("framework \"") + (comp->framework ? comp->framework : "(null)") + "\", expected \"op\"";
    else if (!comp->name || name != comp->name)
        reason = std::string("name mismatch: the file says \"") + name + "\", the component says \"" +
                 (comp->name ? comp->name : "(null)") + "\"";
    else if (!comp->init_query || !comp->op_query)
        reason = "init_query or op_query hook is NULL";
    if (!reason.empty()) {   // (under the name it was found by, as every other failure)
        record_failure(so, reason);
        lt_dlclose(handle);
        return;
    }
    ComponentRecord rec;
    rec.name = name;
    rec.path = so;
    rec.component = comp;
    rec.handle = handle;
    repo.components.push_back(rec);
    verbose(1, "component %s loaded from %s", name.c_str(), rec.path.c_str());
}

// Components linked into the library (configure --enable-static-components):
// found before any directory, so a file of the same name is a duplicate.
#ifdef OPF_STATIC_COMPONENT_LIST
#define OPF_STATIC(name) extern "C" const opf_component_t opf_op_##name##_component;
OPF_STATIC_COMPONENT_LIST
#undef OPF_STATIC
#define OPF_STATIC(name) &opf_op_##name##_component,
const opf_component_t *const linked_in[] = {OPF_STATIC_COMPONENT_LIST nullptr};
#undef OPF_STATIC
#else
const opf_component_t *const linked_in[] = {nullptr};
#endif

void add_linked_in()
{
    for (const opf_component_t *const *c = linked_in; *c; ++c) {
        ComponentRecord rec;
        rec.name = (*c)->name;
        rec.path = "(linked into libopframe)";
        rec.component = *c;
        repo.components.push_back(rec);
    }
}

// Whether the components found in `dir` (`names`: name -> file) are
// refused because someone other than root and this process's user can
// change the directory: anyone who can add a file there can add a
// component. Each file is listed failed with the reason; one line says it.
bool refuse_directory(const std::string &dir, const std::map<std::string, std::string> &names)
{
    if (names.empty()) return false;   // nothing would be opened
    const TrustCheck check = check_directory_trust(dir, DirectoryUse::Searched);
    if (check.problem.empty()) return false;
    std::string which = "component directory " + dir;
    std::string trimmed = dir;
    while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
    if (check.real_path != trimmed) which += " (" + check.real_path + ")";
    if (params.component_trust == kTrustAny) {
        verbose(1, "%s is %s; its components are loaded all the same (mca_component_trust=any)", which.c_str(),
                check.problem.c_str());
        return false;
    }
    std::string files;
    for (const auto &[name, file] : names) {
        files += (files.empty() ? "" : ", ") + file;
        record_failure(dir + "/" + file, "refused: its " + which + " is " + check.problem +
                                             ", so another user could have put it there; " + kTrustHint,
                       false);
    }
    if (params.show_load_errors)
        say_once("%s refused: it is %s, so another user could put a component there; not loaded: %s "
                 "(mca_component_trust=any loads them anyway)", which.c_str(), check.problem.c_str(), files.c_str());
    return true;
}

void discover(const std::string &path_list)
{
    std::vector<std::string> notes;
    for (const std::string &dir : unique_directories(path_list, notes)) {
        // A missing directory never stops the search; one the user named is said
        // (a typo there leaves every component out), the default ones are optional.
        const bool named = path_list != OPF_COMPONENT_PATH_DEFAULT;
        if (!is_directory(dir)) {
            if (named) warn("mca_component_path names %s, which is not a directory: no component is loaded from it",
                            dir.c_str());
            else verbose(1, "component directory %s does not exist; skipped", dir.c_str());
            continue;
        }
        DIR *d = opendir(dir.c_str());
        if (!d) {
            warn("mca_component_path: component directory %s cannot be read (%s); skipped", dir.c_str(),
                 std::strerror(errno));
            continue;
        }
        std::map<std::string, std::string> names;   // name -> a file of it: sorted, .so/.la of one component once
        while (dirent *e = readdir(d))
            if (std::string name = component_name_of(e->d_name); !name.empty())
                if (auto [at, added] = names.emplace(name, e->d_name); !added && at->second.ends_with(".la"))
                    at->second = e->d_name;   // the .so names it in the lists
        closedir(d);
        if (refuse_directory(dir, names)) continue;
        for (const auto &name : names) load_file(dir, name.first);
    }
    for (const std::string &note : notes) verbose(1, "%s", note.c_str());
}

// ---- the `op` include / exclude list ------------------------------------

int apply_op_list(const std::string &list)
{
    ComponentList parsed;
    std::string why;
    if (!parse_component_list(list, parsed, why))
        return fail(OPF_ERR_ARG, "parameter op=\"%s\": %s", list.c_str(), why.c_str());
    if (list.empty()) {
        for (ComponentRecord &c : repo.components) c.state = ComponentState::Available;
        return OPF_SUCCESS;
    }
    const bool exclude = parsed.exclude;
    const std::vector<std::string> &names = parsed.names;
    std::set<std::string> known = {"base"};
    for (const ComponentRecord &c : repo.components) known.insert(c.name);
    for (const std::string &n : names) {
        if (!known.count(n))
            return fail(OPF_ERR_ARG, "parameter op=\"%s\": unknown component \"%s\" (found: %s)", list.c_str(), n.c_str(),
                        [&] {
                            std::string all;
                            for (const std::string &k : known) all += (all.empty() ? "" : ", ") + k;
                            return all;
                        }().c_str());
    }
    if (exclude && std::find(names.begin(), names.end(), "base") != names.end())
        return fail(OPF_ERR_ARG, "parameter op=\"%s\": the base cannot be excluded", list.c_str());
    for (ComponentRecord &c : repo.components) {
        const bool listed = std::find(names.begin(), names.end(), c.name) != names.end();
        if (listed == exclude) {
            c.state = ComponentState::Excluded;
            c.status_text = "excluded by op=" + list;
        } else {
            c.state = ComponentState::Available;   // provisionally: open and init_query decide
        }
    }
    return OPF_SUCCESS;
}

// ---- life cycle of each selected component ---------------------------------

void open_and_query(int index)
{
    ComponentRecord &c = repo.components[std::size_t(index)];
    const opf_component_t &comp = *c.component;
    repo.calling = index;
    registering_component = c.name;
    struct Done {   // a component that did not become available serves no memory kind
        int index;
        ~Done()
        {
            repo.calling = -1;
            registering_component.clear();
            if (repo.components[std::size_t(index)].state == ComponentState::Available) return;
            while (!repo.memory_kinds.empty() && repo.memory_kinds.back().component == index)
                repo.memory_kinds.pop_back();
        }
    } done{index};
    if (comp.register_params && comp.register_params() != 0) {
        c.state = ComponentState::OpenFailed;
        c.status_text = "failed: register_params returned an error";
        return;
    }
    if (comp.open && comp.open() != 0) {
        c.state = ComponentState::OpenFailed;
        c.status_text = "failed: open returned an error";
        return;
    }
    c.opened = true;
    char reason[256] = "";
    if (comp.init_query(&repo.hw, reason, sizeof reason) != 0) {
        c.state = ComponentState::Disqualified;
        reason[sizeof reason - 1] = '\0';   // the component may have filled it without a NUL
        c.reason = reason[0] ? reason : "init_query declined without a reason";
        c.status_text = "disqualified: " + c.reason;
        verbose(1, "component %s disqualified: %s", c.name.c_str(), c.reason.c_str());
        return;
    }
    c.state = ComponentState::Available;
    c.status_text = "available";
}

// ---- pins: op_base_pin=sum:float=avx2,max:int=example ------------------------

// Warns about each item that cannot pin (params.h: parse_pins) and about a
// provider that is neither the base nor a component found on the path.
void apply_pins(const std::string &text)
{
    repo.pins.clear();
    std::vector<std::string> problems;
    for (const Pin &pin : opf::parse_pins(text, problems)) {
        const bool known = pin.provider == "base" ||
                           std::any_of(repo.components.begin(), repo.components.end(),
                                       [&](const ComponentRecord &c) { return c.name == pin.provider; });
        if (!known) {
            warn("op_base_pin: ignoring the pin of %s %s to \"%s\": no such component (not found on "
                 "mca_component_path)", base::op_name(pin.op), base::kernel_type_name(pin.kernel_type),
                 pin.provider.c_str());
            continue;
        }
        if (pin.band.empty()) {
            repo.pins[{pin.op, pin.kernel_type}] = pin.provider;
            continue;
        }
        // Bytes per buffer to counts: the whole elements inside the range.
        const opf_count_t extent = base::kernel_type_extent(pin.kernel_type);
        const opf_count_t from = (pin.min_bytes + extent - 1) / extent;
        const opf_count_t to = pin.max_bytes < 0 ? -1 : pin.max_bytes / extent;
        if (to >= 0 && (to < from || to == 0)) {
            warn("op_base_pin: ignoring the pin of %s %s bytes %s to \"%s\": the range holds no whole %s element "
                 "(%lld bytes)", base::op_name(pin.op), base::kernel_type_name(pin.kernel_type), pin.band.c_str(),
                 pin.provider.c_str(), base::kernel_type_name(pin.kernel_type), (long long)extent);
            continue;
        }
        repo.band_pins[{pin.op, pin.kernel_type}].push_back({from, to, pin.provider, pin.band});
    }
    for (const std::string &problem : problems) warn("op_base_pin: ignoring %s", problem.c_str());
}

// op_base_pin as in force: the highest source's pins and, when that is not a
// tuning file, the accepted tuning file's pins of every slot the user's
// value leaves alone (a user's pin wins per slot, not for the whole list).
// Each slot whose tuning pin the user's replaces is noted for --explain and
// said once.
std::string pins_in_force()
{
    const std::vector<SourcedValue> layers = param_layers("op_base_pin");
    const auto tuning = std::find_if(layers.begin(), layers.end(), [](const SourcedValue &v) { return v.tuning; });
    repo.pin_overrides.clear();
    if (layers.empty() || layers.front().tuning || tuning == layers.end()) return params.pin;
    std::set<std::pair<int, int>> user_slots;
    std::vector<std::string> ignored;   // the user's value's problems are said by apply_pins
    for (const Pin &pin : parse_pins(params.pin, ignored)) user_slots.insert({pin.op, pin.kernel_type});
    std::string merged = params.pin, replaced;
    int kept = 0;
    for (std::size_t at = 0; at <= tuning->text.size();) {   // item by item, so each keeps its own text
        const std::size_t comma = std::min(tuning->text.find(',', at), tuning->text.size());
        const std::string item = tuning->text.substr(at, comma - at);
        at = comma + 1;
        const std::vector<Pin> one = parse_pins(item, ignored);
        if (one.empty()) continue;
        if (!user_slots.count({one[0].op, one[0].kernel_type})) {
            merged += (merged.empty() ? "" : ",") + item;
            ++kept;
            continue;
        }
        const std::string slot = std::string(base::op_name(one[0].op)) + " " + base::kernel_type_name(one[0].kernel_type);
        if (repo.pin_overrides.emplace(std::make_pair(one[0].op, one[0].kernel_type), layers.front().origin).second)
            replaced += (replaced.empty() ? "" : ", ") + slot;
    }
    if (!replaced.empty())
        say_once("op_base_pin from %s replaces the tuning file's pins of %s (%s); the file's other pins stay in force "
                 "(%d)", layers.front().origin.c_str(), replaced.c_str(), tuning->origin.c_str(), kept);
    return merged;
}

// ---- self-test --------------------------------------------------------------

// Tiers from this count on are self-tested with one length (see passes_selftest).
constexpr opf_count_t kLargeTier = opf_count_t(1) << 16;

// Random bytes, eight per step of a splitmix64 seeded by one draw of the
// caller's engine (a tier from 2^20 elements on is tested on megabytes: a
// draw per byte, then mt19937_64 per word, made op_base_selftest cost
// seconds per init).
void fill_random(std::vector<unsigned char> &bytes, std::mt19937_64 &rng)
{
    std::uint64_t state = rng();
    for (std::size_t i = 0; i < bytes.size(); i += 8) {
        state += 0x9e3779b97f4a7c15ULL;
        std::uint64_t word = state;
        word = (word ^ (word >> 30)) * 0xbf58476d1ce4e5b9ULL;
        word = (word ^ (word >> 27)) * 0x94d049bb133111ebULL;
        word ^= word >> 31;
        std::memcpy(bytes.data() + i, &word, std::min<std::size_t>(8, bytes.size() - i));
    }
}

// The self-test's buffers, kept from one candidate to the next: fresh
// megabyte vectors per call cost more in the kernel (mmap, munmap, zeroed
// pages) than the kernels under test cost.
struct SelftestBuffers {
    std::vector<unsigned char> a, b, expect, got, scalar;
    std::vector<std::vector<unsigned char>> ins, copies;   // n-ary: the k inputs, and the candidate's copy
};

// Runs a candidate against the base on random data; false on any difference.
// The counts below (and passes_selftest_n's) are mirrored by the conformance
// engine (test/conformance.cpp, add_selftest_lengths), whose quick form runs
// every one of them so that no kernel this drops passes opframe_check
// --quick: change both together.
bool passes_selftest(int op_id, int kt, const SlotCandidate &cand, int nbuf, std::mt19937_64 &rng, SelftestBuffers &s)
{
    const base::SlotKernels &ref = base::kernels(op_id, kt);
    const std::size_t ext = std::size_t(base::kernel_type_extent(kt));
    // Tiers from a huge min_count on are tested where their buffers fit in
    // memory. A large tier (a streaming one, from 64 Ki elements on) once,
    // with a ragged tail: four calls of megabytes per slot and form made an
    // init with the self-test take half a minute.
    constexpr opf_count_t kLargestFirst = opf_count_t(1) << 20;
    const opf_count_t first = std::clamp<opf_count_t>(cand.min_count, 1, kLargestFirst);
    const std::vector<opf_count_t> counts = first < kLargeTier ? std::vector<opf_count_t>{first, first + 1, first + 17, first + 1000}
                                                               : std::vector<opf_count_t>{first + 17};
    std::vector<unsigned char> &a = s.a, &b = s.b, &expect = s.expect, &got = s.got;
    for (opf_count_t n : counts) {
        a.resize(n * ext);
        b.resize(n * ext);
        fill_random(a, rng);
        fill_random(b, rng);
        if (nbuf == 2) {
            expect = b;
            got = b;
            ref.fn2(a.data(), expect.data(), n);
            cand.fn2(a.data(), got.data(), n);
        } else {
            expect.assign(n * ext, 0);
            got.assign(n * ext, 0);
            ref.fn3(a.data(), b.data(), expect.data(), n);
            cand.fn3(a.data(), b.data(), got.data(), n);
        }
        const opf_count_t bad = base::first_difference(kt, expect.data(), got.data(), n);
        if (bad >= 0) {
            warn("self-test: %s %s %s %d-buffer kernel of component %s differs from the base at element %lld of %lld; "
                 "dropped", base::op_name(op_id), base::kernel_type_name(kt), "host", nbuf,
                 repo.components[cand.component].name.c_str(), (long long)bad, (long long)n);
            return false;
        }
    }
    return true;
}

// An n-ary form against the base's: k = 1, 2, 3 and 5 inputs (the last two
// with out one of them; a large tier: k = 3), random data and scalar.
bool passes_selftest_n(int op_id, int kt, const SlotCandidate &cand, int form, std::mt19937_64 &rng,
                       SelftestBuffers &s)
{
    opf_kernel_n_fn *ref = base::nary_kernels(op_id, kt).fn[form], *fn = cand.*nary_field[form];
    const std::size_t ext = std::size_t(base::kernel_type_extent(kt));
    const opf_count_t n = std::clamp<opf_count_t>(cand.min_count, 1, opf_count_t(1) << 20) + 37;   // as passes_selftest
    std::vector<unsigned char> &scalar = s.scalar, &expect = s.expect, &got = s.got;
    scalar.resize(ext);
    fill_random(scalar, rng);
    const std::vector<int> ks = n < kLargeTier ? std::vector<int>{1, 2, 3, 5} : std::vector<int>{3};
    for (int k : ks) {
        std::vector<std::vector<unsigned char>> &a = s.ins, &b = s.copies;
        a.resize(std::size_t(k));
        for (auto &x : a) {
            x.resize(n * ext);
            fill_random(x, rng);
        }
        b = a;   // (element-wise: the inner buffers keep their capacity)
        std::vector<const void *> pa, pb;
        for (int j = 0; j < k; ++j) pa.push_back(a[std::size_t(j)].data()), pb.push_back(b[std::size_t(j)].data());
        expect.assign(n * ext, 0);
        got.assign(n * ext, 0);
        const bool in_place = k >= 3;   // out is the last input
        ref(pa.data(), k, in_place ? a.back().data() : expect.data(), n, scalar.data());
        fn(pb.data(), k, in_place ? b.back().data() : got.data(), n, scalar.data());
        const opf_count_t bad = in_place ? base::first_difference(kt, a.back().data(), b.back().data(), n)
                                         : base::first_difference(kt, expect.data(), got.data(), n);
        if (bad >= 0) {
            warn("self-test: %s %s host %s kernel (k = %d) of component %s differs from the base at element %lld of "
                 "%lld; dropped", base::op_name(op_id), base::kernel_type_name(kt), base::nary_form_name(form), k,
                 repo.components[cand.component].name.c_str(), (long long)bad, (long long)n);
            return false;
        }
    }
    return true;
}

void run_selftests()
{
    std::mt19937_64 rng(0x5eed0f0bULL);
    SelftestBuffers buffers;
    for (int op = 1; op < OPF_OPID_COUNT; ++op)
        for (int kt = 0; kt < OPF_KT_COUNT; ++kt)
            for (SlotCandidate &c : repo.offers[OPF_MEM_HOST]->candidates[op][kt]) {
                if (c.fn2) c.selftest_failed2 = !passes_selftest(op, kt, c, 2, rng, buffers);
                if (c.fn3) c.selftest_failed3 = !passes_selftest(op, kt, c, 3, rng, buffers);
                for (int f = 0; f < base::kNaryForms; ++f)
                    if (c.*nary_field[f] && base::nary_kernels(op, kt).fn[f])
                        c.*nary_failed[f] = !passes_selftest_n(op, kt, c, f, rng, buffers);
            }
}

// ---- selection ----------------------------------------------------------------

// Order of preference within a slot: pinned first, then priority, then name.
bool preferred(const SlotCandidate &a, const SlotCandidate &b, const std::string &pin)
{
    const bool pa = repo.components[a.component].name == pin, pb = repo.components[b.component].name == pin;
    if (pa != pb) return pa;
    if (a.priority != b.priority) return a.priority > b.priority;
    if (a.component != b.component) return repo.components[a.component].name < repo.components[b.component].name;
    // One component's size tiers at one priority: the larger tier first, so
    // that it serves its counts instead of being shadowed by the smaller one.
    return a.min_count > b.min_count;
}

std::string pin_of(int op, int kt)
{
    const auto it = repo.pins.find({op, kt});
    return it == repo.pins.end() ? "" : it->second;
}

// The candidates offering kernel `fn` for a slot (and not dropped by the
// self-test), best first.
template <class Fn>
std::vector<const SlotCandidate *> ranked(int op, int mem, int kt, Fn *SlotCandidate::*fn, bool SlotCandidate::*failed)
{
    const std::string pin = pin_of(op, kt);
    std::vector<const SlotCandidate *> list;
    if (pin == "base") return list;   // pinned to the base: no component serves it
    for (const SlotCandidate &c : repo.offers[std::size_t(mem)]->candidates[op][kt])
        if (c.*fn && !(c.*failed)) list.push_back(&c);
    // The pinned provider ranks first; if it offers nothing here, normal
    // selection decides.
    std::sort(list.begin(), list.end(), [&](auto *a, auto *b) { return preferred(*a, *b, pin); });
    if (!list.empty() && repo.components[list.front()->component].name == pin)
        list.erase(std::remove_if(list.begin() + 1, list.end(),
                                  [&](auto *c) { return repo.components[c->component].name != pin; }),
                   list.end());
    return list;
}

// A size-bounded pin laid over one half's selection: inside the band, each
// count goes to the pinned provider's offer for it (its own tiers: the
// largest min_count at or below the count), where it has one; every other
// count keeps the provider it had. `all_sizes` and `larger` (descending
// min_count) are rewritten as the pieces that result.
template <class Fn>
void apply_band(Offer<Fn> &all_sizes, std::vector<Offer<Fn>> &larger, const BandPin &band, int op, int mem, int kt,
                Fn *base_fn, Fn *SlotCandidate::*fn, bool SlotCandidate::*failed)
{
    std::vector<Offer<Fn>> pinned;   // the pinned provider's offers, ascending min_count
    if (band.provider == "base") {
        if (base_fn) pinned.push_back({base_fn, "base", 0, 0, nullptr});
    } else
        for (const SlotCandidate &c : repo.offers[std::size_t(mem)]->candidates[op][kt])
            if (repo.components[c.component].name == band.provider && c.*fn && !(c.*failed))
                pinned.push_back({c.*fn, repo.components[c.component].name.c_str(), c.min_count, c.min_count, nullptr});
    if (pinned.empty()) return;   // it offers nothing here: the selection stands
    std::sort(pinned.begin(), pinned.end(), [](auto &a, auto &b) { return a.min_count < b.min_count; });
    std::vector<Offer<Fn>> before{all_sizes};   // ascending
    before.insert(before.end(), larger.rbegin(), larger.rend());
    auto at = [](const std::vector<Offer<Fn>> &asc, opf_count_t n) -> const Offer<Fn> * {
        const Offer<Fn> *found = nullptr;
        for (const Offer<Fn> &o : asc)
            if (o.min_count <= n) found = &o;
        return found;
    };
    std::vector<opf_count_t> starts{0, band.from};
    if (band.to >= 0) starts.push_back(band.to + 1);
    for (const auto &o : before) starts.push_back(o.min_count);
    for (const auto &o : pinned) starts.push_back(std::max(o.min_count, band.from));
    std::sort(starts.begin(), starts.end());
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
    std::vector<Offer<Fn>> after;   // ascending
    bool used = false;
    for (const opf_count_t n : starts) {
        const bool inside = n >= band.from && (band.to < 0 || n <= band.to);
        const Offer<Fn> *p = inside ? at(pinned, n) : nullptr;
        Offer<Fn> piece = p ? *p : *at(before, n);
        if (p) piece.pinned = band.band.c_str();
        used |= p != nullptr;
        piece.min_count = n;
        if (!after.empty() && after.back().fn == piece.fn && after.back().pinned == piece.pinned &&
            after.back().offered_from == piece.offered_from)
            continue;   // the same offer goes on
        after.push_back(piece);
    }
    if (used && band.provider != "base")
        for (const SlotCandidate &c : repo.offers[std::size_t(mem)]->candidates[op][kt])
            if (repo.components[c.component].name == band.provider) {
                c.module->references++;
                break;
            }
    all_sizes = after.front();
    larger.assign(after.rbegin(), after.rend() - 1);
}

// Installs the winners of one half: the best all-sizes offer (or the base),
// and above it every better-ranked offer that serves only large counts.
template <class Fn>
void install(SlotHalf<Fn> &half, std::vector<Offer<Fn>> &larger, int op, int mem, int kt, Fn *base_fn,
             Fn *SlotCandidate::*fn, bool SlotCandidate::*failed)
{
    half = {{base_fn, base_fn ? "base" : nullptr, 0}, nullptr, 0};
    larger.clear();
    for (const SlotCandidate *c : ranked(op, mem, kt, fn, failed)) {
        if (c->min_count == 0) {
            half.offer = {c->*fn, repo.components[c->component].name.c_str(), 0, 0, nullptr};
            c->module->references++;
            break;
        }
        const bool shadowed = std::any_of(larger.begin(), larger.end(), [&](auto &o) { return o.min_count <= c->min_count; });
        if (shadowed) continue;   // a better offer already serves these counts
        larger.push_back({c->*fn, repo.components[c->component].name.c_str(), c->min_count, c->min_count, nullptr});
        c->module->references++;
    }
    std::sort(larger.begin(), larger.end(), [](auto &a, auto &b) { return a.min_count > b.min_count; });
    if (const auto bands = repo.band_pins.find({op, kt}); bands != repo.band_pins.end())
        for (const BandPin &band : bands->second) apply_band(half.offer, larger, band, op, mem, kt, base_fn, fn, failed);
    half.larger = larger.empty() ? nullptr : larger.data();
    half.n_larger = int(larger.size());
}

// The plain n-ary form of a chain op (base::nary_is_chain: its result is the
// left-to-right chain of 3-buffer calls) follows the 3-buffer half, so that
// pins, size-bounded pins, tuning and priorities reach opf_reduce_local_n as
// they reach opf_reduce_local3: at each count the 3-buffer provider serves,
// with its own n-ary kernel for that count (its largest n-ary min_count at
// or below it) or, offering none, with its 3-buffer kernel composed
// (chains_three; `fn` stays the base's for calls that cannot compose).
void install_chain(SlotHalf<opf_kernel_n_fn> &half, std::vector<Offer<opf_kernel_n_fn>> &larger,
                   const SlotHalf<opf_kernel3_fn> &three, int op, int kt, opf_kernel_n_fn *base_fn)
{
    std::vector<const Offer<opf_kernel3_fn> *> pieces{&three.offer};   // ascending counts
    for (int i = three.n_larger - 1; i >= 0; --i) pieces.push_back(&three.larger[i]);
    std::vector<Offer<opf_kernel_n_fn>> after;   // ascending
    auto append = [&](Offer<opf_kernel_n_fn> piece) {
        if (!after.empty() && after.back().fn == piece.fn && after.back().provider == piece.provider &&
            after.back().chains_three == piece.chains_three && after.back().pinned == piece.pinned)
            return;   // the same kernel goes on
        after.push_back(piece);
    };
    for (std::size_t p = 0; p < pieces.size(); ++p) {
        const Offer<opf_kernel3_fn> &t = *pieces[p];
        const opf_count_t from = p == 0 ? 0 : t.min_count, to = p + 1 < pieces.size() ? pieces[p + 1]->min_count : -1;
        if (std::strcmp(t.provider, "base") == 0) {
            append({base_fn, "base", from, from, t.pinned});
            continue;
        }
        std::vector<const SlotCandidate *> own;   // the provider's n-ary offers, ascending min_count
        for (const SlotCandidate &c : repo.offers[OPF_MEM_HOST]->candidates[op][kt])
            if (repo.components[c.component].name == t.provider && c.fn_n && !c.failed_n) own.push_back(&c);
        std::sort(own.begin(), own.end(), [](auto *a, auto *b) { return a->min_count < b->min_count; });
        std::vector<opf_count_t> starts{from};
        for (const SlotCandidate *c : own)
            if (c->min_count > from && (to < 0 || c->min_count < to)) starts.push_back(c->min_count);
        for (const opf_count_t n : starts) {
            const SlotCandidate *best = nullptr;
            for (const SlotCandidate *c : own)
                if (c->min_count <= n) best = c;
            if (best) {
                best->module->references++;
                append({best->fn_n, t.provider, n, best->min_count, t.pinned});
            } else {
                Offer<opf_kernel_n_fn> chain{base_fn, t.provider, n, t.offered_from, t.pinned};
                chain.chains_three = true;
                append(chain);
            }
        }
    }
    half.offer = after.front();
    half.offer.min_count = 0;
    larger.assign(after.rbegin(), after.rend() - 1);
    half.larger = larger.empty() ? nullptr : larger.data();
    half.n_larger = int(larger.size());
}

void select_all()
{
    using C = SlotCandidate;
    device_tables.assign(repo.memory_kinds.size(), {});
    for (int op = 1; op < OPF_OPID_COUNT; ++op)
        for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
            const base::SlotKernels &base_kernels = base::kernels(op, kt);
            if (!base_kernels.fn2) continue;   // not a slot
            Tiers &host_tiers = repo.offers[OPF_MEM_HOST]->tiers[op][kt];
            HostSlot &h = host_table.slot[op][kt];
            install(h.two, host_tiers.two, op, OPF_MEM_HOST, kt, base_kernels.fn2, &C::fn2, &C::selftest_failed2);
            install(h.three, host_tiers.three, op, OPF_MEM_HOST, kt, base_kernels.fn3, &C::fn3, &C::selftest_failed3);
            for (int f = 0; f < base::kNaryForms; ++f) {   // a form the base lacks here is no slot: its offers are ignored
                opf_kernel_n_fn *base_fn = base::nary_kernels(op, kt).fn[f];
                if (!base_fn) continue;
                if (f == base::kN && base::nary_is_chain(op, kt))
                    install_chain(h.nary[f], host_tiers.nary[f], h.three, op, kt, base_fn);
                else install(h.nary[f], host_tiers.nary[f], op, OPF_MEM_HOST, kt, base_fn, nary_field[f], nary_failed[f]);
            }
            for (int mem = 1; mem < memory_kind_count(); ++mem) {
                Tiers &t = repo.offers[std::size_t(mem)]->tiers[op][kt];
                DeviceSlot &d = device_tables[std::size_t(mem - 1)].slot[op][kt];
                install<opf_device_kernel2_fn>(d.two, t.device2, op, mem, kt, nullptr, &C::device2, &C::never_failed);
                install<opf_device_kernel3_fn>(d.three, t.device3, op, mem, kt, nullptr, &C::device3, &C::never_failed);
                install<opf_stream_kernel2_fn>(d.stream2, t.stream2, op, mem, kt, nullptr, &C::stream2, &C::never_failed);
                install<opf_stream_kernel3_fn>(d.stream3, t.stream3, op, mem, kt, nullptr, &C::stream3, &C::never_failed);
                for (int f : {base::kN, base::kNOnce})   // as on the host: a form the base lacks is no slot
                    if (base::nary_kernels(op, kt).fn[f]) {
                        install<opf_device_kernel_n_fn>(d.nary[f], t.device_n[f], op, mem, kt, nullptr,
                                                        device_n_field[f], &C::never_failed);
                        install<opf_stream_kernel_n_fn>(d.stream_nary[f], t.stream_n[f], op, mem, kt, nullptr,
                                                        stream_n_field[f], &C::never_failed);
                    }
            }
            if (params.verbose >= 5)
                for (int mem = 0; mem < memory_kind_count(); ++mem)
                    if (!repo.offers[std::size_t(mem)]->candidates[op][kt].empty())
                        for (int nbuf : {2, 3}) verbose(5, "%s", explain_slot(op, mem, kt, nbuf).c_str());
        }
}

// ---- module intake: op_query and opf_module_offer ---------------------------------

// Why an offer cannot be taken, or "" when it can.
std::string offer_problem(const ModuleRecord &m, const opf_offer_t &o)
{
    if (o.struct_size < OPF_OFFER_SIZE_V2)
        return "struct_size " + std::to_string(o.struct_size) + " is smaller than an ABI-2 offer (" +
               std::to_string(OPF_OFFER_SIZE_V2) + " bytes): set it to sizeof(opf_offer_t)";
    if (o.kernel_type < 0 || o.kernel_type >= OPF_KT_COUNT)
        return "kernel type " + std::to_string(o.kernel_type) + " is unknown to this framework (it knows 0.." +
               std::to_string(OPF_KT_COUNT - 1) + ")";
    const bool host = o.memory_kind == OPF_MEM_HOST;
    if (!host && (o.memory_kind < 0 || o.memory_kind >= memory_kind_count() ||
                  repo.memory_kinds[std::size_t(o.memory_kind - 1)].component != m.component))
        return "memory kind " + std::to_string(o.memory_kind) + " is neither host memory nor one this component registered";
    if (o.min_count < 0) return "min_count " + std::to_string(o.min_count) + " is negative";
    if (!host && (o.kernel_n || o.kernel_n_once || o.premul_n || o.premul_n_once))
        return "n-ary kernels offered on device memory kind \"" + std::string(memory_kind_name(o.memory_kind)) +
               "\" (n-ary kernels serve host memory)";
    if ((o.premul_n || o.premul_n_once) && m.module.op_id != OPF_OPID_SUM)
        return "PreMulSum kernels offered in the module of an op other than SUM";
    const bool device_n = o.device_n || o.device_n_once || o.stream_n || o.stream_n_once;
    if (host && (o.device2 || o.device3 || o.stream2 || o.stream3 || device_n))
        return "device or stream kernels offered on host memory (host memory takes kernel2 / kernel3 / kernel_n)";
    if (!host && (o.kernel2 || o.kernel3))
        return "host kernels offered on device memory kind \"" + std::string(memory_kind_name(o.memory_kind)) +
               "\" (device memory takes device2 / device3 / stream2 / stream3: kernels that return an OPF_* code)";
    if (!(o.kernel2 || o.kernel3 || o.device2 || o.device3 || o.stream2 || o.stream3 || o.kernel_n || o.kernel_n_once ||
          o.premul_n || o.premul_n_once || device_n))
        return "no kernel in the offer";
    return "";
}

void query_modules()
{
    for (int op = 1; op < OPF_OPID_COUNT; ++op)
        for (std::size_t ci = 0; ci < repo.components.size(); ++ci) {
            ComponentRecord &c = repo.components[ci];
            if (c.state != ComponentState::Available) continue;
            auto m = std::make_unique<ModuleRecord>();
            m->component = int(ci);
            m->module.op_id = op;
            repo.querying = m.get();
            repo.pending.clear();
            const int declined = c.component->op_query(op, &m->module);
            repo.querying = nullptr;
            if (declined) continue;   // its offers go with it
            c.offers_kept += int(repo.pending.size());
            for (auto &p : repo.pending) {
                p.offer.module = m.get();
                repo.offers[std::size_t(p.memory_kind)]->candidates[op][p.kernel_type].push_back(p.offer);
            }
            repo.modules.push_back(std::move(m));
        }
    repo.pending.clear();
    for (ComponentRecord &c : repo.components) {
        if (c.state == ComponentState::Available && c.offers_refused == 0 && c.offers_kept == 0)
            say_once("component %s: available, but it offered no kernel: it serves nothing", c.name.c_str());
        if (c.state != ComponentState::Available || c.offers_refused == 0) continue;
        const std::string count = std::to_string(c.offers_refused) + " of its " +
                                  std::to_string(c.offers_refused + c.offers_kept) + " offers";
        say_once("component %s: %s", c.name.c_str(),
                 (c.offers_kept > 0 ? count + " refused (op_base_verbose=1 lists each), the first: " + c.first_refusal
                                    : "serves nothing: all " + count + " were refused, the first: " + c.first_refusal)
                     .c_str());
        const std::string refused = std::to_string(c.offers_refused) + " offer" + (c.offers_refused > 1 ? "s" : "") +
                                    " refused, the first: " + c.first_refusal;
        if (c.offers_kept > 0) {
            c.status_text = "available (" + refused + ")";
            continue;
        }
        c.state = ComponentState::OpenFailed;   // serves nothing: never listed "available"
        c.reason = "every offer was refused (" + refused + ")";
        c.status_text = "failed: " + c.reason;
    }
}

void enable_modules()
{
    for (auto &m : repo.modules) {
        const opf_component_t &comp = *repo.components[m->component].component;
        if (m->references > 0) {
            if (comp.module_enable) comp.module_enable(&m->module);
        } else if (comp.module_release) {
            comp.module_release(&m->module);   // won nothing: released at once
        }
    }
}

void reset()
{
    repo.offers.clear();
    repo.offers.push_back(std::make_unique<KindOffers>());   // host memory
    repo.memory_kinds.clear();
    repo.modules.clear();
    repo.components.clear();
    repo.failed.clear();
    repo.pins.clear();
    repo.band_pins.clear();
    repo.pin_overrides.clear();
    repo.told_kind_limit = -1;
    clear_component_devices();
    have_memory_claims = false;
}

void unload_all()
{
    for (auto &m : repo.modules) {
        const opf_component_t &comp = *repo.components[m->component].component;
        if (m->references > 0 && comp.module_release) comp.module_release(&m->module);
        m->references = 0;
    }
    repo.modules.clear();
    for (auto it = repo.components.rbegin(); it != repo.components.rend(); ++it) {
        if (it->opened && it->component->close) it->component->close();
        if (it->handle) lt_dlclose(static_cast<lt_dlhandle>(it->handle));
    }
    reset();
    if (repo.ltdl_up) lt_dlexit();
    repo.ltdl_up = false;
}

// The component loaded from the file holding address `at_address` (code or
// data of its own object); nullptr for another file, or for libopframe,
// which all linked-in components share.
const ComponentRecord *component_at(const void *at_address)
{
    Dl_info at{}, own{};
    if (!dladdr(at_address, &at)) return nullptr;
    const ComponentRecord *found = nullptr;
    for (const ComponentRecord &c : repo.components)
        if (dladdr(c.component, &own) && own.dli_fbase == at.dli_fbase) {
            if (found) return nullptr;   // linked-in components share libopframe's file
            found = &c;
        }
    return found;
}

} // namespace

const std::vector<ComponentRecord> &components() { return repo.components; }

std::string component_state(const std::string &name)
{
    for (const ComponentRecord &c : repo.components)
        if (c.name == name)
            switch (c.state) {
            case ComponentState::Available: return "in use";
            case ComponentState::Excluded: return "is " + c.status_text;
            case ComponentState::OpenFailed: return "is not in use (" + c.status_text + ")";
            case ComponentState::Disqualified: return "is " + c.status_text;
            }
    for (const FailedFile &f : repo.failed) {
        const std::size_t slash = f.path.rfind('/');
        if (component_name_of(f.path.substr(slash == std::string::npos ? 0 : slash + 1)) == name)
            return "failed to load from " + f.path + " (" + f.reason + ")";
    }
    return "";
}
const std::vector<FailedFile> &failed_files() { return repo.failed; }
const std::vector<MemoryKind> &memory_kinds() { return repo.memory_kinds; }
const char *memory_kind_name(int mem)
{
    if (mem == OPF_MEM_HOST) return "host";
    return mem > 0 && mem < memory_kind_count() ? repo.memory_kinds[std::size_t(mem - 1)].name.c_str() : nullptr;
}
const std::vector<SlotCandidate> &slot_candidates(int op, int mem, int kt)
{
    return repo.offers[std::size_t(mem)]->candidates[op][kt];
}
const opf_hw_info_t &hardware() { return repo.hw; }

std::string explain_slot(int op, int mem, int kt, int nbuf, bool stream)
{
    std::string out = std::string(base::op_name(op)) + " " + base::kernel_type_name(kt) + " " + memory_kind_name(mem) +
                      " " + std::to_string(nbuf) + "-buffer" + (stream ? " stream" : "") + ":";
    const std::string pin = pin_of(op, kt);
    std::vector<const SlotCandidate *> all;
    for (const SlotCandidate &c : slot_candidates(op, mem, kt)) all.push_back(&c);
    std::sort(all.begin(), all.end(), [&](auto *a, auto *b) { return preferred(*a, *b, pin); });
    // Who serves which counts, as every listing says it (introspect.cpp).
    const std::vector<TierSpan> spans = slot_spans(op, mem, kt, nbuf, stream);
    const char *winner = spans.front().provider;   // the provider of the smallest counts
    for (const SlotCandidate *c : all) {
        const std::string &name = repo.components[c->component].name;
        const bool has_stream = nbuf == 2 ? c->stream2 != nullptr : c->stream3 != nullptr;
        const bool failed = !stream && (nbuf == 2 ? c->selftest_failed2 : c->selftest_failed3);
        const std::string served = counts_served(spans, name, c->min_count);
        out += "\n  " + name + " priority " + std::to_string(c->priority);
        if (c->min_count) out += ", counts >= " + std::to_string(c->min_count);
        if (stream && !has_stream)
            out += ": offers no " + std::to_string(nbuf) + "-buffer stream kernel";
        else if (!stream && !c->offers(nbuf))
            out += has_stream ? ": a stream kernel only (opf_reduce_local_stream)"
                              : ": offers no " + std::to_string(nbuf) + "-buffer kernel";
        else if (failed) out += ": self-test FAILED, dropped";
        else if (!served.empty())
            out += ": SELECTED" + std::string(name == pin ? " (pinned by op_base_pin)" : "") + ", serves " + served;
        else if (pin == "base" || (!pin.empty() && pin != name && counts_served(spans, pin) != ""))
            out += ": not the pinned provider (" + pin + "), serves no count";
        else {
            int best_priority = INT_MIN;   // of the providers that serve its counts
            for (const SlotCandidate *w : all)
                if (w != c && w->min_count <= std::max<opf_count_t>(c->min_count, 0) &&
                    !counts_served(spans, repo.components[w->component].name).empty())
                    best_priority = std::max(best_priority, w->priority);
            out += c->priority == best_priority ? ": outranked (tie on priority, broken by name), serves no count"
                                                : ": outranked, serves no count";
        }
    }
    if (mem == OPF_MEM_HOST && !stream) {   // the base computes host memory only
        const std::string served = counts_served(spans, "base");
        out += "\n  base (default): " + std::string(served.empty() ? "serves no count" : "SELECTED") +
               (!served.empty() && all.empty() ? " (no component offers this slot)" : "") +
               (!served.empty() && pin == "base" ? " (pinned by op_base_pin)" : "") +
               (served.empty() ? "" : ", serves " + served);
    }
    if (mem == OPF_MEM_HOST && !stream) {   // what a tuning file (opframe_tune) measured for this slot
        std::string key = std::string(base::op_name(op)) + "_" + base::kernel_type_name(kt);
        std::transform(key.begin(), key.end(), key.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
        for (const TuningInfo &t : tuning_in_force()) {
            const auto note = t.notes.find(key);
            out += "\n  measured " + t.date + " on " + t.cpu + ": " +
                   (note != t.notes.end() ? note->second : "no note for this slot (the priorities stand)") + " (" +
                   t.path + ")";
            if (const auto o = repo.pin_overrides.find({op, kt}); o != repo.pin_overrides.end())
                out += "\n  the tuning file's pin of this slot is replaced by op_base_pin from " + o->second;
            if (!t.aftereffect.empty()) out += "\n  after-effect per ISA, measured then: " + t.aftereffect;
        }
    }
    if (mem != OPF_MEM_HOST && !stream) {
        const std::string text = spans_text(slot_spans(op, mem, kt, nbuf, true));
        if (text != "none") out += "\n  stream calls: " + text;
    }
    if (!winner && spans.size() == 1) out += "\n  (no kernel: this memory kind is not served by synchronous calls)";
    return out;
}

int memory_kind_of(const void *ptr)
{
    if (surely_host(ptr)) return OPF_MEM_HOST;
    for (std::size_t k = 0; k < repo.memory_kinds.size(); ++k)
        if (repo.memory_kinds[k].claim && repo.memory_kinds[k].claim(ptr)) return int(k) + 1;
    return OPF_MEM_HOST;
}

bool none_claimed(const void *const *ptrs, int n)
{
    for (; n > 16; ptrs += 16, n -= 16)
        if (!none_claimed(ptrs, 16)) return false;
    const void *asked[16];   // the buffers host_memory.h cannot vouch for: only they are asked about
    int m = 0;
    for (int i = 0; i < n; ++i)
        if (!surely_host(ptrs[i])) asked[m++] = ptrs[i];
    return m == 0 || none_claims(asked, m);
}

bool none_claims(const void *const *asked, int m)
{
    const uint64_t asked_at = mapping_stamp();   // before the hooks answer (host_memory.h)
    for (const MemoryKind &kind : repo.memory_kinds) {
        if (kind.claims) {
            if (kind.claims(asked, m)) return false;
        } else if (kind.claim) {
            for (int i = 0; i < m; ++i)
                if (kind.claim(asked[i])) return false;
        }
    }
    if (asked_at) remember_host(asked, m, asked_at);
    return true;
}

// The tuning files (params.h) apply when they were measured on this CPU,
// ISA set and these component versions; opframe_tune writes the same three
// texts from the public introspection calls.
void apply_tuning_files()
{
    char isa[512] = "";
    if (repo.hw.arm_features) format_arm_features(repo.hw.arm_features, isa, sizeof isa);
    else format_x86_features(repo.hw.x86_features, isa, sizeof isa);
    std::vector<std::string> names;
    for (const ComponentRecord &c : repo.components)
        names.push_back(c.name + " " + std::to_string(c.component->version[0]) + "." +
                        std::to_string(c.component->version[1]) + "." + std::to_string(c.component->version[2]));
    std::sort(names.begin(), names.end());
    std::string versions = "opframe " PACKAGE_VERSION;
    for (const std::string &n : names) versions += "; " + n;
    apply_tuning(repo.hw.cpu_model, isa, versions);
}

void memory_kinds_of(const void *const *ptrs, int n, int *kinds)
{
    for (; n > 16; ptrs += 16, kinds += 16, n -= 16) memory_kinds_of(ptrs, 16, kinds);
    unsigned open = 0;   // buffers no kind claimed yet, host_memory.h's aside
    for (int i = 0; i < n; ++i) {
        kinds[i] = OPF_MEM_HOST;
        if (!surely_host(ptrs[i])) open |= 1u << i;
    }
    for (std::size_t k = 0; k < repo.memory_kinds.size() && open; ++k) {
        const MemoryKind &kind = repo.memory_kinds[k];
        unsigned claimed = 0;
        if (kind.claims) {
            const void *asked[16];
            int index[16], m = 0;
            for (int i = 0; i < n; ++i)
                if (open >> i & 1) asked[m] = ptrs[i], index[m++] = i;
            const unsigned bits = kind.claims(asked, m);
            for (int j = 0; j < m; ++j) claimed |= (bits >> j & 1u) << index[j];
        } else if (kind.claim) {
            for (int i = 0; i < n; ++i)
                if ((open >> i & 1) && kind.claim(ptrs[i])) claimed |= 1u << i;
        }
        for (int i = 0; i < n; ++i)
            if (claimed >> i & 1) kinds[i] = int(k) + 1;
        open &= ~claimed;
    }
}

// After selection: every pin that serves no count is said, with the reason
// (opframe.h: a pin that cannot apply is warned about and ignored). A pin
// serves where the selected host table shows its provider (a whole-slot pin)
// or its band (a size-bounded one) in the 2- or 3-buffer half.
void say_unapplied_pins()
{
    auto slot_name = [](int op, int kt) { return std::string(base::op_name(op)) + " " + base::kernel_type_name(kt); };
    auto serves = [](int op, int kt, auto &&is_ours) {
        for (int nbuf : {2, 3})
            for (const TierSpan &t : slot_spans(op, OPF_MEM_HOST, kt, nbuf, false))
                if (is_ours(t)) return true;
        return false;
    };
    // Why `provider` serves nothing in the slot.
    auto why = [&](const std::string &provider, int op, int kt) -> std::string {
        const std::string state = component_state(provider);
        if (state != "in use") return "component " + provider + " " + state;
        bool offered = false, failed = false;
        opf_count_t from = -1;
        for (const SlotCandidate &c : slot_candidates(op, OPF_MEM_HOST, kt))
            if (repo.components[c.component].name == provider && (c.fn2 || c.fn3)) {
                offered = true;
                failed |= c.selftest_failed2 || c.selftest_failed3;
                from = from < 0 ? c.min_count : std::min(from, c.min_count);
            }
        if (!offered) return provider + " offers no host kernel for " + slot_name(op, kt);
        if (failed) return provider + "'s kernel failed the self-test";
        return provider + " serves counts >= " + std::to_string(from) + " only";
    };
    for (const auto &pinned : repo.pins) {   // (no structured binding: clang 14 cannot capture one)
        const auto [op, kt] = pinned.first;
        const std::string &provider = pinned.second;
        if (provider == "base" ||
            serves(op, kt, [&](const TierSpan &t) { return t.provider && provider == t.provider; }))
            continue;
        say_once("op_base_pin: the pin of %s to \"%s\" does not apply: %s; the slot keeps %s", slot_name(op, kt).c_str(),
             provider.c_str(), why(provider, op, kt).c_str(),
             spans_text(slot_spans(op, OPF_MEM_HOST, kt, 2, false)).c_str());
    }
    for (const auto &[slot, bands] : repo.band_pins) {
        const auto [op, kt] = slot;
        for (const BandPin &b : bands)
            if (!serves(op, kt, [&](const TierSpan &t) { return t.pinned && b.band == t.pinned; }))
                say_once("op_base_pin: the pin of %s bytes %s to \"%s\" does not apply: %s; the slot keeps %s",
                     slot_name(op, kt).c_str(), b.band.c_str(), b.provider.c_str(),
                     (b.provider == "base" ? std::string("the base serves no count there")
                                           : why(b.provider, op, kt)).c_str(),
                     spans_text(slot_spans(op, OPF_MEM_HOST, kt, 2, false)).c_str());
    }
}

int components_init()
{
    reset();
    probe_hardware(&repo.hw);
    add_linked_in();
    if (lt_dlinit() != 0) {
        warn("libltdl failed to initialise (%s); no components will be loaded", lt_dlerror());
    } else {
        repo.ltdl_up = true;
        discover(params.component_path);
    }
    if (int rc = apply_op_list(params.op_list)) {
        unload_all();
        return rc;
    }
    for (std::size_t i = 0; i < repo.components.size(); ++i)
        if (repo.components[i].state == ComponentState::Available) open_and_query(int(i));
    int claiming = 0;
    const uint64_t *mapping_count = nullptr;   // the claiming kind's, where it is the only one
    for (const MemoryKind &k : repo.memory_kinds) {
        repo.offers.push_back(std::make_unique<KindOffers>());
        if (!k.claim) continue;
        ++claiming;
        mapping_count = k.mapping_count;
    }
    have_memory_claims = claiming > 0;
    note_host_ranges(have_memory_claims, claiming == 1 ? mapping_count : nullptr);   // before any hook is asked and the rows open
    apply_tuning_files();
    apply_pins(pins_in_force());
    query_modules();
    if (params.selftest) run_selftests();
    select_all();
    say_unapplied_pins();
    enable_modules();
    return OPF_SUCCESS;
}

void components_finalize()
{
    unload_all();
    load_base_table();
}

} // namespace opf

// ---- the calls components make (component.h) -------------------------------------

using namespace opf;

OPF_API int opf_module_offer(opf_module_t *module, const opf_offer_t *offer)
try {
    ModuleRecord *m = repo.querying;
    if (!m || module != &m->module || !offer) {
        warn("opf_module_offer: %s", !offer ? "offer is NULL" : "called outside op_query, or with another module");
        return OPF_ERR_ARG;
    }
    const ComponentRecord &c = repo.components[std::size_t(m->component)];
    const char *op = base::op_name(m->module.op_id);
    auto refuse = [&](const std::string &why) {   // counted for the component's status
        ComponentRecord &rc = repo.components[std::size_t(m->component)];
        if (rc.offers_refused++ == 0) rc.first_refusal = std::string(op) + ": " + why;
        return OPF_ERR_ARG;
    };
    // The fields the component knows (struct_size): an offer built before the
    // n-ary forms were appended has none of them.
    opf_offer_t known{};
    std::memcpy(&known, offer, std::min(sizeof known, std::max(offer->struct_size, sizeof offer->struct_size)));
    offer = &known;
    if (const std::string problem = offer_problem(*m, *offer); !problem.empty()) {
        verbose(1, "component %s: offer for %s refused: %s", c.name.c_str(), op, problem.c_str());
        return refuse(problem);
    }
    const int kt = offer->kernel_type;
    if (!base::kernels(m->module.op_id, kt).fn2) {
        verbose(1, "component %s offers %s on %s, which is not a slot; ignored", c.name.c_str(), op,
                base::kernel_type_name(kt));
        return refuse(std::string(base::kernel_type_name(kt)) + " is not a slot of " + op);
    }
    SlotCandidate cand{m->component, nullptr, offer->priority, offer->min_count, offer->kernel2, offer->kernel3,
                       offer->device2, offer->device3, offer->stream2, offer->stream3};
    cand.fn_n = offer->kernel_n;
    cand.fn_n_once = offer->kernel_n_once;
    cand.fn_premul = offer->premul_n;
    cand.fn_premul_once = offer->premul_n_once;
    cand.device_n = offer->device_n;
    cand.device_n_once = offer->device_n_once;
    cand.stream_n = offer->stream_n;
    cand.stream_n_once = offer->stream_n_once;
    repo.pending.push_back({offer->memory_kind, kt, cand});
    return OPF_SUCCESS;
} catch (...) {
    return fail_exception("opf_module_offer");
}

OPF_API int opf_memory_kind_register(const char *name, opf_memory_claim_fn *claim)
try {
    if (repo.calling < 0) {
        warn("opf_memory_kind_register: call it from the component's init_query");
        return -OPF_ERR_ARG;
    }
    const std::string &who = repo.components[std::size_t(repo.calling)].name;
    const bool well_formed = name && *name && std::all_of(name, name + std::strlen(name), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
    std::string taken_by = name && std::strcmp(name, "host") == 0 ? "the framework" : "";
    for (const MemoryKind &k : repo.memory_kinds)
        if (name && k.name == name) taken_by = "component " + repo.components[std::size_t(k.component)].name;
    if (!well_formed || !taken_by.empty()) {
        warn("component %s: memory kind \"%s\" refused: %s", who.c_str(), name ? name : "(null)",
             well_formed ? ("already registered by " + taken_by).c_str() : "a name is lower-case letters, digits and '_'");
        return -OPF_ERR_ARG;
    }
    if (repo.memory_kinds.size() >= OPF_MEMORY_KINDS_MAX) {
        if (repo.told_kind_limit != repo.calling)   // once per component: a loop may ask thousands of times
            warn("component %s: memory kind \"%s\" refused: %d memory kinds are registered, the most a process "
                 "takes (OPF_MEMORY_KINDS_MAX); its further refusals are not shown",
                 who.c_str(), name, OPF_MEMORY_KINDS_MAX);
        repo.told_kind_limit = repo.calling;
        return -OPF_ERR_ARG;
    }
    repo.memory_kinds.push_back({name, claim, repo.calling});
    verbose(1, "component %s registered memory kind %s (id %zu%s)", who.c_str(), name, repo.memory_kinds.size(),
            claim ? "" : ", stream calls only");
    return int(repo.memory_kinds.size());
} catch (...) {
    return fail_exception("opf_memory_kind_register");
}

OPF_API int opf_component_set_error(int code, const char *fmt, ...)
try {
    char text[OPF_MAX_ERROR_STRING * 2];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    return fail(code, "%s", text);
} catch (...) {
    return fail_exception("opf_component_set_error");
}

namespace {
// "opframe: <component>: <text>" (the component found at `anchor`, an
// address inside its file) on stderr, one write per line.
void component_log_line(int level, const void *anchor, const char *fmt, va_list args)
{
    const ComponentRecord *c = component_at(anchor);
    char text[1024];
    std::vsnprintf(text, sizeof text, fmt, args);
    say_line(level <= 0 ? Say::Note : Say::Verbose, std::string(c ? c->name + ": " : "") + text);
}
} // namespace

#undef opf_component_log   // component.h's macro: this is the function binaries built without it call
OPF_API void opf_component_log(int level, const char *fmt, ...)
try {
    if (params.verbose < level) return;
    va_list args;
    va_start(args, fmt);
    component_log_line(level, __builtin_return_address(0), fmt, args);
    va_end(args);
} catch (...) {
    fail_exception("opf_component_log");
}

OPF_API void opf_component_log_at(const void *anchor, int level, const char *fmt, ...)
try {
    if (params.verbose < level) return;
    va_list args;
    va_start(args, fmt);
    component_log_line(level, anchor, fmt, args);
    va_end(args);
} catch (...) {
    fail_exception("opf_component_log_at");
}

namespace {
// The calling component's memory kind `kind`, registered with a claim hook,
// or nullptr (said on stderr): the rule of the opf_memory_kind_set_* calls.
MemoryKind *callers_claiming_kind(const char *call, int kind)
{
    if (repo.calling < 0) {
        warn("%s: call it from the component's init_query", call);
        return nullptr;
    }
    if (kind < 1 || std::size_t(kind) > repo.memory_kinds.size() ||
        repo.memory_kinds[std::size_t(kind - 1)].component != repo.calling ||
        !repo.memory_kinds[std::size_t(kind - 1)].claim) {
        warn("component %s: %s(%d): not a memory kind it registered with a claim hook",
             repo.components[std::size_t(repo.calling)].name.c_str(), call, kind);
        return nullptr;
    }
    return &repo.memory_kinds[std::size_t(kind - 1)];
}
} // namespace

OPF_API int opf_memory_kind_set_claims(int kind, opf_memory_claims_fn *claims)
try {
    MemoryKind *k = callers_claiming_kind("opf_memory_kind_set_claims", kind);
    if (!k) return OPF_ERR_ARG;
    k->claims = claims;
    return OPF_SUCCESS;
} catch (...) {
    return fail_exception("opf_memory_kind_set_claims");
}

OPF_API int opf_memory_kind_set_mapping_count(int kind, const uint64_t *count)
try {
    MemoryKind *k = callers_claiming_kind("opf_memory_kind_set_mapping_count", kind);
    if (!k) return OPF_ERR_ARG;
    k->mapping_count = count;
    return OPF_SUCCESS;
} catch (...) {
    return fail_exception("opf_memory_kind_set_mapping_count");
}

OPF_API int opf_memory_kind_lookup(const char *name, int *memory_kind)
try {
    if (!memory_kind) return fail(OPF_ERR_ARG, "opf_memory_kind_lookup: memory_kind is NULL");
    *memory_kind = -1;
    if (!name) return fail(OPF_ERR_ARG, "opf_memory_kind_lookup: name is NULL");
    if (int rc = ensure_initialized()) return rc;
    for (int mem = 0; mem < memory_kind_count(); ++mem)
        if (std::strcmp(memory_kind_name(mem), name) == 0) {
            *memory_kind = mem;
            return OPF_SUCCESS;
        }
    return fail(OPF_ERR_ARG, "opf_memory_kind_lookup: no available component registered memory kind \"%s\"", name);
} catch (...) {
    return fail_exception("opf_memory_kind_lookup");
}

OPF_API int opf_memory_kind_count(void)
try {
    ensure_initialized();
    return memory_kind_count();
} catch (...) {
    return fail_exception("opf_memory_kind_count");
}

OPF_API const char *opf_memory_kind_name(int memory_kind)
try {
    ensure_initialized();
    return memory_kind_name(memory_kind);
} catch (...) {
    fail_exception("opf_memory_kind_name");
    return nullptr;
}
