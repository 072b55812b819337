#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# bench/jvm.sh [ROUNDS]: what --profile costs a JVM's boot, and what walking
# its Java frames costs a sample, side by side in one run (ROUNDS rounds,
# default 3, one of each way per round, so a busy machine disturbs them
# alike; each figure the median). Two boots of Debian's openjdk-17:
#  - JvmBurn (tests/tools/java): the JVM's start, then a static initializer
#    that burns 1 s of its thread's CPU time in Java code, then its exit.
#    wall: the JVM's elapsed time; cpu: its user + sys (/usr/bin/time
#    around java, in the container: a sampling interrupt's cost is charged
#    to the task it interrupted); work: the burn's rounds in its fixed CPU
#    time, as a ratio to untraced (below 1: the CPU sampling took from it);
#  - Jetty 9 (jetty9's start.jar, modules deploy and http) until it
#    listens: wall from its spawn to the listen (untraced: its port polled
#    every 5 ms; traced: the TSV's start -> listen).
# The ways: untraced; the collector (tracing, no --profile); the collector
# --profile=999 with the JVM walker off (BOOTTRACE_TEST_NO_HOTSPOT: the
# native stacks alone), and on; perf record -g -F 999 (frame pointers, JVM
# frames unnamed) for JvmBurn. For the collector's runs, the sampling
# program's own run time as the kernel counts it (on for the bench through
# bench/bpfstats, BPF_ENABLE_STATS, which others' writes of the sysctl
# kernel.bpf_stats_enabled cannot turn off; read from the collector's
# fdinfo of bt_profile before it exits): in all, and per sample of the JVM (the
# program runs on every CPU tick, for every task: what it costs the ticks
# of other tasks is in both figures alike), and the walker's cost a sample,
# the difference of that figure with the walker on and off.
# UNWIND=fp|dwarf|auto: the collector's --profile-unwind (default: its
# own, auto, which copies each sample's user stack unless the walker has
# Java frames for it: fp isolates the walk's own cost).
# Needs root, jetty9 and openjdk-17-jdk-headless.
set -u
cd "$(dirname "$0")/.." || exit 1
OUTPUT=${OUTPUT:-build}
ROUNDS=${1:-3}
PU=()
[ -n "${UNWIND:-}" ] && PU=(--profile-unwind="$UNWIND")
JDK=/usr/lib/jvm/java-17-openjdk-amd64
CLS=$(realpath -m "$OUTPUT/tests/java")
JETTY=/usr/share/jetty9
. bench/lib.sh
bench_init bench/jvm.sh
bench_need "$COLLECTOR" "$OUTPUT/bench/bpfstats" "$JDK/bin/javac" "$JETTY/start.jar" /usr/bin/time
PERF=$(command -v perf)
if [ ! -f "$CLS/JvmBurn.class" ] || [ tests/tools/java/JvmBurn.java -nt "$CLS/JvmBurn.class" ]; then
	mkdir -p "$CLS" && "$JDK/bin/javac" -d "$CLS" tests/tools/java/JvmBurn.java || exit 1
fi
bench_stats_on
. scripts/runtimes.sh	# rt_free_port
port=$(rt_free_port) || exit 1
mkdir -p "$TMP/base/webapps" && cp -r /var/lib/jetty9/webapps/root "$TMP/base/webapps/"
printf -- '--module=deploy,http\njetty.http.host=127.0.0.1\njetty.http.port=%s\n' "$port" \
	> "$TMP/base/start.ini"

now() { date +%s%N; }

# jvm_samples TSV: the sample rows (the container holds the JVM, and for JvmBurn a shell and time)
jvm_samples() { awk -F'\t' '$8 == "sample"' "$1" | wc -l; }

declare -A wall cpu work pns runs samp
BURN=(-Dburn.ms=1000 -Dburn.report=true -cp "$CLS" JvmBurn)
# burn WAY ROUND: one JvmBurn boot
burn() {
	local k=$1 i=$2 cmd
	rm -f "$TMP/o.tsv" "$TMP/t" "$TMP/done" "$TMP/out"
	cmd="/usr/bin/time -f '%e %U %S' -o $TMP/t $JDK/bin/java ${BURN[*]} > $TMP/out; touch $TMP/done; sleep 1"
	case $k in
	untraced) sh -c "$cmd" ;;
	perf) "$PERF" record -q -g -F 999 -o "$TMP/perf.data" -- sh -c "$cmd" > /dev/null 2>&1 ;;
	*)
		case $k in
		coll) "$COLLECTOR" -o "$TMP/o.tsv" -- sh -c "$cmd" 2> /dev/null & ;;
		off) BOOTTRACE_TEST_NO_HOTSPOT=1 "$COLLECTOR" --profile=999 "${PU[@]}" -o "$TMP/o.tsv" -- \
			sh -c "$cmd" 2> /dev/null & ;;
		on) "$COLLECTOR" --profile=999 "${PU[@]}" -o "$TMP/o.tsv" -- sh -c "$cmd" 2> /dev/null & ;;
		esac
		bench_collected $! "b$k.$i"
		samp[b$k.$i]=$(jvm_samples "$TMP/o.tsv") ;;
	esac
	read -r "wall[b$k.$i]" u s < "$TMP/t"
	cpu[b$k.$i]=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
	work[b$k.$i]=$(sed -n 's/^rounds=//p' "$TMP/out")
}

