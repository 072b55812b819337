#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The TSV loads into a real PostgreSQL server with COPY (FORMAT text, HEADER
# true) once the '#' lines are removed, and SQL's percentile_disc, count,
# min, max and round(avg) per phase agree with analyze --format tsv.
# Starts a private server (tests/integration/pg.sh: unix socket in a temp
# dir, no TCP), stops it and removes everything on exit.
set -u
OUTPUT=${OUTPUT:-build}
A=$(realpath "$OUTPUT/analyze")
fail=0
. "$(dirname "$0")/pg.sh"

tmp=$(mktemp -d)
trap 'pg_stop; rm -rf "$tmp"' EXIT
pg_start UTF8
case $? in 0) ;; 77) exit 77 ;; *) echo "FAIL: cannot start PostgreSQL"; exit 1 ;; esac
sql() { pg_sql "$@"; }

sql -c "CREATE TABLE events (ts_ns bigint, container text, cgroup_id numeric(20),
	pid bigint, tid bigint, ppid bigint, comm text, event text, name text,
	ret bigint, dur_ns bigint, detail text)" || exit 1

# A second sample: 250 boots with spread-out times, ties, two marks, boots
# that never listen, hostile bytes in names and paths (escaped per contract).
awk 'BEGIN {
	srand(42); OFS = "\t"
	print "# boottrace-tsv 1"; print "# mode=cgroup"
	print "ts_ns\tcontainer\tcgroup_id\tpid\ttid\tppid\tcomm\tevent\tname\tret\tdur_ns\tdetail"
	for (i = 1; i <= 250; i++) {
		c = sprintf("svc\\x1b[31m\\t%d", i); t0 = i * 100000000000; pid = 1000 + i
		cg = "1844674407370955" sprintf("%04d", i)	# > 2^63, < 2^64
		print sprintf("%.0f", t0), c, cg, pid, pid, 1, "runc:[2:INIT]", "start", "mkdir", "\\N", "\\N", "\\N"
		e = int(rand() * 50000000) + 1000000; if (i % 10 == 0) e = 20000000
		print sprintf("%.0f", t0 + e), c, cg, pid, pid, 1, "app", "exec", "\\N", "\\N", "\\N", "/srv/app\\\\bin"
		for (k = 0; k < 5; k++)
			print sprintf("%.0f", t0 + e + k * 1000), c, cg, pid, pid, 1, "app", "syscall", "openat", (k == 2 ? -2 : 3), int(rand() * 9000) + 100, "/etc/x"
		if (i % 7 != 0) {
			l = e + int(rand() * 2000000000)
			print sprintf("%.0f", t0 + l), c, cg, pid + 1, pid + 1, pid, "app", "syscall", "listen", 0, int(rand() * 20000), "0.0.0.0:80"
		}
		if (i % 3 == 0) print sprintf("%.0f", t0 + e + 777), c, cg, pid, pid, 1, "app", "mark", "config-loaded", "\\N", "\\N", "\\N"
		if (i % 2 == 0) print sprintf("%.0f", t0 + e + int(rand() * 3000000000)), c, cg, pid, pid, 1, "app", "mark", "ready", "\\N", "\\N", "\\N"
	}
	print "# lost=0 events=0"
}' > "$tmp/many.tsv"

query="WITH s AS (SELECT container, min(ts_ns) AS t0 FROM events WHERE event = 'start' GROUP BY container),
ph AS (
	SELECT 'exec' AS phase, e.container, min(e.ts_ns) - s.t0 AS v
	FROM events e JOIN s USING (container) WHERE e.event = 'exec' GROUP BY e.container, s.t0
	UNION ALL
	SELECT 'listen', e.container, min(e.ts_ns + coalesce(e.dur_ns, 0)) - s.t0
	FROM events e JOIN s USING (container)
	WHERE e.event = 'syscall' AND e.name = 'listen' AND e.ret = 0 GROUP BY e.container, s.t0
	UNION ALL
	SELECT e.name, e.container, min(e.ts_ns) - s.t0
	FROM events e JOIN s USING (container) WHERE e.event = 'mark' GROUP BY e.name, e.container, s.t0)
SELECT phase, count(*), min(v), round(avg(v)), max(v),
	percentile_disc(0.5) WITHIN GROUP (ORDER BY v),
	percentile_disc(0.9) WITHIN GROUP (ORDER BY v),
	percentile_disc(0.99) WITHIN GROUP (ORDER BY v)
FROM ph GROUP BY phase ORDER BY phase"

for f in samples/boot-small.tsv "$tmp/many.tsv"; do
	sql -c "TRUNCATE events" || exit 1
	grep -v '^#' "$f" | sql -c "COPY events FROM STDIN (FORMAT text, HEADER true)" \
		|| { echo "FAIL: COPY of $f"; fail=1; continue; }
	rows=$(sql -At -c "SELECT count(*) FROM events")
	want=$(grep -vc '^#' "$f"); want=$((want - 1))
	[ "$rows" = "$want" ] || { echo "FAIL: $f: $rows rows loaded, $want in the file"; fail=1; }
	sql -At -F "$(printf '\t')" -c "$query" > "$tmp/sql.out" || { fail=1; continue; }
	"$A" --format tsv "$f" 2> /dev/null | tail -n +2 | awk -F'\t' '$2 > 0' | sort > "$tmp/ours.out"
	sort "$tmp/sql.out" > "$tmp/sql.sorted"
	if ! diff -u "$tmp/sql.sorted" "$tmp/ours.out"; then
		echo "FAIL: $f: SQL and analyze --format tsv disagree"; fail=1
	else
		echo "ok: $f: $(wc -l < "$tmp/ours.out") phases agree with PostgreSQL ($rows rows)"
	fi
done
# the hostile bytes came through COPY as bytes
n=$(sql -At -c "SELECT count(DISTINCT container) FROM events WHERE container LIKE E'svc\\x1b[31m\\t%'")
[ "$n" = 250 ] || { echo "FAIL: escaped container names did not load as bytes ($n)"; fail=1; }
exit $fail
