// params.cpp — the MCA parameter registry (see params.h).
#include "framework/params.h"
#include "framework/file_trust.h"
#include "framework/hwprobe.h"
#include "framework/messages.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <vector>

#include <opframe/introspect.h>
#include <opframe/component.h>   // opf_param_spec_t, opf_param_register

#include "config.h"
#include "base/kernels.h"
#include "framework/datatype.h"
#include "framework/error.h"
#include "framework/runtime.h"

// Where the system parameter file lives; the build may pass -DOPF_SYSCONFDIR.
#ifndef OPF_SYSCONFDIR
#define OPF_SYSCONFDIR "/usr/local/etc"
#endif
#ifndef OPF_COMPONENT_PATH_DEFAULT
#define OPF_COMPONENT_PATH_DEFAULT ""
#endif

namespace opf {

thread_local std::string registering_component;

Params params = {
    .user_int_limit = INT_MAX,
    .op_list = "",
    .verbose = 0,
    .component_path = OPF_COMPONENT_PATH_DEFAULT,
    .show_load_errors = 1,
    .component_trust = kTrustOwner,
    .pin = "",
    .selftest = 0,
    .hwloc_opencl = 0,
    .isa_mask = -1,
    .avx512_datapath = 0,
    .threads = 1,
    .threads_min_bytes = int64_t(4) << 20,
    .threads_in_mpi = 0,
    .quiet_absent = 0,
};

namespace {

// ---- text helpers ------------------------------------------------------------

std::string_view trim(std::string_view t)
{
    constexpr const char *space = " \t\r\n\f\v";
    const std::size_t b = t.find_first_not_of(space);
    if (b == std::string_view::npos) return {};
    return t.substr(b, t.find_last_not_of(space) - b + 1);
}

bool equal_nocase(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// "a, b,c" -> {"a", "b", "c"}; empty items are kept (callers decide).
std::vector<std::string> split_list(std::string_view list)
{
    std::vector<std::string> items;
    for (std::size_t at = 0;;) {
        const std::size_t comma = list.find(',', at);
        items.emplace_back(trim(list.substr(at, comma == std::string_view::npos ? comma : comma - at)));
        if (comma == std::string_view::npos) return items;
        at = comma + 1;
    }
}

std::string join(const std::vector<std::string> &items)
{
    std::string out;
    for (const std::string &item : items) out += (out.empty() ? "" : ",") + item;
    return out;
}

std::string vprintf_string(const char *fmt, va_list args)
{
    va_list again;
    va_copy(again, args);
    const int n = std::vsnprintf(nullptr, 0, fmt, args);
    std::string out(n > 0 ? std::size_t(n) : 0, '\0');
    std::vsnprintf(out.data(), out.size() + 1, fmt, again);
    va_end(again);
    return out;
}

[[gnu::format(printf, 1, 2)]] std::string printf_string(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    std::string out = vprintf_string(fmt, args);
    va_end(args);
    return out;
}

// Names as environment variables and file keys can carry them.
bool valid_name(std::string_view name)
{
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    });
}

// ---- parameters ----------------------------------------------------------------

// A parsed value; the member in use depends on the type.
struct Value {
    int64_t i = 0;   // BOOL, INT, SIZE, ENUM (word index), FLAGS (bit set)
    double d = 0;    // DOUBLE
    std::string s;   // STRING
};

// Text whose c_str() stays valid until forget_old(), even after set() changes
// it: STRING storage and opf_param_describe hand these pointers out.
class StableText {
public:
    const char *set(std::string text)
    {
        if (text != *now_) {
            old_.push_back(std::move(now_));
            now_ = std::make_unique<std::string>(std::move(text));
        }
        return now_->c_str();
    }
    const char *c_str() const { return now_->c_str(); }
    void forget_old() { old_.clear(); }

private:
    std::unique_ptr<std::string> now_ = std::make_unique<std::string>();
    std::vector<std::unique_ptr<std::string>> old_;
};

struct Param {
    std::string name, default_text, description;
    int type = OPF_PARAM_STRING, level = 9;
    bool read_only = false;
    bool framework = false;                      // kept across opf_finalize
    bool init_only = false;                      // read at opf_init only: a later change waits for the next
    std::string in_force;                        // init_only: the value opf_init read
    int64_t min = INT64_MIN, max = INT64_MAX;    // INT only
    std::vector<std::string> words;              // ENUM / FLAGS
    std::vector<std::string> synonyms;
    std::string words_text, synonyms_text;       // normalised "a,b,c"
    void *storage = nullptr;
    StableText string_value;   // what STRING storage points to
    StableText source;         // where the current value came from
    StableText shown_value;    // the value as opf_param_describe showed it last
};

// ---- one parser and one formatter per type -------------------------------------

using Parser = bool (*)(const Param &, std::string_view, Value &, std::string &why);
using Formatter = std::string (*)(const Param &, const Value &);

bool parse_bool(const Param &, std::string_view t, Value &v, std::string &why)
{
    static constexpr std::pair<const char *, int> words[] = {
        {"1", 1}, {"0", 0}, {"true", 1}, {"false", 0}, {"yes", 1}, {"no", 0}, {"on", 1}, {"off", 0}};
    for (const auto &[word, truth] : words)
        if (equal_nocase(t, word)) {
            v.i = truth;
            return true;
        }
    why = "not a boolean (1/0, true/false, yes/no, on/off)";
    return false;
}

// Decimal, or hexadecimal after 0x; optional sign.
bool parse_int64(std::string_view t, int64_t &out)
{
    const bool negative = !t.empty() && t[0] == '-';
    if (!t.empty() && (t[0] == '-' || t[0] == '+')) t.remove_prefix(1);
    int base = 10;
    if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
        base = 16;
        t.remove_prefix(2);
    }
    uint64_t magnitude = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), magnitude, base);
    if (t.empty() || ec != std::errc() || end != t.data() + t.size()) return false;
    if (magnitude > uint64_t(INT64_MAX) + negative) return false;
    out = negative ? int64_t(0 - magnitude) : int64_t(magnitude);
    return true;
}

bool parse_int(const Param &p, std::string_view t, Value &v, std::string &why)
{
    int64_t n = 0;
    if (!parse_int64(t, n)) {
        why = "not an integer";
        return false;
    }
    if (n < p.min || n > p.max) {
        why = printf_string("not in [%lld, %lld]", (long long)p.min, (long long)p.max);
        return false;
    }
    v.i = n;
    return true;
}

constexpr std::pair<int, char> kSizeSuffixes[] = {{30, 'G'}, {20, 'M'}, {10, 'K'}};

// Bytes, or a number with a binary K, M or G suffix.
bool parse_size(const Param &, std::string_view t, Value &v, std::string &why)
{
    int shift = 0;
    for (const auto &[s, suffix] : kSizeSuffixes)
        if (!t.empty() && std::toupper((unsigned char)t.back()) == suffix) {
            shift = s;
            t.remove_suffix(1);
            break;
        }
    uint64_t n = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
    if (t.empty() || ec != std::errc() || end != t.data() + t.size() || n > (uint64_t(INT64_MAX) >> shift)) {
        why = "not a size (bytes, or a number with a K, M or G suffix)";
        return false;
    }
    v.i = int64_t(n << shift);
    return true;
}

