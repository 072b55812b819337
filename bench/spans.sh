#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# bench/spans.sh [ROUNDS]: what --spans costs an interpreted boot, side by
# side in one run: bench/spans/boot.rb (Debian's ruby3.1: ~250 requires)
# and bench/spans/boot.py (python3.11: ~300 imports), each started by a
# shell that takes the launch time, and timed by itself from that launch
# to its listen (start→listen, CLOCK_REALTIME): untraced; under the
# collector (spawn mode, modern object) with --spans off; with --spans on
# (the default). One of each per round (a busy machine disturbs them
# alike), ROUNDS rounds (default 7); prints the medians, their ratios to
# untraced, and the spans' ratio to the collector without them, and the
# span rows of one traced boot.
# Then the cost of one span, steadier than a boot's on a shared machine:
# bench/spans/require_loop.rb, 20000 requires of a loaded feature (two
# probe hits, a span row each), ns per require, medians as above.
# Then the Rails boot of issue 29 (tests/tools/railsapp with test_spans'
# initializers, tests/integration/spans/initializers: Debian's
# ruby-railties 6.1, production, run by puma; bench/spans/rails-listen.sh),
# start→listen read from puma's "Listening on" line: untraced, traced
# (--spans off), with spans, and with spans and --profile=999.
# Needs root, ruby3.1, python3.11, ruby-railties and puma.
set -u
cd "$(dirname "$0")/.." || exit 1
OUTPUT=${OUTPUT:-build}
ROUNDS=${1:-7}
COLLECTOR=$OUTPUT/collector
TMP=$(mktemp -d /tmp/boottrace-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
[ -x "$COLLECTOR" ] || { echo "bench/spans.sh: no $COLLECTOR: make first" >&2; exit 1; }

med() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
# run KIND INTERP SCRIPT: one boot's start→listen ns
run() {
	local launch="T0=\$(date +%s%N) exec $2 $3"
	case $1 in
	untraced) sh -c "$launch" ;;
	off) "$COLLECTOR" --spans off -o "$TMP/off.tsv" -- sh -c "$launch" 2> /dev/null ;;
	on) "$COLLECTOR" -o "$TMP/on.tsv" -- sh -c "$launch" 2> /dev/null ;;
	esac | sed -n 's/^listen_ns=//p'
}

for app in "/usr/bin/ruby3.1 bench/spans/boot.rb" "/usr/bin/python3.11 bench/spans/boot.py"; do
	read -r interp script <<< "$app"
	[ -x "$interp" ] || { echo "# $interp: not installed" >&2; continue; }
	u=(); f=(); o=()
	run untraced "$interp" "$script" > /dev/null	# warm the page cache
	for _ in $(seq "$ROUNDS"); do
		u+=("$(run untraced "$interp" "$script")")
		f+=("$(run off "$interp" "$script")")
		o+=("$(run on "$interp" "$script")")
	done
	mu=$(med "${u[@]}"); mf=$(med "${f[@]}"); mo=$(med "${o[@]}")
	spans=$(awk -F'\t' '$8 == "span"' "$TMP/on.tsv" | wc -l)
	printf '%-11s start->listen median of %s: untraced %.1f ms; traced --spans off %.1f ms (%sx); traced with spans %.1f ms (%sx; %sx of --spans off); %s span rows\n' \
		"${interp##*/}" "$ROUNDS" "$(ratio "$mu" 1e6)" "$(ratio "$mf" 1e6)" "$(ratio "$mf" "$mu")" \
		"$(ratio "$mo" 1e6)" "$(ratio "$mo" "$mu")" "$(ratio "$mo" "$mf")" "$spans"
done

