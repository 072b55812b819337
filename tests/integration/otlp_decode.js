// SPDX-License-Identifier: BSD-2-Clause
// otlp_decode.js ROOT_JS FILE: decode analyze --format otlp's lines with
// OpenTelemetry's own OTLP definitions (@opentelemetry/otlp-transformer's
// generated protobufjs root, opentelemetry-proto's messages) and print one
// line per trace: "CONTAINER<TAB>SPANS<TAB>TRACE_ID", CONTAINER
// (boottrace.container) as a JSON string. Exit 1 on the first
// line that does not decode, or whose content is not one well-formed trace.
//
// Each line is an ExportTraceServiceRequest (TracesData's JSON is the
// same) in OTLP/JSON: ids in hex, which OTLP/JSON asks for instead of
// proto3 JSON's base64, are turned into bytes first; then the message
// is built (fromObject), verified, turned back into an object and
// compared with the line: a field with a wrong name or type, which
// fromObject would drop or change, makes them differ. Then it is encoded
// as protobuf and decoded again, and the spans are read from that.
'use strict';
const fs = require('fs');
const assert = require('assert');

const root = require(process.argv[2]);
const Req = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
const lines = fs.readFileSync(process.argv[3], 'utf8').split('\n');
if (lines.pop() !== '')
	fail(lines.length, 'the last line has no newline');

function fail(n, msg) {
	console.error(`otlp_decode: line ${n}: ${msg}`);
	process.exit(1);
}

function hexToB64(n, hex, bytes) {
	if (typeof hex !== 'string' || !new RegExp(`^[0-9a-f]{${2 * bytes}}$`).test(hex))
		fail(n, `id ${JSON.stringify(hex)} is not ${bytes} bytes of lowercase hex`);
	if (/^0+$/.test(hex))
		fail(n, 'an all-zero id');
	return Buffer.from(hex, 'hex').toString('base64');
}

const seen = new Set();
lines.forEach((line, i) => {
	const n = i + 1;
	let obj;
	try {
		obj = JSON.parse(line);
	} catch (e) {
		fail(n, `not JSON: ${e.message}`);
	}
	for (const rs of obj.resourceSpans || [])
		for (const ss of rs.scopeSpans || [])
			for (const s of ss.spans || []) {
				s.traceId = hexToB64(n, s.traceId, 16);
				s.spanId = hexToB64(n, s.spanId, 8);
				if ('parentSpanId' in s)
					s.parentSpanId = hexToB64(n, s.parentSpanId, 8);
			}
	let msg;
	try {
		msg = Req.fromObject(obj);
	} catch (e) {
		fail(n, `not an ExportTraceServiceRequest: ${e.message}`);
	}
	const err = Req.verify(msg);
	if (err)
		fail(n, `does not verify: ${err}`);
	const back = Req.toObject(msg, { longs: String, enums: Number, bytes: String });
	try {
		assert.deepStrictEqual(back, obj);
	} catch (e) {
		fail(n, `fields lost or changed by the OTLP definitions:\n${e.message}`);
	}
	const dec = Req.decode(Req.encode(msg).finish());
	if (dec.resourceSpans.length !== 1 || dec.resourceSpans[0].scopeSpans.length !== 1)
		fail(n, 'not one resource and one scope');
	const rs = dec.resourceSpans[0];
	const spans = rs.scopeSpans[0].spans;
	const hex = (b) => Buffer.from(b).toString('hex');
	const traces = new Set(spans.map((s) => hex(s.traceId)));
	if (traces.size !== 1)
		fail(n, `${traces.size} trace ids in one boot`);
	const tid = [...traces][0];
	if (seen.has(tid))
		fail(n, `trace id ${tid} of another line`);
	seen.add(tid);
	const ids = new Map(spans.map((s) => [hex(s.spanId), s]));
	if (ids.size !== spans.length)
		fail(n, 'two spans with one id');
	const roots = spans.filter((s) => !s.parentSpanId || s.parentSpanId.length === 0);
	if (roots.length !== 1 || roots[0].name !== 'boot')
		fail(n, `${roots.length} root spans`);
	for (const s of spans) {
		if (s.parentSpanId && s.parentSpanId.length) {
			const p = ids.get(hex(s.parentSpanId));
			if (!p)
				fail(n, `span ${s.name}: no parent`);
			// a child lies within its parent
			if (BigInt(s.startTimeUnixNano) < BigInt(p.startTimeUnixNano) ||
			    BigInt(s.endTimeUnixNano) > BigInt(p.endTimeUnixNano))
				fail(n, `span ${s.name} outside its parent ${p.name}`);
		}
		if (s.kind !== 1)
			fail(n, `span ${s.name}: kind ${s.kind}`);
	}
	const attr = (k) => rs.resource.attributes.find((a) => a.key === k);
	const name = attr('boottrace.container');
	if (!name || !attr('service.name'))
		fail(n, 'no boottrace.container or service.name');
	console.log(`${JSON.stringify(name.value.stringValue)}\t${spans.length}\t${tid}`);
});
