// SPDX-License-Identifier: BSD-2-Clause
/* The in-memory boot of each container: see timeline.h. */
#include <malloc.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/array.h"
#include "analyze/boot/ending.h"
#include "analyze/boot/host_tasks.h"
#include "analyze/boot/offcpu.h"
#include "analyze/boot/timeline.h"
#include "analyze/read/keycache.h"
#include "common/end_detail.h"
#include "common/sched_detail.h"
#include "common/span_detail.h"
#include "common/tsv.h"

/*
 * (container, tid) -> task, open addressing, while reading. Rows come in
 * runs of one task (per-CPU batches), so the last hit is tried first.
 */
struct tl_slot {
	int64_t tid;
	uint32_t ctr;		/* UINT32_MAX: empty */
	uint32_t task;
};

struct tl_index {
	struct tl_slot *s;
	size_t n, cap;		/* cap: a power of two */
	struct tl_slot last;
};

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

static size_t slot_of(const struct tl_index *ix, uint32_t ctr, int64_t tid)
{
	return (size_t)mix((uint64_t)tid * 0x9e3779b97f4a7c15ULL ^ ctr) & (ix->cap - 1);
}

static int index_grow(struct tl_index *ix)
{
	size_t cap = ix->cap ? ix->cap * 2 : 1024, old_cap = ix->cap, i;
	struct tl_slot *old = ix->s, *s = malloc(cap * sizeof(*s));

	if (!s)
		return -1;
	for (i = 0; i < cap; i++)
		s[i].ctr = UINT32_MAX;
	ix->s = s;
	/* before the rehash: slot_of() masks with the new size, as look-ups will */
	ix->cap = cap;
	for (i = 0; i < old_cap; i++) {
		size_t k;

		if (old[i].ctr == UINT32_MAX)
			continue;
		for (k = slot_of(ix, old[i].ctr, old[i].tid); s[k].ctr != UINT32_MAX; k = (k + 1) & (cap - 1))
			;
		s[k] = old[i];
	}
	free(old);
	return 0;
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	return array_grow(p, cap, need, size, 4);
}

struct timeline *timeline__new(void)
{
	struct timeline *tl = calloc(1, sizeof(*tl));

	if (!tl)
		return NULL;
	tl->strs = strtab__new();
	tl->index = calloc(1, sizeof(*tl->index));
	tl->kc_ctr = calloc(1, sizeof(*tl->kc_ctr));
	tl->kc_str = calloc(1, sizeof(*tl->kc_str));
	tl->peers = strtab__new();
	tl->infokeys = strtab__new();
	tl->kc_peer = calloc(1, sizeof(*tl->kc_peer));
	tl->kc_info = calloc(1, sizeof(*tl->kc_info));
	tl->dcache = offcpu_cache__new();
	if (!tl->dcache || !tl->strs || !tl->index || !tl->kc_ctr || !tl->kc_str || !tl->peers ||
	    !tl->infokeys || !tl->kc_peer || !tl->kc_info || index_grow(tl->index) < 0) {
		timeline__free(tl);
		return NULL;
	}
	tl->index->last.ctr = UINT32_MAX;
	return tl;
}

static void container_release(struct tl_container *c)
{
	size_t i;

	for (i = 0; i < c->ntasks; i++) {
		free(c->tasks[i].rows);
		free(c->tasks[i].execs);
		free(c->tasks[i].comms);
		free(c->tasks[i].offs);
		free(c->tasks[i].samples);
		free(c->tasks[i].spans);
	}
	free(c->tasks);
	free(c->starts);
	free(c->marks);
	free(c->phases);
	free(c->tids);
}

void timeline__free(struct timeline *tl)
{
	size_t i;

	if (!tl)
		return;
	for (i = 0; i < tl->nctrs; i++)
		container_release(&tl->ctrs[i]);
	free(tl->ctrs);
	strtab__free(tl->strs);
	if (tl->index)
		free(tl->index->s);
	free(tl->index);
	strtab__free(tl->fnames);
	strtab__free(tl->fstacks);
	free(tl->fstack);
	free(tl->fmap);
	free(tl->kc_ctr);
	free(tl->kc_str);
	strtab__free(tl->peers);
	strtab__free(tl->infokeys);
	free(tl->kc_peer);
	free(tl->kc_info);
	free(tl->dcache);
	free(tl->infos);
	free(tl);
}

