# The clang build (issue 12 item 14): configure CC=clang CXX=clang++ (Open MPI
# as found), build everything, make check.
# Budget: about 3 min to build on 2 cores, 2-3 min to check.
. "$CI_ROOT/.ci/lib.sh"
dir=$(mktemp -d); ci_copy_tree "$dir"; cd "$dir"
clang --version | head -n 1
# -gdwarf-4: Debian 12's valgrind (3.19, used by test/components.sh) cannot
# read the DWARF 5 that clang 14 writes by default ("Possibly corrupted
# debuginfo file ... Giving up").
flags="-O2 -g -gdwarf-4"
./autogen.sh >/dev/null && ./configure -q CC=clang CXX=clang++ CFLAGS="$flags" CXXFLAGS="$flags" \
    && make -j"$(nproc)" >build.log 2>&1 \
    || { tail -40 build.log; false; } && make -j"$(nproc)" check; rc=$?
ci_report_automake "$dir/test-suite.log"
exit $rc
