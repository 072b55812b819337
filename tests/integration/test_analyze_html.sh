#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# analyze --plot's index.html: the page itself (only our own tags and
# attributes, no script, no resource but the PNGs beside it, every PNG of the
# run shown, the phase table equal to analyze's text table, the critical-path
# summary), hostile names inert (HTML and attribute injections stay text), and
# what a person sees: a screenshot by headless Chromium of the page's size,
# far from blank, with the plots in it (without the PNGs it is much emptier).
. "$(dirname "$0")/lib.sh"
A=$ANALYZE tmp=$TMP
errors=0
for p in gnuplot chromium python3; do
	command -v $p > /dev/null || skip "$p is not installed (scripts/install-deps.sh installs it)"
done

# check_html DIR TSV: the structure of DIR/index.html, and its phase table
# against analyze's text table of TSV.
check_html() {
	local d=$1 tsv=$2
	"$A" "$tsv" > "$tmp/text" 2> /dev/null
	python3 - "$d" "$tmp/text" <<'PY' || { echo "FAIL: $d/index.html"; errors=1; }
import html.parser, os, re, sys
d, textfile = sys.argv[1], sys.argv[2]
page = open(os.path.join(d, "index.html"), encoding="utf-8").read()
ok = True
def bad(msg):
    global ok
    ok = False
    print("FAIL:", msg)
tags = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "strong", "table",
        "tr", "th", "td", "pre", "details", "summary", "figure", "img", "figcaption", "code"}
attrs = {"lang", "charset", "http-equiv", "content", "class", "src", "alt"}
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.imgs, self.rows, self.row, self.cell, self.pre = [], [], None, None, []
        self.in_pre = False
    def handle_starttag(self, tag, a):
        if tag not in tags:
            bad("tag <%s> %r" % (tag, a))
        for k, v in a:
            if k not in attrs:
                bad("attribute %s=%r on <%s>" % (k, v, tag))
        if tag == "img":
            self.imgs.append(dict(a)["src"])
        if tag == "meta" and dict(a).get("http-equiv") not in (None, "Content-Security-Policy"):
            bad("meta %r" % a)
        if tag == "tr":
            self.row = []
        if tag in ("td", "th"):
            self.cell = ""
        if tag == "pre":
            self.in_pre = True
            self.pre.append("")
    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.row is not None:
            self.row.append(self.cell)
            self.cell = None
        if tag == "tr":
            self.rows.append(self.row)
            self.row = None
        if tag == "pre":
            self.in_pre = False
    def handle_data(self, s):
        if self.cell is not None:
            self.cell += s
        if self.in_pre:
            self.pre[-1] += s
p = P()
p.feed(page)
p.close()
# text is escaped: a '<' in the file starts one of our tags, never a script
if "<script" in page.lower():
    bad("script in the page")
if "default-src 'none'" not in page:
    bad("no Content-Security-Policy")
pngs = sorted(f for f in os.listdir(d) if f.endswith(".png"))
if sorted(p.imgs) != pngs:
    bad("images %s, PNGs in the directory %s" % (sorted(p.imgs), pngs))
for s in p.imgs:	# the only resources: bare file names, no scheme, no path
    if not re.fullmatch(r"[a-z0-9-]+\.png", s):
        bad("image name %r" % s)
# the phase table against analyze's text table: count, min avg max p50 p90 p99
text = [l for l in open(textfile, encoding="utf-8").read().split("\n")[1:]
        if l and not l.endswith("never reached it:") and not l.startswith("  ")]
want = {}
for l in text:
    f = l.rsplit(None, 7)	# the name (it may hold spaces), then 7 columns
    want[f[0].rstrip()] = f[1:]
got = {}
table = [r for r in p.rows if r and r[0] != "phase"]
ctrs = int(re.search(r"Boot report: (\d+) container", page).group(1))
for r in table:
    got[r[0]] = [r[1]] + r[3:]
    if int(r[1]) + int(r[2]) != ctrs:
        bad("row %r: count + never reached != %d containers" % (r, ctrs))
if got != want:
    bad("phase table %r, text table %r" % (got, want))
if not p.pre or "top of the critical paths" not in p.pre[0]:
    bad("no critical-path summary")
sys.exit(0 if ok else 1)
PY
}

