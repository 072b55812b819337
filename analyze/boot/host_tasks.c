// SPDX-License-Identifier: BSD-2-Clause
/* The runtime's processes in each container's window: see host_tasks.h. */
#include <stdlib.h>
#include <string.h>

#include "analyze/array.h"
#include "analyze/boot/host_tasks.h"
#include "common/tsv.h"

bool host_tasks_is_host_name(const char *name, size_t n)
{
	return tsv_is_null(name, n);
}

/* The window of @c: its earliest start to the last moment it was seen; false when none. */
static bool window_of(const struct tl_container *c, uint64_t *lo, uint64_t *hi)
{
	size_t i;

	*lo = c->t_start;
	*hi = 0;
	for (i = 0; i < c->ntasks; i++) {
		const struct tl_task *t = &c->tasks[i];

		if (t->last_ts > *hi)
			*hi = t->last_ts;
		if (t->last_end > *hi)
			*hi = t->last_end;
		if (t->exit_ts != TL_NONE && t->exit_ts > *hi)
			*hi = t->exit_ts;
	}
	for (i = 0; i < c->nphases; i++)
		if (c->phases[i].ts > *hi)
			*hi = c->phases[i].ts;
	return *lo != TL_NONE && *hi > *lo;
}

/* Append @n elements of @size at @src to *@dst (*@len of *@cap). -1 out of memory. */
static int append(void **dst, size_t *len, size_t *cap, const void *src, size_t n, size_t size)
{
	if (!n)
		return 0;
	if (array_grow(dst, cap, *len + n, size, 4) < 0)
		return -1;
	memcpy((char *)*dst + *len * size, src, n * size);
	*len += n;
	return 0;
}

static void seen(struct tl_task *t, uint64_t from, uint64_t to)
{
	if (from < t->first_ts)
		t->first_ts = from;
	if (from > t->last_ts)
		t->last_ts = from;
	if (to > t->last_end)
		t->last_end = to;
}

/* Copy what of host task @h lies in [@lo, @hi] into @t. */
static int merge(struct tl_task *t, const struct tl_task *h, uint64_t lo, uint64_t hi)
{
	size_t k, a;

	for (k = 0; k < h->nrows; k++) {
		const struct tl_row *r = &h->rows[k];

		if (r->ts > hi)
			break;
		if (timeline_row_end(r) < lo)
			continue;
		if (append((void **)&t->rows, &t->nrows, &t->rows_cap, r, 1, sizeof(*r)) < 0)
			return -1;
		seen(t, r->ts, timeline_row_end(r));
	}
	for (k = 0; k < h->noffs; k++) {
		const struct tl_off *o = &h->offs[k];

		if (o->out > hi)
			break;
		if (o->out + o->dur < lo)
			continue;
		if (append((void **)&t->offs, &t->noffs, &t->offs_cap, o, 1, sizeof(*o)) < 0)
			return -1;
		seen(t, o->out, o->out + o->dur);
	}
	for (k = timeline_sample_from(h, lo); k < h->nsamples && h->samples[k].ts <= hi; k++) {
		if (append((void **)&t->samples, &t->nsamples, &t->samples_cap, &h->samples[k], 1,
			   sizeof(h->samples[k])) < 0)
			return -1;
		seen(t, h->samples[k].ts, h->samples[k].ts);
	}
	for (k = 0; k < h->nexecs; k++) {
		const struct tl_exec *e = &h->execs[k];

		if (e->ts < lo || e->ts > hi)
			continue;
		if (append((void **)&t->execs, &t->nexecs, &t->execs_cap, e, 1, sizeof(*e)) < 0)
			return -1;
		seen(t, e->ts, e->ts);
	}
	/* its comms: a handful, all of them, so a look-up at any time finds one */
	for (k = 0; k < h->ncomms; k++) {
		for (a = 0; a < t->ncomms; a++)
			if (t->comms[a].ts == h->comms[k].ts && t->comms[a].comm == h->comms[k].comm)
				break;
		if (a == t->ncomms &&
		    append((void **)&t->comms, &t->ncomms, &t->comms_cap, &h->comms[k], 1,
			   sizeof(h->comms[k])) < 0)
			return -1;
	}
	if (h->fork_ts != TL_NONE && h->fork_ts >= lo && h->fork_ts <= hi && h->fork_ts < t->fork_ts) {
		t->fork_ts = h->fork_ts;
		t->has_fork = true;
		t->is_thread = h->is_thread;
		t->ppid = h->ppid;
		t->parent_tid = h->parent_tid;
		seen(t, h->fork_ts, h->fork_ts);
	}
	if (h->exit_ts != TL_NONE && h->exit_ts >= lo && h->exit_ts <= hi &&
	    (t->exit_ts == TL_NONE || h->exit_ts > t->exit_ts)) {
		t->exit_ts = h->exit_ts;
		t->exit_status = h->exit_status;
		t->exit_ppid = h->exit_ppid;
		seen(t, h->exit_ts, h->exit_ts);
	}
	return 0;
}

/* Does host task @h have anything in [@lo, @hi]? */
static bool overlaps(const struct tl_task *h, uint64_t lo, uint64_t hi)
{
	return h->begin <= hi && h->end >= lo;
}

