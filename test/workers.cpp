// workers.cpp — the worker pool (op_base_threads, framework/workers.h).
//
//  1. op_base_threads=N: opf_init starts N-1 helper threads, opf_finalize joins
//     them (counted by name in /proc/self/task); op_base_threads=1 starts none; inside
//     an MPI job (OMPI_COMM_WORLD_SIZE set) none unless op_base_threads_in_mpi;
//  2. exactness at chunk edges: with a tiny op_base_threads_min_bytes,
//     every predefined (op, type), 2- and 3-buffer (out distinct, out = in1,
//     out = in2), at counts around the chunk boundaries, gives the values of
//     the kernel the selected table serves for that count run by one thread
//     on the whole buffer (any NaN matching any NaN), and leaves the guard
//     after the true end alone;
//  3. several application threads make large calls at once (the pool busy:
//     the others run alone) and check their results; then opf_finalize joins;
//  4. a child forked after opf_init runs its large calls alone.
// Run it under TSan (.ci/steps/61-tsan.sh) and with components (test/big_buffers.sh).
// Usage: workers [--seed N]. Prints "workers: N checks, F failed".
#include <opframe/introspect.h>
#include <opframe/opframe.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace {

std::atomic<long> checks{0}, failed{0};

void check(bool ok, const std::string &what)
{
    ++checks;
    if (!ok && ++failed <= 30) std::fprintf(stderr, "FAILED %s (last error: %s)\n", what.c_str(), opf_last_error());
}

// The pool's threads, by the name they give themselves (other threads come
// and go: a sanitizer's, an OpenCL platform's).
long pool_threads()
{
    long n = 0;
    for (const auto &entry : std::filesystem::directory_iterator("/proc/self/task")) {
        std::FILE *f = std::fopen((entry.path() / "comm").c_str(), "r");
        if (!f) continue;
        char name[32] = "";
        n += std::fgets(name, sizeof name, f) && std::strncmp(name, "opf_worker", 10) == 0;
        std::fclose(f);
    }
    return n;
}

void init_with(const char *threads, const char *min_bytes, const char *in_mpi = "false")
{
    opf_finalize();
    opf_param_set("op_base_threads", threads);
    opf_param_set("op_base_threads_min_bytes", min_bytes);
    opf_param_set("op_base_threads_in_mpi", in_mpi);
    check(opf_init() == OPF_SUCCESS, std::string("opf_init with op_base_threads=") + threads);
}

void lifecycle()
{
    init_with("2", "1M");
    check(pool_threads() == 1, "op_base_threads=2 starts one helper thread");
    opf_finalize();
    check(pool_threads() == 0, "opf_finalize joins the helper");
    init_with("1", "1M");
    check(pool_threads() == 0, "op_base_threads=1 starts no thread");
    init_with("3", "1M");
    check(pool_threads() == 2, "op_base_threads=3 starts two helper threads");
    setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
    init_with("2", "1M");
    check(pool_threads() == 0, "no pool inside an MPI job by default");
    init_with("2", "1M", "true");
    check(pool_threads() == 1, "op_base_threads_in_mpi=true: the pool inside an MPI job");
    unsetenv("OMPI_COMM_WORLD_SIZE");
    opf_finalize();
}

struct Case {
    opf_op_t op;
    opf_datatype_t type;
    int op_id, kt;
    std::size_t extent;
};

std::vector<Case> all_cases()
{
    std::vector<Case> cases;
    for (int op_id = 1; op_id < OPF_OPID_COUNT; ++op_id)
        for (uintptr_t id = 1; id < OPF_TYPEID_COUNT_; ++id) {
            const auto op = reinterpret_cast<opf_op_t>(uintptr_t(op_id));
            const auto type = reinterpret_cast<opf_datatype_t>(id);
            int valid = 0, kt = -1;
            opf_aint_t lb = 0, extent = 0;
            if (opf_op_valid_for_type(op, type, &valid) != OPF_SUCCESS || !valid) continue;
            if (opf_type_kernel_type(type, &kt) != OPF_SUCCESS || kt < 0) continue;
            if (opf_type_get_extent(type, &lb, &extent) != OPF_SUCCESS || extent != opf_kernel_type_extent(kt))
                continue;   // not one kernel element per item
            cases.push_back({op, type, op_id, kt, std::size_t(extent)});
        }
    return cases;
}

