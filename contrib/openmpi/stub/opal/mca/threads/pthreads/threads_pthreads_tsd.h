/*
 * Stand-in for the pthreads threads component's thread-specific data
 * header, which opal_config.h names (MCA_threads_tsd_base_include_HEADER)
 * but Debian's libopenmpi-dev of the 6.0 series does not ship: the key is a
 * pthread key, the three calls the shipped opal/mca/threads/tsd.h expects
 * from it are inline. Searched after Open MPI's own include directories
 * (-idirafter): a real header wins.
 */
#ifndef OPF_STUB_THREADS_PTHREADS_TSD_H
#define OPF_STUB_THREADS_PTHREADS_TSD_H

#include <pthread.h>
#include "opal/constants.h"

typedef pthread_key_t opal_tsd_key_t;

static inline int opal_tsd_key_delete(opal_tsd_key_t key) { return pthread_key_delete(key) == 0 ? OPAL_SUCCESS : OPAL_ERROR; }
static inline int opal_tsd_setspecific(opal_tsd_key_t key, void *value) { return pthread_setspecific(key, value) == 0 ? OPAL_SUCCESS : OPAL_ERROR; }
static inline int opal_tsd_getspecific(opal_tsd_key_t key, void **valuep) { *valuep = pthread_getspecific(key); return OPAL_SUCCESS; }

#endif
