#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --spans: the interpreters' USDT probes as span rows, and analyze's
# --by span and critical path on them. Known truths (tests/integration/spans/):
# - Python (Debian's python3.11): a module that burns 150 ms at import is an
#   import span of 150 ms self (±15%), beside what `-X importtime` says of
#   the same boot (±10%); with --profile, a sample a ms of the CPU time it
#   measured itself (±15%) at 999 Hz
#   under its span's frame `import slowmod` in folded stacks, and the frame
#   in the flame graph;
# - Ruby (Debian's ruby3.1): a load burning 300 ms and one sleeping 200 ms
#   are named with their durations (±15%), the sleep on the critical path
#   as "in load .../sleepy.rb"; a require that raised is popped by name; a
#   file named with TAB, LF and backslashes is escaped (TSV and JSON); a
#   file requiring 40 files of 5 ms each comes first by --sort total (but
#   for the interpreter's own boot), its total >= 200 ms and its requires'
#   within 10%, named as the one that asked for each (not rubygems');
# - Rails (Debian's ruby-railties, run by puma, production: the app of
#   tests/tools/railsapp with spans/initializers instead of its own): its two
#   initializers, one burning 300 ms, one sleeping 200 ms, are load spans
#   of those lengths (±15%), the two at the top of --by span's self times,
#   each a stretch of its own on the critical path to listen, labelled in
#   the boot chart with config/environment around them;
# - Java (openjdk-17): a static initializer burning 200 ms is a clinit span
#   of its class (±15%);
# - an interpreter of its own (a copy of python3.11 in a root of its own,
#   chroot in a mount namespace of its own): attached at its exec, through
#   /proc/PID/root, its late import named;
# - --spans off: no span rows, # spans=off.
. "$(dirname "$0")/lib.sh"
need_root

S=$TMP/spans
cp -r "$(dirname "$0")/spans" "$S"
PY=/usr/bin/python3.11
RB=/usr/bin/ruby3.1
JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64

# within PCT percent of EXPECTED (integers)
near() { awk -v v="$1" -v e="$2" -v p="$3" 'BEGIN { d = v - e; if (d < 0) d = -d; exit !(d * 100 <= e * p) }'; }
# span_col FILE KIND WHAT COL: column COL (4 self_ns, 5 total_ns) of --by span's row
span_col() {
	"$ANALYZE" --by span --format tsv "$1" |
		awk -F'\t' -v k="$2" -v w="$3" -v c="$4" '$2 == k && $3 == w { print $c; exit }'
}

# 1. Python: the slow import's self time, beside -X importtime's; with
# --spans host (the host's interpreters attached at start): every import
if have "$PY" "the Python spans"; then
	out=$TMP/py.tsv
	"$COLLECTOR" --spans host -o "$out" -- "$PY" -X importtime "$S/app.py" 2> "$TMP/py.err" > /dev/null ||
		fail "collector exited $?: $(tail -3 "$TMP/py.err")"
	check_tsv "$out"
	grep -qx '# spans=on' "$out" || fail "no # spans=on"
	self=$(span_col "$out" import slowmod 4)
	[ -n "$self" ] || fail "no import span of slowmod: $(rows "$out" span | tail -3)"
	near "$self" 150000000 15 || fail "slowmod's self $self ns, not 150 ms ±15%"
	it=$(awk -F'|' '$3 ~ /^ *slowmod$/ { gsub(/[^0-9]/, "", $1); print $1 * 1000 }' "$TMP/py.err")
	[ -n "$it" ] || fail "-X importtime said nothing of slowmod"
	near "$self" "$it" 10 || fail "slowmod's self $self ns, -X importtime's $it ns"
	rows "$out" span import | awk -F'\t' '$12 == "what=4:json" && $10 == 0 { f = 1 } END { exit !f }' ||
		fail "no outermost import span of json"
	[ "$(rows "$out" span import | wc -l)" -eq "$(grep -c '| *[^ |]*$' "$TMP/py.err")" ] ||
		fail "$(rows "$out" span import | wc -l) import spans, -X importtime lists $(grep -c '| *[^ |]*$' "$TMP/py.err")"
	"$ANALYZE" --format trace-event "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