// One call through the pool against the selected kernel on one thread.
// alias: 0 out distinct, 1 out = in1, 2 out = in2 (3-buffer); 2-buffer: -1.
void check_call(const Case &c, opf_count_t n, int alias, std::mt19937_64 &rng)
{
    constexpr std::size_t guard = 64;
    const std::size_t bytes = std::size_t(n) * c.extent;
    std::vector<unsigned char> a(bytes + guard), b(bytes + guard), out(bytes + guard);
    for (auto *v : {&a, &b, &out})
        for (std::size_t i = 0; i < v->size(); i += 8) {
            const uint64_t r = rng();
            std::memcpy(v->data() + i, &r, std::min<std::size_t>(8, v->size() - i));
        }
    std::vector<unsigned char> a2 = a, b2 = b, out2 = out;
    opf_kernel2_fn *fn2 = nullptr;
    opf_kernel3_fn *fn3 = nullptr;
    opf_slot_kernels(c.op_id, c.kt, nullptr, n, &fn2, &fn3);
    int rc;
    if (alias < 0) {
        fn2(a.data(), b.data(), n);
        rc = opf_reduce_local(a2.data(), b2.data(), n, c.type, c.op);
    } else {
        unsigned char *o = alias == 0 ? out.data() : alias == 1 ? a.data() : b.data();
        unsigned char *o2 = alias == 0 ? out2.data() : alias == 1 ? a2.data() : b2.data();
        fn3(a.data(), b.data(), o, n);
        rc = opf_reduce_local3(a2.data(), b2.data(), o2, n, c.type, c.op);
    }
    char what[160];
    std::snprintf(what, sizeof what, "%s %s count %lld %s", opf_kernel_type_name(c.kt),
                  opf_slot_provider(c.op_id, c.kt, alias < 0 ? 2 : 3, n), (long long)n,
                  alias < 0 ? "2-buffer" : alias == 0 ? "3-buffer" : alias == 1 ? "out = in1" : "out = in2");
    // The values must be equal (any NaN matching any NaN: a kernel's scalar
    // tail may give another NaN than its vector body, and a chunk's tail is
    // not the whole buffer's), and the guard after the true end untouched
    // (padding inside elements: the conformance engine's guards).
    bool same = rc == OPF_SUCCESS;
    for (auto [x, y] : {std::pair{&a, &a2}, {&b, &b2}, {&out, &out2}}) {
        opf_count_t at = 0;
        same = same && opf_kernel_type_first_difference(c.kt, x->data(), y->data(), n, &at) == OPF_SUCCESS && at < 0;
        same = same && std::equal(x->begin() + std::ptrdiff_t(bytes), x->end(), y->begin() + std::ptrdiff_t(bytes));
    }
    check(same, std::string("op ") + std::to_string(c.op_id) + " " + what + ": differs from one thread's");
}

// opf_reduce_local_n (k = 3) through the pool against the base's n-ary
// kernel on one thread; in_place: dst is srcs[2].
void check_nary(const Case &c, opf_count_t n, bool in_place, std::mt19937_64 &rng)
{
    constexpr int k = 3;
    constexpr std::size_t guard = 64;
    const std::size_t bytes = std::size_t(n) * c.extent;
    std::vector<std::vector<unsigned char>> in(k + 1, std::vector<unsigned char>(bytes + guard));   // [k]: dst
    for (auto &v : in)
        for (std::size_t i = 0; i < v.size(); i += 8) {
            const uint64_t r = rng();
            std::memcpy(v.data() + i, &r, std::min<std::size_t>(8, v.size() - i));
        }
    std::vector<std::vector<unsigned char>> in2 = in;
    opf_kernel_n_fn *ref = nullptr;
    if (opf_slot_kernel_n(c.op_id, c.kt, OPF_FORM_N, "base", n, &ref) != OPF_SUCCESS || !ref) return;
    const void *a[k] = {in[0].data(), in[1].data(), in[2].data()}, *a2[k] = {in2[0].data(), in2[1].data(), in2[2].data()};
    unsigned char *dst = in_place ? in[2].data() : in[k].data(), *dst2 = in_place ? in2[2].data() : in2[k].data();
    ref(a, k, dst, n, nullptr);
    const int rc = opf_reduce_local_n(a2, k, dst2, n, c.type, c.op);
    bool same = rc == OPF_SUCCESS;
    for (int j = 0; j <= k; ++j) {
        opf_count_t at = 0;
        same = same && opf_kernel_type_first_difference(c.kt, in[std::size_t(j)].data(), in2[std::size_t(j)].data(), n,
                                                        &at) == OPF_SUCCESS && at < 0;
        same = same && std::equal(in[std::size_t(j)].begin() + std::ptrdiff_t(bytes), in[std::size_t(j)].end(),
                                  in2[std::size_t(j)].begin() + std::ptrdiff_t(bytes));
    }
    check(same, std::string("op ") + std::to_string(c.op_id) + " " + opf_kernel_type_name(c.kt) + " n-ary k = 3 count " +
                    std::to_string(n) + (in_place ? " dst = srcs[2]" : "") + ": differs from the base on one thread");
}

