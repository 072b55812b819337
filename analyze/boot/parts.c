// SPDX-License-Identifier: BSD-2-Clause
/*
 * A regular file's rows read in parts, one thread each, each into an
 * analysis of its own, then merged in file order: see analysis_int.h.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/boot/analysis.h"
#include "analyze/boot/analysis_int.h"
#include "analyze/stats/llhist.h"

/* Bytes of rows per thread below which splitting a file is not worth it. */
#define MIN_PART (1u << 20)
#define MAX_PARTS 64
/* How far past a cut point to look for the end of a line. */
#define CUT_CHUNK (64u << 10)

/* Add group @s into @g. 0, or -1 out of memory. */
static int group_merge(struct group *g, const struct group *s)
{
	g->calls += s->calls;
	g->errors += s->errors;
	g->timed += s->timed;
	g->total += s->total;
	if (s->min < g->min)
		g->min = s->min;
	if (s->max > g->max)
		g->max = s->max;
	return llhist_merge(&g->h, &s->h);
}

/*
 * Add the groups of @src into @dst, in @src's order: merging the parts in
 * file order gives the keys the ids one thread would have given them.
 */
static int merge_groups(struct group_table *dst, const struct group_table *src)
{
	size_t i, n = strtab_count(src->keys), len;

	for (i = 0; i < n; i++) {
		const char *k = strtab_str(src->keys, i, &len);
		struct group *g = analysis_group_get(dst, k, len);

		if (!g || group_merge(g, &src->g[i]) < 0)
			return -1;
	}
	return 0;
}

/*
 * Fold the analysis @w of the next part of the file into @a: containers and
 * mark labels new to @a are added in @w's order (of first appearance), so
 * that @a ends as if it had read the rows itself. 0, or -1 out of memory.
 */
static int merge_part(struct analysis *a, const struct analysis *w)
{
	size_t nl = strtab_count(w->phase_names), nc = strtab_count(w->fnames), i, len;
	uint32_t *map = malloc((nl + nc) * sizeof(*map)), *cmap = map + nl;
	int ret = -1;

	if (!map)
		return -1;
	for (i = 0; i < nl; i++) {
		const char *s = strtab_str(w->phase_names, i, &len);
		long id = analysis_phase_get(a, s, len);

		if (id < 0)
			goto out;
		map[i] = (uint32_t)id;
	}
	if (merge_groups(&a->sys, &w->sys) < 0 || merge_groups(&a->by, &w->by) < 0)
		goto out;
	for (i = 0; i < nc; i++) {
		const struct file_ctr *s = &w->fc[i];
		const char *name = strtab_str(w->fnames, i, &len);
		long id = analysis_file_ctr_get(a, name, len);
		struct file_ctr *c;

		if (id < 0)
			goto out;
		cmap[i] = (uint32_t)id;
		c = &a->fc[id];
		c->t_start = min_u64(c->t_start, s->t_start);
		c->t_exec = min_u64(c->t_exec, s->t_exec);
		c->t_init = min_u64(c->t_init, s->t_init);
		c->t_listen = min_u64(c->t_listen, s->t_listen);
		c->rows += s->rows;
		c->selected = s->selected;
		file_ctr_merge_end(c, s);
	}
	/* w->fm is in order of creation: each container's labels oldest first */
	for (i = 0; i < w->nfm; i++)
		if (analysis_mark_min(a, cmap[w->fm[i].ctr], map[w->fm[i].phase], w->fm[i].ts) < 0)
			goto out;
	a->rows += w->rows;
	a->samples += w->samples;
	ret = 0;
out:
	free(map);
	return ret;
}

/* One part of a file: its rows, its own analysis, its outcome. */
struct part {
	struct analysis *w;
	struct tsv_reader *r;
	size_t idx;
	atomic_size_t *failed;	/* the lowest index of a part that failed */
	int rc;			/* 0, or tsv_reader_next()'s -1 / -2, or -3 out of memory */
	pthread_t tid;
	bool started;
};

static void *part_run(void *arg)
{
	struct part *p = arg;
	struct tsv_row row;
	size_t f;
	int rc;

	while ((rc = tsv_reader_next(p->r, &row)) == 1) {
		if (analysis_add_row(p->w, &row) < 0) {
			rc = -3;
			break;
		}
		/* An earlier part failed: its error is the one reported. */
		if (atomic_load_explicit(p->failed, memory_order_relaxed) < p->idx)
			break;
	}
	p->rc = rc < 0 ? rc : 0;
	if (rc < 0) {
		f = atomic_load(p->failed);
		while (p->idx < f && !atomic_compare_exchange_weak(p->failed, &f, p->idx))
			;
	}
	return NULL;
}

