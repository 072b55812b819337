#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Each BPF object's minimum kernel, proved from its ELF by bpfcheck's
# table of helper ids, map types, program types and attach kinds by the
# release that first had them (tests/tools/kernel_features.h): the legacy
# object 4.15, the compat object 4.18 (bpf_get_current_cgroup_id, helper
# 80), the modern object 5.15 (bpf_task_pt_regs, helper 175, and
# bpf_get_attach_cookie, 174). Each loads at its floor and is refused one
# release below, naming what needs more; a bad object's problems depend on
# the kernel asked for. No root needed: these are the kernels that cannot be
# had here (README: Requirements).
. "$(dirname "$0")/lib.sh"

CHECK=$TOOLS/bpfcheck
LEGACY=$OUTPUT/boottrace_legacy.bpf.o
COMPAT=$OUTPUT/boottrace_compat.bpf.o
MODERN=$OUTPUT/boottrace.bpf.o
BAD=$OUTPUT/tests/bad_legacy.bpf.o
for f in "$CHECK" "$LEGACY" "$COMPAT" "$MODERN" "$BAD"; do
	[ -e "$f" ] || fail "$f not built (make all)"
done

# floor OBJ VERSION REGEX: bpfcheck --floor says VERSION, for a reason matching REGEX
floor() {
	local out
	out=$("$CHECK" --floor "$1") || fail "bpfcheck --floor $1 exited $?: $out"
	[ "$(echo "$out" | wc -l)" -eq 1 ] || fail "bpfcheck --floor $1: not one line: $out"
	echo "$out" | grep -Eq "^bpfcheck: $1: minimum kernel $2: $3" || fail "floor of $1: $out, not $2 ($3)"
}
floor "$LEGACY" 4.15 'nothing newer than 4\.15'
floor "$COMPAT" 4.18 'insn [0-9]+: call to helper 80 \(bpf_get_current_cgroup_id\)'
floor "$MODERN" 5.15 'insn [0-9]+: call to helper 17[45] \(bpf_(get_attach_cookie|task_pt_regs)\)'
floor "$BAD" 5.8 'insn [0-9]+: call to helper 125 \(bpf_ktime_get_boot_ns\)'
ok "floors: legacy 4.15, compat 4.18, modern 5.15 (and the bad object 5.8)"

# at its floor, an object is clean; a release below, refused, one line per use
"$CHECK" --kernel 4.18 "$COMPAT" > "$TMP/c" || fail "compat at 4.18: $(cat "$TMP/c")"
grep -Eq "^bpfcheck: .*: ok \(24 programs, max [0-9]+ insns, minimum kernel 4\.18: " "$TMP/c" ||
	fail "compat at 4.18: $(cat "$TMP/c")"
"$CHECK" --kernel 4.17 "$COMPAT" > "$TMP/c17"
[ $? -eq 1 ] || fail "compat at 4.17: not refused"
# the helpers, and nothing else: every problem line is a call to helper 80,
# or --profile's bpf_get_stack (helper 67, 4.18) in bt_profile
grep -v ': minimum kernel ' "$TMP/c17" | grep -Ev ': call to helper 80 \(bpf_get_current_cgroup_id\): needs 4\.18$' |
	grep -Ev ': prog bt_profile \(perf_event\): insn [0-9]+: call to helper 67 \(bpf_get_stack\): needs 4\.18$' &&
	fail "compat at 4.17: a problem other than helpers 80 and 67"
[ "$(grep -c 'prog bt_profile .*call to helper 67 .*: needs 4\.18$' "$TMP/c17")" -eq 2 ] ||
	fail "compat at 4.17: bt_profile's two bpf_get_stack calls not named: $(cat "$TMP/c17")"
[ "$(grep -c 'call to helper 80 .*: needs 4\.18$' "$TMP/c17")" -ge 6 ] ||
	fail "compat at 4.17: helper 80 not named in each program that calls it: $(cat "$TMP/c17")"
ok "compat object: clean at 4.18; at 4.17 only helpers 80 and 67 are refused ($(grep -c 'needs 4\.18' "$TMP/c17") calls)"

"$CHECK" --kernel 5.15 "$MODERN" > "$TMP/m" || fail "modern at 5.15: $(cat "$TMP/m")"
grep -Eq "^bpfcheck: .*: ok \([0-9]+ programs, max [0-9]+ insns, minimum kernel 5\.15: " "$TMP/m" ||
	fail "modern at 5.15: $(cat "$TMP/m")"
"$CHECK" --kernel 5.14 "$MODERN" > "$TMP/m14"
[ $? -eq 1 ] || fail "modern at 5.14: not refused"
grep -q 'prog bt_exit (tp_btf/sched_process_exit): insn [0-9]*: call to helper 175 (bpf_task_pt_regs): needs 5\.15$' \
	"$TMP/m14" || fail "modern at 5.14: bpf_task_pt_regs not named: $(cat "$TMP/m14")"
grep -v ': minimum kernel ' "$TMP/m14" | grep -v ': needs 5\.15$' && fail "modern at 5.14: a problem not of 5.15"
ok "modern object: clean at 5.15; at 5.14 refused for bpf_task_pt_regs and bpf_get_attach_cookie"

"$CHECK" "$LEGACY" > "$TMP/l" || fail "legacy at 4.15: $(cat "$TMP/l")"
"$CHECK" "$COMPAT" "$MODERN" > /dev/null
[ $? -eq 1 ] || fail "compat and modern at 4.15: not refused"
ok "at 4.15 (the default): legacy clean, compat and modern refused"

# what a kernel allows depends on it: the map key in a map value is 4.15's problem, not 4.18's
"$CHECK" --kernel 4.15 "$BAD" > "$TMP/b15"
"$CHECK" --kernel 4.18 "$BAD" > "$TMP/b18"
grep -q "bpf_map_delete_elem's key in a map value .*: needs 4\.18$" "$TMP/b15" || fail "bad at 4.15: no map-value key"
grep -q "key in a map value" "$TMP/b18" && fail "bad at 4.18: the map-value key still refused"
grep -q 'BPF-to-BPF call .*: needs 4\.16$' "$TMP/b15" || fail "bad at 4.15: no BPF-to-BPF call"
grep -q 'BPF-to-BPF call' "$TMP/b18" && fail "bad at 4.18: the BPF-to-BPF call still refused"
grep -q 'ringbuf (27): needs 5\.8$' "$TMP/b18" || fail "bad at 4.18: the ring buffer map not refused"
ok "the bad object at 4.15: $(($(wc -l < "$TMP/b15") - 1)) problems, at 4.18: $(($(wc -l < "$TMP/b18") - 1))"