// Counts around the chunk edges of two threads (chunks are multiples of 64
// elements): below the pool's threshold, at it, and ragged above.
void edges(std::mt19937_64 &rng, const std::vector<Case> &cases)
{
    init_with("2", "1");
    const opf_count_t counts[] = {1, 2, 3, 63, 64, 65, 127, 128, 129, 191, 1000, 4099};
    for (const Case &c : cases)
        for (opf_count_t n : counts) {
            for (int alias = -1; alias <= 2; ++alias)
                if (alias <= 0 || n == 129) check_call(c, n, alias, rng);
            if (n >= 128) check_nary(c, n, n == 129, rng);
        }
}

// Application threads calling at once; each checks its own results.
void concurrent(uint64_t seed)
{
    init_with("2", "4K");
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([t, seed] {
            std::mt19937_64 rng(seed + 100 + t);
            const std::size_t n = 100000 + std::size_t(t) * 1001;
            std::vector<int32_t> a(n), b(n), o(n);
            for (int round = 0; round < 10; ++round) {
                for (std::size_t i = 0; i < n; ++i) {
                    a[i] = int32_t(rng());
                    b[i] = int32_t(rng());
                }
                bool ok = opf_reduce_local3(a.data(), b.data(), o.data(), opf_count_t(n), OPF_INT32_T, OPF_SUM) ==
                          OPF_SUCCESS;
                for (std::size_t i = 0; i < n && ok; ++i) ok = o[i] == int32_t(uint32_t(a[i]) + uint32_t(b[i]));
                ok = ok && opf_reduce_local(a.data(), b.data(), opf_count_t(n), OPF_INT32_T, OPF_BXOR) == OPF_SUCCESS;
                for (std::size_t i = 0; i < n && ok; ++i) ok = b[i] == (a[i] ^ int32_t(uint32_t(o[i]) - uint32_t(a[i])));
                check(ok, "thread " + std::to_string(t) + " round " + std::to_string(round));
            }
        });
    for (std::thread &t : threads) t.join();
    check(opf_finalize() == OPF_SUCCESS, "opf_finalize after concurrent calls");
}

// A child forked after opf_init has none of the pool's threads: its large
// calls run alone (without the check they would wait for helpers forever).
void forked_child()
{
    init_with("2", "1");
    const pid_t child = fork();
    if (child == 0) {
        alarm(20);
        std::vector<int32_t> a(100000, 3), b(100000, 4);
        const bool ok = opf_reduce_local(a.data(), b.data(), opf_count_t(a.size()), OPF_INT32_T, OPF_SUM) == OPF_SUCCESS &&
                        std::all_of(b.begin(), b.end(), [](int32_t x) { return x == 7; });
        _exit(ok ? 0 : 1);
    }
    int status = -1;
    waitpid(child, &status, 0);
    check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a large call in a child forked after opf_init");
    opf_finalize();
}

} // namespace

int main(int argc, char **argv)
{
    uint64_t seed = std::random_device{}();
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--seed") == 0 && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 0);
    std::printf("workers: seed %llu (rerun with --seed)\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    lifecycle();
    check(opf_init() == OPF_SUCCESS, "opf_init");
    const std::vector<Case> cases = all_cases();
    check(cases.size() > 100, "predefined (op, type) pairs found: " + std::to_string(cases.size()));
    edges(rng, cases);
    concurrent(seed);
    forked_child();
    std::printf("workers: %ld checks, %ld failed\n", checks.load(), failed.load());
    return failed ? 1 : 0;
}
