#!/bin/sh
# opframe_info, each view (run by `make check`):
#   1. a broken component file is warned about once per run, whatever the
#      view, also when opf_init fails and every later call retries it;
#   2. --hw lists the devices the components found (the opencl component's,
#      on PoCL or a real OpenCL platform), each with the component using it,
#      in text, --parsable and --json; a disqualified component's are not;
#   3. --kernels / --explain --mem KIND: the stream kernels per memory kind,
#      and a clear error for an unknown kind.
set -u
check_name=check_info
. "$(dirname "$0")/../test/check_lib.sh"
info=$top/tools/opframe_info

# ---- 1. one warning per broken file per run --------------------------------------
mkdir "$scratch/broken"
echo "not a shared object" > "$scratch/broken/opf_op_junk.so"
for args in "" "--hw" "--all" "--show-failed" "--mca op nosuch --kernels --op sum --type float" \
    "--mca op nosuch --hw --show-failed --json" \
    "--mca mca_component_path $scratch/broken:$scratch/broken"; do
    # shellcheck disable=SC2086 # the arguments are words
    n=$(OPF_MCA_mca_component_path="$scratch/broken" "$info" $args 2>&1 >/dev/null | grep -c 'opf_op_junk.so skipped')
    echo "opframe_info $args: $n warning(s) about opf_op_junk.so"
    check "one warning about the broken file (opframe_info $args), got $n" test "$n" -eq 1
done

# ---- 2. devices the components found ------------------------------------------------
cl=$top/components/opencl/.libs
if [ -f "$cl/opf_op_opencl.so" ] && OPF_MCA_mca_component_path=$cl "$info" 2>&1 | grep -q 'MCA op: opencl (.*) available'; then
    export OPF_MCA_mca_component_path=$cl
    hw=$("$info" --hw 2>&1)
    echo "$hw" | sed -n '/^Devices/,$p'
    check "--hw lists an OpenCL device used by the opencl component" contains "$hw" "used by opencl"
    check "--hw names it like hwloc (opencl<platform>d<device>)" contains "$hw" "
  opencl0d0 ("
    check "--hw does not say none" lacks "$hw" "Devices: none"
    parsable=$("$info" --hw --parsable 2>&1)
    check "--parsable: hw:device:used_by:opencl" contains "$parsable" "hw:device:used_by:opencl"
    check "--parsable: hw:device:name:opencl0d0" contains "$parsable" "hw:device:name:opencl0d0"
    json=$("$info" --hw --json 2>&1)
    check "--json: a hw:device record used by opencl" contains "$json" '"kind": "hw:device", "name": "opencl0d0"'
    check "--json: used_by" contains "$json" '"used_by": "opencl"'
    hw=$("$info" --hw --mca op_opencl_device no-such-device 2>&1)
    check "a disqualified component's devices are not listed" lacks "$hw" "used by opencl"
    hw=$("$info" --hw --mca op '^opencl' 2>&1)
    check "an excluded component's devices are not listed" lacks "$hw" "opencl0d0"

    # ---- 3. --mem -------------------------------------------------------------------
    k=$("$info" --kernels --mem opencl --op sum --type float 2>&1)
    echo "$k"
    check "--kernels --mem opencl: the stream row, served by opencl" sh -c 'echo "$1" | grep -q "^opencl stream:FLOAT  *opencl"' - "$k"
    check "--kernels --mem opencl: no host row" lacks "$k" "
FLOAT "
    k=$("$info" --kernels --mem host --op sum 2>&1)
    check "--kernels --mem host: no opencl rows" lacks "$k" "opencl"
    k=$("$info" --kernels --mem OpenCL --parsable 2>&1)
    check "--kernels --parsable: stream providers" contains "$k" "kernel:opencl:SUM:FLOAT:stream_2buf:opencl"
    check "--kernels --mem opencl --parsable: only opencl records" lacks "$k" "kernel:host:"
    k=$("$info" --kernels 2>&1)
    check "--kernels without --mem: host and the opencl stream rows" contains "$k" "opencl stream:INT32"
    e=$("$info" --explain sum float --mem opencl 2>&1)
    echo "$e"
    check "--explain --mem opencl: the 2-buffer stream kernel" contains "$e" "SUM FLOAT opencl 2-buffer stream:
  opencl priority"
    check "--explain --mem opencl: selected" contains "$e" ": SELECTED"
    check "--explain --mem opencl: no host part" lacks "$e" "FLOAT host"
    e=$("$info" --explain sum float 2>&1)
    check "--explain without --mem: host and the opencl stream kernels" contains "$e" "SUM FLOAT opencl 3-buffer stream:"
    check "--explain without --mem: host" contains "$e" "SUM FLOAT host 2-buffer:"
else
    echo "no available opencl component here: the device and --mem checks of opencl are skipped"
    export OPF_MCA_mca_component_path=$scratch/none
    k=$("$info" --kernels --mem cuda --op sum --type float 2>&1)
    check "--kernels --mem cuda without a cuda component: no such kind (registered at run time)" \
        contains "$k" "--mem cuda: unknown memory kind"
fi
out=$("$info" --kernels --mem gpu 2>&1)
rc=$?
check "--mem gpu: exit status 2 (got $rc)" test $rc -eq 2
check "--mem gpu: the known kinds are named" contains "$out" "unknown memory kind (known: host"
out=$("$info" --explain sum float --mem nosuch 2>&1)
rc=$?
check "--explain --mem nosuch: exit status 2 (got $rc)" test $rc -eq 2

# ---- names in any case ------------------------------------------------------------
simd=$top/components/simd/.libs
if [ -f "$simd/opf_op_avx2.so" ]; then
    out=$(OPF_MCA_mca_component_path=$simd "$info" --param OP AVX2 2>&1)
    check "--param OP AVX2 lists op_avx2_priority" contains "$out" '"op_avx2_priority"'
fi
out=$("$info" --param Op Base --level 9 2>&1)
check "--param Op Base lists op_base_pin" contains "$out" '"op_base_pin"'
out=$("$info" --explain Max DOUBLE --mem HOST 2>&1)
check "--explain Max DOUBLE --mem HOST" contains "$out" "MAX DOUBLE host 2-buffer:"

summary
