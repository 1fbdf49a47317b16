# The cuda component on the CPU, beyond make check (issue 13). make check
# (step 10) already runs test/cuda_cpu and test/cuda_conformance_cpu.sh (the
# component built against the stand-in runtime test/cudastub, kernels with
# their device branches); this step adds, in about 2 min on 2 cores:
#   1. test/cuda_cpu with one more seed;
#   2. test/cuda_conformance --quick on the stand-in with another seed, under
#      the mutation CUDASTUB_MUTATE=thread-index, which it must catch, and with
#      a grid of 3 blocks of 32 threads (many turns of the grid-stride loop);
#   3. the kernels' host branches: cuda_kernels.cu compiled a second time
#      (without __CUDA_ARCH__) into a scratch module, and both tests on it;
#   4. the GPU programs make check does not build (test/cuda_bench with its
#      Thrust reference, test/cuda_conversions: nvcc) build, and skip (77)
#      here with the reason.
# Uses step 10's build in CI_ROOT; without the CUDA toolkit nothing is built
# and nothing runs.
. "$CI_ROOT/.ci/lib.sh"
cd "$CI_ROOT"
if [ ! -x test/cuda_cpu ] || [ ! -x test/cuda_conformance_cpu ]; then
    echo "test/cuda_cpu: not built here (configure found no CUDA toolkit): not run"
    ci_report 0 0
    exit 0
fi
passed=0
failed=0
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
run() {   # run EXPECTED-RC COMMAND...: the last lines of its output, and the count
    expect=$1
    shift
    echo "+ $*"
    "$@" >"$scratch/out" 2>&1
    rc=$?
    tail -3 "$scratch/out"
    if [ $rc -eq "$expect" ]; then passed=$((passed + 1)); else
        echo "FAILED: rc $rc, expected $expect: $*"
        failed=$((failed + 1))
    fi
}
OPF_MCA_PARAM_FILE_USER=
OPF_MCA_PARAM_FILE_SYSTEM=
export OPF_MCA_PARAM_FILE_USER OPF_MCA_PARAM_FILE_SYSTEM

# 3's build first, in the background: it compiles beside 1 and 2's runs (one core each).
cuda_cppflags=$(sed -n 's/^CUDA_CPPFLAGS = //p' Makefile)
mkdir "$scratch/host"
g++ -std=c++20 -O2 -fPIC -shared -fvisibility=hidden -fno-strict-aliasing -ffp-contract=off -fno-fast-math \
    -Wno-unknown-pragmas -DHAVE_CONFIG_H -I. -Iinclude $cuda_cppflags \
    components/cuda/opf_op_cuda.cpp components/gpu/device_core.cpp components/cuda/host_mappings.cpp test/cudastub/cuda_kernels_cpu.cpp \
    -o "$scratch/host/opf_op_cuda.so" -L.libs -lopframe -Ltest/cudastub/.libs -lcudastub \
    -Wl,-rpath,"$CI_ROOT/test/cudastub/.libs" -Wl,-z,nodelete >"$scratch/host.log" 2>&1 &
host_build=$!

# 1, 2: the make-check build (device branches).
run 0 test/cuda_cpu --seed 1   # (make check ran it with its own seed; one more here)
OPF_MCA_mca_component_path=$CI_ROOT/test/cudastub/.libs
export OPF_MCA_mca_component_path
run 0 test/cuda_conformance_cpu --quick --seed 47
run 1 env CUDASTUB_MUTATE=thread-index test/cuda_conformance_cpu --quick --seed 47
# A small grid (3 blocks of 32 threads): the grid-stride loop turns many times.
run 0 env OPF_MCA_op_cuda_block_size=32 OPF_MCA_op_cuda_max_blocks=3 test/cuda_conformance_cpu --quick --seed 48

# 3. The host branches.
echo "+ g++ ... components/cuda/opf_op_cuda.cpp components/gpu/device_core.cpp components/cuda/host_mappings.cpp test/cudastub/cuda_kernels_cpu.cpp -> $scratch/host/opf_op_cuda.so"
if wait $host_build; then
    passed=$((passed + 1))
    OPF_MCA_mca_component_path=$scratch/host
    run 0 test/cuda_cpu --seed 47
    run 0 test/cuda_conformance_cpu --quick --seed 47
else
    cat "$scratch/host.log"
    echo "FAILED: the host-branch build"
    failed=$((failed + 1))
fi
# 4. The GPU programs outside make check: they build, and skip without a GPU.
echo "+ make test/cuda_bench test/cuda_conversions"
if make -j2 test/cuda_bench test/cuda_conversions >"$scratch/gpu-programs.log" 2>&1; then
    passed=$((passed + 1))
    for program in test/cuda_bench test/cuda_conversions; do
        run 77 "$program"
        grep -q "skipped" "$scratch/out" || { echo "FAILED: $program does not say why it skips"; failed=$((failed + 1)); }
    done
else
    tail -30 "$scratch/gpu-programs.log"
    echo "FAILED: building test/cuda_bench test/cuda_conversions"
    failed=$((failed + 1))
fi
ci_report $passed $failed
[ $failed -eq 0 ]
