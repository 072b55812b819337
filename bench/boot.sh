#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# bench/boot.sh [ROUNDS]: what tracing costs a boot (issue 37), side by
# side in one run. A Rails 6.1 boot under puma (Debian's ruby-railties,
# production, tests/tools/railsapp with bench/boot/'s initializers: 250 ms
# burnt, 40 requires of 5 ms each, a 150 ms sleep), from its launch to its
# listen, ROUNDS rounds (default 5) of one boot of each kind, interleaved:
#   untraced     no collector
#   floor        -s listen --sched off --spans off (a boot's least rows)
#   rows         --sched off --spans off (every syscall a row)
#   sched        --spans off (+ scheduler rows)
#   defaults     (+ spans)
#   profile      --profile=999
# and, with KINDS naming them, profile-fp (--profile=999
# --profile-unwind=fp: no stack copies), profile-noruby and
# profile-fp-noruby (the same with BOOTTRACE_TEST_NO_RUBY=1: no Ruby walk,
# the frames perf names), and the peers perf-fp (perf record -F 999 -g)
# and perf-dwarf (perf record -F 999 --call-graph dwarf), each to a file,
# as a profiler a person would run on the same boot; and perf-clock and
# perf-clock-all (perf record -e cpu-clock -F 999, no call graph: puma's
# threads' own events, or with -a every CPU's, as --profile's are: the
# sampling interrupt alone, and what the timers on the other CPU add).
# With BASE=COLLECTOR (another build: before a change), base-defaults and
# base-profile too, the same options run by BASE, in the same rounds.
# Each boot is timed the same way from outside: bench/boot/listen.sh says
# its launch (bash's clock, T0), puma's "Listening on" line is read from a
# FIFO as it comes (no polling: a poller's forks would be load on a 2-core
# machine) and timed there; the collector, started before, is not in it
# (its own start -> listen, from its rows, is given beside). Also puma's
# CPU time to its listen (every thread's, /proc/PID/task/*/schedstat, ns):
# a probe's trap and the programs on its syscalls run in the task, and a
# busy machine moves it less than the wall time. And the collector's own
# CPU while tracing (-v's figure: -v turns no statistics on). Medians, and
# their ratios to untraced.
# Then, one boot each with the kernel's BPF statistics on
# (BOOTTRACE_BPF_STATS=1): the defaults' and --profile=999's programs,
# runs and ns a run, and the spans' share: a span's cost in the task (two
# probe hits: bench/spans/require_loop.rb, 20000 requires of a loaded
# feature, with --spans off and on, same rounds, by the process's CPU
# time) times the boot's span rows, over the boot. Needs root, ruby3.1, ruby-railties and puma.
set -u
cd "$(dirname "$0")/.." || exit 1
OUTPUT=${OUTPUT:-build}
ROUNDS=${1:-5}
COLLECTOR=${COLLECTOR:-$OUTPUT/collector}
KINDS=${KINDS:-untraced floor rows sched defaults profile${BASE:+ base-defaults base-profile}}
TMP=$(mktemp -d /tmp/boottrace-boot.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
[ -x "$COLLECTOR" ] || { echo "bench/boot.sh: no $COLLECTOR: make first" >&2; exit 1; }
if ! command -v puma > /dev/null || ! /usr/bin/ruby3.1 -e 'require "rails"' 2> /dev/null; then
	echo "bench/boot.sh: needs ruby3.1, ruby-railties and puma" >&2
	exit 1
fi

APP=$TMP/app
cp -r tests/tools/railsapp "$APP"
rm -f "$APP/config/initializers/"*.rb
cp bench/boot/burn.rb bench/boot/requires.rb bench/boot/sleep.rb "$APP/config/initializers/"
mkdir -p "$APP/lib/bootbench"
for i in $(seq 0 39); do
	printf 'BootBench.burn(0.005)\nBOOTBENCH_R%d = true\n' "$i" > "$APP/lib/bootbench/r$i.rb"
done
# the initializers load in name order: burn.rb (BootBench) before requires.rb

med() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b ? a / b : 0 }'; }
opts() {
	case ${1#base-} in
	floor) echo "-s listen --sched off --spans off" ;;
	rows) echo "--sched off --spans off" ;;
	sched) echo "--spans off" ;;
	defaults) echo "" ;;
	profile | profile-noruby) echo "--profile=999" ;;
	profile-fp | profile-fp-noruby) echo "--profile=999 --profile-unwind=fp" ;;
	perf-fp) echo "perf record -F 999 -g" ;;
	perf-dwarf) echo "perf record -F 999 --call-graph dwarf" ;;
	perf-clock) echo "perf record -e cpu-clock -F 999" ;;
	perf-clock-all) echo "perf record -a -e cpu-clock -F 999" ;;
	esac
}

