# riscv64 under QEMU: contrib/riscv64/check.sh (make check-riscv64) in the
# Debian 13 root (GCC 14 for RVV 1.0, QEMU 10; the root and its riscv64
# packages come from ci_prepare's debian13.sh --prepare): the cross-build of
# the library, the rvv<N> components and the conformance engine, then the
# probe, the qualification and the engine's quick form under qemu-riscv64 at
# VLEN 128, 256, 512 and 1024, with and without Zvfh, and without V.
# Budget: about 4-5 minutes on 2 cores.
. "$CI_ROOT/.ci/lib.sh"
ci_wait_prepared
ci_install_debootstrap
out=$(mktemp)
bash "$CI_ROOT/contrib/riscv64/check.sh" | tee "$out"
rc=${PIPESTATUS[0]}
line=$(grep '^check-riscv64: [0-9]* passed, [0-9]* failed$' "$out" | tail -1)
p=$(echo "$line" | sed -n 's/^check-riscv64: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
f=$(echo "$line" | sed -n 's/^check-riscv64: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
ci_report "${p:-0}" "${f:-1}"
rm -f "$out"
exit $rc