// Locale-independent (strtod would read "0,5" in some locales).
bool parse_double(const Param &, std::string_view t, Value &v, std::string &why)
{
    if (!t.empty() && t[0] == '+') t.remove_prefix(1);
    double d = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), d);
    if (t.empty() || ec != std::errc() || end != t.data() + t.size() || !std::isfinite(d)) {
        why = "not a finite number";
        return false;
    }
    v.d = d;
    return true;
}

bool parse_string(const Param &, std::string_view t, Value &v, std::string &)
{
    v.s = t;
    return true;
}

int word_index(const Param &p, std::string_view word)
{
    for (std::size_t k = 0; k < p.words.size(); ++k)
        if (equal_nocase(word, p.words[k])) return int(k);
    return -1;
}

bool parse_enum(const Param &p, std::string_view t, Value &v, std::string &why)
{
    const int k = word_index(p, t);
    if (k < 0) {
        why = "not one of " + p.words_text;
        return false;
    }
    v.i = k;
    return true;
}

// "a,b": the bits of the words; "" is no flag.
bool parse_flags(const Param &p, std::string_view t, Value &v, std::string &why)
{
    int64_t bits = 0;
    for (const std::string &word : split_list(t)) {
        if (word.empty()) continue;
        const int k = word_index(p, word);
        if (k < 0) {
            why = "unknown flag \"" + word + "\" (known: " + p.words_text + ")";
            return false;
        }
        bits |= int64_t(1) << k;
    }
    v.i = bits;
    return true;
}

std::string format_bool(const Param &, const Value &v) { return v.i ? "true" : "false"; }

std::string format_int(const Param &, const Value &v) { return std::to_string(v.i); }

// With the largest suffix that is exact, so that the text parses back.
std::string format_size(const Param &, const Value &v)
{
    for (const auto &[shift, suffix] : kSizeSuffixes)
        if (v.i != 0 && v.i % (int64_t(1) << shift) == 0) return std::to_string(v.i >> shift) + suffix;
    return std::to_string(v.i);
}

// Shortest text that reads back as the same double.
std::string format_double(const Param &, const Value &v)
{
    char buf[64];
    const auto result = std::to_chars(buf, buf + sizeof buf, v.d);
    return std::string(buf, result.ptr);
}

std::string format_string(const Param &, const Value &v) { return v.s; }

// A component may write its storage itself: an index out of range shows as a number.
std::string format_enum(const Param &p, const Value &v)
{
    return v.i >= 0 && v.i < int64_t(p.words.size()) ? p.words[v.i] : std::to_string(v.i);
}

std::string format_flags(const Param &p, const Value &v)
{
    std::vector<std::string> set;
    for (std::size_t k = 0; k < p.words.size(); ++k)
        if (v.i & (int64_t(1) << k)) set.push_back(p.words[k]);
    const uint64_t unknown = uint64_t(v.i) & ~((uint64_t(1) << p.words.size()) - 1);
    if (unknown) set.push_back(printf_string("0x%llx", (unsigned long long)unknown));
    return join(set);
}

struct TypeInfo {
    const char *name;
    Parser parse;
    Formatter format;
};
// Indexed by OPF_PARAM_*.
constexpr TypeInfo kTypes[] = {
    {"bool", parse_bool, format_bool},       {"int", parse_int, format_int},
    {"size", parse_size, format_size},       {"double", parse_double, format_double},
    {"string", parse_string, format_string}, {"enum", parse_enum, format_enum},
    {"flags", parse_flags, format_flags},
};
static_assert(OPF_PARAM_BOOL == 0 && OPF_PARAM_FLAGS == 6 && std::size(kTypes) == OPF_PARAM_FLAGS + 1);

// Surrounding blanks matter only to strings.
bool parse(const Param &p, std::string_view text, Value &v, std::string &why)
{
    return kTypes[p.type].parse(p, p.type == OPF_PARAM_STRING ? text : trim(text), v, why);
}

std::string format(const Param &p, const Value &v) { return kTypes[p.type].format(p, v); }

// Storage types: see opf_param_spec_t in component.h. Relaxed atomic
// stores: a reduction may read a settable value (op_base_user_int_limit)
// while opf_param_set changes it; the reader pays nothing but a plain load.
template <class T> void store_relaxed(void *storage, T value) { __atomic_store(static_cast<T *>(storage), &value, __ATOMIC_RELAXED); }
void store(Param &p, const Value &v)
{
    switch (p.type) {
    case OPF_PARAM_BOOL: store_relaxed<int>(p.storage, int(v.i)); break;
    case OPF_PARAM_DOUBLE: store_relaxed<double>(p.storage, v.d); break;
    case OPF_PARAM_STRING: store_relaxed<const char *>(p.storage, p.string_value.set(v.s)); break;
    default: store_relaxed<int64_t>(p.storage, v.i); break;
    }
}

// The current value is what the storage holds: a component may update it
// (a read-only counter, for instance).
Value load(const Param &p)
{
    Value v;
    switch (p.type) {
    case OPF_PARAM_BOOL: v.i = *static_cast<const int *>(p.storage); break;
    case OPF_PARAM_DOUBLE: v.d = *static_cast<const double *>(p.storage); break;
    case OPF_PARAM_STRING: {
        const char *s = *static_cast<const char *const *>(p.storage);
        v.s = s ? s : "";
        break;
    }
    default: v.i = *static_cast<const int64_t *>(p.storage); break;
    }
    return v;
}

// ---- the registry ----------------------------------------------------------------

// Value sources, highest first.
enum Source { kApi, kCmdline, kEnvironment, kUserFile, kSystemFile, kUserTuning, kSystemTuning, kDefault };

struct Registry {
    std::mutex lock;
    std::vector<std::unique_ptr<Param>> params;       // declaration order
    std::map<std::string, std::string> assigned[2];   // [kApi], [kCmdline]: name -> text
    std::map<std::string, FileValue> files[4];        // [source - kUserFile]: the parameter files, then the tuning files
    bool files_loaded = false;
    bool tuning_accepted[2] = {false, false};         // [source - kUserTuning]: apply_tuning found it made here
    std::set<std::string> warned;                     // since the last opf_finalize
};

Registry reg;
std::atomic<bool> framework_registered{false};

// Each warning once per init..finalize: values are resolved again on every
// set and at every declaration.
[[gnu::format(printf, 1, 2)]] void warn_once(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    const std::string text = vprintf_string(fmt, args);
    va_end(args);
    if (reg.warned.insert(text).second) say_line(Say::Warning, text);
}

Param *find(std::string_view name)
{
    for (const auto &p : reg.params)
        if (p->name == name || std::find(p->synonyms.begin(), p->synonyms.end(), name) != p->synonyms.end())
            return p.get();
    return nullptr;
}

std::string user_file_path()
{
    if (const char *path = std::getenv("OPF_MCA_PARAM_FILE_USER")) return path;
    const char *home = std::getenv("HOME");
    return home && *home ? std::string(home) + "/.opframe/mca-params.conf" : "";
}