/*
 * Cut the rows in [@body, @size) into at most @n parts, each starting just
 * after a LF: part k is [cut[k], cut[k + 1]), the last one reads to the end
 * of the file (cut[parts] = UINT64_MAX). Returns the number of parts; 1 when
 * no LF is found within a line's maximum past a cut (a line too long for the
 * one-thread reader to report) or on a read error (the same).
 */
static size_t find_cuts(int fd, uint64_t body, uint64_t size, size_t n, uint64_t *cut)
{
	char *buf = malloc(CUT_CHUNK);
	size_t parts = 1, k;

	cut[0] = body;
	for (k = 1; buf && k < n; k++) {
		uint64_t at = body + (size - body) / n * k, lf = UINT64_MAX, seen = 0;

		if (at < cut[parts - 1])
			at = cut[parts - 1];
		while (lf == UINT64_MAX && seen <= TSV_MAX_LINE) {
			ssize_t got = pread(fd, buf, CUT_CHUNK, (off_t)(at + seen));
			char *nl;

			if (got <= 0)
				break;
			nl = memchr(buf, '\n', (size_t)got);
			if (nl)
				lf = at + seen + (uint64_t)(nl - buf);
			seen += (uint64_t)got;
		}
		if (lf == UINT64_MAX) {
			parts = 1;
			break;
		}
		if (lf + 1 >= size)
			break;
		cut[parts++] = lf + 1;
	}
	free(buf);
	cut[parts] = UINT64_MAX;
	return parts;
}

static void parts_free(struct part *p, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++) {
		tsv_reader__free(p[k].r);
		analysis__free(p[k].w);
	}
	free(p);
}

int parts_read(struct analysis *a, int fd, const char *name, uint64_t body, uint64_t size,
	       uint64_t lines, FILE *err, struct file_tail *t)
{
	struct analyze_opts o = a->opts;
	uint64_t cut[MAX_PARTS + 1];
	atomic_size_t failed;
	size_t n = o.threads, k;
	struct part *p;
	int ret = 0;

	if (size <= body)
		return -1;
	if (n > (size - body) / MIN_PART)
		n = (size_t)((size - body) / MIN_PART);
	if (n > MAX_PARTS)
		n = MAX_PARTS;
	if (n < 2 || (n = find_cuts(fd, body, size, n, cut)) < 2)
		return -1;
	p = calloc(n, sizeof(*p));
	if (!p)
		goto oom;
	atomic_init(&failed, SIZE_MAX);
	o.threads = 1;
	for (k = 0; k < n; k++) {
		p[k].idx = k;
		p[k].failed = &failed;
		p[k].w = analysis__new(&o);
		p[k].r = tsv_reader__new_range(name, fd, o.reader_flags | TSV_NO_IDS,
					       cut[k], cut[k + 1]);
		if (!p[k].w || !p[k].r || analysis_begin_file(p[k].w) < 0)
			goto oom;
	}
	/* Part 0 on this thread; a part whose thread cannot start, after it. */
	for (k = 1; k < n; k++)
		p[k].started = pthread_create(&p[k].tid, NULL, part_run, &p[k]) == 0;
	part_run(&p[0]);
	for (k = 1; k < n; k++) {
		if (p[k].started)
			pthread_join(p[k].tid, NULL);
		else
			part_run(&p[k]);
	}
	for (k = 0; k < n && p[k].rc == 0; k++)
		lines += tsv_reader_line(p[k].r);
	if (k < n) {
		/* the first error in the file, at its line in the whole file */
		if (p[k].rc == -3) {
			fprintf(err, "analyze: %s: out of memory\n", name);
			ret = 1;
		} else {
			tsv_reader_rebase(p[k].r, lines);
			fprintf(err, "analyze: %s\n", tsv_reader_error(p[k].r));
			ret = p[k].rc == -2 ? 1 : 2;
		}
		parts_free(p, n);
		return ret;
	}
	for (k = 0; k < n; k++) {
		uint64_t lost;

		if (merge_part(a, p[k].w) < 0)
			goto oom;
		t->skipped += tsv_reader_skipped(p[k].r);
		if (tsv_reader_trailer(p[k].r, &lost, NULL)) {
			t->trailer = true; /* the last one counts, as with one reader */
			t->lost = lost;
		}
	}
	parts_free(p, n);
	return 0;
oom:
	fprintf(err, "analyze: %s: out of memory\n", name);
	parts_free(p, p ? n : 0);
	return 1;
}
