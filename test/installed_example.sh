#!/bin/sh
# installed_example.sh — the component example as an installed user has it
# (issues 23 and 24): `make install DESTDIR=` into a scratch root puts no
# sample into the default component directory and installs the example's
# source and out-of-tree makefile under share/opframe/examples/component;
# that copy builds with pkg-config against the installed prefix alone, the
# installed opframe_info loads it from an explicit component path and it
# serves its slots, counted by a program built against the installed prefix
# (with an rpath: the scratch prefix is outside the loader's path).
# About 5 s on 2 cores, most of it the install.
check_name=installed_example
. "${srcdir:-.}/test/check_lib.sh"
for tool in pkg-config ${CC:-cc}; do
    command -v "$tool" >/dev/null 2>&1 || { echo "installed_example: SKIP: needs $tool"; exit 77; }
done
dest=$scratch/dest
if ! ${MAKE:-make} -s -C "$top" install DESTDIR="$dest" >"$scratch/install.log" 2>&1; then
    sed 's/^/    | /' "$scratch/install.log"
    check "make install DESTDIR" false
    summary
    exit
fi
pc=$(find "$dest" -name opframe.pc | head -n 1)
libdir=$(dirname "$(find "$dest" -name libopframe.so | head -n 1)")
info=$(find "$dest" -name opframe_info -type f | head -n 1)
examples=$(find "$dest" -type d -path '*/share/opframe/examples/component' | head -n 1)
check "installed: opframe.pc, libopframe.so, opframe_info" test -n "$pc" -a -n "$libdir" -a -n "$info"

# ---- issue 23: the sample is not in the default component directory -------------
check "no opf_op_example in the default component directory (pkglibdir)" \
    test -z "$(find "$libdir/opframe" -name 'opf_op_example*' 2>/dev/null)"
out=$(LD_LIBRARY_PATH=$libdir "$info" --mca mca_component_path "$libdir/opframe" --explain sum int32_t 2>&1)
check "the installed component directory does not serve SUM INT32 with the example" lacks "$out" example

# ---- issue 24: the example's source and makefile are installed, and build ---------
check "the example's source and makefile are installed" \
    test -f "$examples/opf_op_example.c" -a -f "$examples/Makefile.example"
cp -r "$examples" "$scratch/ex"
export PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$dest"
if ${MAKE:-make} -s -C "$scratch/ex" -f Makefile.example install COMPONENTDIR="$scratch/components" \
        >"$scratch/ex.log" 2>&1; then
    check "the installed example builds with pkg-config against the installed prefix" true
else
    sed 's/^/    | /' "$scratch/ex.log"
    check "the installed example builds with pkg-config against the installed prefix" false
fi
run_info() { LD_LIBRARY_PATH=$libdir "$info" --mca mca_component_path "$scratch/components" "$@" 2>&1; }
out=$(run_info)
check "the installed opframe_info loads it as an ABI-2 component" \
    contains "$out" "MCA op: example (MCA v2, API v2, Component v1.0.0) available"
out=$(run_info --explain sum int32_t)
check "it serves SUM INT32 at every count" contains "$out" "example priority 20: SELECTED, serves every count"
out=$(run_info --kernels --op BXOR --type INT64)
check "it serves BXOR INT64, 2-buffer" sh -c 'echo "$1" | grep -Eq "^INT64 +example/base *\$"' - "$out"
# Issue 34: the installed conformance tool on the example built from the
# installed copy, as opframe_component(3) tells a component writer to run it.
check_tool=$(find "$dest" -name opframe_check -type f | head -n 1)
out=$(LD_LIBRARY_PATH=$libdir "$check_tool" --mca mca_component_path "$scratch/components" --provider example --quick 2>&1)
check "the installed opframe_check passes the example ($(echo "$out" | grep '^provider example:'))" \
    sh -c 'echo "$1" | grep -Eq "^provider example: [1-9][0-9]* slots, [0-9]+ checks, 0 failed"' - "$out"

# A program against the installed prefix; its calls are the example's counter.
cat >"$scratch/app.c" <<'APP'
#include <stdio.h>
#include <stdlib.h>
#include <opframe/opframe.h>
int main(void)
{
    int a[16] = {1}, b[16] = {2}, c[16];
    char calls[32] = "";
    if (opf_init() != OPF_SUCCESS || opf_reduce_local(a, b, 16, OPF_INT32_T, OPF_SUM) != OPF_SUCCESS ||
        opf_reduce_local3(a, b, c, 16, OPF_INT32_T, OPF_SUM) != OPF_SUCCESS ||
        opf_param_get("op_example_calls", calls, sizeof calls) != OPF_SUCCESS) {
        printf("failed: %s\n", opf_last_error());
        return 1;
    }
    printf("b[0]=%d c[0]=%d op_example_calls=%s\n", b[0], c[0], calls);
    return opf_finalize() == OPF_SUCCESS ? 0 : 1;
}
APP
rpath=$(pkg-config --variable=libdir opframe)   # the sysroot (DESTDIR) included
# A sanitizer build of the library needs its runtime first in the program too.
sanitize=""
case $(nm -D --undefined-only "$rpath/libopframe.so" 2>/dev/null) in
*__asan_*) sanitize="-fsanitize=address,undefined" ;;
*__tsan_*) sanitize="-fsanitize=thread" ;;
esac
if ${CC:-cc} -std=c99 $sanitize $(pkg-config --cflags opframe) -o "$scratch/app" "$scratch/app.c" $(pkg-config --libs opframe) \
        -Wl,-rpath,"$rpath" >"$scratch/app.log" 2>&1; then
    out=$(OPF_MCA_mca_component_path="$scratch/components" "$scratch/app" 2>&1)
else
    out=$(cat "$scratch/app.log")
fi
check "a program built against the installed prefix runs its calls on the example" \
    contains "$out" "b[0]=3 c[0]=4 op_example_calls=2"
[ $failures -eq 0 ] || echo "$out" | sed 's/^/    | /'
summary
