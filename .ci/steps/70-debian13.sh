# Debian 13 (trixie: Open MPI 5.0.x, GCC 14): the whole tree built and
# `make check`ed in a debootstrap chroot, the Open MPI bridge's test against
# 5.0 included (contrib/openmpi/debian13.sh). Budget: ~12 min on 2 cores when
# the day's root must be made (debootstrap + apt: ~2-5 min), less after.
. "$CI_ROOT/.ci/lib.sh"
if ! command -v debootstrap >/dev/null; then
    echo "ci: installing debootstrap"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
fi
out=$(mktemp -d)
bash "$CI_ROOT/contrib/openmpi/debian13.sh" --out "$out"; rc=$?
if [ $rc = 77 ]; then
    echo "debian13: could not make the chroot here (needs root and debootstrap): counted as a failure"
    ci_report 0 1
    exit 1
fi
ci_report_automake "$out/test-suite.log"
[ -f "$out/test-suite.log" ] && grep -E '^(FAIL|ERROR):' "$out/test-suite.log" | head -20
exit $rc
