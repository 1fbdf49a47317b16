#!/bin/sh
# The manual pages (run by `make check`):
#   1. every page renders without a single warning: mandoc -T lint -W warning
#      and groff -t -man -ww -z, each where installed (skip, 77, if neither);
#   2. every public function of opframe.h, device.h and component_device.h
#      is named in the NAME section of a page, and has that page's name or a
#      line in man/links (so that `man FUNCTION` finds it);
#   3. every name in man/links is documented in its page, which exists;
#   4. the pages against the headers: ABI version, functions, struct fields.
set -u
srcdir=${srcdir:-.}
man=$srcdir/man
failures=0
checks=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }

pages=$(ls "$man"/*.[1-9])
have_mandoc=no
have_groff=no
command -v mandoc >/dev/null 2>&1 && have_mandoc=yes
command -v groff >/dev/null 2>&1 && have_groff=yes
if [ $have_mandoc = no ] && [ $have_groff = no ]; then
    echo "check_man: neither mandoc nor groff is installed: skipped"
    exit 77
fi
echo "linting with: mandoc $have_mandoc, groff $have_groff"

# 1. Lint.
for page in $pages; do
    if [ $have_mandoc = yes ]; then
        checks=$((checks + 1))
        out=$(mandoc -T lint -W warning "$page" 2>&1) || fail "mandoc -T lint $page (exit $?)"
        [ -z "$out" ] || fail "mandoc -T lint $page: $out"
    fi
    if [ $have_groff = yes ]; then
        checks=$((checks + 1))
        out=$(groff -t -man -ww -z "$page" 2>&1) || fail "groff $page (exit $?)"
        [ -z "$out" ] || fail "groff -ww $page: $out"
    fi
done

# The NAME line of a page: the names it documents.
names_of() { sed -n '/^\.SH NAME/,/^\.SH/p' "$1" | sed '1d;$d'; }

# 2. Every public function has a page (names ending in _ are the headers' own
#    helpers: opframe.h's inline calls, documented under the calls they serve).
functions=$(cat "$srcdir/include/opframe/opframe.h" "$srcdir/include/opframe/device.h" \
    "$srcdir/include/opframe/component_device.h" |
    grep -v "^typedef" | sed -n 's/^[a-z][a-z_ *]*[ *]\(opf_[a-z0-9_]*[a-z0-9]\)(.*/\1/p' | sort -u)
n=0
for f in $functions; do
    n=$((n + 1))
    checks=$((checks + 1))
    page=$f
    [ -f "$man/$f.3" ] || page=$(grep -v '^#' "$man/links" | awk -v f="$f" '{ for (i = 2; i <= NF; ++i) if ($i == f) print $1 }')
    if [ -z "$page" ]; then
        fail "$f: no page and no line in man/links"
    elif ! names_of "$man/$page.3" | grep -qw -- "$f"; then
        fail "$f: not in the NAME section of $page.3"
    fi
done
echo "$n public functions, each in the NAME section of its page"
[ "$n" -ge 30 ] || fail "only $n functions found in the headers: the extraction is broken"

# 3. Every link points to a page that documents it.
grep -v '^#' "$man/links" | while read -r page names; do
    [ -f "$man/$page.3" ] || { echo "FAILED: man/links: no page $page.3"; exit 1; }
    for name in $names; do
        names_of "$man/$page.3" | grep -qw -- "$name" || { echo "FAILED: man/links: $name is not in the NAME of $page.3"; exit 1; }
    done
done || fail "man/links"
checks=$((checks + 1))

# 4. The pages against the headers (a page must not describe another ABI):
#    every "ABI version N" is the headers' OPF_COMPONENT_ABI_VERSION; every
#    opf_ name a page uses is declared in include/opframe (the file and
#    symbol patterns opf_op_<name> of a component aside); every function of
#    component.h is named in opframe_component.3; every struct field a page
#    names (a designated initializer of an example, a lone bold word with an
#    underscore in opframe_component.3) is a field of a header's struct.
headers=$(cat "$srcdir"/include/opframe/*.h)
abi=$(printf '%s\n' "$headers" | sed -n 's/^#define OPF_COMPONENT_ABI_VERSION \([0-9]*\).*/\1/p')
checks=$((checks + 1))
[ -n "$abi" ] || fail "OPF_COMPONENT_ABI_VERSION not found in include/opframe/component.h"
for page in $pages; do
    for v in $(grep -o 'ABI version [0-9]*' "$page" | sed 's/.* //'); do
        checks=$((checks + 1))
        [ "$v" = "$abi" ] || fail "$page: says ABI version $v, the headers say $abi"
    done
    for name in $(grep -o 'opf_[a-z0-9_]*' "$page" | sort -u); do
        case $name in opf_op_example | opf_op_mine | opf_op_) continue ;; esac
        checks=$((checks + 1))
        printf '%s\n' "$headers" | grep -qw -- "$name" || fail "$page: names $name, which no header declares"
    done
done
for f in $(grep -v '^typedef' "$srcdir/include/opframe/component.h" |
           sed -n 's/^[a-z][a-z_ *]*[ *]\(opf_[a-z0-9_]*\)(.*/\1/p' | sort -u); do
    checks=$((checks + 1))
    grep -q -- "$f" "$man/opframe_component.3" || fail "opframe_component.3 does not name $f of component.h"
done
fields=$( (sed -n '/^\.EX/,/^\.EE/p' "$man"/*.3 | grep -o '[{,] *\.[a-z_0-9]* =\|^ *\.[a-z_0-9]* =' |
           sed 's/.*\.\([a-z_0-9]*\) =/\1/'
           sed -n 's/^\.B \([a-z][a-z0-9]*_[a-z0-9_]*\)$/\1/p' "$man/opframe_component.3" |
           grep -v '^op_\|^mca_\|^opf_\|^opframe_') | sort -u)
for field in $fields; do
    checks=$((checks + 1))
    printf '%s\n' "$headers" | grep -Eq "(^|[ *])$field(\[[^]]*\])? *;|\(\*$field\)" ||
        fail "a page names field $field, which no struct of the headers has"
done
[ -n "$fields" ] || fail "no struct field found in the pages: the extraction is broken"

echo "check_man: $checks checks, $failures failed"
[ $failures -eq 0 ]
