#!/bin/bash
# check.sh — cross-builds opframe for riscv64 in a scratch directory and runs
# it under QEMU user emulation (qemu-riscv64), once per CPU model:
#
#   novec     -cpu rv64,v=false                       no V: every rvv<N> disqualified
#   v<N>      -cpu rv64,v=true,vlen=<N>,zvfh=false    RVV 1.0 at VLEN N, no Zvfh
#   v<N>h     -cpu rv64,v=true,vlen=<N>,zvfh=true,... RVV 1.0 at VLEN N with Zvfh, Zvfhmin,
#                                                     Zvfbfmin and Zvfbfwma
#   for N = 128, 256, 512, 1024.
#
# Each run checks what the probe saw (opframe_info --hw: V, VLEN, the Zv*
# extensions; test/hwprobe against QEMU's /proc/cpuinfo), which components
# qualify (rvv<N> available, every other rvv<M> disqualified with the VLEN
# it saw, or the missing V), and runs the conformance engine (test/conformance)
# on every slot of rvv<N>, both kernel forms, bit for bit against its own
# scalar reference, on guarded buffers: in v<N>h rvv<N> (all 137 slots,
# float16 natively with Zvfh) and the selected table (the datatype level
# through opf_reduce_local), the base too in v128h (it does not depend on V);
# in v128 rvv<N> alone (133 slots: float16 left to the base; both counts
# with the 21 MX block slots). Every v<N> and
# v<N>h also checks who serves float16 (opframe_info --kernels): rvv<N> with
# Zvfh, the base without it or with op_rvv<N>_support=, (switched off); the
# other kernels of v<N> are those of v<N>h, already checked. The last line
# is "check-riscv64: N passed, M failed".
#
# Usage: contrib/riscv64/check.sh [CONFIG...]   (default: all of the above)
# Environment:
#   OPF_RISCV64_BUILD  scratch directory (default: /tmp/opframe-riscv64-$USER);
#                      rebuilt incrementally on the next run
#   OPF_SEED           the engine's seed (default: a new one, printed)
#   OPF_CROSS_TIMEOUT  seconds any one emulated program may run (default 1200;
#                      past it: rc 124, a failure, never a hung check)
#   OPF_DEEP=1         the engine's deep form (default: --quick)
#   MAKEFLAGS          e.g. -j2
# Needs riscv64-linux-gnu-g++ >= 14 (RVV 1.0 intrinsics, Zvfh; Debian 12's
# GCC 12 has neither), qemu-riscv64 >= 8 (RVV 1.0, Zvfh, riscv_hwprobe),
# and the riscv64 libltdl (Debian multiarch: libltdl-dev:riscv64;
# libhwloc-dev:riscv64 optional). Without them, as root, it runs itself in
# the Debian 13 root of contrib/openmpi/debian13.sh (--riscv64 installs
# them there); otherwise it fails saying what is missing.
#
# Timings under emulation say nothing about RISC-V hardware: this checks
# correctness only.
set -eu

src=$(cd "$(dirname "$0")/../.." && pwd)
build=${OPF_RISCV64_BUILD:-/tmp/opframe-riscv64-${USER:-$(id -un)}}
host=riscv64-linux-gnu
multiarch=/usr/lib/$host
configs=${*:-novec v128 v128h v256 v256h v512 v512h v1024 v1024h}

die() { echo "check-riscv64: $*" >&2; echo "check-riscv64: 0 passed, 1 failed"; exit 1; }
gcc_major=$($host-g++ -dumpversion 2>/dev/null | cut -d. -f1) || true
if [ "${gcc_major:-0}" -lt 14 ] || ! command -v qemu-riscv64 >/dev/null || [ ! -e $multiarch/libltdl.so ]; then
    if [ -z "${OPF_RISCV64_IN_ROOT:-}" ] && [ "$(id -u)" = 0 ] && command -v debootstrap >/dev/null; then
        echo "check-riscv64: no riscv64 GCC >= 14 / qemu-riscv64 / libltdl:riscv64 here: in the Debian 13 root"
        exec bash "$src/contrib/openmpi/debian13.sh" --riscv64 $*
    fi
    die "needs $host-g++ >= 14 (have ${gcc_major:-none}), qemu-riscv64 and libltdl-dev:riscv64 (Debian 13: apt-get install g++-$host qemu-user; dpkg --add-architecture riscv64; apt-get install libltdl-dev:riscv64), or root for contrib/openmpi/debian13.sh --riscv64"
fi

# ---- the tree, copied (timestamps kept: the build stays incremental) ------------
mkdir -p "$build/src" "$build/obj"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
    (cd "$src" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp -p --parents -t "$build/src")
