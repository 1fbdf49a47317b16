#!/bin/sh
# run.sh — the GPU checks of an opframe bundle (contrib/gpu/bundle.sh copies
# this file into build-gpu/bundle/). Runs on the GPU machine, from anywhere:
#
#   build-gpu/bundle/run.sh [OUTDIR] [--bench-args ARG...]
#
# OUTDIR: the first argument, else $OUT, else ./gpu-results. Every step's
# stdout and stderr go to OUTDIR/<step>.log; OUTDIR/summary.txt has one line
# per step (name, exit status, wall seconds) and a last line
# "N passed, N failed (N skipped)"; exit status 77 is a skip. cuda_bench's
# tables land in OUTDIR/cuda_bench.md. The exit status is 1 if a step failed.
#
# Steps, in this order (the cheap ones first; each under `timeout`, all
# within OPF_GPU_BUDGET seconds, default 470: 8 minutes with the kill grace):
#   nvidia-smi          nvidia-smi -L and the driver's version (informational)
#   cpu                 lscpu | head
#   opframe_info_hw     opframe_info --hw
#   opframe_info        opframe_info: the components and why any is disqualified
#   cuda_semantics      the kernels' arithmetic on the host (quick)
#   cuda_conformance    every slot against the base on the GPU (77 without one)
#   cuda_conversions    the device's float16 / fp8 conversions against the rule, every input
#   cuda_host_mappings  the driver's mapping calls reach the component's hooks; a remembered
#                       host mapping reused for device memory is a device call
#   memcheck, initcheck compute-sanitizer --tool memcheck / initcheck on
#                       cuda_conformance --quick (skipped without compute-sanitizer
#                       on PATH or in /usr/local/cuda/bin, or without a GPU)
#   opencl_conformance  on the NVIDIA OpenCL platform alone (its ICD: skipped if none)
#   cuda_bench          the whole benchmark; ARGs after --bench-args are passed on
#
# The environment: LD_LIBRARY_PATH starts with the bundle's lib/ (libopframe,
# libltdl, libhwloc, the OpenCL ICD loader; lib/compat/'s libstdc++ and
# libgcc_s too where the system's are missing or too old),
# OPF_MCA_mca_component_path is the bundle's components/, and no parameter or
# tuning file of the machine is read.
set -u

here=$(cd "$(dirname "$0")" && pwd)
bin=$here/bin

usage() { sed -n '2,/^set -u$/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
outdir=""
while [ $# -gt 0 ]; do
    case $1 in
    --bench-args) shift; break ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "run.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *)
        [ -z "$outdir" ] || { echo "run.sh: one OUTDIR only ($outdir, $1)" >&2; exit 2; }
        outdir=$1
        shift
        ;;
    esac
done
# "$@" is now what cuda_bench gets
outdir=${outdir:-${OUT:-./gpu-results}}
mkdir -p "$outdir" || exit 1
outdir=$(cd "$outdir" && pwd)
summary=$outdir/summary.txt
budget=${OPF_GPU_BUDGET:-470}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/opf-gpu.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

now_ms() {
    ns=$(date +%s%N)
    case $ns in
    *N) echo $(($(date +%s) * 1000)) ;;
    *) echo $((ns / 1000000)) ;;
    esac
}
secs() { printf '%d.%02d' $(($1 / 1000)) $(($1 % 1000 / 10)); }   # milliseconds as seconds
start_ms=$(now_ms)
deadline_ms=$((start_ms + budget * 1000))

passed=0
failed=0
skipped=0
failed_steps=""
: >"$summary"
# record STEP RC MS [NOTE]
record() {
    note=${4-}
    case $2 in
    0) what=passed; passed=$((passed + 1)) ;;
    77) what=skipped; skipped=$((skipped + 1)) ;;
    *) what=FAILED; failed=$((failed + 1)); failed_steps="$failed_steps $1" ;;
    esac
    line=$(printf '%-20s rc=%-4s %7s s  %s%s' "$1" "$2" "$(secs "$3")" "$what" "${note:+ ($note)}")
    echo "$line" >>"$summary"
    echo "run: $line"
    if [ "$what" = FAILED ] && [ -s "$outdir/$1.log" ]; then
        tail -n 15 "$outdir/$1.log" | sed 's/^/    | /'
    fi
}
# skip STEP REASON: not run; the reason in its log and the summary
skip() {
    echo "skipped: $2" >"$outdir/$1.log"
    record "$1" 77 0 "$2"
}

