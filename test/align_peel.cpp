// align_peel.cpp — every component's kernels against the base's at every
// byte offset 0..63 of each buffer and every length 0..257 elements.
//
// Why: the SIMD drivers align their stores to the output's register
// boundary (a masked head, or a whole register overlapping the body), then
// run the body and a masked tail. How much goes to the head, the body and
// the tail depends on the output's address modulo 64 and on the length,
// and the conformance engine places buffers at element offsets only (its
// longer lengths at offset 0), so most heads are never taken there. Here:
//   * each buffer sits at every byte offset 0..63 (the output at each in
//     turn, the inputs at offsets derived from it and the length, so that
//     every input offset meets every length), in five forms: 2-buffer in
//     place with the input at the same offset and at another, 3-buffer
//     distinct, out == in1, out == in2;
//   * the bytes around every buffer and every padding byte of a pair hold
//     random bytes the call must leave alone: the provider's call and the
//     base's run on two identical arenas, and the arenas must then be equal
//     byte for byte (data, padding, the bytes before the first element and
//     after the true end: MPI's extent ends at a pair's index);
//   * every buffer once ending at a PROT_NONE page and the inputs once
//     starting right after one (the output then at the offset the length
//     gives), so a head or tail that reads outside faults;
//   * the n-ary kernels (OPF_FORM_N, round-once, PreMulSum) the same way,
//     k = 1..4 inputs at different offsets, out alone or out == in[0].
// Quick (make check): one slot per kernel family and element size; deep
// (OPF_CHECK_DEPTH=deep): every slot. Fixed seed.
#include <opframe/introspect.h>
#include <opframe/opframe.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

