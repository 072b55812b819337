#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# A Rails boot's own Ruby method in --profile (issue 29, item 5): Debian's
# Rails 6.1 (ruby-railties) under puma, in production mode, boots
# tests/tools/railsapp, whose initializer config/initializers/slow_table.rb
# spends 300 ms of its thread's CPU in SlowTable.build_table. Profiled
# from the start to listen. Checked:
#  - the stack rows name `build_table (FILE:LINE)`, LINE its def line;
#  - analyze --profile: build_table's total is the CPU time it measured
#    itself (printed by the initializer: some 300 ms) at 999 Hz (±15%),
#    under the initializer's file (`<top (required)> (FILE:0)`, loaded by
#    Rails; named by the sampling program before Ruby frees that iseq:
#    bpf/inames.bpf.h);
#  - the off-CPU truth: an after_initialize hook (config/application.rb,
#    with RAILSAPP_NAP set) sleeps 150 ms; the critical path's blocked
#    stretch names its block `block in <class:Application>
#    (application.rb:LINE)`, within 10 ms of what it measured;
#  - analyze --plot (and --profile --plot): the container's flame graph
#    shows build_table with its file and line, and the same time;
#  - the tracer's own cost (issue 34, item 6): samples taken in the
#    collector's BPF programs are a [boottrace] frame of their own, and
#    none names a bpf_prog_ frame (when the kernel lists JIT'd programs
#    in kallsyms: net.core.bpf_jit_kallsyms); their share said.
# modes: cgroup
. "$(dirname "$0")/lib.sh"
need_root
RB=/usr/bin/ruby3.1
PUMA=/usr/bin/puma
if ! [ -x "$RB" ] || ! [ -x "$PUMA" ] || ! "$RB" -e 'require "rails"' 2>/dev/null; then
	[ "${CI:-}" = true ] && fail "no ruby3.1, puma or Rails (scripts/install-deps.sh installs ruby-railties and puma)"
	skip "no ruby3.1, puma or Rails"
fi
cp -r "$(dirname "$0")/../tools/railsapp" "$TMP/app"
APP=$TMP/app
INIT=$APP/config/initializers/slow_table.rb
LINE=$(grep -n "def self.build_table" "$INIT" | cut -d: -f1)
tsv=$TMP/rails.tsv

