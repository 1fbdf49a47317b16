#!/bin/sh
# install_links.sh LINKS MAN3DIR — gives every name of LINKS (man/links: one
# line per page, the page then the other names it documents) a symbolic link
# NAME.3 -> PAGE.3 in MAN3DIR, where the pages are installed. A link, not a
# ".so man3/PAGE.3" stub: man(1) and `man -l MAN3DIR/NAME.3` read the page
# through it from any directory (a stub is resolved from the current one).
# make install runs it (man/Makefile.inc); man/check_man_links.sh tests it.
set -u
links=$1 dir=$2
mkdir -p "$dir" || exit 1
grep -v '^#' "$links" | while read -r page names; do
    [ -n "$page" ] || continue
    for name in $names; do
        echo " $dir/$name.3 -> $page.3"
        rm -f "$dir/$name.3" && ln -s "$page.3" "$dir/$name.3" || exit 1
    done
done
