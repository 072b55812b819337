#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Bounded memory: 3,000 short containers boot one after the other (a cgroup
# each, a server that listens and exits: tests/tools/cgroup_churn with
# listen_once) through one collector in watch mode with --metrics, scraped
# now and then, writing with --rotate 256K as a service would. Its RSS
# after 3,000 is within 128 KiB of its RSS after 500: what is kept per
# container (the table's entry, the kernel's tracked cgroup, --metrics'
# phase state) goes with its end row. What grows between two files is the
# set of names given in the file (16 bytes a slot, at most half full: 32 to
# 64 bytes a container, collector/run/containers.h), forgotten at each new
# file: SOAK_ROTATE=none shows it (some 220 KiB more for 2,500 containers,
# the table's doublings). Every container is in the TSV (the run's files)
# with its exec and listen, and in the metrics; nothing is lost. Not run
# under ASan (make test-asan): its allocator's quarantine is not the
# collector's memory.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/metrics.sh"
need_root
have curl "the scrapes" || skip "curl is missing"
make_cgparent
rel=${CGPARENT#$(cgroup2_mount)}
N1=${SOAK_CONTAINERS_FIRST:-500}
N=${SOAK_CONTAINERS:-3000}
ROTATE=${SOAK_ROTATE:-256K}
MARGIN=128
rotate=(--rotate "$ROTATE")
[ "$ROTATE" = none ] && rotate=() MARGIN=256

# -s: the syscalls a boot needs, so that the file grows by rows of few kinds
watch_start "$TMP/w.tsv" --cgroup "$rel/*" --metrics 0 -s listen,bind,socket,openat "${rotate[@]}"
addr=$(metrics_addr "$TMP/w.tsv.err")
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$watch_pid/status"; }
ends() { cat "$TMP"/w.tsv* | grep -c '	end	'; }
settle() { # until the collector has written every container's end row
	local want=$1
	for _ in $(seq 200); do
		[ "$(ends)" -ge "$want" ] && return 0
		sleep 0.05
	done
	fail "only $(ends) end rows of $want"
}

start=$(date +%s)
"$TOOLS/cgroup_churn" "$CGPARENT" 1 "$N1" "$TOOLS/listen_once" || fail "cgroup_churn 1..$N1"
settle "$N1"
scrape "$addr" > /dev/null
sleep 0.5
r1=$(rss)
i=$N1
while [ "$i" -lt "$N" ]; do
	next=$((i + 500 < N ? i + 500 : N))
	"$TOOLS/cgroup_churn" "$CGPARENT" $((i + 1)) "$next" "$TOOLS/listen_once" ||
		fail "cgroup_churn $((i + 1))..$next"
	scrape "$addr" > /dev/null
	echo "# after $next containers: RSS $(rss) KiB"
	i=$next
done
settle "$N"
text=$(scrape "$addr")
sleep 0.5
r2=$(rss)
secs=$(($(date +%s) - start))
watch_stop "$TMP/w.tsv"

[ "$(sample "$text" 'boottrace_containers_started_total{runtime="other"}')" = "$N" ] ||
	fail "started_total $(sample "$text" 'boottrace_containers_started_total{runtime="other"}'), not $N"
[ "$(sample "$text" 'boottrace_containers_running{runtime="other"}')" = 0 ] ||
	fail "running $(sample "$text" 'boottrace_containers_running{runtime="other"}'), not 0"
[ "$(sample "$text" 'boottrace_phase_seconds_count{phase="listen",runtime="other"}')" = "$N" ] ||
	fail "listen count $(sample "$text" 'boottrace_phase_seconds_count{phase="listen",runtime="other"}'), not $N"
files=$(ls "$TMP"/w.tsv* | grep -v '\.err$')
for f in $files; do check_tsv "$f"; done
# shellcheck disable=SC2086 # the run's files
read -r _ nl _ <<< "$("$ANALYZE" --format tsv $files 2>/dev/null | awk '$1 == "listen"')"
[ "$nl" = "$N" ] || fail "analyze: $nl containers listened, not $N"
ok "$N containers in $secs s ($(wc -w <<< "$files") files, --rotate $ROTATE): each with its start, exec, listen and end, in the TSV and the metrics"
[ $((r2 - r1)) -le $MARGIN ] ||
	fail "RSS $r1 KiB after $N1 containers, $r2 KiB after $N: +$((r2 - r1)) KiB, more than $MARGIN"
ok "RSS $r1 KiB after $N1 containers, $r2 KiB after $N ($((r2 - r1)) KiB more)"
