// SPDX-License-Identifier: BSD-2-Clause
/* --profile: text, tsv, json and folded stacks (profile_report.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/out/failures_report.h"
#include "analyze/out/profile_report.h"
#include "analyze/read/dpkg.h"
#include "analyze/units.h"
#include "common/tsv.h"

/* The names printed are at most this long (raw bytes), escaped 4 times that. */
#define NAME_MAX_RAW 1024

size_t profile_folded_name(const char *s, size_t n, char *out)
{
	size_t m = tsv_escape(s, n, out), i;

	for (i = 0; i < m; i++)
		if (out[i] == ';')
			out[i] = ':';
	return m;
}

/* @s raw, TSV-escaped into @out (TSV_ESCAPED_MAX(NAME_MAX_RAW) + 1). */
static const char *esc(const char *s, char *out)
{
	size_t n = strlen(s);

	if (n > NAME_MAX_RAW)
		n = NAME_MAX_RAW;
	out[tsv_escape(s, n, out)] = '\0';
	return out;
}

static double pct(uint64_t x, uint64_t of)
{
	return of ? 100.0 * (double)x / (double)of : 0.0;
}

static unsigned hz(const struct prof_ctr *pc)
{
	return pc->period_ns ? (unsigned)((1000000000ull + pc->period_ns / 2) / pc->period_ns) : 0;
}

/* A count of samples as time: @n × the average period. */
static uint64_t ns_of(const struct prof_ctr *pc, uint64_t n)
{
	return pc->samples ? (uint64_t)((double)pc->cpu_ns * (double)n / (double)pc->samples) : 0;
}

static const char *file_name(const char *const *files, size_t nfiles, uint32_t file)
{
	return file < nfiles ? files[file] : "?";
}

static void text_table(FILE *f, const struct profile *p, const struct prof_ctr *pc, size_t top)
{
	char e1[TSV_ESCAPED_MAX(NAME_MAX_RAW) + 1], e2[TSV_ESCAPED_MAX(NAME_MAX_RAW) + 1];
	char b1[UNITS_BUFSZ], b2[UNITS_BUFSZ];
	size_t i;

	if (!pc->samples) {
		fprintf(f, p->offcpu ? "  no blocked time\n" : "  no samples\n");
		return;
	}
	fprintf(f, "  %10s %6s %10s %6s  %s  (%s)\n", "self", "self%", "total", "total%", "function",
		"module");
	for (i = 0; i < pc->nfns && i < top; i++) {
		const struct prof_count *c = &pc->fns[i];

		fprintf(f, "  %10s %5.1f%% %10s %5.1f%%  %s  (%s)\n",
			units_format((int64_t)ns_of(pc, c->self), b1), pct(c->self, pc->samples),
			units_format((int64_t)ns_of(pc, c->total), b2), pct(c->total, pc->samples),
			esc(profile_fn_name(p, c->fn), e1), esc(profile_fn_module(p, c->fn), e2));
	}
	if (pc->nfns > top)
		fprintf(f, "  (%zu more functions; --top N)\n", pc->nfns - top);
}

/* At most this many modules are listed under a container's table (the longest to load). */
#define MODULES_MAX 10
#define MODULE_PREFIX "<module> "

/*
 * The JS modules whose top level ran in @pc's window (node's `<module>
 * FILE` frames, collector/profile/v8.h), by total: each module's loading,
 * with the modules it required inside it.
 */
static void text_modules(FILE *f, const struct profile *p, const struct prof_ctr *pc)
{
	char e[TSV_ESCAPED_MAX(NAME_MAX_RAW) + 1], b[UNITS_BUFSZ];
	const struct prof_count *m[MODULES_MAX], *c;
	size_t n = 0, all = 0, i, j;

	for (i = 0; i < pc->nfns; i++) {
		c = &pc->fns[i];
		if (strncmp(profile_fn_name(p, c->fn), MODULE_PREFIX, sizeof(MODULE_PREFIX) - 1))
			continue;
		all++;
		for (j = n; j > 0 && m[j - 1]->total < c->total; j--)
			if (j < MODULES_MAX)
				m[j] = m[j - 1];
		if (j < MODULES_MAX) {
			m[j] = c;
			n += n < MODULES_MAX;
		}
	}
	if (!n)
		return;
	fprintf(f, "  modules loaded (a JS module's top level, the modules it required inside):\n");
	for (i = 0; i < n; i++)
		fprintf(f, "  %10s %5.1f%%  %s\n", units_format((int64_t)ns_of(pc, m[i]->total), b),
			pct(m[i]->total, pc->samples),
			esc(profile_fn_name(p, m[i]->fn) + sizeof(MODULE_PREFIX) - 1, e));
	if (all > n)
		fprintf(f, "  (%zu more modules)\n", all - n);
}

