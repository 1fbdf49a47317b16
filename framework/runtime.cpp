// runtime.cpp — opf_init / opf_finalize.
#include "framework/runtime.h"

#include <mutex>

#include "framework/components.h"
#include "framework/datatype.h"
#include "framework/error.h"
#include "framework/op.h"
#include "framework/params.h"
#include "framework/workers.h"

namespace opf {

std::atomic<bool> initialized{false};

namespace {
std::mutex lifecycle;
}

namespace {
int initialize_locked()
{
    std::lock_guard lock(lifecycle);
    if (initialized.load(std::memory_order_relaxed)) return OPF_SUCCESS;
    try {
        load_params();
        load_base_table();
        // Components overlay the base table; a bad `op` list leaves the
        // library uninitialised and the error reported to the caller.
        if (int rc = components_init()) {
            load_base_table();
            return rc;
        }
        check_unknown_names(component_state);
        start_workers();
    } catch (...) {
        load_base_table();
        return fail_exception("opf_init");
    }
    build_call_rows();
    initialized.store(true, std::memory_order_release);
    return OPF_SUCCESS;
}
} // namespace

// Lazy: the first call of any entry point gets here. What init recovers from
// (a parameter someone declared first, a component that fails to load) is
// warned about, not left in the caller's opf_last_error().
int initialize_slow() noexcept
{
    LastErrorScope caller_error;
    int rc;
    try {
        rc = initialize_locked();
    } catch (...) {   // the lock itself failed
        rc = fail_exception("opf_init");
    }
    if (rc) caller_error.keep();
    return rc;
}

} // namespace opf

using namespace opf;

OPF_API int opf_init(void) { return ensure_initialized(); }

// Handles in use (a user callback that finalizes) stay valid until their
// calls end; another thread inside opframe during finalize is a user error
// (as in MPI), documented in opframe.h.
OPF_API int opf_finalize(void)
try {
    std::lock_guard lock(lifecycle);
    if (!initialized.load(std::memory_order_relaxed)) return OPF_SUCCESS;
    initialized.store(false, std::memory_order_release);
    clear_call_rows();
    stop_workers();   // before the components that hold its kernels go
    release_all_user_ops();
    release_all_types();
    components_finalize();
    params_finalize();   // after close(): a component may read its parameters until then
    return OPF_SUCCESS;
} catch (...) {
    return fail_exception("opf_finalize");
}

OPF_API int opf_initialized(int *flag)
{
    if (!flag) return fail(OPF_ERR_ARG, "opf_initialized: flag is NULL");
    *flag = initialized.load(std::memory_order_acquire);
    return OPF_SUCCESS;
}

OPF_API int opf_get_api_version(int *major, int *minor, int *patch)
{
    if (major) *major = OPF_VERSION_MAJOR;
    if (minor) *minor = OPF_VERSION_MINOR;
    if (patch) *patch = OPF_VERSION_PATCH;
    return OPF_SUCCESS;
}
