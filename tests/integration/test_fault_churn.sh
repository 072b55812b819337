#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Fast churn (issue 30, item 3): 1,000 short containers, one after another,
# through one watching collector: each made, entered by one short process
# (its own shell, then /bin/true) and gone before the next. In cgroup mode
# each is a cgroup made, entered and removed; in pidtree mode, a process
# that unshares a pid namespace (`unshare --pid --fork`). Every container
# gets exactly one start and one end row, its end after its start, and
# --metrics' boottrace_containers_running is back to 0 when they are gone.
# The compat object lost 22 to 46 of 400 end rows here: a short cgroup's
# rmdir, read from one CPU's ring a pass before its mkdir from another's,
# went first (collector/kernel/reorder.h).
# CHURN_CONTAINERS=N changes the count.
# modes: cgroup compat pidtree legacy
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/metrics.sh"
need_root
N=${CHURN_CONTAINERS:-1000}
out=$TMP/churn.tsv
if cgroup_mode; then
	make_cgparent
	cg2=$(cgroup2_mount)
	rel=${CGPARENT#"$cg2"}
	set -- --cgroup "$rel/*"
else
	# its own name, so that namespaces other programs make are not its
	cp "$(command -v unshare)" "$TMP/btchurn" || fail "no unshare"
	set -- --root-exec btchurn
fi
"$COLLECTOR" "$@" --metrics 0 -o "$out" 2> "$TMP/err" & col=$!
cleanup_hooks+=("kill -KILL $col 2>/dev/null")
for _ in $(seq 200); do grep -q '^ts_ns' "$out" 2>/dev/null && break; sleep 0.025; done
grep -q '^ts_ns' "$out" || fail "collector did not start: $(cat "$TMP/err")"
addr=$(metrics_addr "$TMP/err")

t0=$(date +%s)
for i in $(seq "$N"); do
	if cgroup_mode; then
		mkdir "$CGPARENT/c$i" || fail "mkdir c$i"
		sh -c "echo \$\$ > $CGPARENT/c$i/cgroup.procs && exec /bin/true" || fail "c$i did not run"
		rmdir "$CGPARENT/c$i" || fail "rmdir c$i"
	else
		"$TMP/btchurn" --pid --fork /bin/true || fail "unshare did not run ($i)"
	fi
done
t1=$(date +%s)

# the last end rows come within a pass or two of the last removal
running=
for _ in $(seq 100); do
	running=$(scrape "$addr" | awk '$1 ~ /^boottrace_containers_running[{ ]/ || $1 == "boottrace_containers_running" { s += $2 } END { print s + 0 }')
	[ "$running" = 0 ] && break
	sleep 0.05
done
kill -INT $col; wait $col || fail "collector exited $? on SIGINT: $(cat "$TMP/err")"
check_tsv "$out"

bad=$(awk -F'\t' '
	/^#/ || $1 == "ts_ns" { next }
	$8 == "start" { ns[$2]++; ts[$2] = $1 }
	$8 == "end" { ne[$2]++; te[$2] = $1 }
	END {
		for (c in ns) {
			n++
			if (ns[c] != 1 || ne[c] != 1) { printf "%s: %d start rows, %d end rows; ", c, ns[c], ne[c]; b++ }
			else if (ts[c] + 0 >= te[c] + 0) { printf "%s: end not after start; ", c; b++ }
			if (b >= 5) exit
		}
		for (c in ne) if (!(c in ns)) { printf "%s: an end row without a start; ", c; exit }
	}' "$out")
[ -z "$bad" ] || fail "$bad"
starts=$(rows "$out" start | wc -l) ends=$(rows "$out" end | wc -l)
lost=$(sed -n 's/^# lost=\([0-9]*\).*/\1/p' "$out")
[ "$starts" -eq "$N" ] && [ "$ends" -eq "$N" ] ||
	fail "$N containers gave $starts start rows and $ends end rows (lost=$lost)"
[ "$running" = 0 ] || fail "boottrace_containers_running is $running after all $N ended"
ok "$N containers in $((t1 - t0)) s: $starts start rows, $ends end rows, containers_running 0"
