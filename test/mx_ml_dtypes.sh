#!/bin/sh
# The MX block formats against ml_dtypes (test/mx_ml_dtypes.py); skips (77)
# without python3, numpy or ml_dtypes.
check_name=mx_ml_dtypes
. "$(dirname "$0")/check_lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "mx_ml_dtypes: SKIP (no python3)"; exit 77; }
OPF_LIB="$top/.libs/libopframe.so" OPF_MCA_mca_component_path=$(built_components_path) \
    python3 "$(dirname "$0")/mx_ml_dtypes.py" "$@"