std::string system_file_path()
{
    if (const char *path = std::getenv("OPF_MCA_PARAM_FILE_SYSTEM")) return path;
    return OPF_SYSCONFDIR "/opframe-mca-params.conf";
}

// What the last load_files found wrong with the files (missing where a
// variable named them, unreadable, too large, refused), said by load_params
// at opf_init, once per process, and not by an earlier load (opf_param_set
// before opf_init): what a program sets, mca_component_trust among it, must
// be in before the files speak.
std::vector<std::string> file_notes;

// mca_component_trust as far as the files themselves go, from the sources
// above them: a file cannot vouch for itself (bad words are said by resolve).
bool files_trust_any();

// One of the four files below the environment.
struct FileSpec {
    std::string path;
    const char *kind;       // "parameter file" / "tuning file": every message about it says which
    const char *variable;   // the environment variable that named it, or nullptr (its default place)
};

// Reads the whole of a file into `text`; false (with a note unless the
// file is simply missing from its default place) when it cannot be used.
// A parameter file is a few lines: anything longer than kMaxParamFileBytes
// (a device such as /dev/zero, a runaway file) is refused after reading
// that much, never read to its end. One that a user other than root and
// this process's user can change is refused before it is read
// (file_trust.h): it names the component path, so it decides which code
// the process runs.
bool read_bounded(const FileSpec &file, std::string &text)
{
    const char *kind = file.kind, *path = file.path.c_str();
    // O_NONBLOCK: a FIFO without a writer must not block opf_init either.
    const int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno != ENOENT)
            file_notes.push_back(printf_string("cannot read %s %s: %s; ignored", kind, path, std::strerror(errno)));
        else if (file.variable)   // a typo in a path set by hand must not go unnoticed
            file_notes.push_back(printf_string("%s %s (named by %s) does not exist; ignored", kind, path, file.variable));
        return false;
    }
    struct stat st;
    const bool stated = fstat(fd, &st) == 0;
    if (stated && S_ISDIR(st.st_mode)) {
        file_notes.push_back(printf_string("%s %s is a directory; ignored", kind, path));
        close(fd);
        return false;
    }
    // Files and FIFOs carry what someone wrote into them; a device's bytes
    // are not a text someone can change (and /dev/zero is refused below).
    if (stated && (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode)) && !files_trust_any())
        if (const TrustCheck check = check_file_trust(path, DirectoryUse::FixedName); !check.problem.empty()) {
            file_notes.push_back(printf_string(
                "%s %s refused: %s, so another user could choose this process's settings and the components it "
                "loads; ignored (OPF_MCA_mca_component_trust=any accepts it)", kind, path, check.problem.c_str()));
            close(fd);
            return false;
        }
    text.assign(kMaxParamFileBytes + 1, '\0');
    std::size_t got = 0;
    while (got < text.size()) {
        const ssize_t n = read(fd, text.data() + got, text.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            file_notes.push_back(printf_string("cannot read %s %s: %s; ignored", kind, path, std::strerror(errno)));
            close(fd);
            return false;
        }
        if (n == 0) break;
        got += std::size_t(n);
    }
    close(fd);
    if (got > kMaxParamFileBytes) {
        file_notes.push_back(printf_string("%s %s is larger than %zu bytes (not a %s?); ignored", kind, path,
                                           kMaxParamFileBytes, kind));
        return false;
    }
    text.resize(got);
    return true;
}

// The variable that names a file, if it is set (an empty one switches the file off).
const char *named_by(const char *variable)
{
    const char *value = std::getenv(variable);
    return value && *value ? variable : nullptr;
}

// The tuning files opframe_tune writes: beside the parameter files, and
// like them switched off by an empty variable.
std::string user_tuning_path()
{
    if (const char *path = std::getenv("OPF_TUNE_FILE_USER")) return path;
    const char *home = std::getenv("HOME");
    return home && *home ? std::string(home) + "/.opframe/tuning.conf" : "";
}

std::string system_tuning_path()
{
    if (const char *path = std::getenv("OPF_TUNE_FILE_SYSTEM")) return path;
    return OPF_SYSCONFDIR "/opframe-tuning.conf";
}

void read_file(const FileSpec &file, std::map<std::string, FileValue> &out)
{
    out.clear();
    std::string text;
    if (!file.path.empty() && read_bounded(file, text)) out = parse_param_file(text, file.path);
}

void load_files()
{
    file_notes.clear();
    // (A missing parameter file is not said, wherever it was to be: a site
    // may name one that only some nodes have.)
    read_file({user_file_path(), "parameter file", nullptr}, reg.files[0]);
    read_file({system_file_path(), "parameter file", nullptr}, reg.files[1]);
    // A tuning file's values count once apply_tuning has seen that it was
    // measured on this machine (opf_init, when the components are known).
    read_file({user_tuning_path(), "tuning file", named_by("OPF_TUNE_FILE_USER")}, reg.files[2]);
    read_file({system_tuning_path(), "tuning file", named_by("OPF_TUNE_FILE_SYSTEM")}, reg.files[3]);
    for (auto &[name, value] : reg.files[2]) value.origin = "tuning " + value.origin;
    for (auto &[name, value] : reg.files[3]) value.origin = "tuning " + value.origin;
    reg.tuning_accepted[0] = reg.tuning_accepted[1] = false;
    reg.files_loaded = true;
}

// A value found for a parameter in one source.
struct Candidate {
    std::string text, origin, synonym;   // synonym: the deprecated name it came under, or ""
    std::string source_text() const { return synonym.empty() ? origin : origin + " (synonym " + synonym + ")"; }
};

// The value `name` has in source `s`, if any.
bool lookup(Source s, const std::string &name, Candidate &c)
{
    switch (s) {
    case kApi:
    case kCmdline: {
        const auto it = reg.assigned[s].find(name);
        if (it == reg.assigned[s].end()) return false;
        c.text = it->second;
        c.origin = s == kApi ? "API" : "command line";
        return true;
    }
    case kEnvironment: {
        const std::string variable = "OPF_MCA_" + name;
        const char *text = std::getenv(variable.c_str());
        if (!text) return false;
        c.text = text;
        c.origin = "environment " + variable;
        return true;
    }
    case kUserTuning:
    case kSystemTuning:
        if (!reg.tuning_accepted[s - kUserTuning]) return false;
        [[fallthrough]];
    case kUserFile:
    case kSystemFile: {
        const auto &file = reg.files[s - kUserFile];
        const auto it = file.find(name);
        if (it == file.end()) return false;
        c.text = it->second.text;
        c.origin = it->second.origin;
        return true;
    }
    case kDefault: break;
    }
    return false;
}

bool files_trust_any()
{
    for (Source s : {kApi, kCmdline, kEnvironment}) {
        Candidate c;
        if (!lookup(s, "mca_component_trust", c)) continue;
        const std::string_view word = trim(c.text);
        if (equal_nocase(word, "any")) return true;
        if (equal_nocase(word, "owner")) return false;
    }
    return false;
}

