// threads.cpp — thread safety of opframe.
//
//  1. 8 worker threads reduce their own buffers (SUM INT, MAX DOUBLE, MAXLOC
//     DOUBLE_INT, a shared non-commutative user op; 2- and 3-buffer forms) and
//     check every result, and check that opf_last_error() is per thread;
//  2. meanwhile 2 churn threads create, use and free user ops and derived
//     types, checking results, return codes and that stale handles are refused;
//  3. lazy-init race: after opf_finalize, several threads make a reduction their
//     very first opframe call at the same moment; all must succeed.
// Prints "threads: N checks, F failed"; exits nonzero on failure.
#include <opframe/opframe.h>

#include <atomic>
#include <barrier>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

std::atomic<long> g_checks{0}, g_failed{0};
std::mutex g_print;

void report(bool ok, const char *file, int line, const std::string &what)
{
    ++g_checks;
    if (ok)
        return;
    if (++g_failed <= 50) {
        std::lock_guard<std::mutex> lock(g_print);
        std::fprintf(stderr, "%s:%d: FAILED %s (last error: %s)\n", file, line, what.c_str(),
                     opf_last_error());
    }
}
#define CHECK(cond, what) report((cond), __FILE__, __LINE__, std::string(#cond " : ") + (what))
#define CHECK_RC(call, expected) do { \
        int rc_ = (call); \
        report(rc_ == (expected), __FILE__, __LINE__, \
               std::string(#call) + " returned " + std::to_string(rc_) + ", expected " + \
                   std::to_string(expected)); \
    } while (0)

// xorshift64*: per-thread deterministic random numbers
struct Rng {
    uint64_t s;
    explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
    uint64_t next() { s ^= s >> 12; s ^= s << 25; s ^= s >> 27; return s * 2685821657736338717ull; }
    int range(int lo, int hi) { return lo + (int)(next() % (uint64_t)(hi - lo + 1)); }
};

// ---- a shared non-commutative user op: f(a, b) = 2a + b on ints --------------
extern "C" {
static void two_a_plus_b(void *in, void *inout, int *len, opf_datatype_t *)
{
    const int *a = static_cast<const int *>(in);
    int *b = static_cast<int *>(inout);
    for (int i = 0; i < *len; ++i)
        b[i] = 2 * a[i] + b[i];
}
}
opf_op_t g_user_op = OPF_OP_NULL;

struct DoubleInt { double val; int idx; };

// The 3 forms a worker alternates between.
enum Form { TWO_BUFFER, OUT_DISTINCT, OUT_IS_IN1, OUT_IS_IN2 };

// Runs left op right in the given form; returns rc, result in res.
template <class T>
int reduce(const std::vector<T> &left, const std::vector<T> &right, std::vector<T> &res, Form form,
           opf_datatype_t type, opf_op_t op)
{
    const auto n = (opf_count_t)left.size();
    switch (form) {
    case TWO_BUFFER:
        res = right;
        return opf_reduce_local(left.data(), res.data(), n, type, op);
    case OUT_DISTINCT:
        res.assign(left.size(), T{});
        return opf_reduce_local3(left.data(), right.data(), res.data(), n, type, op);
    case OUT_IS_IN1:
        res = left;
        return opf_reduce_local3(res.data(), right.data(), res.data(), n, type, op);
    default:
        res = right;
        return opf_reduce_local3(left.data(), res.data(), res.data(), n, type, op);
    }
}

// Applies op to random operands and compares with want(l, r) element-wise.
template <class T, class Gen, class Want, class Same>
void check_op(Rng &rng, const char *what, opf_datatype_t type, opf_op_t op, Gen gen, Want want,
              Same same)
{
    const int n = rng.range(1, 96);
    std::vector<T> l(n), r(n), res;
    for (int i = 0; i < n; ++i) {
        l[i] = gen(rng);
        r[i] = gen(rng);
    }
    Form form = (Form)rng.range(0, 3);
    int rc = reduce(l, r, res, form, type, op);
    int bad = -1;
    for (int i = 0; i < n && bad < 0; ++i)
        if (!same(res[i], want(l[i], r[i])))
            bad = i;
    CHECK(rc == OPF_SUCCESS && bad < 0, std::string(what) + " form " + std::to_string(form) +
                                            " rc " + std::to_string(rc) + " first bad " +
                                            std::to_string(bad));
}

