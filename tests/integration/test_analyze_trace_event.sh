#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# analyze --format trace-event: the Trace Event JSON checked against the TSV
# it came from, as Perfetto would take it: it parses (strict UTF-8, no raw
# control byte, no \u escape); every event has what its phase needs; every
# pid and tid has its M name, none is 0; ts and dur have exactly three
# decimals; the syscall slices of each thread never overlap and all slices
# of a track nest; and the content is the TSV's: each syscall row one slice
# (container, tid, name, ts and dur in ns from the container's start, ret,
# detail), each fork, exec, exit, mark and start row one instant, each
# phase a container reached one slice of its duration (computed here from
# the rows, not by analyze). Inputs: the sample, a generated file, hostile
# strings (quote, backslash, tab, newline, control bytes, invalid UTF-8),
# pid 0 and huge tids, overlapping rows on one thread (clipped, counted),
# and three boots traced by the collector.
. "$(dirname "$0")/lib.sh"
command -v python3 > /dev/null || skip "python3 is not installed"

check() { # TSV [CLIPPED [SCHED_CLIPPED]]: export TSV and check it; the clipped counts wanted (0), or any
	local tsv=$1 clipped=${2:-0} sched_clipped=${3:-0}
	"$ANALYZE" --format trace-event "$tsv" > "$TMP/out.json" 2> "$TMP/err" ||
		fail "analyze --format trace-event $tsv: exit $?: $(cat "$TMP/err")"
	python3 - "$tsv" "$TMP/out.json" "$clipped" "$sched_clipped" <<'PY' || fail "trace-event of $tsv"
import collections, decimal, json, re, sys
tsv, out, want_clipped, want_sched_clipped = sys.argv[1:5]
raw = open(out, "rb").read()
text = raw.decode("utf-8")			# strict: valid UTF-8
errors = []
def bad(msg):
    errors.append(msg)
    if len(errors) > 20:
        raise SystemExit("\n".join(errors))
if re.search(rb"[\x00-\x09\x0b-\x1f\x7f]", raw):
    bad("a raw control byte in the file")
if re.search(r'(?<!\\)(?:\\\\)*\\u', text):
    bad("a \\u escape")
for key in ("ts", "dur"):
    n_all = len(re.findall(r'"%s":' % key, text))
    n_ok = len(re.findall(r'"%s":-?\d+\.\d{3}[,}]' % key, text))
    if n_all != n_ok:
        bad("%d of %d %s values without exactly 3 decimals" % (n_all - n_ok, n_all, key))
d = json.loads(text, parse_float=decimal.Decimal)
evs = d["traceEvents"]
ns = lambda us: int(us * 1000)

# metadata: a name for every pid and (pid, tid), real ids in args
pname, tname, real = {}, {}, {}
for e in evs:
    if e["ph"] == "M" and e["name"] == "process_name":
        pname[e["pid"]] = e["args"]["name"]
    if e["ph"] == "M" and e["name"] == "thread_name":
        tname[(e["pid"], e["tid"])] = e["args"]["name"]
        if "tid" in e["args"]:
            real[(e["pid"], e["tid"])] = e["args"]["tid"]
for e in evs:
    ph = e["ph"]
    if ph not in ("X", "i", "M"):
        bad("phase %r" % ph)
    if e["pid"] == 0 or e.get("tid") == 0:
        bad("pid or tid 0: %r" % e)
    if ph == "M":
        continue
    need = ["name", "ts", "pid", "tid", "cat"] + (["dur"] if ph == "X" else ["s"])
    if any(k not in e for k in need):
        bad("%s event without %s" % (ph, need))
    if ph == "i" and e["s"] != "t":
        bad("instant not thread-scoped")
    if e["pid"] not in pname or (e["pid"], e["tid"]) not in tname:
        bad("no M name for %s/%s" % (e["pid"], e["tid"]))
    if ph == "X" and e["dur"] < 0:
        bad("negative dur")

# nesting: the slices of a track nest (Perfetto drops the others), and the
# syscall slices of a thread do not even touch but end to start
tracks = collections.defaultdict(list)
for e in evs:
    if e["ph"] == "X":
        tracks[(e["pid"], e["tid"])].append((ns(e["ts"]), ns(e["dur"]), e["cat"]))
for key, sl in tracks.items():
    sl.sort(key=lambda s: (s[0], -s[1]))
    stack = []
    for b, du, cat in sl:
        while stack and b >= stack[-1]:
            stack.pop()
        if stack and b + du > stack[-1]:
            bad("slice [%d, %d] overlaps its parent ending %d on %s" % (b, b + du, stack[-1], key))
        stack.append(b + du)
    sys_sl = sorted((b, du) for b, du, cat in sl if cat == "syscall")
    for (b1, d1), (b2, d2) in zip(sys_sl, sys_sl[1:]):
        if b2 < b1 + d1:
            bad("syscall slices overlap on %s: [%d+%d] [%d+%d]" % (key, b1, d1, b2, d2))

# the TSV's rows, read here
rows = []
for line in open(tsv, encoding="utf-8"):
    line = line.rstrip("\n")
    if line.startswith("#") or line.startswith("ts_ns\t"):
        continue
    f = line.split("\t")
    if f[7] == "end":		# no task: not in the timeline
        continue
    rows.append(dict(ts=int(f[0]), ctr=f[1], tid=int(f[4]), ev=f[7], name=f[8],
                     ret=None if f[9] == "\\N" else int(f[9]),
                     dur=None if f[10] == "\\N" else int(f[10]),
                     detail=None if f[11] == "\\N" else f[11]))
t0 = {}
for r in rows:
    if r["ev"] == "start":
        t0[r["ctr"]] = min(t0.get(r["ctr"], r["ts"]), r["ts"])

# sched rows' details (docs/tsv-format.md): the field unescaped, key=value
# with LEN:BYTES strings, each comm escaped again as the TSV would
def tsv_unescape(s):
    b, out, i = s.encode("utf-8"), bytearray(), 0
    esc = {ord("\\"): 0x5c, ord("t"): 9, ord("n"): 10, ord("r"): 13}
    while i < len(b):
        if b[i] == 0x5c and i + 1 < len(b) and b[i + 1] in esc:
            out.append(esc[b[i + 1]]); i += 2
        elif b[i] == 0x5c and b[i + 1:i + 2] == b"x":
            out.append(int(b[i + 2:i + 4], 16)); i += 4
        else:
            out.append(b[i]); i += 1
    return bytes(out)
def tsv_escape(b):
    out, i = [], 0
    while i < len(b):
        c = b[i]
        if 0x20 <= c < 0x7f and c != 0x5c:
            out.append(chr(c)); i += 1; continue
        if c in (0x5c, 9, 10, 13):
            out.append({0x5c: "\\\\", 9: "\\t", 10: "\\n", 13: "\\r"}[c]); i += 1; continue
        for k in (2, 3, 4):
            try:
                out.append(b[i:i + k].decode("utf-8")); i += k; break
            except UnicodeDecodeError:
                pass
        else:
            out.append("\\x%02x" % c); i += 1
    return "".join(out)
def sched_detail(s):	# a malformed detail is no detail: the wake unknown
    raw, d, i = tsv_unescape(s), {}, 0
    while i < len(raw):
        if raw[i] == 0x20:
            i += 1; continue
        eq = raw.find(b"=", i)
        if eq < 0:
            return {}
        key, j = raw[i:eq].decode(), eq + 1
        if key in d:
            return {}
        m = re.match(rb"(\d+):", raw[j:])
        if m:
            j += len(m.group(0)); d[key] = raw[j:j + int(m.group(1))]; i = j + int(m.group(1))
            if i > len(raw) or raw[i:i + 1] not in (b"", b" "):
                return {}
        else:
            sp = raw.find(b" ", j); sp = len(raw) if sp < 0 else sp
            d[key] = raw[j:sp].decode(); i = sp
            if not (key == "wake" and d[key] in WAKES or key != "wake" and re.fullmatch(r"-?\d+", d[key])):
                return {}
    return d
WAKES = ("task", "irq", "softirq", "new", "none", "unknown")
def peer(d, key, ckey):
    v = int(d.get(key, 0))
    return (v, tsv_escape(d[ckey]) if v and ckey in d else None) if v else (None, None)
want = collections.Counter()
for r in rows:
    if r["ev"] in ("end",) or r["ctr"] not in t0:
        continue
    rel = r["ts"] - t0[r["ctr"]]
    if r["ev"] == "syscall":
        want[("X", r["ctr"], r["tid"], r["name"], rel, r["dur"] or 0, r["ret"], r["detail"])] += 1
    elif r["ev"] == "exec":
        want[("exec", r["ctr"], r["tid"], rel, r["detail"])] += 1
    elif r["ev"] in ("fork", "exit"):
        want[(r["ev"], r["ctr"], r["tid"], rel)] += 1
    elif r["ev"] == "mark":
        want[("mark", r["ctr"], r["tid"], rel, r["name"])] += 1
    elif r["ev"] == "start":
        want[("start", r["ctr"], rel, "start (%s)" % r["name"])] += 1
    elif r["ev"] == "sched" and r["dur"] is not None:
        # blocked from leaving the CPU to the wake, runnable from the wake back
        run = r["ret"] if r["ret"] is not None and r["ret"] >= 0 else None
        if run is not None:
            wake = rel + r["dur"] - min(run, r["dur"])
        else:
            wake = rel if r["name"] == "R" else rel + r["dur"]
        sd = sched_detail(r["detail"] or "")
        wk = sd.get("wake", "unknown")
        st = r["name"] if r["name"] in ("R", "S", "D", "T") else "?"
        # wake=unknown (objects that cannot tell): the task current at the wake (cur=), named "current"
        src = ("cur", "ccomm") if sd.get("wake") == "unknown" else ("waker", "wcomm")
        w = ("current" if wk == "unknown" else "waker",) + peer(sd, *src)
        if wake > rel:
            want[("S", r["ctr"], r["tid"], "blocked (D)" if st == "D" else "blocked (S)", rel, wake - rel,
                  st, wk, w, (None, None))] += 1
        if rel + r["dur"] > wake:
            want[("S", r["ctr"], r["tid"], "runnable", wake, rel + r["dur"] - wake,
                  st, wk, w, peer(sd, "holder", "hcomm"))] += 1
# phases, per DESIGN.md §4 (no --exec): the first exec, the first
# successful listen's completion, the first of each mark label
phase = {}
for r in rows:
    c = r["ctr"]
    if c not in t0:
        continue
    v = None
    if r["ev"] == "exec":
        k, v = "exec", r["ts"]
    elif r["ev"] == "syscall" and r["name"] == "listen" and r["ret"] == 0:
        k, v = "listen", r["ts"] + (r["dur"] or 0)
    elif r["ev"] == "mark":
        k, v = r["name"], r["ts"]
    if v is not None and ((c, k) not in phase or v < phase[(c, k)]):
        phase[(c, k)] = v
for (c, k), v in phase.items():
    want[("phase", c, "start -> " + k, v - t0[c])] += 1

got = collections.Counter()
for e in evs:
    if e["ph"] == "M":
        continue
    c, rel = pname[e["pid"]], ns(e["ts"])
    tid = real.get((e["pid"], e["tid"]))
    cat, a = e["cat"], e.get("args", {})
    if cat == "syscall":
        got[("X", c, tid, e["name"], rel, ns(e["dur"]), a["ret"], a.get("detail"))] += 1
    elif cat == "exec":
        got[("exec", c, tid, rel, a["filename"])] += 1
    elif cat in ("fork", "exit"):
        got[(cat, c, tid, rel)] += 1
    elif cat == "mark":
        got[("mark", c, tid, rel, e["name"])] += 1
    elif cat == "start":
        got[("start", c, rel, e["name"])] += 1
    elif cat == "phase":
        if ns(e["ts"]) != 0:
            bad("phase slice not from 0")
        got[("phase", c, e["name"], ns(e["dur"]))] += 1
    elif cat == "sched" and not ("bind_id" in e and e["dur"] == 0):
        wkey = "current" if a["wake"] == "unknown" else "waker"
        got[("S", c, tid, e["name"], rel, ns(e["dur"]), a["state"], a["wake"],
             (wkey, a.get(wkey), a.get(wkey + "_comm")), (a.get("holder"), a.get("holder_comm")))] += 1

# flows (v2): each bind_id on two slices, the waker's 0-long "wakes TID
# COMM" (flow_out) and the wakee's slice that begins at that moment
# (flow_in); the critical path has a segment of the wakee there, woken by
# the waker's thread
ends = collections.defaultdict(list)
for e in evs:
    if "bind_id" in e:
        ends[e["bind_id"]].append(e)
path_at = {}
for e in evs:
    if e.get("cat") == "critical_path":
        path_at[(e["pid"], ns(e["ts"]))] = e
for fid, es in ends.items():
    outs = [e for e in es if e.get("flow_out")]
    ins = [e for e in es if e.get("flow_in")]
    if len(outs) != 1 or len(ins) != 1 or len(es) != 2:
        bad("flow %r: %d ends out, %d in" % (fid, len(outs), len(ins)))
        continue
    o, i = outs[0], ins[0]
    if o["dur"] != 0 or not o["name"].startswith("wakes %d " % real[(i["pid"], i["tid"])]):
        bad("flow %r: its start %r" % (fid, o))
    if i["ts"] != o["ts"] or i["pid"] != o["pid"] or i["name"] != "runnable":
        bad("flow %r: its end %r does not begin at the wake %s" % (fid, i, o["ts"]))
    if o["args"]["wakee_task"] != i["tid"]:
        bad("flow %r: wakee_task %r, the end is on %r" % (fid, o["args"]["wakee_task"], i["tid"]))
    seg = path_at.get((i["pid"], ns(i["ts"])))
    if not seg or seg["args"].get("woken_by_task") != o["tid"] or seg["args"].get("task") != i["tid"]:
        bad("flow %r: no path segment of %r woken by %r at %s" % (fid, i["tid"], o["tid"], i["ts"]))
if len(ends) != d["otherData"]["flows"]:
    bad("%d flows, otherData says %d" % (len(ends), d["otherData"]["flows"]))
clipped = d["otherData"]["clipped"]
if want_clipped != "any" and clipped != int(want_clipped):
    bad("clipped %d, want %s" % (clipped, want_clipped))
sched_clipped = d["otherData"]["sched_clipped"]
if want_sched_clipped != "any" and sched_clipped != int(want_sched_clipped):
    bad("sched_clipped %d, want %s" % (sched_clipped, want_sched_clipped))
# everything as in the TSV; a clipped slice's ts and dur are not, by design
same = lambda cnt: collections.Counter(
    {k: v for k, v in cnt.items() if not (k[0] == "X" and clipped or k[0] == "S" and sched_clipped)})
if same(got) != same(want):
    for k in list((same(want) - same(got)).items())[:5]:
        bad("in the TSV, not in the JSON: %r" % (k,))
    for k in list((same(got) - same(want)).items())[:5]:
        bad("in the JSON, not in the TSV: %r" % (k,))
# clipped or not, the counts per kind are the TSV's
kinds = lambda cnt: collections.Counter({k: sum(v for kk, v in cnt.items() if kk[0] == k)
                                         for k in ("X", "exec", "fork", "exit", "mark", "start", "phase", "S")})
if kinds(got) != kinds(want):
    bad("counts per kind: JSON %r, TSV %r" % (dict(kinds(got)), dict(kinds(want))))
if errors:
    raise SystemExit("\n".join(errors))
print("ok: %d events, %d syscall slices, %d off-CPU slices, %d flows, %d tracks, %d clipped, %d sched_clipped" %
      (len(evs), kinds(got)["X"], kinds(got)["S"], len(ends), len(tracks), clipped, sched_clipped))
PY
}

