#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# bench/runtimes.sh [N]: how long real runtimes take to boot a container, as
# the collector measures it, and whether it sees every container made.
#
# For each runtime installed (docker, podman, runc; scripts/runtimes.sh
# gives each a state of its own and removes it at the end), N boots (default
# 10) of a busybox httpd container:
#   client  `collector -c GLOB --runs N --until listen -- CLIENT run ...`:
#           from the client's spawn (what a user waits for);
#   watch   a collector watching (-c GLOB) while the client runs N times,
#           from the container's cgroup mkdir (the container's own boot);
# each with the exec (entrypoint) and listen phases of `analyze`; then
# "seen / made": containers with a start row in the watch TSV against the
# boots the clients made. Needs root.
set -u
cd "$(dirname "$0")/.." || exit 1
OUTPUT=${OUTPUT:-build}
N=${1:-10}
. scripts/runtimes.sh
TMP=$(mktemp -d /tmp/boottrace-bench-rt.XXXXXX)
rt_init "$TMP/rt" || exit 1
trap 'rt_cleanup; rm -rf "$TMP"' EXIT

# phases FILE: "exec p50 (min..max) listen p50 (min..max)" from analyze's TSV
phases() {
	"$OUTPUT/analyze" --format tsv "$1" | awk -F'\t' '
		function ms(v) { return sprintf("%.1f", v / 1e6) }
		$1 == "exec" || $1 == "listen" {
			printf "%s n=%s p50 %s ms (%s..%s)  ", $1, $2, ms($6), ms($3), ms($5) }
		END { print "" }'
}

# one RUNTIME GLOB CLIENT...: the client and the watch runs of a runtime
one() {
	local rt=$1 glob=$2 port made seen w
	shift 2
	port=$(rt_free_port) || return 1
	"$OUTPUT/collector" -c "$glob" --runs "$N" --until listen -o "$TMP/$rt.client.tsv" -- \
		"$@" sh -c "httpd -f -p 127.0.0.1:$port & sleep 30; kill %1" \
		> /dev/null 2> "$TMP/$rt.client.err" || { echo "$rt: client runs failed: $(tail -2 "$TMP/$rt.client.err")"; return 1; }
	printf '%-8s %-7s %s\n' "$rt" client "$(phases "$TMP/$rt.client.tsv")"
	"$OUTPUT/collector" -c "$glob" -o "$TMP/$rt.watch.tsv" 2> "$TMP/$rt.watch.err" & w=$!
	for _ in $(seq 200); do grep -q '^ts_ns' "$TMP/$rt.watch.tsv" 2> /dev/null && break; sleep 0.05; done
	made=0
	for _ in $(seq "$N"); do
		"$@" sh -c "httpd -f -p 127.0.0.1:$port & sleep 0.3; kill %1" > /dev/null 2>&1 && made=$((made + 1))
	done
	sleep 0.5
	kill -INT $w; wait $w
	seen=$(awk -F'\t' '!/^#/ && $8 == "start" && $9 != "mark" { print $2 }' "$TMP/$rt.watch.tsv" | sort -u | wc -l)
	printf '%-8s %-7s %s seen/made %d/%d\n' "$rt" watch "$(phases "$TMP/$rt.watch.tsv")" "$seen" "$made"
}

echo "bench/runtimes.sh: $N boots per runtime and way, busybox httpd, --network host"
if rt_have docker && dockerd_start; then
	one docker '/docker/*' "${DOCKER[@]}" run --rm --network host "$RT_IMAGE"
	dockerd_stop
fi
if rt_have podman && podman_start; then
	one podman '/libpod_parent/libpod-*' "${PODMAN[@]}" run --rm --network host \
		"${PODMAN_RUN_OPTS[@]}" "localhost/$RT_IMAGE"
	podman_stop
fi
if rt_have runc && runc_start; then
	# runc run needs a bundle per container id: a wrapper makes one each time
	parent=/boottrace-bench.$$
	rt_own_cgroup "$parent"
	cat > "$TMP/runc-run" <<EOF
#!/bin/bash
. "$PWD/scripts/runtimes.sh"
RT_ROOTFS=$RT_ROOTFS
id=bench-\$\$-\$RANDOM
runc_bundle "$TMP/b.\$id" "$parent/\$id" "\$@" || exit 1
exec ${RUNC[*]} run -b "$TMP/b.\$id" "\$id"
EOF
	chmod +x "$TMP/runc-run"
	one runc "$parent/*" "$TMP/runc-run"
	runc_stop
fi