void timeline_file_sched(struct timeline *tl, bool sched)
{
	tl->file_sched = sched;
	/*
	 * With sched rows each task grows two arrays by doubling (rows,
	 * offs), to tens of KiB each. On the heap each step copies and frees
	 * the old chunk, which other tasks' arrays then fill, their slack
	 * touched; mapped (above this threshold, fixed: glibc's own climbs
	 * after the first large free) they grow by mremap() and their slack
	 * stays untouched. bench/analyze.sh's file with a third sched rows:
	 * 364 -> 342 MB peak under --critical-path (37.3 -> 35.0 B a row).
	 * Not for files without them: one array a task, and mapping costs
	 * 0.1 s of page faults on bench's 10 M syscall rows.
	 */
	if (sched)
		mallopt(M_MMAP_THRESHOLD, 32 * 1024);
}

void timeline_file_host_rows(struct timeline *tl, bool host_rows)
{
	tl->file_host_rows = host_rows;
}

int timeline_begin_file(struct timeline *tl)
{
	tl->file_sched = false;
	tl->file_host_rows = false;
	strtab__free(tl->fnames);
	tl->fnames = strtab__new();
	/* stack ids start again from 1 in each file */
	strtab__free(tl->fstacks);
	tl->fstacks = strtab__new();
	memset(tl->kc_ctr, 0, sizeof(*tl->kc_ctr));
	/* a detail's stack=N is this file's: the details cached are the last file's */
	offcpu_cache_clear(tl->dcache);
	return tl->fnames && tl->fstacks ? 0 : -1;
}

void timeline_end_file(struct timeline *tl, uint64_t lost)
{
	size_t i;

	for (i = 0; i < tl->nctrs; i++)
		if (tl->ctrs[i].file == tl->nfiles)
			tl->ctrs[i].lost = lost;
	tl->nfiles++;
}

/* The id of field @f (of a reader's row), or TL_NOSTR for \N; -1 out of memory. */
static long str_id(struct timeline *tl, const struct tsv_field *f)
{
	int added;

	if (tsv_is_null(f->p, f->n))
		return TL_NOSTR;
	return kc_intern(tl->kc_str, tl->strs, f->p, f->n, &added);
}

/* The container of field @f in the current file, created when new; -1 out of memory. */
static long ctr_get(struct timeline *tl, const struct tsv_field *f)
{
	int added;
	long id = kc_intern(tl->kc_ctr, tl->fnames, f->p, f->n, &added);
	struct tl_container *c;
	long name;

	if (id < 0)
		return -1;
	if (!added)
		return tl->fmap[id];
	name = strtab_intern(tl->strs, f->p, f->n, NULL);
	if (name < 0 || grow((void **)&tl->fmap, &tl->fmap_cap, (size_t)id + 1, sizeof(*tl->fmap)) < 0 ||
	    grow((void **)&tl->ctrs, &tl->ctrs_cap, tl->nctrs + 1, sizeof(*tl->ctrs)) < 0)
		return -1;
	c = &tl->ctrs[tl->nctrs];
	memset(c, 0, sizeof(*c));
	c->name = (uint32_t)name;
	c->file = tl->nfiles;
	c->t_start = c->t_end_row = c->t_end = TL_NONE;
	c->end_how = END_UNKNOWN;
	c->end_pid = -1;
	c->init = TL_NOTASK;
	c->has_sched = tl->file_sched;
	c->host_rows = tl->file_host_rows;
	tl->fmap[id] = (uint32_t)tl->nctrs;
	return (long)tl->nctrs++;
}

long timeline_find_container(const struct timeline *tl, const char *name, size_t n)
{
	long id = tl->fnames ? strtab_find(tl->fnames, name, n) : -1;

	return id < 0 ? -1 : (long)tl->fmap[id];
}

/* The task of @tid in container @ci, created when new; NULL out of memory. */
static struct tl_task *task_get(struct timeline *tl, uint32_t ci, const struct tsv_row *r)
{
	struct tl_index *ix = tl->index;
	struct tl_container *c = &tl->ctrs[ci];
	struct tl_task *t;
	size_t k;

	if (ix->last.ctr == ci && ix->last.tid == r->tid)
		return &c->tasks[ix->last.task];
	for (k = slot_of(ix, ci, r->tid); ix->s[k].ctr != UINT32_MAX; k = (k + 1) & (ix->cap - 1))
		if (ix->s[k].ctr == ci && ix->s[k].tid == r->tid) {
			ix->last = ix->s[k];
			return &c->tasks[ix->s[k].task];
		}
	if (c->ntasks >= TL_NOTASK - 1 ||
	    grow((void **)&c->tasks, &c->tasks_cap, c->ntasks + 1, sizeof(*c->tasks)) < 0)
		return NULL;
	t = &c->tasks[c->ntasks];
	memset(t, 0, sizeof(*t));
	t->pid = r->pid;
	t->tid = r->tid;
	t->ppid = r->ppid;
	t->comm = t->comm_last = t->comm_cur = TL_NOSTR;
	t->fork_ts = t->exit_ts = TL_NONE;
	t->parent = TL_NOTASK;
	t->first_ts = TL_NONE;
	t->last_ts = 0;
	ix->s[k].ctr = ci;
	ix->s[k].tid = r->tid;
	ix->s[k].task = (uint32_t)c->ntasks++;
	ix->last = ix->s[k];
	if (++ix->n * 2 > ix->cap && index_grow(ix) < 0)
		return NULL;
	return t;
}

