#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SIGINT and SIGTERM at random moments while a container is busy making
# syscalls (execs, forks, getppid storms): every time, the TSV is whole —
# version line, header, every line ends with LF and has 12 fields, the last
# line is "# lost=N events=M" with M the number of event rows — and in
# spawn mode no cgroup is left behind. Watch mode exits 0 (a signal is how
# a watch ends); spawn mode says "interrupted after 0 of 1 run" and, once
# the trailer is written, dies of the signal it caught (130, 143: the
# shell's convention, issue 36). Spawn mode in every mode (cgroup, pidtree, legacy);
# watch mode (containers made by mkdir) in cgroup mode. FAULT_SEED=N replays
# one sequence of delays; FAULT_ITERATIONS=N (default 6) per signal.
# modes: cgroup pidtree legacy
. "$(dirname "$0")/lib.sh"
need_root
seed=${FAULT_SEED:-$$}
RANDOM=$seed
echo "# FAULT_SEED=$seed"
ITER=${FAULT_ITERATIONS:-6}	# per signal and per mode of running
cg2=$(cgroup2_mount)

busy="while :; do $TOOLS/getppid_loop 3000; done"

wait_attached() { # wait_attached FILE PID: the header is written after attach
	local _
	for _ in $(seq 200); do
		grep -q '^ts_ns' "$1" 2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.025
	done
	return 1
}

