#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --start: the container's start is when the probe fired in the runtime
# thread it descends from. bootsvc --launch plays the runtime: it fires
# bootsvc_launch() (and USDT bootsvc:launch), forks, and the child execs the
# service. Spawn mode: the start row moves to the probe time (name=mark),
# before the service's exec, after the spawn; a probe that never fires
# leaves the spawn time, with a message. Watch mode (cgroup): the time is
# inherited across fork into the cgroup the runtime's child joins.
# modes: cgroup compat pidtree legacy
. "$(dirname "$0")/lib.sh"
need_root

B=$(realpath "$OUTPUT/samples/bootsvc")

for probe in "uprobe:$B:bootsvc_launch" "usdt:$B:bootsvc:launch"; do
	out=$TMP/start.tsv
	"$COLLECTOR" --start "$probe" --runs 2 --name st --until end -o "$out" -- \
		"$B" --launch -- "$B" --ticks-only 2> "$TMP/err" || fail "collector --start $probe exited $?: $(cat "$TMP/err")"
	check_tsv "$out"
	for run in st-1 st-2; do
		start=$(rows "$out" start | awk -F'\t' -v r=$run '$2 == r')
		[ "$(echo "$start" | grep -c .)" -eq 1 ] || fail "$run: not one start row: $start"
		echo "$start" | awk -F'\t' -v d="$probe" '$9 != "mark" || $12 != d || $7 != "bootsvc" { exit 1 }' ||
			fail "$run: start row not name=mark, detail $probe: $start"
		s=$(echo "$start" | cut -f1)
		# the launcher's exec comes first, then the probe, then the service's exec
		# (rows are in time order per CPU only: the legacy object's perf rings)
		execs=$(rows "$out" exec | awk -F'\t' -v r=$run '$2 == r { print $1 }' | sort -n)
		[ "$(echo "$execs" | wc -l)" -eq 2 ] || fail "$run: not 2 exec rows"
		e1=$(echo "$execs" | sed -n 1p); e2=$(echo "$execs" | sed -n 2p)
		[ "$e1" -lt "$s" ] && [ "$s" -lt "$e2" ] || fail "$run: not launcher exec $e1 < start $s < service exec $e2"
		# the spawn time is before the launcher's exec: the start moved
		[ "$s" -gt "$e1" ] || fail "$run: start $s is not later than the spawn"
	done
	grep -q 'never fired' "$TMP/err" && fail "a 'never fired' message though it fired"
	ok "--start $probe: start row at the probe, between the launcher's and the service's exec"
done

# without --start the same boot starts at the spawn, before every exec
"$COLLECTOR" --until end -o "$TMP/plain.tsv" -- "$B" --launch -- "$B" --ticks-only 2>/dev/null ||
	fail "collector without --start exited $?"
s=$(rows "$TMP/plain.tsv" start spawn | cut -f1); e=$(rows "$TMP/plain.tsv" exec | cut -f1 | sort -n | head -1)
[ -n "$s" ] && [ "$s" -lt "$e" ] || fail "without --start the start is not the spawn before the first exec"

# a --start probe that never fires: the spawn time, and a message
out=$TMP/never.tsv
"$COLLECTOR" --start "uprobe:$B:bootsvc_launch" --name nf -o "$out" -- "$B" --ticks-only 2> "$TMP/err" ||
	fail "collector exited $?"
check_tsv "$out"
rows "$out" start | awk -F'\t' '$9 != "spawn" || $2 != "nf" { exit 1 }' || fail "start row not the spawn: $(rows "$out" start)"
[ "$(rows "$out" start | wc -l)" -eq 1 ] || fail "not one start row"
s=$(rows "$out" start | cut -f1); e=$(rows "$out" exec | head -1 | cut -f1)
[ "$s" -lt "$e" ] || fail "spawn start $s not before exec $e"
grep -q "collector: nf: the --start probe uprobe:$B:bootsvc_launch never fired in it; its start row is the spawn time" \
	"$TMP/err" || fail "no message for a probe that never fired: $(cat "$TMP/err")"
ok "--start that never fires: spawn time, said on stderr"

