#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Watch mode: containers a test makes by mkdir + cgroup.procs + exec are
# caught from their first syscall; two booting at once are never mixed;
# nothing outside them appears.
. "$(dirname "$0")/lib.sh"
need_root
make_cgparent
rel=${CGPARENT#$(cgroup2_mount)}

"$COLLECTOR" --cgroup "$rel/*" -o "$TMP/w.tsv" & col=$!
cleanup_hooks+=("kill $col 2>/dev/null")
# wait until attached: the header is written after attach
for _ in $(seq 100); do grep -q '^ts_ns' "$TMP/w.tsv" 2>/dev/null && break; sleep 0.05; done
grep -q '^ts_ns' "$TMP/w.tsv" || fail "collector did not start"

boot() { # boot NAME K: a container running getppid_loop K
	mkdir "$CGPARENT/$1" || exit 1
	sh -c "echo \$\$ > $CGPARENT/$1/cgroup.procs && exec $TOOLS/getppid_loop $2"
}
# a cgroup made, removed and made again under the same name is two boots
mkdir "$CGPARENT/again" && rmdir "$CGPARENT/again" && mkdir "$CGPARENT/again" || fail "mkdir again"
boot alpha 3000 & a=$!
boot beta 7000 & b=$!
"$TOOLS/getppid_loop" 4000 # a stranger, in no container
wait $a $b
sleep 0.2
kill -INT $col; wait $col || fail "collector exited $? on SIGINT"
check_tsv "$TMP/w.tsv"
[ "$(rows "$TMP/w.tsv" start | cut -f2 | sort | tr '\n' ' ')" = "again again#2 alpha beta " ] ||
	fail "start rows: $(rows "$TMP/w.tsv" start | cut -f2 | tr '\n' ' ')"
rows "$TMP/w.tsv" start | awk -F'\t' '$9 != "mkdir" { exit 1 }' || fail "start rows not by mkdir"
na=$(rows "$TMP/w.tsv" syscall getppid | awk -F'\t' '$2 == "alpha"' | wc -l)
nb=$(rows "$TMP/w.tsv" syscall getppid | awk -F'\t' '$2 == "beta"' | wc -l)
[ "$na" -eq 3000 ] || fail "alpha has $na getppid rows, not 3000"
[ "$nb" -eq 7000 ] || fail "beta has $nb getppid rows, not 7000"
# the first thing each container does is the shell writing cgroup.procs' exit, then exec
for c in alpha beta; do
	rows "$TMP/w.tsv" exec | awk -F'\t' -v c=$c '$2 == c' | cut -f12 | grep -q 'getppid_loop$' ||
		fail "$c: no exec of getppid_loop"
done
ok "watch: alpha 3000, beta 7000, no stranger"

# removing a container's cgroup ends it
rmdir "$CGPARENT/alpha" "$CGPARENT/beta" "$CGPARENT/again"
