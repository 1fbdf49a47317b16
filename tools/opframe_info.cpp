// opframe_info — the ompi_info of opframe: build, components, parameters,
// hardware, and which component serves each slot of the mixed table.
//
//   opframe_info                         package, build, one line per component
//   opframe_info --param FW COMP [--level N]   parameters (FW: op|all; COMP: name|base|all)
//   opframe_info --all                   everything, parameters of every level
//   opframe_info --show-failed           component files that could not be used, and why
//   opframe_info --hw                    CPU, ISA, caches, cores, NUMA, devices (hwloc's and the
//                                        components'), each with the component using it
//   opframe_info --kernels [--op OP] [--type T] [--mem KIND]   the mixed table (2-buffer/3-buffer
//                                        provider; stream kernels too on device memory kinds)
//   opframe_info --explain OP TYPE [--mem KIND]   the offers for one slot and why the winner won
//   opframe_info --types                 datatypes, their kernel types and ops
//   opframe_info --path                  where components and parameter files are looked for
//   --parsable (colon-separated, stable) | --json (every view, --explain too); --mca NAME VALUE
//   (repeatable); -V. An --op or --type that names nothing is an error (exit 2).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <opframe/component.h>   // OPF_COMPONENT_ABI_VERSION
#include <opframe/device.h>
#include <opframe/introspect.h>
#include <opframe/opframe.h>

#include "config.h"

