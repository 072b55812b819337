#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# A stripped Go program profiled, named from its pclntab (issue 28):
# build/tests/goburn (go build -ldflags '-s -w': no .symtab, no DWARF)
# spins 200 ms of its thread's CPU time in main.burnLong and 100 ms in
# main.burnShort, both called by main.burnAll, then listens. Go keeps
# frame pointers, so the collector's stacks hold every Go caller.
# collector --profile=999, then analyze --profile: the two functions are
# named, their total samples 2:1 (+-15%) and about 300 (+-15%), under
# main.burnAll on nearly all of them; main.mix, which the compiler
# inlined into both, is a frame of its own (self) inside them; the folded
# stacks have one line per distinct stack and sum to the samples. Then Go
# leaf functions: below.
. "$(dirname "$0")/lib.sh"
need_root
have go "the Go profile" || skip "needs golang-go (go build)"
GOBURN=$TOOLS/goburn
[ -x "$GOBURN" ] || fail "no $GOBURN: make all builds it (with golang-go installed)"
readelf -SW "$GOBURN" | grep -q ' \.symtab ' && fail "$GOBURN has a .symtab: not stripped"

"$COLLECTOR" --profile=999 -o "$TMP/g.tsv" -- "$GOBURN" > "$TMP/g.out" 2> "$TMP/g.err" ||
	fail "collector --profile=999 exited $?: $(cat "$TMP/g.err")"
check_tsv "$TMP/g.tsv"
grep -q '^goburn tid=' "$TMP/g.out" || fail "goburn did not run: $(cat "$TMP/g.out")"

"$ANALYZE" --profile --format tsv --top 1000 "$TMP/g.tsv" > "$TMP/prof.tsv" 2> "$TMP/a.err" ||
	fail "analyze --profile exited $?: $(cat "$TMP/a.err")"
# col: column $2 (5 self_samples, 8 total_samples) of function $1 in goburn
col() { awk -F'\t' -v f="$1" -v c="$2" 'NR > 1 && $3 == f && $4 == "goburn" { n = $c } END { print n + 0 }' "$TMP/prof.tsv"; }
long=$(col main.burnLong 8) short=$(col main.burnShort 8) all=$(col main.burnAll 8)
[ "$long" -gt 0 ] && [ "$short" -gt 0 ] ||
	fail "main.burnLong or main.burnShort not named: $(head -12 "$TMP/prof.tsv")"
grep -q $'\t\[goburn+0x' "$TMP/prof.tsv" && fail "unnamed goburn frames: $(grep $'\t\[goburn+0x' "$TMP/prof.tsv" | head -3)"
sum=$((long + short))
[ "$sum" -ge 255 ] && [ "$sum" -le 345 ] || fail "$sum samples in burnLong and burnShort, not 300 +-15%"
ratio=$((100 * long / short))
[ "$ratio" -ge 170 ] && [ "$ratio" -le 230 ] ||
	fail "main.burnLong:main.burnShort = $long:$short, not 2 +-15%"
# main.burnAll calls both: on the stack of (nearly) all their samples
[ "$all" -ge $((sum * 95 / 100)) ] || fail "main.burnAll on $all stacks of their $sum"
ok "main.burnLong $long, main.burnShort $short samples (ratio $((ratio / 100)).$(printf %02d $((ratio % 100)))), main.burnAll on $all"

# main.mix inlined: its own self time, inside both
mix=$(col main.mix 5)
[ "$mix" -ge $((sum / 4)) ] || fail "main.mix (inlined) has $mix self samples of $sum"
"$ANALYZE" --profile --format folded "$TMP/g.tsv" > "$TMP/folded" || fail "folded exited $?"
grep -q ';main\.burnAll;main\.burnLong;main\.mix [0-9]*$' "$TMP/folded" ||
	fail "no main.burnAll;main.burnLong;main.mix stack: $(head -5 "$TMP/folded")"
