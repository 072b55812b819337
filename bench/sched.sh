#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# bench/sched.sh [N]: what scheduler rows cost, in their worst case, side by
# side in one run: a one-byte pipe ping-pong between two processes pinned
# to one CPU (tests/tools/sched_probe pingpong: every round trip is two
# task switches and four syscalls, all traced), N round trips, in a
# container (spawn mode): untraced; the collector with --sched off and
# with --sched on (modern object, and the compat and legacy objects); perf
# sched record of the same ping-pong; a bpftrace script that records the
# same events (sched_switch and sched_waking of those tasks, a printf
# each). Prints ns per round trip, the ratio to untraced and the lost
# events of each; each figure is the median of 3 runs. Then the getppid
# loop of bench/collector.sh with --sched on and off (it must not slow).
# Then host rows (--sched host, and client mode during each boot): the
# same ping-pong and the getppid loop run OUTSIDE any container while a
# watching collector (modern object) records the host's tasks, against
# --sched on (no host rows) and untraced. Needs root.
set -u
cd "$(dirname "$0")/.."
OUTPUT=${OUTPUT:-build}
N=${1:-200000}
PROBE=$OUTPUT/tests/sched_probe
LOOP=$OUTPUT/tests/getppid_loop
COLLECTOR=$OUTPUT/collector
TMP=$(mktemp -d /tmp/boottrace-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
export BOOTTRACE_BENCH=1
scripts/install-deps.sh bpftrace linux-perf >/dev/null

# median of 3 figures from the command's stderr, matched by @pattern
ns() { sed -n "s|^\([0-9.]*\) $1\$|\1|p" "$2" | tail -1; }
med() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
lost() { tail -1 "$1" | sed -n 's/^# lost=\([0-9]*\).*/\1/p'; }
printf '%-40s %12s %8s %8s %9s\n' what ns/rtrip ratio lost sched-rows
row() {
	printf '%-40s %12s %8s %8s %9s\n' "$1" "$2" \
		"$(awk -v a="$2" -v b="$base" 'BEGIN { printf "%.2fx", a / b }')" "$3" "$4"
}

runs=()
for i in 1 2 3; do "$PROBE" pingpong "$N" 2> "$TMP/u$i"; runs+=("$(ns ns/round-trip "$TMP/u$i")"); done
base=$(med "${runs[@]}")
row "untraced" "$base" - -

for obj in modern compat legacy; do
	mode=cgroup; [ $obj = legacy ] && mode=pidtree
	for s in off on; do
		runs=()
		for i in 1 2 3; do
			"$COLLECTOR" --object $obj --mode $mode --sched $s -o "$TMP/c.tsv" -- \
				"$PROBE" pingpong "$N" 2> "$TMP/c$i" > /dev/null
			runs+=("$(ns ns/round-trip "$TMP/c$i")")
		done
		row "collector $obj --sched $s" "$(med "${runs[@]}")" "$(lost "$TMP/c.tsv")" \
			"$(awk -F'\t' '$8 == "sched"' "$TMP/c.tsv" | wc -l)"
	done
done

runs=()
for i in 1 2 3; do
	perf sched record -q -o "$TMP/perf.data" -- "$PROBE" pingpong "$N" 2> "$TMP/p$i" > /dev/null
	runs+=("$(ns ns/round-trip "$TMP/p$i")")
done
plost=$(perf report -i "$TMP/perf.data" --stats 2>/dev/null | awk '/LOST/ { n += $NF } END { print n + 0 }')
row "perf sched record" "$(med "${runs[@]}")" "$plost" -

# bpftrace: the same events of the ping-pong's tasks (comm sched_probe), a printf each
cat > "$TMP/s.bt" <<'BT'
tracepoint:sched:sched_switch /args->prev_comm == "sched_probe" || args->next_comm == "sched_probe"/ {
	printf("%llu %d %d %d\n", nsecs, args->prev_pid, args->prev_state, args->next_pid);
}
tracepoint:sched:sched_waking /args->comm == "sched_probe"/ { printf("%llu w %d %d\n", nsecs, args->pid, tid); }
BT
runs=()
for i in 1 2 3; do
	bpftrace -q -o "$TMP/bt.out" "$TMP/s.bt" & bt=$!
	sleep 3
	"$PROBE" pingpong "$N" 2> "$TMP/b$i" > /dev/null
	kill -INT $bt; wait $bt 2>/dev/null
	runs+=("$(ns ns/round-trip "$TMP/b$i")")
done
row "bpftrace printf per event" "$(med "${runs[@]}")" "$(grep -c 'Lost' "$TMP/bt.out")" -

echo
echo "getppid loop (bench/collector.sh's), 2000000 calls, ns/call, median of 3:"
for s in off on; do
	runs=()
	for i in 1 2 3; do
		"$COLLECTOR" --sched $s -o "$TMP/g.tsv" -- "$LOOP" 2000000 2> "$TMP/g$i" > /dev/null
		runs+=("$(ns ns/call "$TMP/g$i")")
	done
	echo "  --sched $s: $(med "${runs[@]}")"
done

# host rows: the ping-pong and the loop outside every container, the
# collector watching (nothing matches its -c: only host rows, with host)
echo
echo "outside every container, a watching collector (modern), ns, median of 3:"
watch() { # watch SCHED CMD...: CMD's stderr in $TMP/w, the TSV in $TMP/w.tsv
	local s=$1 c
	shift
	rm -f "$TMP/w.tsv"
	"$COLLECTOR" --sched "$s" -c '/boottrace-bench-none/*' -o "$TMP/w.tsv" 2> /dev/null & c=$!
	until grep -q '^ts_ns' "$TMP/w.tsv" 2> /dev/null; do sleep 0.05; done
	"$@" 2> "$TMP/w" > /dev/null
	kill -INT $c; wait $c 2>/dev/null
}
for what in "pingpong $N:ns/round-trip" "getppid 2000000:ns/call"; do
	cmd=${what%%:*} unit=${what#*:}
	[ "${cmd%% *}" = pingpong ] && argv=("$PROBE" pingpong "${cmd#* }") || argv=("$LOOP" "${cmd#* }")
	runs=()
	for i in 1 2 3; do "${argv[@]}" 2> "$TMP/x" > /dev/null; runs+=("$(ns "$unit" "$TMP/x")"); done
	hbase=$(med "${runs[@]}")
	echo "  ${cmd%% *} untraced: $hbase $unit"
	for s in on host; do
		runs=()
		for i in 1 2 3; do watch $s "${argv[@]}"; runs+=("$(ns "$unit" "$TMP/w")"); done
		echo "  ${cmd%% *} --sched $s: $(med "${runs[@]}") $unit ($(awk -v a="$(med "${runs[@]}")" -v b="$hbase" 'BEGIN { printf "%.2fx", a / b }')), lost $(lost "$TMP/w.tsv"), $(awk -F'\t' '$2 == "\\N"' "$TMP/w.tsv" | wc -l) host rows"
	done
done
