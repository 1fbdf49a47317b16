// devices.h — the devices components report through
// opf_component_device_add (include/opframe/component_device.h), kept for
// one init..finalize and read back by opf_device_describe (introspect.h).
#pragma once

#include <string>
#include <vector>

namespace opf {

struct ComponentDevice {
    std::string component, name, kind, model;
};

// Every device reported since the last clear, in the order reported.
const std::vector<ComponentDevice> &component_devices();
// Forgets them (each opf_init starts from an empty list).
void clear_component_devices();

} // namespace opf
