#!/bin/sh
# bench_ompi_bridge.sh — MPI_Allreduce sweep (8 B .. 64 MiB; float SUM,
# double MAX, MAXLOC double_int) on 2 ranks: opframe's kernels through the
# bridge against Open MPI's own (op/avx, base), in one run. The bridge's
# MPI_T variable op_opframe_enable switches all ranks between the two before
# each timing block; see ompi_bridge_bench.c.
#
#   top_builddir=. contrib/openmpi/bench_ompi_bridge.sh [bench options: --min 8 --max 64M --rounds 9 --ms 10]
#
# Environment (optional):
#   OPF_OMPI_COMPONENT   the mca_op_opframe.so (default: the build tree's)
#   OPF_BENCH_COMPONENTS more opframe components (a directory of opf_op_*.so)
#                        besides the build tree's components/*/.libs
#   OPF_BENCH_NP         ranks (default 2); OPF_BENCH_MPIRUN_ARGS extra mpirun options
#   OPF_BENCH_STOCK_RUN=1  also a second mpirun with --mca op ^opframe (stock
#                        Open MPI alone: shows that the pass-through costs nothing)
#   OPF_MPICC, OPF_MPIRUN
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top_builddir=${top_builddir:-$here/../..}
top_builddir=$(cd "$top_builddir" && pwd)
MPICC=${OPF_MPICC:-mpicc}
MPIRUN=${OPF_MPIRUN:-mpirun}
NP=${OPF_BENCH_NP:-2}
component=${OPF_OMPI_COMPONENT:-$top_builddir/contrib/openmpi/.libs/mca_op_opframe.so}
[ -f "$component" ] || { echo "no component at $component (build it first)" >&2; exit 1; }

if [ "$(id -u)" = 0 ]; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
fi
LD_LIBRARY_PATH=$top_builddir/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH

scratch=$(mktemp -d "${TMPDIR:-/tmp}/opf-ompi-bench.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
home=$scratch/home
mkdir -p "$home/.openmpi/components" "$home/.opframe/components"
# opframe loads exactly these components (an installed opframe does not leak in)
OPF_MCA_mca_component_path=$home/.opframe/components
export OPF_MCA_mca_component_path
cp "$component" "$home/.openmpi/components/mca_op_opframe.so"
for c in "$top_builddir"/components/*/.libs/opf_op_*.so ${OPF_BENCH_COMPONENTS:+"$OPF_BENCH_COMPONENTS"/opf_op_*.so}; do
    [ -f "$c" ] && cp "$c" "$home/.opframe/components/"
done
"$MPICC" -std=c11 -O2 -o "$scratch/bench" "$here/ompi_bridge_bench.c"

echo "# $(uname -n): $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $("$MPIRUN" --version 2>/dev/null | head -1); opframe components: $(cd "$home/.opframe/components" && ls | tr '\n' ' ')"
# Which opframe provider serves the three slots (op_base_verbose=5 of opframe is too chatty; ask the bridge).
HOME=$home "$MPIRUN" -np 1 -x HOME -x LD_LIBRARY_PATH -x OPF_MCA_mca_component_path --mca op_base_verbose 40 "$scratch/bench" --min 8 --max 8 --rounds 1 --ms 0.1 2>&1 |
    grep -E "op:opframe: (SUM FLOAT|MAX DOUBLE|MAXLOC DOUBLE_INT) " | sed 's/^\[[^]]*\] /# /' || true
# shellcheck disable=SC2086
HOME=$home "$MPIRUN" -np "$NP" -x HOME -x LD_LIBRARY_PATH -x OPF_MCA_mca_component_path ${OPF_BENCH_MPIRUN_ARGS:-} "$scratch/bench" "$@"
if [ "${OPF_BENCH_STOCK_RUN:-0}" = 1 ]; then
    echo "# second run: --mca op ^opframe (stock Open MPI, bridge not loaded)"
    # shellcheck disable=SC2086
    HOME=$home "$MPIRUN" -np "$NP" -x HOME -x LD_LIBRARY_PATH -x OPF_MCA_mca_component_path --mca op ^opframe ${OPF_BENCH_MPIRUN_ARGS:-} "$scratch/bench" "$@"
fi
