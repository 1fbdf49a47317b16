/* hwprobe.c — the hardware probe against what Linux says about the machine:
 * the ISA against /proc/cpuinfo's flags (which already account for what the
 * OS enables), the PU count against sysconf, the caches against sysfs.
 * Compares, never hard-codes: CI machines differ. */
#define _DEFAULT_SOURCE   /* sysconf(_SC_NPROCESSORS_ONLN) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <opframe/introspect.h>
#include "check.h"

#if defined(__x86_64__) || defined(__i386__)
#define X86 1
#endif

static const struct { unsigned bit; const char *flag; } isa[] = {
    {OPF_X86_SSE2, "sse2"}, {OPF_X86_SSE4_1, "sse4_1"}, {OPF_X86_AVX, "avx"},
    {OPF_X86_AVX2, "avx2"}, {OPF_X86_FMA, "fma"}, {OPF_X86_F16C, "f16c"},
    {OPF_X86_AVX512F, "avx512f"}, {OPF_X86_AVX512BW, "avx512bw"},
    {OPF_X86_AVX512VL, "avx512vl"}, {OPF_X86_AVX512DQ, "avx512dq"},
    {OPF_X86_AVX512_FP16, "avx512_fp16"}, {OPF_X86_AVX512_BF16, "avx512_bf16"},
};

/* The first line of /proc/cpuinfo named `key` ("flags" on x86, "Features"
 * on Arm), with a space at both ends so a flag is found as " name ". 0 when
 * there is none. */
static int cpuinfo_line(const char *key, char *out, size_t len)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    static char line[8192];
    int found = 0;
    if (!f) return 0;
    while (!found && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, key, strlen(key)) != 0 || !colon) continue;
        line[strcspn(line, "\n")] = '\0';
        snprintf(out, len, " %s ", colon + 1);
        found = 1;
    }
    fclose(f);
    return found;
}

static int has_flag(const char *flags, const char *name)
{
    char word[64];
    snprintf(word, sizeof word, " %s ", name);
    return strstr(flags, word) != NULL;
}

/* The formatted feature set: the names of the set bits, in bit order. */
static void check_format(unsigned features)
{
    char text[256], expect[256] = "", tiny[8];
    size_t i, need;
    for (i = 0; i < sizeof isa / sizeof isa[0]; ++i)
        if (features & isa[i].bit) {
            if (expect[0]) strcat(expect, " ");
            strcat(expect, isa[i].flag);
        }
    if (!expect[0]) strcpy(expect, "none");
    need = opf_hw_format_features(features, text, sizeof text);
    CHECK(strcmp(text, expect) == 0, "formatted \"%s\", expected \"%s\"", text, expect);
    CHECK(need == strlen(expect), "length %zu, expected %zu", need, strlen(expect));
    /* Truncates like snprintf. */
    CHECK(opf_hw_format_features(features, tiny, sizeof tiny) == need &&
              strlen(tiny) == (need < sizeof tiny ? need : sizeof tiny - 1) &&
              strncmp(tiny, expect, strlen(tiny)) == 0,
          "truncated to \"%s\"", tiny);
}

#if defined(__aarch64__)
#define ARM 1
static const struct { unsigned bit; const char *flag; } arm_isa[] = {
    {OPF_ARM_ASIMD, "asimd"}, {OPF_ARM_FPHP, "fphp"}, {OPF_ARM_ASIMDHP, "asimdhp"}, {OPF_ARM_SVE, "sve"},
    {OPF_ARM_SVE2, "sve2"}, {OPF_ARM_BF16, "bf16"}, {OPF_ARM_SVEBF16, "svebf16"},
};
#endif

/* The Arm features (getauxval) against /proc/cpuinfo's "Features" line, the
 * SVE vector length against the architecture's range; none elsewhere. */
