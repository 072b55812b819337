#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# tests/run.sh [unit|integration|fuzz|all] [NAME-PATTERN]: run the cmocka unit
# suites (build/tests/test_*), the integration tests
# (tests/integration/test_*.sh) and the fuzz regression inputs
# (tests/fuzz-regressions/TARGET/* and the seeds fuzz/corpus/TARGET/*, each
# run once by $OUTPUT/fuzz-replay/TARGET: one test per input), then print one
# closing line "N passed, N failed, N skipped". An integration test exits 0
# (pass), 77 (skip: it printed why) or anything else (fail). In CI (CI=true) a
# skip is a failure: tests that need root or BPF must run there.
# TESTS_EXCLUDE='GLOB...': integration tests not to run at all (make
# test-asan leaves out the valgrind and soak ones). TESTS_ONLY='GLOB...':
# the only integration tests to run (make vmtest's set, tests/vm/vmtest.sh);
# GLOB:MODE,MODE runs those of its modes only. TESTS_MODES='MODE...': a
# test with modes runs those of them only (its first mode when it has none
# of them): make test-asan's 'cgroup legacy', the two that between them run
# every user-space path (below).
# After the integration tests, one more: suite_leaves_nothing fails when
# they left a cgroup, a mount, a process or a temp directory of theirs
# behind (what it counts and what it leaves to other runs on the host:
# tests/integration/leftovers.sh), and lists them.
# SANITIZER_REPORTS=DIR: where
# ASAN_OPTIONS/UBSAN_OPTIONS log_path put reports; each file there at the
# end is one more failure, shown.
#
# A test with a line "# modes: cgroup compat pidtree legacy" runs once per
# mode, with BT_MODE set (lib.sh turns it into collector options): the same
# expectations in cgroup mode with the modern object and with the compat
# object, pidtree mode with the modern object and with the legacy object.
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/integration/leftovers.sh
OUTPUT=${OUTPUT:-build}
export OUTPUT
what=${1:-all}
pattern=${2:-}
passed=0 failed=0 skipped=0
failures=()

run_unit() {
	local t out rc n
	for t in "$OUTPUT"/tests/test_*; do
		[ -x "$t" ] || continue
		case "$t" in *.o|*.d) continue ;; esac
		[ -n "$pattern" ] && [[ "$t" != *$pattern* ]] && continue
		out=$("$t" 2>&1); rc=$?
		printf '%s\n' "$out"
		n=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test(s)\./\1/p' | awk '{s+=$1} END {print s+0}')
		passed=$((passed + n))
		n=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s), listed below:/\1/p' | awk '{s+=$1} END {print s+0}')
		if [ "$rc" -ne 0 ] && [ "$n" -eq 0 ]; then n=1; fi
		failed=$((failed + n))
		[ "$n" -gt 0 ] && failures+=("$(basename "$t")")
	done
}

run_one() { # run_one FILE NAME [MODE]
	local t=$1 name=$2 rc start
	echo "=== $name"
	start=$(date +%s)
	BT_MODE=${3:-} bash "$t"; rc=$?
	case $rc in
	0) echo "--- PASS $name ($(( $(date +%s) - start ))s)"; passed=$((passed + 1)) ;;
	77)
		if [ "${CI:-}" = true ]; then
			echo "--- FAIL $name: skipped, but CI=true forbids skipping"
			failed=$((failed + 1)); failures+=("$name")
		else
			echo "--- SKIP $name"; skipped=$((skipped + 1))
		fi ;;
	*) echo "--- FAIL $name (exit $rc)"; failed=$((failed + 1)); failures+=("$name") ;;
	esac
}

lo_dir=	# the snapshot before the integration tests
trap '[ -z "$lo_dir" ] || rm -rf "$lo_dir"' EXIT

run_integration() {
	local t name modes m
	lo_dir=$(mktemp -d /tmp/boottrace-run.XXXXXX) || { echo "run.sh: cannot make a temp directory" >&2; exit 1; }
	leftovers_begin "$lo_dir" || exit 1
	for t in tests/integration/test_*.sh; do
		[ -f "$t" ] || continue
		name=$(basename "$t" .sh)
		[ -n "$pattern" ] && [[ "$name" != *$pattern* ]] && continue
		excluded "$name" && { echo "=== $name: not run here (TESTS_EXCLUDE)"; continue; }
		[ -n "${TESTS_ONLY:-}" ] && ! matches "$name" "$TESTS_ONLY" && continue
		modes=$(sed -n 's/^# modes: //p' "$t")
		[ -n "$modes" ] && [ -n "${TESTS_MODES:-}" ] && modes=$(modes_kept "$modes")
		if [ -z "$modes" ]; then
			run_one "$t" "$name"
			continue
		fi
		for m in $modes; do
			[ -n "${TESTS_ONLY:-}" ] && ! mode_wanted "$name" "$m" "$TESTS_ONLY" && continue
			run_one "$t" "${name}[$m]" "$m"
		done
	done
	suite_leaves_nothing "$lo_dir"
}

