#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Process trees attribution must get right in every mode: a fork storm
# (processes and threads, every one attributed), a thread that is not the
# leader execs (it takes the leader's pid and stays in the container), and
# orphans that outlive the container's first process.
# modes: cgroup compat pidtree legacy
. "$(dirname "$0")/lib.sh"
need_root

# 100 processes x 9 threads: 1000 tasks, each one getppid
"$COLLECTOR" --name storm -o "$TMP/storm.tsv" -- "$TOOLS/treeshapes" storm 100 9 || fail "collector exited $?"
check_tsv "$TMP/storm.tsv"
n=$(rows "$TMP/storm.tsv" syscall getppid | wc -l)
[ "$n" -eq 1000 ] || fail "fork storm: $n getppid rows, not 1000"
[ "$(rows "$TMP/storm.tsv" fork process | wc -l)" -eq 100 ] || fail "fork storm: not 100 process forks"
[ "$(rows "$TMP/storm.tsv" fork thread | wc -l)" -eq 900 ] || fail "fork storm: not 900 thread forks"
[ "$(rows "$TMP/storm.tsv" syscall getppid | cut -f5 | sort -u | wc -l)" -eq 1000 ] ||
	fail "fork storm: getppid rows not from 1000 distinct tasks"
awk -F'\t' '$1 ~ /^[0-9]/ && $2 != "storm" { exit 1 }' "$TMP/storm.tsv" || fail "fork storm: a row of another container"
ok "fork storm: 1000 tasks, every one attributed"

# a non-leader thread execs getppid_loop 77
"$COLLECTOR" --name tx -o "$TMP/tx.tsv" -- "$TOOLS/treeshapes" thread-exec "$(realpath "$TOOLS/getppid_loop")" 77 ||
	fail "collector exited $?"
check_tsv "$TMP/tx.tsv"
leader=$(rows "$TMP/tx.tsv" exec | awk -F'\t' 'NR == 1 { print $4 }')
ex=$(rows "$TMP/tx.tsv" exec | grep 'getppid_loop$')
[ -n "$ex" ] || fail "thread-exec: no exec row of getppid_loop"
[ "$(echo "$ex" | cut -f4)" = "$leader" ] || fail "thread-exec: exec not under the leader's pid $leader: $ex"
n=$(rows "$TMP/tx.tsv" syscall getppid | awk -F'\t' -v p="$leader" '$4 == p' | wc -l)
[ "$n" -eq 77 ] || fail "thread-exec: $n getppid rows after the exec, not 77"
ok "a non-leader thread's exec stays in the container"

# the first process exits at once; its child, reparented, works on
"$COLLECTOR" --name orphan --until end+5s -o "$TMP/orphan.tsv" -- "$TOOLS/treeshapes" orphan 500 ||
	fail "collector exited $?"
check_tsv "$TMP/orphan.tsv"
root=$(rows "$TMP/orphan.tsv" exec | awk -F'\t' 'NR == 1 { print $4 }')
n=$(rows "$TMP/orphan.tsv" syscall getppid | awk -F'\t' -v p="$root" '$4 != p' | wc -l)
[ "$n" -eq 500 ] || fail "orphan: $n getppid rows, not 500"
rows "$TMP/orphan.tsv" syscall getppid | awk -F'\t' -v p="$root" '$10 == p { exit 1 }' ||
	fail "orphan: getppid still returned the exited parent"
# the orphan's rows follow its parent's exit
pe=$(rows "$TMP/orphan.tsv" exit | awk -F'\t' -v p="$root" '$4 == p { print $1 }')
first=$(rows "$TMP/orphan.tsv" syscall getppid | head -1 | cut -f1)
[ -n "$pe" ] && [ "$first" -gt "$pe" ] || fail "orphan: getppid rows not after the first process exited"
ok "orphans stay attributed after the first process exits"
