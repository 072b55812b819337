#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# bench/spawn.sh [N] [COLLECTOR...]: what spawn mode adds to a container's
# boot before its command runs, against a bare spawner, in one run: spawn
# mode's start -> exec of /bin/true (the container's exec phase, as
# analyze reports it), without and with --user nobody, next to
# bench/forkexec doing the same fork+exec (with -u nobody, the same
# setgroups, setgid, setuid in the child), and the same with vfork (the
# child shares the memory until its exec, as posix_spawn's does), N times
# each (default 100).
#
# The common measure: both ends are on the same clock, and the end is the
# same event seen the same way. The start is CLOCK_MONOTONIC just before
# the fork sequence (the collector's start row; forkexec's T0 just before
# its pipe2 and fork); the end is the exec row, the sched_process_exec
# tracepoint: forkexec runs as the collector's spawned command, so its
# children are traced by the same collector as the spawned /bin/true, and
# pay the same tracing on their way to the exec.
#
# Each COLLECTOR (default $OUTPUT/collector; give two, e.g. a build of the
# base commit and this one, to compare them in the same run) boots in
# rounds of 10, interleaved with the others and the peers so that the
# drift of a busy machine hits all alike. Printed: medians and p90
# (nearest rank) in microseconds, and the ratios spawn / fork+exec and
# spawn / vfork+exec of the medians (of the p90s), the peers run under the
# same collector. Needs root. On a machine shared with other work, run it
# under `chrt -f 10` (the collector, its children and the peers alike):
# otherwise the scheduler's queue is most of what is measured.
#   chrt -f 10 bench/spawn.sh 100 /tmp/base/build/collector build/collector
set -u
cd "$(dirname "$0")/.." || exit 1
OUTPUT=${OUTPUT:-build}
N=${1:-100}
shift
COLLECTORS=("$@")
[ ${#COLLECTORS[@]} -gt 0 ] || COLLECTORS=("$OUTPUT/collector")
BARE=$OUTPUT/bench/forkexec
K=10
TMP=$(mktemp -d /tmp/boottrace-bench-spawn.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
[ -x "$BARE" ] || { echo "bench: build $BARE first (make)" >&2; exit 1; }
for c in "${COLLECTORS[@]}"; do [ -x "$c" ] || { echo "bench: no collector $c" >&2; exit 1; }; done

# spawn I U: K boots of /bin/true by collector I (U: the user, or "-");
# start -> exec in ns appended to $TMP/spawn.I.U
spawn() {
	local i=$1 u=$2 opt=()
	[ "$u" = - ] || opt=(--user "$u")
	"${COLLECTORS[$i]}" "${opt[@]}" --runs $K -o "$TMP/t.tsv" -- /bin/true 2> "$TMP/err" ||
		{ echo "bench: ${COLLECTORS[$i]} failed: $(tail -1 "$TMP/err")" >&2; exit 1; }
	awk -F'\t' '/^#/ || $1 == "ts_ns" { next }
		$8 == "start" { s[$2] = $1 }
		$8 == "exec" && !($2 in e) { e[$2] = $1; print $1 - s[$2] }' "$TMP/t.tsv" >> "$TMP/spawn.$i.$u"
}

# bare I U V: forkexec's K fork+execs of /bin/true (V "-v": vforks),
# spawned by collector I; T0 -> its child's exec row in ns appended to
# $TMP/bare.I.U.V
bare() {
	local i=$1 u=$2 v=$3 opt=()
	[ "$v" = - ] || opt=(-v)
	[ "$u" = - ] || opt+=(-u "$u")
	rm -f "$TMP/t0"
	"${COLLECTORS[$i]}" -o "$TMP/t.tsv" -- "$BARE" "${opt[@]}" "$TMP/t0" $K /bin/true 2> "$TMP/err" ||
		{ echo "bench: forkexec under ${COLLECTORS[$i]} failed: $(tail -1 "$TMP/err")" >&2; exit 1; }
	awk 'NR == FNR { t0[$1] = $2; next }
		/^#/ || $1 == "ts_ns" { next }
		$8 == "exec" && ($4 in t0) { print $1 - t0[$4] }' FS=' ' "$TMP/t0" FS='\t' "$TMP/t.tsv" \
		>> "$TMP/bare.$i.$u.$v"
}

# stats FILE: "median p90" in us (nearest rank)
stats() {
	sort -n "$1" | awk '{ v[NR] = $1 }
		END { m = int((NR + 1) / 2); p = int(NR * 0.9 + 0.999999)
		      printf "%.0f %.0f", v[m] / 1000, v[p] / 1000 }'
}

rounds=$(( (N + K - 1) / K ))
for r in $(seq "$rounds"); do
	for i in "${!COLLECTORS[@]}"; do
		for u in - nobody; do
			# rotate which goes first: none always follows another
			case $(( r % 3 )) in
			0) spawn "$i" $u; bare "$i" $u -; bare "$i" $u v ;;
			1) bare "$i" $u -; bare "$i" $u v; spawn "$i" $u ;;
			2) bare "$i" $u v; spawn "$i" $u; bare "$i" $u - ;;
			esac
		done
	done
done

echo "bench/spawn.sh: start -> exec of /bin/true, $((rounds * K)) each, interleaved, p50/p90 in us"
printf '%-30s %-7s %12s %12s %12s %14s %14s\n' collector user spawn fork+exec vfork+exec "spawn/fork" "spawn/vfork"
for i in "${!COLLECTORS[@]}"; do
	for u in - nobody; do
		read -r sm sp < <(stats "$TMP/spawn.$i.$u")
		read -r fm fp < <(stats "$TMP/bare.$i.$u.-")
		read -r vm vp < <(stats "$TMP/bare.$i.$u.v")
		printf '%-30s %-7s %12s %12s %12s %14s %14s\n' "${COLLECTORS[$i]}" "${u/#-/root}" \
			"$sm/$sp" "$fm/$fp" "$vm/$vp" \
			"$(awk -v a="$sm" -v b="$fm" -v c="$sp" -v d="$fp" 'BEGIN { printf "%.2fx/%.2fx", a / b, c / d }')" \
			"$(awk -v a="$sm" -v b="$vm" -v c="$sp" -v d="$vp" 'BEGIN { printf "%.2fx/%.2fx", a / b, c / d }')"
	done
done
