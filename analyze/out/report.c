// SPDX-License-Identifier: BSD-2-Clause
/* Printers: see report.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/out/critpath_report.h"
#include "analyze/out/report.h"
#include "analyze/out/pods_report.h"
#include "analyze/out/states_report.h"
#include "analyze/out/spans_report.h"
#include "analyze/out/trace_event.h"
#include "analyze/stats/stats.h"
#include "analyze/units.h"
#include "common/end_detail.h"

#define MAX_NAME_WIDTH 40
/* The containers that never reached a phase the table names, each with its end; more are counted */
#define MAX_MISSED_LISTED 10

static const char *by_name(enum by_kind by)
{
	switch (by) {
	case BY_SYSCALL: return "syscall";
	case BY_CONTAINER: return "container";
	case BY_COMM: return "comm";
	case BY_STATE: return "state";
	case BY_POD: return "pod";
	case BY_IMAGE: return "image";
	case BY_NAMESPACE: return "namespace";
	case BY_SPAN: return "span";
	default: return "";
	}
}

int report_name_width(const struct analysis *a, int w)
{
	size_t i;

	for (i = 0; i < analysis_nphases(a); i++) {
		int n = (int)strlen(analysis_phase_name(a, i));

		if (n > w)
			w = n;
	}
	return w > MAX_NAME_WIDTH ? MAX_NAME_WIDTH : w;
}

static void phase_stats(const struct analysis *a, size_t i, struct stats *st)
{
	stats_compute(a->phases[i].v, a->phases[i].n, st);
}

static int done(FILE *f)
{
	return ferror(f) ? -1 : 0;
}

/* Whether timed container @c reached phase @phase. */
static bool reached(const struct analysis *a, const struct ctr_result *c, size_t phase)
{
	size_t k;

	for (k = c->first; k < c->first + c->n; k++)
		if (a->cphases[k].phase == phase)
			return true;
	return false;
}

/* How container @c ended, in words, into @buf (64 bytes). */
static const char *ended_text(const struct ctr_result *c, char *buf, size_t n)
{
	char how[40], life[UNITS_BUFSZ];

	if (c->life < 0)
		snprintf(buf, n, "no end row: still running when the trace ended");
	else
		snprintf(buf, n, "%s after %s", end_how_text(c->how, how, sizeof(how)),
			 units_format(c->life, life));
	return buf;
}

/* The containers that never reached phase @i, named with how they ended (text). */
static void list_missed(FILE *f, const struct analysis *a, size_t i)
{
	size_t k, listed = 0, more = 0;
	char buf[96];

	for (k = 0; k < a->nctrs; k++) {
		const struct ctr_result *c = &a->ctrs[k];

		if (reached(a, c, i))
			continue;
		if (listed == MAX_MISSED_LISTED) {
			more++;
			continue;
		}
		listed++;
		fprintf(f, "  %s: %s\n", strtab_str(a->ctr_names, c->name, NULL),
			ended_text(c, buf, sizeof(buf)));
	}
	if (more)
		fprintf(f, "  and %zu more (analyze --failures)\n", more);
}

static void json_str(FILE *f, const char *s);

/*
 * "never_reached": the containers that never reached phase @i (the first
 * MAX_MISSED_LISTED), each with how it ended: "end" exit|signal|unknown|
 * running, "status" or "signal", "lifetime_ns".
 */
static void json_missed(FILE *f, const struct analysis *a, size_t i)
{
	size_t k, listed = 0;
	char sig[16];

	fprintf(f, ", \"never_reached\": [");
	for (k = 0; k < a->nctrs && listed < MAX_MISSED_LISTED; k++) {
		const struct ctr_result *c = &a->ctrs[k];

		if (reached(a, c, i))
			continue;
		fprintf(f, "%s{\"container\": ", listed++ ? ", " : "");
		json_str(f, strtab_str(a->ctr_names, c->name, NULL));
		if (c->life < 0)
			fprintf(f, ", \"end\": \"running\"}");
		else if (c->how >= END_SIGNAL)
			fprintf(f, ", \"end\": \"signal\", \"signal\": \"%s\", \"lifetime_ns\": %" PRId64 "}",
				end_signal_name(c->how - END_SIGNAL, sig), c->life);
		else if (c->how >= 0)
			fprintf(f, ", \"end\": \"exit\", \"status\": %d, \"lifetime_ns\": %" PRId64 "}",
				c->how, c->life);
		else
			fprintf(f, ", \"end\": \"unknown\", \"lifetime_ns\": %" PRId64 "}", c->life);
	}
	fprintf(f, "]");
}

