# component_test.sh — sourced by the test drivers of one component
# (test/cuda_component.sh, test/opencl_component.sh). Set `component` first.
# Gives: $top, $dir (the component's build directory, the only one on
# mca_component_path), $info (opframe_info), $scratch (removed at exit),
# parameter files switched off, and check / status_line. The driver ends
# with: summary NAME.
top=${top_builddir:-.}
dir=$top/components/$component/.libs
info=$top/tools/opframe_info
failures=0
checks=0
scratch=$(mktemp -d "${TMPDIR:-/tmp}/opf_$component.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
OPF_MCA_mca_component_path=$dir
OPF_MCA_PARAM_FILE_USER=
OPF_MCA_PARAM_FILE_SYSTEM=
export OPF_MCA_mca_component_path OPF_MCA_PARAM_FILE_USER OPF_MCA_PARAM_FILE_SYSTEM

check() {   # check WHAT COMMAND...: counts, and reports a failure
    what=$1
    shift
    checks=$((checks + 1))
    if "$@"; then :; else
        echo "FAILED: $what"
        failures=$((failures + 1))
    fi
}

status_line() {   # the component's line of opframe_info, with the given environment
    env "$@" "$info" 2>&1 | grep "MCA op: $component"
}

summary() {   # summary NAME: the closing line, and the exit status
    echo "$1: $checks checks, $failures failed"
    [ $failures -eq 0 ]
}
