// SPDX-License-Identifier: BSD-2-Clause
/* --plot's index.html: see html.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/out/critpath_report.h"
#include "analyze/boot/profile.h"
#include "analyze/out/html.h"
#include "analyze/out/plot.h"
#include "analyze/stats/stats.h"
#include "analyze/units.h"
#include "common/tsv.h"

int html_text(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, k;

	while (i < n) {
		unsigned char c = p[i];

		switch (c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		case '\n': putc('\n', f); break;	/* our own text's line ends */
		default:
			if (c < 0x20 || c == 0x7f) {
				fprintf(f, "&#x%02x;", c);
			} else if (c < 0x80) {
				putc(c, f);
			} else if ((k = tsv_utf8_seq_len(p + i, n - i))) {
				fwrite(p + i, 1, k, f);
				i += k;
				continue;
			} else {
				fputs("&#xfffd;", f);
			}
		}
		i++;
	}
	return ferror(f) ? -1 : 0;
}

static void text(FILE *f, const char *s)
{
	html_text(f, s, strlen(s));
}

static const char style[] =
	"body{font-family:sans-serif;margin:1.5em auto;max-width:1250px;padding:0 1em;"
	"color:#222}\n"
	"h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}\n"
	"table{border-collapse:collapse}th,td{padding:.25em .7em;border-bottom:1px solid #e4e4e4}\n"
	"th{text-align:left;background:#f3f3f3}td.n{text-align:right;"
	"font-variant-numeric:tabular-nums}\n"
	"pre{background:#f7f7f7;padding:.6em;overflow-x:auto;font-size:.85em}\n"
	"figure{margin:1.2em 0}img{max-width:100%;border:1px solid #ddd}\n"
	"figcaption{color:#555;font-size:.9em}.note{color:#555}\n";

static void head(FILE *f, const struct analysis *a)
{
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		/* defence in depth: no script runs even if some string slipped */
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		"img-src 'self' file:; style-src 'unsafe-inline'\">\n"
		"<title>boottrace: boot report, %zu container%s</title>\n<style>\n%s</style>\n"
		"</head>\n<body>\n<h1>Boot report: %zu container%s</h1>\n",
		a->ncontainers, a->ncontainers == 1 ? "" : "s", style, a->ncontainers,
		a->ncontainers == 1 ? "" : "s");
	fprintf(f, "<p class=\"note\">%llu rows from %u file%s", (unsigned long long)a->rows,
		a->nfiles, a->nfiles == 1 ? "" : "s");
	if (a->lost)
		fprintf(f, "; <strong>the collector lost %llu events</strong>",
			(unsigned long long)a->lost);
	if (a->skipped)
		fprintf(f, "; %llu malformed rows skipped", (unsigned long long)a->skipped);
	fprintf(f, ". Times are from each container's start (its start row), "
		"CLOCK_MONOTONIC, in ns rounded for display.</p>\n");
}

static void phase_table(FILE *f, const struct analysis *a)
{
	size_t i;

	fprintf(f, "<h2>Phases</h2>\n");
	if (!a->ncontainers) {
		fprintf(f, "<p>No containers.</p>\n");
		return;
	}
	fprintf(f, "<table>\n<tr><th>phase</th><th>count</th><th>never reached</th>"
		"<th>min</th><th>avg</th><th>max</th><th>p50</th><th>p90</th><th>p99</th></tr>\n");
	for (i = 0; i < analysis_nphases(a); i++) {
		struct stats st;
		char b[6][UNITS_BUFSZ];

		stats_compute(a->phases[i].v, a->phases[i].n, &st);
		fprintf(f, "<tr><td>");
		text(f, analysis_phase_name(a, i));
		fprintf(f, "</td><td class=\"n\">%zu</td><td class=\"n\">%zu</td>", st.count,
			a->ncontainers - st.count);
		if (!st.count) {
			fprintf(f, "<td class=\"n\">-</td><td class=\"n\">-</td><td class=\"n\">-</td>"
				"<td class=\"n\">-</td><td class=\"n\">-</td><td class=\"n\">-</td>"
				"</tr>\n");
			continue;
		}
		fprintf(f, "<td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
			"<td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td></tr>\n",
			units_format(st.min, b[0]), units_format(st.avg, b[1]),
			units_format(st.max, b[2]), units_format(st.p50, b[3]),
			units_format(st.p90, b[4]), units_format(st.p99, b[5]));
	}
	fprintf(f, "</table>\n<p class=\"note\">Nearest-rank percentiles: the p-th is the "
		"smallest value v with at least p%% of the values &le; v.</p>\n");
}

/*
 * The critical-path summary: --critical-path's text (critpath_report.h) to
 * listen, or to exec when no container listened, when the analysis has a
 * timeline. Its summary across containers first, the path of each
 * container folded under <details> (HTML's own disclosure: no script).
 * With --plot alone the timeline holds the charted containers only
 * (main.c reads the file twice to keep memory low): the heading says so.
 * Without a timeline, or when no container reached the phase, a line says
 * so.
 */
