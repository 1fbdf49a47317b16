#!/bin/sh
# opframe_check, the installed conformance tool, as a
# component writer runs it (opframe_check(1)): their component file in a
# directory of its own, named with --mca mca_component_path, checked with
# --provider NAME --quick. The example component passes; the test component
# `wrong` (broken SUM INT32 on purpose) fails with the slot named; a provider
# that is not there, and bad options, are refused before anything runs.
set -u
check_name=check_opframe_check
. "$(dirname "$0")/../test/check_lib.sh"
tool=$top/tools/opframe_check
example=$top/components/example/.libs/opf_op_example.so
[ -f "$example" ] || { echo "SKIP: no $example (make first)"; exit 77; }
mkdir -p "$scratch/mine"
cp "$example" "$scratch/mine/"
started=$(date +%s)

out=$("$tool" --mca mca_component_path "$scratch/mine" --provider example --quick 2>&1)
rc=$?
echo "$out" | grep '^provider \|^conformance:'
check "the example passes (exit $rc)" test $rc = 0
slots=$(echo "$out" | sed -n 's/^provider example: \([0-9]*\) slots, \([0-9]*\) checks, 0 failed.*/\1/p')
check "every slot the example offers is checked ('$slots' slots)" test "${slots:-0}" -gt 0
check "only the example (and no other provider) is checked" \
    test "$(echo "$out" | grep -c '^provider ')" = 1

out=$("$tool" --mca mca_component_path "$scratch/mine" --list 2>&1)
check "--list names the example as available" contains "$out" "example: available"

# A defect is found and named: the test component with a wrong SUM INT32.
wrong=$top/test/components/opf_op_wrong.so
if [ -f "$wrong" ]; then
    mkdir -p "$scratch/wrong"
    cp "$wrong" "$scratch/wrong/opf_op_wrong.so"
    out=$("$tool" --mca mca_component_path "$scratch/wrong" --provider wrong --quick --max-failures 2 2>&1)
    rc=$?
    check "a wrong kernel fails the run (exit $rc)" test $rc = 1
    check "the failure names the slot and provider" contains "$out" "op=SUM type=INT32 provider=wrong"
else
    echo "SKIP: no $wrong (make check builds it): the failing case"
fi

# Refused before anything runs, with the reason.
out=$("$tool" --mca mca_component_path "$scratch/mine" --provider exmaple 2>&1)
rc=$?
check "a provider that is not there is refused (exit $rc)" test $rc = 2
check "  ... with the components there are" contains "$out" 'no component "exmaple" on mca_component_path'
check "  ... naming the example" contains "$out" "components: example"
out=$("$tool" --frobnicate 2>&1)
check "an unknown option is refused" test $? = 2
check "  ... and named" contains "$out" "unknown option '--frobnicate'"
out=$("$tool" --provider 2>&1)
check "--provider without a name is refused" test $? = 2
out=$("$tool" --max-failures many 2>&1)
check "--max-failures many is refused" test $? = 2
out=$("$tool" --mca op_base_verbose loud 2>&1)
check "a --mca value opframe refuses is refused ($out)" test $? = 2
out=$("$tool" --help 2>&1)
check "--help names --provider" contains "$out" "--provider NAME"

echo "($(($(date +%s) - started)) s)"
summary
