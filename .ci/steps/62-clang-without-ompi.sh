# Two build variants in one build (issue 12 item 14), to keep CI's time: clang
# instead of GCC, and configure --without-ompi (opframe_bench's per-target
# flags once lost AM_CPPFLAGS there). Everything builds and the whole suite
# passes; the Open MPI bridge is covered by the main build (step 10).
. "$CI_ROOT/.ci/lib.sh"
dir=$(mktemp -d); ci_copy_tree "$dir"; cd "$dir"
clang --version | head -n 1
# -gdwarf-4: Debian 12's valgrind (3.19, used by test/components.sh) cannot
# read the DWARF 5 that clang 14 writes by default ("Possibly corrupted
# debuginfo file ... Giving up").
flags="-O2 -g -gdwarf-4"
./autogen.sh >/dev/null && ./configure -q --without-ompi CC=clang CXX=clang++ CFLAGS="$flags" CXXFLAGS="$flags" \
    && make -j"$(nproc)" >build.log 2>&1 \
    || { tail -40 build.log; false; } && make -j"$(nproc)" check; rc=$?
if [ $rc -eq 0 ] && grep -q '^#define OPF_HAVE_OMPI' config.h; then
    echo "clang-without-ompi: config.h still defines OPF_HAVE_OMPI"
    ci_report 0 1
    rc=1
fi
ci_report_automake "$dir/test-suite.log"
exit $rc
