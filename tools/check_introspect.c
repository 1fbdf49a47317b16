/* The introspection calls, on bad input and by name:
 * opf_component_device_add refuses unknown components and empty names,
 * opf_device_describe bad indices, and memory kinds resolve by name. */
#include <stdio.h>
#include <string.h>

#include <opframe/component_device.h>
#include <opframe/introspect.h>

static int failures = 0;
#define CHECK(cond, ...) \
    do { if (!(cond)) { ++failures; printf("FAILED line %d: ", __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

int main(void)
{
    opf_device_info_t d;
    CHECK(opf_init() == OPF_SUCCESS, "opf_init: %s", opf_last_error());
    const int before = opf_device_count();
    CHECK(opf_component_device_add("nosuch", "gpu0", "gpu", "x") == OPF_ERR_ARG, "an unknown component is accepted");
    CHECK(strstr(opf_last_error(), "\"nosuch\"") != NULL, "message: %s", opf_last_error());
    CHECK(opf_component_device_add(NULL, "gpu0", "gpu", NULL) == OPF_ERR_ARG, "a NULL component is accepted");
    CHECK(opf_component_device_add("nosuch", "", "gpu", NULL) == OPF_ERR_ARG, "an empty name is accepted");
    CHECK(opf_component_device_add("nosuch", "gpu0", NULL, NULL) == OPF_ERR_ARG, "a NULL kind is accepted");
    CHECK(opf_device_count() == before, "a refused device was recorded");
    CHECK(opf_device_describe(-1, &d) == OPF_ERR_ARG, "index -1 accepted");
    CHECK(opf_device_describe(before, &d) == OPF_ERR_ARG, "index %d (the count) accepted", before);
    CHECK(opf_device_describe(0, NULL) == OPF_ERR_ARG, "NULL info accepted");
    for (int i = 0; i < before; ++i)
        if (opf_device_describe(i, &d) == OPF_SUCCESS)
            printf("device %d: %s (%s) %s, used by %s\n", i, d.name, d.kind, d.model, d.component);

    CHECK(opf_memory_kind_count() >= 1, "%d memory kinds", opf_memory_kind_count());
    for (int m = 0; m < opf_memory_kind_count(); ++m) {
        const char *name = opf_memory_kind_name(m);
        char upper[64] = "";
        for (size_t i = 0; name && name[i] && i + 1 < sizeof upper; ++i)
            upper[i] = (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 'a' + 'A' : name[i]);
        CHECK(name && opf_memory_kind_by_name(name) == m, "kind %d (%s) does not resolve back", m, name ? name : "NULL");
        CHECK(opf_memory_kind_by_name(upper) == m, "kind %d (%s) is not found case-insensitively", m, upper);
    }
    CHECK(opf_memory_kind_by_name("host") == OPF_MEM_HOST, "host");
    CHECK(opf_memory_kind_by_name("gpu") == -1 && opf_memory_kind_by_name(NULL) == -1, "unknown names resolve");
    CHECK(opf_memory_kind_name(-1) == NULL && opf_memory_kind_name(opf_memory_kind_count()) == NULL, "out of range");

    /* Host memory has no stream kernels; bad arguments give NULL / OPF_ERR_*. */
    char buf[2048];
    CHECK(opf_slot_stream_provider(OPF_OPID_SUM, OPF_KT_FLOAT, OPF_MEM_HOST, 2, 1) == NULL, "host stream kernel");
    CHECK(opf_slot_stream_provider(OPF_OPID_SUM, OPF_KT_FLOAT, 99, 2, 1) == NULL, "memory kind 99");
    CHECK(opf_slot_stream_provider(OPF_OPID_SUM, OPF_KT_FLOAT, OPF_MEM_HOST, 4, 1) == NULL, "nbuf 4");
    CHECK(opf_slot_explain_stream(OPF_OPID_SUM, OPF_KT_FLOAT, OPF_MEM_HOST, 2, buf, sizeof buf) == OPF_SUCCESS,
          "explain stream: %s", opf_last_error());
    CHECK(strstr(buf, "SUM FLOAT host 2-buffer stream:") == buf, "explain stream text: %s", buf);
    CHECK(opf_slot_explain_stream(OPF_OPID_SUM, OPF_KT_FLOAT, 99, 2, buf, sizeof buf) == OPF_ERR_ARG,
          "memory kind 99 explained");
    CHECK(opf_slot_explain_stream(OPF_OPID_MAXLOC, OPF_KT_INT32, OPF_MEM_HOST, 2, buf, sizeof buf) == OPF_ERR_OP,
          "MAXLOC INT32 is no slot");
    CHECK(opf_slot_explain_stream(OPF_OPID_SUM, OPF_KT_FLOAT, OPF_MEM_HOST, 2, NULL, 10) == OPF_ERR_ARG, "NULL buf");
    opf_finalize();
    printf("check_introspect: %d failed\n", failures);
    return failures != 0;
}