/* The comm of @r as a string id, reusing @same when the bytes are its. */
static long comm_id(struct timeline *tl, const struct tsv_row *r, uint32_t same)
{
	const struct tsv_field *f = &r->f[TSV_COMM];
	size_t n;

	if (same != TL_NOSTR) {
		const char *s = strtab_str(tl->strs, same, &n);

		if (n == f->n && memcmp(s, f->p, n) == 0)
			return same;
	}
	return str_id(tl, f);
}

static int add_start(struct timeline *tl, struct tl_container *c, const struct tsv_row *r)
{
	long how = str_id(tl, &r->f[TSV_NAME]), comm = str_id(tl, &r->f[TSV_COMM]),
	     detail = str_id(tl, &r->f[TSV_DETAIL]);
	struct tl_start *s;

	if (how < 0 || comm < 0 || detail < 0 ||
	    grow((void **)&c->starts, &c->starts_cap, c->nstarts + 1, sizeof(*c->starts)) < 0)
		return -1;
	s = &c->starts[c->nstarts++];
	s->ts = r->ts_ns;
	s->how = (uint32_t)how;
	s->comm = (uint32_t)comm;
	s->detail = (uint32_t)detail;
	s->pid = r->pid;
	if (r->ts_ns < c->t_start)
		c->t_start = r->ts_ns;
	return 0;
}

static int add_syscall(struct timeline *tl, struct tl_task *t, const struct tsv_row *r)
{
	long name = str_id(tl, &r->f[TSV_NAME]);
	long detail = str_id(tl, &r->f[TSV_DETAIL]);
	struct tl_row *w;

	if (name < 0 || detail < 0 ||
	    grow((void **)&t->rows, &t->rows_cap, t->nrows + 1, sizeof(*t->rows)) < 0)
		return -1;
	w = &t->rows[t->nrows++];
	w->ts = r->ts_ns;
	w->dur = r->null & (1u << TSV_DUR_NS) ? TL_NONE : r->dur_ns;
	w->ret = r->null & (1u << TSV_RET) ? TL_NORET : r->ret;
	w->name = (uint32_t)name;
	w->detail = (uint32_t)detail;
	return 0;
}

static int add_exec(struct timeline *tl, struct tl_task *t, const struct tsv_row *r,
		    uint32_t comm)
{
	long fn = str_id(tl, &r->f[TSV_DETAIL]);
	struct tl_exec *e;

	if (fn < 0 || grow((void **)&t->execs, &t->execs_cap, t->nexecs + 1, sizeof(*t->execs)) < 0)
		return -1;
	e = &t->execs[t->nexecs++];
	e->ts = r->ts_ns;
	e->filename = (uint32_t)fn;
	e->comm = comm;
	e->init = field_is(&r->f[TSV_NAME], "init", 4);
	return 0;
}

static int add_mark(struct timeline *tl, struct tl_container *c, uint32_t task,
		    const struct tsv_row *r)
{
	long label = str_id(tl, &r->f[TSV_NAME]);
	struct tl_mark *m;

	if (label < 0 || grow((void **)&c->marks, &c->marks_cap, c->nmarks + 1, sizeof(*c->marks)) < 0)
		return -1;
	m = &c->marks[c->nmarks++];
	m->ts = r->ts_ns;
	m->label = (uint32_t)label;
	m->task = task;
	return 0;
}

/* A stack row: its id in this file names its frames (a later row of the id, anew). */
static int add_stack(struct timeline *tl, const struct tsv_row *r)
{
	const struct tsv_field *id = &r->f[TSV_NAME];
	long k = strtab_intern(tl->fstacks, id->p, id->n, NULL), frames;

	if (k < 0 || grow((void **)&tl->fstack, &tl->fstack_cap, (size_t)k + 1,
			  sizeof(*tl->fstack)) < 0)
		return -1;
	frames = str_id(tl, &r->f[TSV_DETAIL]);
	if (frames < 0)
		return -1;
	/* \N (no frames) is a stack of its own, the empty one */
	if (frames == TL_NOSTR && (frames = strtab_intern(tl->strs, "", 0, NULL)) < 0)
		return -1;
	tl->fstack[k] = (uint32_t)frames;
	return 0;
}

