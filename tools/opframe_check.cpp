// opframe_check.cpp — the conformance engine as an installed tool, for
// component writers (opframe_check(1)).
//
//   opframe_check [--provider NAME]... [--quick | --deep | --slow] [--mca NAME VALUE]...
//                 [--list] [--seed N] [--function PAT]... [--skip PAT]... [--tier N]
//                 [--native] [--max-failures N] [--max-length N] [--lengths LIST]
//                 [--threads | --no-threads] [--bench] [-v] [--self-test]
//
// The program is test/conformance.cpp (the engine's run over every provider:
// guarded buffers, fences, padding guards, faults captured per slot) with
// this front end: it applies --mca values the way opframe's other tools do
// (opf_param_set_cmdline, e.g. mca_component_path for a component directory
// of one's own), refuses a --provider that names no usable provider (with
// the component's state and reason, or the ones there are), and lists the
// providers (--list). Everything else goes to the conformance run unchanged.
// The run is test/conformance.cpp, compiled once into
// test/engine/libconformance.a and linked here as test/conformance links it.

#include "test/conformance.h"
#include "test/engine/engine.h"

#include <opframe/introspect.h>
#include <opframe/opframe.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

const char kUsage[] =
    "usage: opframe_check [--provider NAME]... [--quick | --deep | --slow] [--mca NAME VALUE]...\n"
    "                     [--list] [--seed N] [--function PAT]... [--skip PAT]... [--tier N]\n"
    "                     [--native] [--max-failures N] [--max-length N] [--lengths LIST]\n"
    "                     [--threads | --no-threads] [--bench] [-v] [--self-test]\n"
    "\n"
    "Checks opframe's kernels against the conformance engine's independent reference: every\n"
    "(op, kernel type) slot each provider offers, 2- and 3-buffer kernels, on guarded buffers\n"
    "(fences, padding guards, faults captured), then the public entry points.\n"
    "\n"
    "  --provider NAME   check this provider only: a component's name, \"base\", or \"selected\"\n"
    "                    (the selected table); repeatable. Default: the base, every available\n"
    "                    component and the selected table\n"
    "  --mca NAME VALUE  set an opframe parameter first, e.g. --mca mca_component_path DIR\n"
    "                    (repeatable; as opframe_info --mca)\n"
    "  --list            list the providers (and the component files that could not be used)\n"
    "  --native          the native ISA level only (--deep and --slow also re-run each\n"
    "                    component with CPU features hidden: op_base_isa_mask)\n"
    "  --max-failures N  failures shown in detail (default 30)\n"
    "  --self-test       show that the engine catches wrong results, stray writes and faults\n"
    "  -h, --help        this text\n";

// The options the conformance run takes (engine::Options and its own):
// 1 if followed by a value, 0 if not, -1 if unknown. The engine's value
// options also take --name=value.
int option_arity(const std::string& a)
{
    static const char* const valued[] = {"--seed",       "--function", "--skip",      "--tier",
                                         "--max-failures", "--provider", "--max-length", "--lengths"};
    static const char* const flags[] = {"--bench", "--quick",  "--deep",      "--slow",    "-v",
                                        "--verbose", "--native", "--self-test", "--threads", "--no-threads"};
    for (const char* v : valued) {
        if (a == v)
            return 1;
        if (a.rfind(std::string(v) + "=", 0) == 0 && a != "--max-failures=" && a.rfind("--provider=", 0) != 0 &&
            a.rfind("--max-failures=", 0) != 0)
            return 0;
    }
    for (const char* f : flags)
        if (a == f)
            return 0;
    return -1;
}

void usage(FILE* to)
{
    std::fprintf(to, "%s%s", kUsage, engine::Options::help());
}

// The component name of a component file opf_op_NAME.so ("" if not one).
std::string file_component(const char* path)
{
    const char* base = std::strrchr(path, '/');
    base = base ? base + 1 : path;
    if (std::strncmp(base, "opf_op_", 7) != 0)
        return "";
    return std::string(base + 7, std::strcspn(base + 7, "."));
}

