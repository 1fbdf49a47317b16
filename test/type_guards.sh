#!/bin/sh
# A kernel type's lines, each taken out in turn, fail the build with a
# message naming what is missing (docs/design.md, "Adding a datatype"): the
# probe (test/type_guards_probe.cpp: every kernel type's rounding and NaN
# rule) and framework/datatype.cpp are compiled (-fsyntax-only) against a copy
# of the headers with one line of FLOAT8_E4M3FNUZ, FLOAT8_E5M2FNUZ or NVFP4
# removed (or NVFP4's datatype row given a group whose ops it lacks).
# The unmutated headers must compile, each mutation must fail with its message.
check_name=type_guards
. "$(dirname "$0")/check_lib.sh"
src=$(cd "$(dirname "$0")/.." && pwd)
cxx=${CXX:-g++}
command -v "$cxx" >/dev/null 2>&1 || { echo "type_guards: SKIP (no $cxx)"; exit 77; }
scratch=$(mktemp -d "${TMPDIR:-/tmp}/opf_type_guards.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

compile() {   # compile DIR FILE: -fsyntax-only with DIR's headers first
    "$cxx" -std=c++20 -fsyntax-only -I"$1" -I"$1/include" -I"$src" -I"$src/include" -I"$top" "$2" 2>&1
}
# mutation NAME FILE SED MESSAGE TU: FILE edited by the sed script SED (a
# type's lines deleted); compiling TU must fail and print MESSAGE
mutation() {
    name=$1 file=$2 script=$3 message=$4 tu=$5
    dir=$scratch/$name
    mkdir -p "$dir/$(dirname "$file")"
    sed -e "$script" "$src/$file" > "$dir/$file"
    if cmp -s "$src/$file" "$dir/$file"; then
        echo "FAILED: $name: '$script' changes nothing in $file (the test is out of date)"
        failures=$((failures + 1)); checks=$((checks + 1)); return
    fi
    out=$(compile "$dir" "$tu")
    rc=$?
    check "$name: the build fails (rc $rc)" test $rc -ne 0
    check "$name: the message says '$message'" sh -c 'printf "%s\n" "$1" | grep -qF -- "$2"' - "$out" "$message"
}

probe=$src/test/type_guards_probe.cpp
datatype=$src/framework/datatype.cpp
check "the probe compiles against the tree's headers" sh -c 'out=$("$@") || { printf "%s\n" "$out" | head -5; false; }' - \
    "$cxx" -std=c++20 -fsyntax-only -I"$src" -I"$src/include" -I"$top" "$probe"
mutation row base/type_description.h '/X(FLOAT8_E4M3FNUZ/d' "OPF_KERNEL_TYPES: one row per OPF_KT_* id" "$probe"
mutation rounding base/storage.h '/^template <> struct FromFloat<Float8E4M3Fnuz> {$/,/^};$/d' \
    "FromFloat<opf::base::Float8E4M3Fnuz>" "$probe"
mutation nan-rule base/compare.h '/Float8E4M3Fnuz> || std::is_same_v<T, Float8E5M2Fnuz>)/,+1d' \
    "same_value: a narrow type of type_description.h has no NaN rule here" "$probe"
mutation id include/opframe/kernel.h 's/OPF_KT_FLOAT8_E4M3FNUZ, OPF_KT_FLOAT8_E5M2FNUZ,/OPF_KT_FLOAT8_E4M3FNUZ,/' \
    "OPF_KT_FLOAT8_E5M2FNUZ" "$probe"
# NVFP4, a block format: its row, its id
mutation nvfp4-row base/type_description.h '/X(NVFP4/d' "OPF_KERNEL_TYPES: one row per OPF_KT_* id" "$probe"
mutation nvfp4-id include/opframe/kernel.h '/^    OPF_KT_NVFP4,$/d' "OPF_KT_NVFP4" "$probe"
# the datatype row's group promising an op its functors lack (BAND on a float)
dir=$scratch/group
mkdir -p "$dir/framework"
sed 's/"FLOAT8_E5M2FNUZ", OPF_KT_FLOAT8_E5M2FNUZ, G::Floating/"FLOAT8_E5M2FNUZ", OPF_KT_FLOAT8_E5M2FNUZ, G::CInteger/' \
    "$datatype" > "$dir/framework/datatype.cpp"
out=$(compile "$dir" "$dir/framework/datatype.cpp")
rc=$?
check "group: the build fails (rc $rc)" test $rc -ne 0
check "group: the message names PromisedOps<row>" sh -c 'printf "%s\n" "$1" | grep -q "PromisedOps<[0-9]*>"' - "$out"
# NVFP4's datatype row in the floating group: PROD promised, which a block's functors lack
dir=$scratch/nvfp4-group
mkdir -p "$dir/framework"
sed 's/"NVFP4", OPF_KT_NVFP4, G::Block/"NVFP4", OPF_KT_NVFP4, G::Floating/' "$datatype" > "$dir/framework/datatype.cpp"
out=$(compile "$dir" "$dir/framework/datatype.cpp")
rc=$?
check "nvfp4-group: the build fails (rc $rc)" test $rc -ne 0
check "nvfp4-group: the message names PromisedOps<row>" sh -c 'printf "%s\n" "$1" | grep -q "PromisedOps<[0-9]*>"' - "$out"
summary type_guards
