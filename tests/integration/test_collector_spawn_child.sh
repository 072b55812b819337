#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Between a spawn's start row and its exec row, the container's first
# process does only what a runtime does there (issue 22): with --user it
# sets the groups and ids the collector looked up before the fork, then
# execs: no /etc/passwd, /etc/group, nsswitch.conf, libnss_*, nscd socket
# of its own (initgroups() in the child made ~340 rows), no cgroup.procs,
# no signal calls, no dup2 when the TSV is on stdout, no PATH search. Both
# ways of starting it: clone3 into its cgroup and namespaces, and the old
# fork + cgroup.procs + unshare (BOOTTRACE_TEST_NO_CLONE3=1, what kernels
# before 5.7 get). And the command really runs as the user, with exactly
# the user's groups (as id(1) finds them through NSS, outside the
# collector).
# modes: cgroup compat pidtree legacy
. "$(dirname "$0")/lib.sh"
need_root

# before_exec TSV: the container's rows after its start row and before its
# first exec row, in time order (the perf objects' rows are in order per
# CPU only), one "event name ret<TAB>detail" line each; not the scheduler
# rows, nor the off-CPU stack rows they name (when the child waited for a
# CPU or blocked, in mount(2) say, is the kernel's doing, not a call of
# the collector's: a CI run's child blocked once there, its stack row
# among the calls)
before_exec() {
	awk -F'\t' '!/^#/ && $1 ~ /^[0-9]+$/' "$1" | sort -n -k1,1 | awk -F'\t' '
		$8 == "start" { on = 1; next }
		$8 == "exec" { exit }
		on && $8 != "sched" && $8 != "stack" { print $8 " " $9 " " $10 "\t" $12 }'
}

# check_rows TSV WANT WHAT: the rows before the exec are exactly WANT (one
# "event name ret" per line); pidtree mode may have one more first, the
# read of the collector's "g" (ret 1) when the child entered it after its
# registration (a preemption between its "ready" and that read)
check_rows() {
	local got
	got=$(before_exec "$1")
	echo "$got" | cut -f2 | grep -Eiq 'passwd|group|nsswitch|libnss|nscd|ld\.so|cgroup' &&
		fail "$3: the child touched the collector's files: $(echo "$got" | tr '\n\t' '; ')"
	echo "$got" | grep -Eq '^syscall (socket|connect|openat|open|mmap|rt_sigaction|rt_sigprocmask|dup2|dup3) ' &&
		fail "$3: the child made calls of the collector's: $(echo "$got" | tr '\n\t' '; ')"
	got=$(echo "$got" | cut -f1)
	if ! cgroup_mode; then got=$(echo "$got" | sed '1{/^syscall read 1$/d}'); fi
	# an ASan build: __asan_handle_no_return asks sigaltstack for the stack's bounds
	[ -z "$asan" ] || got=$(echo "$got" | grep -vx 'syscall sigaltstack 0')
	[ "$got" = "$2" ] || fail "$3: rows before the exec: $(echo "$got" | tr '\n' ';') not $(echo "$2" | tr '\n' ';')"
}

asan=$(ldd "$OUTPUT/collector" 2>/dev/null | grep libasan)
user_rows='syscall setgroups 0
syscall setgid 0
syscall setuid 0
syscall execve 0'

# a user with supplementary groups: the first member of a group in /etc/group
# (postgres in ssl-cert, where scripts/install-deps.sh installed postgresql)
member=$(awk -F: '$4 != "" { split($4, m, ","); print m[1] }' /etc/group |
	while read -r u; do id -u "$u" > /dev/null 2>&1 && { echo "$u"; break; }; done)
users="nobody $member"
[ -n "$member" ] || echo "# SKIP the check of supplementary groups: no user is a member of a group" >&2
[ -z "$member" ] || [ "$(id -G "$member" | wc -w)" -gt 1 ] || fail "id -G $member: no supplementary group"

