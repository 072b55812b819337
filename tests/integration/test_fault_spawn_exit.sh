#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Spawned containers that end at once: /bin/true, /bin/false, a command
# killed by a signal at its start, --runs of /bin/true, /bin/true in fresh
# namespaces; and commands that cannot run: one that does not exist, one
# that is not executable, a directory (127 and 126, as env(1) and the
# shells say). Each time: the documented exit code,
# a whole TSV (start ... end, trailer), a clear message naming the command
# when it cannot run, and no cgroup left under the cgroup2 mount (neither
# the collector's boottrace.PID nor anything new at all).
# modes: cgroup compat pidtree legacy
. "$(dirname "$0")/lib.sh"
need_root
cg2=$(cgroup2_mount)

# The cgroup directories, but those of other tests and other collectors
# that may run at the same time (boottrace-test.*, boottrace.PID of a
# collector other than ours).
snapshot() {
	find "$cg2" -mindepth 1 -maxdepth 2 -type d 2>/dev/null | grep -v '/boottrace-test\.' |
		awk -v mine="$cg2/boottrace.$1" 'index($0, "/boottrace.") == 0 || index($0, mine) == 1' | sort
}
# spawn WANT-EXIT WHAT ARGS...: run the collector, check exit, TSV, cgroups
spawn() {
	local want=$1 what=$2 rc before after cpid _ hung=
	shift 2
	before=$(snapshot none)
	"$COLLECTOR" -o "$TMP/s.tsv" "$@" > "$TMP/out" 2> "$TMP/err" & cpid=$!
	for _ in $(seq $((${SPAWN_TIMEOUT:-60} * 20))); do
		kill -0 $cpid 2>/dev/null || break
		sleep 0.05
	done
	kill -0 $cpid 2>/dev/null && hung=1 && kill -KILL $cpid
	wait $cpid; rc=$?
	[ -z "$hung" ] || fail "$what: collector still running after ${SPAWN_TIMEOUT:-60} s (killed)"
	case " $want " in *" $rc "*) ;; *) fail "$what: exit $rc, not $want: $(cat "$TMP/err")" ;; esac
	check_tsv "$TMP/s.tsv"
	[ "$(rows "$TMP/s.tsv" start | wc -l)" -ge 1 ] || fail "$what: no start row"
	[ "$(grep -v '^#' "$TMP/s.tsv" | tail -1 | cut -f8)" = end ] || fail "$what: the last row is not an end"
	[ "$(rows "$TMP/s.tsv" start | wc -l)" -eq "$(rows "$TMP/s.tsv" end | wc -l)" ] ||
		fail "$what: $(rows "$TMP/s.tsv" start | wc -l) starts, $(rows "$TMP/s.tsv" end | wc -l) ends"
	after=$(snapshot $cpid)
	[ "$before" = "$after" ] || fail "$what: cgroups left behind: $(comm -13 <(echo "$before") <(echo "$after") | tr '\n' ' ')"
	echo "   $what: exit $rc, $(rows "$TMP/s.tsv" start | wc -l) container(s)"
}

spawn 0 "/bin/true" -- /bin/true
rows "$TMP/s.tsv" exec | cut -f12 | grep -qx /bin/true || fail "/bin/true: no exec row"
rows "$TMP/s.tsv" exit | awk -F'\t' '$10 == 0 { f = 1 } END { exit !f }' || fail "/bin/true: no exit row with 0"
spawn 1 "/bin/false" -- /bin/false
spawn 137 "killed at its start" -- /bin/sh -c 'kill -KILL $$'
spawn 0 "--runs 5 /bin/true" --runs 5 -- /bin/true
[ "$(rows "$TMP/s.tsv" start | wc -l)" -eq 5 ] || fail "--runs 5: not 5 containers"
spawn 0 "/bin/true in new namespaces" --unshare pid,mount,net,uts,ipc -- /bin/true
spawn 0 "--until exec of /bin/true" --until exec -- /bin/true
ok "commands that end at once: exit codes, whole TSVs, no cgroup left"

