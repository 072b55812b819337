#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# tests/stages.sh: what `make test` runs after building, every stage even
# when one fails, then one closing line "N passed, N failed, N skipped"
# adding up the stages' own closing lines:
#   1. tests/run.sh: unit suites, integration tests (valgrind on analyze
#      and the soak among them), fuzz regression inputs;
#   2. make test-asan: all of that built with ASan + UBSan, again (but
#      valgrind and the soak);
#   3. make fuzz: each fuzz target for FUZZ_SECONDS.
# A stage that fails without a closing line of its own (a build error)
# counts as one failure. Exit 0 only when nothing failed.
set -u
cd "$(dirname "$0")/.." || exit 1
OUTPUT=${OUTPUT:-build}
MAKE=${MAKE:-make}
FUZZ_SECONDS=${FUZZ_SECONDS:-10}
export OUTPUT
tp=0 tf=0 ts=0
summary=()
log=$(mktemp /tmp/boottrace-stage.XXXXXX)
trap 'rm -f "$log"' EXIT

stage() { # stage NAME COMMAND...
	local name=$1 rc start p f s line
	shift
	echo "######## stage: $name"
	start=$(date +%s)
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" | tail -1)
	if [ -n "$line" ]; then
		read -r p _ f _ s _ <<< "${line//,/}"
	else
		p=0 f=0 s=0
	fi
	[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
	summary+=("$(printf '%-28s %4d passed, %d failed, %d skipped, exit %d, %ds' "$name" "$p" "$f" "$s" "$rc" $(($(date +%s) - start)))")
}

stage "unit+integration+regress" tests/run.sh
# shellcheck disable=SC2086 # $MAKE may hold arguments
stage "asan+ubsan" $MAKE --no-print-directory test-asan
# shellcheck disable=SC2086
stage "fuzz (${FUZZ_SECONDS}s each)" $MAKE --no-print-directory fuzz FUZZ_SECONDS="$FUZZ_SECONDS"

echo "######## make test"
printf '%s\n' "${summary[@]}"
echo "$tp passed, $tf failed, $ts skipped"
[ "$tf" -eq 0 ]
