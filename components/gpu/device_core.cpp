// device_core.cpp — the host logic of a GPU component (device_core.h), on a
// vendor's Backend.
#include "device_core.h"

#include <opframe/component_device.h>
#include <opframe/introspect.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "base/matrix.h"
#include "base/proc_maps.h"
#include "base/storage.h"
#include "base/type_list.h"

// Weak: a framework older than it asks the per-buffer claim hook instead,
// and remembers no host mapping.
extern "C" int opf_memory_kind_set_claims(int kind, opf_memory_claims_fn *claims) __attribute__((weak));
extern "C" int opf_memory_kind_set_mapping_count(int kind, const uint64_t *count) __attribute__((weak));

namespace opf_gpu {
namespace {

namespace base = opf::base;
using base::op_names;

Backend *be = nullptr;   // the component's (register_params)

// ---- parameters ------------------------------------------------------------------
int64_t priority = 60;
int64_t device_param = -1;
int64_t block_size = 256;
// A thread per work item by default: on an NVIDIA H200 the
// 2-buffer calls went from 0.94-0.95 to 0.96-0.98 of copy speed at 256 MiB,
// the 3-buffer ones from 0.97 to 1.00-1.02, against a grid of resident blocks.
int64_t max_blocks_param = int64_t(1) << 30;
// Measured on an NVIDIA H200 (cuda_bench section 3, float SUM, host
// in, device inout): staging faster at every count from 1 in two of three
// runs (13.9 vs 14.8 us at 1, 16.4 vs 23.5 at 4096), and in the third at
// every count but 16 and 64: the host path stays for what cannot be staged.
int64_t staging_min_count = 1;
int64_t scratch_cache = 64 << 20;
int stream_check = 1;
int lazy_init = 1;
int64_t verbose = 0;
int64_t errors = 0;
const char *devices_text = "";
std::string devices_storage;
int host_cache = 1;
char host_cache_text[256] = "";
const char *host_cache_state = host_cache_text;

// ---- the runtime's state ------------------------------------------------------------
// Whether anyone in this process (the application, a library, this component)
// has initialised the runtime: before that no device memory can exist. Asked
// of the backend until it says yes; that is remembered.
std::atomic<bool> runtime_live{false};
bool runtime_initialised()
{
    if (runtime_live.load(std::memory_order_relaxed)) [[likely]] return true;
    if (!be->is_open() || !be->runtime_initialised()) return false;
    runtime_live.store(true, std::memory_order_relaxed);
    return true;
}

struct Device {
    std::mutex mutex;             // the first use (use_device)
    bool attributes_read = false;
    std::atomic<bool> probed{false};   // the kernel probe answered (usable says how)
    std::atomic<Context> probed_in{nullptr};   // in this context: a reset destroys its module and pool
    std::atomic<bool> usable{false};   // kernels load here
    DeviceAttributes attributes;
    std::atomic<Pool> pool{nullptr};   // staging scratch (nullptr: plain allocations)
    std::atomic<int64_t> grid[OPF_OPID_COUNT][OPF_KT_COUNT] = {};   // (block << 32) | max blocks; 0 unknown
    std::atomic<int64_t> grid_n[OPF_OPID_COUNT][OPF_KT_COUNT][kNaryForms] = {};   // the n-ary kernels'
    std::atomic<Context> primary{nullptr};   // its primary context as last seen (a reset makes a new one)
};
int n_devices = 0;
std::unique_ptr<Device[]> devices;
int extent_of[OPF_KT_COUNT];

// The devices are set up once, at the first call that needs them (or at
// init_query when op_<component>_lazy_init is false); the outcome is kept.
enum SetupState { kNotSetUp, kSetUp, kSetupFailed };
std::atomic<int> setup_state{kNotSetUp};
int setup_code = OPF_SUCCESS;
char setup_reason[512];
std::mutex setup_mutex;

int set_up_devices(bool list)
{
    std::string text;
    int count = 0;
    const int rc = be->set_up_devices(list, device_param, text, setup_reason, sizeof setup_reason, count);
    if (!text.empty()) {
        devices_storage = text;
        devices_text = devices_storage.c_str();
    }
    if (rc != OPF_SUCCESS) return rc;
    devices = std::make_unique<Device[]>(size_t(count));
    n_devices = count;
    return OPF_SUCCESS;
}

// OPF_SUCCESS once the devices are set up, else the code of why not (the
// reason in setup_reason).
int devices_ready(bool list = false)
{
    int state = setup_state.load(std::memory_order_acquire);
    if (state == kNotSetUp) [[unlikely]] {
        std::lock_guard<std::mutex> lock(setup_mutex);
        state = setup_state.load(std::memory_order_relaxed);
        if (state == kNotSetUp) {
            setup_code = set_up_devices(list);
            state = setup_code == OPF_SUCCESS ? kSetUp : kSetupFailed;
            setup_state.store(state, std::memory_order_release);
        }
    }
    return state == kSetUp ? OPF_SUCCESS : setup_code;
}

// The same, made the calling thread's error when the devices are unusable.
int require_devices()
{
    const int rc = devices_ready();
    return rc == OPF_SUCCESS ? rc : opf_component_set_error(rc, "%s", setup_reason);
}

// Where each kernel type's data bytes are (component.h: kernels and copies
// touch them only: not a pair's padding, not past the last element's data).
struct TypeBytes {
    base::DataLayout layout;
    size_t size, end;   // sizeof, and where an element's data ends
    size_t true_bytes(int64_t n) const { return n > 0 ? size_t(n - 1) * size + end : 0; }
    bool dense() const { return layout.dense(size); }
};
template <std::size_t... K> constexpr std::array<TypeBytes, OPF_KT_COUNT> make_type_bytes(std::index_sequence<K...>)
{
    return {{TypeBytes{base::data_layout<base::at_t<K, base::KernelTypes>>, sizeof(base::at_t<K, base::KernelTypes>),
                       base::data_end<base::at_t<K, base::KernelTypes>>}...}};
}
constexpr auto type_bytes = make_type_bytes(std::make_index_sequence<OPF_KT_COUNT>{});

// dst = src for n elements of kt, data bytes only, enqueued on `stream`: one
// copy of the true extent when an element has no padding, else one strided
// copy per data range.
Error copy_data(void *dst, const void *src, int64_t n, int kt, Stream stream)
{
    const TypeBytes &t = type_bytes[kt];
    if (n <= 0) return 0;
    if (t.dense()) return be->copy(dst, src, t.true_bytes(n), stream);
    for (int r = 0; r < t.layout.count; ++r) {
        const base::ByteRange &range = t.layout.range[r];
        const Error e = be->copy_2d(static_cast<char *>(dst) + range.offset, t.size,
                                    static_cast<const char *>(src) + range.offset, t.size, range.size, size_t(n), stream);
        if (e) return e;
    }
    return 0;
}

// The same between two host buffers.
void host_copy_data(void *dst, const void *src, int64_t n, int kt)
{
    const TypeBytes &t = type_bytes[kt];
    if (n <= 0) return;
    if (t.dense()) {
        std::memmove(dst, src, t.true_bytes(n));
        return;
    }
    for (int64_t i = 0; i < n; ++i)
        for (int r = 0; r < t.layout.count; ++r) {
            const size_t at = size_t(i) * t.size + t.layout.range[r].offset;
            std::memmove(static_cast<char *>(dst) + at, static_cast<const char *>(src) + at, t.layout.range[r].size);
        }
}

// A runtime failure: counted (op_<component>_errors), printed when
// op_<component>_verbose > 0, and made the calling thread's reason; returns
// `code` for the kernel to return.
[[gnu::format(printf, 2, 3)]] int failure(int code, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    __atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
    if (__atomic_load_n(&verbose, __ATOMIC_RELAXED) > 0) opf_component_log(0, "%s", text);
    return opf_component_set_error(code, "%s", text);
}

const char *kt_name(int kt)
{
    const char *n = opf_kernel_type_name(kt);
    return n ? n : "?";
}

// The device's state for a call, set up at its first use in this process;
// the caller has made `dev` current (DeviceScope: nothing here changes the
// thread's context). The attributes are read once; the kernel probe, where
// the runtime loads the module lazily, is retried until it answers: a
// transient failure (out of memory, ...) fails the calling call only, and
// the next call probes again. A missing kernel image is final: the device's
// synchronous calls take the host path, its stream calls are refused.
// The probe and the pool belong to the device's primary context: after the
// application reset the device (e.g. to recover from a sticky fault) its
// primary context is a new one, and both are made again there: the old pool
// is gone with the old context, and every staged call would otherwise take
// the host path for good.
int use_device(int dev, Device *&out)
{
    Device &d = devices[dev];
    out = &d;
    Context now = nullptr;   // dev's primary context: the caller made it current
    be->current_context(now);
    auto set_up_here = [&] {
        return d.probed.load(std::memory_order_acquire) && d.probed_in.load(std::memory_order_relaxed) == now;
    };
    if (set_up_here()) [[likely]] return OPF_SUCCESS;
    std::lock_guard<std::mutex> lock(d.mutex);
    if (set_up_here()) return OPF_SUCCESS;
    if (d.probed.load(std::memory_order_relaxed)) {   // set up in a context since destroyed: its pool went with it
        d.probed.store(false, std::memory_order_relaxed);
        d.usable.store(false, std::memory_order_relaxed);
        d.pool.store(nullptr, std::memory_order_relaxed);
    }
    d.probed_in.store(now, std::memory_order_relaxed);
    if (!d.attributes_read) {
        d.attributes = be->attributes(dev);
        d.attributes_read = true;
    }
    const Error e = be->probe_kernels();
    if (e) {
        be->clear_error();
        if (!be->no_kernel_image(e))
            return failure(be->opf_code(e), "device %d: loading the kernels failed: %s (%s); the next call tries again",
                           dev, be->error_name(e), be->error_string(e));
        if (__atomic_load_n(&verbose, __ATOMIC_RELAXED) > 0)   // not an error of any call: said once
            opf_component_log(0, "device %d: no usable kernel image (%s: %s; built for %s): its synchronous calls "
                              "run on the host", dev, be->error_name(e), be->error_string(e), arch_list());
        d.probed.store(true, std::memory_order_release);
        return OPF_SUCCESS;
    }
    d.usable.store(true, std::memory_order_relaxed);
    if (d.attributes.pools)
        d.pool.store(be->create_pool(dev, uint64_t(std::max<int64_t>(0, scratch_cache))), std::memory_order_relaxed);
    d.probed.store(true, std::memory_order_release);
    return OPF_SUCCESS;
}

// The launch geometry of `kernel` on d; `cache` keeps the occupancy's answer.
Geometry geometry(Device &d, std::atomic<int64_t> &cache, const void *kernel)
{
    int block = int(std::clamp<int64_t>(block_size, 32, 1024)) / 32 * 32;
    if (max_blocks_param > 0) return {block, int(std::min<int64_t>(max_blocks_param, 1 << 30))};
    const int64_t cached = cache.load(std::memory_order_relaxed);
    if (cached && (cached >> 32) == block) return {block, int(cached & 0xffffffff)};
    int per_sm = 0;
    const bool known = be->occupancy(per_sm, kernel, block) == 0 && per_sm >= 1;
    if (!known) {   // a guess for this call; the next one asks again (the failure may be transient)
        be->clear_error();
        per_sm = std::max(1, 2048 / block);
    }
    const int blocks = std::max(1, per_sm * d.attributes.sm_count);
    if (known) cache.store((int64_t(block) << 32) | blocks, std::memory_order_relaxed);
    return {block, blocks};
}

// ---- where a buffer lives -------------------------------------------------------
// Whether p lies in a private, anonymous, readable and writable mapping (the
// kernel's list of this process's mappings): memory host code can use,
// whatever the runtime would say, for drivers map device memory
// inaccessible or from their device files. Asked only where the runtime's
// pointer query failed (a failing query on plain host memory once refused
// every host reduction on it), so its cost (a read of
// /proc/self/maps) is the failure path's alone.
bool plain_host_mapping(const void *p)
{
    const auto at = reinterpret_cast<uintptr_t>(p);
    bool plain = false;
    base::for_each_mapping([&](const base::ProcMapping &m) {
        if (at < m.low || at >= m.high) return false;
        plain = m.readable() && m.perms[1] == 'w' && m.perms[3] == 'p' && m.anonymous();
        return true;
    });
    return plain;
}

PointerInfo classify(const void *p)
{
    if (!be->is_open() || !p) return {};
    PointerInfo b = be->query_pointer(p);
    if (b.status == PointerInfo::NotInitialised) {   // no device memory can exist
        b.where = Where::Host;
        return b;
    }
    if (b.status == PointerInfo::Failed) {
        b.where = plain_host_mapping(p) ? Where::Host : Where::Unknown;
        return b;
    }
    if (b.device < 0 || b.device >= n_devices) b.device = -1;   // device memory of no known device: always staged
    return b;
}

bool on_host(const PointerInfo &b) { return b.where == Where::Host || b.where == Where::Pinned; }

int memory_kind = -1;   // "<component>", registered at init_query

// Unknown memory is claimed too, so that the call reaches this component and
// is refused with the reason instead of running the host base on it; before
// the runtime is initialised (a host-only process), no pointer is asked about.
// Device memory is claimed even where the devices could not be set up: the
// call then fails with the reason (require_devices) instead of crashing in
// host code.
// The framework asks once per call with the buffers it cannot place itself:
// never the program's image, the brk heap or a stack (component.h: the
// framework and its inline calls place those themselves). The runtime's state is then asked at
// most once per call; once it is initialised, each buffer costs one
// pointer query. The framework remembers the mappings of buffers claimed
// by none while the driver maps nothing (host_mapping_count)
// and asks nothing about buffers in them.
unsigned claims_call(const void *const *ptrs, int n)
{
    unsigned unknown = 0;
    for (int i = 0; i < n; ++i)
        if (ptrs[i]) unknown |= 1u << i;
    if (!unknown || !runtime_initialised()) return 0;
    devices_ready();   // the first claim after initialisation sets them up; classify reads n_devices
    unsigned claimed = 0;
    for (int i = 0; i < n; ++i) {
        if (!(unknown >> i & 1)) continue;
        int same = 0;   // a buffer asked about already in this call (an in-place operand) is not asked again
        while (same < i && ptrs[same] != ptrs[i]) ++same;
        if (same < i) {
            claimed |= (claimed >> same & 1u) << i;
            continue;
        }
        const PointerInfo b = classify(ptrs[i]);
        if (b.where == Where::Device || b.where == Where::Managed || b.where == Where::Unknown) claimed |= 1u << i;
    }
    return claimed;
}
int claims(const void *ptr) { return int(claims_call(&ptr, 1)); }

// Whether ctx is the primary context of dev: the handle last seen answers at
// once; anything else asks the backend (the primary context may have been reset).
bool is_primary(int dev, Context ctx)
{
    std::atomic<Context> &seen = devices[dev].primary;
    if (ctx == seen.load(std::memory_order_relaxed)) return true;
    const Context now = be->primary_context(dev);
    if (now) seen.store(now, std::memory_order_relaxed);
    return ctx == now;
}

// The buffers of one call: the inputs at 0 .. k-1, the output at k (the
// 3-buffer calls: in1, in2, out), each classified once; alias[i] is the
// first operand at the same address (i itself when none before it is).
struct Operands {
    int k = 0;
    const void *ptr[kMaxInputs + 1];
    PointerInfo where[kMaxInputs + 1];
    int alias[kMaxInputs + 1];
    int out() const { return k; }
    bool distinct(int i) const { return alias[i] == i; }
};

void classify_operands(Operands &ops, const void *const in[], int k, const void *out)
{
    ops.k = k;
    for (int i = 0; i <= k; ++i) {
        ops.ptr[i] = i < k ? in[i] : out;
        ops.alias[i] = i;
        for (int j = 0; j < i; ++j)
            if (ops.ptr[j] == ops.ptr[i]) {
                ops.alias[i] = j;
                break;
            }
        ops.where[i] = ops.distinct(i) ? classify(ops.ptr[i]) : ops.where[ops.alias[i]];
    }
}

// OPF_ERR_BUFFER with the reason when a buffer cannot be used by a kernel:
// its place is unknown, or it is device memory of a context other than its
// device's primary one: the core works in the primary context, where such an
// address is illegal. Buffers are numbered from 1: the inputs, then the output.
int refuse_unusable(const char *what, const Operands &ops)
{
    const Names &w = be->names;
    for (int i = 0; i <= ops.k; ++i) {
        const PointerInfo &b = ops.where[i];
        if (b.where == Where::Unknown)
            return failure(OPF_ERR_BUFFER, "%s: cannot tell where buffer %d lives (%s failed: %s %d); refused", what,
                           i + 1, w.pointer_query, w.result_type, b.code);
        if (b.where == Where::Device && b.device >= 0 && b.context && !is_primary(b.device, b.context))
            return failure(OPF_ERR_BUFFER, "%s: buffer %d is memory of a %s context other than device %d's "
                           "primary context (%s): not supported", what, i + 1, w.vendor, b.device, w.private_contexts);
    }
    return OPF_SUCCESS;
}

// The calling thread's context for the span of a call: recorded when made,
// `dev` made current by enter (its primary context), and the caller's
// restored exactly by leave (or the destructor) — none, or one of its own. A context call that
// fails fails the call: enter before anything changed, leave with the
// reason (the thread's context is then what the driver left).
class DeviceScope {
public:
    DeviceScope() : got(be->current_context(previous)), open(got == 0) {}
    DeviceScope(const DeviceScope &) = delete;
    DeviceScope &operator=(const DeviceScope &) = delete;
    ~DeviceScope()
    {
        if (open) leave(OPF_SUCCESS);
    }
    int enter(int dev)
    {
        const Names &w = be->names;
        if (got != 0)
            return failure(OPF_ERR_INTERN, "cannot read the calling thread's %s context (%s: %s %d); nothing done",
                           w.vendor, w.context_get, w.result_type, got);
        const Error e = be->set_device(dev);
        if (!e) return OPF_SUCCESS;
        be->clear_error();
        const int rc = leave(OPF_SUCCESS);
        return rc ? rc : failure(be->opf_code(e), "cannot make device %d current: %s (%s); nothing done", dev,
                                 be->error_name(e), be->error_string(e));
    }
    // Whether the calling thread had a current context.
    bool had_context() const { return got == 0 && previous; }
    // Restores the caller's context; returns rc, or the failure to restore it.
    int leave(int rc)
    {
        if (!open) return rc;
        open = false;
        Context now = nullptr;
        if (be->current_context(now) == 0 && now == previous) return rc;
        const int r = be->set_context(previous);
        if (r == 0 || rc != OPF_SUCCESS) return rc;
        const Names &w = be->names;
        return failure(OPF_ERR_INTERN, "the call's work is done, but the calling thread's %s context could not be "
                       "restored (%s: %s %d)", w.vendor, w.context_set, w.result_type, r);
    }
private:
    Context previous = nullptr;
    int got = 0;
    bool open = false;
};

// ---- what a call computes -----------------------------------------------------------
// A slot's 3-buffer kernel (two inputs) or one of its n-ary kernels (k inputs).
struct Work {
    int op, kt;
    const SlotKernel *two = nullptr;
    const NaryKernel *nary = nullptr;
    int form = 0;   // the n-ary kernel's (NaryForm)

