// workers.cpp — the worker pool of workers.h.
//
// One call at a time uses the pool: a call that finds it busy (another
// application thread's call is on it) runs alone on its own thread rather
// than queue. Its thread is a core already working, and the pool's cores are
// busy with the other call: a queue would only make it wait for them, while
// running alone it finishes in the time one core takes, as without a pool.
//
// Inside an MPI process the pool stays off unless op_base_threads_in_mpi
// says otherwise: the launcher has placed one rank per core (or per slot),
// so the cores that a pool would use belong to other ranks and to MPI's
// progress threads; a rank that spreads its reductions over them slows the
// others down by as much as it gains, and makes their timing erratic.
#include "framework/workers.h"
#include "framework/messages.h"
#include "framework/error.h"   // OPF_API
#include <opframe/component.h>   // opf_in_mpi_job

#include <algorithm>
#include <array>
#include <cstdint>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include <pthread.h>
#include <unistd.h>

#include "config.h"
#include "base/kernels.h"
#include "framework/params.h"

#ifdef OPF_HAVE_HWLOC
#include <hwloc.h>
#endif

namespace opf {

namespace {
constexpr std::array<opf_count_t, OPF_KT_COUNT> never()
{
    std::array<opf_count_t, OPF_KT_COUNT> a{};
    a.fill(INT64_MAX);
    return a;
}
} // namespace

constinit std::array<opf_count_t, OPF_KT_COUNT> workers_min_count = never();

namespace {

// Chunks start at multiples of this many elements, so that each starts at
// the same offset in a cache line (and a 64-byte aligned buffer gives every
// thread an aligned chunk: streaming kernels stream all of it).
constexpr opf_count_t kChunkGrain = 64;

// One call's work: chunk k of `chunks` is elements [k * chunk, min(n, (k+1) * chunk)).
struct Job {
    opf_kernel2_fn *fn2 = nullptr;
    opf_kernel3_fn *fn3 = nullptr;
    opf_kernel_n_fn *fn_n = nullptr;   // n-ary: srcs[0 .. k-1], scalar
    const unsigned char *a = nullptr, *b = nullptr;
    const unsigned char *const *srcs = nullptr;
    int k = 0;
    const void *scalar = nullptr;
    unsigned char *out = nullptr;
    opf_count_t n = 0, chunk = 0;
    std::size_t extent = 0;

    void run(int w) const
    {
        const opf_count_t first = opf_count_t(w) * chunk;
        if (first >= n) return;
        run_range(first, std::min(chunk, n - first));
    }
    void run_alone() const { run_range(0, n); }
    void run_range(opf_count_t first, opf_count_t m) const
    {
        const std::size_t at = std::size_t(first) * extent;
        if (fn_n) {
            const void *from[OPF_REDUCE_N_MAX];
            for (int j = 0; j < k; ++j) from[j] = srcs[j] + at;
            fn_n(from, k, out + at, m, scalar);
        } else if (fn3) {
            fn3(a + at, b + at, out + at, m);
        } else {
            fn2(a + at, out + at, m);
        }
    }
};

#ifdef OPF_HAVE_HWLOC
struct Topology {
    hwloc_topology_t topo = nullptr;
    std::vector<hwloc_cpuset_t> cores;   // the cores of the initialising thread's binding, from its own core on