else
    (cd "$src" && tar cf - --exclude=.libs --exclude=.deps --exclude='*.o' --exclude='*.lo' .) | (cd "$build/src" && tar xpf -)
fi
cd "$build/src"
if [ -f config.status ]; then make -s distclean >/dev/null 2>&1 || rm -f config.status; fi
if [ ! -x configure ] || [ configure.ac -nt configure ]; then ./autogen.sh >autogen.out 2>&1 || { cat autogen.out; die "autogen.sh failed"; }; fi

# ---- cross-build: the library, the rvv components, the probe tools, the engine ----
cd "$build/obj"
t0=$(date +%s)
if [ ! -f Makefile ] || [ ../src/configure -nt config.status ]; then
    hwloc=--without-hwloc
    [ -e $multiarch/pkgconfig/hwloc.pc ] && hwloc=--with-hwloc
    echo "check-riscv64: configure --host=$host $hwloc (in $build/obj)"
    ../src/configure -q --host=$host --build="$(../src/config/config.guess)" $hwloc \
        --without-ompi --without-opencl --without-cuda \
        PKG_CONFIG_LIBDIR=$multiarch/pkgconfig:/usr/share/pkgconfig CXXFLAGS=-O2 CFLAGS=-O2 >configure.out 2>&1 ||
        { cat configure.out; die "configure failed (config.log: $build/obj/config.log)"; }
fi
grep -q "^HAVE_RISCV_COMPONENTS_TRUE=''" config.log || die "configure did not enable the rvv components (config.log: $build/obj/config.log)"
rvv_modules=""
for n in 128 256 512 1024; do rvv_modules="$rvv_modules components/riscv/opf_op_rvv$n.la"; done
echo "check-riscv64: make libopframe.la, the rvv modules, opframe_info, test/conformance, test/hwprobe, test/nary (${MAKEFLAGS:-serial})"
# Only what the checks run (the whole tree's other components and tests
# would double the build); two makes, as check-aarch64 does: BUILT_SOURCES first.
{ make libopframe.la && make $rvv_modules tools/opframe_info test/conformance test/hwprobe test/nary; } >make.out 2>&1 ||
    { tail -40 make.out; die "cross-build failed (log: $build/obj/make.out)"; }
for f in .libs/libopframe.so components/riscv/.libs/opf_op_rvv256.so test/.libs/conformance tools/.libs/opframe_info; do
    [ -e "$f" ] || die "cross-build made no $f"
done
file -L test/.libs/conformance 2>/dev/null | grep -q RISC-V || die "test/.libs/conformance is not a RISC-V binary"
echo "check-riscv64: built in $(($(date +%s) - t0)) s"

# ---- one run per CPU model --------------------------------------------------------
passed=0
failed=0
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "  FAIL: $*"; }

run_env=
run() {
    env QEMU_CPU=$cpu QEMU_LD_PREFIX=/usr/$host LD_LIBRARY_PATH="$build/obj/.libs:$multiarch" \
        OPF_MCA_mca_component_path="$build/obj/components/riscv" $run_env \
        timeout "${OPF_CROSS_TIMEOUT:-1200}" qemu-riscv64 "$@"
}

# harness NAME [ARG...]: the conformance engine (contrib/cross_conformance.sh),
# quick unless OPF_DEEP=1.
. "$src/contrib/cross_conformance.sh"
harness() {
    name=$1
    shift
    if [ "${OPF_DEEP:-0}" = 1 ]; then conformance_run "$name" --deep "$@"
    else conformance_run "$name" --quick "$@"; fi
}

# float16's MAX MIN SUM PROD x 2 forms: from rvv<N> (WANT=rvv) or the base (WANT=base).
float16_served_by() {   # float16_served_by WANT WHAT
    f16=$(run tools/.libs/opframe_info --kernels --type FLOAT16 --parsable 2>/dev/null |
          grep -cE "^kernel:host:(MAX|MIN|SUM|PROD):FLOAT16:[23]buf:$1$" || true)
    [ "$f16" = 8 ] && pass || fail "$config: float16 ($2) served by $1 in $f16 of 8 kernels"
}

