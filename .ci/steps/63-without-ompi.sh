# configure --without-ompi (issue 12 item 14): everything builds without Open
# MPI (opframe_bench's per-target flags once lost AM_CPPFLAGS there), the
# build says so, and opframe_bench runs. Budget: about 3 min to build on 2
# cores; only the tests that touch what the option changes run.
. "$CI_ROOT/.ci/lib.sh"
dir=$(mktemp -d); ci_copy_tree "$dir"; cd "$dir"
tests="test/bench_smoke.sh test/api_errors test/components.sh"
./autogen.sh >/dev/null && ./configure -q --without-ompi && make -j"$(nproc)" >build.log 2>&1 \
    || { tail -40 build.log; false; } && make -j"$(nproc)" check TESTS="$tests"; rc=$?
if [ $rc -eq 0 ]; then
    tools/opframe_info | grep 'Open MPI in bench'
    if grep -q '^#define OPF_HAVE_OMPI' config.h; then
        echo "without-ompi: config.h still defines OPF_HAVE_OMPI"
        ci_report 0 1
        rc=1
    fi
fi
ci_report_automake "$dir/test-suite.log"
exit $rc
