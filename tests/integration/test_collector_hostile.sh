#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Hostile names: a process (tests/tools/hostile) whose comm, file names
# (one of 255 bytes), abstract unix socket name (a leading NUL, tabs, LF,
# backslash, \N, invalid UTF-8; another with NULs), relative unix socket file
# name starting with '@', exec path and argv[0] hold tabs, newlines, CR,
# backslashes, quotes and invalid UTF-8 still yields 12-field rows that
# unescape to the original bytes: the comm; each open's path; bind's and
# listen's detail "@" + the abstract name and "./" + the file's name
# (docs/tsv-format.md, Socket addresses); the exec row's filename and
# execve's path are the path, not argv[0]; the new image's comm is there.
# modes: cgroup compat pidtree legacy
. "$(dirname "$0")/lib.sh"
need_root

mkdir "$TMP/files"
"$COLLECTOR" -o "$TMP/h.tsv" -- "$TOOLS/hostile" "$TMP/files" > "$TMP/expected" 2> "$TMP/err" ||
	fail "collector exited $?: $(cat "$TMP/err")"
# (the tool's stdout went to the file: the TSV is in -o)
check_tsv "$TMP/h.tsv"
hex() { printf %s "$1" | od -An -v -tx1 | tr -d ' \n'; }
want() { awk -v k="$1" '$1 == k { print $2 }' "$TMP/expected"; }
for k in comm path unix unixnul sockfile exec argv0 comm2; do
	[ -n "$(want $k)" ] || fail "the tool printed no '$k' line: $(cat "$TMP/expected" "$TMP/err")"
done

# event, name, ret, comm, detail of every row: unescaped, hex
"$TOOLS/tsv_fields" 7 8 9 6 11 < "$TMP/h.tsv" > "$TMP/rows" || fail "tsv_fields failed"
# has EVENT NAME RET DETAIL-HEX: a row with those (- for any)
has() {
	local n=- r=-
	[ "$2" = - ] || n=$(hex "$2")
	[ "$3" = - ] || r=$(hex "$3")
	awk -F'\t' -v e="$(hex "$1")" -v n="$n" -v r="$r" -v d="$4" '
		$1 == e && (n == "-" || $2 == n) && (r == "-" || $3 == r) && $5 == d { f = 1 }
		END { exit !f }' "$TMP/rows"
}
# shellcheck disable=SC2001 # (sed: every pair of hex digits)
show() { printf "%b" "$(echo "$1" | sed 's/../\\x&/g')" | od -c | head -3; }

awk -F'\t' '{ print $4 }' "$TMP/rows" | grep -qx "$(want comm)" || fail "comm does not unescape to the original"
for p in $(want path); do
	has syscall openat - "$p" || fail "path $(show "$p") not found unescaped"
done
ok "hostile comm and paths round-trip (one of 255 bytes)"

u=40$(want unix)
has syscall bind 0 "$u" || fail "no bind whose detail is @ + the abstract name $(show "$u")"
has syscall listen 0 "$u" || fail "no listen whose detail is @ + the abstract name $(show "$u")"
u=40$(want unixnul)
has syscall bind 0 "$u" || fail "no bind whose detail is @ + the abstract name with NULs $(show "$u")"
has syscall listen 0 "$u" || fail "no listen whose detail is @ + the abstract name with NULs $(show "$u")"
s=2e2f$(want sockfile)
has syscall bind 0 "$s" || fail "no bind whose detail is ./ + the socket file's name $(show "$s")"
has syscall listen 0 "$s" || fail "no listen whose detail is ./ + the socket file's name $(show "$s")"
ok "abstract unix sockets (tabs, LF, \\, \\N, bad UTF-8; NULs inside and at the end) and a socket file named @...: bind and listen round-trip"

x=$(want exec)
has exec - - "$x" || fail "no exec row whose filename is the path $(show "$x")"
has syscall execve 0 "$x" || fail "no successful execve whose detail is the path $(show "$x")"
[ "$(want argv0)" != "$x" ] || fail "argv[0] and the path are the same: the test proves nothing"
! awk -F'\t' '{ print $5 }' "$TMP/rows" | grep -qx "$(want argv0)" || fail "argv[0] taken for a path"
awk -F'\t' '{ print $4 }' "$TMP/rows" | grep -qx "$(want comm2)" || fail "no row with the new image's comm $(show "$(want comm2)")"
ok "exec through a hostile path with a hostile argv[0]: filename, execve path and new comm round-trip"
