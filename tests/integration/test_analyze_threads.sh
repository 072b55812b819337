#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# analyze --threads N reads a regular file in N parts at once: every output
# and every message must be the same as with one thread (and as through a
# pipe, which is always read by one). A generated file of 200k rows (~16 MB,
# so that each part is over analyze's 1 MiB minimum), plus copies with mark
# labels, containers and errors placed in one part or the other.
set -u
OUTPUT=${OUTPUT:-build}
A=$OUTPUT/analyze
GEN=$OUTPUT/bench/gen-tsv
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -x "$A" ] || { echo "no $A: build it first (make $A)"; exit 1; }
[ -x "$GEN" ] || { echo "no $GEN: build it first (make $GEN)"; exit 1; }

F=$tmp/big.tsv
"$GEN" -n 200000 -c 400 -s 7 -o "$F" || exit 1
rows=$(wc -l < "$F")
mid=$((rows / 2))

# same FILE ARGS...: the output (stdout, stderr, exit code) of 1 thread is
# that of 2, 3 and 4 threads and of a pipe
same() {
	local f=$1 t rc; shift
	"$A" --threads 1 "$@" "$f" > "$tmp/1.out" 2> "$tmp/1.err"; echo "exit $?" >> "$tmp/1.err"
	for t in 2 3 4; do
		"$A" --threads "$t" "$@" "$f" > "$tmp/n.out" 2> "$tmp/n.err"; echo "exit $?" >> "$tmp/n.err"
		if ! cmp -s "$tmp/1.out" "$tmp/n.out" || ! cmp -s "$tmp/1.err" "$tmp/n.err"; then
			echo "FAIL: analyze $* $(basename "$f"): --threads $t differs from --threads 1"
			diff -u "$tmp/1.out" "$tmp/n.out" | head -20
			diff -u "$tmp/1.err" "$tmp/n.err" | head -20
			fail=1
		fi
	done
	# a pipe on purpose: "- < FILE" is a regular file, read in parts
	# shellcheck disable=SC2002
	cat "$f" | "$A" --threads 4 "$@" - > "$tmp/n.out" 2> "$tmp/n.err"; echo "exit $?" >> "$tmp/n.err"
	sed -i "s|<stdin>|$f|" "$tmp/n.err"
	if ! cmp -s "$tmp/1.out" "$tmp/n.out" || ! cmp -s "$tmp/1.err" "$tmp/n.err"; then
		echo "FAIL: analyze $* $(basename "$f"): a pipe differs from the file"
		diff -u "$tmp/1.err" "$tmp/n.err" | head -10
		fail=1
	fi
}

# every report
for args in "" "--hist" "--hist=linear:10ms" "--by syscall" "--by container" "--by comm" \
	    "--hist --by syscall" "--format tsv" "--format tsv --hist" "--format tsv --by syscall" \
	    "--format tsv --by container" "--format json --hist --by syscall" \
	    "--format json --by container" "--container ctr-0001*" "--exec /usr/bin/app"; do
	# shellcheck disable=SC2086
	same "$F" $args
done
"$A" --threads 2 --format json --by syscall "$F" | grep -q '"rows": 200000' ||
	{ echo "FAIL: --threads 2 did not count 200000 rows"; fail=1; }

# Mark labels and containers seen first in the second half: phases and
# containers come in order of first appearance in the file.
awk -v mid="$mid" '{ print } NR == mid + 10 {
	print "1000000009999\tctr-00001\t\\N\t1\t1\t1\tsh\tmark\tlate\t\\N\t\\N\t\\N"
	print "1000000000000\tlate-ctr\t\\N\t1\t1\t1\tsh\tstart\tmkdir\t\\N\t\\N\t\\N"
	print "1000000000500\tlate-ctr\t\\N\t1\t1\t1\tsh\tmark\tearly\t\\N\t\\N\t\\N"
	print "1000000000700\tlate-ctr\t\\N\t1\t1\t1\tsh\tmark\tlate\t\\N\t\\N\t\\N"
} NR == 20 { print "1000000000100\tctr-00001\t\\N\t1\t1\t1\tsh\tmark\tearly\t\\N\t\\N\t\\N" }' \
	"$F" > "$tmp/marks.tsv"
