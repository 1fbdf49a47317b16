#!/bin/sh
# The MX block formats' codecs and every pair of element codes, on every
# component built in this tree (test/mx_exhaustive.cpp says what is checked).
check_name=mx_exhaustive
. "$(dirname "$0")/check_lib.sh"
OPF_MCA_mca_component_path=$(built_components_path) "$top/test/mx_exhaustive" "$@"
