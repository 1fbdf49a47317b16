# Debian 13 (trixie: Open MPI 5.0.x, GCC 14): the whole tree built in a
# debootstrap chroot, then the Open MPI bridge's test against 5.0
# (contrib/openmpi/debian13.sh): its quick form with every case of ranks
# that differ (2 and 4 ranks; the odd rank 0, 1 or the last; off, absent,
# yielding). The whole matrix at 2 and 4 ranks, the deep form, runs on 4.1
# in step 15 (on 5.0 it cost this step 4 minutes); the other tests run in
# the builds of GCC 12 (steps 10-20), clang (30) and GCC 16 (71).
# The root is made by ci_prepare beside the earlier steps (debootstrap + apt:
# ~2-5 min), or was made earlier the same day.
. "$CI_ROOT/.ci/lib.sh"
ci_wait_prepared
ci_install_debootstrap
out=$(mktemp -d)
OPF_BRIDGE_DEPTH=quick OPF_BRIDGE_RANKS=all OPF_DEBIAN_TESTS=bridge bash "$CI_ROOT/contrib/openmpi/debian13.sh" --out "$out"; rc=$?
if [ $rc = 77 ]; then
    echo "debian13: could not make the chroot here (needs root and debootstrap): counted as a failure"
    ci_report 0 1
    exit 1
fi
ci_report_automake "$out/test-suite.log"
[ -f "$out/test-suite.log" ] && grep -E -A12 "^(FAIL|ERROR):" "$out/test-suite.log" | head -80
exit $rc
