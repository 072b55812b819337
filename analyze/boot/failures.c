// SPDX-License-Identifier: BSD-2-Clause
/* Why each boot ended: see failures.h. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/boot/ending.h"
#include "analyze/boot/failures.h"
#include "common/end_detail.h"

/* A failed syscall row of the stretch, before grouping. */
struct failed {
	uint32_t name, detail;
	int64_t err;
	uint64_t ts;
};

static int cmp_failed(const void *x, const void *y)
{
	const struct failed *a = x, *b = y;

	if (a->name != b->name)
		return a->name < b->name ? -1 : 1;
	if (a->err != b->err)
		return a->err < b->err ? -1 : 1;
	return a->detail < b->detail ? -1 : a->detail > b->detail;
}

/*
 * The latest first: what failed just before the end is what ended it more
 * often than what failed most (a dynamic loader's and a libc's probes of
 * paths fail by the dozen at every start); of as late, the most frequent.
 */
static int cmp_group(const void *x, const void *y)
{
	const struct fail_group *a = x, *b = y;

	if (a->last != b->last)
		return a->last > b->last ? -1 : 1;
	return a->count > b->count ? -1 : a->count < b->count;
}

/* @fc's failed syscalls in its stretch, grouped. 0, or -1 out of memory. */
static int group_failed(struct fail_ctr *fc, const struct tl_container *c)
{
	struct failed *v = NULL, *nv;
	size_t n = 0, cap = 0, i, k, g = 0;
	int ret = -1;

	for (i = 0; i < c->ntasks; i++) {
		const struct tl_task *t = &c->tasks[i];

		if (t->host)
			continue;
		for (k = (size_t)(timeline_row_before(t, fc->from) + 1); k < t->nrows; k++) {
			const struct tl_row *r = &t->rows[k];

			if (r->ts > fc->t_end)
				break;
			if (r->ret == TL_NORET || r->ret >= 0 || r->ret < -4095)
				continue;	/* 4095: the kernel's MAX_ERRNO */
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv)
					goto out;
				v = nv;
			}
			v[n].name = r->name;
			v[n].detail = r->detail;
			v[n].err = -r->ret;
			v[n].ts = r->ts;
			n++;
		}
	}
	fc->failed = n;
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_failed);
	/* run lengths: at most n groups, in place of v's own order */
	fc->groups = calloc(n, sizeof(*fc->groups));
	if (!fc->groups)
		goto out;
	for (i = 0; i < n; i++) {
		if (!i || cmp_failed(&v[i], &v[i - 1]) != 0) {
			fc->groups[g].name = v[i].name;
			fc->groups[g].detail = v[i].detail;
			fc->groups[g].err = v[i].err;
			g++;
		}
		fc->groups[g - 1].count++;
		if (v[i].ts > fc->groups[g - 1].last)
			fc->groups[g - 1].last = v[i].ts;
	}
	qsort(fc->groups, g, sizeof(*fc->groups), cmp_group);
	fc->nall = g;
	fc->ngroups = g < FAILURES_MAX_GROUPS ? g : FAILURES_MAX_GROUPS;
	ret = 0;
out:
	free(v);
	return ret;
}

/* The time init task @ti's process exited (its exit row: on it or a thread of it), or TL_NONE. */
static uint64_t init_exit(const struct tl_container *c, uint32_t ti)
{
	size_t i;

	if (c->tasks[ti].exit_ts != TL_NONE)
		return c->tasks[ti].exit_ts;
	for (i = 0; i < c->ntasks; i++)
		if (!c->tasks[i].host && c->tasks[i].pid == c->tasks[ti].pid &&
		    c->tasks[i].exit_ts != TL_NONE)
			return c->tasks[i].exit_ts;
	return TL_NONE;
}

