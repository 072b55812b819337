// SPDX-License-Identifier: BSD-2-Clause
/* Printers of --critical-path: see critpath_report.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/array.h"
#include "analyze/boot/cpu_share.h"
#include "analyze/boot/critpath.h"
#include "analyze/boot/profile.h"
#include "analyze/out/critpath_report.h"
#include "analyze/out/critpath_seg.h"
#include "analyze/out/failures_report.h"
#include "analyze/out/wrap.h"
#include "analyze/units.h"
#include "common/tsv.h"

/*
 * The bar's columns: 20, so that a segment's columns (at, dur, share, the
 * bar, state, what, tid, comm) end by column 113 and fit in 120 with
 * their detail on a line of its own (40 made them 133).
 */
#define BAR_WIDTH 20

/* Where the detail of a segment's line goes when it does not fit: under the bar. */
#define DETAIL_INDENT 30

/*
 * The indent of the continuation of the path's other lines (by task, by
 * span, by state, its title): 12, so that every continuation line of the
 * text, these, the details (30) and the top items (19), starts with 12
 * spaces and no line of its own does (a segment's "at" column ends by 12).
 */
#define LINE_INDENT 12

/* The indent of a top item's continuation: under its text. */
#define ITEM_INDENT 19

/* The text output: its stream and width, and the line being built. */
struct text_out {
	FILE *f;
	size_t width;
	struct wrap_buf b;
};

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
	uint64_t by_state[CP_ST_MAX];	/* time on the paths by state */
	struct profile *prof;	/* names a blocked segment's code (profile_code()), or NULL */
};

static int done(FILE *f)
{
	return ferror(f) ? -1 : 0;
}

static double pct(uint64_t part, uint64_t total);

/* "  by span on the path: ..." (nothing when the path is in no span). */
static void span_tally_print(struct text_out *o, const struct timeline *tl,
			     const struct tl_container *c, const struct cp_path *p, uint64_t total)
{
	struct cpseg_span_sum best[CPSEG_SPAN_TOP];
	size_t n = cpseg_span_top(c, p, best), k;
	char b[UNITS_BUFSZ];

	if (!n)
		return;
	wrap_reset(&o->b);
	wrap_printf(&o->b, "  by span on the path: ");
	for (k = 0; k < n; k++)
		wrap_printf(&o->b, "%s%s %s %s (%.1f%%)", k ? ", " : "",
			    timeline_str(tl, best[k].sp->kind), timeline_str(tl, best[k].sp->what),
			    units_format((int64_t)best[k].t, b), pct(best[k].t, total));
	wrap_fill(o->f, wrap_str(&o->b), o->width, LINE_INDENT);
}

/*
 * An item's key: its kind, the syscall and its detail (syscall) or the comm
 * (the others), as ids: no string is built per segment (the 10M-row bench
 * has 5M segments on its paths).
 */
struct item_key {
	uint32_t kind, name, str, state;
	uint32_t code;		/* blocked: the function that waited (profile_code()) + 1; 0 */
};

/* Count @s of container @ci in the summary. -1 out of memory. */
static int summary_add(struct summary *sm, const struct tl_container *c, size_t ci,
		       const struct cp_seg *s)
{
	struct item_key k = { .kind = s->kind, .name = TL_NOSTR, .state = s->state };
	int added;
	long id;

	long fn;

	if (s->state == CP_ST_BLOCKED && s->stack != TL_NOSTR && sm->prof) {
		fn = profile_code(sm->prof, s->stack, NULL, 0);
		if (fn < -1)
			return -1;
		k.code = fn >= 0 ? (uint32_t)fn + 1 : 0;
	}
	if (s->kind == CP_SYSCALL) {
		k.name = s->name;
		k.str = s->detail;
	} else if (s->task != TL_NOTASK) {
		k.str = timeline_comm_at(&c->tasks[s->task], s->ts);
	} else {
		k.str = c->nstarts ? c->starts[0].comm : TL_NOSTR;
	}
	id = strtab_intern(sm->keys, (const char *)&k, sizeof(k), &added);
	if (id < 0)
		return -1;
	if (added) {
		if (array_grow((void **)&sm->it, &sm->cap, (size_t)id + 1, sizeof(*sm->it), 64) < 0)
			return -1;
		memset(&sm->it[id], 0, sizeof(sm->it[id]));
	}
	sm->it[id].total += s->dur;
	sm->by_state[s->state < CP_ST_MAX ? s->state : CP_ST_UNKNOWN] += s->dur;
	if (sm->it[id].last_ctr != ci + 1) {
		sm->it[id].last_ctr = ci + 1;
		sm->it[id].containers++;
	}
	return 0;
}

