/*
 * cuda_fake_driver.c — a stand-in libcuda.so.1 for test/cuda_component.sh:
 * enough of the driver API for the CUDA runtime to start and fail the way a
 * real machine does, so that the cuda component's disqualification reasons
 * can be checked without a GPU:
 *   FAKE_CUDA_VERSION=12040  the driver reports CUDA 12.4 (default 13000)
 *   FAKE_CUDA_INIT=100       cuInit's result (100: CUDA_ERROR_NO_DEVICE, the default)
 *   FAKE_CUDA_LOG=FILE       each cuInit call appends a line "cuInit" to FILE
 *   FAKE_CUDA_VERSION_RC=N   cuDriverGetVersion's result (default 0: success)
 * Built a second time with FAKE_WITHOUT_GET_PROC_V2 (libcudafake_nov2): a
 * driver that lacks cuGetProcAddress_v2.
 * The entry points the component takes before initialising (pointer query,
 * contexts) answer CUDA_ERROR_NOT_INITIALIZED, as a driver nobody initialised
 * does; every other entry point is reported missing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_API __attribute__((visibility("default")))

static int env_int(const char *name, int fallback)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : fallback;
}

FAKE_API int cuDriverGetVersion(int *version)
{
    if (!version) return 1;
    *version = env_int("FAKE_CUDA_VERSION", 13000);
    return env_int("FAKE_CUDA_VERSION_RC", 0);
}

FAKE_API int cuInit(unsigned int flags)
{
    (void)flags;
    const char *log = getenv("FAKE_CUDA_LOG");
    FILE *f = log && *log ? fopen(log, "a") : NULL;
    if (f) {
        fputs("cuInit\n", f);
        fclose(f);
    }
    return env_int("FAKE_CUDA_INIT", 100);
}

/* Never initialised (cuInit fails): CUDA_ERROR_NOT_INITIALIZED (3). */
static int pointer_attributes(unsigned n, void *attrs, void **data, unsigned long long ptr)
{
    (void)n, (void)attrs, (void)data, (void)ptr;
    return 3;
}
static int ctx_get_current(void **ctx) { return (void)ctx, 3; }
static int ctx_set_current(void *ctx) { return (void)ctx, 3; }
static int primary_state(int dev, unsigned *flags, int *active) { return (void)dev, (void)flags, (void)active, 3; }
static int primary_retain(void **ctx, int dev) { return (void)ctx, (void)dev, 3; }
static int primary_release(int dev) { return (void)dev, 3; }

#ifdef FAKE_WITHOUT_GET_PROC_V2
static
#else
FAKE_API
#endif
int cuGetProcAddress_v2(const char *symbol, void **fn, int version, unsigned long long flags, int *status)
{
    (void)version, (void)flags;
    *fn = NULL;
    if (strcmp(symbol, "cuDriverGetVersion") == 0) *fn = (void *)cuDriverGetVersion;
    else if (strcmp(symbol, "cuInit") == 0) *fn = (void *)cuInit;
    else if (strcmp(symbol, "cuGetProcAddress") == 0) *fn = (void *)cuGetProcAddress_v2;
    else if (strcmp(symbol, "cuPointerGetAttributes") == 0) *fn = (void *)pointer_attributes;
    else if (strcmp(symbol, "cuCtxGetCurrent") == 0) *fn = (void *)ctx_get_current;
    else if (strcmp(symbol, "cuCtxSetCurrent") == 0) *fn = (void *)ctx_set_current;
    else if (strcmp(symbol, "cuDevicePrimaryCtxGetState") == 0) *fn = (void *)primary_state;
    else if (strcmp(symbol, "cuDevicePrimaryCtxRetain") == 0) *fn = (void *)primary_retain;
    else if (strcmp(symbol, "cuDevicePrimaryCtxRelease") == 0) *fn = (void *)primary_release;
    if (status) *status = *fn ? 0 : 1;   /* CU_GET_PROC_ADDRESS_SUCCESS / _SYMBOL_NOT_FOUND */
    return *fn ? 0 : 500;                /* CUDA_ERROR_NOT_FOUND */
}

FAKE_API int cuGetProcAddress(const char *symbol, void **fn, int version, unsigned long long flags)
{
    return cuGetProcAddress_v2(symbol, fn, version, flags, NULL);
}
