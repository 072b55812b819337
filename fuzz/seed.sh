#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# fuzz/seed.sh TARGET DIR: copy the seed inputs of fuzz target TARGET into
# the corpus directory DIR (made if missing; what the fuzzer added before
# stays): the sample TSVs (samples/*.tsv), the analyzer's golden outputs
# (tests/golden/*: near-miss text), the hand-made seeds in fuzz/corpus/TARGET/,
# the regression inputs in tests/fuzz-regressions/TARGET/ and, for the
# reader, a small TSV from $OUTPUT/bench/gen-tsv. Generated
# corpora live under $OUTPUT and are never committed.
set -eu
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: fuzz/seed.sh <target> <dir>" >&2; exit 2; }
t=$1 dir=$2
mkdir -p "$dir"
for f in samples/*.tsv tests/golden/* "fuzz/corpus/$t"/* "tests/fuzz-regressions/$t"/*; do
	[ -f "$f" ] || continue
	# one name per content: the same seed copied twice is one input
	cp "$f" "$dir/seed-$(sha1sum < "$f" | cut -c1-16)"
done
# and a small generated boot of a few containers (bench/gen-tsv, when built)
gen=${OUTPUT:-build}/bench/gen-tsv
if [ "$t" = fuzz_reader ] && [ -x "$gen" ]; then
	"$gen" -n 80 -c 4 -s 7 -o "$dir/seed-gen-tsv" 2>/dev/null || rm -f "$dir/seed-gen-tsv"
fi
