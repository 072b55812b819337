#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Soak: a container doing a steady mix of syscalls (tests/tools/soak:
# getppid, openat/read/close of a file, write to /dev/null, clock_nanosleep
# of 0, a fork + exit now and then) for SOAK_SECONDS (default 60 with
# CI=true, else 30) at the highest rate the collector holds without loss.
# The TSV goes through a pipe into tests/tools/tsv_count (no file to hold
# millions of rows). First a short calibration: the workload unthrottled
# for 3 s; when the collector lost events, again at 80% of the rate it
# kept, until nothing is lost (4 tries). The soak runs at 90% of that rate
# (headroom for the other tests sharing the machine) and checks: trailer
# lost=0 and events = the rows read; every row 12 fields; for the
# workload's comm, the rows of each syscall name = what the workload
# counted it made (exact), fork and exit rows = its forks (+ 1 exit, its
# own), no other syscall (scheduler rows, any number: whenever it left its
# CPU); the collector's VmRSS, sampled every few seconds
# from /proc/PID/status, flat: the max of the last third of the samples at
# most 1 MiB above the max of the first third. Not run by make test-asan
# (ASan's allocator and shadow would be what is measured). One mode is
# enough: the load is on the ring buffer and the writer, the same in all.
# modes: cgroup
. "$(dirname "$0")/lib.sh"
need_root
if [ -n "${SOAK_SECONDS:-}" ]; then
	secs=$SOAK_SECONDS
elif [ "${CI:-}" = true ]; then
	secs=60
else
	secs=30
fi
interval=1
[ "$secs" -ge 60 ] && interval=3
cal_secs=3
echo "   soak of $secs s (SOAK_SECONDS; default 60 with CI=true, else 30), RSS every $interval s"
for t in soak tsv_count; do [ -x "$TOOLS/$t" ] || fail "no $TOOLS/$t (make all)"; done
mkfifo "$TMP/fifo"
echo "a file the soak reads" > "$TMP/file"

