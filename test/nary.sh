#!/bin/sh
# Issue 26: test/nary on the base alone; with the components built in this
# tree (their n-ary kernels against the base's); and with the example
# component only, which offers 3-buffer kernels and no n-ary one, so that
# the framework composes its 3-buffer kernel (the output must say so).
set -e
check_name=nary
. "$(dirname "$0")/check_lib.sh"
echo "test/nary: the base alone"
OPF_MCA_mca_component_path= "$top/test/nary"
echo "test/nary: with the components of this tree"
OPF_MCA_mca_component_path="$(built_components_path)" "$top/test/nary"
echo "test/nary: the example component only (composed 3-buffer kernels)"
out=$(OPF_MCA_mca_component_path="$(built_components_path)" OPF_MCA_op=example "$top/test/nary")
echo "$out"
check "the example component's slots are composed" contains "$out" "composed: "
check "some slot is composed" lacks "$out" "composed: 0 slots"
summary
