#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Output for days: a watch with --rotate 64K, and a SIGHUP after the file
# was moved away (logrotate's create mode). Every file is a complete TSV
# (version line, metadata with the run's id and its part, header, rows of
# 12 fields, a trailer with that file's own counts, lost=0); the parts of
# the run are 1..N; a container's 5000 getppid calls are all there across
# the files; and analyze, given the files in a shell's glob order, joins a
# server whose boot straddles the files: its listen 1.5 s after its start,
# in a later file than its start row, is timed; read alone, that later
# file has rows without a start row.
. "$(dirname "$0")/lib.sh"
need_root
make_cgparent
rel=${CGPARENT#$(cgroup2_mount)}
cd "$TMP" || fail "cd $TMP"
OUTPUT=$(realpath "$OLDPWD/$OUTPUT")
COLLECTOR=$OUTPUT/collector ANALYZE=$OUTPUT/analyze TOOLS=$OUTPUT/tests

boot() { # boot NAME COMMAND...: a container running COMMAND
	local n=$1
	shift
	mkdir "$CGPARENT/$n" || fail "mkdir $n"
	sh -c "echo \$\$ > $CGPARENT/$n/cgroup.procs && exec $*"
}

watch_start w.tsv --cgroup "$rel/*" --rotate 64K
boot long "$TOOLS/slow_child" 1500 0 & long=$!
sleep 0.2
# 5 x 1000 rows, 0.2 s apart: a file passes 64K at a loop turn and is cut there
boot busy sh -c "'for i in 1 2 3 4 5; do $TOOLS/getppid_loop 1000; sleep 0.2; done'" || fail "busy"
# wait for the size to be passed and the file renamed
for _ in $(seq 100); do [ -e w.tsv.2 ] && break; sleep 0.05; done
[ -e w.tsv.1 ] && [ -e w.tsv.2 ] || fail "no w.tsv.1, w.tsv.2 after 500 KB of rows: $(ls -l)"
# logrotate: move, then HUP
mv w.tsv moved.tsv || fail "mv"
kill -HUP "$watch_pid"
for _ in $(seq 100); do grep -q '^ts_ns' w.tsv 2> /dev/null && break; sleep 0.05; done
grep -q '^ts_ns' w.tsv || fail "no new w.tsv after SIGHUP: $(cat w.tsv.err)"
wait $long || fail "long exited $?"
boot after "$TOOLS/listen_once" || fail "after"
for c in long busy after; do rmdir "$CGPARENT/$c"; done
watch_stop w.tsv

files=$(ls w.tsv* moved.tsv | grep -v '\.err$')
nfiles=$(wc -w <<< "$files")
run=$(sed -n 's/^# run_id=//p' w.tsv)
[[ $run =~ ^[0-9a-f]{32}$ ]] || fail "run_id '$run'"
for f in $files; do
	check_tsv "$f"
	[ "$(sed -n 's/^# run_id=//p' "$f")" = "$run" ] || fail "$f: another run_id"
	sed -n 's/^# part=//p' "$f" >> parts
	events=$(tail -1 "$f" | sed 's/.*events=//')
	rows=$(grep -vc '^#\|^ts_ns' "$f")
	[ "$events" -eq "$rows" ] || fail "$f: the trailer says $events events, it has $rows rows"
done
[ "$(sort -n parts | tr '\n' ' ')" = "$(seq -s ' ' "$nfiles") " ] || fail "parts $(sort -n parts | tr '\n' ' '), not 1..$nfiles"
for f in w.tsv.[0-9]*; do
	size=$(stat -c %s "$f")
	[ "$size" -ge 65536 ] && [ "$size" -lt $((65536 + 1048576)) ] || fail "$f: $size bytes"
done
ok "$nfiles files of run $run: each complete, its own trailer; parts 1..$nfiles; rotated at 64K"

n=$(cat $files | awk -F'\t' '$2 == "busy" && $8 == "syscall" && $9 == "getppid" && $7 == "getppid_loop"' | wc -l)
[ "$n" -eq 5000 ] || fail "busy: $n getppid rows in all, not 5000"
[ "$(grep -l '	long	.*	start	' $files | wc -l)" -eq 1 ] || fail "long has start rows in several files"
startf=$(grep -l '	long	.*	start	' $files)
listenf=$(awk -F'\t' '$2 == "long" && $9 == "listen" { print FILENAME }' $files)
[ -n "$listenf" ] && [ "$startf" != "$listenf" ] || fail "long's listen ($listenf) is not in a later file than its start ($startf)"
ok "busy's 5000 getppid rows across the files; long starts in $startf, listens in $listenf"

# shellcheck disable=SC2086 # the files, in the glob's order (w.tsv first, w.tsv.10 before w.tsv.2)
"$ANALYZE" --format tsv --container long $files > a.tsv 2> a.err || fail "analyze exited $?: $(cat a.err)"
grep -q 'without a start row' a.err && fail "analyze of the whole run: $(cat a.err)"
read -r _ n min _ <<< "$(awk '$1 == "listen"' a.tsv)"
[ "$n" = 1 ] && [ "$min" -ge 1500000000 ] && [ "$min" -lt 3000000000 ] ||
	fail "long: listen count ${n:-0}, at ${min:-none} ns, not once at 1.5 s or more"
"$ANALYZE" --format tsv "$listenf" > /dev/null 2> b.err
grep -q 'without a start row' b.err || fail "$listenf alone: no rows without a start row: $(cat b.err)"
ok "analyze joins long across the files: listen at $min ns; $listenf alone has rows without a start row"
