#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# A spawn-mode collector killed by SIGKILL cannot clean up: its
# boottrace.PID cgroup (and the container's under it) stays. The next
# collector run must leave no boottrace.* cgroup of a dead collector behind:
#   1. killed while the container runs, the container then ends by itself;
#   2. killed while the container runs, and it is still running when the
#      next collector starts (an orphan of a dead collector);
#   3. killed in the middle of --runs, with a sub-cgroup the command made.
# (cgroups of collectors that are alive, e.g. of tests running at the same
# time, are not counted.)
# modes: cgroup pidtree legacy
. "$(dirname "$0")/lib.sh"
need_root
cg2=$(cgroup2_mount)

# stale: boottrace.* cgroups whose collector is dead
stale() {
	local d pid
	for d in "$cg2"/boottrace.*; do
		[ -d "$d" ] || continue
		pid=${d##*/boottrace.}
		kill -0 "$pid" 2>/dev/null || echo "$d"
	done
}
kill_cgroup() { # kill_cgroup DIR: end its tasks, remove it and its parent
	local _
	[ -d "$1" ] || return 0
	echo 1 > "$1/cgroup.kill" 2>/dev/null
	for _ in $(seq 100); do rmdir "$1" 2>/dev/null && break; sleep 0.02; done
	rmdir "${1%/*}" 2>/dev/null
}
killed_collector() { # killed_collector SUBDIR ARGS...: start, wait for SUBDIR, SIGKILL; sets $k
	local sub=$1 _
	shift
	"$COLLECTOR" -o /dev/null "$@" 2>/dev/null & k=$!
	for _ in $(seq 200); do [ -d "$cg2/boottrace.$k/$sub" ] && break; sleep 0.025; done
	[ -d "$cg2/boottrace.$k/$sub" ] || fail "no cgroup $cg2/boottrace.$k/$sub"
	sleep 0.1
	kill -KILL $k; wait $k 2>/dev/null
	[ -d "$cg2/boottrace.$k" ] || fail "the killed collector's cgroup is gone already (test assumption)"
}
next_run() { # next_run WHAT: a collector run after the killed one leaves no stale cgroup
	"$COLLECTOR" -o "$TMP/next.tsv" -- /bin/true 2> "$TMP/next.err" || fail "$1: the next run exited $?: $(cat "$TMP/next.err")"
	check_tsv "$TMP/next.tsv"
	s=$(stale)
	[ -z "$s" ] || fail "$1: after the next run, still there: $s ($(for d in $s; do printf '%s: procs %s; ' "$d" "$(cat "$d"/*/cgroup.procs "$d"/cgroup.procs 2>/dev/null | tr '\n' ' ')"; done)) messages: $(cat "$TMP/next.err")"
	echo "   $1: next run's messages: $(tr '\n' ' ' < "$TMP/next.err")"
}

# 1.
killed_collector sleeper --name sleeper -- sleep 1
for _ in $(seq 100); do [ -z "$(cat "$cg2/boottrace.$k/sleeper/cgroup.procs" 2>/dev/null)" ] && break; sleep 0.05; done
next_run "killed, container ended by itself"
ok "killed collector, its container ended: the next run removes its cgroups"

# 2.
killed_collector orphan --name orphan -- sleep 60
orphan_dir=$cg2/boottrace.$k/orphan
# whatever the outcome, the test ends the orphan and removes its cgroups
cleanup_hooks+=("kill_cgroup $orphan_dir")
next_run "killed, container still running"
ok "killed collector, its container still running: the next run leaves no cgroup of it"

# 3. (in the first of the runs: a collector waits for a nested cgroup at the
# end of a run, see test_fault_spawn_exit.sh)
killed_collector r-1/inner --runs 3 --name r -- sh -c "mkdir \$(awk -F: '\$1 == 0 { print \"$cg2\" \$3 }' /proc/self/cgroup)/inner 2>/dev/null; sleep 1"
cleanup_hooks+=("rmdir $cg2/boottrace.$k/r-1/inner 2>/dev/null; kill_cgroup $cg2/boottrace.$k/r-1")
for _ in $(seq 100); do [ -z "$(cat "$cg2/boottrace.$k"/r-*/cgroup.procs 2>/dev/null)" ] && break; sleep 0.05; done
next_run "killed in --runs, with a sub-cgroup"
ok "killed in the middle of --runs with a nested cgroup: the next run removes them"
