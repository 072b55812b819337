#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# tests/run.sh [unit|integration|all] [NAME-PATTERN]: run the cmocka unit
# suites (build/tests/test_*) and the integration tests
# (tests/integration/test_*.sh), then print one closing line
# "N passed, N failed, N skipped". An integration test exits 0 (pass),
# 77 (skip: it printed why) or anything else (fail). In CI (CI=true) a skip
# is a failure: tests that need root or BPF must run there.
#
# A test with a line "# modes: cgroup pidtree legacy" runs once per mode,
# with BT_MODE set (lib.sh turns it into collector options): the same
# expectations in cgroup mode, pidtree mode with the modern object and
# pidtree mode with the legacy object.
set -u
cd "$(dirname "$0")/.."
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

run_integration() {
	local t name modes m
	for t in tests/integration/test_*.sh; do
		[ -f "$t" ] || continue
		name=$(basename "$t" .sh)
		[ -n "$pattern" ] && [[ "$name" != *$pattern* ]] && continue
		modes=$(sed -n 's/^# modes: //p' "$t")
		if [ -z "$modes" ]; then
			run_one "$t" "$name"
			continue
		fi
		for m in $modes; do
			run_one "$t" "$name[$m]" "$m"
		done
	done
}

case $what in
unit) run_unit ;;
integration) run_integration ;;
all) run_unit; run_integration ;;
*) echo "usage: tests/run.sh [unit|integration|all] [PATTERN]" >&2; exit 2 ;;
esac

[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
