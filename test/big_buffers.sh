#!/bin/sh
# Issue 15's big-buffer paths, with the components built in this tree:
#  1. test/workers (the op_base_threads pool: start and join, chunk edges
#     bit-exact against one thread, concurrent callers) with the SIMD
#     components loaded, so the pool runs their kernels, streaming ones too;
#  2. the conformance engine with the streaming tier lowered to 256 bytes
#     (op_<isa>_stream_min_bytes), so every length from a few hundred bytes on
#     runs the streaming kernels at every ISA level, against the reference,
#     on guarded buffers (the streaming components' slots: the base and the
#     selected table have no streaming tier of their own; the datatype level
#     whole); with the pool on from 1 byte per thread (the
#     datatype-level calls, 5 elements, take its path and run in one chunk;
#     test/workers checks the chunk edges).
set -e
check_name=big_buffers
. "$(dirname "$0")/check_lib.sh"
path=$(built_components_path)
export OPF_MCA_mca_component_path="$path"
echo "test/workers with the components"
"$top/test/workers"
echo "conformance: op_avx512_stream_min_bytes=op_avx2_stream_min_bytes=256, op_base_threads=2 from 1 byte per thread"
OPF_MCA_op_avx512_stream_min_bytes=256 OPF_MCA_op_avx2_stream_min_bytes=256 \
OPF_MCA_op_base_threads=2 OPF_MCA_op_base_threads_min_bytes=1 "$top/test/conformance" \
    --function 'avx2.*' --function 'avx512.*' --function 'datatype.*' "$@"
