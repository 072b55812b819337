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
# (total samples). The same from .debug_frame in a debug file found by
# build id (a stripped copy of tests/tools/burn_libc_df; fewer than 1/4
# without the file). With frame pointers the same samples lose them (fewer
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

# 3. CFI from a debug file: burn_libc_df (the same program, its functions'
# CFI in .debug_frame only), stripped, keeps its callers through the debug
# file found by build id under /usr/lib/debug/.build-id (where a -dbgsym
# package puts it), and loses them without it: libc_long and libc_short,
# found from libc's .eh_frame, stay, but not libc_all and main under them
DF=$TOOLS/burn_libc_df
[ -x "$DF" ] || fail "$DF not built (make all)"
cp "$DF" "$TMP/bl" && objcopy --only-keep-debug "$DF" "$TMP/bl.debug" && objcopy --strip-debug "$TMP/bl" ||
	fail "objcopy of $DF"
bid=$(readelf -n "$TMP/bl" | sed -n 's/.*Build ID: \([0-9a-f]*\)$/\1/p')
[ ${#bid} -eq 40 ] || fail "burn_libc_df has no 20-byte build id: '$bid'"
dbgdir=/usr/lib/debug/.build-id/${bid:0:2}
made=
for d in /usr/lib/debug /usr/lib/debug/.build-id "$dbgdir"; do
	[ -d "$d" ] || { mkdir "$d" && made="$d $made"; }
done
cleanup_hooks+=("rm -f '$dbgdir/${bid:2}.debug'; for d in $made; do rmdir \"\$d\"; done")
cp "$TMP/bl.debug" "$dbgdir/${bid:2}.debug" || fail "cannot write $dbgdir"
df_run() { # df_run TAG: burn_libc_df's samples "LONG SHORT ALL", each under libc_all under main
	"$COLLECTOR" --profile=999 -o "$TMP/$1.tsv" -- "$TMP/bl" > "$TMP/$1.out" 2> "$TMP/$1.err" ||
		fail "collector ($1) exited $?: $(cat "$TMP/$1.err")"
	"${PC[@]}" --elf "$DF" --tid "$(burn_tid "$TMP/$1.out")" callers "$TMP/$1.tsv" |
		awk -F'\t' '{ all += $1 }
			$2 ~ /(^| )libc_long libc_all main( |$)/ { l += $1 }
			$2 ~ /(^| )libc_short libc_all main( |$)/ { s += $1 }
			END { print l + 0, s + 0, all + 0 }'
}
read -r long short all <<< "$(df_run df)"
[ "$short" -gt 0 ] && within $((100 * long / short)) 170 230 && [ $((4 * (long + short))) -ge $((3 * all)) ] ||
	fail "with its debug file: libc_long $long, libc_short $short of $all samples"
rm -f "$dbgdir/${bid:2}.debug"
read -r nlong nshort nall <<< "$(df_run nodf)"
[ "$nall" -gt 200 ] && [ $((4 * (nlong + nshort))) -lt "$nall" ] ||
	fail "without its debug file: $((nlong + nshort)) of $nall under libc_all under main"
ok ".debug_frame from the debug file by build id: libc_long $long, libc_short $short of $all under libc_all under main; without it $((nlong + nshort)) of $nall"

# 4. frame pointers: the same program's callers lost in libc (not in a
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