int report_phases_text(FILE *f, const struct analysis *a)
{
	int w = report_name_width(a, 6);
	size_t i;

	if (!a->ncontainers) {
		fprintf(f, "no containers\n");
		return done(f);
	}
	fprintf(f, "%-*s %6s %9s %9s %9s %9s %9s %9s\n", w, "phase", "count",
		"min", "avg", "max", "p50", "p90", "p99");
	for (i = 0; i < analysis_nphases(a); i++) {
		struct stats st;
		char b[6][UNITS_BUFSZ];

		phase_stats(a, i, &st);
		if (!st.count) {
			fprintf(f, "%-*s %6zu %9s %9s %9s %9s %9s %9s\n", w,
				analysis_phase_name(a, i), st.count,
				"-", "-", "-", "-", "-", "-");
			continue;
		}
		fprintf(f, "%-*s %6zu %9s %9s %9s %9s %9s %9s\n", w,
			analysis_phase_name(a, i), st.count,
			units_format(st.min, b[0]), units_format(st.avg, b[1]),
			units_format(st.max, b[2]), units_format(st.p50, b[3]),
			units_format(st.p90, b[4]), units_format(st.p99, b[5]));
	}
	for (i = 0; i < analysis_nphases(a); i++) {
		size_t missing = a->ncontainers - a->phases[i].n;

		if (!missing)
			continue;
		fprintf(f, "%s: %zu of %zu container%s never reached it:\n",
			analysis_phase_name(a, i), missing, a->ncontainers,
			a->ncontainers == 1 ? "" : "s");
		list_missed(f, a, i);
	}
	return done(f);
}

int report_phases_tsv(FILE *f, const struct analysis *a)
{
	size_t i;

	fprintf(f, "phase\tcount\tmin\tavg\tmax\tp50\tp90\tp99\n");
	for (i = 0; i < analysis_nphases(a); i++) {
		struct stats st;

		phase_stats(a, i, &st);
		if (!st.count) {
			fprintf(f, "%s\t0\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\n",
				analysis_phase_name(a, i));
			continue;
		}
		fprintf(f, "%s\t%zu\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64
			"\t%" PRId64 "\t%" PRId64 "\n", analysis_phase_name(a, i),
			st.count, st.min, st.avg, st.max, st.p50, st.p90, st.p99);
	}
	return done(f);
}

static int build(const struct analysis *a, size_t i, const struct report_opts *o,
		 struct hist_bucket **b, size_t *nb)
{
	return hist_build(a->phases[i].v, a->phases[i].n, o->hist_kind,
			  o->hist_step, b, nb);
}

static int hist_text(FILE *f, const struct analysis *a, const struct report_opts *o)
{
	size_t i, nb;

	for (i = 0; i < analysis_nphases(a); i++) {
		struct hist_bucket *b;

		if (!a->phases[i].n)
			continue;
		if (build(a, i, o, &b, &nb) < 0)
			return -1;
		fprintf(f, "\n@%s (ns):\n", analysis_phase_name(a, i));
		if (hist_print(f, b, nb) < 0) {
			free(b);
			return -1;
		}
		free(b);
	}
	return done(f);
}

static int hist_tsv(FILE *f, const struct analysis *a, const struct report_opts *o)
{
	size_t i, k, nb;

	fprintf(f, "phase\tlo\thi\tcount\n");
	for (i = 0; i < analysis_nphases(a); i++) {
		struct hist_bucket *b;

		if (build(a, i, o, &b, &nb) < 0)
			return -1;
		for (k = 0; k < nb; k++) {
			if (b[k].lo == INT64_MIN)
				fprintf(f, "%s\t\\N\t0\t%" PRIu64 "\n",
					analysis_phase_name(a, i), b[k].count);
			else
				fprintf(f, "%s\t%" PRId64 "\t%" PRId64 "\t%" PRIu64 "\n",
					analysis_phase_name(a, i), b[k].lo, b[k].hi, b[k].count);
		}
		free(b);
	}
	return done(f);
}

