#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# fuzz/run.sh [TARGET...]: run the libFuzzer targets built in $OUTPUT/fuzz/
# (make fuzz-build) for FUZZ_SECONDS each (default 60), all at once (one
# per core: they are independent), each on its corpus $OUTPUT/fuzz/corpus-TARGET
# seeded by fuzz/seed.sh. A crash, leak, timeout or out-of-memory is a
# failure: the input that caused it is copied into
# tests/fuzz-regressions/TARGET/ (commit it with the fix: tests/run.sh replays
# it in make test) and the end of the fuzzer's log is shown. Closes with
# "N passed, N failed, N skipped" (one per target).
set -u
cd "$(dirname "$0")/.." || exit 1
OUTPUT=${OUTPUT:-build}
export OUTPUT
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
case $FUZZ_SECONDS in '' | *[!0-9]*) echo "fuzz/run.sh: FUZZ_SECONDS must be a number of seconds" >&2; exit 2 ;; esac
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	for f in fuzz/fuzz_*.c; do targets+=("$(basename "$f" .c)"); done
fi

passed=0 failed=0
pids=()
for t in "${targets[@]}"; do
	bin=$OUTPUT/fuzz/$t
	[ -x "$bin" ] || { echo "fuzz/run.sh: no $bin: run make fuzz-build" >&2; exit 1; }
	fuzz/seed.sh "$t" "$OUTPUT/fuzz/corpus-$t" || exit 1
	art=$OUTPUT/fuzz/artifacts/$t
	rm -rf "$art" && mkdir -p "$art"
	opts=(-max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048
		-print_final_stats=1 -artifact_prefix="$art/")
	[ -f "fuzz/$t.dict" ] && opts+=(-dict="fuzz/$t.dict")
	[ -f "fuzz/$t.options" ] && read -ra extra < "fuzz/$t.options" && opts+=("${extra[@]}")
	echo "=== fuzz $t: ${FUZZ_SECONDS}s, corpus $OUTPUT/fuzz/corpus-$t ($(ls "$OUTPUT/fuzz/corpus-$t" | wc -l) inputs)"
	# Leaks count (detect_leaks is libFuzzer's default with ASan); any
	# sanitizer report aborts the run.
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
		"$bin" "${opts[@]}" "$OUTPUT/fuzz/corpus-$t" > "$OUTPUT/fuzz/$t.log" 2>&1 &
	pids+=($!)
done

i=0
for t in "${targets[@]}"; do
	wait "${pids[$i]}"; rc=$?
	i=$((i + 1))
	log=$OUTPUT/fuzz/$t.log
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	art=$OUTPUT/fuzz/artifacts/$t
	found=$(find "$art" -type f | head -20)
	if [ "$rc" -eq 0 ] && [ -z "$found" ]; then
		echo "--- PASS fuzz $t (${runs:-?} runs, $(ls "$OUTPUT/fuzz/corpus-$t" | wc -l) corpus inputs)"
		passed=$((passed + 1))
		continue
	fi
	echo "--- FAIL fuzz $t (exit $rc, ${runs:-?} runs); log $log:"
	grep -E '^(==[0-9]+==|SUMMARY|fuzz_|.*runtime error)' "$log" | head -20
	tail -15 "$log"
	mkdir -p "tests/fuzz-regressions/$t"
	for f in $found; do
		cp "$f" "tests/fuzz-regressions/$t/" &&
			echo "fuzz/run.sh: kept $f as tests/fuzz-regressions/$t/$(basename "$f") (reproduce: $OUTPUT/fuzz/$t $f)"
	done
	failed=$((failed + 1))
done
echo "$passed passed, $failed failed, 0 skipped"
[ "$failed" -eq 0 ]