/* Item @id as text: "syscall:connect 10.0.0.5:5432", "cpu python3". */
static const char *item_text(const struct summary *sm, const struct timeline *tl, uint32_t id,
			     char *buf, size_t n)
{
	struct item_key k;
	const char *d;

	const char *st;

	memcpy(&k, strtab_str(sm->keys, id, NULL), sizeof(k));
	d = timeline_str(tl, k.str);
	/* the state first when known: "blocked syscall:futex", "running cpu python3" */
	st = k.state == CP_ST_UNKNOWN ? "" : critpath_state_name((enum cp_state)k.state);
	int len;

	if (k.kind == CP_SYSCALL)
		len = snprintf(buf, n, "%s%ssyscall:%s%s%s", st, *st ? " " : "", timeline_str(tl, k.name),
			       *d ? " " : "", d);
	else
		len = snprintf(buf, n, "%s%s%s%s%s", st, *st ? " " : "",
			       critpath_kind_name((enum cp_kind)k.kind), *d ? " " : "", d);
	/* the code that waited: "blocked syscall:read pipe:[7] in await_config" */
	if (k.code && sm->prof && len >= 0 && (size_t)len < n) {
		const char *fn = profile_fn_name(sm->prof, k.code - 1);
		char esc[TSV_ESCAPED_MAX(CPSEG_PROFILE_NAME) + 1];
		char src[CPSEG_PROFILE_NAME], sesc[TSV_ESCAPED_MAX(CPSEG_PROFILE_NAME) + 1];
		size_t fl = strlen(fn);

		src[0] = '\0';
		/* an interpreter frame: "in FUNCTION (BASE:LINE)", as the segment says it */
		if (profile_fn_interp(sm->prof, k.code - 1))
			fl = profile_interp_place(fn, fl, src, sizeof(src));
		esc[tsv_escape(fn, fl > CPSEG_PROFILE_NAME ? CPSEG_PROFILE_NAME : fl, esc)] = '\0';
		sesc[tsv_escape(src, strlen(src), sesc)] = '\0';
		snprintf(buf + len, n - (size_t)len, src[0] ? " in %s (%s)" : " in %s", esc, sesc);
	}
	return buf;
}

static const struct summary *sort_ctx;

static int cmp_item(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	const struct item *ia = &sort_ctx->it[a], *ib = &sort_ctx->it[b];

	if (ia->total != ib->total)
		return ia->total < ib->total ? 1 : -1;
	return memcmp(strtab_str(sort_ctx->keys, a, NULL), strtab_str(sort_ctx->keys, b, NULL),
		      sizeof(struct item_key));
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
static void bar(struct wrap_buf *w, uint64_t t0, uint64_t t1, uint64_t from, uint64_t to)
{
	unsigned __int128 span = t1 > t0 ? t1 - t0 : 1;
	size_t a = (size_t)((unsigned __int128)(from - t0) * BAR_WIDTH / span);
	size_t b = (size_t)(((unsigned __int128)(to - t0) * BAR_WIDTH + span - 1) / span);
	char line[BAR_WIDTH + 3];
	size_t i;

	if (b <= a)
		b = a + 1;
	if (b > BAR_WIDTH)
		b = BAR_WIDTH;
	if (a >= b)
		a = b - 1;
	line[0] = '|';
	for (i = 0; i < BAR_WIDTH; i++)
		line[i + 1] = i >= a && i < b ? '#' : ' ';
	line[BAR_WIDTH + 1] = '|';
	line[BAR_WIDTH + 2] = '\0';
	wrap_printf(w, "%s", line);
}

/*
 * Time by task and comm (a shim that execs the real program is two), for
 * a fold and for a container's path: TALLY_MAX of them, the rest summed.
 */
#define TALLY_MAX 256
#define TALLY_SHOWN 4

struct tally {
	size_t n;
	struct tally_e {
		uint32_t task, comm;
		uint64_t dur;
	} e[TALLY_MAX];
	uint64_t rest;
};

static void tally_add(struct tally *t, const struct tl_container *c,
		      const struct cp_seg *s)
{
	uint32_t comm = s->task == TL_NOTASK ? TL_NOSTR :
			timeline_comm_at(&c->tasks[s->task], s->ts);
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->e[i].task == s->task && t->e[i].comm == comm) {
			t->e[i].dur += s->dur;
			return;
		}
	if (t->n == TALLY_MAX) {
		t->rest += s->dur;
		return;
	}
	t->e[t->n].task = s->task;
	t->e[t->n].comm = comm;
	t->e[t->n].dur = s->dur;
	t->n++;
}

