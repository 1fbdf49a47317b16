// devices.cpp — devices reported by components (see devices.h).
#include "framework/devices.h"

#include <opframe/component_device.h>
#include <opframe/introspect.h>

#include "framework/components.h"
#include "framework/error.h"
#include "framework/runtime.h"

namespace opf {

namespace {
std::vector<ComponentDevice> reported;

bool empty(const char *s) { return !s || !*s; }

// Devices are listed only while the component that reported them takes part.
bool listed(const ComponentDevice &d)
{
    for (const ComponentRecord &c : components())
        if (c.name == d.component) return c.state == ComponentState::Available;
    return false;
}
} // namespace

const std::vector<ComponentDevice> &component_devices() { return reported; }
void clear_component_devices() { reported.clear(); }

} // namespace opf

using namespace opf;

// Called by components from init_query, under the framework's init lock.
OPF_API int opf_component_device_add(const char *component, const char *name, const char *kind, const char *model)
try {
    if (empty(component) || empty(name) || empty(kind))
        return fail(OPF_ERR_ARG, "opf_component_device_add: component, name and kind must be non-empty");
    bool known = false;
    for (const ComponentRecord &c : components()) known |= c.name == component;
    if (!known)
        return fail(OPF_ERR_ARG, "opf_component_device_add: no component \"%s\" is loaded (device %s)", component, name);
    reported.push_back({component, name, kind, model ? model : ""});
    return OPF_SUCCESS;
} catch (...) {
    return fail_exception("opf_component_device_add");
}

OPF_API int opf_device_count(void)
try {
    ensure_initialized();
    int n = 0;
    for (const ComponentDevice &d : reported) n += listed(d);
    return n;
} catch (...) {
    return fail_exception("opf_device_count");
}

OPF_API int opf_device_describe(int index, opf_device_info_t *info)
try {
    if (!info) return fail(OPF_ERR_ARG, "opf_device_describe: info is NULL");
    int at = 0;
    for (const ComponentDevice &d : reported)
        if (listed(d) && at++ == index) {
            info->component = d.component.c_str();
            info->name = d.name.c_str();
            info->kind = d.kind.c_str();
            info->model = d.model.c_str();
            return OPF_SUCCESS;
        }
    return fail(OPF_ERR_ARG, "opf_device_describe: no device %d (opf_device_count() is %d)", index, at);
} catch (...) {
    return fail_exception("opf_device_describe");
}