# run NAME RATE SECONDS [SAMPLE]: the collector spawns the workload, its TSV
# read through the pipe by tsv_count; with SAMPLE, the collector's VmRSS
# and RssAnon (KiB) every $interval s into $TMP/NAME.rss. Sets lost.
run() {
	local name=$1 rate=$2 s=$3 sample=${4:-} col cnt rc trailer
	"$TOOLS/tsv_count" soak-loop < "$TMP/fifo" > "$TMP/$name.count" 2> "$TMP/$name.counterr" & cnt=$!
	"$COLLECTOR" -o "$TMP/fifo" -- "$TOOLS/soak" "$rate" "$s" "$TMP/file" \
		> "$TMP/$name.soak" 2> "$TMP/$name.err" & col=$!
	cleanup_hooks+=("kill -KILL $col $cnt 2>/dev/null")
	: > "$TMP/$name.rss"
	if [ -n "$sample" ]; then
		while sleep "$interval" && kill -0 $col 2>/dev/null; do
			awk '$1 == "VmRSS:" { r = $2 } $1 == "RssAnon:" { a = $2 }
				END { if (r != "") print r, a }' "/proc/$col/status" >> "$TMP/$name.rss" 2>/dev/null
		done
	fi
	wait $col; rc=$?
	[ $rc -eq 0 ] || fail "$name: collector exited $rc: $(cat "$TMP/$name.err")"
	wait $cnt; rc=$?
	[ $rc -eq 0 ] || fail "$name: tsv_count exited $rc: $(cat "$TMP/$name.counterr")"
	trailer=$(sed -n 's/^trailer //p' "$TMP/$name.count")
	[[ "$trailer" =~ ^#\ lost=([0-9]+)\ events=([0-9]+)$ ]] || fail "$name: no trailer: $trailer"
	lost=${BASH_REMATCH[1]}
	[ "${BASH_REMATCH[2]}" = "$(awk '$1 == "rows" { print $2 }' "$TMP/$name.count")" ] ||
		fail "$name: the trailer says events=${BASH_REMATCH[2]}, $(awk '$1 == "rows" { print $2 }' "$TMP/$name.count") rows were read"
}
done_rate() { awk '$1 == "rate" { print $2 }' "$TMP/$1.soak"; }

# 1. calibration: from the unthrottled rate down, until nothing is lost
rate=0 held=
for try in 1 2 3 4; do
	run cal$try "$rate" "$cal_secs"
	r=$(done_rate cal$try)
	[ -n "$r" ] || fail "calibration: the workload printed no rate: $(cat "$TMP/cal$try.soak" "$TMP/cal$try.err")"
	echo "   calibration $try: target $([ "$rate" = 0 ] && echo unthrottled || echo "$rate/s"), done $r syscalls/s, lost $lost"
	if [ "$lost" -eq 0 ]; then
		held=$r
		break
	fi
	rate=$((r * 8 / 10))
done
[ -n "$held" ] || fail "the collector lost events at every rate tried, down to $rate syscalls/s"
target=$((held * 9 / 10))

# 2. the soak
run soak "$target" "$secs" sample
sed 's/^/   workload: /' "$TMP/soak.soak"
[ "$lost" -eq 0 ] || fail "soak at $target syscalls/s: the collector lost $lost events"

# every kind the workload counted, exactly; nothing else under its comm
awk 'NR == FNR { if ($1 !~ /^(forks|seconds|rate)$/) made[$1] = $2; else if ($1 == "forks") forks = $2; next }
$1 == "rows" || $1 == "trailer" { next }
{ got[$1] = $2 }
END {
	for (k in made)
		if (got[k] + 0 != made[k]) { printf "%s: %d rows, the workload made %d\n", k, got[k], made[k]; bad++ }
	for (k in got) {
		if (k == "event:fork") { if (got[k] != forks) { printf "fork rows: %d, forks: %d\n", got[k], forks; bad++ } }
		else if (k == "event:exit") { if (got[k] != forks + 1) { printf "exit rows: %d, want %d\n", got[k], forks + 1; bad++ } }
		else if (k == "event:sched") { } # scheduler rows: any number, lost=0 holds them too
		else if (k == "event:stack") { } # the off-CPU stacks its sched rows name, once each
		else if (!(k in made)) {
			printf "%s: %d rows the workload did not make", k, got[k]; bad++
			if (k ~ /^(syscall_335|uretprobe|syscall_336|uprobe)$/)
				printf " (the kernel makes them for a uprobe or uretprobe another tracer set in a function the workload calls)"
			printf "\n"
		}
	}
	if (!("event:fork" in got) || !("event:exit" in got)) { print "no fork or exit rows"; bad++ }
	exit bad > 0
}' "$TMP/soak.soak" "$TMP/soak.count" > "$TMP/problems" || fail "$(cat "$TMP/problems")"
rows=$(awk '$1 == "rows" { print $2 }' "$TMP/soak.count")
ok "soak: $secs s at $target syscalls/s (done $(done_rate soak)/s; calibration held $held/s): $rows rows of 12 fields, lost=0, every syscall counted exactly"

# the collector's RSS: flat
n=$(wc -l < "$TMP/soak.rss")
[ "$n" -ge 6 ] || fail "only $n RSS samples"
echo "   collector VmRSS (KiB) every $interval s: $(cut -d' ' -f1 "$TMP/soak.rss" | tr '\n' ' ')"
echo "   of which RssAnon: $(cut -d' ' -f2 "$TMP/soak.rss" | tr '\n' ' ')"
read -r first last <<< "$(awk -v n="$n" '{ v[NR] = $1 }
END {
	t = int(n / 3)
	for (i = 1; i <= t; i++) if (v[i] > a) a = v[i]
	for (i = n - t + 1; i <= n; i++) if (v[i] > b) b = v[i]
	print a, b
}' "$TMP/soak.rss")"
[ "$last" -le $((first + 1024)) ] ||
	fail "collector RSS grew: max $first KiB in the first third of the soak, $last KiB in the last"
ok "collector VmRSS flat: max $first KiB in the first third, $last KiB in the last ($n samples)"