    bool exists() const { return two || nary; }
    const void *kernel() const { return two ? two->kernel : nary->kernel; }
    Error launch(const void *const in[], int k, void *out, int64_t n, Geometry g, Stream stream) const
    {
        return two ? two->launch(in[0], in[1], out, n, g, stream) : nary->launch(in, k, out, n, g, stream);
    }
    void host(const void *const in[], int k, void *out, int64_t n) const
    {
        if (two) two->host(in[0], in[1], out, n);
        else nary->host(in, k, out, n);
    }
    std::atomic<int64_t> &grid_cache(Device &d) const { return two ? d.grid[op][kt] : d.grid_n[op][kt][form]; }
};
Work slot_work(int op, int kt) { return {op, kt, slot_kernel(op, kt), nullptr, 0}; }
Work nary_work(int op, int kt, int form) { return {op, kt, nullptr, nary_kernel(op, kt, form), form}; }

// ---- synchronous calls ------------------------------------------------------------
// The device a synchronous call runs on when op_<component>_device does not
// say: the device of the output's device memory, else an input's; managed
// memory only: the calling thread's current device when it has a context
// (the application chose it), else the device the managed memory was
// allocated on (its primary context exists already; device 0's might not,
// and would cost a new context on a thread that had none).
int home_device(const DeviceScope &scope, const Operands &ops)
{
    auto first = [&](Where where) {   // the output first, then the inputs in order
        for (int at = 0; at <= ops.k; ++at) {
            const PointerInfo &w = ops.where[at == 0 ? ops.out() : at - 1];
            if (w.where == where && w.device >= 0) return w.device;
        }
        return -1;
    };
    if (const int dev = first(Where::Device); dev >= 0) return dev;
    int dev = -1;
    if (scope.had_context() && be->get_device(dev) == 0 && dev >= 0 && dev < n_devices) return dev;
    if (const int managed = first(Where::Managed); managed >= 0) return managed;
    return 0;
}

Error copy_sync(void *dst, const void *src, size_t bytes)
{
    const Stream stream = be->thread_stream();
    const Error e = be->copy(dst, src, bytes, stream);
    const Error s = be->synchronize(stream);
    return e ? e : s;
}

// The host path: device operands copied to host memory, computed there.
int host_path(const Work &w, const Operands &ops, int64_t n)
{
    const size_t bytes = type_bytes[w.kt].true_bytes(n);   // nothing past the true end is read or written
    void *tmp[kMaxInputs + 1] = {};   // host copies, by operand
    const void *host_in[kMaxInputs];
    int rc = OPF_SUCCESS;
    auto host_buffer = [&](int i) -> void * {
        tmp[i] = std::malloc(bytes ? bytes : 1);
        if (!tmp[i]) rc = failure(OPF_ERR_NO_MEM, "%s %s: no host memory for %zu bytes", op_names[w.op], kt_name(w.kt), bytes);
        return tmp[i];
    };
    for (int i = 0; i < ops.k && rc == OPF_SUCCESS; ++i) {
        if (!ops.distinct(i) || on_host(ops.where[i])) {
            host_in[i] = ops.distinct(i) ? ops.ptr[i] : host_in[ops.alias[i]];
            continue;
        }
        if (!host_buffer(i)) break;
        const Error e = copy_sync(tmp[i], ops.ptr[i], bytes);
        if (e) {
            be->clear_error();
            rc = failure(be->opf_code(e), "%s %s: copying %zu bytes to the host failed: %s", op_names[w.op],
                         kt_name(w.kt), bytes, be->error_string(e));
        }
        host_in[i] = tmp[i];
    }
    const int o = ops.out();
    void *const out = const_cast<void *>(ops.ptr[o]);
    void *ho = nullptr;
    if (rc == OPF_SUCCESS) ho = on_host(ops.where[o]) ? out : !ops.distinct(o) ? tmp[ops.alias[o]] : host_buffer(o);
    if (ho) {
        w.host(host_in, ops.k, ho, n);
        if (ho != out) {   // data bytes only: the output's padding is not ours
            const Stream stream = be->thread_stream();
            Error e = copy_data(out, ho, n, w.kt, stream);
            const Error s = be->synchronize(stream);
            if (!e) e = s;
            if (e) {
                be->clear_error();
                rc = failure(be->opf_code(e), "%s %s: copying the result (%zu bytes) to the device failed: %s",
                             op_names[w.op], kt_name(w.kt), bytes, be->error_string(e));
            }
        }
    }
    for (void *p : tmp) std::free(p);
    return rc;
}

struct Scratch {
    void *base = nullptr;
    Pool pool = nullptr;
};

bool scratch_alloc(Device &d, Scratch &s, size_t bytes, Stream stream)
{
    s.pool = d.pool.load(std::memory_order_relaxed);
    if (be->allocate(s.base, bytes, s.pool, stream)) {
        be->clear_error();
        s.base = nullptr;
        return false;
    }
    return true;
}

void scratch_free(Scratch &s, Stream stream)
{
    if (!s.base) return;
    be->release(s.base, s.pool, stream);
    s.base = nullptr;
}

constexpr size_t kScratchAlign = 256;

// A synchronous call on `home`, made current by the caller.
int run_on(int home, const Work &w, const Operands &ops, int64_t n)
{
    const size_t bytes = type_bytes[w.kt].true_bytes(n);   // nothing past the true end is read or written
    const int m = ops.k + 1, o = ops.out();
    bool mixed = false;
    for (int i = 0; i < m; ++i) mixed |= on_host(ops.where[i]);
    if (mixed && n < staging_min_count) return host_path(w, ops, n);
    Device *d = nullptr;
    if (int rc = use_device(home, d)) return rc;
    if (!d->usable) return host_path(w, ops, n);

    const Stream stream = be->thread_stream();
    auto resident = [&](const PointerInfo &b) {
        return b.where == Where::Managed || (b.where == Where::Device && b.device == home);
    };
    size_t phase = 0;   // staged copies keep a resident buffer's address modulo 256 (vector loads)
    for (int i = 0; i < m; ++i)
        if (resident(ops.where[i])) phase = reinterpret_cast<uintptr_t>(ops.ptr[i]) % kScratchAlign;
    const size_t region = (bytes + phase + kScratchAlign - 1) / kScratchAlign * kScratchAlign;
    int staged = 0;   // distinct buffers that need scratch
    for (int i = 0; i < m; ++i)
        if (ops.distinct(i) && !resident(ops.where[i])) ++staged;
    Scratch scratch;
    if (staged && !scratch_alloc(*d, scratch, region * size_t(staged), stream)) return host_path(w, ops, n);
    void *dev[kMaxInputs + 1] = {};
    Error e = 0;
    for (int i = 0, next = 0; i < m; ++i) {
        if (!ops.distinct(i)) {
            dev[i] = dev[ops.alias[i]];
        } else if (resident(ops.where[i])) {
            dev[i] = const_cast<void *>(ops.ptr[i]);
        } else {
            dev[i] = static_cast<char *>(scratch.base) + region * size_t(next++) + phase;
            if (i < o && !e) e = be->copy(dev[i], ops.ptr[i], bytes, stream);
        }
    }
    if (e) {   // nothing written yet: the host path can still do it
        be->clear_error();
        be->synchronize(stream);
        scratch_free(scratch, stream);
        be->synchronize(stream);
        return host_path(w, ops, n);
    }
    void *const out = const_cast<void *>(ops.ptr[o]);
    const char *step = "kernel launch";
    e = w.launch(dev, ops.k, dev[o], n, geometry(*d, w.grid_cache(*d), w.kernel()), stream);
    if (!e && dev[o] != out) {   // data bytes only: the output's padding is not ours
        step = "copy of the result";
        e = copy_data(out, dev[o], n, w.kt, stream);
    }
    scratch_free(scratch, stream);
    const Error s = be->synchronize(stream);
    if (!e && s) {
        step = dev[o] != out ? "kernel or the copy of the result" : "kernel";   // reported by the synchronise
        e = s;
    }
    if (e) {
        be->clear_error();
        return failure(be->opf_code(e), "%s %s, %lld elements on device %d: %s failed: %s (%s)", op_names[w.op],
                       kt_name(w.kt), (long long)n, home, step, be->error_name(e), be->error_string(e));
    }
    return OPF_SUCCESS;
}

// out = the work's result over in[0..k), synchronously.
int run_sync(const Work &w, const void *const in[], int k, void *o, int64_t n)
{
    if (n <= 0) return OPF_SUCCESS;
    if (!w.exists()) return failure(OPF_ERR_INTERN, "%s %s: no kernel in this build", op_names[w.op], kt_name(w.kt));
    if (int rc = require_devices()) return rc;
    Operands ops;
    classify_operands(ops, in, k, o);
    char what[64];
    std::snprintf(what, sizeof what, "%s %s", op_names[w.op], kt_name(w.kt));
    if (int rc = refuse_unusable(what, ops)) return rc;
    DeviceScope scope;   // copies and kernels go to the home device's per-thread stream
    int home = int(device_param);
    if (home < 0 || home >= n_devices) home = home_device(scope, ops);
    if (int rc = scope.enter(home)) return rc;
    return scope.leave(run_on(home, w, ops, n));
}
int run_sync(const Work &w, const void *a, const void *b, void *o, int64_t n)
{
    const void *const in[2] = {a, b};
    return run_sync(w, in, 2, o, n);
}

// REPLACE / NO_OP: dst = src, byte for byte.
int copy_call(int kt, const void *src, void *dst, int64_t n)
{
    if (n <= 0 || src == dst) return OPF_SUCCESS;
    if (int rc = require_devices()) return rc;
    Operands ops;
    classify_operands(ops, &src, 1, dst);
    const Names &names = be->names;
    for (const PointerInfo &w : {ops.where[0], ops.where[1]})
        if (w.where == Where::Unknown)
            return failure(OPF_ERR_BUFFER, "REPLACE/NO_OP %s: cannot tell where a buffer lives "
                           "(%s failed: %s %d); refused", kt_name(kt), names.pointer_query, names.result_type, w.code);
    if (on_host(ops.where[0]) && on_host(ops.where[1])) {
        host_copy_data(dst, src, n, kt);
        return OPF_SUCCESS;
    }
    DeviceScope scope;   // none stays none
    if (int rc = scope.enter(home_device(scope, ops))) return rc;
    const Stream stream = be->thread_stream();
    Error e = copy_data(dst, src, n, kt, stream);
    const Error s = be->synchronize(stream);
    if (!e) e = s;
    if (e) {
        be->clear_error();
        return scope.leave(failure(be->opf_code(e), "REPLACE/NO_OP %s, %lld elements: %s failed: %s (%s)",
                                   kt_name(kt), (long long)n, names.copy, be->error_name(e), be->error_string(e)));
    }
    return scope.leave(OPF_SUCCESS);
}

// ---- stream calls ----------------------------------------------------------------------

int stream_device(Stream stream, int &dev)
{
    const Error e = be->stream_device(stream, dev);
    if (!e && dev >= 0 && dev < n_devices) return OPF_SUCCESS;
    be->clear_error();
    if (e && !be->default_stream(stream)) {
        const int code = be->opf_code(e);
        return opf_component_set_error(code == OPF_ERR_INTERN ? OPF_ERR_ARG : code, "not a usable %s stream: %s",
                                       be->names.vendor, be->error_string(e));
    }
    if (be->get_device(dev) == 0 && dev >= 0 && dev < n_devices) return OPF_SUCCESS;
    return opf_component_set_error(OPF_ERR_INTERN, "no current %s device for the default stream", be->names.vendor);
}

bool accessible(const PointerInfo &w, int dev, const Device &d)
{
    switch (w.where) {
    case Where::Managed: return true;
    case Where::Device: return w.device == dev;
    case Where::Pinned: return d.attributes.host_pointer_ok || d.attributes.pageable_access;
    default: return d.attributes.pageable_access;
    }
}

// A stream call on `dev`, made current by the caller.
int enqueue_kernel(int dev, const Work &w, const void *const in[], int k, void *o, int64_t n, Stream stream)
{
    Device *d = nullptr;
    if (int rc = use_device(dev, d)) return rc;
    if (!d->usable) return opf_component_set_error(OPF_ERR_INTERN, "device %d has no usable kernel image", dev);
    if (stream_check) {
        Operands ops;
        classify_operands(ops, in, k, o);
        if (int rc = refuse_unusable("stream call", ops)) return rc;
        for (int i = 0; i <= k; ++i)
            if (ops.distinct(i) && !accessible(ops.where[i], dev, *d))
                return opf_component_set_error(OPF_ERR_BUFFER, "buffer %d is not accessible from device %d (the "
                                               "stream's); op_%s_stream_check=false skips this check", i + 1, dev,
                                               be->names.component);
    }
    const Error e = w.launch(in, k, o, n, geometry(*d, w.grid_cache(*d), w.kernel()), stream);
    if (!e) return OPF_SUCCESS;
    be->clear_error();
    return opf_component_set_error(be->opf_code(e), "kernel launch failed: %s (%s)", be->error_name(e),
                                   be->error_string(e));
}

// The caller's context is recorded before anything asks the runtime about
// the stream (a default stream's device may bind a context), and restored.
// work(dev, stream) on the stream's device, in a scope that restores the
// caller's context whatever happens.
template <class Work> int on_stream_device(void *stream, Work &&work)
{
    if (int rc = require_devices()) return rc;
    DeviceScope scope;
    int dev = 0;
    if (int rc = stream_device(stream, dev)) return scope.leave(rc);
    if (int rc = scope.enter(dev)) return rc;
    return scope.leave(work(dev, stream));
}

int run_stream(const Work &w, const void *const in[], int k, void *o, int64_t n, void *stream)
{
    if (!w.exists()) return opf_component_set_error(OPF_ERR_OP, "no kernel in this build");
    if (n <= 0) return OPF_SUCCESS;
    return on_stream_device(stream, [&](int dev, Stream s) { return enqueue_kernel(dev, w, in, k, o, n, s); });
}
int run_stream(const Work &w, const void *a, const void *b, void *o, int64_t n, void *stream)
{
    const void *const in[2] = {a, b};
    return run_stream(w, in, 2, o, n, stream);
}

int copy_stream(int kt, const void *src, void *dst, int64_t n, void *stream)
{
    if (n <= 0 || src == dst) return OPF_SUCCESS;
    return on_stream_device(stream, [&](int, Stream s) -> int {
        const Error e = copy_data(dst, src, n, kt, s);
        if (!e) return OPF_SUCCESS;
        be->clear_error();
        return opf_component_set_error(be->opf_code(e), "%s failed: %s (%s)", be->names.copy_async, be->error_name(e),
                                       be->error_string(e));
    });
}

// ---- one entry point per slot, generated ------------------------------------------------
template <int OP, int KT> int fn2(const void *in, void *inout, opf_count_t n)
{
    if constexpr (OP == OPF_OPID_REPLACE) return copy_call(KT, in, inout, n);
    else if constexpr (OP == OPF_OPID_NO_OP) return (void)in, (void)inout, (void)n, OPF_SUCCESS;
    else return run_sync(slot_work(OP, KT), in, inout, inout, n);
}
template <int OP, int KT> int fn3(const void *in1, const void *in2, void *out, opf_count_t n)
{
    if constexpr (OP == OPF_OPID_REPLACE) return copy_call(KT, in1, out, n);
    else if constexpr (OP == OPF_OPID_NO_OP) return copy_call(KT, in2, out, n);
    else return run_sync(slot_work(OP, KT), in1, in2, out, n);
}
template <int OP, int KT> int sfn2(const void *in, void *inout, opf_count_t n, void *stream)
{
    if constexpr (OP == OPF_OPID_REPLACE) return copy_stream(KT, in, inout, n, stream);
    else if constexpr (OP == OPF_OPID_NO_OP) return (void)in, (void)inout, (void)n, (void)stream, OPF_SUCCESS;
    else return run_stream(slot_work(OP, KT), in, inout, inout, n, stream);
}
template <int OP, int KT> int sfn3(const void *in1, const void *in2, void *out, opf_count_t n, void *stream)
{
    if constexpr (OP == OPF_OPID_REPLACE) return copy_stream(KT, in1, out, n, stream);
    else if constexpr (OP == OPF_OPID_NO_OP) return copy_stream(KT, in2, out, n, stream);
    else return run_stream(slot_work(OP, KT), in1, in2, out, n, stream);
}
// The n-ary forms (offered only where the backend has a kernel: not REPLACE / NO_OP).
template <int OP, int KT, int F> int fn_n(const void *const in[], int k, void *out, opf_count_t n, const void *)
{
    return run_sync(nary_work(OP, KT, F), in, k, out, n);
}
template <int OP, int KT, int F>
int sfn_n(const void *const in[], int k, void *out, opf_count_t n, const void *, void *stream)
{
    return run_stream(nary_work(OP, KT, F), in, k, out, n, stream);
}

struct Entries {
    opf_device_kernel2_fn *fn2 = nullptr;
    opf_device_kernel3_fn *fn3 = nullptr;
    opf_stream_kernel2_fn *sfn2 = nullptr;
    opf_stream_kernel3_fn *sfn3 = nullptr;
    opf_device_kernel_n_fn *fn_n[kNaryForms] = {};
    opf_stream_kernel_n_fn *sfn_n[kNaryForms] = {};
};
struct EntryGen {
    template <std::size_t O, std::size_t K> static constexpr Entries entry()
    {
        constexpr int op = int(O), kt = int(K);
        return {&fn2<op, kt>, &fn3<op, kt>, &sfn2<op, kt>, &sfn3<op, kt>,
                {&fn_n<op, kt, kChain>, &fn_n<op, kt, kOnce>},
                {&sfn_n<op, kt, kChain>, &sfn_n<op, kt, kOnce>}};
    }
};
constexpr auto entries = opf::base::make_matrix<Entries, EntryGen>();

// Whether the component serves (op, kt): a kernel, or a byte copy.
bool serves(int op, int kt)
{
    if (!opf_slot_exists(op, kt)) return false;
    if (op == OPF_OPID_REPLACE || op == OPF_OPID_NO_OP) return extent_of[kt] > 0;
    const SlotKernel *k = slot_kernel(op, kt);
    return k && k->element_size == extent_of[kt];   // the layouts agree (they do on LP64)
}

// Parameter names and texts with the component's words: "@c" the
// component's name, "@V" the vendor's (kept: the framework keeps pointers).
const char *words(const char *text)
{
    static std::deque<std::string> kept;
    std::string s;
    for (const char *p = text; *p; ++p) {
        if (p[0] == '@' && p[1] == 'c') s += be->names.component, ++p;
        else if (p[0] == '@' && p[1] == 'V') s += be->names.vendor, ++p;
        else s += *p;
    }
    return kept.emplace_back(std::move(s)).c_str();
}

} // namespace

// ---- the component ------------------------------------------------------------------
int register_params(Backend &backend)
{
    be = &backend;
    priority = backend.names.priority;
    const char *priority_default = words(std::to_string(backend.names.priority).c_str());
    const opf_param_spec_t specs[] = {
        {words("op_@c_priority"), OPF_PARAM_INT, priority_default,
         words("Priority of the @c component's offers (@V memory slots)"), 3, OPF_PARAM_SETTABLE, nullptr, nullptr,
         &priority},
        {words("op_@c_device"), OPF_PARAM_INT, "-1",
         words("@V device of synchronous calls: -1 runs each call on the device holding its output (else an input); "
               "N runs every call on device N, copying operands that live elsewhere. Stream calls always run on the "
               "stream's device"),
         3, OPF_PARAM_LIVE, nullptr, nullptr, &device_param},
        {words("op_@c_block_size"), OPF_PARAM_INT, "256", words("Threads per block of the @c kernels (32 .. 1024)"), 5,
         OPF_PARAM_LIVE, nullptr, nullptr, &block_size},
        {words("op_@c_max_blocks"), OPF_PARAM_INT, "1073741824",
         "Most blocks per kernel launch (a grid-stride loop does the rest; the default gives every work item a "
         "thread of its own); 0: the device's SM count times the blocks of that kernel resident per SM",
         5, OPF_PARAM_LIVE, nullptr, nullptr, &max_blocks_param},
        {words("op_@c_staging_min_count"), OPF_PARAM_SIZE, "1",
         "Elements from which a mixed host/device synchronous call copies host operands to the device and "
         "computes there; below it the device operands are copied to the host and the call computes on the host",
         4, OPF_PARAM_LIVE, nullptr, nullptr, &staging_min_count},
        {words("op_@c_scratch_cache"), OPF_PARAM_SIZE, "64M",
         "Bytes of device staging scratch the component's memory pool keeps per device between calls", 5,
         OPF_PARAM_LIVE, nullptr, nullptr, &scratch_cache},
        {words("op_@c_stream_check"), OPF_PARAM_BOOL, "true",
         "Check that the buffers of a stream call are accessible from the stream's device (one driver query per "
         "buffer); false trusts the caller",
         5, OPF_PARAM_LIVE, nullptr, nullptr, &stream_check},
        {words("op_@c_lazy_init"), OPF_PARAM_BOOL, "true",
         words("Initialise the @V driver at the first call that needs it (a device buffer, a stream call), so that "
               "host-only processes never pay for it; false: at opf_init, which lists the devices (opframe_info --hw) "
               "and disqualifies the component where there is none"),
         4, OPF_PARAM_SETTABLE, nullptr, nullptr, &lazy_init},
        {words("op_@c_verbose"), OPF_PARAM_INT, "0", words("Print @V failures of the @c component to stderr when > 0"),
         5, OPF_PARAM_LIVE, nullptr, nullptr, &verbose},
        {words("op_@c_errors"), OPF_PARAM_INT, "0",
         words("@V failures in synchronous calls so far (each also returned to its caller with the reason)"), 9,
         OPF_PARAM_READ_ONLY, nullptr, nullptr, &errors},
        {words("op_@c_devices"), OPF_PARAM_STRING, "", words("The @V devices found, and the GPU architectures built for"),
         2, OPF_PARAM_READ_ONLY, nullptr, nullptr, &devices_text},
        {words("op_@c_host_cache"), OPF_PARAM_BOOL, "true",
         "Count the driver library's calls that change mappings (its mmap, mremap, mprotect, munmap, shmat and "
         "syscall are hooked), so that the framework remembers mappings the driver called host memory while that "
         "count stands: host reductions on mmap'd buffers then ask the driver nothing and take the inline calls; "
         "false: one pointer query per such buffer and call",
         5, OPF_PARAM_SETTABLE, nullptr, nullptr, &host_cache},
        {words("op_@c_host_cache_state"), OPF_PARAM_STRING, "",
         words("Whether host mappings are remembered (op_@c_host_cache), and if not, why"), 5, OPF_PARAM_READ_ONLY,
         nullptr, nullptr, &host_cache_state},
        {words("op_@c_driver_mappings"), OPF_PARAM_INT, "0",
         words("Calls of the driver library that changed this process's mappings since opf_init (counted where "
               "op_@c_host_cache hooked them): each makes the remembered host mappings be read again"),
         9, OPF_PARAM_READ_ONLY, nullptr, nullptr, backend.driver_mapping_calls()},
    };
    for (const opf_param_spec_t &s : specs)
        if (opf_param_register(&s) != OPF_SUCCESS) return -1;
    return 0;
}

int init_query(char *reason, size_t reason_len)
{
    for (int kt = 0; kt < OPF_KT_COUNT; ++kt) extent_of[kt] = opf_kernel_type_extent(kt);
    devices_storage = be->build_text();
    devices_text = devices_storage.c_str();
    if (be->open(reason, reason_len)) return 1;
    setup_state.store(kNotSetUp, std::memory_order_relaxed);
    if (!lazy_init) {   // now: the devices listed, the component disqualified where there is none
        if (devices_ready(true) != OPF_SUCCESS) {
            std::snprintf(reason, reason_len, "%s", setup_reason);
            return 1;
        }
    } else {
        devices_storage += "; devices: found at the first call that needs the driver (op_" +
                           std::string(be->names.component) + "_lazy_init)";
        devices_text = devices_storage.c_str();
    }
    memory_kind = opf_memory_kind_register(be->names.component, claims);
    if (memory_kind < 0) {
        std::snprintf(reason, reason_len, "memory kind \"%s\" is taken", be->names.component);
        return 1;
    }
    if (opf_memory_kind_set_claims) opf_memory_kind_set_claims(memory_kind, claims_call);   // weak: an older framework asks claims
    host_cache_state = host_cache_text;   // registering the parameter pointed it to its default
    if (!opf_memory_kind_set_mapping_count)
        std::snprintf(host_cache_text, sizeof host_cache_text, "off: the framework remembers no host mapping");
    else if (const uint64_t *count = be->host_mapping_count(host_cache, host_cache_text, sizeof host_cache_text))
        opf_memory_kind_set_mapping_count(memory_kind, count);
    return 0;
}

int op_query(int op_id, opf_module_t *module)
{
    if (!be->is_open() || op_id <= 0 || op_id >= OPF_OPID_COUNT) return 1;
    int offered = 0;
    for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
        if (!serves(op_id, kt)) continue;
        const Entries &e = entries[op_id][kt];
        opf_offer_t offer{};
        offer.struct_size = sizeof offer;
        offer.kernel_type = kt;
        offer.memory_kind = memory_kind;
        offer.priority = int(priority);
        offer.device2 = e.fn2;
        offer.device3 = e.fn3;
        offer.stream2 = e.sfn2;
        offer.stream3 = e.sfn3;
        for (int f : {kChain, kOnce})   // one launch for k inputs, where a kernel computes it
            if (nary_kernel(op_id, kt, f)) {
                (f == kChain ? offer.device_n : offer.device_n_once) = e.fn_n[f];
                (f == kChain ? offer.stream_n : offer.stream_n_once) = e.sfn_n[f];
            }
        offered += opf_module_offer(module, &offer) == OPF_SUCCESS;
    }
    return offered ? 0 : 1;
}

void close_component()
{
    for (int dev = 0; dev < n_devices; ++dev)
        if (Pool pool = devices[dev].pool.exchange(nullptr)) be->destroy_pool(pool);
    devices.reset();
    n_devices = 0;
    be->close();
    runtime_live.store(false, std::memory_order_relaxed);
    setup_state.store(kNotSetUp, std::memory_order_relaxed);
    memory_kind = -1;
    devices_text = "";
}

} // namespace opf_gpu
