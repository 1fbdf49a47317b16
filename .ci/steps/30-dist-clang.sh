# What `make distcheck` proved, with no third full build of everything: the
# tarball that `make dist` makes from step 10's tree is unpacked read-only and
# built out of tree (VPATH) -- and that build is the clang 14 and
# `configure --without-ompi` variant (opframe_bench's per-target flags once
# lost AM_CPPFLAGS there), with the cuda component's full SASS list (step 10
# builds one architecture). Then, as distcheck does: make check (quick form),
# make install / uninstall into a scratch prefix leaving no file behind, make
# dist from the VPATH build, make distclean leaving no file behind. And the
# SASS list: every architecture configure chose is in the module's fat binary
# (components/cuda/fatbin_archs.py).
. "$CI_ROOT/.ci/lib.sh"
cd "$CI_ROOT"
passed=0 failed=0
step() {   # step DESCRIPTION COMMAND...: one count
    echo "+ $1"
    if "${@:2}"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: $1"; fi
}
finish() { ci_report "$passed" "$failed"; [ "$failed" -eq 0 ]; exit; }

work=$(mktemp -d)
step "make dist" sh -c 'make dist >"$1/dist.log" 2>&1 || { tail -30 "$1/dist.log"; false; }' - "$work" || finish
tarball=$(ls -t opframe-*.tar.gz | head -1)
tar -C "$work" -xzf "$tarball" && rm -f "$tarball"
src=$(echo "$work"/opframe-*)
chmod -R a-w "$src"
mkdir "$work/build" "$work/inst"
cd "$work/build"
clang --version | head -n 1
# -gdwarf-4: Debian 12's valgrind (3.19, used by test/components.sh) cannot
# read the DWARF 5 that clang 14 writes by default.
flags="-O2 -g1 -gdwarf-4"
# nvcc --threads: the six architectures' device code compiled side by side
# (the module's one large compile, otherwise last and alone on one core).
step "configure (VPATH, read-only source, clang, --without-ompi)" sh -c \
    "'$src/configure' -q --prefix='$work/inst' --without-ompi CC=clang CXX=clang++ CFLAGS='$flags' CXXFLAGS='$flags' NVCCFLAGS='--threads $(nproc)' >configure.log 2>&1 ||
     { tail -30 configure.log; false; }" || finish
step "config.h leaves OPF_HAVE_OMPI undefined" sh -c '! grep -q "^#define OPF_HAVE_OMPI" config.h'
step "make" sh -c 'make -j"$(nproc)" >build.log 2>&1 || { tail -40 build.log; false; }' || finish
make -j"$(nproc)" check; rc=$?
ci_report_automake "$work/build/test-suite.log"
[ $rc -eq 0 ] || { failed=$((failed + 1)); echo "FAILED: make check"; }

if grep -q '^S\["HAVE_CUDA_TRUE"\]=""' config.status; then   # configure built the cuda component
    want=$(sed -n 's/^NVCC_GENCODE = //p' Makefile | grep -o 'code=sm_[0-9]*' | sed 's/code=sm_//' | sort -n | tr '\n' ' ')
    newest=$(echo $want | awk '{print $NF}')
    have=$(python3 "$src/components/cuda/fatbin_archs.py" components/cuda/.libs/opf_op_cuda.so)
    echo "SASS configured: $want(PTX $newest); the module: $have"
    step "the module carries SASS for every configured architecture (at least 4), PTX for the newest" \
        sh -c '[ "$(echo $1 | wc -w)" -ge 4 ] && [ "$2" = "sass: $(echo $1); ptx: $3" ]' - "$want" "$have" "$newest"
else
    echo "no cuda component in this build (no CUDA toolkit): SASS list not checked"
fi

step "make install" sh -c 'make install >install.log 2>&1 || { tail -20 install.log; false; }'
step "make installcheck" sh -c 'make installcheck >installcheck.log 2>&1 || { tail -20 installcheck.log; false; }'
step "make uninstall leaves no file" sh -c 'make uninstall >uninstall.log 2>&1 && left=$(find "$1" -type f) &&
    { [ -z "$left" ] || { echo "left after uninstall:"; echo "$left"; false; }; }' - "$work/inst"
step "make dist from the VPATH build" sh -c 'make dist >dist2.log 2>&1 || { tail -20 dist2.log; false; }'
step "make distclean leaves no file" sh -c 'make distclean >distclean.log 2>&1 && left=$(find . -type f ! -name "*.log" ! -name "opframe-*.tar.gz") &&
    { [ -z "$left" ] || { echo "left after distclean:"; echo "$left" | head -20; false; }; }'
chmod -R u+w "$work"; rm -rf "$work"
finish