static int cmp_tally(const void *x, const void *y)
{
	const struct tally_e *a = x, *b = y;

	if (a->dur != b->dur)
		return a->dur < b->dur ? 1 : -1;
	return a->task < b->task ? -1 : a->task > b->task;
}

/* "bash 26950 61.0%, python3 26953 30.2%, 3 more 8.8%" of @total. */
static void tally_print(struct wrap_buf *w, struct tally *t, const struct timeline *tl,
			const struct tl_container *c, uint64_t total)
{
	uint64_t more = t->rest;
	size_t i, nmore = 0;

	qsort(t->e, t->n, sizeof(t->e[0]), cmp_tally);
	for (i = 0; i < t->n; i++) {
		const struct tally_e *e = &t->e[i];

		if (i >= TALLY_SHOWN) {
			more += e->dur;
			nmore++;
			continue;
		}
		if (e->task == TL_NOTASK)
			wrap_printf(w, "%sruntime %.1f%%", i ? ", " : "", pct(e->dur, total));
		else
			wrap_printf(w, "%s%s %" PRId64 " %.1f%%", i ? ", " : "",
				    timeline_str(tl, e->comm), c->tasks[e->task].tid, pct(e->dur, total));
	}
	if (more)
		wrap_printf(w, ", %zu more %.1f%%", nmore + (t->rest ? 1 : 0), pct(more, total));
}

/* Consecutive segments under 1% of the boot, printed as one line. */
struct fold {
	size_t n;
	const struct cp_seg *first;
	const struct tl_span *big;	/* cpseg_big_span() of its segments */
	uint64_t from, to, cpu, sys, other;
	struct tally who;
};

/*
 * A segment's line: its columns, then its detail and profile on the same
 * line when they fit in the width, else on lines of their own under the bar.
 */
static void seg_line(struct text_out *o, const struct timeline *tl, const struct tl_container *c,
		     const struct cp_path *p, const struct cp_seg *s, struct profile *pr)
{
	char b[2][UNITS_BUFSZ], what[96], det[CPSEG_DETAIL_MAX], pb[CPSEG_PROFILE_MAX];
	char tail[CPSEG_DETAIL_MAX + CPSEG_PROFILE_MAX + 1];
	const char *d = cpseg_detail(tl, c, p, s, pr, det, sizeof(det));
	const char *prof = cpseg_profile(pr, c, s, pb);
	int64_t pid, tid;

	if (!prof)
		prof = "";	/* out of memory: the path without it */

	cpseg_ids(c, s, &pid, &tid);
	wrap_reset(&o->b);
	wrap_printf(&o->b, "  %10s %9s %5.1f%% ", units_format((int64_t)(s->ts - p->t0), b[0]),
		    units_format((int64_t)s->dur, b[1]), pct(s->dur, p->t1 - p->t0));
	bar(&o->b, p->t0, p->t1, s->ts, s->ts + s->dur);
	if (c->has_sched) {
		char st[16];

		wrap_printf(&o->b, " %-10s", cpseg_state(s, st, sizeof(st)));
	}
	wrap_printf(&o->b, " %-24s %7" PRId64 " %-*s", cpseg_what(tl, s, what, sizeof(what)), tid,
		    *d || *prof ? 16 : 0, cpseg_comm(tl, c, s));
	snprintf(tail, sizeof(tail), "%s%s%s", d, *d && *prof ? " " : "", prof);
	wrap_line(o->f, wrap_str(&o->b), tail, o->width, DETAIL_INDENT);
}

