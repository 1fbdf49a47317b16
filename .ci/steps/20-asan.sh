# The same suite (its quick form, as make check runs it) under
# AddressSanitizer + UndefinedBehaviorSanitizer; the cuda component's GPU code
# for one architecture (its host code and the CPU stand-in are what run here).
. "$CI_ROOT/.ci/lib.sh"
dir=$(mktemp -d); ci_copy_tree "$dir"; cd "$dir"
san="-O1 -g1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
./autogen.sh >/dev/null && ./configure -q NVCC_GENCODE="-gencode arch=compute_80,code=compute_80" NVCCFLAGS="-O1 -Xcicc -O1" CFLAGS="$san" CXXFLAGS="$san" LDFLAGS="-fsanitize=address,undefined" \
    && make -j"$(nproc)" >/dev/null && make -j"$(nproc)" check; rc=$?
ci_report_automake "$dir/test-suite.log"
exit $rc
