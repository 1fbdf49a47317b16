#!/bin/bash
# check.sh — cross-builds opframe for aarch64 in a scratch directory and runs
# it under QEMU user emulation (qemu-aarch64-static), once per CPU model:
#
#   a72      -cpu cortex-a72        ARMv8.0 NEON: no FP16, no BF16, no SVE
#   neon     -cpu max,sve=off       NEON with FEAT_FP16 and FEAT_BF16
#   sve128   -cpu max,sve128=on,sve-default-vector-length=16    SVE at 128 bits (and NEON)
#   sve256   -cpu max,sve256=on,sve-default-vector-length=32
#   sve512   -cpu max,sve512=on,sve-default-vector-length=64
#   sve1024  -cpu max,sve1024=on,sve-default-vector-length=128  (these two with the
#   sve2048  -cpu max,sve2048=on,sve-default-vector-length=256   harness's --quick lengths)
#
# (QEMU's user mode starts a process at a 512-bit vector length, or the
# largest enabled one below; sve-default-vector-length sets it in bytes.)
#
# Each run checks which components qualify (the expected neon / sve<N> ones
# available, every other sve<N> disqualified with the vector length it saw,
# or the missing feature) and what opframe_info --hw reports, then runs the
# conformance harness (test/conformance) against the base, the selected table
# and every available component: every slot of neon and sve<N>, both kernel
# forms, bit for bit against its own scalar reference. The last line is
# "check-aarch64: N passed, M failed".
#
# Usage: contrib/aarch64/check.sh [CONFIG...]   (default: all of the above)
# Environment:
#   OPF_AARCH64_BUILD  scratch directory (default: /tmp/opframe-aarch64-$USER);
#                      rebuilt incrementally on the next run
#   OPF_SEED           the harness's seed (default: a new one, printed)
#   OPF_CROSS_TIMEOUT  seconds any one emulated program may run (default 1200;
#                      past it: rc 124, a failure, never a hung check)
#   OPF_QUICK=1        the harness's --quick lengths
#   OPF_DEEP_ALSO="neon ..."  these configurations also run the deep form on
#                      their own component alone (CI: OPF_QUICK=1 OPF_DEEP_ALSO=neon)
#   OPF_DEEP_TYPES="float16 ..."  that deep run on these types only (CI: the
#                      narrow floats, whose deep form is exhaustive)
#   MAKEFLAGS          e.g. -j2
# Needs: g++-aarch64-linux-gnu, qemu-user-static, and the arm64 -dev packages
# (Debian: dpkg --add-architecture arm64; apt-get install libltdl-dev:arm64
# libhwloc-dev:arm64; hwloc is optional).
#
# Timings under emulation say nothing about Arm hardware: this checks
# correctness only.
set -eu

src=$(cd "$(dirname "$0")/../.." && pwd)
build=${OPF_AARCH64_BUILD:-/tmp/opframe-aarch64-${USER:-$(id -un)}}
host=aarch64-linux-gnu
multiarch=/usr/lib/$host
configs=${*:-a72 neon sve128 sve256 sve512 sve1024 sve2048}

die() { echo "check-aarch64: $*" >&2; echo "check-aarch64: 0 passed, 1 failed"; exit 1; }
command -v $host-g++ >/dev/null || die "no $host-g++ (Debian: apt-get install g++-$host)"
command -v qemu-aarch64-static >/dev/null || die "no qemu-aarch64-static (Debian: apt-get install qemu-user-static)"
[ -e $multiarch/libltdl.so ] || die "no libltdl for arm64 (Debian: dpkg --add-architecture arm64; apt-get update; apt-get install libltdl-dev:arm64)"

# ---- the tree, copied (timestamps kept: the build stays incremental) ------------
mkdir -p "$build/src" "$build/obj"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
    (cd "$src" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp -p --parents -t "$build/src")
else
    (cd "$src" && tar cf - .) | (cd "$build/src" && tar xpf -)
fi
cd "$build/src"
# (a tree configured in place would refuse the out-of-tree build below)
if [ -f config.status ]; then make -s distclean >/dev/null 2>&1 || rm -f config.status; fi
if [ ! -x configure ] || [ configure.ac -nt configure ]; then ./autogen.sh >autogen.out 2>&1 || { cat autogen.out; die "autogen.sh failed"; }; fi

