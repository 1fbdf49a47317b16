// host_mappings.cpp — see host_mappings.h.
#include "host_mappings.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

namespace opf_cuda::host_mappings {
namespace {

// ---- the driver's mapping calls, counted ------------------------------------------
// `epoch` is never reset; `mapping_calls`, the parameter's copy, is reset
// to its default wherever the parameter is registered (each opf_init).
uint64_t epoch = 0;
int64_t mapping_calls = 0;
void count_call()   // before the call acts
{
    __atomic_fetch_add(&epoch, 1, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&mapping_calls, 1, __ATOMIC_RELAXED);
}

// What the driver's slots held before: the C library's functions (or an
// interposer's, which stays in the chain).
void *(*real_mmap)(void *, size_t, int, int, int, off_t);
void *(*real_mmap64)(void *, size_t, int, int, int, off_t);
void *(*real_mremap)(void *, size_t, size_t, int, ...);
int (*real_mprotect)(void *, size_t, int);
int (*real_munmap)(void *, size_t);
void *(*real_shmat)(int, const void *, int);
long (*real_syscall)(long, ...);

void *hooked_mmap(void *at, size_t n, int prot, int flags, int fd, off_t off)
{
    count_call();
    return real_mmap(at, n, prot, flags, fd, off);
}
void *hooked_mmap64(void *at, size_t n, int prot, int flags, int fd, off_t off)
{
    count_call();
    return real_mmap64(at, n, prot, flags, fd, off);
}
void *hooked_mremap(void *old, size_t old_n, size_t new_n, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    void *fixed_at = flags & MREMAP_FIXED ? va_arg(ap, void *) : nullptr;
    va_end(ap);
    count_call();
    return real_mremap(old, old_n, new_n, flags, fixed_at);
}
int hooked_mprotect(void *at, size_t n, int prot)
{
    count_call();
    return real_mprotect(at, n, prot);
}
int hooked_munmap(void *at, size_t n)   // frees nothing host code uses; counted all the same
{
    count_call();
    return real_munmap(at, n);
}
void *hooked_shmat(int id, const void *at, int flags)
{
    count_call();
    return real_shmat(id, at, flags);
}
// syscall(2) forwards six register-sized arguments whatever the number takes.
long hooked_syscall(long number, ...)
{
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (long &x : a) x = va_arg(ap, long);
    va_end(ap);
    switch (number) {
    case SYS_mmap: case SYS_mremap: case SYS_mprotect: case SYS_munmap: case SYS_shmat: count_call(); break;
    default: break;
    }
    return real_syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

struct Hook {
    const char *name;
    void *hook;
    void **real;
    bool maps;   // creates mappings: at least one of these must be hooked
};
const Hook hooks[] = {
    {"mmap", reinterpret_cast<void *>(hooked_mmap), reinterpret_cast<void **>(&real_mmap), true},
    {"mmap64", reinterpret_cast<void *>(hooked_mmap64), reinterpret_cast<void **>(&real_mmap64), true},
    {"mremap", reinterpret_cast<void *>(hooked_mremap), reinterpret_cast<void **>(&real_mremap), false},
    {"mprotect", reinterpret_cast<void *>(hooked_mprotect), reinterpret_cast<void **>(&real_mprotect), false},
    {"munmap", reinterpret_cast<void *>(hooked_munmap), reinterpret_cast<void **>(&real_munmap), false},
    {"shmat", reinterpret_cast<void *>(hooked_shmat), reinterpret_cast<void **>(&real_shmat), false},
    {"syscall", reinterpret_cast<void *>(hooked_syscall), reinterpret_cast<void **>(&real_syscall), false},
};

// The object's RELRO segment (read-only after relocation), to put back.
struct Relro {
    uintptr_t base = 0, low = 0, high = 0;
};
int find_relro(dl_phdr_info *info, size_t, void *data)
{
    auto *r = static_cast<Relro *>(data);
    if (info->dlpi_addr != r->base) return 0;
    for (int i = 0; i < info->dlpi_phnum; ++i)
        if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO) {
            r->low = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            r->high = r->low + info->dlpi_phdr[i].p_memsz;
        }
    return 1;
}

// Writes `value` into a relocated slot of the object (its page made writable
// for the store, read-only again where it is RELRO).
void write_slot(void **slot, void *value, const Relro &relro)
{
    const auto at = reinterpret_cast<uintptr_t>(slot);
    const uintptr_t page_size = uintptr_t(sysconf(_SC_PAGESIZE));
    void *page = reinterpret_cast<void *>(at & ~(page_size - 1));
    const bool read_only = at >= relro.low && at < relro.high;
    if (read_only && mprotect(page, page_size, PROT_READ | PROT_WRITE) != 0) return;
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
    if (read_only) mprotect(page, page_size, PROT_READ);
}

// Hooks the object's relocations against the functions above. Returns the
// names hooked ("" where none), or "" with `why` set.
std::string hook_object(void *handle, std::string &why)
{
    link_map *map = nullptr;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map) {
        why = "its link map is unknown";
        return "";
    }
    // The dynamic linker relocates most of these in place; some systems keep
    // them as file addresses (RISC-V).
    const auto address = [&](ElfW(Addr) p) { return p < map->l_addr ? p + map->l_addr : p; };
    const ElfW(Sym) *symbols = nullptr;
    const char *strings = nullptr;
    const ElfW(Rela) *tables[2] = {};
    size_t sizes[2] = {};
    bool rela_plt = true;
    for (const ElfW(Dyn) *d = map->l_ld; d->d_tag != DT_NULL; ++d) switch (d->d_tag) {
        case DT_SYMTAB: symbols = reinterpret_cast<const ElfW(Sym) *>(address(d->d_un.d_ptr)); break;
        case DT_STRTAB: strings = reinterpret_cast<const char *>(address(d->d_un.d_ptr)); break;
        case DT_JMPREL: tables[0] = reinterpret_cast<const ElfW(Rela) *>(address(d->d_un.d_ptr)); break;
        case DT_PLTRELSZ: sizes[0] = d->d_un.d_val; break;
        case DT_PLTREL: rela_plt = d->d_un.d_val == DT_RELA; break;
        case DT_RELA: tables[1] = reinterpret_cast<const ElfW(Rela) *>(address(d->d_un.d_ptr)); break;
        case DT_RELASZ: sizes[1] = d->d_un.d_val; break;
        default: break;
        }
    if (!symbols || !strings || !rela_plt) {
        why = "its relocations are not of a kind read here";
        return "";
    }
    Relro relro;
    relro.base = map->l_addr;
    dl_iterate_phdr(find_relro, &relro);
    std::string names;
    for (int t = 0; t < 2; ++t)
        for (size_t i = 0; tables[t] && i < sizes[t] / sizeof(ElfW(Rela)); ++i) {
            const ElfW(Rela) &r = tables[t][i];
#if __SIZEOF_POINTER__ == 8
            const size_t sym = ELF64_R_SYM(r.r_info);
#else
            const size_t sym = ELF32_R_SYM(r.r_info);
#endif
            if (!sym) continue;
            const char *name = strings + symbols[sym].st_name;
            for (const Hook &h : hooks) {
                if (std::strcmp(name, h.name) != 0) continue;
                auto **slot = reinterpret_cast<void **>(map->l_addr + r.r_offset);
                void *held = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
                if (held == h.hook) break;   // hooked already (a second opf_init)
                if (!*h.real) {
                    // A slot still pointing into the object itself is a lazy-binding stub, which would put
                    // the resolved function back over the hook: forward to the definition the linker finds.
                    Dl_info in{};
                    const bool stub = !held || (dladdr(held, &in) && in.dli_fbase == reinterpret_cast<void *>(map->l_addr));
                    *h.real = stub ? dlsym(RTLD_DEFAULT, h.name) : held;
                    if (!*h.real) break;
                }
                write_slot(slot, h.hook, relro);
                if (names.find(std::string(" ") + h.name + ",") == std::string::npos) names += std::string(" ") + h.name + ",";
                break;
            }
        }
    return names;
}

std::mutex hooking;
bool hooked = false;
std::string hooked_names;

} // namespace

const uint64_t *start(void *driver, bool wanted, char *state, size_t state_len)
{
    std::lock_guard<std::mutex> lock(hooking);
    if (!wanted) {
        std::snprintf(state, state_len, "off: op_cuda_host_cache=false");
        return nullptr;
    }
    if (!hooked) {
        std::string reason;
        hooked_names = hook_object(driver, reason);
        bool maps = false;
        for (const Hook &h : hooks) maps |= h.maps && hooked_names.find(std::string(" ") + h.name + ",") != std::string::npos;
        if (!maps) {
            std::snprintf(state, state_len, "off: libcuda.so.1 %s",
                          reason.empty() ? "calls no mmap through its relocations" : ("cannot be hooked: " + reason).c_str());
            return nullptr;
        }
        hooked_names.pop_back();   // the last comma
        hooked = true;
    }
    std::snprintf(state, state_len, "on: host mappings remembered while libcuda.so.1 calls none of%s",
                  hooked_names.c_str());
    return &epoch;
}

int64_t *driver_mapping_calls() { return &mapping_calls; }

} // namespace opf_cuda::host_mappings
