// SPDX-License-Identifier: BSD-2-Clause
/* A pod's boot as one boot: see pod_boot.h. */
#include <stdlib.h>
#include <string.h>

#include "analyze/array.h"
#include "analyze/boot/analysis.h"
#include "analyze/boot/host_tasks.h"
#include "analyze/boot/pod_boot.h"
#include "common/end_detail.h"
#include "common/tsv.h"

/* @s unescaped (@len bytes) escaped onto @out at *@at (room: 4 bytes a byte). */
static void put(char *out, size_t n, size_t *at, const char *s, size_t len)
{
	char tmp[4 * 256 + 1];

	if (len > 256)
		len = 256;
	len = tsv_escape(s, len, tmp);
	if (*at + len + 1 > n)
		len = n - *at - 1;
	memcpy(out + *at, tmp, len);
	*at += len;
	out[*at] = '\0';
}

size_t pod_boot_name(const struct pod *d, char *out, size_t n)
{
	const struct meta *m = d->names;
	size_t at = 0;

	out[0] = '\0';
	if (m->v[META_POD].s) {
		if (m->v[META_NAMESPACE].s) {
			put(out, n, &at, m->v[META_NAMESPACE].s, m->v[META_NAMESPACE].n);
			put(out, n, &at, "/", 1);
		}
		put(out, n, &at, m->v[META_POD].s, m->v[META_POD].n);
	} else if (m->v[META_POD_UID].s) {
		put(out, n, &at, "pod", 3);
		put(out, n, &at, m->v[META_POD_UID].s, m->v[META_POD_UID].n);
	}
	return at;
}

/* The timeline container of file @file named @name (@n bytes, escaped), or -1. */
static long find_ctr(const struct timeline *tl, uint32_t file, const char *name, size_t n)
{
	size_t i;

	/* (a linear search per container of a pod: pods are few beside rows) */
	for (i = 0; i < tl->nctrs; i++) {
		const char *s = timeline_str(tl, tl->ctrs[i].name);

		if (tl->ctrs[i].file == file && strlen(s) == n && memcmp(s, name, n) == 0)
			return (long)i;
	}
	return -1;
}

long pod_boot_find(const struct timeline *tl, const struct pod *d)
{
	char name[1100];
	size_t n = pod_boot_name(d, name, sizeof(name));

	return n ? find_ctr(tl, d->c[0]->file, name, n) : -1;
}

/* Append @k elements of @size at @src to *@dst (*@len of *@cap). -1 out of memory. */
static int append(void **dst, size_t *len, size_t *cap, const void *src, size_t k, size_t size)
{
	if (!k)
		return 0;
	if (array_grow(dst, cap, *len + k, size, 4) < 0)
		return -1;
	memcpy((char *)*dst + *len * size, src, k * size);
	*len += k;
	return 0;
}

/* Container @s moved into @d (neither finished): @s is left empty. */
static int absorb(struct tl_container *d, struct tl_container *s)
{
	size_t base = d->ntasks, i, j, m0 = d->nmarks;

	if (append((void **)&d->tasks, &d->ntasks, &d->tasks_cap, s->tasks, s->ntasks, sizeof(*s->tasks)) < 0 ||
	    append((void **)&d->starts, &d->nstarts, &d->starts_cap, s->starts, s->nstarts, sizeof(*s->starts)) < 0 ||
	    append((void **)&d->marks, &d->nmarks, &d->marks_cap, s->marks, s->nmarks, sizeof(*s->marks)) < 0)
		return -1;
	for (i = m0; i < d->nmarks; i++)
		d->marks[i].task += (uint32_t)base;
	for (i = 0; i < s->nphases; i++) {
		for (j = 0; j < d->nphases && d->phases[j].phase != s->phases[i].phase; j++)
			;
		if (j < d->nphases) {
			if (s->phases[i].ts < d->phases[j].ts)
				d->phases[j].ts = s->phases[i].ts;
		} else if (append((void **)&d->phases, &d->nphases, &d->phases_cap, &s->phases[i], 1,
				  sizeof(*s->phases)) < 0) {
			return -1;
		}
	}
	if (s->t_start < d->t_start)
		d->t_start = s->t_start;
	if (s->lost > d->lost)
		d->lost = s->lost;
	d->has_sched |= s->has_sched;
	d->host_rows |= s->host_rows;
	d->has_profile |= s->has_profile;
	d->has_spans |= s->has_spans;
	/* the pod ended with the last of its containers; not while one runs on */
	if (s->t_end_row == TL_NONE || d->t_end_row == TL_NONE) {
		d->t_end_row = TL_NONE;
		d->end_how = END_UNKNOWN;
		d->end_pid = -1;
	} else if (s->t_end_row > d->t_end_row) {
		d->t_end_row = s->t_end_row;
		d->end_how = s->end_how;
		d->end_pid = s->end_pid;
	}
	free(s->tasks);
	free(s->starts);
	free(s->marks);
	free(s->phases);
	s->tasks = NULL;
	s->starts = NULL;
	s->marks = NULL;
	s->phases = NULL;
	s->ntasks = s->tasks_cap = s->nstarts = s->starts_cap = 0;
	s->nmarks = s->marks_cap = s->nphases = s->phases_cap = 0;
	s->t_start = s->t_end_row = TL_NONE;
	return 0;
}