check samples/boot-small.tsv
ok "the sample"
"$OUTPUT/bench/gen-tsv" -n 20000 -c 30 -o "$TMP/gen.tsv" 2> /dev/null || fail "gen-tsv"
# (gen-tsv draws durations at random: most of its rows overlap the next
# one of their thread, which no real trace does)
check "$TMP/gen.tsv" any
ok "20000 generated rows, out of order across CPUs"

# Hostile strings in every text field, pid 0, tids past 32 bits, the same
# tid in two containers.
hdr() {
	printf '# boottrace-tsv 1\n# mode=pidtree\n'
	printf 'ts_ns\tcontainer\tcgroup_id\tpid\ttid\tppid\tcomm\tevent\tname\tret\tdur_ns\tdetail\n'
}
{
	hdr
	i=0
	for s in 'q"uote' 'back\\slash' 'tab\there' 'new\nline' 'ctl\x01\x1f\x7f' 'bad\xff\xc3(utf8' \
		'é ü 😀' '}]},{"ph":"X"' '</script>'; do
		i=$((i + 1)) b=$((i * 1000000000)) tid=$((i == 1 ? 0 : i == 2 ? 5000000000 : 7))
		printf '%d\t%s\t\\N\t%d\t%d\t0\t%s\tstart\tspawn\t\\N\t\\N\t%s\n' $b "$s" $tid $tid "$s" "$s"
		printf '%d\t%s\t\\N\t%d\t%d\t0\t%s\tfork\tprocess\t\\N\t\\N\t\\N\n' $((b + 1000)) "$s" $tid $tid "$s"
		printf '%d\t%s\t\\N\t%d\t%d\t0\t%s\texec\t\\N\t\\N\t\\N\t/bin/%s\n' $((b + 2000)) "$s" $tid $tid "$s" "$s"
		printf '%d\t%s\t\\N\t%d\t%d\t0\t%s\tsyscall\t%s\t-2\t1500\t%s\n' $((b + 3000)) "$s" $tid $tid "$s" "$s" "$s"
		printf '%d\t%s\t\\N\t%d\t%d\t0\t%s\tsyscall\tlisten\t0\t250\t%s\n' $((b + 6000)) "$s" $tid $tid "$s" "$s"
		printf '%d\t%s\t\\N\t%d\t%d\t0\t%s\tmark\t%s\t\\N\t\\N\t\\N\n' $((b + 7000)) "$s" $tid $tid "$s" "$s"
		printf '%d\t%s\t\\N\t%d\t%d\t0\t%s\tsyscall\texit_group\t\\N\t\\N\t\\N\n' $((b + 8000)) "$s" $tid $tid "$s"
		printf '%d\t%s\t\\N\t%d\t%d\t0\t%s\texit\t\\N\t1\t\\N\t\\N\n' $((b + 9000)) "$s" $tid $tid "$s"
	done
	printf '# lost=0 events=%d\n' $((8 * i))
} > "$TMP/hostile.tsv"
check "$TMP/hostile.tsv"
grep -qF '"name":"q\"uote"' "$TMP/out.json" && grep -qF '"name":"tab\\there"' "$TMP/out.json" &&
	grep -qF '"name":"bad\\xff\\xc3(utf8"' "$TMP/out.json" && grep -qF '"name":"é ü 😀"' "$TMP/out.json" ||
	fail "hostile names not as the TSV escaped them"
