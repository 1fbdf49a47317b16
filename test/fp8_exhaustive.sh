#!/bin/sh
# fp8 on all 65,536 input pairs per op and format, on every component built
# in this tree (test/fp8_exhaustive.cpp says what is checked); then again
# with the avx512 component's AVX512-FP16 kernels switched off
# (op_avx512_support without fp16), so that on a CPU with AVX512-FP16 both
# its fp8 SUM kernels are checked: binary16 sums by vaddph (first run) and
# through float by vcvtph2ps / vcvtps2ph (second run).
check_name=fp8_exhaustive
. "$(dirname "$0")/check_lib.sh"
OPF_MCA_mca_component_path=$(built_components_path) "$top/test/fp8_exhaustive" "$@" || exit 1
OPF_MCA_op_avx512_support=bf16 OPF_MCA_mca_component_path=$(built_components_path) "$top/test/fp8_exhaustive" "$@"