/* The fold's line: its text after the bar, continued under the bar. */
static void fold_flush(struct text_out *o, struct fold *fd, const struct timeline *tl,
		       const struct tl_container *c, const struct cp_path *p, struct profile *pr)
{
	char b[4][UNITS_BUFSZ];

	if (!fd->n)
		return;
	if (fd->n == 1) {
		seg_line(o, tl, c, p, fd->first, pr);
		memset(fd, 0, sizeof(*fd));
		return;
	}
	wrap_reset(&o->b);
	wrap_printf(&o->b, "  %10s %9s %5.1f%% ", units_format((int64_t)(fd->from - p->t0), b[0]),
		    units_format((int64_t)(fd->to - fd->from), b[1]),
		    pct(fd->to - fd->from, p->t1 - p->t0));
	bar(&o->b, p->t0, p->t1, fd->from, fd->to);
	wrap_printf(&o->b, " (%zu segments under 1%%: cpu %s, syscalls %s", fd->n,
		    units_format((int64_t)fd->cpu, b[2]), units_format((int64_t)fd->sys, b[3]));
	if (fd->other)
		wrap_printf(&o->b, ", other %s", units_format((int64_t)fd->other, b[0]));
	wrap_printf(&o->b, "; ");
	tally_print(&o->b, &fd->who, tl, c, fd->to - fd->from);
	wrap_printf(&o->b, ")");
	{
		/* the span the whole fold is in, of its first segment's task */
		struct cp_seg all = *fd->first;
		const struct tl_span *sp;

		all.ts = fd->from;
		all.dur = fd->to - fd->from;
		sp = cpseg_span(c, &all);
		if (sp && sp->ts <= all.ts && all.ts + all.dur - sp->ts <= sp->dur)
			wrap_printf(&o->b, " in %s %s", timeline_str(tl, sp->kind),
				    timeline_str(tl, sp->what));
	}
	if (pr && fd->cpu) {
		/* the first segment's task's samples over the fold */
		struct cp_seg all = *fd->first;
		char pb[CPSEG_PROFILE_MAX];
		const char *prof;

		all.kind = CP_CPU;
		all.ts = fd->from;
		all.dur = fd->to - fd->from;
		prof = cpseg_profile(pr, c, &all, pb);
		if (prof && *prof)
			wrap_printf(&o->b, " %s", prof);
	}
	wrap_fill(o->f, wrap_str(&o->b), o->width, DETAIL_INDENT);
	memset(fd, 0, sizeof(*fd));
}

/*
 * The execs of @s's task during @s (ending it or inside it), as lines of
 * their own after the fold so far: where a shim hands over to the program.
 */
static void exec_lines(struct text_out *o, const struct timeline *tl,
		       const struct tl_container *c, const struct cp_path *p, const struct cp_seg *s,
		       struct fold *fd, struct profile *pr)
{
	const struct tl_task *t = cpseg_task(c, s);
	char b[UNITS_BUFSZ];
	size_t k;

	for (k = 0; t && k < t->nexecs; k++) {
		if (t->execs[k].ts <= s->ts || t->execs[k].ts > s->ts + s->dur)
			continue;
		fold_flush(o, fd, tl, c, p, pr);
		wrap_reset(&o->b);
		wrap_printf(&o->b, "  %10s %9s %6s  exec of %s by %" PRId64,
			    units_format((int64_t)(t->execs[k].ts - p->t0), b), "", "",
			    timeline_str(tl, t->execs[k].filename), t->tid);
		wrap_fill(o->f, wrap_str(&o->b), o->width, DETAIL_INDENT);
	}
}

/* "running 40.1% (12.0ms), runnable 2.0% (...), blocked ..., unknown ..." of @total. */
static void state_print(struct wrap_buf *w, const uint64_t st[CP_ST_MAX], uint64_t total)
{
	static const enum cp_state order[] = { CP_ST_RUNNING, CP_ST_RUNNABLE, CP_ST_BLOCKED,
					       CP_ST_UNKNOWN };
	char b[UNITS_BUFSZ];
	size_t i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		wrap_printf(w, "%s%s %.1f%% (%s)", i ? ", " : "", critpath_state_name(order[i]),
			    pct(st[order[i]], total), units_format((int64_t)st[order[i]], b));
}

