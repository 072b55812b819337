#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --profile names a JVM's own frames (issue 34, items 1 and 3), on
# Debian's openjdk-17: tests/tools/java/JvmBurn.java, whose class
# JvmBurn.Slow's static initializer burns 300 ms of its thread's CPU time
# in JvmBurn.burn, then exits right after. Checked:
#  - in the clinit span's window (hotspot:class__initialization__clinit),
#    at least 90% of the thread's samples name JvmBurn.burn (interpreted,
#    OSR- and C2-compiled frames alike), and at least 200 samples there;
#  - the interpreted frame of the initializer names the line of its call
#    (JvmBurn.java:L, from the method's line number table at the frame's
#    bytecode index), the compiled burn frames a line of burn;
#  - at most 20% of the JVM's samples carry an unnamed frame ([unknown],
#    [lib+0xOFF]) in analyze's folded stacks; no sample has a mangled
#    frame (_Z...: libjvm's C++ names demangled, issue 34 item 4);
#  - the JVM exits right after its boot, and its frames are named all the
#    same (read while it lived);
#  - inlined frames: with -XX:-TieredCompilation (C2 alone), the JVM
#    inlines JvmBurn.step into burn's code (-XX:+PrintInlining says so;
#    its callee leaf kept a call), and at least a quarter of the window's
#    samples have step's j: frame right above burn's, from burn's scopes at
#    a pc of its code; in a container of its own (pid and mount namespaces);
#  - a perf map written at exit (-XX:+DumpPerfMapAtExit, with the walker
#    off: BOOTTRACE_TEST_NO_HOTSPOT), in the container's own /tmp (a tmpfs
#    gone with its mount namespace): the collector's jit rows name the JIT
#    frames, and analyze names at least 90% of the window's samples by it;
#  - a second JDK where the image has one (Temurin 25, not a Debian
#    package: skipped, said so, when absent), as the first.
# The compat and legacy objects read no Java frames (modern only).
# modes: cgroup pidtree
. "$(dirname "$0")/lib.sh"
need_root
need_profile_checks
JDK=/usr/lib/jvm/java-17-openjdk-amd64
JDK2=/usr/lib/jvm/temurin-25-jdk-amd64
SRC=$(cd "$(dirname "$0")/../tools/java" && pwd)/JvmBurn.java
CLS=$(cd "$OUTPUT" && pwd)/tests/java
[ -x "$JDK/bin/javac" ] || { [ "${CI:-}" = true ] &&
	fail "no $JDK/bin/javac (scripts/install-deps.sh installs openjdk-17-jdk-headless)"; skip "no $JDK/bin/javac"; }
# once per build: every run and mode shares the class
if [ ! -f "$CLS/JvmBurn.class" ] || [ "$SRC" -nt "$CLS/JvmBurn.class" ]; then
	mkdir -p "$CLS" && "$JDK/bin/javac" -d "$CLS" "$SRC" || fail "javac failed"
fi
line_of() { grep -n "$1" "$SRC" | head -1 | cut -d: -f1; }
CALL=$(line_of 'burn(Long.getLong')
BURN_FROM=$(line_of 'static void burn(')
BURN_TO=$(line_of 'sink = x;')

# window TSV: "TS END TID PID" of JvmBurn$Slow's clinit span
window() {
	rows "$1" span clinit | awk -F'\t' '$12 ~ /what=12:JvmBurn\$Slow/ { printf "%s %.0f %s %s\n", $1, $1 + $11, $5, $4; exit }'
}

