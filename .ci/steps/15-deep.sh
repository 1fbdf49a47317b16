# The deep tier on step 10's build: `make check-deep`, the same tests as the
# README's test command in their deep forms (the conformance engine at every
# ISA level and all lengths with the exhaustive 16-bit runs, for every
# component and the streaming tier; the Open MPI bridge at 2 and 4 ranks on
# the whole matrix in every case, and under valgrind; the cuda stand-in's
# mutation runs under cuda_conformance). Steps 40, 46 and 47 add what is not
# a make-check test at all.
. "$CI_ROOT/.ci/lib.sh"
cd "$CI_ROOT"
make -j"$(nproc)" check-deep TEST_SUITE_LOG=test-suite-deep.log; rc=$?
ci_report_automake "$CI_ROOT/test-suite-deep.log" "$CI_ROOT/test-suite-deep-mpi.log"
[ $rc -eq 0 ] || grep -E -A12 '^(FAIL|ERROR):' test-suite-deep.log test-suite-deep-mpi.log | head -80
exit $rc