namespace {

enum class Format { Text, Parsable, Json };

struct Options {
    bool build = true, components = true, params = false, failed = false, hw = false, kernels = false, types = false,
         path = false;
    std::string param_framework = "all", param_component = "all", op_filter, type_filter, explain_op, explain_type;
    std::string mem_filter;   // --mem NAME: one memory kind (resolved by name after opf_init)
    int level = 1;
    Format format = Format::Text;
};

const char *op_name(int id) { return opf_op_name(reinterpret_cast<opf_op_t>(uintptr_t(id))); }
bool matches(const std::string &filter, const char *name) { return filter.empty() || !strcasecmp(filter.c_str(), name); }

// JSON string escaping (the only JSON writing this tool needs).
std::string js(const char *s)
{
    std::string out = "\"";
    for (; s && *s; ++s) {
        if (*s == '"' || *s == '\\') out += '\\';
        if (static_cast<unsigned char>(*s) < 0x20) {
            char esc[8];
            std::snprintf(esc, sizeof esc, "\\u%04x", *s);
            out += esc;
            continue;
        }
        out += *s;
    }
    return out + "\"";
}

// Emits one record: text as "label: value" lines, parsable as prefix:key:value,
// JSON as an object. Keeps the three formats in one place.
struct Record {
    std::vector<std::pair<std::string, std::string>> fields;
    Record &add(const std::string &k, const std::string &v)
    {
        fields.emplace_back(k, v);
        return *this;
    }
};

struct Printer {
    Format format;
    bool first_json = true;
    void begin() { if (format == Format::Json) std::printf("["); }
    void end() { if (format == Format::Json) std::printf("\n]\n"); }
    void record(const std::string &prefix, const Record &r, const std::string &text_line)
    {
        if (format == Format::Text) {
            std::printf("%s\n", text_line.c_str());
        } else if (format == Format::Parsable) {
            for (auto &[k, v] : r.fields) std::printf("%s:%s:%s\n", prefix.c_str(), k.c_str(), v.c_str());
        } else {
            std::printf("%s\n  {\"kind\": %s", first_json ? "" : ",", js(prefix.c_str()).c_str());
            for (auto &[k, v] : r.fields) std::printf(", %s: %s", js(k.c_str()).c_str(), js(v.c_str()).c_str());
            std::printf("}");
            first_json = false;
        }
    }
};

std::string version_of(const int v[3]) { return std::to_string(v[0]) + "." + std::to_string(v[1]) + "." + std::to_string(v[2]); }

void show_build(Printer &p)
{
    int slots = 0;
    for (int op = 1; op < OPF_OPID_COUNT; ++op)
        for (int kt = 0; kt < OPF_KT_COUNT; ++kt) slots += opf_slot_exists(op, kt);
    Record r;
    r.add("package", PACKAGE_STRING).add("version", PACKAGE_VERSION).add("abi", std::to_string(OPF_COMPONENT_ABI_VERSION))
        .add("cxx", OPF_BUILD_CXX).add("kernel_flags", OPF_BUILD_KERNEL_FLAGS).add("ompi_bench", OPF_BUILD_OMPI)
        .add("slots", std::to_string(slots));
    std::string text;
    for (auto &[k, v] : std::vector<std::pair<const char *, std::string>>{
             {"Package", PACKAGE_STRING}, {"Component ABI", std::to_string(OPF_COMPONENT_ABI_VERSION)},
             {"C++ compiler", OPF_BUILD_CXX}, {"Kernel flags", OPF_BUILD_KERNEL_FLAGS},
             {"Open MPI in bench", OPF_BUILD_OMPI}, {"Host kernel slots", std::to_string(slots) + " (2- and 3-buffer each)"}})
        text += std::string(22 - std::min<size_t>(22, std::strlen(k)), ' ') + k + ": " + v + "\n";
    text.pop_back();
    p.record("build", r, text);
}

// The component a file would hold: "nosym" for ".../opf_op_nosym.so".
std::string component_of_file(const std::string &path)
{
    std::string file = path.substr(path.rfind('/') + 1);
    if (file.rfind("opf_op_", 0) == 0) file.erase(0, 7);
    return file.substr(0, file.rfind('.'));
}

void show_components(Printer &p)
{
    for (int i = 0; i < opf_component_count(); ++i) {
        opf_component_info_t c;
        if (opf_component_describe(i, &c) != OPF_SUCCESS) continue;
        Record r;
        r.add("name", c.name).add("version", version_of(c.version)).add("abi", std::to_string(c.abi_version))
            .add("status", c.status).add("path", c.path).add("description", c.description ? c.description : "");
        char line[512];
        std::snprintf(line, sizeof line, "%22s: %s (MCA v%d, API v%d, Component v%s) %s", "MCA op", c.name,
                      OPF_COMPONENT_ABI_VERSION, c.abi_version, version_of(c.version).c_str(), c.status);
        p.record("mca:op:" + std::string(c.name), r, line);
    }
    // Files that could not be used are components too, for whoever wrote them.
    for (int i = 0; i < opf_failed_count(); ++i) {
        opf_failed_info_t f;
        if (opf_failed_describe(i, &f) != OPF_SUCCESS) continue;
        const std::string name = component_of_file(f.path), status = std::string("failed: ") + f.reason;
        Record r;
        r.add("name", name).add("status", status).add("path", f.path);
        p.record("mca:op:" + name, r, std::string(22 - std::strlen("MCA op"), ' ') + "MCA op: " + name + " (file " +
                                          f.path + ") " + status);
    }
    if (opf_component_count() + opf_failed_count() == 0 && p.format == Format::Text)
        std::printf("%22s: (no components found on mca_component_path; opframe_info --path)\n", "MCA op");
}

// Files that could not be used, then loaded components that failed after
// loading (a hook returned an error, every offer was refused).
// Returns how many failed (the exit status says whether any did).
int show_failed(Printer &p)
{
    int failed = 0;
    for (int i = 0; i < opf_failed_count(); ++i) {
        opf_failed_info_t f;
        if (opf_failed_describe(i, &f) != OPF_SUCCESS) continue;
        Record r;
        r.add("path", f.path).add("reason", f.reason);
        p.record("failed", r, std::string("failed: ") + f.path + "\n        " + f.reason);
        ++failed;
    }
    for (int i = 0; i < opf_component_count(); ++i) {
        opf_component_info_t c;
        if (opf_component_describe(i, &c) != OPF_SUCCESS || std::strncmp(c.status, "failed: ", 8) != 0) continue;
        Record r;
        r.add("path", c.path).add("component", c.name).add("reason", c.status + 8);
        p.record("failed", r, std::string("failed: ") + c.path + " (component " + c.name + ")\n        " + (c.status + 8));
        ++failed;
    }
    if (failed == 0 && p.format == Format::Text) std::printf("no component failed to load or to serve\n");
    return failed;
}

// --param op NAME for a component that is not loaded: what happened to it, on
// stdout, and false (the exit status says it too).
bool check_param_component(Printer &p, const Options &o)
{
    if (o.param_component == "all" || o.param_component == "base") return true;
    for (int i = 0; i < opf_component_count(); ++i) {
        opf_component_info_t c;
        if (opf_component_describe(i, &c) == OPF_SUCCESS && o.param_component == c.name) return true;
    }
    std::string status = "not found on mca_component_path (opframe_info --path)";
    for (int i = 0; i < opf_failed_count(); ++i) {
        opf_failed_info_t f;
        if (opf_failed_describe(i, &f) == OPF_SUCCESS && component_of_file(f.path) == o.param_component)
            status = std::string("failed: ") + f.path + ": " + f.reason;
    }
    Record r;
    r.add("status", status);
    p.record("mca:op:" + o.param_component, r, "MCA op " + o.param_component + ": no parameters: the component is " +
                                                   (status.rfind("failed", 0) == 0 ? "not loaded, " : "") + status);
    return false;
}

// The component a parameter belongs to: op_<component>_... ; the rest is the framework's ("base").
std::string owner_of(const char *name)
{
    for (int i = 0; i < opf_component_count(); ++i) {
        opf_component_info_t c;
        if (opf_component_describe(i, &c) == OPF_SUCCESS && std::string(name).rfind("op_" + std::string(c.name) + "_", 0) == 0)
            return c.name;
    }
    return "base";
}

void show_params(Printer &p, const Options &o)
{
    if (o.param_framework != "all" && o.param_framework != "op") {
        std::fprintf(stderr, "opframe_info: unknown framework \"%s\" (this is the \"op\" framework)\n",
                     o.param_framework.c_str());
        return;
    }
    for (int i = 0; i < opf_param_count(); ++i) {
        opf_param_info_t info;
        if (opf_param_describe(i, &info) != OPF_SUCCESS || info.level > o.level) continue;
        const std::string owner = owner_of(info.name);
        if (o.param_component != "all" && o.param_component != owner) continue;
        Record r;
        r.add("value", info.value).add("source", info.source).add("default", info.default_value)
            .add("level", std::to_string(info.level)).add("type", info.type_name)
            .add("read_only", info.read_only ? "true" : "false").add("help", info.description);
        if (info.values) r.add("enumerator", info.values);
        if (info.synonyms) r.add("deprecated_synonyms", info.synonyms);
        std::string text = "MCA op " + owner + ": " + (info.read_only ? "informational" : "parameter") + " \"" +
                           info.name + "\" (current value: \"" + info.value + "\", data source: " + info.source +
                           ", level: " + std::to_string(info.level) + ", type: " + info.type_name + ")\n    " +
                           info.description;
        if (info.values) text += std::string("\n    Valid values: ") + info.values;
        if (info.synonyms) text += std::string("\n    Deprecated synonyms: ") + info.synonyms;
        p.record("mca:op:" + owner + ":param:" + info.name, r, text);
    }
}

// ---- devices: hwloc's OS devices and those the components found ------------------
struct Device {
    std::string name, kind, model, source, component;   // source: "hwloc" or the reporting component
};

// Every device once: hwloc's first, then those only a component knows; a
// component's device of the same name as an hwloc one marks it as used.
std::vector<Device> devices_of(const opf_hw_info_t &hw)
{
    std::vector<Device> list;
    for (int i = 0; i < hw.n_devices && i < OPF_HW_MAX_DEVICES; ++i)
        list.push_back({hw.devices[i].name, hw.devices[i].kind, hw.devices[i].model, "hwloc", ""});
    for (int i = 0; i < opf_device_count(); ++i) {
        opf_device_info_t d;
        if (opf_device_describe(i, &d) != OPF_SUCCESS) continue;
        auto same = std::find_if(list.begin(), list.end(), [&](const Device &x) { return x.name == d.name; });
        if (same == list.end()) list.push_back({d.name, d.kind, d.model, d.component, d.component});
        else if (same->component.empty()) same->component = d.component;
        else if (same->component.find(d.component) == std::string::npos) same->component += std::string(",") + d.component;
    }
    return list;
}

void show_devices(Printer &p, const opf_hw_info_t &hw)
{
    const std::vector<Device> list = devices_of(hw);
    if (p.format == Format::Text) {
        std::string text = "Devices: " + (list.empty() ? std::string("none") : std::to_string(list.size()));
        for (const Device &d : list)
            text += "\n  " + d.name + " (" + d.kind + ") " + d.model + "\n      found by " +
                    (d.source == "hwloc" ? "hwloc" : "the " + d.source + " component") + ", used by " +
                    (d.component.empty() ? "no component" : d.component);
        p.record("hw:devices", Record{}, text);
        return;
    }
    for (const Device &d : list) {
        Record r;
        r.add("name", d.name).add("type", d.kind).add("model", d.model).add("found_by", d.source)
            .add("used_by", d.component.empty() ? "none" : d.component);
        p.record("hw:device", r, "");
    }
}

void show_hw(Printer &p)
{
    opf_hw_info_t hw;
    if (opf_hw_describe(&hw) != OPF_SUCCESS) return;
    char isa[512], cpu_only[512];
    opf_hw_format_features(hw.x86_features, isa, sizeof isa);
    opf_hw_format_features(hw.x86_cpu_only, cpu_only, sizeof cpu_only);
    auto kib = [](int64_t b) { return b ? std::to_string(b / 1024) + " KiB" : std::string("unknown"); };
    Record r;
    r.add("cpu", hw.cpu_model).add("isa", isa).add("isa_cpu_only", cpu_only).add("cores", std::to_string(hw.cores))
        .add("pus", std::to_string(hw.pus)).add("numa_nodes", std::to_string(hw.numa_nodes))
        .add("l1d", std::to_string(hw.l1d_bytes)).add("l2", std::to_string(hw.l2_bytes)).add("l3", std::to_string(hw.l3_bytes))
        .add("hwloc", hw.hwloc ? "yes" : "no").add("devices", std::to_string(devices_of(hw).size()));
    if (hw.x86_avx512_datapath_bits) r.add("avx512_datapath", std::to_string(hw.x86_avx512_datapath_bits));
    std::string text = std::string("CPU: ") + hw.cpu_model + "\nISA (CPU and OS): " + isa +
                       "\nISA the OS does not enable: " + cpu_only + "\nCores: " + std::to_string(hw.cores) +
                       ", PUs: " + std::to_string(hw.pus) + ", NUMA nodes: " + std::to_string(hw.numa_nodes) +
                       "\nCaches: L1d " + kib(hw.l1d_bytes) + ", L2 " + kib(hw.l2_bytes) + ", L3 " + kib(hw.l3_bytes) +
                       "\nTopology from: " + (hw.hwloc ? "hwloc" : "sysconf (no hwloc)");
    if (hw.x86_avx512_datapath_bits == 256)
        text += "\nAVX-512 datapath: 256 bits (a 512-bit operation runs as two halves)";
    else if (hw.x86_avx512_datapath_bits)
        text += "\nAVX-512 datapath: 512 bits";
    if (hw.arm_features) {   // an Arm CPU (getauxval)
        char arm[256];
        opf_hw_format_arm_features(hw.arm_features, arm, sizeof arm);
        const std::string sve = std::to_string(hw.arm_sve_vector_bits);
        r.add("arm_isa", arm).add("sve_vector_bits", sve);
        text += std::string("\nArm ISA (HWCAP): ") + arm + "\nSVE vector length: " +
                (hw.arm_sve_vector_bits ? sve + " bits" : std::string("no SVE"));
    }
    if (hw.riscv_features) {   // a RISC-V CPU with V (getauxval, vlenb, riscv_hwprobe)
        char rv[128];
        opf_hw_format_riscv_features(hw.riscv_features, rv, sizeof rv);
        const std::string vlen = std::to_string(hw.riscv_vlen_bits);
        r.add("riscv_isa", rv).add("riscv_vlen", vlen);
        text += std::string("\nRISC-V vector ISA (HWCAP, riscv_hwprobe): ") + rv + "\nVLEN: " + vlen + " bits";
    }
    p.record("hw", r, text);
    show_devices(p, hw);
}

// ---- memory kinds: --mem NAME, resolved through the framework by name ------------

// After opf_init (kinds may be registered at run time): false, with a
// message naming the known kinds, when --mem names none of them.
bool check_memory_kind(const Options &o)
{
    if (o.mem_filter.empty() || opf_memory_kind_by_name(o.mem_filter.c_str()) >= 0) return true;
    std::string known;
    for (int m = 0; m < opf_memory_kind_count(); ++m) known += std::string(m ? ", " : "") + opf_memory_kind_name(m);
    std::fprintf(stderr, "opframe_info: --mem %s: unknown memory kind (known: %s)\n", o.mem_filter.c_str(), known.c_str());
    return false;
}

// The memory kinds to show: the one --mem names, or all.
std::vector<int> memory_kinds(const Options &o)
{
    if (!o.mem_filter.empty()) return {opf_memory_kind_by_name(o.mem_filter.c_str())};
    std::vector<int> kinds;
    for (int m = 0; m < opf_memory_kind_count(); ++m) kinds.push_back(m);
    return kinds;
}

// The providers of one slot on one memory kind, each with the counts it
// serves (opf_slot_tiers_text): the kernels opf_reduce_local runs (2- and
// 3-buffer) and those the stream calls enqueue; "" where none serves.
struct SlotProviders {
    std::string p2, p3, s2, s3;
    bool any() const { return !p2.empty() || !p3.empty() || !s2.empty() || !s3.empty(); }
};
std::string tiers_text(int op, int kt, int mem, int nbuf, bool stream)
{
    char buf[512];
    if (opf_slot_tiers_text(op, kt, mem, nbuf, stream, buf, sizeof buf) != OPF_SUCCESS) return "";
    return std::strcmp(buf, "none") == 0 ? "" : buf;
}
SlotProviders providers(int op, int kt, int mem)
{
    return {tiers_text(op, kt, mem, 2, false), tiers_text(op, kt, mem, 3, false), tiers_text(op, kt, mem, 2, true),
            tiers_text(op, kt, mem, 3, true)};
}

// "p2/p3", or "p" when both halves have the same providers, "-" for none.
std::string pair_cell(const std::string &two, const std::string &three)
{
    if (two.empty() && three.empty()) return "-";
    if (two == three) return two;
    return (two.empty() ? "-" : two) + "/" + (three.empty() ? "-" : three);
}

void show_kernels(Printer &p, const Options &o)
{
    const std::vector<int> kinds = memory_kinds(o);
    if (p.format == Format::Text) {
        std::printf("%-30s", "kernel type");
        for (int op = 1; op < OPF_OPID_COUNT; ++op)
            if (matches(o.op_filter, op_name(op))) std::printf(" %-9s", op_name(op));
        std::printf("\n");
    }
    for (int mem : kinds)
        for (bool stream : {false, true})
            for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
                const char *kt_name = opf_kernel_type_name(kt);
                if (!matches(o.type_filter, kt_name)) continue;
                std::string row;
                bool any = false;
                for (int op = 1; op < OPF_OPID_COUNT; ++op) {
                    if (!matches(o.op_filter, op_name(op))) continue;
                    const SlotProviders sp = providers(op, kt, mem);
                    const std::string cell = !opf_slot_exists(op, kt) ? "."
                                             : stream              ? pair_cell(sp.s2, sp.s3)
                                                                   : pair_cell(sp.p2, sp.p3);
                    any |= stream ? !sp.s2.empty() || !sp.s3.empty() : !sp.p2.empty() || !sp.p3.empty();
                    row += " " + cell + std::string(cell.size() < 9 ? 9 - cell.size() : 0, ' ');   // never cut
                    if (p.format != Format::Text && !stream && sp.any()) {
                        Record r;
                        auto or_none = [](const std::string &t) { return t.empty() ? std::string("none") : t; };
                        r.add("2buf", or_none(sp.p2)).add("3buf", or_none(sp.p3));
                        if (!sp.s2.empty() || !sp.s3.empty()) r.add("stream_2buf", or_none(sp.s2)).add("stream_3buf", or_none(sp.s3));
                        p.record(std::string("kernel:") + opf_memory_kind_name(mem) + ":" + op_name(op) + ":" + kt_name, r, "");
                    }
                }
                // Host rows always; a device kind's rows where it has kernels, or when --mem names it.
                const bool show = mem == OPF_MEM_HOST ? !stream : any || (!o.mem_filter.empty() && !stream);
                if (p.format == Format::Text && show) {
                    const std::string label = mem == OPF_MEM_HOST && !stream
                                                  ? std::string(kt_name)
                                                  : std::string(opf_memory_kind_name(mem)) + (stream ? " stream:" : ":") + kt_name;
                    std::printf("%-30s%s\n", label.c_str(), row.c_str());
                }
            }
    if (p.format == Format::Text)
        std::printf("(a cell is the provider of the 2-buffer/3-buffer kernels, each with the counts it serves when\n"
                    " several share a slot: \"base<32,avx2>=32\"; \".\": op not defined on the type;\n"
                    " \"KIND stream\" rows: the kernels opf_reduce_local_stream / opf_reduce_local3_stream enqueue)\n");
}

