// hwprobe.cpp — the hardware probe run at every opf_init: CPUID/XGETBV for
// the x86 ISA, getauxval / prctl for the Arm ISA, getauxval / vlenb /
// riscv_hwprobe for the RISC-V ISA, hwloc for the topology and
// the accelerators.
#include "framework/hwprobe.h"
#include "framework/params.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

#include <strings.h>
#include <unistd.h>

#include <opframe/introspect.h>

#include "config.h"
#include "framework/error.h"

#ifdef OPF_HAVE_HWLOC
#include <hwloc.h>
#endif

#if defined(__x86_64__) || defined(__i386__)
#define OPF_HWPROBE_X86 1
#include <cpuid.h>
#endif

#if defined(__aarch64__) && defined(__linux__)
#define OPF_HWPROBE_ARM 1
#include <sys/auxv.h>
#include <sys/prctl.h>
#endif

#if defined(__riscv) && __riscv_xlen == 64 && defined(__linux__)
#define OPF_HWPROBE_RISCV 1
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

namespace opf {
namespace {

// Bit order of OPF_X86_*, named as Linux names them in /proc/cpuinfo.
constexpr const char *feature_names[] = {
    "sse2", "sse4_1", "avx", "avx2", "fma", "f16c",
    "avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512_fp16", "avx512_bf16",
};
constexpr unsigned n_feature_names = sizeof feature_names / sizeof feature_names[0];
// Bit order of OPF_ARM_*, named as Linux names them in /proc/cpuinfo.
constexpr const char *arm_feature_names[] = {"asimd", "fphp", "asimdhp", "sve", "sve2", "bf16", "svebf16"};
// Bit order of OPF_RISCV_*, named as Linux names them in /proc/cpuinfo's isa line.
constexpr const char *riscv_feature_names[] = {"v", "zvfhmin", "zvfh", "zvfbfmin", "zvfbfwma"};

// The names of the set bits of `features`, space-separated, or "none";
// snprintf's contract (always terminated, returns the full length).
template <std::size_t N>
std::size_t format_names(const char *const (&names)[N], unsigned features, char *buf, std::size_t len)
{
    std::size_t need = 0;
    auto append = [&](const char *word) {
        const int n = std::snprintf(need < len ? buf + need : nullptr, need < len ? len - need : 0, "%s%s",
                                    need ? " " : "", word);
        need += std::size_t(n);
    };
    if (len) buf[0] = '\0';
    for (unsigned i = 0; i < N; ++i)
        if (features & (1u << i)) append(names[i]);
    if (!need) append("none");
    return need;
}

template <std::size_t N> void copy_text(char (&dst)[N], const char *src)
{
    std::snprintf(dst, N, "%s", src ? src : "");
}

// Drops leading and trailing blanks in place (CPUID pads the brand string).
[[maybe_unused]] void trim(char *s)
{
    std::size_t start = std::strspn(s, " \t");
    std::size_t len = std::strlen(s + start);
    while (len && (s[start + len - 1] == ' ' || s[start + len - 1] == '\t')) --len;
    std::memmove(s, s + start, len);
    s[len] = '\0';
}

#ifdef OPF_HWPROBE_X86

// What of the CPUID features `cpu` the OS lets us use, given XCR0. VEX and
// EVEX instructions fault unless the OS saves their registers: XMM|YMM (XCR0
// bits 1, 2) for the AVX family, opmask|ZMM_Hi256|Hi16_ZMM (bits 5, 6, 7) on
// top for AVX-512.
unsigned usable_features(unsigned cpu, uint64_t xcr0)
{
    constexpr unsigned avx_family = OPF_X86_AVX | OPF_X86_AVX2 | OPF_X86_FMA | OPF_X86_F16C;
    constexpr unsigned avx512_family = OPF_X86_AVX512F | OPF_X86_AVX512BW | OPF_X86_AVX512VL |
                                       OPF_X86_AVX512DQ | OPF_X86_AVX512_FP16 | OPF_X86_AVX512_BF16;
    const bool ymm_state = (xcr0 & 0x06) == 0x06;
    const bool zmm_state = ymm_state && (xcr0 & 0xe0) == 0xe0;
    unsigned usable = cpu;
    if (!ymm_state) usable &= ~(avx_family | avx512_family);
    if (!zmm_state) usable &= ~avx512_family;
    // A hypervisor may mask a base feature and not its extensions; like
    // Linux, count the extensions only with their base.
    if (!(usable & OPF_X86_AVX)) usable &= ~(avx_family | avx512_family);
    if (!(usable & OPF_X86_AVX512F)) usable &= ~avx512_family;
    return usable;
}

// XCR0: which register states the OS saves on a context switch. Inline asm,
// so that this file needs no -mxsave (it runs on any x86).
uint64_t read_xcr0()
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (uint64_t(hi) << 32) | lo;
}

// Zen 4 (AMD family 19h, the only one of that family with AVX-512) runs a
// 512-bit operation as two 256-bit halves: its 512-bit loads and stores move
// no more bytes a cycle than 256-bit ones, and its kernels of plain lanes
// ran 1.0-1.4x the time of AVX2's (docs/performance.md). CPUID has no bit
// for this; the family says it. Zen 5 (family 1Ah) and Intel's AVX-512
// cores execute them whole.
bool splits_512_bit_operations()
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return false;
    const bool amd = b == 0x68747541u && d == 0x69746e65u && c == 0x444d4163u;   // "AuthenticAMD"
    if (!amd || !__get_cpuid(1, &a, &b, &c, &d)) return false;
    const unsigned family = ((a >> 8) & 0xf) + ((a >> 8 & 0xf) == 0xf ? (a >> 20) & 0xff : 0);
    return family == 0x19;
}

