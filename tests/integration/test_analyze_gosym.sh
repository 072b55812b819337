#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# common/gosym.c against Go's own debug/gosym (tests/tools/go/gooracle,
# the truth): for every 3rd function of Debian's runc, containerd, the
# shim, docker and dockerd (stripped Go 1.19 binaries; docker and dockerd
# PIEs whose table is inside .data.rel.ro), of build/tests/goburn (go build
# -s -w) and of Go 1.15's test table (debug/gosym/testdata/pcln115, the
# 1.2 format; golang-1.19-src ships it), three addresses each — entry,
# middle, last byte — name the same function (the outermost: debug/gosym
# reads no inline tree), the same file and the same line (the innermost
# frame's). Then inlined functions, which debug/gosym does not know, on a
# known truth: goburn's main.mix (its body lines, from the source) is a
# frame of its own inside main.burnLong and main.burnShort, at the lines
# of their calls, and no other function is inlined in those two loops'
# lines. Reads files only: no root needed.
. "$(dirname "$0")/lib.sh"

have go "the Go function table checks" || skip "needs golang-go (go build)"
for t in gooracle goburn gosym_dump; do
	[ -x "$TOOLS/$t" ] || fail "no $TOOLS/$t: make all builds it (with golang-go installed)"
done
SRC=$(dirname "$0")/../tools/go/goburn/main.go

# 1. each binary: ours equals debug/gosym's
bins=("$TOOLS/goburn")
for b in /usr/bin/runc /usr/bin/containerd /usr/bin/containerd-shim-runc-v2 /usr/bin/docker \
	/usr/sbin/dockerd; do
	if [ -e "$b" ]; then
		bins+=("$b")
	else
		have "$b" "the check of $b's Go table" || true
	fi
done
pcln=$(ls /usr/share/go-1.*/src/debug/gosym/testdata/pcln115.gz 2> /dev/null | head -1)
if [ -n "$pcln" ]; then
	zcat "$pcln" > "$TMP/pcln115"
	bins+=("$TMP/pcln115")
else
	have pcln115.gz "the check of the Go 1.2 format (golang-1.19-src)" || true
fi
for b in "${bins[@]}"; do
	"$TOOLS/gooracle" "$b" 3 > "$TMP/want" 2> "$TMP/err" || fail "gooracle $b: $(cat "$TMP/err")"
	cut -f1 "$TMP/want" | "$TOOLS/gosym_dump" "$b" > "$TMP/got" 2> "$TMP/err" ||
		fail "gosym_dump $b exited $?: $(cat "$TMP/err")"
	n=$(wc -l < "$TMP/want")
	named=$(awk -F'\t' '$2 != "-"' "$TMP/want" | wc -l)
	lines=$(awk -F'\t' '$4 > 0' "$TMP/want" | wc -l)
	# a sound sample: many addresses, nearly all named, most with a line
	[ "$n" -ge 600 ] && [ "$named" -eq "$n" ] && [ "$lines" -ge $((n / 2)) ] ||
		fail "$b: the oracle named $named of $n addresses, $lines with a line"
	if ! cmp -s "$TMP/want" "$TMP/got"; then
		diff "$TMP/want" "$TMP/got" | head -5 >&2
		fail "$b: $(diff "$TMP/want" "$TMP/got" | grep -c '^<') of $n addresses differ from debug/gosym"
	fi
	ok "$(basename "$b"): $n addresses, function, file and line as debug/gosym's"
done

# 2. inlined frames: main.mix in burnLong and burnShort (goburn -a output:
# "ADDR<TAB>FUNC:LINE;FUNC:LINE...", innermost first)
mix_lines=$(awk '/^func mix/ { in_mix = 1; next } in_mix && /^}/ { exit }
	in_mix && !/return/ { print NR }' "$SRC" | xargs)
[ -n "$mix_lines" ] || fail "no body of mix in $SRC"
"$TOOLS/gooracle" "$TOOLS/goburn" > "$TMP/all"
for fn in burnLong burnShort; do
	call=$(awk -v f="$fn" '$0 ~ "^func " f "\\(" { in_f = 1 } in_f && /x = mix\(x\)/ { print NR; exit }' "$SRC")
	range=($(awk -F'\t' -v f="main.$fn" '$2 == f { print $1 }' "$TMP/all" | sed -n '1p;3p'))
	[ -n "$call" ] && [ "${#range[@]}" = 2 ] || fail "no call of mix in $fn, or no $fn in goburn"
	for ((a = 0x${range[0]}; a <= 0x${range[1]}; a++)); do printf '%x\n' "$a"; done |
		"$TOOLS/gosym_dump" -a "$TOOLS/goburn" | cut -f2 > "$TMP/frames"
	inl=$(grep -c ';' "$TMP/frames")
	[ "$inl" -ge 4 ] || fail "$fn: $inl addresses with an inlined frame: $(sort -u "$TMP/frames")"
	# every inlined frame is mix at one of its body lines, inside $fn at the call
	bad=$(grep ';' "$TMP/frames" | sort -u | while IFS= read -r l; do
		inner=${l%%;*} outer=${l#*;}
		line=${inner#main.mix:}
		[ "$outer" = "main.$fn:$call" ] && [[ "$inner" = main.mix:* ]] &&
			[[ " $mix_lines " = *" $line "* ]] || echo "$l"
	done)
	[ -z "$bad" ] || fail "$fn: inlined frames other than main.mix:{$mix_lines} in main.$fn:$call: $bad"
	ok "$fn: main.mix inlined at $inl addresses, at its lines {$mix_lines}, in main.$fn:$call"
done
