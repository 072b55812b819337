#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# bench/analyze.sh [FILE]: time analyze against wc -l and its peers on one
# TSV (made by bench/gen-tsv when FILE is not given: 10M rows), warm page
# cache. analyze and wc -l run RUNS times each (default 5), interleaved, and
# report the median wall time, the largest peak RSS and the ratio of the
# medians to wc -l's; the peers (awk, sort, datamash) run once. Ends with
# the target of the issue: analyze FILE --hist --by syscall within 5x of
# wc -l (0.35 s on the 2-core reference machine) and 64 MiB; then
# --critical-path (and --by syscall --until listen), which keep every row in
# memory: their time against wc -l and their peak RSS per row; --plot,
# which reads the file twice (the second time keeping the charted
# containers' rows only); then --format trace-event (every row in memory
# too, then out as JSON, into /dev/null) and the size of its JSON (one more
# run, into wc -c); and --critical-path on a second file of as many rows of
# which SCHED_PCT % (default 33) are scheduler rows (gen-tsv -S: states and
# wake-ups followed), beside the first. BASELINE=PATH (another build of
# analyze, say main's) runs those two --critical-path beside ours in the
# same runs, interleaved, for a before and after under the same load. Not
# a test.
set -u
OUTPUT=${OUTPUT:-build}
RUNS=${RUNS:-5}
A=$OUTPUT/analyze
F=${1:-${TMPDIR:-/tmp}/boottrace-bench.tsv}
[ -x "$A" ] || { echo "bench: build $A first" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
if [ ! -f "$F" ]; then
	[ -x "$OUTPUT/bench/gen-tsv" ] || { echo "bench: build $OUTPUT/bench/gen-tsv first" >&2; exit 1; }
	echo "generating $F (10M rows)..." >&2
	"$OUTPUT/bench/gen-tsv" -o "$F" || exit 1
fi
critpath=$("$A" --help | grep -q -- --critical-path && echo yes)
SCHED_PCT=${SCHED_PCT:-33}
FS=${F%.tsv}-sched.tsv
if [ -n "$critpath" ] && [ ! -f "$FS" ] && [ -x "$OUTPUT/bench/gen-tsv" ]; then
	echo "generating $FS ($(grep -vc '^#' "$F") rows, $SCHED_PCT % sched)..." >&2
	"$OUTPUT/bench/gen-tsv" -n "$(grep -vc '^#' "$F")" -S "$SCHED_PCT" -o "$FS" || exit 1
fi
cat "$F" > /dev/null # warm the page cache
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# awk: the log2 histogram of syscall durations and per-syscall counts
cat > "$tmp/hist.awk" <<'AWK'
BEGIN { FS = "\t" }
/^#/ || $1 == "ts_ns" { next }
$8 == "syscall" { n[$9]++; b = 0; v = $11; while (v >= 2) { v /= 2; b++ } h[b]++ }
END { for (k in n) print k, n[k]; for (b in h) print "2^" b, h[b] }
AWK

# once ID LABEL COMMAND...: one run, "ID<TAB>LABEL<TAB>seconds<TAB>KiB" appended
once() {
	local id=$1 label=$2; shift 2
	if ! /usr/bin/time -f "%e %M" -o "$tmp/t" "$@" > /dev/null 2> "$tmp/err"; then
		echo "bench: $label failed:" >&2; cat "$tmp/err" >&2; return
	fi
	printf '%s\t%s\t%s\n' "$id" "$label" "$(tail -1 "$tmp/t" | tr ' ' '\t')" >> "$tmp/runs"
}

threads=$("$A" --help | grep -q -- --threads && echo yes)
traceev=$("$A" --help | grep -q -- trace-event && echo yes)
for _ in $(seq "$RUNS"); do
	once 1 "wc -l" wc -l "$F"
	once 2 "analyze F" "$A" "$F"
	once 3 "analyze F --hist --by syscall" "$A" "$F" --hist --by syscall
	[ -n "$threads" ] && once 4 "  same, --threads 1" "$A" --threads 1 "$F" --hist --by syscall
	if [ -n "$critpath" ]; then
		once 8 "analyze F --critical-path" "$A" "$F" --critical-path
		once 9 "analyze F --by syscall --until listen" "$A" "$F" --by syscall --until listen
		rm -rf "$tmp/plot"
		once 10 "analyze F --plot DIR (+ gnuplot)" "$A" "$F" --plot "$tmp/plot"
		[ -f "$FS" ] && cat "$FS" > /dev/null && \
			once 12 "analyze F-sched --critical-path" "$A" "$FS" --critical-path
		if [ -n "${BASELINE:-}" ]; then
			once 13 "  BASELINE F --critical-path" "$BASELINE" "$F" --critical-path
			[ -f "$FS" ] && once 14 "  BASELINE F-sched --critical-path" "$BASELINE" "$FS" --critical-path
		fi
	fi
	[ -n "$traceev" ] && once 11 "analyze F --format trace-event" "$A" "$F" --format trace-event
done
once 5 "awk log2 hist + per-syscall counts" awk -f "$tmp/hist.awk" "$F"
once 6 "sort-based percentiles (dur_ns)" sh -c "grep -v '^#' '$F' | cut -f11 | grep -v N | sort -n | awk '{v[NR]=\$1} END {print v[int(NR*0.5)], v[int(NR*0.9)], v[int(NR*0.99)]}'"
if command -v datamash > /dev/null; then
	once 7 "datamash grouped percentiles" sh -c "grep -v '^#' '$F' | tail -n +2 | datamash -s -g 9 count 11 perc:50 11 perc:90 11 perc:99 11"
fi

printf 'file: %s (%s bytes, %s lines), %s CPUs, median of %s runs\n\n' "$F" \
	"$(stat -c %s "$F")" "$(wc -l < "$F")" "$(nproc)" "$RUNS"
# per command: median seconds (lower median of an even count), largest RSS
sort -t "$(printf '\t')" -k1,1n -k3,3n "$tmp/runs" | awk -F'\t' '
{ id = $1; label[id] = $2; n[id]++; s[id, n[id]] = $3; if ($4 > kb[id]) kb[id] = $4
  if (!(id in seen)) { seen[id] = 1; order[++ids] = id } }
END {
	base = s[1, int((n[1] + 1) / 2)]
	printf "%-40s %9s %10s %8s\n", "command", "seconds", "peak RSS", "x wc -l"
	for (i = 1; i <= ids; i++) {
		id = order[i]; med = s[id, int((n[id] + 1) / 2)]
		printf "%-40s %9.3f %6.1f MiB %8.1f\n", label[id], med, kb[id] / 1024, (base > 0 ? med / base : 0)
		if (id == 3) { t = med; rss = kb[id] / 1024 }
		if (id == 8) { cp = med; cprss = kb[id] / 1024 }
		if (id == 12) { cps = med; cpsrss = kb[id] / 1024 }
		if (id == 13) { bcp = med; bcprss = kb[id] / 1024 }
		if (id == 14) { bcps = med; bcpsrss = kb[id] / 1024 }
	}
	printf "\ntarget (analyze F --hist --by syscall): %.3f s = %.1fx wc -l (<= 5x), %.1f MiB (<= 64): %s\n",
		t, (base > 0 ? t / base : 0), rss, (base > 0 && t <= 5 * base && rss <= 64) ? "met" : "MISSED"
	if (cp > 0)
		printf "critical path (every row kept in memory, one thread): %.3f s = %.1fx wc -l, %.1f MiB = %.1f bytes per row\n",
			cp, (base > 0 ? cp / base : 0), cprss, cprss * 1048576 / rows
	if (cps > 0)
		printf "  with %s%% scheduler rows: %.3f s = %.1fx wc -l (%.2fx without), %.1f MiB = %.1f bytes per row\n",
			pct, cps, (base > 0 ? cps / base : 0), (cp > 0 ? cps / cp : 0), cpsrss, cpsrss * 1048576 / rows
	if (bcp > 0)
		printf "BASELINE critical path: %.3f s = %.1fx wc -l, %.1f bytes per row; with scheduler rows %.3f s = %.1fx wc -l, %.1f bytes per row\n",
			bcp, (base > 0 ? bcp / base : 0), bcprss * 1048576 / rows, bcps,
			(base > 0 ? bcps / base : 0), bcpsrss * 1048576 / rows
}' rows="$(grep -vc '^#' "$F")" pct="$SCHED_PCT"
if [ -n "$traceev" ]; then
	rows=$(($(grep -vc '^#' "$F") - 1))	# less the header line
	json=$("$A" "$F" --format trace-event | wc -c)
	printf 'trace-event JSON: %s bytes, %s bytes per row of %s\n' "$json" "$((json / (rows > 0 ? rows : 1)))" "$rows"
fi
