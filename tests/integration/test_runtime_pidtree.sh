#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Pidtree watch mode (v1-only hosts, kernel 4.15) with real runtimes (issue
# 13): a container is the task runc's nsexec starts in a new pid namespace;
# it is named from the runtime's cgroup of that first task, as cgroup mode
# would name it -- docker-<12>, podman-<12>, runc's cgroupsPath basename --,
# not runc:[1:CHILD]-<pid>; its exec phase is the entrypoint's. --root-exec
# keeps out the other tests' unshare containers.
# modes: pidtree legacy
. "$(dirname "$0")/lib.sh"
need_root
. "$(dirname "$0")/runtimes.sh"
need_runtime docker podman runc
start_docker
start_podman
start_runc
port=$(rt_free_port) || fail "no free port"
runc_bundle "$TMP/c1" "$RT_PARENT/c1" sh -c "$(httpd_cmd "$port")" || fail "cannot write the bundle"

watch_start "$TMP/w.tsv" -s listen --root-exec 'runc*'
run_probe docker "$TMP/d.cid"
run_probe podman "$TMP/p.cid"
"${RUNC[@]}" run -b "$TMP/c1" "bt-$$-c1" > /dev/null || fail "runc run failed"
watch_stop "$TMP/w.tsv"

d=$(cat "$TMP/d.cid") p=$(cat "$TMP/p.cid")
names=$(rows "$TMP/w.tsv" start | awk -F'\t' '$9 != "mark" { print $2 }' | sort | tr '\n' ' ')
want=$(printf '%s\n' "docker-${d:0:12}" "podman-${p:0:12}" c1 | sort | tr '\n' ' ')
[ "$names" = "$want" ] || miss "containers '$names', not '$want' (start rows: $(starts_said "$TMP/w.tsv"))"
for n in "docker-${d:0:12}" "podman-${p:0:12}" c1; do
	rows "$TMP/w.tsv" start | awk -F'\t' -v n="$n" '$2 == n { f = 1 } END { exit !f }' &&
		entrypoint_ok "$TMP/w.tsv" "$n" /bin/sh
done
[ "$misses" -eq 0 ] && ok "pidtree: docker-<12>, podman-<12>, c1 named from their v1 cgroups, exec at the entrypoint"

cleanup_checked
misses_done
