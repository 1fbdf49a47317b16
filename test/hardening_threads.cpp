// hardening_threads.cpp — issue 12's defects that need a second thread.
//
//  1. A type and an op freed by another thread while a reduction runs on
//     them (the callback waits until the other thread has freed them and
//     made new objects of the same sizes): the call finishes on the freed
//     ones (MPI: freeing marks for deallocation). Fails without the fix by
//     continuing on the new objects, or on freed memory.
//  2. Frees racing reductions of a derived type with a predefined op: every
//     call either completes correctly or refuses the freed handle (ASan and
//     TSan builds see any use after free or race).
//  3. opf_param_set(op_base_user_int_limit) while reductions read it: results
//     stay exact (TSan builds see a data race).
// Prints "hardening_threads: N checks, F failed"; exits nonzero on failure.
#include <opframe/introspect.h>
#include <opframe/opframe.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

std::atomic<long> g_checks{0}, g_failed{0};

void report(bool ok, int line, const std::string &what)
{
    ++g_checks;
    if (!ok && ++g_failed <= 50)
        std::fprintf(stderr, "hardening_threads.cpp:%d: FAILED %s (last error: %s)\n", line, what.c_str(),
                     opf_last_error());
}
#define CHECK(cond, what) report((cond), __LINE__, std::string(#cond " : ") + (what))

// ---- 1. freed by another thread during the call -----------------------------

std::atomic<int> stage{0};   // 1: the callback runs; 2: the other thread freed and replaced
opf_op_t shared_op;
opf_datatype_t shared_type;
int callbacks = 0;

void poison(void *, void *inoutvec, int *len, opf_datatype_t *)
{
    auto *io = static_cast<int *>(inoutvec);
    for (int i = 0; i < *len; ++i) io[3 * i] = -1000;
}

// inout += in on the first int of each 12-byte item
void add_first_and_wait(void *invec, void *inoutvec, int *len, opf_datatype_t *)
{
    const auto *in = static_cast<const int *>(invec);
    auto *io = static_cast<int *>(inoutvec);
    for (int i = 0; i < *len; ++i) io[3 * i] += in[3 * i];
    if (callbacks++ == 0) {
        stage.store(1);
        while (stage.load() != 2) std::this_thread::yield();
    }
}

void test_freed_by_other_thread()
{
    constexpr int n = 40;
    std::vector<int> in(3 * n), inout(3 * n), expect(3 * n);
    for (int i = 0; i < 3 * n; ++i) {
        in[i] = i;
        inout[i] = 5 * i;
        expect[i] = 5 * i + (i % 3 ? 0 : i);
    }
    CHECK(opf_param_set("op_base_user_int_limit", "4") == OPF_SUCCESS, "limit");   // 10 callbacks
    CHECK(opf_op_create(add_first_and_wait, 1, &shared_op) == OPF_SUCCESS, "create op");
    CHECK(opf_type_create_resized(OPF_INT, 0, 12, &shared_type) == OPF_SUCCESS, "create type");
    CHECK(opf_type_commit(&shared_type) == OPF_SUCCESS, "commit");
    const opf_op_t op = shared_op;
    const opf_datatype_t type = shared_type;

    opf_op_t decoy_op = OPF_OP_NULL;
    opf_datatype_t decoy_type = OPF_DATATYPE_NULL;
    std::thread freer([&] {
        while (stage.load() != 1) std::this_thread::yield();
        CHECK(opf_op_free(&shared_op) == OPF_SUCCESS, "free op mid-call");
        CHECK(opf_type_free(&shared_type) == OPF_SUCCESS, "free type mid-call");
        CHECK(opf_op_create(poison, 1, &decoy_op) == OPF_SUCCESS, "decoy op");
        CHECK(opf_type_create_resized(OPF_INT, 0, 4, &decoy_type) == OPF_SUCCESS, "decoy type");
        stage.store(2);
    });
    const int rc = opf_reduce_local(in.data(), inout.data(), n, type, op);
    freer.join();
    CHECK(rc == OPF_SUCCESS, "reduction on handles freed meanwhile: rc " + std::to_string(rc));
    CHECK(callbacks == 10, "callbacks " + std::to_string(callbacks));
    CHECK(inout == expect, "wrong result: item 5 is " + std::to_string(inout[15]) + ", expected " +
                               std::to_string(expect[15]));
    CHECK(opf_reduce_local(in.data(), inout.data(), n, type, op) == OPF_ERR_OP, "freed handles refused afterwards");
    CHECK(opf_op_free(&decoy_op) == OPF_SUCCESS, "free decoy op");
    CHECK(opf_type_free(&decoy_type) == OPF_SUCCESS, "free decoy type");
    CHECK(opf_param_set("op_base_user_int_limit", nullptr) == OPF_SUCCESS, "limit reset");
}

