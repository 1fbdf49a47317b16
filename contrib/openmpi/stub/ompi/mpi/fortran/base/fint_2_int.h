/*
 * Minimal stand-in for Open MPI's ompi/mpi/fortran/base/fint_2_int.h.
 *
 * ompi/op/op.h includes that header, but Debian's libopenmpi-dev (4.1.x)
 * does not ship it. op.h only needs the two scalar conversions below (in
 * ompi_op_reduce's Fortran branch, which the bridge never calls). This
 * directory is searched after Open MPI's own include directories
 * (-idirafter), so a real header, where one is installed, wins.
 */
#ifndef OMPI_FORTRAN_BASE_FINT_2_INT_H
#define OMPI_FORTRAN_BASE_FINT_2_INT_H

#define OMPI_INT_2_FINT(a) ((MPI_Fint)(a))
#define OMPI_FINT_2_INT(a) ((int)(a))

#endif