static int text_path(struct text_out *o, const struct analysis *a, const struct cp_path *p,
		     const char *phase, struct profile *pr)
{
	const struct timeline *tl = a->tl;
	const struct tl_container *c = &tl->ctrs[p->ctr];
	static struct fold fd;		/* 6 KiB: not on the stack */
	static struct tally all;
	uint64_t total = p->t1 - p->t0;
	char b[UNITS_BUFSZ];
	size_t i;

	memset(&fd, 0, sizeof(fd));
	memset(&all, 0, sizeof(all));

	wrap_reset(&o->b);
	wrap_printf(&o->b, "critical path of %s (file %u): start -> %s %s, %zu segment%s",
		    timeline_str(tl, c->name), c->file + 1, phase, units_format((int64_t)total, b),
		    p->nsegs, p->nsegs == 1 ? "" : "s");
	if (p->followed)
		wrap_printf(&o->b, ", %zu wake-up%s followed", p->followed,
			    p->followed == 1 ? "" : "s");
	if (p->guessed)
		wrap_printf(&o->b, ", %zu parent%s guessed from ppid (no fork row)", p->guessed,
			    p->guessed == 1 ? "" : "s");
	putc('\n', o->f);
	wrap_fill(o->f, wrap_str(&o->b), o->width, LINE_INDENT);
	/* 120 columns with the state, 109 without */
	if (c->has_sched)
		fprintf(o->f, "  %10s %9s %6s  %-*s  %-10s %-24s %7s %-16s %s\n", "at", "dur", "share",
			BAR_WIDTH, "", "state", "what", "tid", "comm", "detail");
	else
		fprintf(o->f, "  %10s %9s %6s  %-*s  %-24s %7s %-16s %s\n", "at", "dur", "share",
			BAR_WIDTH, "", "what", "tid", "comm", "detail");
	for (i = 0; i < p->nsegs; i++) {
		const struct cp_seg *s = &p->segs[i];

		tally_add(&all, c, s);
		if (s->dur * 100 < total) {
			const struct tl_span *big = cpseg_big_span(c, s, total);

			if (fd.n && big != fd.big)
				fold_flush(o, &fd, tl, c, p, pr);
			fd.big = big;
			tally_add(&fd.who, c, s);
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
			exec_lines(o, tl, c, p, s, &fd, pr);
			continue;
		}
		fold_flush(o, &fd, tl, c, p, pr);
		seg_line(o, tl, c, p, s, pr);
		exec_lines(o, tl, c, p, s, &fd, pr);
		continue;
	}
	fold_flush(o, &fd, tl, c, p, pr);
	wrap_reset(&o->b);
	wrap_printf(&o->b, "  by task on the path: ");
	tally_print(&o->b, &all, tl, c, total);
	wrap_fill(o->f, wrap_str(&o->b), o->width, LINE_INDENT);
	span_tally_print(o, tl, c, p, total);
	if (c->has_sched) {
		uint64_t st[CP_ST_MAX] = { 0 };

		for (i = 0; i < p->nsegs; i++)
			st[p->segs[i].state < CP_ST_MAX ? p->segs[i].state : CP_ST_UNKNOWN] += p->segs[i].dur;
		wrap_reset(&o->b);
		wrap_printf(&o->b, "  by state on the path: ");
		state_print(&o->b, st, total);
		wrap_fill(o->f, wrap_str(&o->b), o->width, LINE_INDENT);
	}
	if (o->b.failed) {
		errno = ENOMEM;
		return -1;
	}
	return done(o->f);
}

static int tsv_path(FILE *f, const struct analysis *a, const struct cp_path *p,
		    const char *phase, struct profile *pr)
{
	const struct timeline *tl = a->tl;
	const struct tl_container *c = &tl->ctrs[p->ctr];
	char what[96], det[CPSEG_DETAIL_MAX];
	size_t i;

	for (i = 0; i < p->nsegs; i++) {
		const struct cp_seg *s = &p->segs[i];
		const char *d = cpseg_detail(tl, c, p, s, pr, det, sizeof(det));
		int64_t pid, tid;

		char st[16];

		cpseg_ids(c, s, &pid, &tid);
		fprintf(f, "%s\t%s\t%" PRId64 "\t%" PRId64 "\t%s\t%s\t%" PRIu64 "\t%" PRIu64 "\t%s\t%s",
			timeline_str(tl, c->name), phase, pid, tid, cpseg_comm(tl, c, s),
			cpseg_what(tl, s, what, sizeof(what)), s->ts - p->t0, s->dur, *d ? d : TSV_NULL,
			cpseg_state(s, st, sizeof(st)));
		/* the column only when the input has profile rows: older outputs stay as they were */
		if (pr && pr->any) {
			char pb[CPSEG_PROFILE_MAX];
			const char *prof = cpseg_profile(pr, c, s, pb);

			if (!prof) {
				errno = ENOMEM;
				return -1;
			}
			fprintf(f, "\t%s", *prof ? prof : TSV_NULL);
		}
		putc('\n', f);
	}
	return done(f);
}

