/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * otlp: --format otlp and --otlp-endpoint, each container's boot as an
 * OpenTelemetry trace in OTLP/JSON, as the specification's file exporter
 * writes it (opentelemetry-specification file-exporter.md): JSON lines, one
 * TracesData object a line, one line a boot (a container of the timeline
 * with a start row, in the timeline's order), so a boot's trace is whole in
 * one line and in one request.
 *
 * A line:
 *   {"resourceSpans":[{"resource":{"attributes":[...]},
 *     "scopeSpans":[{"scope":{"name":"boottrace","version":V},
 *       "spans":[...]}]}]}
 * with the container's resource attributes (boot/resource.h) and its spans:
 *   - span 0, "boot": the root, from the start row to the latest phase the
 *     container reached (its latest event when it reached none); attributes
 *     boottrace.start (how it was seen: spawn, mkdir, client, ...) and
 *     boottrace.lost (events lost in its file, when not 0);
 *   - one child of the root per phase reached, "start -> PHASE", from the
 *     start to the phase; attribute boottrace.phase;
 *   - the critical path to @cp_phase (critpath.h; default listen), one span
 *     per segment, children of that phase's span, which they tile exactly;
 *     named "syscall:NAME", "cpu", "runtime" or "unknown" (the segment's
 *     kind); attributes boottrace.segment.kind, thread.id, process.pid and
 *     thread.name (the task's tid, pid and comm then; none for runtime),
 *     boottrace.syscall.detail (a syscall's path or address), and with
 *     scheduler rows boottrace.state (running, runnable, blocked), and for
 *     blocked and runnable segments boottrace.wake, boottrace.by.tid and
 *     boottrace.by.comm (critpath.h: who woke it or held the CPU).
 * So a boot's span count is 1 + its phases reached + its path's segments.
 *
 * Encoding (the proto3 JSON mapping, as OTLP/JSON asks): field names in
 * lowerCamelCase, traceId/spanId as lowercase hex (not base64), kind as an
 * integer (1, SPAN_KIND_INTERNAL), 64-bit integers (times, intValue) as
 * decimal strings. Times are UNIX ns: a row's ts_ns plus its file's
 * `# realtime_offset_ns` (a file without one: ts_ns as is, monotonic).
 * Strings are unescaped from the TSV and written as JSON (report.h's
 * report_json_string: control bytes \u00XX, bytes that are not UTF-8
 * U+FFFD).
 *
 * Ids: a trace id is a 128-bit hash (FNV-1a, then the splitmix64
 * finalizer, two lanes) of the file's run id (`# run_id`; without one, its
 * host and start time), the container's name and its start row's ts_ns:
 * the same file gives the same ids on every run, and two boots of a run
 * never share one. A span id is the hash of its trace id and its index
 * (0 the root). Neither is ever all zeros, which OTLP reserves.
 */
#ifndef ANALYZE_OTLP_H
#define ANALYZE_OTLP_H

#include <stdint.h>
#include <stdio.h>

#include "analyze/boot/analysis.h"
#include "analyze/out/otlp_http.h"

struct otlp_opts {
	FILE *out;			/* the JSON lines, or NULL */
	const struct otlp_url *url;	/* POST each line there, or NULL */
	uint32_t cp_phase;		/* the critical path's phase, or UINT32_MAX: none */
};

/*
 * otlp_export - each boot of @a (a->tl must be set and finished) as one
 * line of OTLP/JSON on o->out and one POST to o->url. Messages on @err
 * ("analyze: ..."); *@sent gets the traces sent. Returns 0, or 1 when
 * writing, sending (the first request that failed: no more are tried) or
 * memory failed.
 */
int otlp_export(struct analysis *a, const struct otlp_opts *o, FILE *err, size_t *sent);

#endif /* ANALYZE_OTLP_H */
