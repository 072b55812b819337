#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# pidtree watch mode: a container is a task that makes a new pid or mount
# namespace, the way runtimes start one (here unshare(1) stands in for
# runc). Two booting at once are caught from their first syscall and never
# mixed; a stranger never appears; --root-exec narrows to one runtime.
# modes: pidtree legacy
. "$(dirname "$0")/lib.sh"
need_root

start_watch() { # start_watch OUT [OPTION...]
	local out=$1
	shift
	"$COLLECTOR" "$@" -o "$out" & col=$!
	cleanup_hooks+=("kill $col 2>/dev/null")
	for _ in $(seq 100); do grep -q '^ts_ns' "$out" 2>/dev/null && break; sleep 0.05; done
	grep -q '^ts_ns' "$out" || fail "collector did not start"
}
stop_watch() {
	sleep 0.2
	kill -INT $col; wait $col || fail "collector exited $? on SIGINT"
}
# count_in OUT PID: getppid rows of the container whose start row has PID
count_in() {
	local c
	c=$(rows "$1" start namespace | awk -F'\t' -v p="$2" '$4 == p { print $2 }')
	[ -n "$c" ] || { echo 0; return; }
	rows "$1" syscall getppid | awk -F'\t' -v c="$c" '$2 == c' | wc -l
}

start_watch "$TMP/w.tsv"
# a new pid namespace (the root is unshare's child) and a mount namespace
# entered in place (the root is the process itself, found at its exec)
unshare --pid --fork --mount "$TOOLS/getppid_loop" 3000 & a=$!
unshare --mount "$TOOLS/getppid_loop" 7000 & b=$!
"$TOOLS/getppid_loop" 4000 & s=$!
wait $a $b $s
stop_watch
check_tsv "$TMP/w.tsv"
grep -q '^# mode=pidtree$' "$TMP/w.tsv" || fail "metadata does not say mode=pidtree"
na=$(rows "$TMP/w.tsv" start namespace | awk -F'\t' '$12 ~ /^pid/' | cut -f4 | while read -r p; do count_in "$TMP/w.tsv" "$p"; done | sort -n | tail -1)
nb=$(count_in "$TMP/w.tsv" $b)
[ "${na:-0}" -eq 3000 ] || fail "the pid-namespace container has ${na:-0} getppid rows, not 3000"
[ "$nb" -eq 7000 ] || fail "the mount-namespace container (root $b) has $nb getppid rows, not 7000"
awk -F'\t' -v s=$s '$4 == s' "$TMP/w.tsv" | grep -q . && fail "the stranger ($s) appears"
rows "$TMP/w.tsv" end | grep -q . || fail "no end row when the containers' last tasks exited"
ok "pidtree watch: 3000 and 7000, never mixed, no stranger"

# --root-exec: only containers whose runtime matches
start_watch "$TMP/r.tsv" --root-exec 'unshare*'
unshare --pid --fork --mount "$TOOLS/getppid_loop" 300 & a=$!
unshare --mount "$TOOLS/getppid_loop" 700 & b=$!
wait $a $b
stop_watch
check_tsv "$TMP/r.tsv"
[ "$(count_in "$TMP/r.tsv" $b)" -eq 0 ] || fail "--root-exec: the container made by the shell was traced"
[ "$(rows "$TMP/r.tsv" syscall getppid | wc -l)" -eq 300 ] || fail "--root-exec: not the 300 rows of the unshare runtime's container"
ok "--root-exec narrows to one runtime"

# A root --root-exec turns down is untracked: its syscalls after that are
# not traced at all (the modern object's cache of traced tasks is made
# stale by the untrack: without that, each would be traced, then dropped by
# the collector as a stray event, which -v counts).
start_watch "$TMP/u.tsv" -v --root-exec 'unshare*' 2> "$TMP/u.err"
unshare --mount "$TOOLS/getppid_loop" 20000 0.5 & b=$!
wait $b
stop_watch
check_tsv "$TMP/u.tsv"
stray=$(sed -n 's/^collector: \([0-9]*\) events of no container followed (stray)$/\1/p' "$TMP/u.err")
[ -n "$stray" ] || fail "collector -v did not count stray events"
[ "$stray" -lt 1000 ] || fail "$stray stray events: the turned-down root's 20000 getppid were traced"
ok "a turned-down root is not traced ($stray stray events)"
