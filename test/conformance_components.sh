#!/bin/sh
# The conformance harness against every component built in this tree: each
# available component's own offers and the mixed table they produce, with
# the framework's self-test on as well.
set -e
top=${top_builddir:-.}
path=""
for dir in "$top"/components/*/; do
    path="$path${path:+:}${dir%/}"
done
OPF_MCA_mca_component_path=$path OPF_MCA_op_base_selftest=1 "$top/tools/opframe_info"
OPF_MCA_mca_component_path=$path OPF_MCA_op_base_selftest=1 exec "$top/test/conformance" "$@"
