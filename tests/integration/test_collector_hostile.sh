#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Hostile names: a process whose comm and file names hold tabs, newlines,
# CR, backslashes, quotes and invalid UTF-8 still yields 12-field rows that
# unescape to the original bytes.
# modes: cgroup pidtree legacy
. "$(dirname "$0")/lib.sh"
need_root

mkdir "$TMP/files"
"$COLLECTOR" -o "$TMP/h.tsv" -- "$TOOLS/hostile" "$TMP/files" > "$TMP/expected" 2>/dev/null ||
	fail "collector exited $?"
# (the tool's stdout went to the file: the TSV is in -o)
check_tsv "$TMP/h.tsv"
want_comm=$(awk '$1 == "comm" { print $2 }' "$TMP/expected")
"$TOOLS/tsv_fields" 6 < "$TMP/h.tsv" | grep -qx "$want_comm" || fail "comm does not unescape to the original"
# the name (column 8) and detail (column 11) of every row, hex: keep openat's
got=$("$TOOLS/tsv_fields" 8 11 < "$TMP/h.tsv" | awk -F'\t' -v n="$(printf openat | od -An -tx1 | tr -d ' \n')" '$1 == n { print $2 }')
for p in $(awk '$1 == "path" { print $2 }' "$TMP/expected"); do
	echo "$got" | grep -qx "$p" || fail "path $(echo "$p" | xxd -r -p 2>/dev/null | od -c | head -2) not found unescaped"
done
ok "hostile comm and paths round-trip"
