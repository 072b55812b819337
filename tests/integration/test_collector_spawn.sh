#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Spawn the sample service as a container: the TSV has its start, the exec
# of init, the worker's fork and the worker's listen (a child's: what the
# original bpftrace script missed), all attributed to the container.
# modes: cgroup compat pidtree legacy
. "$(dirname "$0")/lib.sh"
need_root

out=$TMP/boot.tsv
"$COLLECTOR" --until listen --name web -o "$out" -- "$OUTPUT/samples/webapp" --warmup-ms 10 ||
	fail "collector exited $?"
check_tsv "$out"

[ "$(rows "$out" start | wc -l)" -eq 1 ] || fail "not one start row"
rows "$out" start | awk -F'\t' '$2 != "web" || $9 != "spawn" { exit 1 }' || fail "start row: $(rows "$out" start)"
init_pid=$(rows "$out" exec | awk -F'\t' 'NR == 1 { print $4 }')
[ -n "$init_pid" ] || fail "no exec row"
rows "$out" exec | head -1 | cut -f12 | grep -q 'samples/webapp$' || fail "exec row has no filename"
worker=$(rows "$out" fork process | awk -F'\t' -v p="$init_pid" '$6 == p { print $4; exit }')
[ -n "$worker" ] || fail "no fork row from init ($init_pid)"
listen=$(rows "$out" syscall listen | awk -F'\t' '$10 == 0')
[ -n "$listen" ] || fail "no successful listen row"
echo "$listen" | awk -F'\t' -v w="$worker" '$4 != w { exit 1 }' || fail "listen not by the worker $worker: $listen"
echo "$listen" | cut -f12 | grep -Eq '^127\.0\.0\.1:[0-9]+$' || fail "listen detail is not the local address: $listen"
rows "$out" syscall bind | cut -f12 | grep -Eq '^127\.0\.0\.1:0$' || fail "bind detail is not the address asked for"
rows "$out" syscall openat | cut -f12 | grep -qx '/etc/hosts' || fail "openat of /etc/hosts missing"
# every row is the container's; the start comes first, the end last
awk -F'\t' '!/^#/ && NR > 1 && $1 ~ /^[0-9]/ && $2 != "web" { exit 1 }' "$out" || fail "a row of another container"
[ "$(grep -v '^#' "$out" | sed -n 2p | cut -f8)" = start ] || fail "the first row is not the start"
[ "$(grep -v '^#' "$out" | tail -1 | cut -f8)" = end ] || fail "the last row is not the end"
rows "$out" exec | head -1 | cut -f3 | { read -r id; cgid_ok "$id"; } || fail "cgroup_id column wrong for mode '$BT_MODE'"
# the start precedes the exec in time
s=$(rows "$out" start | cut -f1); e=$(rows "$out" exec | head -1 | cut -f1)
[ "$s" -lt "$e" ] || fail "start $s not before exec $e"
ok "spawned container: start, exec, fork, child's listen"

# listen's detail: the socket's local address with the port the kernel chose
# (the legacy and compat objects know the bind address only: port 0, as documented)
for kind in inet inet6; do
	"$COLLECTOR" -o "$TMP/$kind.tsv" -- "$TOOLS/listen_once" $kind x "$TMP/$kind.port" ||
		fail "collector -- listen_once $kind exited $?"
	port=$(cat "$TMP/$kind.port")
	perf_object && port=0
	want='127.0.0.1'; [ $kind = inet6 ] && want='[::1]'
	got=$(rows "$TMP/$kind.tsv" syscall listen | cut -f12)
	[ "$got" = "$want:$port" ] || fail "$kind listen detail '$got', not '$want:$port'"
	got=$(rows "$TMP/$kind.tsv" syscall bind | cut -f12)
	[ "$got" = "$want:0" ] || fail "$kind bind detail '$got', not '$want:0'"
done
ok "listen detail: 127.0.0.1:PORT and [::1]:PORT"

# --runs: N containers named NAME-1..N, each with its own start and end
"$COLLECTOR" --runs 3 --until exec --name r -o "$TMP/runs.tsv" -- "$OUTPUT/samples/webapp" 2>/dev/null ||
	fail "collector --runs exited $?"
check_tsv "$TMP/runs.tsv"
[ "$(rows "$TMP/runs.tsv" start | cut -f2 | tr '\n' ' ')" = "r-1 r-2 r-3 " ] || fail "runs not named r-1..r-3"
[ "$(rows "$TMP/runs.tsv" end | wc -l)" -eq 3 ] || fail "not 3 end rows"
ok "--runs 3"

# the command's exit status comes back; its stdout goes to stderr when the TSV is on stdout
"$COLLECTOR" -- /bin/sh -c 'echo to-stdout; exit 7' > "$TMP/stdout.tsv" 2> "$TMP/stderr"
rc=$?
[ $rc -eq 7 ] || fail "exit status $rc, not 7"
grep -q to-stdout "$TMP/stderr" || fail "the command's stdout did not go to stderr"
grep -q to-stdout "$TMP/stdout.tsv" && fail "the command's stdout went into the TSV"
check_tsv "$TMP/stdout.tsv"
rows "$TMP/stdout.tsv" exit | awk -F'\t' '$10 == 7 { f = 1 } END { exit !f }' || fail "no exit row with code 7"
ok "exit status and stdout"

# a collector killed by SIGKILL leaves its cgroups; the next run removes them
cg2=$(cgroup2_mount)
"$COLLECTOR" -o /dev/null -- sleep 30 2>/dev/null & k=$!
for _ in $(seq 100); do [ -d "$cg2/boottrace.$k/sleep" ] && break; sleep 0.05; done
[ -d "$cg2/boottrace.$k/sleep" ] || fail "no cgroup for the spawned sleep"
kill -KILL $k; wait $k 2>/dev/null
echo 1 > "$cg2/boottrace.$k/sleep/cgroup.kill"
for _ in $(seq 100); do [ "$(cat "$cg2/boottrace.$k/sleep/cgroup.procs")" = "" ] && break; sleep 0.05; done
"$COLLECTOR" -o /dev/null -- true 2> "$TMP/stale" || fail "collector after a killed one exited $?"
[ -d "$cg2/boottrace.$k" ] && fail "stale $cg2/boottrace.$k not removed"
grep -q "removed $cg2/boottrace.$k" "$TMP/stale" || fail "no message about the stale cgroup: $(cat "$TMP/stale")"
ok "stale cgroups of a killed collector removed"
