#!/bin/sh
# components.sh — the component system end to end: builds scratch component
# directories from the test components (test/components/, built by make check),
# runs test/component_system on them (op lists, priorities and per-slot mixing,
# pins, self-test, size tiers, broken files, load/unload cycles), checks what
# opframe_info shows, builds components/example out of tree with only
# pkg-config and Makefile.example and drops it in, and runs the load/unload
# cycles under valgrind when it is installed.
#
# Needs $top_builddir (TESTS_ENVIRONMENT) and $srcdir (automake); both default
# to "." for a run by hand from the top of the build tree. Ends with
# "components: N checks, F failed"; exits nonzero on any failure.
set -e

top_builddir=${top_builddir:-.}
srcdir=${srcdir:-.}
abs_top_builddir=$(cd "$top_builddir" && pwd)
abs_srcdir=$(cd "$srcdir" && pwd)
CC=${CC:-cc}
info="$abs_top_builddir/tools/opframe_info"
program="$abs_top_builddir/test/component_system"
libs="$abs_top_builddir/test/components"

checks=0
failed=0
pass() { checks=$((checks + 1)); }
fail() {
    checks=$((checks + 1))
    failed=$((failed + 1))
    echo "components: FAILED: $*" >&2
}

T=$(mktemp -d "${TMPDIR:-/tmp}/opf_components.XXXXXX")
trap 'rm -rf "$T"' EXIT
trap 'exit 1' HUP INT TERM

