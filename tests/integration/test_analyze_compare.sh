#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# analyze --compare A B --fail-if-slower PCT: the Hodges-Lehmann shift and
# its exact 95% interval on TIME-ANCHORS §D's worked examples (exec times
# in ms), the gate's rule (regressed: the interval above 0 and the shift
# beyond PCT % of A's median; inconclusive: no 95% interval, a phase one
# side never reached, or a shift beyond PCT whose interval holds 0) and
# its exit codes: 3 regressed, 0 otherwise, 2 usage errors.
set -u
OUTPUT=${OUTPUT:-build}
A=$OUTPUT/analyze
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -x "$A" ] || { echo "no $A: build it first (make $A)"; exit 1; }

gen() { # exec times in ms, one container each; a "ready" mark at 2x when MARK=1
	local i=0 ms
	printf '# boottrace-tsv 1\n# mode=pidtree\n'
	printf 'ts_ns\tcontainer\tcgroup_id\tpid\ttid\tppid\tcomm\tevent\tname\tret\tdur_ns\tdetail\n'
	for ms in "$@"; do
		i=$((i + 1))
		printf '%d\tc%d\t\\N\t%d\t%d\t1\tsh\tstart\tmkdir\t\\N\t\\N\t\\N\n' $((i * 10000000000)) $i $i $i
		printf '%d\tc%d\t\\N\t%d\t%d\t1\tsh\texec\t\\N\t\\N\t\\N\t/bin/sh\n' $((i * 10000000000 + ms * 1000000)) $i $i $i
		[ "${MARK:-0}" = 1 ] &&
			printf '%d\tc%d\t\\N\t%d\t%d\t1\tsh\tmark\tready\t\\N\t\\N\t\\N\n' $((i * 10000000000 + 2 * ms * 1000000)) $i $i $i
	done
	printf '# lost=0 events=%d\n' $((2 * i))
}

run() { # want_rc, then arguments; output in $tmp/out, $tmp/err
	local want=$1 rc; shift
	"$A" "$@" > "$tmp/out" 2> "$tmp/err"; rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "FAIL: analyze $*: exit $rc, want $want"; cat "$tmp/out" "$tmp/err"; fail=1
		return 1
	fi
}

tsv_exec() { # the exec row of the TSV comparison, from column 11 (shift) on
	grep '^exec	' "$tmp/out" | cut -f11-
}

# Worked example 1: HL = D(13) = 8 ms, CI [D(3), D(23)] = [-1, 19] ms, 96.8%:
# the interval holds 0. +7.9% of A's median (101 ms) is beyond 5%: inconclusive.
gen 100 104 98 110 101 > "$tmp/a1.tsv"
gen 108 112 105 120 109 > "$tmp/b1.tsv"
run 0 --compare --format tsv --fail-if-slower 5 "$tmp/a1.tsv" "$tmp/b1.tsv"
want=$'8000000\t-1000000\t19000000\t0.9683\t7.92\t-0.99\t18.81\t~\tinconclusive'
[ "$(tsv_exec)" = "$want" ] || { echo "FAIL: example 1: $(tsv_exec)"; echo "want   $want"; fail=1; }
grep -q "fail-if-slower 5%: no phase regressed; INCONCLUSIVE for exec (a shift beyond the threshold, but its 95% interval holds 0)" "$tmp/err" \
	|| { echo "FAIL: example 1: the inconclusive line"; cat "$tmp/err"; fail=1; }
# without the gate: the same shift, no gate column value, exit 0
run 0 --compare --format tsv "$tmp/a1.tsv" "$tmp/b1.tsv"
[ "$(tsv_exec | cut -f1-3,8-9)" = $'8000000\t-1000000\t19000000\t~\t\\N' ] || { echo "FAIL: example 1 ungated: $(tsv_exec)"; fail=1; }
# the text says the same, benchstat-like
run 0 --compare "$tmp/a1.tsv" "$tmp/b1.tsv"
grep -q '^exec  *5/5  *+8.000ms \[-1.000ms, +19.00ms\]  *+7.9% \[-1.0%, +18.8%\]  *96.8%  ~ *$' "$tmp/out" \
	|| { echo "FAIL: example 1 text"; cat "$tmp/out"; fail=1; }
grep -q "Mann-Whitney" "$tmp/out" || { echo "FAIL: the Mann-Whitney legend is gone"; fail=1; }

