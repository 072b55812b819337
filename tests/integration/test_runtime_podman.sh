#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Podman (with runc and cgroupfs, state of its own) under one watch (issue
# 13): the first run makes /libpod_parent, --cgroup-parent makes its parent,
# two runs at once under a parent made while they start -- each container
# its own, podman-<12 hex>, none named after a parent; the exec phase is the
# entrypoint's exec (with podman runc's /dev/fd/N re-exec often lands in the
# container's cgroup first); then `collector -c '/libpod_parent/*' --runs 3
# --until listen -- podman run ...` gives three containers with exec and
# listen. Nothing is left (conmon outlives the client: waited for).
. "$(dirname "$0")/lib.sh"
need_root
. "$(dirname "$0")/runtimes.sh"
need_runtime podman

cg2=$(cgroup2_mount)
fresh=; [ -d "$cg2/libpod_parent" ] || fresh=1
watch_start "$TMP/w.tsv" -s listen
start_podman

run_probe podman "$TMP/a.cid"
run_probe podman "$TMP/b.cid"
run_probe podman "$TMP/c.cid" --cgroup-parent "$RT_PARENT"
run_probe podman "$TMP/e.cid" --cgroup-parent "$RT_PARENT/par" & e=$!
run_probe podman "$TMP/f.cid" --cgroup-parent "$RT_PARENT/par" & f=$!
wait $e || exit 1
wait $f || exit 1
watch_stop "$TMP/w.tsv"

for x in a b c e f; do
	id=$(cat "$TMP/$x.cid")
	[[ $id =~ ^[0-9a-f]{64}$ ]] || fail "container id '$id'"
	expect_container "$TMP/w.tsv" "$id" "podman-${id:0:12}" &&
		entrypoint_ok "$TMP/w.tsv" "podman-${id:0:12}" /bin/sh
done
[ "$misses" -eq 0 ] && ok "podman: 5 containers, each its own podman-<12>, exec phase at its entrypoint, listen"
m=$misses
no_parent_container "$TMP/w.tsv" /libpod_parent "$RT_PARENT" "$RT_PARENT/par"
[ "$misses" -eq "$m" ] &&
	ok "podman: no container for /libpod_parent${fresh:+ (made during the watch)}, $RT_PARENT, $RT_PARENT/par"
expect_start_path "$TMP/w.tsv" "$RT_PARENT/libpod-$(cat "$TMP/c.cid")"

# the client timed three times
port=$(rt_free_port) || fail "no free port"
"$COLLECTOR" -c '/libpod_parent/*' --runs 3 --until listen -o "$TMP/c.tsv" -- \
	"${PODMAN[@]}" run --rm --network host "${PODMAN_RUN_OPTS[@]}" "localhost/$RT_IMAGE" \
	sh -c "httpd -f -p 127.0.0.1:$port & sleep 60; kill %1" > "$TMP/out" 2> "$TMP/err"
rc=$?
[ $rc -eq 0 ] || miss "collector -c GLOB --runs 3 -- podman run: exit $rc: $(head -3 "$TMP/err")"
expect_client_runs "$TMP/c.tsv" 3 'podman-[0-9a-f]{12}'

cleanup_checked
misses_done