same "$tmp/marks.tsv" --format tsv
same "$tmp/marks.tsv" --hist --by container
"$A" --threads 2 --format tsv "$tmp/marks.tsv" | cut -f1 | tr '\n' ' ' |
	grep -q "^phase exec listen early ready late $" ||
	{ echo "FAIL: phases not in order of first appearance"; fail=1; }

# Errors: the first one in the file is reported, at its line in the file.
bad_at() { # line, replacement row, out
	awk -v n="$1" -v row="$2" 'NR == n { print row; next } { print }' "$F" > "$3"
}
bad_at $((mid + 5000)) "12x	c	\\N	1	1	1	sh	start	mkdir	\\N	\\N	\\N" "$tmp/bad2.tsv"
same "$tmp/bad2.tsv"
grep -q "bad2.tsv:$((mid + 5000)): bad integer in ts_ns: '12x'" "$tmp/1.err" ||
	{ echo "FAIL: error line in the second half"; cat "$tmp/1.err"; fail=1; }
bad_at 3000 "1	c	\\N	1" "$tmp/bad1.tsv"
awk -v n=$((rows - 100)) 'NR == n { print "1\tc\t\\N\t1\t1\t1\tsh\tstart\tmkdir\t\\q\t\\N\t\\N"; next } { print }' \
	"$tmp/bad1.tsv" > "$tmp/bad12.tsv"
same "$tmp/bad12.tsv"
grep -q "bad12.tsv:3000: expected 12 fields, got 4" "$tmp/1.err" ||
	{ echo "FAIL: the first error in the file"; cat "$tmp/1.err"; fail=1; }
same "$tmp/bad12.tsv" --lenient
grep -q "skipped 2 malformed rows" "$tmp/1.err" || { echo "FAIL: --lenient count"; fail=1; }

# An over-long line in the second half, strict and lenient; no LF at the end.
{ head -n $((mid + 2000)) "$F"; head -c 3000000 /dev/zero | tr '\0' x; echo
  tail -n +$((mid + 2001)) "$F"; } > "$tmp/long.tsv"
same "$tmp/long.tsv"
grep -q "long.tsv:$((mid + 2001)): line longer than 1048576 bytes" "$tmp/1.err" ||
	{ echo "FAIL: long line"; cat "$tmp/1.err"; fail=1; }
same "$tmp/long.tsv" --lenient --by syscall
head -c -1 "$F" | grep -v '^# lost' | head -c -1 > "$tmp/trunc.tsv"
same "$tmp/trunc.tsv"
grep -q "truncated line" "$tmp/1.err" || { echo "FAIL: truncated line"; fail=1; }
same "$tmp/trunc.tsv" --lenient

# Trailers: none, lost events, a trailer-looking comment in the first half.
grep -v '^# lost' "$F" > "$tmp/notrailer.tsv"
same "$tmp/notrailer.tsv"
sed "$((mid / 2))i # lost=3 events=5" "$F" | sed 's/^# lost=0 /# lost=9 /' > "$tmp/lost.tsv"
same "$tmp/lost.tsv"
grep -q "the collector lost 9 events" "$tmp/1.err" || { echo "FAIL: the last trailer counts"; fail=1; }
sed "$((mid / 2))i # lost=x events=5" "$F" > "$tmp/badtrailer.tsv"
same "$tmp/badtrailer.tsv"

# The SSE2 and AVX2 parsers give what the best one for the CPU gives.
for simd in sse2 avx2; do
	for args in "--hist --by syscall" "--format json --by container"; do
		for f in "$tmp/marks.tsv" "$tmp/bad12.tsv"; do
			# shellcheck disable=SC2086
			"$A" --threads 1 $args "$f" > "$tmp/1.out" 2>&1
			# shellcheck disable=SC2086
			ANALYZE_SIMD=$simd "$A" --threads 2 $args "$f" > "$tmp/n.out" 2>&1
			cmp -s "$tmp/1.out" "$tmp/n.out" ||
				{ echo "FAIL: ANALYZE_SIMD=$simd $args $(basename "$f") differs"; fail=1; }
		done
	done
done

# bad --threads
for t in 0 -1 65 x ""; do
	"$A" --threads "$t" "$F" > /dev/null 2> "$tmp/err"; rc=$?
	if [ "$rc" -ne 2 ] || ! grep -q "bad --threads" "$tmp/err"; then
		echo "FAIL: --threads '$t': exit $rc"; fail=1
	fi
done
exit $fail