// Takes the highest valid value (a read-only parameter takes its default),
// writes it to the storage, and warns about every value passed over as bad
// and about a deprecated name.
void resolve(Param &p)
{
    if (!reg.files_loaded) load_files();
    std::vector<std::pair<Candidate, std::string>> rejected;   // with the reason
    Candidate chosen{p.default_text, "default", ""};
    Value value;
    bool found = false;
    for (int s = kApi; s < kDefault && !found; ++s) {
        std::vector<std::string> names{p.name};
        names.insert(names.end(), p.synonyms.begin(), p.synonyms.end());
        for (const std::string &name : names) {
            Candidate c;
            if (!lookup(Source(s), name, c)) continue;
            if (name != p.name) c.synonym = name;
            std::string why;
            if (p.read_only) why = "the parameter is read-only";
            else if (parse(p, c.text, value, why)) {
                chosen = c;
                found = true;
                break;
            }
            rejected.emplace_back(c, why);
        }
    }
    if (!found) {
        std::string unused;
        parse(p, p.default_text, value, unused);   // checked at declaration
    }
    store(p, value);
    const std::string shown = format(p, value);
    // A parameter read at opf_init keeps the value it had then until the next
    // opf_init; its source says so, and what is in force meanwhile.
    if (p.init_only && !initialized.load(std::memory_order_acquire)) p.in_force = shown;
    if (p.init_only && initialized.load(std::memory_order_acquire) && shown != p.in_force)
        p.source.set(chosen.source_text() + "; applies at the next opf_init, in force until then: \"" + p.in_force +
                     "\"");
    else
        p.source.set(chosen.source_text());
    for (const auto &[c, why] : rejected) {
        const std::string who = c.synonym.empty() ? p.name : c.synonym + " (synonym of " + p.name + ")";
        warn_once("ignoring %s = \"%s\" from %s: %s; using %s (%s)", who.c_str(), c.text.c_str(), c.origin.c_str(),
                  why.c_str(), shown.c_str(), chosen.source_text().c_str());
    }
    if (!chosen.synonym.empty())
        warn_once("%s (%s) is deprecated, use %s", chosen.synonym.c_str(), chosen.origin.c_str(), p.name.c_str());
}

// Checks a declaration and builds its record; OPF_ERR_ARG with a message if invalid.
int make_param(const opf_param_spec_t &spec, Param &p)
{
    const char *fn = "opf_param_register";
    if (!spec.name || !valid_name(spec.name))
        return fail(OPF_ERR_ARG, "%s: invalid parameter name \"%s\" (letters, digits and '_', not empty)", fn,
                    spec.name ? spec.name : "(null)");
    p.name = spec.name;
    const char *name = spec.name;
    if (spec.type < OPF_PARAM_BOOL || spec.type > OPF_PARAM_FLAGS)
        return fail(OPF_ERR_ARG, "%s(%s): unknown type %d", fn, name, spec.type);
    if (spec.level < 1 || spec.level > 9)
        return fail(OPF_ERR_ARG, "%s(%s): level %d is not in 1..9", fn, name, spec.level);
    if (spec.flags & ~(OPF_PARAM_READ_ONLY | OPF_PARAM_LIVE))
        return fail(OPF_ERR_ARG, "%s(%s): unknown flags 0x%x", fn, name, spec.flags);
    if (!spec.storage) return fail(OPF_ERR_ARG, "%s(%s): storage is NULL", fn, name);
    p.type = spec.type;
    p.level = spec.level;
    p.read_only = spec.flags & OPF_PARAM_READ_ONLY;
    p.storage = spec.storage;
    p.description = spec.description ? spec.description : "";
    p.default_text = spec.default_value ? spec.default_value : "";

    if (p.type == OPF_PARAM_ENUM || p.type == OPF_PARAM_FLAGS) {
        p.words = split_list(spec.values ? spec.values : "");
        for (std::size_t k = 0; k < p.words.size(); ++k)
            if (p.words[k].empty() || p.words[k].find_first_of(" \t") != std::string::npos ||
                word_index(p, p.words[k]) != int(k))
                return fail(OPF_ERR_ARG, "%s(%s): the word list \"%s\" has an empty, blank-containing or repeated word", fn,
                            name, spec.values ? spec.values : "");
        if (p.type == OPF_PARAM_FLAGS && p.words.size() > 63)
            return fail(OPF_ERR_ARG, "%s(%s): more than 63 flag words", fn, name);
        p.words_text = join(p.words);
    }
    if (spec.synonyms) {
        p.synonyms = split_list(spec.synonyms);
        for (const std::string &synonym : p.synonyms)
            if (!valid_name(synonym) || synonym == p.name)
                return fail(OPF_ERR_ARG, "%s(%s): invalid synonym \"%s\"", fn, name, synonym.c_str());
        p.synonyms_text = join(p.synonyms);
    }
    if (!registering_component.empty()) {   // one namespace per component: none declares (and takes) another's
        const std::string prefix = "op_" + registering_component + "_";
        std::vector<std::string> names{p.name};
        names.insert(names.end(), p.synonyms.begin(), p.synonyms.end());
        for (const std::string &n : names)
            if (n.rfind(prefix, 0) != 0 || n.size() == prefix.size()) {
                warn_once("component %s: parameter %s refused: a component's parameters begin with %s",
                          registering_component.c_str(), n.c_str(), prefix.c_str());
                return fail(OPF_ERR_ARG, "%s(%s): component %s may only declare parameters named %s...", fn,
                            name, registering_component.c_str(), prefix.c_str());
            }
    }
    std::string why;
    Value unused;
    if (!parse(p, p.default_text, unused, why))
        return fail(OPF_ERR_ARG, "%s(%s): default \"%s\" is not a valid %s: %s", fn, name, p.default_text.c_str(),
                    kTypes[p.type].name, why.c_str());
    return OPF_SUCCESS;
}

// Declares a parameter; `min`..`max` bounds an INT (not reachable through the C ABI).
int register_param(const opf_param_spec_t *spec, bool framework, int64_t min = INT64_MIN, int64_t max = INT64_MAX,
                   bool init_only = false)
{
    if (!spec) return fail(OPF_ERR_ARG, "opf_param_register: spec is NULL");
    auto p = std::make_unique<Param>();
    p->framework = framework;
    p->init_only = init_only;
    p->min = min;
    p->max = max;
    if (int rc = make_param(*spec, *p)) return rc;

    std::lock_guard guard(reg.lock);
    if (Param *old = find(p->name); old && old->name == p->name) {
        if (old->storage != p->storage)
            return fail(OPF_ERR_ARG, "opf_param_register: parameter %s is already registered (with other storage)",
                        p->name.c_str());
        resolve(*old);   // the same declaration again: values may have changed since
        return OPF_SUCCESS;
    }
    std::vector<std::string> names{p->name};
    names.insert(names.end(), p->synonyms.begin(), p->synonyms.end());
    for (const std::string &name : names)
        if (const Param *other = find(name))
            return fail(OPF_ERR_ARG, "opf_param_register(%s): the name %s is taken by parameter %s", p->name.c_str(),
                        name.c_str(), other->name.c_str());
    resolve(*p);
    reg.params.push_back(std::move(p));
    return OPF_SUCCESS;
}

