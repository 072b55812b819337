// SPDX-License-Identifier: BSD-2-Clause
/* cpu_share: who held the CPU during each runnable segment (cpu_share.h). */
#include "analyze/boot/cpu_share.h"

#include <stdbool.h>
#include <stdlib.h>

#include "analyze/array.h"

/* A runnable segment to share out: [lo, hi) on @cpu of file @file. */
struct ref {
	uint64_t lo, hi;
	uint32_t file;
	uint16_t cpu;
	uint32_t seg;
	size_t path;
};

/*
 * A task's running time inside a ref: [from, to) of its running interval
 * [a, b) (switch-in to switch-out); ns once clipped, then summed per
 * container by merge().
 */
struct hit {
	size_t ref;
	uint64_t ns;
	uint64_t a, b, from, to;
	const struct tl_task *t;
	int32_t tid, pid;
	uint32_t ctr;
	uint32_t comm;
};

/* A switch-in on a CPU of a file: a task got @cpu at @ts. */
struct swin {
	uint64_t ts;
	uint32_t file;
	uint16_t cpu;
};

/* Where a switch-in would clip a hit: (lo, hi) on @cpu of @file (merged). */
struct reach {
	uint64_t lo, hi;
	uint32_t file;
	uint16_t cpu;
};

static int cmp_ref(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return 0;
}

/* By ref, tid, container, then time: merge()'s order (the comm of the longest). */
static int cmp_hit(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	if (x->ref != y->ref)
		return x->ref < y->ref ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ctr != y->ctr)
		return x->ctr < y->ctr ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return 0;
}

static int cmp_reach(const void *a, const void *b)
{
	const struct reach *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return 0;
}

static int cmp_swin(const void *a, const void *b)
{
	const struct swin *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return 0;
}

/* By path, then segment, then most time first, then tid: the report's order. */
static int cmp_share(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	if (x->ref != y->ref)	/* here: the path */
		return x->ref < y->ref ? -1 : 1;
	if (x->ctr != y->ctr)	/* here: the segment */
		return x->ctr < y->ctr ? -1 : 1;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The first ref in [@b, @e) whose lo is >= @lo (refs sorted). */
static size_t lower(const struct ref *r, size_t b, size_t e, uint64_t lo)
{
	while (b < e) {
		size_t m = b + (e - b) / 2;

		if (r[m].lo < lo)
			b = m + 1;
		else
			e = m;
	}
	return b;
}

/* The refs of (@file, @cpu): [*b, *e) in @r[0..@n). */
static void cpu_range(const struct ref *r, size_t n, uint32_t file, uint16_t cpu, size_t *b,
		      size_t *e)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (r[m].file < file || (r[m].file == file && r[m].cpu < cpu))
			lo = m + 1;
		else
			hi = m;
	}
	*b = lo;
	hi = n;
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (r[m].file == file && r[m].cpu == cpu)
			lo = m + 1;
		else
			hi = m;
	}
	*e = lo;
}

struct cpu_share {
	const struct timeline *tl;
	uint64_t *span;		/* per container: its tasks' earliest begin, latest end */
};

struct cpu_share *cpu_share__new(const struct timeline *tl)
{
	struct cpu_share *cs = calloc(1, sizeof(*cs));
	size_t ci, ti;

	if (!cs)
		return NULL;
	cs->tl = tl;
	cs->span = malloc((tl->nctrs ? tl->nctrs : 1) * 2 * sizeof(*cs->span));
	if (!cs->span) {
		free(cs);
		return NULL;
	}
	for (ci = 0; ci < tl->nctrs; ci++) {
		const struct tl_container *c = &tl->ctrs[ci];
		uint64_t lo = UINT64_MAX, hi = 0;

		for (ti = 0; ti < c->ntasks; ti++) {
			const struct tl_task *t = &c->tasks[ti];
			uint64_t end = t->end > t->last_end ? t->end : t->last_end;

			lo = t->begin < lo ? t->begin : lo;
			hi = end > hi ? end : hi;
		}
		cs->span[2 * ci] = lo;
		cs->span[2 * ci + 1] = hi;
	}
	return cs;
}