# stop_late PID...: those still running 10 s after their SIGTERM are
# killed (puma now and then takes a SIGTERM that comes as it listens, and
# runs on: the FIFO's reader below would wait for it, the bench with it)
stop_late() {
	local i p left
	for i in $(seq 50); do
		left=''
		for p in "$@"; do
			[[ "$left " == *" $p "* ]] || ! kill -0 "$p" 2> /dev/null || left+=" $p"
		done
		[ -z "$left" ] && return
		sleep 0.2
	done
	echo "bench/boot.sh: killing$left, still running 10 s after SIGTERM" >&2
	# shellcheck disable=SC2086 # the pids, split
	kill -KILL $left 2> /dev/null
}

# boot KIND: one boot; prints "wall_ns own_ns puma_cpu_ns collector_cpu_ns"
# (own and the collector's: 0 untraced); the collector's stderr in $TMP/err
boot() {
	local kind=$1 pid line t0='' t1='' ppid='' cpu=0 own=0 col=0 c=$COLLECTOR env=(env)
	[ "${kind#base-}" != "$kind" ] && c=$BASE
	[ "${kind%-noruby}" != "$kind" ] && env+=(BOOTTRACE_TEST_NO_RUBY=1)
	rm -f "$TMP/fifo" "$TMP/b.tsv"
	mkfifo "$TMP/fifo"
	if [ "$kind" = untraced ]; then
		bench/boot/listen.sh "$APP" > "$TMP/fifo" 2> /dev/null &
	elif [ "${kind#perf-}" != "$kind" ]; then
		# shellcheck disable=SC2046 # the options, split
		$(opts "$kind") -o "$TMP/perf.data" -- bench/boot/listen.sh "$APP" > "$TMP/fifo" 2> "$TMP/err" &
	else
		# shellcheck disable=SC2046 # the options, split
		"${env[@]}" "$c" -v $(opts "$kind") --ringbuf-mb 64 -o "$TMP/b.tsv" -- \
			bench/boot/listen.sh "$APP" > "$TMP/fifo" 2> "$TMP/err" &
	fi
	pid=$!
	exec 3< "$TMP/fifo"
	while IFS= read -r -t 120 line <&3; do
		case $line in
		PID=*) ppid=${line#PID=} ;;
		T0=*) t0=${line#T0=} ;;
		*"Listening on"*)
			t1=$EPOCHREALTIME
			cpu=$(cat "/proc/$ppid/task/"*/schedstat 2> /dev/null | awk '{ s += $1 } END { print s + 0 }')
			break ;;
		esac
	done
	# the collector stops its command on SIGTERM, and writes its trailer;
	# perf record does not stop its workload: puma is stopped first
	[ "${kind#perf-}" != "$kind" ] && [ -n "$ppid" ] && kill "$ppid" 2> /dev/null
	kill "$pid" 2> /dev/null
	stop_late "$pid" ${ppid:+"$ppid"}
	cat <&3 > /dev/null
	exec 3<&-
	wait "$pid" 2> /dev/null
	[ -n "$t1" ] || { echo "bench/boot.sh: $kind: no listen: $(cat "$TMP/err" 2> /dev/null)" >&2; exit 1; }
	if [ "$kind" != untraced ] && [ "${kind#perf-}" = "$kind" ]; then
		own=$(awk -F'\t' '$8 == "start" && !s { s = $1 }
			$8 == "syscall" && $9 == "listen" && $10 == 0 { print $1 + $11 - s; exit }' "$TMP/b.tsv")
		col=$(sed -n 's/^collector: its CPU time .*, \([0-9.]*\) s of it while tracing.*/\1/p' "$TMP/err")
		col=$(awk -v s="${col:-0}" 'BEGIN { printf "%.0f", s * 1e9 }')
	fi
	awk -v a="$t0" -v b="$t1" -v o="${own:-0}" -v c="$cpu" -v k="$col" \
		'BEGIN { printf "%.0f %.0f %.0f %.0f\n", (b - a) * 1e9, o, c, k }'
}

