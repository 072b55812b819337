#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --offcpu-stacks (docs/tsv-format.md, Scheduler rows' stack=) and the
# critical path's blocked stretches named by them (docs/critical-path.md),
# a known truth from tests/tools/offcpu_wait, built -O2 -g without frame
# pointers as Debian builds programs: its child sleeps 200 ms in
# child_prepares() and then fills a pipe the parent blocks on in
# await_config(); the parent then nanosleeps 100 ms in nap_after() and
# listens. With the default (on), the S rows of both sleeps and of the
# read name stack rows of the file (their kernel frames from __schedule,
# the user's unwound by CFI to main), and analyze --critical-path names
# child_prepares on the child's 200 ms blocked stretch and nap_after on
# the parent's 100 ms, each within 10 ms of what the program measured
# itself; analyze --profile=offcpu weighs await_config's stack by its
# ~200 ms blocked. analyze --format pprof: Debian's go tool pprof reads
# it, the off-CPU time under await_config as analyze says it, and, with
# tests/tools/burn's CPU samples (--profile=999) in the same file, the
# same top 2 functions by flat CPU as analyze --profile's by self.
# Interpreters (tests/tools/pyslow.py, rbslow.rb): a Python module whose
# import sleeps 150 ms in slow_import_sleep, a Ruby file whose require
# sleeps 150 ms in slow_require_sleep: the path's blocked stretch names
# the function by its interpreter frame `in FUNC (FILE:LINE)` (the def
# line), within 10 ms of what it measured, and --profile=offcpu and the
# off-CPU flame graph have it; a Python thread asleep while another burns
# CPU holding the GIL: its blocked stacks name its own function, never
# the burner's, its sleep and its wait for the GIL named by it.
# --offcpu-stacks off: no stack= and '# offcpu_stacks=off'; a bad value is
# a usage error (exit 2).
# modes: cgroup pidtree
. "$(dirname "$0")/lib.sh"
need_root
OW=$TOOLS/offcpu_wait
[ -x "$OW" ] || fail "$OW not built (make all)"
# ms NS: nanoseconds as milliseconds, one decimal
ms() { awk -v n="$1" 'BEGIN { printf "%.1f", n / 1e6 }'; }
# near A B: |A - B| <= 10 (ms, decimals)
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(d <= 10 && d >= -10) }'; }

# 0. a usage error
"$COLLECTOR" --offcpu-stacks maybe -- true > /dev/null 2> "$TMP/usage.err"
rc=$?
[ $rc -eq 2 ] || fail "collector --offcpu-stacks maybe exited $rc, not 2"
grep -q -- '--offcpu-stacks' "$TMP/usage.err" || fail "no message naming --offcpu-stacks: $(cat "$TMP/usage.err")"
ok "--offcpu-stacks maybe: usage error"

# 1. on, the default
"$COLLECTOR" --until listen -o "$TMP/on.tsv" -- "$OW" > /dev/null 2> "$TMP/on.err" ||
	fail "collector exited $?: $(cat "$TMP/on.err")"
check_tsv "$TMP/on.tsv"
grep -qx '# offcpu_stacks=on' "$TMP/on.tsv" || fail "no '# offcpu_stacks=on' line"
read -r await_ms nap_ms < <(sed -n 's/^offcpu_wait: await_config_ms=\([0-9.]*\) nap_after_ms=\([0-9.]*\)$/\1 \2/p' "$TMP/on.err")
[ -n "$nap_ms" ] || fail "offcpu_wait printed no times: $(cat "$TMP/on.err")"
# every S row of offcpu_wait longer than 50 ms names a stack row written before it
awk -F'\t' '
	$8 == "stack" { have[$9] = 1; frames[$9] = $12; next }
	$8 == "sched" && $9 == "S" && $7 == "offcpu_wait" && $11 > 50000000 {
		n++
		if (!match($12, /(^| )stack=[0-9]+( |$)/)) { print "no stack= in: " $0; bad = 1; next }
		id = substr($12, RSTART, RLENGTH); sub(/^ ?stack=/, "", id); sub(/ $/, "", id)
		if (!have[id]) { print "stack " id " has no stack row before it"; bad = 1; next }
		if (frames[id] !~ /^k:__schedule\+/) { print "stack " id " does not begin at __schedule: " frames[id]; bad = 1 }
	}
	END { if (n != 3) { print n + 0 " long S rows of offcpu_wait, not 3 (the read, two sleeps)"; bad = 1 }
	      exit bad }' "$TMP/on.tsv" > "$TMP/on.check" || fail "$(cat "$TMP/on.check")"
ok "3 long S rows of offcpu_wait, each naming a stack row from __schedule"

