/* check.h — minimal assertions for the C tests: every failed CHECK prints
 * where and why, and the test's exit status is the number of failures. */
#ifndef OPF_TEST_CHECK_H
#define OPF_TEST_CHECK_H
#include <stdio.h>
#include <opframe/opframe.h>

static int check_failures_;
static int check_count_;

#define CHECK(cond, ...) do { \
    ++check_count_; \
    if (!(cond)) { \
        ++check_failures_; \
        fprintf(stderr, "%s:%d: FAILED %s: ", __FILE__, __LINE__, #cond); \
        fprintf(stderr, __VA_ARGS__); \
        fprintf(stderr, "\n"); \
    } \
} while (0)

/* Asserts the return code of an opframe call, showing the last error. */
#define CHECK_RC(call, expected) do { \
    int rc_ = (call); \
    CHECK(rc_ == (expected), "%s returned %d, expected %d (last error: %s)", \
          #call, rc_, (int)(expected), opf_last_error()); \
} while (0)

static int check_summary(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, check_count_, check_failures_);
    return check_failures_ ? 1 : 0;
}
#endif
