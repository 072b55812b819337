#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The long options of each program, three ways: its getopt table (in the
# source), its --help and its man page (an option's .TP entry). Any option
# one of them has and another lacks fails (bpftool checks its own the same
# way: tools/testing/selftests/bpf/test_bpftool_synctypes.py).
. "$(dirname "$0")/lib.sh"

# from_table FILE: the names of the struct option array(s) in FILE
from_table() {
	awk '/struct option [a-z_]*\[\] = \{/ { on = 1; next }
	     on && /^[ \t]*\{ *(0|NULL)/ { on = 0 }
	     on && match($0, /\{ *"[a-z0-9-]+"/) { s = substr($0, RSTART, RLENGTH); gsub(/[{ "]/, "", s); print s }' "$1" | sort -u
}
# from_help PROGRAM: the options --help lists (an indented line that starts with one)
from_help() {
	"$1" --help | sed -nE 's/^ {2,}(-[A-Za-z], )?--([a-z0-9-]+).*/\2/p' | sort -u
}
# from_man PAGE: the options of the lines right after .TP
from_man() {
	awk 'prev == ".TP" { line = $0; while (match(line, /\\-\\-[a-z0-9]+(\\?-[a-z0-9]+)*/)) {
		s = substr(line, RSTART + 4, RLENGTH - 4); gsub(/\\/, "", s); print s
		line = substr(line, RSTART + RLENGTH) } }
	     { prev = $0 }' "$1" | sort -u
}

check() { # check NAME SOURCE... -- PROGRAM MANPAGE
	local name=$1 prog=$2 man=$3 src
	shift 3
	for src in "$@"; do from_table "$src"; done | sort -u > "$TMP/$name.table"
	from_help "$prog" > "$TMP/$name.help"
	from_man "$man" > "$TMP/$name.man"
	[ "$(wc -l < "$TMP/$name.table")" -ge 10 ] || fail "$name: found only $(wc -l < "$TMP/$name.table") options in $*"
	diff "$TMP/$name.table" "$TMP/$name.help" > "$TMP/d1" ||
		fail "$name: getopt table (<) and --help (>) differ: $(tr '\n' ' ' < "$TMP/d1")"
	diff "$TMP/$name.table" "$TMP/$name.man" > "$TMP/d2" ||
		fail "$name: getopt table (<) and $man (>) differ: $(tr '\n' ' ' < "$TMP/d2")"
	ok "$name: $(wc -l < "$TMP/$name.table") options agree in the table, --help and $man"
}

check collector "$COLLECTOR" man/collector.8 collector/options.c
check analyze "$ANALYZE" man/analyze.1 analyze/main.c
