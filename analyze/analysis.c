// SPDX-License-Identifier: BSD-2-Clause
/* Rows to phases and per-key totals: see analysis.h. */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/analysis.h"
#include "analyze/stats.h"

#define NONE UINT64_MAX

struct file_ctr {
	uint64_t t_start, t_exec, t_listen, rows;
	int32_t marks;		/* head of its list in analysis.fm, -1 = none */
	int8_t selected;	/* --container: -1 not decided yet, 0, 1 */
	int32_t by_id;		/* its group for --by container, -1 = none yet */
};

struct file_mark {
	uint32_t phase;
	int32_t next;
	uint64_t ts;
};

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t cap2;
	void *q;

	if (need <= *cap)
		return 0;
	cap2 = *cap ? *cap : 16;
	while (cap2 < need)
		cap2 *= 2;
	q = realloc(*p, cap2 * size);
	if (!q)
		return -1;
	*p = q;
	*cap = cap2;
	return 0;
}

static void group_table_release(struct group_table *t)
{
	size_t i, n = t->keys ? strtab_count(t->keys) : 0;

	for (i = 0; i < n; i++)
		llhist_release(&t->g[i].h);
	free(t->g);
	strtab__free(t->keys);
	memset(t, 0, sizeof(*t));
}

/* The group of key @s, created when new; NULL when out of memory. */
static struct group *group_get(struct group_table *t, const char *s, size_t n,
			       long *id_out)
{
	int added;
	long id = strtab_intern(t->keys, s, n, &added);

	if (id < 0)
		return NULL;
	if (added) {
		if (grow((void **)&t->g, &t->cap, (size_t)id + 1, sizeof(*t->g)) < 0)
			return NULL;
		memset(&t->g[id], 0, sizeof(t->g[id]));
		t->g[id].min = UINT64_MAX;
		llhist_init(&t->g[id].h);
	}
	if (id_out)
		*id_out = id;
	return &t->g[id];
}

static int group_add(struct group *g, const struct tsv_row *r)
{
	g->calls++;
	if (!(r->null & (1u << TSV_RET)) && r->ret < 0)
		g->errors++;
	if (r->null & (1u << TSV_DUR_NS))
		return 0;
	g->timed++;
	g->total += r->dur_ns;
	if (r->dur_ns < g->min)
		g->min = r->dur_ns;
	if (r->dur_ns > g->max)
		g->max = r->dur_ns;
	return llhist_add(&g->h, r->dur_ns);
}

uint64_t group_percentile(const struct group *g, unsigned p)
{
	uint64_t v;

	if (!g->timed)
		return 0;
	/* The extreme ranks are known exactly: a p99 of 100 or fewer values is
	 * their maximum, whatever the bucket width. */
	if (stats_rank(p, g->timed) == g->timed)
		return g->max;
	if (stats_rank(p, g->timed) == 1)
		return g->min;
	v = llhist_percentile(&g->h, p);
	if (v < g->min)
		v = g->min;
	if (v > g->max)
		v = g->max;
	return v;
}

struct analysis *analysis__new(const struct analyze_opts *opts)
{
	struct analysis *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->opts = *opts;
	a->phase_names = strtab__new();
	a->ctr_names = strtab__new();
	a->by.keys = strtab__new();
	a->sys.keys = strtab__new();
	a->scratch = malloc(TSV_MAX_LINE + 1);
	if (!a->phase_names || !a->ctr_names || !a->by.keys || !a->sys.keys ||
	    !a->scratch ||
	    strtab_intern(a->phase_names, "exec", 4, NULL) != PHASE_EXEC ||
	    strtab_intern(a->phase_names, "listen", 6, NULL) != PHASE_LISTEN ||
	    grow((void **)&a->phases, &a->phases_cap, 2, sizeof(*a->phases)) < 0) {
		analysis__free(a);
		return NULL;
	}
	memset(a->phases, 0, 2 * sizeof(*a->phases));
	return a;
}

