# cross_conformance.sh — sourced by contrib/aarch64/check.sh and
# contrib/riscv64/check.sh: one run of the conformance engine cross-built for
# the emulated CPU, read the same way for every architecture.
#
#   conformance_run NAME DEPTH [ARG...]   DEPTH: --quick or --deep
#
# The caller defines run (the engine under QEMU, from $build/obj), fail, and
# the counters passed / failed, to which the run's checks are added; the log
# stays in $build/obj/conformance-NAME.log.
conformance_run() {
    name=$1
    depth=$2
    shift 2
    log=$build/obj/conformance-$name.log
    start=$(date +%s)
    # --no-threads: QEMU 7.2's user mode (Debian 12's qemu-user-static) never
    # returns from a guest's first pthread_create on these hosts (a two-line
    # std::thread program spins forever), and timings under emulation could
    # not show calls overlapping anyway; the thread check runs natively (CI's
    # deep step).
    if run test/.libs/conformance ${OPF_SEED:+--seed "$OPF_SEED"} --no-threads "$@" "$depth" \
        >"$log" 2>&1; then rc=0; else rc=$?; fi
    [ $rc != 124 ] || echo "$name: stopped after ${OPF_CROSS_TIMEOUT:-1200} s (OPF_CROSS_TIMEOUT)" >>"$log"
    grep -E '^(seed=|provider )' "$log" | sed 's/^/  /'
    summary=$(grep '^conformance: ' "$log" | tail -1)
    echo "  $summary ($(($(date +%s) - start)) s)"
    checks=$(echo "$summary" | sed -n 's/^conformance: [0-9]* slots[^,]*, \([0-9]*\) checks, \([0-9]*\) failed.*$/\1/p')
    bad=$(echo "$summary" | sed -n 's/^conformance: [0-9]* slots[^,]*, \([0-9]*\) checks, \([0-9]*\) failed.*$/\2/p')
    if [ -z "$checks" ]; then
        tail -20 "$log"
        fail "$name: conformance gave no summary (rc $rc, log $log)"
        return
    fi
    passed=$((passed + checks - bad))
    failed=$((failed + bad))
    if [ "$bad" != 0 ] || [ $rc != 0 ]; then
        grep -m 20 -i 'fail\|mismatch' "$log" | sed 's/^/    /'
        [ "$bad" != 0 ] || fail "$name: conformance exited $rc"
    fi
}

# nary_run NAME: every form of every available component's n-ary kernels
# against the base's (test/nary --providers-only: the round-once forms too,
# which the engine does not check), counted like the engine's checks.
nary_run() {
    nary_log=$build/obj/nary-$1.log   # (not $log: the callers read the engine's after this)
    if run test/.libs/nary --providers-only >"$nary_log" 2>&1; then rc=0; else rc=$?; fi
    summary=$(grep '^nary: ' "$nary_log" | tail -1)
    echo "  $(grep '^providers: ' "$nary_log") $summary"
    checks=$(echo "$summary" | sed -n 's/^nary: \([0-9]*\) checks, \([0-9]*\) failed$/\1/p')
    bad=$(echo "$summary" | sed -n 's/^nary: \([0-9]*\) checks, \([0-9]*\) failed$/\2/p')
    if [ -z "$checks" ] || [ "$rc" != 0 ]; then
        grep -m 10 FAILED "$nary_log" | sed 's/^/    /'
        tail -3 "$nary_log"
        fail "$1: test/nary --providers-only (rc $rc)"
        return
    fi
    passed=$((passed + checks - bad))
}
