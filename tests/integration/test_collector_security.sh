#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Privileges: without CAP_BPF/CAP_PERFMON the collector names what is
# missing; --user runs the container without root while the collector
# keeps tracing it; an output path that is a planted symlink is refused.
# modes: cgroup pidtree legacy
. "$(dirname "$0")/lib.sh"
need_root

setpriv --inh-caps=-all --bounding-set=-bpf,-perfmon "$COLLECTOR" -o /dev/null -- true 2> "$TMP/err"
rc=$?
[ $rc -eq 1 ] || fail "without CAP_BPF: exit $rc, not 1"
grep -q 'missing capabilities: CAP_BPF, CAP_PERFMON' "$TMP/err" || fail "message: $(cat "$TMP/err")"
ok "missing capabilities named"

chmod 755 "$TMP"
"$COLLECTOR" --user nobody -o "$TMP/u.tsv" -- sh -c 'id -u; cat /etc/shadow > /dev/null 2>&1 && echo READ; exit 0' \
	> "$TMP/u.out" 2>&1 || fail "collector --user exited $?"
check_tsv "$TMP/u.tsv"
grep -qx "$(id -u nobody)" "$TMP/u.out" || fail "--user nobody: the command ran as $(head -1 "$TMP/u.out")"
grep -q READ "$TMP/u.out" && fail "--user nobody could read /etc/shadow"
rows "$TMP/u.tsv" syscall openat | cut -f12 | grep -qx /etc/shadow || fail "the unprivileged container was not traced"
rows "$TMP/u.tsv" syscall openat | awk -F'\t' '$12 == "/etc/shadow" && $10 != -13 { exit 1 }' ||
	fail "open of /etc/shadow did not fail with EACCES"
ok "--user: no root in the container, still traced"

ln -s /etc/passwd-boottrace-test "$TMP/planted"
"$COLLECTOR" -o "$TMP/planted" -- true 2> "$TMP/err2"
[ $? -eq 1 ] || fail "a symlink at -o was not refused"
[ -e /etc/passwd-boottrace-test ] && { rm -f /etc/passwd-boottrace-test; fail "wrote through the symlink"; }
ok "symlink at the output path refused"