have_timeout=no
command -v timeout >/dev/null 2>&1 && have_timeout=yes
# run STEP CAP COMMAND...: COMMAND with at most CAP seconds (less when the
# budget runs out), stdout and stderr into OUTDIR/STEP.log. With
# OPF_TEE_STDOUT=FILE, stdout goes to FILE as well.
run() {
    step=$1 cap=$2 rc=1
    shift 2
    log=$outdir/$step.log
    t=$(now_ms)
    left=$(((deadline_ms - t) / 1000))
    if [ $left -lt 5 ]; then
        echo "not run: the budget of $budget s is spent" >"$log"
        record "$step" 1 0 "not run: out of time"
        return
    fi
    [ "$cap" -le "$left" ] || cap=$left
    {
        echo "# $(date '+%Y-%m-%d %H:%M:%S') $*"
        echo "# limit: $cap s"
    } >"$log"
    if [ $have_timeout = yes ]; then set -- timeout -k 5 "$cap" "$@"; fi
    if [ -n "${OPF_TEE_STDOUT:-}" ]; then
        { "$@" 2>>"$log"; echo $? >"$tmp/rc"; } | tee -a "$log" >"$OPF_TEE_STDOUT"
        rc=$(cat "$tmp/rc")
    else
        "$@" >>"$log" 2>&1
        rc=$?
    fi
    ms=$(($(now_ms) - t))
    note=""
    case $rc in
    124 | 137) [ $have_timeout = no ] || note="timed out after $cap s" ;;
    77) note=$(grep -m 1 'skipped' "$log" | sed 's/^.*skipped: *//' | cut -c 1-100) ;;
    esac
    echo "# exit status $rc after $(secs $ms) s" >>"$log"
    record "$step" "$rc" "$ms" "$note"
    return 0
}

# ---- the environment -------------------------------------------------------------
LD_LIBRARY_PATH=$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
OPF_MCA_mca_component_path=$here/components
OPF_MCA_PARAM_FILE_USER=
OPF_MCA_PARAM_FILE_SYSTEM=
OPF_TUNE_FILE_USER=
OPF_TUNE_FILE_SYSTEM=
export LD_LIBRARY_PATH OPF_MCA_mca_component_path OPF_MCA_PARAM_FILE_USER OPF_MCA_PARAM_FILE_SYSTEM \
    OPF_TUNE_FILE_USER OPF_TUNE_FILE_SYSTEM