static void json_str(FILE *f, const char *s)
{
	report_json_string(f, s, strlen(s));
}

/*
 * A runnable segment's CPU and who held it: "cpu": N, "cpu_shares": [{tid,
 * pid, comm, ns, share}...], most time first, "cpu_unaccounted_ns": the rest,
 * "cpu_rest_known": whether the file has host rows (the rest then ran no
 * task with rows: idle, the collector's threads), else it is unknown.
 */
static void json_shares(FILE *f, const struct timeline *tl, const struct tl_container *c,
			const struct cp_path *p, const struct cp_seg *s)
{
	size_t ns, i;
	const struct cp_share *sh = cpu_share_of(p, (size_t)(s - p->segs), &ns);
	uint64_t named = 0;

	fprintf(f, ", \"cpu\": %u, \"cpu_shares\": [", s->cpu);
	for (i = 0; i < ns; i++) {
		named += sh[i].ns;
		fprintf(f, "%s{\"tid\": %" PRId32 ", \"pid\": %" PRId32 ", \"comm\": ",
			i ? ", " : "", sh[i].tid, sh[i].pid);
		json_str(f, timeline_str(tl, sh[i].comm));
		fprintf(f, ", \"ns\": %" PRIu64 ", \"share\": %.4f}", sh[i].ns,
			(double)sh[i].ns / (double)s->dur);
	}
	fprintf(f, "], \"cpu_unaccounted_ns\": %" PRIu64 ", \"cpu_rest_known\": %s",
		named < s->dur ? s->dur - named : 0, c->host_rows ? "true" : "false");
}

static int json_path(FILE *f, const struct analysis *a, const struct cp_path *p, bool first,
		     struct profile *pr)
{
	const struct timeline *tl = a->tl;
	const struct tl_container *c = &tl->ctrs[p->ctr];
	char what[96], det[CPSEG_DETAIL_MAX];
	size_t i;

	fprintf(f, "%s\n      {\"container\": ", first ? "" : ",");
	json_str(f, timeline_str(tl, c->name));
	fprintf(f, ", \"file\": %u, \"duration\": %" PRIu64 ", \"followed\": %zu, \"guessed\": %zu, "
		"\"segments\": [", c->file + 1, p->t1 - p->t0, p->followed, p->guessed);
	for (i = 0; i < p->nsegs; i++) {
		const struct cp_seg *s = &p->segs[i];
		int64_t pid, tid;

		cpseg_ids(c, s, &pid, &tid);
		fprintf(f, "%s\n        {\"offset\": %" PRIu64 ", \"dur\": %" PRIu64 ", \"pid\": %" PRId64
			", \"tid\": %" PRId64 ", \"comm\": ", i ? "," : "", s->ts - p->t0, s->dur, pid, tid);
		json_str(f, cpseg_comm(tl, c, s));
		fprintf(f, ", \"what\": ");
		json_str(f, cpseg_what(tl, s, what, sizeof(what)));
		fprintf(f, ", \"detail\": ");
		json_str(f, cpseg_detail(tl, c, p, s, pr, det, sizeof(det)));
		fprintf(f, ", \"state\": ");
		json_str(f, critpath_state_name((enum cp_state)s->state));
		if (cpseg_span(c, s)) {
			char sp[CPSEG_DETAIL_MAX];

			fprintf(f, ", \"span\": ");
			json_str(f, cpseg_span_text(tl, c, s, sp, sizeof(sp)));
		}
		if (s->state == CP_ST_BLOCKED || s->state == CP_ST_RUNNABLE) {
			fprintf(f, ", \"off_state\": \"%c\", \"wake\": ", s->off_state ? s->off_state : '?');
			json_str(f, timeline_wake_name((enum tl_wake)s->wake));
			if (s->by) {
				fprintf(f, ", \"%s\": %" PRId32 ", \"%s_comm\": ",
					s->state == CP_ST_BLOCKED ? "waker" : "holder", s->by,
					s->state == CP_ST_BLOCKED ? "waker" : "holder");
				json_str(f, timeline_str(tl, s->by_comm));
			}
		}
		if (s->state == CP_ST_RUNNABLE && s->cpu != TL_NOCPU && p->shares_filled)
			json_shares(f, tl, c, p, s);
		if (s->state == CP_ST_BLOCKED) {
			struct cpseg_code code;
			int got = cpseg_code(pr, s, &code);

			if (got < 0) {
				errno = ENOMEM;
				return -1;
			}
			if (got) {
				fprintf(f, ", \"code\": {\"function\": ");
				json_str(f, code.fn);
				fprintf(f, ", \"module\": ");
				json_str(f, code.module);
				fprintf(f, ", \"source\": ");
				if (code.src[0])
					json_str(f, code.src);
				else
					fprintf(f, "null");
				fprintf(f, "}");
			}
		}
		if (pr && pr->any) {
			char pb[CPSEG_PROFILE_MAX];
			const char *prof = cpseg_profile(pr, c, s, pb);

			if (!prof) {
				errno = ENOMEM;
				return -1;
			}
			fprintf(f, ", \"profile\": ");
			if (*prof)
				json_str(f, prof);
			else
				fprintf(f, "null");
		}
		fprintf(f, "}");
	}
	fprintf(f, "\n      ]");
	{
		/* the path's top spans, as its text summary names them */
		struct cpseg_span_sum best[CPSEG_SPAN_TOP];
		size_t n = cpseg_span_top(c, p, best), k;
		char sp[CPSEG_DETAIL_MAX];

		if (n) {
			fprintf(f, ", \"spans\": [");
			for (k = 0; k < n; k++) {
				snprintf(sp, sizeof(sp), "%s %s", timeline_str(tl, best[k].sp->kind),
					 timeline_str(tl, best[k].sp->what));
				fprintf(f, "%s{\"span\": ", k ? ", " : "");
				json_str(f, sp);
				fprintf(f, ", \"total\": %" PRIu64 "}", best[k].t);
			}
			fprintf(f, "]");
		}
	}
	fprintf(f, "}");
	return done(f);
}