ev = [e for e in d["traceEvents"] if e.get("cat") == "span"]
sm = [e for e in ev if e["name"] == "slowmod" and e["args"]["kind"] == "import"]
sys.exit(0 if len(sm) == 1 and 127500 <= sm[0]["dur"] and any(e["name"] == "json.decoder" and e["args"]["depth"] == 1 for e in ev) else 1)' ||
		fail "--format trace-event has no 150 ms slowmod slice, or no nested json.decoder"
	ok "python import slowmod: $((self / 1000)) us self, -X importtime $((it / 1000)) us"
	# with --profile: the import span is a frame above the native and
	# Python ones, in folded stacks and the flame graph; its samples are
	# the ms of CPU its 150 ms had (it says: fewer on a busy machine)
	out=$TMP/pyp.tsv
	# (--spans host: attached at start, as above; at the exec row a slowed
	# reader, ASan's, can lose the race to the first imports)
	"$COLLECTOR" --spans host --profile=999 -o "$out" -- "$PY" "$S/app.py" 2> "$TMP/pyp.err" > /dev/null ||
		fail "collector --profile exited $?: $(tail -3 "$TMP/pyp.err")"
	n=$("$ANALYZE" --profile --until end --format folded "$out" |
		awk '/^python3\.11;import slowmod;/ { n += $NF } END { print n + 0 }')
	cpu=$(sed -n 's/^slowmod_cpu_ns=//p' "$TMP/pyp.err")
	[ -n "$cpu" ] || fail "slowmod said nothing of its CPU time: $(tail -3 "$TMP/pyp.err")"
	cpu=$((cpu / 1000000))
	near "$n" "$cpu" 15 || fail "$n samples under the frame 'import slowmod' (1 ms each), not its $cpu ms on a CPU ±15%: $("$ANALYZE" --profile --until end --format folded "$out" | head -3)"
	"$ANALYZE" --profile --until end --plot "$TMP/pyplot" "$out" > /dev/null 2>&1 ||
		fail "analyze --profile --plot exited $?"
	grep -q 'import slowmod' "$TMP"/pyplot/flame-*.svg || fail "no 'import slowmod' frame in the flame graph"
	ok "python --profile: $n samples under the frame 'import slowmod' for its $cpu ms on a CPU, in the flame graph too"
fi

# 2. Ruby: two loads named and timed, the sleep on the critical path, hostile names
if have "$RB" "the Ruby spans"; then
	out=$TMP/rb.tsv
	weird=$(printf 'we\tird\nname\\N.rb')
	echo '1' > "$S/$weird"
	"$COLLECTOR" -o "$out" -- "$RB" "$S/app.rb" "$S" 2> "$TMP/rb.err" ||
		fail "collector exited $?: $(tail -3 "$TMP/rb.err")"
	check_tsv "$out"
	slow=$(span_col "$out" load "$S/slow.rb" 5)
	sleepy=$(span_col "$out" load "$S/sleepy.rb" 5)
	[ -n "$slow" ] && [ -n "$sleepy" ] || fail "no load spans: $(rows "$out" span load)"
	near "$slow" 300000000 15 || fail "slow.rb's span $slow ns, not 300 ms ±15%"
	near "$sleepy" 200000000 15 || fail "sleepy.rb's span $sleepy ns, not 200 ms ±15%"
	rows "$out" span load | grep -F "$S/slow.rb caller=" | grep -qF "caller=$(( ${#S} + 7 )):$S/app.rb line=9" ||
		fail "slow.rb's caller is not app.rb:9: $(rows "$out" span load | head -1)"
	rows "$out" span require | grep -F 'what=20:no_such_feature_here' | grep -q . ||
		fail "no span of the require that raised"
	esc='we\tird\nname\\N.rb'
	rows "$out" span load | cut -f12 | grep -qF "what=$(( ${#S} + 17 )):$S/$esc" ||
		fail "the hostile name is not escaped as the format says: $(rows "$out" span load | tail -1)"
	"$ANALYZE" --by span --format json "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
names = [s["what"] for c in d["by_span"] for s in c["spans"]]
sys.exit(0 if any(n.endswith("we\tird\nname\\N.rb") for n in names) else 1)' ||
		fail "--by span's JSON does not carry the hostile name"
	"$ANALYZE" --critical-path "$out" > "$TMP/cp.wrapped" || fail "analyze --critical-path exited $?"
	unwrap "$TMP/cp.wrapped" > "$TMP/cp.txt"
	grep -E 'blocked +syscall:(ppoll|nanosleep|clock_nanosleep|select)' "$TMP/cp.txt" |
		grep -qF "in load $S/sleepy.rb" || fail "the sleep is not 'in load sleepy.rb' on the path: $(grep -F sleepy "$TMP/cp.txt" | head -3)"
	grep -F 'by span on the path:' "$TMP/cp.txt" | grep -qF "load $S/slow.rb" ||
		fail "the path's summary does not name slow.rb: $(grep 'by span' "$TMP/cp.txt")"
	"$ANALYZE" --critical-path --format json "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
segs = [s for p in d["critical_path"]["containers"] for s in p["segments"]]
sys.exit(0 if any(s.get("span", "").endswith("/sleepy.rb") and s["state"] == "blocked" for s in segs) else 1)' ||
		fail "no blocked segment with span load .../sleepy.rb in the JSON path"
	ok "ruby load slow.rb $((slow / 1000000)) ms, sleepy.rb $((sleepy / 1000000)) ms, on the path"
	# 40 requires of 5 ms from one file, through rubygems' require: by
	# total that file comes first, ~200 ms, and asked for each of them
	mkdir -p "$S/req"
	for i in $(seq -w 0 39); do
		echo 'e = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 0.005