// One invalid (op, type) pair per worker: the thread's last error must name them.
struct BadPair { opf_op_t op; opf_datatype_t type; };
const BadPair bad_pairs[8] = {
    {OPF_SUM, OPF_BYTE},      {OPF_PROD, OPF_LOGICAL},  {OPF_LAND, OPF_DOUBLE},
    {OPF_LOR, OPF_FLOAT16},   {OPF_LXOR, OPF_C_DOUBLE_COMPLEX}, {OPF_BAND, OPF_FLOAT},
    {OPF_BXOR, OPF_LONG_DOUBLE}, {OPF_MINLOC, OPF_SHORT},
};

void check_own_error(int t)
{
    const BadPair &p = bad_pairs[t % 8];
    long long buf[4] = {0, 0, 0, 0}, buf2[4] = {0, 0, 0, 0};
    int rc = opf_reduce_local(buf, buf2, 1, p.type, p.op);
    std::string msg = opf_last_error();
    const char *on = opf_op_name(p.op), *tn = opf_type_name(p.type);
    CHECK(rc == OPF_ERR_OP && on && tn && msg.find(on) != std::string::npos &&
              msg.find(tn) != std::string::npos,
          std::string("thread ") + std::to_string(t) + " rc " + std::to_string(rc) + " msg '" +
              msg + "'");
}

void worker(int t, int iters)
{
    Rng rng(t + 1);
    auto same_exact = [](auto a, auto b) { return a == b; };
    for (int it = 0; it < iters; ++it) {
        switch (it % 5) {
        case 0:
            check_op<int>(rng, "SUM INT", OPF_INT, OPF_SUM,
                          [](Rng &g) { return g.range(-1000000, 1000000); },
                          [](int a, int b) { return a + b; }, same_exact);
            break;
        case 1:
            check_op<double>(rng, "MAX DOUBLE", OPF_DOUBLE, OPF_MAX,
                             [](Rng &g) { return g.range(-50, 50) * 0.25; },
                             [](double a, double b) { return a > b ? a : b; }, same_exact);
            break;
        case 2:
            check_op<DoubleInt>(
                rng, "MAXLOC DOUBLE_INT", OPF_DOUBLE_INT, OPF_MAXLOC,
                [](Rng &g) { return DoubleInt{(double)g.range(0, 3), g.range(0, 9)}; },
                [](DoubleInt a, DoubleInt b) {
                    if (a.val != b.val)
                        return a.val > b.val ? a : b;
                    return DoubleInt{a.val, a.idx < b.idx ? a.idx : b.idx};
                },
                [](DoubleInt a, DoubleInt b) { return a.val == b.val && a.idx == b.idx; });
            break;
        case 3:
            check_op<int>(rng, "user 2a+b", OPF_INT, g_user_op,
                          [](Rng &g) { return g.range(-1000, 1000); },
                          [](int a, int b) { return 2 * a + b; }, same_exact);
            break;
        default:
            if (it % 50 == 4)
                check_own_error(t);
            break;
        }
    }
}

// ---- churn: create, use and free user ops and derived types ----------------
// The callback gets its layout from the calling thread (callbacks run in it).
thread_local int tl_ints_per_item;   // ints per item of the type in use
thread_local int tl_stride;          // distance in ints between the item's ints
thread_local opf_datatype_t tl_type; // the type the callback must be given
thread_local long tl_bad_calls;

