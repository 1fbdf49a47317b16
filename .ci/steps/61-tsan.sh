# ThreadSanitizer build: the thread, parameter and component tests (issue 12),
# built alone (the library, opframe_info and the test components).
# opframe_bench drops its target_clones ifunc under TSan (an ifunc resolver
# runs before the TSan runtime is up). --without-cuda: none of these tests
# loads it (steps 10, 15, 20 and 47 run the cuda component). Budget: about
# 3 min to build on 2 cores, 1-2 min to run.
. "$CI_ROOT/.ci/lib.sh"
dir=$(mktemp -d); ci_copy_tree "$dir"; cd "$dir"
san="-O1 -g1 -fno-omit-frame-pointer -fsanitize=thread"
export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}halt_on_error=1:second_deadlock_stack=1"
tests="test/threads test/hardening_threads test/workers test/params test/api_errors test/components.sh"
echo "tsan: $tests"
# Only what these tests need is built (`make check` would build every
# component and test program first), and they run through automake's
# harness as `make check` runs them.
logs=$(for t in $tests; do printf '%s.log ' "$t"; done)
./autogen.sh >/dev/null && ./configure -q --without-cuda CFLAGS="$san" CXXFLAGS="$san" LDFLAGS="-fsanitize=thread" \
    && make -j"$(nproc)" check-build-components $(for t in $tests; do case $t in *.sh) ;; *) echo "$t" ;; esac; done) >/dev/null \
    && make -j"$(nproc)" test-suite.log TEST_LOGS="$logs"; rc=$?
[ $rc -eq 0 ] || for t in $tests; do [ -f "$t.log" ] && grep -A30 'WARNING: ThreadSanitizer' "$t.log" | head -60; done
ci_report_automake "$dir/test-suite.log"
exit $rc
