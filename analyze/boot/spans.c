// SPDX-License-Identifier: BSD-2-Clause
/* Interpreter spans summed by kind and what: see spans.h. */
#include <stdlib.h>
#include <string.h>

#include "analyze/array.h"
#include "analyze/boot/spans.h"

/* @a + @b, at most INT64_MAX: the printers take int64_t, hostile rows any length */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > (uint64_t)INT64_MAX - b ? (uint64_t)INT64_MAX : a + b;
}

static uint64_t span_len(const struct tl_span *s, uint64_t hi)
{
	uint64_t end = s->dur > UINT64_MAX - s->ts ? UINT64_MAX : s->ts + s->dur;

	if (end > hi)
		end = hi;
	return end > s->ts ? end - s->ts : 0;
}

uint64_t spans_self(const struct tl_task *t, size_t i, uint64_t hi)
{
	const struct tl_span *s = &t->spans[i];
	uint64_t len = span_len(s, hi), kids = 0, end = s->ts + len;
	size_t k;

	/* sorted by start: its children follow it until one starts past its end */
	for (k = i + 1; k < t->nspans && t->spans[k].ts < end; k++)
		if (t->spans[k].depth == s->depth + 1)
			kids = add_sat(kids, span_len(&t->spans[k], end));
	return kids < len ? len - kids : 0;
}

bool spans_is_loader(const char *file)
{
	static const char *const loaders[] = {
		"kernel_require.rb",		/* rubygems, bootsnap */
		"zeitwerk/kernel.rb", "zeitwerk/core_ext/kernel.rb",
		"bundled_gems.rb",		/* Ruby 3.3's warning wrapper */
		/* ActiveSupport::Dependencies::Loadable's load and require (Rails
		 * 6.1 and before: its initializers are loaded through it) */
		"active_support/dependencies.rb",
	};
	size_t n = strlen(file), i, k;

	/* Ruby 3.x names its own prelude's files "<internal:...>" */
	if (n && file[n - 1] == '>')
		n--;
	for (i = 0; i < sizeof(loaders) / sizeof(loaders[0]); i++) {
		k = strlen(loaders[i]);
		if (n >= k && memcmp(file + n - k, loaders[i], k) == 0 &&
		    (n == k || file[n - k - 1] == '/' || file[n - k - 1] == ':'))
			return true;
	}
	return false;
}

/* The time of @t in [@a, @b) by state, added to @st (its sched rows: off CPU). */
static void task_states(const struct tl_task *t, uint64_t a, uint64_t b,
			uint64_t st[SPAN_NSTATES])
{
	uint64_t off = 0, len = b - a;
	long j0 = timeline_off_before(t, a);
	size_t j;

	for (j = j0 > 0 ? (size_t)j0 : 0; j < t->noffs && t->offs[j].out < b; j++) {
		const struct tl_off *o = &t->offs[j];
		uint64_t in = o->out + o->dur, wake = timeline_off_wake(o);
		uint64_t x = o->out > a ? o->out : a, w = wake < b ? wake : b, y = in < b ? in : b;
		uint64_t blocked = w > x ? w - x : 0;
		uint64_t runnable = y > (wake > x ? wake : x) ? y - (wake > x ? wake : x) : 0;

		/* a hostile row may overlap another */
		if (blocked + runnable > len - off)
			break;
		st[SPAN_BLOCKED] += blocked;
		st[SPAN_RUNNABLE] += runnable;
		off += blocked + runnable;
	}
	st[SPAN_RUNNING] += len - off;
}

/* The self time of span @i of @t (within [.., @hi)) by state, into @st. */
static void self_states(const struct tl_task *t, size_t i, uint64_t hi,
			uint64_t st[SPAN_NSTATES])
{
	const struct tl_span *s = &t->spans[i];
	uint64_t end = s->ts + span_len(s, hi), at = s->ts;
	size_t k;

	for (k = i + 1; k < t->nspans && t->spans[k].ts < end; k++) {
		const struct tl_span *c = &t->spans[k];
		uint64_t ce;

		if (c->depth != s->depth + 1)
			continue;
		ce = c->ts + span_len(c, end);
		if (c->ts > at)
			task_states(t, at, c->ts, st);
		if (ce > at)
			at = ce;
	}
	if (end > at)
		task_states(t, at, end, st);
}

