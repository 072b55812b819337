#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --profile-unwind (docs/tsv-format.md, Profile rows), a known truth from
# tests/tools/burn_libc, built -O2 -fomit-frame-pointer as Debian builds
# its libraries: libc_long works 200 ms of its thread's CPU and libc_short
# 100 ms, mostly inside libc (memcpy, strlen, clock_gettime), both under
# libc_all under main. With the default (auto: CFI unwinding of a copied
# user stack) each sample keeps its caller: libc_long : libc_short on the
# samples' stacks is 2:1 (+-15%), with at least 3/4 of burn_libc's samples
# under one of the two, in the raw TSV and through analyze --profile
# (total samples). With frame pointers the same samples lose them (fewer
# than 1/4 under either: what the CFI walk is for). The compat object
# copies no user stack: --profile-unwind=dwarf says so and walks frame
# pointers ('# profile_unwind=fp'). Bad --profile-unwind and
# --profile-stack values are usage errors (exit 2).
# modes: cgroup pidtree compat
. "$(dirname "$0")/lib.sh"
need_root
need_profile_checks
BURNL=$TOOLS/burn_libc
[ -x "$BURNL" ] || fail "$BURNL not built (make all)"
within() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
burn_tid() { sed -n 's/^burn tid=\([0-9]*\)$/\1/p' "$1"; }
# under TSV TID: "LONG SHORT ALL": burn_libc's samples of thread TID with
# libc_long on the stack, with libc_short, and all of them
under() {
	"${PC[@]}" --elf "$BURNL" --tid "$2" callers "$1" |
		awk -F'\t' '{ all += $1; n = split($2, f, " ")
			for (i = 1; i <= n; i++) { if (f[i] == "libc_long") { l += $1; break }
						  if (f[i] == "libc_short") { s += $1; break } } }
			END { print l + 0, s + 0, all + 0 }'
}

# 0. usage errors
for bad in --profile-unwind=frame --profile-stack=100 --profile-stack=65537 --profile-stack=8x; do
	"$COLLECTOR" --profile $bad -- true > /dev/null 2> "$TMP/usage.err"
	rc=$?
	[ $rc -eq 2 ] || fail "collector --profile $bad exited $rc, not 2"
	grep -q -- "${bad%%=*}" "$TMP/usage.err" || fail "$bad: no message naming it: $(cat "$TMP/usage.err")"
done
ok "--profile-unwind=frame, --profile-stack=100, 65537, 8x: usage errors"

if [ "$BT_MODE" = compat ]; then
	"$COLLECTOR" --profile=999 --profile-unwind=dwarf -o "$TMP/c.tsv" -- "$BURNL" > "$TMP/c.out" 2> "$TMP/c.err" ||
		fail "collector --profile-unwind=dwarf with the compat object exited $?: $(cat "$TMP/c.err")"
	check_tsv "$TMP/c.tsv"
	grep -q -- '--profile-unwind=dwarf: the compat BPF object copies no user stack' "$TMP/c.err" ||
		fail "no warning that the compat object walks frame pointers: $(cat "$TMP/c.err")"
	grep -qx '# profile_unwind=fp' "$TMP/c.tsv" || fail "no '# profile_unwind=fp' with the compat object"
	out=$("${PC[@]}" check "$TMP/c.tsv") || fail "compat: $out"
	[ "$("${PC[@]}" count "$TMP/c.tsv")" -gt 200 ] || fail "compat: too few samples"
	ok "compat object: --profile-unwind=dwarf warned, frame pointers, $out"
	exit 0
fi

# 1. the default, auto: CFI
"$COLLECTOR" --profile=999 -o "$TMP/d.tsv" -- "$BURNL" > "$TMP/d.out" 2> "$TMP/d.err" ||
	fail "collector --profile=999 exited $?: $(cat "$TMP/d.err")"
check_tsv "$TMP/d.tsv"
grep -qx '# profile_unwind=auto' "$TMP/d.tsv" || fail "no '# profile_unwind=auto' line"
out=$("${PC[@]}" check "$TMP/d.tsv") || fail "stacks and samples: $out"
tid=$(burn_tid "$TMP/d.out")
[ -n "$tid" ] || fail "burn_libc printed no tid: $(cat "$TMP/d.out")"
read -r long short all <<< "$(under "$TMP/d.tsv" "$tid")"
within "$all" 255 400 || fail "$all samples of burn_libc, not about 300"
[ "$short" -gt 0 ] || fail "no sample under libc_short ($long, $short of $all)"
ratio=$((100 * long / short))
within "$ratio" 170 230 || fail "libc_long:libc_short = $long:$short on the stacks, not 2 +-15%"
[ $((4 * (long + short))) -ge $((3 * all)) ] ||
	fail "only $((long + short)) of $all samples under libc_long or libc_short"
# and the callers right: libc_long under libc_all under main
right=$("${PC[@]}" --elf "$BURNL" --tid "$tid" callers "$TMP/d.tsv" |
	awk -F'\t' '$2 ~ /(^| )libc_long libc_all main( |$)/ { n += $1 } END { print n + 0 }')
[ "$right" -ge $((long * 95 / 100)) ] || fail "libc_long's samples under libc_all under main: $right of $long"
ok "auto (CFI): libc_long $long, libc_short $short of $all samples (ratio $(printf '%d.%02d' $((ratio / 100)) $((ratio % 100)))), $right of libc_long's under libc_all under main"

# 2. the same through analyze --profile: total samples
"$ANALYZE" --profile --format tsv --top 1000 "$TMP/d.tsv" > "$TMP/prof.tsv" ||
	fail "analyze --profile exited $?"
total() { awk -F'\t' -v f="$1" 'NR > 1 && $3 == f && $4 == "burn_libc" { print $8 }' "$TMP/prof.tsv"; }
along=$(total libc_long) ashort=$(total libc_short) amain=$(total main)
[ -n "$along" ] && [ -n "$ashort" ] && [ -n "$amain" ] ||
	fail "analyze: no libc_long, libc_short or main: $(head -20 "$TMP/prof.tsv")"
ratio=$((100 * along / ashort))
within "$ratio" 170 230 || fail "analyze: libc_long:libc_short totals $along:$ashort, not 2 +-15%"
[ $((4 * (along + ashort))) -ge $((3 * amain)) ] ||
	fail "analyze: $((along + ashort)) of main's $amain samples under libc_long or libc_short"
ok "analyze --profile: totals libc_long $along, libc_short $ashort of main's $amain"

# 3. frame pointers: the same program's callers lost in libc (not in a
# sanitizer build: ASan's interceptors of memcpy and strlen keep frame
# pointers, and their callers with them)
if nm "$BURNL" 2> /dev/null | grep -q __asan_init; then
	ok "fp: left out, burn_libc is built with ASan"
	exit 0
fi
"$COLLECTOR" --profile=999 --profile-unwind=fp -o "$TMP/f.tsv" -- "$BURNL" > "$TMP/f.out" 2> "$TMP/f.err" ||
	fail "collector --profile-unwind=fp exited $?: $(cat "$TMP/f.err")"
grep -qx '# profile_unwind=fp' "$TMP/f.tsv" || fail "no '# profile_unwind=fp' line"
read -r flong fshort fall <<< "$(under "$TMP/f.tsv" "$(burn_tid "$TMP/f.out")")"
[ "$fall" -gt 200 ] || fail "fp: $fall samples"
[ $((4 * (flong + fshort))) -lt "$fall" ] ||
	fail "fp: $((flong + fshort)) of $fall under libc_long or libc_short: the truth needs no CFI?"
ok "fp: $((flong + fshort)) of $fall samples under libc_long or libc_short"