static void check_arm(const opf_hw_info_t *hw)
{
    char text[128], tiny[6];
    CHECK(opf_hw_format_arm_features(OPF_ARM_ASIMD | OPF_ARM_SVE | OPF_ARM_BF16, text, sizeof text) == 14 &&
              strcmp(text, "asimd sve bf16") == 0, "formatted Arm features \"%s\"", text);
    CHECK(opf_hw_format_arm_features(0, text, sizeof text) == 4 && strcmp(text, "none") == 0, "no Arm features: \"%s\"", text);
    CHECK(opf_hw_format_arm_features(OPF_ARM_SVE2 | OPF_ARM_SVEBF16, tiny, sizeof tiny) == 12 &&
              strcmp(tiny, "sve2 ") == 0, "truncated to \"%s\"", tiny);
#ifdef ARM
    {
        static char features[8192];
        size_t i;
        const unsigned bits = hw->arm_sve_vector_bits;
        CHECK(hw->arm_features & OPF_ARM_ASIMD, "no asimd on aarch64");
        CHECK((hw->arm_features & OPF_ARM_SVE) ? bits >= 128 && bits <= 2048 && bits % 128 == 0 : bits == 0,
              "SVE vector length %u bits (features 0x%x)", bits, hw->arm_features);
        if (!cpuinfo_line("Features", features, sizeof features)) {
            printf("hwprobe: no Features line in /proc/cpuinfo; Arm ISA not compared\n");
            return;
        }
        for (i = 0; i < sizeof arm_isa / sizeof arm_isa[0]; ++i) {
            const int probed = (hw->arm_features & arm_isa[i].bit) != 0;
            const int linux_says = has_flag(features, arm_isa[i].flag);
            CHECK(probed == linux_says, "%s: probe says %d, /proc/cpuinfo says %d", arm_isa[i].flag, probed, linux_says);
        }
    }
#else
    CHECK(hw->arm_features == 0 && hw->arm_sve_vector_bits == 0, "Arm features 0x%x, SVE %u bits off Arm",
          hw->arm_features, hw->arm_sve_vector_bits);
#endif
}

#if defined(__riscv) && __riscv_xlen == 64 && defined(__linux__)
#define RISCV 1
#endif

/* RISC-V: V and VLEN against the architecture (VLEN a power of two, 128 to
 * 65536 bits: RVV 1.0's V needs Zvl128b) and /proc/cpuinfo's isa line
 * ("rv64imafdcv_zicsr_..._zvfh_zvfhmin"); none elsewhere. The Z* extensions
 * come from riscv_hwprobe, which a kernel older than an extension's bit
 * leaves clear: those seen must be on the isa line, and zvfh / zvfhmin
 * (Linux 6.4's bits) exactly. */
static void check_riscv(const opf_hw_info_t *hw)
{
    char text[128], tiny[6];
    CHECK(opf_hw_format_riscv_features(OPF_RISCV_V | OPF_RISCV_ZVFH | OPF_RISCV_ZVFBFWMA, text, sizeof text) == 15 &&
              strcmp(text, "v zvfh zvfbfwma") == 0, "formatted RISC-V features \"%s\"", text);
    CHECK(opf_hw_format_riscv_features(0, text, sizeof text) == 4 && strcmp(text, "none") == 0,
          "no RISC-V features: \"%s\"", text);
    CHECK(opf_hw_format_riscv_features(OPF_RISCV_ZVFHMIN, tiny, sizeof tiny) == 7 && strcmp(tiny, "zvfhm") == 0,
          "truncated to \"%s\"", tiny);
#ifdef RISCV
    {
        static const struct { unsigned bit; const char *name; int exact; } ext[] = {
            {OPF_RISCV_ZVFHMIN, "zvfhmin", 1}, {OPF_RISCV_ZVFH, "zvfh", 1},
            {OPF_RISCV_ZVFBFMIN, "zvfbfmin", 0}, {OPF_RISCV_ZVFBFWMA, "zvfbfwma", 0},
        };
        static char isa_line[8192], words[8192];
        const char *isa;
        const unsigned vlen = hw->riscv_vlen_bits;
        size_t i, base_len;
        CHECK((hw->riscv_features & OPF_RISCV_V) ? vlen >= 128 && vlen <= 65536 && (vlen & (vlen - 1)) == 0 : vlen == 0,
              "VLEN %u bits (features 0x%x)", vlen, hw->riscv_features);
        CHECK((hw->riscv_features & OPF_RISCV_V) || hw->riscv_features == 0, "vector extensions 0x%x without V",
              hw->riscv_features);
        if (!cpuinfo_line("isa", isa_line, sizeof isa_line)) {
            printf("hwprobe: no isa line in /proc/cpuinfo; RISC-V ISA not compared\n");
            return;
        }
        /* "rv64imafdcv_zicsr_zvfh" -> the single letters, then " zicsr zvfh " */
        isa = strstr(isa_line, "rv64");
        CHECK(isa != NULL, "/proc/cpuinfo's isa \"%s\" is not rv64", isa_line);
        if (!isa) return;
        base_len = strcspn(isa, "_ \t");
        snprintf(words, sizeof words, " %s", isa + base_len);
        for (i = 0; words[i]; ++i)
            if (words[i] == '_') words[i] = ' ';
        {
            const char *v = memchr(isa + 4, 'v', base_len - 4);
            const int probed = (hw->riscv_features & OPF_RISCV_V) != 0;
            CHECK(probed == (v != NULL), "v: probe says %d, /proc/cpuinfo's isa \"%s\"", probed, isa_line);
        }
        for (i = 0; i < sizeof ext / sizeof ext[0]; ++i) {
            const int probed = (hw->riscv_features & ext[i].bit) != 0;
            const int linux_says = has_flag(words, ext[i].name);
            CHECK(ext[i].exact ? probed == linux_says : !probed || linux_says,
                  "%s: probe says %d, /proc/cpuinfo says %d", ext[i].name, probed, linux_says);
        }
    }
#else
    CHECK(hw->riscv_features == 0 && hw->riscv_vlen_bits == 0, "RISC-V features 0x%x, VLEN %u off RISC-V",
          hw->riscv_features, hw->riscv_vlen_bits);
#endif
}