void probe_x86(opf_hw_info_t *hw)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return;
    unsigned cpu = 0;
    if (d & (1u << 26)) cpu |= OPF_X86_SSE2;
    if (c & (1u << 19)) cpu |= OPF_X86_SSE4_1;
    if (c & (1u << 28)) cpu |= OPF_X86_AVX;
    if (c & (1u << 12)) cpu |= OPF_X86_FMA;
    if (c & (1u << 29)) cpu |= OPF_X86_F16C;
    const bool osxsave = c & (1u << 27);

    if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
        const unsigned max_subleaf = a;
        if (b & (1u << 5)) cpu |= OPF_X86_AVX2;
        if (b & (1u << 16)) cpu |= OPF_X86_AVX512F;
        if (b & (1u << 17)) cpu |= OPF_X86_AVX512DQ;
        if (b & (1u << 30)) cpu |= OPF_X86_AVX512BW;
        if (b & (1u << 31)) cpu |= OPF_X86_AVX512VL;
        if (d & (1u << 23)) cpu |= OPF_X86_AVX512_FP16;
        if (max_subleaf >= 1 && __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a & (1u << 5)))
            cpu |= OPF_X86_AVX512_BF16;
    }

    const uint64_t xcr0 = osxsave ? read_xcr0() : 0;   // XGETBV faults without OSXSAVE
    const unsigned usable = usable_features(cpu, xcr0);
    hw->x86_features = usable;
    hw->x86_cpu_only = cpu & ~usable;
    if (usable & OPF_X86_AVX512F) hw->x86_avx512_datapath_bits = splits_512_bit_operations() ? 256 : 512;
}

void x86_brand(char *out, std::size_t len)
{
    if (unsigned(__get_cpuid_max(0x80000000u, nullptr)) < 0x80000004u) return;
    uint32_t regs[12];
    for (unsigned i = 0; i < 3; ++i)
        __get_cpuid(0x80000002u + i, &regs[4 * i], &regs[4 * i + 1], &regs[4 * i + 2], &regs[4 * i + 3]);
    char brand[sizeof regs + 1];
    std::memcpy(brand, regs, sizeof regs);
    brand[sizeof regs] = '\0';
    trim(brand);
    std::snprintf(out, len, "%s", brand);
}

#endif // OPF_HWPROBE_X86

#ifdef OPF_HWPROBE_ARM

// Bit numbers of Linux's HWCAP_* / HWCAP2_* (uapi asm/hwcap.h, a stable
// ABI), spelled out because older libc headers lack the newer names.
constexpr unsigned long hwcap_asimd = 1ul << 1, hwcap_fphp = 1ul << 9, hwcap_asimdhp = 1ul << 10,
                        hwcap_sve = 1ul << 22;
constexpr unsigned long hwcap2_sve2 = 1ul << 1, hwcap2_svebf16 = 1ul << 12, hwcap2_bf16 = 1ul << 14;

