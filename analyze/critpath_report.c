// SPDX-License-Identifier: BSD-2-Clause
/* Printers of --critical-path: see critpath_report.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/critpath.h"
#include "analyze/critpath_report.h"
#include "analyze/units.h"

#define BAR_WIDTH 40
#define DETAIL_MAX 600

/* An item of the summary: a what + detail, and its time on the paths. */
struct item {
	uint64_t total;
	size_t containers;
	size_t last_ctr;	/* the last container counted, + 1 */
};

struct summary {
	struct strtab *keys;
	struct item *it;
	size_t cap;
	uint64_t boot;		/* the phase's durations, summed */
	size_t paths;
};

static int done(FILE *f)
{
	return ferror(f) ? -1 : 0;
}

/* The task of segment @s, or NULL for the runtime's. */
static const struct tl_task *seg_task(const struct tl_container *c, const struct cp_seg *s)
{
	return s->task == TL_NOTASK ? NULL : &c->tasks[s->task];
}

static const char *seg_comm(const struct timeline *tl, const struct tl_container *c,
			    const struct cp_seg *s)
{
	const struct tl_task *t = seg_task(c, s);

	if (t)
		return timeline_str(tl, timeline_comm_at(t, s->ts));
	return c->nstarts ? timeline_str(tl, c->starts[0].comm) : "";
}

static void seg_ids(const struct tl_container *c, const struct cp_seg *s, int64_t *pid,
		    int64_t *tid)
{
	const struct tl_task *t = seg_task(c, s);

	*pid = t ? t->pid : c->nstarts ? c->starts[0].pid : 0;
	*tid = t ? t->tid : *pid;
}

/* "syscall:NAME", "cpu", ... into @buf. */
static const char *seg_what(const struct timeline *tl, const struct cp_seg *s, char *buf,
			    size_t n)
{
	if (s->kind == CP_SYSCALL)
		snprintf(buf, n, "syscall:%s", timeline_str(tl, s->name));
	else
		snprintf(buf, n, "%s", critpath_kind_name((enum cp_kind)s->kind));
	return buf;
}

static const char *match_name(enum cp_match m)
{
	switch (m) {
	case CP_MATCH_PID: return "by pid";
	case CP_MATCH_TIME: return "matched by time";
	case CP_MATCH_PIPE: return "by pipe inode";
	case CP_MATCH_CLONE: return "child of this call";
	default: return "";
	}
}

/*
 * The detail of @s (escaped, as in TSV): the row's, then where the walk
 * went on; for the runtime, how the container started.
 */
static const char *seg_detail(const struct timeline *tl, const struct tl_container *c,
			      const struct cp_seg *s, char *buf, size_t n)
{
	const char *d = s->kind == CP_RUNTIME && c->nstarts ? timeline_str(tl, c->starts[0].how) :
			timeline_str(tl, s->detail);
	int k = snprintf(buf, n, "%s", d);

	if (s->match != CP_MATCH_NONE && k >= 0 && (size_t)k < n) {
		const struct tl_task *o = &c->tasks[s->other];
		const char *ev = s->event == CP_EV_WRITE ? "write by" :
				 s->event == CP_EV_EXEC ? "exec of" : "exit of";

		snprintf(buf + k, n - (size_t)k, "%s<- %s %" PRId64 " %s (%s)", k ? " " : "", ev,
			 o->tid, timeline_str(tl, timeline_comm_at(o, s->ts)),
			 match_name((enum cp_match)s->match));
	}
	return buf;
}

/* Count @s of container @ci in the summary. -1 out of memory. */
static int summary_add(struct summary *sm, const struct timeline *tl,
		       const struct tl_container *c, size_t ci, const struct cp_seg *s)
{
	char key[DETAIL_MAX], what[96];
	const char *d = s->kind == CP_SYSCALL ? timeline_str(tl, s->detail) : seg_comm(tl, c, s);
	int n = snprintf(key, sizeof(key), "%s%s%s", seg_what(tl, s, what, sizeof(what)),
			 *d ? " " : "", d);
	int added;
	long id;

	if (n < 0)
		return -1;
	if ((size_t)n >= sizeof(key))
		n = sizeof(key) - 1;
	id = strtab_intern(sm->keys, key, (size_t)n, &added);
	if (id < 0)
		return -1;
	if (added) {
		if ((size_t)id >= sm->cap) {
			size_t cap = sm->cap ? sm->cap * 2 : 64;
			struct item *it = realloc(sm->it, cap * sizeof(*it));

			if (!it)
				return -1;
			sm->it = it;
			sm->cap = cap;
		}
		memset(&sm->it[id], 0, sizeof(sm->it[id]));
	}
	sm->it[id].total += s->dur;
	if (sm->it[id].last_ctr != ci + 1) {
		sm->it[id].last_ctr = ci + 1;
		sm->it[id].containers++;
	}
	return 0;
}