# check_whole FILE WHAT: the frame of a TSV that was ended by a signal
check_whole() {
	local f=$1 what=$2 trailer m rows
	[ -s "$f" ] || fail "$what: empty output ($(ls -la "$f" 2>&1); TMP: $(ls "$TMP" 2>&1 | head -3); cgparent: $(ls "${CGPARENT:-/nonexistent}" 2>&1 | head -3))"
	[ "$(head -1 "$f")" = "# boottrace-tsv 1" ] || fail "$what: no version line"
	grep -q '^ts_ns	container	cgroup_id	pid	tid	ppid	comm	event	name	ret	dur_ns	detail$' "$f" ||
		fail "$what: no header line"
	[ "$(tail -c 1 "$f" | od -An -tx1 | tr -d ' ')" = 0a ] || fail "$what: the last line is cut (no LF)"
	"$TOOLS/tsv_fields" < "$f" || fail "$what: a row without 12 fields"
	trailer=$(tail -1 "$f")
	[[ "$trailer" =~ ^#\ lost=([0-9]+)\ events=([0-9]+)$ ]] || fail "$what: last line is not the trailer: $trailer"
	m=${BASH_REMATCH[2]}
	rows=$(awk '/^#/ { next } !h { h = 1; next } { n++ } END { print n + 0 }' "$f")
	[ "$m" -eq "$rows" ] || fail "$what: trailer says events=$m, the file has $rows rows"
	echo "   $what: $rows rows, $trailer"
}

# wait_exit PID: its exit status; when it has not exited in 20 s, it is
# killed and $hung set. (Not kill -0: it succeeds on a zombie. No watchdog
# subshell: one killed before it has reset its traps runs lib.sh's EXIT
# trap, which removes $TMP.)
wait_exit() {
	local _
	hung=
	for _ in $(seq 400); do
		[ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = Z ] && break
		[ -e "/proc/$1" ] || break
		sleep 0.05
	done
	if [ -e "/proc/$1" ] && [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ]; then
		hung=1
		kill -KILL "$1" 2>/dev/null
	fi
	wait "$1"
}

# delay_ms: a random moment, 0..800 ms, some of them right after attach
delay() {
	local ms=$((RANDOM % 5 == 0 ? RANDOM % 20 : RANDOM % 800))
	sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
	echo "$ms"
}

# --- spawn mode -------------------------------------------------------------
for sig in INT TERM; do
	for i in $(seq "$ITER"); do
		out=$TMP/spawn-$sig-$i.tsv
		"$COLLECTOR" -o "$out" --name busy -- sh -c "$busy" 2> "$TMP/err" & col=$!
		cleanup_hooks+=("kill -KILL $col 2>/dev/null")
		wait_attached "$out" $col || fail "spawn $sig #$i: collector did not start: $(cat "$TMP/err")"
		ms=$(delay)
		kill -$sig $col
		wait_exit $col; rc=$?
		[ -z "$hung" ] || fail "spawn SIG$sig #$i after ${ms}ms: collector hung (killed after 20 s)"
		# interrupted: 128 + the signal, said, whatever the container's status
		if [ "$sig" = INT ]; then want=130; else want=143; fi
		[ "$rc" = "$want" ] || fail "spawn SIG$sig #$i after ${ms}ms: exit $rc, not $want: $(cat "$TMP/err")"
		grep -qx "collector: interrupted after 0 of 1 run" "$TMP/err" ||
			fail "spawn SIG$sig #$i after ${ms}ms: not said: $(cat "$TMP/err")"
		check_whole "$out" "spawn SIG$sig #$i after ${ms}ms (exit $rc)"
		# the last row is the container's end (unless the signal came before
		# the container was started: then there is no row at all)
		last=$(grep -v '^#' "$out" | tail -1 | cut -f8)
		[ "$last" = end ] || [ "$last" = event ] ||
			fail "spawn SIG$sig #$i: the last row is not the container's end"
		# sh killed by the collector's SIGTERM, or by the SIGKILL 2 s later
		# when the SIGTERM came before sh could take it
		rows "$out" end | grep -q 'signal=KILL' &&
			echo "   (SIG$sig #$i: the container needed the SIGKILL: the collector's SIGTERM did not reach it)"
		[ -e "$cg2/boottrace.$col" ] && fail "spawn SIG$sig #$i: $cg2/boottrace.$col left behind"
		rm -f "$out"
	done
done
ok "spawn: SIGINT and SIGTERM x$ITER each at random moments: whole TSVs, no cgroup left"

# --- watch mode (cgroup mode: a container is a new cgroup directory) ---------
case $BT_MODE in pidtree | legacy) exit 0 ;; esac
make_cgparent
rel=${CGPARENT#"$cg2"}
for sig in INT TERM; do
	for i in $(seq "$ITER"); do
		out=$TMP/watch-$sig-$i.tsv
		"$COLLECTOR" --cgroup "$rel/*" -o "$out" 2> "$TMP/err" & col=$!
		cleanup_hooks+=("kill -KILL $col 2>/dev/null")
		wait_attached "$out" $col || fail "watch $sig #$i: collector did not start: $(cat "$TMP/err")"
		d=$CGPARENT/busy-$sig-$i
		mkdir "$d" || fail "mkdir $d"
		sh -c "echo \$\$ > $d/cgroup.procs && exec sh -c '$busy'" & ctr=$!
		# a container from its first task on (a cgroup no task entered is none)
		# (cgroup files say size 0: read it)
		for _ in $(seq 200); do grep -q . "$d/cgroup.procs" && break; sleep 0.005; done
		ms=$(delay)
		kill -$sig $col
		wait_exit $col; rc=$?
		echo 1 > "$d/cgroup.kill"; wait $ctr 2>/dev/null
		[ -z "$hung" ] || fail "watch SIG$sig #$i after ${ms}ms: collector hung (killed after 20 s)"
		[ $rc -eq 0 ] || fail "watch SIG$sig #$i after ${ms}ms: exit $rc, not 0: $(cat "$TMP/err")"
		check_whole "$out" "watch SIG$sig #$i after ${ms}ms"
		rows "$out" start | cut -f2 | grep -qx "busy-$sig-$i" ||
			fail "watch SIG$sig #$i: no start row for busy-$sig-$i"
		for _ in $(seq 100); do rmdir "$d" 2>/dev/null && break; sleep 0.02; done
		rm -f "$out"
	done
done
ok "watch: SIGINT and SIGTERM x$ITER each at random moments: whole TSVs, exit 0"