// The kernel reports a feature only where the CPU has it and the kernel
// supports its state (SVE registers), so there is no "CPU only" set here.
void probe_arm(opf_hw_info_t *hw)
{
    const unsigned long cap = getauxval(AT_HWCAP), cap2 = getauxval(AT_HWCAP2);
    const struct {
        unsigned long word, bit;
        unsigned feature;
    } map[] = {
        {cap, hwcap_asimd, OPF_ARM_ASIMD},   {cap, hwcap_fphp, OPF_ARM_FPHP},
        {cap, hwcap_asimdhp, OPF_ARM_ASIMDHP}, {cap, hwcap_sve, OPF_ARM_SVE},
        {cap2, hwcap2_sve2, OPF_ARM_SVE2},   {cap2, hwcap2_bf16, OPF_ARM_BF16},
        {cap2, hwcap2_svebf16, OPF_ARM_SVEBF16},
    };
    for (const auto &m : map)
        if (m.word & m.bit) hw->arm_features |= m.feature;
    // The vector length is per thread and may be changed by prctl(PR_SVE_SET_VL);
    // the fixed-length SVE components need the one in force now.
#ifdef PR_SVE_GET_VL
    if (hw->arm_features & OPF_ARM_SVE) {
        const int vl = prctl(PR_SVE_GET_VL, 0, 0, 0, 0);
        if (vl >= 0) hw->arm_sve_vector_bits = unsigned(vl & PR_SVE_VL_LEN_MASK) * 8;
    }
#endif
}

#endif // OPF_HWPROBE_ARM

#ifdef OPF_HWPROBE_RISCV

// Linux's uapi (asm/hwcap.h, asm/hwprobe.h; stable ABI), spelled out
// because older headers lack the newer names: HWCAP bit of a single-letter
// extension is its letter's index; the riscv_hwprobe key for the IMA
// extensions and its bits for the vector floating-point ones.
constexpr unsigned long hwcap_v = 1ul << ('V' - 'A');
constexpr long sys_riscv_hwprobe = 258;
constexpr int pr_riscv_v_get_control = 70, pr_riscv_v_vstate_ctrl_cur_mask = 0x3, pr_riscv_v_vstate_ctrl_off = 1;
constexpr int64_t hwprobe_key_ima_ext_0 = 4;
constexpr uint64_t hwprobe_zvfh = 1ull << 30, hwprobe_zvfhmin = 1ull << 31, hwprobe_zvfbfmin = 1ull << 53,
                   hwprobe_zvfbfwma = 1ull << 54;

// V from AT_HWCAP (the kernel sets it only where it also saves the vector
// state); VLEN from the CSR vlenb, read only then (it traps without V);
// the Z* extensions from riscv_hwprobe (Linux 6.4 on; a kernel too old for
// a bit reports it absent, so a component then does without it).
void probe_riscv(opf_hw_info_t *hw)
{
    if (!(getauxval(AT_HWCAP) & hwcap_v)) return;
    // A process may have vector use switched off (prctl PR_RISCV_V_SET_CONTROL,
    // or the sysctl abi.riscv_v_default_allow): its first vector instruction
    // would then die of SIGILL, so V counts as absent.
    const int v_control = prctl(pr_riscv_v_get_control, 0, 0, 0, 0);
    if (v_control >= 0 && (v_control & pr_riscv_v_vstate_ctrl_cur_mask) == pr_riscv_v_vstate_ctrl_off) return;
    hw->riscv_features |= OPF_RISCV_V;
    unsigned long vlenb;
    asm volatile("csrr %0, 0xc22" : "=r"(vlenb));   // vlenb, by number: the module is built without V
    hw->riscv_vlen_bits = unsigned(vlenb * 8);
    struct {
        int64_t key;
        uint64_t value;
    } pair = {hwprobe_key_ima_ext_0, 0};
    if (syscall(sys_riscv_hwprobe, &pair, 1, 0, nullptr, 0) != 0 || pair.key != hwprobe_key_ima_ext_0) return;
    const struct {
        uint64_t bit;
        unsigned feature;
    } map[] = {{hwprobe_zvfhmin, OPF_RISCV_ZVFHMIN}, {hwprobe_zvfh, OPF_RISCV_ZVFH},
               {hwprobe_zvfbfmin, OPF_RISCV_ZVFBFMIN}, {hwprobe_zvfbfwma, OPF_RISCV_ZVFBFWMA}};
    for (const auto &m : map)
        if (pair.value & m.bit) hw->riscv_features |= m.feature;
}

#endif // OPF_HWPROBE_RISCV

#ifdef OPF_HAVE_HWLOC

// hwloc filters I/O objects by "importance"; PCI devices and bridges are
// also dropped because listing them reads every device's config space
// (~2 ms per device under KVM: 12 of the 14 ms the probe took there). The OS
// devices we want are still found and attached to their CPU-side locality;
// only the PCI name fallback of the model is lost. Flip to keep them.
constexpr bool keep_pci_objects = false;