/* A sample row: a sample of @t, of the stack its name says. */
static int add_sample(struct timeline *tl, struct tl_task *t, const struct tsv_row *r)
{
	const struct tsv_field *id = &r->f[TSV_NAME];
	long k = strtab_find(tl->fstacks, id->p, id->n);
	struct tl_sample *s;

	if (grow((void **)&t->samples, &t->samples_cap, t->nsamples + 1, sizeof(*t->samples)) < 0)
		return -1;
	s = &t->samples[t->nsamples++];
	s->ts = r->ts_ns;
	s->period = r->null & (1u << TSV_DUR_NS) ? 0 : r->dur_ns;
	s->stack = k < 0 ? TL_NOSTR : tl->fstack[k];
	tl->samples++;
	if (k < 0)
		tl->orphan_samples++;
	return 0;
}

/*
 * A span row: a span of @t, its what= kept escaped as strings are. A row
 * whose detail does not parse is kept as a span of what "" (a later
 * version's detail, or hostile).
 */
static int add_span(struct timeline *tl, struct tl_container *c, struct tl_task *t,
		    const struct tsv_row *r)
{
	const struct tsv_field *d = &r->f[TSV_DETAIL];
	struct span_detail sd;
	struct tl_span *s;
	char *buf;
	long kind = str_id(tl, &r->f[TSV_NAME]), what, caller = TL_NOSTR, n;
	long long line = 0;

	if (kind < 0 || r->null & (1u << TSV_DUR_NS))
		return kind < 0 ? -1 : 0;
	buf = malloc(TSV_ESCAPED_MAX(d->n) + d->n + 1);
	if (!buf)
		return -1;
	n = tsv_unescape(d->p, d->n, buf);
	if (n < 0 || span_detail_parse(buf, (size_t)n, &sd) < 0)
		sd.what_n = 0, sd.what = buf, sd.raised = false, sd.caller = NULL;
	what = strtab_intern(tl->strs, buf + d->n, tsv_escape(sd.what, sd.what_n, buf + d->n), NULL);
	if (what >= 0 && sd.caller) {
		/* (the escaped what is interned: its room holds the caller's) */
		caller = strtab_intern(tl->strs, buf + d->n,
				       tsv_escape(sd.caller, sd.caller_n, buf + d->n), NULL);
		line = sd.line;
	}
	free(buf);
	if (what < 0 || caller < 0 || grow((void **)&t->spans, &t->spans_cap, t->nspans + 1, sizeof(*t->spans)) < 0)
		return -1;
	s = &t->spans[t->nspans++];
	s->ts = r->ts_ns;
	/* hostile rows may say anything: no span past INT64_MAX ns (292 years) */
	s->dur = r->ts_ns >= (uint64_t)INT64_MAX ? 0 :
		 r->dur_ns > (uint64_t)INT64_MAX - r->ts_ns ? (uint64_t)INT64_MAX - r->ts_ns :
							     r->dur_ns;
	s->kind = (uint32_t)kind;
	s->what = (uint32_t)what;
	s->depth = r->null & (1u << TSV_RET) || r->ret < 0 ? 0 : (uint32_t)r->ret;
	s->flags = sd.raised ? TL_SPAN_RAISED : 0;
	s->caller = (uint32_t)caller;
	s->line = line > 0 && line <= UINT32_MAX ? (uint32_t)line : 0;
	c->has_spans = true;
	return 0;
}

/* The innermost span of @t that holds @x, or NULL. */
static const struct tl_span *span_at(const struct tl_task *t, uint64_t x)
{
	size_t lo = 0, hi = t->nspans, k;

	/* the last span that starts at @x or before: the innermost holding @x is it or above */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->spans[mid].ts <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k > 0; k = t->spans[k - 1].parent == TL_NOSPAN ? 0 : t->spans[k - 1].parent + 1)
		if (x - t->spans[k - 1].ts < t->spans[k - 1].dur)
			return &t->spans[k - 1];
	return NULL;
}

