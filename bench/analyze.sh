#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# bench/analyze.sh [FILE]: time analyze against its peers on one TSV (made
# by bench/gen-tsv when FILE is not given: 10M rows), warm page cache, one
# run each. Prints seconds, peak RSS and the ratio to `wc -l`. Not a test.
set -u
OUTPUT=${OUTPUT:-build}
A=$OUTPUT/analyze
F=${1:-${TMPDIR:-/tmp}/boottrace-bench.tsv}
[ -x "$A" ] || { echo "bench: build $A first" >&2; exit 1; }
if [ ! -f "$F" ]; then
	[ -x "$OUTPUT/bench/gen-tsv" ] || { echo "bench: build $OUTPUT/bench/gen-tsv first" >&2; exit 1; }
	echo "generating $F (10M rows)..." >&2
	"$OUTPUT/bench/gen-tsv" -o "$F" || exit 1
fi
cat "$F" > /dev/null # warm the page cache
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# awk: the log2 histogram of listen-less syscall durations and per-syscall counts
cat > "$tmp/hist.awk" <<'AWK'
BEGIN { FS = "\t" }
/^#/ || $1 == "ts_ns" { next }
$8 == "syscall" { n[$9]++; b = 0; v = $11; while (v >= 2) { v /= 2; b++ } h[b]++ }
END { for (k in n) print k, n[k]; for (b in h) print "2^" b, h[b] }
AWK

run() { # label, command...
	local label=$1; shift
	/usr/bin/time -f "%e %M" -o "$tmp/t" "$@" > /dev/null 2> "$tmp/err"
	read -r secs kb < <(tail -1 "$tmp/t")
	printf '%s\t%s\t%s\n' "$label" "$secs" "$kb" >> "$tmp/results"
}

run "wc -l" wc -l "$F"
run "analyze F" "$A" "$F"
run "analyze F --hist --by syscall" "$A" "$F" --hist --by syscall
run "awk log2 hist + per-syscall counts" awk -f "$tmp/hist.awk" "$F"
run "sort-based percentiles (dur_ns)" sh -c "grep -v '^#' '$F' | cut -f11 | grep -v N | sort -n | awk '{v[NR]=\$1} END {print v[int(NR*0.5)], v[int(NR*0.9)], v[int(NR*0.99)]}'"
if command -v datamash > /dev/null; then
	run "datamash grouped percentiles" sh -c "grep -v '^#' '$F' | tail -n +2 | datamash -s -g 9 count 11 perc:50 11 perc:90 11 perc:99 11"
fi

printf 'file: %s (%s bytes, %s lines)\n\n' "$F" "$(stat -c %s "$F")" "$(wc -l < "$F")"
base=$(awk -F'\t' 'NR == 1 { print $2 }' "$tmp/results")
printf '%-40s %9s %10s %8s\n' "command" "seconds" "peak RSS" "x wc -l"
awk -F'\t' -v base="$base" '{ printf "%-40s %9.3f %7.1f MiB %8.1f\n", $1, $2, $3 / 1024, (base > 0 ? $2 / base : 0) }' "$tmp/results"