x = 0 while Process.clock_gettime(Process::CLOCK_MONOTONIC) < e' > "$S/req/r$i.rb"
	done
	out=$TMP/many.tsv
	"$COLLECTOR" -o "$out" -- "$RB" -e "load '$S/many.rb'" "$S" 2> "$TMP/many.err" ||
		fail "collector exited $?: $(tail -3 "$TMP/many.err")"
	check_tsv "$out"
	"$ANALYZE" --by span --sort total --format tsv "$out" > "$TMP/many.by" || fail "analyze exited $?"
	# first by total but for the interpreter's own boot (rubygems and the
	# like, which a loaded machine slows as much as the app: 150..300 ms)
	top=$(awk -F'\t' 'NR > 1 && $3 !~ /^(rubygems|did_you_mean|error_highlight|\/usr\/lib\/ruby\/.*)$/' \
		"$TMP/many.by" | head -1)
	[ "$(echo "$top" | cut -f2,3)" = "load	$S/many.rb" ] ||
		fail "--by span --sort total does not put many.rb first: $(head -6 "$TMP/many.by")"
	tot=$(echo "$top" | cut -f5)
	# its 40 requires' own times (5 ms and rubygems' search each, and the
	# waits for a CPU), all in it
	sum=$(awk -F'\t' '$2 == "require" && $3 ~ /^r[0-9][0-9]$/ { s += $5 } END { print s + 0 }' "$TMP/many.by")
	[ "$tot" -ge 200000000 ] && [ "$tot" -ge "$sum" ] && [ $((tot - sum)) -le $((sum / 10)) ] ||
		fail "many.rb's total $tot ns: not >= 200 ms, or not its requires' $sum ns and 10% at most"
	n=$(awk -F'\t' -v f="$S/many.rb" '$2 == "require" && $3 ~ /^r[0-9][0-9]$/ && $11 == f' "$TMP/many.by" | wc -l)
	[ "$n" -eq 40 ] || fail "$n of the 40 requires say many.rb asked: $(grep -m2 'r0' "$TMP/many.by")"
	# by self, the default, the file is below each of its requires
	"$ANALYZE" --by span --format tsv "$out" | awk -F'\t' -v f="$S/many.rb" '
		$3 ~ /^r[0-9][0-9]$/ { r++ } $3 == f { exit !(r == 40) }' ||
		fail "by self, many.rb is not below its 40 requires"
	rows "$out" span require | grep -F 'what=3:r17' | grep -q 'kernel_require.rb' ||
		echo "# (r17's caller= is not rubygems' kernel_require.rb: $(rows "$out" span require | grep -F 'what=3:r17'))"
	ok "ruby: 40 requires of 5 ms, by total many.rb first at $((tot / 1000000)) ms (its requires $((sum / 1000000)) ms), named as the one that asked for each"
fi