static const struct summary *sort_ctx;

static int cmp_item(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	const struct item *ia = &sort_ctx->it[a], *ib = &sort_ctx->it[b];

	if (ia->total != ib->total)
		return ia->total < ib->total ? 1 : -1;
	return strcmp(strtab_str(sort_ctx->keys, a, NULL), strtab_str(sort_ctx->keys, b, NULL));
}

/* The items by total time, descending (caller frees); NULL out of memory. */
static uint32_t *summary_order(const struct summary *sm, size_t *n)
{
	size_t i;
	uint32_t *o;

	*n = strtab_count(sm->keys);
	o = malloc((*n ? *n : 1) * sizeof(*o));
	if (!o)
		return NULL;
	for (i = 0; i < *n; i++)
		o[i] = (uint32_t)i;
	/* qsort has no context argument in C11; the printers run on one thread */
	sort_ctx = sm;
	qsort(o, *n, sizeof(*o), cmp_item);
	sort_ctx = NULL;
	return o;
}

static double pct(uint64_t part, uint64_t total)
{
	return total ? (double)part * 100.0 / (double)total : 0.0;
}

/* A bar of BAR_WIDTH columns with '#' over [@from, @to) of [@t0, @t1). */
static void bar(FILE *f, uint64_t t0, uint64_t t1, uint64_t from, uint64_t to)
{
	unsigned __int128 span = t1 > t0 ? t1 - t0 : 1;
	size_t a = (size_t)((unsigned __int128)(from - t0) * BAR_WIDTH / span);
	size_t b = (size_t)(((unsigned __int128)(to - t0) * BAR_WIDTH + span - 1) / span);
	size_t i;

	if (b <= a)
		b = a + 1;
	if (b > BAR_WIDTH)
		b = BAR_WIDTH;
	if (a >= b)
		a = b - 1;
	putc('|', f);
	for (i = 0; i < BAR_WIDTH; i++)
		putc(i >= a && i < b ? '#' : ' ', f);
	putc('|', f);
}

/* Consecutive segments under 1% of the boot, printed as one line. */
struct fold {
	size_t n;
	const struct cp_seg *first;
	uint64_t from, to, cpu, sys, other;
};

static void seg_line(FILE *f, const struct timeline *tl, const struct tl_container *c,
		     const struct cp_path *p, const struct cp_seg *s)
{
	char b[2][UNITS_BUFSZ], what[96], det[DETAIL_MAX];
	const char *d = seg_detail(tl, c, s, det, sizeof(det));
	int64_t pid, tid;

	seg_ids(c, s, &pid, &tid);
	fprintf(f, "  %10s %9s %5.1f%% ", units_format((int64_t)(s->ts - p->t0), b[0]),
		units_format((int64_t)s->dur, b[1]), pct(s->dur, p->t1 - p->t0));
	bar(f, p->t0, p->t1, s->ts, s->ts + s->dur);
	fprintf(f, " %-24s %7" PRId64 " %-*s%s%s\n", seg_what(tl, s, what, sizeof(what)), tid,
		*d ? 16 : 0, seg_comm(tl, c, s), *d ? " " : "", d);
}

static void fold_flush(FILE *f, struct fold *fd, const struct timeline *tl,
		       const struct tl_container *c, const struct cp_path *p)
{
	char b[4][UNITS_BUFSZ];

	if (!fd->n)
		return;
	if (fd->n == 1) {
		seg_line(f, tl, c, p, fd->first);
		memset(fd, 0, sizeof(*fd));
		return;
	}
	fprintf(f, "  %10s %9s %5.1f%% ", units_format((int64_t)(fd->from - p->t0), b[0]),
		units_format((int64_t)(fd->to - fd->from), b[1]), pct(fd->to - fd->from, p->t1 - p->t0));
	bar(f, p->t0, p->t1, fd->from, fd->to);
	fprintf(f, " (%zu segments under 1%%: cpu %s, syscalls %s", fd->n,
		units_format((int64_t)fd->cpu, b[2]), units_format((int64_t)fd->sys, b[3]));
	if (fd->other)
		fprintf(f, ", other %s", units_format((int64_t)fd->other, b[0]));
	fprintf(f, ")\n");
	memset(fd, 0, sizeof(*fd));
}

