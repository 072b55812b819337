#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Exactness: a program that makes K getppid calls yields exactly K rows; a
# process outside the container, busy with the same calls at the same
# time, yields none.
# modes: cgroup compat pidtree legacy
. "$(dirname "$0")/lib.sh"
need_root

K=5000
"$TOOLS/getppid_loop" 2000000 0.0 & stranger=$!
cleanup_hooks+=("kill $stranger 2>/dev/null")
"$COLLECTOR" -o "$TMP/k.tsv" -- "$TOOLS/getppid_loop" $K || fail "collector exited $?"
check_tsv "$TMP/k.tsv"
n=$(rows "$TMP/k.tsv" syscall getppid | wc -l)
[ "$n" -eq $K ] || fail "$n getppid rows, not $K"
rows "$TMP/k.tsv" syscall getppid | awk -F'\t' '$10 < 1 || $11 == "\\N" { exit 1 }' ||
	fail "getppid row without a pid return value or duration"
awk -F'\t' -v s="$stranger" '$4 == s' "$TMP/k.tsv" | grep -q . && fail "the stranger ($stranger) appears"
ok "exactly $K getppid rows, no stranger"

# --syscalls narrows in the kernel
"$COLLECTOR" --syscalls getppid -o "$TMP/n.tsv" -- "$TOOLS/getppid_loop" 100 || fail "collector exited $?"
check_tsv "$TMP/n.tsv"
[ "$(rows "$TMP/n.tsv" syscall | cut -f9 | sort -u)" = getppid ] || fail "--syscalls getppid let others through"
[ "$(rows "$TMP/n.tsv" syscall getppid | wc -l)" -eq 100 ] || fail "not 100 rows with --syscalls"
ok "--syscalls getppid"
