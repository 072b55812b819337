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

watch_parents docker

cleanup_checked
misses_done
