#!/bin/sh
# test/opencl_databytes with the opencl component of this build (and no
# other) on mca_component_path; exit 77 where there is no OpenCL device.
set -u
component=opencl
. "$(dirname "$0")/component_test.sh"
"$top/test/opencl_databytes" "$@"
