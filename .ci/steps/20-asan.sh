# The same suite under AddressSanitizer + UndefinedBehaviorSanitizer.
. "$CI_ROOT/.ci/lib.sh"
dir=$(mktemp -d); ci_copy_tree "$dir"; cd "$dir"
san="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
./autogen.sh >/dev/null && ./configure -q CFLAGS="$san" CXXFLAGS="$san" LDFLAGS="-fsanitize=address,undefined" \
    && make -j"$(nproc)" >/dev/null && make -j"$(nproc)" check; rc=$?
ci_report_automake "$dir/test-suite.log"
exit $rc