# 2. the critical path names each blocked stretch's function
"$ANALYZE" --critical-path --format tsv "$TMP/on.tsv" > "$TMP/path.tsv" ||
	fail "analyze --critical-path exited $?"
# the lines of the two nanosleep calls in the source: child_prepares' first, nap_after's second
SRC=$(dirname "$0")/../tools/offcpu_wait.c
read -r l1 l2 < <(grep -n 'while (nanosleep(' "$SRC" | cut -d: -f1 | tr '\n' ' ')
[ -n "$l2" ] || fail "no two nanosleep calls in $SRC"
seg() { awk -F'\t' -v f="in $1 (offcpu_wait.c:$2)" '$10 == "blocked" && index($9, f) == 1 { print $8; exit }' "$TMP/path.tsv"; }
child=$(seg child_prepares "$l1")
nap=$(seg nap_after "$l2")
[ -n "$child" ] || fail "no blocked stretch 'in child_prepares' on the path: $(grep blocked "$TMP/path.tsv")"
[ -n "$nap" ] || fail "no blocked stretch 'in nap_after' on the path: $(grep blocked "$TMP/path.tsv")"
# the child's sleep is the parent's wait in await_config but for the fork: 200 ms either way
near "$(ms "$child")" "$await_ms" || fail "child_prepares blocked $(ms "$child") ms, the parent waited $await_ms ms"
near "$(ms "$nap")" "$nap_ms" || fail "nap_after blocked $(ms "$nap") ms, it measured $nap_ms ms"
ok "path: blocked in child_prepares (line $l1) $(ms "$child") ms (await_config waited $await_ms), in nap_after (line $l2) $(ms "$nap") ms (measured $nap_ms)"

# 3. --profile=offcpu: await_config's wait, by its own code, as long as it measured
"$ANALYZE" --profile=offcpu --format tsv "$TMP/on.tsv" > "$TMP/off.prof" ||
	fail "analyze --profile=offcpu exited $?"
self() { awk -F'\t' -v f="$1" '$3 == f && $4 == "offcpu_wait" { print $6; exit }' "$TMP/off.prof"; }
aw=$(self await_config)
[ -n "$aw" ] || fail "no await_config in analyze --profile=offcpu: $(head -5 "$TMP/off.prof")"
near "$(ms "$aw")" "$await_ms" || fail "await_config blocked $(ms "$aw") ms (self), it measured $await_ms ms"
np=$(self nap_after)
near "$(ms "${np:-0}")" "$nap_ms" || fail "nap_after blocked $(ms "${np:-0}") ms (self), it measured $nap_ms ms"
"$ANALYZE" --profile=offcpu --format folded "$TMP/on.tsv" > "$TMP/off.folded" ||
	fail "analyze --profile=offcpu --format folded exited $?"
grep -q ';main;await_config;.*;__schedule_\[k\] [0-9]*$' "$TMP/off.folded" ||
	fail "no folded stack main;await_config;...;__schedule: $(cat "$TMP/off.folded")"
"$ANALYZE" --profile=sideways "$TMP/on.tsv" > /dev/null 2>&1
rc=$?
[ $rc -eq 2 ] || fail "analyze --profile=sideways exited $rc, not 2"
# and the off-CPU flame graph of --plot (gnuplot or not: the SVG is analyze's own)
"$ANALYZE" --plot "$TMP/plot" "$TMP/on.tsv" > /dev/null 2> "$TMP/plot.err" || true
[ -s "$TMP/plot/offcpu-flame-1.svg" ] || fail "no offcpu-flame-1.svg: $(cat "$TMP/plot.err")"
grep -q '<title>await_config (' "$TMP/plot/offcpu-flame-1.svg" || fail "no await_config box in offcpu-flame-1.svg"
grep -q 'offcpu-flame-1.svg' "$TMP/plot/index.html" || fail "index.html does not link offcpu-flame-1.svg"
ok "--profile=offcpu: await_config $(ms "$aw") ms, nap_after $(ms "$np") ms by self; folded main;await_config;...;__schedule; offcpu-flame-1.svg"

