#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --profile (docs/tsv-format.md, Profile rows), known truths from
# tests/tools/burn: burn_long spins 200 ms of its thread's CPU time and
# burn_short 100 ms, both called by burn_all from main. At 999 Hz (a
# period of 10^9/999 ns, truncated: 1001001 ns) that is about 300 samples,
# burn_long's twice burn_short's, each on a stack defined earlier in its
# file, burn_long's under burn_all under main. A busy process outside the
# container is never sampled. --profile alone is 99 Hz (10101010 ns).
# With --rotate each file defines the stacks its samples name. The compat
# object samples as the modern one does (4.18's bpf_get_stack); the legacy
# object has no sampling program: '# profile=off', a warning, no stack or
# sample rows, exit 0.
# modes: cgroup compat pidtree legacy
. "$(dirname "$0")/lib.sh"
need_root
need_profile_checks
# inner FILE...: samples per innermost burn function of burn's thread
# ($tid), "COUNT<TAB>FUNC" lines
inner() { "${PC[@]}" --elf "$BURN" --tid "$tid" inner "$@"; }
# n FUNC: its count in the inner output $in (0 when absent)
n() { awk -F'\t' -v f="$1" '$2 == f { n = $1 } END { print n + 0 }' <<< "$in"; }
# within X LO HI: LO <= X <= HI
within() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
burn_tid() { sed -n 's/^burn tid=\([0-9]*\)$/\1/p' "$1"; }

if [ "$BT_MODE" = legacy ]; then
	"$COLLECTOR" --profile=999 -o "$TMP/off.tsv" -- "$BURN" > /dev/null 2> "$TMP/off.err" ||
		fail "collector --profile with the $BT_MODE object exited $?: $(cat "$TMP/off.err")"
	check_tsv "$TMP/off.tsv"
	grep -qx '# profile=off' "$TMP/off.tsv" || fail "no '# profile=off' with the $BT_MODE object"
	grep -q -- '--profile.*cannot sample' "$TMP/off.err" ||
		fail "no --profile warning on stderr: $(cat "$TMP/off.err")"
	[ "$(rows "$TMP/off.tsv" sample | wc -l)$(rows "$TMP/off.tsv" stack | wc -l)" = 00 ] ||
		fail "stack or sample rows with the $BT_MODE object"
	[ "$(rows "$TMP/off.tsv" exec | wc -l)" -ge 1 ] || fail "no exec row: the trace itself is gone"
	ok "$BT_MODE object: '# profile=off', a warning, no sample rows, exit 0"
	exit 0
fi

# 0. a busy process outside the container, spinning before it starts
"$BURN" -x 1000 -n bt-outsider > "$TMP/outsider.out" &
outsider=$!
cleanup_hooks+=("kill $outsider 2>/dev/null; wait $outsider 2>/dev/null")
for _ in $(seq 100); do [ -s "$TMP/outsider.out" ] && break; sleep 0.02; done
outsider_cpu0=$(awk '{ print $14 + $15 }' "/proc/$outsider/stat")

# 1. 999 Hz
"$COLLECTOR" --profile=999 -o "$TMP/p.tsv" -- "$BURN" > "$TMP/p.out" 2> "$TMP/p.err" ||
	fail "collector --profile=999 exited $?: $(cat "$TMP/p.err")"
check_tsv "$TMP/p.tsv"
grep -qx '# profile=999' "$TMP/p.tsv" || fail "no '# profile=999' line"
tid=$(burn_tid "$TMP/p.out")
[ -n "$tid" ] || fail "burn printed no tid: $(cat "$TMP/p.out")"
out=$("${PC[@]}" check "$TMP/p.tsv") || fail "stacks and samples: $out"
durs=$("${PC[@]}" durs "$TMP/p.tsv")
[ "$(cut -f2 <<< "$durs")" = 1001001 ] || fail "sample dur_ns other than 1001001 (10^9/999): $durs"
ok "999 Hz: $out; every dur_ns 1001001"

in=$(inner "$TMP/p.tsv")
long=$(n burn_long) short=$(n burn_short) all=$(n burn_all)
# burn_all alone: a sample in libc's clock_gettime, which keeps no frame
# pointer, so its caller (burn_long or burn_short) is not on the stack
total=$((long + short + all))
within "$total" 255 345 || fail "$total samples in burn's functions, not 300 +-15%: $in"
[ "$short" -gt 0 ] || fail "no burn_short samples: $in"
# burn_long : burn_short = 2 +-15%, in hundredths
ratio=$((100 * long / short))
within "$ratio" 170 230 || fail "burn_long:burn_short = $long:$short, not 2 +-15%: $in"
ratio=$(printf '%d.%02d' $((ratio / 100)) $((ratio % 100)))
ok "burn_long $long, burn_short $short (ratio $ratio), $total samples in burn"

