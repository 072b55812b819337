#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# analyze --format otlp and --otlp-endpoint: the OTLP/JSON lines decode with
# OpenTelemetry's own definitions (npm's @opentelemetry/otlp-transformer,
# its generated opentelemetry-proto messages: otlp_decode.js), with one
# trace per boot, and each trace has exactly 1 + the phases the container
# reached (analyze's phase table of that container alone) + the segments of
# its critical path to listen (analyze --critical-path --format json)
# spans. Inputs: three boots of samples/webapp traced by the collector
# with --sched (segments with states), the sample, and the sample with a
# hostile container name. The ids are the same on a second run; a second
# boot has other ids. POSTed to a loopback receiver (Python's http.server)
# the requests go to /v1/traces as application/json, one per boot, and
# their bodies are the lines of the file byte for byte; a receiver that
# answers 500, a closed port and https:// are clear errors.
. "$(dirname "$0")/lib.sh"
need_root
have node "the OTLP decoding" || skip "node is not installed"
have npm "the OTLP decoding" || skip "npm is not installed"

# OpenTelemetry's JS OTLP encoder, with the generated proto definitions
# (later versions write protobuf by hand and carry no definitions): under
# $OUTPUT, fetched once
NODE_DIR=$OUTPUT/tests/otlp-node
ROOT_JS=$NODE_DIR/node_modules/@opentelemetry/otlp-transformer/build/src/generated/root.js
if [ ! -f "$ROOT_JS" ]; then
	mkdir -p "$NODE_DIR"
	npm install --prefix "$NODE_DIR" --no-audit --no-fund --no-save --ignore-scripts \
		@opentelemetry/otlp-transformer@0.52.1 > "$TMP/npm.log" 2>&1 || {
		[ "${CI:-}" != true ] || fail "npm install: $(tail -5 "$TMP/npm.log")"
		skip "npm cannot fetch @opentelemetry/otlp-transformer: $(tail -1 "$TMP/npm.log")"
	}
fi
[ -f "$ROOT_JS" ] || fail "no $ROOT_JS after npm install"
ROOT_JS=$(realpath "$ROOT_JS")

# The spans each boot must have, from analyze's other exports of the same
# analysis: 1 + its phase slices (--format trace-event) + its critical
# path's segments (--critical-path --format json). NAME<TAB>COUNT, in order.
expected() { # TSV
	"$ANALYZE" --critical-path --format json "$1" > "$TMP/cp.json" 2> /dev/null &&
		"$ANALYZE" --format trace-event "$1" > "$TMP/te.json" 2> /dev/null ||
		fail "analyze's tables of $1"
	python3 - "$TMP/cp.json" "$TMP/te.json" <<'PY'
import json, re, sys
def unescape(s):	# the TSV-escaped names of trace-event, as text
    esc = {"t": b"\t", "n": b"\n", "r": b"\r", "\\": b"\\"}
    b = re.sub(rb"\\(x[0-9a-f]{2}|.)", lambda m: bytes([int(m.group(1)[1:], 16)])
               if m.group(1)[:1] == b"x" else esc[m.group(1).decode()], s.encode())
    return b.decode("utf-8", "replace")
segs = {c["container"]: len(c["segments"])
        for c in json.load(open(sys.argv[1]))["critical_path"]["containers"]}
name, phases, timed = {}, {}, set()
for e in json.load(open(sys.argv[2]))["traceEvents"]:
    if e["ph"] == "M" and e["name"] == "process_name":
        name[e["pid"]] = unescape(e["args"]["name"])
        if e["args"]["time_zero"] == "its start row":
            timed.add(e["pid"])
    elif e["ph"] == "X" and e["cat"] == "phase":
        phases[e["pid"]] = phases.get(e["pid"], 0) + 1
for pid in sorted(timed):
    print("%s\t%d" % (json.dumps(name[pid], ensure_ascii=False), 1 + phases.get(pid, 0) + segs.get(name[pid], 0)))
PY
}

check() { # TSV: export, decode, compare the span counts
	local tsv=$1
	"$ANALYZE" --format otlp "$tsv" > "$TMP/out.jsonl" 2> "$TMP/err" ||
		fail "analyze --format otlp $tsv: exit $?: $(cat "$TMP/err")"
	node tests/integration/otlp_decode.js "$ROOT_JS" "$TMP/out.jsonl" > "$TMP/got" ||
		fail "$tsv: the OTLP output does not decode"
	expected "$tsv" > "$TMP/want" || fail "$tsv: analyze's tables"
	cut -f1,2 "$TMP/got" > "$TMP/got2"
	diff "$TMP/want" "$TMP/got2" > "$TMP/diff" ||
		fail "$tsv: span counts (want, got):$(cat "$TMP/diff")"
	"$ANALYZE" --format otlp "$tsv" 2> /dev/null | cmp -s - "$TMP/out.jsonl" ||
		fail "$tsv: a second run's output differs (ids must be deterministic)"
	ok "$tsv: $(wc -l < "$TMP/want") traces decode, one per boot, span counts $(cut -f2 "$TMP/want" | paste -sd' ')"
}

# 1. real boots, with scheduler states on the path
"$COLLECTOR" --sched on --runs 3 --until listen --name ot -o "$TMP/real.tsv" -- \
	"$OUTPUT/samples/webapp" 2> "$TMP/coll.err" || fail "collector: $(cat "$TMP/coll.err")"
