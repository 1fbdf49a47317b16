#!/bin/sh
# component_trust.sh — who may put code into the process: a component file,
# the directory it resolves into, or a directory of mca_component_path that a
# user other than root and this one can change (world- or group-writable,
# sticky or not, or owned by another user) is refused before the loader opens
# it, said once at default verbosity, and listed failed with the reason;
# mca_component_trust=any loads it. A parameter or tuning file another user
# can change is refused too (it names the component path); one of ours in a
# sticky directory is not (a file of a fixed name). The test component ctor
# writes a marker file from its library constructor: the marker proves
# whether the file was opened at all. Cases that need another owner or group
# (chown, chgrp) run as root and are skipped otherwise. About a second:
# opframe_info runs.
check_name=component_trust
. "${srcdir:-.}/test/check_lib.sh"
info="$top/tools/opframe_info"
libs="$top/test/components"
for c in ctor alpha; do
    [ -f "$libs/opf_op_$c.so" ] || { echo "component_trust: $libs/opf_op_$c.so is missing (make check builds it)"; exit 1; }
done
unset OPF_MCA_mca_component_trust OPF_MCA_mca_component_show_load_errors OPF_MCA_op OPF_MCA_op_base_verbose
marker="$scratch/marker"
OPF_TEST_CTOR_MARKER=$marker
export OPF_TEST_CTOR_MARKER
real=$(cd "$scratch" && pwd -P)   # directories are named as they resolve
root=no
[ "$(id -u)" -eq 0 ] && root=yes

run() {   # run DIR ARGS...: opframe_info on DIR; $out its stdout, $err its stderr, $rc its status
    dir=$1
    shift
    rm -f "$marker"
    out=$("$info" --mca mca_component_path "$dir" "$@" 2>"$scratch/stderr")
    rc=$?
    err=$(cat "$scratch/stderr")
}
opened() { test -e "$marker"; }
not_opened() { test ! -e "$marker"; }
said_once() { test "$(grep -c "$1" "$scratch/stderr")" -eq 1; }
new_dir() {   # new_dir NAME MODE: a directory holding a copy of ctor
    mkdir "$scratch/$1"
    cp "$libs/opf_op_ctor.so" "$scratch/$1/"
    chmod "$2" "$scratch/$1"
}

# ---- 0. the control: in this user's own directory ctor loads, and the marker says so ------
new_dir own 700
run "$scratch/own"
check "own directory: ctor is available" contains "$out" "MCA op: ctor (MCA v2, API v2, Component v1.0.0) available"
check "own directory: its constructor ran (the marker works)" opened
check "own directory: nothing refused" lacks "$err" "refused"

# ---- 1. a directory every user can write -----------------------------------------------------
new_dir w777 777
run "$scratch/w777" --show-failed
check "777 directory: the file is never opened" not_opened
check "777 directory: said at default verbosity" contains "$err" \
    "opframe: warning: component directory $scratch/w777 refused: it is writable by every user (mode 0777), so another user could put a component there; not loaded: opf_op_ctor.so (mca_component_trust=any loads them anyway)"
check "777 directory: said once" said_once "refused"
check "777 directory: --show-failed lists the file" contains "$out" "failed: $scratch/w777/opf_op_ctor.so
        refused: its component directory $scratch/w777 is writable by every user (mode 0777), so another user could have put it there; mca_component_trust=any loads it anyway"
check "777 directory: --show-failed exits 1" test "$rc" -eq 1
run "$scratch/w777"
check "777 directory: the listing says failed, and why" contains "$out" \
    "MCA op: ctor (file $scratch/w777/opf_op_ctor.so) failed: refused: its component directory $scratch/w777 is writable by every user"
run "$scratch/w777" --parsable
check "777 directory: --parsable status" contains "$out" "mca:op:ctor:status:failed: refused: its component directory"
run "$scratch/w777" --param op ctor
check "777 directory: --param op ctor says why it is not loaded" contains "$out" "the component is not loaded, failed: $scratch/w777/opf_op_ctor.so: refused:"

# mca_component_trust=any loads it, from the command line or the environment.
run "$scratch/w777" --mca mca_component_trust any
check "trust any (--mca): ctor is available" contains "$out" "MCA op: ctor (MCA v2, API v2, Component v1.0.0) available"
check "trust any (--mca): its constructor ran" opened
check "trust any (--mca): nothing refused" lacks "$err" "refused"
OPF_MCA_mca_component_trust=any run "$scratch/w777"
check "trust any (environment): ctor is available" contains "$out" "MCA op: ctor (MCA v2, API v2, Component v1.0.0) available"
run "$scratch/w777" --param all all --level 9
check "--param lists mca_component_trust" contains "$out" \
    '"mca_component_trust" (current value: "owner", data source: default, level: 4, type: enum'

