#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --critical-path and --until on hostile names (container, comm, syscall
# name, path and address details with TAB, LF, backslash, quotes, control
# bytes, invalid UTF-8, \N): TSV keeps 10 fields a line with every string
# escaped as the input had it, JSON parses and gives the bytes back, text
# holds no control byte. Needs no root.
. "$(dirname "$0")/lib.sh"

H=$TMP/hostile.tsv
ctr='c\t"x\\y'
comm='s\x01h\xff'
path='/tmp/a\tb\nc\\d"e\x1b[31m\\N'
{
	printf '# boottrace-tsv 1\n# mode=cgroup\n'
	printf 'ts_ns\tcontainer\tcgroup_id\tpid\ttid\tppid\tcomm\tevent\tname\tret\tdur_ns\tdetail\n'
	printf '1000\t%s\t\\N\t10\t10\t1\t%s\tstart\tspawn\t\\N\t\\N\t%s\n' "$ctr" "$comm" "$path"
	printf '2000\t%s\t\\N\t10\t10\t1\t%s\tsyscall\topenat\t3\t5000\t%s\n' "$ctr" "$comm" "$path"
	printf '8000\t%s\t\\N\t10\t10\t1\t%s\tsyscall\tsys\\tcall\t0\t1000\t%s\n' "$ctr" "$comm" "$path"
	printf '9000\t%s\t\\N\t10\t10\t1\t%s\tsyscall\tlisten\t0\t1000\t@\\x00abs\\n\n' "$ctr" "$comm"
	printf '# lost=0 events=4\n'
} > "$H"

"$ANALYZE" "$H" --critical-path --format tsv > "$TMP/out.tsv" || fail "tsv exited $?"
awk -F'\t' 'NF != 10 { print NR ": " NF " fields"; bad = 1 } END { exit bad }' "$TMP/out.tsv" ||
	fail "a TSV line without 10 fields"
grep -q "$(printf '\t')syscall:openat$(printf '\t')1000$(printf '\t')5000$(printf '\t')/tmp/a\\\\tb\\\\nc\\\\\\\\d\"e\\\\x1b\\[31m\\\\\\\\N$(printf '\t')unknown$" "$TMP/out.tsv" ||
	fail "openat's detail is not the escaped path: $(grep openat "$TMP/out.tsv")"
grep -q "^c\\\\t\"x\\\\\\\\y$(printf '\t')listen$(printf '\t')10$(printf '\t')10$(printf '\t')s\\\\x01h\\\\xff$(printf '\t')" "$TMP/out.tsv" ||
	fail "container or comm not escaped as in the input: $(sed -n 2p "$TMP/out.tsv")"
grep -q "syscall:sys\\\\tcall" "$TMP/out.tsv" || fail "the syscall name is not escaped"
ok "tsv: 10 fields, strings escaped as in the input"

"$ANALYZE" "$H" --critical-path --format json --by comm --until listen > "$TMP/out.json" || fail "json exited $?"
python3 - "$TMP/out.json" <<'PY' || fail "json"
import json, sys
d = json.load(open(sys.argv[1]))
cp = d["critical_path"]["containers"][0]
assert cp["container"] == 'c\t"x\\y', cp["container"]
segs = {s["what"]: s for s in cp["segments"]}
assert segs["syscall:openat"]["detail"] == '/tmp/a\tb\nc\\d"e\x1b[31m\\N', segs["syscall:openat"]["detail"]
assert segs["syscall:openat"]["comm"] == 's\x01h\ufffd', segs["syscall:openat"]["comm"]
assert segs["syscall:listen"]["detail"] == '@\x00abs\n', segs["syscall:listen"]["detail"]
assert sum(s["dur"] for s in cp["segments"]) == cp["duration"] == 9000
assert d["by"]["window"]["wall"] == 9000
PY
ok "json: parses, the bytes come back"

"$ANALYZE" "$H" --critical-path --by syscall --until listen > "$TMP/out.txt" || fail "text exited $?"
LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$TMP/out.txt" && fail "a control byte in the text output"
grep -q 'syscall:openat' "$TMP/out.txt" || fail "text: no openat"
ok "text: no control byte"
