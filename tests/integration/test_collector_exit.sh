#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# How the collector ends, as a user meets it (issue 36; collector(8), EXIT
# STATUS; docs/collector.md):
#   - a server that never listens, --runs 2 -d 3 --until listen: stopped
#     3 s after the trace began (its start to end rows: >= 3 s), the
#     second run never started, status 124, stderr naming listen;
#   - --timeout 1 on each of 2 such boots: each stopped after >= 1 s, the
#     next run went on, 124, a closing line naming both;
#   - a command that exits without listening (true, false): 124, "exited
#     with status N before listen";
#   - --until listen with -s none, or a list without listen: exit 2 at
#     once, no TSV; with listen in the list it runs;
#   - a clean --until listen of a server that dies of SIGTERM (143), one
#     run and three: exit 0 and nothing on stderr;
#   - SIGINT during --runs 5, sent once the 3rd run's start row is out:
#     status 130 (the shell's view of death by SIGINT), "interrupted after
#     2 of 5 runs", 3 start and 3 end rows, the trailer, no 4th run;
#   - --until end and --until exit (one word in both tools): the same
#     status passed on, no # until= line; analyze --until end and exit,
#     --critical-path=end and =exit print the same;
#   - a truncated file: analyze exits 2 naming file:line and --lenient,
#     which then reads it;
#   - getopt's errors name the program, not its path (both tools);
#   - client mode: a container that never listens under --timeout, one
#     that ends before it: 124, each named.
# About 15 s (26 s with the 2-core machine at a load of 12).
. "$(dirname "$0")/lib.sh"
need_root

COLL=$(realpath "$COLLECTOR")
LO=$(realpath "$TOOLS/listen_once")
# a server that listens, then waits to be stopped: dies of SIGTERM (143)
SERVER=(/bin/sh -c '"$0" inet x && exec sleep 100' "$LO")
# run_coll NAME ARG...: the collector, killed if it outlives 60 s (status
# 137, which no outcome of its own has); its status in $rc, stderr in
# $TMP/NAME.err, the TSV in $TMP/NAME.tsv
run_coll() {
	local name=$1
	shift
	timeout -s KILL 60 "$COLL" -o "$TMP/$name.tsv" "$@" 2> "$TMP/$name.err"
	rc=$?
}
# life TSV CONTAINER: ns from its start row to its end row
life() {
	awk -F'\t' -v c="$2" '$2 == c && $8 == "start" { s = $1 } $2 == c && $8 == "end" { e = $1 }
		END { if (s && e) printf "%.0f\n", e - s; else print -1 }' "$1"
}
has() { grep -qF -- "$2" "$TMP/$1.err" || fail "$1: stderr lacks '$2': $(cat "$TMP/$1.err")"; }

# -d: the whole run's limit
run_coll d --runs 2 -d 3 --until listen -- sleep 1000
[ "$rc" = 124 ] || fail "-d 3 on a server that never listens: exit $rc, not 124: $(cat "$TMP/d.err")"
check_tsv "$TMP/d.tsv"
has d "collector: sleep-1 did not reach listen before -d 3 s ran out: stopped"
has d "collector: -d 3 s ran out after 1 of 2 runs; never reached listen: sleep-1"
[ "$(rows "$TMP/d.tsv" start | wc -l)" = 1 ] || fail "-d: a second run started"
l=$(life "$TMP/d.tsv" sleep-1)
[ "$l" -ge 2900000000 ] || fail "-d 3: the boot was stopped after $l ns"
ok "-d 3 --runs 2 --until listen -- sleep 1000: stopped after $((l / 1000000)) ms, run 2 not started, 124, listen named"

# --timeout: each boot's
run_coll t --runs 2 --timeout 1 --until listen -- sleep 1000
[ "$rc" = 124 ] || fail "--timeout 1: exit $rc, not 124: $(cat "$TMP/t.err")"
check_tsv "$TMP/t.tsv"
for n in 1 2; do
	has t "collector: sleep-$n did not reach listen within --timeout 1 s: stopped"
	l=$(life "$TMP/t.tsv" "sleep-$n")
	[ "$l" -ge 950000000 ] || fail "--timeout 1: sleep-$n stopped after $l ns"
done
has t "collector: 2 of 2 boots never reached listen: sleep-1, sleep-2"
ok "--timeout 1 --runs 2: each boot stopped after its second, the next one went on, 124"