# ---- 2. a sticky directory every user can write (/tmp's mode): others may still add files ---
new_dir sticky 1777
run "$scratch/sticky"
check "1777 directory: the file is never opened" not_opened
check "1777 directory: said, with why the sticky bit is no help" contains "$err" \
    "component directory $scratch/sticky refused: it is writable by every user (mode 1777: the sticky bit keeps others from replacing files there, not from adding them)"

# ---- 3. a link from a trusted directory into one every user can write -----------------------
mkdir "$scratch/links" "$scratch/elsewhere"
cp "$libs/opf_op_ctor.so" "$scratch/elsewhere/ctor_target.so"
chmod 777 "$scratch/elsewhere"
ln -s "$scratch/elsewhere/ctor_target.so" "$scratch/links/opf_op_ctor.so"
run "$scratch/links" --show-failed
check "a link into a 777 directory: the file is never opened" not_opened
check "a link into a 777 directory: the real directory is named" contains "$out" "failed: $scratch/links/opf_op_ctor.so
        refused: its directory $real/elsewhere is writable by every user (mode 0777), so another user could run code in this process"
check "a link into a 777 directory: said once" said_once "component $scratch/links/opf_op_ctor.so skipped: refused: its directory"

# ---- 4. a libtool archive every user can write (it chooses the file to open) -------------------
mkdir "$scratch/la"
cp "$libs/opf_op_ctor.so" "$scratch/la/"
printf "# opf_op_ctor.la - a libtool library file\ndlname='opf_op_ctor.so'\n" >"$scratch/la/opf_op_ctor.la"
chmod 666 "$scratch/la/opf_op_ctor.la"
run "$scratch/la" --show-failed
check "a 666 .la: nothing is opened" not_opened
check "a 666 .la: listed under its own name" contains "$out" "failed: $scratch/la/opf_op_ctor.la
        refused: it is writable by every user (mode 0666)"
chmod 644 "$scratch/la/opf_op_ctor.la"
run "$scratch/la"
check "a 644 .la: ctor loads through it" contains "$out" "MCA op: ctor (MCA v2, API v2, Component v1.0.0) available"

# ---- 5. group-writable: refused unless the group is the owner's own private group --------------
new_dir group 700
chmod 664 "$scratch/group/opf_op_ctor.so"
if chgrp 65534 "$scratch/group/opf_op_ctor.so" 2>/dev/null && [ "$(id -g)" -ne 65534 ]; then
    run "$scratch/group" --show-failed
    check "a group-writable file: never opened" not_opened
    check "a group-writable file: said, naming the group" contains "$err" \
        "opframe: warning: component $scratch/group/opf_op_ctor.so skipped: refused: it is writable by "
    check "a group-writable file: ... with its id and mode" contains "$err" "(gid 65534, mode 0664), so another user could run code in this process; mca_component_trust=any loads it anyway"
    check "a group-writable file: listed failed" contains "$out" "failed: $scratch/group/opf_op_ctor.so"
    chmod 644 "$scratch/group/opf_op_ctor.so"
    run "$scratch/group"
    check "the same file not group-writable: loads" opened
else
    echo "SKIP: a group-writable component: cannot give a file another group here"
fi
# A user private group (named as its only user, the user's primary group) gives no one else the file.
me=$(id -un)
if getent group "$(id -g)" | grep -Eq "^$me:[^:]*:[0-9]+:($me)?\$"; then
    chgrp "$(id -g)" "$scratch/group/opf_op_ctor.so"
    chmod 664 "$scratch/group/opf_op_ctor.so"
    run "$scratch/group"
    check "group-writable by the owner's private group: loads" opened
else
    echo "SKIP: group-writable by a private group: group $(id -gn) is not $me's private group"
fi

# ---- 6. owned by another user who is not root -----------------------------------------------------
if [ $root = yes ]; then
    new_dir owner 700
    chown 65534 "$scratch/owner/opf_op_ctor.so"
    run "$scratch/owner" --show-failed
    check "another user's file: never opened" not_opened
    check "another user's file: said, naming the owner" contains "$err" \
        "component $scratch/owner/opf_op_ctor.so skipped: refused: it is owned by "
    check "another user's file: ... uid and why" contains "$err" "(uid 65534), neither root nor this process's user"
    check "another user's file: listed failed" contains "$out" "failed: $scratch/owner/opf_op_ctor.so"
    new_dir theirs 755
    chown 65534 "$scratch/theirs"
    run "$scratch/theirs"
    check "another user's directory: never opened" not_opened
    check "another user's directory: said" contains "$err" "component directory $scratch/theirs refused: it is owned by "
    OPF_MCA_mca_component_trust=any run "$scratch/owner"
    check "another user's file with trust any: loads" opened
