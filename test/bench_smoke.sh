#!/bin/sh
# Smoke run of opframe_bench: it must run and print a row per provider, for
# 2 and 3 buffers, and its summary. Never a pass/fail on speed.
set -e
# Open MPI's MPI_Init/MPI_Finalize leak by design; opframe's own leaks are
# caught by the other tests, so LeakSanitizer stays off for this one.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
bench="${top_builddir:-.}/tools/opframe_bench"
checks=0 failed=0
expect() {   # expect WHAT PATTERN TEXT: TEXT has a line matching PATTERN (ERE)
    checks=$((checks + 1))
    if ! printf '%s\n' "$3" | grep -Eq "$2"; then
        echo "bench_smoke: FAIL: $1 (no line matching '$2')"
        failed=$((failed + 1))
    fi
}

out=$("$bench" --quick --sizes 4,4K)
echo "$out"
expect "opframe row" ' opframe ' "$out"
expect "memory reference row" ' memref ' "$out"

# 3 buffers: opf_reduce_local3, the base's 3-buffer kernel and the 3-buffer
# roofline; the summary names every measured provider of each form.
out=$("$bench" --quick --sizes 4,4K --buffers 2,3 --op MAX --type DOUBLE)
echo "$out"
expect "3-buffer header" '^# .*3-buffer \(out = in1 op in2\)' "$out"
expect "3-buffer opframe row" '^MAX +DOUBLE +3 +4096 opframe ' "$out"
expect "3-buffer base row" '^MAX +DOUBLE +3 +4096 base ' "$out"
expect "3-buffer memref row" '^MAX +DOUBLE +3 +4096 memref ' "$out"
expect "2-buffer rows as well" '^MAX +DOUBLE +2 +4096 opframe ' "$out"
expect "summary, 3-buffer base" '^3 +MAX +DOUBLE +base .* @ ' "$out"

# CSV: one header, the buffer count in the last column, the summary as comments.
out=$("$bench" --quick --sizes 64 --buffers 3 --csv)
echo "$out"
expect "csv header" '^op,type,bytes,count,provider,ns_per_call,GBps,vs_ompi,of_ref,buffers,align,served,data$' "$out"
expect "csv 3-buffer row" '^SUM,FLOAT,64,16,opframe,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+,3,16,1,random$' "$out"
expect "csv summary as comment" '^# 3 +SUM +FLOAT +opframe ' "$out"

# --threads: applied, or a note that this build has no op_base_threads.
out=$("$bench" --quick --sizes 4 --threads 2)
echo "$out"
expect "--threads reported" '^# (op_base_threads = 2|--threads 2 )' "$out"

# Names in any case, printed in the library's spelling; with Open MPI in the
# build, lower-case names still get the comparison, and a slot without an MPI
# peer says why instead of dropping the row silently.
out=$("$bench" --quick --sizes 1K --op max --type Double)
echo "$out"
expect "lower-case op and type" '^MAX +DOUBLE +2 +1024 opframe ' "$out"
if printf '%s\n' "$out" | grep -q '^# compared with: Open MPI'; then
    expect "ompi row for lower-case names" '^MAX +DOUBLE +2 +1024 ompi ' "$out"
    out=$("$bench" --quick --sizes 1K --op sum --type float16)
    expect "no MPI peer said" '^# no Open MPI comparison for SUM FLOAT16: MPI has no datatype' "$out"
fi

# --align 64,16: every row at both alignments; the summary names where.
out=$("$bench" --quick --sizes 1K --align 64,16)
echo "$out"
expect "64-byte aligned row" '^SUM +FLOAT +2 +1024 opframe .* 64 random$' "$out"
expect "16-byte aligned row" '^SUM +FLOAT +2 +1024 opframe .* 16 random$' "$out"
expect "summary with alignment" '^2 +SUM +FLOAT +opframe .* @ 1024/(64|16)/random' "$out"
expect "the selection's cost per alignment" '^the full call below 0.97 \(0.90\) of the fastest opframe provider: [0-9]+ \([0-9]+\) of [0-9]+ cells at 16; [0-9]+ \([0-9]+\) of [0-9]+ cells at 64;' "$out"
expect "the selected kernel's cost per alignment" '^the selected kernel \(timed directly\) below 0.97 \(0.90\) of the fastest opframe provider: [0-9]+ \([0-9]+\) of [0-9]+ cells at 16; [0-9]+ \([0-9]+\) of [0-9]+ cells at 64;' "$out"

