#!/bin/sh
# subst.sh TEMPLATE: writes TEMPLATE to stdout with its @NAME@ placeholders
# filled in from the environment that cmake/Makefile.inc passes (every
# installation directory fully expanded by make).
#
# Paths under the prefix become ${_opframe_prefix}/REL, where the Config file
# computes _opframe_prefix from its own place (@UP_TO_PREFIX@: as many ".."
# as cmakedir is deep below the prefix): the installed tree may be moved or
# staged with DESTDIR. A directory outside the prefix stays absolute.
set -eu
below() {   # below DIR: DIR relative to the prefix, or nothing if it is not under it
    case $1 in
    "$prefix") echo . ;;
    "$prefix"/*) printf '%s\n' "$1" | cut -c$((${#prefix} + 2))- ;;
    esac
}
spell() {   # spell DIR: how opframeConfig.cmake names DIR
    rel=$(below "$1")
    if [ -n "$rel" ]; then printf '${_opframe_prefix}/%s\n' "$rel"; else printf '%s\n' "$1"; fi
}
rel=$(below "$cmakedir")
if [ -n "$rel" ]; then up=$(printf '%s\n' "$rel" | sed 's|[^/][^/]*|..|g'); else up=/; fi
sed -e "s|@UP_TO_PREFIX@|$up|" \
    -e "s|@LIBDIR@|$(spell "$libdir")|" \
    -e "s|@INCLUDEDIR@|$(spell "$includedir")|" \
    -e "s|@PKGLIBDIR@|$(spell "$pkglibdir")|" \
    -e "s|@SHREXT@|$shrext|g" \
    -e "s|@STATIC_LIBS@|$(echo $static_libs | tr ' ' ';')|" \
    -e "s|@PACKAGE_VERSION@|$version|" \
    -e "s|@OPF_SIZEOF_VOID_P@|$sizeof_void_p|g" \
    "$1"