static void check_isa(const opf_hw_info_t *hw)
{
    static char flags[8192];
    size_t i;
    check_format(hw->x86_features);
    check_format(0);
    check_format(OPF_X86_SSE2 | OPF_X86_AVX2 | OPF_X86_AVX512_BF16);
    CHECK((hw->x86_features & hw->x86_cpu_only) == 0, "usable 0x%x and cpu-only 0x%x overlap",
          hw->x86_features, hw->x86_cpu_only);
#ifdef X86
    CHECK(hw->cpu_model[0] != '\0', "no CPU model on x86");
    if (!cpuinfo_line("flags", flags, sizeof flags)) {
        printf("hwprobe: no flags line in /proc/cpuinfo; ISA not compared\n");
        return;
    }
    for (i = 0; i < sizeof isa / sizeof isa[0]; ++i) {
        const int probed = (hw->x86_features & isa[i].bit) != 0;
        const int linux_says = has_flag(flags, isa[i].flag);
        CHECK(probed == linux_says, "%s: probe says %d, /proc/cpuinfo says %d%s", isa[i].flag, probed,
              linux_says, (hw->x86_cpu_only & isa[i].bit) ? " (CPU has it, OS does not enable it)" : "");
    }
    {   /* the AVX-512 datapath, from Linux's vendor and family: 256 bits on AMD family 25 (Zen 4) */
        char vendor[64] = "", family[16] = "";
        const int avx512 = (hw->x86_features & OPF_X86_AVX512F) != 0;
        unsigned want = 0;
        cpuinfo_line("vendor_id", vendor, sizeof vendor);
        cpuinfo_line("cpu family", family, sizeof family);
        if (avx512) want = strstr(vendor, "AuthenticAMD") && atoi(family) == 25 ? 256 : 512;
        CHECK(hw->x86_avx512_datapath_bits == want, "AVX-512 datapath %u bits, want %u (vendor %s, family %s)",
              hw->x86_avx512_datapath_bits, want, vendor, family);
        printf("hwprobe: AVX-512 datapath %u bits (vendor%sfamily%s)\n", hw->x86_avx512_datapath_bits, vendor, family);
    }
#else
    (void)flags; (void)i;
    CHECK(hw->x86_avx512_datapath_bits == 0, "an AVX-512 datapath off x86");
    CHECK(hw->x86_features == 0 && hw->x86_cpu_only == 0, "x86 features on a non-x86 build");
#endif
}

/* Size in bytes of cpu0's data or unified cache of `level` per sysfs (what
 * hwloc reads on Linux); 0 if sysfs does not list one. */
static long long sysfs_cache(int level)
{
    int index;
    for (index = 0; index < 16; ++index) {
        char path[128], type[32] = "", unit = 0;
        int lvl = 0;
        long long size = 0;
        FILE *f;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", index);
        if (!(f = fopen(path, "r"))) break;
        if (fscanf(f, "%d", &lvl) != 1) lvl = 0;
        fclose(f);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", index);
        if ((f = fopen(path, "r"))) {
            if (fscanf(f, "%31s", type) != 1) type[0] = '\0';
            fclose(f);
        }
        if (lvl != level || strcmp(type, "Instruction") == 0) continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
        if (!(f = fopen(path, "r"))) continue;
        if (fscanf(f, "%lld%c", &size, &unit) < 1) size = 0;
        fclose(f);
        return unit == 'K' ? size << 10 : unit == 'M' ? size << 20 : unit == 'G' ? size << 30 : size;
    }
    return 0;
}

