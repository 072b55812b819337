#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The collector's own TSV of hostile names loads into a real PostgreSQL
# server with COPY (FORMAT text, HEADER true) once the '#' lines are
# removed, and reads back as the bytes the processes used. One collector
# run per hostile container name (the cgroup names of
# test_collector_hostile_cgroup: tabs, CR, backslashes, \N, quotes,
# backquotes, system("..."), $(...), control bytes, invalid UTF-8, 255
# bytes), each running tests/tools/hostile (comm, file names of up to 255
# bytes, abstract unix socket names, a socket file named @..., an exec
# through a hostile path). Checked in SQL: the row count equals the file's;
# every field of every row equals what tsv_fields (the contract's
# unescaping) reads from the file; the container, comm, paths, socket
# addresses and exec filename equal the bytes the tool printed.
#
# The database encoding is SQL_ASCII: the only one in which the server
# stores text bytes as they are, without checking them against a character
# set. The TSV escapes bytes that are not valid UTF-8 as \xHH, and COPY
# turns them back into those bytes, which a UTF8 database refuses
# ("invalid byte sequence for encoding UTF8"). Even SQL_ASCII refuses a NUL
# byte: PostgreSQL text cannot hold one. Only an abstract unix socket name
# can (docs/tsv-format.md): the rows of the socket whose name has NULs are
# shown to be refused, then left out, and only they.
# modes: cgroup pidtree legacy
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.sh"
need_root
cleanup_hooks+=(pg_stop)
pg_start SQL_ASCII
case $? in 0) ;; 77) skip "no PostgreSQL server to load into" ;; *) fail "cannot start PostgreSQL" ;; esac

hostile_names
hex() { printf %s "$1" | od -An -v -tx1 | tr -d ' \n'; }
# a row whose escaped text holds \x00 (a backslash that is not itself escaped)
nulrow='(^|[^\\])(\\\\)*\\x00'

pg_sql -c "CREATE TABLE events (ts_ns bigint, container text, cgroup_id numeric(20),
	pid bigint, tid bigint, ppid bigint, comm text, event text, name text,
	ret bigint, dur_ns bigint, detail text)" || fail "CREATE TABLE"
pg_sql -c "CREATE TABLE want (container text, col text, event text, name text, hex text)" ||
	fail "CREATE TABLE want"

