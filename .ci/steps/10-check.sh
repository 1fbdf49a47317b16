# The README's test command.
. "$CI_ROOT/.ci/lib.sh"
cd "$CI_ROOT"
contrib/quickstart.sh check; rc=$?
ci_report_automake "$CI_ROOT/test-suite.log"
exit $rc
