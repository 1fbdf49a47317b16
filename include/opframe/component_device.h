/*
 * component_device.h — how a component tells the framework which devices it
 * found and uses, so that opframe_info --hw can list them beside hwloc's OS
 * devices (opf_device_describe in introspect.h reads them back).
 *
 * Kept apart from component.h on purpose: it is one plain function, callable
 * by any component whatever its ABI version, and no struct layout depends
 * on it.
 */
#ifndef OPFRAME_COMPONENT_DEVICE_H
#define OPFRAME_COMPONENT_DEVICE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Records one device for the component named `component` (its own name, as
 * in opf_component_t.name). Call it from init_query, once per device:
 *   name   the device's name, hwloc's OS device name where there is one
 *          ("opencl0d0", "cuda0");
 *   kind   what it is: "gpu", "cpu", "accelerator", ...;
 *   model  free text (vendor, model, platform), may be NULL.
 * The framework copies the strings; the list is emptied at every opf_init,
 * and only devices of components that end up available are listed.
 * OPF_ERR_ARG (nothing recorded) for an unknown component or an empty
 * name or kind. */
int opf_component_device_add(const char *component, const char *name, const char *kind, const char *model);

#ifdef __cplusplus
}
#endif
#endif /* OPFRAME_COMPONENT_DEVICE_H */