// --explain on one memory kind: its 2- and 3-buffer kernels, then its stream
// kernels. Without --mem, a device kind shows only the halves it serves.
void explain_memory_kind(Printer &p, int op, int kt, int mem, bool named)
{
    const char *mem_name = opf_memory_kind_name(mem);
    for (bool stream : {false, true})
        for (int nbuf : {2, 3}) {
            char buf[4096];
            const int rc = stream ? opf_slot_explain_stream(op, kt, mem, nbuf, buf, sizeof buf)
                                  : opf_slot_explain(op, kt, mem, nbuf, buf, sizeof buf);
            const bool served = !std::strstr(buf, "(no kernel");
            if (rc != OPF_SUCCESS || !(served || named || (mem == OPF_MEM_HOST && !stream))) continue;
            std::string text = buf;
            if (p.format == Format::Parsable)   // one line per key
                for (std::size_t nl; (nl = text.find('\n')) != std::string::npos;) text.replace(nl, 1, " | ");
            const char *winner = stream ? opf_slot_stream_provider(op, kt, mem, nbuf, 1)
                                        : opf_slot_provider_mem(op, kt, mem, nbuf, 1);
            const std::string half = std::to_string(nbuf) + (stream ? "-stream" : "");
            Record r;
            r.add("op", op_name(op)).add("kernel_type", opf_kernel_type_name(kt)).add("memory", mem_name)
                .add("buffers", half).add("selected", winner ? winner : "none").add("explanation", text);
            p.record(std::string("explain:") + mem_name + ":" + op_name(op) + ":" + opf_kernel_type_name(kt) + ":" + half,
                     r, buf);
        }
}