int host_tasks_import(struct tl_container *c, const struct tl_container *h)
{
	size_t i, k, n0 = c->ntasks;
	uint64_t lo, hi;

	if (!c->has_sched || !window_of(c, &lo, &hi))
		return 0;
	for (i = 0; i < h->ntasks; i++) {
		const struct tl_task *ht = &h->tasks[i];
		struct tl_task *t = NULL;

		if (!overlaps(ht, lo, hi))
			continue;
		for (k = 0; k < n0; k++)
			if (c->tasks[k].tid == ht->tid) {
				t = &c->tasks[k];
				break;
			}
		if (!t) {
			if (array_grow((void **)&c->tasks, &c->tasks_cap, c->ntasks + 1,
				       sizeof(*c->tasks), 4) < 0)
				return -1;
			t = &c->tasks[c->ntasks];
			memset(t, 0, sizeof(*t));
			t->pid = ht->pid;
			t->tid = ht->tid;
			t->ppid = ht->ppid;
			t->comm = ht->comm;
			t->comm_last = ht->comm_last;
			t->comm_cur = ht->comm_last;
			t->fork_ts = t->exit_ts = TL_NONE;
			t->parent = TL_NOTASK;
			t->first_ts = TL_NONE;
			t->host = true;
			if (merge(t, ht, lo, hi) < 0)
				return -1;
			if (t->first_ts == TL_NONE) {
				/* nothing of it in the window after all */
				free(t->rows);
				free(t->offs);
				free(t->execs);
				free(t->comms);
				free(t->samples);
				continue;
			}
			/*
			 * Not made in the window: it was there when it began
			 * (its first row there may be the end of a time on a
			 * CPU, or a fork it made), as far as the walk goes.
			 */
			if (!t->has_fork && lo < t->first_ts)
				t->first_ts = lo;
			c->ntasks++;
		} else if (merge(t, ht, lo, hi) < 0) {
			return -1;
		}
	}
	return 0;
}

/* A kernel thread (kthreadd, 2, and its children): it works for every task, not a boot. */
static bool kernel_thread(const struct tl_task *t)
{
	return t->pid == 2 || t->ppid == 2;
}


/* Mark every task of process @pid (through @ix, @n) as the runtime's; whether any was new. */
static bool take_process(struct tl_container *c, const struct tl_pid_ix *ix, size_t n,
			 int64_t pid)
{
	bool added = false;
	size_t lo;

	for (lo = tl_pid_ix_first(ix, n, pid); lo < n && ix[lo].pid == pid; lo++) {
		struct tl_task *t = &c->tasks[ix[lo].task];

		if (!t->runtime && !kernel_thread(t)) {
			t->runtime = true;
			added = true;
		}
	}
	return added;
}

/* Is task @i of @c in the boot: its own, or the runtime's? */
static bool in_boot(const struct tl_container *c, uint32_t i)
{
	return i != TL_NOTASK && (!c->tasks[i].host || c->tasks[i].runtime);
}

int host_tasks_mark_runtime(const struct timeline *tl, struct tl_container *c, uint32_t client)
{
	struct tl_pid_ix *ix;
	size_t i, k, n = 0;
	bool more = true;

	if (!c->ntasks)
		return 0;
	ix = malloc(c->ntasks * sizeof(*ix));
	if (!ix)
		return -1;
	for (i = 0; i < c->ntasks; i++)
		if (c->tasks[i].host) {
			ix[n].pid = c->tasks[i].pid;
			ix[n].task = (uint32_t)i;
			n++;
		}
	qsort(ix, n, sizeof(*ix), tl_pid_ix_cmp);
	/* the client (client mode's start row names its pid) */
	for (i = 0; client != TL_NOSTR && i < c->nstarts; i++)
		if (c->starts[i].how == client)
			take_process(c, ix, n, c->starts[i].pid);
	/*
	 * Then, until nothing changes (a chain: the container's init, runc,
	 * the shim, containerd, dockerd, the client: a handful of rounds),
	 * the processes of the tasks that woke or made a task of the boot
	 * after its start, and those a task of the boot made.
	 */
	while (more) {
		more = false;
		for (i = 0; i < c->ntasks; i++) {
			const struct tl_task *t = &c->tasks[i];
			bool in = in_boot(c, (uint32_t)i);

			if (!in) {
				/* a child of the boot's (runc forked by the shim) */
				if (t->has_fork && in_boot(c, t->parent))
					more |= take_process(c, ix, n, t->pid);
				continue;
			}
			if (t->has_fork && t->parent != TL_NOTASK && !in_boot(c, t->parent))
				more |= take_process(c, ix, n, c->tasks[t->parent].pid);
			for (k = 0; k < t->noffs; k++) {
				const struct tl_off *o = &t->offs[k];
				const struct tl_wakeinfo *wi = timeline_off_info(tl, o);
				uint32_t w;

				/* (ending a D sleep: a lock or an I/O released, critpath.c) */
				if ((wi->wake != TL_WAKE_TASK && wi->wake != TL_WAKE_NEW) || !wi->waker ||
				    o->state == 'D' || timeline_off_wake(o) < c->t_start)
					continue;
				w = timeline_find_task(c, wi->waker);
				if (w != TL_NOTASK && !in_boot(c, w))
					more |= take_process(c, ix, n, c->tasks[w].pid);
			}
		}
	}
	free(ix);
	return 0;
}