# suite_leaves_nothing DIR: one test, what leftovers_end DIR finds.
suite_leaves_nothing() {
	local left
	echo "=== suite_leaves_nothing"
	if left=$(leftovers_end "$1"); then
		echo "--- PASS suite_leaves_nothing"
		passed=$((passed + 1))
	else
		echo "the integration tests left behind:"
		printf '%s\n' "$left" | sed 's/^/  /'
		echo "--- FAIL suite_leaves_nothing"
		failed=$((failed + 1)); failures+=(suite_leaves_nothing)
	fi
}

excluded() { matches "$1" "${TESTS_EXCLUDE:-}"; }

modes_kept() { # modes_kept 'MODE...': those in $TESTS_MODES, else the first
	local m kept=
	for m in $1; do
		[[ " $TESTS_MODES " == *" $m "* ]] && kept="$kept $m"
	done
	echo "${kept:-${1%% *}}"
}

matches() { # matches NAME 'GLOB[:MODE,...]...': NAME matches one of the globs
	local g
	for g in $2; do
		# shellcheck disable=SC2053
		[[ "$1" == ${g%%:*} ]] && return 0
	done
	return 1
}

mode_wanted() { # mode_wanted NAME MODE 'GLOB[:MODE,...]...': a glob without modes, or with MODE
	local g
	for g in $3; do
		# shellcheck disable=SC2053
		[[ "$1" == ${g%%:*} ]] || continue
		[[ "$g" != *:* || ",${g#*:}," == *",$2,"* ]] && return 0
	done
	return 1
}

# Each input of tests/fuzz-regressions/TARGET and fuzz/corpus/TARGET, once.
run_fuzz_regressions() {
	local src t bin f out rc n=0
	for src in fuzz/fuzz_*.c; do
		[ -f "$src" ] || continue
		t=$(basename "$src" .c)
		bin=$OUTPUT/fuzz-replay/$t
		[ -n "$pattern" ] && [[ "$t" != *$pattern* ]] && continue
		if [ ! -x "$bin" ]; then
			if [ "${CI:-}" = true ]; then
				echo "--- FAIL $t regressions: no $bin (make fuzz-replay), and CI=true forbids skipping"
				failed=$((failed + 1)); failures+=("$t")
			else
				echo "--- SKIP $t regressions: no $bin (make fuzz-replay)"
				skipped=$((skipped + 1))
			fi
			continue
		fi
		n=0
		for f in tests/fuzz-regressions/"$t"/* fuzz/corpus/"$t"/*; do
			[ -f "$f" ] || continue
			n=$((n + 1))
			out=$(timeout 60 "$bin" "$f" 2>&1); rc=$?
			if [ $rc -eq 0 ]; then
				passed=$((passed + 1))
			else
				printf '%s\n' "$out" | tail -20
				echo "--- FAIL $t $f (exit $rc; reproduce: $bin $f)"
				failed=$((failed + 1)); failures+=("$t:$f")
			fi
		done
		echo "--- $t: $n regression and seed inputs replayed"
	done
}

# Sanitizer reports written to files (log_path), also by processes whose
# exit status no test looks at.
count_sanitizer_reports() {
	local f
	[ -n "${SANITIZER_REPORTS:-}" ] || return 0
	for f in "$SANITIZER_REPORTS"/*; do
		[ -f "$f" ] || continue
		echo "--- FAIL sanitizer report $f:"
		head -40 "$f"
		failed=$((failed + 1)); failures+=("$(basename "$f")")
	done
}

case $what in
unit) run_unit ;;
integration) run_integration ;;
fuzz) run_fuzz_regressions ;;
all) run_unit; run_integration; run_fuzz_regressions ;;
*) echo "usage: tests/run.sh [unit|integration|fuzz|all] [PATTERN]" >&2; exit 2 ;;
esac
count_sanitizer_reports

[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