for way in clone3 fork; do
	knob=0; [ $way = fork ] && knob=1
	export BOOTTRACE_TEST_NO_CLONE3=$knob

	"$COLLECTOR" --user nobody -o "$TMP/$way.tsv" -- /bin/true || fail "$way: collector --user nobody exited $?"
	check_tsv "$TMP/$way.tsv"
	check_rows "$TMP/$way.tsv" "$user_rows" "$way, --user nobody"
	# the TSV on stdout: the command's stdout is stderr already, no dup2 in the child
	"$COLLECTOR" --user nobody -- /bin/true > "$TMP/$way.stdout.tsv" || fail "$way: collector > file exited $?"
	check_tsv "$TMP/$way.stdout.tsv"
	check_rows "$TMP/$way.stdout.tsv" "$user_rows" "$way, --user nobody, TSV on stdout"
	# no --user, found on PATH: the exec alone
	"$COLLECTOR" -o "$TMP/$way.root.tsv" -- true || fail "$way: collector -- true exited $?"
	check_rows "$TMP/$way.root.tsv" "syscall execve 0" "$way, no --user"
	rows "$TMP/$way.root.tsv" syscall execve | cut -f12 | grep -qx "$(type -P true)" ||
		fail "$way: true not exec'd as $(type -P true): $(rows "$TMP/$way.root.tsv" syscall execve | cut -f12)"
	ok "$way: before the exec, the container's first process only sets its user and execs"

	for u in $users; do
		"$COLLECTOR" --user "$u" -o "$TMP/$way.id.tsv" -- sh -c 'id -u; id -g; id -G' > "$TMP/$way.id" ||
			fail "$way: collector --user $u -- id exited $?"
		want=$(printf '%s\n%s\n%s\n' "$(id -u "$u")" "$(id -g "$u")" "$(id -G "$u" | tr ' ' '\n' | sort -n | tr '\n' ' ')")
		got=$(sed -n 1,2p "$TMP/$way.id"; sed -n 3p "$TMP/$way.id" | tr ' ' '\n' | sort -n | tr '\n' ' ')
		[ "$got" = "$want" ] || fail "$way: --user $u ran with uid, gid, groups $(echo "$got" | tr '\n' '/') not $(echo "$want" | tr '\n' '/')"
	done
	ok "$way: --user runs as the user, with its groups ($users)"
done

# --unshare: with clone3 the namespaces come with the child, which is the
# new pid namespace's init itself (its parent is the collector, the start
# row's pid); in it only / made private (a runtime's own step). The old way
# unshares in the child, whose child is the init: both ways were taken.
for way in clone3 fork; do
	knob=0; [ $way = fork ] && knob=1
	BOOTTRACE_TEST_NO_CLONE3=$knob "$COLLECTOR" --unshare pid,mount,net,uts,ipc --user nobody \
		-o "$TMP/$way.ns.tsv" -- /bin/true || fail "$way: collector --unshare exited $?"
	check_tsv "$TMP/$way.ns.tsv"
	spawner=$(rows "$TMP/$way.ns.tsv" start | cut -f4)
	parent=$(rows "$TMP/$way.ns.tsv" exec | head -1 | cut -f6)
	if [ $way = clone3 ]; then
		check_rows "$TMP/$way.ns.tsv" "syscall mount 0
$user_rows" "clone3, --unshare"
		[ "$parent" = "$spawner" ] || fail "clone3, --unshare: the init's parent is $parent, not the collector ($spawner)"
	else
		before_exec "$TMP/$way.ns.tsv" | cut -f1 | grep -v '^syscall read 1$' | head -2 | tr '\n' ';' |
			grep -qx 'syscall unshare 0;syscall mount 0;' ||
			fail "fork, --unshare: no unshare, then mount, in the child: $(before_exec "$TMP/$way.ns.tsv" | tr '\n\t' '; ')"
		[ "$parent" != "$spawner" ] || fail "fork, --unshare: the init is the collector's child"
	fi
done
ok "--unshare pid,mount,net,uts,ipc: clone3 makes the namespaces (only mount, MS_PRIVATE, in the child); the old way unshares"
