# SPDX-License-Identifier: BSD-2-Clause
# shellcheck shell=bash
# bench/lib.sh: what the benches that run one workload several ways, in
# rounds, with the sampling program's run time counted, share (bench/jvm.sh,
# node.sh, inames.sh): a temporary directory, the check for what they need,
# BPF run-time statistics held on, the rounds with the ways interleaved (a
# busy machine disturbs them alike), the program's figures read from a
# collector before it exits, and medians over the rounds. Sourced, from
# the tree's top, with OUTPUT and ROUNDS set; sets COLLECTOR, the build's
# collector (an absolute path), unless it is set.

COLLECTOR=${COLLECTOR:-$(realpath -m "$OUTPUT/collector")}

# bench_init NAME: TMP, a fresh directory removed at exit (and the
# statistics' holder of bench_stats_on killed then); NAME starts messages.
bench_init() {
	BENCH_NAME=$1
	BENCH_STATS=
	TMP=$(mktemp -d /tmp/boottrace-bench.XXXXXX) || exit 1
	trap '[ -n "$BENCH_STATS" ] && kill "$BENCH_STATS"; rm -rf "$TMP"' EXIT
}

# bench_need FILE...: exit 1, saying so, when one of them is missing
bench_need() {
	local f
	for f in "$@"; do
		[ -e "$f" ] || { echo "$BENCH_NAME: no $f (make; scripts/install-deps.sh)" >&2; exit 1; }
	done
}

# bench_stats_on: the kernel's BPF run-time statistics on until the bench
# exits, through bench/bpfstats (BPF_ENABLE_STATS: others' writes of the
# sysctl kernel.bpf_stats_enabled, another bench on a shared machine,
# cannot turn them off); exit 1 when the kernel refuses.
bench_stats_on() {
	"$OUTPUT/bench/bpfstats" > "$TMP/stats" &
	BENCH_STATS=$!
	until [ -s "$TMP/stats" ] || ! kill -0 "$BENCH_STATS" 2> /dev/null; do sleep 0.01; done
	[ -s "$TMP/stats" ] || { BENCH_STATS=; echo "$BENCH_NAME: no BPF run-time statistics" >&2; exit 1; }
}

# med V...: the median (of an even count, the lower of the middle two)
med() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# prog_stats PID: "RUN_NS RUNS" of collector PID's bt_profile, from its
# fdinfo: the object's one perf_event program (prog_type 7)
prog_stats() {
	cat /proc/"$1"/fdinfo/* 2> /dev/null | awk '
		$1 == "prog_type:" { p = $2 == 7 }
		p && $1 == "run_time_ns:" { t = $2 }
		p && $1 == "run_cnt:" { c = $2; exit }
		END { print t + 0, c + 0 }'
}

# bench_stats_of PID KEY: collector PID's prog_stats into pns[KEY] and
# runs[KEY] (the caller's associative arrays)
bench_stats_of() {
	read -r "pns[$2]" "runs[$2]" < <(prog_stats "$1")
}

# bench_collected PID KEY: wait until the workload traced by collector PID
# is done (it touches $TMP/done, then sleeps while the collector still
# runs), read the collector's figures (bench_stats_of), wait for it to end
bench_collected() {
	while [ ! -e "$TMP/done" ] && kill -0 "$1" 2> /dev/null; do sleep 0.01; done
	bench_stats_of "$1" "$2"
	wait "$1"
}

# bench_rounds 'FN WAY...'...: ROUNDS rounds; in each, FN WAY ROUND for each
# FN and each of its ways, in order
bench_rounds() {
	local i spec fn k
	for i in $(seq "$ROUNDS"); do
		for spec in "$@"; do
			read -r fn spec <<< "$spec"
			for k in $spec; do "$fn" "$k" "$i"; done
		done
	done
}

# m KEY ARRAY: the median of ARRAY[KEY.1] ... ARRAY[KEY.ROUNDS], 0 where one is missing
m() {
	local -n a=$2
	local v=() i
	for i in $(seq "$ROUNDS"); do v+=("${a[$1.$i]:-0}"); done
	med "${v[@]}"
}
