/*
 * ompi_bridge_bench.c — MPI_Allreduce sweep, opframe's kernels against the
 * ones Open MPI selected without the bridge (op/avx or its base), in one run.
 *
 * The bridge's MPI_T control variable op_opframe_enable switches every rank
 * between the two before each timing block (with a barrier), so both columns
 * share the processes, buffers, placement and warm caches. Blocks alternate
 * (opframe, stock, opframe, stock, ...) and each column reports the median
 * block. The counter op_opframe_calls confirms, per block, who reduced.
 *
 *   mpirun -np 2 ompi_bridge_bench [--min 8] [--max 64M] [--rounds 9] [--ms 10]
 *
 * Without the bridge loaded (op_opframe_enable absent) it times Open MPI
 * alone ("stock" columns only). Allreduce latency: median time per call,
 * the slowest rank's; bandwidth: buffer bytes / latency. Reduce_local: the
 * same kernels without communication, bytes of inout per second. "ratio" is
 * stock time / opframe time (above 1: opframe faster).
 */
#include <mpi.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { double v; int k; } double_int_t;

static int rank, nprocs;
static MPI_T_cvar_handle enable_h, calls_h;
static bool have_enable, have_calls;

static bool cvar(const char *name, MPI_T_cvar_handle *h)
{
    int index, num;
    return MPI_T_cvar_get_index(name, &index) == MPI_SUCCESS &&
           MPI_T_cvar_handle_alloc(index, NULL, h, &num) == MPI_SUCCESS;
}

static unsigned long long calls(void)
{
    unsigned long long v = 0;
    if (have_calls) MPI_T_cvar_read(calls_h, &v);
    return v;
}