static int text_path(FILE *f, const struct analysis *a, const struct cp_path *p,
		     const char *phase)
{
	const struct timeline *tl = a->tl;
	const struct tl_container *c = &tl->ctrs[p->ctr];
	struct fold fd = { 0 };
	uint64_t total = p->t1 - p->t0;
	char b[UNITS_BUFSZ];
	size_t i;

	fprintf(f, "\ncritical path of %s (file %u): start -> %s %s, %zu segment%s",
		timeline_str(tl, c->name), c->file + 1, phase, units_format((int64_t)total, b),
		p->nsegs, p->nsegs == 1 ? "" : "s");
	if (p->followed)
		fprintf(f, ", %zu wake-up%s followed", p->followed, p->followed == 1 ? "" : "s");
	if (p->guessed)
		fprintf(f, ", %zu parent%s guessed from ppid (no fork row)", p->guessed,
			p->guessed == 1 ? "" : "s");
	fprintf(f, "\n  %10s %9s %6s  %-*s  %-24s %7s %-16s %s\n", "at", "dur", "share",
		BAR_WIDTH, "", "what", "tid", "comm", "detail");
	for (i = 0; i < p->nsegs; i++) {
		const struct cp_seg *s = &p->segs[i];

		if (s->dur * 100 < total) {
			if (!fd.n) {
				fd.from = s->ts;
				fd.first = s;
			}
			fd.n++;
			fd.to = s->ts + s->dur;
			if (s->kind == CP_CPU)
				fd.cpu += s->dur;
			else if (s->kind == CP_SYSCALL)
				fd.sys += s->dur;
			else
				fd.other += s->dur;
			continue;
		}
		fold_flush(f, &fd, tl, c, p);
		seg_line(f, tl, c, p, s);
	}
	fold_flush(f, &fd, tl, c, p);
	return done(f);
}

static int tsv_path(FILE *f, const struct analysis *a, const struct cp_path *p,
		    const char *phase)
{
	const struct timeline *tl = a->tl;
	const struct tl_container *c = &tl->ctrs[p->ctr];
	char what[96], det[DETAIL_MAX];
	size_t i;

	for (i = 0; i < p->nsegs; i++) {
		const struct cp_seg *s = &p->segs[i];
		const char *d = seg_detail(tl, c, s, det, sizeof(det));
		int64_t pid, tid;

		seg_ids(c, s, &pid, &tid);
		fprintf(f, "%s\t%s\t%" PRId64 "\t%" PRId64 "\t%s\t%s\t%" PRIu64 "\t%" PRIu64 "\t%s\n",
			timeline_str(tl, c->name), phase, pid, tid, seg_comm(tl, c, s),
			seg_what(tl, s, what, sizeof(what)), s->ts - p->t0, s->dur, *d ? d : TSV_NULL);
	}
	return done(f);
}

static void json_str(FILE *f, const char *s)
{
	report_json_string(f, s, strlen(s));
}

static int json_path(FILE *f, const struct analysis *a, const struct cp_path *p, bool first)
{
	const struct timeline *tl = a->tl;
	const struct tl_container *c = &tl->ctrs[p->ctr];
	char what[96], det[DETAIL_MAX];
	size_t i;

	fprintf(f, "%s\n      {\"container\": ", first ? "" : ",");
	json_str(f, timeline_str(tl, c->name));
	fprintf(f, ", \"file\": %u, \"duration\": %" PRIu64 ", \"followed\": %zu, \"guessed\": %zu, "
		"\"segments\": [", c->file + 1, p->t1 - p->t0, p->followed, p->guessed);
	for (i = 0; i < p->nsegs; i++) {
		const struct cp_seg *s = &p->segs[i];
		int64_t pid, tid;

		seg_ids(c, s, &pid, &tid);
		fprintf(f, "%s\n        {\"offset\": %" PRIu64 ", \"dur\": %" PRIu64 ", \"pid\": %" PRId64
			", \"tid\": %" PRId64 ", \"comm\": ", i ? "," : "", s->ts - p->t0, s->dur, pid, tid);
		json_str(f, seg_comm(tl, c, s));
		fprintf(f, ", \"what\": ");
		json_str(f, seg_what(tl, s, what, sizeof(what)));
		fprintf(f, ", \"detail\": ");
		json_str(f, seg_detail(tl, c, s, det, sizeof(det)));
		fprintf(f, "}");
	}
	fprintf(f, "\n      ]}");
	return done(f);
}