# watch mode, cgroup: the runtime outside any container fires the probe,
# then makes the cgroup; its child joins it and carries the time in
if cgroup_mode; then
	make_cgparent
	rel=${CGPARENT#"$(cgroup2_mount)"}
	out=$TMP/watch.tsv
	"$COLLECTOR" --cgroup "$rel/*" --start "uprobe:$B:bootsvc_launch" -o "$out" 2> "$TMP/err" &
	cpid=$!
	cleanup_hooks+=("kill $cpid 2>/dev/null")
	for _ in $(seq 200); do grep -q '^ts_ns' "$out" 2>/dev/null && break; sleep 0.02; done
	sleep 0.2
	# a decoy: the probe fires in a task that joins no container
	"$B" --launch -- true
	"$B" --launch --cgroup "$CGPARENT/w1" -- "$B" --ticks-only || fail "launcher failed"
	for _ in $(seq 200); do [ -n "$(rows "$out" exec)" ] && break; sleep 0.02; done
	sleep 0.2
	kill -INT $cpid; wait $cpid
	check_tsv "$out"
	mk=$(rows "$out" start mkdir | awk -F'\t' '$2 == "w1" { print $1 }')
	mark=$(rows "$out" start mark | awk -F'\t' '$2 == "w1"')
	[ -n "$mk" ] || fail "no mkdir start row for w1"
	[ "$(echo "$mark" | grep -c .)" -eq 1 ] || fail "not one start row name=mark for w1: $mark"
	m=$(echo "$mark" | cut -f1)
	[ "$m" -lt "$mk" ] || fail "the probe time $m is not before the mkdir $mk"
	[ "$(rows "$out" start mark | wc -l)" -eq 1 ] || fail "a start row for the decoy"
	# the analyzer takes the earliest start row: the probe's
	"$ANALYZE" --format tsv "$out" > "$TMP/w.tsv" 2>/dev/null || fail "analyze exited $?"
	e=$(rows "$out" exec | awk -F'\t' '$2 == "w1" { print $1; exit }')
	awk -F'\t' -v want=$((e - m)) '$1 == "exec" && $2 == 1 && $3 == want { f = 1 } END { exit !f }' "$TMP/w.tsv" ||
		fail "exec phase not exec - probe time ($((e - m))): $(cat "$TMP/w.tsv")"
	ok "watch: the runtime's probe time inherited into the container's cgroup"
fi

# watch mode, pidtree: the runtime fires the probe, its child makes a new pid
# namespace (unshare --pid --fork), whose first process is the container:
# the time is inherited across both forks (legacy: the mark_starts map)
if [ "$BT_MODE" = pidtree ] || [ "$BT_MODE" = legacy ]; then
	out=$TMP/pwatch.tsv
	"$COLLECTOR" --start "uprobe:$B:bootsvc_launch" -o "$out" 2> "$TMP/err" &
	cpid=$!
	cleanup_hooks+=("kill $cpid 2>/dev/null")
	for _ in $(seq 200); do grep -q '^ts_ns' "$out" 2>/dev/null && break; sleep 0.02; done
	sleep 0.2
	# a decoy: the probe fires in a runtime that makes no container
	"$B" --launch -- true
	"$B" --launch -- unshare --pid --fork "$B" --ticks-only || fail "launcher failed"
	sleep 0.3
	kill -INT $cpid; wait $cpid || fail "collector exited $?: $(cat "$TMP/err")"
	check_tsv "$out"
	# strangers (other namespaces made on the host meanwhile) have no probe of ours
	mark=$(rows "$out" start mark)
	[ "$(echo "$mark" | grep -c .)" -eq 1 ] || fail "not one start row name=mark: $mark"
	echo "$mark" | awk -F'\t' -v d="uprobe:$B:bootsvc_launch" '$12 != d { exit 1 }' ||
		fail "start row detail not the probe: $mark"
	k=$(echo "$mark" | cut -f2); m=$(echo "$mark" | cut -f1)
	ns=$(rows "$out" start namespace | awk -F'\t' -v k="$k" '$2 == k { print $1 }')
	[ -n "$ns" ] || fail "the start mark's container $k has no namespace start row"
	[ "$m" -lt "$ns" ] || fail "the probe time $m is not before the namespace start $ns"
	e=$(rows "$out" exec | awk -F'\t' -v k="$k" '$2 == k && $12 == "'"$B"'" { print $1 }' | sort -n | head -1)
	[ -n "$e" ] || fail "no exec of bootsvc in $k"
	# the analyzer takes the earliest start row: the probe's
	"$ANALYZE" --format tsv --container "$k" --exec "$B" "$out" > "$TMP/pw.tsv" 2>/dev/null ||
		fail "analyze exited $?"
	awk -F'\t' -v want=$((e - m)) '$1 == "exec" && $2 == 1 && $3 == want { f = 1 } END { exit !f }' "$TMP/pw.tsv" ||
		fail "exec phase of $k not exec - probe time ($((e - m))): $(cat "$TMP/pw.tsv")"
	ok "pidtree watch: the runtime's probe time inherited into the pid namespace's container"
fi
