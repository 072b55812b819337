#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# bench/profile.sh [SCALE]: what sampling costs, side by side in one run: a
# CPU-bound workload, tests/tools/burn -x SCALE (default 10: 3 s of its
# thread's CPU time, burn_long 2 s and burn_short 1 s, frame pointers), in
# a container (spawn mode): untraced; the collector without --profile, with
# --profile=99 and --profile=999 (modern object); perf record -g -F 99 and
# -F 999 (frame pointer call graphs, as the collector's). Each figure is
# the median of 3 runs, in the same rounds (one of each per round, so a
# busy machine disturbs them alike). Prints:
#   wall      the workload's elapsed time, and its ratio to untraced
#   work      burn's spin rounds in its fixed CPU time, as a ratio to
#             untraced (below 1: the work sampling took). burn stops after
#             its thread has used 3 s, and a sampling interrupt's cost is
#             charged to the task it interrupted (without
#             CONFIG_IRQ_TIME_ACCOUNTING, most kernels' default), so the
#             elapsed time hides that cost and the work shows it
#   out B/s   the output's bytes per second of elapsed time: the TSV file
#             (every row: burn's clock_gettime syscalls too) or perf.data
#   prof B/s  the TSV's stack and sample rows alone, per second
#   samples   sample rows (the TSV) or samples (perf report --stats)
#   lost      events lost (the TSV's trailer, perf's LOST), the most of 3
# Then the syscall-bound loops, where every call is a row: the pipe
# ping-pong of bench/sched.sh (tests/tools/sched_probe pingpong N, two
# processes on one CPU, ns per round trip) and the getppid loop of
# bench/collector.sh (ns per call): untraced, under the collector, under
# the collector with --profile=999, and under perf record -g -F 999
# alone; each the median of 3, with its ratio to untraced, and the
# collector --profile's ratio to the collector alone (what sampling adds
# to tracing).
# Needs root.
set -u
cd "$(dirname "$0")/.." || exit 1
OUTPUT=${OUTPUT:-build}
SCALE=${1:-10}
BURN=$OUTPUT/tests/burn
PROBE=$OUTPUT/tests/sched_probe
LOOP=$OUTPUT/tests/getppid_loop
COLLECTOR=$OUTPUT/collector
TMP=$(mktemp -d /tmp/boottrace-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
export BOOTTRACE_BENCH=1
scripts/install-deps.sh linux-perf > /dev/null
PERF=$(command -v perf)
if [ ! -x "$BURN" ] || [ ! -x "$COLLECTOR" ]; then
	echo "bench/profile.sh: no $BURN or $COLLECTOR: make first" >&2
	exit 1
fi
[ -n "$PERF" ] || { echo "bench/profile.sh: no perf (linux-perf)" >&2; exit 1; }

now() { date +%s%N; }
med() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
rounds() { sed -n 's/^burn rounds=\([0-9]*\)$/\1/p' "$1" | tail -1; }
# prof_bytes TSV: the bytes of its stack and sample rows
prof_bytes() {
	awk -F'\t' '$8 == "stack" || $8 == "sample" { n += length($0) + 1 } END { print n + 0 }' "$1"
}

W=("$BURN" -x "$SCALE" -w)
# one KIND N: run the workload one way, record wall ns, rounds, bytes
configs=(untraced collector prof99 prof999 perf99 perf999)
declare -A wall work outb profb nsamp lost
one() {
	local k=$1 i=$2 t0 t1 f
	rm -f "$TMP/o.tsv" "$TMP/perf.data"
	t0=$(now)
	case $k in
	untraced) "${W[@]}" ;;
	collector) "$COLLECTOR" -o "$TMP/o.tsv" -- "${W[@]}" ;;
	prof99) "$COLLECTOR" --profile=99 -o "$TMP/o.tsv" -- "${W[@]}" ;;
	prof999) "$COLLECTOR" --profile=999 -o "$TMP/o.tsv" -- "${W[@]}" ;;
	perf99) "$PERF" record -q -g -F 99 -o "$TMP/perf.data" -- "${W[@]}" ;;
	perf999) "$PERF" record -q -g -F 999 -o "$TMP/perf.data" -- "${W[@]}" ;;
	esac > /dev/null 2> "$TMP/err"
	t1=$(now)
	wall[$k.$i]=$((t1 - t0))
	work[$k.$i]=$(rounds "$TMP/err")
	if [ -z "${work[$k.$i]}" ]; then
		echo "bench/profile.sh: $k failed: $(head -3 "$TMP/err")" >&2
		exit 1
	fi
	f=
	[ -f "$TMP/o.tsv" ] && f=$TMP/o.tsv
	[ -f "$TMP/perf.data" ] && f=$TMP/perf.data
	outb[$k.$i]=$([ -n "$f" ] && stat -c %s "$f" || echo 0)
	profb[$k.$i]=-
	nsamp[$k.$i]=-
	lost[$k.$i]=-
	case $k in
	collector|prof*)
		profb[$k.$i]=$(prof_bytes "$f")
		nsamp[$k.$i]=$(awk -F'\t' '$8 == "sample"' "$f" | wc -l)
		lost[$k.$i]=$(tail -1 "$f" | sed -n 's/^# lost=\([0-9]*\).*/\1/p') ;;
	perf*)
		nsamp[$k.$i]=$("$PERF" report -i "$f" --stats 2> /dev/null |
			awk '$1 == "SAMPLE" && $2 == "events:" { print $3 }' | head -1)
		lost[$k.$i]=$("$PERF" report -i "$f" --stats 2> /dev/null |
			awk '$1 == "LOST" { n += $NF } END { print n + 0 }') ;;
	esac
}

