#!/bin/bash
# debian13.sh — builds and checks the whole tree on Debian 13 (trixie), whose
# Open MPI is the 5.0 series, in a chroot made with debootstrap: the bridge
# (contrib/openmpi) against the Open MPI people run today, from this machine
# (Debian 12, Open MPI 4.1) or any Debian/Ubuntu with debootstrap.
#
#   sudo contrib/openmpi/debian13.sh [--root DIR] [--mirror URL] [--jobs N] [--out DIR]
#   sudo contrib/openmpi/debian13.sh --shell       # a shell in the prepared root
#   sudo contrib/openmpi/debian13.sh --prepare     # only make the root (CI: beside other steps)
#   sudo contrib/openmpi/debian13.sh --riscv64 [CONFIG...]   # contrib/riscv64/check.sh in the root
#   sudo contrib/openmpi/debian13.sh --unstable [...]         # the same in Debian unstable (sid)
#   make check-debian13                            # the same, from a configured tree
#   make check-debian-unstable                     # --unstable, from a configured tree
#
# --unstable (any place of the arguments but after --riscv64's) makes and uses
# a Debian unstable root instead: the next compiler and Open MPI before any
# release has them (seen 2026-11: GCC 16.2, Open MPI 6.0.0 rc2, PMIx 7.0
# rc1, hwloc 2.15). Unstable moves daily, so the run names the versions it
# used; its archive's Release file may be past its Valid-Until on a mirror
# that lags, which apt is told to accept (a root a day old at most). The
# bridge is tested in its quick form there (the deep form runs on 4.1 and
# 5.0), and no riscv64 packages are installed.
#
# What it does:
#   1. a minimal trixie root (debootstrap --variant=minbase) with the build
#      packages (Open MPI 5.0.x with its op framework headers, GCC 14), made
#      once per day in /var/tmp/opframe-trixie-YYYYMMDD and reused that day
#      (see "the root" below);
#   2. the tracked files of this tree (git ls-files), copied into a fresh
#      directory inside the root;
#   3. in the chroot, with /proc, /sys, /dev, /dev/pts and /dev/shm
#      bind-mounted (always unmounted again, also on error or Ctrl-C):
#      ./autogen.sh && ./configure && make && make check (the bridge's
#      test, contrib/openmpi/test_ompi_bridge.sh, in its quick form among
#      the others), then the bridge's test in its deep form;
#   4. test-suite.log, bridge-deep.log and the logs of failed tests copied to --out (default
#      ./debian13-logs); exit status: make check's (77 when this machine
#      cannot make a chroot: not root, no debootstrap).
# OPF_BRIDGE_DEPTH=quick leaves the deep form out (make check's quick form
# is the bridge's run), OPF_BRIDGE_RANKS=all adds every case of ranks that
# differ to the quick form, and OPF_DEBIAN_TESTS=bridge runs the bridge's
# test alone of make check's (CI's step 70: the bridge on 5.0 with every
# ranks case; the whole matrix at 2 and 4 ranks runs on 4.1 in step 15, the
# other tests in steps built by GCC 12, 16 and clang).
# With --riscv64, step 3 is contrib/riscv64/check.sh instead (make
# check-riscv64: the riscv64 cross-build and its checks under qemu-riscv64,
# which need Debian 13's GCC 14 and QEMU 10), and step 4 is its output; the
# riscv64 packages below are in every root made now, and installed into a
# root made before them on the first --riscv64 run.
#
# The root: only Debian's packages live in it (the tree is copied fresh into
# a scratch directory each run and removed afterwards), so reusing it is as
# safe as reusing an apt cache. It counts as made only when a marker file
# written after the last package was installed is there; a root an
# interrupted run left half made is thrown away. Keyed by the date, a root is
# at most a day behind the archive, and older roots (never mounted: their
# mounts are undone first) are deleted. --root DIR names another (then it is
# never deleted). A lock keeps two runs from making the same root at once.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
root=""
mirror=""
jobs=$(nproc 2>/dev/null || echo 2)
out=$PWD/debian13-logs
shell=0
prepare=0
packages="libopenmpi-dev libpmix-dev openmpi-bin g++ make autoconf automake libtool libltdl-dev libhwloc-dev pkg-config
    ca-certificates"
# contrib/riscv64/check.sh: the cross compiler (GCC 14: RVV 1.0), QEMU 10's
# qemu-riscv64, and the riscv64 (multiarch) libraries opframe links.
riscv64_packages="g++-riscv64-linux-gnu qemu-user file libltdl-dev:riscv64 libhwloc-dev:riscv64"
riscv64=0
riscv64_configs=""
suite=trixie
name=debian13

while [ $# -gt 0 ]; do
    case $1 in
    --root) root=$2; shift 2 ;;
    --mirror) mirror=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --shell) shell=1; shift ;;
    --prepare) prepare=1; shift ;;
    --unstable) suite=sid; name=unstable; out=$PWD/debian-unstable-logs; shift ;;
    --riscv64) riscv64=1; shift; riscv64_configs="$*"; break ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "debian13.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