ok "hostile strings: valid JSON, each string as the TSV escaped it"

# Rows that overlap on one thread (equal ts, a row inside another, a row
# across another's end) start where the previous one ended: 3 clipped.
{
	hdr
	printf '1000000\tc\t\\N\t9\t9\t1\tsh\tstart\tspawn\t\\N\t\\N\t\\N\n'
	printf '1010000\tc\t\\N\t9\t9\t1\tsh\tsyscall\tread\t0\t5000\t\\N\n'
	printf '1010000\tc\t\\N\t9\t9\t1\tsh\tsyscall\twrite\t0\t1000\t\\N\n'
	printf '1012000\tc\t\\N\t9\t9\t1\tsh\tsyscall\tpoll\t0\t1000\t\\N\n'
	printf '1014000\tc\t\\N\t9\t9\t1\tsh\tsyscall\tclose\t0\t3000\t\\N\n'
	printf '1017000\tc\t\\N\t9\t9\t1\tsh\tsyscall\tclose\t0\t0\t\\N\n'
	printf '1017000\tc\t\\N\t9\t9\t1\tsh\tsyscall\tfstat\t0\t100\t\\N\n'
	printf '# lost=0 events=7\n'
} > "$TMP/overlap.tsv"
check "$TMP/overlap.tsv" 3
grep -qF '"ts":15.000,"dur":2.000,"name":"close"' "$TMP/out.json" || fail "the crossing row does not start at 15 us"
ok "overlapping rows on one thread: clipped to nest, counted"

