#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --critical-path's text fits 120 columns, its details all there: a boot
# whose shell opens a FIFO at a long hostile path (spaces, TAB, LF,
# backslash, quotes, ESC, UTF-8; some 230 bytes) and blocks there 200 ms
# until this script, outside the container, opens it to write (a waker
# the path cannot follow: the stretch stays the openat's, with its path),
# then execs a server from that directory.
# The text: no line over 120 columns (code points), and the detail of each
# segment of 1% of its path or more, the FIFO's path among them, in it
# (less the breaks and indents); the exec of the server's path too. The
# lines that start with 12 spaces joined to the line above give each
# segment's line whole. The TSV and JSON are not wrapped: the same detail
# on one line, as the rows have it. On a terminal 250 columns wide, the
# lines fit 250 and the details stay on their lines.
. "$(dirname "$0")/lib.sh"
need_root

dir=$TMP
for part in 'a directory with spaces' $'tab\there' $'new\nline' 'back\slash "quoted"' \
	$'esc\e[31mred' 'ünïcødé → path' 'and a rather long name to pass the width'; do
	dir=$dir/$part
done
mkdir -p "$dir" && mkfifo "$dir/fifo" && cp "$TOOLS/listen_once" "$dir/listen once" ||
	fail "cannot make the hostile directory"
[ "$(printf '%s' "$dir/fifo" | wc -c)" -lt 250 ] || fail "the path passes the collector's 256 bytes"

# the shell blocks in openat until this script, 200 ms after it said so, opens the FIFO to write
"$COLLECTOR" --runs 1 --until listen --name wide -o "$TMP/w.tsv" -- \
	bash -c ': > "$1/ready"; exec 3< "$1/fifo"; exec "$1/listen once"' _ "$dir" \
	2> "$TMP/w.err" &
cpid=$!
cleanup_hooks+=("kill $cpid 2>/dev/null")
for _ in $(seq 200); do [ -e "$dir/ready" ] && break; sleep 0.05; done
[ -e "$dir/ready" ] || { kill $cpid; fail "the shell never started: $(cat "$TMP/w.err")"; }
sleep 0.2
: > "$dir/fifo"
wait $cpid || fail "collector exited $?: $(cat "$TMP/w.err")"
check_tsv "$TMP/w.tsv"
"$ANALYZE" "$TMP/w.tsv" --critical-path > "$TMP/path.txt" || fail "analyze --critical-path exited $?"
"$ANALYZE" "$TMP/w.tsv" --critical-path --format tsv > "$TMP/path.tsv" || fail "--format tsv exited $?"
"$ANALYZE" "$TMP/w.tsv" --critical-path --format json > "$TMP/path.json" || fail "--format json exited $?"

python3 - "$TMP/w.tsv" "$TMP/path.txt" "$TMP/path.tsv" "$TMP/path.json" "$dir" 120 <<'PY' || fail "text"
import json, re, sys
rows_f, text_f, tsv_f, json_f, d, width = sys.argv[1:6] + [int(sys.argv[6])]
text = open(text_f, encoding="utf-8").read()
flat = re.sub(r"\s", "", text)
# 1. every line fits
long = [l for l in text.split("\n") if len(l) > width]
assert not long, "%d lines over %d columns, the longest %d:\n%s" % (
    len(long), width, max(map(len, long)), "\n".join(long[:3]))
# the rows' escaping: \\ \t \n, \xHH for control bytes, UTF-8 as is
def esc(s):
    out = ""
    for c in s:
        if c == "\\": out += "\\\\"
        elif c == "\t": out += "\\t"
        elif c == "\n": out += "\\n"
        elif ord(c) < 0x20: out += "\\x%02x" % ord(c)
        else: out += c
    return out
fifo = esc(d + "/fifo")
rows = [l.rstrip("\n").split("\t") for l in open(rows_f, encoding="utf-8") if not l.startswith("#")]
opens = [r for r in rows if r[7] == "syscall" and r[8] == "openat" and r[11] == fifo]
assert opens, "no openat row of the FIFO in the rows"
blocked = max(int(r[10]) for r in opens)
assert 195e6 <= blocked <= 2e9, "the openat of the FIFO took %.1f ms, not 200" % (blocked / 1e6)
# 2. the path's segments of 1% or more: their details are in the text
segs = [l.rstrip("\n").split("\t") for l in open(tsv_f, encoding="utf-8")][1:]
assert segs, "no path"
total = sum(int(s[7]) for s in segs)
shown = [s for s in segs if int(s[7]) * 100 >= total and s[8] != "\\N"]
on_fifo = [s for s in shown if s[8].startswith(fifo)]
assert on_fifo, "no segment of 1%% or more on the FIFO's openat: %s" % [s[5:9] for s in shown]
assert sum(int(s[7]) for s in on_fifo) >= 150e6, "the FIFO's stretch is under 150 ms"
for s in shown:
    assert re.sub(r"\s", "", s[8]) in flat, "the detail %r is not in the text" % s[8]
# the exec of the server, by its path
assert re.sub(r"\s", "", "exec of " + esc(d + "/listen once")) in flat, "no exec of the server's path"
# 3. tsv and json: the detail whole on its line, as the rows have it
assert any(len(l) > width for l in open(tsv_f, encoding="utf-8")), "the TSV was wrapped"
assert all(len(s) == 10 for s in segs), "a TSV line without 10 fields"
j = json.load(open(json_f))
assert any(g["detail"].startswith(d + "/fifo") for g in j["critical_path"]["containers"][0]["segments"]), \
    "no JSON segment with the FIFO's path, unescaped"
print("ok - %d lines, the longest %d; %d details shown; the FIFO's openat %.1f ms" % (
    text.count("\n"), max(map(len, text.split("\n"))), len(shown), blocked / 1e6))
PY
# a line that starts with 12 spaces continues the one above (analyze(1)): joined, the
# openat's line holds its state, what and detail, as one line would (the
# code that waited, from the off-CPU stack, after the path: bash's
# do_redirections, by its .dynsym)
unwrap "$TMP/path.txt" | grep -F 'syscall:openat' | grep -E '^ +[0-9.]+m?s +[0-9.]+ms .* blocked +syscall:openat' |
	grep -qE '/fifo( in [^ ]+ \([^)]*\))? <- woken by ' || fail "the openat's line, joined, is not one line: $(unwrap "$TMP/path.txt" | grep -F openat)"
ok "text fits 120 columns, every detail in it; tsv and json unwrapped"

# A terminal 250 columns wide: its width (script(1) gives analyze a pty)
if have script "the terminal's width"; then
	script -qec "stty cols 250; '$ANALYZE' '$TMP/w.tsv' --critical-path" /dev/null |
		tr -d '\r' > "$TMP/tty.txt" || fail "analyze on a pty exited $?"
	python3 - "$TMP/tty.txt" "$TMP/path.txt" <<'PY' || fail "on a terminal 250 wide"
import re, sys
tty = open(sys.argv[1], encoding="utf-8").read()
txt = open(sys.argv[2], encoding="utf-8").read()
lines = tty.split("\n")
assert max(map(len, lines)) <= 250, "a line over 250 columns"
assert max(map(len, lines)) > 120, "the terminal's width was not used"
assert len(lines) < len(txt.split("\n")), "no fewer lines at 250 columns"
assert re.sub(r"\s", "", tty) == re.sub(r"\s", "", txt), "not the same text at 250 columns"
PY
	ok "a terminal 250 columns wide: lines up to 250, the same text"
fi