# No OPF_MCA_* of the caller and no parameter file may change what we expect.
for v in $(env | sed -n 's/^\(OPF_MCA_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
OPF_MCA_PARAM_FILE_USER=
OPF_MCA_PARAM_FILE_SYSTEM=
export OPF_MCA_PARAM_FILE_USER OPF_MCA_PARAM_FILE_SYSTEM

# Sanitizer builds: LeakSanitizer stays on, minus what hwloc_topology_load
# leaks (test/components/lsan.supp); that needs full malloc stacks. Harmless
# in other builds.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$abs_srcdir/test/components/lsan.supp"
export ASAN_OPTIONS LSAN_OPTIONS

# ---- helpers -------------------------------------------------------------------

# expect_grep DESC FILE ERE: FILE has a line matching ERE.
expect_grep() {
    if grep -Eq -- "$3" "$2"; then
        pass
    else
        fail "$1: no line matches /$3/ in:"
        sed 's/^/    | /' "$2" >&2
    fi
}

# expect_no_grep DESC FILE ERE: no line of FILE matches ERE.
expect_no_grep() {
    if grep -Eq -- "$3" "$2"; then
        fail "$1: a line matches /$3/:"
        grep -E -- "$3" "$2" | sed 's/^/    | /' >&2
    else
        pass
    fi
}

# run_info PATH OUT ARGS...: opframe_info with mca_component_path PATH; stdout
# to OUT, stderr to OUT.err, exit status in $info_rc.
run_info() {
    _path=$1
    _out=$2
    shift 2
    if OPF_MCA_mca_component_path=$_path "$info" "$@" >"$_out" 2>"$_out.err"; then info_rc=0; else info_rc=$?; fi
}

# expect_rc DESC GOT EXPECTED
expect_rc() {
    if [ "$2" -eq "$3" ]; then pass; else fail "$1: exit status $2, expected $3"; fi
}

# run_program ARGS...: test/component_system with ARGS; adds its counts to ours.
run_program() {
    _log="$T/component_system.log"
    if "$@" >"$_log" 2>&1; then _rc=0; else _rc=$?; fi
    cat "$_log"
    _line=$(grep -E '^component_system: [0-9]+ checks, [0-9]+ failed$' "$_log" | tail -n 1)
    if [ -z "$_line" ]; then
        fail "$* did not finish (exit status $_rc): a crash?"
        return 0
    fi
    _n=$(echo "$_line" | sed 's/^component_system: \([0-9]*\) checks, \([0-9]*\) failed$/\1/')
    _f=$(echo "$_line" | sed 's/^component_system: \([0-9]*\) checks, \([0-9]*\) failed$/\2/')
    checks=$((checks + _n))
    failed=$((failed + _f))
    if [ "$_rc" -ne 0 ] && [ "$_f" -eq 0 ]; then fail "$*: exit status $_rc with no failed check"; fi
    return 0
}

# json_ok DESC FILE: FILE is well-formed JSON (python3), or at least an array.
json_ok() {
    if [ -n "$python" ]; then
        if "$python" -m json.tool "$2" >/dev/null 2>"$2.json_err"; then
            pass
        else
            fail "$1: not valid JSON: $(cat "$2.json_err")"
            sed 's/^/    | /' "$2" >&2
        fi
    elif [ "$(head -c 1 "$2")" = "[" ] && [ "$(tail -n 1 "$2")" = "]" ]; then
        pass
    else
        fail "$1: not a JSON array"
    fi
}

python=$(command -v python3 || true)

# ---- the component directories ------------------------------------------------------

for c in alpha beta wrong tier refuse empty abi abiv1 nosym mismatch fw devfail greedy; do
    if [ ! -f "$libs/opf_op_$c.so" ]; then
        echo "components: $libs/opf_op_$c.so is missing (the test components are built by 'make check')" >&2
        echo "components: 1 checks, 1 failed"
        exit 1
    fi
done
mkdir "$T/good" "$T/selftest" "$T/tier" "$T/broken" "$T/dup" "$T/deplib" "$T/needdep_ok" "$T/device"
cp "$libs/opf_op_alpha.so" "$libs/opf_op_beta.so" "$T/good/"
cp "$libs/opf_op_alpha.so" "$libs/opf_op_beta.so" "$libs/opf_op_wrong.so" "$T/selftest/"
cp "$libs/opf_op_alpha.so" "$libs/opf_op_beta.so" "$libs/opf_op_tier.so" "$T/tier/"
for c in alpha refuse empty abi abiv1 nosym mismatch fw; do cp "$libs/opf_op_$c.so" "$T/broken/"; done
cp "$libs/opf_op_alpha.so" "$libs/opf_op_devfail.so" "$T/device/"
mkdir "$T/nary"
cp "$libs/opf_op_alpha.so" "$libs/opf_op_narya.so" "$T/nary/"
cp "$libs/opf_op_alpha.so" "$T/dup/"
echo "this is not a shared object" >"$T/broken/opf_op_garbage.so"

# needdep links against libopfdep.so, which is deleted once it is built: a
# library dependency libltdl cannot resolve. First a control: with the library
# present the component loads.
if "$CC" -shared -fPIC -o "$T/deplib/libopfdep.so" "$abs_srcdir/test/components/opfdep.c" &&
    "$CC" -std=c99 -shared -fPIC -fvisibility=hidden -I"$abs_srcdir/include" -o "$T/needdep_ok/opf_op_needdep.so" \
        "$abs_srcdir/test/components/opf_op_needdep.c" -L"$T/deplib" -Wl,-rpath,"$T/deplib" -lopfdep \
        -L"$abs_top_builddir/.libs" -lopframe; then
    pass
    run_info "$T/needdep_ok" "$T/needdep_ok.txt"
    expect_grep "needdep loads while libopfdep.so exists" "$T/needdep_ok.txt" 'MCA op: needdep \(.*\) available$'
    cp "$T/needdep_ok/opf_op_needdep.so" "$T/broken/"
    rm -f "$T/deplib/libopfdep.so"
else
    fail "cannot build opf_op_needdep.so with $CC"
fi

OPF_TEST_DIR_GOOD="$T/good"
OPF_TEST_DIR_SELFTEST="$T/selftest"
OPF_TEST_DIR_TIER="$T/tier"
OPF_TEST_DIR_BROKEN="$T/broken"
OPF_TEST_DIR_DUP="$T/dup"
OPF_TEST_DIR_MISSING="$T/no/such/directory"
OPF_TEST_DIR_EXAMPLE="$T/dropin"
OPF_TEST_DIR_DEVICE="$T/device"
OPF_TEST_DIR_NARY="$T/nary"
export OPF_TEST_DIR_NARY OPF_TEST_DIR_DEVICE OPF_TEST_DIR_GOOD OPF_TEST_DIR_SELFTEST OPF_TEST_DIR_TIER OPF_TEST_DIR_BROKEN OPF_TEST_DIR_DUP \
    OPF_TEST_DIR_MISSING OPF_TEST_DIR_EXAMPLE
broken_path="$OPF_TEST_DIR_MISSING:$T/broken:$T/dup"

# ---- 1-6, 9: the C test program -------------------------------------------------------

echo "== component_system"
run_program "$program" all

# ---- 7. opframe_info -------------------------------------------------------------------

echo "== opframe_info"
o="$T/info"
run_info "$T/good" "$o.default"
expect_rc "opframe_info" "$info_rc" 0
expect_grep "default output" "$o.default" '^ +MCA op: alpha \(MCA v2, API v2, Component v1\.0\.0\) available$'
expect_grep "default output" "$o.default" '^ +MCA op: beta \(MCA v2, API v2, Component v2\.1\.3\) available$'

run_info "$broken_path" "$o.broken"
expect_rc "opframe_info (broken path)" "$info_rc" 0
expect_grep "disqualified component" "$o.broken" \
    '^ +MCA op: refuse \(.*\) disqualified: no refuse accelerator in this machine$'
expect_grep "component offering nothing" "$o.broken" '^ +MCA op: empty \(.*\) available$'
expect_grep "the first alpha" "$o.broken" '^ +MCA op: alpha \(.*\) available$'
expect_no_grep "broken files are not loaded components" "$o.broken" 'MCA op: (abi|abiv1|nosym|mismatch|other|fw|needdep|garbage) \(MCA'
for f in abi abiv1 nosym mismatch fw needdep garbage; do
    expect_grep "broken file $f is listed failed" "$o.broken" "^ +MCA op: $f \\(file $T/broken/opf_op_$f\\.so\\) failed: "
done
expect_grep "load errors are warned about" "$o.broken.err" 'opf_op_garbage\.so skipped'

run_info "$broken_path" "$o.failed" --show-failed
expect_rc "opframe_info --show-failed: status 1 when a file failed" "$info_rc" 1
for f in abi abiv1 nosym mismatch fw needdep garbage; do
    expect_grep "--show-failed lists opf_op_$f.so" "$o.failed" "^failed: $T/broken/opf_op_$f\\.so\$"
done
expect_grep "--show-failed lists the duplicate" "$o.failed" "^failed: $T/dup/opf_op_alpha\\.so\$"
expect_grep "--show-failed: ABI reason" "$o.failed" '^ +component ABI version 999, this framework speaks 2$'
expect_grep "--show-failed: ABI 1 reason" "$o.failed" '^ +component ABI version 1, this framework speaks 2$'
expect_grep "--show-failed: symbol reason" "$o.failed" '^ +missing symbol opf_op_nosym_component$'
expect_grep "--show-failed: name reason" "$o.failed" '^ +name mismatch: '
expect_grep "--show-failed: duplicate reason" "$o.failed" '^ +duplicate component name "alpha"'
expect_grep "--show-failed: dependency reason" "$o.failed" '^ +cannot load: .*libopfdep'
expect_no_grep "--show-failed: not the disqualified one" "$o.failed" 'refuse|empty'
run_info "$T/good" "$o.nofailed" --show-failed
expect_rc "opframe_info --show-failed: status 0 when nothing failed" "$info_rc" 0
expect_grep "--show-failed with nothing failed" "$o.nofailed" '^no component failed to load or to serve$'

run_info "$T/good" "$o.kernels" --kernels --op SUM
expect_rc "opframe_info --kernels" "$info_rc" 0
expect_grep "--kernels --op SUM: one column" "$o.kernels" '^kernel type +SUM *$'
expect_grep "--kernels: SUM INT32" "$o.kernels" '^INT32 +alpha *$'
expect_grep "--kernels: SUM INT64 mixed" "$o.kernels" '^INT64 +alpha/beta *$'
expect_grep "--kernels: SUM UINT32" "$o.kernels" '^UINT32 +base *$'
expect_no_grep "--kernels --op SUM: other ops" "$o.kernels" 'PROD|MAX'
run_info "$T/good" "$o.kernels60" --mca op_beta_priority 60 --kernels --op SUM
expect_grep "--kernels with op_beta_priority 60" "$o.kernels60" '^INT32 +beta *$'
run_info "$T/good" "$o.kernelsprod" --kernels --op PROD --type INT32
expect_grep "--kernels --op PROD --type INT32" "$o.kernelsprod" '^INT32 +beta *$'

run_info "$T/good" "$o.param" --param op alpha --level 9
expect_rc "opframe_info --param op alpha" "$info_rc" 0
expect_grep "--param: priority" "$o.param" \
    '^MCA op alpha: parameter "op_alpha_priority" \(current value: "50", data source: default, level: 3, type: int\)$'
expect_grep "--param: counter" "$o.param" \
    '^MCA op alpha: informational "op_alpha_calls" \(current value: "0", data source: default, level: 9, type: int\)$'
expect_no_grep "--param op alpha: only alpha's" "$o.param" 'op_beta_|"op_base_|"mca_'
run_info "$T/good" "$o.param3" --param op alpha --level 3
expect_no_grep "--param --level 3 hides level 9" "$o.param3" 'op_alpha_calls'
expect_grep "--param --level 3" "$o.param3" 'op_alpha_priority'
(
    OPF_MCA_op_alpha_priority=77
    export OPF_MCA_op_alpha_priority
    run_info "$T/good" "$o.paramenv" --param op alpha --level 9
)
expect_grep "--param: value from the environment" "$o.paramenv" \
    '"op_alpha_priority" \(current value: "77", data source: environment OPF_MCA_op_alpha_priority,'

run_info "$T/good" "$o.parsable" --parsable
expect_rc "opframe_info --parsable" "$info_rc" 0
expect_grep "--parsable: alpha status" "$o.parsable" '^mca:op:alpha:status:available$'
expect_grep "--parsable: beta version" "$o.parsable" '^mca:op:beta:version:2\.1\.3$'
expect_grep "--parsable: alpha path" "$o.parsable" "^mca:op:alpha:path:$T/good/opf_op_alpha\\.so\$"
expect_grep "--parsable: build" "$o.parsable" '^build:abi:2$'
expect_no_grep "--parsable: every line is prefix:key:value" "$o.parsable" '^[^:]*(:[^:]*)?$'
run_info "$T/good" "$o.parsable_k" --parsable --kernels --op SUM
expect_grep "--parsable --kernels: 2-buffer" "$o.parsable_k" '^kernel:host:SUM:INT64:2buf:alpha$'
expect_grep "--parsable --kernels: 3-buffer" "$o.parsable_k" '^kernel:host:SUM:INT64:3buf:beta$'
expect_no_grep "--parsable --kernels: every line is prefix:key:value" "$o.parsable_k" '^[^:]*(:[^:]*)?$'
run_info "$T/good" "$o.parsable_p" --parsable --param op alpha --level 9
expect_grep "--parsable --param" "$o.parsable_p" '^mca:op:alpha:param:op_alpha_priority:value:50$'
expect_grep "--parsable --param: read-only" "$o.parsable_p" '^mca:op:alpha:param:op_alpha_calls:read_only:true$'
run_info "$broken_path" "$o.parsable_f" --parsable --show-failed
expect_grep "--parsable --show-failed" "$o.parsable_f" "^failed:path:$T/broken/opf_op_abi\\.so\$"

run_info "$T/good" "$o.json" --json
expect_rc "opframe_info --json" "$info_rc" 0
json_ok "--json" "$o.json"
run_info "$broken_path" "$o.json_all" --json --all   # reasons with quotes, every parameter, every view
json_ok "--json --all (broken path)" "$o.json_all"
run_info "$T/good" "$o.json_k" --json --kernels --op SUM
json_ok "--json --kernels" "$o.json_k"
if [ -n "$python" ]; then
    if "$python" - "$o.json" "$o.json_all" <<'EOF'; then pass; else fail "--json: records"; fi
import json, sys
default = json.load(open(sys.argv[1]))
alpha = [r for r in default if r.get("kind") == "mca:op:alpha"]
assert len(alpha) == 1 and alpha[0]["status"] == "available", alpha
assert any(r.get("kind") == "mca:op:beta" and r["version"] == "2.1.3" for r in default)
everything = json.load(open(sys.argv[2]))
failed = {r["path"].rsplit("/", 1)[1]: r["reason"] for r in everything if r.get("kind") == "failed"}
assert "opf_op_mismatch.so" in failed and '"other"' in failed["opf_op_mismatch.so"], failed
assert "duplicate" in failed["opf_op_alpha.so"], failed
assert any(r.get("kind") == "mca:op:refuse" and r["status"].startswith("disqualified: ") for r in everything)
EOF
fi

run_info "$T/good" "$o.exclude" --mca op '^alpha'
expect_rc "opframe_info --mca op '^alpha'" "$info_rc" 0
expect_grep "--mca op '^alpha': alpha excluded" "$o.exclude" '^ +MCA op: alpha \(.*\) excluded by op=\^alpha$'
expect_grep "--mca op '^alpha': beta available" "$o.exclude" '^ +MCA op: beta \(.*\) available$'
if cmp -s "$o.default" "$o.exclude"; then fail "--mca op '^alpha' does not change the output"; else pass; fi
run_info "$T/good" "$o.exclude_k" --mca op '^alpha' --kernels --op SUM
expect_grep "--mca op '^alpha' --kernels" "$o.exclude_k" '^INT32 +beta *$'
expect_grep "--mca op '^alpha' --kernels" "$o.exclude_k" '^INT64 +base/beta *$'
run_info "$T/good" "$o.badlist" --mca op 'alpha,^beta'
expect_rc "opframe_info --mca op 'alpha,^beta'" "$info_rc" 1
expect_grep "a bad op list is reported" "$o.badlist.err" 'opf_init failed: .*parameter op="alpha,\^beta"'

run_info "$T/selftest" "$o.explain" --mca op_base_selftest 1 --explain SUM INT
expect_rc "opframe_info --explain" "$info_rc" 0
expect_grep "--explain: self-test" "$o.explain" '^ +wrong priority 99: self-test FAILED, dropped$'
expect_grep "--explain: next offer" "$o.explain" '^ +alpha priority 50: SELECTED, serves every count$'

# ---- 8. the example component, built out of tree with pkg-config only ----------------------

echo "== out-of-tree example component"
if command -v pkg-config >/dev/null 2>&1 && command -v make >/dev/null 2>&1; then
    mkdir "$T/pc" "$T/ex" "$T/dropin"
    cat >"$T/pc/opframe.pc" <<EOF
# opframe, uninstalled: the source headers and the library of this build tree
Name: opframe
Description: MPI-style local reductions with pluggable kernel components
Version: 0.1.0
Libs: -L$abs_top_builddir/.libs -lopframe
Cflags: -I$abs_srcdir/include
EOF
    cp "$abs_srcdir/components/example/opf_op_example.c" "$abs_srcdir/components/example/Makefile.example" "$T/ex/"
    if (
        cd "$T/ex"
        unset MAKEFLAGS MFLAGS MAKELEVEL
        PKG_CONFIG_PATH="$T/pc" PKG_CONFIG_LIBDIR="$T/pc" make -f Makefile.example
    ) >"$T/ex/make.log" 2>&1 && [ -f "$T/ex/opf_op_example.so" ]; then
        pass
        cat "$T/ex/make.log"
        expect_grep "the build used pkg-config's flags" "$T/ex/make.log" "-I$abs_srcdir/include .*-L$abs_top_builddir/.libs -lopframe"
        cp "$T/ex/opf_op_example.so" "$T/dropin/"
        run_info "$T/dropin" "$o.example"
        expect_grep "the dropped-in example is listed" "$o.example" \
            '^ +MCA op: example \(MCA v2, API v2, Component v1\.0\.0\) available$'
        run_info "$T/dropin" "$o.example_k" --kernels --op SUM --type INT32
        expect_grep "the example serves SUM INT32" "$o.example_k" '^INT32 +example *$'
        run_info "$T/dropin:$T/good" "$o.example_both" --kernels --op SUM --type INT32
        expect_grep "the example (priority 20) below alpha (50)" "$o.example_both" '^INT32 +alpha *$'
        run_program "$program" example
    else
        fail "make -f Makefile.example failed:"
        sed 's/^/    | /' "$T/ex/make.log" >&2
    fi
else
    echo "components: SKIP: the out-of-tree example build needs pkg-config and make"
fi

# ---- 10. hostile component files and paths (issue 12, items 10, 12, 13, 15) ---------------

echo "== hostile component files"
mkdir "$T/hostile" "$T/moved" "$T/oldprefix"
cp "$libs/opf_op_alpha.so" "$T/hostile/"
if "$CC" -std=c99 -shared -fPIC -fvisibility=hidden -I"$abs_srcdir/include" -o "$T/hostile/opf_op_nonul.so" \
    "$abs_srcdir/test/components/opf_op_nonul.c"; then pass; else fail "cannot build opf_op_nonul.so with $CC"; fi
echo "this is no libtool file" >"$T/hostile/opf_op_junk.la"
ln -s opf_op_loop.so "$T/hostile/opf_op_loop.so"
ln -s nowhere.so "$T/hostile/opf_op_dangle.so"
# ELF headers for a machine no host has (e_machine 0x7777), 64-bit and 32-bit.
elf_header() { # CLASS: 1 (32-bit) or 2 (64-bit)
    printf '\177ELF\00'"$1"'\001\001\000\000\000\000\000\000\000\000\003\000\167\167'
    head -c 4076 /dev/zero
}
elf_header 2 >"$T/hostile/opf_op_foreign.so"
elf_header 1 >"$T/hostile/opf_op_foreign32.so"
# An installed alpha (its .la says installed=yes, libdir=oldprefix), copied
# elsewhere; the old prefix holds another file of the same name.
cp "$libs/opf_op_alpha.so" "$T/moved/"
cp "$libs/opf_op_alpha.so" "$T/oldprefix/"
cat >"$T/moved/opf_op_alpha.la" <<EOF
# opf_op_alpha.la - a libtool library file
# Written by test/components.sh as libtool installs one
dlname='opf_op_alpha.so'
library_names='opf_op_alpha.so opf_op_alpha.so opf_op_alpha.so'
old_library=''
dependency_libs=''
installed=yes
shouldnotlink=yes
libdir='$T/oldprefix'
EOF
ln -s "$T/good" "$T/goodlink"
OPF_TEST_DIR_HOSTILE="$T/hostile" OPF_TEST_DIR_MOVED="$T/moved" OPF_TEST_DIR_OLDPREFIX="$T/oldprefix" \
    OPF_TEST_DIR_GOODLINK="$T/goodlink" run_program "$program" hardening

run_info "$T/hostile" "$o.hostile" --show-failed
expect_grep "--show-failed: a garbage .la under its own name" "$o.hostile" "^failed: $T/hostile/opf_op_junk\\.la\$"
expect_grep "--show-failed: a foreign ELF" "$o.hostile" 'built for another machine'

# Item 15: opframe_info's --explain honours --json; --op / --type naming nothing fail.
run_info "$T/good" "$o.json_explain" --json --explain SUM INT32
expect_rc "opframe_info --json --explain" "$info_rc" 0
json_ok "--json --explain" "$o.json_explain"
expect_grep "--json --explain: the winner" "$o.json_explain" '"selected": "alpha"'
run_info "$T/good" "$o.parsable_explain" --parsable --explain SUM INT32
expect_grep "--parsable --explain" "$o.parsable_explain" '^explain:host:SUM:INT32:2:selected:alpha$'
expect_no_grep "--parsable --explain: every line is prefix:key:value" "$o.parsable_explain" '^[^:]*(:[^:]*)?$'
run_info "$T/good" "$o.badop" --kernels --op SUMX
expect_rc "opframe_info --kernels --op SUMX" "$info_rc" 2
expect_grep "--op SUMX is named" "$o.badop.err" 'SUMX'
run_info "$T/good" "$o.badtype" --kernels --type FLOATX
expect_rc "opframe_info --kernels --type FLOATX" "$info_rc" 2

# Item 11: an `op` list with an empty name fails like an unknown name; pins
# that cannot apply are warned about with the reason.
for list in ',' ' ' 'alpha,,' '^'; do
    run_info "$T/good" "$o.emptyname" --mca op "$list"
    expect_rc "opframe_info --mca op '$list'" "$info_rc" 1
    expect_grep "op='$list' is refused" "$o.emptyname.err" 'opf_init failed: parameter op=.*empty'
done
run_info "$T/good" "$o.pins" --mca op_base_pin 'land:float=alpha,sum:float=alpha=beta,sum:int32=gamma'
expect_grep "a pin to a pair that is not a slot" "$o.pins.err" 'op_base_pin: ignoring "land:float=alpha": LAND is not defined on FLOAT'
expect_grep "a pin with two providers" "$o.pins.err" "op_base_pin: ignoring \"sum:float=alpha=beta\": more than one '='"
expect_grep "a pin to an unknown provider" "$o.pins.err" 'op_base_pin: ignoring the pin of SUM INT32 to "gamma": no such component'

# ---- 11. component directories that cannot hang or swamp a job (issue 23, item 4) --------

echo "== component directories that cannot hang or swamp a job"
# reason_of FILE PATH: the reason opframe_info --show-failed gives for PATH.
reason_of() { awk -v p="failed: $2" 'found { print; exit } $0 == p { found = 1 }' "$1"; }
# expect_refused DESC FILE PATH ERE: PATH is listed as failed with a reason matching ERE.
expect_refused() {
    if reason_of "$2" "$3" | grep -Eq -- "$4"; then
        pass
    else
        fail "$1: $3 not listed with a reason matching /$4/ in:"
        sed 's/^/    | /' "$2" >&2
    fi
}
# A FIFO (and a link to one) blocked the loader's open for ever; a directory,
# a device and a socket named like components are refused as well, and alpha
# beside them serves as before. timeout turns a hang into a failure.
mkdir "$T/special" "$T/special/opf_op_dir.so"
cp "$libs/opf_op_alpha.so" "$T/special/"
mkfifo "$T/special/opf_op_fifo.so"
ln -s opf_op_fifo.so "$T/special/opf_op_fifolink.so"
ln -s /dev/zero "$T/special/opf_op_zero.so"
if [ -n "$python" ]; then
    "$python" -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$T/special/opf_op_sock.so"
fi
limit=$(command -v timeout >/dev/null 2>&1 && echo "timeout 30" || true)
if OPF_MCA_mca_component_path="$T/special" $limit "$info" --show-failed --kernels --op SUM --type INT32 \
    >"$o.special" 2>"$o.special.err"; then info_rc=0; else info_rc=$?; fi
expect_rc "opframe_info on a directory with a FIFO (124: it hung; 1: files failed, said)" "$info_rc" 1
expect_refused "a FIFO" "$o.special" "$T/special/opf_op_fifo.so" 'not a regular file \(a FIFO\)'
expect_refused "a link to a FIFO" "$o.special" "$T/special/opf_op_fifolink.so" 'not a regular file \(a FIFO\)'
expect_refused "a directory" "$o.special" "$T/special/opf_op_dir.so" 'not a regular file \(a directory\)'
expect_refused "a link to /dev/zero" "$o.special" "$T/special/opf_op_zero.so" 'not a regular file \(a device\)'
if [ -S "$T/special/opf_op_sock.so" ]; then
    expect_refused "a socket" "$o.special" "$T/special/opf_op_sock.so" 'not a regular file \(a socket\)'
fi
expect_grep "alpha beside them serves" "$o.special" '^INT32 +alpha *$'

# greedy asks for 1000 memory kinds and declares op_avx512_enable and a
# synonym op_beta_old: it gets OPF_MEMORY_KINDS_MAX kinds and neither name,
# each refusal said at default verbosity (the kinds' once), alpha unharmed.
mkdir "$T/greedy"
cp "$libs/opf_op_greedy.so" "$libs/opf_op_alpha.so" "$T/greedy/"
kinds_max=$(sed -n 's/^#define OPF_MEMORY_KINDS_MAX \([0-9][0-9]*\).*/\1/p' "$abs_srcdir/include/opframe/component.h")
run_info "$T/greedy" "$o.greedy" --parsable --param op greedy --level 9
expect_rc "opframe_info with greedy" "$info_rc" 0
expect_grep "greedy got OPF_MEMORY_KINDS_MAX ($kinds_max) kinds" "$o.greedy" \
    "^mca:op:greedy:param:op_greedy_kinds:value:${kinds_max:-none}\$"
expect_no_grep "op_avx512_enable is not greedy's" "$o.greedy" '^mca:op:greedy:param:op_greedy_foreign_rc:value:0$'
expect_no_grep "op_beta_old is not greedy's" "$o.greedy" '^mca:op:greedy:param:op_greedy_synonym_rc:value:0$'
run_info "$T/greedy" "$o.greedy_all" --parsable --param all all --level 9
expect_no_grep "neither name is declared" "$o.greedy_all" ':param:(op_avx512_enable|op_greedy_old):'
expect_grep "the memory kind refusal is said" "$o.greedy.err" \
    "^opframe: warning: component greedy: memory kind \"greedy_$kinds_max\" refused: .*OPF_MEMORY_KINDS_MAX"
if [ "$(grep -c 'memory kind .* refused' "$o.greedy.err")" -eq 1 ]; then pass; else
    fail "the memory kind refusal is said $(grep -c 'memory kind .* refused' "$o.greedy.err") times, not once"
fi
expect_grep "the foreign parameter is refused" "$o.greedy.err" \
    "^opframe: warning: component greedy: parameter op_avx512_enable refused: a component's parameters begin with op_greedy_\$"
expect_grep "the foreign synonym is refused" "$o.greedy.err" \
    "^opframe: warning: component greedy: parameter op_beta_old refused: "
run_info "$T/greedy" "$o.greedy_k" --kernels --op SUM --type INT32
expect_grep "alpha beside greedy serves" "$o.greedy_k" '^INT32 +alpha *$'
run_info "$T/greedy" "$o.greedy_status"
expect_grep "greedy itself stays available" "$o.greedy_status" '^ +MCA op: greedy \(.*\) available$'

# ---- 9. load/unload cycles under valgrind --------------------------------------------------

echo "== valgrind"
if ! command -v valgrind >/dev/null 2>&1; then
    echo "components: SKIP: valgrind is not installed"
elif grep -aq '__asan_init\|__tsan_init' "$abs_top_builddir/.libs/libopframe.so" 2>/dev/null; then
    echo "components: SKIP: valgrind cannot run a sanitizer build"
else
    supp=""
    [ -f "$abs_srcdir/test/components/valgrind.supp" ] && supp="--suppressions=$abs_srcdir/test/components/valgrind.supp"
    run_program "$abs_top_builddir/libtool" --mode=execute valgrind -q --error-exitcode=1 --leak-check=full \
        --num-callers=40 $supp "$program" cycles
    if grep -q '^==[0-9]*== ' "$T/component_system.log"; then
        fail "valgrind reported errors or leaks (see above)"
    else
        pass
    fi
fi

echo "components: $checks checks, $failed failed"
[ "$failed" -eq 0 ]