# 3. Rails: the initializers named on the path
if have puma "the Rails spans" && have rails "the Rails spans (ruby-railties)"; then
	out=$TMP/rails.tsv
	cp -r "$(dirname "$0")/../tools/railsapp" "$TMP/rails"
	ini=$TMP/rails/config/initializers
	rm -f "$ini"/*.rb
	cp "$S"/initializers/*.rb "$ini/"
	collector=$(realpath "$COLLECTOR")	# puma runs in the app's directory
	(cd "$TMP/rails" && timeout 60 "$collector" --until listen \
		-o "$out" -- puma -b tcp://127.0.0.1:0 -e production config.ru) > "$TMP/rails.err" 2>&1
	[ -s "$out" ] || fail "collector wrote nothing: $(tail -5 "$TMP/rails.err")"
	check_tsv "$out"
	rows "$out" syscall listen | grep -q . || fail "puma never listened: $(tr "\n" " " < "$TMP/rails.err" | tail -c 600)"
	slow=$(span_col "$out" load "$ini/slow.rb" 4)
	cfg=$(span_col "$out" load "$ini/config_service.rb" 4)
	[ -n "$slow" ] && [ -n "$cfg" ] || fail "no load spans of the initializers"
	near "$slow" 300000000 15 || fail "slow.rb's self $slow ns, not 300 ms ±15%"
	near "$cfg" 200000000 15 || fail "config_service.rb's self $cfg ns, not 200 ms ±15%"
	"$ANALYZE" --by span --until listen --format tsv "$out" | sed -n 2,3p | cut -f3 | sort |
		tr '\n' ' ' | grep -qx "$ini/config_service.rb $ini/slow.rb " ||
		fail "the initializers are not --by span's top 2: $("$ANALYZE" --by span --format tsv "$out" | sed -n 2,4p)"
	"$ANALYZE" --critical-path "$out" > "$TMP/rcp.wrapped" || fail "analyze --critical-path exited $?"
	unwrap "$TMP/rcp.wrapped" > "$TMP/rcp.txt"
	grep -F "in load $ini/slow.rb" "$TMP/rcp.txt" | grep -q 'cpu' ||
		fail "no cpu stretch 'in load slow.rb' on the path"
	grep -F "in load $ini/config_service.rb" "$TMP/rcp.txt" | grep -q 'blocked' ||
		fail "no blocked stretch 'in load config_service.rb' on the path"
	if have gnuplot "the boot chart's spans"; then
		"$ANALYZE" --plot "$TMP/plot" "$out" > /dev/null 2> "$TMP/plot.err" ||
			fail "analyze --plot exited $?: $(tail -3 "$TMP/plot.err")"
		[ -s "$TMP/plot/bootchart.png" ] || fail "no boot chart"
		# every level: config/environment too, around the initializers
		for f in slow.rb config_service.rb environment; do
			grep -q "	\"$f\"$" "$TMP/plot/bootchart.dat" || fail "the boot chart does not label $f"
		done
	fi
	ok "rails: initializers slow.rb $((slow / 1000000)) ms, config_service.rb $((cfg / 1000000)) ms, named on the path"
fi

# 4. Java: the static initializer's span
if have "$JAVA_HOME/bin/javac" "the JVM spans"; then
	"$JAVA_HOME/bin/javac" -d "$S" "$S/SlowInit.java" || fail "javac failed"
	out=$TMP/java.tsv
	# (--spans host: libjvm.so attached at start; at the exec row an ASan
	# build's slowed reader lost the race to the clinit, in CI's run)
	"$COLLECTOR" --spans host -o "$out" -- "$JAVA_HOME/bin/java" -cp "$S" SlowInit 2> "$TMP/java.err" > /dev/null ||
		fail "collector exited $?: $(tail -3 "$TMP/java.err")"
	check_tsv "$out"
	cl=$(span_col "$out" clinit 'SlowInit$Table' 5)
	[ -n "$cl" ] || fail "no clinit span of SlowInit\$Table"
	near "$cl" 200000000 15 || fail "SlowInit\$Table's clinit $cl ns, not 200 ms ±15%"
	[ -n "$(rows "$out" span class | grep -F 'what=14:SlowInit$Table')" ] || fail "no class row of SlowInit\$Table"
	ok "java clinit SlowInit\$Table $((cl / 1000000)) ms"
fi

# 5. an image's own interpreter: a file the host's globs do not name, in
# another root. It is attached when the collector has read its exec row,
# which can come after its first imports on a busy machine (README): the
# app waits 300 ms before its slow import, and the imports caught of those
# -X importtime lists are said.
if have "$PY" "an image's interpreter" && have unshare "an image's interpreter"; then
	R=$TMP/root
	mkdir -p "$R/usr" "$R/lib" "$R/lib64" "$R/opt/py" "$R/app"
	cp "$PY" "$R/opt/py/python3.11"
	cp "$S/slowmod.py" "$R/app/"
	"$COLLECTOR" -o "$TMP/img.tsv" -- unshare -m sh -c "mount --make-rprivate / &&
		mount --bind /usr '$R/usr' && mount --bind /lib '$R/lib' && mount --bind /lib64 '$R/lib64' &&
		exec chroot '$R' /opt/py/python3.11 -X importtime -c 'import time; time.sleep(0.3)
import sys; sys.path.insert(0, \"/app\"); import slowmod'" > /dev/null 2> "$TMP/img.err" ||
		fail "collector exited $?: $(tail -3 "$TMP/img.err")"
	self=$(span_col "$TMP/img.tsv" import slowmod 4)
	[ -n "$self" ] || fail "no import span of slowmod from the copied interpreter ($(rows "$TMP/img.tsv" span | wc -l) span rows)"
	near "$self" 150000000 15 || fail "its slowmod self $self ns, not 150 ms ±15%"
	ok "an interpreter of its own root: slowmod $((self / 1000000)) ms; $(rows "$TMP/img.tsv" span | wc -l) import spans of the $(grep -c '| *[^ |]*$' "$TMP/img.err") -X importtime lists (the first ones before the attach are missed)"
fi

# 6. --spans off
if have "$PY" "--spans off"; then
	"$COLLECTOR" --spans off -o "$TMP/off.tsv" -- "$PY" "$S/app.py" > /dev/null 2>&1 ||
		fail "collector --spans off exited $?"
	grep -qx '# spans=off' "$TMP/off.tsv" || fail "no # spans=off"
	[ -z "$(rows "$TMP/off.tsv" span)" ] || fail "span rows with --spans off"
	ok "--spans off: none"
fi