static int print_summary(struct text_out *o, const struct summary *sm,
			 const struct timeline *tl, const char *phase, enum report_format fmt)
{
	FILE *f = o->f;
	size_t n, i, shown;
	uint32_t *order = summary_order(sm, &n);
	char b[UNITS_BUFSZ], key[CPSEG_DETAIL_MAX];

	if (!order) {
		errno = ENOMEM;
		return -1;
	}
	shown = n < CRITPATH_TOP ? n : CRITPATH_TOP;
	if (fmt == FMT_JSON) {
		fprintf(f, "\n    ],\n    \"boot_total\": %" PRIu64 ",\n    \"top\": [", sm->boot);
		for (i = 0; i < shown; i++) {
			const struct item *it = &sm->it[order[i]];

			fprintf(f, "%s\n      {\"item\": ", i ? "," : "");
			json_str(f, item_text(sm, tl, order[i], key, sizeof(key)));
			fprintf(f, ", \"total\": %" PRIu64 ", \"pct_of_boot\": %.2f, \"containers\": %zu}",
				it->total, pct(it->total, sm->boot), it->containers);
		}
		fprintf(f, "\n    ],\n    \"by_state\": {\"running\": %" PRIu64 ", \"runnable\": %" PRIu64
			", \"blocked\": %" PRIu64 ", \"unknown\": %" PRIu64 "}", sm->by_state[CP_ST_RUNNING],
			sm->by_state[CP_ST_RUNNABLE], sm->by_state[CP_ST_BLOCKED], sm->by_state[CP_ST_UNKNOWN]);
	} else if (sm->paths) {
		fprintf(f, "\n");
		wrap_reset(&o->b);
		wrap_printf(&o->b, "top of the critical paths to %s across %zu container%s (%s of boot "
			    "in all; %% of that):", phase, sm->paths, sm->paths == 1 ? "" : "s",
			    units_format((int64_t)sm->boot, b));
		wrap_fill(f, wrap_str(&o->b), o->width, LINE_INDENT);
		for (i = 0; i < shown; i++) {
			const struct item *it = &sm->it[order[i]];

			wrap_reset(&o->b);
			wrap_printf(&o->b, "  %5.1f%% %9s  %s  (%zu container%s)",
				    pct(it->total, sm->boot), units_format((int64_t)it->total, b),
				    item_text(sm, tl, order[i], key, sizeof(key)), it->containers,
				    it->containers == 1 ? "" : "s");
			wrap_fill(f, wrap_str(&o->b), o->width, ITEM_INDENT);
		}
		if (sm->by_state[CP_ST_UNKNOWN] < sm->boot) {
			wrap_reset(&o->b);
			wrap_printf(&o->b, "by state: ");
			state_print(&o->b, sm->by_state, sm->boot);
			wrap_fill(f, wrap_str(&o->b), o->width, LINE_INDENT);
			fprintf(f, "running: on a CPU (cpu: in user space); runnable: woken, waiting for a "
				"CPU;\nblocked: off CPU until woken; unknown: no scheduler rows\n");
		} else {
			fprintf(f, "cpu: between syscalls (user code, page faults, waiting for a CPU);\n"
				"syscall: blocked or kernel CPU, a syscall-only trace cannot tell which\n");
		}
	}
	free(order);
	if (o->b.failed) {
		errno = ENOMEM;
		return -1;
	}
	return done(f);
}

