# SPDX-License-Identifier: BSD-2-Clause
# Shared helpers for the integration tests (sourced, not run).
# A test exits 0 (pass), 77 (skip, after saying why) or 1 (fail).
set -u
OUTPUT=${OUTPUT:-build}
COLLECTOR=$OUTPUT/collector
ANALYZE=$OUTPUT/analyze
TOOLS=$OUTPUT/tests
TMP=$(mktemp -d /tmp/boottrace-test.XXXXXX)
# analyze asks DEBUGINFOD_URLS for the build ids it finds nowhere here
# (Debian's /etc/profile.d sets it): a test names its frames from this
# machine only, or from a server of its own (test_analyze_debuginfod)
unset DEBUGINFOD_URLS
# the run's (tests/run.sh checks that it goes, with every mount under it)
. "$(dirname "${BASH_SOURCE[0]}")/leftovers.sh"
leftovers_own "$TMP"
CGPARENT=
cleanup_hooks=()

# BT_MODE (set by tests/run.sh for tests with a "# modes:" line): cgroup
# (modern object), compat (cgroup mode, compat object), pidtree (modern
# object) or legacy (pidtree, legacy object). $COLLECTOR then runs the
# collector with those options; it execs, so $! is its pid.
BT_MODE=${BT_MODE:-}
case $BT_MODE in
pidtree) mode_opts="--mode pidtree --object modern" ;;
legacy) mode_opts="--mode pidtree --object legacy" ;;
cgroup) mode_opts="--mode cgroup" ;;
compat) mode_opts="--mode cgroup --object compat" ;;
*) mode_opts= ;;
esac
if [ -n "$mode_opts" ]; then
	printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$(realpath "$COLLECTOR")" "$mode_opts" > "$TMP/collector"
	chmod +x "$TMP/collector"
	COLLECTOR=$TMP/collector
fi
# The cgroup_id column: \N in pidtree mode, a number in cgroup mode.
cgid_ok() { case $BT_MODE in pidtree|legacy) [ "$1" = '\N' ] ;; *) [[ "$1" =~ ^[0-9]+$ ]] ;; esac; }
# cgroup_mode: BT_MODE is cgroup mode (with either object; none: auto, which
# is cgroup mode on this host). perf_object: the object has per-CPU perf
# buffers and no BTF (legacy, compat): docs/legacy-object.md says what differs.
cgroup_mode() { case $BT_MODE in ''|cgroup|compat) return 0 ;; esac; return 1; }
perf_object() { case $BT_MODE in legacy|compat) return 0 ;; esac; return 1; }

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
ok() { echo "ok - $*"; }
# have CMD WHAT: whether CMD is installed for the checks of WHAT; without
# it those are skipped, said so, and with CI=true the test fails
have() {
	command -v "$1" > /dev/null && return 0
	[ "${CI:-}" != true ] || fail "$1 is not installed (scripts/install-deps.sh installs it), and CI=true forbids skipping $2"
	echo "# SKIP $2: $1 is not installed" >&2
	return 1
}

# under_tcg: this is a VM of make vmtest, QEMU without KVM (cpu model "QEMU
# Virtual CPU"): its timers fire late and unevenly while the host is busy,
# so a figure of time is checked natively, what the kernel does everywhere.
under_tcg() { grep -q 'QEMU Virtual CPU' /proc/cpuinfo; }

need_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root to load BPF programs and make cgroups"
	[ -r /sys/kernel/btf/vmlinux ] || skip "needs kernel BTF (/sys/kernel/btf/vmlinux)"
}

# watch_start FILE [COLLECTOR-OPTION...]: a watching collector writing FILE,
# attached when this returns; $watch_pid is its pid.
watch_start() {
	local f=$1
	shift
	"$COLLECTOR" "$@" -o "$f" 2> "$f.err" &
	watch_pid=$!
	cleanup_hooks+=("kill $watch_pid 2>/dev/null")
	for _ in $(seq 200); do grep -q '^ts_ns' "$f" 2> /dev/null && break; sleep 0.05; done
	grep -q '^ts_ns' "$f" || fail "collector did not start: $(cat "$f.err")"
}

# watch_stop FILE: stop it (SIGINT) and check the TSV's frame.
watch_stop() {
	sleep 0.3	# the last rows of the last container
	kill -INT "$watch_pid"
	wait "$watch_pid" || fail "collector exited $? on SIGINT: $(cat "$1.err")"
	check_tsv "$1"
}

cgroup2_mount() { awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts; }

# A parent cgroup of the test's own, removed at exit.
make_cgparent() {
	local cg2
	cg2=$(cgroup2_mount)
	[ -n "$cg2" ] || fail "no cgroup2 mount"
	CGPARENT=$cg2/boottrace-test.$$
	mkdir "$CGPARENT" || fail "cannot mkdir $CGPARENT"
}