# --data: each kind a row of its own, named; runs only for pair types; the
# header says what each kind is; SUM's 2-buffer calls alternate with the inverse.
out=$("$bench" --quick --sizes 1K --op MAX,MAXLOC --type FLOAT,FLOAT_INT --data integers,sparse,runs)
echo "$out"
expect "integers row" '^MAX +FLOAT +2 +1024 opframe .* integers$' "$out"
expect "sparse row" '^MAX +FLOAT +2 +1024 opframe .* sparse$' "$out"
expect "runs row for a pair type" '^MAXLOC +FLOAT_INT +2 +1024 opframe .* runs$' "$out"
checks=$((checks + 1))
if printf '%s\n' "$out" | grep -Eq '^MAX +FLOAT +.* runs$'; then
    echo "bench_smoke: FAIL: runs timed on a type that is not a pair"; failed=$((failed + 1))
fi
expect "the kinds said" '^# data sparse: random, one in 1,000 a NaN' "$out"
out=$("$bench" --quick --sizes 1K --data all --op SUM --type FLOAT16)
expect "--data all: ones" '^SUM +FLOAT16 +2 +1024 opframe .* ones$' "$out"

# Issue 34: --providers times only the rows named (ompi and memref included);
# --quick gives way to explicit --sizes and --samples, in either order; a
# provider timed below the least count it offers the slot for is marked "*"
# (the test component tier offers SUM INT32 from 1000 elements).
out=$("$bench" --quick --sizes 1K --providers base)
echo "$out"
expect "--providers base: its row" '^SUM +FLOAT +2 +1024 base ' "$out"
checks=$((checks + 1))
if printf '%s\n' "$out" | grep -Eq ' (opframe|memref|ompi) +[0-9]'; then
    echo "bench_smoke: FAIL: --providers base timed other rows"; failed=$((failed + 1))
fi
out=$("$bench" --providers memref,opframe --sizes 64 --quick)
expect "--providers memref,opframe: memref row" '^SUM +FLOAT +2 +64 memref ' "$out"
expect "--sizes before --quick wins" '^SUM +FLOAT +2 +64 opframe ' "$out"
checks=$((checks + 1))
if printf '%s\n' "$out" | grep -Eq '^SUM +FLOAT +2 +(4|1024|65536) '; then
    echo "bench_smoke: FAIL: --quick overrode --sizes given before it"; failed=$((failed + 1))
fi
out=$("$bench" --samples 2 --quick --sizes 64 --providers opframe)
expect "--samples before --quick wins" '^# opframe_bench .*median of 2 samples' "$out"
tier=${top_builddir:-.}/test/components/opf_op_tier.so
if [ -f "$tier" ]; then
    tdir=$(mktemp -d "${TMPDIR:-/tmp}/opf_bench_tier.XXXXXX")
    cp "$tier" "$tdir/"
    out=$(OPF_MCA_mca_component_path=$tdir "$bench" --quick --op SUM --type INT32_T --sizes 64,8K --providers tier)
    echo "$out"
    expect "tier below its min_count: marked" '^SUM +INT32_T +2 +64 tier\* ' "$out"
    expect "tier from its min_count: not marked" '^SUM +INT32_T +2 +8192 tier ' "$out"
    expect "the mark's legend" '^# \*: timed at a count below the least count' "$out"
    out=$(OPF_MCA_mca_component_path=$tdir "$bench" --quick --op SUM --type INT32_T --sizes 64 --providers tier --csv)
    expect "csv: served=0" '^SUM,INT32_T,64,16,tier,.*,0,random$' "$out"
    rm -rf "$tdir"
else
    echo "bench_smoke: no $tier (make check builds it): the '*' mark not checked"
fi

# Bad values are refused with status 2.
for bad in "--buffers 4" "--buffers ,," "--threads two" "--align 32" "--op summ" "--type flaot" "--data zeros" \
           "--providers nosuch" "--sizes 1K --min 64" "--samples 0" "--samples many"; do
    checks=$((checks + 1))
    # shellcheck disable=SC2086
    if "$bench" $bad >/dev/null 2>&1; then echo "bench_smoke: FAIL: '$bad' accepted"; failed=$((failed + 1))
    elif [ $? -ne 2 ]; then echo "bench_smoke: FAIL: '$bad' not status 2"; failed=$((failed + 1)); fi
done

echo "bench_smoke: $checks checks, $failed failed"
[ "$failed" -eq 0 ]