// --explain, host memory: who serves opf_reduce_local_n's forms (n-ary,
// round-once, PreMulSum's on SUM) from which count on, from the selection's
// tiers (opf_slot_tiers_text_n), and where a chain op composes a component's
// 3-buffer kernel instead (it offers no n-ary one).
const char *const form_names[OPF_FORM_COUNT] = {"n-ary", "n-ary round-once", "PreMulSum n-ary",
                                                "PreMulSum n-ary round-once"};

// Records one n-ary line of --explain under "explain:<memory>:<op>:<type>:<form>".
void record_nary(Printer &p, int op, int kt, const char *memory, int form,
                 std::initializer_list<std::pair<const char *, std::string>> selected, const std::string &line)
{
    Record r;
    r.add("op", op_name(op)).add("kernel_type", opf_kernel_type_name(kt)).add("memory", memory).add("form", form_names[form]);
    for (const auto &[k, v] : selected) r.add(k, v);
    std::string key = form_names[form];
    for (char &c : key) c = c == ' ' ? '-' : c;
    p.record(std::string("explain:") + memory + ":" + op_name(op) + ":" + opf_kernel_type_name(kt) + ":" + key, r, line);
}

void explain_nary(Printer &p, int op, int kt)
{
    for (int form = 0; form < OPF_FORM_COUNT; ++form) {
        std::vector<char> tiers(4096);
        if (opf_slot_tiers_text_n(op, kt, form, tiers.data(), int(tiers.size())) != OPF_SUCCESS) continue;   // no such form
        const std::string text = tiers.data();
        std::string line = std::string(op_name(op)) + " " + opf_kernel_type_name(kt) + " host " + form_names[form] + ": " +
                           text;
        if (text.find("(chain)") != std::string::npos)
            line += " (NAME(chain): NAME's 3-buffer kernel, once per further input: it offers no n-ary kernel there)";
        record_nary(p, op, kt, "host", form, {{"selected", text}}, line);
    }
}