declare -A wall own cpu col
boot untraced > /dev/null	# the page cache warm
for r in $(seq "$ROUNDS"); do
	for k in $KINDS; do
		read -r w o c x <<< "$(boot "$k")" || exit 1
		wall[$k]+="$w "; own[$k]+="$o "; cpu[$k]+="$c "; col[$k]+="$x "
		printf '# round %s %-13s wall %6.1f ms, puma CPU %6.1f ms\n' "$r" "$k" "$(ratio "$w" 1e6)" "$(ratio "$c" 1e6)" >&2
	done
	echo "# round $r of $ROUNDS done" >&2
done
# shellcheck disable=SC2086 # the lists split
{
	mu=$(med ${wall[untraced]}); cu=$(med ${cpu[untraced]})
	printf 'Rails 6.1 + puma, start -> listen, medians of %s (this run, %s):\n' "$ROUNDS" "$(date -u +%FT%TZ)"
	printf '%-13s %-33s %9s %7s %9s %7s %10s %9s\n' kind options "wall ms" ratio "puma CPU" ratio "own s->l" "coll CPU"
	for k in $KINDS; do
		w=$(med ${wall[$k]}); c=$(med ${cpu[$k]}); o=$(med ${own[$k]}); x=$(med ${col[$k]})
		printf '%-13s %-33s %9.1f %7s %9.1f %7s %10.1f %9.1f\n' "$k" "$(opts "$k")" \
			"$(ratio "$w" 1e6)" "$(ratio "$w" "$mu")" "$(ratio "$c" 1e6)" "$(ratio "$c" "$cu")" \
			"$(ratio "$o" 1e6)" "$(ratio "$x" 1e6)"
	done
}

# where the time goes: the programs' run times, one boot each
for k in defaults profile profile-noruby base-defaults base-profile; do
	[[ " $KINDS " == *" $k "* ]] || continue
	BOOTTRACE_BPF_STATS=1 boot "$k" > /dev/null
	rows=$(grep -vc '^#' "$TMP/b.tsv")
	spans=$(awk -F'\t' '$8 == "span"' "$TMP/b.tsv" | wc -l)
	echo "# $k ($(opts "$k")): $rows rows, $spans span rows; its programs, BPF statistics on:"
	sed -n 's/^collector: //p' "$TMP/err" | grep -E '^(its CPU|--profile: [0-9]| *[a-z_]+ +[0-9]+ +[0-9]+ +[0-9.]+$|BPF program)' | head -14
done

# a span's cost in the task: 20000 requires of a loaded feature, two probe hits each
loop1() {
	local c=(/usr/bin/ruby3.1 bench/spans/require_loop.rb 20000)
	case $1 in
	off) c=("$COLLECTOR" --spans off -o "$TMP/l.tsv" -- "${c[@]}") ;;
	on) c=("$COLLECTOR" -o "$TMP/l.tsv" -- "${c[@]}") ;;
	esac
	"${c[@]}" 2> /dev/null | sed -n 's/^per_require_cpu_ns=//p'
}
if [[ " $KINDS " == *" defaults "* ]]; then
	f=(); o=()
	for _ in $(seq "$ROUNDS"); do f+=("$(loop1 off)"); o+=("$(loop1 on)"); done
	per=$(($(med "${o[@]}") - $(med "${f[@]}")))
	spans=$(awk -F'\t' '$8 == "span"' "$TMP/b.tsv" | wc -l)
	# shellcheck disable=SC2086 # the list splits
	md=$(med ${wall[defaults]})
	printf 'spans: a span costs the task %s ns of CPU (a require of a loaded feature: %s ns --spans off, %s on, medians of %s); %s spans a boot: %.2f ms, %.2f%% of the traced boot (%.1f ms)\n' \
		"$per" "$(med "${f[@]}")" "$(med "${o[@]}")" "$ROUNDS" "$spans" \
		"$(ratio $((per * spans)) 1e6)" "$(awk -v a=$((per * spans)) -v b="$md" 'BEGIN { print 100 * a / b }')" \
		"$(ratio "$md" 1e6)"
fi
