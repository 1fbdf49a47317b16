#!/bin/sh
# Issue 26: test/nary with the components built in this tree (their n-ary
# kernels against the base's, streaming ones included), and with the example
# component only, which offers 3-buffer kernels and no n-ary one, so that
# the framework composes its 3-buffer kernel (the output must say so) and
# the base's n-ary kernels serve every other slot.
set -e
check_name=nary
. "$(dirname "$0")/check_lib.sh"
echo "test/nary: with the components of this tree, their streaming tier from 8 KiB"
OPF_MCA_op_avx2_stream_min_bytes=8K OPF_MCA_op_avx512_stream_min_bytes=8K \
OPF_MCA_mca_component_path="$(built_components_path)" "$top/test/nary"
echo "test/nary: the example component only (composed 3-buffer kernels)"
out=$(OPF_MCA_mca_component_path="$(built_components_path)" OPF_MCA_op=example "$top/test/nary")
echo "$out"
check "the example component's slots are composed" contains "$out" "composed: "
check "some slot is composed" lacks "$out" "composed: 0 slots"
summary
