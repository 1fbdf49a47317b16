# The conformance engine beyond `make check`: its self-test (it must catch a
# wrong result, stray writes into guards and padding, and faults against
# PROT_NONE pages), and the same checks on OpenCL buffers (PoCL), ~1 min.
# (make check runs the engine's quick form over every provider, step 15 its
# deep form at every ISA level; the --slow run, more than 9 min on 2 cores,
# is for hand runs.)
. "$CI_ROOT/.ci/lib.sh"
ci_install_packages
cd "$CI_ROOT"
if [ ! -f Makefile ]; then
    ./autogen.sh >/dev/null && ./configure -q >/dev/null || { ci_report 0 1; exit 1; }
fi
make -j"$(nproc)" >/dev/null && make -j"$(nproc)" test/conformance >/dev/null || { ci_report 0 1; exit 1; }
passed=0 failed=0
run() {   # run NAME COMMAND...: one count, with the command's last lines
    local name=$1 rc start=$(date +%s)
    shift
    echo "== $name: $*"
    "$@" >"/tmp/ci-engine-$$.log" 2>&1; rc=$?
    tail -n 15 "/tmp/ci-engine-$$.log"
    echo "== $name: rc $rc, $(( $(date +%s) - start )) s"
    case $rc in
    0) passed=$((passed + 1)) ;;
    77) echo "== $name: skipped" ;;
    *) failed=$((failed + 1)) ;;
    esac
}
run self-test test/conformance --self-test
run opencl env OPF_MCA_mca_component_path=components/opencl test/conformance --backend opencl
rm -f "/tmp/ci-engine-$$.log"
ci_report "$passed" "$failed"
[ "$failed" -eq 0 ]
