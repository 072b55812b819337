#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Watch mode: containers a test makes by mkdir + cgroup.procs + exec are
# caught from their first syscall; two booting at once are never mixed;
# nothing outside them appears.
# modes: cgroup compat
. "$(dirname "$0")/lib.sh"
need_root
make_cgparent
rel=${CGPARENT#$(cgroup2_mount)}

watch_start "$TMP/w.tsv" --cgroup "$rel/*"

boot() { # boot NAME K: a container running getppid_loop K
	mkdir "$CGPARENT/$1" || exit 1
	sh -c "echo \$\$ > $CGPARENT/$1/cgroup.procs && exec $TOOLS/getppid_loop $2"
}
# a cgroup made, run in, removed and made again under the same name is two
# boots; one that no task enters is no container (as a runtime's parent)
for _ in 1 2; do
	boot again 1 || fail "boot again"
	rmdir "$CGPARENT/again" || fail "rmdir again"
done
mkdir "$CGPARENT/empty" || fail "mkdir empty"
boot alpha 3000 & a=$!
boot beta 7000 & b=$!
"$TOOLS/getppid_loop" 4000 # a stranger, in no container
wait $a $b
watch_stop "$TMP/w.tsv"
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
rmdir "$CGPARENT/alpha" "$CGPARENT/beta" "$CGPARENT/empty"

# Without --cgroup: a parent made during the watch that never holds a task
# is no container (a runtime's /docker, a --cgroup-parent); each cgroup a
# task enters is one, unless an ancestor is one already: the cgroups a
# container makes inside itself (systemd, docker-in-docker) stay in it.
watch_start "$TMP/p.tsv"
mkdir -p "$CGPARENT/p/c1" "$CGPARENT/p/c2" || fail "mkdir p/c1 p/c2"
sh -c "echo \$\$ > $CGPARENT/p/c1/cgroup.procs && $TOOLS/getppid_loop 1100 &&
	mkdir $CGPARENT/p/c1/inner && sh -c 'echo \$\$ > $CGPARENT/p/c1/inner/cgroup.procs && exec $TOOLS/getppid_loop 1300'" & a=$!
sh -c "echo \$\$ > $CGPARENT/p/c2/cgroup.procs && exec $TOOLS/getppid_loop 2200" & b=$!
wait $a $b
watch_stop "$TMP/p.tsv"
# only what this test made (the watch sees the whole host)
awk -F'\t' -v r="$rel/p" '!/^#/ && $8 == "start" && index($12, r) == 1 { print $2, $12 }' "$TMP/p.tsv" | sort > "$TMP/starts"
printf '%s\n' "c1 $rel/p/c1" "c2 $rel/p/c2" > "$TMP/want"
diff "$TMP/want" "$TMP/starts" > /dev/null || fail "start rows: $(tr '\n' ';' < "$TMP/starts"), not c1 and c2"
# (getppid_loop's own: the shells call getppid too)
n1=$(rows "$TMP/p.tsv" syscall getppid | awk -F'\t' '$2 == "c1" && $7 == "getppid_loop"' | wc -l)
n2=$(rows "$TMP/p.tsv" syscall getppid | awk -F'\t' '$2 == "c2" && $7 == "getppid_loop"' | wc -l)
[ "$n1" -eq 2400 ] || fail "c1 has $n1 getppid rows, not 1100 + 1300 (its own cgroup inner included)"
[ "$n2" -eq 2200 ] || fail "c2 has $n2 getppid rows, not 2200"
ok "a parent made during the watch is no container; c1 (with inner) and c2 are"
rmdir "$CGPARENT/p/c1/inner" "$CGPARENT/p/c1" "$CGPARENT/p/c2" "$CGPARENT/p"

# The same rule whatever order the CPUs' records are read in: the
# perf-buffer objects have a ring per CPU, read from CPU 0 up. c1's shell
# runs on the last CPU, the mkdir of c1/inner and its task on CPU 0, a few
# ms later; read in CPU order, inner came first and was a container of its
# own: 5 to 11 of these 20 before backend_perf.c held a new cgroup's mkdir
# a pass and delivered the held ones oldest first.
last=$(($(nproc) - 1))
watch_start "$TMP/o.tsv"
for i in $(seq 20); do
	mkdir "$CGPARENT/o$i" || fail "mkdir o$i"
	taskset -c $last sh -c "echo \$\$ > $CGPARENT/o$i/cgroup.procs &&
		exec taskset -c 0 sh -c 'mkdir $CGPARENT/o$i/inner && echo \$\$ > $CGPARENT/o$i/inner/cgroup.procs && exec $TOOLS/getppid_loop 10'" ||
		fail "o$i: the pinned shells failed"
done
watch_stop "$TMP/o.tsv"
awk -F'\t' -v r="$rel/o" '!/^#/ && $8 == "start" && index($12, r) == 1 { print $12 }' "$TMP/o.tsv" | sort > "$TMP/starts"
for i in $(seq 20); do echo "$rel/o$i"; done | sort > "$TMP/want"
diff "$TMP/want" "$TMP/starts" > /dev/null ||
	fail "start rows of $(wc -l < "$TMP/starts") cgroups, not 20 (o1..o20 without inner): $(grep inner "$TMP/starts" | tr '\n' ' ')"
n=$(rows "$TMP/o.tsv" syscall getppid | awk -F'\t' '$2 ~ /^o[0-9]+$/ && $7 == "getppid_loop"' | wc -l)
[ "$n" -eq 200 ] || fail "$n getppid rows in o1..o20, not 20 x 10"
ok "c1/inner read before c1's first records (CPU 0's ring first): still part of c1, 20 times"
for i in $(seq 20); do rmdir "$CGPARENT/o$i/inner" "$CGPARENT/o$i"; done