int critpath_print(FILE *f, const struct analysis *a, uint32_t phase, enum report_format fmt,
		   struct profile *pr, size_t width)
{
	return critpath_print2(f, f, a, phase, fmt, pr, width);
}

/* The containers that never reached the phase, up to 10, fitted to the width. */
static void text_unreached(struct text_out *o, const struct timeline *tl, uint32_t phase)
{
	char *list = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&list, &n);

	if (!m) {
		o->b.failed = true;
		return;
	}
	failures_list_unreached(m, tl, phase, 10);
	if (fclose(m) != 0)
		o->b.failed = true;
	else
		wrap_lines(o->f, list, n, o->width, LINE_INDENT);
	free(list);
}

int critpath_print2(FILE *f, FILE *sf, const struct analysis *a, uint32_t phase,
		    enum report_format fmt, struct profile *pr, size_t width)
{
	const struct timeline *tl = a->tl;
	const char *pname = analysis_phase_name(a, phase);
	struct text_out to = { .f = f, .width = width ? width : WRAP_WIDTH };
	struct summary sm = { 0 };
	struct cpu_share *cs = NULL;
	size_t i, k, timed = 0;
	int rc = -1;

	sm.keys = strtab__new();
	sm.prof = pr;
	if (!sm.keys) {
		errno = ENOMEM;
		return -1;
	}
	if (fmt == FMT_TSV)
		fprintf(f, "container\tphase\tpid\ttid\tcomm\twhat\toffset_ns\tdur_ns\tdetail\tstate%s\n",
			pr && pr->any ? "\tprofile" : "");
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
		/* one path at a time: a big file's paths at once would double
		 * the memory of its rows (bench/analyze.sh) */
		if (!cs)
			cs = cpu_share__new(tl);
		/* text folds the segments under 1% of the path, detail and all */
		if (!cs || cpu_share_fill(cs, &p, 1, fmt == FMT_TEXT ?
					  (p.t1 - p.t0 + 99) / 100 : 0) < 0) {
			critpath_release(&p);
			errno = ENOMEM;
			goto out;
		}
		sm.paths++;
		sm.boot += p.t1 - p.t0;
		for (k = 0; k < p.nsegs; k++)
			if (summary_add(&sm, &tl->ctrs[i], i, &p.segs[k]) < 0) {
				critpath_release(&p);
				errno = ENOMEM;
				goto out;
			}
		if (fmt == FMT_TSV)
			got = tsv_path(f, a, &p, pname, pr);
		else if (fmt == FMT_JSON)
			got = json_path(f, a, &p, sm.paths == 1, pr);
		else
			got = text_path(&to, a, &p, pname, pr);
		critpath_release(&p);
		if (got < 0)
			goto out;
	}
	to.f = sf;
	if (done(f) < 0 || (fmt != FMT_TSV && print_summary(&to, &sm, tl, pname, fmt) < 0))
		goto out;
	if (fmt == FMT_JSON)
		fprintf(sf, ",\n    \"reached\": %zu, \"not_reached\": %zu\n  }", sm.paths, timed - sm.paths);
	else if (fmt == FMT_TEXT && timed > sm.paths) {
		wrap_reset(&to.b);
		wrap_printf(&to.b, "%s: %zu of %zu container%s without a path (never reached it):",
			    pname, timed - sm.paths, timed, timed == 1 ? "" : "s");
		wrap_fill(sf, wrap_str(&to.b), to.width, LINE_INDENT);
		text_unreached(&to, tl, phase);
		if (to.b.failed) {
			errno = ENOMEM;
			goto out;
		}
	}
	rc = done(sf);
out:
	wrap_buf_free(&to.b);
	cpu_share__free(cs);
	strtab__free(sm.keys);
	free(sm.it);
	return rc;
}
