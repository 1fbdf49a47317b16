#!/bin/bash
# fuzz/run.sh SECONDS TARGET... — builds the libFuzzer targets fuzz/fuzz_TARGET.cpp
# and runs each for SECONDS on a copy of its seed corpus (fuzz/corpus/TARGET).
# Called by `make fuzz`, which passes in the environment: srcdir, fuzz_build
# (the output directory), FUZZ_CXX, FUZZ_CPPFLAGS, FUZZ_LIBS and
# FUZZ_LIB_SOURCES (the library's sources: its .cpp files are compiled in,
# instrumented like the targets). A target fails on a crash, a hang (10 s on
# one input), a leak or any sanitizer report; its reproducer is left in
# $fuzz_build/TARGET-crash-* and the end of its log is shown.
# Ends with "fuzz: N targets, P passed, F failed"; exits nonzero on a failure.
set -u
seconds=$1
shift
cxx=${FUZZ_CXX:-clang++}
out=$fuzz_build
san="-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
cxxflags="-std=c++20 $san -ffp-contract=off -fno-fast-math"
mkdir -p "$out/obj"

# ---- the library, compiled in (rebuilt when any source or header is newer) ----
lib="$out/libopframe_fuzz.a"
if [ ! -f "$lib" ] || [ -n "$(find "$srcdir/framework" "$srcdir/base" "$srcdir/include" -newer "$lib" | head -n 1)" ]; then
    echo "fuzz: compiling the library with $cxx (ASan, UBSan, coverage)"
    rm -f "$out"/obj/*.o "$lib"
    objs=""
    for src in $FUZZ_LIB_SOURCES; do
        case $src in *.cpp) ;; *) continue ;; esac
        objs="$objs $src"
    done
    # two at a time: a CI machine has two cores
    if ! printf '%s\n' $objs | xargs -P "$(nproc 2>/dev/null || echo 2)" -I{} sh -c \
        'o="$0/obj/$(echo "$1" | tr / _).o"; '"$cxx $cxxflags -fsanitize=fuzzer-no-link $FUZZ_CPPFLAGS"' -c "$2/$1" -o "$o"' \
        "$out" {} "$srcdir"; then
        echo "fuzz: compiling the library failed"
        echo "fuzz: 0 targets, 0 passed, 1 failed"
        exit 1
    fi
    ar rcs "$lib" "$out"/obj/*.o
fi

# ---- each target -----------------------------------------------------------------
passed=0
failed=0
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$srcdir/test/components/lsan.supp"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1"
# Each target runs in a process of its own, as many at once as there are
# cores (libFuzzer runs one thread): on 2 cores, 3 targets of 60 s take ~120 s.
fuzz_one() {
    t=$1
    bin="$out/fuzz_$t"
    result="$out/$t.result"
    if ! $cxx $cxxflags -fsanitize=fuzzer $FUZZ_CPPFLAGS "$srcdir/fuzz/fuzz_$t.cpp" "$lib" $FUZZ_LIBS -o "$bin"; then
        echo "fuzz: $t: FAILED to build" >"$result"
        return
    fi
    corpus="$out/corpus/$t"
    mkdir -p "$corpus"
    [ -d "$srcdir/fuzz/corpus/$t" ] && cp "$srcdir/fuzz/corpus/$t"/* "$corpus/" 2>/dev/null
    log="$out/$t.log"
    # -close_fd_mask=2: the library's warnings go nowhere; libFuzzer and the
    # sanitizers keep their own copy of stderr (the log).
    "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=2 -print_final_stats=1 \
        -artifact_prefix="$out/$t-" "$corpus" >"$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)
    if [ $rc -eq 0 ] && [ -n "$took" ]; then
        echo "fuzz: $t: ok, ${runs:-?} executions in ${took} s, corpus $(ls "$corpus" | wc -l) inputs" >"$result"
    else
        {
            echo "fuzz: $t: FAILED (exit status $rc) after ${runs:-?} executions; reproducer: $(ls "$out/$t-"* 2>/dev/null | head -n 1)"
            grep -v '^#[0-9]' "$log" | tail -n 40 | sed 's/^/    | /'
        } >"$result"
    fi
}
running=0
for t in "$@"; do
    rm -f "$out/$t.result"
    if [ $running -ge "$(nproc 2>/dev/null || echo 2)" ]; then wait -n; running=$((running - 1)); fi
    fuzz_one "$t" &
    running=$((running + 1))
done
wait
for t in "$@"; do
    cat "$out/$t.result" 2>/dev/null || echo "fuzz: $t: FAILED (no result)"
    if grep -q "^fuzz: $t: ok" "$out/$t.result" 2>/dev/null; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "fuzz: $(($passed + $failed)) targets, $passed passed, $failed failed"
[ $failed -eq 0 ]
