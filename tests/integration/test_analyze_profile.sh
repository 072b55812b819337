#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# analyze --profile on a known truth: tests/tools/burn spends 200 ms of its
# own CPU in burn_long and 100 ms in burn_short, both under burn_all, then
# listens. The profile of its boot (start -> listen) must say 2:1 (+-15%),
# burn_all on >= 90% of the user samples; the folded stacks sum to the
# samples (and --format folded alone implies --profile); the critical path's cpu time names burn_long; --plot's SVG is XML
# holding burn_long; a stripped copy is named only with --debug-dir; a
# function the compiler inlined (burn -i) is a frame of its own, 2:1 against
# its caller's own time, from DWARF; a hostile comm is escaped everywhere;
# a malformed stack row is exit 2.
# modes: cgroup pidtree
. "$(dirname "$0")/lib.sh"
need_root

out=$TMP/burn.tsv
"$COLLECTOR" --profile=999 -o "$out" -- "$TOOLS/burn" -p "$TMP/port" >/dev/null 2>&1 ||
	fail "collector exited $?"
check_tsv "$out"
[ "$(rows "$out" sample | wc -l)" -gt 100 ] || fail "too few samples"

"$ANALYZE" --profile --format tsv --top 1000 "$out" > "$TMP/prof.tsv" || fail "analyze --profile exited $?"
head -1 "$TMP/prof.tsv" | grep -q $'\tfunction\t' || fail "tsv header: $(head -1 "$TMP/prof.tsv")"
self() { awk -F'\t' -v f="$1" 'NR > 1 && $3 == f { print $5 }' "$TMP/prof.tsv"; }
long=$(self burn_long); short=$(self burn_short)
[ -n "$long" ] && [ -n "$short" ] || fail "no burn_long or burn_short: $(cat "$TMP/prof.tsv")"
awk -v l="$long" -v s="$short" 'BEGIN { r = l / s; exit !(r >= 1.7 && r <= 2.3) }' ||
	fail "burn_long/burn_short = $long/$short, not 2 +-15%"
ok "burn_long $long, burn_short $short samples"
# burn_all: on the stack of >= 90% of the samples with a user frame of burn
all_total=$(awk -F'\t' 'NR > 1 && $3 == "burn_all" { print $8 }' "$TMP/prof.tsv")
main_total=$(awk -F'\t' 'NR > 1 && $3 == "main" && $4 == "burn" { print $8 }' "$TMP/prof.tsv")
awk -v a="$all_total" -v m="$main_total" 'BEGIN { exit !(a >= 0.9 * m && m > 0) }' ||
	fail "burn_all total $all_total of main's $main_total"

# folded: the counts sum to the window's samples
"$ANALYZE" --profile --format folded "$out" > "$TMP/folded" || fail "folded exited $?"
# folded means a profile: without --profile, the same stacks
"$ANALYZE" --format folded "$out" | cmp -s - "$TMP/folded" ||
	fail "--format folded without --profile differs from with it"
"$ANALYZE" --profile --format json "$out" > "$TMP/prof.json" || fail "json exited $?"
want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["containers"][0]["samples"])' "$TMP/prof.json") ||
	fail "json does not parse"
got=$(awk '{ n += $NF } END { print n }' "$TMP/folded")
[ "$got" = "$want" ] || fail "folded sums to $got, the window has $want samples"
grep -q ';burn_all;burn_long [0-9]*$' "$TMP/folded" || fail "no burn_all;burn_long stack"

# the critical path's cpu time of burn names burn_long first
"$ANALYZE" --critical-path "$out" > "$TMP/path.wrapped" 2>/dev/null || fail "critical path exited $?"
unwrap "$TMP/path.wrapped" > "$TMP/path.txt"
grep -q '\[[0-9]*% burn_long' "$TMP/path.txt" || fail "the critical path names no burn_long: $(cat "$TMP/path.txt")"
"$ANALYZE" --critical-path --format tsv "$out" 2>/dev/null | head -1 | grep -q $'\tprofile$' ||
	fail "no profile column"

# --plot: an SVG flame graph that is XML and holds burn_long
"$ANALYZE" --plot "$TMP/plot" "$out" >/dev/null 2>&1
python3 -c 'import xml.etree.ElementTree as E,sys; E.parse(sys.argv[1])' "$TMP/plot/flame-1.svg" ||
	fail "flame-1.svg is not XML"
grep -q burn_long "$TMP/plot/flame-1.svg" || fail "no burn_long in the flame graph"
grep -q 'flame-1.svg' "$TMP/plot/index.html" || fail "index.html does not link it"

# a stripped copy: [burn+0x...] without its debug file, burn_long with it
cp "$TOOLS/burn" "$TMP/sburn"
objcopy --only-keep-debug "$TMP/sburn" "$TMP/sburn.debug"
objcopy --strip-all "$TMP/sburn"
id=$(readelf -n "$TMP/sburn" | awk '/Build ID/ { print $3 }')
mkdir -p "$TMP/dbg/.build-id/${id:0:2}"
mv "$TMP/sburn.debug" "$TMP/dbg/.build-id/${id:0:2}/${id:2}.debug"
"$COLLECTOR" --profile=999 -o "$TMP/s.tsv" -- "$TMP/sburn" -p "$TMP/port2" >/dev/null 2>&1 ||
	fail "collector exited $?"
