#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Golden outputs of analyze on samples/boot-small.tsv (tests/golden/*.txt)
# and of --failures on tests/golden/failures-hostile.tsv,
# plus an independent awk computation of the per-phase TSV, exit codes and
# messages for bad input, and the options of --help.
set -u
OUTPUT=${OUTPUT:-build}
A=$OUTPUT/analyze
S=samples/boot-small.tsv
G=tests/golden
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -x "$A" ] || { echo "no $A: build it first (make $A)"; exit 1; }
# have CMD WHAT: lib.sh's, which this test does not source (it ran "have:
# command not found" and skipped the JSON checks)
have() {
	command -v "$1" > /dev/null && return 0
	[ "${CI:-}" != true ] || { echo "FAIL: $1 is not installed, and CI=true forbids skipping $2"; fail=1; return 1; }
	echo "# SKIP $2: $1 is not installed" >&2
	return 1
}

golden() { # name, then analyze arguments
	local name=$1; shift
	if "$A" "$@" > "$tmp/out" 2> "$tmp/err"; then
		if ! diff -u "$G/$name" "$tmp/out"; then
			echo "FAIL: analyze $* differs from $G/$name"; fail=1
		fi
	else
		echo "FAIL: analyze $* exited $?"; cat "$tmp/err"; fail=1
	fi
}
golden boot-small.txt "$S"
golden boot-small.tsv.txt --format tsv "$S"
golden boot-small-hist.txt --hist "$S"
golden boot-small-by-syscall.txt --by syscall "$S"
golden boot-small-critpath.tsv.txt --critical-path --format tsv "$S"
golden boot-small-until.txt --by comm --until listen "$S"
# --failures on hostile names and details (escape sequences, quotes, a
# restart NAME#2 of a name with a TAB), end details malformed and repeated
H=$G/failures-hostile.tsv
golden failures-hostile.txt --failures "$H"
golden failures-hostile.tsv.txt --failures --format tsv "$H"
golden failures-hostile.json --failures --format json "$H"
if LC_ALL=C grep -q $'\x1b' "$G"/failures-hostile.txt "$G"/failures-hostile.tsv.txt; then
	echo "FAIL: a raw ESC byte in --failures' output"; fail=1
fi
# the same file through a pipe and a FIFO
golden boot-small.tsv.txt --format tsv - < "$S"
mkfifo "$tmp/fifo"
cat "$S" > "$tmp/fifo" &
golden boot-small.tsv.txt --format tsv "$tmp/fifo"
wait

# Independent computation: per container minimums, nearest rank, in awk.
awk -F'\t' '
/^#/ || $1 == "ts_ns" { next }
{ c = $2 }
$8 == "start" && (!(c in st) || $1 < st[c]) { st[c] = $1 }
$8 == "exec" && (!(c in ex) || $1 < ex[c]) { ex[c] = $1 }
$8 == "syscall" && $9 == "listen" && $10 == "0" { t = $1 + $11; if (!(c in li) || t < li[c]) li[c] = t }
$8 == "mark" { k = c SUBSEP $9; if (!(k in mk) || $1 < mk[k]) mk[k] = $1; lab[$9] = 1 }
END {
	for (c in st) {
		if (c in ex) printf "exec %.0f\n", ex[c] - st[c]
		if (c in li) printf "listen %.0f\n", li[c] - st[c]
		for (l in lab) if ((c SUBSEP l) in mk) printf "%s %.0f\n", l, mk[c SUBSEP l] - st[c]
	}
}' "$S" | sort -k1,1 -k2,2n | awk '
{ v[$1, ++n[$1]] = $2; s[$1] += $2 }
END { for (p in n) { N = n[p]
	printf "%s\t%d\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\n", p, N, v[p,1], s[p]/N, v[p,N],
		v[p, int((50*N+99)/100)], v[p, int((90*N+99)/100)], v[p, int((99*N+99)/100)] } }' \
	| sort > "$tmp/awk"
"$A" --format tsv "$S" | tail -n +2 | sort > "$tmp/ours"
if ! diff -u "$tmp/awk" "$tmp/ours"; then echo "FAIL: --format tsv disagrees with awk"; fail=1; fi