void cpu_share__free(struct cpu_share *cs)
{
	if (!cs)
		return;
	free(cs->span);
	free(cs);
}

struct fill {
	const struct timeline *tl;
	const uint64_t *span;
	struct ref *refs;
	size_t nrefs, refs_cap;
	uint64_t maxlen;	/* the longest ref: how far back a search starts */
	struct hit *hits;
	size_t nhits, hits_cap;
	struct swin *sws;	/* the switch-ins inside a hit's reach, sorted */
	size_t nsws, sws_cap;
	struct reach *reach;	/* the hits' reaches, sorted, merged */
	size_t nreach;
};

/* Task @t of container @ci ran on @cpu during [@a, @b): its overlaps with the refs. */
static int add_run(struct fill *f, uint32_t ci, const struct tl_task *t, uint16_t cpu,
		   uint64_t a, uint64_t b)
{
	size_t rb, re, i;

	cpu_range(f->refs, f->nrefs, f->tl->ctrs[ci].file, cpu, &rb, &re);
	if (rb == re)
		return 0;
	for (i = lower(f->refs, rb, re, a > f->maxlen ? a - f->maxlen : 0);
	     i < re && f->refs[i].lo < b; i++) {
		const struct ref *r = &f->refs[i];
		uint64_t from = r->lo > a ? r->lo : a, to = r->hi < b ? r->hi : b;
		struct hit *h;

		if (to <= from)
			continue;
		if (array_grow((void **)&f->hits, &f->hits_cap, f->nhits + 1, sizeof(*h), 64) < 0)
			return -1;
		h = &f->hits[f->nhits++];
		h->ref = i;
		h->ns = to - from;
		h->a = a;
		h->b = b;
		h->from = from;
		h->to = to;
		h->t = t;
		h->tid = (int32_t)t->tid;
		h->pid = t->pid > 0 && t->pid <= INT32_MAX ? (int32_t)t->pid : h->tid;
		h->ctr = ci;
		h->comm = TL_NOSTR;
	}
	return 0;
}

/*
 * The hits' reaches: a hit [from, to) of a run from @a is clipped by a
 * switch-in on its CPU in (a, to), and only there. Sorted and merged, so
 * that add_swin() keeps the few switch-ins that matter, not every one of
 * the file. -1 out of memory.
 */
static int reaches(struct fill *f)
{
	size_t i, m = 0;

	f->reach = malloc((f->nhits ? f->nhits : 1) * sizeof(*f->reach));
	if (!f->reach)
		return -1;
	for (i = 0; i < f->nhits; i++) {
		const struct ref *r = &f->refs[f->hits[i].ref];

		f->reach[i] = (struct reach){ .lo = f->hits[i].a, .hi = f->hits[i].to,
					      .file = r->file, .cpu = r->cpu };
	}
	if (f->nhits > 1)
		qsort(f->reach, f->nhits, sizeof(*f->reach), cmp_reach);
	for (i = 0; i < f->nhits; i++) {
		struct reach *p = m ? &f->reach[m - 1] : NULL, *x = &f->reach[i];

		if (p && p->file == x->file && p->cpu == x->cpu && x->lo <= p->hi) {
			if (x->hi > p->hi)
				p->hi = x->hi;
			continue;
		}
		f->reach[m++] = *x;
	}
	f->nreach = m;
	return 0;
}

/* Is @ts inside a hit's reach on (@file, @cpu)? */
static bool in_reach(const struct fill *f, uint32_t file, uint16_t cpu, uint64_t ts)
{
	size_t b = 0, e = f->nreach;

	/* the last reach that starts before @ts */
	while (b < e) {
		size_t m = b + (e - b) / 2;
		const struct reach *x = &f->reach[m];

		if (x->file < file || (x->file == file && (x->cpu < cpu ||
		    (x->cpu == cpu && x->lo < ts))))
			b = m + 1;
		else
			e = m;
	}
	return b > 0 && f->reach[b - 1].file == file && f->reach[b - 1].cpu == cpu &&
	       ts < f->reach[b - 1].hi;
}

