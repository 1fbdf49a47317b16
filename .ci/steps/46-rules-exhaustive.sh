# One definition per rule, pinned on every float: the OpenCL C float16 /
# bfloat16 conversions (components/opencl/cl_source.cpp) against
# base/storage.h for all 2^32 floats on PoCL (test/opencl_source --exhaustive,
# about 2 min on 2 cores), and, where the cuda component is built, storage.h
# against the CUDA headers' conversions for all 2^32 floats
# (test/cuda_semantics --exhaustive, about 1.5 min). Uses step 10's build in
# CI_ROOT (make check built both); a test that is not built is not run.
. "$CI_ROOT/.ci/lib.sh"
cd "$CI_ROOT"
passed=0
failed=0
# The two run side by side (cuda_semantics takes one core), each into its log.
tests=""
for t in test/opencl_source test/cuda_semantics; do
    if [ ! -x "$t" ]; then
        echo "$t: not built here (no OpenCL / no nvcc): not run"
        continue
    fi
    tests="$tests $t"
    { "$t" --exhaustive >"$t.exhaustive.log" 2>&1; echo $? >"$t.exhaustive.rc"; } &
done
wait
for t in $tests; do
    echo "+ $t --exhaustive"
    cat "$t.exhaustive.log"
    rc=$(cat "$t.exhaustive.rc")
    case $rc in
    0) passed=$((passed + 1)) ;;
    77) echo "$t: skipped (no device)" ;;
    *) failed=$((failed + 1)) ;;
    esac
done
ci_report $passed $failed
[ $failed -eq 0 ]
