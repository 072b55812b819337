#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# bench/inames.sh [ROUNDS]: what naming an interpreter's code objects in
# the sampling program costs a sample (bpf/inames.bpf.h), side by side in
# one run (ROUNDS rounds, default 3, one of each way per round; medians).
# Two Ruby 3.1 workloads under --profile=999 --profile-unwind=fp (no
# stack copy: the names' cost alone):
#  - burn: tests/tools/rbburn.rb, 300 ms of CPU in a few methods (names
#    read once, then a lookup per frame per sample);
#  - rails: tests/tools/railsapp's environment loaded (Rails 6.1 booting,
#    its initializer burning 300 ms): thousands of iseqs, most seen once.
# Two CPython 3.11 ones:
#  - py: tests/tools/pyburn.py, 300 ms of CPU in a few functions;
#  - pyimp: some 20 of the standard library's packages imported (asyncio,
#    email, http.server, unittest...; importlib's frames deep under each
#    module's <module> code, most code objects seen once).
# The ways: names off (BOOTTRACE_TEST_NO_INAMES: read from the process's
# memory by the collector, as before) and on. The figure is the sampling
# program's own run time as the kernel counts it (BPF run-time statistics
# held on by bench/bpfstats, read from the collector's fdinfo of
# bt_profile before it exits), over the interpreter process's samples: the
# program runs on every tick of every task, and the other ticks cost the
# same both ways. Needs root, ruby3.1, ruby-railties and python3.11.
set -u
cd "$(dirname "$0")/.." || exit 1
OUTPUT=${OUTPUT:-build}
ROUNDS=${1:-3}
RB=/usr/bin/ruby3.1
PY=/usr/bin/python3.11
PYIMP='import asyncio, argparse, decimal, email.mime.multipart, http.server, json, logging.handlers, multiprocessing, pdb, pydoc, sqlite3, tarfile, unittest, urllib.request, uuid, xml.dom.minidom, zipfile'
. bench/lib.sh
bench_init bench/inames.sh
bench_need "$COLLECTOR" "$OUTPUT/bench/bpfstats" "$RB" "$PY"
cp -r tests/tools/railsapp "$TMP/app"
bench_stats_on

# runs: filled by bench_stats_of, not read here
# shellcheck disable=SC2034
declare -A pns runs samp
# run WORK.WAY ROUND
run() {
	local w=${1%.*} k=${1#*.} i=$2 cmd env=()
	rm -f "$TMP/o.tsv" "$TMP/done"
	case $w in
	burn) cmd="$RB $PWD/tests/tools/rbburn.rb > /dev/null" ;;
	rails) cmd="cd $TMP/app && RAILS_ENV=production $RB -e 'require \"./config/environment\"' 2> /dev/null" ;;
	py) cmd="$PY $PWD/tests/tools/pyburn.py > /dev/null" ;;
	pyimp) cmd="$PY -c '$PYIMP'" ;;
	esac
	[ "$k" = off ] && env=(BOOTTRACE_TEST_NO_INAMES=1)
	env "${env[@]}" "$COLLECTOR" --profile=999 --profile-unwind=fp --ringbuf-mb 64 -o "$TMP/o.tsv" -- \
		sh -c "$cmd; touch $TMP/done; sleep 1" 2> /dev/null &
	bench_collected $! "$w.$k.$i"
	samp[$w.$k.$i]=$(awk -F'\t' -v c="${w:0:2}" '$8 == "sample" && (c == "py" ? $7 ~ /^python/ : $7 ~ /^ruby/)' "$TMP/o.tsv" | wc -l)
}

bench_rounds "run burn.off burn.on rails.off rails.on py.off py.on pyimp.off pyimp.on"
printf '%-6s %-10s %9s %8s %11s\n' work names prog-ms samples prog/sample
for w in burn rails py pyimp; do
	for k in off on; do
		ps=() ss=() per=()
		for i in $(seq "$ROUNDS"); do
			ps+=("${pns[$w.$k.$i]}") ss+=("${samp[$w.$k.$i]}")
			per+=("$(awk -v p="${pns[$w.$k.$i]}" -v s="${samp[$w.$k.$i]}" 'BEGIN { printf "%.0f", s ? p / s : 0 }')")
		done
		printf '%-6s %-10s %9.1f %8s %9.1fus\n' "$w" "$k" "$(awk -v p="$(med "${ps[@]}")" 'BEGIN { print p / 1e6 }')" \
			"$(med "${ss[@]}")" "$(awk -v p="$(med "${per[@]}")" 'BEGIN { print p / 1e3 }')"
	done
done