const struct tl_span *timeline_span_over(const struct tl_task *t, uint64_t a, uint64_t b)
{
	const struct tl_span *s;

	if (b <= a)
		return span_at(t, a);
	/* a span over more than half of [a, b) holds its middle */
	for (s = span_at(t, a + (b - a) / 2); s;
	     s = s->parent == TL_NOSPAN ? NULL : &t->spans[s->parent]) {
		uint64_t from = s->ts > a ? s->ts : a;
		uint64_t end = s->dur > UINT64_MAX - s->ts ? UINT64_MAX : s->ts + s->dur;
		uint64_t to = end < b ? end : b;

		if (to > from && (to - from) > (b - a) - (to - from))
			return s;
	}
	return span_at(t, a);
}

/*
 * Each span's parent, its spans sorted by start (a parent before its
 * child that starts at the same ns: the longer first). The spans of a
 * thread nest; hostile ones that overlap get some parent that starts
 * before them, so the chains always end. -1 out of memory.
 */
static int span_parents(struct tl_task *t)
{
	uint32_t *stack, n = 0;
	size_t i, j;

	for (i = 1; i < t->nspans; i++)
		for (j = i; j > 0 && t->spans[j - 1].ts == t->spans[j].ts &&
			    t->spans[j - 1].dur < t->spans[j].dur; j--) {
			struct tl_span x = t->spans[j];

			t->spans[j] = t->spans[j - 1];
			t->spans[j - 1] = x;
		}
	if (!t->nspans)
		return 0;
	stack = malloc(t->nspans * sizeof(*stack));
	if (!stack)
		return -1;
	for (i = 0; i < t->nspans; i++) {
		struct tl_span *s = &t->spans[i];

		while (n && s->ts - t->spans[stack[n - 1]].ts >= t->spans[stack[n - 1]].dur)
			n--;
		s->parent = n ? stack[n - 1] : TL_NOSPAN;
		stack[n++] = (uint32_t)i;
	}
	free(stack);
	return 0;
}

/* A fork row's detail, parent=TID (the thread that forked it): TID, else 0. */
static int64_t fork_parent_tid(const struct tsv_field *f)
{
	int64_t tid = 0;
	uint32_t i;

	if (f->n <= 7 || memcmp(f->p, "parent=", 7) != 0)
		return 0;
	for (i = 7; i < f->n; i++) {
		if (f->p[i] < '0' || f->p[i] > '9' || tid > INT64_MAX / 10 - 1)
			return 0;
		tid = tid * 10 + (f->p[i] - '0');
	}
	return tid;
}

/*
 * End row @r: its container's t_end_row, end_how, end_pid; a container
 * with no other row in this file (its start in the run's previous one)
 * is not made for it. 0.
 */
static int add_end(struct timeline *tl, const struct tsv_row *r)
{
	long ci = timeline_find_container(tl, r->f[TSV_CONTAINER].p, r->f[TSV_CONTAINER].n), pid;
	struct tl_container *c;

	if (ci < 0)
		return 0;
	c = &tl->ctrs[ci];
	tl->rows++;
	if (r->ts_ns < c->t_end_row) {
		c->t_end_row = r->ts_ns;
		c->end_how = end_detail_parse(r->f[TSV_DETAIL].p, r->null & (1u << TSV_DETAIL) ?
					      0 : r->f[TSV_DETAIL].n, &pid);
		c->end_pid = pid;
	}
	return 0;
}