check_config() {
    config=$1
    passed=0
    failed=0
    case $config in
        novec) vlen=0; zvfh=0; cpu=rv64,v=false ;;
        v128 | v256 | v512 | v1024) vlen=${config#v}; zvfh=0
            cpu=rv64,v=true,vlen=$vlen,elen=64,zvfh=false,zvfhmin=false,zvfbfmin=false,zvfbfwma=false ;;
        v128h | v256h | v512h | v1024h) vlen=${config#v}; vlen=${vlen%h}; zvfh=1
            cpu=rv64,v=true,vlen=$vlen,elen=64,zfh=true,zvfh=true,zvfhmin=true,zfbfmin=true,zvfbfmin=true,zvfbfwma=true ;;
        *) die "unknown configuration $config (novec v128 v128h v256 v256h v512 v512h v1024 v1024h)" ;;
    esac
    echo "== $config: qemu-riscv64 -cpu $cpu"

    # What the probe saw.
    hw=$(run tools/.libs/opframe_info --hw --parsable) || { fail "$config: opframe_info --hw"; return; }
    isa=" $(echo "$hw" | sed -n 's/^hw:riscv_isa://p') "
    seen_vlen=$(echo "$hw" | sed -n 's/^hw:riscv_vlen://p')
    echo "  hw: riscv_isa:$isa riscv_vlen: ${seen_vlen:-none}"
    if [ $vlen = 0 ]; then
        [ "$isa" = "  " ] && [ -z "$seen_vlen" ] && pass || fail "$config: --hw shows a vector ISA without V"
    else
        case $isa in *" v "*) pass ;; *) fail "$config: --hw lacks v" ;; esac
        [ "$seen_vlen" = "$vlen" ] && pass || fail "$config: VLEN $seen_vlen, expected $vlen"
        for f in zvfhmin zvfh; do
            case $zvfh:$isa in 1:*" $f "* | 0:*) pass ;; *) fail "$config: --hw lacks $f" ;; esac
            case $zvfh:$isa in 0:*" $f "*) fail "$config: --hw shows $f" ;; *) pass ;; esac
        done
    fi
    # test/hwprobe: the probe against QEMU's /proc/cpuinfo (its isa line) and its own rules.
    if run test/.libs/hwprobe >"$build/obj/hwprobe-$config.log" 2>&1; then pass; else
        cat "$build/obj/hwprobe-$config.log"
        fail "$config: test/hwprobe"
    fi

    # Which components qualified, and why the others did not.
    status=$(run tools/.libs/opframe_info --parsable) || { fail "$config: opframe_info"; return; }
    for c in rvv128 rvv256 rvv512 rvv1024; do
        line=$(echo "$status" | sed -n "s/^mca:op:$c:status://p")
        echo "  $c: $line"
        case $c:$line in
            "rvv$vlen":available*) pass ;;
            *:available*) fail "$config: $c qualified" ;;
            "rvv$vlen":*) fail "$config: $c did not qualify" ;;
            *:*"the CPU lacks v"*) [ $vlen = 0 ] && pass || fail "$config: $c: $line" ;;
            *:*"VLEN is $vlen bits"*) pass ;;
            *) fail "$config: $c: unexpected status" ;;
        esac
    done
    [ $vlen = 0 ] && return 0

    # Who serves float16 (see the top).
    if [ $zvfh = 1 ]; then
        float16_served_by "rvv$vlen" "Zvfh"
        run_env="OPF_MCA_op_rvv${vlen}_support=,"
        float16_served_by base "op_rvv${vlen}_support=,"
        run_env=
    else
        float16_served_by base "no Zvfh"
    fi
    # The engine (see the top).
    if [ $zvfh = 1 ]; then
        providers="--provider rvv$vlen --provider selected"
        [ $vlen = 128 ] && providers="--provider base $providers"
        want=137
    elif [ $vlen = 128 ]; then
        providers="--provider rvv$vlen"
        want=133
    else
        return 0
    fi
    harness "$config" $providers
    nary_run "$config"
    n=$(sed -n "s/^provider rvv$vlen: \([0-9]*\) slots, [0-9]* checks, 0 failed.*/\1/p" "$log")
    [ "$n" = "$want" ] && pass || fail "$config: $(grep "^provider rvv$vlen:" "$log" || echo 'not run'), expected $want slots"
}

jobs=$(nproc 2>/dev/null || echo 2)
running=0
for config in $configs; do
    if [ $running -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
    rm -f "$build/obj/config-$config.counts"
    ( check_config "$config" >"$build/obj/config-$config.out" 2>&1 || fail "$config: stopped early"
      echo "$passed $failed" >"$build/obj/config-$config.counts" ) &
    running=$((running + 1))
done
wait || true
passed=0
failed=0
for config in $configs; do
    cat "$build/obj/config-$config.out"
    read -r p f <"$build/obj/config-$config.counts" 2>/dev/null || { p=0; f=1; echo "  FAIL: $config: no result"; }
    passed=$((passed + p))
    failed=$((failed + f))
done

echo "check-riscv64: $passed passed, $failed failed"
[ "$failed" = 0 ]