say() { echo "$name: $*"; }
apt_valid=""
bridge_depth=${OPF_BRIDGE_DEPTH:-deep}
if [ $suite = sid ]; then
    [ $riscv64 = 0 ] || { say "--riscv64 runs in the Debian 13 root only"; exit 2; }
    riscv64_packages=""
    apt_valid="-o Acquire::Check-Valid-Until=false"
    bridge_depth=quick
fi
bridge_log=bridge-deep.log   # (deep only)
[ "$(id -u)" = 0 ] || { say "SKIP: needs root (debootstrap, chroot, mount)"; exit 77; }
command -v debootstrap >/dev/null || { say "SKIP: no debootstrap (apt-get install debootstrap)"; exit 77; }

# The Debian mirror apt uses here (deb822 .sources or one-line lists), so a
# machine behind a local mirror or proxy keeps using it.
host_mirror() {
    local f
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] && awk '/^URIs:/ {for (i = 2; i <= NF; ++i) if ($i ~ /\/debian\/?$/) {print $i; exit}}' "$f"
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] && awk '$1 == "deb" {for (i = 2; i <= NF; ++i) if ($i ~ /\/debian\/?$/) {print $i; exit}}' "$f"
    done
    return 0
}
[ -n "$mirror" ] || mirror=$(host_mirror | head -1)
mirror=${mirror:-http://deb.debian.org/debian}

dated=0
if [ -z "$root" ]; then
    root=/var/tmp/opframe-$suite-$(date +%Y%m%d)
    dated=1
fi
ready=$root/.opframe-root-ready
riscv64_ready=$root/.opframe-riscv64-ready

# ---- mounts: made in this order, undone in reverse, whatever happens -------
mounts=()
unmount_all() {
    local i
    for ((i = ${#mounts[@]} - 1; i >= 0; --i)); do
        umount "${mounts[i]}" 2>/dev/null || umount -l "${mounts[i]}" 2>/dev/null || true
    done
    mounts=()
}
# Mounts some earlier run left under DIR (killed with SIGKILL), deepest first.
unmount_stale() {
    local d
    awk -v r="$1/" 'index($2 "/", r) == 1 {print $2}' /proc/mounts | sort -r | while read -r d; do
        umount "$d" 2>/dev/null || umount -l "$d"
    done
}
scratch=""
cleanup() {
    unmount_all
    [ -n "$scratch" ] && rm -rf "$root$scratch" "$root$scratch-riscv64"
    return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mount_into() {   # mount_into TARGET-INSIDE-ROOT mount-arguments...
    local target=$root$1
    shift
    mkdir -p "$target"
    mount "$@" "$target"
    mounts+=("$target")
}

# ---- 1. the root -------------------------------------------------------------
mkdir -p "$(dirname "$root")"
exec 9>"$root.lock"
flock 9
if [ $dated = 1 ]; then
    for old in /var/tmp/opframe-$suite-*; do
        case $old in "$root"|"$root.lock"|*.lock) continue ;; esac
        [ -d "$old" ] || continue
        # another run may be using it: take its lock without waiting
        if exec 8>"$old.lock" && flock -n 8; then
            unmount_stale "$old"
            say "removing yesterday's root $old"
            rm -rf --one-file-system "$old" "$old.lock"
            exec 8>&-
        fi
    done
fi
if [ ! -f "$ready" ]; then
    unmount_stale "$root"
    rm -rf --one-file-system "$root"
    t0=$(date +%s)
    say "debootstrap --variant=minbase $suite $root $mirror"
    debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
        { tail -20 "$root.debootstrap.log"; say "debootstrap failed"; exit 1; }
    mount_into /proc -t proc proc
    say "apt-get install $(echo $packages $riscv64_packages)"
    chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
        sh -c "dpkg --add-architecture riscv64 && apt-get $apt_valid update -qq &&
               apt-get install -y -qq --no-install-recommends $(echo $packages $riscv64_packages)" \
        >"$root.apt.log" 2>&1 || { tail -20 "$root.apt.log"; say "apt-get install failed"; exit 1; }
    unmount_all
    echo "$riscv64_packages" >"$riscv64_ready"
    echo "$packages" >"$ready"
    say "root made in $(( $(date +%s) - t0 ))s"
else
    say "reusing $root (made $(date -r "$ready" '+%F %T'))"
fi
# debootstrap writes no /etc/hosts: every lookup of localhost (hwloc, Open
# MPI, the tests) then waits for DNS timeouts, seconds each.
[ -f "$root/etc/hosts" ] || printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
# A root made before the riscv64 packages were in the list: add them (under the lock).
if [ $riscv64 = 1 ] && [ ! -f "$riscv64_ready" ]; then
    say "apt-get install $riscv64_packages (into the existing root)"
    mount_into /proc -t proc proc
    chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
        sh -c "dpkg --add-architecture riscv64 && apt-get update -qq &&
               apt-get install -y -qq --no-install-recommends $riscv64_packages" \
        >"$root.apt-riscv64.log" 2>&1 || { tail -20 "$root.apt-riscv64.log"; say "apt-get install failed"; exit 1; }
    unmount_all
    echo "$riscv64_packages" >"$riscv64_ready"
fi
exec 9>&-   # made: several runs may use it at once (each in its own scratch dir)
[ $prepare = 1 ] && exit 0

# ---- 2. the tree, fresh ---------------------------------------------------------
scratch=/build/opframe.$$
mkdir -p "$root$scratch"
if git -C "$srcdir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    (cd "$srcdir" && git ls-files -z | xargs -0 cp --parents -t "$root$scratch")
else   # a release tarball: everything but build outputs of a configured tree
    (cd "$srcdir" && tar cf - --exclude=.libs --exclude=.deps --exclude='*.o' --exclude='*.lo' .) |
        (cd "$root$scratch" && tar xf -)
fi

# ---- 3. build and check in the chroot ---------------------------------------------
mount_into /proc -t proc proc
mount_into /sys --bind /sys
mount_into /dev --bind /dev
mount_into /dev/pts --bind /dev/pts
mount_into /dev/shm -t tmpfs -o mode=1777,size=1g tmpfs

in_root() {
    chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" \
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPF_TEST_SYSTEM_FIX=1 "$@"
}
if [ $shell = 1 ]; then
    in_root sh -c "cd $scratch && exec bash -i"
    exit 0
fi
if [ $riscv64 = 1 ]; then   # contrib/riscv64/check.sh, its build in the scratch directory (removed after)
    in_root sh -c "cd $scratch && OPF_RISCV64_IN_ROOT=1 OPF_RISCV64_BUILD=$scratch-riscv64 MAKEFLAGS=-j$jobs \
                   ${OPF_SEED:+OPF_SEED=$OPF_SEED} ${OPF_DEEP:+OPF_DEEP=$OPF_DEEP} \
                   bash contrib/riscv64/check.sh $riscv64_configs" && exit 0
    exit 1
fi
say "$(in_root sh -c 'ompi_info --version | head -1; g++ --version | head -1;
    dpkg-query -W -f="PMIx \${Version}; hwloc " libpmix-dev; dpkg-query -W -f="\${Version}\n" libhwloc-dev | head -1;
    . /etc/os-release; echo $PRETTY_NAME' | tr '\n' ';')"
t0=$(date +%s)
rc=0
# make check (every test's quick form, the bridge's among them), then, deep,
# the bridge's deep form (2 and 4 ranks, every case on the whole matrix):
# Open MPI 5.0 is this run's point. OPF_DEBIAN_TESTS=bridge: of make check,
# the bridge's test alone (the tree is built whole all the same).
# Built as quickstart.sh check builds (line tables only, check-build first).
tests=""
[ "${OPF_DEBIAN_TESTS:-}" = bridge ] && tests=TESTS=contrib/openmpi/test_ompi_bridge.sh
deep_bridge="make check TESTS=contrib/openmpi/test_ompi_bridge.sh TEST_SUITE_LOG=$bridge_log OPF_CHECK_DEPTH=deep"
[ $bridge_depth = deep ] || deep_bridge=true
in_root env ${OPF_BRIDGE_RANKS:+OPF_BRIDGE_RANKS=$OPF_BRIDGE_RANKS} sh -c "cd $scratch && ./autogen.sh >/dev/null 2>&1 &&
               ./configure -q CFLAGS='-O2 -g1' CXXFLAGS='-O2 -g1' &&
               make -j$((jobs + 1)) check-build >make.log 2>&1 ||
               { tail -40 make.log; exit 99; }
               make -j$jobs check $tests; quick=\$?
               $deep_bridge && exit \$quick" || rc=$?
say "build, make check${tests:+ ($tests)} and the bridge's $bridge_depth form: $(( $(date +%s) - t0 ))s, exit $rc"

# ---- 4. logs ---------------------------------------------------------------------
mkdir -p "$out"
for f in test-suite.log $bridge_log make.log config.log contrib/openmpi/test_ompi_bridge.sh.log; do
    [ -f "$root$scratch/$f" ] && cp "$root$scratch/$f" "$out/$(echo "$f" | tr / _)"
done
if [ -f "$root$scratch/contrib/openmpi/test_ompi_bridge.sh.log" ]; then
    grep -E '^(PASS|FAIL|SKIP):|Open MPI:' "$root$scratch/contrib/openmpi/test_ompi_bridge.sh.log" | sed "s/^/$name:   /"
fi
[ $rc = 99 ] && rc=1
# The point of this run is the bridge against Open MPI 5.0: a configure that
# did not build it is a failure, not a pass of everything else.
if [ $rc = 0 ] && [ ! -f "$root$scratch/contrib/openmpi/test_ompi_bridge.sh.log" ]; then
    say "FAIL: the Open MPI bridge was not built or tested ($(grep 'Open MPI component:' "$out/config.log" | sed 's/^ *//'))"
    rc=1
fi
exit $rc
