#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# An exec row's name is `init` when the task is pid 1 of its own pid
# namespace below the host's (issue 13: a container's entrypoint, not the
# runtime's re-execs), and \N otherwise; the legacy and compat objects
# cannot tell and always write \N. tests/tools/nspid says, after each exec, what the task's
# pid is on the host and in its own namespace: the rows must agree.
# modes: cgroup compat pidtree legacy
. "$(dirname "$0")/lib.sh"
need_root

# check_init TSV PIDS: every exec row of nspid (the first by its name, the
# others by /proc/self/exe, as busybox re-execs itself) matches a line
# "HOSTPID NSPID" of PIDS by its pid column, and is `init` exactly when
# NSPID is 1 in a namespace of its own (HOSTPID != NSPID); \N with the
# legacy object. Prints the number of init rows.
check_init() {
	local tsv=$1 pids=$2 want
	want=$(awk '$1 != $2 && $2 == 1 { n++ } END { print n + 0 }' "$pids")
	rows "$tsv" exec | awk -F'\t' -v legacy="$(perf_object && echo 1)" '
		NR == FNR { split($0, p, " "); ns[p[1]] = p[2]; init[p[1]] = (p[1] != p[2] && p[2] == 1); next }
		$12 !~ /nspid$|^\/proc\/self\/exe$/ { next }
		!($4 in ns) { print "exec row of pid " $4 " that nspid did not see: " $0 > "/dev/stderr"; bad = 1; exit 1 }
		{
			want = init[$4] && !legacy ? "init" : "\\N"
			if ($9 != want) { print "pid " $4 " (ns pid " ns[$4] "): name " $9 ", not " want > "/dev/stderr"; bad = 1; exit 1 }
			seen++; if ($9 == "init") n++
		}
		END { if (bad) exit 1
		      if (seen != length(ns)) { print seen + 0 " exec rows of nspid, not " length(ns) > "/dev/stderr"; exit 1 }
		      print n + 0 }' "$pids" - || return 1
}

# a new pid namespace: nspid is its pid 1, its children (exec of
# /proc/self/exe) are pids 2 and 3
"$COLLECTOR" --unshare pid,mount -o "$TMP/pid.tsv" -- "$TOOLS/nspid" "$TMP/pid.pids" 2 ||
	fail "collector --unshare pid,mount exited $?"
check_tsv "$TMP/pid.tsv"
[ "$(wc -l < "$TMP/pid.pids")" -eq 3 ] || fail "nspid ran $(wc -l < "$TMP/pid.pids") times, not 3"
[ "$(cut -d' ' -f2 "$TMP/pid.pids" | tr '\n' ' ')" = "1 2 3 " ] || fail "ns pids $(cut -d' ' -f2 "$TMP/pid.pids" | tr '\n' ' '), not 1 2 3"
n=$(check_init "$TMP/pid.tsv" "$TMP/pid.pids") || fail "--unshare pid: exec rows disagree with nspid"
want=1; perf_object && want=0
[ "$n" -eq "$want" ] || fail "--unshare pid: $n init rows, not $want"
ok "--unshare pid: the namespace's pid 1 execs as init, its children not"

# namespaces in namespaces: util-linux's unshare makes a pid namespace in
# the container's; its child, pid 1 of that one, is init too (the deepest
# namespace counts), and so is unshare itself (pid 1 of the first)
command -v unshare >/dev/null || skip "no unshare(1) (util-linux)"
"$COLLECTOR" --unshare pid,mount -o "$TMP/nest.tsv" -- unshare --pid --fork "$TOOLS/nspid" "$TMP/nest.pids" 1 ||
	fail "collector -- unshare --pid --fork exited $?"
check_tsv "$TMP/nest.tsv"
[ "$(cut -d' ' -f2 "$TMP/nest.pids" | tr '\n' ' ')" = "1 2 " ] || fail "nested: ns pids $(cut -d' ' -f2 "$TMP/nest.pids" | tr '\n' ' '), not 1 2"
n=$(check_init "$TMP/nest.tsv" "$TMP/nest.pids") || fail "nested pid namespace: exec rows disagree with nspid"
[ "$n" -eq "$want" ] || fail "nested: $n init rows of nspid, not $want"
u=$(rows "$TMP/nest.tsv" exec | awk -F'\t' '$12 ~ /unshare$/ { print $9 }')
want_u=init; perf_object && want_u='\N'
[ "$u" = "$want_u" ] || fail "nested: unshare's exec row says '$u', not '$want_u'"
ok "a pid namespace in the container's: its pid 1 is init too"

# no new pid namespace (a mount namespace alone, then none): no init at all
for u in "--unshare mount" ""; do
	rm -f "$TMP/host.pids"
	# shellcheck disable=SC2086 # $u is zero or two words
	"$COLLECTOR" $u -o "$TMP/host.tsv" -- "$TOOLS/nspid" "$TMP/host.pids" 1 ||
		fail "collector $u exited $?"
	check_tsv "$TMP/host.tsv"
	awk '$1 != $2 { exit 1 }' "$TMP/host.pids" || fail "${u:-no --unshare}: nspid saw a pid namespace: $(cat "$TMP/host.pids")"
	n=$(check_init "$TMP/host.tsv" "$TMP/host.pids") || fail "${u:-no --unshare}: exec rows disagree with nspid"
	[ "$n" -eq 0 ] || fail "${u:-no --unshare}: $n init rows"
	[ -z "$(rows "$TMP/host.tsv" exec init)" ] || fail "${u:-no --unshare}: an init row: $(rows "$TMP/host.tsv" exec init)"
done
ok "the host's pid namespace: no init row"