# Worked example 2: HL 6 ms, CI [3, 9] ms (+5.9% [+3.0%, +8.9%]): regressed at
# 5% (the point beyond, the interval above 0), ok at 6%: the gate compares
# the point estimate, not the lower bound (which is below 5%).
gen 100 102 99 101 103 > "$tmp/a2.tsv"
gen 106 108 105 110 107 > "$tmp/b2.tsv"
run 3 --compare --format tsv --fail-if-slower 5 "$tmp/a2.tsv" "$tmp/b2.tsv"
want=$'6000000\t3000000\t9000000\t0.9683\t5.94\t2.97\t8.91\tslower\tregressed'
[ "$(tsv_exec)" = "$want" ] || { echo "FAIL: example 2: $(tsv_exec)"; echo "want   $want"; fail=1; }
grep -q "analyze: fail-if-slower 5%: REGRESSED: exec (+5.9%)" "$tmp/err" || { echo "FAIL: example 2 stderr"; cat "$tmp/err"; fail=1; }
run 3 --compare --fail-if-slower 5 "$tmp/a2.tsv" "$tmp/b2.tsv"
grep -q "^fail-if-slower 5%: REGRESSED: exec (+5.9%)$" "$tmp/out" || { echo "FAIL: example 2 text verdict"; cat "$tmp/out"; fail=1; }
grep -q "regressed when its 95% CI lies above 0 and its shift is more than 5% of A's median" "$tmp/out" \
	|| { echo "FAIL: the rule is not written out"; fail=1; }
run 0 --compare --fail-if-slower 6 "$tmp/a2.tsv" "$tmp/b2.tsv"
grep -q "^fail-if-slower 6%: ok: no phase regressed$" "$tmp/out" || { echo "FAIL: example 2 at 6%"; cat "$tmp/out"; fail=1; }
run 0 --compare --fail-if-slower 5.941 "$tmp/a2.tsv" "$tmp/b2.tsv"	# 6/101 = 5.9406%
run 3 --compare --fail-if-slower 5.940 "$tmp/a2.tsv" "$tmp/b2.tsv"
# B faster than A: the other sign, never a regression
run 0 --compare --format tsv --fail-if-slower 0 "$tmp/b2.tsv" "$tmp/a2.tsv"
[ "$(tsv_exec | cut -f1-3,8-9)" = $'-6000000\t-9000000\t-3000000\tfaster\tok' ] || { echo "FAIL: faster: $(tsv_exec)"; fail=1; }

# 3 and 3 boots, B twice as slow: no 95% interval exists (90% at most):
# inconclusive, exit 0, and the note says why. 4 and 4: K = 1, 97.1%: regressed.
gen 100 101 102 > "$tmp/a3.tsv"
gen 200 201 202 > "$tmp/b3.tsv"
run 0 --compare --fail-if-slower 5 "$tmp/a3.tsv" "$tmp/b3.tsv"
grep -q "note: exec: 3 and 3 boots: no 95% interval exists (the widest, \[D(1), D(9)\], covers 90.0%)" "$tmp/out" \
	|| { echo "FAIL: 3/3 note"; cat "$tmp/out"; fail=1; }
grep -q "INCONCLUSIVE for exec (too few boots for a 95% interval)" "$tmp/out" || { echo "FAIL: 3/3 verdict"; fail=1; }
grep -q '^exec .* 90.0%  no CI  *inconclusive$' "$tmp/out" || { echo "FAIL: 3/3 row"; cat "$tmp/out"; fail=1; }
gen 100 101 102 103 > "$tmp/a4.tsv"
gen 200 201 202 203 > "$tmp/b4.tsv"
run 3 --compare --fail-if-slower 5 "$tmp/a4.tsv" "$tmp/b4.tsv"
grep -q '^exec .* 97.1%  slower  regressed$' "$tmp/out" || { echo "FAIL: 4/4 row"; cat "$tmp/out"; fail=1; }
# 3 against 5: a 95% interval exists (96.4%), with a warning
gen 100 101 102 103 104 > "$tmp/a5.tsv"
run 3 --compare --fail-if-slower 5 "$tmp/a5.tsv" "$tmp/b3.tsv"
grep -q "note: exec: 5 and 3 boots: the interval is D(1) to D(15) of the 15 differences (96.4% coverage)" "$tmp/out" \
	|| { echo "FAIL: 5/3 note"; cat "$tmp/out"; fail=1; }

# A phase that B never reached is inconclusive, and named; its boots are noted.
MARK=1 gen 100 101 102 103 104 > "$tmp/am.tsv"
run 0 --compare --fail-if-slower 5 "$tmp/am.tsv" "$tmp/a5.tsv"
grep -q "INCONCLUSIVE for ready (no boot of B reached it)" "$tmp/out" || { echo "FAIL: missing phase"; cat "$tmp/out"; fail=1; }
grep -q "note: ready: never reached by 0 of 5 boots of A, 5 of 5 of B" "$tmp/out" || { echo "FAIL: missing note"; fail=1; }

# Usage errors: exit 2
run 2 --fail-if-slower 5 "$tmp/a1.tsv" && grep -q "fail-if-slower goes with --compare" "$tmp/err" \
	|| { echo "FAIL: --fail-if-slower alone"; fail=1; }
for bad in -5 x 5.1234 '' 1e3 5%% 2000000; do
	run 2 --compare --fail-if-slower "$bad" "$tmp/a1.tsv" "$tmp/b1.tsv" || echo "  (pct '$bad')"
done
run 0 --compare --fail-if-slower 5% "$tmp/a2.tsv" "$tmp/a2.tsv"
"$A" --help | grep -q -- "--fail-if-slower <pct>" || { echo "FAIL: --help lacks --fail-if-slower"; fail=1; }
exit $fail
