#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# A real Prometheus (Debian's) scrapes collector --metrics every second
# while 20 containers boot under the watch, each a server that listens
# 10, 20, ... 200 ms after its start (tests/tools/slow_child). Then its
# HTTP API is asked for the count of boots and for histogram_quantile's
# p50 and p99 of the listen phase, and they are compared with analyze's
# exact figures from the TSV written at the same time: the count exactly,
# each quantile within the bucket of analyze's (Prometheus interpolates
# inside a bucket; the nearest rank and Prometheus' rank q * count fall in
# the same one). Prometheus runs on a loopback port with its own config and
# data directory under $TMP, and is stopped at exit. The collector runs
# with --metrics-label entrypoint: Prometheus sums it away, and finds the
# 20 boots under entrypoint="slow_child".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/metrics.sh"
need_root
have curl "the Prometheus test" || skip "curl is missing"
have prometheus "the Prometheus test" || skip "prometheus is missing"
make_cgparent
rel=${CGPARENT#$(cgroup2_mount)}
. "$(dirname "$0")/../../scripts/runtimes.sh"	# rt_free_port

watch_start "$TMP/w.tsv" --cgroup "$rel/*" --metrics 0 --metrics-label entrypoint
addr=$(metrics_addr "$TMP/w.tsv.err")

pport=$(rt_free_port) || fail "no free port"
mkdir -p "$TMP/prom" || fail "mkdir"
cat > "$TMP/prom/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: boottrace
    static_configs:
      - targets: ['$addr']
EOF
prometheus --config.file="$TMP/prom/prometheus.yml" --storage.tsdb.path="$TMP/prom/data" \
	--web.listen-address="127.0.0.1:$pport" --log.level=warn > "$TMP/prom/log" 2>&1 &
prom=$!
cleanup_hooks+=("kill $prom 2>/dev/null; wait $prom 2>/dev/null")
api="http://127.0.0.1:$pport"
for _ in $(seq 100); do curl -sf -m 1 "$api/-/ready" > /dev/null && break; sleep 0.1; done
curl -sf -m 1 "$api/-/ready" > /dev/null || fail "prometheus is not ready: $(tail -5 "$TMP/prom/log")"

# query PROMQL: the value of its first (only) result, or nothing
query() {
	curl -sf -m 5 "$api/api/v1/query" --data-urlencode "query=$1" |
		python3 -c 'import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if r else "")'
}

for i in $(seq 20); do
	mkdir "$CGPARENT/b$i" || fail "mkdir b$i"
	sh -c "echo \$\$ > $CGPARENT/b$i/cgroup.procs && exec $TOOLS/slow_child $((i * 10)) 0" ||
		fail "slow_child $((i * 10))"
	rmdir "$CGPARENT/b$i"
done
# until a scrape after the last boot is in (scrapes every second)
for _ in $(seq 100); do
	[ "$(query 'sum(boottrace_phase_seconds_count{phase="listen"})')" = 20 ] && break
	sleep 0.2
done
[ "$(query 'sum(boottrace_phase_seconds_count{phase="listen"})')" = 20 ] ||
	fail "prometheus has $(query 'sum(boottrace_phase_seconds_count{phase="listen"})') listen boots, not 20"
up=$(query 'up{job="boottrace"}')
[ "$up" = 1 ] || fail "up is '$up'"
started=$(query 'sum(boottrace_containers_started_total)')
running=$(query 'sum(boottrace_containers_running)')
lost=$(query 'boottrace_events_lost_total')
execs=$(query 'sum(boottrace_phase_seconds_count{phase="exec"})')
by_entry=$(query 'sum(boottrace_phase_seconds_count{phase="listen",entrypoint="slow_child"})')
q50=$(query 'histogram_quantile(0.5, sum by (le) (boottrace_phase_seconds_bucket{phase="listen"}))')
q99=$(query 'histogram_quantile(0.99, sum by (le) (boottrace_phase_seconds_bucket{phase="listen"}))')
# The listen buckets as Prometheus holds them, by bound (+Inf last)
curl -sf -m 5 "$api/api/v1/query" --data-urlencode 'query=boottrace_phase_seconds_bucket{phase="listen"}' |
	python3 -c 'import json, sys
for r in json.load(sys.stdin)["data"]["result"]:
	print(r["metric"]["le"], r["value"][1])' | sort -g > "$TMP/buckets"
# (the queries first: once the collector is gone, its series are stale)
watch_stop "$TMP/w.tsv"
[ "$(wc -l < "$TMP/buckets")" -eq 55 ] || fail "prometheus has $(wc -l < "$TMP/buckets") listen buckets, not 55"

"$ANALYZE" --format tsv "$TMP/w.tsv" > "$TMP/a.tsv" 2>/dev/null || fail "analyze exited $?"
read -r _ n _ _ _ p50 _ p99 <<< "$(awk '$1 == "listen"' "$TMP/a.tsv")"
[ "$n" = 20 ] && [ "$started" = 20 ] && [ "$running" = 0 ] && [ "$lost" = 0 ] ||
	fail "analyze counts $n listen boots, prometheus 20, started $started, running $running, lost $lost"
[ "$(awk '$1 == "exec" { print $2 }' "$TMP/a.tsv")" = "$execs" ] ||
	fail "exec: analyze and prometheus count differently"
[ "$by_entry" = 20 ] || fail "entrypoint=\"slow_child\": '$by_entry' listen boots, not 20"
ok "prometheus scraped 20 boots (started 20, running 0, lost 0; entrypoint slow_child), as analyze counts them"

# in_bucket PROM EXACT-NS: Prometheus' quantile PROM (s) lies in the bucket of analyze's exact value
in_bucket() {
	[ -n "$1" ] || fail "no histogram_quantile"
	awk -v p="$1" -v e="$2" '
	$1 != "+Inf" { hi = int($1 * 1e9 + 0.5); if (e <= hi) { found = 1; exit } lo = hi }
	END {
		ok = found && p * 1e9 >= lo - 0.5 && p * 1e9 <= hi + 0.5
		printf "%s%.3f ms beside analyze'"'"'s %.3f ms, in its bucket (%.3f, %.3f] ms\n", ok ? "" : "NOT ", p * 1e3, e / 1e6, lo / 1e6, hi / 1e6
		exit !ok
	}' "$TMP/buckets"
}
r50=$(in_bucket "$q50" "$p50") || fail "listen p50: prometheus $r50"
r99=$(in_bucket "$q99" "$p99") || fail "listen p99: prometheus $r99"
ok "listen p50: prometheus $r50"
ok "listen p99: prometheus $r99"
