#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# bench/profile.sh [SCALE]: what sampling costs, side by side in one run: a
# CPU-bound workload, tests/tools/burn -x SCALE (default 10: 3 s of its
# thread's CPU time, burn_long 2 s and burn_short 1 s, frame pointers), in
# a container (spawn mode): untraced; the collector without --profile, with
# --profile=99 and --profile=999 (modern object, --profile-unwind=fp);
# perf record -g -F 99 and -F 999 (frame pointer call graphs, as the
# collector's). Each figure is
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
# Then DWARF unwinding on tests/tools/burn_libc -x SCALE (built without
# frame pointers, its CPU in libc: 3 s), the same rounds: untraced; the
# collector --syscalls none (its clock_gettime calls, 25,000 a second,
# would be rows: sampling alone is measured) without --profile, and with
# --profile=999 --profile-unwind=fp and =dwarf (16 KiB of stack a
# sample); perf record -g -F 999 and --call-graph dwarf,16384 -F 999.
# Besides wall, work and output: bytes per sample (the TSV's stack and
# sample rows, or perf.data, over the samples), the unwinding's CPU per
# sample in the collector (its -v line) and each tool's own CPU per
# sample: user + sys of the run (/usr/bin/time; perf's record only, not
# its report) less the untraced run's (burn_libc's own).
# Then the syscall-bound loops, where every call is a row: the pipe
# ping-pong of bench/sched.sh (tests/tools/sched_probe pingpong N, two
# processes on one CPU, ns per round trip) and the getppid loop of
# bench/collector.sh (ns per call): untraced, under the collector, under
# the collector with --profile=999 (fp, and dwarf), and under perf record
# -g -F 999 and --call-graph dwarf alone; each the median of 3, with its
# ratio to untraced, and the
# collector --profile's ratio to the collector alone (what sampling adds
# to tracing).
# Needs root.
set -u
cd "$(dirname "$0")/.." || exit 1
OUTPUT=${OUTPUT:-build}
SCALE=${1:-10}
BURN=$OUTPUT/tests/burn
BURNL=$OUTPUT/tests/burn_libc
PROBE=$OUTPUT/tests/sched_probe
LOOP=$OUTPUT/tests/getppid_loop
COLLECTOR=$OUTPUT/collector
TMP=$(mktemp -d /tmp/boottrace-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
export BOOTTRACE_BENCH=1
scripts/install-deps.sh linux-perf > /dev/null
PERF=$(command -v perf)
if [ ! -x "$BURN" ] || [ ! -x "$BURNL" ] || [ ! -x "$COLLECTOR" ]; then
	echo "bench/profile.sh: no $BURN, $BURNL or $COLLECTOR: make first" >&2
	exit 1
fi
[ -n "$PERF" ] || { echo "bench/profile.sh: no perf (linux-perf)" >&2; exit 1; }

now() { date +%s%N; }
med() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
rounds() { sed -n 's/^burn\(_libc\)\{0,1\} rounds=\([0-9]*\)$/\2/p' "$1" | tail -1; }
# prof_bytes TSV: the bytes of its stack and sample rows
prof_bytes() {
	awk -F'\t' '$8 == "stack" || $8 == "sample" { n += length($0) + 1 } END { print n + 0 }' "$1"
}

W=("$BURN" -x "$SCALE" -w)
WL=("$BURNL" -x "$SCALE" -w)
FP=(--profile-unwind=fp)
# one KIND N: run the workload one way, record wall ns, rounds, bytes
configs=(untraced collector prof99 prof999 perf99 perf999)
configs_dw=(luntraced lcoll lfp999 ldw999 lperf999 lperfdw)
NS=(--syscalls none)
declare -A wall work outb profb nsamp lost cpu uwns
# tool CMD...: run CMD under /usr/bin/time, its user + sys s to $TMP/cpu
tool() { /usr/bin/time -f '%U %S' -o "$TMP/cpu" "$@"; }
one() {
	local k=$1 i=$2 t0 t1 f
	rm -f "$TMP/o.tsv" "$TMP/perf.data" "$TMP/cpu"
	t0=$(now)
	case $k in
	untraced) "${W[@]}" ;;
	collector) "$COLLECTOR" -o "$TMP/o.tsv" -- "${W[@]}" ;;
	prof99) "$COLLECTOR" --profile=99 "${FP[@]}" -o "$TMP/o.tsv" -- "${W[@]}" ;;
	prof999) "$COLLECTOR" --profile=999 "${FP[@]}" -o "$TMP/o.tsv" -- "${W[@]}" ;;
	perf99) "$PERF" record -q -g -F 99 -o "$TMP/perf.data" -- "${W[@]}" ;;
	perf999) "$PERF" record -q -g -F 999 -o "$TMP/perf.data" -- "${W[@]}" ;;
	luntraced) tool "${WL[@]}" ;;
	lcoll) tool "$COLLECTOR" "${NS[@]}" -o "$TMP/o.tsv" -- "${WL[@]}" ;;
	lfp999) tool "$COLLECTOR" "${NS[@]}" --profile=999 "${FP[@]}" -o "$TMP/o.tsv" -- "${WL[@]}" ;;
	ldw999) tool "$COLLECTOR" "${NS[@]}" -v --profile=999 --profile-unwind=dwarf -o "$TMP/o.tsv" -- \
		"${WL[@]}" ;;
	lperf999) tool "$PERF" record -q -g -F 999 -o "$TMP/perf.data" -- "${WL[@]}" ;;
	lperfdw) tool "$PERF" record -q --call-graph dwarf,16384 -F 999 -o "$TMP/perf.data" -- "${WL[@]}" ;;
	esac > /dev/null 2> "$TMP/err"
	t1=$(now)
	cpu[$k.$i]=$([ -s "$TMP/cpu" ] && awk '{ print $1 + $2 }' "$TMP/cpu" || echo -)
	uwns[$k.$i]=$(sed -n 's/^collector: --profile: [0-9]* samples unwound by CFI, \([0-9]*\) ns.*/\1/p' \
		"$TMP/err")
	uwns[$k.$i]=${uwns[$k.$i]:--}
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
	collector|prof*|lcoll|lfp*|ldw*)
		profb[$k.$i]=$(prof_bytes "$f")
		nsamp[$k.$i]=$(awk -F'\t' '$8 == "sample"' "$f" | wc -l)
		lost[$k.$i]=$(tail -1 "$f" | sed -n 's/^# lost=\([0-9]*\).*/\1/p') ;;
	perf*|lperf*)
		nsamp[$k.$i]=$("$PERF" report -i "$f" --stats 2> /dev/null |
			awk '$1 == "SAMPLE" && $2 == "events:" { print $3 }' | head -1)
		lost[$k.$i]=$("$PERF" report -i "$f" --stats 2> /dev/null |
			awk '$1 == "LOST" { n += $NF } END { print n + 0 }') ;;
	esac
}