# ---- cross-build: the library, the components, the tools, the harness -----------
cd "$build/obj"
if [ ! -f Makefile ] || [ ../src/configure -nt config.status ]; then
    hwloc=--without-hwloc
    [ -e $multiarch/pkgconfig/hwloc.pc ] && hwloc=--with-hwloc
    echo "check-aarch64: configure --host=$host $hwloc (in $build/obj)"
    ../src/configure -q --host=$host --build="$(../src/config/config.guess)" $hwloc \
        --without-ompi --without-opencl --without-cuda \
        PKG_CONFIG_LIBDIR=$multiarch/pkgconfig:/usr/share/pkgconfig CXXFLAGS=-O2 CFLAGS=-O2 >configure.out 2>&1 ||
        { cat configure.out; die "configure failed (config.log: $build/obj/config.log)"; }
fi
echo "check-aarch64: make all, then test/conformance test/hwprobe test/nary (${MAKEFLAGS:-serial})"
# Two makes: with -jN, `all` (a recursive make, for BUILT_SOURCES) and a test
# program named beside it would build the library's objects twice at once.
{ make all && make test/conformance test/hwprobe test/nary; } >make.out 2>&1 ||
    { tail -40 make.out; die "cross-build failed (log: $build/obj/make.out)"; }
for f in .libs/libopframe.so components/aarch64/.libs/opf_op_neon.so test/.libs/conformance tools/.libs/opframe_info \
         tools/.libs/opframe_bench; do
    [ -e "$f" ] || die "cross-build made no $f"
done
file -L test/.libs/conformance 2>/dev/null | grep -q aarch64 || die "test/.libs/conformance is not an aarch64 binary"

# ---- one run per CPU model --------------------------------------------------------
passed=0
failed=0
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "  FAIL: $*"; }

# Runs an aarch64 program of the build under QEMU with -cpu $cpu (and the
# NAME=VALUE words of $run_env in its environment).
run_env=
run() {
    env QEMU_CPU=$cpu QEMU_LD_PREFIX=/usr/$host LD_LIBRARY_PATH="$build/obj/.libs:$multiarch" \
        OPF_MCA_mca_component_path="$build/obj/components/aarch64" $run_env \
        timeout "${OPF_CROSS_TIMEOUT:-1200}" qemu-aarch64-static "$@"
}

# harness NAME [ARG...]: the conformance engine (contrib/cross_conformance.sh),
# quick from the environment or for the long vectors, else its deep form.
. "$src/contrib/cross_conformance.sh"
harness() {
    name=$1
    shift
    if [ "${OPF_QUICK:-0}" = 1 ] || [ "$quick" = 1 ]; then conformance_run "$name" --quick "$@"
    else conformance_run "$name" --deep "$@"; fi
}

