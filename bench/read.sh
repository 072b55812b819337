#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# bench/read.sh [N] [BASELINE-COLLECTOR]: what the pipe detail of read rows
# costs (docs/tsv-format.md: `pipe:[INO]`), in one run: a loop of N
# one-byte read(2) calls on /dev/zero (the fd is looked up, and is no pipe)
# and on a full pipe (looked up, a pipe), untraced and traced by the
# collector (cgroup mode, every row to a file); by BASELINE-COLLECTOR too
# when given (a build without the lookup, e.g. one of main); and by two
# bpftrace programs as the peer: one that counts the loop's reads, and one
# that does the same fd -> file -> inode look-up at each read's exit too.
# Each figure is the median of 7 runs, interleaved with the others so that
# the drift of a busy machine hits all alike, of the loop's CPU time per
# read (read_loop prints it: a busy machine disturbs it far less than the
# elapsed time, also shown); ratios are against the untraced loop of the
# same source, and differences are medians of the differences within a
# round. Needs root.
#   bench/read.sh 1000000 /tmp/main-build/collector
set -u
cd "$(dirname "$0")/.."
OUTPUT=${OUTPUT:-build}
N=${1:-1000000}
BASE=${2:-}
LOOP=$OUTPUT/tests/read_loop
TMP=$(mktemp -d /tmp/boottrace-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
export BOOTTRACE_BENCH=1
scripts/install-deps.sh bpftrace >/dev/null

nspc() { sed -n 's/^\([0-9.]*\) ns\/call$/\1/p' "$1" | tail -1; }
cpuns() { sed -n 's/^\([0-9.]*\) cpu-ns\/call$/\1/p' "$1" | tail -1; }
# keep OUT-PREFIX RUN-OUTPUT: the run's cpu-ns in PREFIX, its ns in PREFIX.ns
keep() { cpuns "$2" >> "$1"; nspc "$2" >> "$1.ns"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# bpftrace: the loop's reads (comm read_loop: nothing else runs one), the
# fd kept at entry (raw_syscalls' exit has no arguments) and, with
# lookup, the file's inode mode and number counted at exit
BT_COUNT='tracepoint:raw_syscalls:sys_exit /comm == "read_loop" && args->id == 0/ { @n = count(); }'
BT_LOOKUP='tracepoint:raw_syscalls:sys_enter /comm == "read_loop" && args->id == 0/ { @fd[tid] = args->args[0]; }
tracepoint:raw_syscalls:sys_exit /comm == "read_loop" && args->id == 0/ {
	$f = (struct file *)*(curtask->files->fdt->fd + @fd[tid]);
	@n[$f->f_inode->i_mode & 0170000, $f->f_inode->i_ino] = count();
}'
# run_bpftrace OUT PROGRAM SOURCE: the loop starts once bpftrace says it
# attaches (and half a second more: it says so first); bpftrace's start-up
# (it compiles the program) takes seconds on a busy machine
run_bpftrace() {
	: > "$TMP/bt.out"
	bpftrace -o "$TMP/bt.out" -e "$2" > /dev/null 2>&1 & bt=$!
	for _ in $(seq 300); do grep -q '^Attaching' "$TMP/bt.out" && break; sleep 0.1; done
	"$LOOP" "$3" "$N" 0.5 2> "$1"
	kill -INT $bt 2>/dev/null
	for _ in $(seq 100); do kill -0 $bt 2>/dev/null || break; sleep 0.1; done
	kill -KILL $bt 2>/dev/null; wait $bt 2>/dev/null
	grep -q '^@n' "$TMP/bt.out" || { echo "bench: bpftrace saw no read" >&2; : > "$1"; }
}

WHAT="untraced collector baseline bt_count bt_lookup"
for src in zero pipe; do for w in $WHAT; do : > "$TMP/$w.$src"; : > "$TMP/$w.$src.ns"; done; done
for i in 1 2 3 4 5 6 7; do
	for src in zero pipe; do
		"$LOOP" $src "$N" 2> "$TMP/r"; keep "$TMP/untraced.$src" "$TMP/r"
		"$OUTPUT/collector" --mode cgroup -o "$TMP/c.tsv" -- "$LOOP" $src "$N" 2> "$TMP/r" &&
			keep "$TMP/collector.$src" "$TMP/r"
		tail -1 "$TMP/c.tsv" | grep -q '^# lost=0 ' || echo "bench: collector lost rows: $(tail -1 "$TMP/c.tsv")" >&2
		cp "$TMP/c.tsv" "$TMP/c.$src.tsv"
		if [ -n "$BASE" ]; then
			"$BASE" --mode cgroup -o "$TMP/b.tsv" -- "$LOOP" $src "$N" 2> "$TMP/r" &&
				keep "$TMP/baseline.$src" "$TMP/r"
			tail -1 "$TMP/b.tsv" | grep -q '^# lost=0 ' || echo "bench: baseline lost rows: $(tail -1 "$TMP/b.tsv")" >&2
		fi
		if command -v bpftrace >/dev/null; then
			run_bpftrace "$TMP/r" "$BT_COUNT" $src; keep "$TMP/bt_count.$src" "$TMP/r"
			run_bpftrace "$TMP/r" "$BT_LOOKUP" $src; keep "$TMP/bt_lookup.$src" "$TMP/r"
		fi
	done
done

# paired A B: the median of A's minus B's run by run (the same round)
paired() { paste "$1" "$2" | awk 'NF == 2 { print $1 - $2 }' | median; }
printf '%-46s %10s %8s %10s  %s\n' "what" "cpu-ns" "ratio" "ns" "notes (cpu-ns of every run)"
for src in zero pipe; do
	base=$(median < "$TMP/untraced.$src")
	row() {
		local v
		v=$(median < "$TMP/$2.$src")
		printf '%-46s %10s %8s %10s  %s\n' "$1" "$v" \
			"$(awk -v a="$v" -v b="$base" 'BEGIN { if (a == "") print "-"; else printf "%.2fx", a / b }')" \
			"$(median < "$TMP/$2.$src.ns")" "$(tr '\n' ' ' < "$TMP/$2.$src")"
	}
	echo "--- read(2) of 1 byte from $([ $src = zero ] && echo /dev/zero || echo a full pipe), $N reads a run, 7 runs"
	row "untraced" untraced
	row "collector, every row to a file" collector
	[ -n "$BASE" ] && row "baseline collector" baseline
	[ -s "$TMP/bt_count.$src" ] && row "bpftrace, count reads" bt_count
	[ -s "$TMP/bt_lookup.$src" ] && row "bpftrace, count reads by fd's inode" bt_lookup
	echo "  rows with a pipe detail: $(awk -F'\t' '$9 == "read" && $12 ~ /^pipe:/' "$TMP/c.$src.tsv" | wc -l) of $(awk -F'\t' '$9 == "read"' "$TMP/c.$src.tsv" | wc -l) reads"
	if [ -n "$BASE" ]; then
		d=$(paired "$TMP/collector.$src" "$TMP/baseline.$src")
		o=$(paired "$TMP/baseline.$src" "$TMP/untraced.$src")
		awk -v d="$d" -v o="$o" 'BEGIN { printf "  the look-up: %+.0f cpu-ns a read (collector - baseline, paired); the baseline traces a read for %.0f: %.2fx its overhead\n", d, o, (o + d) / o }'
	fi
	if [ -s "$TMP/bt_lookup.$src" ]; then
		echo "  bpftrace's look-up: $(paired "$TMP/bt_lookup.$src" "$TMP/bt_count.$src") cpu-ns a read (lookup - count, paired)"
	fi
done