    bool load()
    {
        if (hwloc_topology_init(&topo) != 0) return false;
        if (hwloc_topology_load(topo) != 0) {
            hwloc_topology_destroy(topo);
            topo = nullptr;
            return false;
        }
        hwloc_bitmap_t bound = hwloc_bitmap_alloc(), here = hwloc_bitmap_alloc();
        if (hwloc_get_cpubind(topo, bound, HWLOC_CPUBIND_THREAD) != 0)
            hwloc_bitmap_copy(bound, hwloc_topology_get_allowed_cpuset(topo));
        const bool located = hwloc_get_last_cpu_location(topo, here, HWLOC_CPUBIND_THREAD) == 0;
        std::vector<hwloc_cpuset_t> all;
        std::size_t mine = 0;
        for (hwloc_obj_t core = nullptr;
             (core = hwloc_get_next_obj_inside_cpuset_by_type(topo, bound, HWLOC_OBJ_CORE, core));) {
            if (located && hwloc_bitmap_intersects(core->cpuset, here)) mine = all.size();
            all.push_back(core->cpuset);
        }
        for (std::size_t i = 0; i < all.size(); ++i) cores.push_back(all[(mine + i) % all.size()]);
        hwloc_bitmap_free(bound);
        hwloc_bitmap_free(here);
        return true;
    }
    ~Topology()
    {
        if (topo) hwloc_topology_destroy(topo);
    }
    // Binds the calling thread to core i (round robin), if there are cores.
    void bind(std::size_t i) const
    {
        if (!cores.empty()) hwloc_set_cpubind(topo, cores[i % cores.size()], HWLOC_CPUBIND_THREAD);
    }
};
#else
struct Topology {
    std::vector<int> cores;
    bool load() { return false; }
    void bind(std::size_t) const {}
};
#endif

class Pool {
public:
    // Starts op_base_threads - 1 helper threads (0: one per core of the
    // initialising thread's binding); helper w runs chunk w and sits on core
    // w of that binding (core 0 being the initialising thread's own).
    explicit Pool(int64_t threads)
    {
        topology_.load();
        if (threads == 0) threads = topology_.cores.empty() ? std::thread::hardware_concurrency() : topology_.cores.size();
        const int helpers = int(std::clamp<int64_t>(threads, 1, 1024) - 1);
        try {
            for (int w = 1; w <= helpers; ++w) {
                threads_.emplace_back([this, w] { serve(w); });
                // named here, not by the thread: it has its name when opf_init returns (top -H, gdb, test/workers)
                pthread_setname_np(threads_.back().native_handle(), "opf_worker");
            }
        } catch (...) {   // no more threads: the pool is what could be started
            say_line(Say::Warning, "op_base_threads: could start only " + std::to_string(threads_.size()) + " of " +
                                       std::to_string(helpers) + " helper threads");
        }
    }
    ~Pool()
    {
        std::lock_guard call_done(in_use_);   // a call still on the pool (finalize racing a call: a user error) ends first
        {
            std::lock_guard lock(m_);
            stopping_ = true;
        }
        wake_.notify_all();
        for (std::thread &t : threads_) t.join();
    }
    Pool(const Pool &) = delete;
    Pool &operator=(const Pool &) = delete;

    int threads() const { return int(threads_.size()) + 1; }

    void run(Job job, opf_count_t min_per_thread)
    {
        const opf_count_t chunks = std::clamp<opf_count_t>(job.n / min_per_thread, 1, threads());
        const opf_count_t per_chunk = (job.n + chunks - 1) / chunks;
        job.chunk = (per_chunk + kChunkGrain - 1) / kChunkGrain * kChunkGrain;
        // Alone: with one chunk, when another call holds the pool, and in a
        // child forked after opf_init (it has none of the pool's threads).
        std::unique_lock mine(in_use_, std::defer_lock);
        if (job.n <= job.chunk || getpid() != owner_ || !mine.try_lock()) {
            job.run_alone();
            return;
        }
        {
            std::lock_guard lock(m_);
            job_ = job;
            ++generation_;
            pending_ = int(threads_.size());
        }
        wake_.notify_all();
        job.run(0);
        std::unique_lock lock(m_);
        done_.wait(lock, [this] { return pending_ == 0; });
    }

private:
    void serve(int w)
    {
        topology_.bind(std::size_t(w));
        std::uint64_t seen = 0;
        for (;;) {
            Job job;
            {
                std::unique_lock lock(m_);
                wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
                if (stopping_) return;
                seen = generation_;
                job = job_;
            }
            job.run(w);   // a kernel cannot fail (or throw: it is C)
            std::lock_guard lock(m_);
            if (--pending_ == 0) done_.notify_one();
        }
    }

