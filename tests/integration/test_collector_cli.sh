#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The command line: --help, --version, usage errors, and output into a FIFO
# read by another process.
# modes: cgroup pidtree legacy
. "$(dirname "$0")/lib.sh"

"$COLLECTOR" --help > "$TMP/help" || fail "--help exit $?"
grep -q '^usage: collector' "$TMP/help" || fail "--help has no usage line"
for o in --output --mode --syscalls --duration --cgroup --until --timeout --runs --name --unshare --ringbuf-mb --verbose --version; do
	grep -q -- "$o" "$TMP/help" || fail "--help does not document $o"
done
"$COLLECTOR" --version | grep -Eq '^collector \(boottrace\) [0-9]+\.[0-9]+' || fail "--version"
"$COLLECTOR" --bogus 2>/dev/null; [ $? -eq 2 ] || fail "unknown option is not exit 2"
"$COLLECTOR" --until never -- true 2>/dev/null; [ $? -eq 2 ] || fail "bad --until is not exit 2"
"$COLLECTOR" --runs 0 -- true 2>"$TMP/err"; [ $? -eq 2 ] || fail "--runs 0 is not exit 2"
grep -q 'collector: --runs' "$TMP/err" || fail "--runs error message: $(cat "$TMP/err")"
ok "help, version, usage errors"

need_root
mkfifo "$TMP/fifo"
cat "$TMP/fifo" > "$TMP/fromfifo" & reader=$!
"$COLLECTOR" -o "$TMP/fifo" -- "$TOOLS/getppid_loop" 321 || fail "collector into a FIFO exited $?"
wait $reader
check_tsv "$TMP/fromfifo"
[ "$(rows "$TMP/fromfifo" syscall getppid | wc -l)" -eq 321 ] || fail "FIFO reader did not get 321 rows"
ok "FIFO output"

# BOOTTRACE_BPF_STATS=1: the collector's CPU time and its programs' runs at
# its end; 4321 getppid calls are at least 4321 runs of the enter program
BOOTTRACE_BPF_STATS=1 "$COLLECTOR" -o "$TMP/stats.tsv" -- "$TOOLS/getppid_loop" 4321 2> "$TMP/stats.err" ||
	fail "BOOTTRACE_BPF_STATS=1: collector exited $?: $(cat "$TMP/stats.err")"
grep -q '^collector: its CPU time [0-9.]* s, [0-9.]* s of it while tracing, woken [0-9]* times$' "$TMP/stats.err" ||
	fail "BOOTTRACE_BPF_STATS=1: no CPU time line: $(cat "$TMP/stats.err")"
n=$(awk '$2 == "bt_sys_enter" { print $3 }' "$TMP/stats.err")
ns=$(awk '$2 == "bt_sys_enter" { print $4 }' "$TMP/stats.err")
[ "${n:-0}" -ge 4321 ] && [ "${ns:-0}" -gt 0 ] ||
	fail "BOOTTRACE_BPF_STATS=1: bt_sys_enter ran '$n' times ($ns ns a run), not 4321 or more: $(cat "$TMP/stats.err")"
ok "BOOTTRACE_BPF_STATS=1: bt_sys_enter $n runs, $ns ns a run"

# a reader that goes away ends the collector cleanly, not by SIGPIPE
mkfifo "$TMP/fifo2"
head -c 100 "$TMP/fifo2" > /dev/null &
timeout 60 "$COLLECTOR" -o "$TMP/fifo2" -- "$TOOLS/getppid_loop" 2000000 2> "$TMP/err2"
rc=$?
[ $rc -ne 124 ] || fail "collector hung after the reader left"
[ $rc -lt 128 ] || fail "collector died of a signal ($rc)"
grep -q 'reader closed' "$TMP/err2" || fail "no message about the closed reader: $(cat "$TMP/err2")"
ok "closed reader"

# --duration stops watch mode
timeout 20 "$COLLECTOR" --duration 0.5 -o "$TMP/d.tsv" || fail "--duration exit $?"
tail -1 "$TMP/d.tsv" | grep -q '^# lost=' || fail "--duration: no trailer"
ok "--duration"

# a full disk is an error exit with a message, never a silent truncation
mkdir "$TMP/small"
mount -t tmpfs -o size=64k tmpfs "$TMP/small" || fail "cannot mount a small tmpfs"
cleanup_hooks+=("umount $TMP/small 2>/dev/null")
"$COLLECTOR" -o "$TMP/small/full.tsv" -- "$TOOLS/getppid_loop" 200000 2> "$TMP/err3"
rc=$?
[ $rc -eq 1 ] || fail "disk full: exit $rc, not 1"
grep -q "cannot write $TMP/small/full.tsv: No space left on device" "$TMP/err3" || fail "disk full message: $(cat "$TMP/err3")"
ok "disk full"
