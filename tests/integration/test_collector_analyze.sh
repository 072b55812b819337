#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# End to end: collector → FIFO → analyze. Three boots of the sample service
# (the worker, a child, listens): analyze reads them while they are written
# and finds 3 exec and 3 listen phases, listen after exec.
# modes: cgroup pidtree legacy
. "$(dirname "$0")/lib.sh"
need_root

mkfifo "$TMP/p"
"$ANALYZE" --format tsv "$TMP/p" > "$TMP/phases.tsv" & an=$!
"$COLLECTOR" --runs 3 --until listen --name e2e -o "$TMP/p" -- "$OUTPUT/samples/webapp" 2>/dev/null ||
	fail "collector exited $?"
wait $an || fail "analyze exited $?"
head -1 "$TMP/phases.tsv" | grep -q '^phase	count	min	avg	max	p50	p90	p99$' || fail "no tsv header"
awk -F'\t' '$1 == "exec" && $2 == 3 { f = 1 } END { exit !f }' "$TMP/phases.tsv" || fail "not 3 exec phases: $(cat "$TMP/phases.tsv")"
awk -F'\t' '$1 == "listen" && $2 == 3 { f = 1 } END { exit !f }' "$TMP/phases.tsv" || fail "not 3 listen phases"
e=$(awk -F'\t' '$1 == "exec" { print $3 }' "$TMP/phases.tsv")
l=$(awk -F'\t' '$1 == "listen" { print $3 }' "$TMP/phases.tsv")
[ "$e" -gt 0 ] && [ "$l" -gt "$e" ] || fail "listen min $l not after exec min $e"
ok "collector → FIFO → analyze: 3 boots, exec then listen"
