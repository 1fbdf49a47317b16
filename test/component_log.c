/*
 * component_log.c — drives a component's kernels from the main thread and
 * from a second thread, 2- and 3-buffer, for test/component_reports.sh (which
 * points mca_component_path at test component chatty and reads stderr: every
 * line chatty logs must keep its "chatty: " prefix).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include <opframe/opframe.h>

static int reduce_both(void)
{
    int32_t a[40], b[40], c[40];
    for (int i = 0; i < 40; ++i) a[i] = b[i] = i;
    if (opf_reduce_local(a, b, 40, OPF_INT32_T, OPF_SUM) != OPF_SUCCESS) return 1;
    if (opf_reduce_local3(a, b, c, 40, OPF_INT32_T, OPF_SUM) != OPF_SUCCESS) return 1;
    return b[39] == 78 && c[39] == 117 ? 0 : 1;
}

static void *thread_main(void *arg)
{
    *(int *)arg = reduce_both();
    return NULL;
}

int main(void)
{
    if (opf_init() != OPF_SUCCESS) {
        fprintf(stderr, "component_log: opf_init failed: %s\n", opf_last_error());
        return 1;
    }
    int rc_thread = 1;
    pthread_t t;
    if (pthread_create(&t, NULL, thread_main, &rc_thread) != 0 || pthread_join(t, NULL) != 0) return 1;
    const int rc_main = reduce_both();
    opf_finalize();
    printf("component_log: main thread %s, second thread %s\n", rc_main ? "FAILED" : "ok", rc_thread ? "FAILED" : "ok");
    return rc_main || rc_thread;
}
