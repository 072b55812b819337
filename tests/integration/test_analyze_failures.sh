#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Boots that go wrong (issue 30), on known truths of tests/tools/crasher in
# spawn mode:
# - it burns 300 ms of CPU in crasher_burn(), then exits 3 without
#   listening: the end row says exit=3, analyze says "exited 3",
#   --critical-path=end spans its life (its segments sum to start -> its
#   exit), --profile --until end names crasher_burn first with >= 200 ms,
#   --by state (its window: its life), --by syscall, --plot (the boot chart)
#   and trace-event (--critical-path=end) go to its end;
# - it sleeps in pause() until a /bin/kill of the test sends it SIGTERM: the
#   end row says signal=TERM, --failures names SIGTERM and that kill's pid
#   and comm as the sender (the waker of the init's last sleep); with
#   --sched host, its exec of /bin/kill and its parent, the test's shell;
# - it connects to a closed port 12 times, opens a missing file, exits 1:
#   --failures shows `connect ECONNREFUSED 127.0.0.1:PORT × 12` and
#   `openat ENOENT /nonexistent/config.yml × 1`, in text, tsv and json;
# - collector --until exec writes # until=exec, analyze's default window;
#   --until none is the whole trace.
# With the legacy object (no profile rows, and wake=unknown: the task
# current at the wake), the same but the profile, and the sender is named
# as the task current at the wake.
# modes: cgroup legacy
. "$(dirname "$0")/lib.sh"
need_root
have python3 "the json check" || skip "needs python3"

C=$TOOLS/crasher

# 1. 300 ms of its own CPU, then exit 3
out=$TMP/burn.tsv
prof=--profile=199
[ "$BT_MODE" = legacy ] && prof=--sched=on	# the legacy object has no sampling program
"$COLLECTOR" "$prof" -o "$out" -- "$C" burn 300 3 2>/dev/null
rc=$?
[ "$rc" = 3 ] || fail "collector exited $rc, not the command's 3"
check_tsv "$out"
rows "$out" end | awk -F'\t' '{ print $12 }' | grep -Eq '^init=[0-9]+ exit=3$' ||
	fail "end row: $(rows "$out" end)"
"$ANALYZE" "$out" > "$TMP/table" || fail "analyze exited $?"
grep -Eq '^  crasher: exited 3 after [0-9.]+m?s$' "$TMP/table" || fail "no 'exited 3': $(cat "$TMP/table")"
"$ANALYZE" --format json "$out" | python3 -c '
import json, sys
p = [p for p in json.load(sys.stdin)["phases"] if p["phase"] == "listen"][0]
assert p["never_reached"][0]["end"] == "exit" and p["never_reached"][0]["status"] == 3, p
' || fail "json: listen's never_reached"
ok "it exited 3, and analyze says so (text, json)"

"$ANALYZE" --failures --format tsv "$out" > "$TMP/f.tsv" || fail "--failures exited $?"
life=$(awk -F'\t' '$2 == "end" { print $6 }' "$TMP/f.tsv")
start=$(rows "$out" start | awk -F'\t' '{ print $1; exit }')
exit_ts=$(rows "$out" exit | awk -F'\t' '{ t = $1 } END { print t }')
[ "$life" = $((exit_ts - start)) ] || fail "lifetime $life, the exit row is $((exit_ts - start)) after start"
"$ANALYZE" --critical-path=end --format tsv "$out" > "$TMP/path.tsv" 2>/dev/null ||
	fail "--critical-path=end exited $?"
sum=$(awk -F'\t' 'NR > 1 && $2 == "end" { s += $8 } END { print s + 0 }' "$TMP/path.tsv")
[ "$sum" = "$life" ] || fail "the path to end sums to $sum ns, its life is $life"
ok "--critical-path=end spans its life ($life ns)"

if [ "$BT_MODE" != legacy ]; then
	"$ANALYZE" --profile --until end --format tsv "$out" > "$TMP/prof.tsv" || fail "--profile exited $?"
	top=$(awk -F'\t' 'NR > 1 && $1 == "crasher" { print $3; exit }' "$TMP/prof.tsv")
	[ "$top" = crasher_burn ] || fail "the top function is $top: $(head -5 "$TMP/prof.tsv")"
	self=$(awk -F'\t' 'NR > 1 && $1 == "crasher" && $3 == "crasher_burn" { print $5; exit }' "$TMP/prof.tsv")
	# 199 Hz: 5.03 ms a sample; 300 ms is 60 samples, >= 40 is >= 200 ms
	[ "${self:-0}" -ge 40 ] || fail "crasher_burn has $self samples, under 200 ms"
	ok "--profile --until end: crasher_burn, $self samples"
fi
# the other analyses that take a window
win=$("$ANALYZE" --by state --until end --format tsv "$out" | awk -F'\t' '$1 == "crasher" { print $7 }')
[ "$win" = "$life" ] || fail "--by state --until end: window $win, its life is $life"
"$ANALYZE" --by syscall --until end "$out" | grep -q '^boot windows: start -> end of 1 container' ||
	fail "--by syscall --until end: $("$ANALYZE" --by syscall --until end "$out")"
"$ANALYZE" --plot "$TMP/plot" --until end "$out" > /dev/null 2>&1 || fail "--plot --until end exited $?"
grep -q "^set title 'Boot chart of crasher: start to end " "$TMP/plot/bootchart.gp" ||
	fail "the boot chart does not go to end: $(grep title "$TMP/plot/bootchart.gp")"
