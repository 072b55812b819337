#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --pid: an existing process tree, traced until it ends, in both modes; and
# cgroup mode refuses a process in the cgroup v2 root, naming pidtree.
# modes: cgroup compat pidtree legacy
. "$(dirname "$0")/lib.sh"
need_root
make_cgparent
mkdir "$CGPARENT/app" || fail "mkdir"

# the tree: a shell in its own cgroup that forks a child, then both work
sh -c "echo \$\$ > $CGPARENT/app/cgroup.procs; sleep 0.5; $TOOLS/getppid_loop 1111 & exec $TOOLS/getppid_loop 2222 0.1" & p=$!
sleep 0.1
"$COLLECTOR" --pid $p -o "$TMP/a.tsv" || fail "collector --pid exited $?"
wait $p
check_tsv "$TMP/a.tsv"
rows "$TMP/a.tsv" start attach | awk -F'\t' -v p=$p '$4 != p { exit 1 }' || fail "no start row for pid $p"
n=$(rows "$TMP/a.tsv" syscall getppid | wc -l)
[ "$n" -eq 3333 ] || fail "--pid: $n getppid rows, not 1111 + 2222"
[ "$(rows "$TMP/a.tsv" end | wc -l)" -eq 1 ] || fail "--pid: no end row"
ok "--pid: the tree's 3333 getppid rows, then the end"

if [ "$BT_MODE" = cgroup ]; then
	"$OUTPUT/collector" --mode cgroup --pid $$ -o /dev/null 2> "$TMP/err"
	rc=$?
	[ $rc -eq 1 ] || fail "--mode cgroup on a process in the v2 root: exit $rc, not 1"
	grep -q 'cgroup v2 root.*--mode pidtree' "$TMP/err" || fail "refusal does not name pidtree: $(cat "$TMP/err")"
	sleep 0.3 & q=$!
	"$OUTPUT/collector" --pid $q -o "$TMP/auto.tsv" || fail "auto --pid exited $?"
	grep -q '^# mode=pidtree$' "$TMP/auto.tsv" || fail "auto mode did not pick pidtree for a process in the v2 root"
	ok "cgroup mode refuses the v2 root; auto picks pidtree"
fi