# Every bundled ELF file must resolve its libraries (libcuda is loaded later,
# by the CUDA runtime); lib/compat/ comes in when the system's libstdc++ or
# libgcc_s is missing or older than the build machine's.
unresolved() {
    for f in "$here"/lib/*.so* "$here"/components/*.so "$bin"/*; do
        ldd "$f" 2>&1 | grep 'not found' | sed "s|^[[:space:]]*|$(basename "$f"): |"
    done
}
missing=""
still=""
if ldd "$here/lib/libltdl.so.7" >/dev/null 2>&1; then
    missing=$(unresolved)
    if [ -n "$missing" ]; then
        LD_LIBRARY_PATH=$here/lib:$here/lib/compat${LD_LIBRARY_PATH#"$here"/lib}
        still=$(unresolved)
    fi
    libs_checked=yes
else
    libs_checked="no (no working ldd)"
fi
{
    echo "bundle: $here"
    sed -n '2,7p' "$here/BUNDLE.txt" 2>/dev/null
    echo "host: $(uname -n), $(uname -sr)$(. /etc/os-release 2>/dev/null && echo ", ${PRETTY_NAME:-}")"
    echo "glibc: $(getconf GNU_LIBC_VERSION 2>/dev/null || ldd --version 2>/dev/null | head -n 1)"
    echo "libraries checked with ldd: $libs_checked"
    if [ -n "$missing" ]; then
        echo "missing on this system, lib/compat/ added (libstdc++, libgcc_s of the build machine):"
        echo "$missing" | sed 's/^[^:]*: /  /' | sort -u
    fi
    if [ -n "$still" ]; then
        echo "ERROR: still unresolved:"
        echo "$still" | sed 's/^/  /'
    fi
    echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
    echo "OPF_MCA_mca_component_path=$OPF_MCA_mca_component_path"
} >"$outdir/setup.log" 2>&1
cp "$here/BUNDLE.txt" "$outdir/" 2>/dev/null
{
    echo "# opframe GPU run, $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $(uname -n), budget $budget s"
    sed -n 's/^commit: /# commit: /p; s/^configure: /# configure: /p' "$here/BUNDLE.txt" 2>/dev/null
} >>"$summary"
echo "run: bundle $here, results in $outdir, budget $budget s"
sed 's/^/run: /' "$outdir/setup.log"

# ---- the steps -------------------------------------------------------------------
if command -v nvidia-smi >/dev/null 2>&1; then
    run nvidia-smi 20 sh -c 'nvidia-smi -L && nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv'
else
    skip nvidia-smi "no nvidia-smi on PATH"
fi
if command -v lscpu >/dev/null 2>&1; then
    run cpu 10 sh -c 'lscpu | head -n 20'
else
    run cpu 10 sh -c 'grep -m1 "model name" /proc/cpuinfo; echo "CPUs: $(nproc)"'
fi
run opframe_info_hw 20 "$bin/opframe_info" --hw
run opframe_info 20 "$bin/opframe_info"
run cuda_semantics 60 "$bin/cuda_semantics"
run cuda_conformance 120 "$bin/cuda_conformance"
conformance_rc=$rc
run cuda_conversions 30 "$bin/cuda_conversions"
run cuda_host_mappings 30 "$bin/cuda_host_mappings"

sanitizer=$(command -v compute-sanitizer 2>/dev/null)
[ -n "$sanitizer" ] || for s in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda-*/bin/compute-sanitizer; do
    if [ -x "$s" ]; then sanitizer=$s; break; fi
done
for tool in memcheck initcheck; do
    if [ "$conformance_rc" -eq 77 ]; then
        skip $tool "no GPU: cuda_conformance skipped"
    elif [ -z "$sanitizer" ]; then
        skip $tool "no compute-sanitizer on PATH or in /usr/local/cuda/bin"
    else
        run $tool 100 "$sanitizer" --tool $tool --error-exitcode 86 "$bin/cuda_conformance" --quick
    fi
done

# OpenCL on the GPU: NVIDIA's ICD alone (the first device of any platform is
# the one tested), through a vendors directory of our own.
icd_lib=""
if [ -f /etc/OpenCL/vendors/nvidia.icd ]; then
    icd_lib=$(head -n 1 /etc/OpenCL/vendors/nvidia.icd)
    icd_from=/etc/OpenCL/vendors/nvidia.icd
else
    ldconfig=$(command -v ldconfig 2>/dev/null || echo /sbin/ldconfig)
    if "$ldconfig" -p 2>/dev/null | grep -q 'libnvidia-opencl\.so\.1 '; then
        icd_lib=libnvidia-opencl.so.1
        icd_from="ldconfig's cache"
    else
        for d in $(echo "${LD_LIBRARY_PATH:-}" | tr ':' ' ') /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/nvidia/lib64; do
            if [ -e "$d/libnvidia-opencl.so.1" ]; then icd_lib=$d/libnvidia-opencl.so.1; icd_from=$d; break; fi
        done
    fi
fi
if [ ! -x "$bin/opencl_conformance" ]; then
    skip opencl_conformance "not in the bundle (built without the OpenCL ICD loader)"
elif [ -z "$icd_lib" ]; then
    skip opencl_conformance "no NVIDIA OpenCL ICD (/etc/OpenCL/vendors/nvidia.icd, libnvidia-opencl.so.1)"
else
    mkdir -p "$tmp/vendors"
    echo "$icd_lib" >"$tmp/vendors/nvidia.icd"
    echo "run: OpenCL: $icd_lib (from $icd_from), OCL_ICD_VENDORS=$tmp/vendors"
    OCL_ICD_VENDORS=$tmp/vendors
    export OCL_ICD_VENDORS
    run opencl_conformance 60 "$bin/opencl_conformance"
    unset OCL_ICD_VENDORS
fi

# cuda_bench writes its tables with --out FILE where it knows that option;
# else its stdout is the table. Without a GPU it only says why it skips.
if [ "$conformance_rc" -eq 77 ]; then
    run cuda_bench 30 "$bin/cuda_bench" "$@"
elif "$bin/cuda_bench" --help 2>&1 | grep -q -- '--out'; then
    run cuda_bench 300 "$bin/cuda_bench" --out "$outdir/cuda_bench.md" "$@"
else
    OPF_TEE_STDOUT=$outdir/cuda_bench.md
    run cuda_bench 300 "$bin/cuda_bench" "$@"
    OPF_TEE_STDOUT=
fi

# ---- the summary -------------------------------------------------------------------
total=$(($(now_ms) - start_ms))
echo "$passed passed, $failed failed ($skipped skipped; $(secs $total) s)" >>"$summary"
echo "run: summary ($summary):"
sed 's/^/    /' "$summary"
[ $failed -eq 0 ] || { echo "run: failed:$failed_steps (logs in $outdir)"; exit 1; }
exit 0