# Scheduler rows (sched=on). app (10) waits on a futex from 3 ms; its
# thread (11) wakes it at 123 ms, and it gets a CPU 0.5 ms later: on 10's
# thread a slice "blocked (S)" inside the futex slice, then "runnable";
# the critical path follows the wake into 11, so a flow goes from a
# 0-long "wakes 10 app" slice on 11's thread to 10's runnable slice. 11
# is preempted 5 ms (runnable throughout, the holder a hostile comm) and
# waits 30 ms in D in a read woken by a task outside (hostile comm: quote,
# backslash, tab, a multi-byte character), and sleeps 2 ms woken where
# the object cannot tell by whom (wake=unknown: the task current then is
# named "current", not "waker"). Times from the container's start (1 ms),
# in us with three decimals.
{
	printf '# boottrace-tsv 1\n# mode=cgroup\n# sched=on\n'
	printf 'ts_ns\tcontainer\tcgroup_id\tpid\ttid\tppid\tcomm\tevent\tname\tret\tdur_ns\tdetail\n'
	printf '1000000\tc\t\\N\t10\t10\t1\truntc\tstart\tspawn\t\\N\t\\N\t\\N\n'
	printf '1050000\tc\t\\N\t10\t10\t1\tapp\texec\t\\N\t\\N\t\\N\t/usr/bin/app\n'
	printf '1100000\tc\t\\N\t10\t10\t1\tapp\tsyscall\tclone\t11\t1000000\t\\N\n'
	printf '2000000\tc\t\\N\t10\t11\t1\tapp\tfork\tthread\t\\N\t\\N\t\\N\n'
	printf '3000000\tc\t\\N\t10\t10\t1\tapp\tsyscall\tfutex\t0\t120600000\t\\N\n'
	printf '3010000\tc\t\\N\t10\t10\t1\tapp\tsched\tS\t500000\t120490000\t%s\n' \
		'wake=task waker=11 wpid=10 wcomm=6:worker holder=11 hcomm=6:worker cpu=0'
	printf '20000000\tc\t\\N\t10\t11\t1\tworker\tsched\tR\t5000000\t5000000\t%s\n' \
		'wake=none holder=99 hcomm=13:}]},{"ph":"X" cpu=1'
	printf '40000000\tc\t\\N\t10\t11\t1\tworker\tsyscall\tread\t4096\t30010000\t/data\n'
	printf '40005000\tc\t\\N\t10\t11\t1\tworker\tsched\tD\t1000000\t30000000\t%s\n' \
		'wake=task waker=777 wpid=777 wcomm=9:q"b\\s\txé holder=0 hcomm=9:swapper/1 cpu=1'
	printf '100000000\tc\t\\N\t10\t11\t1\tworker\tsched\tS\t10000\t2000000\t%s\n' \
		'wake=unknown cur=5 cpid=5 ccomm=3:k"w holder=0 hcomm=9:swapper/1 cpu=0'
	printf '123000000\tc\t\\N\t10\t11\t1\tworker\tsyscall\tfutex\t1\t10000\t\\N\n'
	printf '124000000\tc\t\\N\t10\t10\t1\tapp\tsyscall\tlisten\t0\t20000\t0.0.0.0:80\n'
	printf '# lost=0 events=12\n'
} > "$TMP/sched.tsv"
check "$TMP/sched.tsv"
j=$TMP/out.json
for want in \
	'"tid":3,"ts":2000.000,"dur":120600.000,"name":"futex","cat":"syscall"' \
	'"tid":3,"ts":2010.000,"dur":119990.000,"name":"blocked (S)","cat":"sched","args":{"state":"S","wake":"task","waker":11,"waker_comm":"worker"}}' \
	'"tid":3,"ts":122000.000,"dur":500.000,"name":"runnable","cat":"sched","args":{"state":"S","wake":"task","waker":11,"waker_comm":"worker","holder":11,"holder_comm":"worker"},"bind_id":1,"flow_in":true}' \
	'"tid":4,"ts":122000.000,"dur":0.000,"name":"wakes 10 app","cat":"sched","args":{"wakee_task":3,"wakee":10},"bind_id":1,"flow_out":true}' \
	'"tid":4,"ts":19000.000,"dur":5000.000,"name":"runnable","cat":"sched","args":{"state":"R","wake":"none","holder":99,"holder_comm":"}]},{\"ph\":\"X\""}}' \
	'"tid":4,"ts":39005.000,"dur":29000.000,"name":"blocked (D)","cat":"sched","args":{"state":"D","wake":"task","waker":777,"waker_comm":"q\"b\\\\s\\txé"}}' \
	'"tid":4,"ts":68005.000,"dur":1000.000,"name":"runnable","cat":"sched"' \
	'"tid":4,"ts":99000.000,"dur":1990.000,"name":"blocked (S)","cat":"sched","args":{"state":"S","wake":"unknown","current":5,"current_comm":"k\"w"}}' \
	'"tid":2,"ts":122000.000,"dur":500.000,"name":"syscall:futex","cat":"critical_path","args":{"task":3,"tid":10,"comm":"app","woken_by_task":4,"state":"runnable"}}'; do
	grep -qF "$want" "$j" || fail "sched: no $want"
