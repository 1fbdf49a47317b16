#!/bin/sh
# bundle.sh — builds opframe for one CUDA architecture from the current
# working tree and writes a relocatable bundle for a bare GPU machine (no
# autotools, hwloc or libltdl there; an NVIDIA driver and CUDA 13) into
# build-gpu/bundle/ of the repository (an ignored folder: /build*/).
#
# Usage: contrib/gpu/bundle.sh [ARCH]     ARCH: 90 (default: H100/H200), 100, 80, ...
# Then copy the repository with build-gpu/bundle to the GPU machine and run
#   build-gpu/bundle/run.sh [OUTDIR]      (contrib/gpu/run.sh; docs/testing.md)
#
# What it does:
#   1. copies the tracked and untracked-not-ignored files (uncommitted work
#      included) into a scratch source directory, removing files gone since
#      the last run (timestamps kept: the build stays incremental);
#   2. configures there (out of tree) with --with-cuda --with-cuda-archs=ARCH
#      --without-ompi (opframe_bench would need libmpi and its plugins on the
#      GPU machine), the default -g -O2, and builds the library, the
#      components, the tools and the GPU tests;
#   3. assembles build-gpu/bundle/: lib/ (libopframe, libopframe-opencl and
#      the shared libraries they need that a bare system lacks: libltdl,
#      libhwloc, libudev, the OpenCL ICD loader; libstdc++ and libgcc_s in
#      lib/compat/, which run.sh adds only where the system's are missing or
#      too old), components/ (the installable component modules), bin/ (the
#      real programs from .libs/, not the libtool wrappers), run.sh and
#      BUNDLE.txt (commit, configuration, files, the glibc it needs).
#      Copies are stripped (ours of their debug information only: symbol
#      names stay for backtraces); libraries keep their sonames as file
#      names (no symbolic links).
# Nothing in the repository is written except build-gpu/.
#
# Environment:
#   OPF_GPU_BUILD  scratch directory (default /tmp/opframe-gpu-$USER)
#   JOBS           make -j (default: the number of CPUs)
#   NVCC           the CUDA compiler (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc)
set -eu

say() { echo "bundle: $*"; }
die() { echo "bundle: ERROR: $*" >&2; exit 1; }

