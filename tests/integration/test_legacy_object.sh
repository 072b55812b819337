#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The legacy object (bpf/boottrace_legacy.bpf.c) is 4.15-safe and works:
# tests/tools/bpfcheck accepts it (minimum kernel 4.15) and refuses
# tests/bpf/bad_legacy.bpf.c naming each of its problems and the release
# it needs (and refuses the modern object); then, as root, the object
# loads on this kernel through backend_legacy_open():
# exact record counts for a traced tree, roots found by namespace in
# watch mode, tracefs mounted when absent, a clear error when it cannot
# be, and the collector's --object legacy end to end.
. "$(dirname "$0")/lib.sh"

CHECK=$TOOLS/bpfcheck
LEGACY=$OUTPUT/boottrace_legacy.bpf.o
BAD=$OUTPUT/tests/bad_legacy.bpf.o
for f in "$CHECK" "$LEGACY" "$BAD" "$TOOLS/legacy_pidtree"; do
	[ -e "$f" ] || fail "$f not built (make all)"
done

# --- static: bpfcheck --------------------------------------------------------

"$CHECK" -v "$LEGACY" > "$TMP/good" 2>&1 || fail "bpfcheck refuses the legacy object: $(cat "$TMP/good")"
# 7 tracepoint programs, the 5 of the scheduler rows (bpf/sched_legacy.bpf.h: two
# sched_switch programs, one per tracepoint layout) and the 8 copies of the mark
# program (bpf/marks_legacy.bpf.h)
grep -Eq "^bpfcheck: .*: ok \(20 programs, max [0-9]+ insns, minimum kernel 4\.15: nothing newer than 4\.15" "$TMP/good" ||
	fail "no ok line: $(cat "$TMP/good")"
awk '/ insns$/ && $(NF - 1) + 0 >= 4096 { exit 1 } / insns$/ { n++ } END { exit n != 20 }' "$TMP/good" ||
	fail "instruction counts: $(cat "$TMP/good")"
[ "$(grep -Ec '^bpfcheck: .*: prog bt_mark_[0-7] \(uprobe\): [0-9]+ insns$' "$TMP/good")" -eq 8 ] ||
	fail "not 8 mark programs (bt_mark_0..7, SEC uprobe): $(cat "$TMP/good")"
ok "bpfcheck accepts the legacy object: $(tail -1 "$TMP/good" | sed 's/.*: ok //')"

"$CHECK" "$BAD" > "$TMP/bad" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "bpfcheck on the bad object: exit $rc, not 1: $(cat "$TMP/bad")"
expect_problem() { # expect_problem WHAT REGEX
	grep -Eq "$2" "$TMP/bad" || fail "bpfcheck does not name $1 in the bad object: $(cat "$TMP/bad")"
}
expect_problem "the ring buffer map" '^bpfcheck: .*: map bad_ringbuf: type ringbuf \(27\): needs 5\.8$'
expect_problem "the global variable" 'prog bad_prog \(tracepoint/syscalls/sys_enter_getpid\): insn [0-9]+: global variable bad_counter in \.bss \(global data\): needs 5\.2$'
expect_problem "the .bss section" 'section \.bss: global data .*: needs 5\.2$'
expect_problem "the loop" 'prog bad_prog \(.*\): insn [0-9]+: back-edge to insn [0-9]+: a loop .*: needs 5\.3$'
expect_problem "the helper > 57" 'prog bad_prog \(.*\): insn [0-9]+: call to helper 125 \(bpf_ktime_get_boot_ns\): needs 5\.8$'
expect_problem "the BPF-to-BPF call" 'prog bad_prog \(.*\): insn [0-9]+: BPF-to-BPF call to bad_subprog .*: needs 4\.16$'
expect_problem "the CO-RE read" 'prog bad_prog \(.*\): insn [0-9]+: CO-RE relocation \(field_byte_offset of task_struct.*: needs 5\.4$'
expect_problem "the map key in a map value" "prog bad_key_prog \\(.*\\): insn [0-9]+: bpf_map_delete_elem's key in a map value .*: needs 4\\.18$"
expect_problem "the tp_btf program" 'section tp_btf/sched_process_exit: program type BTF-typed tracepoints .*: needs 5\.5$'
expect_problem "its floor" '^bpfcheck: .*: minimum kernel 5\.8: insn [0-9]+: call to helper 125'
[ "$(grep -c '^bpfcheck: ' "$TMP/bad")" -eq "$(wc -l < "$TMP/bad")" ] || fail "bpfcheck: not one line per problem"
ok "bpfcheck refuses the bad object: $(($(wc -l < "$TMP/bad") - 1)) problems, each named with the release it needs"

if [ -e "$OUTPUT/boottrace.bpf.o" ]; then
	"$CHECK" "$OUTPUT/boottrace.bpf.o" > "$TMP/modern" 2>&1
	[ $? -eq 1 ] && grep -q 'program type BTF-typed tracepoints .*: needs 5\.5$' "$TMP/modern" ||
		fail "bpfcheck lets the modern object through: $(head -5 "$TMP/modern")"
	ok "bpfcheck refuses the modern object ($(wc -l < "$TMP/modern") problems)"
fi

