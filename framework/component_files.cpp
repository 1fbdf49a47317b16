// component_files.cpp — directories to search, libtool archives, and why a
// file does not load (see component_files.h).
#include "framework/component_files.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <utility>

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace opf {

namespace {

// At most `limit` bytes of a file; false with errno's text. Callers check
// file_problem first; O_NONBLOCK keeps a FIFO swapped in after that check
// from blocking the open (a regular file reads the same with it).
bool read_head(const std::string &path, std::size_t limit, std::string &out, std::string &why)
{
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        why = std::strerror(errno);
        return false;
    }
    out.assign(limit, '\0');
    std::size_t got = 0;
    while (got < limit) {
        const ssize_t n = read(fd, out.data() + got, limit - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            why = std::strerror(errno);
            close(fd);
            return false;
        }
        if (n == 0) break;
        got += std::size_t(n);
    }
    close(fd);
    out.resize(got);
    return true;
}

// The first bytes of a file as a user may recognise them: "starts with
// "garbage here"" (non-printable bytes as '.').
std::string starts_with_text(std::string_view head)
{
    if (head.empty()) return "is empty";
    std::string shown;
    for (char c : head.substr(0, std::min<std::size_t>(head.find('\n'), 32)))
        shown += (c >= 0x20 && c < 0x7f) ? c : '.';
    return "starts with \"" + shown + "\"";
}

std::string_view trim(std::string_view t)
{
    constexpr const char *space = " \t\r\n";
    const std::size_t b = t.find_first_not_of(space);
    if (b == std::string_view::npos) return {};
    return t.substr(b, t.find_last_not_of(space) - b + 1);
}

// The machines a component may be built for, by ELF e_machine.
const char *machine_name(unsigned machine)
{
    switch (machine) {
    case EM_386: return "i386";
    case EM_X86_64: return "x86-64";
    case EM_ARM: return "ARM";
    case EM_AARCH64: return "AArch64";
    case EM_PPC: return "PowerPC";
    case EM_PPC64: return "PowerPC64";
    case EM_S390: return "S/390";
    case EM_MIPS: return "MIPS";
    case EM_RISCV: return "RISC-V";
    case EM_SPARCV9: return "SPARC V9";
#ifdef EM_LOONGARCH
    case EM_LOONGARCH: return "LoongArch";
#endif
    default: return nullptr;
    }
}

// This process's ELF class, byte order and machine.
constexpr unsigned char kHostClass = sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32;
constexpr unsigned char kHostData = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
constexpr unsigned kHostMachine =
#if defined(__x86_64__)
    EM_X86_64;
#elif defined(__i386__)
    EM_386;
#elif defined(__aarch64__)
    EM_AARCH64;
#elif defined(__arm__)
    EM_ARM;
#elif defined(__powerpc64__)
    EM_PPC64;
#elif defined(__powerpc__)
    EM_PPC;
#elif defined(__s390__)
    EM_S390;
#elif defined(__riscv)
    EM_RISCV;
#elif defined(__mips__)
    EM_MIPS;
#else
    EM_NONE;   // unknown: machines are not compared
#endif

struct ElfIdentity {
    unsigned char elf_class, data;
    unsigned type, machine;
};

bool read_elf_identity(std::string_view h, ElfIdentity &id)
{
    if (h.size() < 20 || h.substr(0, 4) != std::string_view(ELFMAG, SELFMAG)) return false;
    id.elf_class = (unsigned char)h[EI_CLASS];
    id.data = (unsigned char)h[EI_DATA];
    auto half = [&](std::size_t at) {   // a 16-bit field in the file's byte order
        const unsigned lo = (unsigned char)h[at], hi = (unsigned char)h[at + 1];
        return id.data == ELFDATA2MSB ? (lo << 8 | hi) : (hi << 8 | lo);
    };
    id.type = half(16);
    id.machine = half(18);
    return true;
}

std::string describe(const ElfIdentity &id)
{
    std::string out = id.elf_class == ELFCLASS64 ? "ELF 64-bit" : id.elf_class == ELFCLASS32 ? "ELF 32-bit" : "ELF (unknown class)";
    out += id.data == ELFDATA2LSB ? " LSB" : id.data == ELFDATA2MSB ? " MSB" : " (unknown byte order)";
    switch (id.type) {
    case ET_DYN: out += " shared object"; break;
    case ET_EXEC: out += " executable"; break;
    case ET_REL: out += " relocatable object (.o)"; break;
    case ET_CORE: out += " core dump"; break;
    default: out += " file of type " + std::to_string(id.type); break;
    }
    const char *machine = machine_name(id.machine);
    return out + ", " + (machine ? machine : "machine " + std::to_string(id.machine));
}

// Why `path` is not a regular file one can open; empty if it is.
std::string file_problem(const std::string &path)
{
    struct stat st;
    if (lstat(path.c_str(), &st) != 0) return std::strerror(errno);
    if (stat(path.c_str(), &st) != 0) {
        if (errno == ELOOP) return "a symbolic link loop (too many levels of symbolic links)";
        if (errno == ENOENT) {
            char target[PATH_MAX];
            const ssize_t n = readlink(path.c_str(), target, sizeof target - 1);
            return "a dangling symbolic link" + (n > 0 ? " to " + std::string(target, std::size_t(n)) : std::string());
        }
        return std::strerror(errno);
    }
    if (!S_ISREG(st.st_mode))
        return std::string("not a regular file (") +
               (S_ISDIR(st.st_mode)                          ? "a directory"
                : S_ISFIFO(st.st_mode)                       ? "a FIFO"
                : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                                             : "a socket") +
               ")";
    return "";
}

} // namespace