/* The waker fc->sender_tid as a task of @c: of it, or a host task its host rows brought. */
static void describe_waker(struct fail_ctr *fc, const struct tl_container *c)
{
	uint32_t ti = fc->sender_tid > 0 ? timeline_find_task(c, fc->sender_tid) : TL_NOTASK, pi;
	const struct tl_task *w;
	size_t k;

	fc->sender_exec = fc->sender_pcomm = TL_NOSTR;
	if (ti == TL_NOTASK)
		return;
	w = &c->tasks[ti];
	fc->sender_known = true;
	fc->sender_host = w->host;
	fc->sender_pid = w->pid;
	fc->sender_ppid = w->ppid;
	for (k = 0; k < w->nexecs && w->execs[k].ts <= fc->sender_ts; k++)
		fc->sender_exec = w->execs[k].filename;
	pi = w->parent != TL_NOTASK ? w->parent : timeline_find_task(c, w->ppid);
	if (pi != TL_NOTASK)
		fc->sender_pcomm = timeline_comm_at(&c->tasks[pi], fc->sender_ts);
}

/*
 * What the init's last off-CPU interval says of who sent the signal: a
 * signal wakes a sleeping target in the sender's context (signal_wake_up()
 * → try_to_wake_up(): sched_waking's current is the sender). Only when the
 * init did nothing after that wake but die: a syscall it entered after it
 * means the wake was something else's.
 */
static void find_waker(struct fail_ctr *fc, const struct timeline *tl, const struct tl_container *c)
{
	const struct tl_task *t = &c->tasks[fc->init];
	uint64_t exit = init_exit(c, fc->init), back;
	long o, r;
	const struct tl_off *off;
	const struct tl_wakeinfo *wi;

	if (exit == TL_NONE)
		exit = fc->t_end;
	o = timeline_off_before(t, exit);
	if (o < 0) {
		fc->sender = SENDER_RUNNING;
		return;
	}
	off = &t->offs[o];
	back = off->out + off->dur;
	r = timeline_row_before(t, exit);
	if (r >= 0 && t->rows[r].ts >= back) {
		fc->sender = SENDER_RUNNING;	/* it ran on after its last wake */
		return;
	}
	fc->sender_ts = off->runnable != TL_NONE && off->runnable <= off->dur ?
			back - off->runnable : back;
	wi = timeline_off_info(tl, off);
	fc->sender_tid = wi->waker;
	fc->sender_comm = wi->wcomm;
	describe_waker(fc, c);
	switch ((enum tl_wake)wi->wake) {
	case TL_WAKE_TASK:
	case TL_WAKE_NEW:
		fc->sender = SENDER_WAKER;
		break;
	case TL_WAKE_IRQ:
	case TL_WAKE_SOFTIRQ:
		fc->sender = SENDER_IRQ;
		break;
	case TL_WAKE_NONE:
		fc->sender = SENDER_RUNNING;	/* preempted, runnable: no wake */
		break;
	default:
		fc->sender = SENDER_UNKNOWN;
		break;
	}
}

/* The last successful kill-family syscall of a traced task of @c's file in @fc's stretch. */
static void find_kill(struct fail_ctr *fc, const struct timeline *tl, const struct tl_container *c)
{
	static const char *const kills[] = { "kill", "tkill", "tgkill", "rt_sigqueueinfo",
					     "rt_tgsigqueueinfo", "pidfd_send_signal" };
	long ids[sizeof(kills) / sizeof(kills[0])];
	size_t i, j, k, q;

	for (q = 0; q < sizeof(kills) / sizeof(kills[0]); q++)
		ids[q] = strtab_find(tl->strs, kills[q], strlen(kills[q]));
	fc->kill_ts = TL_NONE;
	for (i = 0; i < tl->nctrs; i++) {
		const struct tl_container *o = &tl->ctrs[i];

		if (o->file != c->file || o->is_host)
			continue;
		for (j = 0; j < o->ntasks; j++) {
			const struct tl_task *t = &o->tasks[j];
			long last = timeline_row_before(t, fc->t_end + 1);

			if (t->host)
				continue;
			for (k = (size_t)(timeline_row_before(t, fc->from) + 1); (long)k <= last; k++) {
				const struct tl_row *r = &t->rows[k];

				if (r->ret != 0 || (fc->kill_ts != TL_NONE && r->ts <= fc->kill_ts))
					continue;
				for (q = 0; q < sizeof(ids) / sizeof(ids[0]); q++)
					if (ids[q] >= 0 && r->name == (uint32_t)ids[q])
						break;
				if (q == sizeof(ids) / sizeof(ids[0]))
					continue;
				fc->kill_ts = r->ts;
				fc->kill_pid = t->pid;
				fc->kill_tid = t->tid;
				fc->kill_name = r->name;
				fc->kill_comm = timeline_comm_at(t, r->ts);
				fc->kill_ctr = (uint32_t)i;
			}
		}
	}
}