"$CHECK" > /dev/null 2>&1; [ $? -eq 2 ] || fail "bpfcheck without an object: not exit 2"
"$CHECK" --kernel x "$LEGACY" > /dev/null 2>&1; [ $? -eq 2 ] || fail "bad --kernel: not exit 2"
"$CHECK" --kernel 4.14 "$LEGACY" > /dev/null 2>&1; [ $? -eq 2 ] || fail "--kernel below 4.15: not exit 2"
"$CHECK" /etc/hostname > /dev/null 2>&1; [ $? -eq 2 ] || fail "a file that is not ELF: not exit 2"
"$CHECK" --help | grep -q '^usage: bpfcheck' || fail "bpfcheck --help"
"$CHECK" --kernel 5.8 "$BAD" | grep -q 'call to helper 125 .*: needs' && fail "--kernel 5.8 still refuses helper 125"
ok "bpfcheck usage and exit codes"

# --- loaded for real ----------------------------------------------------------

[ "$(id -u)" -eq 0 ] || skip "needs root to load the legacy object"

"$TOOLS/legacy_pidtree" tree 4000 1500 700 > "$TMP/tree" 2>&1 || fail "legacy_pidtree tree: $(cat "$TMP/tree")"
grep -q '^ok - 4000 getppid records of the child' "$TMP/tree" || fail "$(cat "$TMP/tree")"
ok "backend_legacy_open, pidtree: 4000 + 1500 + 700 getppid records, forks, exits, BT_EV_GONE, none lost"

"$TOOLS/legacy_pidtree" watch 2000 > "$TMP/watch" 2>&1 || fail "legacy_pidtree watch: $(cat "$TMP/watch")"
ok "backend_legacy_open, watch: roots by unshare(CLONE_NEWNS) and unshare(CLONE_NEWPID), 2000 each"

# tracefs absent: the backend mounts it (in a mount namespace of our own)
command -v unshare > /dev/null || fail "unshare(1) missing"
unshare --mount --propagation private sh -c '
	for m in $(awk "\$3 == \"tracefs\" { print \$2 }" /proc/self/mounts | sort -r); do
		umount -l "$m" || exit 9
	done
	awk "\$3 == \"tracefs\" { exit 1 }" /proc/self/mounts || exit 9
	"$0" tree 100 10 10 > /dev/null || exit 1
	awk "\$2 == \"/sys/kernel/tracing\" && \$3 == \"tracefs\" { f = 1 } END { exit !f }" /proc/self/mounts
' "$TOOLS/legacy_pidtree" > "$TMP/mnt" 2>&1
rc=$?
[ $rc -ne 9 ] || fail "cannot unmount tracefs in a mount namespace: $(cat "$TMP/mnt")"
[ $rc -eq 0 ] || fail "without tracefs mounted (exit $rc): $(cat "$TMP/mnt")"
ok "tracefs not mounted: mounted at /sys/kernel/tracing, and the object works"

# tracefs cannot be mounted: a clear error, not a crash
unshare --mount --propagation private sh -c '
	for m in $(awk "\$3 == \"tracefs\" { print \$2 }" /proc/self/mounts | sort -r); do
		umount -l "$m" || exit 9
	done
	mount -t tmpfs none /sys/kernel || exit 9
	exec "$0" tree 1 1 1
' "$TOOLS/legacy_pidtree" > "$TMP/nomnt" 2>&1
rc=$?
[ $rc -ne 9 ] || fail "cannot hide tracefs in a mount namespace: $(cat "$TMP/nomnt")"
[ $rc -eq 1 ] || fail "tracefs unmountable: exit $rc, not 1: $(cat "$TMP/nomnt")"
grep -q '^collector: no tracefs mounted and no /sys/kernel/tracing to mount it on' "$TMP/nomnt" ||
	fail "tracefs unmountable: no clear message: $(cat "$TMP/nomnt")"
ok "tracefs unmountable: '$(grep '^collector:' "$TMP/nomnt" | head -1)'"

# through the collector, where it has the legacy object
if "$OUTPUT/collector" --help 2>&1 | grep -q -- '--object'; then
	"$OUTPUT/collector" --mode pidtree --object legacy -o "$TMP/c.tsv" -- "$TOOLS/getppid_loop" 3456 ||
		fail "collector --object legacy exited $?"
	check_tsv "$TMP/c.tsv"
	grep -q '^# mode=pidtree$' "$TMP/c.tsv" || fail "collector --object legacy: not mode=pidtree"
	# the process's own: under ASan, LeakSanitizer's tracer (a clone) calls getppid too
	p=$(rows "$TMP/c.tsv" exec | awk -F'\t' '$12 ~ /getppid_loop$/ { print $4; exit }')
	n=$(rows "$TMP/c.tsv" syscall getppid | awk -F'\t' -v p="$p" '$4 == p' | wc -l)
	[ "$n" -eq 3456 ] || fail "collector --object legacy: $n getppid rows, not 3456"
	rows "$TMP/c.tsv" exit | awk -F'\t' '$10 == 0 { f = 1 } END { exit !f }' || fail "no exit row with code 0"
	rows "$TMP/c.tsv" end | grep -q . || fail "no end row"
	ok "collector --mode pidtree --object legacy: exactly 3456 getppid rows"
fi