# 4. pprof: go tool pprof reads it; burn's CPU top as analyze's, the off-CPU time as analyze's
if have go "the pprof file read by go tool pprof"; then
	"$COLLECTOR" --profile=999 -o "$TMP/burn.tsv" -- "$TOOLS/burn" > /dev/null 2> "$TMP/burn.err" ||
		fail "collector --profile=999 burn exited $?: $(cat "$TMP/burn.err")"
	# burn never listens: its window to its end
	for f in on burn; do
		u=listen; [ $f = burn ] && u=end
		"$ANALYZE" --format pprof --until $u "$TMP/$f.tsv" > "$TMP/$f.pb.gz" ||
			fail "analyze --format pprof $f.tsv exited $?"
		(cd "$TMP" && HOME=$TMP go tool pprof -raw "$f.pb.gz") > "$TMP/$f.raw" 2> "$TMP/$f.pperr" ||
			fail "go tool pprof -raw $f.pb.gz: $(cat "$TMP/$f.pperr")"
	done
	grep -q '^cpu/nanoseconds offcpu/nanoseconds' "$TMP/on.raw" || fail "not the two sample types: $(head -5 "$TMP/on.raw")"
	# go tool pprof's cum of await_config (off-CPU, ns) against analyze's total
	pcum=$(cd "$TMP" && HOME=$TMP go tool pprof -sample_index=offcpu -top -unit=ns on.pb.gz 2> /dev/null |
		awk '$NF == "await_config" { sub(/ns$/, "", $4); print $4 }')
	acum=$(awk -F'\t' '$3 == "await_config" { print $9; exit }' "$TMP/off.prof")
	[ -n "$pcum" ] && [ "$pcum" -ge $((acum - 1000)) ] && [ "$pcum" -le $((acum + 1000)) ] ||
		fail "go tool pprof: await_config ${pcum:-none} ns off-CPU, analyze $acum"
	ptop=$(cd "$TMP" && HOME=$TMP go tool pprof -sample_index=cpu -top burn.pb.gz 2> /dev/null |
		awk 'f && NF >= 6 { print $6 } /flat%/ { f = 1 }' | head -2 | tr '\n' ' ')
	atop=$("$ANALYZE" --profile --until end --format tsv --top 2 "$TMP/burn.tsv" | awk -F'\t' 'NR > 1 && $1 != "\\N" { print $3 }' |
		head -2 | tr '\n' ' ')
	[ -n "$atop" ] && [ "$ptop" = "$atop" ] || fail "go tool pprof's top 2 '$ptop', analyze --profile's '$atop'"
	ok "pprof: go tool pprof reads it; await_config off-CPU $pcum ns (analyze $acum); burn's top 2 by CPU '$ptop' as analyze's"
fi

