/*
 * cuda_fake_driver.c — a stand-in libcuda.so.1 for test/cuda_component.sh:
 * enough of the driver API for the CUDA runtime to start and fail the way a
 * real machine does, so that the cuda component's disqualification reasons
 * can be checked without a GPU:
 *   FAKE_CUDA_VERSION=12040  the driver reports CUDA 12.4 (default 13000)
 *   FAKE_CUDA_INIT=100       cuInit's result (100: CUDA_ERROR_NO_DEVICE, the default)
 * Every other entry point is reported missing.
 */
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
    return 0;
}

FAKE_API int cuInit(unsigned int flags)
{
    (void)flags;
    return env_int("FAKE_CUDA_INIT", 100);
}

FAKE_API int cuGetProcAddress_v2(const char *symbol, void **fn, int version, unsigned long long flags, int *status)
{
    (void)version, (void)flags;
    *fn = NULL;
    if (strcmp(symbol, "cuDriverGetVersion") == 0) *fn = (void *)cuDriverGetVersion;
    else if (strcmp(symbol, "cuInit") == 0) *fn = (void *)cuInit;
    else if (strcmp(symbol, "cuGetProcAddress") == 0) *fn = (void *)cuGetProcAddress_v2;
    if (status) *status = *fn ? 0 : 1;   /* CU_GET_PROC_ADDRESS_SUCCESS / _SYMBOL_NOT_FOUND */
    return *fn ? 0 : 500;                /* CUDA_ERROR_NOT_FOUND */
}

FAKE_API int cuGetProcAddress(const char *symbol, void **fn, int version, unsigned long long flags)
{
    return cuGetProcAddress_v2(symbol, fn, version, flags, NULL);
}
