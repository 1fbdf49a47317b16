#!/bin/sh
# test/cuda_conformance (every slot against the base, all forms, layouts and
# paths) linked with the stand-in CUDA runtime instead of a GPU, the
# component being its CPU build in test/cudastub/.libs (issue 13). --quick:
# the lengths and layouts that cover the vector, scalar and byte plans; the
# count above 2^31 is left to a GPU.
set -u
top=${top_builddir:-.}
OPF_MCA_mca_component_path=$top/test/cudastub/.libs
OPF_MCA_PARAM_FILE_USER=
OPF_MCA_PARAM_FILE_SYSTEM=
export OPF_MCA_mca_component_path OPF_MCA_PARAM_FILE_USER OPF_MCA_PARAM_FILE_SYSTEM
exec "$top/test/cuda_conformance_cpu" --quick "$@"