grep -q ';main\.burnAll;main\.burnShort;main\.mix [0-9]*$' "$TMP/folded" ||
	fail "no main.burnAll;main.burnShort;main.mix stack"
ok "main.mix, inlined into both, a frame of its own: $mix self samples"

# folded: one line per distinct stack, summing to the window's samples
dups=$(sed 's/ [0-9]*$//' "$TMP/folded" | sort | uniq -d | head -3)
[ -z "$dups" ] || fail "folded stacks repeated: $dups"
"$ANALYZE" --profile --format json "$TMP/g.tsv" > "$TMP/prof.json" || fail "json exited $?"
want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["containers"][0]["samples"])' "$TMP/prof.json")
got=$(awk '{ n += $NF } END { print n }' "$TMP/folded")
[ "$got" = "$want" ] || fail "folded sums to $got, the window has $want samples"
ok "folded: $(wc -l < "$TMP/folded") distinct stacks, $got samples"

# Go leaf functions (issue 34, item 5): build/tests/goleaf (stripped too)
# spends 200 ms in main.callLong, then 100 ms in main.callShort, nearly all
# of it in main.leaf, which both call and which keeps no frame (Go saves no
# frame pointer in it). Frame pointers alone (--profile-unwind=fp, the
# peer) skip the leaf's caller; the default (auto) puts it back by the
# pclntab's SP deltas (collector/profile/goleaf.h): the callers' totals
# 2:1 (+-15%), together on at least 90% of the leaf's samples.
GOLEAF=$TOOLS/goleaf
[ -x "$GOLEAF" ] || fail "no $GOLEAF: make all builds it (with golang-go installed)"
# leaf TAG [COLLECTOR-OPTION...]: "LONG SHORT LEAF", the callers' totals and the leaf's self
leaf() {
	local tag=$1
	shift
	"$COLLECTOR" --profile=999 "$@" -o "$TMP/$tag.tsv" -- "$GOLEAF" > "$TMP/$tag.out" 2> "$TMP/$tag.err" ||
		fail "$tag: collector exited $?: $(tail -3 "$TMP/$tag.err")"
	check_tsv "$TMP/$tag.tsv"
	"$ANALYZE" --profile --until end --format tsv --top 1000 "$TMP/$tag.tsv" > "$TMP/$tag.prof" ||
		fail "$tag: analyze --profile exited $?"
	awk -F'\t' 'NR > 1 && $4 == "goleaf" { if ($3 == "main.callLong") l = $8
		if ($3 == "main.callShort") s = $8; if ($3 == "main.leaf") f = $5 }
		END { print l + 0, s + 0, f + 0 }' "$TMP/$tag.prof"
}
read -r fl fs ff < <(leaf fp --profile-unwind=fp)
read -r long short lf < <(leaf auto)
[ "$lf" -ge 200 ] || fail "main.leaf has $lf self samples (under 200 of about 300)"
[ "$short" -gt 0 ] && [ $(((long + short) * 10)) -ge $((lf * 9)) ] ||
	fail "main.callLong $long + main.callShort $short samples, of main.leaf's $lf (under 90%): $(
		grep -E 'main\.(leaf|call)' "$TMP/auto.prof" | head -4)"
ratio=$((100 * long / short))
[ "$ratio" -ge 170 ] && [ "$ratio" -le 230 ] || fail "main.callLong:main.callShort = $long:$short, not 2 +-15%"
# the peer shows what was lost: frame pointers alone keep the callers on few samples
[ $(((fl + fs) * 2)) -lt "$ff" ] ||
	fail "frame pointers alone kept the leaf's callers ($fl + $fs of $ff): the test proves nothing"
ok "main.leaf (frameless) $lf samples: main.callLong $long, main.callShort $short (ratio" \
	"$((ratio / 100)).$(printf %02d $((ratio % 100)))); by frame pointers alone $fl and $fs of $ff"
