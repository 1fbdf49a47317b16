# aarch64 under QEMU: cross-build the tree (g++-aarch64-linux-gnu, Debian
# multiarch arm64 -dev packages), then contrib/aarch64/check.sh runs the
# feature probe, the qualification of neon / sve<N> and the conformance
# engine under qemu-aarch64-static with -cpu cortex-a72, max,sve=off and
# max,sve<N>=on for N = 128..2048: every configuration in the engine's quick
# form (every slot of base, neon, sve<N> and the selected table, both kernel
# forms, guards, pages), and neon's narrow floating-point kernels (float16,
# bfloat16, fp8) once more in the deep form (all lengths, the exhaustive 8-
# and 16-bit runs; its other types' deep lengths took 3 minutes the 40-minute
# CI could not spare). The deep form of every configuration
# (`contrib/aarch64/check.sh` by hand) takes about 75 minutes of emulation
# on 2 cores: 10 to 17 minutes each. Budget: about 5 minutes.
. "$CI_ROOT/.ci/lib.sh"

ci_wait_prepared
ci_install_aarch64_packages || { echo "ci: could not install the aarch64 tool chain"; ci_report 0 1; exit 1; }

export OPF_AARCH64_BUILD
OPF_AARCH64_BUILD=$(mktemp -d)
OPF_CROSS_TIMEOUT=600 OPF_QUICK=1 OPF_DEEP_ALSO=neon OPF_DEEP_TYPES="float16 bfloat16 float8_e4m3 float8_e5m2" MAKEFLAGS=-j"$(nproc)" "$CI_ROOT/contrib/aarch64/check.sh" | tee "$OPF_AARCH64_BUILD/check.out"
rc=${PIPESTATUS[0]}
line=$(grep '^check-aarch64: [0-9]* passed, [0-9]* failed$' "$OPF_AARCH64_BUILD/check.out" | tail -1)
p=$(echo "$line" | sed -n 's/^check-aarch64: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
f=$(echo "$line" | sed -n 's/^check-aarch64: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
ci_report "${p:-0}" "${f:-1}"
exit $rc
