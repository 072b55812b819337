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

static int by_key(const void *a, const void *b)
{
	const struct span_stat *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->what < y->what ? -1 : x->what > y->what;
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

int spans_of(const struct tl_container *c, uint64_t lo, uint64_t hi, struct span_stat **out,
	     size_t *n)
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
