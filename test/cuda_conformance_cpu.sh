#!/bin/sh
# The cuda component on the CPU (issue 13), its CPU build in
# test/cudastub/.libs under the stand-in CUDA runtime:
#   1. test/cuda_conformance (every slot against the base, all forms, layouts
#      and paths) linked with the stand-in instead of a GPU; --quick: the
#      lengths and layouts that cover the vector, scalar and byte plans (the
#      count above 2^31 is left to a GPU);
#   2. mutations are caught by test/cuda_cpu: a wrong thread index in every
#      launch (CI step 47 also runs test/cuda_conformance under it), and three
#      of the component's own (issue 21), applied by the stand-in at the
#      component's boundary: sync-legacy (synchronising the legacy default
#      stream instead of the per-thread one the work went to), no-sync (no
#      synchronisation in synchronous calls), no-device-scope (the device of
#      the call never made current); and (issue 21) two more on the data
#      section: pair-store (a pair kernel storing the whole struct: padding
#      and past the true end) and dense-copy (a padded type copied as whole
#      elements instead of range by range), and on the contexts section
#      double-release (the component's cuDevicePrimaryCtxRelease counted twice:
#      the last reference, the runtime's, released, the application's context
#      destroyed with its memory), and on the query section query-as-host
#      (a pointer query that fails taken for host memory);
#   3. test/inline_calls with the stand-in's claim hooks: opframe.h's inline
#      calls pass every call to the entry point; opframe_info --explain names
#      cuda's n-ary device kernels (AVG BFLOAT16, both forms, synchronous and
#      on a stream);
#   4. with OPF_CHECK_DEPTH=deep: test/cuda_conformance --quick under
#      no-sync, which it must catch too (about 40 s on 2 cores; sync-legacy
#      and no-device-scope are cuda_cpu's alone: CI's 40 minutes).
set -u
top=${top_builddir:-.}
OPF_MCA_mca_component_path=$top/test/cudastub/.libs
OPF_MCA_PARAM_FILE_USER=
OPF_MCA_PARAM_FILE_SYSTEM=
export OPF_MCA_mca_component_path OPF_MCA_PARAM_FILE_USER OPF_MCA_PARAM_FILE_SYSTEM
# The stand-in module dlopens libcuda.so.1 (the stand-in's link) through its
# RUNPATH; under AddressSanitizer the dlopen interceptor is the caller and
# that RUNPATH is not searched (the component was then "disqualified: no CUDA
# driver" in opframe_info, CI step 20): the folder is named here for all.
LD_LIBRARY_PATH=$top/test/cudastub/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
failures=0
"$top/test/cuda_conformance_cpu" --quick "$@" || { echo "FAILED: cuda_conformance on the stand-in"; failures=$((failures + 1)); }
# opframe.h's inline calls with the stand-in's claim hooks loaded: every call
# reaches the entry point (which asks the hooks), with the entry point's results.
OPF_TEST_EXPECT_CLAIMS=1 "$top/test/inline_calls" || { echo "FAILED: inline_calls with claim hooks"; failures=$((failures + 1)); }
# opframe_info --explain names the cuda component's n-ary device kernels (both forms, synchronous and on a stream).
for form in "n-ary" "n-ary round-once"; do
    "$top/tools/opframe_info" --explain sum bfloat16 | grep -qx "SUM BFLOAT16 cuda $form: cuda; on a stream: cuda" ||
        { echo "FAILED: opframe_info --explain sum bfloat16 does not name cuda's $form device kernels"; failures=$((failures + 1)); }
done
mutation() {   # mutation NAME SECTION...: cuda_cpu under CUDASTUB_MUTATE=NAME must fail
    m=$1
    shift
    out=$(CUDASTUB_MUTATE=$m "$top/test/cuda_cpu" --seed 1 "$@" 2>&1)
    rc=$?
    echo "mutation $m, cuda_cpu $*: rc $rc, $(echo "$out" | grep -c FAILED) failed checks"
    [ $rc -eq 1 ] || { echo "FAILED: the mutation $m was not caught by cuda_cpu"; failures=$((failures + 1)); }
}
mutation thread-index data
mutation pair-store data    # padding checks inside pairs; canaries after device outputs
mutation dense-copy data    # copies past the true end refused, guard pages, padding checks
mutation double-release contexts   # the application's primary context destroyed under it
mutation query-as-host query       # host code on device memory whose query failed: a fault
for m in sync-legacy no-sync no-device-scope; do mutation $m; done
if [ "${OPF_CHECK_DEPTH:-quick}" = deep ]; then
    for m in no-sync; do
        out=$(CUDASTUB_MUTATE=$m "$top/test/cuda_conformance_cpu" --quick 2>&1)
        rc=$?
        echo "mutation $m, cuda_conformance --quick: rc $rc: $(echo "$out" | tail -1)"
        [ $rc -eq 1 ] || { echo "FAILED: the mutation $m was not caught by cuda_conformance"; failures=$((failures + 1)); }
    done
fi
echo "cuda_conformance_cpu: $failures failed"
[ $failures -eq 0 ]
