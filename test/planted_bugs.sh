#!/bin/sh
# planted_bugs.sh — opframe_check must catch what a component writer gets
# wrong. Three defects planted in copies of the example component
# (components/example/opf_op_example.c), each built as a component writer
# builds it (Makefile.example's line) into a directory of its own and checked
# as opframe_check(1) says, on the example's slots (--function 'example.*':
# the datatype level runs the selected table, the same for every copy):
#
#   skip0_1000    the 2-buffer SUM INT32 kernel skips element 0 when n > 1000
#                 (--quick: caught at n = 1001, a length op_base_selftest uses)
#   skip0_100000  the same when n > 100000 (--deep: caught at its long lengths)
#   static3       the 3-buffer SUM INT32 kernel goes through one static scratch
#                 buffer (copy in1 in, add in2, copy out): right on one
#                 thread, wrong when two threads share it (--deep: the thread
#                 check; --quick --threads too)
#
# and the unchanged example passes --deep. A mutation that no longer applies
# to the example's source fails the test (the example changed: update the
# sed lines below). The test fails if opframe_check stops catching any of them.
set -u
check_name=planted_bugs
. "$(dirname "$0")/check_lib.sh"
srcdir=${srcdir:-.}
abs_srcdir=$(cd "$srcdir" && pwd)
abs_top=$(cd "$top" && pwd)
CC=${CC:-cc}
tool=$abs_top/tools/opframe_check
example=$abs_srcdir/components/example/opf_op_example.c
[ -x "$tool" ] || { echo "SKIP: no $tool (make first)"; exit 77; }
[ -f "$abs_top/.libs/libopframe.so" ] || { echo "SKIP: no libopframe.so in $abs_top/.libs"; exit 77; }
started=$(date +%s)

# build NAME SEDSCRIPT: $scratch/NAME/opf_op_example.so from the example
# changed by SEDSCRIPT (a file; none: unchanged), with the flags of
# Makefile.example's build line.
build() {
    mkdir -p "$scratch/$1"
    if [ -n "$2" ]; then
        sed -f "$2" "$example" >"$scratch/$1/opf_op_example.c"
        if cmp -s "$example" "$scratch/$1/opf_op_example.c"; then
            check "mutation $1 applies to the example's source" false
            return 1
        fi
    else
        cp "$example" "$scratch/$1/opf_op_example.c"
    fi
    if ! "$CC" -O2 -std=c99 -ffp-contract=off -fPIC -shared -fvisibility=hidden -I"$abs_srcdir/include" \
        -o "$scratch/$1/opf_op_example.so" "$scratch/$1/opf_op_example.c" -L"$abs_top/.libs" -lopframe \
        -Wl,--no-undefined >"$scratch/$1/cc.log" 2>&1; then
        cat "$scratch/$1/cc.log"
        check "mutation $1 builds" false
        return 1
    fi
}

# run NAME ARG...: opframe_check on $scratch/NAME's example; sets $out, $rc, $secs.
run() {
    name=$1
    shift
    t0=$(date +%s)
    out=$("$tool" --mca mca_component_path "$scratch/$name" --provider example --function 'example.*' \
        --max-failures 3 "$@" 2>&1)
    rc=$?
    secs=$(($(date +%s) - t0))
    echo "-- $name $*: exit $rc, ${secs} s"
    echo "$out" | grep -A6 '^FAIL' | head -14
    echo "$out" | grep '^provider example\|^conformance:'
}

cat >"$scratch/skip0_1000.sed" <<'EOF'
s/for (opf_count_t i = 0; i < n; ++i) b\[i\] = a\[i\] + b\[i\];/for (opf_count_t i = n > 1000 ? 1 : 0; i < n; ++i) b[i] = a[i] + b[i];/
EOF
sed 's/n > 1000 ?/n > 100000 ?/' "$scratch/skip0_1000.sed" >"$scratch/skip0_100000.sed"
cat >"$scratch/static3.sed" <<'EOF'
/^static void sum_int32_3(/,/^}/c\
static uint32_t scratch[256];   /* planted: one buffer for every thread */\
static void sum_int32_3(const void *in1, const void *in2, void *out, opf_count_t n)\
{\
    const uint32_t *a = in1, *b = in2;\
    uint32_t *o = out;\
    for (opf_count_t at = 0; at < n; at += 256) {\
        const opf_count_t m = n - at < 256 ? n - at : 256;\
        memcpy(scratch, a + at, (size_t)m * sizeof *a);\
        for (opf_count_t i = 0; i < m; ++i) scratch[i] += b[at + i];\
        memcpy(o + at, scratch, (size_t)m * sizeof *o);\
    }\
    __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);\
}
s/^#include <stdio.h>$/#include <stdio.h>\
#include <string.h>/
EOF

# The unchanged example passes.
if build clean ""; then
    run clean --deep
    check "the example passes --deep (exit $rc)" test "$rc" = 0
fi

if build skip0_1000 "$scratch/skip0_1000.sed"; then
    run skip0_1000 --quick
    check "skip0_1000: --quick fails (exit $rc)" test "$rc" = 1
    check "  ... at n = 1001, the 2-buffer SUM INT32 kernel" \
        contains "$out" "op=SUM type=INT32 provider=example layout=\"2-buffer"
    check "  ... element 0 named" contains "$out" "index    0"
fi

if build skip0_100000 "$scratch/skip0_100000.sed"; then
    run skip0_100000 --quick
    check "skip0_100000: --quick passes (no length above 100000 there; exit $rc)" test "$rc" = 0
    run skip0_100000 --deep --no-threads
    check "skip0_100000: --deep fails (exit $rc)" test "$rc" = 1
    n=$(echo "$out" | sed -n 's/^FAIL wrong result: kernel op=SUM type=INT32 provider=example .* n=\([0-9]*\) .*/\1/p' | head -1)
    check "  ... at a length above 100000 (n=$n)" test "${n:-0}" -gt 100000
    check "  ... element 0 named" contains "$out" "index    0"
fi

# Two threads in one kernel at once need two CPUs: with one, the thread
# check says it saw no overlap (a warning) and cannot catch the race.
if [ "$(nproc 2>/dev/null || echo 1)" -lt 2 ]; then
    echo "SKIP: static3 (this process may use one CPU: nproc)"
elif build static3 "$scratch/static3.sed"; then
    run static3 --deep --no-threads
    check "static3: --deep --no-threads passes (right on one thread; exit $rc)" test "$rc" = 0
    run static3 --deep
    check "static3: --deep fails (exit $rc)" test "$rc" = 1
    check "  ... in the thread check, 3-buffer" contains "$out" "threads on adjacent ranges of"
    check "  ... of the 3-buffer kernel" contains "$out" "layout=\"3-buffer, "
    run static3 --quick --threads
    check "static3: --quick --threads fails (exit $rc)" test "$rc" = 1
fi

echo "($(($(date +%s) - started)) s)"
summary