int timeline_add_row(struct timeline *tl, const struct tsv_row *r)
{
	const struct tsv_field *ev = &r->f[TSV_EVENT];
	struct tl_container *c;
	struct tl_task *t;
	long ci, comm;

	/* an end row is the container's, of no task (its tid is \N) */
	if (field_is(ev, "end", 3) && !(r->null & (1u << TSV_TS_NS)))
		return add_end(tl, r);
	if (r->null & ((1u << TSV_TS_NS) | (1u << TSV_TID))) {
		tl->unplaced++;
		return 0;
	}
	/* a stack is the file's, whichever container's sample came first */
	if (field_is(ev, "stack", 5))
		return add_stack(tl, r);
	ci = ctr_get(tl, &r->f[TSV_CONTAINER]);
	if (ci < 0)
		return -1;
	c = &tl->ctrs[ci];
	tl->rows++;
	/* a start row's task is the runtime's (or the spawner's), not one of the container */
	if (field_is(ev, "start", 5))
		return add_start(tl, c, r);
	t = task_get(tl, (uint32_t)ci, r);
	if (!t)
		return -1;
	comm = comm_id(tl, r, t->comm_cur);
	if (comm < 0)
		return -1;
	if ((uint32_t)comm != t->comm_cur) {
		if (grow((void **)&t->comms, &t->comms_cap, t->ncomms + 1, sizeof(*t->comms)) < 0)
			return -1;
		t->comms[t->ncomms].ts = r->ts_ns;
		t->comms[t->ncomms].comm = (uint32_t)comm;
		t->ncomms++;
		t->comm_cur = (uint32_t)comm;
	}
	if (r->ts_ns < t->first_ts) {
		t->first_ts = r->ts_ns;
		t->comm = (uint32_t)comm;
		if (!t->has_fork)
			t->ppid = r->ppid;
	}
	if (r->ts_ns >= t->last_ts) {
		t->last_ts = r->ts_ns;
		t->comm_last = (uint32_t)comm;
	}
	if (field_is(ev, "syscall", 7))
		return add_syscall(tl, t, r);
	if (field_is(ev, "sched", 5)) {
		c->has_sched = true;
		return offcpu_add(tl, t, r);
	}
	if (field_is(ev, "fork", 4)) {
		if (r->ts_ns < t->fork_ts) {
			t->fork_ts = r->ts_ns;
			t->is_thread = field_is(&r->f[TSV_NAME], "thread", 6);
			t->ppid = r->ppid;
			t->parent_tid = fork_parent_tid(&r->f[TSV_DETAIL]);
		}
		t->has_fork = true;
		return 0;
	}
	if (field_is(ev, "exec", 4))
		return add_exec(tl, t, r, (uint32_t)comm);
	if (field_is(ev, "exit", 4)) {
		if (t->exit_ts == TL_NONE || r->ts_ns > t->exit_ts) {
			t->exit_ts = r->ts_ns;
			t->exit_status = r->null & (1u << TSV_RET) ? TL_NORET : r->ret;
			t->exit_ppid = r->ppid;
		}
		return 0;
	}
	if (field_is(ev, "mark", 4))
		return add_mark(tl, c, (uint32_t)(t - c->tasks), r);
	if (field_is(ev, "sample", 6)) {
		c->has_profile = true;
		return add_sample(tl, t, r);
	}
	if (field_is(ev, "span", 4))
		return add_span(tl, c, t, r);
	return 0; /* an event of a later format version: kept as a sighting only */
}

int timeline_set_phase(struct timeline *tl, size_t ci, uint32_t phase, uint64_t ts)
{
	struct tl_container *c = &tl->ctrs[ci];
	size_t i;

	for (i = 0; i < c->nphases; i++)
		if (c->phases[i].phase == phase) {
			c->phases[i].ts = ts;
			return 0;
		}
	if (grow((void **)&c->phases, &c->phases_cap, c->nphases + 1, sizeof(*c->phases)) < 0)
		return -1;
	c->phases[c->nphases].phase = phase;
	c->phases[c->nphases].ts = ts;
	c->nphases++;
	return 0;
}

/*
 * A stable merge sort of @n elements of @size bytes by the uint64_t at
 * offset 0 (every sorted struct starts with its ts), with @tmp room for
 * @n elements. Nearly sorted input (one task's rows are in order unless
 * it moved between CPUs) costs one comparison per element and no copy.
 */
static void sort_by_ts(char *a, size_t n, size_t size, char *tmp)
{
	size_t width, i;
	char *src = a, *dst = tmp;

	for (i = 1; i < n; i++) {
		uint64_t x, y;

		memcpy(&x, a + (i - 1) * size, 8);
		memcpy(&y, a + i * size, 8);
		if (x > y)
			break;
	}
	if (i >= n)
		return;
	for (width = 1; width < n; width *= 2) {
		size_t lo;

		for (lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n;
			size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			size_t p = lo, q = mid, o = lo;

			while (p < mid && q < hi) {
				uint64_t x, y;

				memcpy(&x, src + p * size, 8);
				memcpy(&y, src + q * size, 8);
				/* <=: the left one first on a tie (stable) */
				if (x <= y)
					memcpy(dst + o++ * size, src + p++ * size, size);
				else
					memcpy(dst + o++ * size, src + q++ * size, size);
			}
			memcpy(dst + o * size, src + p * size, (mid - p) * size);
			o += mid - p;
			memcpy(dst + o * size, src + q * size, (hi - q) * size);
		}
		char *swap = src;

		src = dst;
		dst = swap;
	}
	if (src != a)
		memcpy(a, src, n * size);
}

/* sort_by_ts() with its own buffer; -1 out of memory. */
static int sort_array(void *a, size_t n, size_t size)
{
	char *tmp;

	if (n < 2)
		return 0;
	tmp = malloc(n * size);
	if (!tmp)
		return -1;
	sort_by_ts(a, n, size, tmp);
	free(tmp);
	return 0;
}