/*
 * The boot number of @name (@n bytes: NAME#N gives N, 1 without a #N) and
 * the length of NAME in *@base.
 */
static unsigned boot_number(const char *name, size_t n, size_t *base)
{
	size_t i = n;
	unsigned v = 0, mul = 1;

	*base = n;
	while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9' && n - i < 9) {
		v += (unsigned)(name[i - 1] - '0') * mul;
		mul *= 10;
		i--;
	}
	if (i == n || i == 0 || name[i - 1] != '#' || v < 2)
		return 1;
	*base = i - 1;
	return v;
}

/* The boot before container @ci's (NAME#N-1, NAME for #2) in its file, or SIZE_MAX. */
static size_t previous_boot(const struct timeline *tl, size_t ci, unsigned *boot)
{
	const char *name = timeline_str(tl, tl->ctrs[ci].name), *o;
	size_t n = strlen(name), base, i, on, ob;

	*boot = boot_number(name, n, &base);
	if (*boot < 2)
		return SIZE_MAX;
	for (i = 0; i < tl->nctrs; i++) {
		if (i == ci || tl->ctrs[i].file != tl->ctrs[ci].file)
			continue;
		o = timeline_str(tl, tl->ctrs[i].name);
		on = strlen(o);
		if (boot_number(o, on, &ob) + 1 == *boot && ob == base && memcmp(o, name, base) == 0)
			return i;
	}
	return SIZE_MAX;
}

struct failures *failures__new(const struct timeline *tl, uint64_t stretch)
{
	struct failures *f = calloc(1, sizeof(*f));
	size_t i;

	if (!f || !(f->v = calloc(tl->nctrs ? tl->nctrs : 1, sizeof(*f->v)))) {
		free(f);
		return NULL;
	}
	f->tl = tl;
	f->stretch = stretch;
	for (i = 0; i < tl->nctrs; i++) {
		const struct tl_container *c = &tl->ctrs[i];
		struct fail_ctr *fc;

		if (c->is_host || c->t_start == TL_NONE)
			continue;
		fc = &f->v[f->n++];
		fc->ctr = i;
		fc->t_end = c->t_end;
		fc->how = ending_how(c);
		fc->init = c->init;
		fc->kill_ts = TL_NONE;
		fc->backoff = TL_NONE;
		fc->prev = previous_boot(tl, i, &fc->boot);
		if (fc->prev != SIZE_MAX && tl->ctrs[fc->prev].t_end != TL_NONE &&
		    tl->ctrs[fc->prev].t_end <= c->t_start)
			fc->backoff = c->t_start - tl->ctrs[fc->prev].t_end;
		if (fc->t_end == TL_NONE)
			continue;
		fc->from = fc->t_end - c->t_start > stretch ? fc->t_end - stretch : c->t_start;
		if (group_failed(fc, c) < 0) {
			failures__free(f);
			return NULL;
		}
		if (fc->how >= END_SIGNAL) {
			if (fc->init != TL_NOTASK)
				find_waker(fc, tl, c);
			find_kill(fc, tl, c);
		}
	}
	return f;
}

void failures__free(struct failures *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->n; i++)
		free(f->v[i].groups);
	free(f->v);
	free(f);
}