# check_config CONFIG: every check of one CPU model (a subshell of its own:
# its output and its counts go to files, so that configurations run side by
# side, one per core: each QEMU process emulates on one).
check_config() {
    config=$1
    passed=0
    failed=0
    case $config in
        a72) cpu=cortex-a72; sve=0; features="asimd"; absent="fphp asimdhp sve bf16" ;;
        neon) cpu=max,sve=off; sve=0; features="asimd fphp asimdhp bf16"; absent="sve" ;;
        sve128 | sve256 | sve512 | sve1024 | sve2048)
            sve=${config#sve}; cpu=max,sve$sve=on,sve-default-vector-length=$((sve / 8)); features="asimd fphp asimdhp sve sve2 bf16 svebf16"; absent="" ;;
        *) die "unknown configuration $config (a72 neon sve128 sve256 sve512 sve1024 sve2048)" ;;
    esac
    quick=0
    [ "$sve" -gt 512 ] && quick=1
    echo "== $config: qemu-aarch64-static -cpu $cpu"

    # What the probe saw.
    hw=$(run tools/.libs/opframe_info --hw --parsable) || { fail "$config: opframe_info --hw"; return; }
    isa=" $(echo "$hw" | sed -n 's/^hw:arm_isa://p') "
    bits=$(echo "$hw" | sed -n 's/^hw:sve_vector_bits://p')
    echo "  hw: arm_isa:$isa sve_vector_bits: $bits"
    for f in $features; do case $isa in *" $f "*) pass ;; *) fail "$config: --hw lacks $f" ;; esac; done
    for f in $absent; do case $isa in *" $f "*) fail "$config: --hw shows $f" ;; *) pass ;; esac; done
    [ "$bits" = "$sve" ] && pass || fail "$config: SVE vector length $bits, expected $sve"
    # test/hwprobe: the probe against /proc/cpuinfo (where QEMU emulates it) and its own rules.
    if run test/.libs/hwprobe >"$build/obj/hwprobe-$config.log" 2>&1; then pass; else
        cat "$build/obj/hwprobe-$config.log"
        fail "$config: test/hwprobe"
    fi

    # Which components qualified, and why the others did not.
    status=$(run tools/.libs/opframe_info --parsable) || { fail "$config: opframe_info"; return; }
    for c in neon sve128 sve256 sve512 sve1024 sve2048; do
        line=$(echo "$status" | sed -n "s/^mca:op:$c:status://p")
        echo "  $c: $line"
        want=no
        [ $c = neon ] || [ $c = "sve$sve" ] && want=yes
        case $want:$line in
            yes:available*) pass ;;
            no:available*) fail "$config: $c qualified" ;;
            yes:*) fail "$config: $c did not qualify" ;;
            no:*"the CPU lacks sve"* | no:*"vector length is $sve bits"*) pass ;;
            no:*) fail "$config: $c: unexpected status" ;;
        esac
    done

    # The harness: base, selected, and every available component, every slot.
    harness "$config"
    # neon and sve<N> come from one slot table: the harness must have found
    # and checked the same (non-zero) number of slots for each, none failed.
    # (sve2048 leaves the 8-bit floats, OCP and FNUZ, 16 slots, to the base:
    # see opf_op_sve.cpp; and the
    # MX block formats, 20 slots: a block's 32 lanes are less than one of its
    # registers, components/simd/mx.h.)
    want_slots=
    for c in neon "sve$sve"; do
        [ "$c" = sve0 ] && continue
        n=$(sed -n "s/^provider $c: \([0-9]*\) slots, [0-9]* checks, 0 failed.*/\1/p" "$log")
        [ "$c" = sve2048 ] && [ -n "$n" ] && n=$((n + 16 + 20))
        if [ -n "$n" ] && [ "$n" -gt 0 ] && [ "$n" = "${want_slots:-$n}" ]; then
            pass
            want_slots=$n
        else
            fail "$config: provider $c: $(grep "^provider $c:" "$log" || echo 'not run')"
        fi
    done

    # Every n-ary form (round-once included) of the components against the base's.
    nary_run "$config"

    # opframe_bench runs and prints its rows (its timings mean nothing under emulation).
    if bench=$(run tools/.libs/opframe_bench --quick --sizes 4,4K 2>&1) &&
        echo "$bench" | grep -q ' opframe ' && echo "$bench" | grep -q ' memref '; then pass; else
        echo "$bench" | tail -5
        fail "$config: opframe_bench"
    fi

    # sve<N> with its float16 variant off: the FCVT conversions, tested too
    # (on the slots the variant changes: float16's; opf_op_sve.cpp's adjust).
    if [ "$sve" != 0 ]; then
        echo "  sve$sve with op_sve${sve}_support=, (float16 through float):"
        run_env="OPF_MCA_op_sve${sve}_support=,"
        conformance_run "$config-nofp16" --quick --provider "sve$sve" --function "sve$sve.*.float16"
        run_env=
    fi

    # OPF_DEEP_ALSO: the deep form again on this configuration's own
    # component alone (CI: neon; the base is the same C++ as elsewhere).
    case " ${OPF_DEEP_ALSO:-} " in
    *" $config "*)
        own=neon
        [ "$sve" != 0 ] && own=sve$sve
        only=""
        for type in ${OPF_DEEP_TYPES:-}; do only="$only --function $own.*.$type"; done
        # shellcheck disable=SC2086
        conformance_run "$config-deep-$own" --deep --provider "$own" $only ;;
    esac
}

jobs=$(nproc 2>/dev/null || echo 2)
running=0
for config in $configs; do
    if [ $running -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
    ( check_config "$config" >"$build/obj/config-$config.out" 2>&1
      echo "$passed $failed" >"$build/obj/config-$config.counts" ) &
    running=$((running + 1))
done
wait
passed=0
failed=0
for config in $configs; do
    cat "$build/obj/config-$config.out"
    read -r p f <"$build/obj/config-$config.counts" 2>/dev/null || { p=0; f=1; echo "  FAIL: $config: no result"; }
    passed=$((passed + p))
    failed=$((failed + f))
done

echo "check-aarch64: $passed passed, $failed failed"
[ "$failed" = 0 ]
