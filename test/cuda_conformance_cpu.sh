#!/bin/sh
# The cuda component on the CPU (issue 13), its CPU build in
# test/cudastub/.libs under the stand-in CUDA runtime:
#   1. test/cuda_conformance (every slot against the base, all forms, layouts
#      and paths) linked with the stand-in instead of a GPU; --quick: the
#      lengths and layouts that cover the vector, scalar and byte plans (the
#      count above 2^31 is left to a GPU);
#   2. a mutation (a wrong thread index in every launch) is caught by
#      test/cuda_cpu (CI step 47 also runs test/cuda_conformance under it).
set -u
top=${top_builddir:-.}
OPF_MCA_mca_component_path=$top/test/cudastub/.libs
OPF_MCA_PARAM_FILE_USER=
OPF_MCA_PARAM_FILE_SYSTEM=
export OPF_MCA_mca_component_path OPF_MCA_PARAM_FILE_USER OPF_MCA_PARAM_FILE_SYSTEM
failures=0
"$top/test/cuda_conformance_cpu" --quick "$@" || { echo "FAILED: cuda_conformance on the stand-in"; failures=$((failures + 1)); }
out=$(CUDASTUB_MUTATE=thread-index "$top/test/cuda_cpu" data 2>&1)
rc=$?
echo "mutation (wrong thread index), cuda_cpu data: rc $rc, $(echo "$out" | grep -c FAILED) failed checks"
[ $rc -eq 1 ] || { echo "FAILED: the mutation was not caught by cuda_cpu"; failures=$((failures + 1)); }
echo "cuda_conformance_cpu: $failures failed"
[ $failures -eq 0 ]