t0=$(date +%s)
src=$(cd "$(dirname "$0")/../.." && pwd)
arch=${1:-90}
case $arch in
'' | *[!0-9]*) die "ARCH must be a number such as 90 (got '$arch')" ;;
esac
build=${OPF_GPU_BUILD:-/tmp/opframe-gpu-${USER:-$(id -un)}}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
out=$src/build-gpu/bundle
case $build in
"$src" | "$src"/*) die "OPF_GPU_BUILD must be outside the repository ($build)" ;;
esac

git -C "$src" rev-parse --git-dir >/dev/null 2>&1 || die "$src is not a git checkout"
if [ -z "${NVCC:-}" ]; then
    if command -v nvcc >/dev/null 2>&1; then NVCC=$(command -v nvcc)
    elif [ -x /usr/local/cuda/bin/nvcc ]; then NVCC=/usr/local/cuda/bin/nvcc
    else die "no nvcc (on PATH or /usr/local/cuda/bin)"; fi
fi
export NVCC
for tool in autoreconf make strip ldd objdump readelf; do
    command -v $tool >/dev/null 2>&1 || die "no $tool"
done

# ---- 1. the working tree, into the scratch source directory -------------------
say "source: $src ($(git -C "$src" rev-parse --short HEAD)$(git -C "$src" status --porcelain | grep -q . && echo ', with uncommitted changes'))"
say "scratch: $build"
mkdir -p "$build/src" "$build/obj"
list=$build/files.new
(cd "$src" && git ls-files -z --cached --others --exclude-standard) | tr '\0' '\n' |
    while IFS= read -r f; do
        # tracked files deleted in the working tree are not copied
        if [ -e "$src/$f" ] || [ -L "$src/$f" ]; then printf '%s\n' "$f"; fi
    done | LC_ALL=C sort >"$list"
[ -s "$list" ] || die "no files listed by git ls-files"
if [ -f "$build/files" ]; then
    LC_ALL=C comm -23 "$build/files" "$list" | while IFS= read -r f; do
        rm -f "$build/src/$f"
    done
fi
(cd "$src" && tr '\n' '\0' <"$list" | xargs -0 cp -pP --parents -t "$build/src")
mv "$list" "$build/files"
say "copied $(wc -l <"$build/files") files"

# ---- 2. configure and build ------------------------------------------------------
cd "$build/src"
if [ ! -x configure ]; then
    say "autogen.sh"
    ./autogen.sh >"$build/autogen.log" 2>&1 || { tail -30 "$build/autogen.log"; die "autogen.sh failed (log: $build/autogen.log)"; }
fi
conf="--with-cuda --with-cuda-archs=$arch --without-ompi NVCC=$NVCC"
if [ ! -f "$build/obj/Makefile" ] || [ "$(cat "$build/obj/configure.args" 2>/dev/null)" != "$conf" ]; then
    # another architecture: a fresh build directory (make would keep the
    # cuda kernels' object, which depends on the sources, not on configure)
    rm -rf "$build/obj"
    mkdir "$build/obj"
    cd "$build/obj"
    say "configure $conf (in $build/obj)"
    # shellcheck disable=SC2086
    ../src/configure -q $conf >"$build/configure.log" 2>&1 ||
        { tail -30 "$build/configure.log"; die "configure failed (config.log: $build/obj/config.log)"; }
    echo "$conf" >configure.args
fi
cd "$build/obj"
# Two makes: with -j, `all` and a test program named beside it would build
# the library's objects twice at once.
say "make -j$jobs all (log: $build/make.log)"
make -j"$jobs" all >"$build/make.log" 2>&1 || { tail -40 "$build/make.log"; die "build failed (log: $build/make.log)"; }
programs="tools/opframe_info tools/opframe_bench test/conformance test/cuda_conformance test/cuda_bench test/cuda_semantics
          test/cuda_conversions test/cuda_host_mappings"
# the OpenCL tests link the ICD loader, as libopframe-opencl does (built by `all` when configure found it)
[ -f libopframe-opencl.la ] && programs="$programs test/opencl_conformance test/opencl_bench"
say "make -j$jobs $programs"
# shellcheck disable=SC2086
make -j"$jobs" $programs >>"$build/make.log" 2>&1 || { tail -40 "$build/make.log"; die "build failed (log: $build/make.log)"; }
t_built=$(date +%s)
say "built in $((t_built - t0)) s"

# ---- 3. the bundle ------------------------------------------------------------------
obj=$build/obj
[ -f "$obj/components/cuda/.libs/opf_op_cuda.so" ] || die "the cuda component was not built"
rm -rf "$out"
mkdir -p "$out/lib/compat" "$out/components" "$out/bin"

soname() { readelf -d "$1" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p'; }
for la in libopframe libopframe-opencl; do
    real=$obj/.libs/$la.so
    [ -e "$real" ] || { [ $la = libopframe ] && die "$real not built"; continue; }
    name=$(soname "$real")
    [ -n "$name" ] || die "$real has no soname"
    cp -L "$real" "$out/lib/$name"
done
# The installable components (pkglib_LTLIBRARIES; the example component is not
# installed: it is a template, and would serve slots of its own).
for so in "$obj"/components/*/.libs/opf_op_*.so; do
    case $so in */components/example/*) continue ;; esac
    cp -L "$so" "$out/components/"
done
for p in $programs; do
    real=$obj/$(dirname "$p")/.libs/$(basename "$p")
    [ -f "$real" ] || real=$obj/$p   # linked without libtool's wrapper
    head -c 4 "$real" | grep -q ELF || die "$real is not an ELF file (a libtool wrapper?)"
    cp -L "$real" "$out/bin/"
done

# The shared libraries they need, from ldd (the closure), except glibc's own,
# the CUDA driver, and ours. libOpenCL.so.1 is also dlopened by the opencl
# component; ldd finds it through libopframe-opencl.
system_lib() {   # glibc and the dynamic loader: always on the GPU machine
    case $1 in
    linux-vdso.so.* | ld-linux*.so.* | libc.so.* | libm.so.* | libdl.so.* | libpthread.so.* | librt.so.* | \
        libresolv.so.* | libutil.so.* | libanl.so.* | libmvec.so.* | libnsl.so.*) return 0 ;;
    esac
    return 1
}
needed=$build/needed
: >"$needed"
for elf in "$out"/lib/*.so* "$out"/components/*.so "$out"/bin/*; do
    LD_LIBRARY_PATH=$out/lib ldd "$elf" >"$build/ldd.out" 2>&1 || die "ldd $elf failed: $(cat "$build/ldd.out")"
    if grep -q 'not found' "$build/ldd.out"; then cat "$build/ldd.out"; die "$elf: unresolved libraries"; fi
    sed -n 's/^[[:space:]]*\([^ ]*\) => \(\/[^ ]*\) .*/\1 \2/p' "$build/ldd.out" >>"$needed"