// --explain, device memory: who serves opf_reduce_local_n (synchronous) and
// opf_reduce_local_n_stream in each form; without an n-ary kernel the call
// composes 3-buffer device kernels where that is its result, else is refused.
void explain_nary_device(Printer &p, int op, int kt, int mem)
{
    for (int form : {OPF_FORM_N, OPF_FORM_N_ONCE}) {
        if (!opf_slot_provider_n(op, kt, form, 1)) continue;   // the base has no such form here
        const bool chains = form == OPF_FORM_N && op != OPF_OPID_AVG;
        auto who = [&](int stream) -> std::string {
            if (const char *provider = opf_slot_provider_n_mem(op, kt, mem, form, stream, 1 << 20)) return provider;
            return chains ? "none (the chain of 3-buffer device kernels; dst not among srcs[2..])" : "none (refused)";
        };
        const std::string sync = who(0), stream = who(1);
        const std::string line = std::string(op_name(op)) + " " + opf_kernel_type_name(kt) + " " +
                                 opf_memory_kind_name(mem) + " " + form_names[form] + ": " + sync + "; on a stream: " + stream;
        record_nary(p, op, kt, opf_memory_kind_name(mem), form, {{"selected", sync}, {"stream", stream}}, line);
    }
}

int show_explain(Printer &p, const Options &o)
{
    int op = -1, kt = -1;
    for (int id = 1; id < OPF_OPID_COUNT; ++id)
        if (!strcasecmp(o.explain_op.c_str(), op_name(id))) op = id;
    for (int id = 1; id < OPF_TYPEID_COUNT_ && kt < 0; ++id) {   // a datatype name
        const opf_datatype_t t = reinterpret_cast<opf_datatype_t>(uintptr_t(id));
        if (!strcasecmp(o.explain_type.c_str(), opf_type_name(t))) opf_type_kernel_type(t, &kt);
    }
    for (int id = 0; id < OPF_KT_COUNT && kt < 0; ++id)   // or a kernel type name
        if (!strcasecmp(o.explain_type.c_str(), opf_kernel_type_name(id))) kt = id;
    if (op < 0 || kt < 0 || !opf_slot_exists(op, kt)) {
        std::fprintf(stderr, "opframe_info: no slot for op \"%s\" and type \"%s\"\n", o.explain_op.c_str(),
                     o.explain_type.c_str());
        return 1;
    }
    for (int mem : memory_kinds(o)) explain_memory_kind(p, op, kt, mem, !o.mem_filter.empty());
    if (o.mem_filter.empty() || o.mem_filter == "host") explain_nary(p, op, kt);
    for (int mem : memory_kinds(o))
        if (mem != OPF_MEM_HOST) explain_nary_device(p, op, kt, mem);
    return 0;
}

