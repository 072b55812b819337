#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Mode and object selection (--mode auto): the modern object in cgroup mode
# where it can; without kernel BTF, the legacy object in pidtree mode; a
# modern object that does not load falls back to the legacy one with one
# line saying why; forcing the impossible is a clear error. BTF is hidden
# or spoiled by a bind mount in a private mount namespace.
. "$(dirname "$0")/lib.sh"
need_root
col=$(realpath "$COLLECTOR")

meta() { sed -n "s/^# $2=//p" "$1"; }

"$col" -o "$TMP/a.tsv" -- "$TOOLS/getppid_loop" 10 || fail "auto: exit $?"
[ "$(meta "$TMP/a.tsv" mode)/$(meta "$TMP/a.tsv" bpf_object)" = cgroup/modern ] ||
	fail "auto on this host: $(meta "$TMP/a.tsv" mode)/$(meta "$TMP/a.tsv" bpf_object), not cgroup/modern"
ok "auto: cgroup mode, modern object"

# no BTF: the legacy object, pidtree
mkdir "$TMP/empty"
unshare --mount sh -c "mount --bind $TMP/empty /sys/kernel/btf &&
	exec $col -o $TMP/nobtf.tsv -- $TOOLS/getppid_loop 123" 2> "$TMP/nobtf.err" || fail "no BTF: exit $?: $(cat "$TMP/nobtf.err")"
check_tsv "$TMP/nobtf.tsv"
[ "$(meta "$TMP/nobtf.tsv" mode)/$(meta "$TMP/nobtf.tsv" bpf_object)" = pidtree/legacy ] ||
	fail "no BTF: $(meta "$TMP/nobtf.tsv" mode)/$(meta "$TMP/nobtf.tsv" bpf_object), not pidtree/legacy"
[ "$(rows "$TMP/nobtf.tsv" syscall getppid | wc -l)" -eq 123 ] || fail "no BTF: not 123 getppid rows"
unshare --mount sh -c "mount --bind $TMP/empty /sys/kernel/btf && exec $col --mode cgroup -o /dev/null -- true" 2> "$TMP/err"
[ $? -eq 1 ] || fail "--mode cgroup without BTF is not exit 1"
grep -q 'no BTF.*--mode pidtree' "$TMP/err" || fail "--mode cgroup without BTF: $(cat "$TMP/err")"
ok "no BTF: legacy object in pidtree mode; --mode cgroup refused, naming pidtree"

# BTF there but unusable: the modern object does not load
head -c 4096 /dev/urandom > "$TMP/bogus-btf"
unshare --mount sh -c "mount --bind $TMP/bogus-btf /sys/kernel/btf/vmlinux &&
	exec $col -o $TMP/fb.tsv -- $TOOLS/getppid_loop 45" 2> "$TMP/fb.err" || fail "fallback: exit $?: $(cat "$TMP/fb.err")"
check_tsv "$TMP/fb.tsv"
[ "$(meta "$TMP/fb.tsv" bpf_object)" = legacy ] || fail "fallback: object $(meta "$TMP/fb.tsv" bpf_object), not legacy"
[ "$(grep -c 'modern BPF object did not load.*legacy' "$TMP/fb.err")" -eq 1 ] ||
	fail "fallback: not one line saying why: $(cat "$TMP/fb.err")"
[ "$(rows "$TMP/fb.tsv" syscall getppid | wc -l)" -eq 45 ] || fail "fallback: not 45 getppid rows"
ok "a modern object that does not load: legacy, with one line saying why"

"$col" --object legacy --mode cgroup -o /dev/null -- true 2> "$TMP/err2"
[ $? -eq 1 ] && grep -q 'legacy BPF object has no cgroup mode' "$TMP/err2" || fail "--object legacy --mode cgroup: $(cat "$TMP/err2")"
ok "legacy object with cgroup mode refused"
