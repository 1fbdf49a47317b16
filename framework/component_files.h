// component_files.h — what the component repository needs to know about the
// files and directories on mca_component_path before and after it asks the
// dynamic loader: which directories to search (each once), which shared
// object a libtool archive (.la) names, and why a file would not load, in
// words a user can act on. Pure file inspection: no libltdl, no registry
// state (fuzz/ drives parse_la directly).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace opf {

// The directories of a ':'-separated path list, in order, each once: "~/"
// is expanded with $HOME (an entry needing an unset $HOME is dropped), empty
// entries are dropped, and two entries naming one directory (the same text,
// or a link to it) keep the first. `notes` gets one line per directory
// listed more than once.
std::vector<std::string> unique_directories(const std::string &path_list, std::vector<std::string> &notes);

// What a libtool archive says about its shared object.
struct LaFile {
    std::string dlname;     // the file to dlopen; empty for a static-only library
    std::string libdir;     // where it was to be installed (only named in messages)
    bool installed = false;
};

// Parses the text of a .la file: libtool's `key='value'` lines. False with
// the reason when it is not one (no libtool header line, no dlname line, a
// dlname that is not a plain file name).
bool parse_la(std::string_view text, LaFile &out, std::string &why);

// Reads `path` (a .la, at most 64 KiB) and parses it; false with the reason.
bool read_la(const std::string &path, LaFile &out, std::string &why);

// Why `path` cannot be a loadable shared object for this process, from the
// file itself: a symbolic link loop or a dangling link, not a regular file,
// not an ELF file (and what it starts with), an ELF file of another class,
// byte order or machine than this process, or not a shared object. Empty
// when the file looks loadable (the loader's own message is then the reason).
// Never blocks: a FIFO, device or socket is named before anything opens it,
// so the repository asks this before the loader opens a file.
std::string diagnose_shared_object(const std::string &path);

// "ELF 64-bit LSB shared object, AArch64" for the header bytes of an ELF
// file; empty if `header` is not one. Exposed for tests and fuzzing.
std::string describe_elf_header(std::string_view header);

// Whether the file's own symbol table (.symtab) defines `symbol`: one the
// loader did not find there is defined but not exported (hidden visibility).
// False when the file does not define it or was stripped of .symtab.
bool defines_unexported_symbol(const std::string &path, const std::string &symbol);

} // namespace opf