"$ANALYZE" --format trace-event --critical-path=end "$out" | python3 -c '
import json, sys
ev = json.load(sys.stdin)["traceEvents"]
assert any(e.get("cat") == "critical_path" for e in ev), "no critical_path slices"
' || fail "trace-event --critical-path=end"
ok "--by state, --by syscall, --plot, trace-event: to end"

# 2. killed by SIGTERM from a task of the test
# killed [COLLECTOR-OPTION...]: crasher wait, killed by /bin/kill (its pid in
# $TMP/killer), traced into $TMP/kill.tsv
killed() {
	rm -f "$TMP/pid"
	"$COLLECTOR" "$@" -o "$TMP/kill.tsv" -- "$C" wait "$TMP/pid" 2>/dev/null &
	col=$!
	for _ in $(seq 100); do [ -s "$TMP/pid" ] && break; sleep 0.05; done
	[ -s "$TMP/pid" ] || fail "crasher wrote no pid"
	sleep 0.2	# into pause()
	bash -c 'echo $$ > "$1"; exec /bin/kill -TERM "$2"' sh "$TMP/killer" "$(cat "$TMP/pid")"
	wait "$col"
	rc=$?
	[ "$rc" = 143 ] || fail "collector exited $rc, not 128 + SIGTERM"
}
killed
rows "$TMP/kill.tsv" end | awk -F'\t' '{ print $12 }' | grep -Eq '^init=[0-9]+ signal=TERM$' ||
	fail "end row: $(rows "$TMP/kill.tsv" end)"
"$ANALYZE" --failures "$TMP/kill.tsv" > "$TMP/kill.txt" || fail "--failures exited $?"
grep -q 'killed by SIGTERM' "$TMP/kill.txt" || fail "no SIGTERM: $(cat "$TMP/kill.txt")"
want="by $(cat "$TMP/killer") kill: its sender"
[ "$BT_MODE" = legacy ] && want="while $(cat "$TMP/killer") kill was current"
grep -q "$want" "$TMP/kill.txt" ||
	fail "the sender $(cat "$TMP/killer") kill is not named: $(cat "$TMP/kill.txt")"
ok "SIGTERM, sent by $(cat "$TMP/killer") kill"
if [ "$BT_MODE" != legacy ]; then
	# host rows (--sched host) say what the sender outside the container ran
	killed --sched host
	"$ANALYZE" --failures "$TMP/kill.tsv" > "$TMP/kill.txt" || fail "--failures exited $?"
	grep -q "(outside the container: process $(cat "$TMP/killer"), exec of /bin/kill, child of $$ " \
		"$TMP/kill.txt" || fail "--sched host: the sender's exec and parent: $(cat "$TMP/kill.txt")"
	ok "--sched host: the sender ran /bin/kill, a child of the test ($$)"
fi

# 3. 12 refused connections, a missing file, exit 1
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$COLLECTOR" -o "$TMP/conn.tsv" -- "$C" connect "$port" 12 2>/dev/null
"$ANALYZE" --failures "$TMP/conn.tsv" > "$TMP/conn.txt" || fail "--failures exited $?"
grep -q "^    connect ECONNREFUSED 127.0.0.1:$port × 12 " "$TMP/conn.txt" ||
	fail "no connect × 12: $(cat "$TMP/conn.txt")"
grep -q "^    openat ENOENT /nonexistent/config.yml × 1 " "$TMP/conn.txt" ||
	fail "no openat ENOENT: $(cat "$TMP/conn.txt")"
grep -q 'exited 1 after' "$TMP/conn.txt" || fail "no exit 1: $(cat "$TMP/conn.txt")"
"$ANALYZE" --failures --format tsv "$TMP/conn.tsv" |
	grep -q "^crasher	syscall	connect	ECONNREFUSED	12	[0-9]*	127.0.0.1:$port$" ||
	fail "tsv: $("$ANALYZE" --failures --format tsv "$TMP/conn.tsv")"
"$ANALYZE" --failures --format json "$TMP/conn.tsv" | python3 -c '
import json, sys
b = json.load(sys.stdin)["boots"][0]
g = [x for x in b["failed_syscalls"] if x["syscall"] == "connect"][0]
assert b["end"] == "exit" and b["status"] == 1, b
assert g["error"] == "ECONNREFUSED" and g["count"] == 12 and g["detail"] == "127.0.0.1:" + sys.argv[1], g
' "$port" || fail "json"
ok "connect ECONNREFUSED 127.0.0.1:$port × 12, in text, tsv and json"

# 4. # until=exec: analyze's default window
"$COLLECTOR" --until exec -o "$TMP/ex.tsv" -- "$C" burn 100 0 2>/dev/null
grep -qx '# until=exec' "$TMP/ex.tsv" || fail "no # until=exec"
"$ANALYZE" --by syscall "$TMP/ex.tsv" | grep -q '^boot windows: start -> exec of 1 container' ||
	fail "the default window is not exec: $("$ANALYZE" --by syscall "$TMP/ex.tsv")"
"$ANALYZE" --by syscall --until none "$TMP/ex.tsv" | grep -q '^syscall time over the whole trace' ||
	fail "--until none is not the whole trace"
ok "# until=exec is the default window; --until none the whole trace"