# unnamed TSV TAG: the share of the JVM's samples with an unnamed frame (analyze's folded stacks)
unnamed() {
	"$ANALYZE" --profile --until end --format folded "$1" > "$TMP/$2.folded" ||
		fail "$2: analyze --format folded exited $?"
	awk '{ n = $NF; all += n; $NF = ""; k = split($0, f, ";"); bad = mangled = 0
	       for (i = 1; i <= k; i++) {
		       sub(/ $/, "", f[i])
		       if (f[i] == "[unknown]" || f[i] ~ /^\[[^]]*\+0x[0-9a-f]+\](_\[k\])?$/) bad = 1
		       if (f[i] ~ /^_Z/) mangled = 1
	       }
	       unnamed += bad * n; mang += mangled * n }
	     END { printf "%d %d %d\n", all, unnamed, mang }' "$TMP/$2.folded"
}

# jvm_run TAG JAVA [COLLECTOR-OPTION...] -- [JVM-OPTION...]: profile one JvmBurn; check
# the window's share, the lines, the unnamed share; sets tsv, win (TS END TID PID)
jvm_run() {
	local tag=$1 java=$2 opts=() n m all bad mang
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	tsv=$TMP/$tag.tsv
	"$COLLECTOR" --profile=999 "${opts[@]}" -o "$tsv" -- "$java" "$@" -cp "$CLS" JvmBurn \
		> "$TMP/$tag.out" 2> "$TMP/$tag.err" || fail "$tag: collector exited $?: $(tail -3 "$TMP/$tag.err")"
	check_tsv "$tsv"
	"${PC[@]}" check "$tsv" > /dev/null || fail "$tag: $("${PC[@]}" check "$tsv" | head -3)"
	read -r -a win <<< "$(window "$tsv")"
	[ ${#win[@]} -eq 4 ] || fail "$tag: no clinit span of JvmBurn\$Slow: $(rows "$tsv" span | head -3)"
	read -r n m < <("${PC[@]}" --tid "${win[2]}" --from "${win[0]}" --to "${win[1]}" \
		--name JvmBurn.burn share "$tsv")
	[ "$n" -ge 200 ] || fail "$tag: $n samples in the 300 ms burn's window (under 200)"
	[ $((m * 10)) -ge $((n * 9)) ] ||
		fail "$tag: $m of $n samples in the window name JvmBurn.burn (under 90%): $(grep -c . "$tsv")"
	rows "$tsv" stack | cut -f12 | grep -qF "JvmBurn\$Slow.<clinit> (JvmBurn.java:$CALL)" ||
		fail "$tag: no frame 'JvmBurn\$Slow.<clinit> (JvmBurn.java:$CALL)'"
	rows "$tsv" stack | cut -f12 | grep -oE "j:[0-9]+:JvmBurn\.burn \(JvmBurn\.java:[0-9]+\)" |
		sed 's/.*://; s/)//' | sort -u | while read -r l; do
		[ "$l" -ge "$BURN_FROM" ] && [ "$l" -le "$BURN_TO" ] ||
			fail "$tag: a compiled JvmBurn.burn frame at line $l, out of burn ($BURN_FROM-$BURN_TO)"
	done || exit 1
	rows "$tsv" stack | cut -f12 | grep -qE "j:[0-9]+:JvmBurn\.burn \(JvmBurn\.java:" ||
		fail "$tag: no compiled JvmBurn.burn frame"
	read -r all bad mang < <(unnamed "$tsv" "$tag")
	[ $((bad * 5)) -le "$all" ] || fail "$tag: $bad of $all samples carry an unnamed frame (over 20%): $(
		awk '/\[unknown\]|\+0x[0-9a-f]+\]/' "$TMP/$tag.folded" | sort -t' ' -k2 -n | tail -3)"
	[ "$mang" -eq 0 ] || fail "$tag: $mang of $all samples with a mangled frame: $(
		grep -oE '(^|;)_Z[^;]*' "$TMP/$tag.folded" | sort | uniq -c | sort -n | tail -3)"
	ok "$tag: $m of $n window samples name JvmBurn.burn ($((m * 100 / n))%); $bad of $all samples" \
		"($((bad * 1000 / all / 10)).$((bad * 1000 / all % 10))%) unnamed, none with a mangled frame"
}

