# Debian 13 (trixie: Open MPI 5.0.x, GCC 14): the whole tree built and
# `make check`ed (quick form) in a debootstrap chroot, then the Open MPI
# bridge's test against 5.0 in its deep form (contrib/openmpi/debian13.sh).
# The root is made by ci_prepare beside the earlier steps (debootstrap + apt:
# ~2-5 min), or was made earlier the same day.
. "$CI_ROOT/.ci/lib.sh"
ci_wait_prepared
ci_install_debootstrap
out=$(mktemp -d)
bash "$CI_ROOT/contrib/openmpi/debian13.sh" --out "$out"; rc=$?
if [ $rc = 77 ]; then
    echo "debian13: could not make the chroot here (needs root and debootstrap): counted as a failure"
    ci_report 0 1
    exit 1
fi
ci_report_automake "$out/test-suite.log" "$out/bridge-deep.log"
for log in "$out/test-suite.log" "$out/bridge-deep.log"; do [ -f "$log" ] && grep -E "^(FAIL|ERROR):" "$log" | head -20; done
exit $rc
