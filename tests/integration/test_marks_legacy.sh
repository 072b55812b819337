#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --mark on the legacy object, the way kernel 4.15 makes uprobes: events the
# collector writes to tracefs uprobe_events, in a group named after its pid,
# at the file offsets of the ELF file (the p: and r: lines are checked
# against readelf and nm), listed while it runs and gone when it exits; a
# collector killed by SIGKILL leaves them, and the next one removes them.
# All eight copies of the mark program, each reporting its own mark; a
# ninth probe is a usage error; a USDT probe at two sites counts at both;
# a USDT probe with a semaphore is refused (the modern object counts it);
# --mark where auto picks the compat object (no BTF) or falls back to it,
# or to the legacy object (no bpf_get_current_cgroup_id either).
# (The common mark tests run with the legacy object too: their modes line.)
. "$(dirname "$0")/lib.sh"
need_root

B=$(realpath "$OUTPUT/samples/bootsvc")
T=$(realpath "$TOOLS")
col=$(realpath "$COLLECTOR")
LEGACY=(--mode pidtree --object legacy)

# the offset in the file of SYMBOL of BIN, from binutils (not from marks.c)
file_offset() {
	local v type off va pa fsz rest
	v=$(nm "$1" | awk -v s="$2" '$3 == s && ($2 == "T" || $2 == "t") { print $1; exit }')
	[ -n "$v" ] || return 1
	v=$((16#$v))
	while read -r type off va pa fsz rest; do
		[ "$type" = LOAD ] || continue
		if [ $v -ge $((va)) ] && [ $v -lt $((va + fsz)) ]; then
			echo $((v - va + off))
			return 0
		fi
	done < <(readelf -lW "$1")
	return 1
}

# wait_group PID: until uprobe_events lists the group of collector PID
wait_group() {
	local _
	for _ in $(seq 250); do
		grep -q "^[pr]:boottrace_$1/" "$UE" 2>/dev/null && return 0
		sleep 0.02
	done
	return 1
}

# --- 1. the events while it runs, and none after --------------------------------

"$col" "${LEGACY[@]}" -o "$TMP/up.tsv" -- "$TOOLS/getppid_loop" 1 2> /dev/null ||
	fail "collector --object legacy exited $?"
TR=$(awk '$3 == "tracefs" { print $2; exit }' /proc/self/mounts)
[ -n "$TR" ] || fail "no tracefs mounted after a legacy run"
UE=$TR/uprobe_events
[ -f "$UE" ] || fail "no $UE: this kernel has no uprobe events"

"$col" "${LEGACY[@]}" --mark "uprobe:$B:bootsvc_ready=ready" \
	--mark "uretprobe:$B:bootsvc_tick=tickret" -o "$TMP/run.tsv" -- "$B" --ticks 4 2> "$TMP/err" &
pid=$!
cleanup_hooks+=("kill $pid 2>/dev/null")
wait_group $pid || fail "uprobe_events never listed boottrace_$pid: $(cat "$TMP/err")"
grep "boottrace_$pid/" "$UE" > "$TMP/lines"
[ -d "$TR/events/boottrace_$pid" ] || fail "no $TR/events/boottrace_$pid"
sleep 0.5	# bootsvc's ticks and ready
# (130: interrupted, as a shell says a command was; 0 when bootsvc ended first)
kill -INT $pid; wait $pid; rc=$?
[ $rc -eq 0 ] || [ $rc -eq 130 ] || fail "collector exited $rc on SIGINT: $(cat "$TMP/err")"
ready=$(file_offset "$B" bootsvc_ready) && tick=$(file_offset "$B" bootsvc_tick) ||
	fail "nm/readelf found no bootsvc_ready or bootsvc_tick in $B"
# the kernel lists the offset as 0x%016lx
[ "$(wc -l < "$TMP/lines")" -eq 2 ] || fail "not 2 uprobe_events lines: $(cat "$TMP/lines")"
while read -r ev where; do
	case $ev in
	"p:boottrace_$pid/mark0_0") want=$ready ;;
	"r:boottrace_$pid/mark1_1") want=$tick ;;
	*) fail "unexpected uprobe event $ev" ;;
	esac
	[ "${where%:0x*}" = "$B" ] && [ $((16#${where##*:0x})) -eq "$want" ] ||
		fail "$ev at $where, not $B at offset $want (nm, readelf)"
done < "$TMP/lines"
grep -q "boottrace_$pid/" "$UE" && fail "left in uprobe_events after exit: $(grep "boottrace_$pid/" "$UE")"
[ -e "$TR/events/boottrace_$pid" ] && fail "$TR/events/boottrace_$pid left after exit"
check_tsv "$TMP/run.tsv"
[ "$(rows "$TMP/run.tsv" mark ready | wc -l)" -eq 1 ] || fail "not one ready mark row"
[ "$(rows "$TMP/run.tsv" mark tickret | wc -l)" -eq 4 ] || fail "not 4 tickret (uretprobe) rows"
ok "uprobe_events: p: and r: lines of boottrace_$pid at the ELF offsets while it runs, none after"

# the modern object makes none: libbpf goes through the uprobe PMU
"$col" --mode pidtree --object modern --mark "uprobe:$B:bootsvc_ready=ready" \
	-o "$TMP/mod.tsv" -- "$B" --ticks 1 2> "$TMP/err" &
pid=$!
cleanup_hooks+=("kill $pid 2>/dev/null")
sleep 0.5
grep -q "boottrace_$pid/" "$UE" && fail "the modern object wrote uprobe_events"
kill -INT $pid; wait $pid; rc=$?
[ $rc -eq 0 ] || [ $rc -eq 130 ] || fail "modern collector exited $rc: $(cat "$TMP/err")"
[ "$(rows "$TMP/mod.tsv" mark ready | wc -l)" -eq 1 ] || fail "modern: not one ready mark row"
ok "the modern object leaves uprobe_events alone"

# --- 2. SIGKILL: left behind, removed at the next start -------------------------

"$col" "${LEGACY[@]}" --mark "uprobe:$B:bootsvc_ready=ready" -o "$TMP/k.tsv" -- "$B" 2> /dev/null &
pid=$!
wait_group $pid || fail "uprobe_events never listed boottrace_$pid"
kill -KILL $pid; wait $pid 2> /dev/null
grep -q "^p:boottrace_$pid/" "$UE" || fail "nothing left by the SIGKILLed collector: nothing to test"
# the next start (spawn: it also removes the killed one's cgroup, bootsvc in it)
"$col" "${LEGACY[@]}" -o "$TMP/n.tsv" -- true 2> "$TMP/err" || fail "next collector exited $?: $(cat "$TMP/err")"
grep -qx "collector: removed the uprobe events of boottrace_$pid, left by a collector that was killed" "$TMP/err" ||
	fail "no message for the events left: $(cat "$TMP/err")"
grep -q "boottrace_$pid/" "$UE" && fail "the killed collector's events are still there"
[ -e "$TR/events/boottrace_$pid" ] && fail "$TR/events/boottrace_$pid still there"
ok "SIGKILL: boottrace_$pid left, removed by the next start with one line"

# --- 3. eight copies, each its own mark; a ninth is refused ---------------------

marks=()
for i in 0 1 2 3 4 5; do marks+=(--mark "uprobe:$B:bootsvc_tick=t$i"); done
marks+=(--mark "uretprobe:$B:bootsvc_tick=t6" --mark "usdt:$B:bootsvc:config_loaded=t7")
"$col" "${LEGACY[@]}" "${marks[@]}" -o "$TMP/8.tsv" -- "$B" --ticks 3 --ticks-only 2> "$TMP/err" ||
	fail "8 marks: exit $?: $(cat "$TMP/err")"
check_tsv "$TMP/8.tsv"
for i in 0 1 2 3 4 5 6; do
	[ "$(rows "$TMP/8.tsv" mark t$i | wc -l)" -eq 3 ] || fail "t$i: $(rows "$TMP/8.tsv" mark t$i | wc -l) rows, not 3"
done
[ "$(rows "$TMP/8.tsv" mark t7 | wc -l)" -eq 1 ] || fail "t7 (USDT): not one row"
rows "$TMP/8.tsv" mark t6 | awk -F'\t' -v d="uretprobe:$B:bootsvc_tick" '$12 != d { exit 1 }' ||
	fail "t6 rows not the uretprobe's"
ok "8 marks on the 8 copies: 3 rows each (1 for the USDT one), each under its own label"

rm -f "$TMP/9.tsv"
"$col" "${LEGACY[@]}" "${marks[@]}" --mark "uprobe:$B:bootsvc_ready" -o "$TMP/9.tsv" -- true 2> "$TMP/err"
rc=$?
[ $rc -eq 2 ] || fail "9 marks: exit $rc, not 2: $(cat "$TMP/err")"
grep -qF "collector: 9 --mark and --start probes: the legacy BPF object takes at most 8" "$TMP/err" ||
	fail "9 marks: $(cat "$TMP/err")"
[ -e "$TMP/9.tsv" ] && fail "9 marks: a TSV written"
ok "a ninth mark: exit 2, the limit named"

# --- 4. USDT: two sites of one probe; a semaphore ---------------------------------

"$col" "${LEGACY[@]}" --mark "usdt:$T/usdt_sites:bt:site=site" -o "$TMP/s.tsv" -- "$T/usdt_sites" 11 \
	2> "$TMP/err" || fail "usdt_sites: exit $?: $(cat "$TMP/err")"
[ "$(rows "$TMP/s.tsv" mark site | wc -l)" -eq 11 ] ||
	fail "usdt bt:site at two sites: $(rows "$TMP/s.tsv" mark site | wc -l) rows, not 11"
ok "a USDT probe at two sites: 11 fires, 11 rows"

rm -f "$TMP/sema.tsv"
"$col" "${LEGACY[@]}" --mark "usdt:$T/usdt_sema:bt:sema" -o "$TMP/sema.tsv" -- "$T/usdt_sema" 1 2> "$TMP/err"
rc=$?
[ $rc -eq 2 ] || fail "semaphore: exit $rc, not 2: $(cat "$TMP/err")"
grep -qF "collector: --mark usdt:$T/usdt_sema:bt:sema: this USDT probe has a semaphore" "$TMP/err" &&
	grep -qF -- "use the modern object (--object modern" "$TMP/err" || fail "semaphore: $(cat "$TMP/err")"
[ -e "$TMP/sema.tsv" ] && fail "semaphore: a TSV written"
"$col" --mode pidtree --object modern --mark "usdt:$T/usdt_sema:bt:sema" -o "$TMP/sema.tsv" -- \
	"$T/usdt_sema" 5 2> "$TMP/err" || fail "semaphore, modern: exit $?: $(cat "$TMP/err")"
[ "$(rows "$TMP/sema.tsv" mark sema | wc -l)" -eq 5 ] || fail "semaphore, modern: not 5 rows"
ok "a USDT probe with a semaphore: legacy refuses (exit 2, says why and what works), modern counts 5"

# --- 5. the compat and legacy objects picked by auto -----------------------------

mkdir "$TMP/empty"
head -c 4096 /dev/urandom > "$TMP/bogus-btf"
# auto NAME OBJECT TICKS BIND [ENV...]: --mark with BTF spoiled by BIND (empty dir or bogus file)
auto() {
	local name=$1 obj=$2 ticks=$3 bind=$4
	shift 4
	env "$@" unshare --mount sh -c "mount --bind $bind &&
		exec $col --mark uprobe:$B:bootsvc_tick=tick -o $TMP/$name.tsv -- $B --ticks $ticks --ticks-only" \
		2> "$TMP/$name.err" || fail "$name: exit $?: $(cat "$TMP/$name.err")"
	grep -qx "# bpf_object=$obj" "$TMP/$name.tsv" || fail "$name: not the $obj object"
	[ "$(rows "$TMP/$name.tsv" mark tick | wc -l)" -eq "$ticks" ] || fail "$name: not $ticks tick rows"
}
auto nobtf compat 6 "$TMP/empty /sys/kernel/btf"
auto nobtf80 legacy 4 "$TMP/empty /sys/kernel/btf" BOOTTRACE_TEST_NO_CGROUP_ID=1
auto fb compat 5 "$TMP/bogus-btf /sys/kernel/btf/vmlinux"
grep -q 'modern BPF object did not load.*compat object' "$TMP/fb.err" || fail "fallback: not said: $(cat "$TMP/fb.err")"
auto fb80 legacy 3 "$TMP/bogus-btf /sys/kernel/btf/vmlinux" BOOTTRACE_TEST_NO_CGROUP_ID=1
grep -q 'modern BPF object did not load.*legacy object' "$TMP/fb80.err" || fail "fallback: not said: $(cat "$TMP/fb80.err")"
ok "auto: no BTF or a modern object that does not load give the compat object (the legacy one without helper 80), marks and all"
