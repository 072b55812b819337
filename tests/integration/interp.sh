# SPDX-License-Identifier: BSD-2-Clause
# shellcheck shell=bash
# Helpers for the tests of interpreters' own frames in --profile (sourced
# after lib.sh): test_collector_profile_python and _ruby, whose apps
# (tests/tools/pyburn.py, rbburn.rb) have the same shape: main calls
# burn_long and burn_short, which burn 200 and 100 ms of CPU in spin, and
# print the CPU time each took, as their thread measured it (`burn_long
# cpu_ns=N`).

# burner_ns OUT NAME: the CPU time burner NAME said it took in OUT, ns
burner_ns() { sed -n "s/^$2 cpu_ns=\([0-9]*\)\$/\1/p" "$1" | head -1; }

# burner_check TAG WHAT SAMPLES NS PERIOD: WHAT's samples are the CPU
# time it measured itself, NS, at one a PERIOD ns (±15%)
burner_check() {
	[ -n "$4" ] || fail "$1: $2 printed no cpu_ns"
	ratio_near "$3" "$(cpu_samples "$4" "$5")" 1 15 ||
		fail "$1: $2 $3 samples, for $(($4 / 1000000)) ms of its CPU time ($(cpu_samples "$4" "$5") at $5 ns): not within 15%"
}

# interp_run TAG APP LINE_OF [COLLECTOR OPTIONS] -- COMMAND...: profile one
# run of COMMAND (which runs APP); LINE_OF NAME prints the line NAME starts
# at in APP. Checks: the stack rows carry `NAME (APP:LINE)` frames for
# spin, burn_long, burn_short and main; burn_long's samples are 2x
# burn_short's (±15%), and each's are the CPU time it measured itself at
# the sample rows' period (±15%: not a share of all the process did, whose
# start-up varies with the machine); main → burn_long → spin in the
# folded stacks.
interp_run() {
	local tag=$1 app=$2 line_of=$3 tsv=$TMP/$1.tsv opts=() folded long short all f period
	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	"$COLLECTOR" --profile=999 "${opts[@]}" -o "$tsv" -- "$@" > "$TMP/$tag.out" 2> "$TMP/$tag.err" ||
		fail "$tag: collector exited $?: $(cat "$TMP/$tag.err")"
	check_tsv "$tsv"
	rows "$tsv" stack | cut -f12 | grep -qF " i:" || fail "$tag: no interpreter frame in any stack row"
	for f in spin burn_long burn_short main; do
		rows "$tsv" stack | cut -f12 | grep -qF "$f ($app:$("$line_of" "$f"))" ||
			fail "$tag: no frame '$f ($app:$("$line_of" "$f"))' in the stack rows"
	done
	"$ANALYZE" --profile --top 1000 --format tsv "$tsv" > "$TMP/$tag.prof" ||
		fail "$tag: analyze --profile exited $?"
	folded=$("$ANALYZE" --profile --top 1000 --format folded "$tsv") ||
		fail "$tag: analyze --format folded exited $?"
	long=$(awk -v f="burn_long ($app:" 'index($0, f) { n += $NF } END { print n + 0 }' <<< "$folded")
	short=$(awk -v f="burn_short ($app:" 'index($0, f) { n += $NF } END { print n + 0 }' <<< "$folded")
	all=$(awk '{ n += $NF } END { print n + 0 }' <<< "$folded")
	[ "$short" -gt 0 ] || fail "$tag: no sample under burn_short: $(head -5 "$TMP/$tag.prof")"
	ratio_near "$long" "$short" 2 15 ||
		fail "$tag: burn_long $long samples, burn_short $short: not 2:1 (±15%)"
	period=$(rows "$tsv" sample | cut -f11 | sort -u)
	[ "$period" = 1001001 ] || fail "$tag: sample dur_ns '$period', not 1001001 (999 Hz)"
	burner_check "$tag" burn_long "$long" "$(burner_ns "$TMP/$tag.out" burn_long)" "$period"
	burner_check "$tag" burn_short "$short" "$(burner_ns "$TMP/$tag.out" burn_short)" "$period"
	grep -F "burn_long (" <<< "$folded" |
		grep -qF "main ($app:$("$line_of" main));burn_long ($app:$("$line_of" burn_long));spin ($app:$("$line_of" spin))" ||
		fail "$tag: spin is not under burn_long under main in the folded stacks"
	ok "$tag: burn_long $long, burn_short $short samples ($((long * 100 / short))%; they measured" \
		"$(($(burner_ns "$TMP/$tag.out" burn_long) / 1000000)) and $(($(burner_ns "$TMP/$tag.out" burn_short) / 1000000)) ms)," \
		"of $all; under main, named with their files and lines"
}