for i in 1 2 3; do
	for k in "${configs[@]}" "${configs_dw[@]}"; do one "$k" "$i"; done
done

# medians
declare -A m
for k in "${configs[@]}" "${configs_dw[@]}"; do
	for v in wall work outb profb nsamp cpu uwns; do
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

# DWARF unwinding, burn_libc
echo
echo "burn_libc -x $SCALE (no frame pointers, its CPU in libc), median of 3"
printf '%-36s %9s %7s %7s %12s %9s %9s %10s %8s %5s\n' what wall-ms ratio work out-B/s B/sample \
	cpu-ms cpu/sample unwind samples
for k in "${configs_dw[@]}"; do
	case $k in
	luntraced) what=untraced ;;
	lcoll) what="collector --syscalls none" ;;
	lfp999) what="  --profile=999 (fp)" ;;
	ldw999) what="  --profile=999 (dwarf)" ;;
	lperf999) what="perf record -g -F 999" ;;
	lperfdw) what="perf record --call-graph dwarf -F 999" ;;
	esac
	awk -v what="$what" -v w="${m[$k.wall]}" -v bw="${m[luntraced.wall]}" \
		-v r="${m[$k.work]}" -v br="${m[luntraced.work]}" -v o="${m[$k.outb]}" \
		-v p="${m[$k.profb]}" -v n="${m[$k.nsamp]}" -v l="${m[$k.lost]}" \
		-v c="${m[$k.cpu]}" -v bc="${m[luntraced.cpu]}" -v u="${m[$k.uwns]}" 'BEGIN {
		s = w / 1e9
		b = n == "-" || n == 0 ? "-" : sprintf("%.0f", (p == "-" ? o : p) / n)
		c -= bc	# the tool'"'"'s own
		cs = sprintf("%.0f", c * 1000)
		cps = n == "-" || n == 0 ? "-" : sprintf("%.1fus", c * 1e6 / n)
		us = u == "-" ? "-" : sprintf("%.1fus", u / 1000)
		printf "%-36s %9.0f %6.2fx %6.3fx %12.0f %9s %9s %10s %8s %5s\n", what, w / 1e6, w / bw,
			r / br, o / s, b, cs, cps, us, n, l
	}'