std::vector<std::string> unique_directories(const std::string &path_list, std::vector<std::string> &notes)
{
    struct Seen {
        std::string dir;
        dev_t dev = 0;
        ino_t ino = 0;
        bool exists = false;
        int times = 1;
    };
    std::vector<Seen> seen;
    std::size_t at = 0;
    while (at <= path_list.size()) {
        const std::size_t colon = std::min(path_list.find(':', at), path_list.size());
        std::string dir(trim(std::string_view(path_list).substr(at, colon - at)));
        at = colon + 1;
        if (dir.empty()) continue;
        if (dir == "~" || dir.rfind("~/", 0) == 0) {   // the default names $HOME/.opframe/components so
            const char *home = std::getenv("HOME");
            if (!home || !*home) continue;
            dir = home + dir.substr(1);
        }
        struct stat st;
        const bool exists = stat(dir.c_str(), &st) == 0;
        const auto same = std::find_if(seen.begin(), seen.end(), [&](const Seen &s) {
            return s.dir == dir || (exists && s.exists && s.dev == st.st_dev && s.ino == st.st_ino);
        });
        if (same != seen.end()) {
            same->times++;
            continue;
        }
        seen.push_back({dir, exists ? st.st_dev : 0, exists ? st.st_ino : 0, exists, 1});
    }
    std::vector<std::string> dirs;
    for (const Seen &s : seen) {
        dirs.push_back(s.dir);
        if (s.times > 1)
            notes.push_back("component directory " + s.dir + " is named " + std::to_string(s.times) +
                            " times in mca_component_path (or through links); searched once");
    }
    return dirs;
}

bool parse_la(std::string_view text, LaFile &out, std::string &why)
{
    out = {};
    bool header = false, has_dlname = false;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t nl = std::min(text.find('\n', at), text.size());
        const std::string_view line = trim(text.substr(at, nl - at));
        at = nl + 1;
        if (line.rfind('#', 0) == 0) {
            header |= line.find("libtool library file") != std::string_view::npos;
            continue;
        }
        const std::size_t eq = line.find('=');
        if (eq == std::string_view::npos) continue;
        const std::string_view key = line.substr(0, eq);
        std::string_view value = line.substr(eq + 1);
        if (value.size() >= 2 && value.front() == '\'' && value.back() == '\'') value = value.substr(1, value.size() - 2);
        if (key == "dlname") {
            out.dlname = value;
            has_dlname = true;
        } else if (key == "libdir") {
            out.libdir = value;
        } else if (key == "installed") {
            out.installed = value == "yes";
        }
    }
    if (!has_dlname) {
        why = header ? "a libtool library file without a dlname line" :
                       "not a libtool library file (no \"libtool library file\" header, no dlname line; it " +
                           starts_with_text(text) + ")";
        return false;
    }
    if (out.dlname.find('/') != std::string::npos || out.dlname == "." || out.dlname == ".." ||
        out.dlname.find('\0') != std::string::npos) {
        why = "a libtool library file whose dlname \"" + std::string(trim(out.dlname.substr(0, 64))) +
              "\" is not a file name";
        return false;
    }
    if (out.dlname.empty()) {
        why = "a libtool library file with no shared library (dlname is empty: built static-only?)";
        return false;
    }
    return true;
}

