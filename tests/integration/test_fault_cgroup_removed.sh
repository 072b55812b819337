#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Containers whose cgroup is removed while they are traced (watch mode): the
# test makes a cgroup, runs a process in it, kills it (SIGKILL, cgroup.kill,
# or lets it exit), removes the cgroup: an `end` row for that container
# appears while the collector runs, after its start, exactly once, and the
# collector keeps running and keeps tracing the containers that come after.
# Also a burst of 50 cgroups made and removed at once with nothing in them
# (never containers), and a container with a sub-cgroup removed bottom-up
# (--cgroup matches the container, its task is in the sub-cgroup).
# modes: cgroup compat
. "$(dirname "$0")/lib.sh"
need_root
make_cgparent
cg2=$(cgroup2_mount)
rel=${CGPARENT#"$cg2"}
out=$TMP/w.tsv

"$COLLECTOR" --cgroup "$rel/*" -o "$out" 2> "$TMP/err" & col=$!
cleanup_hooks+=("kill -KILL $col 2>/dev/null")
for _ in $(seq 200); do grep -q '^ts_ns' "$out" 2>/dev/null && break; sleep 0.025; done
grep -q '^ts_ns' "$out" || fail "collector did not start: $(cat "$TMP/err")"

alive() { kill -0 $col 2>/dev/null || fail "collector exited after $1: $(cat "$TMP/err")"; }
# wait_row EVENT CONTAINER: until the collector has written that row (5 s)
wait_row() {
	local _
	for _ in $(seq 250); do
		rows "$out" "$1" | awk -F'\t' -v c="$2" '$2 == c { f = 1 } END { exit !f }' && return 0
		sleep 0.02
	done
	fail "no $1 row for $2 within 5 s of its cgroup's removal (collector running: $(kill -0 $col 2>/dev/null && echo yes || echo no))"
}
rmdir_wait() { local _; for _ in $(seq 250); do rmdir "$1" 2>/dev/null && return 0; sleep 0.02; done; fail "cannot rmdir $1"; }
# start NAME CMD: a process in a new cgroup NAME, in the background ($!)
start() {
	mkdir "$CGPARENT/$1" || fail "mkdir $1"
	sh -c "echo \$\$ > $CGPARENT/$1/cgroup.procs && exec $2" &
}

# 1. a process killed by SIGKILL, then its cgroup removed
start k1 "$TOOLS/getppid_loop 100 30"; p=$!
sleep 0.2; kill -KILL $p; wait $p 2>/dev/null
rmdir_wait "$CGPARENT/k1"
wait_row end k1; alive "k1's removal"

# 2. a busy process killed through cgroup.kill
start k2 "sh -c 'while :; do $TOOLS/getppid_loop 500; done'"; p=$!
sleep 0.3; echo 1 > "$CGPARENT/k2/cgroup.kill"; wait $p 2>/dev/null
rmdir_wait "$CGPARENT/k2"
wait_row end k2; alive "k2's removal"

# 3. a process that exits by itself
start k3 "$TOOLS/getppid_loop 1000"; p=$!
wait $p
rmdir_wait "$CGPARENT/k3"
wait_row end k3; alive "k3's removal"

# 4. a container with a sub-cgroup (as systemd and runc make), removed bottom-up
mkdir "$CGPARENT/k4" "$CGPARENT/k4/inner" || fail "mkdir k4/inner"
sh -c "echo \$\$ > $CGPARENT/k4/inner/cgroup.procs && exec $TOOLS/getppid_loop 200 30" & p=$!
sleep 0.2; kill -KILL $p; wait $p 2>/dev/null
rmdir_wait "$CGPARENT/k4/inner"
rmdir_wait "$CGPARENT/k4"
wait_row end k4; alive "k4's removal"

# 5. 50 empty cgroups made and removed at once: no task entered them, so
# they never were containers (no start, no end row)
for i in $(seq 50); do mkdir "$CGPARENT/q$i" || fail "mkdir q$i"; done
for i in $(seq 50); do rmdir "$CGPARENT/q$i" || fail "rmdir q$i"; done
alive "50 removals"

# the collector goes on: a container after all that is traced in full
start after "$TOOLS/getppid_loop 777"; p=$!
wait $p
sleep 0.2
alive "everything"
kill -INT $col; wait $col || fail "collector exited $? on SIGINT: $(cat "$TMP/err")"
check_tsv "$out"

[ "$(rows "$out" syscall getppid | awk -F'\t' '$2 == "after"' | wc -l)" -eq 777 ] ||
	fail "the container after the removals has $(rows "$out" syscall getppid | awk -F'\t' '$2 == "after"' | wc -l) getppid rows, not 777"
# one start and one end each, the end after the start (one pass)
bad=$(awk -F'\t' -v want="k1 k2 k3 k4" '
	!/^#/ && $8 == "start" { ns[$2]++; ts[$2] = $1 }
	!/^#/ && $8 == "end" { ne[$2]++; te[$2] = $1 }
	END {
		n = split(want, w, " ")
		for (i = 1; i <= n; i++) {
			c = w[i]
			if (ns[c] != 1 || ne[c] != 1) { printf "%s: %d start rows, %d end rows; ", c, ns[c], ne[c]; continue }
			if (ts[c] + 0 >= te[c] + 0) printf "%s: end %s not after start %s; ", c, te[c], ts[c]
		}
	}' "$out")
[ -z "$bad" ] || fail "$bad"
rows "$out" start | awk -F'\t' '$2 ~ /^q[0-9]+$/ { exit 1 }' || fail "an empty cgroup was a container"
# nothing of a container after its end
awk -F'\t' '!/^#/ && $1 ~ /^[0-9]+$/ { if ($8 == "end") e[$2] = $1; else if ($2 in e && $1 > e[$2]) { print; exit 1 } }' "$out" ||
	fail "a row of a container after its end"
ok "cgroups removed while traced: one end row each, the collector goes on"