// ---- 2. frees racing predefined-op reductions on derived types ---------------

void test_free_races()
{
    constexpr int rounds = 300, n = 256;
    std::atomic<opf_datatype_t> current{OPF_DATATYPE_NULL};
    std::atomic<bool> done{false};
    int int_kernel_type = -2;
    CHECK(opf_type_kernel_type(OPF_INT, &int_kernel_type) == OPF_SUCCESS, "kernel type of INT");
    std::thread reducer([&] {
        std::vector<int> in(2 * n, 1), inout(2 * n);
        while (!done.load()) {
            const opf_datatype_t t = current.load();
            if (t == OPF_DATATYPE_NULL) continue;
            // The introspection calls read the descriptor too (TSan flags a
            // read of one reclaimed under them).
            int kernel_type = -1, valid = -1;
            int rc_kt = opf_type_kernel_type(t, &kernel_type), rc_valid = opf_op_valid_for_type(OPF_SUM, t, &valid);
            CHECK((rc_kt == OPF_SUCCESS && kernel_type == int_kernel_type) || rc_kt == OPF_ERR_TYPE,
                  "racing opf_type_kernel_type: rc " + std::to_string(rc_kt));
            CHECK((rc_valid == OPF_SUCCESS && valid == 1) || rc_valid == OPF_ERR_TYPE,
                  "racing opf_op_valid_for_type: rc " + std::to_string(rc_valid) + " valid " + std::to_string(valid));
            std::fill(inout.begin(), inout.end(), 7);
            const int rc = opf_reduce_local(in.data(), inout.data(), 1, t, OPF_SUM);
            if (rc == OPF_ERR_TYPE) continue;   // freed before the call resolved it
            bool ok = rc == OPF_SUCCESS;
            for (int i = 0; i < 2 * n && ok; ++i) ok = inout[i] == (i % 2 ? 7 : 8);
            CHECK(ok, "racing reduction: rc " + std::to_string(rc));
        }
    });
    for (int r = 0; r < rounds; ++r) {
        opf_datatype_t t;
        CHECK(opf_type_vector(n, 1, 2, OPF_INT, &t) == OPF_SUCCESS, "vector");
        CHECK(opf_type_commit(&t) == OPF_SUCCESS, "commit");
        current.store(t);
        std::this_thread::yield();
        CHECK(opf_type_free(&t) == OPF_SUCCESS, "free");
    }
    done.store(true);
    reducer.join();
}

// ---- 3. the int callback limit changed during reductions ---------------------

void add_ints(void *invec, void *inoutvec, int *len, opf_datatype_t *)
{
    const auto *in = static_cast<const int *>(invec);
    auto *io = static_cast<int *>(inoutvec);
    for (int i = 0; i < *len; ++i) io[i] += in[i];
}

void test_limit_race()
{
    opf_op_t op;
    CHECK(opf_op_create(add_ints, 1, &op) == OPF_SUCCESS, "create");
    std::atomic<bool> done{false};
    std::thread setter([&] {
        const char *values[] = {"3", "17", "1000"};
        for (int i = 0; !done.load(); ++i) opf_param_set("op_base_user_int_limit", values[i % 3]);
    });
    constexpr int n = 100;
    std::vector<int> in(n), inout(n);
    for (int round = 0; round < 2000; ++round) {
        for (int i = 0; i < n; ++i) in[i] = i, inout[i] = round;
        CHECK(opf_reduce_local(in.data(), inout.data(), n, OPF_INT, op) == OPF_SUCCESS, "reduce");
        bool ok = true;
        for (int i = 0; i < n; ++i) ok &= inout[i] == i + round;
        if (!ok) CHECK(ok, "round " + std::to_string(round));
    }
    done.store(true);
    setter.join();
    CHECK(opf_param_set("op_base_user_int_limit", nullptr) == OPF_SUCCESS, "limit reset");
    CHECK(opf_op_free(&op) == OPF_SUCCESS, "free");
}

} // namespace

int main()
{
    setenv("OPF_MCA_PARAM_FILE_USER", "", 1);
    setenv("OPF_MCA_PARAM_FILE_SYSTEM", "", 1);
    CHECK(opf_init() == OPF_SUCCESS, "init");
    test_freed_by_other_thread();
    test_free_races();
    test_limit_race();
    CHECK(opf_finalize() == OPF_SUCCESS, "finalize");
    std::printf("hardening_threads: %ld checks, %ld failed\n", g_checks.load(), g_failed.load());
    return g_failed.load() ? 1 : 0;
}