static void text_heading(FILE *f, const struct profile *p, const struct prof_ctr *pc,
			 const char *what, const char *phase)
{
	char b1[UNITS_BUFSZ], b2[UNITS_BUFSZ];

	if (p->offcpu) {
		fprintf(f, "%s\n  window start -> %s %s, blocked %s (off-CPU stacks, by blocked time)\n",
			what, phase, units_format((int64_t)(pc->t1 - pc->t0), b1),
			units_format((int64_t)pc->cpu_ns, b2));
		return;
	}
	fprintf(f, "%s\n  window start -> %s %s, %" PRIu64 " samples, CPU %s at %u Hz\n", what, phase,
		units_format((int64_t)(pc->t1 - pc->t0), b1), pc->samples,
		units_format((int64_t)pc->cpu_ns, b2), hz(pc));
}

/* At most this many unnamed modules are listed (the most sampled). */
#define UNNAMED_MAX 10

/*
 * The Debian packages of @p's first @n unnamed modules into @pkgs (each
 * malloc'd or NULL; the caller frees them). -1 out of memory.
 */
static int unnamed_packages(const struct profile *p, size_t n, char **pkgs)
{
	const char **paths = malloc((n ? n : 1) * sizeof(*paths));
	size_t i;
	int rc;

	if (!paths)
		return -1;
	for (i = 0; i < n; i++)
		paths[i] = profile_unnamed_path(p, p->unnamed[i].module);
	rc = dpkg_owners(DPKG_INFO_DIR, paths, n, pkgs);
	free(paths);
	return rc;
}