done
grep -qF '"sched_clipped":0,"flows":1,' "$j" || fail "sched: not one flow, none clipped"
ok "scheduler rows: blocked and runnable slices nested in the syscalls, the wake-up a flow"

# An off-CPU interval that outlasts its syscall (rows no kernel writes: a
# task off CPU does not return from a syscall) ends with the syscall on
# the thread's track, and is counted.
{
	printf '# boottrace-tsv 1\n# mode=cgroup\n# sched=on\n'
	printf 'ts_ns\tcontainer\tcgroup_id\tpid\ttid\tppid\tcomm\tevent\tname\tret\tdur_ns\tdetail\n'
	printf '1000000\tc\t\\N\t9\t9\t1\tsh\tstart\tspawn\t\\N\t\\N\t\\N\n'
	printf '10000000\tc\t\\N\t9\t9\t1\tsh\tsyscall\tread\t0\t2000000\t\\N\n'
	printf '11000000\tc\t\\N\t9\t9\t1\tsh\tsched\tD\t0\t3000000\twake=irq cpu=0\n'
	printf '13000000\tc\t\\N\t9\t9\t1\tsh\tsyscall\twrite\t1\t500000\t\\N\n'
	printf '# lost=0 events=4\n'
} > "$TMP/sched-clip.tsv"
check "$TMP/sched-clip.tsv" 0 1
grep -qF '"ts":10000.000,"dur":1000.000,"name":"blocked (D)","cat":"sched"' "$TMP/out.json" ||
	fail "the interval past its syscall does not end with it"