static void html_critical_path(FILE *f, const struct analysis *a, FILE *err, int *failed)
{
	uint32_t phase = a->phases[PHASE_LISTEN].n ? PHASE_LISTEN : PHASE_EXEC;
	char *paths = NULL, *top = NULL;
	size_t plen = 0, tlen = 0;
	FILE *m, *t;
	int bad;

	fprintf(f, "<h2>Critical path to ");
	text(f, analysis_phase_name(a, phase));
	fprintf(f, "</h2>\n");
	if (!a->tl || !a->phases[phase].n) {
		fprintf(f, "<p class=\"note\">%s.</p>\n", a->tl ? "No container reached it" :
			"Not computed (no timeline)");
		return;
	}
	if (a->opts.tl_keep)
		fprintf(f, "<p class=\"note\">Of the containers in the boot charts only "
			"(<code>analyze --plot DIR --critical-path</code>: of every container).</p>\n");
	m = open_memstream(&paths, &plen);
	t = open_memstream(&top, &tlen);
	bad = !m || !t || critpath_print2(m, t, a, phase, FMT_TEXT, NULL, 0) < 0;
	if (m && fclose(m) != 0)
		bad = 1;
	if (t && fclose(t) != 0)
		bad = 1;
	if (bad) {
		fprintf(err, "analyze: critical path for index.html: %s\n", strerror(errno));
		*failed = 1;
	} else {
		/* the summary first (without its leading blank line), then each path */
		fprintf(f, "<pre>");
		text(f, top + (top[0] == '\n'));
		fprintf(f, "</pre>\n");
		if (plen) {
			fprintf(f, "<details><summary>the path of each container</summary>\n<pre>");
			html_text(f, paths, plen);
			fprintf(f, "</pre></details>\n");
		}
	}
	free(paths);
	free(top);
}

/* Figures in reading order: overview first, details after. */
static int fig_rank(const char *base)
{
	static const char *const order[] = { "timeline", "bootchart", "cdf", "hist-", "syscalls" };
	size_t i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (strncmp(base, order[i], strlen(order[i])) == 0)
			return (int)i;
	return (int)i;
}

static void caption(FILE *f, const struct analysis *a, const char *base)
{
	unsigned long k;
	char *end;

	if (strcmp(base, "timeline") == 0) {
		fprintf(f, "Boot timeline: a bar per container, start to exec to listen, marks as dots");
	} else if (strcmp(base, "bootchart") == 0) {
		fprintf(f, "Boot chart of the container with the median time to listen: its "
			"tasks over time, the critical path on top");
	} else if (strncmp(base, "bootchart-", 10) == 0) {
		fprintf(f, "Boot chart %s (--plot-container)", base + 10);
	} else if (strcmp(base, "cdf") == 0) {
		fprintf(f, "Cumulative distribution of each phase across containers");
	} else if (strcmp(base, "hist-exec") == 0 || strcmp(base, "hist-listen") == 0) {
		fprintf(f, "Histogram of phase %s (bins from the data)", base + 5);
	} else if (strncmp(base, "hist-mark-", 10) == 0 &&
		   (k = strtoul(base + 10, &end, 10), !*end) && k < analysis_nphases(a)) {
		fprintf(f, "Histogram of phase ");
		text(f, analysis_phase_name(a, k));
		fprintf(f, " (bins from the data)");
	} else if (strcmp(base, "syscalls") == 0) {
		fprintf(f, "Time in syscalls by syscall, all containers (log scale)");
	} else {
		text(f, base);
	}
}

static void figures(FILE *f, const struct analysis *a, char *const *scripts, size_t n)
{
	int r, rmax = fig_rank("");
	size_t i;

	fprintf(f, "<h2>Plots</h2>\n");
	for (r = 0; r <= rmax; r++)
		for (i = 0; i < n; i++) {
			char base[64];
			size_t len = strlen(scripts[i]);

			if (len < 4 || len - 3 >= sizeof(base) || strcmp(scripts[i] + len - 3, ".gp"))
				continue;
			memcpy(base, scripts[i], len - 3);
			base[len - 3] = '\0';
			if (fig_rank(base) != r)
				continue;
			/* file names are analyze's own (plot.c), still escaped */
			fprintf(f, "<figure><img src=\"");
			text(f, base);
			fprintf(f, ".png\" alt=\"");
			text(f, base);
			fprintf(f, ".png\"><figcaption>");
			caption(f, a, base);
			fprintf(f, " (<code>");
			text(f, base);
			fprintf(f, ".png</code>)</figcaption></figure>\n");
		}
}

/* The flame graphs' links, captioned with their containers' names. */
static void flames(FILE *f, const struct profile *prof, size_t n)
{
	const char *pre = prof && prof->offcpu ? "offcpu-" : "";
	size_t i;

	if (!n)
		return;
	fprintf(f, "<h2>%s</h2>\n<ul>\n", *pre ? "Off-CPU profiles (where the tasks waited)" :
		"Profiles");
	for (i = 0; i < n; i++) {
		fprintf(f, "<li><a href=\"%sflame-%zu.svg\">%sflame-%zu.svg</a>: ", pre, i + 1, pre,
			i + 1);
		text(f, timeline_str(prof->tl, prof->tl->ctrs[prof->ctrs[i].ctr].name));
		fprintf(f, "</li>\n");
	}
	fprintf(f, "</ul>\n");
}

void html_write(struct plot *p, const struct analysis *a, char *const *scripts, size_t n,
		const struct profile *prof, size_t nflames, const struct profile *offcpu,
		size_t noff)
{
	FILE *f = plot_file(p, "index.html");
	int failed = 0;

	if (!f)
		return;
	head(f, a);
	phase_table(f, a);
	html_critical_path(f, a, plot_err(p), &failed);
	figures(f, a, scripts, n);
	flames(f, prof, nflames);
	flames(f, offcpu, noff);
	fprintf(f, "<p class=\"note\">Generated by analyze (boottrace) %s. "
		"No script; the images are the PNG files beside this page.</p>\n"
		"</body>\n</html>\n", BOOTTRACE_VERSION);
	plot_file_done(p, f, "index.html");
	if (failed)
		plot_failed(p);
}
