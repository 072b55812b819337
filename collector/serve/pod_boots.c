// SPDX-License-Identifier: BSD-2-Clause
/* Each pod's boot from its containers' rows: see pod_boots.h. */
#include <stdlib.h>
#include <string.h>

#include "collector/idmap.h"
#include "collector/serve/pod_boots.h"
#include "common/entrypoint.h"
#include "common/meta.h"

#define NONE UINT64_MAX

struct pod {
	uint64_t key;		/* its uid's hash */
	uint64_t t0;		/* the earliest start of its containers */
	uint64_t ran_ns;	/* the time its ended containers ran (init containers) */
	unsigned members;	/* containers of it not yet ended */
	int done;		/* its values are observed */
	int sandbox;		/* it has had a sandbox */
};

struct pctr {
	uint64_t key;		/* its name's hash */
	uint64_t t_start, t_exec;
	int sandbox;
	struct pod *pod;	/* NULL until its meta row */
};

struct pod_boots {
	void (*observe)(void *ctx, enum pod_value what, int64_t ns);
	void *ctx;
	struct idmap ctrs, pods;
};

struct pod_boots *pod_boots__new(void (*observe)(void *ctx, enum pod_value what, int64_t ns),
				 void *ctx)
{
	struct pod_boots *p = calloc(1, sizeof(*p));

	if (p) {
		p->observe = observe;
		p->ctx = ctx;
	}
	return p;
}

static void free_all(struct idmap *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		if (m->slots[i].key)
			free(m->slots[i].val);
	idmap_free(m);
}

void pod_boots__free(struct pod_boots *p)
{
	if (!p)
		return;
	free_all(&p->ctrs);
	free_all(&p->pods);
	free(p);
}

/* Container @f's state, made when @make (a 64-bit hash collision: the two share one). */
static struct pctr *ctr_get(struct pod_boots *p, struct field f, int make)
{
	uint64_t h = idmap_key_of(f.s, f.n);
	struct pctr *k = idmap_get(&p->ctrs, h);

	if (k || !make || !(k = calloc(1, sizeof(*k))))
		return k;
	k->key = h;
	k->t_start = k->t_exec = NONE;
	if (idmap_put(&p->ctrs, h, k) < 0) {
		free(k);
		return NULL;
	}
	return k;
}

static void on_meta(struct pod_boots *p, struct pctr *k, const struct row *r)
{
	struct meta m;
	struct pod *d;
	uint64_t h;

	if (k->pod || !r->detail.s || meta_parse(r->detail.s, r->detail.n, &m) < 0 ||
	    !m.v[META_POD_UID].s)
		return;
	h = idmap_key_of(m.v[META_POD_UID].s, m.v[META_POD_UID].n);
	if (!(d = idmap_get(&p->pods, h))) {
		if (!(d = calloc(1, sizeof(*d))))
			return;
		d->key = h;
		d->t0 = NONE;
		if (idmap_put(&p->pods, h, d) < 0) {
			free(d);
			return;
		}
	}
	k->pod = d;
	k->sandbox = meta_is_sandbox(&m);
	d->sandbox |= k->sandbox;
	d->members++;
	if (k->t_start < d->t0)
		d->t0 = k->t_start;
}

/* The pod's first listen, by @k at @ts: its values. */
static void on_listen(struct pod_boots *p, struct pctr *k, uint64_t ts)
{
	struct pod *d = k->pod;
	uint64_t started = 0, t;
	size_t i;

	if (!d || d->done || k->sandbox || d->t0 == NONE || ts < d->t0)
		return;
	d->done = 1;
	/* the last entrypoint of its containers running now (its apps) */
	for (i = 0; i < p->ctrs.cap; i++) {
		const struct pctr *c = p->ctrs.slots[i].val;

		if (p->ctrs.slots[i].key && c->pod == d && !c->sandbox && c->t_exec != NONE &&
		    c->t_exec > started && c->t_exec <= ts)
			started = c->t_exec;
	}
	if (started >= d->t0 && started - d->t0 >= d->ran_ns) {
		t = started - d->t0 - d->ran_ns;
		p->observe(p->ctx, POD_STARTUP, (int64_t)t);
	}
	p->observe(p->ctx, POD_LISTEN, (int64_t)(ts - d->t0));
}

static void on_end(struct pod_boots *p, struct pctr *k, uint64_t ts)
{
	struct pod *d = k->pod;

	if (d) {
		/* an init container's run (before the pod's first listen) */
		if (!k->sandbox && !d->done && k->t_start != NONE && ts > k->t_start)
			d->ran_ns += ts - k->t_start;
		/*
		 * Gone with its last container, once counted or its sandbox
		 * ended (the pod is over); a pod without a sandbox (no CRI
		 * annotations: a tree made by hand) waits for its next
		 * container after an init container's end.
		 */
		if (--d->members == 0 && (d->done || d->sandbox)) {
			idmap_del(&p->pods, d->key);
			free(d);
		}
	}
	idmap_del(&p->ctrs, k->key);
	free(k);
}

void pod_boots_row(void *ctx, const struct row *r)
{
	struct pod_boots *p = ctx;
	const char *ev = r->event;
	struct pctr *k;

	if (ev[0] == 's' && ev[1] == 'y') {
		if (r->has_ret && r->ret == 0 && r->name.n == 6 && memcmp(r->name.s, "listen", 6) == 0 &&
		    (k = ctr_get(p, r->container, 0)))
			on_listen(p, k, r->ts_ns + (r->has_dur ? r->dur_ns : 0));
		return;
	}
	if (strcmp(ev, "start") == 0) {
		if ((k = ctr_get(p, r->container, 1)) && r->ts_ns < k->t_start)
			k->t_start = r->ts_ns;
	} else if (strcmp(ev, "meta") == 0) {
		if ((k = ctr_get(p, r->container, 0)))
			on_meta(p, k, r);
	} else if (strcmp(ev, "exec") == 0) {
		if ((k = ctr_get(p, r->container, 0)) && k->t_exec == NONE &&
		    ((r->name.n == 4 && memcmp(r->name.s, "init", 4) == 0) ||
		     !entrypoint_is_runtime(r->detail.s ? r->detail.s : "", r->detail.s ? r->detail.n : 0)))
			k->t_exec = r->ts_ns;
	} else if (strcmp(ev, "end") == 0) {
		if ((k = ctr_get(p, r->container, 0)))
			on_end(p, k, r->ts_ns);
	}
}