static const char *base_of(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/*
 * The closing lines of the text: the modules whose frames stayed unnamed
 * (over every window), their share of the samples, and the package that
 * would name them where dpkg's database says whose file it is.
 */
static int text_unnamed(FILE *f, const struct profile *p)
{
	char e[TSV_ESCAPED_MAX(NAME_MAX_RAW) + 1], e2[TSV_ESCAPED_MAX(NAME_MAX_RAW) + 1], dbg[300];
	size_t n = p->nunnamed < UNNAMED_MAX ? p->nunnamed : UNNAMED_MAX, i;
	char *pkgs[UNNAMED_MAX];

	if (!n || !p->all.samples)
		return 0;
	if (unnamed_packages(p, n, pkgs) < 0)
		return -1;
	fprintf(f, "\nunnamed code (no symbols: a -dbgsym package, --debug-dir or DEBUGINFOD_URLS "
		   "names it):\n");
	for (i = 0; i < n; i++) {
		fprintf(f, "  %s: %.1f%% of samples unnamed",
			esc(base_of(profile_unnamed_path(p, p->unnamed[i].module)), e),
			pct(p->unnamed[i].samples, p->all.samples));
		if (pkgs[i]) {
			dpkg_debug_package(pkgs[i], dbg, sizeof(dbg));
			fprintf(f, " (apt install %s)", esc(dbg, e2));
		}
		fputc('\n', f);
		free(pkgs[i]);
	}
	if (p->nunnamed > n)
		fprintf(f, "  (%zu more)\n", p->nunnamed - n);
	return 0;
}

static void print_text(FILE *f, const struct profile *p, const char *phase,
		       const char *const *files, size_t nfiles, size_t top)
{
	const struct timeline *tl = p->tl;
	char head[8192], b[UNITS_BUFSZ];
	size_t i;

	if (!p->any) {
		fprintf(f, p->offcpu ? "no off-CPU stacks (no sched row names one: collector "
				       "--offcpu-stacks on, the modern object)\n" :
				       "no samples (the input has no profile rows: collector --profile)\n");
		return;
	}
	for (i = 0; i < p->nctrs; i++) {
		const struct prof_ctr *pc = &p->ctrs[i];
		const struct tl_container *c = &tl->ctrs[pc->ctr];

		snprintf(head, sizeof(head), "%scontainer %s (%s)", i ? "\n" : "",
			 timeline_str(tl, c->name), file_name(files, nfiles, c->file));
		text_heading(f, p, pc, head, phase);
		text_table(f, p, pc, top);
		text_modules(f, p, pc);
	}
	if (p->nctrs > 1 && p->offcpu) {
		fprintf(f, "\nall %zu containers\n  windows start -> %s, blocked %s\n", p->nctrs,
			phase, units_format((int64_t)p->all.cpu_ns, b));
		text_table(f, p, &p->all, top);
	} else if (p->nctrs > 1) {
		fprintf(f, "\nall %zu containers\n  windows start -> %s, %" PRIu64
			" samples, CPU %s at %u Hz\n", p->nctrs, phase, p->all.samples,
			units_format((int64_t)p->all.cpu_ns, b), hz(&p->all));
		text_table(f, p, &p->all, top);
	}
	if (p->not_reached) {
		fprintf(f, "\n%zu container%s did not reach %s: left out (--until <phase>; "
			"end: to its last exit)\n", p->not_reached, p->not_reached == 1 ? "" : "s",
			phase);
		failures_list_unreached(f, tl, p->phase, 10);
	}
	if (!p->nctrs && !p->not_reached)
		fprintf(f, "no samples (no timed container)\n");
}

static void tsv_rows(FILE *f, const struct profile *p, const struct prof_ctr *pc,
		     const char *ctr, uint32_t file, size_t top)
{
	char e1[TSV_ESCAPED_MAX(NAME_MAX_RAW) + 1], e2[TSV_ESCAPED_MAX(NAME_MAX_RAW) + 1];
	size_t i;

	for (i = 0; i < pc->nfns && i < top; i++) {
		const struct prof_count *c = &pc->fns[i];

		fprintf(f, "%s\t%u\t%s\t%s\t%" PRIu64 "\t%" PRIu64 "\t%.2f\t%" PRIu64 "\t%" PRIu64
			"\t%.2f\n", ctr, file, esc(profile_fn_name(p, c->fn), e1),
			esc(profile_fn_module(p, c->fn), e2), c->self, ns_of(pc, c->self),
			pct(c->self, pc->samples), c->total, ns_of(pc, c->total),
			pct(c->total, pc->samples));
	}
}

static void print_tsv(FILE *f, const struct profile *p, size_t top)
{
	size_t i;

	fprintf(f, "container\tfile\tfunction\tmodule\tself_samples\tself_ns\tself_pct\t"
		"total_samples\ttotal_ns\ttotal_pct\n");
	for (i = 0; i < p->nctrs; i++) {
		const struct tl_container *c = &p->tl->ctrs[p->ctrs[i].ctr];

		tsv_rows(f, p, &p->ctrs[i], timeline_str(p->tl, c->name), c->file + 1, top);
	}
	if (p->nctrs > 1)
		tsv_rows(f, p, &p->all, TSV_NULL, 0, top);
}

static void json_raw(FILE *f, const char *s)
{
	char e[TSV_ESCAPED_MAX(NAME_MAX_RAW) + 1];

	esc(s, e);
	report_json_string(f, e, strlen(e));
}

static void json_ctr(FILE *f, const struct profile *p, const struct prof_ctr *pc, size_t top)
{
	size_t i;

	fprintf(f, "\"start_ns\": %" PRIu64 ", \"end_ns\": %" PRIu64 ", \"samples\": %" PRIu64
		", \"cpu_ns\": %" PRIu64 ", \"hz\": %u, \"functions\": [", pc->t0, pc->t1,
		pc->samples, pc->cpu_ns, hz(pc));
	for (i = 0; i < pc->nfns && i < top; i++) {
		const struct prof_count *c = &pc->fns[i];

		fprintf(f, "%s\n      {\"function\": ", i ? "," : "");
		json_raw(f, profile_fn_name(p, c->fn));
		fprintf(f, ", \"module\": ");
		json_raw(f, profile_fn_module(p, c->fn));
		fprintf(f, ", \"self_samples\": %" PRIu64 ", \"self_ns\": %" PRIu64
			", \"total_samples\": %" PRIu64 ", \"total_ns\": %" PRIu64 "}",
			c->self, ns_of(pc, c->self), c->total, ns_of(pc, c->total));
	}
	fprintf(f, "%s]}", i ? "\n    " : "");
}

/* "unnamed": the modules text_unnamed() lists, all of them. -1 out of memory. */
static int json_unnamed(FILE *f, const struct profile *p)
{
	char **pkgs = calloc(p->nunnamed ? p->nunnamed : 1, sizeof(*pkgs)), dbg[300];
	size_t i;

	if (!pkgs || unnamed_packages(p, p->nunnamed, pkgs) < 0) {
		free(pkgs);
		return -1;
	}
	fprintf(f, ", \"unnamed\": [");
	for (i = 0; i < p->nunnamed; i++) {
		const char *path = profile_unnamed_path(p, p->unnamed[i].module);

		fprintf(f, "%s\n  {\"module\": ", i ? "," : "");
		json_raw(f, base_of(path));
		fprintf(f, ", \"path\": ");
		json_raw(f, path);
		fprintf(f, ", \"samples\": %" PRIu64 ", \"package\": ", p->unnamed[i].samples);
		if (pkgs[i]) {
			json_raw(f, pkgs[i]);
			dpkg_debug_package(pkgs[i], dbg, sizeof(dbg));
			fprintf(f, ", \"debug_package\": ");
			json_raw(f, dbg);
		} else {
			fprintf(f, "null, \"debug_package\": null");
		}
		fprintf(f, "}");
		free(pkgs[i]);
	}
	fprintf(f, "%s]", p->nunnamed ? "\n" : "");
	free(pkgs);
	return 0;
}

static int print_json(FILE *f, const struct profile *p, const char *phase, size_t top)
{
	size_t i;

	fprintf(f, "{\"phase\": ");
	report_json_string(f, phase, strlen(phase));
	/* offcpu: "samples" are microseconds blocked, "cpu_ns" the blocked ns */
	fprintf(f, ", \"view\": \"%s\", \"samples\": %s, \"containers\": [",
		p->offcpu ? "offcpu" : "cpu", p->any ? "true" : "false");
	for (i = 0; i < p->nctrs; i++) {
		const struct tl_container *c = &p->tl->ctrs[p->ctrs[i].ctr];

		fprintf(f, "%s\n  {\"container\": ", i ? "," : "");
		report_json_string(f, timeline_str(p->tl, c->name), strlen(timeline_str(p->tl,
										       c->name)));
		fprintf(f, ", \"file\": %u, ", c->file + 1);
		json_ctr(f, p, &p->ctrs[i], top);
	}
	fprintf(f, "%s]", p->nctrs ? "\n" : "");
	if (p->nctrs > 1) {
		fprintf(f, ",\n \"all\": {");
		json_ctr(f, p, &p->all, top);
	}
	fprintf(f, ", \"not_reached\": %zu", p->not_reached);
	if (json_unnamed(f, p) < 0)
		return -1;
	fprintf(f, "}\n");
	return 0;
}

static void folded_part(FILE *f, const char *s, size_t n, char *buf)
{
	fwrite(buf, 1, profile_folded_name(s, n > NAME_MAX_RAW ? NAME_MAX_RAW : n, buf), f);
}

/* A folded line's text (without its count), its samples, its first index. */
struct fline {
	char *s;
	size_t len;
	uint64_t count;
	size_t first;
};

static int cmp_text(const void *x, const void *y)
{
	const struct fline *a = x, *b = y;
	int c = memcmp(a->s, b->s, a->len < b->len ? a->len : b->len);

	if (c)
		return c;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

static int cmp_first(const void *x, const void *y)
{
	const struct fline *a = x, *b = y;

	return a->first < b->first ? -1 : a->first > b->first;
}

/*
 * Folded entry @fo's text, "comm;span;...;root;...;leaf" (the interpreter
 * spans its samples were in, outermost first, above the native frames),
 * into @l. -1 out of memory.
 */
static int folded_text(const struct profile *p, const struct prof_folded *fo, char *buf,
		       char *raw, struct fline *l)
{
	const struct prof_stack *s = profile_stack(p, fo->stack);
	const char *comm = timeline_str(p->tl, fo->comm);
	long n = tsv_unescape(comm, strlen(comm), raw);
	const struct tl_span *spans[PROFILE_SPANS_MAX];
	size_t k, ns = profile_folded_spans(fo, spans);
	FILE *m = open_memstream(&l->s, &l->len);

	if (!m)
		return -1;
	folded_part(m, raw, n < 0 ? 0 : (size_t)n, buf);
	for (k = 0; k < ns; k++) {
		putc(';', m);
		folded_part(m, raw, profile_span_name(p, spans[k], raw, TSV_MAX_LINE + 1), buf);
	}
	for (k = s->n; k-- > 0;) {
		const char *name = profile_fn_name(p, s->fns[k]);

		putc(';', m);
		folded_part(m, name, strlen(name), buf);
		if (profile_fn_kernel(p, s->fns[k]))
			fputs("_[k]", m);
	}
	if (fclose(m) != 0 || !l->s)
		return -1;
	return 0;
}

/*
 * One line per distinct text, in order of first appearance: two stacks
 * that differ only in frames named alike (the addresses of one function,
 * an inlined function at two lines of its caller), or in names alike once
 * escaped, truncated and ';' made ':', are one line, their counts summed.
 */
static int print_folded(FILE *f, const struct profile *p)
{
	char *buf = malloc(TSV_ESCAPED_MAX(NAME_MAX_RAW) + 1), *raw = malloc(TSV_MAX_LINE + 1);
	size_t n = p->all.nfolded, i, j;
	struct fline *l = calloc(n ? n : 1, sizeof(*l));
	int rc = -1;

	if (!buf || !raw || !l)
		goto out;
	for (i = 0; i < n; i++) {
		l[i].count = p->all.folded[i].count;
		l[i].first = i;
		if (folded_text(p, &p->all.folded[i], buf, raw, &l[i]) < 0)
			goto out;
	}
	qsort(l, n, sizeof(*l), cmp_text);
	for (i = 0, j = 0; i < n; i++) {	/* runs of one text into their first */
		if (j && l[j - 1].len == l[i].len && memcmp(l[j - 1].s, l[i].s, l[i].len) == 0) {
			l[j - 1].count += l[i].count;
			free(l[i].s);
			continue;
		}
		l[j++] = l[i];
	}
	n = j;
	qsort(l, n, sizeof(*l), cmp_first);
	for (i = 0; i < n; i++) {
		fwrite(l[i].s, 1, l[i].len, f);
		fprintf(f, " %" PRIu64 "\n", l[i].count);
	}
	rc = 0;
out:
	for (i = 0; l && i < n; i++)
		free(l[i].s);
	free(l);
	free(buf);
	free(raw);
	if (rc < 0)
		errno = ENOMEM;
	return rc;
}

int profile_print(FILE *f, const struct profile *p, const char *phase, const char *const *files,
		  size_t nfiles, enum report_format fmt, size_t top)
{
	switch (fmt) {
	case FMT_TSV:
		print_tsv(f, p, top);
		break;
	case FMT_JSON:
		if (print_json(f, p, phase, top) < 0)
			return -1;
		break;
	case FMT_FOLDED:
		if (print_folded(f, p) < 0)
			return -1;
		break;
	default:
		print_text(f, p, phase, files, nfiles, top);
		if (p->any && text_unnamed(f, p) < 0)
			return -1;
		break;
	}
	if (ferror(f)) {
		errno = errno ? errno : EIO;
		return -1;
	}
	return 0;
}