# A. the JVM as it boots by default (tiered: interpreter, C1, C2); it exits right after
jvm_run jdk17 "$JDK/bin/java" --
exit_ms=$(rows "$tsv" exit | awk -F'\t' -v p="${win[3]}" -v e="${win[1]}" '$4 == p { print int(($1 - e) / 1000000) }' | tail -1)
[ -n "$exit_ms" ] && [ "$exit_ms" -lt 2000 ] || fail "jdk17: the JVM did not exit right after its boot ($exit_ms ms)"
ok "jdk17: exited ${exit_ms} ms after its static initializer, its frames named all the same"
cgroup_mode || exit 0

# B. inlined frames: C2 alone, in a container; the JVM says what it inlined
jvm_run inlined "$JDK/bin/java" --unshare pid,mount -- -XX:-TieredCompilation \
	-XX:CompileCommand=quiet -XX:CompileCommand=dontinline,JvmBurn::leaf \
	-XX:+UnlockDiagnosticVMOptions -XX:+PrintInlining
grep -qE 'JvmBurn::step \([0-9]+ bytes\) +inline' "$TMP/inlined.out" ||
	fail "inlined: the JVM did not inline JvmBurn.step: $(grep -F 'JvmBurn::step' "$TMP/inlined.out" | head -3)"
# compiled burn calls no step of its own: a j: step right above a j: burn is burn's scope
read -r n m < <("${PC[@]}" --tid "${win[2]}" --from "${win[0]}" --to "${win[1]}" \
	--name JvmBurn.step --then JvmBurn.burn share "$tsv")
[ $((m * 4)) -ge "$n" ] ||
	fail "inlined: $m of $n samples with JvmBurn.step's j: frame over burn's (inlined by C2), under 1/4"
ok "inlined: $m of $n samples with JvmBurn.step's frame over JvmBurn.burn's (inlined, -XX:+PrintInlining says), from burn's scopes, in a container"

# C. a perf map written at exit, in the container's own /tmp, the walker off
tsv=$TMP/perfmap.tsv
BOOTTRACE_TEST_NO_HOTSPOT=1 "$COLLECTOR" --profile=999 --unshare pid,mount -o "$tsv" -- sh -c \
	"mount -t tmpfs tmpfs /tmp && exec $JDK/bin/java -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -cp $CLS JvmBurn" \
	> "$TMP/perfmap.out" 2> "$TMP/perfmap.err" || fail "perfmap: collector exited $?: $(tail -3 "$TMP/perfmap.err")"
check_tsv "$tsv"
rows "$tsv" stack | cut -f12 | grep -qE "[ij]:[0-9]+:JvmBurn" && fail "perfmap: Java frames named with the walker off"
read -r -a win <<< "$(window "$tsv")"
jits=$(rows "$tsv" jit perfmap | awk -F'\t' -v p="${win[3]}" '$4 == p' | grep -c 'name=[0-9]*:void JvmBurn.burn(long)')
[ "$jits" -ge 1 ] || fail "perfmap: no jit row names JvmBurn.burn: $(rows "$tsv" jit | head -3)"
n=$("${PC[@]}" --tid "${win[2]}" --from "${win[0]}" --to "${win[1]}" count "$tsv")
m=$("$ANALYZE" --profile --until end --format folded "$tsv" |
	awk '/void JvmBurn\.burn\(long\)/ { m += $NF } END { print m + 0 }')
[ "$n" -ge 200 ] && [ $((m * 10)) -ge $((n * 9)) ] ||
	fail "perfmap: analyze names $m samples by the late map, of $n in the window (under 90%)"
ok "perfmap: $jits jit rows for burn's code, read after the JVM (and its /tmp) was gone; $m samples named by them, of $n in the window"

# D. a second JDK
if [ -x "$JDK2/bin/java" ]; then
	jvm_run jdk25 "$JDK2/bin/java" --
else
	echo "# skipped the second JDK: no $JDK2 (Temurin is not a Debian package)"
fi
exit 0