# (a Rails boot is some 650,000 rows in 2 s: a buffer that holds them when
# the reader is slowed, ASan's; this test is not of loss)
(cd "$APP" && RAILSAPP_NAP=1 "$COLLECTOR" --ringbuf-mb 64 --profile=999 --until listen -o "$tsv" -- \
	"$PUMA" -e production -b tcp://127.0.0.1:0 config.ru) > "$TMP/out" 2> "$TMP/err" ||
	fail "collector exited $?: $(cat "$TMP/err")"
check_tsv "$tsv"
rows "$tsv" stack | cut -f12 | grep -qF "build_table ($INIT:$LINE)" ||
	fail "no frame 'build_table ($INIT:$LINE)' in the stack rows"

# the CPU time build_table measured itself ± 15%, as samples at 999 Hz
# (1.001001 ms each)
cpu_ns=$(sed -n 's/^build_table cpu_ns=\([0-9]*\)$/\1/p' "$TMP/err" | head -1)
[ -n "$cpu_ns" ] || fail "the initializer printed no cpu_ns: $(tail -3 "$TMP/err")"
cpu_ms=$((cpu_ns / 1000000))
in_range() { awk -v ms="$1" -v cpu="$cpu_ms" 'BEGIN { exit !(ms >= cpu * 0.85 && ms <= cpu * 1.15) }'; }
folded=$("$ANALYZE" --profile --top 1000 --format folded "$tsv") || fail "analyze --profile exited $?"
n=$(awk -v f="build_table ($INIT:$LINE)" 'index($0, f) { n += $NF } END { print n + 0 }' <<< "$folded")
ratio_near "$n" "$(cpu_samples "$cpu_ns" 1001001)" 1 15 ||
	fail "build_table: $n samples (1.001 ms each), not the $cpu_ms ms of CPU it measured ±15%"
grep -F "build_table (" <<< "$folded" | grep -qF "<top (required)> ($INIT:0);build_table ($INIT:$LINE)" ||
	fail "build_table is not under its initializer's file in the folded stacks"
ok "analyze --profile: build_table ($INIT:$LINE) $n samples (~$n ms of the $cpu_ms it measured), under its initializer"

# the off-CPU truth: config.after_initialize's block sleeps 150 ms
# (RAILSAPP_NAP); the path's blocked stretch names the block as the
# walker reads it from the thread's own frames, `block in
# <class:Application> (application.rb:LINE)`, LINE the block's first,
# within 10 ms of what it measured
HOOK=$(grep -n "config.after_initialize do" "$APP/config/application.rb" | cut -d: -f1)
nap=$(sed -n 's/^after_initialize ms=\([0-9.]*\)$/\1/p' "$TMP/err" | head -1)
[ -n "$nap" ] || fail "the after_initialize hook printed no time: $(tail -3 "$TMP/err")"
"$ANALYZE" --critical-path --format tsv "$tsv" > "$TMP/path.tsv" || fail "analyze --critical-path exited $?"
got=$(awk -F'\t' -v f="in block in <class:Application> (application.rb:$HOOK)" \
	'$10 == "blocked" && index($9, f) == 1 { print $8; exit }' "$TMP/path.tsv")
[ -n "$got" ] || fail "no blocked stretch 'in block in <class:Application> (application.rb:$HOOK)' on the path: $(awk -F'\t' '$10 == "blocked" && $8 > 50000000' "$TMP/path.tsv" | cut -f6-10)"
awk -v a="$got" -v b="$nap" 'BEGIN { d = a / 1e6 - b; exit !(d <= 10 && d >= -10) }' ||
	fail "the after_initialize hook blocked $((got / 1000)) us on the path, it measured $nap ms"
ok "path: blocked in block in <class:Application> (application.rb:$HOOK) $((got / 1000)) us (the hook measured $nap ms)"

read -r bt all < <(awk '{ all += $NF } index($0, ";[boottrace] ") { n += $NF } END { print n + 0, all + 0 }' <<< "$folded")
grep -q 'bpf_prog_[0-9a-f]\{16\}_bt_' <<< "$folded" &&
	fail "a bpf_prog_ frame of the collector's left in the folded stacks: $(grep -o '[^;]*bpf_prog_[^;]*' <<< "$folded" | head -3)"
if [ "$(cat /proc/sys/net/core/bpf_jit_kallsyms 2> /dev/null)" = 1 ]; then
	[ "$bt" -gt 0 ] || fail "no [boottrace] sample in the boot's $all (the collector's programs ran in every syscall)"
fi
ok "the tracer's own cost: $bt of $all samples ($((bt * 1000 / all / 10)).$((bt * 1000 / all % 10))%) under [boottrace]"

# --plot alone, and with --profile (which once crashed: its reading kept no samples)
for opts in "--plot" "--profile --plot"; do
	rm -rf "$TMP/plot"
	# shellcheck disable=SC2086 # (the options, split)
	"$ANALYZE" $opts "$TMP/plot" "$tsv" > /dev/null 2> "$TMP/plot.err" ||
		fail "analyze $opts exited $?: $(cat "$TMP/plot.err")"
	title=$(cat "$TMP"/plot/flame-*.svg | grep -o "<title>build_table ($INIT:$LINE) ([^<]*</title>" | head -1)
	[ -n "$title" ] || fail "analyze $opts: no build_table ($INIT:$LINE) in the flame graph"
	ms=$(sed -n 's/.* samples, \([0-9.]*\) ms,.*/\1/p' <<< "$title")
	in_range "${ms:-0}" || fail "analyze $opts: the flame graph's build_table: '$title', not $cpu_ms ms ±15%"
	ok "analyze $opts: the flame graph shows build_table, $ms ms"
done
exit 0