// The framework's parameters are there before opf_init too, so that get and
// set know them (and check values) early.
void ensure_framework_params()
{
    if (framework_registered.load(std::memory_order_acquire)) return;
    {
        std::lock_guard guard(reg.lock);
        load_files();   // what is wrong with them is said at opf_init (file_notes)
    }
    register_framework_params();
}

std::string closest_locked(std::string_view name);   // below, with the unknown-name check

// opf_param_set / opf_param_set_cmdline: one value per parameter and source.
int assign(Source source, const char *fn, const char *name, const char *value)
{
    if (!name || !*name) return fail(OPF_ERR_ARG, "%s: name is NULL or empty", fn);
    ensure_framework_params();
    std::lock_guard guard(reg.lock);
    auto &values = reg.assigned[source];
    Param *p = find(name);
    if (!p) {
        // Before opf_init the name may belong to a component not loaded yet.
        if (initialized.load(std::memory_order_acquire))
        {
            const std::string closest = closest_locked(name);
            return fail(OPF_ERR_ARG, "%s: unknown parameter \"%s\"%s%s%s", fn, name,
                        closest.empty() ? "" : " (did you mean ", closest.c_str(), closest.empty() ? "" : "?)");
        }
        if (value) values[name] = value;
        else values.erase(name);
        return OPF_SUCCESS;
    }
    if (p->read_only) return fail(OPF_ERR_ARG, "%s: parameter %s is read-only", fn, p->name.c_str());
    std::string why;
    Value unused;
    if (value && !parse(*p, value, unused, why))
        return fail(OPF_ERR_ARG, "%s: invalid value \"%s\" for %s parameter %s: %s", fn, value, kTypes[p->type].name,
                    p->name.c_str(), why.c_str());
    values.erase(p->name);
    for (const std::string &synonym : p->synonyms) values.erase(synonym);
    if (value) values[name] = value;
    resolve(*p);
    return OPF_SUCCESS;
}

} // namespace

// `name = value` lines; '#' starts a comment line; "..." keeps blanks. A
// later line overrides an earlier one; a malformed line warns and is skipped.
std::map<std::string, FileValue> parse_param_file(std::string_view text, const std::string &path)
{
    std::map<std::string, FileValue> out;
    int number = 0;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t nl = std::min(text.find('\n', at), text.size());
        const std::string_view line = trim(text.substr(at, nl - at));
        at = nl + 1;
        ++number;
        if (line.empty() || line[0] == '#') continue;
        const std::string where = path + ":" + std::to_string(number);
        if (line.find('\0') != std::string_view::npos) {
            warn_once("%s: ignoring a line with a NUL byte (not a text file?)", where.c_str());
            continue;
        }
        const std::size_t eq = line.find('=');
        const std::string_view name = eq == std::string_view::npos ? "" : trim(line.substr(0, eq));
        if (name.empty()) {
            warn_once("%s: ignoring malformed line \"%.*s\" (expected name = value)", where.c_str(), int(line.size()),
                      line.data());
            continue;
        }
        if (!valid_name(name)) {   // no parameter could ever take it
            warn_once("%s: ignoring \"%.*s\": not a parameter name (letters, digits and '_')", where.c_str(),
                      int(name.size()), name.data());
            continue;
        }
        std::string_view value = trim(line.substr(eq + 1));
        if (!value.empty() && value[0] == '"') {
            if (value.size() < 2 || value.back() != '"') {
                warn_once("%s: ignoring line with an unterminated quote", where.c_str());
                continue;
            }
            value = value.substr(1, value.size() - 2);
        }
        out[std::string(name)] = {std::string(value), "file " + where};
    }
    return out;
}

// Component names as files carry them (opf_op_<name>.so).
bool is_component_name(std::string_view name)
{
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
}

bool parse_component_list(std::string_view text, ComponentList &out, std::string &why)
{
    out = {};
    if (text.empty()) return true;   // every component
    out.exclude = text[0] == '^';
    const std::vector<std::string> items = split_list(out.exclude ? text.substr(1) : text);
    for (std::size_t k = 0; k < items.size(); ++k) {
        const std::string &name = items[k];
        if (name.empty()) {
            why = printf_string("name %zu of %zu is empty (a list is \"a,b\" or \"^a,b\"; \"\" selects every "
                                "component)", k + 1, items.size());
            return false;
        }
        if (name.find('^') != std::string::npos) {
            why = "'^' may only start the list (exclude every name after it)";
            return false;
        }
        if (!is_component_name(name)) {
            why = "\"" + name + "\" is not a component name (lower-case letters, digits and '_')";
            return false;
        }
        out.names.push_back(name);
    }
    return true;
}

namespace {

int op_by_name(std::string_view name)
{
    for (int id = 1; id < OPF_OPID_COUNT; ++id)
        if (equal_nocase(name, base::op_name(id))) return id;
    return -1;
}

// A datatype name gives its kernel type; a kernel type name is itself.
int kernel_type_by_name(std::string_view name)
{
    for (int id = 1; id < OPF_TYPEID_COUNT_; ++id)
        if (equal_nocase(name, predefined_types[id].name)) return predefined_types[id].kernel_type;
    for (int kt = 0; kt < OPF_KT_COUNT; ++kt)
        if (equal_nocase(name, base::kernel_type_name(kt))) return kt;
    return -1;
}

// A pin's byte range "LO-HI" (either end may be left open, not both).
bool parse_pin_range(std::string_view text, int64_t &lo, int64_t &hi, std::string &why)
{
    const std::size_t dash = text.find('-');
    if (dash == std::string_view::npos || text.find('-', dash + 1) != std::string_view::npos) {
        why = "is not LO-HI (bytes per buffer, e.g. @64K-1M, @-4K, @1M-)";
        return false;
    }
    const std::string_view lo_text = trim(text.substr(0, dash)), hi_text = trim(text.substr(dash + 1));
    if (lo_text.empty() && hi_text.empty()) {
        why = "has no bound (leave out the '@' to pin every size)";
        return false;
    }
    Value v{};
    lo = 0;
    hi = -1;
    for (auto [end_text, end] : {std::pair{lo_text, &lo}, std::pair{hi_text, &hi}}) {
        if (end_text.empty()) continue;
        if (!parse_size(Param{}, end_text, v, why)) {
            why = "has \"" + std::string(end_text) + "\": " + why;
            return false;
        }
        *end = v.i;
    }
    if (hi >= 0 && lo > hi) {
        why = "starts above its end";
        return false;
    }
    return true;
}

} // namespace