# jetty WAY ROUND: one Jetty boot until it listens
jetty() {
	local k=$1 i=$2 t0 jp cpid
	local cmd=("$JDK/bin/java" -jar "$JETTY/start.jar" jetty.home="$JETTY" jetty.base="$TMP/base")
	rm -f "$TMP/o.tsv"
	case $k in
	untraced)
		t0=$(now)
		"${cmd[@]}" > /dev/null 2>&1 &
		jp=$!
		until (exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null || ! kill -0 "$jp" 2> /dev/null ||
			[ $(( ($(now) - t0) / 1000000000 )) -ge 120 ]; do
			sleep 0.005
		done
		wall[j$k.$i]=$(( ($(now) - t0) / 1000000 ))
		kill "$jp"
		wait "$jp" ;;
	*)
		case $k in
		coll) "$COLLECTOR" --until listen+1s -d 120 -o "$TMP/o.tsv" -- "${cmd[@]}" \
			> /dev/null 2> "$TMP/err" & ;;
		off) BOOTTRACE_TEST_NO_HOTSPOT=1 "$COLLECTOR" --profile=999 "${PU[@]}" --until listen+1s \
			-d 120 -o "$TMP/o.tsv" -- "${cmd[@]}" > /dev/null 2> "$TMP/err" & ;;
		on) "$COLLECTOR" --profile=999 "${PU[@]}" --until listen+1s -d 120 -o "$TMP/o.tsv" -- \
			"${cmd[@]}" > /dev/null 2> "$TMP/err" & ;;
		esac
		cpid=$!
		until (exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null || ! kill -0 "$cpid" 2> /dev/null; do
			sleep 0.005
		done
		sleep 0.1
		bench_stats_of "$cpid" "j$k.$i"
		wait "$cpid"
		grep -q '^# lost=0 ' "$TMP/o.tsv" && [ -n "$(awk -F'\t' '$9 == "listen"' "$TMP/o.tsv")" ] ||
			echo "bench/jvm.sh: jetty $k: no listen row, or lost events: $(tail -1 "$TMP/o.tsv"; tail -2 "$TMP/err")" >&2
		samp[j$k.$i]=$(jvm_samples "$TMP/o.tsv")
		# start -> listen, as analyze measures it
		wall[j$k.$i]=$("$OUTPUT/analyze" --format tsv "$TMP/o.tsv" |
			awk -F'\t' '$1 == "listen" { printf "%.0f", $3 / 1e6 }') ;;
	esac
}

bways=(untraced coll off on)
[ -n "$PERF" ] && bways+=(perf)
jways=(untraced coll off on)
bench_rounds "burn ${bways[*]}" "jetty ${jways[*]}"

name() {
	case $1 in
	untraced) echo untraced ;;
	coll) echo "collector" ;;
	off) echo "--profile=999, walker off" ;;
	on) echo "--profile=999" ;;
	perf) echo "perf record -g -F 999" ;;
	esac
}

echo "JvmBurn (1 s of CPU in Java, the JVM's start and exit), median of $ROUNDS"
printf '%-26s %8s %7s %8s %7s %7s %9s %8s %11s\n' way wall-ms ratio cpu-ms ratio work prog-ms samples prog/sample
for k in "${bways[@]}"; do
	awk -v what="$(name "$k")" -v w="$(m "b$k" wall)" -v bw="$(m buntraced wall)" \
		-v c="$(m "b$k" cpu)" -v bc="$(m buntraced cpu)" -v r="$(m "b$k" work)" \
		-v br="$(m buntraced work)" -v p="$(m "b$k" pns)" -v n="$(m "b$k" samp)" 'BEGIN {
		printf "%-26s %8.0f %6.2fx %8.0f %6.2fx %6.3fx %9s %8s %11s\n", what, w * 1000,
			w / bw, c * 1000, c / bc, r / br, p ? sprintf("%.1f", p / 1e6) : "-",
			n ? n : "-", p && n ? sprintf("%.1fus", p / n / 1000) : "-"
	}'
done
echo
echo "Jetty 9 until it listens (start -> listen), median of $ROUNDS"
printf '%-26s %8s %7s %9s %8s %11s\n' way wall-ms ratio prog-ms samples prog/sample
for k in "${jways[@]}"; do
	awk -v what="$(name "$k")" -v w="$(m "j$k" wall)" -v bw="$(m juntraced wall)" \
		-v p="$(m "j$k" pns)" -v n="$(m "j$k" samp)" 'BEGIN {
		printf "%-26s %8.0f %6.2fx %9s %8s %11s\n", what, w, w / bw,
			p ? sprintf("%.1f", p / 1e6) : "-", n ? n : "-",
			p && n ? sprintf("%.1fus", p / n / 1000) : "-"
	}'
done
echo
for p in b j; do
	awk -v what="$([ $p = b ] && echo JvmBurn || echo Jetty)" \
		-v on="$(m "${p}on" pns)" -v non="$(m "${p}on" samp)" -v off="$(m "${p}off" pns)" \
		-v noff="$(m "${p}off" samp)" 'BEGIN {
		if (non && noff)
			printf "%s: the walk costs %.1f us a sample (the program %.1f us a JVM sample with it, %.1f without)\n",
				what, (on / non - off / noff) / 1000, on / non / 1000, off / noff / 1000
	}'
done
