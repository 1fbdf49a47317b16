#!/bin/sh
# MAX / MIN FLOAT and DOUBLE with sparse specials, on every component built
# in this tree (test/minmax_blocks.cpp says what is checked).
check_name=minmax_blocks
. "$(dirname "$0")/check_lib.sh"
OPF_MCA_mca_component_path=$(built_components_path) "$top/test/minmax_blocks" "$@"
