/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spans_report: the printer of --by span: per container of the analysis'
 * timeline, its interpreter spans summed by kind and what (spans.h), by
 * self time (or total), the way `python -X importtime` lists one
 * process's imports; the self time split running, runnable, blocked (with
 * sched rows), and the file that asked for it (spans.h):
 *   text  per container, its top @top spans: self, total, count, running,
 *         runnable, blocked ("-" without sched rows), kind, what, and
 *         "(from FILE:LINE)";
 *   tsv   container kind what self_ns total_ns count depth running_ns
 *         runnable_ns blocked_ns from from_line (\N: not known), every span;
 *   json  "by_span": [{"container", "spans": [{"kind", "what", "self",
 *         "total", "count", "depth", "running", "runnable", "blocked",
 *         "from", "from_line"}]}] (null: not known), every span.
 * With --until PHASE, the spans that start before it, cut there
 * (containers that never reached it left out).
 */
#ifndef ANALYZE_SPANS_REPORT_H
#define ANALYZE_SPANS_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "analyze/boot/analysis.h"
#include "analyze/out/report.h"

/* The spans a text table lists when --top does not say. */
#define SPANS_TOP 20

/*
 * spans_print - --by span for @a (which must have a timeline) in @fmt
 * (json: the value of the "by_span" key only), @top rows per container
 * in text, by total time with @by_total (--sort total), else by self. 0,
 * or -1 when writing failed (errno) or out of memory.
 */
int spans_print(FILE *f, const struct analysis *a, enum report_format fmt, size_t top,
		bool by_total);

#endif /* ANALYZE_SPANS_REPORT_H */