/* A task got @cpu of file @file at @ts: kept when it can clip a hit. */
static int add_swin(struct fill *f, uint32_t file, uint16_t cpu, uint64_t ts)
{
	if (!in_reach(f, file, cpu, ts))
		return 0;
	if (array_grow((void **)&f->sws, &f->sws_cap, f->nsws + 1, sizeof(*f->sws), 256) < 0)
		return -1;
	f->sws[f->nsws].ts = ts;
	f->sws[f->nsws].file = file;
	f->sws[f->nsws++].cpu = cpu;
	return 0;
}

/*
 * Every running interval of every task of the files with refs (@files[file])
 * that overlaps [@lo, @hi), the span of the refs: its overlaps with the refs
 * (add_run()); or, with @swins, every switch-in in that span (add_swin()).
 */
static int scan(struct fill *f, const bool *files, uint64_t lo, uint64_t hi, bool swins)
{
	const struct timeline *tl = f->tl;
	size_t ci, ti, j;
	long j0;

	for (ci = 0; ci < tl->nctrs; ci++) {
		const struct tl_container *c = &tl->ctrs[ci];

		if (c->file >= tl->nfiles || !files[c->file] || f->span[2 * ci + 1] <= lo ||
		    f->span[2 * ci] >= hi)
			continue;
		for (ti = 0; ti < c->ntasks; ti++) {
			const struct tl_task *t = &c->tasks[ti];

			/* an imported host task: the host's container has it whole */
			/* its last switch-in may come after its last other row */
			uint64_t end = t->end > t->last_end ? t->end : t->last_end;

			if ((t->host && !c->is_host) || t->tid <= 0 || t->tid > INT32_MAX ||
			    end <= lo || t->begin >= hi || !t->noffs)
				continue;
			/* the interval running at @lo began at the last off-CPU
			 * interval before it; earlier ones ended before it */
			j0 = timeline_off_before(t, lo);
			for (j = j0 > 0 ? (size_t)j0 : 0;
			     j < t->noffs && t->offs[j].out < hi; j++) {
				const struct tl_off *o = &t->offs[j];
				uint64_t a = o->out + o->dur;
				uint64_t b = j + 1 < t->noffs ? t->offs[j + 1].out : end;

				uint16_t cpu = timeline_off_info(tl, o)->cpu;

				if (cpu == TL_NOCPU)
					continue;
				if (swins) {
					if (a >= lo && a < hi && add_swin(f, c->file, cpu, a) < 0)
						return -1;
					continue;
				}
				if (b <= a)
					continue;
				if (add_run(f, (uint32_t)ci, t, cpu, a, b) < 0)
					return -1;
			}
		}
	}
	return 0;
}

/*
 * The first switch-in on (@file, @cpu) after @ts, or UINT64_MAX (the
 * switch-ins sorted).
 */
static uint64_t next_swin(const struct fill *f, uint32_t file, uint16_t cpu, uint64_t ts)
{
	size_t b = 0, e = f->nsws;

	while (b < e) {
		size_t m = b + (e - b) / 2;
		const struct swin *w = &f->sws[m];

		if (w->file < file || (w->file == file && (w->cpu < cpu ||
		    (w->cpu == cpu && w->ts <= ts))))
			b = m + 1;
		else
			e = m;
	}
	if (b < f->nsws && f->sws[b].file == file && f->sws[b].cpu == cpu)
		return f->sws[b].ts;
	return UINT64_MAX;
}

/*
 * The comm task @t had while it ran [@from, @to) of its running interval
 * [@a, @b): of its rows, the one it had for the longest part of it; a
 * comm that changed inside the interval at no row of it (a host task's
 * prctl(PR_SET_NAME): host rows have no syscalls) shows first at the row
 * that ended it, its switch-out or its exit at @b, and names it then
 * (a task renames itself as it starts, seldom as it stops).
 */
