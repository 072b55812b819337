#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Mode and object selection, by probing (collector/setup.c): --object auto
# takes the modern object when it loads, else the compat object in cgroup
# mode when the kernel has bpf_get_current_cgroup_id (helper 80) and the
# container a v2 cgroup of its own, else the legacy object in pidtree
# mode; a modern object that does not load is said in one line, and -v
# says why each object was passed over; forcing the impossible is a clear
# error. The fallbacks are forced on this kernel: BTF hidden or spoiled by
# a bind mount in a private mount namespace, and the test knobs
# BOOTTRACE_TEST_NO_MODERN and BOOTTRACE_TEST_NO_CGROUP_ID
# (docs/legacy-object.md).
. "$(dirname "$0")/lib.sh"
need_root
col=$(realpath "$COLLECTOR")

meta() { sed -n "s/^# $2=//p" "$1"; }
# picked NAME FILE MODE/OBJECT N: FILE's mode and object, and N getppid rows
picked() {
	check_tsv "$2"
	[ "$(meta "$2" mode)/$(meta "$2" bpf_object)" = "$3" ] ||
		fail "$1: $(meta "$2" mode)/$(meta "$2" bpf_object), not $3"
	[ "$(rows "$2" syscall getppid | wc -l)" -eq "$4" ] || fail "$1: not $4 getppid rows"
}
# said FILE REGEX N: FILE has N lines matching REGEX
said() { [ "$(grep -Ec "$2" "$1")" -eq "$3" ] || fail "not $3 line(s) /$2/ in: $(grep -v '^libbpf:' "$1")"; }

"$col" -o "$TMP/a.tsv" -- "$TOOLS/getppid_loop" 10 || fail "auto: exit $?"
picked "auto" "$TMP/a.tsv" cgroup/modern 10
ok "auto: cgroup mode, modern object"

# the modern object does not load: compat, one line saying why; -v names it
BOOTTRACE_TEST_NO_MODERN=1 "$col" -v -o "$TMP/nm.tsv" -- "$TOOLS/getppid_loop" 77 2> "$TMP/nm.err" ||
	fail "no modern: exit $?: $(cat "$TMP/nm.err")"
picked "no modern" "$TMP/nm.tsv" cgroup/compat 77
said "$TMP/nm.err" 'modern BPF object did not load \(BOOTTRACE_TEST_NO_MODERN is set\); using the compat object in cgroup mode' 1
said "$TMP/nm.err" '^collector: not the modern BPF object: it did not load' 1
ok "the modern object does not load: the compat object in cgroup mode, said once, and why with -v"

# ... nor has the kernel helper 80: the legacy object, pidtree; -v says why not compat
BOOTTRACE_TEST_NO_MODERN=1 BOOTTRACE_TEST_NO_CGROUP_ID=1 "$col" -v -o "$TMP/nc.tsv" -- \
	"$TOOLS/getppid_loop" 78 2> "$TMP/nc.err" || fail "no modern, no helper 80: exit $?: $(cat "$TMP/nc.err")"
picked "no modern, no helper 80" "$TMP/nc.tsv" pidtree/legacy 78
said "$TMP/nc.err" 'modern BPF object did not load .*; using the legacy object in pidtree mode' 1
said "$TMP/nc.err" '^collector: not the compat BPF object: the kernel has no bpf_get_current_cgroup_id' 1
ok "nor helper 80: the legacy object in pidtree mode; -v says why not compat"

# no BTF: the compat object, cgroup mode (quietly: old kernels have no BTF); --mode cgroup too
mkdir "$TMP/empty"
nobtf() { unshare --mount sh -c "mount --bind $TMP/empty /sys/kernel/btf && exec \"\$@\"" sh "$@"; }
nobtf "$col" -o "$TMP/nobtf.tsv" -- "$TOOLS/getppid_loop" 123 2> "$TMP/nobtf.err" ||
	fail "no BTF: exit $?: $(cat "$TMP/nobtf.err")"
picked "no BTF" "$TMP/nobtf.tsv" cgroup/compat 123
[ -n "$(without_kernel_notes "$TMP/nobtf.err")" ] && fail "no BTF: said something: $(cat "$TMP/nobtf.err")"
nobtf "$col" --mode cgroup -o "$TMP/nobtf2.tsv" -- "$TOOLS/getppid_loop" 12 || fail "no BTF, --mode cgroup: exit $?"
picked "no BTF, --mode cgroup" "$TMP/nobtf2.tsv" cgroup/compat 12
BOOTTRACE_TEST_NO_CGROUP_ID=1 nobtf "$col" -o "$TMP/nobtf3.tsv" -- "$TOOLS/getppid_loop" 13 ||
	fail "no BTF, no helper 80: exit $?"
picked "no BTF, no helper 80" "$TMP/nobtf3.tsv" pidtree/legacy 13
BOOTTRACE_TEST_NO_CGROUP_ID=1 nobtf "$col" --mode cgroup -o /dev/null -- true 2> "$TMP/err"
[ $? -eq 1 ] || fail "--mode cgroup without BTF and helper 80 is not exit 1"
grep -q 'needs bpf_get_current_cgroup_id (kernel 4.18).*--mode pidtree' "$TMP/err" ||
	fail "--mode cgroup without BTF and helper 80: $(cat "$TMP/err")"
nobtf "$col" --object modern -o /dev/null -- true 2> "$TMP/err"
[ $? -eq 1 ] && grep -q 'modern BPF object needs kernel BTF' "$TMP/err" || fail "--object modern without BTF: $(cat "$TMP/err")"
ok "no BTF: compat object in cgroup mode; without helper 80 legacy, --mode cgroup refused naming pidtree"

# BTF there but unusable: the modern object does not load (for real), compat takes over
head -c 4096 /dev/urandom > "$TMP/bogus-btf"
unshare --mount sh -c "mount --bind $TMP/bogus-btf /sys/kernel/btf/vmlinux &&
	exec $col -o $TMP/fb.tsv -- $TOOLS/getppid_loop 45" 2> "$TMP/fb.err" || fail "fallback: exit $?: $(cat "$TMP/fb.err")"
picked "bogus BTF" "$TMP/fb.tsv" cgroup/compat 45
said "$TMP/fb.err" 'modern BPF object did not load.*using the compat object in cgroup mode' 1
ok "a modern object that does not load: compat, with one line saying why"

# forced objects
"$col" --object compat --mode pidtree -o "$TMP/cp.tsv" -- "$TOOLS/getppid_loop" 21 || fail "--object compat --mode pidtree: exit $?"
picked "--object compat --mode pidtree" "$TMP/cp.tsv" pidtree/compat 21
BOOTTRACE_TEST_NO_MODERN=1 "$col" --object modern -o /dev/null -- true 2> "$TMP/err"
[ $? -eq 1 ] && grep -q 'modern BPF object did not load' "$TMP/err" || fail "--object modern that does not load: $(cat "$TMP/err")"
BOOTTRACE_TEST_NO_CGROUP_ID=1 "$col" --object compat -o /dev/null -- true 2> "$TMP/err"
[ $? -eq 1 ] && grep -q 'compat BPF object needs bpf_get_current_cgroup_id' "$TMP/err" ||
	fail "--object compat without helper 80: $(cat "$TMP/err")"
"$col" --object legacy --mode cgroup -o /dev/null -- true 2> "$TMP/err2"
[ $? -eq 1 ] && grep -q 'legacy BPF object has no cgroup mode' "$TMP/err2" || fail "--object legacy --mode cgroup: $(cat "$TMP/err2")"
ok "forced: compat in pidtree mode works; modern, compat and legacy refuse what they cannot, exit 1"
