#!/bin/sh
# fp8 on all 65,536 input pairs per op and format, on every component built
# in this tree (test/fp8_exhaustive.cpp says what is checked).
check_name=fp8_exhaustive
. "$(dirname "$0")/check_lib.sh"
OPF_MCA_mca_component_path=$(built_components_path) "$top/test/fp8_exhaustive" "$@"