static uint32_t comm_during(const struct tl_task *t, uint64_t a, uint64_t b, uint64_t from,
			    uint64_t to)
{
	size_t lo = 0, hi = t->ncomms, k;
	uint32_t best, cur;
	uint64_t best_ns = 0, at = from;

	if (!t->ncomms)
		return t->comm;
	/* the first change after @a */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->comms[mid].ts <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* no row inside the interval changed it, the one that ended it did */
	if (lo < t->ncomms && t->comms[lo].ts == b)
		return t->comms[lo].comm;
	best = cur = timeline_comm_at(t, from);
	for (k = lo; k < t->ncomms && t->comms[k].ts < to; k++) {
		if (t->comms[k].ts <= from)
			continue;
		if (t->comms[k].ts - at > best_ns) {
			best_ns = t->comms[k].ts - at;
			best = cur;
		}
		at = t->comms[k].ts;
		cur = t->comms[k].comm;
	}
	return to - at > best_ns ? cur : best;
}

/*
 * Each hit clipped at the next switch-in on its CPU after its own: the
 * CPU was that task's then. A running interval is known from its task's
 * rows alone, a switch-in to the next switch-out; when the switch-out is
 * missing (a sched_switch the kernel did not trace, a host task's between
 * two boots of host_rows=boots, a lost row), it would run on over every
 * other task of that CPU, and the shares sum over 100%. Clipped, they
 * cannot: each hit ends before the next one's start. Then the comm of
 * what is left; the hits with nothing left go.
 */
static int clip(struct fill *f)
{
	size_t i, out = 0;

	if (f->nsws > 1)
		qsort(f->sws, f->nsws, sizeof(*f->sws), cmp_swin);
	for (i = 0; i < f->nhits; i++) {
		struct hit *h = &f->hits[i];
		const struct ref *r = &f->refs[h->ref];
		uint64_t next = next_swin(f, r->file, r->cpu, h->a);

		if (next < h->to)
			h->to = next;
		if (h->to <= h->from)
			continue;
		h->ns = h->to - h->from;
		h->comm = comm_during(h->t, h->a, h->b, h->from, h->to);
		f->hits[out++] = *h;
	}
	f->nhits = out;
	return 0;
}

/*
 * The hits, sorted by ref and tid, as one per (ref, tid): per container
 * summed (named by the comm of its longest hit), across containers the
 * largest (a tid whose host rows were merged into a container's task is
 * in both); then keyed for the report's order (ref := path, ctr :=
 * segment). Returns how many are left.
 */
static size_t merge(struct fill *f)
{
	size_t i = 0, out = 0;

	if (f->nhits > 1)	/* none: NULL, which qsort may not be given */
		qsort(f->hits, f->nhits, sizeof(*f->hits), cmp_hit);
	while (i < f->nhits) {
		struct hit best = f->hits[i];
		size_t j = i;

		best.ns = 0;
		while (j < f->nhits && f->hits[j].ref == f->hits[i].ref &&
		       f->hits[j].tid == f->hits[i].tid) {
			size_t k = j, longest = j;
			uint64_t sum = 0;

			while (k < f->nhits && f->hits[k].ref == f->hits[j].ref &&
			       f->hits[k].tid == f->hits[j].tid && f->hits[k].ctr == f->hits[j].ctr) {
				if (f->hits[k].ns > f->hits[longest].ns)
					longest = k;
				sum += f->hits[k++].ns;
			}
			if (sum > best.ns) {
				best = f->hits[longest];
				best.ns = sum;
			}
			j = k;
		}
		best.ctr = f->refs[best.ref].seg;
		best.ref = f->refs[best.ref].path;
		f->hits[out++] = best;
		i = j;
	}
	if (out > 1)
		qsort(f->hits, out, sizeof(*f->hits), cmp_share);
	return out;
}

