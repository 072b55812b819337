#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The critical path with scheduler rows on the collector's own trace, a
# known truth: a thread that waits on a condition variable until another
# thread of its process has burned 120 ms of CPU (tests/tools/sched_probe
# condvar), then listens. The other thread's 120 ms are on the path as
# `running`, the waiter's futex wait is not (followed into the thread that
# woke it: the scheduler's waker; with the legacy and compat objects, which
# cannot tell a task's wake from an interrupt's, the task current at the
# wake, marked a guess), and the path tiles the boot. --by state counts the
# waiter's ~120 ms as blocked, the burner's as running.
# modes: cgroup compat pidtree legacy
. "$(dirname "$0")/lib.sh"
need_root

ms=1000000
# (a burst of some 320,000 clock_gettime rows: a buffer that holds it when
# the reader is slowed, ASan or QEMU's TCG; this test is not of loss)
"$COLLECTOR" --ringbuf-mb 64 --until listen --name cv -o "$TMP/cv.tsv" -- "$TOOLS/sched_probe" condvar > "$TMP/cv.out" ||
	fail "collector exited $?"
check_tsv "$TMP/cv.tsv"
waiter=$(sed -n 's/^waiter=//p' "$TMP/cv.out")
burner=$(sed -n 's/^burner=//p' "$TMP/cv.out")
[ -n "$waiter" ] && [ -n "$burner" ] || fail "the probe printed no tids: $(cat "$TMP/cv.out")"
"$ANALYZE" "$TMP/cv.tsv" --critical-path --format tsv > "$TMP/path.tsv" || fail "analyze exited $?"

# the segments tile the boot: contiguous from 0 to start -> listen
want=$(awk -F'\t' '!/^#/ && $2 == "cv" {
	if ($8 == "start" && (s == "" || $1 < s)) s = $1
	if ($8 == "syscall" && $9 == "listen" && $10 == "0" && (l == "" || $1 + $11 < l)) l = $1 + $11 }
	END { printf "%.0f\n", l - s }' "$TMP/cv.tsv")
awk -F'\t' -v want="$want" 'NR > 1 { if ($7 != at || $8 <= 0) bad = 1; at = $7 + $8 }
	END { exit bad || at != want }' at=0 "$TMP/path.tsv" || fail "the path does not tile the boot ($want ns)"

# the burner's CPU is on the path, running
run=$(awk -F'\t' -v t="$burner" '$4 == t && $10 == "running" { s += $8 } END { printf "%.0f\n", s }' "$TMP/path.tsv")
[ "$run" -ge $((110 * ms)) ] || fail "the burner $burner runs $run ns on the path, not ~120 ms: $(cat "$TMP/path.tsv")"
# the waiter's futex wait is not: at most a few ms of it blocked
blk=$(awk -F'\t' -v t="$waiter" '$4 == t && $10 ~ /^blocked/ { s += $8 } END { printf "%.0f\n", s }' "$TMP/path.tsv")
[ "$blk" -le $((10 * ms)) ] || fail "the waiter $waiter is blocked $blk ns on the path: $(cat "$TMP/path.tsv")"
awk -F'\t' -v t="$waiter" -v b="$burner" '$4 == t && index($9, "<- woken by " b " ") { f = 1 } END { exit !f }' \
	"$TMP/path.tsv" || fail "no segment of the waiter woken by the burner $burner: $(cat "$TMP/path.tsv")"
ok "condvar: the burner's $((run / ms)) ms running on the path, the waiter blocked $((blk / ms)) ms on it"

# --by state: the waiter blocked ~120 ms, the burner running ~120 ms
"$ANALYZE" "$TMP/cv.tsv" --by state --until listen --format tsv > "$TMP/st.tsv" || fail "--by state exited $?"
awk -F'\t' -v m=$ms 'NR == 2 && $1 == "cv" && $2 >= 110 * m && $4 + $5 >= 100 * m && $8 == 2 { f = 1 }
	END { exit !f }' "$TMP/st.tsv" || fail "--by state: $(cat "$TMP/st.tsv")"
ok "--by state: $(sed -n 2p "$TMP/st.tsv" | cut -f2-6 | tr '\t' ' ') ns running, runnable, blocked, D, unknown"
