#!/bin/sh
# The opencl component, end to end (run by `make check` when OpenCL is built):
#   1. it disqualifies itself with a clear reason, and the library keeps
#      working, when there is no ICD loader, no platform (OCL_ICD_VENDORS
#      pointing to an empty directory) or no matching device;
#   2. by default it serves no host memory on a CPU device (PoCL);
#   3. host path: every slot it offers, forced on with
#      op_opencl_host_min_count=1, passes test/conformance --provider opencl;
#   4. device path: test/opencl_conformance (cl_mem and SVM, every slot, the
#      component's self-test off), and again on an out-of-order queue with
#      counts split into many launches (self-test on);
#   5. the on-disk program cache (op_opencl_cache_dir) is written, then used;
#   6. test/opencl_bench runs (smoke);
#   7. inside an MPI job (the launcher's environment) it does not probe at
#      init unless asked, and still serves device buffers and asked-for host
#      memory.
# Exit 77 (skip) when the machine has no OpenCL platform at all.
set -u
component=opencl
. "$(dirname "$0")/component_test.sh"


if [ ! -f "$dir/opf_op_opencl.so" ]; then
    echo "opencl_component: $dir/opf_op_opencl.so is not built"
    exit 1
fi
line=$(status_line)
echo "$line"
case $line in
*"no OpenCL platform"* | *"no OpenCL ICD loader"* | *"no OpenCL device"*)
    echo "opencl_component: no OpenCL here: skipped"
    exit 77 ;;
*available*) ;;
*) echo "opencl_component: the component is not available"; exit 1 ;;
esac

# 1. Disqualification, with the reason; the rest of the library keeps working.
mkdir "$scratch/no_vendors"
line=$(status_line OCL_ICD_VENDORS="$scratch/no_vendors")
echo "$line"
check "no platform: reason" sh -c 'case "$1" in *"disqualified: no OpenCL platform"*OCL_ICD_VENDORS=*) exit 0;; esac; exit 1' - "$line"
line=$(status_line OPF_MCA_op_opencl_library=/nonexistent/libOpenCL.so.1)
echo "$line"
check "no ICD loader: reason" sh -c 'case "$1" in *"disqualified: no OpenCL ICD loader"*) exit 0;; esac; exit 1' - "$line"
line=$(status_line OPF_MCA_op_opencl_device=no-such-device)
echo "$line"
check "no matching device: reason" sh -c 'case "$1" in *"matches none of the"*) exit 0;; esac; exit 1' - "$line"
check "without a platform the library still reduces" \
    env OCL_ICD_VENDORS="$scratch/no_vendors" "$top/test/conformance" --quick --provider base --provider selected
out=$(env OCL_ICD_VENDORS="$scratch/no_vendors" "$top/test/opencl_conformance" --quick 2>&1)
rc=$?
check "opencl_conformance skips without a platform (rc $rc)" test $rc -eq 77

# 2. The default on a CPU device: no host slots, and why.
selected=$("$info" --param op opencl --level 9 2>&1 | grep 'op_opencl_selected')
echo "$selected"
if "$info" --param op opencl --level 9 2>&1 | grep -q 'op_opencl_devices.*(CPU'; then
    check "CPU device: host memory off by default" sh -c 'case "$1" in *"host memory: off"*) exit 0;; esac; exit 1' - "$selected"
fi

# 3. Host path: every offered slot against the harness's reference, with the
# engine's guards inside every element's padding (they caught MAXLOC/MINLOC
# writing SHORT_INT bytes 2-3 before the OpenCL side stored data bytes only).
out=$(OPF_MCA_op_opencl_host_min_count=1 "$top/test/conformance" --provider opencl --native 2>&1)
rc=$?
echo "$out" | grep -E '^(seed|provider|conformance|FAIL)' | head -40
check "host path: test/conformance --provider opencl" test $rc -eq 0
check "host path: some slots were checked" sh -c 'echo "$1" | grep -q "provider opencl: [1-9][0-9]* slots"' - "$out"

