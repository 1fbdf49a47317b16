#!/bin/sh
# opframe quick start, for a fresh Debian 12 machine (run as root, or with sudo).
#
#   contrib/quickstart.sh          install what is missing, build, show the kernel
#                                  table, run a few reductions and a short benchmark
#   contrib/quickstart.sh check    install what is missing, build, run the test suite
#                                  (make check: every test's quick form, a few minutes)
set -eu
cd "$(dirname "$0")/.."

packages="g++ make autoconf automake libtool libltdl-dev libhwloc-dev pkg-config libopenmpi-dev libpmix-dev openmpi-bin
          ocl-icd-opencl-dev opencl-headers pocl-opencl-icd"
# the test suite also runs the component life cycle under valgrind
[ "${1:-run}" = check ] && packages="$packages valgrind"
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "quickstart: installing$missing"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
fi

[ -x configure ] || ./autogen.sh
# The test run builds the cuda component's GPU code as PTX for one
# architecture, at -O1 on both sides of nvcc (CPU-side tests only load it; a
# GPU JIT-compiles the PTX), line tables only for debug information (-g1:
# backtraces keep their lines) and -O1: the template-heavy kernel tables and
# tests compile in two thirds of the time, the GPU code in a quarter
# (docs/testing.md). The -O2 builds with SASS for every architecture are
# tested too: CI's clang, Debian 13 and cross builds, and
# `./configure && make check` by hand.
[ -f Makefile ] || if [ "${1:-run}" = check ]; then
    ./configure NVCC_GENCODE="-gencode arch=compute_80,code=compute_80" NVCCFLAGS="-O1 -Xcicc -O1" \
        CFLAGS="-O1 -g1" CXXFLAGS="-O1 -g1"
else
    ./configure
fi
jobs=$(nproc 2>/dev/null || echo 2)

case "${1:-run}" in
check)
    # one more job than cores: libtool's shell work overlaps the compilers
    make -j"$((jobs + 1))" check-build
    make -j"$jobs" check
    ;;
run)
    make -j"$jobs"
    # Use the components built in this tree (an installed opframe finds its
    # own in $(pkglibdir) and ~/.opframe/components).
    path=""
    for dir in "$PWD"/components/*/; do path="$path${path:+:}${dir%/}"; done
    export OPF_MCA_mca_component_path="$path"
    tools/opframe_info
    echo
    tools/opframe_info --hw
    echo
    tools/opframe_info --kernels
    echo
    contrib/examples/reduce_demo
    echo
    tools/opframe_bench --sizes 4,64K,1M --samples 7
    ;;
*)
    echo "usage: $0 [check]" >&2
    exit 2
    ;;
esac
