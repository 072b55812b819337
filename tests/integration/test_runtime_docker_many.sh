#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# 100 `docker run`s under one watch (issue 13), four at a time, the first
# making /docker: none lost, none merged -- one container docker-<12> per
# container id docker gave, each with one start row, its entrypoint's exec
# and a listen; no other container for them, and the analyzer counts 100.
. "$(dirname "$0")/lib.sh"
need_root
. "$(dirname "$0")/runtimes.sh"
need_runtime docker
N=${RUNTIME_RUNS:-100}
P=4

watch_start "$TMP/w.tsv" -s listen
start_docker
t0=$(date +%s%N)
# port 0: each httpd listens on a port the kernel picks, none clash
run_some() { # run_some FIRST LAST: containers FIRST..LAST, one after another
	local i
	for i in $(seq "$1" "$2"); do
		"${DOCKER[@]}" run -d --rm --network host "$RT_IMAGE" \
			sh -c 'httpd -f -p 127.0.0.1:0 & sleep 0.3; kill %1' >> "$TMP/ids.$1" ||
			echo "docker run $i failed" >&2
	done
}
pids=()
for k in $(seq 0 $((P - 1))); do
	run_some $((k * N / P + 1)) $(((k + 1) * N / P)) & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
# -d returns at start: wait for the last ones to end
for _ in $(seq 300); do [ -z "$("${DOCKER[@]}" ps -q)" ] && break; sleep 0.1; done
took=$((($(date +%s%N) - t0) / 1000000))
watch_stop "$TMP/w.tsv"
cat "$TMP"/ids.* > "$TMP/ids"
[ "$(grep -cE '^[0-9a-f]{64}$' "$TMP/ids")" -eq "$N" ] || fail "docker gave $(wc -l < "$TMP/ids") ids, not $N"
echo "# $N docker runs, $P at a time, in $took ms"

# one start row per container, named after it, none for anything else of docker's
rows "$TMP/w.tsv" start | awk -F'\t' '$9 != "mark" && $7 !~ /^(collector|mkdir|unshare|sh|bash)$/' |
	cut -f2,12 > "$TMP/starts"
lost=0 merged=0
while read -r id; do
	n=$(awk -F'\t' -v id="$id" 'substr($2, length($2) - 63) == id' "$TMP/starts" | wc -l)
	[ "$n" -eq 1 ] || { lost=$((lost + 1)); continue; }
	name=$(awk -F'\t' -v id="$id" 'substr($2, length($2) - 63) == id { print $1 }' "$TMP/starts")
	[ "$name" = "docker-${id:0:12}" ] || { merged=$((merged + 1)); miss "$id: named '$name'"; continue; }
	# its own rows: one entrypoint exec, one listen
	[ "$(rows "$TMP/w.tsv" exec | awk -F'\t' -v n="$name" '$2 == n && $12 == "/bin/sh"' | wc -l)" -eq 1 ] ||
		miss "$name: not one exec of /bin/sh"
	[ "$(rows "$TMP/w.tsv" syscall listen | awk -F'\t' -v n="$name" '$2 == n && $10 == 0' | wc -l)" -eq 1 ] ||
		miss "$name: not one listen"
done < "$TMP/ids"
[ "$lost" -eq 0 ] || miss "$lost of $N containers have no start row of their own (lost or merged): start rows $(awk -F'\t' '{ print $1 }' "$TMP/starts" | sort | uniq -c | sort -rn | head -3 | tr '\n' ';')"
others=$(grep -vE '^docker-[0-9a-f]{12}	' "$TMP/starts")
[ -z "$others" ] || miss "containers that are no docker container: $(echo "$others" | head -3 | tr '\t\n' ' ;')"
# the analyzer on these containers' rows (another dockerd on the machine
# may have booted docker-<12>s in the same watch)
sed 's/^/docker-/; s/^\(docker-.\{12\}\).*/\1/' "$TMP/ids" > "$TMP/names"
awk -F'\t' 'NR == FNR { n[$1] = 1; next } /^#/ || $1 == "ts_ns" || ($2 in n)' "$TMP/names" "$TMP/w.tsv" > "$TMP/ours.tsv"
got=$("$ANALYZE" --format tsv "$TMP/ours.tsv" | awk -F'\t' '$1 == "exec" || $1 == "listen" { printf "%s=%s ", $1, $2 }')
[ "$got" = "exec=$N listen=$N " ] || miss "analyze: phases in $got, not exec=$N listen=$N"
[ "$misses" -eq 0 ] && ok "$N docker runs under one watch: $N containers docker-<12>, none lost or merged ($took ms)"

cleanup_checked
misses_done
