#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# bench/buildids.sh [ROUNDS]: what remembering the user stack's build ids
# saves a sample (bpf/buildids.bpf.h), side by side in one run (ROUNDS
# rounds, default 5, each way once a round; medians). Two workloads under
# --profile=999 --profile-unwind=fp (no stack copy: the stacks' cost alone):
#  - rails: tests/tools/railsapp's environment loaded (Rails 6.1 booting,
#    its initializer burning 300 ms): a process new to the sampler, its
#    code pages met for the first time all along, a broken frame-pointer
#    chain at each sample (libruby keeps no frame pointers);
#  - burn: tests/tools/burn -x 3 (900 ms of CPU in two functions, frame
#    pointers): a process whose stacks repeat.
# The ways: off (BOOTTRACE_TEST_NO_BUILD_ID_CACHE: the kernel asked at
# every sample, BPF_F_USER_BUILD_ID) and on. Figures: bt_profile's run time
# per sample of the workload's process (BPF run-time statistics, read from
# the collector's fdinfo before it exits: the program runs on every tick of
# every traced task, the others cost the same both ways); the machine's
# irq_work interrupts (IWI in /proc/interrupts) per such sample: the
# kernel's build-id lookup lets go of the mm's lock through one from a
# perf event; samples named from what was remembered, asked of the kernel,
# and the times an unmap ended what an address space had remembered (the
# object's bid_counts, by bpftool); bt_sys_exit's run time per run (every
# syscall of the host: it looks for unmaps). Needs root, bpftool, ruby3.1
# and ruby-railties.
set -u
cd "$(dirname "$0")/.." || exit 1
OUTPUT=${OUTPUT:-build}
ROUNDS=${1:-5}
RB=/usr/bin/ruby3.1
. bench/lib.sh
bench_init bench/buildids.sh
bench_need "$COLLECTOR" "$OUTPUT/bench/bpfstats" "$OUTPUT/tests/burn" "$RB"
command -v bpftool > /dev/null || { echo "bench/buildids.sh: needs bpftool" >&2; exit 1; }
cp -r tests/tools/railsapp "$TMP/app"
bench_stats_on

# irq_work interrupts so far, all CPUs
iwi() { awk '$1 == "IWI:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i } END { print s + 0 }' /proc/interrupts; }
# ids PID KEY: the ids of collector PID's maps (KEY map_id) or programs (prog_id), from its fdinfo
ids() { cat /proc/"$1"/fdinfo/* 2> /dev/null | awk -v k="$2:" '$1 == k { printf "%s%s", n++ ? "," : "", $2 }'; }
# counts PID: "HIT MISS MOVED" of collector PID's bid_counts, summed over CPUs
counts() {
	local id
	id=$(bpftool map show -j | python3 -c '
import json, sys
ids = {int(i) for i in "'"$(ids "$1" map_id)"'".split(",") if i}
print(next((m["id"] for m in json.load(sys.stdin) if m["id"] in ids and m.get("name") == "bid_counts"), ""))')
	[ -n "$id" ] || { echo "- - -"; return; }
	bpftool map dump id "$id" -j | python3 -c '
import json, sys
print(" ".join(str(sum(v["value"] for v in e["formatted"]["values"])) for e in json.load(sys.stdin)))'
}
# exit_stats PID: "RUN_NS RUNS" of collector PID's bt_sys_exit
exit_stats() {
	bpftool prog show -j | python3 -c '
import json, sys
ids = {int(i) for i in "'"$(ids "$1" prog_id)"'".split(",") if i}
p = next((p for p in json.load(sys.stdin) if p["id"] in ids and p.get("name") == "bt_sys_exit"), {})
print(p.get("run_time_ns", 0), p.get("run_cnt", 0))'
}

# runs: filled by bench_stats_of, not read here
# shellcheck disable=SC2034
declare -A pns runs samp iw hit miss moved xns xruns
# run WORK.WAY ROUND
run() {
	local w=${1%.*} k=${1#*.} i=$2 cmd env=() pid a
	rm -f "$TMP/o.tsv" "$TMP/done"
	case $w in
	rails) cmd="cd $TMP/app && RAILS_ENV=production $RB -e 'require \"./config/environment\"' 2> /dev/null" ;;
	burn) cmd="$PWD/$OUTPUT/tests/burn -x 3 > /dev/null" ;;
	esac
	[ "$k" = off ] && env=(BOOTTRACE_TEST_NO_BUILD_ID_CACHE=1)
	a=$(iwi)
	env "${env[@]}" "$COLLECTOR" --profile=999 --profile-unwind=fp --ringbuf-mb 64 -o "$TMP/o.tsv" -- \
		sh -c "$cmd; touch $TMP/done; sleep 1" 2> /dev/null &
	pid=$!
	while [ ! -e "$TMP/done" ] && kill -0 "$pid" 2> /dev/null; do sleep 0.01; done
	iw[$w.$k.$i]=$(($(iwi) - a))
	read -r "hit[$w.$k.$i]" "miss[$w.$k.$i]" "moved[$w.$k.$i]" < <(counts "$pid")
	read -r "xns[$w.$k.$i]" "xruns[$w.$k.$i]" < <(exit_stats "$pid")
	bench_collected "$pid" "$w.$k.$i"
	samp[$w.$k.$i]=$(awk -F'\t' -v c="$w" '$8 == "sample" && $7 ~ (c == "rails" ? "^ruby" : "^burn")' "$TMP/o.tsv" | wc -l)
}

bench_rounds "run rails.off rails.on burn.off burn.on"
printf '%-6s %-4s %8s %11s %10s %8s %8s %6s %12s\n' work way samples prog/sample IWI/sample hits misses moved sys_exit/run
for w in rails burn; do
	for k in off on; do
		per=() ipers=() xper=()
		for i in $(seq "$ROUNDS"); do
			per+=("$(awk -v p="${pns[$w.$k.$i]}" -v s="${samp[$w.$k.$i]}" 'BEGIN { printf "%.0f", s ? p / s : 0 }')")
			ipers+=("$(awk -v n="${iw[$w.$k.$i]}" -v s="${samp[$w.$k.$i]}" 'BEGIN { printf "%.0f", s ? 1000 * n / s : 0 }')")
			xper+=("$(awk -v p="${xns[$w.$k.$i]}" -v s="${xruns[$w.$k.$i]}" 'BEGIN { printf "%.0f", s ? p / s : 0 }')")
		done
		printf '%-6s %-4s %8s %9.1fus %10.2f %8s %8s %6s %10sns\n' "$w" "$k" "$(m "$w.$k" samp)" \
			"$(awk -v p="$(med "${per[@]}")" 'BEGIN { print p / 1e3 }')" \
			"$(awk -v p="$(med "${ipers[@]}")" 'BEGIN { print p / 1e3 }')" \
			"$(m "$w.$k" hit)" "$(m "$w.$k" miss)" "$(m "$w.$k" moved)" "$(med "${xper[@]}")"
	done
done