static int cmp_task(const void *x, const void *y)
{
	const struct tl_task *a = x, *b = y;

	if (a->begin != b->begin)
		return a->begin < b->begin ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static int cmp_tid(const void *x, const void *y)
{
	const struct tl_tid *a = x, *b = y;

	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

uint32_t timeline_find_task(const struct tl_container *c, int64_t tid)
{
	size_t lo = 0, hi = c->ntasks;

	if (!c->tids)
		return TL_NOTASK;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->tids[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->ntasks && c->tids[lo].tid == tid ? c->tids[lo].task : TL_NOTASK;
}

/*
 * The index of the last of @n elements of @size bytes at @a, sorted by the
 * uint64_t at offset 0 of each (a row's ts, an interval's out), that is
 * below @ts; -1 when none. Binary search.
 */
_Static_assert(offsetof(struct tl_row, ts) == 0 && offsetof(struct tl_off, out) == 0 &&
	       offsetof(struct tl_sample, ts) == 0,
	       "sorted by the uint64_t at offset 0");

static long last_before(const void *a, size_t n, size_t size, uint64_t ts)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t v;

		memcpy(&v, (const char *)a + mid * size, sizeof(v));
		if (v < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

long timeline_row_before(const struct tl_task *t, uint64_t ts)
{
	return last_before(t->rows, t->nrows, sizeof(*t->rows), ts);
}

long timeline_off_before(const struct tl_task *t, uint64_t ts)
{
	return last_before(t->offs, t->noffs, sizeof(*t->offs), ts);
}

size_t timeline_sample_from(const struct tl_task *t, uint64_t ts)
{
	return (size_t)(last_before(t->samples, t->nsamples, sizeof(*t->samples), ts) + 1);
}

uint64_t timeline_phase(const struct tl_container *c, uint32_t phase)
{
	size_t i;

	if (phase == TL_PHASE_END)
		return c->t_end;
	for (i = 0; i < c->nphases; i++)
		if (c->phases[i].phase == phase)
			return c->phases[i].ts;
	return TL_NONE;
}

uint32_t timeline_comm_at(const struct tl_task *t, uint64_t ts)
{
	size_t lo = 0, hi = t->ncomms;

	/* the first change point after @ts; the one before it holds */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->comms[mid].ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!t->ncomms)
		return t->comm;
	return t->comms[lo ? lo - 1 : 0].comm;
}

const char *timeline_str(const struct timeline *tl, uint32_t id)
{
	return id == TL_NOSTR ? "" : strtab_str(tl->strs, id, NULL);
}

/* Is string @id one of the syscalls that create a task? */
static bool is_clone(const long *ids, uint32_t id)
{
	size_t i;

	for (i = 0; i < 4; i++)
		if (ids[i] >= 0 && (uint32_t)ids[i] == id)
			return true;
	return false;
}

int tl_pid_ix_cmp(const void *x, const void *y)
{
	const struct tl_pid_ix *a = x, *b = y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->task < b->task ? -1 : a->task > b->task;
}

size_t tl_pid_ix_first(const struct tl_pid_ix *ix, size_t n, int64_t pid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ix[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The task that created @t: the thread its fork row names (parent=);
 * else a thread of the fork row's process (@t's own for a thread, its
 * ppid for a process) whose clone/clone3/fork/vfork row holds the fork's
 * time (the fork tracepoint fires inside that syscall); else that
 * process's main thread; else none. @bp: the tasks by pid.
 */
static uint32_t find_parent(const struct tl_container *c, uint32_t ti, const long *clone_ids,
			    const struct tl_pid_ix *bp)
{
	const struct tl_task *t = &c->tasks[ti];
	int64_t proc = t->is_thread ? t->pid : t->ppid;
	uint32_t leader = TL_NOTASK, p;
	size_t lo;

	if (t->parent_tid > 0) {
		p = timeline_find_task(c, t->parent_tid);
		if (p != TL_NOTASK && p != ti && c->tasks[p].begin <= t->fork_ts)
			return p;
	}
	for (lo = tl_pid_ix_first(bp, c->ntasks, proc); lo < c->ntasks && bp[lo].pid == proc; lo++) {
		const struct tl_task *p = &c->tasks[bp[lo].task];
		long k;

		if (bp[lo].task == ti || p->begin > t->fork_ts)
			continue;
		if (p->tid == proc)
			leader = bp[lo].task;
		k = timeline_row_before(p, t->fork_ts + 1);
		if (k >= 0 && is_clone(clone_ids, p->rows[k].name) &&
		    timeline_row_end(&p->rows[k]) >= t->fork_ts)
			return bp[lo].task;
	}
	return leader;
}

static int finish_container(struct tl_container *c, const long *clone_ids)
{
	size_t i, n = c->ntasks ? c->ntasks : 1;
	uint32_t *perm = malloc(n * sizeof(*perm));
	struct tl_pid_ix *bp = malloc(n * sizeof(*bp));

	c->tids = malloc(n * sizeof(*c->tids));
	if (!perm || !bp || !c->tids ||
	    sort_array(c->starts, c->nstarts, sizeof(*c->starts)) < 0 ||
	    sort_array(c->marks, c->nmarks, sizeof(*c->marks)) < 0)
		goto oom;
	for (i = 0; i < c->ntasks; i++) {
		struct tl_task *t = &c->tasks[i];
		size_t k;

		if (sort_array(t->rows, t->nrows, sizeof(*t->rows)) < 0 ||
		    sort_array(t->execs, t->nexecs, sizeof(*t->execs)) < 0 ||
		    sort_array(t->comms, t->ncomms, sizeof(*t->comms)) < 0 ||
		    sort_array(t->offs, t->noffs, sizeof(*t->offs)) < 0 ||
		    sort_array(t->samples, t->nsamples, sizeof(*t->samples)) < 0 ||
		    sort_array(t->spans, t->nspans, sizeof(*t->spans)) < 0 ||
		    span_parents(t) < 0)
			goto oom;
		t->begin = t->fork_ts < t->first_ts ? t->fork_ts : t->first_ts;
		t->end = t->last_ts > t->last_end ? t->last_ts : t->last_end;
		/* the last row by entry need not be the last to return */
		for (k = 0; k < t->nrows; k++)
			if (timeline_row_end(&t->rows[k]) > t->end)
				t->end = timeline_row_end(&t->rows[k]);
		t->seq = (uint32_t)i;
	}
	if (c->ntasks > 1)
		qsort(c->tasks, c->ntasks, sizeof(*c->tasks), cmp_task);
	for (i = 0; i < c->ntasks; i++) {
		perm[c->tasks[i].seq] = (uint32_t)i;
		c->tids[i].tid = c->tasks[i].tid;
		c->tids[i].task = (uint32_t)i;
		bp[i].pid = c->tasks[i].pid;
		bp[i].task = (uint32_t)i;
	}
	for (i = 0; i < c->nmarks; i++)
		c->marks[i].task = perm[c->marks[i].task];
	if (c->ntasks > 1) {
		qsort(c->tids, c->ntasks, sizeof(*c->tids), cmp_tid);
		qsort(bp, c->ntasks, sizeof(*bp), tl_pid_ix_cmp);
	}
	for (i = 0; i < c->ntasks; i++)
		if (c->tasks[i].has_fork)
			c->tasks[i].parent = find_parent(c, (uint32_t)i, clone_ids, bp);
	free(perm);
	free(bp);
	return 0;
oom:
	free(perm);
	free(bp);
	return -1;
}

int timeline_finish(struct timeline *tl)
{
	static const char *const clones[4] = { "clone", "clone3", "fork", "vfork" };
	long ids[4], client;
	size_t i;

	if (tl->finished)
		return 0;
	for (i = 0; i < 4; i++)
		ids[i] = strtab_find(tl->strs, clones[i], strlen(clones[i]));
	client = strtab_find(tl->strs, "client", 6);
	if (client < 0)
		client = TL_NOSTR;
	/* the hosts' tasks first (sorted), then copied into each container of their file */
	for (i = 0; i < tl->nctrs; i++) {
		struct tl_container *c = &tl->ctrs[i];
		const char *name = timeline_str(tl, c->name);

		c->is_host = host_tasks_is_host_name(name, strlen(name));
		if (c->is_host && finish_container(c, ids) < 0)
			return -1;
	}
	for (i = 0; i < tl->nctrs; i++) {
		struct tl_container *c = &tl->ctrs[i];
		size_t h;

		if (c->is_host)
			continue;
		for (h = 0; h < tl->nctrs; h++)
			if (tl->ctrs[h].is_host && tl->ctrs[h].file == c->file &&
			    host_tasks_import(c, &tl->ctrs[h]) < 0)
				return -1;
		if (finish_container(c, ids) < 0 || host_tasks_mark_runtime(tl, c, (uint32_t)client) < 0)
			return -1;
		ending_find(c);
	}
	/* the index and the file's names are for reading only */
	free(tl->index->s);
	free(tl->index);
	tl->index = NULL;
	strtab__free(tl->fnames);
	tl->fnames = NULL;
	strtab__free(tl->fstacks);
	tl->fstacks = NULL;
	free(tl->fstack);
	tl->fstack = NULL;
	tl->fstack_cap = 0;
	tl->finished = true;
	return 0;
}
