/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spans_report: the printer of --by span: per container of the analysis'
 * timeline, its interpreter spans summed by kind and what (spans.h), by
 * self time, the way `python -X importtime` lists one process's imports:
 *   text  per container, its top @top spans: self, total, count, kind, what;
 *   tsv   container kind what self_ns total_ns count depth, every span;
 *   json  "by_span": [{"container", "spans": [{"kind", "what", "self",
 *         "total", "count", "depth"}]}], every span.
 * With --until PHASE, the spans that start before it, cut there
 * (containers that never reached it left out).
 */
#ifndef ANALYZE_SPANS_REPORT_H
#define ANALYZE_SPANS_REPORT_H

#include <stdio.h>

#include "analyze/boot/analysis.h"
#include "analyze/out/report.h"

/* The spans a text table lists when --top does not say. */
#define SPANS_TOP 20

/*
 * spans_print - --by span for @a (which must have a timeline) in @fmt
 * (json: the value of the "by_span" key only), @top rows per container
 * in text. 0, or -1 when writing failed (errno) or out of memory.
 */
int spans_print(FILE *f, const struct analysis *a, enum report_format fmt, size_t top);

#endif /* ANALYZE_SPANS_REPORT_H */