/* The pod's listen: its ready (the last app's), or none. */
static int set_ready(struct tl_container *c, uint64_t ready)
{
	size_t j;

	for (j = 0; j < c->nphases && c->phases[j].phase != PHASE_LISTEN; j++)
		;
	if (ready == POD_NONE) {
		if (j < c->nphases)
			c->phases[j] = c->phases[--c->nphases];
		return 0;
	}
	if (j < c->nphases) {
		c->phases[j].ts = ready;
		return 0;
	}
	{
		struct tl_phase ph = { .phase = PHASE_LISTEN, .ts = ready };

		return append((void **)&c->phases, &c->nphases, &c->phases_cap, &ph, 1, sizeof(ph));
	}
}

/* The task of thread @tid in @c (not finished: a linear search), or NULL. */
static const struct tl_task *task_of(const struct tl_container *c, int64_t tid)
{
	size_t i;

	for (i = 0; i < c->ntasks; i++)
		if (c->tasks[i].tid == tid)
			return &c->tasks[i];
	return NULL;
}

/*
 * Watch mode with host rows (--sched host): the pod's start goes back to
 * its sandbox's shim start, when the host rows of its file show it: runc
 * create (the task that made the sandbox's cgroup, @create_pid) was forked
 * by the pod's shim, which `containerd-shim-runc-v2 start` forked before
 * it exited. A start row `shim` at that exec, when it is earlier than the
 * pod's start (client mode's client spawn is earlier still). 0, or -1 out
 * of memory.
 */
static int shim_start(struct timeline *tl, struct tl_container *c, int64_t create_pid)
{
	const struct tl_container *h = NULL;
	const struct tl_task *t, *shim, *q;
	struct tl_start st = { 0 };
	const char *fn, *slash;
	size_t i;
	long how;

	for (i = 0; i < tl->nctrs && !h; i++)
		if (tl->ctrs[i].file == c->file &&
		    host_tasks_is_host_name(timeline_str(tl, tl->ctrs[i].name),
					    strlen(timeline_str(tl, tl->ctrs[i].name))))
			h = &tl->ctrs[i];
	if (!h || create_pid <= 0 || !(t = task_of(h, create_pid)) || !t->has_fork ||
	    !(shim = task_of(h, t->ppid)) || !shim->has_fork || !(q = task_of(h, shim->ppid)) ||
	    !q->nexecs)
		return 0;
	for (i = 1; i < q->nexecs; i++)	/* (not sorted yet) its first exec */
		if (q->execs[i].ts < q->execs[0].ts)
			return 0;
	fn = timeline_str(tl, q->execs[0].filename);
	slash = strrchr(fn, '/');
	if (strncmp(slash ? slash + 1 : fn, "containerd-shim", 15) != 0 || q->execs[0].ts >= c->t_start)
		return 0;
	if ((how = strtab_intern(tl->strs, "shim", 4, NULL)) < 0)
		return -1;
	st.ts = q->execs[0].ts;
	st.how = (uint32_t)how;
	st.comm = q->execs[0].comm;
	st.detail = q->execs[0].filename;
	st.pid = q->pid;
	if (append((void **)&c->starts, &c->nstarts, &c->starts_cap, &st, 1, sizeof(st)) < 0)
		return -1;
	c->t_start = st.ts;
	return 0;
}

int pod_boot_merge(struct timeline *tl, struct pods *p)
{
	struct pod *d = NULL;
	size_t n = pods_list(p, &d), i, k;
	char name[1100];
	int rc = 0;

	if (n == (size_t)-1)
		return -1;
	for (i = 0; i < n && !rc; i++) {
		long into = -1, from;
		size_t len = pod_boot_name(&d[i], name, sizeof(name));
		long id;

		if (!len)
			continue;
		for (k = 0; k < d[i].n && !rc; k++) {
			const struct pod_ctr *pc = d[i].c[k];

			if (pc->file != d[i].c[0]->file ||
			    (from = find_ctr(tl, pc->file, pc->name, pc->name_n)) < 0)
				continue;
			if (into < 0) {
				into = from;
			} else if (absorb(&tl->ctrs[into], &tl->ctrs[from]) < 0) {
				rc = -1;
			} else {
				tl->ctrs[from].merged = true;
				tl->ctrs[from].into = (uint32_t)into;
			}
		}
		if (into < 0 || rc)
			continue;
		id = strtab_intern(tl->strs, name, len, NULL);
		if (id < 0 || set_ready(&tl->ctrs[into], d[i].ready) < 0 ||
		    (d[i].c[0]->role == ROLE_SANDBOX &&
		     shim_start(tl, &tl->ctrs[into], d[i].c[0]->create_pid) < 0))
			rc = -1;
		else {
			tl->ctrs[into].renamed = true;
			tl->ctrs[into].file_name = tl->ctrs[into].name;
			tl->ctrs[into].name = (uint32_t)id;
		}
	}
	for (i = 0; i < n; i++)
		free(d[i].c);
	free(d);
	return rc;
}