std::vector<Pin> parse_pins(std::string_view text, std::vector<std::string> &problems)
{
    std::vector<Pin> pins;
    if (trim(text).empty()) return pins;
    for (const std::string &item : split_list(text)) {
        auto problem = [&](const std::string &why) { problems.push_back("\"" + item + "\": " + why); };
        if (item.empty()) {
            problem("an empty item (a stray ',')");
            continue;
        }
        const std::size_t colon = item.find(':'), eq = item.find('=');
        if (colon == std::string::npos || eq == std::string::npos || colon > eq) {
            problem("not op:type=provider (e.g. sum:float=avx2)");
            continue;
        }
        const std::size_t at = std::min(item.find('@'), eq);   // the size range, if any: op:type@LO-HI=provider
        const std::string_view op_text = trim(std::string_view(item).substr(0, colon));
        const std::string_view type_text = trim(std::string_view(item).substr(colon + 1, at - colon - 1));
        Pin pin{0, 0, "", "", 0, -1};
        if (at < eq) {
            pin.band = std::string(trim(std::string_view(item).substr(at + 1, eq - at - 1)));
            if (std::string why; !parse_pin_range(pin.band, pin.min_bytes, pin.max_bytes, why)) {
                problem("the range \"" + pin.band + "\" " + why);
                continue;
            }
        }
        const std::string provider(trim(std::string_view(item).substr(eq + 1)));
        const int op = op_by_name(op_text), kt = kernel_type_by_name(type_text);
        if (op < 0) problem("unknown op \"" + std::string(op_text) + "\"");
        else if (kt < 0) problem("unknown type \"" + std::string(type_text) + "\"");
        else if (!base::kernels(op, kt).fn2)
            problem(std::string(base::op_name(op)) + " is not defined on " + base::kernel_type_name(kt) +
                    ": not a slot");
        else if (provider.find('=') != std::string::npos) problem("more than one '=' (one provider per slot)");
        else if (!is_component_name(provider)) problem("\"" + provider + "\" is not a component name");
        else {
            // Two whole-slot pins, or two bounded ones sharing a byte count, clash.
            auto overlaps = [&](const Pin &p) {
                if (p.op != op || p.kernel_type != kt || p.band.empty() != pin.band.empty()) return false;
                return pin.band.empty() || ((p.max_bytes < 0 || pin.min_bytes <= p.max_bytes) &&
                                            (pin.max_bytes < 0 || p.min_bytes <= pin.max_bytes));
            };
            for (auto same = std::find_if(pins.begin(), pins.end(), overlaps); same != pins.end();
                 same = std::find_if(pins.begin(), pins.end(), overlaps)) {
                problem(same->band.empty() ? "the slot is already pinned to " + same->provider + "; the later pin wins"
                                           : "bytes " + same->band + " are already pinned to " + same->provider +
                                                 "; the later pin wins");
                pins.erase(same);
            }
            pin.op = op;
            pin.kernel_type = kt;
            pin.provider = provider;
            pins.push_back(pin);
        }
    }
    return pins;
}

// Ends the description of each parameter that only opf_init reads.
#define INIT_ONLY_NOTE " (read at opf_init: a change while initialized applies at the next opf_init)"

void register_framework_params()
{
    struct Declaration {
        opf_param_spec_t spec;
        int64_t min = INT64_MIN, max = INT64_MAX;
        bool init_only = false;   // the description ends with INIT_ONLY_NOTE
    };
    const std::string int_max = std::to_string(INT_MAX);
    const Declaration declarations[] = {
        {{"op_base_user_int_limit", OPF_PARAM_INT, int_max.c_str(),
          "Largest count handed to an int-count user function in one call; larger counts arrive in several calls", 9,
          OPF_PARAM_SETTABLE, nullptr, nullptr, &params.user_int_limit},
         1, INT_MAX},
        {{"op", OPF_PARAM_STRING, "",
          "Components to use (\"a,b\") or to exclude (\"^a,b\"); empty: every component found" INIT_ONLY_NOTE, 2,
          OPF_PARAM_SETTABLE, nullptr, nullptr, &params.op_list},
         INT64_MIN, INT64_MAX, true},
        {{"op_base_verbose", OPF_PARAM_INT, "0", "Verbosity of the op framework (0: silent .. 100: everything)", 5,
          OPF_PARAM_SETTABLE, nullptr, "op_verbose", &params.verbose},
         0, 100},
        {{"mca_component_path", OPF_PARAM_STRING, OPF_COMPONENT_PATH_DEFAULT,
          "Directories searched for components (opf_op_<name>.so), ':'-separated; a value replaces the default "
          "directories (name them too to keep the installed components; opframe_info --path shows the list)"
          INIT_ONLY_NOTE, 4, OPF_PARAM_SETTABLE,
          nullptr, nullptr, &params.component_path},
         INT64_MIN, INT64_MAX, true},
        {{"mca_component_show_load_errors", OPF_PARAM_BOOL, "true",
          "Warn about component files that cannot be loaded" INIT_ONLY_NOTE, 5, OPF_PARAM_SETTABLE, nullptr, nullptr,
          &params.show_load_errors},
         INT64_MIN, INT64_MAX, true},
        {{"mca_component_trust", OPF_PARAM_ENUM, "owner",
          "Which files may put code or settings into the process. owner: a component file, its directory and each "
          "directory of mca_component_path, and the parameter and tuning files, are used only if no one but root "
          "and this process's user can change them (owned by one of the two, writable by neither another group nor "
          "every user); any other is refused and said. any: every file, as a setup whose components another user "
          "or a group maintains needs. For the parameter and tuning files it is read from opf_param_set, the "
          "command line and the environment only (a file cannot vouch for itself)" INIT_ONLY_NOTE, 4,
          OPF_PARAM_SETTABLE, "owner,any", nullptr, &params.component_trust},
         INT64_MIN, INT64_MAX, true},
        {{"op_base_pin", OPF_PARAM_STRING, "",
          "Pin slots to a provider: op:type=component,... (e.g. \"sum:float=avx2,max:double=example\"); "
          "op:type@LO-HI=component pins LO to HI bytes per buffer (\"sum:float@64K-1M=avx2\", \"@-4K\", \"@1M-\")" INIT_ONLY_NOTE, 4,
          OPF_PARAM_SETTABLE, nullptr, nullptr, &params.pin},
         INT64_MIN, INT64_MAX, true},
        {{"op_base_selftest", OPF_PARAM_BOOL, "false",
          "Test every selected component kernel against the base at init; a kernel that differs is dropped" INIT_ONLY_NOTE,
          4, OPF_PARAM_SETTABLE, nullptr, nullptr, &params.selftest},
         INT64_MIN, INT64_MAX, true},
        {{"op_base_hwloc_opencl", OPF_PARAM_BOOL, "false",
          "Let hwloc's OpenCL plugin list OpenCL devices at init. Off by default: it starts every OpenCL "
          "platform in every process (about 60 ms and a small leak with PoCL); the opencl component lists its "
          "devices itself" INIT_ONLY_NOTE, 6, OPF_PARAM_SETTABLE, nullptr, nullptr, &params.hwloc_opencl},
         INT64_MIN, INT64_MAX, true},
        {{"op_base_isa_mask", OPF_PARAM_FLAGS, opf::x86_feature_word_list(),
          "x86 ISA features the components may see (the probed ones, masked by this list): remove a word to make "
          "every component take a lower level, as on a CPU without it (conformance runs loop over the levels)" INIT_ONLY_NOTE, 8,
          OPF_PARAM_SETTABLE, opf::x86_feature_word_list(), nullptr, &params.isa_mask},
         INT64_MIN, INT64_MAX, true},
        {{"op_base_avx512_datapath", OPF_PARAM_ENUM, "probed",
          "How wide the components take the core's execution of a 512-bit operation to be: probed (256 bits on AMD "
          "family 19h, Zen 4, which runs it as two 256-bit halves; 512 on other AVX-512 cores), 256 or 512 (as on "
          "such a core; the checks of the avx512 component's choice run both)" INIT_ONLY_NOTE, 8,
          OPF_PARAM_SETTABLE, "probed,256,512", nullptr, &params.avx512_datapath},
         INT64_MIN, INT64_MAX, true},
        {{"op_base_threads", OPF_PARAM_INT, "1",
          "Threads that share a large contiguous reduction of a predefined op (2-buffer, 3-buffer and n-ary calls): "
          "1 = the calling thread alone, N = "
          "the caller and N-1 pool threads placed on the other cores of its binding, 0 = one per core of that "
          "binding. Off inside an MPI job unless op_base_threads_in_mpi is set" INIT_ONLY_NOTE, 4,
          OPF_PARAM_SETTABLE, nullptr, nullptr, &params.threads},
         0, 1024, true},
        {{"op_base_threads_min_bytes", OPF_PARAM_SIZE, "4M",
          "Least bytes of one buffer that each thread of op_base_threads gets: calls below twice this stay on "
          "the calling thread and never pay for waking the pool" INIT_ONLY_NOTE, 5, OPF_PARAM_SETTABLE, nullptr,
          nullptr, &params.threads_min_bytes},
         1, INT64_MAX, true},
        {{"op_base_quiet_absent", OPF_PARAM_BOOL, "false",
          "Say nothing about settings (op_<c>_...) for components not found on mca_component_path, such as a "
          "site-wide file's op_cuda_* on nodes without the cuda component; misspelt names are still said", 4,
          OPF_PARAM_SETTABLE, nullptr, nullptr, &params.quiet_absent},
         INT64_MIN, INT64_MAX},
        {{"op_base_threads_in_mpi", OPF_PARAM_BOOL, "false",
          "Use op_base_threads inside an MPI job too (the launcher gave the other cores to other ranks and MPI's "
          "progress threads: off by default)" INIT_ONLY_NOTE, 5, OPF_PARAM_SETTABLE, nullptr, nullptr,
          &params.threads_in_mpi},
         INT64_MIN, INT64_MAX, true},
    };
    for (const Declaration &d : declarations)
        if (register_param(&d.spec, true, d.min, d.max, d.init_only) != OPF_SUCCESS)   // only if the name was taken
            say_line(Say::Warning, opf_last_error());
    framework_registered.store(true, std::memory_order_release);
}

