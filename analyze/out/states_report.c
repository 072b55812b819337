// SPDX-License-Identifier: BSD-2-Clause
/* The printer of --by state: see states_report.h. */
#include <inttypes.h>
#include <string.h>

#include "analyze/boot/states.h"
#include "analyze/out/states_report.h"
#include "analyze/units.h"

/* Container @c's window; false when it has none (not timed, or not reached). */
static bool window_of(const struct analysis *a, const struct tl_container *c, uint64_t *lo,
		      uint64_t *hi)
{
	size_t i;

	*lo = c->t_start;
	*hi = 0;
	if (a->win.on) {
		*hi = timeline_phase(c, a->win.phase);
		return *lo != TL_NONE && *hi != TL_NONE && *hi > *lo;
	}
	for (i = 0; i < c->ntasks; i++) {
		const struct tl_task *t = &c->tasks[i];
		uint64_t end = t->exit_ts != TL_NONE && t->exit_ts > t->end ? t->exit_ts : t->end;

		if (t->begin < *lo)
			*lo = t->begin;
		if (end > *hi)
			*hi = end;
	}
	return c->ntasks && *hi > *lo;
}

static double pct(uint64_t part, uint64_t total)
{
	return total ? (double)part * 100.0 / (double)total : 0.0;
}

int states_print(FILE *f, const struct analysis *a, enum report_format fmt)
{
	const struct timeline *tl = a->tl;
	size_t i, n = 0;
	int k;

	if (fmt == FMT_TSV)
		fprintf(f, "container\trunning\trunnable\tblocked\tblocked_d\tunknown\twindow\ttasks\n");
	else if (fmt == FMT_TEXT)
		fprintf(f, "time by scheduler state, %s, summed over every thread (not wall time):\n"
			"%-24s %17s %17s %17s %17s %17s %9s %5s\n",
			a->win.on ? "within each boot's window" : "from each container's start to its end",
			"container", "running", "runnable", "blocked", "blocked(D)", "unknown", "window",
			"tasks");
	else
		fprintf(f, "[");
	for (i = 0; i < tl->nctrs; i++) {
		const struct tl_container *c = &tl->ctrs[i];
		struct state_times st;
		uint64_t lo, hi, sum = 0;
		char b[UNITS_BUFSZ];

		if (c->is_host || !window_of(a, c, &lo, &hi))
			continue;
		states_of(c, lo, hi, &st);
		for (k = 0; k < ST_N; k++)
			sum += st.t[k];
		if (fmt == FMT_TSV) {
			fprintf(f, "%s", timeline_str(tl, c->name));
			for (k = 0; k < ST_N; k++)
				fprintf(f, "\t%" PRIu64, st.t[k]);
			fprintf(f, "\t%" PRIu64 "\t%zu\n", hi - lo, st.tasks);
		} else if (fmt == FMT_TEXT) {
			fprintf(f, "%-24s", timeline_str(tl, c->name));
			for (k = 0; k < ST_N; k++)
				fprintf(f, " %9s %6.1f%%", units_format((int64_t)st.t[k], b),
					pct(st.t[k], sum));
			fprintf(f, " %9s %5zu\n", units_format((int64_t)(hi - lo), b), st.tasks);
		} else {
			fprintf(f, "%s\n    {\"container\": ", n ? "," : "");
			report_json_string(f, timeline_str(tl, c->name), strlen(timeline_str(tl, c->name)));
			for (k = 0; k < ST_N; k++)
				fprintf(f, ", \"%s\": %" PRIu64, k == ST_BLOCKED_D ? "blocked_d" :
					states_name((enum st_kind)k), st.t[k]);
			fprintf(f, ", \"window\": %" PRIu64 ", \"tasks\": %zu}", hi - lo, st.tasks);
		}
		n++;
	}
	if (fmt == FMT_JSON)
		fprintf(f, "%s]", n ? "\n  " : "");
	else if (fmt == FMT_TEXT && !n)
		fprintf(f, "(no container with a window)\n");
	return ferror(f) ? -1 : 0;
}
