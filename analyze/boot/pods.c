// SPDX-License-Identifier: BSD-2-Clause
/* Containers' names and pods: see pods.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/array.h"
#include "analyze/boot/pods.h"
#include "analyze/read/strtab.h"
#include "common/entrypoint.h"
#include "common/tsv.h"

struct pods *pods__new(void)
{
	struct pods *p = calloc(1, sizeof(*p));

	if (!p || !(p->keys = strtab__new()) || !(p->scratch = malloc(TSV_MAX_LINE + 1))) {
		pods__free(p);
		return NULL;
	}
	return p;
}

void pods__free(struct pods *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++) {
		free(p->c[i].name);
		free(p->c[i].meta);
	}
	free(p->c);
	strtab__free(p->keys);
	free(p->scratch);
	free(p);
}

static bool is(const struct tsv_field *f, const char *s)
{
	size_t n = strlen(s);

	return f->n == n && memcmp(f->p, s, n) == 0;
}

/* The key of (run or file, name): malloc'd, its length in *@kn; NULL out of memory. */
static char *key_of(uint32_t file, const char *run, const char *name, size_t n, size_t *kn)
{
	char head[80];
	size_t hn = (size_t)snprintf(head, sizeof(head), "%.40s/%u\n", run ? run : "", run ? 0 : file);
	char *key = malloc(hn + n + 1);

	if (!key)
		return NULL;
	memcpy(key, head, hn);
	memcpy(key + hn, name, n);
	*kn = hn + n;
	return key;
}

/* The container of @r: (run or file, name), created when new; NULL out of memory. */
static struct pod_ctr *ctr_of(struct pods *p, uint32_t file, const char *run,
			      const struct tsv_field *name)
{
	size_t kn;
	char *key = key_of(file, run, name->p, name->n, &kn);
	struct pod_ctr *c;
	int added;
	long id;

	if (!key)
		return NULL;
	id = strtab_intern(p->keys, key, kn, &added);
	free(key);
	if (id < 0)
		return NULL;
	if (added) {
		if (array_grow((void **)&p->c, &p->cap, p->n + 1, sizeof(*p->c), 64) < 0)
			return NULL;
		c = &p->c[p->n++];
		memset(c, 0, sizeof(*c));
		c->key = (uint32_t)id;
		c->file = file;
		c->t_start = c->t_exec = c->t_init = c->t_listen = c->t_end = POD_NONE;
		c->t_create = POD_NONE;
		c->create_pid = -1;
		if (!(c->name = malloc(name->n ? name->n : 1)))
			return NULL;
		memcpy(c->name, name->p, name->n);
		c->name_n = name->n;
	}
	return &p->c[id];
}

const struct pod_ctr *pods_find(const struct pods *p, uint32_t file, const char *run,
				const char *name, size_t n)
{
	size_t kn;
	char *key = key_of(file, run, name, n, &kn);
	long id = key ? strtab_find(p->keys, key, kn) : -1;

	free(key);
	return id >= 0 ? &p->c[id] : NULL;
}

static void min_to(uint64_t *t, uint64_t v)
{
	if (v < *t)
		*t = v;
}

int pods_row(struct pods *p, uint32_t file, const char *run, const struct tsv_row *r)
{
	const struct tsv_field *ev = &r->f[TSV_EVENT], *d = &r->f[TSV_DETAIL];
	struct pod_ctr *c;
	long n;

	if (r->null & (1u << TSV_TS_NS))
		return 0;
	if (!(c = ctr_of(p, file, run, &r->f[TSV_CONTAINER])))
		return -1;
	if (is(ev, "start")) {
		min_to(&c->t_start, r->ts_ns);
		if (!is(&r->f[TSV_NAME], "client") && r->ts_ns < c->t_create) {
			c->t_create = r->ts_ns;
			c->create_pid = r->null & (1u << TSV_PID) ? -1 : r->pid;
		}
	} else if (is(ev, "end")) {
		min_to(&c->t_end, r->ts_ns);
	} else if (is(ev, "syscall")) {
		min_to(&c->t_listen, r->ts_ns + (r->null & (1u << TSV_DUR_NS) ? 0 : r->dur_ns));
	} else if (is(ev, "exec")) {
		if (is(&r->f[TSV_NAME], "init"))
			min_to(&c->t_init, r->ts_ns);
		if (!entrypoint_is_runtime(d->p, d->n))
			min_to(&c->t_exec, r->ts_ns);
	} else if (is(ev, "meta") && !c->meta) {
		/* the reader checked it parses (read/reader.c) */
		n = tsv_unescape(d->p, d->n, p->scratch);
		if (n < 0)
			return 0;
		if (!(c->meta = malloc((size_t)n ? (size_t)n : 1)))
			return -1;
		memcpy(c->meta, p->scratch, (size_t)n);
		c->meta_n = (size_t)n;
		if (meta_parse(c->meta, c->meta_n, &c->m) < 0)
			memset(&c->m, 0, sizeof(c->m));
	}
	return 0;
}

