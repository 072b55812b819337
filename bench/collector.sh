#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# bench/collector.sh [N]: the collector's overhead side by side with its
# peers, in one run, on a getppid(2) loop (the worst case: the cheapest
# syscall, every one an event). Prints ns/call and the slowdown against
# the untraced loop for: the collector writing every row to a file and a
# process outside every traced container while the collector runs (cgroup
# mode with the modern and the compat object, pidtree mode with the modern
# and the legacy object), the floor of two empty programs (tp_btf, and
# classic tracepoints for the compat and legacy objects), the floor of a
# row (bench/floor_row.bpf.c: the same two programs and the current task
# and the clock at entry and exit, the helper calls no row of a start and
# a duration does without), lower bounds for
# any 4.15 object (bench/legacy_bare.bpf.c, legacy_pidtree.bpf.c) and any
# 4.18 object in cgroup mode (bench/compat_cgroup.bpf.c), bpftrace printf
# per event, strace -f and perf trace;
# then the same runs by the loop's own CPU time per call (getppid_loop
# prints both), which a busy machine disturbs less than elapsed time.
# The collector in cgroup mode runs a second way in the same rounds: with
# --metrics, scraped once a second (as Prometheus would, every 15 s or so),
# and the ratio of the two says what serving metrics costs tracing.
# BENCH_MODES='cgroup metrics' BENCH_FLOORS= BENCH_PEERS=0: only those
# (the collector's modes and the floors to run; the peers, bpftrace,
# strace and perf trace, or not). BENCH_BASE=COLLECTOR: another build
# (before a change) in cgroup mode in the same rounds, mode "base".
# Needs root.
set -u
cd "$(dirname "$0")/.."
OUTPUT=${OUTPUT:-build}
N=${1:-2000000}
LOOP=$OUTPUT/tests/getppid_loop
TMP=$(mktemp -d /tmp/boottrace-bench.XXXXXX)
# the cgroup the compat bound traces, made below
CGB=
trap 'rm -rf "$TMP"; [ -n "$CGB" ] && rmdir "$CGB" 2>/dev/null' EXIT
export BOOTTRACE_BENCH=1
scripts/install-deps.sh bpftrace strace linux-perf >/dev/null
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null

nspc() { sed -n 's/^\([0-9.]*\) ns\/call$/\1/p' "$1" | tail -1; }
# the loop's own CPU time per call: what the rest of a busy machine disturbs less
cpuns() { sed -n 's/^\([0-9.]*\) cpu-ns\/call$/\1/p' "$1" | tail -1; }
base_runs=()
for i in 1 2 3; do "$LOOP" "$N" 2> "$TMP/base$i"; base_runs+=("$(nspc "$TMP/base$i")"); done
base=$(printf '%s\n' "${base_runs[@]}" | sort -n | sed -n 2p)
printf '%-44s %10s %8s  %s\n' "what" "ns/call" "ratio" "notes"
row() { printf '%-44s %10s %8s  %s\n' "$1" "$2" "$(awk -v a="$2" -v b="$base" 'BEGIN { if (a == "") print "-"; else printf "%.2fx", a / b }')" "$3"; }
row "untraced loop (median of 3)" "$base" ""

