#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --profile's frames (docs/tsv-format.md, Profile rows), known truths:
# - k: tests/tools/faulter spends its CPU time faulting pages in: its
#   samples' kernel frames name the page fault path (exc_page_fault,
#   handle_mm_fault ...);
# - f: burn built without a build id (-Wl,--build-id=none) at a path of
#   spaces, ':', '+0x' and non-ASCII bytes (invalid UTF-8 too): its frames
#   are f:LEN:PATH+0xOFF with the path's bytes and their count, and those
#   offsets resolve to burn_long and burn_short, 2:1;
# - a hostile comm (burn -n: TAB, LF, backslash, bytes not UTF-8) is
#   escaped: 12 fields a row, and the sample rows' comm unescapes to it;
# - j: node --perf-basic-prof spinning 300 ms in burnJs: j: frames name it
#   on at least 80% of the ms its thread was on a CPU (its own schedstat),
#   also in pid and mount namespaces of its own (the map read through
#   /proc/PID/root/tmp/perf-NSPID.map).
# modes: cgroup pidtree
. "$(dirname "$0")/lib.sh"
need_root
need_profile_checks
# n FUNC: its count in the "COUNT<TAB>FUNC" output $in (0 when absent)
n() { awk -F'\t' -v f="$1" '$2 == f { n = $1 } END { print n + 0 }' <<< "$in"; }
within() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
tid_of() { sed -n "s/^$1 tid=\([0-9]*\).*/\1/p" "$2"; }

# 1. kernel frames: the page fault path
"$COLLECTOR" --profile=999 -o "$TMP/k.tsv" -- "$TOOLS/faulter" > "$TMP/k.out" 2> "$TMP/k.err" ||
	fail "collector exited $?: $(cat "$TMP/k.err")"
check_tsv "$TMP/k.tsv"
out=$("${PC[@]}" check "$TMP/k.tsv") || fail "faulter: $out"
tid=$(tid_of faulter "$TMP/k.out")
all=$("${PC[@]}" --tid "$tid" count "$TMP/k.tsv")
in=$("${PC[@]}" --tid "$tid" kfuncs "$TMP/k.tsv")
# the entry (exc_page_fault; asm_exc_page_fault is its stub) and the mm's
# handler: samples name one or both
pf='^(asm_)?exc_page_fault$|^(__)?handle_mm_fault$|^do_user_addr_fault$'
faults=$(awk -F'\t' -v pf="$pf" '$2 ~ pf' <<< "$in")
most=$(sort -rn <<< "$faults" | head -1 | cut -f1)
# most of its CPU time faults (the rest: its loop, munmap); 25% is the floor
[ "${most:-0}" -ge 30 ] && [ "$((most * 4))" -ge "$all" ] ||
	fail "faulter: ${most:-0} of $all samples in the page fault path: $(head -20 <<< "$in")"
ok "k: frames: ${most} of the faulter's $all samples in $(head -1 <<< "$faults" | cut -f2)"

# 2. f: frames of a file without a build id, at a hostile path
have "${CC:-cc}" "the f: frames check" && {
	dir=$TMP/$(printf 'dir with spaces: and +0x1 \303\251\377\376')
	mkdir "$dir" || fail "cannot mkdir $dir"
	nobid=$dir/burn:nobid
	"${CC:-cc}" -O2 -fno-omit-frame-pointer -fno-optimize-sibling-calls -Wl,--build-id=none \
		-o "$nobid" "$(dirname "$0")/../tools/burn.c" || fail "cannot build burn without a build id"
	! readelf -n "$nobid" | grep -q 'Build ID' || fail "$nobid has a build id"
	"$COLLECTOR" --profile=999 -o "$TMP/f.tsv" -- "$nobid" > "$TMP/f.out" 2> "$TMP/f.err" ||
		fail "collector exited $?: $(cat "$TMP/f.err")"
	check_tsv "$TMP/f.tsv"
	out=$("${PC[@]}" check "$TMP/f.tsv") || fail "burn without a build id: $out"
	tid=$(tid_of burn "$TMP/f.out")
	path=$(realpath "$nobid")
	hex=$(printf '%s' "$path" | od -An -tx1 -v | tr -d ' \n')
	len=$(printf '%s' "$path" | wc -c)
	in=$("${PC[@]}" --tid "$tid" fpaths "$TMP/f.tsv")
	awk -F'\t' -v h="$hex" -v l="$len" '$2 == h && $3 == l' <<< "$in" | grep -q . ||
		fail "no f:$len:<the path> frame: $in"
	in=$("${PC[@]}" --elf "$nobid" --tid "$tid" inner "$TMP/f.tsv")
	long=$(n burn_long) short=$(n burn_short)
	[ "$short" -gt 0 ] && within $((100 * long / short)) 170 230 ||
		fail "f: frames: burn_long:burn_short = $long:$short, not 2 +-15%: $in"
	ok "f: frames: f:$len:<spaces, :, +0x, non-UTF-8>+0xOFF, burn_long $long, burn_short $short"
}