void analysis__free(struct analysis *a)
{
	size_t i;

	if (!a)
		return;
	if (a->phase_names)
		for (i = 0; i < strtab_count(a->phase_names); i++)
			free(a->phases[i].v);
	free(a->phases);
	strtab__free(a->phase_names);
	strtab__free(a->ctr_names);
	free(a->ctrs);
	free(a->cphases);
	group_table_release(&a->by);
	group_table_release(&a->sys);
	strtab__free(a->fnames);
	free(a->fc);
	free(a->fm);
	free(a->scratch);
	free(a);
}

size_t analysis_nphases(const struct analysis *a)
{
	return strtab_count(a->phase_names);
}

const char *analysis_phase_name(const struct analysis *a, size_t i)
{
	return strtab_str(a->phase_names, i, NULL);
}

int analysis_begin_file(struct analysis *a)
{
	strtab__free(a->fnames);
	a->fnames = strtab__new();
	a->nfm = 0;
	a->last_ctr = -1;
	return a->fnames ? 0 : -1;
}

/* Does the unescaped value of field @f match @glob? */
static bool field_matches(struct analysis *a, const struct tsv_field *f,
			  const char *glob)
{
	long n = tsv_unescape(f->p, f->n, a->scratch);

	if (n < 0)
		return false; /* the reader checked the escapes: not reached */
	a->scratch[n] = '\0';
	if (memchr(a->scratch, '\0', (size_t)n))
		return false; /* an embedded \x00 cannot match a C string glob */
	return fnmatch(glob, a->scratch, 0) == 0;
}

static bool field_is(const struct tsv_field *f, const char *s, size_t n)
{
	return f->n == n && memcmp(f->p, s, n) == 0;
}

static int add_mark(struct analysis *a, struct file_ctr *c, const struct tsv_row *r)
{
	const struct tsv_field *f = &r->f[TSV_NAME];
	int added;
	long id = strtab_intern(a->phase_names, f->p, f->n, &added);
	int32_t k;

	if (id < 0)
		return -1;
	if (added) {
		if (grow((void **)&a->phases, &a->phases_cap, (size_t)id + 1,
			 sizeof(*a->phases)) < 0)
			return -1;
		memset(&a->phases[id], 0, sizeof(a->phases[id]));
	}
	for (k = c->marks; k >= 0; k = a->fm[k].next) {
		if (a->fm[k].phase == (uint32_t)id) {
			if (r->ts_ns < a->fm[k].ts)
				a->fm[k].ts = r->ts_ns;
			return 0;
		}
	}
	if (grow((void **)&a->fm, &a->fm_cap, a->nfm + 1, sizeof(*a->fm)) < 0)
		return -1;
	a->fm[a->nfm].phase = (uint32_t)id;
	a->fm[a->nfm].ts = r->ts_ns;
	a->fm[a->nfm].next = c->marks;
	c->marks = (int32_t)a->nfm++;
	return 0;
}

