#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# make vmtest's counting (tests/vm/matrix.sh), on logs made up here, since
# make test's closing line adds up what it says: one result per kernel x
# test x mode; a result a VM never printed (it timed out) is a failure; a
# kernel that was not fetched is a skip, a failure with CI=true; a SKIP in
# a log stays one; the output of each failed test and why a kernel went
# wrong are shown; the exit status says whether anything failed. Needs no
# root and no VM.
. "$(dirname "$0")/lib.sh"

d=$TMP/tests v=$TMP/vm
mkdir -p "$d" "$v"
printf '# modes: m1 m2 m3\n' > "$d/test_a.sh"
printf '# no modes line\n' > "$d/test_b.sh"
printf 'm1) mode_opts="--mode one" ;;\nm2) mode_opts="--mode two" ;;\n' > "$d/lib.sh"
# k1 timed out after test_a[m2]; k2 was not fetched; k3 ran everything
printf '%s\n' 'vmtest: begin 9.9-k1' '=== test_a[m1]' '--- PASS test_a[m1] (1s)' \
	'=== test_a[m2]' 'FAIL: the detail of k1 m2' '--- FAIL test_a[m2] (exit 1)' \
	'qemu-system-x86_64: terminating on signal 15' > "$v/k1.log"
echo '9.9-k1' > "$v/k1.release"
echo 'timed out after 5s (VMTEST_TIMEOUT)' > "$v/k1.why"
echo 'not fetched: no such package' > "$v/k2.why"
printf '%s\r\n' 'vmtest: begin 9.9-k3' '--- PASS test_a[m1] (1s)' '--- PASS test_a[m2] (1s)' \
	'--- SKIP test_a[m3]' '--- PASS test_b (2s)' 'vmtest: end 0' > "$v/k3.log"
echo '9.9-k3' > "$v/k3.release"
printf '20.5 10.25 1.5\n' > "$v/k3.time"

matrix() { # matrix CI KERNEL...: matrix.sh's output in $TMP/out, its status in rc
	local ci=$1
	shift
	CI=$ci VMTEST_TEST_DIR=$d tests/vm/matrix.sh "$v" "test_a test_b" "$@" > "$TMP/out" 2>&1
	rc=$?
}
line() { grep -q -- "$1" "$TMP/out" || fail "no line '$1' in: $(cat "$TMP/out")"; }

matrix '' k1 k2 k3
[ $rc -eq 1 ] || fail "exit $rc with failures, not 1"
[ "$(tail -1 "$TMP/out")" = "4 passed, 3 failed, 5 skipped" ] || fail "closing line: $(tail -1 "$TMP/out")"
line '^failed: k1 test_a\[m2\] k1 test_a\[m3\] k1 test_b$'
line '^######## vmtest: FAIL test_a\[m2\] on 9.9-k1 (k1)$'
line '^FAIL: the detail of k1 m2$'
line '^vmtest: k1: timed out after 5s (VMTEST_TIMEOUT)$'
line '^9\.9-k1 (k1)  *1/1 ok  *0/1 FAIL  *0/1 FAIL  *0/1 FAIL  *timed out after 5s'
line '^k2 (k2)  *0/1 skip  *0/1 skip  *0/1 skip  *0/1 skip  *not fetched: no such package$'
line '^9\.9-k3 (k3)  *1/1 ok  *1/1 ok  *0/1 skip  *1/1 ok  *20 s, 12 CPU-s$'
line '^  m1: collector --mode one$'
line '^  m2: collector --mode two$'
line '^  auto: collector without'
ok "timed out, not fetched, skipped and passed, counted apart; the failure shown"

matrix true k1 k2 k3
[ $rc -eq 1 ] || fail "exit $rc with CI=true, not 1"
[ "$(tail -1 "$TMP/out")" = "4 passed, 7 failed, 1 skipped" ] || fail "CI=true closing line: $(tail -1 "$TMP/out")"
ok "CI=true: a kernel not fetched fails its tests"

matrix true k3
[ $rc -eq 0 ] || fail "exit $rc with nothing failed: $(cat "$TMP/out")"
[ "$(tail -1 "$TMP/out")" = "3 passed, 0 failed, 1 skipped" ] || fail "closing line: $(tail -1 "$TMP/out")"
ok "nothing failed: exit 0"