# A command that makes a cgroup of its own inside the container's (as
# systemd, runc or a nested collector do) and exits: the collector ends the
# container, removes both cgroups, exits. 10 s is plenty.
nest="nest-$$"
cleanup_hooks+=('for d in "$cg2"/boottrace.*/"$nest"; do [ -d "$d" ] || continue; rmdir "$d"/* 2>/dev/null; echo 1 > "$d/cgroup.kill"; sleep 0.1; rmdir "$d" "${d%/*}" 2>/dev/null; done')
SPAWN_TIMEOUT=10 spawn 0 "a command that makes a sub-cgroup, then exits" --name "$nest" -- \
	sh -c "mkdir \$(awk -F: '\$1 == 0 { print \"$cg2\" \$3 }' /proc/self/cgroup)/inner"
ok "a container with its own sub-cgroup: the collector removes both and exits"

# Commands that cannot run: as env(1), timeout(1) and the shells, 127 when
# the command is not there, 126 when it is there but cannot be executed,
# and "collector: cannot run 'CMD': <strerror>" on standard error.
cantrun() { # cantrun WANT-EXIT WHAT REASON-REGEX [COLLECTOR-OPTIONS... --] COMMAND...
	local want=$1 what=$2 re=$3 cmd
	shift 3
	case " $* " in *" -- "*) spawn "$want" "$what" "$@" ;; *) spawn "$want" "$what" -- "$@" ;; esac
	cmd=$1
	while [ $# -gt 0 ]; do [ "$1" = -- ] && { cmd=$2; break; }; shift; done
	grep -F -q -- "collector: cannot run '$cmd': " "$TMP/err" ||
		fail "$what: no \"collector: cannot run '$cmd': \" message: $(cat "$TMP/err")"
	grep -Eiq -- "$re" "$TMP/err" || fail "$what: the message does not say /$re/: $(cat "$TMP/err")"
	[ "$(grep -c . "$TMP/err")" -le 3 ] || fail "$what: more than 3 lines of messages: $(cat "$TMP/err")"
	rows "$TMP/s.tsv" exit | awk -F'\t' -v w="$want" '$10 == w { f = 1 } END { exit !f }' ||
		fail "$what: no exit row with status $want"
	echo "   message: $(head -1 "$TMP/err")"
}
cantrun 127 "a command that does not exist" "no such file" /nonexistent/boottrace-no-such-command
cantrun 127 "a name not in PATH" "no such file" boottrace-no-such-command-in-path
printf '#!/bin/sh\necho hi\n' > "$TMP/noexec.sh"; chmod 0644 "$TMP/noexec.sh"
cantrun 126 "a file that is not executable" "permission denied" "$TMP/noexec.sh"
mkdir "$TMP/adir"
cantrun 126 "a directory" "permission denied|is a directory" "$TMP/adir"
mkdir "$TMP/bin"; cp "$TMP/noexec.sh" "$TMP/bin/boottrace-noexec"
PATH=$TMP/bin:$PATH cantrun 126 "a name found in PATH, not executable" "permission denied" boottrace-noexec
cantrun 127 "--until listen, --runs 3, a command that does not exist" "no such file" \
	--until listen --runs 3 -- /nonexistent/boottrace-no-such-command
[ "$(rows "$TMP/s.tsv" start | wc -l)" -eq 1 ] || fail "--runs 3 of a missing command: not 1 container"
printf '#!/bin/sh\nexit 126\n' > "$TMP/exits126"; chmod 0755 "$TMP/exits126"
spawn 126 "a command that exits 126 itself" -- "$TMP/exits126"
! grep -q 'cannot run' "$TMP/err" || fail "a command that exits 126: a 'cannot run' message: $(cat "$TMP/err")"
ok "commands that cannot run: exit 127 (not found) or 126 (not executable), clear message, no cgroup left"