static const char *base_name(const char *s)
{
	const char *b = strrchr(s, '/');

	return b ? b + 1 : s;
}

/* The latest exit of process @pid's tasks in @c, or TL_NONE. */
static uint64_t exit_of(const struct tl_container *c, int64_t pid)
{
	uint64_t t = TL_NONE;
	size_t i;

	for (i = 0; i < c->ntasks; i++)
		if (c->tasks[i].pid == pid && c->tasks[i].exit_ts != TL_NONE &&
		    (t == TL_NONE || c->tasks[i].exit_ts > t))
			t = c->tasks[i].exit_ts;
	return t;
}

/* Whether host task @t of @c was forked by containerd. */
static bool by_containerd(const struct timeline *tl, const struct tl_container *c,
			  const struct tl_task *t)
{
	uint32_t k = t->parent != TL_NOTASK ? t->parent : timeline_find_task(c, t->ppid);

	return k != TL_NOTASK && strcmp(timeline_str(tl, c->tasks[k].comm_last), "containerd") == 0;
}

static uint64_t none(uint64_t v)
{
	return v == POD_NONE ? TL_NONE : v;
}

int pod_boot_steps(const struct timeline *tl, size_t ctr, const struct pod *d, struct pod_boot *b)
{
	const struct tl_container *c = tl ? &tl->ctrs[ctr] : NULL;
	uint64_t first_create = TL_NONE, lo;
	size_t i, k, apps = 0;

	memset(b, 0, sizeof(*b));
	b->ctr = ctr;
	b->t0 = c ? c->t_start : none(d->t0);
	b->net_begin = b->net_end = b->started = TL_NONE;
	b->ready = none(d->ready);
	b->steps = calloc(d->n ? d->n : 1, sizeof(*b->steps));
	if (!b->steps)
		return -1;
	b->nsteps = d->n;
	for (i = 0; i < d->n; i++) {
		struct pod_step *s = &b->steps[i];

		s->c = d->c[i];
		s->create = none(s->c->t_create);
		s->exec = none(pods_exec(s->c));
		s->listen = none(s->c->t_listen);
		s->end = none(s->c->t_end);
		s->shim = s->start = TL_NONE;
		if (s->create < first_create)
			first_create = s->create;
		if (s->c->role == ROLE_APP) {
			/* the last app's exec; none while an app has none */
			if (s->exec == TL_NONE || (apps && b->started == TL_NONE))
				b->started = TL_NONE;
			else if (!apps || s->exec > b->started)
				b->started = s->exec;
			apps++;
		}
	}
	/* the runtime's processes (host rows): CNI plugins, shims, runc start */
	for (i = 0; c && i < c->ntasks; i++) {
		const struct tl_task *t = &c->tasks[i];
		const char *fn;
		uint64_t x;

		if (!t->host || !t->nexecs)
			continue;
		fn = base_name(timeline_str(tl, t->execs[0].filename));
		x = t->execs[0].ts;
		if (strcmp(fn, "runc") == 0) {
			/* runc start of a container: after its create, before its entrypoint */
			for (k = 0; k < b->nsteps; k++) {
				struct pod_step *s = &b->steps[k];

				if (s->create != TL_NONE && x > s->create && (s->exec == TL_NONE || x <= s->exec) &&
				    t->pid != s->c->create_pid && (s->start == TL_NONE || x > s->start))
					s->start = x;
			}
			continue;
		}
		if (!by_containerd(tl, c, t))
			continue;
		if (strncmp(fn, "containerd-shim", 15) == 0) {
			/* the last shim start before a container's cgroup, after the one before's */
			for (k = 0; k < b->nsteps; k++) {
				struct pod_step *s = &b->steps[k];

				lo = k ? b->steps[k - 1].create : b->t0;
				if (s->create != TL_NONE && x <= s->create &&
				    (lo == TL_NONE || x > lo || (!k && x == lo)) &&
				    (s->shim == TL_NONE || x > s->shim))
					s->shim = x;
			}
			continue;
		}
		/* a CNI plugin of the pod's network: before its sandbox's cgroup */
		if (x < b->t0 || (first_create != TL_NONE && x > first_create))
			continue;
		b->plugins++;
		if (x < b->net_begin)
			b->net_begin = x;
		x = exit_of(c, t->pid);
		if (x != TL_NONE && (b->net_end == TL_NONE || x > b->net_end))
			b->net_end = x;
	}
	/* watch mode's start at the sandbox's shim (shim_start()): its shim step */
	if (c && c->nstarts && strcmp(timeline_str(tl, c->starts[0].how), "shim") == 0)
		for (k = 0; k < b->nsteps; k++)
			if (b->steps[k].c->role == ROLE_SANDBOX && b->steps[k].shim == TL_NONE)
				b->steps[k].shim = c->starts[0].ts;
	return 0;
}

void pod_boot_release(struct pod_boot *b)
{
	free(b->steps);
	b->steps = NULL;
	b->nsteps = 0;
}
