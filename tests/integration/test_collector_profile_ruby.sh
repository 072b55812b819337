#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --profile names a Ruby app's own frames (issue 29, item 4): Debian's
# ruby3.1 runs tests/tools/rbburn.rb, whose burn_long spins 200 ms of CPU
# in Ruby code (spin, called from it) and burn_short 100 ms, both called
# by main. libruby keeps no frame pointers and its VM loop has no name:
# without the interpreter's frames a sample says only
# [libruby-3.1.so.3.1+0x...].
# Checked:
#  - the struct offsets the collector reads with read a live Ruby
#    process's own frames right (tests/tools/rboffsets.rb: its thread,
#    its methods' labels, file and first lines; libruby has no DWARF);
#  - the raw TSV: stack rows carry i: frames `spin (FILE:LINE)`,
#    `burn_long (FILE:LINE)` ..., LINE each method's def line;
#  - analyze --profile: burn_long's total is 2x burn_short's (±15%),
#    and each's the CPU time the function measured itself (its thread's
#    clock before and after, printed) in samples at 999 Hz (±15%); main
#    above both;
#  - in a container of its own (pid and mount namespaces: the
#    interpreter's file reached through the process's own mappings);
#  - two threads (rbburn.rb threads), burn_long in one and burn_short in
#    the other, at once: each thread's samples carry its own method
#    (only the GVL holder's execution context is read, checked against
#    the interrupted thread), 2:1, and each thread's samples its
#    method's measured CPU time (±15%).
#  - a deep stack whose innermost frames change (rbburn.rb deep:
#    leaf_long and leaf_short taking turns under the same 61 frames of
#    down, read from the walk's memo, bpf/interp.bpf.h): each sample
#    under either leaf holds exactly 61 down frames, main's among them;
#    the leaves' samples 2:1 and their measured CPU time (±15%).
# The compat and legacy objects read no interpreter frames (modern only).
# modes: cgroup pidtree
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/interp.sh"
need_root
RB=/usr/bin/ruby3.1
APP=$(cd "$(dirname "$0")/../tools" && pwd)/rbburn.rb
[ -x "$RB" ] || { [ "${CI:-}" = true ] && fail "no $RB (scripts/install-deps.sh installs ruby)"; skip "no $RB"; }
line_of() { grep -nE "^def $1(\(|$)" "$APP" | cut -d: -f1; }

# 0. the offsets, on a live process
"$TOOLS/interp_offsets" --ruby > "$TMP/offsets" || fail "interp_offsets exited $?"
out=$("$RB" "$(dirname "$APP")/rboffsets.rb" "$TMP/offsets" 2>&1) ||
	fail "the collector's Ruby 3.1 offsets misread a live process's frames: $out"
ok "Ruby 3.1 offsets: a live process's own thread, labels, files and lines read right ($out)"

# with rubygems: its start-up loads gemspecs whose block iseqs the GC
# frees, and a burner's iseq is made later at the same address (1 run in
# 20 named spin `block in load (...gemspec:4)` before the names' tag,
# bpf/inames.bpf.h, told the two apart)
RB=("$RB")
interp_run host "$APP" line_of -- "${RB[@]}" "$APP"
cgroup_mode && interp_run container "$APP" line_of --unshare pid,mount -- "${RB[@]}" "$APP"

# threads: burn_long and burn_short at once, in two threads taking turns
# with the GVL; each thread's samples carry its own method, never the other's
tsv=$TMP/threads.tsv
"$COLLECTOR" --profile=999 -o "$tsv" -- "${RB[@]}" "$APP" threads > "$TMP/threads.out" 2> "$TMP/threads.err" ||
	fail "threads: collector exited $?: $(cat "$TMP/threads.err")"
check_tsv "$tsv"
# per thread (tid): its samples under burn_long, under burn_short
awk -F'\t' -v l="burn_long ($APP:" -v s="burn_short ($APP:" '
	/^#/ { next }
	$8 == "stack" { k[$9] = index($12, l) ? "long" : index($12, s) ? "short" : "" }
	$8 == "sample" && k[$9] != "" { n[$5 " " k[$9]]++ }
	END { for (x in n) print x, n[x] }' "$tsv" | sort > "$TMP/threads.count"
[ "$(cut -d' ' -f1 "$TMP/threads.count" | sort -u | wc -l)" = 2 ] &&
	[ "$(cut -d' ' -f2 "$TMP/threads.count" | sort -u | wc -l)" = 2 ] &&
	[ "$(wc -l < "$TMP/threads.count")" = 2 ] ||
	fail "threads: burn_long and burn_short are not each in one thread of its own: $(tr '\n' ';' < "$TMP/threads.count")"
long=$(awk '$2 == "long" { print $3 }' "$TMP/threads.count")
short=$(awk '$2 == "short" { print $3 }' "$TMP/threads.count")
ratio_near "$long" "$short" 2 15 ||
	fail "threads: burn_long $long samples, burn_short $short: not 2:1 (±15%)"
burner_check threads burn_long "$long" "$(burner_ns "$TMP/threads.out" burn_long)" 1001001
burner_check threads burn_short "$short" "$(burner_ns "$TMP/threads.out" burn_short)" 1001001
ok "threads: burn_long $long samples in its thread, burn_short $short in its own, none crossed;" \
	"they measured $(($(burner_ns "$TMP/threads.out" burn_long) / 1000000)) and" \
	"$(($(burner_ns "$TMP/threads.out" burn_short) / 1000000)) ms"

# deep: the outer frames remembered, the leaves read as they change
tsv=$TMP/deep.tsv
"$COLLECTOR" --profile=999 -o "$tsv" -- "${RB[@]}" "$APP" deep > "$TMP/deep.out" 2> "$TMP/deep.err" ||
	fail "deep: collector exited $?: $(cat "$TMP/deep.err")"
check_tsv "$tsv"
# per leaf: its samples, and those whose stack has not 61 frames of down under main
read -r long short bad < <(awk -F'\t' -v l="leaf_long ($APP:" -v s="leaf_short ($APP:" \
	-v d="down ($APP:" -v m="main ($APP:" '
	/^#/ { next }
	$8 == "stack" {
		k[$9] = index($12, l) ? "long" : index($12, s) ? "short" : ""
		x = $12; downs[$9] = gsub(/down \(/, "", x); mains[$9] = index($12, m) > 0
	}
	$8 == "sample" && k[$9] != "" { n[k[$9]]++; if (downs[$9] != 61 || !mains[$9]) bad++ }
	END { print n["long"] + 0, n["short"] + 0, bad + 0 }' "$tsv")
[ "$bad" = 0 ] || fail "deep: $bad of $((long + short)) samples under a leaf have not 61 frames of down under main"
ratio_near "$long" "$short" 2 15 || fail "deep: leaf_long $long samples, leaf_short $short: not 2:1 (±15%)"
burner_check deep leaf_long "$long" "$(burner_ns "$TMP/deep.out" leaf_long)" 1001001
burner_check deep leaf_short "$short" "$(burner_ns "$TMP/deep.out" leaf_short)" 1001001
ok "deep: leaf_long $long samples, leaf_short $short, each under 61 frames of down;" \
	"they measured $(($(burner_ns "$TMP/deep.out" leaf_long) / 1000000)) and" \
	"$(($(burner_ns "$TMP/deep.out" leaf_short) / 1000000)) ms"
exit 0
