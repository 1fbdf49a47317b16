#!/bin/sh
# tuning.sh — measured selection (issue 25): opframe_tune --quick writes a
# tuning file with the machine it was measured on; opf_init takes it (its
# values show "tuning file" as their source, --explain shows when and on what
# it was measured, a pin in it steers a slot, a value set in the environment
# still wins) and ignores it, with a warning at default verbosity, when the
# CPU, ISA set or versions differ or it does not say what it was made on;
# one that cannot be read (a path named that does not exist, a directory, a
# device) is said as a tuning file. Timings are never checked. About a
# second: one quick tuner run, a few opframe_info runs.
check_name=tuning
. "${srcdir:-.}/test/check_lib.sh"
OPF_MCA_mca_component_path="$top/components/simd"
export OPF_MCA_mca_component_path
info="$top/tools/opframe_info"
file="$scratch/tuning.conf"

# ---- 1. the file is written -----------------------------------------------------------
"$top/tools/opframe_tune" --quick --output "$file" 2>"$scratch/tune.err"
check "opframe_tune --quick succeeds" test $? -eq 0
cat "$scratch/tune.err"
text=$(cat "$file" 2>/dev/null)
for key in opf_tuning_cpu opf_tuning_isa opf_tuning_versions opf_tuning_date opf_tuning_aftereffect \
    op_base_threads_min_bytes; do
    check "the file has $key" contains "$text" "
$key = "
done
cpu=$(sed -n 's/^opf_tuning_cpu = "\(.*\)"$/\1/p' "$file")
check "the CPU is named" test -n "$cpu"
check "no temporary file left" test ! -e "$file.tmp"
# A SIMD component that is available here gets its tiny-count and streaming tiers measured.
simd=$(sed -n 's/^op_\([a-z0-9]*\)_min_bytes = [0-9]*$/\1/p' "$file" | head -1)
if [ -n "$simd" ]; then
    check "a slot note for SUM FLOAT" contains "$text" "opf_tuning_note_sum_float = \""
    # Each decision names the data and alignments it was timed on (tools/data_kinds.h):
    # floats on three kinds, pairs with runs of ties, integers on random data alone.
    check "the note of MAX FLOAT names its data" contains "$text" "data random, integers, sparse (random at every size, the others to "
    check "... MAXLOC FLOAT_INT's runs of ties" contains "$text" "data random, runs, sparse (random at every size, the others to "
    check "... SUM INT32 on random data" contains "$(grep '^opf_tuning_note_sum_int32 ' "$file")" "data random, buffers at"
    check "the after-effect of $simd" contains "$text" "; $simd "
fi

# ---- 2. read at opf_init and shown ------------------------------------------------------
params=$(OPF_TUNE_FILE_USER="$file" "$info" --param all all --level 9 2>&1)
check "a tuned value's source is the tuning file" contains "$params" \
    "\"op_base_threads_min_bytes\" (current value: "
check "... named with its line" contains "$params" "data source: tuning file $file:"
explain=$(OPF_TUNE_FILE_USER="$file" "$info" --explain sum float 2>&1)
echo "$explain"
check "--explain: measured when and on what" contains "$explain" "measured $(sed -n 's/^opf_tuning_date = "\(.*\)"$/\1/p' "$file") on $cpu: "
check "--explain: the after-effect per ISA" contains "$explain" "after-effect per ISA, measured then: "
# The system file is read as well.
explain=$(OPF_TUNE_FILE_SYSTEM="$file" "$info" --explain sum float 2>&1)
check "the system tuning file is read" contains "$explain" "measured "

