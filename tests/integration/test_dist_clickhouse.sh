#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# dist/clickhouse on Debian's ClickHouse (18.16): a server of the test's own
# (its config, data and logs under $TMP, tcp and http on free loopback
# ports), schema.sql, load.sh of the files of four collector runs standing
# in for three hosts (their # host= rewritten; host-b's # kernel= too, so
# that there are two kernels; host-c's second run rotated into parts by
# --rotate 64K), loaded twice (the second time loads nothing), and the
# fleet queries compared with analyze on the same files:
#   - phases.sql with analyze of every file, phases_by_host.sql and
#     phases_by_kernel.sql with analyze of each host's and kernel's files:
#     the boot counts exact, and p50, p99 and max exact too (both are
#     nearest rank; the issue asks for 1%); phases_by_image.sql with
#     analyze --by image, on meta rows added to two runs (one image with a
#     tab in it);
#   - syscalls_in_boots.sql with analyze --by syscall --until listen:
#     calls, errors, total and max ns of each syscall, exact (analyze given
#     the rotated run's parts joined in one file: its windows take each
#     file alone, SQL's join the parts);
#   - slowest_boots.sql with analyze's time to listen of each boot
#     (--critical-path --format json): the same 10 boots, the same ns;
#   - boottrace.files: the rows each file's trailer counts, exactly.
# The server is stopped and its directory removed at the end.
. "$(dirname "$0")/lib.sh"
need_root
have clickhouse-server "the ClickHouse checks" || skip "clickhouse-server is not installed"
have clickhouse-client "the ClickHouse checks" || skip "clickhouse-client is not installed"
DIST=dist/clickhouse
CH=$TMP/ch
mkdir -p "$CH" "$TMP/files"