static void set_mode(int opframe)
{
    if (have_enable) MPI_T_cvar_write(enable_h, &opframe);
    MPI_Barrier(MPI_COMM_WORLD);
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

struct kase {
    const char *name;
    MPI_Datatype dt;
    MPI_Op op;
    size_t ext;
};

static void fill(const struct kase *k, void *buf, size_t n, int salt)
{
    for (size_t i = 0; i < n; ++i) {
        const int v = (int)((i * 2654435761u + (unsigned)salt * 40503u) % 1000) - 500;
        if (k->dt == MPI_FLOAT) ((float *)buf)[i] = (float)v;
        else if (k->dt == MPI_DOUBLE) ((double *)buf)[i] = v;
        else {
            double_int_t *p = (double_int_t *)buf + i;
            memset(p, 0, sizeof(*p));
            p->v = v % 7;
            p->k = salt;
        }
    }
}

/* Seconds per call over `iters` calls, the slowest rank's: MPI_Allreduce,
 * or (local) MPI_Reduce_local on each rank alone, the kernel by itself. */
static double block(const struct kase *k, const void *in, void *out, int n, int iters, bool local)
{
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    if (local)
        for (int i = 0; i < iters; ++i) MPI_Reduce_local(in, out, n, k->dt, k->op);
    else
        for (int i = 0; i < iters; ++i) MPI_Allreduce(in, out, n, k->dt, k->op, MPI_COMM_WORLD);
    double t = (MPI_Wtime() - t0) / iters, tmax;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return tmax;
}

static int iterations(const struct kase *k, const void *in, void *out, int n, double block_ms, bool local)
{
    const double t = block(k, in, out, n, 2, local);
    int iters = (int)(block_ms * 1e-3 / (t > 1e-9 ? t : 1e-9));
    if (iters < 1) iters = 1;
    if (iters > 200000) iters = 200000;
    MPI_Bcast(&iters, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return iters;
}

static size_t parse_size(const char *s)
{
    char *end;
    size_t v = strtoull(s, &end, 0);
    if (*end == 'K' || *end == 'k') v <<= 10;
    else if (*end == 'M' || *end == 'm') v <<= 20;
    else if (*end == 'G' || *end == 'g') v <<= 30;
    return v;
}

int main(int argc, char **argv)
{
    size_t min_bytes = 8, max_bytes = (size_t)64 << 20;
    int rounds = 9;
    double block_ms = 10;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--min")) min_bytes = parse_size(argv[i + 1]);
        else if (!strcmp(argv[i], "--max")) max_bytes = parse_size(argv[i + 1]);
        else if (!strcmp(argv[i], "--rounds")) rounds = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--ms")) block_ms = atof(argv[i + 1]);
    }
    if (rounds < 1) rounds = 1;
    int provided;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    have_enable = cvar("op_opframe_enable", &enable_h);
    have_calls = cvar("op_opframe_calls", &calls_h);

    const struct kase cases[] = {
        {"float SUM", MPI_FLOAT, MPI_SUM, sizeof(float)},
        {"double MAX", MPI_DOUBLE, MPI_MAX, sizeof(double)},
        {"double_int MAXLOC", MPI_DOUBLE_INT, MPI_MAXLOC, sizeof(double_int_t)},
    };
    const int modes = have_enable ? 2 : 1;
    char *in = malloc(max_bytes + 64), *out = malloc(max_bytes + 64), *ref = malloc(max_bytes + 64);
    double *times[2][2]; /* [local][opframe][round] */
    for (int l = 0; l < 2; ++l)
        for (int m = 0; m < 2; ++m) times[l][m] = malloc(sizeof(double) * (size_t)rounds);

    if (rank == 0) {
        char host[MPI_MAX_PROCESSOR_NAME];
        int len;
        MPI_Get_processor_name(host, &len);
        printf("# %d ranks on %s; per column the median of %d blocks of ~%g ms, opframe and stock blocks alternating\n",
               nprocs, host, rounds, block_ms);
        printf("# opframe: the bridge's kernels; stock: what Open MPI selected without it (op_opframe_enable=0)%s\n",
               have_enable ? "" : "\n# (bridge not loaded: stock only)");
        printf("# Allreduce: latency (us) and bandwidth (buffer bytes / latency); Reduce_local: the kernel alone (GB/s of inout)\n");
        printf("# %-17s %9s | %10s %10s | %8s %8s | %6s | %8s %8s | %6s | %s\n", "case", "bytes", "opf us", "stock us",
               "opf GB/s", "stk GB/s", "ratio", "opf GB/s", "stk GB/s", "ratio", "check");
    }
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); ++c) {
        const struct kase *k = &cases[c];
        for (size_t bytes = min_bytes; bytes <= max_bytes; bytes *= 2) {
            const int n = (int)(bytes / k->ext);
            if (n < 1) continue;
            const size_t used = (size_t)n * k->ext;
            fill(k, in, (size_t)n, rank + 1);
            bool calls_ok = true, same = true;
            for (int l = 0; l < 2; ++l) {
                set_mode(have_enable ? 1 : 0);
                const int iters = iterations(k, in, out, n, block_ms, l);
                for (int r = 0; r < rounds; ++r)
                    for (int m = 0; m < modes; ++m) {
                        /* stock or opframe first, by turns */
                        const int opframe = have_enable ? (r % 2 == 0 ? !m : m) : 0;
                        set_mode(opframe);
                        if (l == 1) fill(k, out, (size_t)n, 7);
                        const unsigned long long c0 = calls();
                        times[l][opframe][r] = block(k, in, out, n, iters, l);
                        unsigned long long d = calls() - c0, dsum = 0;
                        MPI_Allreduce(&d, &dsum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
                        if (have_calls && (opframe ? dsum == 0 : dsum != 0)) calls_ok = false;
                        if (r == 0 && l == 0) {   /* both kernels give the same allreduce result */
                            if (m == 0) memcpy(ref, out, used);
                            else if (k->dt == MPI_DOUBLE_INT) {
                                for (int i = 0; i < n && same; ++i)
                                    same = ((double_int_t *)ref)[i].v == ((double_int_t *)out)[i].v &&
                                           ((double_int_t *)ref)[i].k == ((double_int_t *)out)[i].k;
                            } else same = memcmp(ref, out, used) == 0;
                        }
                    }
            }
            int ok = calls_ok && same, all_ok;
            MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
            if (rank == 0) {
                double med[2][2] = {{0, 0}, {0, 0}};
                for (int l = 0; l < 2; ++l)
                    for (int m = 0; m < modes; ++m) {
                        const int col = have_enable ? m : 0;
                        qsort(times[l][col], (size_t)rounds, sizeof(double), cmp_double);
                        med[l][col] = times[l][col][rounds / 2];
                    }
                char a[5][16];
                for (int i = 0; i < 5; ++i) snprintf(a[i], sizeof(a[i]), "-");
                if (have_enable) {
                    snprintf(a[0], sizeof(a[0]), "%.2f", med[0][1] * 1e6);
                    snprintf(a[1], sizeof(a[1]), "%.2f", used / med[0][1] * 1e-9);
                    snprintf(a[2], sizeof(a[2]), "%.2f", med[0][0] / med[0][1]);
                    snprintf(a[3], sizeof(a[3]), "%.2f", used / med[1][1] * 1e-9);
                    snprintf(a[4], sizeof(a[4]), "%.2f", med[1][0] / med[1][1]);
                }
                printf("  %-17s %9zu | %10s %10.2f | %8s %8.2f | %6s | %8s %8.2f | %6s | %s\n", k->name, used, a[0],
                       med[0][0] * 1e6, a[1], used / med[0][0] * 1e-9, a[2], a[3], used / med[1][0] * 1e-9, a[4],
                       all_ok ? "ok" : "MISMATCH");
                fflush(stdout);
            }
        }
    }
    if (have_enable) {
        int on = 1;
        MPI_T_cvar_write(enable_h, &on);
        MPI_T_cvar_handle_free(&enable_h);
    }
    if (have_calls) MPI_T_cvar_handle_free(&calls_h);
    MPI_T_finalize();
    free(in);
    free(out);
    free(ref);
    for (int l = 0; l < 2; ++l)
        for (int m = 0; m < 2; ++m) free(times[l][m]);
    MPI_Finalize();
    return 0;
}