/* hwloc honours these to describe another machine (a test topology). */
static int topology_overridden(void)
{
    return getenv("HWLOC_XMLFILE") || getenv("HWLOC_SYNTHETIC") || getenv("HWLOC_FSROOT") ||
           getenv("HWLOC_COMPONENTS");
}

static void check_topology(const opf_hw_info_t *hw)
{
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    const long long caches[3] = {(long long)hw->l1d_bytes, (long long)hw->l2_bytes, (long long)hw->l3_bytes};
    int level, i;

    for (level = 1; level <= 3; ++level)
        CHECK(caches[level - 1] >= 0, "L%d %lld bytes", level, caches[level - 1]);
    CHECK(hw->cores >= 1 && hw->cores <= hw->pus, "cores %d, PUs %d", hw->cores, hw->pus);
    CHECK(hw->n_devices >= 0 && hw->n_devices <= OPF_HW_MAX_DEVICES, "%d devices", hw->n_devices);
    for (i = 0; i < hw->n_devices && i < OPF_HW_MAX_DEVICES; ++i) {
        const opf_hw_device_t *d = &hw->devices[i];
        CHECK(d->name[0] != '\0', "device %d has no name", i);
        CHECK(!strcmp(d->kind, "gpu") || !strcmp(d->kind, "cuda") || !strcmp(d->kind, "opencl") ||
                  !strcmp(d->kind, "coproc"),
              "device %s: kind \"%s\"", d->name, d->kind);
    }
    if (topology_overridden()) {
        printf("hwprobe: HWLOC_* topology override set; not compared with this machine\n");
        return;
    }
    CHECK(online <= 0 || hw->pus == online, "PUs %d, sysconf(_SC_NPROCESSORS_ONLN) %ld", hw->pus, online);
    CHECK(hw->numa_nodes >= 1, "NUMA nodes %d", hw->numa_nodes);
    for (level = 1; level <= 3; ++level) {
        const long long sysfs = sysfs_cache(level);
        if (!hw->hwloc)
            CHECK(caches[level - 1] == 0, "L%d %lld bytes without hwloc", level, caches[level - 1]);
        else if (sysfs)
            CHECK(caches[level - 1] == sysfs, "L%d: probe %lld bytes, sysfs %lld", level, caches[level - 1],
                  sysfs);
    }
}

static void show(const opf_hw_info_t *hw)
{
    int i;
    printf("hwprobe: \"%s\", features 0x%x (cpu only 0x%x), %d cores, %d PUs, %d NUMA, "
           "L1d %lld L2 %lld L3 %lld, hwloc %d, %d devices\n",
           hw->cpu_model, hw->x86_features, hw->x86_cpu_only, hw->cores, hw->pus, hw->numa_nodes,
           (long long)hw->l1d_bytes, (long long)hw->l2_bytes, (long long)hw->l3_bytes, hw->hwloc, hw->n_devices);
    for (i = 0; i < hw->n_devices && i < OPF_HW_MAX_DEVICES; ++i)
        printf("hwprobe:   %s (%s) %s\n", hw->devices[i].name, hw->devices[i].kind, hw->devices[i].model);
}

int main(void)
{
    opf_hw_info_t before, after;

    CHECK_RC(opf_hw_describe(NULL), OPF_ERR_ARG);
    /* Before opf_init the probe runs on demand. */
    memset(&before, 0xff, sizeof before);
    CHECK_RC(opf_hw_describe(&before), OPF_SUCCESS);
    CHECK(before.struct_size == sizeof before, "struct_size %zu, expected %zu", before.struct_size, sizeof before);
    show(&before);
    check_isa(&before);
    check_arm(&before);
    check_riscv(&before);
    check_topology(&before);

    /* The machine does not change across opf_init. */
    CHECK_RC(opf_init(), OPF_SUCCESS);
    CHECK_RC(opf_hw_describe(&after), OPF_SUCCESS);
    CHECK(after.x86_features == before.x86_features && after.x86_cpu_only == before.x86_cpu_only,
          "features changed: 0x%x -> 0x%x", before.x86_features, after.x86_features);
    CHECK(after.cores == before.cores && after.pus == before.pus && after.l1d_bytes == before.l1d_bytes &&
              after.l2_bytes == before.l2_bytes && after.l3_bytes == before.l3_bytes &&
              after.n_devices == before.n_devices && after.hwloc == before.hwloc,
          "topology changed across opf_init");
    CHECK(strcmp(after.cpu_model, before.cpu_model) == 0, "model \"%s\" -> \"%s\"", before.cpu_model,
          after.cpu_model);
    CHECK_RC(opf_finalize(), OPF_SUCCESS);
    return check_summary("hwprobe");
}