# 1. the runs: three "hosts"
run() { # NAME HOST [OPTION...]: a collector run of webapp boots, as host HOST
	local name=$1 host=$2
	shift 2
	"$COLLECTOR" "$@" --until listen --name "$name" -o "$TMP/files/$name.tsv" -- \
		"$OUTPUT/samples/webapp" --warmup-ms "${WARMUP:-20}" 2> "$TMP/$name.err" ||
		fail "collector $name: $(cat "$TMP/$name.err")"
	sed -i "s/^# host=.*/# host=$host/" "$TMP/files/$name.tsv"*
}
WARMUP=20 run a host-a --runs 6
# a hostile name for a-1 (TSV-escaped: quote, backslash, tab, a control
# byte, a byte that is not UTF-8): ClickHouse must read it as those bytes
sed -i 's/\ta-1\t/\tx"q\\\\b\\tc\\x01\\xff\t/' "$TMP/files/a.tsv"
grep -qF 'x"q\\b\tc\x01\xff' "$TMP/files/a.tsv" || fail "the hostile name was not written"
WARMUP=60 run b host-b --runs 6 --sched on
sed -i 's/^# kernel=.*/# kernel=6.1.0-test-old/' "$TMP/files/b.tsv"
WARMUP=40 run c1 host-c --runs 4
WARMUP=10 run c2 host-c --runs 14 --sched on --rotate 64K
ls "$TMP/files/c2.tsv."* > /dev/null 2>&1 || fail "--rotate 64K made no parts: $(ls -l "$TMP/files")"
# meta rows (docs/tsv-format.md, Meta rows) after each start row of b and
# c1, as the collector writes a runtime's container's: host-b's image
# holds a tab; the trailers count them
add_meta() { # FILE IMAGE-AS-ESCAPED LEN
	# (through the environment: awk -v would turn the \t into a tab)
	D="image=$3:$2 runtime=6:docker" awk -F'\t' -v OFS='\t' '
	/^# lost=/ { sub(/events=[0-9]+/, "events=" ev + added) }
	/^# lost=/ { print; next }
	/^#/ || $1 == "ts_ns" { print; next }
	{ print; ev++ }
	$8 == "start" { print $1, $2, $3, "\\N", "\\N", "\\N", "\\N", "meta", "oci", "\\N", "\\N", ENVIRON["D"]; added++ }
	' "$1" > "$1.new" && mv "$1.new" "$1"
}
add_meta "$TMP/files/b.tsv" 'reg/b:1\tx' 9
add_meta "$TMP/files/c1.tsv" 'reg/c:2' 7
[ "$(grep -c $'\tmeta\t' "$TMP/files/b.tsv")" = 6 ] || fail "b.tsv: no 6 meta rows"
"$ANALYZE" "$TMP/files/b.tsv" > /dev/null 2>&1 || fail "b.tsv with meta rows does not read"
files=("$TMP"/files/*)
nfiles=${#files[@]}

# 2. the server: free ports, its own everything
read -r tcp http < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
sed "s|<port>9000</port>|<port>$tcp</port>|" "$DIST/cluster.xml" | sed -n '/<remote_servers>/,/<\/remote_servers>/p' > "$CH/cluster.part"
cat > "$CH/config.xml" <<EOF
<?xml version="1.0"?>
<yandex>
    <logger><level>warning</level><log>$CH/server.log</log><errorlog>$CH/server.err.log</errorlog><size>10M</size><count>1</count></logger>
    <tcp_port>$tcp</tcp_port>
    <http_port>$http</http_port>
    <listen_host>127.0.0.1</listen_host>
    <path>$CH/data/</path>
    <tmp_path>$CH/tmp/</tmp_path>
    <user_files_path>$CH/user_files/</user_files_path>
    <format_schema_path>$CH/format_schemas/</format_schema_path>
    <users_config>$CH/users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <mark_cache_size>67108864</mark_cache_size>
    <uncompressed_cache_size>67108864</uncompressed_cache_size>
    <timezone>UTC</timezone>
$(cat "$CH/cluster.part")
</yandex>
EOF
cat > "$CH/users.xml" <<'EOF'
<?xml version="1.0"?>
<yandex>
    <profiles><default><max_memory_usage>1000000000</max_memory_usage></default></profiles>
    <users><default><password></password><networks><ip>127.0.0.1</ip></networks>
        <profile>default</profile><quota>default</quota></default></users>
    <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors>
        <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time>
    </interval></default></quotas>
</yandex>
EOF
clickhouse-server --config-file="$CH/config.xml" > "$CH/stdout" 2>&1 &
ch_pid=$!
cleanup_hooks+=("kill $ch_pid 2>/dev/null; wait $ch_pid 2>/dev/null")
# inserts into the Distributed tables synchronously: the rows are there when load.sh returns
chc() { clickhouse-client --port "$tcp" --insert_distributed_sync=1 "$@"; }
for _ in $(seq 100); do chc -q 'SELECT 1' > /dev/null 2>&1 && break; sleep 0.1; done
chc -q 'SELECT version()' > "$TMP/version" 2>&1 ||
	fail "clickhouse-server did not start: $(cat "$CH/stdout" "$CH/server.err.log" 2>/dev/null | tail -5)"
chc --multiquery < "$DIST/schema.sql" || fail "schema.sql"

# 3. load, twice
sh "$DIST/load.sh" "${files[@]}" -- --port "$tcp" --insert_distributed_sync=1 2> "$TMP/load.err" ||
	fail "load.sh: $(cat "$TMP/load.err")"
[ "$(grep -c ': [0-9]* rows, 0 lost$' "$TMP/load.err")" -eq "$nfiles" ] ||
	fail "load.sh did not load $nfiles files: $(cat "$TMP/load.err")"
sh "$DIST/load.sh" "${files[@]}" -- --port "$tcp" 2> "$TMP/load2.err" || fail "load.sh again"
[ "$(grep -c 'already loaded$' "$TMP/load2.err")" -eq "$nfiles" ] ||
	fail "the second load.sh: $(cat "$TMP/load2.err")"
# a file without its trailer (cut short, or still written) waits; --remove
# deletes a file once ClickHouse has it
head -n -1 "$TMP/files/c1.tsv" > "$TMP/cut.tsv"
touch -d '2 minutes ago' "$TMP/cut.tsv"	# not being written: no wait for its trailer
cp "$TMP/files/a.tsv" "$TMP/again.tsv"
sh "$DIST/load.sh" --remove "$TMP/cut.tsv" "$TMP/again.tsv" -- --port "$tcp" 2> "$TMP/load3.err" ||
	fail "load.sh --remove: $(cat "$TMP/load3.err")"
grep -q "cut.tsv: no trailer yet (being written, or cut short): skipped" "$TMP/load3.err" &&
	[ -e "$TMP/cut.tsv" ] && [ ! -e "$TMP/again.tsv" ] || fail "load.sh --remove: $(cat "$TMP/load3.err")"
hex=$(chc -q "SELECT hex(container) FROM boottrace.boots WHERE host = 'host-a' AND container LIKE 'x%'")
[ "$hex" = "$(printf 'x"q\\b\tc\001\377' | od -An -tx1 | tr -d ' \n' | tr a-f A-F)" ] ||
	fail "the hostile name in ClickHouse: $hex"
rows=0
for f in "${files[@]}"; do rows=$((rows + $(grep -vc '^#\|^ts_ns' "$f"))); done
[ "$(chc -q 'SELECT count() FROM boottrace.events')" -eq "$rows" ] &&
	[ "$(chc -q 'SELECT sum(events) FROM boottrace.files')" -eq "$rows" ] &&
	[ "$(chc -q 'SELECT count() FROM boottrace.files')" -eq "$nfiles" ] ||
	fail "$rows rows in $nfiles files, ClickHouse has $(chc -q 'SELECT count() FROM boottrace.events')"
ok "ClickHouse $(cat "$TMP/version"): $nfiles files of 3 hosts loaded once, $rows rows; a hostile name's bytes kept; a file without its trailer skipped; --remove"

# 4. the phase tables against analyze's (phase count p50 p99 max)
an_phases() { # FILE...: analyze's phase table as PHASE COUNT P50 P99 MAX
	"$ANALYZE" --format tsv "$@" 2> /dev/null | awk -F'\t' -v OFS='\t' 'NR > 1 && $2 > 0 { print $1, $2, $6, $8, $5 }'
}
sql() { chc --multiquery < "$DIST/queries/$1"; }
an_phases "${files[@]}" > "$TMP/want"
sql phases.sql > "$TMP/got"
diff "$TMP/want" "$TMP/got" > "$TMP/diff" || fail "phases.sql differs from analyze (want, got): $(cat "$TMP/diff")"
: > "$TMP/want"
for h in host-a host-b host-c; do
	mapfile -t hf < <(grep -l "^# host=$h$" "${files[@]}")
	an_phases "${hf[@]}" | awk -v OFS='\t' -v h=$h '{ $1 = $1 "\t" h; print }' >> "$TMP/want"
done
sort "$TMP/want" -o "$TMP/want"
sql phases_by_host.sql | sort > "$TMP/got"
diff "$TMP/want" "$TMP/got" > "$TMP/diff" || fail "phases_by_host.sql (want, got): $(cat "$TMP/diff")"
: > "$TMP/want"
for k in $(sed -n 's/^# kernel=//p' "${files[@]}" | sort -u); do
	mapfile -t kf < <(grep -l "^# kernel=$k$" "${files[@]}")
	an_phases "${kf[@]}" | awk -v OFS='\t' -v k="$k" '{ $1 = $1 "\t" k; print }' >> "$TMP/want"
done
sort "$TMP/want" -o "$TMP/want"
sql phases_by_kernel.sql | sort > "$TMP/got"
[ "$(cut -f2 "$TMP/got" | sort -u | wc -l)" -eq 2 ] || fail "not two kernels: $(cat "$TMP/got")"
diff "$TMP/want" "$TMP/got" > "$TMP/diff" || fail "phases_by_kernel.sql (want, got): $(cat "$TMP/diff")"
ok "phase counts, p50, p99, max equal analyze's: fleet, by host, by kernel ($(awk '$1 == "listen" { n += $3 } END { print n }' "$TMP/got") boots)"

# by image: the meta rows' image (analyze --by image; '' for none in SQL, \N in analyze)
"$ANALYZE" --by image --format tsv "${files[@]}" 2> /dev/null |
	awk -F'\t' -v OFS='\t' 'NR > 1 && $3 > 0 { print $2, ($1 == "\\N" ? "" : $1), $3, $7, $9, $6 }' |
	sort > "$TMP/want"
sql phases_by_image.sql | sort > "$TMP/got"
grep -qF 'reg/b:1\tx' "$TMP/got" || fail "phases_by_image.sql: no reg/b:1\\tx: $(cat "$TMP/got")"
diff "$TMP/want" "$TMP/got" > "$TMP/diff" || fail "phases_by_image.sql (want, got): $(cat "$TMP/diff")"
ok "by image (the meta rows'): counts, p50, p99, max equal analyze --by image's"

# 5. syscall time in the boot windows. analyze --until takes each file
# alone (analyze/boot/analysis.h), and a boot that --rotate cut in two has
# its start in one part and its listen in the next: it has no window
# there, where SQL joins the parts. So analyze gets the rotated run as one
# file here: its parts' rows in order, behind the first part's header.
joined() { # FILE...: the files of one run as one file
	local f first=
	for f in $(grep -H '^# part=' "$@" | sort -t= -k2 -n | cut -d: -f1); do
		[ -n "$first" ] || { sed -n '/^ts_ns/q; p' "$f" | grep -v '^# part='; grep -m1 '^ts_ns' "$f"; first=1; }
		grep -v '^#\|^ts_ns' "$f"
	done
	echo "# lost=0 events=0"
}
mapfile -t one < <(printf '%s\n' "${files[@]}" | grep -v '/c2\.tsv')
joined "$TMP"/files/c2.tsv* > "$TMP/c2-joined.tsv"
one+=("$TMP/c2-joined.tsv")
"$ANALYZE" --by syscall --until listen --format tsv "${one[@]}" 2> /dev/null |
	awk -F'\t' -v OFS='\t' 'NR > 1 && NR <= 21 { print $1, $2, $3, $4, $8 }' > "$TMP/want"
sql syscalls_in_boots.sql | cut -f1-5 > "$TMP/got"
diff "$TMP/want" "$TMP/got" > "$TMP/diff" ||
	fail "syscalls_in_boots.sql (want, got): $(cat "$TMP/diff")"
ok "syscall calls, errors, total and max in the boot windows equal analyze --by syscall --until listen"

# 6. the slowest boots: analyze's time to listen of every boot, the 10 largest
"$ANALYZE" --critical-path --format json "${one[@]}" 2> /dev/null > "$TMP/cp.json" || fail "analyze --critical-path"
python3 - "$TMP/cp.json" "${one[@]}" > "$TMP/want" <<'PY' || fail "analyze's boots"
import json, sys
cp = json.load(open(sys.argv[1]))["critical_path"]["containers"]
host = {}
for i, f in enumerate(sys.argv[2:], 1):
    for line in open(f):
        if line.startswith("# host="):
            host[i] = line[7:].strip()
rows = sorted(((c["duration"], host[c["file"]], c["container"]) for c in cp), key=lambda r: (-r[0], r[1], r[2]))
for d, h, c in rows[:10]:
    print("%s\t%s\t%d" % (h, c, d))
PY
sql slowest_boots.sql | cut -f1-3 > "$TMP/got"
diff "$TMP/want" "$TMP/got" > "$TMP/diff" || fail "slowest_boots.sql (want, got): $(cat "$TMP/diff")"
slowest=$(head -1 "$TMP/got")
ok "the 10 slowest boots and their time to listen equal analyze's (slowest: ${slowest//$'\t'/ } ns)"

# 7. stop, and nothing left
kill "$ch_pid"
wait "$ch_pid" 2> /dev/null
ss -ltn "sport = :$tcp" | grep -q LISTEN && fail "the server still listens on $tcp"
ok "server stopped"