# The machine is noisy: each collector figure is the median of 5 runs,
# interleaved with untraced runs so drift hits both alike. Every mode runs
# in the same round: cgroup mode, pidtree mode (modern object), pidtree mode
# (legacy object), and the floor: two empty tp_btf programs on sys_enter and
# sys_exit, what any tracer of this kind costs the host before filtering.
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
MODES=${BENCH_MODES:-cgroup compat pidtree legacy metrics}
[ -n "${BENCH_BASE:-}" ] && [[ " $MODES " != *" base "* ]] && MODES="$MODES base"
# mode_bin MODE: the collector that runs it
mode_bin() { if [ "$1" = base ]; then echo "$BENCH_BASE"; else echo "$OUTPUT/collector"; fi; }
mode_opts() {
	case $1 in
	cgroup|base) echo "--mode cgroup --object modern" ;;
	metrics) echo "--mode cgroup --object modern --metrics 0" ;;
	compat) echo "--mode cgroup --object compat" ;;
	pidtree) echo "--mode pidtree --object modern" ;;
	legacy) echo "--mode pidtree --object legacy" ;;
	esac
}
# The compat bound traces a cgroup (its filter holds the id): the loop runs
# in one of its own there, as a container's task would.
CG2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
CGB=$CG2/boottrace-bench.$$
mkdir "$CGB" || { echo "bench: cannot make $CGB" >&2; exit 1; }
# floor_loop F: the loop under bound F (in the bound's cgroup for compat_cgroup)
floor_loop() {
	case $1 in
	compat_cgroup) sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" "$3"' sh "$CGB" "$LOOP" "$N" ;;
	*) "$LOOP" "$N" ;;
	esac
}
: > "$TMP/base.all"; : > "$TMP/base.cpu"
FLOORS=${BENCH_FLOORS-floor floor_row floor_legacy legacy_bare legacy_pidtree compat_cgroup}
# scrape FILE: GET /metrics once a second from the collector that says its address in FILE
scrape() {
	local a
	while :; do
		a=$(sed -n 's|^collector: metrics on http://\(.*\)/metrics$|\1|p' "$1" 2>/dev/null)
		[ -n "$a" ] && curl -s -m 1 "http://$a/metrics" > /dev/null
		sleep 1
	done
}
for f in $FLOORS; do : > "$TMP/$f.all"; : > "$TMP/$f.cpu"; done
for m in $MODES; do : > "$TMP/col.$m"; : > "$TMP/out.$m"; : > "$TMP/lost.$m"; : > "$TMP/col.$m.cpu"; : > "$TMP/out.$m.cpu"; done
for i in 1 2 3 4 5; do
	"$LOOP" "$N" 2> "$TMP/b"; nspc "$TMP/b" >> "$TMP/base.all"; cpuns "$TMP/b" >> "$TMP/base.cpu"
	for m in $MODES; do
		: > "$TMP/col"
		sc=
		[ $m = metrics ] && { scrape "$TMP/col" & sc=$!; }
		# shellcheck disable=SC2046
		"$(mode_bin "$m")" $(mode_opts $m) -o "$TMP/c.$m.tsv" -- "$LOOP" "$N" 2>> "$TMP/col"
		rc=$?
		[ -n "$sc" ] && { kill $sc; wait $sc 2>/dev/null; }
		[ $rc -eq 0 ] || continue
		nspc "$TMP/col" >> "$TMP/col.$m"; cpuns "$TMP/col" >> "$TMP/col.$m.cpu"
		tail -1 "$TMP/c.$m.tsv" | sed -n 's/^# lost=\([0-9]*\).*/\1/p' >> "$TMP/lost.$m"
		[ $m = metrics ] && continue	# outside the containers: as cgroup mode
		# shellcheck disable=SC2046
		"$(mode_bin "$m")" $(mode_opts $m) -o /dev/null -- sleep 30 2>/dev/null & col=$!
		sleep 0.5
		"$LOOP" "$N" 2> "$TMP/out"; nspc "$TMP/out" >> "$TMP/out.$m"; cpuns "$TMP/out" >> "$TMP/out.$m.cpu"
		kill -INT $col; wait $col 2>/dev/null
	done
	for f in $FLOORS; do
		# shellcheck disable=SC2046
		"$OUTPUT/bench/floor" "$OUTPUT/bench/$f.bpf.o" $([ $f = compat_cgroup ] && echo "$CGB") > "$TMP/floor.out" & fl=$!
		for _ in $(seq 250); do grep -qs attached "$TMP/floor.out" && break; sleep 0.02; done
		grep -q attached "$TMP/floor.out" || { echo "bench: $f did not attach" >&2; kill $fl 2>/dev/null; continue; }
		floor_loop $f 2> "$TMP/f"; nspc "$TMP/f" >> "$TMP/$f.all"; cpuns "$TMP/f" >> "$TMP/$f.cpu"
		kill -INT $fl; wait $fl 2>/dev/null
	done
done
base=$(median < "$TMP/base.all")
row "untraced loop (median of 5 more)" "$base" "the base from here on"
[ -s "$TMP/floor.all" ] && row "floor: two empty tp_btf programs" "$(median < "$TMP/floor.all")" "all: $(tr '\n' ' ' < "$TMP/floor.all")"
[ -s "$TMP/floor_row.all" ] && row "row floor: the same, task and clock read" "$(median < "$TMP/floor_row.all")" "bench/floor_row.bpf.c; all: $(tr '\n' ' ' < "$TMP/floor_row.all")"
[ -s "$TMP/floor_legacy.all" ] && row "classic floor: two empty classic tracepoints" "$(median < "$TMP/floor_legacy.all")" "all: $(tr '\n' ' ' < "$TMP/floor_legacy.all")"
[ -s "$TMP/legacy_bare.all" ] && row "legacy lower bound (bench/legacy_bare.bpf.c)" "$(median < "$TMP/legacy_bare.all")" "all: $(tr '\n' ' ' < "$TMP/legacy_bare.all")"
[ -s "$TMP/legacy_pidtree.all" ] && row "  the same with a tid hash map and comm" "$(median < "$TMP/legacy_pidtree.all")" "bench/legacy_pidtree.bpf.c; all: $(tr '\n' ' ' < "$TMP/legacy_pidtree.all")"
[ -s "$TMP/compat_cgroup.all" ] && row "  the same with the cgroup-id filter" "$(median < "$TMP/compat_cgroup.all")" "bench/compat_cgroup.bpf.c; all: $(tr '\n' ' ' < "$TMP/compat_cgroup.all")"
for m in $MODES; do
	[ -s "$TMP/col.$m" ] || { row "collector ($m)" "" "did not run"; continue; }
	rows=$(grep -c 'getppid' "$TMP/c.$m.tsv")
	row "collector ($m), every row to a file" "$(median < "$TMP/col.$m")" "lost per run: $(tr '\n' ' ' < "$TMP/lost.$m"); getppid rows=$rows; all: $(tr '\n' ' ' < "$TMP/col.$m")"
	[ -s "$TMP/out.$m" ] && row "outside process ($m), collector tracing another" "$(median < "$TMP/out.$m")" "all: $(tr '\n' ' ' < "$TMP/out.$m")"
