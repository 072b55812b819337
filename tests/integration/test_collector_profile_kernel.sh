#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# collector --profile on this kernel (make vmtest runs it on each kernel of
# the matrix, so awk only: the VM has no python): the perf events open,
# the BPF program samples burn (tests/tools/burn.c: burn_long 200 ms of its
# own CPU, burn_short 100 ms, both under burn_all) and the kernel gives its
# user frames as burn's build id and file offsets, each function under
# burn_all, its caller; natively also the figures: at 999 Hz about 300
# samples, burn_long's innermost 2:1 burn_short's (±15%). The modern and
# compat objects: legacy says so and writes none.
# modes: cgroup compat pidtree legacy
. "$(dirname "$0")/lib.sh"
need_root

BURN=$TOOLS/burn
out=$TMP/p.tsv
"$COLLECTOR" --profile=999 -o "$out" -- "$BURN" > /dev/null 2> "$TMP/err" || { cat "$TMP/err"; fail "collector exited $?"; }
check_tsv "$out"
if [ "$BT_MODE" = legacy ]; then
	grep -qx '# profile=off' "$out" || fail "no '# profile=off' with the $BT_MODE object"
	grep -q 'profile' "$TMP/err" || fail "no warning that the $BT_MODE object does not sample"
	[ -z "$(rows "$out" sample)" ] || fail "samples from the $BT_MODE object"
	ok "$BT_MODE: no profile, said so"
	exit 0
fi
grep -qx '# profile=999' "$out" || fail "no '# profile=999' line"

# burn's build id and its functions' file offsets (a PT_LOAD maps file
# offsets [p_offset, +p_filesz) to p_vaddr on), from readelf
bid=$(readelf -n "$BURN" | sed -n 's/.*Build ID: \([0-9a-f]*\)/\1/p')
[ ${#bid} -eq 40 ] || fail "burn has no 20-byte build id: '$bid'"
readelf -lW "$BURN" | awk '$1 == "LOAD" { print $2, $3, $5 }' > "$TMP/loads"
readelf -sW "$BURN" | awk '$4 == "FUNC" && $8 ~ /^burn_(long|short|all)$/ { print $8, $2, $3 }' > "$TMP/funcs"
[ "$(wc -l < "$TMP/funcs")" -eq 3 ] || fail "burn's symbols: $(cat "$TMP/funcs")"

# per sample of burn: the function of its innermost burn frame, and of the
# next one (its caller); stacks are named by id in stack rows before
awk -F'\t' -v bid="$bid" -v loads="$TMP/loads" -v funcs="$TMP/funcs" '
function hex(s,   i, n, c) { n = 0; s = tolower(s); sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; n = n * 16 + c }
	return n }
function fn(off,   i, va, name) { va = -1
	for (i = 0; i < nl; i++) if (off >= lo[i] && off < lo[i] + lz[i]) va = off - lo[i] + lv[i]
	for (name in fs) if (va >= fs[name] && va < fs[name] + fz[name]) return name
	return "" }
BEGIN { while ((getline l < loads) > 0) { split(l, a, " "); lo[nl] = hex(a[1]); lv[nl] = hex(a[2]); lz[nl++] = hex(a[3]) }
	while ((getline l < funcs) > 0) { split(l, a, " "); fs[a[1]] = hex(a[2]); fz[a[1]] = a[3] + 0 } }
/^#/ || $1 == "ts_ns" { next }
$8 == "stack" { n = split($12, fr, " "); inner[$9] = ""; caller[$9] = ""; k = 0
	for (i = 1; i <= n; i++) if (substr(fr[i], 1, 43) == "b:" bid "+") {
		f = fn(hex(substr(fr[i], 44))); if (f == "") continue
		if (k == 0) inner[$9] = f; else if (k == 1) caller[$9] = f
		if (++k == 2) break }
	defined[$9] = 1; next }
$8 == "sample" && $7 == "burn" { total++
	if (!($9 in defined)) { print "undefined stack " $9; bad = 1; next }
	if ($11 != 1001001) { print "dur " $11; bad = 1 }
	f = inner[$9]; if (f == "") next; count[f]++
	if (f != "burn_all" && caller[$9] == "burn_all") called[f]++ }
END { printf "total %d long %d short %d long_called %d short_called %d\n",
	total, count["burn_long"], count["burn_short"], called["burn_long"], called["burn_short"]
	exit bad }' "$out" > "$TMP/counts" || fail "bad sample rows: $(cat "$TMP/counts")"
read -r _ total _ long _ short _ long_called _ short_called < "$TMP/counts"
echo "samples of burn: $(cat "$TMP/counts")"
# 300 ms of CPU at 999 Hz, the program's start and exit besides; 2:1.
# Not under QEMU's TCG (make vmtest: cpu model "QEMU Virtual CPU"): there
# the CPU clock's hrtimer fires late and unevenly while the host is busy
# (166 samples, burn_long:burn_short 47:96 once, with other VMs and the
# host's tests running), so the VMs check what their kernel does — the
# program loads and attaches, samples carry build ids that resolve to
# both functions under their caller — and the host checks the figures.
[ "$long" -gt 0 ] && [ "$short" -gt 0 ] || fail "no sample in burn_long ($long) or burn_short ($short)"
if ! under_tcg; then
	[ "$total" -ge 255 ] && [ "$total" -le 360 ] || fail "$total samples of burn, not about 300"
	ratio=$((long * 100 / short))
	[ "$ratio" -ge 170 ] && [ "$ratio" -le 230 ] || fail "burn_long:burn_short $long:$short, not 2:1 (±15%)"
fi
# frame pointers: the caller is burn_all (the odd sample on the function's
# first instructions, before its frame is set up, names main's)
[ $((long_called * 10)) -ge $((long * 9)) ] && [ $((short_called * 10)) -ge $((short * 9)) ] ||
	fail "burn_all is the caller of only $long_called of $long and $short_called of $short"
ok "$total samples, burn_long:burn_short $long:$short, under burn_all"
