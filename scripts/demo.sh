#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# demo.sh DIR: boot the sample service as a container several times under
# the collector, analyze the boots, and leave a report in DIR: the TSV, the
# phase table, histograms, syscall time and PNG plots. Run by `make demo`.
set -eu
cd "$(dirname "$0")/.."
OUTPUT=${OUTPUT:-build}
out=${1:-demo-out}
runs=${RUNS:-10}
mkdir -p "$out"

echo "demo: booting samples/webapp $runs times as a container (until its worker listens)"
"$OUTPUT/collector" --runs "$runs" --until listen --name webapp --unshare pid,mount,uts,ipc \
	-o "$out/boot.tsv" -- "$OUTPUT/samples/webapp" --warmup-ms 30 2> "$out/collector.log"
echo "demo: $(grep -vc '^#' "$out/boot.tsv") rows in $out/boot.tsv ($(tail -1 "$out/boot.tsv"))"

"$OUTPUT/analyze" "$out/boot.tsv" | tee "$out/phases.txt"
"$OUTPUT/analyze" "$out/boot.tsv" --hist > "$out/hist.txt"
"$OUTPUT/analyze" "$out/boot.tsv" --by syscall > "$out/syscalls.txt"
"$OUTPUT/analyze" "$out/boot.tsv" --format tsv > "$out/phases.tsv"
"$OUTPUT/analyze" "$out/boot.tsv" --plot "$out/plots"
echo "demo: report in $out/: phases.txt hist.txt syscalls.txt phases.tsv plots/*.png"
ls "$out/plots"/*.png 2>/dev/null | sed 's/^/  /'