done
# Overheads (ns/call above the untraced loop) against cgroup mode's with
# the modern object, the collector issue's reference: the compat object,
# pidtree mode with both objects, and the classic floor and lower bounds.
if [ -s "$TMP/col.cgroup" ]; then
	cg=$(median < "$TMP/col.cgroup")
	for w in "cgroup, the base build:col.base" "cgroup (compat object):col.compat" "pidtree (modern object):col.pidtree" \
		 "pidtree (legacy object):col.legacy" "classic floor:floor_legacy.all" \
		 "legacy lower bound:legacy_bare.all" "legacy bound, hash map and comm:legacy_pidtree.all" \
		 "compat bound, cgroup-id filter:compat_cgroup.all"; do
		[ -s "$TMP/${w#*:}" ] || continue
		awk -v n="${w%%:*}" -v a="$(median < "$TMP/${w#*:}")" -v c="$cg" -v b="$base" \
			'BEGIN { printf "%-44s %10.0f %7.2fx  of cgroup mode'"'"'s overhead (%.0f ns)\n", "overhead: " n, a - b, (a - b) / (c - b), c - b }'
	done
fi
# The modern object in cgroup mode against the floors (overheads, ns/call
# above the untraced loop): the empty programs' (issue 37's goal: at most
# 1.5x) and the row floor's (what is left to the collector's own work:
# its filter, in-flight table and batches), by elapsed and by CPU time.
for m in cgroup base; do
	[ -s "$TMP/col.$m" ] || continue
	for f in floor floor_row; do
		[ -s "$TMP/$f.all" ] || continue
		awk -v n="$f" -v a="$(median < "$TMP/col.$m")" -v c="$(median < "$TMP/$f.all")" -v b="$base" \
			-v ca="$(median < "$TMP/col.$m.cpu")" -v cc="$(median < "$TMP/$f.cpu")" -v cb="$(median < "$TMP/base.cpu")" \
			'function r(x, y) { return y > 0 ? sprintf("%.2fx", x / y) : "-" }
			BEGIN { printf "%-44s %10.0f %8s  of %s'"'"'s overhead (%.0f ns); cpu %.0f / %.0f ns (%s)%s\n",
				"overhead: collector ('"$m"') / " n, a - b, r(a - b, c - b), n, c - b, ca - cb, cc - cb,
				r(ca - cb, cc - cb), (c - b > 0 && cc - cb > 0) ? "" : "; no overhead to compare with: the load'"'"'s noise" }'
	done
done
# Each classic-tracepoint object against the least any object of its kind
# does (its lower bound, which does less than a row needs): the legacy
# object (4.15, pidtree) against legacy_pidtree, the compat object (4.18,
# cgroup mode) against compat_cgroup. Overheads, ratio of the two.
for w in "legacy object / its 4.15 bound:col.legacy:legacy_pidtree.all" \
	 "compat object / its 4.18 bound:col.compat:compat_cgroup.all"; do
	x=${w#*:}; x=${x%%:*}; y=${w##*:}
	[ -s "$TMP/$x" ] && [ -s "$TMP/$y" ] || continue
	awk -v n="${w%%:*}" -v a="$(median < "$TMP/$x")" -v c="$(median < "$TMP/$y")" -v b="$base" \
		'BEGIN { printf "%-44s %10.0f %7.2fx  of the bound'"'"'s overhead (%.0f ns)\n", "overhead: " n, a - b, (a - b) / (c - b), c - b }'
done
# --metrics, scraped each second, against the same collector without it
if [ -s "$TMP/col.metrics" ] && [ -s "$TMP/col.cgroup" ]; then
	awk -v a="$(median < "$TMP/col.metrics")" -v b="$(median < "$TMP/col.cgroup")" \
		-v ca="$(median < "$TMP/col.metrics.cpu")" -v cb="$(median < "$TMP/col.cgroup.cpu")" \
		'BEGIN { printf "%-44s %10s %7.3fx  elapsed %.1f / %.1f ns; cpu %.1f / %.1f ns (%.3fx)\n",
			"--metrics (scraped 1/s) / without", "", a / b, a, b, ca, cb, ca / cb }'
fi
# the same runs, by the loop's CPU time
cbase=$(median < "$TMP/base.cpu")
crow() { printf '%-44s %10s %8s  %s\n' "  cpu: $1" "$2" "$(awk -v a="$2" -v b="$cbase" 'BEGIN { if (a == "") print "-"; else printf "%.2fx", a / b }')" "the loop's CPU time per call"; }
crow "untraced loop" "$cbase"
[ -s "$TMP/floor.cpu" ] && crow "floor" "$(median < "$TMP/floor.cpu")"
[ -s "$TMP/floor_row.cpu" ] && crow "row floor" "$(median < "$TMP/floor_row.cpu")"
[ -s "$TMP/floor_legacy.cpu" ] && crow "classic floor" "$(median < "$TMP/floor_legacy.cpu")"
[ -s "$TMP/legacy_bare.cpu" ] && crow "legacy lower bound" "$(median < "$TMP/legacy_bare.cpu")"
[ -s "$TMP/legacy_pidtree.cpu" ] && crow "legacy bound, hash map and comm" "$(median < "$TMP/legacy_pidtree.cpu")"
[ -s "$TMP/compat_cgroup.cpu" ] && crow "compat bound, cgroup-id filter" "$(median < "$TMP/compat_cgroup.cpu")"
for m in $MODES; do
	[ -s "$TMP/col.$m.cpu" ] || continue
	crow "collector ($m)" "$(median < "$TMP/col.$m.cpu")"
	[ -s "$TMP/out.$m.cpu" ] && crow "outside process ($m)" "$(median < "$TMP/out.$m.cpu")"
done

[ "${BENCH_PEERS:-1}" = 0 ] && exit 0
att=$(for i in 1 2 3 4 5 6 7 8 9 10 11; do "$OUTPUT/collector" -v -o /dev/null -- true 2>&1 |
	sed -n 's/.*attached in \(.*\) ms/\1/p'; done | median)
row "collector start-up to attached" "" "$att ms (median of 11, collector -v)"
if command -v bpftrace >/dev/null; then
	# bpftrace's: from its start to the first event of a process that
	# makes syscalls all along (BEGIN fires before the probes attach)
	"$LOOP" 1000000000 & lp=$!
	batt=$(for i in 1 2 3 4 5; do
		s=$(date +%s%N)
		timeout 30 bpftrace -e "tracepoint:raw_syscalls:sys_enter /pid == $lp/ { printf(\"seen\\n\"); exit(); }
			tracepoint:raw_syscalls:sys_exit /pid == $lp/ { @n = count(); }" 2>/dev/null |
			{ read -r _; e=$(date +%s%N); cat > /dev/null; echo $(( (e - s) / 1000 )); }
	done | awk '{ printf "%.1f\n", $1 / 1000 }' | median)
	kill $lp; wait $lp 2>/dev/null
	row "bpftrace start-up to attached" "" "$batt ms (median of 5, to its first event; the collector's is $(awk -v a="$att" -v b="$batt" 'BEGIN { printf "%.2fx", a / b }') of it)"
fi

if command -v bpftrace >/dev/null; then
	"$LOOP" "$N" 1.5 2> "$TMP/bt" & lp=$!
	timeout 30 bpftrace -q -e "tracepoint:raw_syscalls:sys_exit /pid == $lp/ { printf(\"%d %d %d\\n\", nsecs, tid, args->ret); }" > "$TMP/bt.out" 2>/dev/null &
	bt=$!
	wait $lp; sleep 0.5; kill -INT $bt 2>/dev/null; wait $bt 2>/dev/null
	got=$(wc -l < "$TMP/bt.out")
	row "bpftrace printf per event" "$(nspc "$TMP/bt")" "lines=$got of >= $N"
fi
if command -v strace >/dev/null; then
	strace -f -o "$TMP/st.out" "$LOOP" "$N" 2> "$TMP/st"
	row "strace -f to a file" "$(nspc "$TMP/st")" ""
fi
if command -v perf >/dev/null; then
	perf trace -o "$TMP/pt.out" "$LOOP" "$N" 2> "$TMP/pt"
	row "perf trace to a file" "$(nspc "$TMP/pt")" "$(grep -c getppid "$TMP/pt.out" 2>/dev/null) getppid lines"
fi