check "$TMP/real.tsv"
grep -q '"key":"boottrace.state","value":{"stringValue":"running"}' "$TMP/out.jsonl" ||
	fail "no segment with state running in a --sched file"
[ "$(cut -f3 "$TMP/got" | sort -u | wc -l)" -eq 3 ] || fail "three boots, not three trace ids"
cp "$TMP/out.jsonl" "$TMP/real.jsonl"

# 2. the sample (five boots from a file with # host and # kernel)
check samples/boot-small.tsv
grep -q '"key":"host.name","value":{"stringValue":"ci-runner-3"}' "$TMP/out.jsonl" ||
	fail "no host.name from # host="

# 3. a hostile container name: quote, backslash, tab, control bytes, not UTF-8
# (TSV-escaped in the file: x"q\\tb\tc\x01\xff#2)
python3 - samples/boot-small.tsv > "$TMP/hostile.tsv" <<'PY'
import sys
sys.stdout.write(open(sys.argv[1]).read().replace("\tweb-1\t", "\t" + r'x"q\\tb\tc\x01\xff#2' + "\t"))
PY
grep -qF 'x"q\\tb' "$TMP/hostile.tsv" || fail "the hostile name was not written"
check "$TMP/hostile.tsv"

# 4. POST to a loopback receiver: the same bytes, one request per boot
cat > "$TMP/recv.py" <<'PY'
import http.server, sys
out, status = sys.argv[1], int(sys.argv[2])
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        with open(out, "ab") as f:
            f.write(b"%s %s\n" % (self.path.encode(), self.headers["Content-Type"].encode()))
            f.write(body + b"\n")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        msg = b"{}" if status == 200 else b'{"code":3,"message":"refused by test"}'
        self.send_header("Content-Length", str(len(msg)))
        self.end_headers()
        self.wfile.write(msg)
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
PY
recv() { # STATUS: a receiver answering STATUS; sets recv_pid, port
	rm -f "$TMP/posted" "$TMP/port"
	python3 "$TMP/recv.py" "$TMP/posted" "$1" > "$TMP/port" &
	recv_pid=$!
	cleanup_hooks+=("kill $recv_pid 2>/dev/null")
	for _ in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.05; done
	port=$(cat "$TMP/port")
	[ -n "$port" ] || fail "the receiver did not start"
}
recv 200
"$ANALYZE" --format otlp --otlp-endpoint "http://127.0.0.1:$port" "$TMP/real.tsv" \
	> "$TMP/posted.jsonl" 2> "$TMP/err" || fail "--otlp-endpoint: exit $?: $(cat "$TMP/err")"
grep -q "sent 3 traces to http://127.0.0.1:$port" "$TMP/err" || fail "no 'sent 3 traces': $(cat "$TMP/err")"
cmp -s "$TMP/posted.jsonl" "$TMP/real.jsonl" || fail "--otlp-endpoint changed the file output"
[ "$(grep -c '^/v1/traces application/json$' "$TMP/posted")" -eq 3 ] ||
	fail "not 3 requests to /v1/traces as application/json: $(grep -v '^{' "$TMP/posted")"
grep -v '^/v1/traces application/json$' "$TMP/posted" | cmp -s - "$TMP/real.jsonl" ||
	fail "the bodies POSTed are not the file's lines"
# alone it prints nothing; a path given is kept
"$ANALYZE" --otlp-endpoint "http://127.0.0.1:$port/otlp/v1/traces" "$TMP/real.tsv" \
	> "$TMP/stdout" 2> "$TMP/err" || fail "--otlp-endpoint alone: exit $?: $(cat "$TMP/err")"
[ ! -s "$TMP/stdout" ] || fail "--otlp-endpoint alone printed to stdout"
grep -q '^/otlp/v1/traces ' "$TMP/posted" || fail "the endpoint's own path was not used"
kill "$recv_pid"
wait "$recv_pid" 2> /dev/null
ok "POSTed to a loopback receiver: 3 requests to /v1/traces, the file's bytes"

# 5. failures: an error answer, a closed port, https
recv 500
"$ANALYZE" --otlp-endpoint "http://127.0.0.1:$port" "$TMP/real.tsv" 2> "$TMP/err"
rc=$?
[ $rc -eq 1 ] || fail "a 500 answer: exit $rc, not 1"
grep -q "analyze: --otlp-endpoint http://127.0.0.1:$port: HTTP/1.0 500 .*refused by test" "$TMP/err" ||
	fail "a 500 answer: $(cat "$TMP/err")"
[ "$(grep -c '^/v1/traces' "$TMP/posted")" -eq 1 ] || fail "sent more after a failure"
kill "$recv_pid"
wait "$recv_pid" 2> /dev/null
"$ANALYZE" --otlp-endpoint "http://127.0.0.1:$port" "$TMP/real.tsv" 2> "$TMP/err"
rc=$?
[ $rc -eq 1 ] && grep -q "cannot connect to 127.0.0.1 port $port: Connection refused" "$TMP/err" ||
	fail "a closed port: exit $rc: $(cat "$TMP/err")"
"$ANALYZE" --otlp-endpoint "https://127.0.0.1:4318" "$TMP/real.tsv" 2> "$TMP/err"
rc=$?
[ $rc -eq 2 ] && grep -q "https is not supported" "$TMP/err" ||
	fail "https: exit $rc: $(cat "$TMP/err")"
ok "a 500 answer, a closed port and https:// are clear errors"