"$ANALYZE" --profile --format tsv "$TMP/s.tsv" > "$TMP/s1" || fail "exit $?"
grep -q burn_long "$TMP/s1" && fail "burn_long named without the debug file"
"$ANALYZE" --profile --format tsv --debug-dir "$TMP/dbg" "$TMP/s.tsv" > "$TMP/s2" || fail "exit $?"
grep -q burn_long "$TMP/s2" || fail "burn_long not named with --debug-dir: $(cat "$TMP/s2")"
ok "a stripped binary: named with its debug file by build id"

# burn -i: 200 ms in spin_inlined, which the compiler inlined into
# burn_inline, then 100 ms of burn_inline's own: 2:1 by name, the inlined
# function a frame of its own, from the binary's DWARF and from the
# stripped copy's debug file
for bin in "$TOOLS/burn" "$TMP/sburn"; do
	"$COLLECTOR" --profile=999 -o "$TMP/i.tsv" -- "$bin" -i -p "$TMP/port4" >/dev/null 2>&1 ||
		fail "collector exited $?"
	"$ANALYZE" --profile --format tsv --top 1000 --debug-dir "$TMP/dbg" "$TMP/i.tsv" > "$TMP/i.prof" ||
		fail "exit $?"
	inl=$(awk -F'\t' 'NR > 1 && $3 == "spin_inlined" { print $5 }' "$TMP/i.prof")
	own=$(awk -F'\t' 'NR > 1 && $3 == "burn_inline" { print $5 }' "$TMP/i.prof")
	awk -v l="$inl" -v s="$own" 'BEGIN { exit !(s > 0 && l / s >= 1.7 && l / s <= 2.3) }' ||
		fail "$bin: spin_inlined/burn_inline self = $inl/$own, not 2 +-15%"
	"$ANALYZE" --profile --format folded --debug-dir "$TMP/dbg" "$TMP/i.tsv" |
		grep -q ';main;burn_inline;spin_inlined [0-9]*$' || fail "$bin: no main;burn_inline;spin_inlined stack"
	ok "$(basename "$bin"): the inlined spin_inlined $inl, burn_inline's own $own samples"
done

# a hostile comm, escaped in folded, json and svg
"$COLLECTOR" --profile=999 -o "$TMP/h.tsv" -- "$TOOLS/burn" -x 0.3 -n $'<a>;"&\t' -p "$TMP/port3" \
	>/dev/null 2>&1 || fail "collector exited $?"
"$ANALYZE" --profile --format folded "$TMP/h.tsv" > "$TMP/h.folded" || fail "exit $?"
grep -q '^<a>:"&\\t;' "$TMP/h.folded" || fail "folded comm not escaped: $(head -3 "$TMP/h.folded")"
"$ANALYZE" --profile --format json "$TMP/h.tsv" | python3 -c 'import json,sys; json.load(sys.stdin)' ||
	fail "json with a hostile comm does not parse"
"$ANALYZE" --plot "$TMP/hplot" "$TMP/h.tsv" >/dev/null 2>&1
python3 -c 'import xml.etree.ElementTree as E,sys; E.parse(sys.argv[1])' "$TMP/hplot/flame-1.svg" ||
	fail "hostile flame graph is not XML"

# a malformed stack row: exit 2 with FILE:LINE
awk -F'\t' -v OFS='\t' '!done && $8 == "stack" { $12 = $12 " q:1"; done = 1 } { print }' "$out" > "$TMP/bad.tsv"
line=$(awk -F'\t' '$8 == "stack" { print NR; exit }' "$TMP/bad.tsv")
"$ANALYZE" --profile "$TMP/bad.tsv" > /dev/null 2> "$TMP/err"
rc=$?
[ $rc = 2 ] || fail "malformed stack row: exit $rc"
grep -q "bad.tsv:$line: " "$TMP/err" || fail "no FILE:LINE: $(cat "$TMP/err")"
# --format trace-event: each sample an instant on its thread, named by its
# function: burn_long's 2:1 burn_short's there too
"$ANALYZE" --format trace-event "$out" > "$TMP/trace.json" || fail "trace-event exited $?"
python3 - "$TMP/trace.json" <<'PY' || fail "trace-event samples"
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("cat") == "sample"]
n = {f: sum(1 for e in ev if e["name"] == f and e["ph"] == "i" and e["s"] == "t")
     for f in ("burn_long", "burn_short")}
tids = {e["tid"] for e in ev if e["name"] in n}
print("trace-event samples:", n, "threads:", tids)
sys.exit(not (n["burn_short"] and 1.7 <= n["burn_long"] / n["burn_short"] <= 2.3 and len(tids) == 1))
PY
# A stack row is the file's: the second boot's samples name stacks the
# first one's wrote, and --container keeps them (they were [unknown])
"$COLLECTOR" --profile=999 --runs 2 --until listen -o "$TMP/two.tsv" -- "$TOOLS/burn" -p "$TMP/port2" >/dev/null 2>&1 ||
	fail "collector --runs 2 exited $?"
"$ANALYZE" --profile --container burn-2 --format folded "$TMP/two.tsv" > "$TMP/two.folded" ||
	fail "--profile --container burn-2 exited $?"
n=$(awk '/;burn_all;burn_long [0-9]+$/ { n += $NF } END { print n + 0 }' "$TMP/two.folded")
[ "$n" -ge 170 ] || fail "the second boot's burn_long: $n samples named, not about 200: $(head -3 "$TMP/two.folded")"
ok "profile of burn"