int analysis_add_row(struct analysis *a, const struct tsv_row *r)
{
	const struct tsv_field *cf = &r->f[TSV_CONTAINER], *ev = &r->f[TSV_EVENT];
	struct file_ctr *c;
	long id = a->last_ctr;
	size_t n;
	const char *s;

	a->rows++;
	/* Rows of one container come in runs: try the last one first. */
	if (id >= 0) {
		s = strtab_str(a->fnames, (size_t)id, &n);
		if (n != cf->n || memcmp(s, cf->p, n) != 0)
			id = -1;
	}
	if (id < 0) {
		int added;

		id = strtab_intern(a->fnames, cf->p, cf->n, &added);
		if (id < 0)
			return -1;
		if (added) {
			if (grow((void **)&a->fc, &a->fc_cap, (size_t)id + 1, sizeof(*a->fc)) < 0)
				return -1;
			c = &a->fc[id];
			c->t_start = c->t_exec = c->t_listen = NONE;
			c->rows = 0;
			c->marks = -1;
			c->selected = -1;
			c->by_id = -1;
		}
		a->last_ctr = id;
	}
	c = &a->fc[id];
	c->rows++;
	if (c->selected < 0)
		c->selected = !a->opts.container_glob ||
			      field_matches(a, cf, a->opts.container_glob);
	if (!c->selected)
		return 0;

	if (field_is(ev, "syscall", 7)) {
		const struct tsv_field *name = &r->f[TSV_NAME];

		if (field_is(name, "listen", 6) && !(r->null & (1u << TSV_RET)) &&
		    r->ret == 0 && !(r->null & (1u << TSV_TS_NS))) {
			uint64_t t = r->ts_ns;

			if (!(r->null & (1u << TSV_DUR_NS)))
				t += r->dur_ns;
			if (t < c->t_listen)
				c->t_listen = t;
		}
		if (a->opts.by == BY_SYSCALL || a->opts.syscalls) {
			struct group *g = group_get(&a->sys, name->p, name->n, NULL);

			if (!g || group_add(g, r) < 0)
				return -1;
		}
		if (a->opts.by == BY_CONTAINER) {
			struct group *g;

			if (c->by_id < 0) {
				long gid;

				if (!group_get(&a->by, cf->p, cf->n, &gid))
					return -1;
				c->by_id = (int32_t)gid;
			}
			g = &a->by.g[c->by_id];
			if (group_add(g, r) < 0)
				return -1;
		} else if (a->opts.by == BY_COMM) {
			const struct tsv_field *comm = &r->f[TSV_COMM];
			struct group *g = group_get(&a->by, comm->p, comm->n, NULL);

			if (!g || group_add(g, r) < 0)
				return -1;
		}
		return 0;
	}
	if (r->null & (1u << TSV_TS_NS))
		return 0; /* cannot be placed in time */
	if (field_is(ev, "start", 5)) {
		if (r->ts_ns < c->t_start)
			c->t_start = r->ts_ns;
	} else if (field_is(ev, "exec", 4)) {
		if (r->ts_ns < c->t_exec &&
		    (!a->opts.exec_pattern ||
		     field_matches(a, &r->f[TSV_DETAIL], a->opts.exec_pattern)))
			c->t_exec = r->ts_ns;
	} else if (field_is(ev, "mark", 4)) {
		return add_mark(a, c, r);
	}
	return 0;
}

static int push_value(struct analysis *a, uint32_t ctr, uint32_t phase, int64_t v)
{
	struct phase *p = &a->phases[phase];

	if (grow((void **)&p->v, &p->cap, p->n + 1, sizeof(*p->v)) < 0 ||
	    grow((void **)&a->cphases, &a->cphases_cap, a->ncphases + 1,
		 sizeof(*a->cphases)) < 0)
		return -1;
	p->v[p->n++] = v;
	a->cphases[a->ncphases].phase = phase;
	a->cphases[a->ncphases].v = v;
	a->ncphases++;
	a->ctrs[ctr].n++;
	return 0;
}

