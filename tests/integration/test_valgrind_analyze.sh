#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# analyze under valgrind (memcheck, --leak-check=full): the sample TSVs and a
# generated one with every option (--hist, --by, --format, --plot, --compare,
# --critical-path, --until,
# stdin, --lenient, --threads on a file large enough to be split) and on
# malformed input (exit 2): no invalid access, no
# uninitialised value used, no leak (definite, indirect or possible), every
# exit code as documented. Needs no root. Not run by make test-asan (valgrind
# cannot run ASan binaries); the ASan stage covers those instead.
. "$(dirname "$0")/lib.sh"

command -v valgrind > /dev/null || skip "valgrind is not installed (scripts/install-deps.sh installs it)"
ldd "$ANALYZE" 2>/dev/null | grep -q libasan && skip "$ANALYZE is an ASan build: valgrind cannot run it"

n=0
vg() { # vg WANT-EXIT ARGS...: analyze under memcheck, log checked
	local want=$1 rc log
	shift
	n=$((n + 1))
	log=$TMP/vg.$n.log
	valgrind -q --error-exitcode=1 --leak-check=full --show-leak-kinds=all \
		--errors-for-leak-kinds=definite,indirect,possible --track-origins=yes \
		--log-file="$log" "$ANALYZE" "$@" > "$TMP/vg.$n.out" 2> "$TMP/vg.$n.err" < "${VG_STDIN:-/dev/null}"
	rc=$?
	if [ -s "$log" ]; then
		cat "$log" >&2
		fail "valgrind reported on: analyze $* (exit $rc)"
	fi
	[ "$rc" -eq "$want" ] || { cat "$TMP/vg.$n.err" >&2; fail "analyze $*: exit $rc, not $want"; }
}

samples=(samples/*.tsv)
[ -f "${samples[0]}" ] || fail "no samples/*.tsv"
"$OUTPUT/bench/gen-tsv" -n 3000 -c 40 -o "$TMP/gen.tsv" 2>/dev/null ||
	fail "cannot generate a TSV with $OUTPUT/bench/gen-tsv"
files=("${samples[@]}" "$TMP/gen.tsv")

for f in "${files[@]}"; do
	vg 0 "$f"
	vg 0 --hist "$f"
	vg 0 --hist=linear:1ms "$f"
	vg 0 --by syscall "$f"
	vg 0 --by container --hist "$f"
	vg 0 --by comm "$f"
	vg 0 --format json --hist --by syscall "$f"
	vg 0 --format tsv "$f"
	vg 0 --format trace-event "$f"
	vg 0 --format otlp "$f"
	vg 0 --format otlp --critical-path=exec "$f"
	vg 0 --exec '/usr/*' --container '*' "$f"
	vg 0 --critical-path "$f"
	vg 0 --critical-path=exec --format tsv "$f"
	vg 0 --critical-path --format json --by comm --until listen "$f"
	vg 0 --by syscall --until exec "$f"
	vg 0 --failures "$f"
	vg 0 --failures=1s --format json "$f"
	vg 0 --by state --until end --format tsv "$f"
	vg 2 --critical-path=no-such-phase "$f"
	rm -rf "$TMP/plot"
	vg 0 --plot "$TMP/plot" "$f"
	ls "$TMP/plot"/*.gp > /dev/null 2>&1 || fail "--plot $f wrote no gnuplot script"
done
ok "${#files[@]} files, every report option: no valgrind report"

# a file large enough to be read in parts by threads (analyze --threads)
"$OUTPUT/bench/gen-tsv" -n 40000 -c 200 -o "$TMP/big.tsv" 2>/dev/null || fail "cannot generate a 40000-row TSV"
vg 0 --threads 2 --by syscall --hist "$TMP/big.tsv"
cp "$TMP/vg.$n.out" "$TMP/threads2.out"
vg 0 --threads 1 --by syscall --hist "$TMP/big.tsv"
cmp -s "$TMP/threads2.out" "$TMP/vg.$n.out" || fail "--threads 2 and --threads 1 print different reports"
head -c 2500000 "$TMP/big.tsv" > "$TMP/bigcut.tsv"
vg 2 --threads 2 "$TMP/bigcut.tsv"
ok "a file read by 2 threads: no valgrind report, the same report as 1 thread"

vg 0 --compare "${files[0]}" "$TMP/gen.tsv"
vg 0 --compare --format tsv "$TMP/gen.tsv" "${files[0]}"
vg 0 --compare --fail-if-slower 5 "$TMP/gen.tsv" "$TMP/gen.tsv"
vg 0 "${files[@]}"
VG_STDIN=${files[0]} vg 0 --format tsv -
ok "--compare, several files, stdin"

# malformed input: exit 2, and still everything freed
head -c 2000 "$TMP/gen.tsv" > "$TMP/cut.tsv"
vg 2 "$TMP/cut.tsv"
{ head -20 "$TMP/gen.tsv"; printf '1\tx\tonly three\n'; tail -5 "$TMP/gen.tsv"; } > "$TMP/bad.tsv"
vg 2 "$TMP/bad.tsv"
vg 0 --lenient "$TMP/bad.tsv"
head -c 5000 /dev/urandom > "$TMP/garbage"
vg 2 "$TMP/garbage"
vg 2 --compare "${files[0]}" "$TMP/garbage"
vg 1 /nonexistent/file.tsv
vg 2 --hist=bogus "${files[0]}"
vg 0 --help
ok "malformed input, usage errors: exit codes as documented, no valgrind report"
