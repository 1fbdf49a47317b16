#!/bin/sh
# The CMake package, end to end (run by `make check`):
#   1. `make install DESTDIR=STAGE` of this build (the man pages and their
#      links are checked there too);
#   2. the installed cmake files name no directory of the build machine
#      (no build or source directory, no prefix);
#   3. the staged tree is moved elsewhere, and a CMake project
#      (cmake/consumer) finds opframe there with find_package(opframe 0.1),
#      builds against opframe::opframe (and opframe::opencl where built),
#      and its program reduces correctly;
#   4. version requests: 0.1 and 0.1.0 are met, 0.2, 1.0 and 99 are not.
# Exit 77 (skip) without cmake, or for a sanitizer build.
set -u
top=${top_builddir:-.}
top=$(cd "$top" && pwd)
srcdir=${srcdir:-$top}
srcdir=$(cd "$srcdir" && pwd)
if ! command -v cmake >/dev/null 2>&1; then
    echo "check_consumer: no cmake on PATH: skipped"
    exit 77
fi
# A sanitizer build's libopframe needs the sanitizer runtime in every program
# that links it, which a plain CMake consumer does not have: the consumer is
# checked by the ordinary build.
if grep -aq '__asan_init\|__tsan_init' "$top/.libs/libopframe.so" 2>/dev/null; then
    echo "check_consumer: libopframe is a sanitizer build: skipped"
    exit 77
fi
check_name=check_consumer
. "$srcdir/test/check_lib.sh"
top=$(cd "$top" && pwd)
# make's variables are not passed down: `make check -jN` runs this script
# inside a jobserver, and the install below is a make of its own.
submake() { (cd "$top" && env -u MAKEFLAGS -u MFLAGS ${MAKE:-make} -s --no-print-directory "$@"); }

# 1. A staged installation.
prefix=$(submake print-opframe-prefix)
cmakedir_installed=$(submake print-opframe-cmakedir)
if ! submake install DESTDIR="$scratch/stage" >"$scratch/install.log" 2>&1; then
    tail -20 "$scratch/install.log"
    echo "FAILED: make install DESTDIR=$scratch/stage"
    exit 1
fi
cmakedir=$scratch/stage$cmakedir_installed
check "opframeConfig.cmake is installed in $cmakedir_installed" test -f "$cmakedir/opframeConfig.cmake"
check "opframeConfigVersion.cmake is installed" test -f "$cmakedir/opframeConfigVersion.cmake"

# The manual pages are installed too, with a page per documented function.
mandir=$scratch/stage$(submake print-opframe-mandir)
for page in man1/opframe_info.1 man1/opframe_bench.1 man7/opframe.7 man3/opf_reduce_local.3 man3/opframe_component.3; do
    check "$page is installed" test -f "$mandir/$page"
done
check "man3/opf_reduce_local3.3 links to opf_reduce_local.3" test "$(readlink "$mandir/man3/opf_reduce_local3.3")" = opf_reduce_local.3
if command -v man >/dev/null 2>&1; then   # issue 34: by its path, from any directory
    check "man -l <man3dir>/opf_init.3 from / shows the page" \
        sh -c 'cd / && man -l -P cat "$1/man3/opf_init.3" 2>/dev/null | grep -q "opf_init"' - "$mandir"
fi
if command -v mandoc >/dev/null 2>&1; then
    check "the installed opf_type_vector(3) renders the datatype page" \
        sh -c 'cd "$1" && mandoc -T ascii man3/opf_type_vector.3 | grep -q "derived datatypes"' - "$mandir"
fi

# 2. Nothing of this machine's directories in them.
for d in "$top" "$srcdir" "$prefix"; do
    check "the cmake files do not name $d" sh -c '! grep -F -- "$1" "$2"/*.cmake' - "$d" "$cmakedir"
done

# 3. Moved, then found and used.
mv "$scratch/stage$prefix" "$scratch/moved"
moved_cmakedir=$scratch/moved${cmakedir_installed#"$prefix"}
cmake -S "$srcdir/cmake/consumer" -B "$scratch/build" -DCMAKE_PREFIX_PATH="$scratch/moved" \
    -DCMAKE_C_COMPILER="${CC:-cc}" >"$scratch/configure.log" 2>&1
rc=$?
grep -E 'opframe|Error' "$scratch/configure.log"
check "the consumer configures (rc $rc)" test $rc -eq 0
check "find_package found the moved tree" grep -q "headers in $scratch/moved/include" "$scratch/configure.log"
cmake --build "$scratch/build" -- VERBOSE=1 >"$scratch/build.log" 2>&1
rc=$?
echo "the consumer's build lines (\$S = $scratch):"
grep -E ' -o [^ ]*consumer( |$)| -o [^ ]*consumer.c.o ' "$scratch/build.log" | sed "s|$scratch|\$S|g"
check "the consumer builds (rc $rc)" test $rc -eq 0
[ $rc -eq 0 ] || tail -20 "$scratch/build.log"
out=$("$scratch/build/consumer" 2>&1)
rc=$?
echo "$out"
check "the consumer runs against the moved library (rc $rc)" test $rc -eq 0
check "it runs with the moved library" sh -c 'ldd "$1" | grep -q "$2/.*libopframe"' - "$scratch/build/consumer" "$scratch/moved"
if [ -f "$moved_cmakedir/../../libopframe-opencl.so" ]; then
    check "opframe::opencl is defined where libopframe-opencl is installed" grep -q "opframe::opencl: yes" "$scratch/configure.log"
    # libopframe-opencl finds libopframe through its own run path (the
    # prefix it was installed for), not the program's: moved, it needs help.
    check "the opencl consumer runs" env LD_LIBRARY_PATH="$scratch/moved/lib" "$scratch/build/consumer_opencl"
else
    check "no opframe::opencl without libopframe-opencl" grep -q "opframe::opencl: no" "$scratch/configure.log"
fi

# 4. Version requests.
request() {   # request VERSION: does find_package(opframe VERSION) succeed?
    rm -rf "$scratch/request"
    cmake -S "$srcdir/cmake/version_request" -B "$scratch/request" -Dopframe_DIR="$moved_cmakedir" -DWANT="$1" \
        >"$scratch/request.log" 2>&1
}
for want in 0.1 0.1.0; do
    check "find_package(opframe $want) is met" request $want
done
grep 'satisfies' "$scratch/request.log"
refused() { ! request "$1"; }
for want in 0.2 1.0 99; do
    check "find_package(opframe $want) is not met" refused $want
done
grep -A2 'compatible' "$scratch/request.log" | head -4

summary