int analysis_end_file(struct analysis *a, const char *name, FILE *err)
{
	size_t i, n = strtab_count(a->fnames);
	uint64_t orows = 0, octrs = 0;

	for (i = 0; i < n; i++) {
		struct file_ctr *c = &a->fc[i];
		const char *cname;
		size_t clen;
		long nid;
		uint32_t me;
		int32_t k;

		if (!c->selected)
			continue;
		if (c->t_start == NONE) {
			orows += c->rows;
			octrs++;
			continue;
		}
		cname = strtab_str(a->fnames, i, &clen);
		nid = strtab_intern(a->ctr_names, cname, clen, NULL);
		if (nid < 0 || grow((void **)&a->ctrs, &a->ctrs_cap, a->nctrs + 1,
				    sizeof(*a->ctrs)) < 0)
			return -1;
		me = (uint32_t)a->nctrs++;
		a->ctrs[me].name = (uint32_t)nid;
		a->ctrs[me].file = a->nfiles;
		a->ctrs[me].first = a->ncphases;
		a->ctrs[me].n = 0;
		a->ncontainers++;
		if (c->t_exec != NONE &&
		    push_value(a, me, PHASE_EXEC, (int64_t)(c->t_exec - c->t_start)) < 0)
			return -1;
		if (c->t_listen != NONE &&
		    push_value(a, me, PHASE_LISTEN, (int64_t)(c->t_listen - c->t_start)) < 0)
			return -1;
		/* the list is newest first: walk it into phase order later */
		for (k = c->marks; k >= 0; k = a->fm[k].next)
			if (push_value(a, me, a->fm[k].phase,
				       (int64_t)(a->fm[k].ts - c->t_start)) < 0)
				return -1;
	}
	if (octrs && err)
		fprintf(err, "analyze: %s: %llu rows of %llu container%s without a start row ignored\n",
			name, (unsigned long long)orows, (unsigned long long)octrs,
			octrs == 1 ? "" : "s");
	a->orphan_rows += orows;
	a->orphan_ctrs += octrs;
	a->nfiles++;
	return 0;
}

int analysis_read(struct analysis *a, const char *path, FILE *err)
{
	const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
	int fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	struct tsv_reader *r = NULL;
	struct tsv_row row;
	uint64_t lost = 0;
	int rc, ret = 0;

	if (fd < 0) {
		fprintf(err, "analyze: cannot open %s: %s\n", path, strerror(errno));
		return 1;
	}
	r = tsv_reader__new(name, fd, a->opts.reader_flags);
	if (!r || analysis_begin_file(a) < 0) {
		fprintf(err, "analyze: %s: out of memory\n", name);
		ret = 1;
		goto out;
	}
	while ((rc = tsv_reader_next(r, &row)) == 1) {
		if (analysis_add_row(a, &row) < 0) {
			fprintf(err, "analyze: %s: out of memory\n", name);
			ret = 1;
			goto out;
		}
	}
	if (rc < 0) {
		fprintf(err, "analyze: %s\n", tsv_reader_error(r));
		ret = rc == -2 ? 1 : 2;
		goto out;
	}
	a->skipped += tsv_reader_skipped(r);
	if (!tsv_reader_trailer(r, &lost, NULL))
		fprintf(err, "analyze: %s: no trailer (file cut short?)\n", name);
	else if (lost)
		fprintf(err, "analyze: %s: the collector lost %llu events\n", name,
			(unsigned long long)lost);
	a->lost += lost;
	if (analysis_end_file(a, name, err) < 0) {
		fprintf(err, "analyze: %s: out of memory\n", name);
		ret = 1;
	}
out:
	tsv_reader__free(r);
	if (fd > 0)
		close(fd);
	return ret;
}

void analysis_finish(struct analysis *a)
{
	size_t i;

	for (i = 0; i < analysis_nphases(a); i++)
		stats_sort(a->phases[i].v, a->phases[i].n);
}

static int cmp_ref(const void *x, const void *y)
{
	const struct group_ref *a = x, *b = y;

	if (a->g->total != b->g->total)
		return a->g->total < b->g->total ? 1 : -1;
	if (a->g->calls != b->g->calls)
		return a->g->calls < b->g->calls ? 1 : -1;
	return strcmp(a->key, b->key);
}

size_t analysis_groups(const struct group_table *t, struct group_ref **out)
{
	size_t i, n = strtab_count(t->keys);

	*out = calloc(n ? n : 1, sizeof(**out));
	if (!*out)
		return (size_t)-1;
	for (i = 0; i < n; i++) {
		(*out)[i].key = strtab_str(t->keys, i, NULL);
		(*out)[i].g = &t->g[i];
	}
	if (n > 1)
		qsort(*out, n, sizeof(**out), cmp_ref);
	return n;
}
