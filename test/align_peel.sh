#!/bin/sh
# test/align_peel (every byte offset 0..63 the type's alignment allows, every
# length 0..257, against the base) on every component built in this tree;
# then the narrow floating-point types on the avx512 component with its
# AVX512-FP16 / -BF16 kernels off (on a CPU with them, its kernels through
# float), and the types of the streaming tier with it serving every
# 3-buffer call (its head and tail run on the plain kernel, its body needs
# the output aligned).
check_name=align_peel
. "$(dirname "$0")/check_lib.sh"
path=$(built_components_path)
OPF_MCA_mca_component_path=$path "$top/test/align_peel" || exit 1
OPF_MCA_op_avx512_support= OPF_MCA_mca_component_path=$path \
    "$top/test/align_peel" --providers avx512 --types FLOAT16,BFLOAT16,FLOAT8_E4M3,FLOAT8_E5M2 || exit 1
OPF_MCA_op_avx2_stream_min_bytes=1 OPF_MCA_op_avx512_stream_min_bytes=1 OPF_MCA_mca_component_path=$path \
    "$top/test/align_peel" --types INT8,INT32,INT64,FLOAT,DOUBLE,C_FLOAT_COMPLEX,C_DOUBLE_COMPLEX
