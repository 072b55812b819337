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

# listen's detail: the socket's local address with the port the kernel chose,
# exactly the one the server's getsockname() gives, for a socket bound to
# port 0 and one that listens unbound (autobind: the wildcard address). The
# legacy and compat objects find the port through the fd, in /proc, while
# the socket is open (docs/legacy-object.md): the server holds it until
# --until listen stops it, after its row.
for kind in inet inet6 inet-auto inet6-auto; do
	"$COLLECTOR" --until listen -o "$TMP/$kind.tsv" -- "$TOOLS/listen_once" $kind x "$TMP/$kind.port" hold ||
		fail "collector -- listen_once $kind hold exited $?"
	port=$(cat "$TMP/$kind.port")
	[[ "$port" =~ ^[1-9][0-9]*$ ]] || fail "$kind: listen_once wrote no port: '$port'"
	case $kind in
	inet) want=127.0.0.1 ;; inet6) want='[::1]' ;; inet-auto) want=0.0.0.0 ;; inet6-auto) want='[::]' ;;
	esac
	got=$(rows "$TMP/$kind.tsv" syscall listen | cut -f12)
	[ "$got" = "$want:$port" ] || fail "$kind listen detail '$got', not '$want:$port'"
	got=$(rows "$TMP/$kind.tsv" syscall bind | cut -f12)
	case $kind in
	*-auto) [ -z "$got" ] || fail "$kind: a bind row '$got'" ;;
	*) [ "$got" = "$want:0" ] || fail "$kind bind detail '$got', not '$want:0'" ;;
	esac
done
ok "listen detail: the port chosen, 127.0.0.1:PORT, [::1]:PORT, 0.0.0.0:PORT, [::]:PORT"

# A server that closes its socket at once and exits: the modern object read
# the port in the kernel; the legacy and compat objects keep port 0 (no
# address without a bind) unless the collector read the row before the
# close, which it may: it never shows another port.
for kind in inet inet-auto; do
	"$COLLECTOR" -o "$TMP/$kind.once.tsv" -- "$TOOLS/listen_once" $kind x "$TMP/$kind.once.port" ||
		fail "collector -- listen_once $kind exited $?"
	port=$(cat "$TMP/$kind.once.port")
	want=127.0.0.1 gone=127.0.0.1:0
	[ $kind = inet-auto ] && want=0.0.0.0 gone='\N'
	got=$(rows "$TMP/$kind.once.tsv" syscall listen | cut -f12)
	[ "$got" = "$want:$port" ] || { perf_object && [ "$got" = "$gone" ]; } ||
		fail "$kind, closed at once: listen detail '$got', not '$want:$port'$(perf_object && echo " or '$gone'")"
done
ok "listen detail of a socket closed at once"

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
