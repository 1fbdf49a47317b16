#!/bin/sh
# The conformance engine against every component built in this tree: each
# available component's own offers at every ISA level it can take, and the
# mixed table they produce, with the framework's self-test on as well. Every
# call runs on guarded buffers (guards after the true end and inside each
# element's padding, PROT_NONE pages after and before): the guard-page test.
set -e
check_name=conformance_components
. "$(dirname "$0")/check_lib.sh"
path=$(built_components_path)
OPF_MCA_mca_component_path=$path OPF_MCA_op_base_selftest=1 "$top/tools/opframe_info"
# The engine must catch what it claims to (wrong results, stray writes into
# guards and padding, faults against PROT_NONE pages) before its pass counts.
"$top/test/conformance" --self-test >/dev/null || { echo "conformance --self-test failed"; exit 1; }
OPF_MCA_mca_component_path=$path OPF_MCA_op_base_selftest=1 "$top/test/conformance" "$@"
