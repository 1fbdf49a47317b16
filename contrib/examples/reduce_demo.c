/* reduce_demo — a few local reductions through opframe's C API. */
#include <stdio.h>
#include <opframe/opframe.h>

/* A user op: inout = 2*in + inout (not commutative: in is the left operand). */
static void twice_plus(void *in, void *inout, int *len, opf_datatype_t *type)
{
    (void)type;
    for (int i = 0; i < *len; ++i) ((double *)inout)[i] = 2 * ((double *)in)[i] + ((double *)inout)[i];
}

int main(void)
{
    float a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40};
    opf_reduce_local(a, b, 4, OPF_FLOAT, OPF_SUM);
    printf("SUM FLOAT:       %g %g %g %g\n", b[0], b[1], b[2], b[3]);

    struct { double value; int index; } x[2] = {{3.5, 0}, {7.0, 0}}, y[2] = {{3.5, 1}, {1.0, 1}};
    opf_reduce_local(x, y, 2, OPF_DOUBLE_INT, OPF_MAXLOC);
    printf("MAXLOC DOUBLE_INT: (%g, %d) (%g, %d)   ties go to the smaller index\n", y[0].value, y[0].index,
           y[1].value, y[1].index);

    signed char c[2] = {127, -128}, d[2] = {1, -1};
    opf_reduce_local(c, d, 2, OPF_INT8_T, OPF_SUM);
    printf("SUM INT8_T:      %d %d   (wraps, never saturates)\n", d[0], d[1]);

    double u[3] = {1, 2, 3}, v[3] = {100, 100, 100};
    opf_op_t op;
    opf_op_create(twice_plus, 0, &op);
    opf_reduce_local(u, v, 3, OPF_DOUBLE, op);
    printf("user op 2*in+inout: %g %g %g\n", v[0], v[1], v[2]);
    opf_op_free(&op);

    int rc = opf_reduce_local(a, b, 4, OPF_FLOAT, OPF_BAND);
    printf("BAND FLOAT -> error %d: %s\n", rc, opf_last_error());

    opf_finalize();
    return 0;
}