# A pin in the tuning file steers the slot away from a SIMD component (none
# is built by clang: configure builds them with GCC only; component_system
# checks pins on its test components there).
if [ -n "$simd" ]; then
{ cat "$file"; echo 'op_base_pin = "sum:float=base"'; } >"$scratch/pinned.conf"
explain=$(OPF_TUNE_FILE_USER="$scratch/pinned.conf" "$info" --explain sum float 2>&1)
check "a pin from the tuning file applies" contains "$explain" "base (default): SELECTED (pinned by op_base_pin)"
# A size-bounded pin in the tuning file (as opframe_tune writes where a provider
# wins only a band of sizes): the base serves SUM FLOAT from 64 KiB to 1 MiB
# per buffer (FLOAT counts 16384 to 262144), whoever served it keeps the rest.
{ grep -v '^op_base_pin = ' "$file"; echo 'op_base_pin = "sum:float@64K-1M=base"'; } >"$scratch/band.conf"
explain=$(OPF_TUNE_FILE_USER="$scratch/band.conf" "$info" --explain sum float 2>&1)
check "a band pin from the tuning file applies" contains "$explain" "base (default): SELECTED, serves "
check "... to the counts of its bytes" contains "$explain" "counts 16384 to 262144 (pinned 64K-1M)"
kernels=$(OPF_TUNE_FILE_USER="$scratch/band.conf" "$info" --kernels --op sum --type float 2>&1)
check "... and the tiers say so" contains "$kernels" "base@64K-1M>=16384<262145"
# A user's pin of one slot replaces the tuning file's pin of that slot only:
# the file's other pins stay, and the override is said (issue 37, item 3).
{ grep -v '^op_base_pin = ' "$file"; echo 'op_base_pin = "sum:float=base,max:double=base"'; } >"$scratch/two.conf"
out=$(OPF_TUNE_FILE_USER="$scratch/two.conf" OPF_MCA_op_base_pin=sum:float=$simd "$info" --explain max double 2>&1)
check "a user's pin leaves the tuning file's other pins in force" contains "$out"     "base (default): SELECTED (pinned by op_base_pin)"
check "... and says which slot it replaced" contains "$out"     "opframe: warning: op_base_pin from environment OPF_MCA_op_base_pin replaces the tuning file's pins of SUM FLOAT (tuning file $scratch/two.conf:"
out=$(OPF_TUNE_FILE_USER="$scratch/two.conf" OPF_MCA_op_base_pin=sum:float=$simd "$info" --explain sum float 2>&1)
check "... the user's pin serves its slot" contains "$out" "$simd priority"
check "... pinned" contains "$out" "(pinned by op_base_pin)"
check "--explain: the slot's tuning pin is replaced" contains "$out"     "the tuning file's pin of this slot is replaced by op_base_pin from environment OPF_MCA_op_base_pin"
else
    echo "SKIP: pins from the tuning file: no SIMD component serves SUM FLOAT here"
fi
# The environment still wins over the file.
params=$(OPF_TUNE_FILE_USER="$file" OPF_MCA_op_base_threads_min_bytes=3M "$info" --param op base --level 9 2>&1)
check "the environment wins over the tuning file" contains "$params" \
    "\"op_base_threads_min_bytes\" (current value: \"3M\", data source: environment"

path=$("$info" --path 2>&1)
check "--path names the tuning files" contains "$path" "(tuning files, read below them: \$HOME/.opframe/tuning.conf, "

# ---- 3. rejected when it does not match -------------------------------------------------
reject() {   # reject WHAT FILE PATTERN [ENV...]: warned about at default verbosity, and not used
    rwhat=$1 f=$2 pattern=$3
    shift 3
    out=$(env OPF_TUNE_FILE_USER="$f" "$@" "$info" --explain sum float 2>&1)
    check "$rwhat: warned" contains "$out" "opframe: warning: tuning file $f ignored: $pattern"
    check "$rwhat: not used" lacks "$out" "
  measured "
    params=$(env OPF_TUNE_FILE_USER="$f" "$@" "$info" --param op base --level 9 2>/dev/null)
    check "$rwhat: the default stands" contains "$params" \
        "\"op_base_threads_min_bytes\" (current value: \"4M\", data source: default"
}
sed 's/^opf_tuning_cpu = .*/opf_tuning_cpu = "Another CPU 9000"/' "$file" >"$scratch/cpu.conf"
reject "another CPU" "$scratch/cpu.conf" "it was measured with CPU \"Another CPU 9000\", this is \"$cpu\""
sed 's/^opf_tuning_versions = .*/opf_tuning_versions = "opframe 0.0.1"/' "$file" >"$scratch/version.conf"
reject "other versions" "$scratch/version.conf" "it was measured with opframe and component versions \"opframe 0.0.1\""
sed '/^opf_tuning_isa = /d' "$file" >"$scratch/noisa.conf"
reject "no ISA set" "$scratch/noisa.conf" "it has no opf_tuning_isa"
if contains "$(sed -n 's/^opf_tuning_isa = //p' "$file")" avx2; then
    # The same CPU with a lower ISA level in force (op_base_isa_mask): another ISA set.
    reject "another ISA set" "$file" "it was measured with ISA set " OPF_MCA_op_base_isa_mask=sse2,sse4_1,avx
fi

