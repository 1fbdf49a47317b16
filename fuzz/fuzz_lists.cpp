// fuzz_lists — the `op` include/exclude list, the op_base_pin syntax, the
// libtool archive (.la) reader and the ELF header description (libFuzzer).
// The first byte picks which. Properties beyond "no crash, no sanitizer
// report": an accepted list holds only valid component names; every pin
// names a real slot and a component name; a parsed .la's dlname is a plain
// file name.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <opframe/introspect.h>

#include "framework/component_files.h"
#include "framework/params.h"

namespace {

bool component_name(const std::string &n)
{
    if (n.empty()) return false;
    for (char c : n)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
    return true;
}

void check(bool ok, const char *what)
{
    if (ok) return;
    std::fprintf(stderr, "fuzz_lists: %s\n", what);
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    const std::string_view input(reinterpret_cast<const char *>(data + 1), size - 1);
    switch (data[0] % 4) {
    case 0: {
        opf::ComponentList list;
        std::string why;
        if (opf::parse_component_list(input, list, why)) {
            check(!input.empty() || list.names.empty(), "\"\" gives names");
            check(input.empty() || !list.names.empty(), "a non-empty list without names was accepted");
            for (const std::string &n : list.names) check(component_name(n), "an accepted name is not a component name");
        } else {
            check(!why.empty(), "a refused list without a reason");
        }
        break;
    }
    case 1: {
        std::vector<std::string> problems;
        for (const opf::Pin &pin : opf::parse_pins(input, problems)) {
            check(opf_slot_exists(pin.op, pin.kernel_type), "a pin for a pair that is not a slot");
            check(component_name(pin.provider), "a pin to a provider that is not a component name");
        }
        break;
    }
    case 2: {
        opf::LaFile la;
        std::string why;
        if (opf::parse_la(input, la, why))
            check(!la.dlname.empty() && la.dlname.find('/') == std::string::npos, "a dlname that is not a file name");
        else
            check(!why.empty(), "a refused .la without a reason");
        break;
    }
    case 3: (void)opf::describe_elf_header(input); break;
    }
    return 0;
}
