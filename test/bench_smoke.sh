#!/bin/sh
# Smoke run of opframe_bench: it must run and print a row per provider. Never
# a pass/fail on speed.
set -e
# Open MPI's MPI_Init/MPI_Finalize leak by design; opframe's own leaks are
# caught by the other tests, so LeakSanitizer stays off for this one.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
out=$("${top_builddir:-.}/tools/opframe_bench" --quick --sizes 4,4K)
echo "$out"
echo "$out" | grep -q ' opframe ' || { echo "bench_smoke: no opframe row"; exit 1; }
echo "$out" | grep -q ' memref ' || { echo "bench_smoke: no memory reference row"; exit 1; }
echo "bench_smoke: 2 checks, 0 failed"