# 5. interpreters: a blocked CPython or Ruby thread's stack carries its own
# interpreter frames (bpf/interp.bpf.h's thread lists), and the path names
# its function by them
PY=/usr/bin/python3.11
RB=/usr/bin/ruby3.1
TOOLDIR=$(cd "$(dirname "$0")/../tools" && pwd)
def_line() { grep -nE "^ *def $1(\(|$)" "$2" | head -1 | cut -d: -f1; }
# interp_path TAG FUNC SRC MEASURED_MS -- COMMAND...: COMMAND's path to listen
# has a blocked stretch 'in FUNC (BASE:LINE)' (LINE FUNC's def line in
# SRC) within 10 ms of MEASURED_MS (sed on stdout+stderr for
# 'FUNC ms=N'); --profile=offcpu weighs FUNC as long, by self, and the
# off-CPU flame graph has its box
interp_path() {
	local tag=$1 fn=$2 src=$3 line got ms self
	shift 4
	line=$(def_line "$fn" "$src")
	"$COLLECTOR" --until listen -o "$TMP/$tag.tsv" -- "$@" > "$TMP/$tag.out" 2>&1 ||
		fail "$tag: collector exited $?: $(cat "$TMP/$tag.out")"
	check_tsv "$TMP/$tag.tsv"
	ms=$(sed -n "s/^$fn ms=\([0-9.]*\)\$/\1/p" "$TMP/$tag.out")
	[ -n "$ms" ] || fail "$tag: $fn printed no time: $(cat "$TMP/$tag.out")"
	"$ANALYZE" --critical-path --format tsv "$TMP/$tag.tsv" > "$TMP/$tag.path" ||
		fail "$tag: analyze --critical-path exited $?"
	got=$(awk -F'\t' -v f="in $fn ($(basename "$src"):$line)" \
		'$10 == "blocked" && index($9, f) == 1 { print $8; exit }' "$TMP/$tag.path")
	[ -n "$got" ] || fail "$tag: no blocked stretch 'in $fn ($(basename "$src"):$line)' on the path: $(grep blocked "$TMP/$tag.path" | cut -f6-10 | tail -5)"
	near "$(ms "$got")" "$ms" || fail "$tag: $fn blocked $(ms "$got") ms on the path, it measured $ms ms"
	"$ANALYZE" --profile=offcpu --format tsv "$TMP/$tag.tsv" > "$TMP/$tag.prof" ||
		fail "$tag: analyze --profile=offcpu exited $?"
	self=$(awk -F'\t' -v f="$fn ($src:$line)" '$3 == f { print $6; exit }' "$TMP/$tag.prof")
	near "$(ms "${self:-0}")" "$ms" || fail "$tag: --profile=offcpu: $fn ${self:-no} ns by self, it measured $ms ms"
	"$ANALYZE" --plot "$TMP/$tag.plot" "$TMP/$tag.tsv" > /dev/null 2>&1 || true
	grep -qF "<title>$fn ($src:$line) (" "$TMP/$tag.plot/offcpu-flame-1.svg" 2> /dev/null ||
		fail "$tag: no $fn box in the off-CPU flame graph"
	ok "$tag: path blocked in $fn ($(basename "$src"):$line) $(ms "$got") ms (it measured $ms);" \
		"--profile=offcpu $(ms "$self") ms by self; in the off-CPU flame graph"
}
if [ -x "$PY" ]; then
	interp_path python slow_import_sleep "$TOOLDIR/pyslowmod.py" -- "$PY" "$TOOLDIR/pyslow.py" import
	# a thread asleep while the main thread burns holding the GIL: its
	# blocked stacks with interpreter frames are its own (under
	# Thread._bootstrap), never the burner's (main, burn_holding_gil); its
	# sleep and its wait for the GIL the burner held (a futex) name
	# nap_in_thread first (its start and its end, an munmap once its
	# thread state is gone, may have none)
	"$COLLECTOR" --until listen -o "$TMP/gil.tsv" -- "$PY" "$TOOLDIR/pyslow.py" gil > "$TMP/gil.out" 2>&1 ||
		fail "gil: collector exited $?: $(cat "$TMP/gil.out")"
	check_tsv "$TMP/gil.tsv"
	tid=$(sed -n 's/^nap_in_thread tid=\([0-9]*\) .*/\1/p' "$TMP/gil.out")
	[ -n "$tid" ] || fail "gil: no nap_in_thread tid printed: $(cat "$TMP/gil.out")"
	awk -F'\t' -v tid="$tid" -v want="nap_in_thread ($TOOLDIR/pyslow.py:$(def_line nap_in_thread "$TOOLDIR/pyslow.py"))" '
		$8 == "stack" { st[$9] = $12; next }
		$8 == "sched" && $5 == tid && ($9 == "S" || $9 == "D") && $11 > 100000000 { long = long " [" $9 " " $11 " " $12 "]" }
		$8 == "sched" && $5 == tid && ($9 == "S" || $9 == "D") && match($12, /(^| )stack=[0-9]+/) {
			id = substr($12, RSTART, RLENGTH); sub(/.*stack=/, "", id)
			f = st[id]; i = index(f, " i:")
			if (!i) next
			n++
			first = substr(f, i + 3); sub(/^[0-9]+:/, "", first)
			if (index(f, "burn_holding_gil") || index(f, "main (") || !index(f, "Thread._bootstrap ")) {
				print "not the napper own frames on its stack: " f; bad = 1
			}
			if (index(first, want) != 1) next
			if (f ~ /k:futex_wait/) gilwait++
			if ($11 > 100000000) slept++
		}
		END { if (!slept) { print "no long sleep of the napper in nap_in_thread: its long rows" long; bad = 1 }
		      if (!gilwait) { print "no futex wait (the GIL) of the napper"; bad = 1 }
		      print n + 0, gilwait + 0; exit bad }' "$TMP/gil.tsv" > "$TMP/gil.check" ||
		fail "gil: $(cat "$TMP/gil.check")"
	read -r n gw < "$TMP/gil.check"
	ok "gil: the napper's $n blocked stacks with interpreter frames all its own, no burner frame;" \
		"its sleep and $gw GIL wait(s) in nap_in_thread"
else
	[ "${CI:-}" = true ] && fail "no $PY (scripts/install-deps.sh installs python3.11)"
	echo "# skipped the Python checks: no $PY"
fi
if [ -x "$RB" ]; then
	interp_path ruby slow_require_sleep "$TOOLDIR/rbslowlib.rb" -- "$RB" --disable-gems "$TOOLDIR/rbslow.rb"
else
	[ "${CI:-}" = true ] && fail "no $RB (scripts/install-deps.sh installs ruby)"
	echo "# skipped the Ruby checks: no $RB"
fi

# 6. off
"$COLLECTOR" --offcpu-stacks off --until listen -o "$TMP/off.tsv" -- "$OW" > /dev/null 2> "$TMP/off.err" ||
	fail "collector --offcpu-stacks off exited $?: $(cat "$TMP/off.err")"
check_tsv "$TMP/off.tsv"
grep -qx '# offcpu_stacks=off' "$TMP/off.tsv" || fail "no '# offcpu_stacks=off' line"
! awk -F'\t' '$8 == "sched" && $12 ~ /stack=/' "$TMP/off.tsv" | grep -q . || fail "stack= with --offcpu-stacks off"
! rows "$TMP/off.tsv" stack | grep -q . || fail "stack rows with --offcpu-stacks off (and no --profile)"
ok "--offcpu-stacks off: no stack rows, no stack="
