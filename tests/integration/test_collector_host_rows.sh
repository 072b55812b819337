#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Host rows (docs/tsv-format.md, Host rows), known truths, in watch mode
# with --sched host: a process outside every container that a shell forks,
# which execs sleep 0.2 and exits, has its fork row (parent= the shell's
# thread), its exec row (the filename), one S row of 200 ms (+ a few) woken
# by the timer's interrupt and its exit row (status 0), all with container
# and cgroup_id \N; a sleeper that went to sleep before the collector
# started has its first row from the moment host rows began (the earliest
# sched row of the file), blocked until its timer (1.5 s after it slept);
# the collector's own process has none; no host row makes a container.
# A switch-in the kernel did not trace (6.18 misses one now and then; a
# CI run lost a host sleep's S row so): a host task has no syscall rows
# whose returns end the interval, its exit does (BOOTTRACE_TEST_SKIP_SWITCH_IN
# makes sleep's switch-ins after a sleep go unwritten): its S row, in=inferred,
# of 200 ms and more, ends where its exit row is.
# Without --sched host, watch mode writes none (# host_rows=off); the
# legacy and compat objects never do.
# modes: cgroup pidtree legacy compat
. "$(dirname "$0")/lib.sh"
need_root
ms=1000000
# the other tests' containers (a watch sees them all) are not this test's
none="/boottrace-host-rows-none.$$/*"

if perf_object; then
	watch_start "$TMP/w.tsv" --sched host -c "$none"
	sleep 0.1
	watch_stop "$TMP/w.tsv"
	grep -qx '# host_rows=off' "$TMP/w.tsv" || fail "the $BT_MODE object claims host rows"
	grep -q 'writes no host rows' "$TMP/w.tsv.err" || fail "--sched host: nothing said on stderr: $(cat "$TMP/w.tsv.err")"
	[ -z "$(awk -F'\t' '!/^#/ && NR > 1 && $2 == "\\N"' "$TMP/w.tsv")" ] || fail "host rows from the $BT_MODE object"
	ok "the $BT_MODE object: no host rows (# host_rows=off), said on stderr"
	exit 0
fi

sleep 1.5 & early=$!
t_early=$(date +%s%N)
sleep 0.3	# it sleeps before the collector starts
watch_start "$TMP/w.tsv" --sched host -c "$none"
sh -c 'sleep 0.2; exit 0' & sh=$!
wait $sh || fail "sh exited $?"
wait $early
watch_stop "$TMP/w.tsv"
grep -qx '# host_rows=all' "$TMP/w.tsv" || fail "no '# host_rows=all' line"
host() { awk -F'\t' -v p="$1" '!/^#/ && NR > 1 && $2 == "\\N" && $3 == "\\N" && $4 == p' "$TMP/w.tsv"; }

# the sleep sh forks (the shell execs it, or forks it: either way a process of its own)
p=$(awk -F'\t' -v s=$sh '!/^#/ && $2 == "\\N" && $8 == "fork" && $6 == s && $9 == "process" { print $4; exit }' "$TMP/w.tsv")
[ -n "$p" ] || p=$sh
fork=$(host "$p" | awk -F'\t' '$8 == "fork"')
[ "$(echo "$fork" | grep -c .)" -eq 1 ] || fail "not one fork row of $p: $fork"
[[ "$(echo "$fork" | cut -f12)" =~ ^parent=[0-9]+$ ]] || fail "the fork row's detail is not parent=TID: $fork"
host "$p" | awk -F'\t' '$8 == "exec" && $12 ~ /\/sleep$/ { f = 1 } END { exit !f }' ||
	fail "no exec row of sleep for $p: $(host "$p" | cut -f7-12)"
row=$(host "$p" | awk -F'\t' -v m=$ms '$8 == "sched" && $9 == "S" && $11 - $10 >= 200 * m')
[ "$(echo "$row" | grep -c .)" -eq 1 ] || fail "not one S row of >= 200 ms blocked for $p: $(host "$p" | cut -f8-12)"
IFS=$'\t' read -r _ _ _ _ _ _ _ _ _ ret dur detail <<< "$row"
[ $((dur - ret)) -le $((205 * ms)) ] || fail "the sleep blocked $((dur - ret)) ns: $row"
[[ "$detail" =~ ^wake=(irq|softirq)\  ]] || fail "the sleep's wake is not the timer's: $detail"
host "$p" | awk -F'\t' '$8 == "exit" && $10 == 0 { f = 1 } END { exit !f }' || fail "no exit row (0) for $p"
ok "a host process: fork (parent=), exec of sleep, S $(((dur - ret) / 1000)) us woken by ${detail%% *}, exit 0"