const char *device_kind(hwloc_obj_t dev)
{
    switch (dev->attr->osdev.type) {
    case HWLOC_OBJ_OSDEV_GPU: return "gpu";
    case HWLOC_OBJ_OSDEV_COPROC: {
        const char *sub = dev->subtype;
        if (!sub) sub = hwloc_obj_get_info_by_name(dev, "Backend");
        if (sub && strcasecmp(sub, "CUDA") == 0) return "cuda";
        if (sub && strcasecmp(sub, "OpenCL") == 0) return "opencl";
        return "coproc";
    }
    default: return nullptr;
    }
}

// GPUModel comes from the accelerator backends (CUDA, OpenCL, NVML, ...);
// else the PCI device's name or ids when PCI objects are kept.
void device_model(hwloc_obj_t dev, char *out, std::size_t len)
{
    if (const char *model = hwloc_obj_get_info_by_name(dev, "GPUModel")) {
        std::snprintf(out, len, "%s", model);
        return;
    }
    hwloc_obj_t pci = dev->parent;
    while (pci && pci->type != HWLOC_OBJ_PCI_DEVICE) pci = pci->parent;
    if (!pci) return;
    if (const char *name = hwloc_obj_get_info_by_name(pci, "PCIDevice"))
        std::snprintf(out, len, "%s", name);
    else
        std::snprintf(out, len, "PCI %04x:%04x", pci->attr->pcidev.vendor_id, pci->attr->pcidev.device_id);
}

int64_t first_cache_size(hwloc_topology_t topo, hwloc_obj_type_t type)
{
    // L<n>CACHE objects are data or unified caches (instruction caches have
    // their own types); all instances of a level have the same size.
    hwloc_obj_t cache = hwloc_get_obj_by_type(topo, type, 0);
    return cache ? int64_t(cache->attr->cache.size) : 0;
}

void set_flags(hwloc_topology_t topo)
{
    // Describe the machine, not the process's cpuset (PUs then match the
    // online CPU count); skip what we never read; never rebind the caller's
    // thread (the x86 backend would, once per PU).
    unsigned long flags = HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED;
#if HWLOC_API_VERSION >= 0x00020800
    flags |= HWLOC_TOPOLOGY_FLAG_DONT_CHANGE_BINDING | HWLOC_TOPOLOGY_FLAG_NO_DISTANCES |
             HWLOC_TOPOLOGY_FLAG_NO_MEMATTRS | HWLOC_TOPOLOGY_FLAG_NO_CPUKINDS;
#endif
    // An older 2.x library rejects the newer flags as a whole.
    if (hwloc_topology_set_flags(topo, flags) != 0)
        hwloc_topology_set_flags(topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
}

bool probe_hwloc(opf_hw_info_t *hw)
{
    // The ABI changes with the major version; a mismatched library is unusable.
    if ((hwloc_get_api_version() >> 16) != (HWLOC_API_VERSION >> 16)) return false;
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0) return false;
    set_flags(topo);
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (!params.hwloc_opencl)   // see op_base_hwloc_opencl: the plugin would start every OpenCL platform
        hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "opencl");
    if (!keep_pci_objects) {
        hwloc_topology_set_type_filter(topo, HWLOC_OBJ_PCI_DEVICE, HWLOC_TYPE_FILTER_KEEP_NONE);
        hwloc_topology_set_type_filter(topo, HWLOC_OBJ_BRIDGE, HWLOC_TYPE_FILTER_KEEP_NONE);
    }
    const int pus = hwloc_topology_load(topo) == 0 ? hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU) : 0;
    if (pus <= 0) {
        hwloc_topology_destroy(topo);
        return false;
    }

    hw->hwloc = 1;
    hw->pus = pus;
    const int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    hw->cores = cores > 0 ? cores : pus;   // some platforms report no cores
    const int nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    hw->numa_nodes = nodes > 0 ? nodes : 1;
    hw->l1d_bytes = first_cache_size(topo, HWLOC_OBJ_L1CACHE);
    hw->l2_bytes = first_cache_size(topo, HWLOC_OBJ_L2CACHE);
    hw->l3_bytes = first_cache_size(topo, HWLOC_OBJ_L3CACHE);

    if (!hw->cpu_model[0])
        if (hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0))
            if (const char *model = hwloc_obj_get_info_by_name(pkg, "CPUModel")) {
                copy_text(hw->cpu_model, model);
                trim(hw->cpu_model);
            }

    for (hwloc_obj_t dev = nullptr;
         hw->n_devices < OPF_HW_MAX_DEVICES && (dev = hwloc_get_next_osdev(topo, dev));) {
        const char *kind = device_kind(dev);
        if (!kind) continue;   // block, network, DMA, ...
        opf_hw_device_t &d = hw->devices[hw->n_devices++];
        copy_text(d.name, dev->name);
        copy_text(d.kind, kind);
        device_model(dev, d.model, sizeof d.model);
    }
    hwloc_topology_destroy(topo);
    return true;
}

