#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The modern object sends plain syscall rows in per-CPU batches
# (bpf/boottrace.bpf.c: `pending`); the legacy object does not, and must
# give the same answers. Exact counts across batches, task switches and
# rows that bypass the batch; a task's syscall rows in the order it made
# them; and rows that wait in the batch of a CPU where a task spins without
# a syscall still reach the file while it spins (the collector makes that
# CPU switch tasks, backend_modern.c).
# modes: cgroup pidtree legacy
. "$(dirname "$0")/lib.sh"
need_root

R=400
"$COLLECTOR" -o "$TMP/b.tsv" -- "$TOOLS/batch_order" $R 0 || fail "collector exited $?"
check_tsv "$TMP/b.tsv"
n=$(rows "$TMP/b.tsv" syscall getppid | wc -l)
[ "$n" -eq $((3 * R + 3)) ] || fail "$n getppid rows, not $((3 * R + 3))"
n=$(rows "$TMP/b.tsv" syscall openat | awk -F'\t' '$12 == "/dev/null"' | wc -l)
[ "$n" -eq $R ] || fail "$n openat /dev/null rows, not $R"
ok "exact counts: $((3 * R + 3)) getppid, $R openat"

# One thread's syscall rows, in file order, have increasing entry times:
# the batched getppid rows and the openat rows that bypass the batch
# interleave as they happened. (The legacy object's perf buffers are per
# CPU and read one after the other: a thread that moved between CPUs can
# have its rows out of order there.)
if [ "$BT_MODE" != legacy ]; then
	rows "$TMP/b.tsv" syscall | awk -F'\t' '
		{ if (($5 in last) && $1 < last[$5]) { print "tid " $5 ": " $9 " at " $1 " after " last[$5]; bad = 1; exit }
		  last[$5] = $1 }
		END { exit bad }' || fail "a thread's syscall rows out of order"
	ok "each thread's syscall rows in the order it made them"
fi

# Rows left in a batch by a task that then spins for 4 s reach the file
# within a second or so, while it still spins.
"$COLLECTOR" -o "$TMP/s.tsv" -- "$TOOLS/batch_order" 20 4 "$TMP/ready" & col=$!
cleanup_hooks+=("kill $col 2>/dev/null")
for _ in $(seq 100); do [ -e "$TMP/ready" ] && break; sleep 0.05; done
[ -e "$TMP/ready" ] || fail "the workload did not start"
got=0
for _ in $(seq 30); do
	sleep 0.1
	got=$(rows "$TMP/s.tsv" syscall getppid | wc -l)
	[ "$got" -eq 63 ] && break
done
kill -0 $col 2>/dev/null || fail "the workload ended before its rows were checked"
[ "$got" -eq 63 ] || fail "$got of 63 getppid rows in the file 3 s into a 4 s spin"
wait $col || fail "collector exited $?"
check_tsv "$TMP/s.tsv"
ok "rows of a spinning task reach the file while it spins"
