#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The suite's leftover check (leftovers.sh, suite_leaves_nothing) finds the
# cgroups a test leaves where the tests make them, planted here: a
# Kubernetes pod tree under /kubepods in the v2 hierarchy and in a v1 one,
# one nested under another cgroup in a v1 hierarchy (where a relative
# cgroup path given to runc lands: under its caller's cgroup), and a
# kubepods.slice tree; and says nothing once they are removed. Well under a
# second.
. "$(dirname "$0")/lib.sh"
need_root
. "$(dirname "$0")/leftovers.sh"

cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
v1=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/self/mounts)
[ -n "$cg2" ] || skip "no cgroup v2 hierarchy mounted"
pod=pod0f4e6a1c-leftovers-$$
planted=("$cg2/kubepods/burstable/$pod" "$cg2/kubepods.slice/kubepods-$pod.slice")
[ -n "$v1" ] && planted+=("$v1/kubepods/burstable/$pod" "$v1/lo-host-$$/kubepods/burstable/$pod")
made=()
remove_planted() {
	local d p
	for d in "${made[@]}"; do
		p=$d
		while [ "$p" != "$cg2" ] && [ "$p" != "$v1" ]; do
			rmdir "$p" 2> /dev/null || break
			p=${p%/*}
		done
	done
}
cleanup_hooks+=(remove_planted)

leftovers_begin "$TMP/lo" > /dev/null || fail "leftovers_begin failed"
for d in "${planted[@]}"; do
	p=$d
	while [ ! -d "$p" ]; do made=("$p" "${made[@]}"); p=${p%/*}; done
	mkdir -p "$d" || fail "mkdir $d"
done
left=$(lo_scan "$TMP/lo")
miss=0
for d in "${planted[@]}"; do
	case $d in
	"$cg2"/*) h=${cg2##*/} rel=${d#"$cg2"} ;;
	*) h=${v1##*/} rel=${d#"$v1"} ;;
	esac
	# the top of the new tree is said (its first directory the test made)
	grep -qE "^cgroup /[^ ]*kubepods[^ ]* \\(([^)]*,)?$h(,[^)]*)?\\)\$" <<< "$left" ||
		{ echo "FAIL: $rel ($h) not found in:"; printf '%s\n' "$left" | sed 's/^/  /'; miss=1; }
done >&2
[ $miss -eq 0 ] || fail "the leftover check missed planted cgroups"
ok "planted pod trees found: $(grep -c '^cgroup' <<< "$left") lines (v2, v1, nested in v1, kubepods.slice)"

remove_planted
made=()
left=$(lo_scan "$TMP/lo" | grep "$pod\|lo-host-$$" || true)
[ -z "$left" ] || fail "removed, still said: $left"
ok "removed: nothing said"
