#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# bench/inames.sh [ROUNDS]: what naming an interpreter's code objects in
# the sampling program costs a sample (bpf/inames.bpf.h), side by side in
# one run (ROUNDS rounds, default 3, one of each way per round; medians).
# Two Ruby 3.1 workloads under --profile=999 --profile-unwind=fp (no
# stack copy: the names' cost alone):
#  - burn: tests/tools/rbburn.rb, 300 ms of CPU in a few methods (names
#    read once, then a lookup per frame per sample);
#  - rails: tests/tools/railsapp's environment loaded (Rails 6.1 booting,
#    its initializer burning 300 ms): thousands of iseqs, most seen once.
# The ways: names off (BOOTTRACE_TEST_NO_INAMES: read from the process's
# memory by the collector, as before) and on. The figure is the sampling
# program's own run time as the kernel counts it (BPF run-time statistics
# held on by bench/bpfstats, read from the collector's fdinfo of
# bt_profile before it exits), over the Ruby process's samples: the
# program runs on every tick of every task, and the other ticks cost the
# same both ways. Needs root, ruby3.1 and ruby-railties.
set -u
cd "$(dirname "$0")/.." || exit 1
OUTPUT=${OUTPUT:-build}
ROUNDS=${1:-3}
COLLECTOR=$(realpath "$OUTPUT/collector")
RB=/usr/bin/ruby3.1
. bench/lib.sh
bench_init bench/inames.sh
bench_need "$COLLECTOR" "$OUTPUT/bench/bpfstats" "$RB"
cp -r tests/tools/railsapp "$TMP/app"
bench_stats_on

# runs: filled by bench_stats_of, not read here
# shellcheck disable=SC2034
declare -A pns runs samp
# run WORK.WAY ROUND
run() {
	local w=${1%.*} k=${1#*.} i=$2 cmd env=()
	rm -f "$TMP/o.tsv" "$TMP/done"
	case $w in
	burn) cmd="$RB $PWD/tests/tools/rbburn.rb > /dev/null" ;;
	rails) cmd="cd $TMP/app && RAILS_ENV=production $RB -e 'require \"./config/environment\"' 2> /dev/null" ;;
	esac
	[ "$k" = off ] && env=(BOOTTRACE_TEST_NO_INAMES=1)
	env "${env[@]}" "$COLLECTOR" --profile=999 --profile-unwind=fp --ringbuf-mb 64 -o "$TMP/o.tsv" -- \
		sh -c "$cmd; touch $TMP/done; sleep 1" 2> /dev/null &
	bench_collected $! "$w.$k.$i"
	samp[$w.$k.$i]=$(awk -F'\t' '$8 == "sample" && $7 ~ /^ruby/' "$TMP/o.tsv" | wc -l)
}

bench_rounds "run burn.off burn.on rails.off rails.on"
printf '%-6s %-10s %9s %8s %11s\n' work names prog-ms samples prog/sample
for w in burn rails; do
	for k in off on; do
		ps=() ss=() per=()
		for i in $(seq "$ROUNDS"); do
			ps+=("${pns[$w.$k.$i]}") ss+=("${samp[$w.$k.$i]}")
			per+=("$(awk -v p="${pns[$w.$k.$i]}" -v s="${samp[$w.$k.$i]}" 'BEGIN { printf "%.0f", s ? p / s : 0 }')")
		done
		printf '%-6s %-10s %9.1f %8s %9.1fus\n' "$w" "$k" "$(awk -v p="$(med "${ps[@]}")" 'BEGIN { print p / 1e6 }')" \
			"$(med "${ss[@]}")" "$(awk -v p="$(med "${per[@]}")" 'BEGIN { print p / 1e3 }')"
	done
done