# 4. Device path. The component's own per-device self-test would drop a
# wrong kernel as "not supported", hiding it here: off for the full run.
OPF_MCA_op_opencl_selftest=0 "$top/test/opencl_conformance"
rc=$?
check "device path: opencl_conformance (rc $rc)" test $rc -eq 0

OPF_MCA_op_opencl_max_launch=100 "$top/test/opencl_conformance" --quick --out-of-order
rc=$?
check "device path: out-of-order queue, counts split into launches of 100 (rc $rc)" test $rc -eq 0

# 5. The program cache: written on the first run, read on the second.
cache=$scratch/cache
OPF_MCA_op_opencl_host_min_count=1 OPF_MCA_op_opencl_cache_dir=$cache "$info" >/dev/null 2>&1
n=$(ls "$cache" 2>/dev/null | grep -c '^opf-.*\.bin$')
check "program cache: binaries written ($n)" test "$n" -gt 0
loaded=$(OPF_MCA_op_opencl_host_min_count=1 OPF_MCA_op_opencl_cache_dir=$cache OPF_MCA_op_base_verbose=3 "$info" 2>&1 |
    grep -c 'program for .* loaded from')
check "program cache: programs loaded from it ($loaded)" test "$loaded" -gt 0

# 5b. The kernel types it generates nothing for are said, with the reason
# (a block format, NVFP4 the newest; an 8-bit float; a 16-byte type).
said=$(OPF_MCA_op_base_verbose=1 "$info" 2>&1 | grep 'kernel types without OpenCL kernels')
check "types without OpenCL kernels said, with reasons" sh -c 'echo "$1" | grep -q "NVFP4.*block formats" &&
    echo "$1" | grep -q "FLOAT8_E4M3 .*8-bit floats" && echo "$1" | grep -q "LONG_DOUBLE .*no type that wide"' - "$said"

# 6. The benchmark runs (a smoke run: never a verdict on speed).
if [ -x "$top/test/opencl_bench" ]; then
    out=$("$top/test/opencl_bench" --quick --sizes 4,64K 2>&1)
    echo "$out"
    check "opencl_bench prints cl_mem and base rows" sh -c 'echo "$1" | grep -q " cl_mem " && echo "$1" | grep -q " base "' - "$out"
fi

# 7. An MPI rank (as mpirun's environment says): no probe at init (it would
# only make a report: ~40 ms of every MPI_Init through the bridge), unless
# op_opencl_probe_in_mpi or host memory is asked for.
for launcher in OMPI_COMM_WORLD_SIZE=1 PMIX_RANK=0 PMI_RANK=0; do
    devices=$(env $launcher "$info" --param op opencl --level 9 2>&1 | grep 'op_opencl_devices')
    check "$launcher: not probed at init, and why" \
        sh -c 'case "$1" in *"not probed (an MPI rank; op_opencl_probe_in_mpi=true probes here)"*) exit 0;; esac; exit 1' - "$devices"
done
devices=$(env PMIX_RANK=0 OPF_MCA_op_opencl_probe_in_mpi=1 "$info" --param op opencl --level 9 2>&1 | grep 'op_opencl_devices')
check "op_opencl_probe_in_mpi=1: probed in an MPI rank" sh -c 'case "$1" in *"not probed"*) exit 1;; *"0: "*) exit 0;; esac; exit 1' - "$devices"
# (one slot each: section 3 and 4 checked them all)
out=$(env PMIX_RANK=0 OPF_MCA_op_opencl_host_min_count=1 "$top/test/conformance" --quick --provider opencl --native \
    --function 'opencl.sum.float' 2>&1)
rc=$?
check "asked-for host memory is probed and served in an MPI rank (rc $rc)" \
    sh -c 'test "$1" -eq 0 && echo "$2" | grep -q "provider opencl: [1-9][0-9]* slots"' - "$rc" "$out"
env PMIX_RANK=0 "$top/test/opencl_conformance" --quick --function '*.sum.float' >/dev/null 2>&1
rc=$?
check "device buffers are served in an MPI rank without the init probe (rc $rc)" test $rc -eq 0

summary
