// SPDX-License-Identifier: BSD-2-Clause
/* JIT names that came late: jit rows → the samples' stacks (jitnames.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/array.h"
#include "analyze/boot/jitnames.h"
#include "analyze/read/strtab.h"
#include "common/jit_detail.h"
#include "common/tsv.h"

struct jentry {
	uint64_t start, end;
	size_t name, name_n;	/* in the set's names */
	size_t row;		/* its row's order: the later wins */
};

/* The rows one process wrote at one time (its exit, an exec, the collector's end). */
struct jset {
	int64_t pid;
	uint64_t ts;
	struct jentry *v;
	size_t n, cap;
	char *names;
	size_t names_n, names_cap;
	struct jitname *sorted;	/* by start, one an address (jitnames_apply()) */
	size_t nsorted;
};

struct jitnames {
	struct jset *s;
	size_t n, cap;
	char *buf;		/* an unescaped detail */
	size_t buf_cap;
	size_t rows;
};

void jitnames__free(struct jitnames *j)
{
	size_t i;

	if (!j)
		return;
	for (i = 0; i < j->n; i++) {
		free(j->s[i].v);
		free(j->s[i].names);
		free(j->s[i].sorted);
	}
	free(j->s);
	free(j->buf);
	free(j);
}

int jitnames_add(struct jitnames **jp, const struct tsv_row *r)
{
	const struct tsv_field *d = &r->f[TSV_DETAIL];
	struct jitnames *j = *jp;
	struct jit_detail jd;
	struct jset *s;
	long n;

	if (!j && !(j = *jp = calloc(1, sizeof(*j))))
		return -1;
	if (array_grow((void **)&j->buf, &j->buf_cap, d->n + 1, 1, 256) < 0)
		return -1;
	n = tsv_unescape(d->p, d->n, j->buf);
	if (n < 0 || jit_detail_parse(j->buf, (size_t)n, &jd) < 0 ||
	    (r->null & (1u << TSV_PID)))
		return 0;	/* the reader refused these: not here (lenient reading) */
	s = j->n ? &j->s[j->n - 1] : NULL;
	if (!s || s->pid != r->pid || s->ts != r->ts_ns) {
		if (array_grow((void **)&j->s, &j->cap, j->n + 1, sizeof(*j->s), 8) < 0)
			return -1;
		s = &j->s[j->n++];
		memset(s, 0, sizeof(*s));
		s->pid = r->pid;
		s->ts = r->ts_ns;
	}
	if (array_grow((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v), 16) < 0 ||
	    array_grow((void **)&s->names, &s->names_cap, s->names_n + jd.name_n, 1, 1024) < 0)
		return -1;
	memcpy(s->names + s->names_n, jd.name, jd.name_n);
	s->v[s->n++] = (struct jentry){ jd.start, jd.start + jd.size, s->names_n, jd.name_n,
					j->rows++ };
	s->names_n += jd.name_n;
	return 0;
}

static int cmp_entry(const void *x, const void *y)
{
	const struct jentry *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->row < b->row ? -1 : a->row > b->row;
}

static int cmp_set(const void *x, const void *y)
{
	const struct jset *a = x, *b = y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->ts < b->ts ? -1 : a->ts > b->ts;
}

/* @s's entries by start, the later row of two at one start. -1 out of memory. */
static int set_sort(struct jset *s)
{
	size_t i;

	qsort(s->v, s->n, sizeof(*s->v), cmp_entry);
	if (!(s->sorted = calloc(s->n ? s->n : 1, sizeof(*s->sorted))))
		return -1;
	for (i = 0; i < s->n; i++) {
		struct jitname e = { s->v[i].start, s->v[i].end, s->names + s->v[i].name,
				     s->v[i].name_n };

		if (s->nsorted && s->sorted[s->nsorted - 1].start == e.start)
			s->sorted[s->nsorted - 1] = e;
		else
			s->sorted[s->nsorted++] = e;
	}
	return 0;
}

/* The entry of @v (@n, by start) holding @addr: the last starting at or below it, if it ends above. */
static const struct jitname *lookup(const struct jitname *v, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < v[lo - 1].end ? &v[lo - 1] : NULL;
}