for i in 1 2 3; do
	for k in "${configs[@]}"; do one "$k" "$i"; done
done

# medians
declare -A m
for k in "${configs[@]}"; do
	for v in wall work outb profb nsamp; do
		declare -n arr=$v
		if [ "${arr[$k.1]}" = - ]; then
			m[$k.$v]=-
		else
			m[$k.$v]=$(med "${arr[$k.1]}" "${arr[$k.2]}" "${arr[$k.3]}")
		fi
		unset -n arr
	done
	# lost: the most of the 3 runs
	m[$k.lost]=$(printf '%s\n' "${lost[$k.1]}" "${lost[$k.2]}" "${lost[$k.3]}" | sort -n | tail -1)
done

echo "burn -x $SCALE ($(awk -v s="$SCALE" 'BEGIN { print 0.3 * s }') s of CPU time), median of 3"
printf '%-24s %9s %7s %7s %12s %12s %8s %5s\n' what wall-ms ratio work out-B/s prof-B/s samples lost
for k in "${configs[@]}"; do
	case $k in
	untraced) what=untraced ;;
	collector) what="collector" ;;
	prof99) what="collector --profile=99" ;;
	prof999) what="collector --profile=999" ;;
	perf99) what="perf record -g -F 99" ;;
	perf999) what="perf record -g -F 999" ;;
	esac
	awk -v what="$what" -v w="${m[$k.wall]}" -v bw="${m[untraced.wall]}" \
		-v r="${m[$k.work]}" -v br="${m[untraced.work]}" -v o="${m[$k.outb]}" \
		-v p="${m[$k.profb]}" -v n="${m[$k.nsamp]}" -v l="${m[$k.lost]}" 'BEGIN {
		s = w / 1e9
		printf "%-24s %9.0f %6.2fx %6.3fx %12.0f %12s %8s %5s\n", what, w / 1e6, w / bw,
			r / br, o / s, p == "-" ? "-" : sprintf("%.0f", p / s), n, l
	}'
done

# the syscall-bound loops: every call a row
echo
echo "syscall-bound loops, ns per round trip / call, median of 3:"
printf '%-28s %14s %8s %14s %8s\n' what pingpong ratio getppid ratio
per_op() { sed -n "s|^\([0-9.]*\) $1\$|\1|p" "$2" | tail -1; }
declare -A op
for i in 1 2 3; do
	for k in untraced collector prof999 perf999; do
		for w in pingpong getppid; do
			if [ $w = pingpong ]; then argv=("$PROBE" pingpong 100000) unit=ns/round-trip
			else argv=("$LOOP" 1000000) unit=ns/call; fi
			rm -f "$TMP/o.tsv" "$TMP/perf.data"
			case $k in
			untraced) "${argv[@]}" ;;
			collector) "$COLLECTOR" -o "$TMP/o.tsv" -- "${argv[@]}" ;;
			prof999) "$COLLECTOR" --profile=999 -o "$TMP/o.tsv" -- "${argv[@]}" ;;
			perf999) "$PERF" record -q -g -F 999 -o "$TMP/perf.data" -- "${argv[@]}" ;;
			esac > /dev/null 2> "$TMP/err"
			op[$k.$w.$i]=$(per_op "$unit" "$TMP/err")
			if [ -z "${op[$k.$w.$i]}" ]; then
				echo "bench/profile.sh: $k $w failed: $(head -3 "$TMP/err")" >&2
				exit 1
			fi
		done
	done
done
for w in pingpong getppid; do
	for k in untraced collector prof999 perf999; do
		op[$k.$w]=$(med "${op[$k.$w.1]}" "${op[$k.$w.2]}" "${op[$k.$w.3]}")
	done
done
for k in untraced collector prof999 perf999; do
	case $k in
	untraced) what=untraced ;;
	collector) what=collector ;;
	prof999) what="collector --profile=999" ;;
	perf999) what="perf record -g -F 999" ;;
	esac
	awk -v what="$what" -v p="${op[$k.pingpong]}" -v bp="${op[untraced.pingpong]}" \
		-v g="${op[$k.getppid]}" -v bg="${op[untraced.getppid]}" 'BEGIN {
		printf "%-28s %14.1f %7.2fx %14.1f %7.2fx\n", what, p, p / bp, g, g / bg }'
done
awk -v p="${op[prof999.pingpong]}" -v c="${op[collector.pingpong]}" \
	-v g="${op[prof999.getppid]}" -v d="${op[collector.getppid]}" 'BEGIN {
	printf "--profile=999 over the collector alone: ping-pong %.2fx, getppid %.2fx\n", p / c, g / d }'