bool read_la(const std::string &path, LaFile &out, std::string &why)
{
    constexpr std::size_t kMaxLaBytes = 64 * 1024;   // libtool writes about 1 KiB
    if (std::string problem = file_problem(path); !problem.empty()) {
        why = problem;
        return false;
    }
    std::string text, error;
    if (!read_head(path, kMaxLaBytes + 1, text, error)) {
        why = "cannot read it: " + error;
        return false;
    }
    if (text.size() > kMaxLaBytes) {
        why = "not a libtool library file (larger than 64 KiB)";
        return false;
    }
    return parse_la(text, out, why);
}

std::string describe_elf_header(std::string_view header)
{
    ElfIdentity id;
    return read_elf_identity(header, id) ? describe(id) : std::string();
}

std::string diagnose_shared_object(const std::string &path)
{
    if (std::string problem = file_problem(path); !problem.empty()) return problem;
    std::string head, error;
    if (!read_head(path, 64, head, error)) return "cannot read it: " + error;
    ElfIdentity id;
    if (!read_elf_identity(head, id)) return "not an ELF shared object: it " + starts_with_text(head);
    const bool foreign = id.elf_class != kHostClass || id.data != kHostData ||
                         (kHostMachine != EM_NONE && id.machine != kHostMachine);
    if (foreign) {
        const ElfIdentity host{kHostClass, kHostData, ET_DYN, kHostMachine};
        std::string host_text = describe(host);
        host_text = host_text.substr(0, host_text.find(" shared object")) + host_text.substr(host_text.find(','));
        return "an " + describe(id) + ": built for another machine (this process is " + host_text + ")";
    }
    if (id.type != ET_DYN) return "an " + describe(id) + ", not a shared object";
    return "";
}

// ---- a symbol the file defines but does not export ----------------------------

namespace {
using Ehdr = std::conditional_t<sizeof(void *) == 8, Elf64_Ehdr, Elf32_Ehdr>;
using Shdr = std::conditional_t<sizeof(void *) == 8, Elf64_Shdr, Elf32_Shdr>;
using Sym = std::conditional_t<sizeof(void *) == 8, Elf64_Sym, Elf32_Sym>;

// Copies the object of type T at `offset` (+ index objects) of `file`; false
// past its end (the file is untrusted: every offset is checked, and copied
// since it may be misaligned).
template <class T> bool read_at(std::string_view file, std::uint64_t offset, std::uint64_t index, T &out)
{
    const std::uint64_t start = offset + index * sizeof(T);
    if (index > file.size() || start < offset || start > file.size() || file.size() - start < sizeof(T)) return false;
    std::memcpy(&out, file.data() + start, sizeof(T));
    return true;
}
} // namespace

bool defines_unexported_symbol(const std::string &path, const std::string &symbol)
{
    constexpr std::size_t kLimit = std::size_t(256) << 20;   // a component is far smaller
    std::string file, why;
    if (!read_head(path, kLimit, file, why)) return false;
    ElfIdentity id;
    if (!read_elf_identity(file, id) || id.elf_class != kHostClass || id.data != kHostData) return false;
    Ehdr eh;
    if (!read_at(file, 0, 0, eh) || eh.e_shentsize != sizeof(Shdr)) return false;
    for (unsigned i = 0; i < eh.e_shnum; ++i) {
        Shdr sh, strtab;
        if (!read_at(file, eh.e_shoff, i, sh) || sh.sh_type != SHT_SYMTAB || sh.sh_entsize != sizeof(Sym)) continue;
        if (!read_at(file, eh.e_shoff, sh.sh_link, strtab) || strtab.sh_offset > file.size()) continue;
        const std::string_view names = std::string_view(file).substr(
            strtab.sh_offset, std::min<std::uint64_t>(strtab.sh_size, file.size() - strtab.sh_offset));
        Sym sym;
        for (std::uint64_t k = 0; k < sh.sh_size / sizeof(Sym) && read_at(file, sh.sh_offset, k, sym); ++k) {
            if (sym.st_shndx == SHN_UNDEF || sym.st_name >= names.size()) continue;
            const std::string_view name = names.substr(sym.st_name);
            if (name.substr(0, name.find('\0')) == symbol) return true;
        }
    }
    return false;
}

} // namespace opf
