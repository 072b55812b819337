#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# A runtime's client timed N times (issue 13): `collector -c '/docker/*'
# --runs 3 --until listen -- docker run --rm ...` runs the client three
# times; each run's container is the new cgroup matching the glob (made by
# dockerd, containerd and runc, outside the client's process tree), its
# earliest start row is the client's spawn (then its mkdir), it has exec (the
# entrypoint's) and listen, and --until listen stops it although it would
# run 60 s more. Exit 0, three containers, none left running.
. "$(dirname "$0")/lib.sh"
need_root
. "$(dirname "$0")/runtimes.sh"
need_runtime docker
start_docker

port=$(rt_free_port) || fail "no free port"
if client_runs '/docker/*' 'docker-[0-9a-f]{12}' \
	"${DOCKER[@]}" run --rm --network host "$RT_IMAGE" \
	sh -c "httpd -f -p 127.0.0.1:$port & sleep 60; kill %1"; then
	"$ANALYZE" --format tsv "$TMP/c.tsv" > "$TMP/phases" 2>&1 || miss "analyze failed: $(head -3 "$TMP/phases")"
	for p in exec listen; do
		awk -F'\t' -v p=$p '$1 == p && $2 == 3 { f = 1 } END { exit !f }' "$TMP/phases" ||
			miss "phase $p not in 3 containers: $(cat "$TMP/phases")"
	done
fi
[ -z "$("${DOCKER[@]}" ps -aq)" ] || miss "containers left: $("${DOCKER[@]}" ps -a)"
[ "$misses" -eq 0 ] && ok "docker run timed 3 times: 3 containers with exec and listen, in $took s"

cleanup_checked
misses_done
