#!/bin/sh
# opframe's formats against ml_dtypes: the MX block formats
# (test/mx_ml_dtypes.py), the FNUZ 8-bit floats (test/fnuz_ml_dtypes.py) and
# the NVFP4 blocks (test/nvfp4_ml_dtypes.py);
# skips (77) without python3, numpy or ml_dtypes.
check_name=mx_ml_dtypes
. "$(dirname "$0")/check_lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "mx_ml_dtypes: SKIP (no python3)"; exit 77; }
lib=$top/.libs/libopframe.so
# A sanitizer build (CI step 20): python3 can load the library only with the
# sanitizers' runtimes loaded first (libtool's shared library leaves them to
# the program; python3 has none); leaks are python's own, not looked for.
preload=""
for pair in __asan_init:libasan.so __ubsan_handle:libubsan.so __tsan_init:libtsan.so; do
    if nm -D --undefined-only "$lib" 2>/dev/null | grep -q "${pair%%:*}"; then
        runtime=$(${CC:-gcc} -print-file-name="${pair#*:}" 2>/dev/null)
        [ -f "$runtime" ] && preload=$preload${preload:+:}$runtime
    fi
done
if [ -n "$preload" ]; then
    LD_PRELOAD=$preload${LD_PRELOAD:+:$LD_PRELOAD} ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
    export LD_PRELOAD ASAN_OPTIONS
fi
export OPF_LIB=$lib OPF_MCA_mca_component_path="$(built_components_path)"
python3 "$(dirname "$0")/mx_ml_dtypes.py" "$@"
mx=$?
python3 "$(dirname "$0")/fnuz_ml_dtypes.py"
fnuz=$?
python3 "$(dirname "$0")/nvfp4_ml_dtypes.py"
nvfp4=$?
[ "$mx:$fnuz:$nvfp4" = 77:77:77 ] && exit 77   # numpy / ml_dtypes missing: all skip
for rc in $mx $fnuz $nvfp4; do
    case $rc in 0 | 77) ;; *) exit 1 ;; esac
done
exit 0
