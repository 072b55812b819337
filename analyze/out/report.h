/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * report: printers of an analysis. Each takes a FILE * and returns 0, or -1
 * when writing failed (or, for histograms, when they cannot be built: errno
 * says why). Strings from the data are printed in their escaped TSV form in
 * text and TSV (so no control byte reaches a terminal), and unescaped as
 * JSON strings in JSON.
 */
#ifndef ANALYZE_REPORT_H
#define ANALYZE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "analyze/boot/analysis.h"
#include "analyze/stats/hist.h"

enum report_format { FMT_TEXT, FMT_TSV, FMT_JSON, FMT_TRACE_EVENT, FMT_FOLDED, FMT_OTLP, FMT_PPROF };

struct profile;

struct report_opts {
	enum report_format format;
	bool hist;
	enum hist_kind hist_kind;
	uint64_t hist_step;		/* linear */
	enum by_kind by;
	bool critpath;			/* --critical-path */
	uint32_t critpath_phase;	/* its phase id */
	struct profile *profile;	/* annotates the critical path's cpu segments, or NULL */
	size_t top;			/* --by span: rows of a text table (0: SPANS_TOP) */
	bool sort_total;		/* --by span --sort total: by total, not self time */
	size_t width;			/* the columns --critical-path's text fits (0: 120) */
};

/*
 * report_print - everything asked for in @o: text prints the phase table
 * (and who never reached a phase), then histograms, then the --by table,
 * then the critical paths; tsv prints one table (the critical path one, the
 * --by one, the histogram one or the phase one); json one object with all
 * of them; trace-event the timeline (trace_event.h), the critical path's
 * thread to o->critpath_phase (with o->critpath) or to listen.
 */
int report_print(FILE *f, const struct analysis *a, const struct report_opts *o);

/* report_phases_text / _tsv - the per-phase table alone. */
int report_phases_text(FILE *f, const struct analysis *a);
int report_phases_tsv(FILE *f, const struct analysis *a);

/*
 * report_name_width - the width of the phase column: the longest phase
 * name of @a, at least @w, at most 40.
 */
int report_name_width(const struct analysis *a, int w);

/* report_json_string - write @n escaped TSV bytes at @s as a JSON string. */
int report_json_string(FILE *f, const char *s, size_t n);

#endif /* ANALYZE_REPORT_H */