# 3. a hostile comm: escaped, every row 12 fields, unescaped it is the comm
comm=$(printf 'c\tt\nl\\b\377 x:')
"$COLLECTOR" --profile=999 -o "$TMP/c.tsv" -- "$BURN" -n "$comm" > "$TMP/c.out" 2> "$TMP/c.err" ||
	fail "collector exited $?: $(cat "$TMP/c.err")"
check_tsv "$TMP/c.tsv"
out=$("${PC[@]}" check "$TMP/c.tsv") || fail "hostile comm: $out"
tid=$(tid_of burn "$TMP/c.out")
rows "$TMP/c.tsv" sample | cut -f7 | grep -qxF 'c\tt\nl\\b\xff x:' ||
	fail "hostile comm: no sample row with the comm escaped as c\\tt\\nl\\\\b\\xff x:"
in=$("${PC[@]}" --elf "$BURN" --tid "$tid" --comm "$comm" inner "$TMP/c.tsv")
total=$(($(n burn_long) + $(n burn_short) + $(n burn_all)))
within "$total" 255 345 || fail "hostile comm: $total samples of burn under that comm: $in"
ok "hostile comm: escaped, 12 fields, $total samples under it"

# 4. JIT frames: node's perf map, read by the collector while node lives:
# as /tmp/perf-PID.map, and in a container of its own (pid and mount
# namespaces, a /tmp of its own) as /proc/PID/root/tmp/perf-NSPID.map,
# NSPID 1: no file of that name is on the host's /tmp. The V8 walker off
# (BOOTTRACE_TEST_NO_V8: it names node's JS frames itself,
# test_collector_profile_node), so that the map names them
JS='
	function burnJs(ms) {
		const end = Date.now() + ms;
		let x = 0;
		while (Date.now() < end)
			x++;
		return x;
	}
	const fs = require("fs");
	const oncpu = () => Number(fs.readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[0]);
	const t0 = oncpu();
	burnJs(300);
	console.log("burn_cpu_ns=" + (oncpu() - t0));'
jit_check() { # jit_check FILE WHAT OUT: FILE's samples name burnJs in j: frames
	local in js cpu
	check_tsv "$1"
	out=$("${PC[@]}" check "$1") || fail "node ($3): $out"
	in=$("${PC[@]}" jnames "$1")
	js=$(awk -F'\t' '$2 ~ /burnJs/ { n += $1 } END { print n + 0 }' <<< "$in")
	# 300 ms of wall time spinning, of which the main thread was on a CPU
	# for what it measured itself (its schedstat: fewer on a busy machine);
	# at 999 Hz of its CPU time, a sample a ms of it: at least 80% of them
	# name burnJs
	cpu=$(sed -n 's/^burn_cpu_ns=//p' "$3")
	[ -n "$cpu" ] || fail "$2: node printed no burn_cpu_ns: $(head -3 "$3")"
	cpu=$((cpu / 1000000))
	[ "$cpu" -ge 30 ] || fail "$2: the burn had $cpu ms of CPU (under 30)"
	[ $((js * 10)) -ge $((cpu * 8)) ] ||
		fail "$2: $js samples with a j: frame naming burnJs, for its $cpu ms on a CPU (under 80%): $(head <<< "$in")"
	ok "j: frames ($2): $js samples name burnJs, for $cpu ms on a CPU ($(head -1 <<< "$in" | cut -f2))"
}
if have node "the j: frames check"; then
	# node writes its V8 log (isolate-*.log) in its working directory and
	# its perf map as /tmp/perf-PID.map: both removed
	(cd "$TMP" && BOOTTRACE_TEST_NO_V8=1 "$COLLECTOR" --profile=999 -o "$TMP/j.tsv" -- \
		node --perf-basic-prof -e "$JS" \
		> "$TMP/j.out" 2> "$TMP/j.err")
	rc=$?
	for p in $(rows "$TMP/j.tsv" exec | cut -f4 | sort -u); do rm -f "/tmp/perf-$p.map"; done
	[ "$rc" -eq 0 ] || fail "collector exited $rc: $(cat "$TMP/j.err")"
	jit_check "$TMP/j.tsv" "on the host's /tmp" "$TMP/j.out"
	# the namespaced /tmp is a tmpfs that goes with the mount namespace
	(cd "$TMP" && BOOTTRACE_TEST_NO_V8=1 "$COLLECTOR" --profile=999 -o "$TMP/jn.tsv" -- \
		unshare --pid --fork --mount \
		sh -c 'mount -t tmpfs boottrace-jit /tmp && exec node --perf-basic-prof -e "$1"' sh "$JS" \
		> "$TMP/jn.out" 2> "$TMP/jn.err") || fail "collector (namespaces) exited $?: $(cat "$TMP/jn.err")"
	[ -e /tmp/perf-1.map ] && fail "a /tmp/perf-1.map on the host: the namespace's /tmp leaked"
	jit_check "$TMP/jn.tsv" "pid and mount namespaces, /tmp of its own" "$TMP/jn.out"
fi
