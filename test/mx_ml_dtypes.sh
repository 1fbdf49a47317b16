#!/bin/sh
# The MX block formats against ml_dtypes (test/mx_ml_dtypes.py); skips (77)
# without python3, numpy or ml_dtypes.
check_name=mx_ml_dtypes
. "$(dirname "$0")/check_lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "mx_ml_dtypes: SKIP (no python3)"; exit 77; }
lib=$top/.libs/libopframe.so
# A sanitizer build (CI step 20): python3 can load the library only with the
# sanitizer's runtime loaded first; leaks are python's own, not looked for.
runtime=$(ldd "$lib" 2>/dev/null | awk '/libasan|libtsan/ {print $3; exit}')
if [ -n "$runtime" ]; then
    LD_PRELOAD=$runtime${LD_PRELOAD:+:$LD_PRELOAD} ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
    export LD_PRELOAD ASAN_OPTIONS
fi
OPF_LIB=$lib OPF_MCA_mca_component_path=$(built_components_path) python3 "$(dirname "$0")/mx_ml_dtypes.py" "$@"
