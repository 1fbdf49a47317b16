/*
 * Stand-in for the pthreads threads component's mutex header, which
 * opal_config.h names (MCA_threads_mutex_base_include_HEADER) but Debian's
 * libopenmpi-dev of the 6.0 series does not ship. opal_mutex_t and
 * ompi_wait_sync_t embed these types, so they are the pthreads types the
 * component uses, and the structures the bridge sees keep Open MPI's
 * layout. The bridge never locks an Open MPI mutex; the functions are here
 * because the shipped headers' inline functions call them. Searched after
 * Open MPI's own include directories (-idirafter): a real header wins.
 */
#ifndef OPF_STUB_THREADS_PTHREADS_MUTEX_H
#define OPF_STUB_THREADS_PTHREADS_MUTEX_H

#include <pthread.h>
#include <stdbool.h>

typedef pthread_mutex_t opal_thread_internal_mutex_t;
typedef pthread_cond_t opal_thread_internal_cond_t;

#define OPAL_THREAD_INTERNAL_MUTEX_INITIALIZER PTHREAD_MUTEX_INITIALIZER
#if defined(PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP)
#    define OPAL_THREAD_INTERNAL_RECURSIVE_MUTEX_INITIALIZER PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP
#endif
#define OPAL_THREAD_INTERNAL_COND_INITIALIZER PTHREAD_COND_INITIALIZER

static inline int opal_thread_internal_mutex_init(opal_thread_internal_mutex_t *m, bool recursive)
{
    pthread_mutexattr_t attr;
    if (pthread_mutexattr_init(&attr) != 0) return -1;
    if (recursive) pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    const int rc = pthread_mutex_init(m, &attr);
    pthread_mutexattr_destroy(&attr);
    return rc == 0 ? 0 : -1;
}
static inline void opal_thread_internal_mutex_lock(opal_thread_internal_mutex_t *m) { pthread_mutex_lock(m); }
static inline int opal_thread_internal_mutex_trylock(opal_thread_internal_mutex_t *m) { return pthread_mutex_trylock(m) == 0 ? 0 : 1; }
static inline void opal_thread_internal_mutex_unlock(opal_thread_internal_mutex_t *m) { pthread_mutex_unlock(m); }
static inline void opal_thread_internal_mutex_destroy(opal_thread_internal_mutex_t *m) { pthread_mutex_destroy(m); }

static inline int opal_thread_internal_cond_init(opal_thread_internal_cond_t *c) { return pthread_cond_init(c, NULL) == 0 ? 0 : -1; }
static inline void opal_thread_internal_cond_wait(opal_thread_internal_cond_t *c, opal_thread_internal_mutex_t *m) { pthread_cond_wait(c, m); }
static inline void opal_thread_internal_cond_signal(opal_thread_internal_cond_t *c) { pthread_cond_signal(c); }
static inline void opal_thread_internal_cond_broadcast(opal_thread_internal_cond_t *c) { pthread_cond_broadcast(c); }
static inline void opal_thread_internal_cond_destroy(opal_thread_internal_cond_t *c) { pthread_cond_destroy(c); }

#endif
