# Shared by .ci/run and the steps in .ci/steps/ (sourced).
# CI_ROOT: the clone; CI_RESULTS: a file of "passed failed step" lines.

# ci_report PASSED FAILED: add one step's counts to the final line.
ci_report() { echo "$1 $2 ${3:-$(basename "$0" .sh)}" >>"$CI_RESULTS"; }

# ci_report_automake LOG...: counts from automake test-suite.log files
# (a missing log is a failure).
ci_report_automake() {
    local log p f
    for log in "$@"; do
        if [ ! -f "$log" ]; then echo "missing $log"; ci_report 0 1; continue; fi
        p=$(awk '/^# PASS:/ {s += $3} END {print s + 0}' "$log")
        f=$(awk '/^# (FAIL|ERROR|XPASS):/ {s += $3} END {print s + 0}' "$log")
        ci_report "${p:-0}" "${f:-0}"
    done
}

# ci_copy_tree DIR: the tracked files of the clone, copied into DIR, for a
# build variant that must not share the main build's configuration.
ci_copy_tree() { (cd "$CI_ROOT" && git ls-files -z | xargs -0 cp --parents -t "$1"); }

ci_install_packages() {
    local packages="g++ make autoconf automake libtool libltdl-dev libhwloc-dev pkg-config
        libopenmpi-dev openmpi-bin ocl-icd-opencl-dev opencl-headers pocl-opencl-icd valgrind
        clang libclang-rt-14-dev"
    local p missing=""
    for p in $packages; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    echo "ci: installing$missing"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
}
