#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# bench/run.sh: make bench, every benchmark of bench/ once, in sequence, each
# side by side with its peers in its own run (the figures the README's
# "What it costs" quotes), at sizes that take a few minutes in all. Needs
# root (the collector) and the build ($OUTPUT, default build). A bench
# that fails is said, and the others still run; exit 1 if one failed.
#   BENCH_ONLY='NAME...'  these only (replay collector read sched spawn profile
#                         analyze runtimes boot)
set -u
cd "$(dirname "$0")/.." || exit 1
export OUTPUT=${OUTPUT:-build}
failed=()
run() { # run NAME COMMAND...
	local name=$1
	shift
	[ -n "${BENCH_ONLY:-}" ] && [[ " $BENCH_ONLY " != *" $name "* ]] && return 0
	echo "######## bench: $name ($*)"
	"$@" || failed+=("$name")
}
run replay bench/replay.sh
run collector bench/collector.sh 200000
run read bench/read.sh 200000
run sched bench/sched.sh 100000
run spawn bench/spawn.sh 100
run profile bench/profile.sh 10
RUNS=3 run analyze bench/analyze.sh
run runtimes bench/runtimes.sh 5
run boot bench/boot.sh 5
if [ ${#failed[@]} -gt 0 ]; then
	echo "bench: failed: ${failed[*]}"
	exit 1
fi
