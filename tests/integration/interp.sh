# SPDX-License-Identifier: BSD-2-Clause
# shellcheck shell=bash
# Helpers for the tests of interpreters' own frames in --profile (sourced
# after lib.sh): test_collector_profile_python and _ruby, whose apps
# (tests/tools/pyburn.py, rbburn.rb) have the same shape: main calls
# burn_long and burn_short, which burn 200 and 100 ms of CPU in spin.

# interp_run TAG APP LINE_OF [COLLECTOR OPTIONS] -- COMMAND...: profile one
# run of COMMAND (which runs APP); LINE_OF NAME prints the line NAME starts
# at in APP. Checks: the stack rows carry `NAME (APP:LINE)` frames for
# spin, burn_long, burn_short and main; burn_long's samples are 2x
# burn_short's (±15%), together at least 3/4 of all; main → burn_long →
# spin in the folded stacks.
interp_run() {
	local tag=$1 app=$2 line_of=$3 tsv=$TMP/$1.tsv opts=() folded long short all f
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
	# 2:1 within 15%: 1.7 <= long/short <= 2.3
	if [ $((long * 10)) -lt $((short * 17)) ] || [ $((long * 10)) -gt $((short * 23)) ]; then
		fail "$tag: burn_long $long samples, burn_short $short: not 2:1 (±15%)"
	fi
	[ $(((long + short) * 4)) -ge $((all * 3)) ] ||
		fail "$tag: burn_long and burn_short hold $((long + short)) of $all samples, under 3/4"
	grep -F "burn_long (" <<< "$folded" |
		grep -qF "main ($app:$("$line_of" main));burn_long ($app:$("$line_of" burn_long));spin ($app:$("$line_of" spin))" ||
		fail "$tag: spin is not under burn_long under main in the folded stacks"
	ok "$tag: burn_long $long, burn_short $short samples ($((long * 100 / short))%), of $all; under main, named with their files and lines"
}