void load_params()
{
    {
        std::lock_guard guard(reg.lock);
        load_files();
        // Once per process, as a component file's failure: opframe_info and
        // a program that finalizes and initialises again read the files again.
        static std::set<std::string> said;
        for (const std::string &note : file_notes)
            if (said.insert(note).second) say_line(Say::Warning, note);
    }
    register_framework_params();
}

namespace {

// A tuning file's own keys (not parameters): what it was measured on.
const char *const kTuningIdentity[][2] = {
    {"opf_tuning_cpu", "CPU"}, {"opf_tuning_isa", "ISA set"}, {"opf_tuning_versions", "opframe and component versions"}};

std::string tuning_value(const std::map<std::string, FileValue> &file, const std::string &key)
{
    const auto it = file.find(key);
    return it == file.end() ? "" : it->second.text;
}

} // namespace

void apply_tuning(const std::string &cpu, const std::string &isa, const std::string &versions)
{
    std::lock_guard guard(reg.lock);
    const std::string here[] = {cpu, isa, versions};
    bool any = false;
    for (int k = 0; k < 2; ++k) {
        const auto &file = reg.files[2 + k];
        reg.tuning_accepted[k] = false;
        if (file.empty()) continue;
        const std::string path = k == 0 ? user_tuning_path() : system_tuning_path();
        std::string mismatch;
        for (int i = 0; i < 3 && mismatch.empty(); ++i) {
            const std::string made = tuning_value(file, kTuningIdentity[i][0]);
            if (made.empty())
                mismatch = std::string("it has no ") + kTuningIdentity[i][0] + " (not made by opframe_tune?)";
            else if (made != here[i])
                mismatch = std::string("it was measured with ") + kTuningIdentity[i][1] + " \"" + made + "\", this is \"" +
                           here[i] + "\"";
        }
        if (!mismatch.empty()) {
            warn_once("tuning file %s ignored: %s; today's priorities and thresholds stand (run opframe_tune to "
                      "measure this machine)", path.c_str(), mismatch.c_str());
            continue;
        }
        reg.tuning_accepted[k] = any = true;
    }
    if (any)
        for (const auto &p : reg.params) resolve(*p);
}

std::vector<TuningInfo> tuning_in_force()
{
    std::lock_guard guard(reg.lock);
    std::vector<TuningInfo> out;
    for (int k = 0; k < 2; ++k) {
        if (!reg.tuning_accepted[k]) continue;
        const auto &file = reg.files[2 + k];
        TuningInfo t;
        t.path = k == 0 ? user_tuning_path() : system_tuning_path();
        t.date = tuning_value(file, "opf_tuning_date");
        t.cpu = tuning_value(file, "opf_tuning_cpu");
        t.aftereffect = tuning_value(file, "opf_tuning_aftereffect");
        const std::string prefix = "opf_tuning_note_";
        for (const auto &[name, value] : file)
            if (name.rfind(prefix, 0) == 0) t.notes[name.substr(prefix.size())] = value.text;
        out.push_back(std::move(t));
    }
    return out;
}