void churn_apply(void *in, void *inout, opf_count_t len, opf_datatype_t type)
{
    const int *a = static_cast<const int *>(in);
    int *b = static_cast<int *>(inout);
    opf_aint_t lb = -1, extent = -1;
    // opframe calls from inside a callback must work (MPI allows non-communication calls)
    if (type != tl_type || opf_type_get_extent(type, &lb, &extent) != OPF_SUCCESS ||
        extent != (opf_aint_t)(tl_ints_per_item * tl_stride * sizeof(int)))
        ++tl_bad_calls;
    const int per = tl_ints_per_item * tl_stride;
    for (opf_count_t i = 0; i < len; ++i)
        for (int k = 0; k < tl_ints_per_item; ++k)
            b[i * per + k * tl_stride] = 3 * a[i * per + k * tl_stride] - b[i * per + k * tl_stride];
}
extern "C" {
static void churn_fn(void *in, void *inout, int *len, opf_datatype_t *type)
{
    churn_apply(in, inout, *len, *type);
}
static void churn_fn_c(void *in, void *inout, opf_count_t *len, opf_datatype_t *type)
{
    churn_apply(in, inout, *len, *type);
}
}

void churn_once(Rng &rng, int it)
{
    const bool use_c = it % 2, commute = (it / 2) % 2;
    opf_op_t op = OPF_OP_NULL;
    CHECK_RC(use_c ? opf_op_create_c(churn_fn_c, commute, &op) : opf_op_create(churn_fn, commute, &op),
             OPF_SUCCESS);
    int flag = -1;
    CHECK_RC(opf_op_commutative(op, &flag), OPF_SUCCESS);
    CHECK(flag == (int)commute, "commutative flag " + std::to_string(flag));

    // type: contiguous(m, INT) or vector(m, 1, 2, INT) resized to m*2 ints, built
    // from an intermediate type that is freed before use
    const int m = rng.range(1, 4);
    const bool holey = it % 3 == 0;
    opf_datatype_t base = OPF_DATATYPE_NULL, type = OPF_DATATYPE_NULL;
    if (holey) {
        CHECK_RC(opf_type_vector(m, 1, 2, OPF_INT, &base), OPF_SUCCESS);
        CHECK_RC(opf_type_create_resized(base, 0, (opf_aint_t)(2 * m * sizeof(int)), &type),
                 OPF_SUCCESS);
    } else {
        CHECK_RC(opf_type_contiguous(m, OPF_INT, &base), OPF_SUCCESS);
        CHECK_RC(opf_type_dup(base, &type), OPF_SUCCESS);
    }
    CHECK_RC(opf_type_free(&base), OPF_SUCCESS);
    CHECK_RC(opf_type_commit(&type), OPF_SUCCESS);
    opf_count_t size = -1;
    CHECK_RC(opf_type_size(type, &size), OPF_SUCCESS);
    CHECK(size == (opf_count_t)(m * sizeof(int)), "size " + std::to_string(size));

    tl_ints_per_item = m;
    tl_stride = holey ? 2 : 1;
    tl_type = type;
    tl_bad_calls = 0;
    const int count = rng.range(1, 40), n = count * m * tl_stride;
    std::vector<int> a(n), b(n), b0;
    for (int i = 0; i < n; ++i) {
        a[i] = rng.range(-500, 500);
        b[i] = rng.range(-500, 500);
    }
    b0 = b;
    CHECK_RC(opf_reduce_local(a.data(), b.data(), count, type, op), OPF_SUCCESS);
    int bad = 0;
    for (int i = 0; i < n; ++i)
        bad += b[i] != (i % tl_stride ? b0[i] : 3 * a[i] - b0[i]);
    CHECK(bad == 0 && tl_bad_calls == 0, "user op on derived type: " + std::to_string(bad) +
                                             " wrong ints, " + std::to_string(tl_bad_calls) +
                                             " bad callback calls");
    // a predefined op on the derived type (all INT)
    b = b0;
    CHECK_RC(opf_reduce_local(a.data(), b.data(), count, type, OPF_SUM), OPF_SUCCESS);
    bad = 0;
    for (int i = 0; i < n; ++i)
        bad += b[i] != (i % tl_stride ? b0[i] : a[i] + b0[i]);
    CHECK(bad == 0, "SUM on derived type: " + std::to_string(bad) + " wrong ints");

    // free; stale copies are refused, not dereferenced
    opf_op_t stale_op = op;
    opf_datatype_t stale_type = type;
    CHECK_RC(opf_op_free(&op), OPF_SUCCESS);
    CHECK(op == OPF_OP_NULL, "op_free did not reset the handle");
    CHECK_RC(opf_type_free(&type), OPF_SUCCESS);
    CHECK(type == OPF_DATATYPE_NULL, "type_free did not reset the handle");
    b = b0;
    CHECK_RC(opf_reduce_local(a.data(), b.data(), 1, OPF_INT, stale_op), OPF_ERR_OP);
    CHECK_RC(opf_reduce_local(a.data(), b.data(), 1, stale_type, OPF_SUM), OPF_ERR_TYPE);
    CHECK(b == b0, "a refused reduction wrote");
    CHECK_RC(opf_op_free(&stale_op), OPF_ERR_OP);
    CHECK_RC(opf_type_free(&stale_type), OPF_ERR_TYPE);
}