int cpu_share_fill(struct cpu_share *cs, struct cp_path *paths, size_t n, uint64_t min_dur)
{
	const struct timeline *tl = cs->tl;
	struct fill f = { .tl = tl, .span = cs->span };
	bool *files = NULL;
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t i, k, m;
	int rc = -1;

	for (i = 0; i < n; i++) {
		const struct tl_container *c = &tl->ctrs[paths[i].ctr];

		for (k = 0; k < paths[i].nsegs; k++) {
			const struct cp_seg *s = &paths[i].segs[k];
			struct ref *r;

			if (s->state != CP_ST_RUNNABLE || s->cpu == TL_NOCPU || s->dur < min_dur)
				continue;
			if (array_grow((void **)&f.refs, &f.refs_cap, f.nrefs + 1, sizeof(*r), 64) < 0)
				goto out;
			r = &f.refs[f.nrefs++];
			r->lo = s->ts;
			r->hi = s->ts + s->dur;
			r->file = c->file;
			r->cpu = s->cpu;
			r->seg = (uint32_t)k;
			r->path = i;
			if (s->dur > f.maxlen)
				f.maxlen = s->dur;
		}
	}
	if (f.nrefs) {
		files = calloc(tl->nfiles ? tl->nfiles : 1, sizeof(*files));
		if (!files)
			goto out;
		if (f.nrefs > 1)
			qsort(f.refs, f.nrefs, sizeof(*f.refs), cmp_ref);
		for (i = 0; i < f.nrefs; i++) {
			if (f.refs[i].file < tl->nfiles)
				files[f.refs[i].file] = true;
			lo = f.refs[i].lo < lo ? f.refs[i].lo : lo;
			hi = f.refs[i].hi > hi ? f.refs[i].hi : hi;
		}
		if (scan(&f, files, lo, hi, false) < 0)
			goto out;
		/* the switch-ins from the earliest hit's on: where each one ends */
		for (i = 0; i < f.nhits; i++)
			lo = f.hits[i].a < lo ? f.hits[i].a : lo;
		if (f.nhits && (reaches(&f) < 0 || scan(&f, files, lo, hi, true) < 0 ||
				clip(&f) < 0))
			goto out;
	}
	m = merge(&f);
	/* hand each path its run of the sorted shares */
	for (i = 0, k = 0; i < n; i++) {
		size_t from = k;

		while (k < m && f.hits[k].ref == i)
			k++;
		paths[i].nshares = 0;
		paths[i].shares = NULL;
		if (k > from) {
			struct cp_share *s = malloc((k - from) * sizeof(*s));
			size_t j;

			if (!s)
				goto out;
			for (j = from; j < k; j++) {
				s[j - from].ns = f.hits[j].ns;
				s[j - from].seg = f.hits[j].ctr;
				s[j - from].tid = f.hits[j].tid;
				s[j - from].pid = f.hits[j].pid;
				s[j - from].comm = f.hits[j].comm;
			}
			paths[i].shares = s;
			paths[i].nshares = k - from;
		}
		paths[i].shares_filled = true;
	}
	rc = 0;
out:
	if (rc < 0)
		for (i = 0; i < n; i++) {
			free(paths[i].shares);
			paths[i].shares = NULL;
			paths[i].nshares = 0;
			paths[i].shares_filled = false;
		}
	free(files);
	free(f.refs);
	free(f.hits);
	free(f.sws);
	free(f.reach);
	return rc;
}

const struct cp_share *cpu_share_of(const struct cp_path *p, size_t seg, size_t *n)
{
	size_t b = 0, e = p->nshares, i;

	while (b < e) {
		size_t mid = b + (e - b) / 2;

		if (p->shares[mid].seg < seg)
			b = mid + 1;
		else
			e = mid;
	}
	for (i = b; i < p->nshares && p->shares[i].seg == seg; i++)
		;
	*n = i - b;
	return i > b ? &p->shares[b] : NULL;
}
