# component_test.sh — sourced by the test drivers of one component
# (test/cuda_component.sh, test/opencl_component.sh). Set `component` first.
# Gives: $top, $dir (the component's build directory, the only one on
# mca_component_path), $info (opframe_info), $scratch (removed at exit),
# and what test/check_lib.sh gives (check, summary, ...), plus status_line.
# The driver ends with: summary.
check_name=${check_name:-${component}_component}
. "$(dirname "$0")/check_lib.sh"
dir=$top/components/$component/.libs
info=$top/tools/opframe_info
OPF_MCA_mca_component_path=$dir
export OPF_MCA_mca_component_path

status_line() {   # the component's line of opframe_info, with the given environment
    env "$@" "$info" 2>&1 | grep "MCA op: $component"
}
