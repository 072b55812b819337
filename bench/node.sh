#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# bench/node.sh [ROUNDS]: what --profile costs a node boot, and what walking
# its JS frames costs a sample, side by side in one run (ROUNDS rounds,
# default 3, one of each way per round, so a busy machine disturbs them
# alike; each figure the median): tests/tools/node/main.js, node's start,
# a module whose top level burns 1 s of the process's CPU time
# (BURN_MS=1000), an http server that listens and closes, node's exit.
# wall: node's elapsed time; cpu: its user + sys (/usr/bin/time around
# node: a sampling interrupt's cost is charged to the task it interrupted).
# The ways: untraced; the collector (tracing, no --profile); the collector
# --profile=999 with the V8 walker off (BOOTTRACE_TEST_NO_V8: the native
# stacks alone), and on. For the collector's runs, the sampling program's
# own run time as the kernel counts it (bench/bpfstats, as bench/jvm.sh):
# in all, and per sample of node, and the walker's cost a sample, the
# difference of that figure with the walker on and off.
# UNWIND=fp|dwarf|auto: the collector's --profile-unwind (default: auto).
# Needs root and node.
set -u
cd "$(dirname "$0")/.." || exit 1
OUTPUT=${OUTPUT:-build}
ROUNDS=${1:-3}
PU=()
[ -n "${UNWIND:-}" ] && PU=(--profile-unwind="$UNWIND")
NODE=$(command -v node)
APP=$(realpath tests/tools/node/main.js)
. bench/lib.sh
bench_init bench/node.sh
bench_need "$COLLECTOR" "$OUTPUT/bench/bpfstats" "$NODE" /usr/bin/time
bench_stats_on

declare -A wall cpu pns runs samp
# boot WAY ROUND: one node boot
boot() {
	local k=$1 i=$2 cmd
	rm -f "$TMP/o.tsv" "$TMP/t" "$TMP/done"
	cmd="BURN_MS=1000 /usr/bin/time -f '%e %U %S' -o $TMP/t $NODE $APP > /dev/null; touch $TMP/done; sleep 1"
	case $k in
	untraced) sh -c "$cmd" ;;
	*)
		case $k in
		coll) "$COLLECTOR" -o "$TMP/o.tsv" -- sh -c "$cmd" 2> /dev/null & ;;
		off) BOOTTRACE_TEST_NO_V8=1 "$COLLECTOR" --profile=999 "${PU[@]}" -o "$TMP/o.tsv" -- \
			sh -c "$cmd" 2> /dev/null & ;;
		on) "$COLLECTOR" --profile=999 "${PU[@]}" -o "$TMP/o.tsv" -- sh -c "$cmd" 2> /dev/null & ;;
		esac
		bench_collected $! "$k.$i"
		samp[$k.$i]=$(awk -F'\t' '$8 == "sample" && $7 == "node"' "$TMP/o.tsv" | wc -l) ;;
	esac
	read -r "wall[$k.$i]" u s < "$TMP/t"
	cpu[$k.$i]=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
}

ways=(untraced coll off on)
bench_rounds "boot ${ways[*]}"

name() {
	case $1 in
	untraced) echo untraced ;;
	coll) echo "collector" ;;
	off) echo "--profile=999, walker off" ;;
	on) echo "--profile=999" ;;
	esac
}

echo "node: tests/tools/node/main.js, 1 s of CPU in a module's top level, node's start and exit; median of $ROUNDS"
printf '%-26s %8s %7s %8s %7s %9s %8s %11s\n' way wall-ms ratio cpu-ms ratio prog-ms samples prog/sample
for k in "${ways[@]}"; do
	awk -v what="$(name "$k")" -v w="$(m "$k" wall)" -v bw="$(m untraced wall)" \
		-v c="$(m "$k" cpu)" -v bc="$(m untraced cpu)" -v p="$(m "$k" pns)" \
		-v n="$(m "$k" samp)" 'BEGIN {
		printf "%-26s %8.0f %6.2fx %8.0f %6.2fx %9s %8s %11s\n", what, w * 1000, w / bw,
			c * 1000, c / bc, p ? sprintf("%.1f", p / 1e6) : "-", n ? n : "-",
			p && n ? sprintf("%.1fus", p / n / 1000) : "-"
	}'
done
awk -v on="$(m on pns)" -v non="$(m on samp)" -v off="$(m off pns)" -v noff="$(m off samp)" 'BEGIN {
	if (non && noff)
		printf "the walk costs %.1f us a sample (the program %.1f us a node sample with it, %.1f without)\n",
			on / non / 1000 - off / noff / 1000, on / non / 1000, off / noff / 1000
}'
