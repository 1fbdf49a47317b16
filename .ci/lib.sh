# Shared by .ci/run and the steps in .ci/steps/ (sourced).
# CI_ROOT: the clone; CI_RESULTS: a file of "passed failed step" lines.

# ci_report PASSED FAILED: add one step's counts to the final line.
ci_report() { echo "$1 $2 ${3:-$(basename "$0" .sh)}" >>"$CI_RESULTS"; }
# ci_skip WHY: the step could not run here (not a pass): .ci/run lists it
# above the final line.
ci_skip() { echo "ci: SKIPPED: $*"; echo "$(basename "$0" .sh): $*" >>"${CI_SKIPPED:-/dev/null}"; }

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

# ci_apt_install PACKAGE...: those not installed yet, with apt-get.
ci_apt_install() {
    local p missing=""
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    echo "ci: installing$missing"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

ci_install_packages() {
    ci_apt_install g++ make autoconf automake libtool libltdl-dev libhwloc-dev pkg-config \
        libopenmpi-dev libpmix-dev openmpi-bin ocl-icd-opencl-dev opencl-headers pocl-opencl-icd valgrind \
        clang libclang-rt-14-dev python3 cmake mandoc groff-base
    ci_install_python_modules
}

# ml_dtypes (and numpy) from PyPI for test/mx_ml_dtypes, the MX formats'
# independent check; no Debian package has it. A python3 without pip, or
# no route to PyPI, leaves the test to skip (77), which the log shows.
ci_install_python_modules() {
    python3 -c 'import ml_dtypes, numpy' 2>/dev/null && return 0
    python3 -m pip install -q ml_dtypes numpy 2>/dev/null ||
        python3 -m pip install -q --break-system-packages ml_dtypes numpy ||
        echo "ci: could not install ml_dtypes from PyPI: test/mx_ml_dtypes will skip"
}

# ---- what later steps fetch from the network, fetched beside the first ones ----
# .ci/run starts ci_prepare in the background after ci_install_packages: the
# aarch64 cross tool chain (step 80) and the Debian 13 and unstable roots
# (steps 70, 71) are downloads and unpacking, mostly waiting, so they
# overlap steps 10-30's compiling. A step that needs them calls ci_wait_prepared first (the root is
# also guarded by debian13.sh's own lock).
ci_install_aarch64_packages() {
    dpkg --print-foreign-architectures | grep -qx arm64 || {
        echo "ci: dpkg --add-architecture arm64"
        dpkg --add-architecture arm64 && apt-get update -qq
    }
    ci_apt_install g++-aarch64-linux-gnu qemu-user-static file libltdl-dev:arm64 libhwloc-dev:arm64
}
ci_install_debootstrap() { ci_apt_install debootstrap; }
ci_prepare() {   # in the background; writes $CI_PREPARED.log, then $CI_PREPARED
    {
        start=$(date +%s)
        ci_install_aarch64_packages && echo "ci prepare: aarch64 tool chain ready"
        ci_install_debootstrap && nice bash "$CI_ROOT/contrib/openmpi/debian13.sh" --prepare
        # unstable's root may fail to be made (its archive moves daily): step 71 says so
        nice bash "$CI_ROOT/contrib/openmpi/debian13.sh" --unstable --prepare ||
            echo "ci prepare: the Debian unstable root could not be made (step 71 will say)"
        echo "ci prepare: done in $(( $(date +%s) - start )) s"
    } >"$CI_PREPARED.log" 2>&1
    touch "$CI_PREPARED"
}
ci_wait_prepared() {
    [ -n "${CI_PREPARED:-}" ] || return 0   # a step run by hand prepares for itself
    while [ ! -f "$CI_PREPARED" ]; do sleep 5; done
    cat "$CI_PREPARED.log"
}