callers=$("${PC[@]}" --elf "$BURN" --tid "$tid" callers "$TMP/p.tsv")
# (CFI unwinding, --profile-unwind's default with the modern object, goes on
# through libc to _start, which frame pointers do not reach)
right=$(awk -F'\t' '$2 ~ /^burn_long burn_all main( _start)?$/ { n += $1 } END { print n + 0 }' <<< "$callers")
# a sample in burn_long's prologue, before its frame pointer is set, skips
# burn_all: rare, a few instructions of a loop's hundreds of thousands
[ "${right:-0}" -ge $((long * 95 / 100)) ] ||
	fail "burn_long's samples not under burn_all under main: $callers"
ok "burn_long's stacks: ${right:-0} of $long under burn_all under main"

# the outsider: busy all along (it kept burning CPU), never sampled, and
# every sample is of the container's processes
outsider_cpu1=$(awk '{ print $14 + $15 }' "/proc/$outsider/stat")
[ "$outsider_cpu1" -gt "$outsider_cpu0" ] || fail "the outsider $outsider did not run"
rows "$TMP/p.tsv" sample | awk -F'\t' -v p="$outsider" '$4 == p' | grep -q . &&
	fail "the outsider $outsider was sampled"
# (a sanitizer build's burn forks at exit: LeakSanitizer's tracer)
pids=$( (rows "$TMP/p.tsv" exec; rows "$TMP/p.tsv" fork) | cut -f4 | sort -u)
foreign=$(rows "$TMP/p.tsv" sample | cut -f4 | sort -u | grep -vxF "$pids")
[ -z "$foreign" ] || fail "samples of pids with no exec or fork in the container: $foreign"
ok "the busy outsider $outsider: never sampled"
kill "$outsider"
wait "$outsider" 2> /dev/null

# 2. --profile alone: 99 Hz, about 30 samples (few: a wide margin)
"$COLLECTOR" --profile -o "$TMP/d.tsv" -- "$BURN" > "$TMP/d.out" 2> "$TMP/d.err" ||
	fail "collector --profile exited $?: $(cat "$TMP/d.err")"
check_tsv "$TMP/d.tsv"
grep -qx '# profile=99' "$TMP/d.tsv" || fail "--profile alone: no '# profile=99' line"
out=$("${PC[@]}" check "$TMP/d.tsv") || fail "99 Hz: $out"
durs=$("${PC[@]}" durs "$TMP/d.tsv")
[ "$(cut -f2 <<< "$durs")" = 10101010 ] || fail "sample dur_ns other than 10101010 (10^9/99): $durs"
tid=$(burn_tid "$TMP/d.out")
in=$(inner "$TMP/d.tsv")
total=$(($(n burn_long) + $(n burn_short) + $(n burn_all)))
within "$total" 20 40 || fail "99 Hz: $total samples in burn's functions, not 30 +-10: $in"
ok "--profile: 99 Hz, dur 10101010, $total samples in burn"

# 3. --rotate 64K: each file's samples name its own stacks (ids restart)
"$COLLECTOR" --profile=999 --rotate 64K -o "$TMP/r.tsv" -- "$BURN" > "$TMP/r.out" 2> "$TMP/r.err" ||
	fail "collector --profile --rotate exited $?: $(cat "$TMP/r.err")"
files=("$TMP"/r.tsv "$TMP"/r.tsv.[0-9]*)
[ "${#files[@]}" -ge 3 ] || fail "--rotate 64K made ${#files[@]} files"
tid=$(burn_tid "$TMP/r.out")
with=0
for f in "${files[@]}"; do
	check_tsv "$f"
	out=$("${PC[@]}" check "$f") || fail "$f: $out"
	[ "$(rows "$f" sample | wc -l)" -gt 0 ] && with=$((with + 1))
done
[ "$with" -ge 2 ] || fail "samples in $with of ${#files[@]} files"
in=$(inner "${files[@]}")
total=$(($(n burn_long) + $(n burn_short) + $(n burn_all)))
within "$total" 255 345 || fail "--rotate: $total samples in burn's functions: $in"
ok "--rotate 64K: ${#files[@]} files, $with with samples, each defining its own stacks"
