// SPDX-License-Identifier: BSD-2-Clause
/* The printer of --by span: see spans_report.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/boot/spans.h"
#include "analyze/out/spans_report.h"
#include "analyze/units.h"

/* A text column of self time in state @k, or "-" without sched rows. */
static const char *state_col(const struct span_stat *v, enum span_state k, char *buf)
{
	if (!v->states)
		return "-";
	return units_format((int64_t)v->st[k], buf);
}

/* One container's table; @n is how many containers came before (json's comma). */
static void print_one(FILE *f, const struct timeline *tl, const struct tl_container *c,
		      const struct span_stat *v, size_t nv, enum report_format fmt, size_t top,
		      size_t n)
{
	const char *name = timeline_str(tl, c->name);
	char b1[UNITS_BUFSZ], b2[UNITS_BUFSZ], b3[UNITS_BUFSZ], b4[UNITS_BUFSZ], b5[UNITS_BUFSZ];
	size_t i, k;

	if (fmt == FMT_TEXT)
		fprintf(f, "%s%s: %zu spans\n%10s %10s %6s %10s %10s %10s  %-8s %s\n", n ? "\n" : "",
			name, nv, "self", "total", "count", "running", "runnable", "blocked", "kind",
			"what");
	else if (fmt == FMT_JSON) {
		fprintf(f, "%s\n    {\"container\": ", n ? "," : "");
		report_json_string(f, name, strlen(name));
		fprintf(f, ", \"spans\": [");
	}
	for (i = 0; i < nv; i++) {
		const char *kind = timeline_str(tl, v[i].kind), *what = timeline_str(tl, v[i].what);
		const char *from = v[i].from == TL_NOSTR ? NULL : timeline_str(tl, v[i].from);

		if (fmt == FMT_TSV) {
			fprintf(f, "%s\t%s\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%u", name, kind,
				what, v[i].self, v[i].total, v[i].count, v[i].depth);
			for (k = 0; k < SPAN_NSTATES; k++)
				if (v[i].states)
					fprintf(f, "\t%" PRIu64, v[i].st[k]);
				else
					fprintf(f, "\t\\N");
			fprintf(f, "\t%s\t", from ? from : "\\N");
			if (from && v[i].from_line)
				fprintf(f, "%u\n", v[i].from_line);
			else
				fprintf(f, "\\N\n");
		} else if (fmt == FMT_TEXT) {
			if (i == top) {
				fprintf(f, "%10s (%zu more: --top, or --format tsv)\n", "", nv - top);
				break;
			}
			fprintf(f, "%10s %10s %6" PRIu64 " %10s %10s %10s  %-8s %s",
				units_format((int64_t)v[i].self, b1), units_format((int64_t)v[i].total, b2),
				v[i].count, state_col(&v[i], SPAN_RUNNING, b3),
				state_col(&v[i], SPAN_RUNNABLE, b4), state_col(&v[i], SPAN_BLOCKED, b5),
				kind, what);
			/* the file that asked for it, whole: a path may be long */
			if (from && v[i].from_line)
				fprintf(f, " (from %s:%u)", from, v[i].from_line);
			else if (from)
				fprintf(f, " (from %s)", from);
			fprintf(f, "\n");
		} else {
			fprintf(f, "%s\n      {\"kind\": ", i ? "," : "");
			report_json_string(f, kind, strlen(kind));
			fprintf(f, ", \"what\": ");
			report_json_string(f, what, strlen(what));
			fprintf(f, ", \"self\": %" PRIu64 ", \"total\": %" PRIu64 ", \"count\": %" PRIu64
				", \"depth\": %u", v[i].self, v[i].total, v[i].count, v[i].depth);
			if (v[i].states)
				fprintf(f, ", \"running\": %" PRIu64 ", \"runnable\": %" PRIu64
					", \"blocked\": %" PRIu64, v[i].st[SPAN_RUNNING],
					v[i].st[SPAN_RUNNABLE], v[i].st[SPAN_BLOCKED]);
			else
				fprintf(f, ", \"running\": null, \"runnable\": null, \"blocked\": null");
			fprintf(f, ", \"from\": ");
			if (from)
				report_json_string(f, from, strlen(from));
			else
				fprintf(f, "null");
			if (from && v[i].from_line)
				fprintf(f, ", \"from_line\": %u}", v[i].from_line);
			else
				fprintf(f, ", \"from_line\": null}");
		}
	}
	if (fmt == FMT_JSON)
		fprintf(f, "%s]}", nv ? "\n    " : "");
}

int spans_print(FILE *f, const struct analysis *a, enum report_format fmt, size_t top,
		bool by_total)
{
	const struct timeline *tl = a->tl;
	size_t i, n = 0, nv;

	if (fmt == FMT_TSV)
		fprintf(f, "container\tkind\twhat\tself_ns\ttotal_ns\tcount\tdepth\trunning_ns\t"
			"runnable_ns\tblocked_ns\tfrom\tfrom_line\n");
	else if (fmt == FMT_TEXT)
		fprintf(f, "interpreter spans by %s time (summed over processes and threads; self "
			"time running, runnable, blocked%s):\n", by_total ? "total" : "self",
			a->win.on ? "; within each boot's window" : "");
	else
		fprintf(f, "[");
	for (i = 0; i < tl->nctrs; i++) {
		const struct tl_container *c = &tl->ctrs[i];
		uint64_t hi = a->win.on ? timeline_phase(c, a->win.phase) : TL_NONE;
		struct span_stat *v;

		if (c->is_host || !c->has_spans || (a->win.on && hi == TL_NONE))
			continue;
		if (spans_of(tl, c, 0, hi, &v, &nv) < 0) {
			errno = ENOMEM;
			return -1;
		}
		if (by_total)
			spans_sort_total(v, nv);
		print_one(f, tl, c, v, nv, fmt, top, n++);
		free(v);
	}
	if (fmt == FMT_JSON)
		fprintf(f, "%s]", n ? "\n  " : "");
	else if (fmt == FMT_TEXT && !n)
		fprintf(f, "(no container with span rows: collector --spans on, an interpreter with "
			"USDT probes)\n");
	return ferror(f) ? -1 : 0;
}
