/*
 * Stand-in for the header of Open MPI's pthreads threads component, which
 * opal_config.h names (MCA_threads_base_include_HEADER) from Open MPI 5.0 on
 * but Debian's libopenmpi-dev of the 6.0 series does not ship. The shipped
 * opal/mca/threads/threads.h declares everything else the bridge's headers
 * use; this brings in pthreads and defines the one inline function that
 * header declares and leaves to the component (opal_thread_yield).
 * Searched after Open MPI's own include directories (-idirafter), so a real
 * header, where one is installed, wins.
 */
#ifndef OPF_STUB_THREADS_PTHREADS_THREADS_H
#define OPF_STUB_THREADS_PTHREADS_THREADS_H

#include <pthread.h>
#include <sched.h>
#include <signal.h>

static inline void opal_thread_yield(void) { sched_yield(); }

#endif
