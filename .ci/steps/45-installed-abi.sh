# The component ABI as an outsider sees it: install the main build (step 10
# configured and built it) into a scratch root, then, against the installed
# headers and opframe.pc alone,
#   - an application including device.h and introspect.h does not see component.h;
#   - components/example builds out of tree with its Makefile.example;
#   - the installed opframe_info loads it as an ABI-2 component.
# About 20 s on 2 cores (the install relinks nothing that step 10 built).
. "$CI_ROOT/.ci/lib.sh"
cd "$CI_ROOT"
root=$(mktemp -d /tmp/opf_installed_abi.XXXXXX)
trap 'rm -rf "$root"' EXIT
passed=0 failed=0
check() {   # check DESCRIPTION COMMAND...
    if "${@:2}" >"$root/out" 2>&1; then
        passed=$((passed + 1)); echo "ok: $1"
    else
        failed=$((failed + 1)); echo "FAILED: $1"; sed 's/^/    | /' "$root/out"
    fi
}

check "make install DESTDIR" make install DESTDIR="$root/dest"
pc=$(find "$root/dest" -name opframe.pc | head -n 1)
libdir=$(dirname "$(find "$root/dest" -name 'libopframe.so' | head -n 1)")
info=$(find "$root/dest" -name opframe_info -type f | head -n 1)
export PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$root/dest"

printf '#include <opframe/device.h>\n#include <opframe/introspect.h>\n#ifdef OPFRAME_COMPONENT_H\n#error component.h seen\n#endif\nint main(void) { int k; return opf_memory_kind_lookup("host", &k); }\n' >"$root/app.c"
check "an application's headers keep the component ABI out" \
    sh -c "cc -std=c99 -Wall -Werror \$(pkg-config --cflags opframe) -o '$root/app' '$root/app.c' \$(pkg-config --libs opframe)"

mkdir "$root/example" "$root/components"
cp components/example/opf_op_example.c components/example/Makefile.example "$root/example/"
check "the example builds out of tree (Makefile.example)" \
    make -C "$root/example" -f Makefile.example install COMPONENTDIR="$root/components"
check "the installed opframe_info loads it as an ABI-2 component" \
    sh -c "LD_LIBRARY_PATH='$libdir' '$info' --mca mca_component_path '$root/components' |
           grep -E 'MCA op: example \\(MCA v2, API v2, Component v1\\.0\\.0\\) available\$'"
check "and it serves SUM INT32" \
    sh -c "LD_LIBRARY_PATH='$libdir' '$info' --mca mca_component_path '$root/components' --explain sum int32_t |
           grep -E '^  example priority 20: SELECTED'"

check "test/installed_example.sh: the example installed under share/, built against the prefix, serving" \
    env top_builddir=. sh test/installed_example.sh

check "cmake/check_consumer.sh: a CMake project against the installed, moved tree" \
    env top_builddir=. sh cmake/check_consumer.sh

echo "installed-abi: $passed passed, $failed failed"
ci_report "$passed" "$failed"
[ "$failed" -eq 0 ]