# ---- 3b. a tuning file that cannot be read is said, as a tuning file ------------------------
# A path named by OPF_TUNE_FILE_USER / _SYSTEM that does not exist (a typo)
# is said once; a directory or a device is said as a tuning file, never as a
# parameter file. The default place (~/.opframe/tuning.conf) may be missing.
out=$(OPF_TUNE_FILE_USER="$scratch/no-such-tuning.conf" "$info" --all 2>&1 >/dev/null)
check "a named tuning file that does not exist: said" contains "$out" \
    "opframe: warning: tuning file $scratch/no-such-tuning.conf (named by OPF_TUNE_FILE_USER) does not exist; ignored"
check "... once" test "$(echo "$out" | grep -c 'no-such-tuning.conf')" -eq 1
out=$(OPF_TUNE_FILE_SYSTEM="$scratch/no-such-system.conf" "$info" 2>&1 >/dev/null)
check "a named system tuning file that does not exist: said" contains "$out" \
    "tuning file $scratch/no-such-system.conf (named by OPF_TUNE_FILE_SYSTEM) does not exist; ignored"
out=$(HOME=$scratch/home OPF_TUNE_FILE_USER= "$info" 2>&1 >/dev/null; unset OPF_TUNE_FILE_USER; HOME=$scratch/home "$info" 2>&1 >/dev/null)
check "the default place missing, or the variable empty: nothing said" lacks "$out" "tuning file"
out=$(OPF_TUNE_FILE_USER="$scratch" "$info" 2>&1 >/dev/null)
check "a tuning file that is a directory: said as a tuning file" contains "$out" \
    "opframe: warning: tuning file $scratch is a directory; ignored"
check "... not as a parameter file" lacks "$out" "parameter file"
out=$(OPF_TUNE_FILE_USER=/dev/zero "$info" 2>&1 >/dev/null)
check "a tuning file that never ends: said as a tuning file" contains "$out" \
    "opframe: warning: tuning file /dev/zero is larger than 1048576 bytes (not a tuning file?); ignored"
check "... not as a parameter file" lacks "$out" "parameter file"

# ---- 4. the cuda component's threshold, on the CPU stand-in ----------------------------
# Where the cuda component is available, opframe_tune times its mixed calls
# staged and on the host path (device memory from libcuda.so.1: here the
# stand-in's) and writes op_cuda_staging_min_count; without it, nothing.
check "no cuda threshold without the cuda component" lacks "$text" "op_cuda_staging_min_count"
stub=$top/test/cudastub/.libs
if [ -f "$stub/opf_op_cuda.so" ] && [ -e "$stub/libcuda.so.1" ]; then
    cfile=$scratch/cuda.conf
    OPF_MCA_mca_component_path=$stub LD_LIBRARY_PATH=$stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
        "$top/tools/opframe_tune" --quick --output "$cfile" 2>"$scratch/tune-cuda.err"
    check "opframe_tune --quick with the cuda component succeeds" test $? -eq 0
    ctext=$(cat "$cfile" 2>/dev/null)
    grep 'cuda' "$scratch/tune-cuda.err"
    check "the staged and host-path times at each count" contains "$ctext" \
        "# cuda: mixed synchronous calls (SUM FLOAT, host in, device inout), staged / on the host, us at each count: 1: "
    chosen=$(sed -n 's/^op_cuda_staging_min_count = \([0-9]*\)$/\1/p' "$cfile")
    case " 1 256 4096 8192 " in
    *" $chosen "*) check "op_cuda_staging_min_count is a count measured (or twice the largest): $chosen" true ;;
    *) check "op_cuda_staging_min_count is a count measured (or twice the largest), not '$chosen'" false ;;
    esac
    params=$(OPF_TUNE_FILE_USER="$cfile" OPF_MCA_mca_component_path=$stub LD_LIBRARY_PATH=$stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
        "$info" --param op cuda --level 9 2>&1)
    check "... read back from the tuning file" contains "$params" \
        "\"op_cuda_staging_min_count\" (current value: "
    check "... its source the tuning file" contains "$params" "data source: tuning file $cfile:"
    # No device: said in the file, nothing set.
    CUDASTUB_DEVICES=0 OPF_MCA_mca_component_path=$stub LD_LIBRARY_PATH=$stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
        "$top/tools/opframe_tune" --quick --output "$scratch/nodev.conf" 2>/dev/null
    ntext=$(cat "$scratch/nodev.conf" 2>/dev/null)
    check "no device: the file says why the threshold was not measured" contains "$ntext" \
        "# cuda: op_cuda_staging_min_count not measured: "
    check "... and sets none" lacks "$ntext" "op_cuda_staging_min_count = "
else
    echo "SKIP: the cuda threshold (no cuda component on the stand-in in this build)"
fi

summary
