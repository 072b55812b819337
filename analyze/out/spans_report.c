// SPDX-License-Identifier: BSD-2-Clause
/* The printer of --by span: see spans_report.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/boot/spans.h"
#include "analyze/out/spans_report.h"
#include "analyze/units.h"

/* One container's table; @n is how many containers came before (json's comma). */
static void print_one(FILE *f, const struct timeline *tl, const struct tl_container *c,
		      const struct span_stat *v, size_t nv, enum report_format fmt, size_t top,
		      size_t n)
{
	const char *name = timeline_str(tl, c->name);
	char b1[UNITS_BUFSZ], b2[UNITS_BUFSZ];
	size_t i;

	if (fmt == FMT_TEXT)
		fprintf(f, "%s%s: %zu spans\n%10s %10s %6s  %-8s %s\n", n ? "\n" : "", name, nv,
			"self", "total", "count", "kind", "what");
	else if (fmt == FMT_JSON) {
		fprintf(f, "%s\n    {\"container\": ", n ? "," : "");
		report_json_string(f, name, strlen(name));
		fprintf(f, ", \"spans\": [");
	}
	for (i = 0; i < nv; i++) {
		const char *kind = timeline_str(tl, v[i].kind), *what = timeline_str(tl, v[i].what);

		if (fmt == FMT_TSV) {
			fprintf(f, "%s\t%s\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%u\n", name, kind,
				what, v[i].self, v[i].total, v[i].count, v[i].depth);
		} else if (fmt == FMT_TEXT) {
			if (i == top) {
				fprintf(f, "%10s (%zu more: --top, or --format tsv)\n", "", nv - top);
				break;
			}
			fprintf(f, "%10s %10s %6" PRIu64 "  %-8s %s\n",
				units_format((int64_t)v[i].self, b1), units_format((int64_t)v[i].total, b2),
				v[i].count, kind, what);
		} else {
			fprintf(f, "%s\n      {\"kind\": ", i ? "," : "");
			report_json_string(f, kind, strlen(kind));
			fprintf(f, ", \"what\": ");
			report_json_string(f, what, strlen(what));
			fprintf(f, ", \"self\": %" PRIu64 ", \"total\": %" PRIu64 ", \"count\": %" PRIu64
				", \"depth\": %u}", v[i].self, v[i].total, v[i].count, v[i].depth);
		}
	}
	if (fmt == FMT_JSON)
		fprintf(f, "%s]}", nv ? "\n    " : "");
}

int spans_print(FILE *f, const struct analysis *a, enum report_format fmt, size_t top)
{
	const struct timeline *tl = a->tl;
	size_t i, n = 0, nv;

	if (fmt == FMT_TSV)
		fprintf(f, "container\tkind\twhat\tself_ns\ttotal_ns\tcount\tdepth\n");
	else if (fmt == FMT_TEXT)
		fprintf(f, "interpreter spans by self time (summed over processes and threads%s):\n",
			a->win.on ? "; within each boot's window" : "");
	else
		fprintf(f, "[");
	for (i = 0; i < tl->nctrs; i++) {
		const struct tl_container *c = &tl->ctrs[i];
		uint64_t hi = a->win.on ? timeline_phase(c, a->win.phase) : TL_NONE;
		struct span_stat *v;

		if (c->is_host || !c->has_spans || (a->win.on && hi == TL_NONE))
			continue;
		if (spans_of(c, 0, hi, &v, &nv) < 0) {
			errno = ENOMEM;
			return -1;
		}
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