# shot HTML PNG: a screenshot of HTML by headless Chromium: a 1280x1600 page
# drawn at half scale (640x800 pixels: the same layout, a quarter of the
# pixels for the pure-Python decoder below)
shot() {
	local ud
	ud=$(mktemp -d)
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$ud" --screenshot="$2" --window-size=1280,1600 \
		--force-device-scale-factor=0.5 "file://$1" \
		> "$tmp/chromium.log" 2>&1
	rm -rf "$ud"
	[ -s "$2" ] || { echo "FAIL: chromium wrote no screenshot of $1"; tail -5 "$tmp/chromium.log"; errors=1; }
}

# pixels PNG: "WIDTH HEIGHT INK COLOURFUL COLOURS" of an 8-bit RGB(A) PNG: the
# permille of pixels darker than light grey and of saturated ones, and the
# number of distinct colours
pixels() {
	python3 - "$1" <<'PY'
import struct, sys, zlib
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(b):
    n, typ = struct.unpack(">I4s", b[pos:pos + 8])
    data = b[pos + 8:pos + 8 + n]
    if typ == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", data[:10])
        assert depth == 8 and ctype in (2, 6), "depth %d colour type %d" % (depth, ctype)
        bpp = 3 if ctype == 2 else 4
    elif typ == b"IDAT":
        idat += data
    pos += 12 + n
raw, stride, prev, out = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
for y in range(h):
    ft, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        c = prev[i - bpp] if i >= bpp else 0
        up = prev[i]
        if ft == 1: line[i] = (line[i] + a) & 255
        elif ft == 2: line[i] = (line[i] + up) & 255
        elif ft == 3: line[i] = (line[i] + (a + up) // 2) & 255
        elif ft == 4:
            pa, pb, pc = abs(up - c), abs(a - c), abs(a + up - 2 * c)
            pr = a if pa <= pb and pa <= pc else up if pb <= pc else c
            line[i] = (line[i] + pr) & 255
    out.append(bytes(line))
    prev = line
ink, colourful, colours = 0, 0, set()
for line in out:
    for x in range(0, stride, bpp * 2):	# every other pixel: enough, and faster
        px = line[x:x + 3]
        colours.add(bytes(px))
        ink += min(px) < 200		# darker than the page's light greys
        colourful += max(px) - min(px) > 60	# the plots' bars and lines, not text
print(w, h, ink * 2000 // (w * h), colourful * 2000 // (w * h), len(colours))
PY
}

# 1. A sample with a timeline: every figure, the critical path.
"$A" samples/boot-small.tsv --plot "$tmp/small" > /dev/null 2> "$tmp/err" ||
	{ echo "FAIL: --plot exit $?"; cat "$tmp/err"; errors=1; }
[ -f "$tmp/small/index.html" ] || fail "no index.html"
check_html "$tmp/small" samples/boot-small.tsv
shot "$tmp/small/index.html" "$tmp/small.png"
read -r w h ink col colours < <(pixels "$tmp/small.png")
echo "screenshot: ${w}x$h, ink ${ink}, colourful ${col} (permille), $colours colours"
[ "$w" = 640 ] && [ "$h" = 800 ] || { echo "FAIL: screenshot ${w}x$h, want 640x800"; errors=1; }
[ "$ink" -ge 20 ] || { echo "FAIL: the screenshot is nearly blank (ink $ink permille)"; errors=1; }
# the same page without its PNGs: the plots' colours are gone
mkdir "$tmp/nopng" && cp "$tmp/small/index.html" "$tmp/nopng/"
shot "$tmp/nopng/index.html" "$tmp/nopng.png"
read -r _ _ ink0 col0 colours0 < <(pixels "$tmp/nopng.png")
echo "without the PNGs: ink ${ink0}, colourful ${col0} (permille), $colours0 colours"
[ "$col" -ge 20 ] && [ "$col" -ge $((col0 * 5 + 10)) ] ||
	{ echo "FAIL: the plots do not show in the screenshot"; errors=1; }
[ -n "${KEEP_SHOT:-}" ] && cp "$tmp/small.png" "$KEEP_SHOT"

# 2. Hostile names: container, comm, mark label and path built to break out
# of HTML text, of a quoted attribute and of <pre>; control bytes and
# invalid UTF-8 arrive escaped by the TSV (\x01, \xff) and stay so.
names=('<script>alert(1)</script>' '"><img src=x onerror=alert(2)>' "' onmouseover='alert(3)"
	'</pre><iframe src=http://x/>' '&lt;b&gt; &amp; &#60;' 'a\x01b\xffc\nd\\e')
{
	printf '# boottrace-tsv 1\n# mode=pidtree\n'
	printf 'ts_ns\tcontainer\tcgroup_id\tpid\ttid\tppid\tcomm\tevent\tname\tret\tdur_ns\tdetail\n'
	i=0
	for n in "${names[@]}"; do
		i=$((i + 1)) b=$((i * 1000000000))
		printf '%d\t%s\t\\N\t%d\t%d\t1\t%s\tstart\tmkdir\t\\N\t\\N\t\\N\n' $b "$n" $((i * 10)) $((i * 10)) "$n"
		printf '%d\t%s\t\\N\t%d\t%d\t1\t%s\texec\t\\N\t\\N\t\\N\t%s\n' $((b + 3000000)) "$n" $((i * 10)) $((i * 10)) "$n" "$n"
		printf '%d\t%s\t\\N\t%d\t%d\t1\t%s\tsyscall\topenat\t3\t2000000\t%s\n' $((b + 4000000)) "$n" $((i * 10)) $((i * 10)) "$n" "$n"
		printf '%d\t%s\t\\N\t%d\t%d\t1\t%s\tsyscall\tlisten\t0\t1000\t%s\n' $((b + 9000000 + i)) "$n" $((i * 10)) $((i * 10)) "$n" "$n"
		printf '%d\t%s\t\\N\t%d\t%d\t1\t%s\tmark\t%s\t\\N\t\\N\t\\N\n' $((b + 9500000)) "$n" $((i * 10)) $((i * 10)) "$n" "$n"
	done
	printf '# lost=0 events=%d\n' $((5 * i))
} > "$tmp/hostile.tsv"
"$A" "$tmp/hostile.tsv" --plot "$tmp/hostile" > /dev/null 2> "$tmp/err" ||
	{ echo "FAIL: hostile --plot exit $?"; cat "$tmp/err"; errors=1; }
check_html "$tmp/hostile" "$tmp/hostile.tsv"
H=$tmp/hostile/index.html
for s in '<script' '<img src=x' "' onmouseover" '<iframe' '</pre><iframe' '&lt;b&gt; &amp;'; do
	if grep -qF -- "$s" "$H"; then echo "FAIL: raw '$s' in index.html"; errors=1; fi
done
# ... and each name is there, escaped: as text, as the TSV escaped it
for s in '&lt;script&gt;alert(1)&lt;/script&gt;' '&quot;&gt;&lt;img src=x onerror=alert(2)&gt;' \
	'&#39; onmouseover=&#39;alert(3)' '&lt;/pre&gt;&lt;iframe src=http://x/&gt;' \
	'&amp;lt;b&amp;gt; &amp;amp; &amp;#60;' 'a\x01b\xffc\nd\\e'; do
	grep -qF -- "$s" "$H" || { echo "FAIL: '$s' not in index.html"; errors=1; }
done
if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$H"; then echo "FAIL: a control byte in index.html"; errors=1; fi
python3 -c 'import sys; open(sys.argv[1], encoding="utf-8", errors="strict").read()' "$H" ||
	{ echo "FAIL: index.html is not UTF-8"; errors=1; }
shot "$H" "$tmp/hostile.png"
read -r w h ink col _ < <(pixels "$tmp/hostile.png")
[ "$w" = 640 ] && [ "$ink" -ge 20 ] && [ "$col" -ge 20 ] ||
	{ echo "FAIL: hostile screenshot ${w}x$h, ink $ink, colourful $col"; errors=1; }
[ -n "${KEEP_SHOT:-}" ] && cp "$tmp/hostile.png" "${KEEP_SHOT%.png}-hostile.png"

# 3. Without gnuplot the page is written all the same, for the PNGs to come.
PATH=/nonexistent "$A" samples/boot-small.tsv --plot "$tmp/nognuplot" > /dev/null 2>&1
grep -q '<img src="timeline.png"' "$tmp/nognuplot/index.html" 2>/dev/null ||
	{ echo "FAIL: no index.html without gnuplot"; errors=1; }
exit $errors