    const pid_t owner_ = getpid();
    Topology topology_;
    std::mutex in_use_;   // held by the call on the pool
    std::mutex m_;        // guards the fields below
    std::condition_variable wake_, done_;
    Job job_;
    std::uint64_t generation_ = 0;
    int pending_ = 0;
    bool stopping_ = false;
    std::vector<std::thread> threads_;   // written only by the constructor
};

Pool *pool = nullptr;            // between start_workers and stop_workers
opf_count_t min_per_thread[OPF_KT_COUNT];

template <class Fn> Job make_job(Fn *fn, const void *a, const void *b, void *out, opf_count_t n, int kt)
{
    Job job;
    if constexpr (std::is_same_v<Fn, opf_kernel3_fn>) job.fn3 = fn;
    else if constexpr (std::is_same_v<Fn, opf_kernel_n_fn>) job.fn_n = fn;
    else job.fn2 = fn;
    job.a = static_cast<const unsigned char *>(a);
    job.b = static_cast<const unsigned char *>(b);
    job.out = static_cast<unsigned char *>(out);
    job.n = n;
    job.extent = std::size_t(base::kernel_type_extent(kt));
    return job;
}

} // namespace

bool in_mpi_job()
{
    // Open MPI's launcher, PMIx (Open MPI 5, Slurm, PRRTE), PMI-1/2 (MPICH's Hydra, Intel MPI)
    for (const char *name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
        if (std::getenv(name)) return true;
    return false;
}

OPF_API int opf_in_mpi_job(void) { return in_mpi_job(); }

void run_on_workers(opf_kernel2_fn *fn, const void *in, void *inout, opf_count_t n, int kt)
{
    pool->run(make_job(fn, in, nullptr, inout, n, kt), min_per_thread[kt]);
}

void run_on_workers(opf_kernel3_fn *fn, const void *in1, const void *in2, void *out, opf_count_t n, int kt)
{
    pool->run(make_job(fn, in1, in2, out, n, kt), min_per_thread[kt]);
}

void run_on_workers(opf_kernel_n_fn *fn, const void *const srcs[], int k, void *out, opf_count_t n, int kt,
                    const void *scalar)
{
    Job job = make_job(fn, nullptr, nullptr, out, n, kt);
    job.srcs = reinterpret_cast<const unsigned char *const *>(srcs);
    job.k = k;
    job.scalar = scalar;
    pool->run(job, min_per_thread[kt]);
}

void start_workers()
{
    stop_workers();
    if (params.threads == 1) return;
    const bool mpi = in_mpi_job();
    if (mpi && !params.threads_in_mpi) {
        if (params.verbose >= 1)
            say_line(Say::Verbose, "op_base_threads=" + std::to_string(params.threads) +
                                       " ignored inside an MPI job (set op_base_threads_in_mpi to use threads here)");
        return;
    }
    pool = new Pool(params.threads);
    if (pool->threads() <= 1) {
        stop_workers();
        return;
    }
    for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
        const int64_t extent = base::kernel_type_extent(kt);
        min_per_thread[kt] = std::max<int64_t>(1, params.threads_min_bytes / extent);
        workers_min_count[kt] = 2 * min_per_thread[kt];
    }
    if (params.verbose >= 2)
        say_line(Say::Verbose, "worker pool: " + std::to_string(pool->threads()) + " threads (the caller's and " +
                                   std::to_string(pool->threads() - 1) + " more), from " +
                                   std::to_string(params.threads_min_bytes) + " bytes per thread");
}

void stop_workers()
{
    workers_min_count = never();
    delete pool;
    pool = nullptr;
}

} // namespace opf
