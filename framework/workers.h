// workers.h — the opt-in worker pool for large contiguous reductions
// (op_base_threads; off by default).
//
// A contiguous call of a predefined op on a predefined or dense type is
// split into element-aligned chunks, one per thread; the calling thread runs
// the first and the pool's threads the others, all with the kernel the call
// already chose (its results do not depend on where a chunk starts: every
// kernel is element-wise). Host kernels cannot fail, so neither can this.
#pragma once

#include <array>

#include <opframe/kernel.h>

namespace opf {

// Per kernel type, the element count from which a call runs on the pool:
// two threads' worth of op_base_threads_min_bytes, or INT64_MAX while the
// pool is off (the only thing the call path reads: one compare).
extern std::array<opf_count_t, OPF_KT_COUNT> workers_min_count;

// Runs fn over n elements of kernel type kt on the pool; alone when another
// thread's call holds the pool.
[[gnu::cold, gnu::noinline]] void run_on_workers(opf_kernel2_fn *fn, const void *in, void *inout, opf_count_t n,
                                                 int kt);
[[gnu::cold, gnu::noinline]] void run_on_workers(opf_kernel3_fn *fn, const void *in1, const void *in2, void *out,
                                                 opf_count_t n, int kt);
// The n-ary form (opf_reduce_local_n): every chunk takes its range of each
// of the k sources and of out (out may be one of them: chunks are disjoint).
[[gnu::cold, gnu::noinline]] void run_on_workers(opf_kernel_n_fn *fn, const void *const srcs[], int k, void *out,
                                                 opf_count_t n, int kt, const void *scalar);

// At opf_init, after the parameters and the components: starts the pool if
// op_base_threads asks for one (and, inside an MPI process, only if
// op_base_threads_in_mpi allows it). Failures to start threads are warned
// about and leave fewer threads or none; never an error.
void start_workers();
// At opf_finalize, before the components go: joins the pool.
void stop_workers();

// Whether the environment says that this is a process of an MPI job.
bool in_mpi_job();

} // namespace opf