// --op / --type filters must name something: a typo would show an empty table.
bool check_filters(const Options &o)
{
    bool op_known = o.op_filter.empty(), type_known = o.type_filter.empty();
    for (int id = 1; id < OPF_OPID_COUNT; ++id) op_known |= matches(o.op_filter, op_name(id));
    for (int kt = 0; kt < OPF_KT_COUNT; ++kt) type_known |= matches(o.type_filter, opf_kernel_type_name(kt));
    if (!op_known) std::fprintf(stderr, "opframe_info: --op %s: no such op (SUM, MAX, ...)\n", o.op_filter.c_str());
    if (!type_known)
        std::fprintf(stderr, "opframe_info: --type %s: no such kernel type (INT32, FLOAT, ...; opframe_info --types)\n",
                     o.type_filter.c_str());
    return op_known && type_known;
}

void show_types(Printer &p)
{
    for (int id = 1; id < OPF_TYPEID_COUNT_; ++id) {
        const opf_datatype_t t = reinterpret_cast<opf_datatype_t>(uintptr_t(id));
        opf_count_t size;
        int kt;
        if (opf_type_size(t, &size) != OPF_SUCCESS || opf_type_kernel_type(t, &kt) != OPF_SUCCESS) {
            Record r;
            r.add("supported", "no");
            p.record(std::string("type:") + opf_type_name(t), r, std::string(opf_type_name(t)) + " (not supported by this build)");
            continue;
        }
        std::string ops;
        for (int op = 1; op < OPF_OPID_COUNT; ++op) {
            int valid = 0;
            opf_op_valid_for_type(reinterpret_cast<opf_op_t>(uintptr_t(op)), t, &valid);
            if (valid) ops += std::string(ops.empty() ? "" : ",") + op_name(op);
        }
        Record r;
        r.add("kernel_type", opf_kernel_type_name(kt)).add("size", std::to_string(size)).add("ops", ops);
        char line[256];
        std::snprintf(line, sizeof line, "%-22s %-16s %3lld B  %s", opf_type_name(t), opf_kernel_type_name(kt),
                      (long long)size, ops.c_str());
        p.record(std::string("type:") + opf_type_name(t), r, line);
    }
}

