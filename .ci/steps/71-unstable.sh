# Debian unstable (sid): the next toolchain and Open MPI before any release
# has them (seen 2026-11: GCC 16.2, Open MPI 6.0.0 rc2, PMIx 7.0 rc1): the
# whole tree built (every compiler warning counted: the tree must build
# warning-free there too) and `make check`ed in a debootstrap chroot, then the bridge's test (quick form) against that
# Open MPI (contrib/openmpi/debian13.sh --unstable). Unstable moves daily:
# the log's first lines name the versions this run used. Where the root
# cannot be made (no mirror of unstable reachable, debootstrap or apt
# failing on the day's archive), the step is skipped, said, and counted as
# skipped, never as passed; a build or test that fails in a root that was
# made is a failure.
. "$CI_ROOT/.ci/lib.sh"
ci_wait_prepared
ci_install_debootstrap
out=$(mktemp -d)
log=$(mktemp)
bash "$CI_ROOT/contrib/openmpi/debian13.sh" --unstable --out "$out" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
if [ $rc = 77 ] || grep -q "^unstable: \(debootstrap\|apt-get install\) failed" "$log"; then
    ci_skip "Debian unstable root could not be made here ($(grep -m1 '^unstable: ' "$log" | cut -c1-120))"
    exit 0
fi
ci_report_automake "$out/test-suite.log"   # (the bridge's quick form among its tests)
if [ -f "$out/make.log" ]; then
    warnings=$(grep -c "warning:" "$out/make.log")
    if [ "$warnings" = 0 ]; then
        echo "unstable: the build printed no compiler warning"; ci_report 1 0
    else
        echo "unstable: the build printed $warnings compiler warnings:"; grep -A3 "warning:" "$out/make.log" | head -40
        ci_report 0 1; rc=1
    fi
fi
[ -f "$out/test-suite.log" ] && grep -E -A12 "^(FAIL|ERROR):" "$out/test-suite.log" | head -80
exit $rc
