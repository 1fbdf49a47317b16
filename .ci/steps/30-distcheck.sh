# make distcheck from the main build (step 10 configured it).
. "$CI_ROOT/.ci/lib.sh"
cd "$CI_ROOT"
make -j"$(nproc)" distcheck >distcheck.log 2>&1; rc=$?
[ $rc -eq 0 ] || tail -40 distcheck.log
grep -E '^(=+|opframe-.*archives ready)' distcheck.log | tail -3
if [ $rc -eq 0 ]; then ci_report 1 0; else ci_report 0 1; fi
exit $rc
