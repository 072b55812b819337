#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# bench/replay.sh [BASE_COLLECTOR [NEW_COLLECTOR]]: no row less (issue 37).
# A fixed workload (bench/replay/workload.sh: execs, forks, files, a
# listen, Ruby requires and Python imports, one process at a time) traced
# by both builds, ROUNDS times each (default 3), interleaved, in spawn
# mode with the default options but --spans host (--sched on) and OPTS
# (e.g. OPTS=--profile=999): the default attaches an interpreter's probes
# when the collector reads its exec row, and the first requires or imports
# of a process that runs on meanwhile are not there, more or fewer from
# run to run; --spans host attaches them before the workload starts. The rows compared are every row but the scheduler
# rows, sample and stack rows (their count and times are the machine's),
# with what moves from run to run taken out: times, durations, ids (pid,
# tid, ppid, cgroup id), addresses and other numbers of 3 digits or more
# in ret and detail, rt_sigreturn's ret (the interrupted call's). Each run's rows must be the same multiset, and each
# run's trailer must say lost=0 (the workload runs without address space
# randomisation, setarch -R: an mmap the loader aligns by hand unmaps
# a part or none, as the address falls): "identical" and exit 0, else the
# difference and exit 1. Both builds default to $OUTPUT/collector (a
# replay of one build: the check of the workload itself). Needs root.
set -u
cd "$(dirname "$0")/.." || exit 1
OUTPUT=${OUTPUT:-build}
BASE=${1:-$OUTPUT/collector}
NEW=${2:-$OUTPUT/collector}
ROUNDS=${ROUNDS:-3}
TMP=$(mktemp -d /tmp/boottrace-replay.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
for c in "$BASE" "$NEW"; do
	[ -x "$c" ] || { echo "bench/replay.sh: no $c" >&2; exit 1; }
done

W=$TMP/w
mkdir -p "$W/rb" "$W/py"
for i in $(seq 0 19); do
	echo "R$i = $i" > "$W/rb/r$i.rb"
	echo "M$i = $i" > "$W/py/m$i.py"
done

# norm FILE: the rows compared, one a line, sorted; the trailer's lost to fd 3
norm() {
	awk -F'\t' '
	/^# lost=/ { split($0, a, /[= ]/); print a[3] > "/dev/fd/3"; next }
	/^#/ || $1 == "ts_ns" { next }
	$8 == "sched" || $8 == "sample" || $8 == "stack" || $8 == "jit" { next }
	{
		ret = $10; det = $12
		if (ret ~ /^-?[0-9][0-9][0-9]+$/ || $9 == "rt_sigreturn") ret = "N"
		gsub(/[0-9][0-9][0-9]+/, "N", det)
		print $2 "\t" $7 "\t" $8 "\t" $9 "\t" ret "\t" det
	}' "$1" | LC_ALL=C sort
}

run() { # run COLLECTOR OUT
	# shellcheck disable=SC2086 # OPTS, split
	"$1" --spans host ${OPTS:-} --name replay -o "$2" -- setarch "$(uname -m)" -R /bin/sh bench/replay/workload.sh "$W" \
		> /dev/null 2> "$2.err" || { echo "bench/replay.sh: $1 exited $?: $(cat "$2.err")" >&2; exit 1; }
}

bad=0
for r in $(seq "$ROUNDS"); do
	run "$BASE" "$TMP/base$r.tsv"
	run "$NEW" "$TMP/new$r.tsv"
done
norm "$TMP/base1.tsv" > "$TMP/ref" 3> "$TMP/ref.lost"
for f in "$TMP"/base*.tsv "$TMP"/new*.tsv; do
	norm "$f" > "$TMP/rows" 3> "$TMP/lost"
	[ "$(cat "$TMP/lost")" = 0 ] || { echo "$(basename "$f"): lost=$(cat "$TMP/lost")"; bad=1; }
	if ! cmp -s "$TMP/ref" "$TMP/rows"; then
		echo "$(basename "$f") differs from base1.tsv ($(wc -l < "$TMP/ref") rows there, $(wc -l < "$TMP/rows") here):"
		diff "$TMP/ref" "$TMP/rows" | head -20
		bad=1
	fi
done
n=$(wc -l < "$TMP/ref")
s=$(awk -F'\t' '$8 == "span"' "$TMP/base1.tsv" | wc -l)
if [ $bad = 0 ]; then
	echo "identical: $n rows ($s span rows) in each of $ROUNDS runs of $BASE and of $NEW, none lost"
	exit 0
fi
echo "bench/replay.sh: the rows differ (above)"
exit 1