done
awk -v a="${m[ldw999.work]}" -v b="${m[lperfdw.work]}" -v u="${m[luntraced.work]}" \
	-v c="${m[ldw999.cpu]}" -v d="${m[lperfdw.cpu]}" -v bc="${m[luntraced.cpu]}" \
	-v o="${m[ldw999.profb]}" -v n="${m[ldw999.nsamp]}" -v po="${m[lperfdw.outb]}" \
	-v pn="${m[lperfdw.nsamp]}" -v f="${m[lfp999.work]}" -v cw="${m[lcoll.work]}" 'BEGIN {
	printf "dwarf: the collector against perf --call-graph dwarf: work %.3fx, own CPU %.2fx, bytes per sample %.4fx\n",
		a / b, (c - bc) / (d - bc), (o / n) / (po / pn)
	printf "dwarf against fp in the collector: work %.3fx; dwarf --profile=999 over the collector alone: work %.3fx\n",
		a / f, a / cw }'

# the syscall-bound loops: every call a row
echo
echo "syscall-bound loops, ns per round trip / call, median of 3:"
printf '%-32s %14s %8s %14s %8s\n' what pingpong ratio getppid ratio
per_op() { sed -n "s|^\([0-9.]*\) $1\$|\1|p" "$2" | tail -1; }
declare -A op
for i in 1 2 3; do
	for k in untraced collector prof999 dw999 perf999 perfdw; do
		for w in pingpong getppid; do
			if [ $w = pingpong ]; then argv=("$PROBE" pingpong 100000) unit=ns/round-trip
			else argv=("$LOOP" 1000000) unit=ns/call; fi
			rm -f "$TMP/o.tsv" "$TMP/perf.data"
			case $k in
			untraced) "${argv[@]}" ;;
			collector) "$COLLECTOR" -o "$TMP/o.tsv" -- "${argv[@]}" ;;
			prof999) "$COLLECTOR" --profile=999 "${FP[@]}" -o "$TMP/o.tsv" -- "${argv[@]}" ;;
			dw999) "$COLLECTOR" --profile=999 --profile-unwind=dwarf -o "$TMP/o.tsv" -- "${argv[@]}" ;;
			perf999) "$PERF" record -q -g -F 999 -o "$TMP/perf.data" -- "${argv[@]}" ;;
			perfdw) "$PERF" record -q --call-graph dwarf,16384 -F 999 -o "$TMP/perf.data" -- \
				"${argv[@]}" ;;
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
	for k in untraced collector prof999 dw999 perf999 perfdw; do
		op[$k.$w]=$(med "${op[$k.$w.1]}" "${op[$k.$w.2]}" "${op[$k.$w.3]}")
	done
done
for k in untraced collector prof999 dw999 perf999 perfdw; do
	case $k in
	untraced) what=untraced ;;
	collector) what=collector ;;
	prof999) what="collector --profile=999 (fp)" ;;
	dw999) what="collector --profile=999 (dwarf)" ;;
	perf999) what="perf record -g -F 999" ;;
	perfdw) what="perf --call-graph dwarf -F 999" ;;
	esac
	awk -v what="$what" -v p="${op[$k.pingpong]}" -v bp="${op[untraced.pingpong]}" \
		-v g="${op[$k.getppid]}" -v bg="${op[untraced.getppid]}" 'BEGIN {
		printf "%-32s %14.1f %7.2fx %14.1f %7.2fx\n", what, p, p / bp, g, g / bg }'
done
awk -v p="${op[prof999.pingpong]}" -v c="${op[collector.pingpong]}" \
	-v g="${op[prof999.getppid]}" -v d="${op[collector.getppid]}" 'BEGIN {
	printf "--profile=999 over the collector alone: ping-pong %.2fx, getppid %.2fx\n", p / c, g / d }'
awk -v p="${op[dw999.pingpong]}" -v c="${op[collector.pingpong]}" \
	-v g="${op[dw999.getppid]}" -v d="${op[collector.getppid]}" 'BEGIN {
	printf "--profile=999 (dwarf) over the collector alone: ping-pong %.2fx, getppid %.2fx\n", p / c, g / d }'