/*
 * The file that asked for span @i of @t, into *@file and *@line: its
 * caller, unless a loader's frame or the interpreter's own (line 0); else
 * the file of the span it is in; else nothing (TL_NOSTR).
 */
static void asked_by(const struct timeline *tl, const struct tl_task *t, size_t i,
		     uint32_t *file, uint32_t *line)
{
	const struct tl_span *s = &t->spans[i];

	*file = TL_NOSTR;
	*line = 0;
	if (s->caller != TL_NOSTR && s->line && !spans_is_loader(timeline_str(tl, s->caller))) {
		*file = s->caller;
		*line = s->line;
	} else if (s->parent != TL_NOSPAN) {
		*file = t->spans[s->parent].what;
	}
}

static int by_key(const void *a, const void *b)
{
	const struct span_stat *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->what < y->what ? -1 : x->what > y->what;
}

static int by_total(const void *a, const void *b)
{
	const struct span_stat *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return by_key(a, b);
}

void spans_sort_total(struct span_stat *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), by_total);
}

static int by_self(const void *a, const void *b)
{
	const struct span_stat *x = a, *y = b;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return by_key(a, b);
}

int spans_of(const struct timeline *tl, const struct tl_container *c, uint64_t lo, uint64_t hi,
	     struct span_stat **out, size_t *n)
{
	struct span_stat *v = NULL;
	size_t nv = 0, cap = 0, i, k, m;

	for (i = 0; i < c->ntasks; i++) {
		const struct tl_task *t = &c->tasks[i];

		for (k = 0; k < t->nspans; k++) {
			const struct tl_span *s = &t->spans[k];

			if (s->ts < lo || s->ts >= hi)
				continue;
			if (array_grow((void **)&v, &cap, nv + 1, sizeof(*v), 64) < 0) {
				free(v);
				return -1;
			}
			v[nv].kind = s->kind;
			v[nv].what = s->what;
			v[nv].total = span_len(s, hi);
			v[nv].self = spans_self(t, k, hi);
			v[nv].count = 1;
			v[nv].depth = s->depth;
			v[nv].states = c->has_sched;
			memset(v[nv].st, 0, sizeof(v[nv].st));
			if (c->has_sched)
				self_states(t, k, hi, v[nv].st);
			asked_by(tl, t, k, &v[nv].from, &v[nv].from_line);
			v[nv].from_ns = v[nv].total;
			nv++;
		}
	}
	if (nv)
		qsort(v, nv, sizeof(*v), by_key);
	for (i = 0, m = 0; i < nv; i++) {
		if (m && !by_key(&v[m - 1], &v[i])) {
			v[m - 1].self = add_sat(v[m - 1].self, v[i].self);
			v[m - 1].total = add_sat(v[m - 1].total, v[i].total);
			v[m - 1].count++;
			if (v[i].depth < v[m - 1].depth)
				v[m - 1].depth = v[i].depth;
			for (k = 0; k < SPAN_NSTATES; k++)
				v[m - 1].st[k] = add_sat(v[m - 1].st[k], v[i].st[k]);
			/* named by its longest that names one */
			if (v[i].from != TL_NOSTR &&
			    (v[m - 1].from == TL_NOSTR || v[i].from_ns > v[m - 1].from_ns)) {
				v[m - 1].from = v[i].from;
				v[m - 1].from_line = v[i].from_line;
				v[m - 1].from_ns = v[i].from_ns;
			}
			continue;
		}
		v[m++] = v[i];
	}
	if (m)
		qsort(v, m, sizeof(*v), by_self);
	*out = v;
	*n = m;
	return 0;
}
