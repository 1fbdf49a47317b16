# check_lib.sh — what every shell test of the project shares; sourced after
# setting `check_name` (the test's name: in its scratch directory's name and
# its closing line). Gives: $top (the build directory), $scratch (a fresh
# directory removed at exit), parameter files switched off (a developer's
# ~/.opframe must not steer a test), check / contains / lacks, and summary,
# the closing "NAME: N checks, N failed" line with the exit status.
top=${top_builddir:-.}
failures=0
checks=0
scratch=$(mktemp -d "${TMPDIR:-/tmp}/opf_$check_name.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
OPF_MCA_PARAM_FILE_USER=
OPF_MCA_PARAM_FILE_SYSTEM=
export OPF_MCA_PARAM_FILE_USER OPF_MCA_PARAM_FILE_SYSTEM

check() {   # check WHAT COMMAND...: counts, and reports a failure
    what=$1
    shift
    checks=$((checks + 1))
    if "$@"; then :; else
        echo "FAILED: $what"
        failures=$((failures + 1))
    fi
}
contains() { case $1 in *"$2"*) return 0 ;; esac; return 1; }
lacks() { ! contains "$@"; }

summary() {   # summary [NAME]: the closing line, and the exit status
    echo "${1:-$check_name}: $checks checks, $failures failed"
    [ $failures -eq 0 ]
}

# Every component directory built in this tree, as a mca_component_path.
built_components_path() {
    path=""
    for dir in "$top"/components/*/; do
        path="$path${path:+:}${dir%/}"
    done
    echo "$path"
}