done
LC_ALL=C sort -u "$needed" | while read -r name path; do
    system_lib "$name" && continue
    case $name in
    libopframe*) continue ;;
    libcuda.so* | libnvidia-*) continue ;;
    libstdc++.so.* | libgcc_s.so.*) cp -L "$path" "$out/lib/compat/$name" ;;
    *) cp -L "$path" "$out/lib/$name" ;;
    esac
done
if [ ! -e "$out/lib/libOpenCL.so.1" ] && [ -e "$out/components/opf_op_opencl.so" ]; then
    icd=$(ldconfig -p 2>/dev/null | sed -n 's/^[[:space:]]*libOpenCL\.so\.1 (libc6,x86-64) => //p' | head -1)
    [ -n "$icd" ] && cp -L "$icd" "$out/lib/libOpenCL.so.1"
fi
for f in libltdl.so.7 libhwloc.so.15; do
    [ -e "$out/lib/$f" ] || die "$f is not in the bundle (was hwloc found by configure?)"
done
chmod -R u+w "$out"
# Ours lose their debug information but keep their symbol tables (function
# names in compute-sanitizer's host backtraces: 2.5 MB more); the others are
# stripped to what linking needs.
for elf in "$out"/lib/libopframe*.so* "$out"/components/*.so "$out"/bin/*; do
    strip --strip-debug "$elf"
done
for elf in "$out"/lib/*.so* "$out"/lib/compat/*.so*; do
    case $elf in */libopframe*) continue ;; esac
    strip --strip-unneeded "$elf"
done
cp "$src/contrib/gpu/run.sh" "$out/run.sh"
chmod 755 "$out/run.sh" "$out"/bin/*

# ---- BUNDLE.txt: what this is, and what it needs -------------------------------------
glibc_of() {   # the newest glibc symbol version the files use
    for elf in "$@"; do objdump -T "$elf"; done |
        sed -n 's/.*GLIBC_\([0-9][0-9.]*\).*/\1/p' | sort -t. -k1,1n -k2,2n -k3,3n -u | tail -n 1
}
glibc=$(glibc_of "$out"/lib/*.so* "$out"/components/*.so "$out"/bin/*)
glibc_compat=$(glibc_of "$out"/lib/compat/*)
{
    echo "opframe GPU bundle (contrib/gpu/bundle.sh; run: run.sh [OUTDIR])"
    echo "commit: $(git -C "$src" rev-parse HEAD)$(git -C "$src" status --porcelain | grep -q . && echo ' + uncommitted changes')"
    echo "branch: $(git -C "$src" rev-parse --abbrev-ref HEAD)"
    echo "built: $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(uname -n) ($(. /etc/os-release && echo "$PRETTY_NAME"))"
    echo "configure: $conf"
    echo "nvcc: $("$NVCC" --version | tail -1)"
    echo "cuda architectures: $arch (SASS) + compute_$arch (PTX)"
    echo "needs: x86-64, glibc >= $glibc ($glibc_compat where lib/compat/ is used), an NVIDIA driver for CUDA $("$NVCC" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
    echo "files:"
    (cd "$out" && find . -type f ! -name BUNDLE.txt | LC_ALL=C sort | while read -r f; do
        printf '  %-40s %9s\n' "${f#./}" "$(wc -c <"$f")"
    done)
} >"$out/BUNDLE.txt"

bytes=$(du -sb "$out" | cut -f1)
t1=$(date +%s)
say "wrote $out:"
sed -n 's/^  /  /p' "$out/BUNDLE.txt"
say "bundle size: $((bytes / 1024)) KiB ($(du -sh "$out" | cut -f1)); needs glibc >= $glibc ($glibc_compat with lib/compat/)"
say "time: $((t1 - t0)) s (build $((t_built - t0)) s)"
[ "$bytes" -lt $((40 * 1024 * 1024)) ] || die "the bundle is over 40 MiB"
say "next: copy the repository with build-gpu/bundle to the GPU machine, run build-gpu/bundle/run.sh [OUTDIR]"