i=0 total=0
for n in "${names[@]}"; do
	i=$((i + 1))
	mkdir "$TMP/files$i"
	"$COLLECTOR" --name "$n" -o "$TMP/h$i.tsv" -- "$TOOLS/hostile" "$TMP/files$i" \
		> "$TMP/expected$i" 2> "$TMP/err$i" || fail "run $i: collector exited $?: $(cat "$TMP/err$i")"
	check_tsv "$TMP/h$i.tsv"
	grep -v '^#' "$TMP/h$i.tsv" > "$TMP/copy$i"

	# the rows with a NUL byte: PostgreSQL refuses them, and only them
	nul=$(grep -Ec "$nulrow" "$TMP/copy$i")
	want_nul=$("$TOOLS/tsv_fields" 0 1 2 3 4 5 6 7 8 9 10 11 < "$TMP/h$i.tsv" |
		awk '{ for (f = 1; f <= NF; f++) if ($f ~ /^(..)*00/) { n++; next } } END { print n + 0 }')
	[ "$nul" -eq "$want_nul" ] || fail "run $i: $nul rows match \\x00, $want_nul rows hold a NUL"
	[ "$nul" -ge 2 ] || fail "run $i: no bind and listen rows of the socket whose name holds NULs"
	if pg_sql -c "COPY events FROM STDIN (FORMAT text, HEADER true)" < "$TMP/copy$i" 2> "$TMP/pgerr"; then
		fail "run $i: PostgreSQL took the rows with a NUL byte (docs/tsv-format.md says it does not)"
	fi
	grep -q '0x00' "$TMP/pgerr" || fail "run $i: COPY failed, but not for the NUL byte: $(cat "$TMP/pgerr")"
	grep -Ev "$nulrow" "$TMP/copy$i" > "$TMP/copy$i.nonul"
	pg_sql -c "COPY events FROM STDIN (FORMAT text, HEADER true)" < "$TMP/copy$i.nonul" ||
		fail "run $i: COPY of the collector's TSV (container $(printf %q "$n")) failed"
	rows=$(($(wc -l < "$TMP/copy$i.nonul") - 1))
	total=$((total + rows))
	got=$(pg_sql -At -c "SELECT count(*) FROM events")
	[ "$got" -eq "$total" ] || fail "run $i: $got rows in the table, $total in the files"
	got=$(pg_sql -At -c "SELECT count(*) FROM events
		WHERE encode(convert_to(container, 'SQL_ASCII'), 'hex') = '$(hex "$n")'")
	[ "$got" -eq "$rows" ] || fail "run $i: $got rows with the container name $(printf %q "$n"), $rows in the file"

	# what the tool printed: the bytes each column must read back as
	c=$(hex "$n")
	awk -v c="$c" '
	$1 == "comm" || $1 == "comm2" { print c "\tcomm\t\\N\t\\N\t" $2 }
	$1 == "path" { print c "\tdetail\tsyscall\topenat\t" $2 }
	$1 == "unix" { print c "\tdetail\tsyscall\tbind\t40" $2; print c "\tdetail\tsyscall\tlisten\t40" $2 }
	$1 == "sockfile" { print c "\tdetail\tsyscall\tbind\t2e2f" $2; print c "\tdetail\tsyscall\tlisten\t2e2f" $2 }
	$1 == "exec" { print c "\tdetail\texec\t\\N\t" $2; print c "\tdetail\tsyscall\texecve\t" $2 }
	' "$TMP/expected$i" > "$TMP/want$i"
	[ "$(wc -l < "$TMP/want$i")" -ge 15 ] || fail "run $i: the tool printed too little: $(cat "$TMP/expected$i")"
	pg_sql -c "COPY want FROM STDIN" < "$TMP/want$i" || fail "COPY want"
done
ok "${#names[@]} collector runs, $total rows: COPY loads every row of each file but those with a NUL byte (refused, as documented)"

# every field of every row, as PostgreSQL has it and as the file has it
cols="ts_ns container cgroup_id pid tid ppid comm event name ret dur_ns detail"
sel=$(for c in $cols; do printf "coalesce(encode(convert_to(%s::text, 'SQL_ASCII'), 'hex'), E'\\\\\\\\N'), " "$c"; done)
pg_sql -At -F "$(printf '\t')" -c "SELECT ${sel%, } FROM events" | sort > "$TMP/pg.rows" ||
	fail "SELECT of every row"
for ((j = 1; j <= i; j++)); do
	grep -Ev "$nulrow" "$TMP/h$j.tsv" | "$TOOLS/tsv_fields" 0 1 2 3 4 5 6 7 8 9 10 11
done | sort > "$TMP/file.rows"
[ "$(wc -l < "$TMP/file.rows")" -eq "$total" ] || fail "tsv_fields read $(wc -l < "$TMP/file.rows") rows, not $total"
diff "$TMP/file.rows" "$TMP/pg.rows" > "$TMP/diff" ||
	fail "PostgreSQL and the file disagree on $(grep -c '^[<>]' "$TMP/diff") rows: $(head -4 "$TMP/diff")"
ok "every field of every row reads back from PostgreSQL as the file's unescaped bytes"

missing=$(pg_sql -At -F ' ' -c "SELECT w.col, coalesce(w.event, '*'), coalesce(w.name, '*'), w.hex FROM want w
	WHERE NOT EXISTS (SELECT 1 FROM events e
		WHERE encode(convert_to(e.container, 'SQL_ASCII'), 'hex') = w.container
		AND (w.event IS NULL OR e.event = w.event) AND (w.name IS NULL OR e.name = w.name)
		AND encode(convert_to(CASE w.col WHEN 'comm' THEN e.comm ELSE e.detail END, 'SQL_ASCII'), 'hex') = w.hex)") ||
	fail "SELECT of the missing values"
[ -z "$missing" ] || fail "values the tool used that PostgreSQL does not have:
$missing"
nwant=$(pg_sql -At -c "SELECT count(*) FROM want")
ok "$nwant hostile values (container, comm, paths, socket addresses, exec filename) read back from PostgreSQL as the original bytes"