else
    echo "SKIP: files of another owner: only root can make them"
fi

# ---- 7. parameter and tuning files: they name the component path --------------------------------
# A parameter or tuning file that another user can change is refused before
# it is read (a file cannot vouch for itself: mca_component_trust is taken
# from the command line or the environment for them). The one file of a
# fixed name in a sticky directory is safe: others can neither replace it
# nor own a file of ours.
params_run() {   # params_run ARGS...: opframe_info without --mca mca_component_path
    rm -f "$marker"
    out=$("$info" "$@" 2>"$scratch/stderr")
    rc=$?
    err=$(cat "$scratch/stderr")
}
mkdir "$scratch/conf"
pfile="$scratch/conf/params.conf"
printf 'mca_component_path = %s\nop_base_threads_min_bytes = 3M\nmca_component_trust = any\n' "$scratch/own" >"$pfile"
chmod 666 "$pfile"
OPF_MCA_PARAM_FILE_USER=$pfile params_run --param op base --level 9
check "666 parameter file: said" contains "$err" \
    "opframe: warning: parameter file $pfile refused: it is writable by every user (mode 0666), so another user could choose this process's settings and the components it loads; ignored (OPF_MCA_mca_component_trust=any accepts it)"
check "666 parameter file: said once" said_once "refused"
check "666 parameter file: its values are not used" contains "$out" \
    '"op_base_threads_min_bytes" (current value: "4M", data source: default'
check "666 parameter file: it cannot vouch for itself" contains "$out" \
    '"mca_component_trust" (current value: "owner", data source: default'
check "666 parameter file: the component path it names is not used (ctor never opened)" not_opened
OPF_MCA_PARAM_FILE_USER=$pfile params_run --mca mca_component_trust any --param op base --level 9
check "666 parameter file with --mca mca_component_trust any: used" contains "$out" \
    "\"op_base_threads_min_bytes\" (current value: \"3M\", data source: file $pfile:2"
check "... and nothing said before --mca was in" lacks "$err" "refused"
check "... and the component path it names is used" opened
chmod 644 "$pfile"
chmod 777 "$scratch/conf"
OPF_MCA_PARAM_FILE_USER=$pfile params_run --param op base --level 9
check "a parameter file in a 777 directory: said, naming the directory" contains "$err" \
    "parameter file $pfile refused: its directory $real/conf is writable by every user (mode 0777)"
check "a parameter file in a 777 directory: not used" contains "$out" '"op_base_threads_min_bytes" (current value: "4M"'
chmod 1777 "$scratch/conf"
OPF_MCA_PARAM_FILE_USER=$pfile params_run --param op base --level 9
check "a parameter file of ours in a sticky 1777 directory: used" contains "$out" \
    "\"op_base_threads_min_bytes\" (current value: \"3M\", data source: file $pfile:2"
check "... nothing said" lacks "$err" "refused"
chmod 700 "$scratch/conf"
tfile="$scratch/conf/tuning.conf"
printf 'op_base_threads_min_bytes = 5M\n' >"$tfile"
chmod 666 "$tfile"
OPF_TUNE_FILE_USER=$tfile params_run
check "666 tuning file: said as a tuning file" contains "$err" \
    "opframe: warning: tuning file $tfile refused: it is writable by every user (mode 0666)"
if [ $root = yes ]; then
    chmod 644 "$pfile"
    chown 65534 "$pfile"
    OPF_MCA_PARAM_FILE_SYSTEM=$pfile params_run --param op base --level 9
    check "another user's system parameter file: said" contains "$err" \
        "parameter file $pfile refused: it is owned by "
    check "another user's system parameter file: not used" contains "$out" '"op_base_threads_min_bytes" (current value: "4M"'
    chown 0 "$pfile"
    chmod 664 "$pfile"
    chgrp 65534 "$pfile"
    OPF_MCA_PARAM_FILE_USER=$pfile params_run
    check "a group-writable parameter file: said" contains "$err" "parameter file $pfile refused: it is writable by "
else
    echo "SKIP: parameter files of another owner or group: only root can make them"
fi

summary
