// opframe_info — what this opframe build is and which kernel serves each slot.
//
//   opframe_info                      package, version, build
//   opframe_info --kernels [--op OP] [--type KT] [--parsable]
//                                     the mixed table: provider of every slot (2-buffer/3-buffer)
//   opframe_info --types [--parsable] every predefined datatype, its kernel type and its ops
#include <cstdio>
#include <cstring>
#include <string>

#include <opframe/introspect.h>
#include <opframe/opframe.h>

#include "config.h"

namespace {

const char *op_name(int id) { return opf_op_name(reinterpret_cast<opf_op_t>(uintptr_t(id))); }

bool matches(const char *filter, const char *name) { return !filter || strcasecmp(filter, name) == 0; }

void show_build()
{
    std::printf("                 Package: %s\n", PACKAGE_STRING);
    std::printf("                 Version: %d.%d.%d\n", OPF_VERSION_MAJOR, OPF_VERSION_MINOR, OPF_VERSION_PATCH);
    std::printf("            C++ compiler: %s\n", OPF_BUILD_CXX);
    std::printf("            Kernel flags: %s\n", OPF_BUILD_KERNEL_FLAGS);
    std::printf("    Open MPI comparison: %s\n", OPF_BUILD_OMPI);
    int slots = 0;
    for (int op = 1; op < OPF_OPID_COUNT; ++op)
        for (int kt = 0; kt < OPF_KT_COUNT; ++kt) slots += opf_slot_exists(op, kt);
    std::printf("    Kernel slots (host): %d (each with a 2-buffer and a 3-buffer kernel)\n", slots);
    std::printf("              Providers: base\n");
}

// One line per kernel type; one column per op: "2buf/3buf" provider.
void show_kernels(const char *op_filter, const char *type_filter, bool parsable)
{
    if (!parsable) {
        std::printf("%-22s", "kernel type");
        for (int op = 1; op < OPF_OPID_COUNT; ++op)
            if (matches(op_filter, op_name(op))) std::printf(" %-8s", op_name(op));
        std::printf("\n");
    }
    for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
        const char *kt_name = opf_kernel_type_name(kt);
        if (!matches(type_filter, kt_name)) continue;
        if (!parsable) std::printf("%-22s", kt_name);
        for (int op = 1; op < OPF_OPID_COUNT; ++op) {
            if (!matches(op_filter, op_name(op))) continue;
            const char *p2 = opf_slot_provider(op, kt, 2, 1);
            const char *p3 = opf_slot_provider(op, kt, 3, 1);
            if (parsable) {
                if (p2 || p3)
                    std::printf("kernel:%s:%s:2buf:%s\nkernel:%s:%s:3buf:%s\n", op_name(op), kt_name, p2 ? p2 : "none",
                                op_name(op), kt_name, p3 ? p3 : "none");
            } else if (!p2 && !p3) {
                std::printf(" %-8s", ".");
            } else {
                std::string cell = p2 && p3 && !std::strcmp(p2, p3) ? p2 : std::string(p2 ? p2 : "-") + "/" + (p3 ? p3 : "-");
                std::printf(" %-8s", cell.c_str());
            }
        }
        if (!parsable) std::printf("\n");
    }
    if (!parsable) std::printf("(\".\": the op is not defined on the kernel type)\n");
}

void show_types(bool parsable)
{
    for (int id = 1; id < OPF_TYPEID_COUNT_; ++id) {
        const opf_datatype_t t = reinterpret_cast<opf_datatype_t>(uintptr_t(id));
        opf_count_t size;
        int kt;
        if (opf_type_size(t, &size) != OPF_SUCCESS || opf_type_kernel_type(t, &kt) != OPF_SUCCESS) {
            std::printf(parsable ? "type:%s:unsupported\n" : "%-22s (not supported by this build)\n", opf_type_name(t));
            continue;
        }
        std::string ops;
        for (int op = 1; op < OPF_OPID_COUNT; ++op) {
            int valid = 0;
            opf_op_valid_for_type(reinterpret_cast<opf_op_t>(uintptr_t(op)), t, &valid);
            if (valid) ops += std::string(ops.empty() ? "" : parsable ? "," : " ") + op_name(op);
        }
        if (parsable)
            std::printf("type:%s:%s:%lld:%s\n", opf_type_name(t), opf_kernel_type_name(kt), (long long)size, ops.c_str());
        else
            std::printf("%-22s %-16s %3lld B  %s\n", opf_type_name(t), opf_kernel_type_name(kt), (long long)size,
                        ops.c_str());
    }
}

int usage(FILE *to)
{
    std::fprintf(to, "usage: opframe_info [--kernels [--op OP] [--type KERNEL_TYPE]] [--types] [--parsable] [-V]\n");
    return to == stderr ? 2 : 0;
}

} // namespace

int main(int argc, char **argv)
{
    bool kernels = false, types = false, parsable = false;
    const char *op_filter = nullptr, *type_filter = nullptr;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--kernels") kernels = true;
        else if (a == "--types") types = true;
        else if (a == "--parsable") parsable = true;
        else if (a == "--op" && i + 1 < argc) op_filter = argv[++i];
        else if (a == "--type" && i + 1 < argc) type_filter = argv[++i];
        else if (a == "-V" || a == "--version") {
            std::printf("%s\n", PACKAGE_STRING);
            return 0;
        } else if (a == "-h" || a == "--help") return usage(stdout);
        else {
            std::fprintf(stderr, "opframe_info: unknown argument '%s'\n", argv[i]);
            return usage(stderr);
        }
    }
    if (opf_init() != OPF_SUCCESS) {
        std::fprintf(stderr, "opframe_info: opf_init failed: %s\n", opf_last_error());
        return 1;
    }
    if (!kernels && !types) show_build();
    if (kernels) show_kernels(op_filter, type_filter, parsable);
    if (types) show_types(parsable);
    opf_finalize();
    return 0;
}
