#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Both objects send plain syscall rows in per-CPU batches
# (bpf/boottrace.bpf.c: `pending`, bpf/boottrace_legacy.bpf.c: `batches`),
# and must give the answers they would give without. Exact counts across
# batches, task switches and rows that bypass the batch; a task's syscall
# rows in the order it made them (modern object); rows that wait in the
# batch of a CPU where a task spins without a syscall still reach the file
# while it spins (the collector visits that CPU, collector/kernel/batch.c); and
# in watch mode, rows waiting on one CPU reach the file before their
# container, whose last task exits on another CPU, is forgotten.
# modes: cgroup compat pidtree legacy
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
# interleave as they happened. (The legacy and compat objects' perf buffers
# are per CPU and read one after the other: a thread that moved between
# CPUs can have its rows out of order there.)
if ! perf_object; then
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

# Watch mode (pidtree): a container whose last rows wait in the batch of
# one CPU while its last task exits on another. The collector forgets a
# container at its GONE record; the rows must reach it first. It runs on
# the other CPU (taskset), so that its own syscalls never flush the first
# one: the legacy object has only the collector's visit before the GONE
# is handed on (the 100 ms visit is for older rows).
if ! cgroup_mode; then
	[ "$(nproc)" -ge 2 ] || skip "the last check needs 2 CPUs, this machine has $(nproc)"
	taskset -c 1 "$COLLECTOR" -o "$TMP/w.tsv" & col=$!
	cleanup_hooks+=("kill $col 2>/dev/null")
	for _ in $(seq 100); do grep -q '^ts_ns' "$TMP/w.tsv" 2>/dev/null && break; sleep 0.05; done
	for i in 1 2 3 4 5; do
		unshare --mount "$TOOLS/cpu_move" 5 0 1 || fail "cpu_move exited $?"
	done
	sleep 0.5
	kill -INT $col; wait $col || fail "collector exited $?"
	check_tsv "$TMP/w.tsv"
	[ "$(rows "$TMP/w.tsv" start namespace | wc -l)" -eq 5 ] || fail "not 5 containers found"
	[ "$(rows "$TMP/w.tsv" end | wc -l)" -eq 5 ] || fail "not 5 containers ended"
	n=$(rows "$TMP/w.tsv" syscall getppid | wc -l)
	[ "$n" -eq 25 ] || fail "$n getppid rows of 5 containers that made 5 each on CPU 0 and exited on CPU 1"
	ok "rows waiting on one CPU reach the file before their container ends on another"
fi
