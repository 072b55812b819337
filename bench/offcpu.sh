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
# naming a stack and the stack rows; each figure the median of 3 runs.
# Then a Rails 6.1 boot (tests/tools/railsapp under puma) to its listen,
# 5 runs with and 5 without: the median time to listen, the file.
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

ns() { sed -n "s|^\([0-9.]*\) $1\$|\1|p" "$2" | tail -1; }
med() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
lost() { tail -1 "$1" | sed -n 's/^# lost=\([0-9]*\).*/\1/p'; }
printf '%-46s %10s %8s %8s %6s %9s %7s\n' what ns/rtrip untraced off lost stack= stacks
row() {
	printf '%-46s %10s %8s %8s %6s %9s %7s\n' "$1" "$2" \
		"$(awk -v a="$2" -v b="$base" 'BEGIN { printf "%.2fx", a / b }')" \
		"$(awk -v a="$2" -v b="${off:-$2}" 'BEGIN { printf "%.2fx", a / b }')" "$3" "$4" "$5"
}

runs=()
for i in 1 2 3; do "$PROBE" pingpong "$N" 2> "$TMP/u$i"; runs+=("$(ns ns/round-trip "$TMP/u$i")"); done
base=$(med "${runs[@]}")
off=
row "untraced" "$base" - - -

# collector OPTIONS...: the ping-pong traced, a row
collector() {
	local i runs=()
	for i in 1 2 3; do
		"$COLLECTOR" "$@" -o "$TMP/c.tsv" -- "$PROBE" pingpong "$N" 2> "$TMP/c$i" > /dev/null
		runs+=("$(ns ns/round-trip "$TMP/c$i")")
	done
	med "${runs[@]}"
}
counts() {
	echo "$(lost "$TMP/c.tsv")" \
		"$(awk -F'\t' '$8 == "sched" && $12 ~ /stack=/' "$TMP/c.tsv" | wc -l)" \
		"$(awk -F'\t' '$8 == "stack"' "$TMP/c.tsv" | wc -l)"
}
off=$(collector --sched on --offcpu-stacks off)
read -r l s k <<< "$(counts)"
row "--sched on --offcpu-stacks off" "$off" "$l" "$s" "$k"
for v in "auto:--profile-unwind auto" "auto, --profile-stack 4096:--profile-stack 4096" \
	 "fp:--profile-unwind fp"; do
	# shellcheck disable=SC2086
	t=$(collector --sched on --offcpu-stacks on ${v#*:})
	read -r l s k <<< "$(counts)"
	row "--offcpu-stacks on (${v%%:*})" "$t" "$l" "$s" "$k"
done

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
