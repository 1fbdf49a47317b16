#!/bin/sh
# Issue 26: test/nary on the base alone, then with the components built in
# this tree (their n-ary kernels against the base's, and the framework's
# composition of 3-buffer kernels where a component offers none).
set -e
check_name=nary
. "$(dirname "$0")/check_lib.sh"
echo "test/nary: the base alone"
OPF_MCA_mca_component_path= "$top/test/nary"
echo "test/nary: with the components of this tree"
OPF_MCA_mca_component_path="$(built_components_path)" "$top/test/nary"