# Messages and exit codes.
expect() { # code, stderr pattern, then arguments
	local code=$1 pat=$2 rc; shift 2
	"$A" "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null; rc=$?
	if [ "$rc" -ne "$code" ] || { [ -n "$pat" ] && ! grep -q -- "$pat" "$tmp/err"; }; then
		echo "FAIL: analyze $*: exit $rc (want $code), stderr:"; cat "$tmp/err"; fail=1
	fi
}
head -c 0 /dev/null > "$tmp/empty.tsv"
expect 2 "empty.tsv:1: empty input" "$tmp/empty.tsv"
expect 1 "analyze: cannot open $tmp/none.tsv: No such file or directory" "$tmp/none.tsv"
sed '20s/\t[^\t]*\t[^\t]*$//' "$S" > "$tmp/short.tsv"
expect 2 "short.tsv:20: expected 12 fields, got 10" "$tmp/short.tsv"
expect 0 "skipped 1 malformed rows" --lenient "$tmp/short.tsv"
grep -v '^# lost' "$S" > "$tmp/cut.tsv"
expect 0 "cut.tsv: no trailer (file cut short?)" "$tmp/cut.tsv"
sed 's/^# lost=0/# lost=7/' "$S" > "$tmp/lost.tsv"
expect 0 "lost.tsv: the collector lost 7 events" "$tmp/lost.tsv"
head -c -1 "$S" | grep -v '^# lost' | head -c -1 > "$tmp/trunc.tsv"
expect 2 "truncated line" "$tmp/trunc.tsv"
head -c 4096 /dev/urandom > "$tmp/garbage.tsv"
expect 2 "not a boottrace TSV" "$tmp/garbage.tsv"
sed -n '1,8p' "$S" > "$tmp/header.tsv"; echo '# lost=0 events=0' >> "$tmp/header.tsv"
expect 0 "" "$tmp/header.tsv"
grep -qx "no containers" "$tmp/out" || { echo "FAIL: header only: no 'no containers'"; fail=1; }
expect 2 "unknown format" --format xml "$S"
expect 2 "bad histogram" --hist=linear:1h "$S"
expect 2 "unknown --by key" --by pid "$S"
expect 2 "exactly two files" --compare "$S"
expect 2 "no phase 'nope' in the input (phases: exec, listen, ready, end)" --critical-path=nope "$S"
expect 2 "--until: no phase 'nope'" --until nope --by syscall "$S"
expect 2 "one of --hist, --by and --critical-path" --format tsv --by syscall --critical-path "$S"
expect 2 "--plot-container needs --plot" --plot-container 'x*' "$S"

# --help: stdout, exit 0, every option; --version
"$A" --help > "$tmp/help" || { echo "FAIL: --help exit $?"; fail=1; }
for o in --format --hist --by --container --exec --plot --plot-container --compare \
	--fail-if-slower --lenient --critical-path --until --threads --help --version EXAMPLES; do
	grep -q -- "$o" "$tmp/help" || { echo "FAIL: --help lacks $o"; fail=1; }
done
"$A" --version | grep -q "^analyze (boottrace) $(cat VERSION)$" || { echo "FAIL: --version"; fail=1; }

# --exec picks the exec that counts; --container narrows; json parses.
"$A" --format tsv --exec '/usr/bin/ruby' "$S" | grep -q "^exec	3	" || { echo "FAIL: --exec"; fail=1; }
"$A" --format tsv --container 'web-*' "$S" | grep -q "^exec	3	" || { echo "FAIL: --container"; fail=1; }
if have python3 "the JSON checks"; then
	"$A" --format json --hist --by syscall "$S" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["containers"] == 5
p = {x["phase"]: x for x in d["phases"]}
assert p["listen"]["missing"] == 1 and p["listen"]["p50"] == 2180009000
assert d["by"]["rows"][0]["name"] == "listen"
' || { echo "FAIL: json"; fail=1; }
fi

# --compare: a file against itself is no change; a 1 ms shift over 20 boots is.
gen() { # shift_ns
	printf '# boottrace-tsv 1\n# mode=pidtree\n'
	printf 'ts_ns\tcontainer\tcgroup_id\tpid\ttid\tppid\tcomm\tevent\tname\tret\tdur_ns\tdetail\n'
	for i in $(seq 1 20); do
		printf '%d\tc%d\t\\N\t%d\t%d\t1\tsh\tstart\tmkdir\t\\N\t\\N\t\\N\n' $((i * 10000000000)) $i $i $i
		printf '%d\tc%d\t\\N\t%d\t%d\t1\tsh\texec\t\\N\t\\N\t\\N\t/bin/sh\n' $((i * 10000000000 + 5000000 + i * 7000 + $1)) $i $i $i
	done
	printf '# lost=0 events=40\n'
}
gen 0 > "$tmp/a.tsv"; gen 1000000 > "$tmp/b.tsv"
# (then the shift: B - A's median of pairwise differences and its exact 95%
# interval, D(128) and D(273) of 400 at 20/20: the differences are
# 1 ms + 7 us (j - i), and D(128) has j - i = -4)
"$A" --compare --format tsv "$tmp/a.tsv" "$tmp/a.tsv" | grep -q "^exec	20	5070000	5126000	20	5070000	5126000	0.00	1.0000	no	0	-28000	28000	0.9509	0.00	-0.55	0.55	~	\\\\N$" \
	|| { echo "FAIL: --compare A A"; "$A" --compare --format tsv "$tmp/a.tsv" "$tmp/a.tsv"; fail=1; }
"$A" --compare --format tsv "$tmp/a.tsv" "$tmp/b.tsv" | grep -q "^exec	20	5070000	5126000	20	6070000	6126000	19.72	0.0000	yes	1000000	972000	1028000	0.9509	19.72	19.17	20.28	slower	\\\\N$" \
	|| { echo "FAIL: --compare A B"; "$A" --compare --format tsv "$tmp/a.tsv" "$tmp/b.tsv"; fail=1; }
"$A" --compare "$tmp/a.tsv" "$tmp/b.tsv" | grep -q "Mann-Whitney" || { echo "FAIL: --compare text"; fail=1; }
exit $fail
