#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Docker (Debian's docker.io, dockerd started by the test) under one watch
# that started first (issue 13): the first `docker run` after dockerd starts
# makes /docker, `--cgroup-parent` makes its parent, two runs at once under
# a parent made while they start -- every container is its own, named
# docker-<12 hex>, none is named after (or started at) a parent; each one's
# exec phase is its entrypoint's exec (/bin/sh as the container's pid 1),
# not runc's re-exec of itself, and it listened. Then nothing is left.
. "$(dirname "$0")/lib.sh"
need_root
. "$(dirname "$0")/runtimes.sh"
need_runtime docker

cg2=$(cgroup2_mount)
# /docker made during the watch can be asserted only where it is not there yet
fresh_docker=; [ -d "$cg2/docker" ] || fresh_docker=1

# every new cgroup (no -c: a glob would hide the parents); only listen among
# the syscalls, so the other tests' cgroups on this machine stay small
watch_start "$TMP/w.tsv" -s listen
start_docker

run_probe docker "$TMP/a.cid"
run_probe docker "$TMP/b.cid"
run_probe docker "$TMP/c.cid" --cgroup-parent "$RT_PARENT"
run_probe docker "$TMP/d.cid" --cgroup-parent "$RT_PARENT"
run_probe docker "$TMP/e.cid" --cgroup-parent "$RT_PARENT/par" & e=$!
run_probe docker "$TMP/f.cid" --cgroup-parent "$RT_PARENT/par" & f=$!
wait $e || exit 1
wait $f || exit 1
watch_stop "$TMP/w.tsv"

for x in a b c d e f; do
	id=$(cat "$TMP/$x.cid")
	[[ $id =~ ^[0-9a-f]{64}$ ]] || fail "container id '$id'"
	expect_container "$TMP/w.tsv" "$id" "docker-${id:0:12}" &&
		entrypoint_ok "$TMP/w.tsv" "docker-${id:0:12}" /bin/sh
done
[ "$misses" -eq 0 ] && ok "docker: 6 containers, each its own docker-<12>, exec phase at its entrypoint, listen"
m=$misses
no_parent_container "$TMP/w.tsv" /docker "$RT_PARENT" "$RT_PARENT/par"
if [ "$misses" -eq "$m" ]; then
	[ -n "$fresh_docker" ] && ok "docker: /docker, made during the watch, is no container"
	ok "docker: --cgroup-parent $RT_PARENT (made during the watch) and $RT_PARENT/par (two at once) are no containers"
fi
# the start row keeps the full path
expect_start_path "$TMP/w.tsv" "$RT_PARENT/$(cat "$TMP/c.cid")"
expect_start_path "$TMP/w.tsv" "$RT_PARENT/par/$(cat "$TMP/e.cid")"

cleanup_checked
misses_done
