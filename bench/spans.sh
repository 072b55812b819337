#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# bench/spans.sh [ROUNDS]: what --spans costs an interpreted boot, side by
# side in one run: bench/spans/boot.rb (Debian's ruby3.1: ~250 requires)
# and bench/spans/boot.py (python3.11: ~300 imports), each started by a
# shell that takes the launch time, and timed by itself from that launch
# to its listen (start→listen, CLOCK_REALTIME): untraced; under the
# collector (spawn mode, modern object) with --spans off; with --spans on
# (the default). One of each per round (a busy machine disturbs them
# alike), ROUNDS rounds (default 7); prints the medians, their ratios to
# untraced, and the spans' ratio to the collector without them, and the
# span rows of one traced boot.
# Needs root. The Rails boot of issue 29 needs ruby-railties and puma,
# which this bench does not install.
set -u
cd "$(dirname "$0")/.." || exit 1
OUTPUT=${OUTPUT:-build}
ROUNDS=${1:-7}
COLLECTOR=$OUTPUT/collector
TMP=$(mktemp -d /tmp/boottrace-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
[ -x "$COLLECTOR" ] || { echo "bench/spans.sh: no $COLLECTOR: make first" >&2; exit 1; }

med() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
# run KIND INTERP SCRIPT: one boot's start→listen ns
run() {
	local launch="T0=\$(date +%s%N) exec $2 $3"
	case $1 in
	untraced) sh -c "$launch" ;;
	off) "$COLLECTOR" --spans off -o "$TMP/off.tsv" -- sh -c "$launch" 2> /dev/null ;;
	on) "$COLLECTOR" -o "$TMP/on.tsv" -- sh -c "$launch" 2> /dev/null ;;
	esac | sed -n 's/^listen_ns=//p'
}

for app in "/usr/bin/ruby3.1 bench/spans/boot.rb" "/usr/bin/python3.11 bench/spans/boot.py"; do
	read -r interp script <<< "$app"
	[ -x "$interp" ] || { echo "# $interp: not installed" >&2; continue; }
	u=(); f=(); o=()
	run untraced "$interp" "$script" > /dev/null	# warm the page cache
	for _ in $(seq "$ROUNDS"); do
		u+=("$(run untraced "$interp" "$script")")
		f+=("$(run off "$interp" "$script")")
		o+=("$(run on "$interp" "$script")")
	done
	mu=$(med "${u[@]}"); mf=$(med "${f[@]}"); mo=$(med "${o[@]}")
	spans=$(awk -F'\t' '$8 == "span"' "$TMP/on.tsv" | wc -l)
	printf '%-11s start->listen median of %s: untraced %.1f ms; traced --spans off %.1f ms (%sx); traced with spans %.1f ms (%sx; %sx of --spans off); %s span rows\n' \
		"${interp##*/}" "$ROUNDS" "$(ratio "$mu" 1e6)" "$(ratio "$mf" 1e6)" "$(ratio "$mf" "$mu")" \
		"$(ratio "$mo" 1e6)" "$(ratio "$mo" "$mu")" "$(ratio "$mo" "$mf")" "$spans"
done