# A command that exits before its phase
run_coll early --until listen -- /bin/true
[ "$rc" = 124 ] || fail "--until listen -- true: exit $rc, not 124"
has early "collector: true exited with status 0 before listen"
run_coll early2 --until listen -- /bin/false
[ "$rc" = 124 ] || fail "--until listen -- false: exit $rc, not 124"
has early2 "collector: false exited with status 1 before listen"
ok "a command that exits without listening: 124, its status and listen named"

# A phase the syscalls cannot see
for s in none bind,accept,xlisten; do
	rm -f "$TMP/s.tsv"
	run_coll s -s "$s" --until listen -- "${SERVER[@]}"
	[ "$rc" = 2 ] || fail "-s $s --until listen: exit $rc, not 2"
	has s "--until listen waits for a listen row, and -s $s traces no listen"
	[ ! -e "$TMP/s.tsv" ] || fail "-s $s --until listen: a TSV was written"
done
run_coll s -s bind,listen --until listen -- "${SERVER[@]}"
[ "$rc" = 0 ] || fail "-s bind,listen --until listen: exit $rc: $(cat "$TMP/s.err")"
[ "$(rows "$TMP/s.tsv" syscall listen | wc -l)" = 1 ] || fail "-s bind,listen: no listen row"
ok "--until listen with -s none or without listen in the list: exit 2 at once, no TSV"

# A clean run says nothing: not its own SIGTERM's 143
for n in 1 3; do
	run_coll clean --runs $n --until listen -- "${SERVER[@]}"
	[ "$rc" = 0 ] || fail "clean --runs $n: exit $rc: $(cat "$TMP/clean.err")"
	[ -z "$(without_kernel_notes "$TMP/clean.err")" ] || fail "clean --runs $n: stderr not empty: $(cat "$TMP/clean.err")"
	check_tsv "$TMP/clean.tsv"
	[ "$(rows "$TMP/clean.tsv" end | grep -c 'signal=TERM$')" = "$n" ] ||
		fail "clean --runs $n: the servers did not die of the collector's SIGTERM: $(rows "$TMP/clean.tsv" end)"
done
ok "clean --until listen runs (a server that dies of SIGTERM): exit 0, stderr empty"

# SIGINT during --runs 5, once the third run's start row is out
"$COLL" --runs 5 --name s -o "$TMP/int.tsv" -- sleep 1.5 2> "$TMP/int.err" &
pid=$!
for _ in $(seq 400); do
	[ "$(rows "$TMP/int.tsv" start 2> /dev/null | wc -l)" -ge 3 ] && break
	sleep 0.05
done
[ "$(rows "$TMP/int.tsv" start | wc -l)" = 3 ] || fail "SIGINT: not 3 runs started before the signal"
kill -INT $pid
# a collector that ignored it is killed after 30 s (137); no watchdog
# subshell: it would leave its sleep behind, or run lib.sh's EXIT trap
# (bash may have reaped it already: then /proc has no entry)
for _ in $(seq 600); do
	st=$(awk '{ print $3 }' "/proc/$pid/stat" 2> /dev/null)
	[ -z "$st" ] || [ "$st" = Z ] && break
	sleep 0.05
done
st=$(awk '{ print $3 }' "/proc/$pid/stat" 2> /dev/null)
[ -z "$st" ] || [ "$st" = Z ] || kill -KILL $pid 2> /dev/null
wait $pid
rc=$?
[ "$rc" = 130 ] || fail "SIGINT during --runs 5: exit $rc, not 130: $(cat "$TMP/int.err")"
has int "collector: interrupted after 2 of 5 runs"
check_tsv "$TMP/int.tsv"
if [ "$(rows "$TMP/int.tsv" start | wc -l)" != 3 ] || [ "$(rows "$TMP/int.tsv" end | wc -l)" != 3 ]; then
	fail "SIGINT: not 3 start and 3 end rows: $(rows "$TMP/int.tsv" start | cut -f2 | tr '\n' ' ')"
fi
ok "SIGINT during run 3 of 5: 130, 'interrupted after 2 of 5 runs', the trailer, no run 4"

# One word for the last exit, in both tools
run_coll end --until end -- /bin/sh -c 'exit 3'
[ "$rc" = 3 ] || fail "--until end: exit $rc, not the command's 3"
run_coll exit --until exit -- /bin/sh -c 'exit 3'
[ "$rc" = 3 ] || fail "--until exit: exit $rc, not the command's 3"
has end "collector: sh exited with status 3"
has exit "collector: sh exited with status 3"
grep -q '^# until=' "$TMP/end.tsv" "$TMP/exit.tsv" && fail "--until end or exit wrote a # until= line"
for f in syscall state; do
	"$ANALYZE" --by $f --until end "$TMP/clean.tsv" > "$TMP/a.end" 2>&1 || fail "analyze --until end: $(cat "$TMP/a.end")"
	"$ANALYZE" --by $f --until exit "$TMP/clean.tsv" > "$TMP/a.exit" 2>&1 || fail "analyze --until exit: $(cat "$TMP/a.exit")"
	cmp -s "$TMP/a.end" "$TMP/a.exit" || fail "analyze --by $f: --until end and exit differ"
	grep -q "window" "$TMP/a.end" || fail "analyze --by $f --until end: no window said: $(head -3 "$TMP/a.end")"