size_t jitnames_rewrite(const struct jitname *v, size_t nv, const char *esc, size_t n, char *out,
			size_t outsz, char *scratch, struct frame *fr)
{
	size_t raw_n = 0, i, changed = 0;
	char *raw;
	int nf;

	if (!memmem(esc, n, "u:0x", 4))
		return 0;
	nf = frames_parse_field(esc, n, scratch, fr, NULL, 0);
	if (nf <= 0)
		return 0;
	/* the raw frames, renamed, before out's escaped copy: at its end */
	if (outsz < 2)
		return 0;
	raw = out + outsz / 2;
	for (i = 0; i < (size_t)nf; i++) {
		const struct jitname *e = fr[i].kind == FRAME_UADDR ? lookup(v, nv, fr[i].off) : NULL;
		char head[32];
		int hn = 0;
		size_t need;

		if (e)
			hn = snprintf(head, sizeof(head), "j:%zu:", e->name_n);
		need = (i ? 1 : 0) + (e ? (size_t)hn + e->name_n : fr[i].text_len);
		if (raw_n + need > outsz / 2)
			return 0;
		if (i)
			raw[raw_n++] = ' ';
		if (e) {
			memcpy(raw + raw_n, head, (size_t)hn);
			memcpy(raw + raw_n + hn, e->name, e->name_n);
			raw_n += (size_t)hn + e->name_n;
			changed++;
		} else {
			memcpy(raw + raw_n, fr[i].text, fr[i].text_len);
			raw_n += fr[i].text_len;
		}
	}
	if (!changed || TSV_ESCAPED_MAX(raw_n) > outsz / 2)
		return 0;
	return tsv_escape(raw, raw_n, out);
}

/*
 * The samples of @t whose stacks @sets (@nsets of @t's pid, by time, the
 * first of them at @base in all sets) name, each by the first set written
 * at or after it: their stacks renamed. @ix maps (set, stack) to the
 * renamed stack, @ren holds them. -1 out of memory.
 */
static int apply_task(struct timeline *tl, struct tl_task *t, const struct jset *sets, size_t nsets,
		      size_t base, struct strtab *ix, uint32_t **ren, size_t *ren_cap, char *buf, size_t bufsz,
		      char *scratch, struct frame *fr)
{
	size_t i, k = 0;

	for (i = 0; i < t->nsamples; i++) {
		struct tl_sample *smp = &t->samples[i];
		uint32_t key[2];
		const char *esc;
		size_t n, len;
		long id, w;
		int added;

		while (k < nsets && sets[k].ts < smp->ts)
			k++;	/* samples by time: the first set written at or after it */
		if (k == nsets)
			return 0;
		if (smp->stack == TL_NOSTR)
			continue;
		key[0] = (uint32_t)(base + k);
		key[1] = smp->stack;
		if ((id = strtab_intern(ix, (const char *)key, sizeof(key), &added)) < 0 ||
		    array_grow((void **)ren, ren_cap, (size_t)id + 1, sizeof(**ren), 64) < 0)
			return -1;
		if (added) {
			esc = strtab_str(tl->strs, smp->stack, &n);
			(*ren)[id] = TL_NOSTR;
			if (TSV_ESCAPED_MAX(n + 1) <= bufsz / 4 &&
			    (len = jitnames_rewrite(sets[k].sorted, sets[k].nsorted, esc, n, buf,
						    bufsz, scratch, fr))) {
				if ((w = strtab_intern(tl->strs, buf, len, NULL)) < 0)
					return -1;
				(*ren)[id] = (uint32_t)w;
			}
		}
		if ((*ren)[id] != TL_NOSTR)
			smp->stack = (*ren)[id];
	}
	return 0;
}

int jitnames_apply(struct jitnames *j, struct timeline *tl)
{
	size_t i, c, k, bufsz = 4 * (size_t)(TSV_MAX_LINE + 1);
	char *buf = NULL, *scratch = NULL;
	struct frame *fr = NULL;
	uint32_t *ren = NULL;
	size_t ren_cap = 0;
	struct strtab *ix = NULL;
	int ret = -1;

	if (!j || !j->n)
		return 0;
	qsort(j->s, j->n, sizeof(*j->s), cmp_set);
	for (i = 0; i < j->n; i++)
		if (set_sort(&j->s[i]) < 0)
			return -1;
	if (!(buf = malloc(bufsz)) || !(scratch = malloc(TSV_MAX_LINE + 1)) ||
	    !(fr = malloc(FRAMES_MAX * sizeof(*fr))) || !(ix = strtab__new()))
		goto out;
	for (c = 0; c < tl->nctrs; c++)
		for (k = 0; k < tl->ctrs[c].ntasks; k++) {
			struct tl_task *t = &tl->ctrs[c].tasks[k];
			size_t lo = 0, hi = j->n;

			if (!t->nsamples)
				continue;
			while (lo < hi) {	/* the first set of its pid */
				size_t mid = lo + (hi - lo) / 2;

				if (j->s[mid].pid < t->pid)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (hi = lo; hi < j->n && j->s[hi].pid == t->pid; hi++)
				;
			if (hi > lo && apply_task(tl, t, j->s + lo, hi - lo, lo, ix, &ren, &ren_cap,
						  buf, bufsz, scratch, fr) < 0)
				goto out;
		}
	ret = 0;
out:
	free(buf);
	free(scratch);
	free(fr);
	free(ren);
	strtab__free(ix);
	return ret;
}
