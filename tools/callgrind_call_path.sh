#!/bin/sh
# callgrind_call_path.sh — instructions per call of opf_reduce_local and
# opf_reduce_local3 at count 1, counted by valgrind's callgrind: what the
# library runs before (and after) the kernel, and what the kernel runs.
#
#   tools/callgrind_call_path.sh [--calls N] [--max-path N] [BUILDDIR]
#
# BUILDDIR is the top of a built tree (default "."). For each case (SUM FLOAT
# and MAX INT, 2- and 3-buffer) a small loop program makes N calls (default
# 10000) under `valgrind --tool=callgrind --toggle-collect=<entry point>`, so
# only what runs inside the entry point is counted; callgrind_annotate's
# per-function costs are then split into the kernel (functions named
# kernel2<...> / kernel3<...>, base or component) and the call path (all the
# rest: the entry point with everything inlined into it, and any function it
# calls out of line), each divided by N. Each case runs twice: with the
# components of BUILDDIR (components/*/) and with none (the base kernels).
# Valgrind's CPU model has no AVX-512, so the avx2 component serves there.
#
# --max-path N: exit 1 when a call path costs more than N instructions.
# Exits 77 when valgrind is not installed.
set -e

calls=10000
max_path=
while [ $# -gt 0 ]; do
    case $1 in
    --calls) calls=$2; shift 2 ;;
    --max-path) max_path=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) break ;;
    esac
done
top=$(cd "${1:-.}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
CC=${CC:-cc}

command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null || {
    echo "callgrind_call_path: valgrind (with callgrind_annotate) is not installed" >&2
    exit 77
}
[ -f "$top/.libs/libopframe.so" ] || { echo "callgrind_call_path: no $top/.libs/libopframe.so (build first)" >&2; exit 2; }

T=$(mktemp -d "${TMPDIR:-/tmp}/opf_callgrind.XXXXXX")
trap 'rm -rf "$T"' EXIT
trap 'exit 1' HUP INT TERM

cat >"$T/loop.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <opframe/opframe.h>

/* loop CASE N: N calls of one case at count 1 (the first outside the count). */
int main(int argc, char **argv)
{
    if (argc != 3) return 2;
    const long n = atol(argv[2]);
    float a = 1, b = 2, c = 0;
    int x = 1, y = 2, z = 0;
    if (opf_init() != OPF_SUCCESS) return 1;
    int rc = 0;
    if (!strcmp(argv[1], "sum2"))
        for (long i = 0; i < n; ++i) rc |= opf_reduce_local(&a, &b, 1, OPF_FLOAT, OPF_SUM);
    else if (!strcmp(argv[1], "max2"))
        for (long i = 0; i < n; ++i) rc |= opf_reduce_local(&x, &y, 1, OPF_INT, OPF_MAX);
    else if (!strcmp(argv[1], "sum3"))
        for (long i = 0; i < n; ++i) rc |= opf_reduce_local3(&a, &b, &c, 1, OPF_FLOAT, OPF_SUM);
    else if (!strcmp(argv[1], "max3"))
        for (long i = 0; i < n; ++i) rc |= opf_reduce_local3(&x, &y, &z, 1, OPF_INT, OPF_MAX);
    else
        return 2;
    printf("%g %g %d %d\n", b, c, y, z);   /* the results are used */
    return rc || opf_finalize() ? 1 : 0;
}
EOF
# The entry points themselves (OPF_NO_INLINE_CALLS): opframe.h's inline calls
# would reach the kernel from main, where --toggle-collect cannot see them.
$CC -O2 -DOPF_NO_INLINE_CALLS -I"$src/include" -I"$top/include" -o "$T/loop" "$T/loop.c" -L"$top/.libs" -lopframe \
    -Wl,-rpath,"$top/.libs"

components=""
for dir in "$top"/components/*/; do components="$components${components:+:}${dir%/}"; done

# measure CASE ENTRY COMPONENT_PATH: prints "path kernel" instructions per call
measure() {
    out="$T/cg.$1"
    OPF_MCA_mca_component_path=$3 valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect="$2" \
        "$T/loop" "$1" "$calls" >"$T/log" 2>&1 || { cat "$T/log" >&2; exit 1; }
    # Lines "  1,234 (12.3%)  file:function [object]": sum per class.
    callgrind_annotate --auto=no --threshold=100 "$out" 2>/dev/null | awk -v n="$calls" '
        /^ *[0-9,]+ +\([0-9.]+%\) +/ && !/PROGRAM TOTALS/ {
            ir = $1; gsub(",", "", ir)
            if ($0 ~ /kernel[23]</) kernel += ir; else path += ir
        }
        END { printf "%.1f %.1f\n", path / n, kernel / n }'
}

status=0
printf '%-28s %-10s %10s %8s %8s\n' "call (count 1)" "kernels" "call path" "kernel" "total"
for case in sum2 max2 sum3 max3; do
    case $case in
    sum2) entry=opf_reduce_local; label="opf_reduce_local SUM FLOAT" ;;
    max2) entry=opf_reduce_local; label="opf_reduce_local MAX INT" ;;
    sum3) entry=opf_reduce_local3; label="opf_reduce_local3 SUM FLOAT" ;;
    max3) entry=opf_reduce_local3; label="opf_reduce_local3 MAX INT" ;;
    esac
    for which in components base; do
        if [ $which = base ]; then path=/nonexistent; else path=$components; fi
        set -- $(measure "$case" "$entry" "$path")
        printf '%-28s %-10s %10s %8s %8s\n' "$label" "$which" "$1" "$2" "$(echo "$1 + $2" | bc)"
        if [ -n "$max_path" ] && [ "$(echo "$1 > $max_path" | bc)" = 1 ]; then
            echo "callgrind_call_path: $label: call path of $1 instructions exceeds $max_path" >&2
            status=1
        fi
    done
done
echo "(instructions per call, $calls calls per case, valgrind $(valgrind --version | sed 's/valgrind-//'))"
exit $status