// Lists the providers: the base, each component with its state, the files
// that could not be used.
void list_providers()
{
    std::printf("base: opframe's own kernels\n");
    for (int i = 0; i < opf_component_count(); ++i) {
        opf_component_info_t c;
        if (opf_component_describe(i, &c) == OPF_SUCCESS)
            std::printf("%s: %s (%s)\n", c.name, c.status ? c.status : "?", c.path ? c.path : "?");
    }
    for (int i = 0; i < opf_failed_count(); ++i) {
        opf_failed_info_t f;
        if (opf_failed_describe(i, &f) == OPF_SUCCESS)
            std::printf("(could not use %s: %s)\n", f.path ? f.path : "?", f.reason ? f.reason : "?");
    }
    std::printf("selected: the table opf_reduce_local uses\n");
}

// Whether NAME is a provider the run can check; if not, says why on stderr.
bool provider_usable(const std::string& name)
{
    if (name == "base" || name == "selected")
        return true;
    std::string names;
    for (int i = 0; i < opf_component_count(); ++i) {
        opf_component_info_t c;
        if (opf_component_describe(i, &c) != OPF_SUCCESS)
            continue;
        if (name == c.name) {
            if (c.available)
                return true;
            std::fprintf(stderr, "opframe_check: component %s (%s) is not available: %s\n", c.name,
                         c.path ? c.path : "?", c.status ? c.status : "?");
            return false;
        }
        names += names.empty() ? "" : ", ";
        names += c.name;
    }
    for (int i = 0; i < opf_failed_count(); ++i) {
        opf_failed_info_t f;
        if (opf_failed_describe(i, &f) == OPF_SUCCESS && f.path && file_component(f.path) == name) {
            std::fprintf(stderr, "opframe_check: component %s could not be used: %s: %s\n", name.c_str(), f.path,
                         f.reason ? f.reason : "?");
            return false;
        }
    }
    char path[1024] = "";
    opf_param_get("mca_component_path", path, int(sizeof path));
    std::fprintf(stderr,
                 "opframe_check: no component \"%s\" on mca_component_path \"%s\" (components: %s; "
                 "opframe_check --list; --mca mca_component_path DIR searches DIR only)\n",
                 name.c_str(), path, names.empty() ? "none" : names.c_str());
    return false;
}

} // namespace

int main(int argc, char** argv)
{
    std::vector<char*> pass{argv[0]};
    std::vector<std::string> providers;
    bool list = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "-h" || a == "--help") {
            usage(stdout);
            return 0;
        }
        if (a == "--mca") {
            if (i + 2 >= argc) {
                std::fprintf(stderr, "opframe_check: --mca needs a name and a value\n");
                return 2;
            }
            if (opf_param_set_cmdline(argv[i + 1], argv[i + 2]) != OPF_SUCCESS) {
                std::fprintf(stderr, "opframe_check: --mca %s %s: %s\n", argv[i + 1], argv[i + 2], opf_last_error());
                return 2;
            }
            i += 2;
            continue;
        }
        if (a == "--list") {
            list = true;
            continue;
        }
        if (a == "--backend") { // the OpenCL buffers are the test program's (test/conformance)
            std::fprintf(stderr, "opframe_check: --backend: not in this tool (host buffers only)\n");
            return 2;
        }
        const int arity = option_arity(a);
        if (arity < 0) {
            std::fprintf(stderr, "opframe_check: unknown option '%s'\n\n", argv[i]);
            usage(stderr);
            return 2;
        }
        if (arity == 1 && (i + 1 >= argc || argv[i + 1][0] == '\0')) {
            std::fprintf(stderr, "opframe_check: %s needs a value\n", argv[i]);
            return 2;
        }
        if (a == "--provider")
            providers.push_back(argv[i + 1]);
        if (a == "--max-failures") {
            char* end = nullptr;
            const long n = std::strtol(argv[i + 1], &end, 10);
            if (!end || *end || n < 0 || n > 1000000) {
                std::fprintf(stderr, "opframe_check: --max-failures %s: not a count\n", argv[i + 1]);
                return 2;
            }
        }
        pass.push_back(argv[i]);
        if (arity == 1)
            pass.push_back(argv[++i]);
    }
    // The providers are known once opframe has loaded its components.
    if (opf_init() != OPF_SUCCESS) {
        std::fprintf(stderr, "opframe_check: opf_init failed: %s\n", opf_last_error());
        return 2;
    }
    if (list) {
        list_providers();
        opf_finalize();
        return 0;
    }
    bool usable = true;
    for (const std::string& p : providers)
        usable = provider_usable(p) && usable;
    opf_finalize();
    if (!usable)
        return 2;
    pass.push_back(nullptr);
    return opf_conformance_main(int(pass.size()) - 1, pass.data());
}