void churner(int t, std::atomic<bool> &stop, int min_iters)
{
    Rng rng(100 + t);
    for (int it = 0; it < min_iters || !stop.load(); ++it)
        churn_once(rng, it);
}

// ---- lazy init race ---------------------------------------------------------
void lazy_init_round(int nthreads)
{
    std::barrier sync(nthreads);
    std::vector<std::thread> th;
    std::vector<int> ok(nthreads, 0);
    for (int t = 0; t < nthreads; ++t)
        th.emplace_back([&, t] {
            int x[3] = {1, 2, 3 + t}, y[3] = {10, 20, 30};
            DoubleInt p{1.0 + t % 2, t}, q{1.5, 100}, out{};
            sync.arrive_and_wait();
            int rc;
            if (t % 2 == 0) { // first opframe call: a reduction
                rc = opf_reduce_local(x, y, 3, OPF_INT, OPF_SUM);
                ok[t] = rc == OPF_SUCCESS && y[0] == 11 && y[1] == 22 && y[2] == 33 + t;
            } else {
                rc = opf_reduce_local3(&p, &q, &out, 1, OPF_DOUBLE_INT, OPF_MAXLOC);
                ok[t] = rc == OPF_SUCCESS && out.val == 2.0 && out.idx == t;
            }
        });
    for (auto &x : th)
        x.join();
    for (int t = 0; t < nthreads; ++t)
        CHECK(ok[t], "lazy init: thread " + std::to_string(t) + " failed");
}

} // namespace

int main()
{
    const int nworkers = 8, iters = 60000, nchurn = 2, churn_min = 300;

    CHECK_RC(opf_init(), OPF_SUCCESS);
    CHECK_RC(opf_op_create(two_a_plus_b, 0, &g_user_op), OPF_SUCCESS);
    {
        std::atomic<bool> stop{false};
        std::vector<std::thread> th;
        for (int t = 0; t < nchurn; ++t)
            th.emplace_back(churner, t, std::ref(stop), churn_min);
        std::vector<std::thread> w;
        for (int t = 0; t < nworkers; ++t)
            w.emplace_back(worker, t, iters);
        for (auto &x : w)
            x.join();
        stop = true;
        for (auto &x : th)
            x.join();
    }
    CHECK_RC(opf_op_free(&g_user_op), OPF_SUCCESS);

    for (int round = 0; round < 40; ++round) {
        CHECK_RC(opf_finalize(), OPF_SUCCESS);
        int flag = -1;
        CHECK_RC(opf_initialized(&flag), OPF_SUCCESS);
        CHECK(flag == 0, "initialized after finalize: " + std::to_string(flag));
        lazy_init_round(8);
        CHECK_RC(opf_initialized(&flag), OPF_SUCCESS);
        CHECK(flag == 1, "not initialized after the race: " + std::to_string(flag));
    }
    CHECK_RC(opf_finalize(), OPF_SUCCESS);

    std::printf("threads: %ld checks, %ld failed\n", g_checks.load(), g_failed.load());
    return g_failed.load() ? 1 : 0;
}
