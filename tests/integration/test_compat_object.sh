#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The compat object (bpf/boottrace_legacy.bpf.c built with -DBT_COMPAT)
# on this kernel, what the modes' runs of the other tests do not show:
# pidtree mode through backend_compat_open() (exact records, roots by
# namespace); in cgroup mode the parent of a task first met in a tracked
# cgroup (from /proc, as the object cannot read task_struct), a cgroup the
# container makes and moves into (nested: tracked at mkdir, as it was made
# by a traced task), and the way of kernels before 5.5, whose cgroup
# tracepoints carry no cgroup id (BOOTTRACE_COMPAT_NO_CGROUP_IDS=1): ids
# from the paths, nested and watched cgroups tracked when their mkdir is
# read, rmdir found by path.
. "$(dirname "$0")/lib.sh"
need_root
[ -e "$OUTPUT/boottrace_compat.bpf.o" ] || fail "the compat object is not built (make all)"

# --- pidtree mode -------------------------------------------------------------
"$TOOLS/legacy_pidtree" --compat tree 4000 1500 700 > "$TMP/tree" 2>&1 || fail "legacy_pidtree --compat tree: $(cat "$TMP/tree")"
grep -q '^ok - the compat object$' "$TMP/tree" || fail "not the compat object: $(cat "$TMP/tree")"
"$TOOLS/legacy_pidtree" --compat watch 2000 > "$TMP/watch" 2>&1 || fail "legacy_pidtree --compat watch: $(cat "$TMP/watch")"
ok "backend_compat_open, pidtree: a traced tree's records exact; roots by unshare, 2000 getppid each"

# --- cgroup mode ----------------------------------------------------------------
col() { "$COLLECTOR" --mode cgroup --object compat "$@"; }
cg2=$(cgroup2_mount)

# the spawned process was forked by the collector before it entered the
# cgroup: the kernel meets it there first, without its parent
col -o "$TMP/p.tsv" -- "$TOOLS/getppid_loop" 10 || fail "spawn: exit $?"
check_tsv "$TMP/p.tsv"
grep -q '^# bpf_object=compat$' "$TMP/p.tsv" || fail "spawn: not the compat object"
me=$(rows "$TMP/p.tsv" start spawn | cut -f4)
bad=$(rows "$TMP/p.tsv" syscall getppid | awk -F'\t' -v p="$me" '$6 != p')
[ -z "$bad" ] || fail "getppid rows whose ppid is not the collector ($me): $(echo "$bad" | head -2)"
rows "$TMP/p.tsv" exec | awk -F'\t' -v p="$me" '$6 != p { exit 1 }' || fail "exec row's ppid is not the collector ($me)"
ok "a task first met in its cgroup: its ppid, the collector ($me), from /proc on every row"

# nested (F: "" or "=1", without cgroup ids): the container makes a cgroup
# and moves into it; its rows are the container's, with the nested cgroup's id
nested() {
	local out=$TMP/n$1.tsv
	BOOTTRACE_COMPAT_NO_CGROUP_IDS=$1 col --name nest -v -o "$out" -- sh -c '
		d='"$cg2"'$(awk -F: "\$1 == 0 { print \$3 }" /proc/self/cgroup)/inner
		mkdir "$d" && sleep 0.3 && echo $$ > "$d/cgroup.procs" && exec '"$(realpath "$TOOLS/getppid_loop")"' 321' \
		2> "$TMP/n$1.err" || fail "nested$1: exit $?: $(grep -v '^libbpf' "$TMP/n$1.err")"
	check_tsv "$out"
	outer=$(rows "$out" start | cut -f3)
	inner=$(rows "$out" exec | awk -F'\t' '$12 ~ /getppid_loop$/ { print $3 }')
	[ -n "$inner" ] && [ "$inner" != "$outer" ] || fail "nested$1: getppid_loop's exec in cgroup '$inner', not a nested one of $outer"
	# (sh calls getppid too, in the outer cgroup)
	[ "$(rows "$out" syscall getppid | awk -F'\t' -v i="$inner" '$2 == "nest" && $3 == i' | wc -l)" -eq 321 ] ||
		fail "nested$1: not 321 getppid rows of the container in the nested cgroup"
}
nested 0
grep -q 'cgroup ids from the cgroup tracepoints' "$TMP/n0.err" || fail "-v does not say where cgroup ids come from"
nested 1
grep -q 'cgroup ids from the paths' "$TMP/n1.err" || fail "no ids: -v does not say so: $(grep -v '^libbpf' "$TMP/n1.err")"
ok "a cgroup the container makes: nested, its rows the container's; without cgroup ids too"

# watch mode without cgroup ids: containers found at their mkdir (read,
# not in the kernel), ended at their rmdir (found by path)
make_cgparent
rel=${CGPARENT#"$cg2"}
BOOTTRACE_COMPAT_NO_CGROUP_IDS=1 watch_start "$TMP/w.tsv" --mode cgroup --object compat --cgroup "$rel/*"
for name in alpha beta; do
	mkdir "$CGPARENT/$name" || fail "mkdir $name"
done
sleep 0.3	# the collector reads the mkdirs and tracks the cgroups (no ids in the kernel)
sh -c "echo \$\$ > $CGPARENT/alpha/cgroup.procs && exec $TOOLS/getppid_loop 1234" & a=$!
sh -c "echo \$\$ > $CGPARENT/beta/cgroup.procs && exec $TOOLS/getppid_loop 4321" & b=$!
"$TOOLS/getppid_loop" 555	# a stranger
wait $a $b
rmdir "$CGPARENT/alpha" "$CGPARENT/beta"
watch_stop "$TMP/w.tsv"
[ "$(rows "$TMP/w.tsv" start | cut -f2 | sort | tr '\n' ' ')" = "alpha beta " ] ||
	fail "watch without ids: start rows $(rows "$TMP/w.tsv" start | cut -f2 | tr '\n' ' ')"
for x in alpha:1234 beta:4321; do
	n=$(rows "$TMP/w.tsv" syscall getppid | awk -F'\t' -v c="${x%:*}" '$2 == c' | wc -l)
	[ "$n" -eq "${x#*:}" ] || fail "watch without ids: ${x%:*} has $n getppid rows, not ${x#*:}"
done
[ "$(rows "$TMP/w.tsv" end | wc -l)" -eq 2 ] || fail "watch without ids: not 2 end rows (rmdir by path)"
ok "watch without cgroup ids: alpha 1234, beta 4321, no stranger, both ended at rmdir"