if [ -x /usr/bin/ruby3.1 ]; then
	loop1() {
		local c=(/usr/bin/ruby3.1 bench/spans/require_loop.rb 20000)
		case $1 in
		off) c=("$COLLECTOR" --spans off -o "$TMP/l.tsv" -- "${c[@]}") ;;
		on) c=("$COLLECTOR" -o "$TMP/l.tsv" -- "${c[@]}") ;;
		esac
		"${c[@]}" 2> /dev/null | sed -n 's/^per_require_ns=//p'
	}
	u=(); f=(); o=()
	for _ in $(seq "$ROUNDS"); do
		u+=("$(loop1 untraced)"); f+=("$(loop1 off)"); o+=("$(loop1 on)")
	done
	mu=$(med "${u[@]}"); mf=$(med "${f[@]}"); mo=$(med "${o[@]}")
	printf 'one span   a require of a loaded feature, median of %s: untraced %s ns; traced --spans off %s ns; with spans %s ns: a span costs %s ns\n' \
		"$ROUNDS" "$mu" "$mf" "$mo" "$((mo - mf))"
fi

# rails KIND: one Rails boot's start→listen ns (puma's Listening line - T0),
# then puma's CPU time by then (utime + stime, ns): a probe's trap and
# program run in the task, so its CPU time has their cost, and it moves
# less than the wall time with what else runs on the machine
rails() {
	local cmd=(bench/spans/rails-listen.sh "$TMP/app") t0= l ppid st
	case $1 in
	off) cmd=("$COLLECTOR" --spans off -o "$TMP/r.tsv" -- "${cmd[@]}") ;;
	on) cmd=("$COLLECTOR" -o "$TMP/r.tsv" -- "${cmd[@]}") ;;
	prof) cmd=("$COLLECTOR" --profile=999 -o "$TMP/r.tsv" -- "${cmd[@]}") ;;
	esac
	: > "$TMP/puma.out"
	"${cmd[@]}" 2> /dev/null > "$TMP/puma.out" &
	local pid=$!
	for _ in $(seq 600); do
		t0=$(sed -n 's/^T0=//p' "$TMP/puma.out")
		l=$(grep -c 'Listening on' "$TMP/puma.out")
		[ "$l" -gt 0 ] && [ -n "$t0" ] && break
		sleep 0.005
	done
	l=$(($(date +%s%N) - t0))
	ppid=$(sed -n 's/^PID=//p' "$TMP/puma.out")
	st=$(cut -d' ' -f14,15 "/proc/$ppid/stat" 2> /dev/null)
	echo "$l $(( (${st% *} + ${st#* }) * 1000000000 / $(getconf CLK_TCK) ))"
	# $pid is puma (the script execs it) or the collector, which stops
	# its command on SIGTERM
	kill "$pid" 2> /dev/null
	wait "$pid" 2> /dev/null
}
if command -v puma > /dev/null; then
	cp -r tests/tools/railsapp "$TMP/app"
	rm -f "$TMP/app/config/initializers/"*.rb
	cp tests/integration/spans/initializers/*.rb "$TMP/app/config/initializers/"
	declare -A wall cpu
	rails untraced > /dev/null
	for _ in $(seq "$ROUNDS"); do
		for k in untraced off on prof; do
			read -r w c <<< "$(rails $k)"
			wall[$k]+="$w "; cpu[$k]+="$c "
		done
	done
	for x in wall cpu; do
		declare -n m=$x
		# shellcheck disable=SC2086 # the lists split
		mu=$(med ${m[untraced]}); mf=$(med ${m[off]}); mo=$(med ${m[on]}); mp=$(med ${m[prof]})
		printf 'rails+puma  %s, median of %s: untraced %.1f ms; traced --spans off %sx; traced with spans %sx (%sx of --spans off); with spans and --profile=999 %sx\n' \
			"$([ $x = wall ] && echo 'start->listen' || echo "puma's CPU time to listen")" "$ROUNDS" \
			"$(ratio "$mu" 1e6)" "$(ratio "$mf" "$mu")" "$(ratio "$mo" "$mu")" \
			"$(ratio "$mo" "$mf")" "$(ratio "$mp" "$mu")"
		unset -n m
	done
else
	echo "# rails: puma is not installed" >&2
fi