uint64_t pods_exec(const struct pod_ctr *c)
{
	return c->t_init != POD_NONE ? c->t_init : c->t_exec;
}

static const char *run_of(const struct pods *p, const struct pod_ctr *c, size_t *n)
{
	const char *k = strtab_str(p->keys, c->key, n), *nl = memchr(k, '\n', *n);

	*n = nl ? (size_t)(nl - k) : *n;
	return k;
}

/* Same pod: same run, same pod_uid. */
static bool same_pod(const struct pods *p, const struct pod_ctr *a, const struct pod_ctr *b)
{
	size_t na, nb;
	const char *ra = run_of(p, a, &na), *rb = run_of(p, b, &nb);
	const struct sched_str *ua = &a->m.v[META_POD_UID], *ub = &b->m.v[META_POD_UID];

	return na == nb && memcmp(ra, rb, na) == 0 && ua->n == ub->n &&
	       memcmp(ua->s, ub->s, ua->n) == 0;
}

/* Sandbox first, then by start. */
static int by_start(const void *x, const void *y)
{
	const struct pod_ctr *a = *(const struct pod_ctr *const *)x;
	const struct pod_ctr *b = *(const struct pod_ctr *const *)y;
	bool sa = meta_is_sandbox(&a->m), sb = meta_is_sandbox(&b->m);

	if (sa != sb)
		return sa ? -1 : 1;
	return a->t_start < b->t_start ? -1 : a->t_start > b->t_start;
}

static int by_t0(const void *x, const void *y)
{
	const struct pod *a = x, *b = y;

	return a->t0 < b->t0 ? -1 : a->t0 > b->t0;
}

/* Roles, t0, ready and names of pod @d (its containers sorted). */
static void pod_finish(struct pod *d)
{
	size_t i, j, apps = 0;
	struct pod_ctr *c;

	d->t0 = POD_NONE;
	d->ready = 0;
	d->names = &d->c[0]->m;
	for (i = 0; i < d->n; i++) {
		c = (struct pod_ctr *)d->c[i];
		if (c->m.v[META_POD].s && !d->names->v[META_POD].s)
			d->names = &c->m;
		if (meta_is_sandbox(&c->m)) {
			c->role = ROLE_SANDBOX;
			d->t0 = c->t_start;
			continue;
		}
		/* an init container ended before the next one began */
		c->role = ROLE_APP;
		for (j = i + 1; j < d->n; j++)
			if (c->t_end != POD_NONE && d->c[j]->t_start != POD_NONE &&
			    c->t_end <= d->c[j]->t_start) {
				c->role = ROLE_INIT;
				break;
			}
	}
	for (i = 0; i < d->n; i++) {
		if (d->t0 == POD_NONE || (d->c[0]->role != ROLE_SANDBOX && d->c[i]->t_start < d->t0))
			d->t0 = d->c[i]->t_start;
		if (d->c[i]->role != ROLE_APP)
			continue;
		apps++;
		if (d->c[i]->t_listen == POD_NONE || d->ready == POD_NONE)
			d->ready = POD_NONE;
		else if (d->c[i]->t_listen > d->ready)
			d->ready = d->c[i]->t_listen;
	}
	if (!apps || d->t0 == POD_NONE)
		d->ready = POD_NONE;
}

size_t pods_list(struct pods *p, struct pod **out)
{
	struct pod *v = NULL;
	size_t nv = 0, cap = 0, i, j;
	bool *taken = calloc(p->n ? p->n : 1, sizeof(*taken));

	*out = NULL;
	if (!taken)
		return (size_t)-1;
	for (i = 0; i < p->n; i++) {
		struct pod *d;

		if (taken[i] || !p->c[i].m.v[META_POD_UID].s || p->c[i].t_start == POD_NONE)
			continue;
		if (array_grow((void **)&v, &cap, nv + 1, sizeof(*v), 16) < 0)
			goto oom;
		d = &v[nv++];
		memset(d, 0, sizeof(*d));
		if (!(d->c = malloc((p->n - i) * sizeof(*d->c))))
			goto oom;
		for (j = i; j < p->n; j++)
			if (!taken[j] && p->c[j].t_start != POD_NONE && p->c[j].m.v[META_POD_UID].s &&
			    same_pod(p, &p->c[i], &p->c[j])) {
				taken[j] = true;
				d->c[d->n++] = &p->c[j];
			}
		qsort(d->c, d->n, sizeof(*d->c), by_start);
		pod_finish(d);
	}
	free(taken);
	if (nv)
		qsort(v, nv, sizeof(*v), by_t0);
	*out = v;
	return nv;
oom:
	for (i = 0; i < nv; i++)
		free(v[i].c);
	free(v);
	free(taken);
	return (size_t)-1;
}