static int print_summary(FILE *f, const struct summary *sm, const char *phase,
			 enum report_format fmt)
{
	size_t n, i, shown;
	uint32_t *o = summary_order(sm, &n);
	char b[UNITS_BUFSZ];

	if (!o) {
		errno = ENOMEM;
		return -1;
	}
	shown = n < CRITPATH_TOP ? n : CRITPATH_TOP;
	if (fmt == FMT_JSON) {
		fprintf(f, "\n    ],\n    \"boot_total\": %" PRIu64 ",\n    \"top\": [", sm->boot);
		for (i = 0; i < shown; i++) {
			const struct item *it = &sm->it[o[i]];

			fprintf(f, "%s\n      {\"item\": ", i ? "," : "");
			json_str(f, strtab_str(sm->keys, o[i], NULL));
			fprintf(f, ", \"total\": %" PRIu64 ", \"pct_of_boot\": %.2f, \"containers\": %zu}",
				it->total, pct(it->total, sm->boot), it->containers);
		}
		fprintf(f, "\n    ]");
	} else if (sm->paths) {
		fprintf(f, "\ntop of the critical paths to %s across %zu container%s (%s of boot in all;"
			" %% of that):\n", phase, sm->paths, sm->paths == 1 ? "" : "s",
			units_format((int64_t)sm->boot, b));
		for (i = 0; i < shown; i++) {
			const struct item *it = &sm->it[o[i]];

			fprintf(f, "  %5.1f%% %9s  %s  (%zu container%s)\n", pct(it->total, sm->boot),
				units_format((int64_t)it->total, b), strtab_str(sm->keys, o[i], NULL),
				it->containers, it->containers == 1 ? "" : "s");
		}
		fprintf(f, "cpu: between syscalls (user code, page faults, waiting for a CPU); "
			"syscall: blocked or kernel CPU, a syscall-only trace cannot tell which\n");
	}
	free(o);
	return done(f);
}

int critpath_print(FILE *f, const struct analysis *a, uint32_t phase, enum report_format fmt)
{
	const struct timeline *tl = a->tl;
	const char *pname = analysis_phase_name(a, phase);
	struct summary sm = { 0 };
	size_t i, k, timed = 0;
	int rc = -1;

	sm.keys = strtab__new();
	if (!sm.keys) {
		errno = ENOMEM;
		return -1;
	}
	if (fmt == FMT_TSV)
		fprintf(f, "container\tphase\tpid\ttid\tcomm\twhat\toffset_ns\tdur_ns\tdetail\n");
	else if (fmt == FMT_JSON)
	{
		fprintf(f, "{\n    \"phase\": ");
		json_str(f, pname);
		fprintf(f, ",\n    \"containers\": [");
	}
	for (i = 0; i < tl->nctrs; i++) {
		struct cp_path p;
		int got;

		if (tl->ctrs[i].t_start == TL_NONE)
			continue;
		timed++;
		got = critpath_build(tl, i, phase, pname, &p);
		if (got < 0) {
			errno = ENOMEM;
			goto out;
		}
		if (!got)
			continue;
		sm.paths++;
		sm.boot += p.t1 - p.t0;
		for (k = 0; k < p.nsegs; k++)
			if (summary_add(&sm, tl, &tl->ctrs[i], i, &p.segs[k]) < 0) {
				critpath_release(&p);
				errno = ENOMEM;
				goto out;
			}
		if (fmt == FMT_TSV)
			got = tsv_path(f, a, &p, pname);
		else if (fmt == FMT_JSON)
			got = json_path(f, a, &p, sm.paths == 1);
		else
			got = text_path(f, a, &p, pname);
		critpath_release(&p);
		if (got < 0)
			goto out;
	}
	if (fmt != FMT_TSV && print_summary(f, &sm, pname, fmt) < 0)
		goto out;
	if (fmt == FMT_JSON)
		fprintf(f, ",\n    \"reached\": %zu, \"not_reached\": %zu\n  }", sm.paths, timed - sm.paths);
	else if (fmt == FMT_TEXT && timed > sm.paths)
		fprintf(f, "%s: %zu of %zu container%s without a path (never reached it)\n", pname,
			timed - sm.paths, timed, timed == 1 ? "" : "s");
	rc = done(f);
out:
	strtab__free(sm.keys);
	free(sm.it);
	return rc;
}
