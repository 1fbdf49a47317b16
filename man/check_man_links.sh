#!/bin/sh
# The installed names of man/links (make install: man/install_links.sh) read
# as their page with `man -l <man3dir>/NAME.3` from another directory, as a
# user reads an installed page by its path (issue 34: a ".so" stub did not).
# The pages and links go into a scratch share/man; the check runs from /.
set -u
srcdir=${srcdir:-.}
srcdir=$(cd "$srcdir" && pwd)
if command -v man >/dev/null 2>&1; then reader="man -l -P cat"
elif command -v mandoc >/dev/null 2>&1; then reader="mandoc -T ascii"
else echo "check_man_links: neither man nor mandoc is installed: skipped"; exit 77; fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/opf_man_links.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
man3=$scratch/share/man/man3
mkdir -p "$man3"
cp "$srcdir"/man/*.3 "$man3/"
sh "$srcdir/man/install_links.sh" "$srcdir/man/links" "$man3" >/dev/null || { echo "FAILED: install_links.sh"; exit 1; }
checks=0 failures=0
grep -v '^#' "$srcdir/man/links" | while read -r page names; do
    for name in $names; do
        # the page's NAME section names it: the text came through
        out=$(cd / && MANWIDTH=200 $reader "$man3/$name.3" 2>&1)
        if ! printf '%s\n' "$out" | grep -q -- "$name"; then
            echo "FAILED: $reader $man3/$name.3 (from /) does not show the $page page:"
            printf '%s\n' "$out" | head -3
            exit 1
        fi
    done
done || failures=1
checks=$(grep -v '^#' "$srcdir/man/links" | awk '{ n += NF - 1 } END { print n }')
echo "check_man_links: $checks link pages read with '$reader' from /, $failures failed"
[ $failures = 0 ]
