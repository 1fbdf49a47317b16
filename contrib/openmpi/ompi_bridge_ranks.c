/*
 * ompi_bridge_ranks.c — do the ranks of a job compute the same bits? A plain
 * MPI program (no opframe call) whose three MPI_Allreduce calls give
 * different answers under opframe's rules and under Open MPI's op/avx:
 *
 *   MPI_INT8_T SUM, 100 on every rank, count 64: opframe wraps (two
 *     ranks: -56), op/avx's vector path saturates (127);
 *   MPI_FLOAT MAX, a NaN on rank 0 and 4 elsewhere, count 64: opframe keeps
 *     the NaN, op/avx's MAX drops it where the NaN is its first operand;
 *   MPI_FLOAT MIN, -0 on rank 0 and +0 elsewhere, count 64: opframe gives -0
 *     on every rank, stock Open MPI the operand its order picks.
 *
 * Every rank sends its result bytes to rank 0, which compares them. Prints
 * "ompi_bridge_ranks: every rank computed the same bits (...)" and exits 0,
 * or names the ranks that differ from rank 0 and exits 1. Also prints, per
 * rank, whether opframe's kernels ran (the MPI_T counter op_opframe_calls
 * moved): "opframe on ranks ..., Open MPI on ranks ...", and each rank's
 * op_opframe_slots (-1: no bridge).
 */
#include <mpi.h>

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT 64

/* An integer MPI_T control variable of the bridge (op_opframe_calls,
 * op_opframe_slots), or -1 where the bridge is not loaded. */
static long long bridge_cvar(const char *want)
{
    int n = 0;
    long long value = -1;
    MPI_T_cvar_get_num(&n);
    for (int i = 0; i < n; ++i) {
        char name[256], desc[16];
        int name_len = sizeof(name), desc_len = sizeof(desc), verbosity, bind, scope;
        MPI_Datatype type;
        MPI_T_enum enumtype;
        if (MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &enumtype, desc, &desc_len, &bind, &scope) !=
                MPI_SUCCESS || strcmp(name, want) != 0)
            continue;
        MPI_T_cvar_handle handle;
        int count = 0;
        unsigned long long v = 0;   /* wide enough for MPI_INT and MPI_UNSIGNED_LONG_LONG */
        if (MPI_T_cvar_handle_alloc(i, NULL, &handle, &count) == MPI_SUCCESS) {
            if (MPI_T_cvar_read(handle, &v) == MPI_SUCCESS)
                value = type == MPI_INT ? (long long)*(int *)&v : (long long)v;
            MPI_T_cvar_handle_free(&handle);
        }
    }
    return value;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    struct {
        int8_t sum[COUNT];
        float max[COUNT], min[COUNT];
    } in, out;
    for (int i = 0; i < COUNT; ++i) {
        in.sum[i] = 100;
        in.max[i] = rank == 0 ? nanf("") : 4.0f;
        in.min[i] = rank == 0 ? -0.0f : 0.0f;
    }
    const long long before = bridge_cvar("op_opframe_calls");
    MPI_Allreduce(in.sum, out.sum, COUNT, MPI_INT8_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(in.max, out.max, COUNT, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(in.min, out.min, COUNT, MPI_FLOAT, MPI_MIN, MPI_COMM_WORLD);
    const long long after = bridge_cvar("op_opframe_calls");
    const long long slots = bridge_cvar("op_opframe_slots");
    const int on_opframe = before >= 0 && after > before;

    int *sides = rank == 0 ? malloc(sizeof(int) * size) : NULL;
    unsigned char *all = rank == 0 ? malloc(sizeof(out) * size) : NULL;
    MPI_Gather(&on_opframe, 1, MPI_INT, sides, 1, MPI_INT, 0, MPI_COMM_WORLD);
    printf("ompi_bridge_ranks: rank %d: op_opframe_slots %lld\n", rank, slots);
    MPI_Gather(&out, (int)sizeof(out), MPI_BYTE, all, (int)sizeof(out), MPI_BYTE, 0, MPI_COMM_WORLD);
    int rc = 0;
    if (rank == 0) {
        char differ[512] = "", opf[256] = "", stock[256] = "";
        for (int r = 0; r < size; ++r) {
            char *list = sides[r] ? opf : stock;
            snprintf(list + strlen(list), 256 - strlen(list), "%s%d", list[0] ? "," : "", r);
            if (memcmp(all + r * sizeof(out), &out, sizeof(out)) == 0) continue;
            const int8_t *sum = (const int8_t *)(all + r * sizeof(out));
            const float *max = (const float *)(all + r * sizeof(out) + COUNT), *min = max + COUNT;
            snprintf(differ + strlen(differ), sizeof(differ) - strlen(differ),
                     " rank %d: int8 sum %d, float max %g, float min %s0 (rank 0: %d, %g, %s0);", r, sum[0],
                     max[0], signbit(min[0]) ? "-" : "+", out.sum[0], out.max[0], signbit(out.min[0]) ? "-" : "+");
        }
        printf("ompi_bridge_ranks: %d ranks; opframe on ranks %s, Open MPI on ranks %s\n", size,
               opf[0] ? opf : "none", stock[0] ? stock : "none");
        if (differ[0]) {
            printf("ompi_bridge_ranks: FAIL: ranks computed different bits:%s\n", differ);
            rc = 1;
        } else
            printf("ompi_bridge_ranks: every rank computed the same bits (int8 sum %d, float max %g, float min %s0)\n",
                   out.sum[0], out.max[0], signbit(out.min[0]) ? "-" : "+");
        free(sides);
        free(all);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_T_finalize();
    MPI_Finalize();
    return rc;
}