namespace {

// Optimal-string-alignment distance (a swap of neighbours counts one edit),
// case-insensitive: "op_base_verbos" -> "op_base_verbose" is 1, "opp" -> "op" 1.
std::size_t edit_distance(std::string_view a, std::string_view b)
{
    const std::size_t n = b.size();
    std::vector<std::size_t> two(n + 1), one(n + 1), now(n + 1);
    for (std::size_t j = 0; j <= n; ++j) one[j] = j;
    auto lower = [](char c) { return char(std::tolower((unsigned char)c)); };
    for (std::size_t i = 1; i <= a.size(); ++i) {
        now[0] = i;
        for (std::size_t j = 1; j <= n; ++j) {
            const std::size_t cost = lower(a[i - 1]) != lower(b[j - 1]);
            now[j] = std::min({one[j] + 1, now[j - 1] + 1, one[j - 1] + cost});
            if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
                now[j] = std::min(now[j], two[j - 2] + 1);
        }
        std::swap(two, one);
        std::swap(one, now);
    }
    return one[n];
}

std::string closest_locked(std::string_view name)
{
    std::string best;
    std::size_t best_distance = std::max<std::size_t>(2, name.size() / 3) + 1;
    for (const auto &p : reg.params) {
        std::vector<std::string> names{p->name};
        names.insert(names.end(), p->synonyms.begin(), p->synonyms.end());
        for (const std::string &known : names)
            if (const std::size_t d = edit_distance(name, known); d < best_distance) {
                best_distance = d;
                best = p->name;
            }
    }
    return best;
}

// A name set somewhere, and where ("environment OPF_MCA_opp", "file
// /etc/opframe-mca-params.conf:3", "opf_param_set", "command line").
struct SetName {
    std::string name, where;
};

std::vector<SetName> names_set_locked()
{
    std::vector<SetName> out;
    const std::string prefix = "OPF_MCA_";
    for (char **e = environ; e && *e; ++e) {
        const std::string_view entry(*e);
        if (entry.rfind(prefix, 0) != 0) continue;
        const std::string name(entry.substr(prefix.size(), entry.find('=') - prefix.size()));
        if (name == "PARAM_FILE_USER" || name == "PARAM_FILE_SYSTEM") continue;   // the files' paths
        out.push_back({name, "environment " + prefix + name});
    }
    for (int k = 0; k < 2; ++k)   // parameter files (tuning files are opframe_tune's, checked by their identity)
        for (const auto &[name, value] : reg.files[k]) out.push_back({name, value.origin});
    for (const auto &[name, value] : reg.assigned[kApi]) out.push_back({name, "opf_param_set"});
    for (const auto &[name, value] : reg.assigned[kCmdline]) out.push_back({name, "command line"});
    return out;
}

} // namespace

std::vector<SourcedValue> param_layers(const std::string &name)
{
    std::lock_guard guard(reg.lock);
    std::vector<SourcedValue> out;
    for (int s = kApi; s < kDefault; ++s)
        if (Candidate c; lookup(Source(s), name, c))
            out.push_back({c.text, c.origin, s == kUserTuning || s == kSystemTuning});
    return out;
}

std::string closest_param_name(std::string_view name)
{
    std::lock_guard guard(reg.lock);
    return closest_locked(name);
}

void check_unknown_names(std::string (*component_state)(const std::string &name))
{
    static std::set<std::string> said;   // once per process: opframe_info initialises more than once
    std::vector<std::pair<std::string, std::string>> lines;   // (key, text)
    {
        std::lock_guard guard(reg.lock);
        for (const SetName &s : names_set_locked()) {
            if (find(s.name)) continue;
            std::string text = "ignoring unknown parameter " + s.name + " (" + s.where + ")";
            // op_<component>_...: the component's own namespace
            std::string component;
            if (s.name.rfind("op_", 0) == 0)
                if (const std::size_t end = s.name.find('_', 3); end != std::string::npos && end > 3)
                    component = s.name.substr(3, end - 3);
            const std::string state = component.empty() || component == "base" ? "" : component_state(component);
            const bool in_use = state == "in use";
            std::string closest = closest_locked(s.name);
            // a name of an absent component is rather a new name than a misspelt one: only near misses
            if (!component.empty() && state.empty() && edit_distance(s.name, closest) > 2) closest.clear();
            if (!state.empty() && !in_use && closest.rfind("op_" + component + "_", 0) != 0)
                text += ": component " + component + " " + state + ": nothing reads it";
            else if (!closest.empty())
                text += ": did you mean " + closest + "?";
            else if (in_use)
                text += ": component " + component + " declares no such parameter (opframe_info --param op " +
                        component + " lists its parameters)";
            else if (!component.empty() && component != "base") {
                if (params.quiet_absent) continue;
                text += ": no component " + component + " was found on mca_component_path (op_base_quiet_absent=1 "
                        "quiets settings of absent components)";
            } else
                text += ": no loaded component declares it (opframe_info --param all lists the names)";
            lines.emplace_back(s.name + "\n" + s.where, text);
        }
    }
    for (const auto &[key, text] : lines)
        if (said.insert(key).second) say_line(Say::Warning, text);
}

void params_finalize()
{
    std::lock_guard guard(reg.lock);
    std::erase_if(reg.params, [](const std::unique_ptr<Param> &p) { return !p->framework; });
    for (const auto &p : reg.params) {
        p->string_value.forget_old();
        p->source.forget_old();
        p->shown_value.forget_old();
    }
    reg.warned.clear();
}

} // namespace opf

using namespace opf;

// A component's parameter is read by its hooks at opf_init unless declared
// OPF_PARAM_LIVE (kernel.h); an application's own parameters are live.
OPF_API int opf_param_register(const opf_param_spec_t *spec)
{
    const bool init_only = spec && !registering_component.empty() && !(spec->flags & OPF_PARAM_LIVE);
    return register_param(spec, false, INT64_MIN, INT64_MAX, init_only);
}

OPF_API int opf_param_set(const char *name, const char *value) { return assign(kApi, "opf_param_set", name, value); }

OPF_API int opf_param_set_cmdline(const char *name, const char *value)
try {
    return assign(kCmdline, "opf_param_set_cmdline", name, value);
} catch (...) {
    return fail_exception("opf_param_set_cmdline");
}

OPF_API int opf_param_get(const char *name, char *buf, int len)
try {
    if (!name || !buf || len <= 0) return fail(OPF_ERR_ARG, "opf_param_get: NULL name or buffer, or len <= 0");
    ensure_framework_params();
    std::lock_guard guard(reg.lock);
    const Param *p = find(name);
    if (!p) return fail(OPF_ERR_ARG, "opf_param_get: unknown parameter \"%s\"", name);
    const std::string text = format(*p, load(*p));
    if (text.size() >= std::size_t(len))
        return fail(OPF_ERR_ARG, "opf_param_get: the value of %s needs %zu bytes, the buffer has %d", p->name.c_str(),
                    text.size() + 1, len);
    std::memcpy(buf, text.c_str(), text.size() + 1);
    return OPF_SUCCESS;
} catch (...) {
    return fail_exception("opf_param_get");
}

OPF_API int opf_param_count(void)
try {
    ensure_framework_params();
    std::lock_guard guard(reg.lock);
    return int(reg.params.size());
} catch (...) {
    return fail_exception("opf_param_count");
}

OPF_API int opf_param_describe(int index, opf_param_info_t *info)
try {
    if (!info) return fail(OPF_ERR_ARG, "opf_param_describe: info is NULL");
    ensure_framework_params();
    std::lock_guard guard(reg.lock);
    if (index < 0 || std::size_t(index) >= reg.params.size())
        return fail(OPF_ERR_ARG, "opf_param_describe: index %d is not in [0, %zu)", index, reg.params.size());
    Param &p = *reg.params[index];
    info->name = p.name.c_str();
    info->type = p.type;
    info->type_name = kTypes[p.type].name;
    info->value = p.shown_value.set(format(p, load(p)));
    info->default_value = p.default_text.c_str();
    info->description = p.description.c_str();
    info->level = p.level;
    info->read_only = p.read_only;
    info->source = p.source.c_str();
    info->values = p.words.empty() ? nullptr : p.words_text.c_str();
    info->synonyms = p.synonyms.empty() ? nullptr : p.synonyms_text.c_str();
    return OPF_SUCCESS;
} catch (...) {
    return fail_exception("opf_param_describe");
}