# the early sleeper: from the moment host rows began to its timer
first=$(awk -F'\t' '!/^#/ && NR > 1 && $8 == "sched" { if (m == "" || $1 < m) m = $1 } END { print m }' "$TMP/w.tsv")
row=$(host "$early" | awk -F'\t' '$8 == "sched"' | head -1)
IFS=$'\t' read -r ts _ _ _ _ _ _ _ name ret dur detail <<< "$row"
[ "$ts" = "$first" ] || fail "the early sleeper's first row is at $ts, not when host rows began ($first): $row"
[ "$name" = S ] && [[ "$detail" =~ ^wake=(irq|softirq)\  ]] || fail "the early sleeper's row: $row"
off=$(sed -n 's/^# realtime_offset_ns=//p' "$TMP/w.tsv")
late=$(((ts + dur - ret + off - t_early) / ms))
[ "$late" -ge 1450 ] && [ "$late" -le 1560 ] || fail "the early sleeper woke $late ms after it slept, not 1500: $row"
ok "a sleeper from before: its first row from when host rows began, woken $late ms after it slept"

[ -z "$(awk -F'\t' -v c=$watch_pid '!/^#/ && NR > 1 && $2 == "\\N" && $4 == c' "$TMP/w.tsv")" ] ||
	fail "rows of the collector's own process"
[ -z "$(rows "$TMP/w.tsv" start)" ] || fail "host rows made containers: $(rows "$TMP/w.tsv" start | cut -f2,9,12)"
awk -F'\t' '!/^#/ && NR > 1 && $2 == "\\N" && $8 !~ /^(fork|exec|exit|sched)$/ { exit 1 }' "$TMP/w.tsv" ||
	fail "a host row not fork, exec, exit or sched"
ok "none of the collector's own, no container made, only fork, exec, exit and sched rows"

# a switch-in not traced: the exit ends the interval
BOOTTRACE_TEST_SKIP_SWITCH_IN=sleep watch_start "$TMP/k.tsv" --sched host -c "$none"
sh -c 'sleep 0.2; exit 0' & sh=$!
wait $sh || fail "sh exited $?"
watch_stop "$TMP/k.tsv"
p=$(awk -F'\t' -v s=$sh '!/^#/ && $2 == "\\N" && $8 == "fork" && $6 == s && $9 == "process" { print $4; exit }' "$TMP/k.tsv")
[ -n "$p" ] || p=$sh
row=$(awk -F'\t' -v p="$p" -v m=$ms '!/^#/ && $2 == "\\N" && $4 == p && $8 == "sched" && $9 == "S" && $11 >= 200 * m' "$TMP/k.tsv")
[ "$(echo "$row" | grep -c .)" -eq 1 ] && [[ "$(echo "$row" | cut -f12)" =~ (^|\ )in=inferred(\ |$) ]] ||
	fail "a switch-in not traced: not one S row of >= 200 ms, in=inferred, for $p: $(awk -F'\t' -v p="$p" '$4 == p' "$TMP/k.tsv" | cut -f8-12)"
IFS=$'\t' read -r ts _ _ _ _ _ _ _ _ _ dur _ <<< "$row"
exit_ts=$(awk -F'\t' -v p="$p" '!/^#/ && $4 == p && $8 == "exit" { print $1 }' "$TMP/k.tsv")
[ "$((ts + dur))" = "$exit_ts" ] || fail "a switch-in not traced: the S row ends at $((ts + dur)), its exit row is at $exit_ts"
ok "a switch-in not traced: the S row of $((dur / 1000)) us (in=inferred) ends where the exit row is"

# --sched on in watch mode: none
watch_start "$TMP/n.tsv" -c "$none"
sh -c 'sleep 0.05'
watch_stop "$TMP/n.tsv"
grep -qx '# host_rows=off' "$TMP/n.tsv" || fail "watch mode --sched on: no '# host_rows=off' line"
[ -z "$(awk -F'\t' '!/^#/ && NR > 1 && $2 == "\\N"' "$TMP/n.tsv")" ] || fail "host rows without --sched host"
ok "watch mode, --sched on: no host rows"
