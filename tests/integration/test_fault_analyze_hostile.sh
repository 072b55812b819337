#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# analyze on hostile input, end to end through the binary: a truncated file,
# binary garbage, a row of 10,000 fields, /dev/zero, 2 GiB of zeros on a
# pipe, a 1 GiB single line made by a generator pipe (never a file on disk),
# numbers past 2^64 (and past int64 for ret). Each: exit 2, a message naming
# the input and the line and saying what is wrong, peak RSS (GNU time %M)
# under 64 MiB (ASan build included), and no hang. With
# --lenient the 1 GiB line is skipped and counted in bounded memory. Needs
# no root.
. "$(dirname "$0")/lib.sh"

[ -x /usr/bin/time ] || skip "needs GNU time (/usr/bin/time, package time)"
# 64 MiB, for an ASan build too: analyze stays under 10 MiB with ASan's shadow
limit_kib=$((64 * 1024))
HDR=$'ts_ns\tcontainer\tcgroup_id\tpid\ttid\tppid\tcomm\tevent\tname\tret\tdur_ns\tdetail'
head_lines() { printf '# boottrace-tsv 1\n# mode=cgroup\n%s\n' "$HDR"; }
row() { # row TS RET DUR: one valid row
	printf '%s\tc\t7\t10\t10\t1\tsh\tsyscall\tread\t%s\t%s\t\\N\n' "$1" "$2" "$3"
}

# expect NAME WANT-EXIT MSG-REGEX CMD...: run CMD (analyze at its end reads
# stdin or a file), check exit, message, RSS and time. The generator side
# of a pipe is in the caller: CMD is analyze alone, its stdin is $in.
in=/dev/null
expect() {
	local name=$1 want=$2 re=$3 rc rss
	shift 3
	timeout 120 /usr/bin/time -f %M -o "$TMP/rss" "$@" < "$in" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	[ "$rc" -ne 124 ] || fail "$name: analyze did not finish in 120 s"
	rss=$(tail -1 "$TMP/rss")
	[ "$rc" -eq "$want" ] || fail "$name: exit $rc, not $want: $(head -c 300 "$TMP/err")"
	if [ -n "$re" ]; then
		grep -Eiq -- "$re" "$TMP/err" ||
			fail "$name: message does not match /$re/: $(head -c 300 "$TMP/err")"
	fi
	case $rss in '' | *[!0-9]*) fail "$name: no RSS measured ($rss)" ;; esac
	[ "$rss" -lt "$limit_kib" ] || fail "$name: peak RSS $rss KiB, limit $limit_kib KiB"
	echo "   $name: exit $rc, peak RSS $rss KiB: $(head -1 "$TMP/err" | cut -c1-110)"
}

# "analyze: NAME:LINE: ..." — the file and the line, then what is wrong
at() { printf '^analyze: %s:%s: .*%s' "$1" "$2" "$3"; }

# 1. a file cut in the middle of a row
{ head_lines; row 1 0 5; row 2 0 5; printf '3\tc\t7\t10\t10\t1\tsh\tsysc'; } > "$TMP/cut.tsv"
expect truncated 2 "$(at "$TMP/cut.tsv" 6 '(truncat|newline|cut)')" "$ANALYZE" "$TMP/cut.tsv"
# ... and cut just after a full row: no trailer is only a warning
{ head_lines; row 1 0 5; } > "$TMP/cut2.tsv"
expect "cut at a row end" 0 'trailer' "$ANALYZE" "$TMP/cut2.tsv"

# 2. binary garbage, as a file and on a pipe; garbage after a valid start
head -c 200000 /dev/urandom > "$TMP/garbage"
expect garbage 2 "$(at "$TMP/garbage" 1 '')" "$ANALYZE" "$TMP/garbage"
in=$TMP/garbage expect "garbage on stdin" 2 "$(at '<stdin>' 1 '')" "$ANALYZE" -
{ head_lines; row 1 0 5; cat "$TMP/garbage"; } > "$TMP/garbage2"
expect "garbage after rows" 2 "$(at "$TMP/garbage2" 5 '')" "$ANALYZE" "$TMP/garbage2"
in=/dev/null

# 3. a row with 10,000 fields
{ head_lines; seq 10000 | paste -sd '\t'; } > "$TMP/wide.tsv"
expect "10000 fields" 2 "$(at "$TMP/wide.tsv" 4 'field')" "$ANALYZE" "$TMP/wide.tsv"

# 4. /dev/zero itself (endless), and 2 GiB of zeros through a pipe
expect /dev/zero 2 "$(at /dev/zero 1 '')" "$ANALYZE" /dev/zero
mkfifo "$TMP/zpipe"
head -c 2G /dev/zero > "$TMP/zpipe" 2>/dev/null & gen=$!
in=$TMP/zpipe expect "2 GiB of zeros on a pipe" 2 "$(at '<stdin>' 1 '')" "$ANALYZE" -
kill $gen 2>/dev/null; wait $gen 2>/dev/null
in=/dev/null

# 5. a 1 GiB single line from a generator pipe: as a row, and as the first line
gen_line() { # gen_line PREFIX-FUNCTION: its lines, then 1 GiB of '7' and an LF
	"$@"
	head -c 1G /dev/zero | tr '\0' 7
	printf '\n'
	row 9 0 1
	printf '# lost=0 events=1\n'
}
noprefix() { :; }
mkfifo "$TMP/lpipe"
gen_line head_lines > "$TMP/lpipe" 2>/dev/null & gen=$!
in=$TMP/lpipe expect "1 GiB line (a row)" 2 "$(at '<stdin>' 4 '(long|length|bytes)')" "$ANALYZE" -
kill $gen 2>/dev/null; wait $gen 2>/dev/null
gen_line noprefix > "$TMP/lpipe" 2>/dev/null & gen=$!
in=$TMP/lpipe expect "1 GiB first line" 2 "$(at '<stdin>' 1 '')" "$ANALYZE" -
kill $gen 2>/dev/null; wait $gen 2>/dev/null
# lenient: the line is skipped (counted), the reading goes on to the end
gen_line head_lines > "$TMP/lpipe" 2>/dev/null & gen=$!
in=$TMP/lpipe expect "1 GiB line, --lenient" 0 'skipped 1 ' "$ANALYZE" --lenient --format tsv -
wait $gen || fail "the generator did not finish: analyze --lenient stopped reading early"
in=/dev/null

# 6. numbers past 2^64 (and past int64 for the signed ret)
for bad in ts:18446744073709551616 ts:99999999999999999999999999 dur:18446744073709551616 \
	ret:9223372036854775808 ret:-9223372036854775809; do
	col=${bad%%:*} v=${bad#*:}
	case $col in
	ts) r=$(row "$v" 0 1) want=ts_ns ;;
	dur) r=$(row 1 0 "$v") want=dur_ns ;;
	ret) r=$(row 1 "$v" 1) want=ret ;;
	esac
	{ head_lines; row 1 0 5; printf '%s\n' "$r"; } > "$TMP/big.tsv"
	expect "$want=$v" 2 "$(at "$TMP/big.tsv" 5 "$want.*(range|64|big|large|overflow)")" "$ANALYZE" "$TMP/big.tsv"
done
# the largest values that fit are accepted
{ head_lines; row 18446744073709551615 -9223372036854775808 18446744073709551615; } > "$TMP/max.tsv"
expect "2^64-1 and -2^63" 0 '' "$ANALYZE" "$TMP/max.tsv"
ok "hostile input: exit 2 with file:line messages, bounded RSS (< $((limit_kib / 1024)) MiB)"