#endif // OPF_HAVE_HWLOC

void probe(opf_hw_info_t *hw)
{
    *hw = opf_hw_info_t{};
    hw->struct_size = sizeof *hw;
#ifdef OPF_HWPROBE_X86
    probe_x86(hw);
    x86_brand(hw->cpu_model, sizeof hw->cpu_model);
    // op_base_isa_mask: components see a lower level, as on a CPU without
    // the features removed from it (the conformance run loops over levels).
    hw->x86_features &= unsigned(params.isa_mask);
    // op_base_avx512_datapath: as on a core of the other kind.
    if (params.avx512_datapath && hw->x86_avx512_datapath_bits)
        hw->x86_avx512_datapath_bits = params.avx512_datapath == 1 ? 256 : 512;
    if (!(hw->x86_features & OPF_X86_AVX512F)) hw->x86_avx512_datapath_bits = 0;
#endif
#ifdef OPF_HWPROBE_ARM
    probe_arm(hw);
#endif
#ifdef OPF_HWPROBE_RISCV
    probe_riscv(hw);
#endif
    bool from_hwloc = false;
#ifdef OPF_HAVE_HWLOC
    from_hwloc = probe_hwloc(hw);
#endif
    if (!from_hwloc) {
        // Without a topology we cannot tell cores from hardware threads.
        const long online = sysconf(_SC_NPROCESSORS_ONLN);
        hw->pus = hw->cores = online > 0 ? int(online) : 1;
        hw->numa_nodes = 1;
    }
}

// The last probe, for opf_hw_describe(); probe_hardware runs under the
// framework's init lock, opf_hw_describe under none.
std::mutex last_mutex;
opf_hw_info_t last;
bool have_last = false;

} // namespace

int probe_hardware(opf_hw_info_t *hw)
{
    probe(hw);
    std::lock_guard lock(last_mutex);
    last = *hw;
    have_last = true;
    return OPF_SUCCESS;
}

const char *x86_feature_word_list()
{
    static const std::string words = [] {
        std::string w;
        for (const char *name : feature_names) w += (w.empty() ? "" : ",") + std::string(name);
        return w;
    }();
    return words.c_str();
}

const char *x86_feature_name(unsigned bit)
{
    // Exactly one bit of the known range.
    if (bit == 0 || (bit & (bit - 1)) || bit >= (1u << n_feature_names)) return nullptr;
    return feature_names[__builtin_ctz(bit)];
}

std::size_t format_x86_features(unsigned features, char *buf, std::size_t len)
{
    return format_names(feature_names, features, buf, len);
}

std::size_t format_arm_features(unsigned features, char *buf, std::size_t len)
{
    return format_names(arm_feature_names, features, buf, len);
}

std::size_t format_riscv_features(unsigned features, char *buf, std::size_t len)
{
    return format_names(riscv_feature_names, features, buf, len);
}

} // namespace opf

using namespace opf;

OPF_API int opf_hw_describe(opf_hw_info_t *hw)
try {
    if (!hw) return fail(OPF_ERR_ARG, "opf_hw_describe: hw is NULL");
    std::lock_guard lock(last_mutex);
    if (!have_last) {   // before any opf_init: probe now, once
        probe(&last);
        have_last = true;
    }
    *hw = last;
    return OPF_SUCCESS;
} catch (...) {
    return fail_exception("opf_hw_describe");
}

// For tools (opframe_info --hw), which see only the public API.
OPF_API size_t opf_hw_format_features(unsigned features, char *buf, size_t len)
try {
    return format_x86_features(features, buf, len);
} catch (...) {
    return fail_exception("opf_hw_format_features");
}

OPF_API size_t opf_hw_format_arm_features(unsigned features, char *buf, size_t len)
try {
    return format_arm_features(features, buf, len);
} catch (...) {
    return fail_exception("opf_hw_format_arm_features");
}

OPF_API size_t opf_hw_format_riscv_features(unsigned features, char *buf, size_t len)
try {
    return format_riscv_features(features, buf, len);
} catch (...) {
    return fail_exception("opf_hw_format_riscv_features");
}