static const struct group_table *by_table(const struct analysis *a, enum by_kind by)
{
	return by == BY_SYSCALL ? &a->sys : &a->by;
}

static unsigned __int128 grand_total(const struct group_ref *r, size_t n)
{
	unsigned __int128 t = 0;
	size_t i;

	for (i = 0; i < n; i++)
		t += r[i].g->total;
	return t;
}

static double pct(unsigned __int128 part, unsigned __int128 total)
{
	return total ? (double)part * 100.0 / (double)total : 0.0;
}

static uint64_t group_avg(const struct group *g)
{
	return g->timed ? (uint64_t)((g->total + g->timed / 2) / g->timed) : 0;
}

static int64_t clamp64(unsigned __int128 v)
{
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

/*
 * What --by's total is, in words: over which time, and that it sums the
 * threads (so it is neither wall time nor boot time). @total: the table's.
 */
static void window_note(FILE *f, const struct analysis *a, unsigned __int128 total)
{
	const struct boot_window *w = &a->win;
	char b[2][UNITS_BUFSZ];

	if (!w->on) {
		fprintf(f, "syscall time over the whole trace, summed over every thread of every "
			"process: not wall time (--until PHASE: each boot's [start, PHASE] only)\n");
		return;
	}
	fprintf(f, "boot windows: start -> %s of %zu container%s, %s of wall time in all",
		analysis_phase_name(a, w->phase), w->containers, w->containers == 1 ? "" : "s",
		units_format((int64_t)w->wall, b[0]));
	if (w->not_reached)
		fprintf(f, " (%zu that never reached it left out)", w->not_reached);
	fprintf(f, ";\nsyscall time %s summed over every thread of every process (%.2fx the wall "
		"time; threads that run at once can make it more than 1x); %%time is of that sum\n",
		units_format(clamp64(total), b[1]), w->wall ? (double)total / (double)w->wall : 0.0);
}

static int by_print(FILE *f, const struct analysis *a, enum by_kind by,
		    enum report_format fmt)
{
	struct group_ref *r;
	size_t n = analysis_groups(by_table(a, by), &r), i;
	unsigned __int128 total;
	int w = (int)strlen(by_name(by));

	if (n == (size_t)-1) {
		errno = ENOMEM;
		return -1;
	}
	total = grand_total(r, n);
	for (i = 0; i < n; i++) {
		int k = (int)strlen(r[i].key);

		if (k > w)
			w = k;
	}
	if (w > MAX_NAME_WIDTH)
		w = MAX_NAME_WIDTH;
	if (fmt == FMT_TEXT)
		window_note(f, a, total);
	if (fmt == FMT_TSV)
		fprintf(f, "%s\tcalls\terrors\ttotal\tpct_time\tavg\tp99\tmax\n", by_name(by));
	else if (n)
		fprintf(f, "%-*s %9s %7s %9s %7s %9s %9s %9s\n", w, by_name(by),
			"calls", "errors", "total", "%time", "avg", "p99", "max");
	else
		fprintf(f, "no syscall rows\n");
	for (i = 0; i < n; i++) {
		const struct group *g = r[i].g;
		char b[4][UNITS_BUFSZ];

		if (fmt == FMT_TSV) {
			fprintf(f, "%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRId64 "\t%.2f\t",
				r[i].key, g->calls, g->errors, clamp64(g->total),
				pct(g->total, total));
			if (g->timed)
				fprintf(f, "%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
					group_avg(g), group_percentile(g, 99), g->max);
			else
				fprintf(f, "\\N\t\\N\t\\N\n");
			continue;
		}
		if (!g->timed) {
			fprintf(f, "%-*s %9" PRIu64 " %7" PRIu64 " %9s %6.2f%% %9s %9s %9s\n",
				w, r[i].key, g->calls, g->errors, "-", 0.0, "-", "-", "-");
			continue;
		}
		fprintf(f, "%-*s %9" PRIu64 " %7" PRIu64 " %9s %6.2f%% %9s %9s %9s\n",
			w, r[i].key, g->calls, g->errors,
			units_format(clamp64(g->total), b[0]), pct(g->total, total),
			units_format((int64_t)group_avg(g), b[1]),
			units_format((int64_t)group_percentile(g, 99), b[2]),
			units_format((int64_t)g->max, b[3]));
	}
	free(r);
	return done(f);
}

int report_json_string(FILE *f, const char *s, size_t n)
{
	char *u = malloc(n + 1);
	long m = u ? tsv_unescape(s, n, u) : -1;
	size_t i = 0;

	if (m < 0) { /* cannot happen for validated input: keep it escaped */
		free(u);
		u = NULL;
	}
	const unsigned char *p = u ? (unsigned char *)u : (const unsigned char *)s;
	size_t len = u ? (size_t)m : n;

	putc('"', f);
	while (i < len) {
		unsigned char c = p[i];
		size_t k;

		if (c == '"' || c == '\\') {
			fprintf(f, "\\%c", c);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			i++;
		} else if (c < 0x80) {
			putc(c, f);
			i++;
		} else if ((k = tsv_utf8_seq_len(p + i, len - i))) {
			fwrite(p + i, 1, k, f);
			i += k;
		} else {
			fputs("\\ufffd", f); /* a byte that is not UTF-8 */
			i++;
		}
	}
	putc('"', f);
	free(u);
	return done(f);
}

static void json_str(FILE *f, const char *s)
{
	report_json_string(f, s, strlen(s));
}

static int json_print(FILE *f, const struct analysis *a, const struct report_opts *o)
{
	size_t i, k, nb;

	fprintf(f, "{\n  \"containers\": %zu,\n  \"rows\": %" PRIu64
		",\n  \"skipped\": %" PRIu64 ",\n  \"lost\": %" PRIu64
		",\n  \"orphan_rows\": %" PRIu64 ",\n  \"phases\": [",
		a->ncontainers, a->rows, a->skipped, a->lost, a->orphan_rows);
	for (i = 0; i < analysis_nphases(a); i++) {
		struct stats st;

		phase_stats(a, i, &st);
		fprintf(f, "%s\n    {\"phase\": ", i ? "," : "");
		json_str(f, analysis_phase_name(a, i));
		fprintf(f, ", \"count\": %zu, \"missing\": %zu", st.count,
			a->ncontainers - st.count);
		json_missed(f, a, i);
		if (st.count)
			fprintf(f, ", \"min\": %" PRId64 ", \"avg\": %" PRId64 ", \"max\": %"
				PRId64 ", \"p50\": %" PRId64 ", \"p90\": %" PRId64
				", \"p99\": %" PRId64, st.min, st.avg, st.max, st.p50,
				st.p90, st.p99);
		else
			fprintf(f, ", \"min\": null, \"avg\": null, \"max\": null, "
				"\"p50\": null, \"p90\": null, \"p99\": null");
		if (o->hist) {
			struct hist_bucket *b;

			if (build(a, i, o, &b, &nb) < 0)
				return -1;
			fprintf(f, ", \"hist\": [");
			for (k = 0; k < nb; k++) {
				if (b[k].lo == INT64_MIN)
					fprintf(f, "%s{\"lo\": null, \"hi\": 0", k ? ", " : "");
				else
					fprintf(f, "%s{\"lo\": %" PRId64 ", \"hi\": %" PRId64,
						k ? ", " : "", b[k].lo, b[k].hi);
				fprintf(f, ", \"count\": %" PRIu64 "}", b[k].count);
			}
			fprintf(f, "]");
			free(b);
		}
		fprintf(f, "}");
	}
	fprintf(f, "\n  ]");
	if (o->by == BY_STATE) {
		fprintf(f, ",\n  \"by_state\": ");
		if (states_print(f, a, FMT_JSON) < 0)
			return -1;
	} else if (o->by == BY_SPAN) {
		fprintf(f, ",\n  \"by_span\": ");
		if (spans_print(f, a, FMT_JSON, 0, o->sort_total) < 0)
			return -1;
	} else if (BY_META(o->by)) {
		fprintf(f, ",\n  \"by_%s\": ", by_name(o->by));
		if (pods_print(f, a, o->by, FMT_JSON) < 0)
			return -1;
	} else if (o->by != BY_NONE) {
		struct group_ref *r;
		size_t n = analysis_groups(by_table(a, o->by), &r);
		unsigned __int128 total;

		if (n == (size_t)-1) {
			errno = ENOMEM;
			return -1;
		}
		total = grand_total(r, n);
		fprintf(f, ",\n  \"by\": {\"key\": \"%s\", \"total\": %" PRId64 ", \"threads_summed\": true",
			by_name(o->by), clamp64(total));
		if (a->win.on) {
			fprintf(f, ", \"window\": {\"until\": ");
			json_str(f, analysis_phase_name(a, a->win.phase));
			fprintf(f, ", \"containers\": %zu, \"not_reached\": %zu, \"wall\": %" PRIu64
				", \"rows\": %" PRIu64 ", \"clipped\": %" PRIu64 "}", a->win.containers,
				a->win.not_reached, a->win.wall, a->win.rows, a->win.clipped);
		}
		fprintf(f, ", \"rows\": [");
		for (i = 0; i < n; i++) {
			const struct group *g = r[i].g;

			fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
			json_str(f, r[i].key);
			fprintf(f, ", \"calls\": %" PRIu64 ", \"errors\": %" PRIu64
				", \"total\": %" PRId64 ", \"pct_time\": %.2f",
				g->calls, g->errors, clamp64(g->total), pct(g->total, total));
			if (g->timed)
				fprintf(f, ", \"avg\": %" PRIu64 ", \"p99\": %" PRIu64
					", \"max\": %" PRIu64 "}", group_avg(g),
					group_percentile(g, 99), g->max);
			else
				fprintf(f, ", \"avg\": null, \"p99\": null, \"max\": null}");
		}
		fprintf(f, "\n  ]}");
		free(r);
	}
	if (o->critpath) {
		fprintf(f, ",\n  \"critical_path\": ");
		if (critpath_print(f, a, o->critpath_phase, FMT_JSON, o->profile, 0) < 0)
			return -1;
	}
	fprintf(f, "\n}\n");
	return done(f);
}

int report_print(FILE *f, const struct analysis *a, const struct report_opts *o)
{
	if (o->format == FMT_TRACE_EVENT)
		return trace_event_print(f, a, o->critpath ? o->critpath_phase : PHASE_LISTEN);
	if (o->format == FMT_JSON)
		return json_print(f, a, o);
	if (o->format == FMT_TSV) {
		if (o->critpath)
			return critpath_print(f, a, o->critpath_phase, FMT_TSV, o->profile, 0);
		if (o->by == BY_STATE)
			return states_print(f, a, FMT_TSV);
		if (o->by == BY_SPAN)
			return spans_print(f, a, FMT_TSV, 0, o->sort_total);
		if (BY_META(o->by))
			return pods_print(f, a, o->by, FMT_TSV) < 0 ? -1 : done(f);
		if (o->by != BY_NONE)
			return by_print(f, a, o->by, FMT_TSV);
		if (o->hist)
			return hist_tsv(f, a, o);
		return report_phases_tsv(f, a);
	}
	if (report_phases_text(f, a) < 0)
		return -1;
	if (o->hist && hist_text(f, a, o) < 0)
		return -1;
	if (o->by != BY_NONE) {
		fprintf(f, "\n");
		if ((o->by == BY_STATE ? states_print(f, a, FMT_TEXT) :
		     o->by == BY_SPAN ? spans_print(f, a, FMT_TEXT, o->top ? o->top : SPANS_TOP,
						  o->sort_total) :
		     BY_META(o->by) ? pods_print(f, a, o->by, FMT_TEXT) :
				      by_print(f, a, o->by, FMT_TEXT)) < 0)
			return -1;
	}
	if (o->critpath && critpath_print(f, a, o->critpath_phase, FMT_TEXT, o->profile,
				       o->width) < 0)
		return -1;
	return done(f);
}