on_exit() {
	local h d
	for h in "${cleanup_hooks[@]}"; do eval "$h"; done
	if [ -n "$CGPARENT" ] && [ -d "$CGPARENT" ]; then
		# the whole tree, deepest first (a test that failed midway leaves nested ones)
		for d in "$CGPARENT"/*/; do
			[ -f "$d/cgroup.kill" ] && echo 1 > "$d/cgroup.kill" 2>/dev/null
		done
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			find "$CGPARENT" -depth -type d -exec rmdir {} + 2>/dev/null
			[ -d "$CGPARENT" ] || break
			sleep 0.1
		done
	fi
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"
}
trap on_exit EXIT

# hostile_names: sets the array names to container (cgroup directory)
# names made to break things: TAB, CR, backslashes, \N, quotes, backquotes,
# system("..."), $(...), control bytes, invalid UTF-8, 255 bytes. A cgroup
# name cannot hold LF or /.
hostile_names() {
	# shellcheck disable=SC2034 # for the caller
	names=(
		"$(printf 'tab\there\rcr')"
		'back\slash and \N'
		'x"; system("touch pwned1"); "'
		"q'\`touch pwned2\`\$(touch pwned3)"
		"$(printf 'ctl\001\033[31m\177 bad\377\376utf8')"
		"$(printf 'a%.0s' $(seq 255))"
	)
}

# unwrap FILE: analyze --critical-path's text with each line's continuation
# (a line that starts with 12 spaces: analyze(1)) joined to it by a space
unwrap() {
	awk '/^            / && NR > 1 { sub(/^ +/, ""); l = l " " $0; next }
		NR > 1 { print l } { l = $0 } END { if (NR) print l }' "$1"
}

# rows FILE EVENT [NAME]: event rows of FILE with that event (and name)
rows() {
	awk -F'\t' -v e="$2" -v n="${3:-}" '!/^#/ && NR > 1 && $8 == e && (n == "" || $9 == n)' "$1"
}

# KERNEL_NOTES: the collector's closing notes of what the kernel did not
# trace (runs of its programs it skipped, switch-ins it traced not), which
# any run may end with on a busy machine; without_kernel_notes FILE: FILE
# without them, for the tests of a run that says nothing else.
KERNEL_NOTES='^collector: the kernel (skipped [0-9]+ runs? of the BPF programs|traced no switch-in for [0-9]+ off-CPU intervals?) '
without_kernel_notes() { grep -Ev "$KERNEL_NOTES" "$1"; }

# check_tsv FILE: the contract's frame: version line, header, 12 fields,
# trailer with lost=0.
check_tsv() {
	local f=$1
	[ "$(head -1 "$f")" = "# boottrace-tsv 1" ] || fail "$f: no version line"
	grep -q '^ts_ns	container	cgroup_id	pid	tid	ppid	comm	event	name	ret	dur_ns	detail$' "$f" ||
		fail "$f: no header line"
	"$TOOLS/tsv_fields" < "$f" || fail "$f: a row without 12 fields"
	tail -1 "$f" | grep -Eq '^# lost=[0-9]+ events=[0-9]+$' || fail "$f: no trailer"
	tail -1 "$f" | grep -q '^# lost=0 ' || fail "$f: lost events: $(tail -1 "$f")"
}

# ratio_near A B R PCT: A/B is R within PCT percent (A, B counts, R a
# number: 2 for 2:1), as the profile tests compare what they sampled with
# a known truth: two burners with each other, or a burner's samples with
# the CPU time it measured itself (cpu_samples). False when B is 0.
ratio_near() {
	awk -v a="$1" -v b="$2" -v r="$3" -v p="$4" \
		'BEGIN { if (b <= 0 || r <= 0) exit 1; d = a / b / r - 1; if (d < 0) d = -d; exit !(d * 100 <= p) }'
}

# cpu_samples NS PERIOD_NS: the samples NS of a thread's CPU time makes at
# that period (the sample rows' dur_ns: 1001001 at 999 Hz), rounded
cpu_samples() { awk -v n="$1" -v p="$2" 'BEGIN { printf "%d\n", n / p + 0.5 }'; }

# need_profile_checks: the profile tests' tools (python3, binutils), then
# BURN (tests/tools/burn, the known truth) and PC, the command of
# profile_check.py (reads a TSV's stacks and samples)
need_profile_checks() {
	local t
	for t in python3 readelf nm; do
		have "$t" "the profile checks" || skip "needs $t (binutils, python3) to read the stacks"
	done
	BURN=$TOOLS/burn
	PC=(python3 "$(dirname "${BASH_SOURCE[0]}")/profile_check.py")
}
