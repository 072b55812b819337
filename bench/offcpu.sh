#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# bench/offcpu.sh [N]: what off-CPU stacks cost (--offcpu-stacks, on by
# default with --sched on), in their worst case, side by side in one run:
# the one-byte pipe ping-pong of bench/sched.sh (tests/tools/sched_probe
# pingpong: two processes pinned to one CPU, each round trip two task
# switches, both tasks blocking in read(2) each time: a stack per switch),
# N round trips, in a container (spawn mode, the modern object): untraced;
# --sched on --offcpu-stacks off; --offcpu-stacks on with the user stack
# copied for CFI unwinding (the default, --profile-unwind=auto, 16 KiB per
# stack, and --profile-stack 4096), and with frame pointers only
# (--profile-unwind=fp: no copy). Prints ns per round trip, the ratio to
# untraced and to --offcpu-stacks off, the lost events, the sched rows
# naming a stack and the stack rows, bt_sched_switch's ns per run (BPF
# run-time statistics, held on by bench/bpfstats) and the collector's
# CPU ms (/proc/PID/stat); each figure the median of 3 runs.
# Then a Python 3.11 loop of N/20 short sleeps (bench/pysleep.py: one
# function, then two taking turns), the same figures; and a Rails 6.1 boot
# (tests/tools/railsapp under puma) to its listen, 5 runs with and 5
# without: the median time to listen, the file.
# Needs root.
set -u
cd "$(dirname "$0")/.."
OUTPUT=${OUTPUT:-build}
N=${1:-100000}
PROBE=$OUTPUT/tests/sched_probe
COLLECTOR=$OUTPUT/collector
TMP=$(mktemp -d /tmp/boottrace-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
export BOOTTRACE_BENCH=1
[ -x "$OUTPUT/bench/bpfstats" ] || { echo "bench/offcpu.sh: no $OUTPUT/bench/bpfstats (make)" >&2; exit 1; }

ns() { sed -n "s|^\([0-9.]*\) $1\$|\1|p" "$2" | tail -1; }
med() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
lost() { tail -1 "$1" | sed -n 's/^# lost=\([0-9]*\).*/\1/p'; }
# switch_stats PID: "RUN_NS RUNS" of collector PID's bt_sched_switch (its
# prog fds' ids in fdinfo, named by bpftool: other collectors run their own)
switch_stats() {
	local id
	for id in $(cat /proc/"$1"/fdinfo/* 2> /dev/null | awk '$1 == "prog_id:" { print $2 }'); do
		bpftool prog show id "$id" 2> /dev/null | awk '/ name bt_sched_switch / {
			for (i = 1; i < NF; i++) { if ($i == "run_time_ns") t = $(i + 1); if ($i == "run_cnt") c = $(i + 1) }
			print t + 0, c + 0; exit }'
	done | head -1
}
# cpu_ms PID: its user + system CPU time so far, ms
cpu_ms() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.0f", ($14 + $15) * 1000 / hz }' /proc/"$1"/stat; }

"$OUTPUT/bench/bpfstats" > "$TMP/stats" &
stats=$!
until [ -s "$TMP/stats" ] || ! kill -0 "$stats" 2> /dev/null; do sleep 0.01; done
trap 'kill $stats 2> /dev/null; rm -rf "$TMP"' EXIT
[ -s "$TMP/stats" ] || { echo "bench/offcpu.sh: no BPF run-time statistics" >&2; exit 1; }

printf '%-44s %9s %8s %7s %6s %9s %6s %9s %8s\n' what ns/rtrip untraced off lost stack= stacks switch-ns coll-ms
row() {
	printf '%-44s %9s %8s %7s %6s %9s %6s %9s %8s\n' "$1" "$2" \
		"$(awk -v a="$2" -v b="$base" 'BEGIN { printf "%.2fx", a / b }')" \
		"$(awk -v a="$2" -v b="${off:-$2}" 'BEGIN { printf "%.2fx", a / b }')" "$3" "$4" "$5" "$6" "$7"
}

runs=()
for i in 1 2 3; do "$PROBE" pingpong "$N" 2> "$TMP/u$i"; runs+=("$(ns ns/round-trip "$TMP/u$i")"); done
base=$(med "${runs[@]}")
off=
row "untraced" "$base" - - - - -

# collector OPTIONS...: the ping-pong ($WORK: a shell command that prints
# `NS ns/round-trip` to stderr) traced, 3 times: the medians of its ns per
# round trip, of bt_sched_switch's ns per run, of the collector's CPU
WORK="'$PROBE' pingpong $N"
collector() {
	local i cpid runs=() sw=() cms=() t c
	for i in 1 2 3; do
		rm -f "$TMP/done"
		"$COLLECTOR" "$@" -o "$TMP/c.tsv" -- sh -c "$WORK 2> '$TMP/c$i'; touch '$TMP/done'; sleep 2" \
			> /dev/null 2>&1 &
		cpid=$!
		while [ ! -e "$TMP/done" ] && kill -0 "$cpid" 2> /dev/null; do sleep 0.01; done
		read -r t c < <(switch_stats "$cpid")
		cms+=("$(cpu_ms "$cpid")")
		wait "$cpid"
		runs+=("$(ns ns/round-trip "$TMP/c$i")")
		sw+=("$(awk -v t="${t:-0}" -v c="${c:-0}" 'BEGIN { printf "%.0f", c ? t / c : 0 }')")
	done
	echo "$(med "${runs[@]}") $(med "${sw[@]}") $(med "${cms[@]}")"
}
counts() {
	echo "$(lost "$TMP/c.tsv")" \
		"$(awk -F'\t' '$8 == "sched" && $12 ~ /stack=/' "$TMP/c.tsv" | wc -l)" \
		"$(awk -F'\t' '$8 == "stack"' "$TMP/c.tsv" | wc -l)"
}
read -r off sw cms <<< "$(collector --sched on --offcpu-stacks off)"
read -r l s k <<< "$(counts)"
row "--sched on --offcpu-stacks off" "$off" "$l" "$s" "$k" "$sw" "$cms"
for v in "auto:--profile-unwind auto" "auto, --profile-stack 4096:--profile-stack 4096" \
	 "fp:--profile-unwind fp"; do
	# shellcheck disable=SC2086
	read -r t sw cms <<< "$(collector --sched on --offcpu-stacks on ${v#*:})"
	read -r l s k <<< "$(counts)"
	row "--offcpu-stacks on (${v%%:*})" "$t" "$l" "$s" "$k" "$sw" "$cms"
done

# A Python 3.11 loop of N/20 short sleeps (bench/pysleep.py): each block
# walks the thread's interpreter frames (found in the thread list: the
# sleeper has let go of the GIL); one function (the same place each time)
# and two taking turns (a new place each block)
PY=/usr/bin/python3.11
if [ -x "$PY" ]; then
	echo
	echo "Python sleep loop (bench/pysleep.py $((N / 20))): ns per sleep, medians of 3"
	for alt in "" alt; do
		WORK="'$PY' bench/pysleep.py $((N / 20)) $alt"
		runs=()
		for i in 1 2 3; do sh -c "$WORK" 2> "$TMP/u$i"; runs+=("$(ns ns/round-trip "$TMP/u$i")"); done
		base=$(med "${runs[@]}")
		off=
		row "python${alt:+ $alt}: untraced" "$base" - - - - -
		read -r off sw cms <<< "$(collector --sched on --offcpu-stacks off)"
		read -r l s k <<< "$(counts)"
		row "python${alt:+ $alt}: --offcpu-stacks off" "$off" "$l" "$s" "$k" "$sw" "$cms"
		read -r t sw cms <<< "$(collector --sched on --offcpu-stacks on)"
		read -r l s k <<< "$(counts)"
		row "python${alt:+ $alt}: --offcpu-stacks on (auto)" "$t" "$l" "$s" "$k" "$sw" "$cms"
	done
fi

# A Rails 6.1 boot (tests/tools/railsapp under puma, production, to its
# listen), 5 runs each way: start -> listen (median) and the file's size
RB=/usr/bin/ruby3.1
PUMA=/usr/bin/puma
if [ -x "$RB" ] && [ -x "$PUMA" ] && "$RB" -e 'require "rails"' 2> /dev/null; then
	cp -r tests/tools/railsapp "$TMP/app"
	echo
	echo "Rails boot (tests/tools/railsapp, puma, 5 runs): start -> listen, median; rows; stacks"
	for s in off on; do
		(cd "$TMP/app" && "$OLDPWD/$COLLECTOR" --ringbuf-mb 64 --offcpu-stacks $s --runs 5 \
			--until listen -o "$TMP/r.tsv" -- "$PUMA" -e production -b tcp://127.0.0.1:0 config.ru) \
			> /dev/null 2> "$TMP/r.err" || { echo "  --offcpu-stacks $s: collector failed: $(tail -1 "$TMP/r.err")"; continue; }
		p50=$("$OUTPUT/analyze" --format tsv "$TMP/r.tsv" | awk -F'\t' '$1 == "listen" { print $6 }')
		echo "  --offcpu-stacks $s: listen p50 $(awk -v n="$p50" 'BEGIN { printf "%.1f ms", n / 1e6 }')," \
			"$(stat -c %s "$TMP/r.tsv") bytes, lost $(lost "$TMP/r.tsv")," \
			"$(awk -F'\t' '$8 == "sched" && $12 ~ /stack=/' "$TMP/r.tsv" | wc -l) sched rows with stack=" \
			"of $(awk -F'\t' '$8 == "sched" && ($9 == "S" || $9 == "D")' "$TMP/r.tsv" | wc -l) S/D," \
			"$(awk -F'\t' '$8 == "stack"' "$TMP/r.tsv" | wc -l) stack rows"
	done
fi