done
"$ANALYZE" --critical-path=end "$TMP/clean.tsv" > "$TMP/c.end" 2>&1 || fail "--critical-path=end failed"
"$ANALYZE" --critical-path=exit "$TMP/clean.tsv" > "$TMP/c.exit" 2>&1 || fail "--critical-path=exit failed"
cmp -s "$TMP/c.end" "$TMP/c.exit" || fail "--critical-path=end and =exit differ"
grep -q "end" "$TMP/c.end" || fail "--critical-path=end does not name end: $(head -3 "$TMP/c.end")"
"$ANALYZE" --until nosuch "$TMP/clean.tsv" 2> "$TMP/a.err" && fail "--until nosuch passed"
grep -q "phases: exec, listen, end)" "$TMP/a.err" || fail "the phases listed lack end: $(cat "$TMP/a.err")"
ok "--until end and exit: the same in the collector (status 3 passed on) and in analyze (--until, --critical-path)"

# A truncated file names the way out
head -c -1 "$TMP/clean.tsv" > "$TMP/cut.tsv"
n=$(wc -l < "$TMP/cut.tsv")
"$ANALYZE" "$TMP/cut.tsv" > /dev/null 2> "$TMP/cut.err" && fail "a truncated file passed"
grep -qxF "analyze: $TMP/cut.tsv:$((n + 1)): truncated line (no newline at end of file); --lenient skips and counts such lines" \
	"$TMP/cut.err" || fail "truncated: $(cat "$TMP/cut.err")"
"$ANALYZE" --lenient "$TMP/cut.tsv" > /dev/null 2> "$TMP/cut.err" || fail "--lenient on the truncated file: $(cat "$TMP/cut.err")"
grep -q "skipped 1 malformed rows" "$TMP/cut.err" || fail "--lenient: $(cat "$TMP/cut.err")"
ok "a truncated file: exit 2, FILE:LINE and --lenient named; --lenient reads it"

# getopt's own errors name the program
"$COLL" --no-such 2> "$TMP/g.err"
grep -qx "collector: unrecognized option '--no-such'" "$TMP/g.err" || fail "collector's getopt: $(cat "$TMP/g.err")"
"$COLL" -o 2> "$TMP/g.err"
grep -qx "collector: option requires an argument -- 'o'" "$TMP/g.err" || fail "collector's getopt: $(cat "$TMP/g.err")"
"$(realpath "$ANALYZE")" --no-such 2> "$TMP/g.err"
grep -qx "analyze: unrecognized option '--no-such'" "$TMP/g.err" || fail "analyze's getopt: $(cat "$TMP/g.err")"
ok "getopt's errors begin with the program's name, not its path"

# Client mode: a container that never listens, one that ends first
make_cgparent
rel=${CGPARENT#"$(cgroup2_mount)"}
run_coll ct -c "$rel/*" --timeout 1 --until listen -- \
	/bin/sh -c 'd=$0/c-$$; mkdir "$d" && echo $$ > "$d/cgroup.procs" && exec sleep 100' "$CGPARENT"
[ "$rc" = 124 ] || fail "client, --timeout 1: exit $rc: $(cat "$TMP/ct.err")"
grep -Eq "^collector: run 1 \(c-[0-9]+\) did not reach listen within --timeout 1 s: stopped$" "$TMP/ct.err" ||
	fail "client, --timeout: $(cat "$TMP/ct.err")"
check_tsv "$TMP/ct.tsv"
run_coll ce -c "$rel/*" --until listen -- \
	/bin/sh -c 'd=$0/c-$$; mkdir "$d" && echo $$ > "$d/cgroup.procs" && exec true' "$CGPARENT"
[ "$rc" = 124 ] || fail "client, an early end: exit $rc: $(cat "$TMP/ce.err")"
grep -Eq "^collector: run 1 \(c-[0-9]+\) ended before listen \(sh exited with status 0\)$" "$TMP/ce.err" ||
	fail "client, an early end: $(cat "$TMP/ce.err")"
ok "client mode: a container stopped by --timeout, one that ended before listen: 124, each named"