namespace {

constexpr std::size_t kMaxLen = 257, kGuard = 64, kOffsets = 64;
int checks = 0, failures = 0;
char current[256];   // the case running, for a fault

void on_fault(int sig)
{
    const char msg[] = "align_peel: fault in ";
    ssize_t r = write(2, msg, sizeof msg - 1);
    r = write(2, current, std::strlen(current));
    r = write(2, "\n", 1);
    (void)r;
    _exit(128 + sig);
}

uint64_t rng_state = 0x243f6a8885a308d3ULL;
uint64_t next()
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// Where a buffer of n elements ends: pairs whose index is followed by
// padding (DOUBLE_INT, LONG_INT: 12 data bytes of 16) end at the index.
std::size_t span(int kt, std::size_t n)
{
    const std::size_t ext = std::size_t(opf_kernel_type_extent(kt));
    const std::size_t last = kt == OPF_KT_DOUBLE_INT || kt == OPF_KT_LONG_INT ? 12 : ext;
    return n ? (n - 1) * ext + last : 0;
}

// Two arenas (the provider's, the base's) of equal random bytes; each buffer
// of a case is a window of both. restore() puts the windows back.
struct Arenas {
    std::vector<unsigned char> random, pristine, mine, theirs;
    explicit Arenas(std::size_t bytes) : random(bytes)
    {
        for (auto &b : random) b = (unsigned char)next();
        pristine = mine = theirs = random;
    }
    // Floating-point types without NaN or infinity (the top exponent bit of
    // every word of their lanes off: magnitudes below 2, no overflow even
    // in a complex product): which NaN a kernel returns for two NaNs is the
    // conformance engine's business; here every byte must equal the base's.
    void for_type(int kt)
    {
        std::size_t word = 0, bit = 0;
        switch (kt) {
        case OPF_KT_FLOAT: case OPF_KT_C_FLOAT_COMPLEX: case OPF_KT_FLOAT_INT: case OPF_KT_2FLOAT: word = 4, bit = 30; break;
        case OPF_KT_DOUBLE: case OPF_KT_C_DOUBLE_COMPLEX: case OPF_KT_DOUBLE_INT: case OPF_KT_2DOUBLE: word = 8, bit = 62; break;
        case OPF_KT_FLOAT16: case OPF_KT_BFLOAT16: word = 2, bit = 14; break;
        case OPF_KT_FLOAT8_E4M3: case OPF_KT_FLOAT8_E5M2: word = 1, bit = 6; break;
        default: break;
        }
        pristine = random;
        if (word)
            for (std::size_t at = 0; at + word <= pristine.size(); at += word) pristine[at + bit / 8] &= (unsigned char)~(1u << (bit % 8));
        mine = theirs = pristine;
    }
    void restore(std::size_t at, std::size_t bytes)
    {
        std::memcpy(&mine[at], &pristine[at], bytes);
        std::memcpy(&theirs[at], &pristine[at], bytes);
    }
};

struct Window { std::size_t at, bytes; };   // guards included

bool compare(const Arenas &a, const std::vector<Window> &w, const char *what)
{
    ++checks;
    for (const Window &x : w) {
        if (std::memcmp(&a.mine[x.at], &a.theirs[x.at], x.bytes) == 0) continue;
        std::size_t i = x.at;
        while (a.mine[i] == a.theirs[i]) ++i;
        if (++failures <= 20)
            std::printf("FAILED: %s: byte %ld from the buffer's window start + %zu differs (0x%02x, base 0x%02x)\n", what,
                        long(i - x.at) - long(kGuard), kGuard, a.mine[i], a.theirs[i]);
        return false;
    }
    return true;
}

// The alignment of a type's basic member: components are only called with
// buffers aligned for it (framework/reduce.cpp sends the others to the base).
std::size_t alignment(int kt)
{
    switch (kt) {
    case OPF_KT_FLOAT16: case OPF_KT_BFLOAT16: return 2;
    case OPF_KT_FLOAT: case OPF_KT_C_FLOAT_COMPLEX: case OPF_KT_FLOAT_INT: case OPF_KT_2INT: case OPF_KT_SHORT_INT:
    case OPF_KT_2FLOAT: return 4;
    case OPF_KT_DOUBLE: case OPF_KT_C_DOUBLE_COMPLEX: case OPF_KT_DOUBLE_INT: case OPF_KT_LONG_INT: case OPF_KT_2DOUBLE:
        return 8;
    default: {
        const std::size_t ext = std::size_t(opf_kernel_type_extent(kt));
        return kt <= OPF_KT_INT128 ? ext : 1;   // integers: their size; fp8 and the MX blocks: bytes
    }
    }
}

struct Slot { int op, kt; };
const Slot quick_slots[] = {
    {OPF_OPID_SUM, OPF_KT_INT8},         {OPF_OPID_PROD, OPF_KT_INT8},          {OPF_OPID_LAND, OPF_KT_UINT16},
    {OPF_OPID_SUM, OPF_KT_INT32},        {OPF_OPID_PROD, OPF_KT_INT64},         {OPF_OPID_BOR, OPF_KT_UINT64},
    {OPF_OPID_SUM, OPF_KT_FLOAT},        {OPF_OPID_MAX, OPF_KT_FLOAT},          {OPF_OPID_MIN, OPF_KT_DOUBLE},
    {OPF_OPID_SUM, OPF_KT_DOUBLE},       {OPF_OPID_AVG, OPF_KT_FLOAT},          {OPF_OPID_AVG, OPF_KT_DOUBLE},
    {OPF_OPID_SUM, OPF_KT_FLOAT16},      {OPF_OPID_MAX, OPF_KT_FLOAT16},        {OPF_OPID_PROD, OPF_KT_BFLOAT16},
    {OPF_OPID_SUM, OPF_KT_BFLOAT16},     {OPF_OPID_SUM, OPF_KT_FLOAT8_E4M3},    {OPF_OPID_MAX, OPF_KT_FLOAT8_E5M2},
    {OPF_OPID_PROD, OPF_KT_FLOAT8_E4M3}, {OPF_OPID_PROD, OPF_KT_C_FLOAT_COMPLEX}, {OPF_OPID_SUM, OPF_KT_C_DOUBLE_COMPLEX},
    {OPF_OPID_MAXLOC, OPF_KT_FLOAT_INT}, {OPF_OPID_MINLOC, OPF_KT_DOUBLE_INT},  {OPF_OPID_MAXLOC, OPF_KT_LONG_INT},
    {OPF_OPID_MINLOC, OPF_KT_2INT},      {OPF_OPID_MAXLOC, OPF_KT_SHORT_INT},   {OPF_OPID_MINLOC, OPF_KT_2FLOAT},
    {OPF_OPID_MAXLOC, OPF_KT_2DOUBLE},   {OPF_OPID_SUM, OPF_KT_MXFP8_E4M3},     {OPF_OPID_MAX, OPF_KT_MXFP4_E2M1},
};

// One 2- or 3-buffer case: out at offset `o`, the inputs where `form` puts them.
void two_three(Arenas &ar, const char *prov, const Slot &s, opf_kernel2_fn *f2, opf_kernel3_fn *f3, opf_kernel2_fn *b2,
               opf_kernel3_fn *b3, std::size_t n, std::size_t o, int form)
{
    const std::size_t bytes = span(s.kt, n), region = kGuard + kOffsets + kMaxLen * 40 + kGuard;
    const std::size_t al = alignment(s.kt);
    const std::size_t off1 = form == 0 ? o : (o * 5 + (n * 3 + 1) * al) % 64, off2 = (o * 11 + (n + 7) * al) % 64;
    auto win = [&](int k, std::size_t off) { return Window{k * region + off, kGuard + bytes + kGuard}; };
    auto at = [&](std::vector<unsigned char> &arena, int k, std::size_t off) { return &arena[k * region + off + kGuard]; };
    static const char *forms[] = {"2-buffer in place", "2-buffer, in elsewhere", "3-buffer", "3-buffer out==in1",
                                  "3-buffer out==in2"};
    std::snprintf(current, sizeof current, "%s op %d kt %s: %s, n %zu, out at +%zu, in1 +%zu, in2 +%zu", prov,
                  s.op, opf_kernel_type_name(s.kt), forms[form], n, o, off1, off2);
    std::vector<Window> w;
    if (form <= 1) {   // in: buffer 0; inout: buffer 1
        if (!f2) return;
        w = {win(0, off1), win(1, o)};
        for (const Window &x : w) ar.restore(x.at, x.bytes);
        f2(at(ar.mine, 0, off1), at(ar.mine, 1, o), opf_count_t(n));
        b2(at(ar.theirs, 0, off1), at(ar.theirs, 1, o), opf_count_t(n));
    } else {
        if (!f3) return;
        // in1 in buffer 0, in2 in buffer 1, out in buffer 2 or one of them
        const std::size_t a = form == 3 ? o : off1, b = form == 4 ? o : off2;
        w = {win(0, a), win(1, b)};
        if (form == 2) w.push_back(win(2, o));
        for (const Window &x : w) ar.restore(x.at, x.bytes);
        for (auto *arena : {&ar.mine, &ar.theirs}) {
            unsigned char *p0 = at(*arena, 0, a), *p1 = at(*arena, 1, b);
            unsigned char *out = form == 2 ? at(*arena, 2, o) : form == 3 ? p0 : p1;
            (arena == &ar.mine ? f3 : b3)(p0, p1, out, opf_count_t(n));
        }
    }
    compare(ar, w, current);
}

// n-ary: k inputs (1..4) at offsets from o and n, out at o (alone, or in[0]).
void nary(Arenas &ar, const char *prov, const Slot &s, int form, opf_kernel_n_fn *fn, opf_kernel_n_fn *base,
          std::size_t n, std::size_t o, int k, bool out_is_in0)
{
    const std::size_t bytes = span(s.kt, n), region = kGuard + kOffsets + kMaxLen * 40 + kGuard;
    std::vector<Window> w;
    std::size_t offs[5];
    const std::size_t al = alignment(s.kt);
    for (int j = 0; j < k; ++j)
        offs[j] = j == 0 && out_is_in0 ? o : (o * std::size_t(2 * j + 3) + (n * std::size_t(j + 1) + 5) * al) % 64;
    for (int j = 0; j < k; ++j) w.push_back({std::size_t(j) * region + offs[j], kGuard + bytes + kGuard});
    if (!out_is_in0) w.push_back({std::size_t(k) * region + o, kGuard + bytes + kGuard});
    std::snprintf(current, sizeof current, "%s op %d kt %s n-ary form %d: k %d, n %zu, out at +%zu%s", prov, s.op,
                  opf_kernel_type_name(s.kt), form, k, n, o, out_is_in0 ? " (== in[0])" : "");
    for (const Window &x : w) ar.restore(x.at, x.bytes);
    const double scalar_d = 1.25;
    const float scalar_f = 1.25f;
    const void *scalar = s.kt == OPF_KT_DOUBLE ? static_cast<const void *>(&scalar_d) : static_cast<const void *>(&scalar_f);
    for (auto *arena : {&ar.mine, &ar.theirs}) {
        const void *in[5];
        for (int j = 0; j < k; ++j) in[j] = &(*arena)[w[std::size_t(j)].at + kGuard];
        void *out = &(*arena)[w.back().at + kGuard];
        if (out_is_in0) out = const_cast<void *>(in[0]);
        (arena == &ar.mine ? fn : base)(in, k, out, opf_count_t(n), form == OPF_FORM_PREMUL ? scalar : nullptr);
    }
    compare(ar, w, current);
}

// Every buffer ending at a PROT_NONE page; then the inputs starting right
// after one and the output ending at one.
void fenced(const char *prov, const Slot &s, opf_kernel2_fn *f2, opf_kernel3_fn *f3)
{
    const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
    const std::size_t body = (kMaxLen * 40 + page - 1) / page * page;
    const std::size_t each = body + 2 * page;
    auto *m = static_cast<unsigned char *>(mmap(nullptr, 3 * each, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (m == MAP_FAILED) {
        std::printf("FAILED: mmap\n");
        ++failures;
        return;
    }
    for (int k = 0; k < 3; ++k) {
        mprotect(m + k * each, page, PROT_NONE);
        mprotect(m + k * each + page + body, page, PROT_NONE);
        for (std::size_t i = 0; i < body; ++i) m[k * each + page + i] = (unsigned char)next();
    }
    for (std::size_t n = 0; n <= kMaxLen; ++n) {
        const std::size_t bytes = span(s.kt, n);
        unsigned char *end[3], *start[3];
        for (int k = 0; k < 3; ++k) {
            start[k] = m + k * each + page;
            end[k] = start[k] + body - bytes;
        }
        std::snprintf(current, sizeof current, "%s op %d kt %s: PROT_NONE fences, n %zu", prov, s.op,
                      opf_kernel_type_name(s.kt), n);
        if (f2) {
            f2(end[0], end[1], opf_count_t(n));
            f2(start[0], end[1], opf_count_t(n));
        }
        if (f3) {
            f3(end[0], end[1], end[2], opf_count_t(n));
            f3(start[0], start[1], end[2], opf_count_t(n));
        }
        ++checks;
    }
    munmap(m, 3 * each);
}

} // namespace

int main(int argc, char **argv)
{
    // --types A,B,...: only the slots of these kernel types
    // --providers A,B,...: only these components
    std::string types, only;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--types") == 0 && i + 1 < argc) types = argv[++i];
        if (std::strcmp(argv[i], "--providers") == 0 && i + 1 < argc) only = argv[++i];
    }
    signal(SIGSEGV, on_fault);
    signal(SIGBUS, on_fault);
    if (opf_init() != OPF_SUCCESS) {
        std::printf("opf_init failed: %s\n", opf_last_error());
        return 1;
    }
    const char *depth = std::getenv("OPF_CHECK_DEPTH");
    const bool deep = depth && (std::strcmp(depth, "deep") == 0 || std::strcmp(depth, "slow") == 0);
    std::vector<Slot> slots;
    if (deep) {
        for (int op = 1; op < OPF_OPID_COUNT; ++op)
            for (int kt = 0; kt < OPF_KT_COUNT; ++kt)
                if (opf_slot_exists(op, kt) && op != OPF_OPID_REPLACE && op != OPF_OPID_NO_OP) slots.push_back({op, kt});
    } else {
        slots.assign(std::begin(quick_slots), std::end(quick_slots));
    }
    std::vector<std::string> providers;
    for (int i = 0; i < opf_component_count(); ++i) {
        opf_component_info_t c;
        if (opf_component_describe(i, &c) == OPF_SUCCESS && c.available &&
            (only.empty() || ("," + only + ",").find("," + std::string(c.name) + ",") != std::string::npos))
            providers.push_back(c.name);
    }
    const std::size_t region = kGuard + kOffsets + kMaxLen * 40 + kGuard;
    Arenas ar(5 * region);
    int slots_run = 0;
    for (const std::string &p : providers) {
        const char *prov = p.c_str();
        for (const Slot &s : slots) {
            if (opf_kernel_type_extent(s.kt) > 40) continue;
            if (!types.empty() && ("," + types + ",").find("," + std::string(opf_kernel_type_name(s.kt)) + ",") == std::string::npos)
                continue;
            opf_kernel2_fn *f2 = nullptr, *b2 = nullptr;
            opf_kernel3_fn *f3 = nullptr, *b3 = nullptr;
            // The kernel of a 64 KiB call: the tier that runs the body (below
            // a component's smallest tier the call is the base's anyway).
            const opf_count_t big = 65536 / opf_kernel_type_extent(s.kt);
            opf_slot_kernels(s.op, s.kt, prov, big, &f2, &f3);
            if (opf_slot_kernels(s.op, s.kt, "base", big, &b2, &b3) != OPF_SUCCESS) continue;
            bool any = f2 || f3;
            // MX blocks: no head (a block is 17 to 33 bytes: no peel keeps
            // whole blocks and aligns the stores), their base is slow; a few
            // blocks cover their loop.
            const std::size_t al = alignment(s.kt), max_len = s.kt >= OPF_KT_MXFP8_E4M3 ? 9 : kMaxLen;
            const auto t0 = std::chrono::steady_clock::now();
            ar.for_type(s.kt);
            const int failures_before = failures;
            if (f2 || f3) {
                for (std::size_t n = 0; n <= max_len; ++n)
                    for (std::size_t o = 0; o < kOffsets; o += al)
                        for (int form = 0; form < 5; ++form) two_three(ar, prov, s, f2, f3, b2, b3, n, o, form);
                fenced(prov, s, f2, f3);
            }
            for (int form = OPF_FORM_N; form <= OPF_FORM_PREMUL; ++form) {
                opf_kernel_n_fn *fn = nullptr, *bn = nullptr;
                if (opf_slot_kernel_n(s.op, s.kt, form, prov, big, &fn) != OPF_SUCCESS || !fn) continue;
                if (opf_slot_kernel_n(s.op, s.kt, form, "base", big, &bn) != OPF_SUCCESS || !bn) continue;
                any = true;
                for (std::size_t n = 0; n <= max_len; ++n)
                    for (std::size_t o = 0; o < kOffsets; o += al) {
                        const int k = 1 + int((n + o) % 4);
                        nary(ar, prov, s, form, fn, bn, n, o, k, (n + o) % 3 == 0);
                    }
            }
            slots_run += any;
            if (failures != failures_before)
                std::printf("  %s op %d %s: %d failed\n", prov, s.op, opf_kernel_type_name(s.kt), failures - failures_before);
            if (std::getenv("ALIGN_PEEL_TIMES"))
                std::printf("  %s op %d %s: %.3f s\n", prov, s.op, opf_kernel_type_name(s.kt),
                            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
    }
    std::printf("align_peel: %zu providers (", providers.size());
    for (const std::string &p : providers) std::printf(" %s", p.c_str());
    std::printf(" ), %d slot kernels, %s: %d checks, %d failed\n", slots_run, deep ? "every slot" : "one slot per family",
                checks, failures);
    opf_finalize();
    return failures ? 1 : 0;
}
