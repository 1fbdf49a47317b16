# Fuzzing (issue 12): every libFuzzer target in fuzz/ (parameter file and
# value parsers; op list, pins, .la and ELF headers; derived types reduced on
# exact-span buffers) runs CI_FUZZ_SECONDS (default 15) on its seed corpus,
# built with clang + ASan + UBSan. Any crash, hang (10 s on one input), leak
# or sanitizer report fails the target. Counts: one per target. Budget: about
# 80 s to compile the library instrumented on 2 cores, then 15 s per target and its merge, two at a time.
. "$CI_ROOT/.ci/lib.sh"
dir=$(mktemp -d); ci_copy_tree "$dir"; cd "$dir"
seconds=${CI_FUZZ_SECONDS:-15}
echo "fuzz: each target for $seconds s"
./autogen.sh >/dev/null && ./configure -q && make fuzz FUZZ_SECONDS="$seconds" >fuzz.log 2>&1; rc=$?
grep -E '^fuzz:|^    \|' fuzz.log | grep -v '^    | *#[0-9]'
passed=$(sed -n 's/^fuzz: [0-9]* targets, \([0-9]*\) passed, [0-9]* failed$/\1/p' fuzz.log)
failed=$(sed -n 's/^fuzz: [0-9]* targets, [0-9]* passed, \([0-9]*\) failed$/\1/p' fuzz.log)
if [ -z "$passed" ]; then tail -30 fuzz.log; passed=0; failed=1; fi
[ $rc -eq 0 ] || [ "$failed" -gt 0 ] || failed=1
ci_report "$passed" "$failed"
exit $rc