ok "an off-CPU interval past its syscall's end: ended there, counted"

# Usage: trace-event goes with none of --hist, --by, --until, --compare
"$ANALYZE" --format trace-event --by syscall samples/boot-small.tsv > /dev/null 2>&1
[ $? -eq 2 ] || fail "--format trace-event --by syscall: not a usage error"
"$ANALYZE" --help | grep -q "trace-event" || fail "--help lacks trace-event"

# Three boots traced by the collector: threads, forks, execs, exits, and
# (sched rows on by default) the off-CPU slices, each against its row.
need_root
"$COLLECTOR" --runs 3 --until listen --name te -o "$TMP/real.tsv" -- "$OUTPUT/samples/webapp" 2> /dev/null ||
	fail "collector exited $?"
check "$TMP/real.tsv"
ok "3 boots by the collector"

# A shell that waits for its pipeline before it execs the server: its
# wait ends when a child exits, a wake-up by a task of the container on the
# critical path, so a flow from that child's thread (sleep or cat) to the
# shell's.
"$COLLECTOR" --runs 1 --until listen --name pipe -o "$TMP/pipe.tsv" -- \
	sh -c "sleep 0.05 | cat; exec $(realpath "$OUTPUT/samples/webapp")" 2> /dev/null || fail "collector exited $?"
check "$TMP/pipe.tsv"
python3 - "$TMP/out.json" <<'PY' || fail "no flow from the pipeline's child to the shell"
import json, sys
evs = json.load(open(sys.argv[1]))["traceEvents"]
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in evs if e["ph"] == "M" and e["name"] == "thread_name"}
src = [names[(e["pid"], e["tid"])] for e in evs if e.get("flow_out") and e["name"].endswith(" sh")]
sys.exit(not any(n.startswith(("sleep ", "cat ")) for n in src))
PY
ok "a shell woken by its pipeline: a flow from the child to the shell"
