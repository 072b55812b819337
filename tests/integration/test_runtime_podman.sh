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

watch_parents podman

# the client timed three times (podman has no daemon: the same set-up)
port=$(rt_free_port) || fail "no free port"
client_runs '/libpod_parent/*' 'podman-[0-9a-f]{12}' \
	"${PODMAN[@]}" run --rm --network host "${PODMAN_RUN_OPTS[@]}" "localhost/$RT_IMAGE" \
	sh -c "httpd -f -p 127.0.0.1:$port & sleep 60; kill %1"

cleanup_checked
misses_done