void show_path(Printer &p)
{
    char path[4096] = "";
    opf_param_get("mca_component_path", path, sizeof path);
    Record r;
    r.add("mca_component_path", path);
    p.record("path", r, std::string("mca_component_path: ") + path +
                            "\n(parameter files: $HOME/.opframe/mca-params.conf, " OPF_SYSCONFDIR_TEXT
                            "/opframe-mca-params.conf)"
                            "\n(tuning files, read below them: $HOME/.opframe/tuning.conf, " OPF_SYSCONFDIR_TEXT
                            "/opframe-tuning.conf; opframe_tune writes them)");
}

int usage(FILE *to)
{
    std::fprintf(to,
                 "usage: opframe_info [--param FRAMEWORK COMPONENT] [--level N] [--all] [--show-failed] [--hw]\n"
                 "                    [--kernels [--op OP] [--type TYPE]] [--explain OP TYPE] [--mem host|cuda|opencl]\n"
                 "                    [--types] [--path]\n"
                 "                    [--parsable | --json] [--mca NAME VALUE]... [-V]\n");
    return to == stderr ? 2 : 0;
}

} // namespace

int main(int argc, char **argv)
{
    Options o;
    bool explicit_view = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto need = [&](int n) {
            if (i + n >= argc) {
                std::fprintf(stderr, "opframe_info: %s needs %d argument%s\n", a.c_str(), n, n > 1 ? "s" : "");
                std::exit(2);
            }
        };
        if (a == "--param") {
            need(2);
            o.params = explicit_view = true;
            o.param_framework = argv[++i];
            o.param_component = argv[++i];
            for (std::string *name : {&o.param_framework, &o.param_component})   // names are lower case: any case here
                std::transform(name->begin(), name->end(), name->begin(), [](unsigned char c) { return char(std::tolower(c)); });
        }
        else if (a == "--level") { need(1); o.level = std::atoi(argv[++i]); if (o.level < 1 || o.level > 9) { std::fprintf(stderr, "opframe_info: --level takes 1..9\n"); return 2; } }
        else if (a == "--all") { o.params = o.failed = o.hw = o.kernels = true; o.level = 9; }
        else if (a == "--show-failed") o.failed = explicit_view = true;
        else if (a == "--hw") o.hw = explicit_view = true;
        else if (a == "--kernels") o.kernels = explicit_view = true;
        else if (a == "--types") o.types = explicit_view = true;
        else if (a == "--path") o.path = explicit_view = true;
        else if (a == "--op") { need(1); o.op_filter = argv[++i]; }
        else if (a == "--type") { need(1); o.type_filter = argv[++i]; }
        else if (a == "--mem") { need(1); o.mem_filter = argv[++i]; }
        else if (a == "--explain") { need(2); o.explain_op = argv[++i]; o.explain_type = argv[++i]; explicit_view = true; }
        else if (a == "--parsable" || a == "--parseable") o.format = Format::Parsable;
        else if (a == "--json") o.format = Format::Json;
        else if (a == "--mca") {
            need(2);
            if (opf_param_set_cmdline(argv[i + 1], argv[i + 2]) != OPF_SUCCESS) {
                std::fprintf(stderr, "opframe_info: --mca %s %s: %s\n", argv[i + 1], argv[i + 2], opf_last_error());
                return 2;
            }
            i += 2;
        } else if (a == "-V" || a == "--version") { std::printf("%s\n", PACKAGE_STRING); return 0; }
        else if (a == "-h" || a == "--help") return usage(stdout);
        else { std::fprintf(stderr, "opframe_info: unknown argument '%s'\n", argv[i]); return usage(stderr); }
    }
    if (explicit_view) o.build = o.components = false;
    if (o.params && o.level == 1 && o.param_component != "all") o.level = 9;   // one component: show everything
    const int rc = opf_init();
    if (rc != OPF_SUCCESS)   // still show what can be shown: the error is the first thing to read
        std::fprintf(stderr, "opframe_info: opf_init failed: %s\n", opf_last_error());
    if (!check_filters(o) || !check_memory_kind(o)) {
        opf_finalize();
        return 2;
    }
    Printer p{o.format};
    p.begin();
    if (!o.explain_op.empty()) {
        const int explained = show_explain(p, o);
        p.end();
        opf_finalize();
        return explained;
    }
    if (o.build) show_build(p);
    if (o.components) show_components(p);
    if (o.path) show_path(p);
    if (o.hw) show_hw(p);
    const int failed = o.failed ? show_failed(p) : 0;
    bool param_component_ok = true;
    if (o.params) {
        param_component_ok = check_param_component(p, o);
        if (param_component_ok) show_params(p, o);
    }
    if (o.kernels) show_kernels(p, o);
    if (o.types) show_types(p);
    p.end();
    opf_finalize();
    // A script asking --show-failed learns from the status whether anything failed.
    return rc == OPF_SUCCESS && param_component_ok && failed == 0 ? 0 : 1;
}
