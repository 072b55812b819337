// SPDX-License-Identifier: BSD-2-Clause
/* The critical path of a boot, walked back over the timeline: see critpath.h. */
#include <stdlib.h>
#include <string.h>

#include "analyze/array.h"
#include "analyze/boot/analysis.h"
#include "analyze/boot/critpath.h"

/* Syscalls the walk looks at, by what their return can mean. */
enum sc_class {
	SC_OTHER,
	SC_WAIT,	/* wait4, waitpid: returns the pid */
	SC_WAITID,	/* returns 0, the child in siginfo */
	SC_SIGWAIT,	/* rt_sigtimedwait, rt_sigsuspend, pause */
	SC_READ,	/* read, readv */
	SC_POLL,	/* poll, select, epoll_wait... */
	SC_WRITE,	/* write, writev */
	SC_CLONE,	/* clone, clone3, vfork */
	SC_EXIT,	/* exit, exit_group: no return */
	SC_SLEEP,	/* nanosleep, clock_nanosleep: 0 when its timer fired */
};

static const struct {
	const char *name;
	enum sc_class cls;
} sc_names[] = {
	{ "wait4", SC_WAIT }, { "waitpid", SC_WAIT }, { "waitid", SC_WAITID },
	{ "rt_sigtimedwait", SC_SIGWAIT }, { "rt_sigsuspend", SC_SIGWAIT },
	{ "pause", SC_SIGWAIT }, { "read", SC_READ }, { "readv", SC_READ },
	{ "poll", SC_POLL }, { "ppoll", SC_POLL }, { "select", SC_POLL },
	{ "pselect6", SC_POLL }, { "epoll_wait", SC_POLL }, { "epoll_pwait", SC_POLL },
	{ "epoll_pwait2", SC_POLL }, { "write", SC_WRITE }, { "writev", SC_WRITE },
	{ "clone", SC_CLONE }, { "clone3", SC_CLONE }, { "vfork", SC_CLONE },
	{ "exit", SC_EXIT }, { "exit_group", SC_EXIT },
	{ "nanosleep", SC_SLEEP }, { "clock_nanosleep", SC_SLEEP },
};
#define NSC (sizeof(sc_names) / sizeof(sc_names[0]))

#define EINTR_RET (-4)
/* A path longer than this many steps is a cycle in hostile input. */
#define MAX_ANCESTRY 256

/* A write to a pipe whose inode the row names. */
struct pipe_write {
	uint32_t detail, task;
	uint64_t ts, end;
};

struct walk {
	const struct timeline *tl;
	const struct tl_container *c;
	struct cp_path *p;
	size_t cap;
	bool lost;
	/* walk_back_sched()'s last answers, in the task it was in: the walk
	 * goes back in small steps, mostly to the row or interval before */
	uint32_t hint_task;
	long hint_off, hint_row;
	long ids[NSC];
	struct pipe_write *pw;	/* by detail, then ts */
	size_t npw;
};

const char *critpath_kind_name(enum cp_kind k)
{
	switch (k) {
	case CP_RUNTIME: return "runtime";
	case CP_CPU: return "cpu";
	case CP_SYSCALL: return "syscall";
	default: return "unknown";
	}
}

static enum sc_class classify(const struct walk *w, uint32_t name)
{
	size_t i;

	for (i = 0; i < NSC; i++)
		if (w->ids[i] >= 0 && (uint32_t)w->ids[i] == name)
			return sc_names[i].cls;
	return SC_OTHER;
}

static bool is_pipe(const struct walk *w, uint32_t detail)
{
	return detail != TL_NOSTR && strncmp(timeline_str(w->tl, detail), "pipe:[", 6) == 0;
}

const char *critpath_state_name(enum cp_state s)
{
	switch (s) {
	case CP_ST_RUNNING: return "running";
	case CP_ST_RUNNABLE: return "runnable";
	case CP_ST_BLOCKED: return "blocked";
	default: return "unknown";
	}
}

/*
 * A segment [@from, @to) in state @st, clipped at the start; nothing when
 * empty. @o: the off-CPU interval it lies in (runnable, blocked), for who
 * held the CPU or woke it. -1 out of memory.
 */
static int emit_state(struct walk *w, enum cp_kind kind, uint64_t from, uint64_t to,
		      uint32_t task, const struct tl_row *r, enum cp_state st,
		      const struct tl_off *o)
{
	struct cp_seg *s;

	if (from < w->p->t0)
		from = w->p->t0;
	if (to <= from)
		return 0;
	if (array_grow((void **)&w->p->segs, &w->cap, w->p->nsegs + 1, sizeof(*s), 64) < 0)
		return -1;
	s = &w->p->segs[w->p->nsegs++];
	memset(s, 0, sizeof(*s));
	s->ts = from;
	s->dur = to - from;
	s->task = task;
	s->kind = (uint8_t)kind;
	s->name = r ? r->name : TL_NOSTR;
	s->detail = r ? r->detail : TL_NOSTR;
	s->other = TL_NOTASK;
	s->state = (uint8_t)st;
	s->by_comm = TL_NOSTR;
	s->cpu = TL_NOCPU;
	s->stack = TL_NOSTR;
	if (o && st == CP_ST_RUNNABLE) {
		const struct tl_wakeinfo *wi = timeline_off_info(w->tl, o);

		s->cpu = wi->cpu;
		s->off_state = o->state;
		s->wake = wi->wake;
		s->by = wi->holder;
		s->by_comm = wi->hcomm;
	} else if (o && st == CP_ST_BLOCKED) {
		const struct tl_wakeinfo *wi = timeline_off_info(w->tl, o);

		s->off_state = o->state;
		s->wake = wi->wake;
		s->stack = wi->stack;
		if (wi->wake == TL_WAKE_TASK || wi->wake == TL_WAKE_NEW || wi->wake == TL_WAKE_UNKNOWN) {
			s->by = wi->waker;	/* unknown: the task current at the wake */
			s->by_comm = wi->wcomm;
		}
	}
	return 0;
}

/* A segment without scheduler rows: state unknown. */
static int emit(struct walk *w, enum cp_kind kind, uint64_t from, uint64_t to, uint32_t task,
		const struct tl_row *r)
{
	return emit_state(w, kind, from, to, task, r, CP_ST_UNKNOWN, NULL);
}

/* When row @k of task @t returned; an exit_group that ends the process lasts to its exit. */
static uint64_t row_end(const struct walk *w, const struct tl_task *t, size_t k)
{
	const struct tl_row *r = &t->rows[k];

	if (r->dur == TL_NONE && k + 1 == t->nrows && t->exit_ts != TL_NONE &&
	    t->exit_ts >= r->ts && classify(w, r->name) == SC_EXIT)
		return t->exit_ts;
	return timeline_row_end(r);
}

/* Is process @pid a descendant of process @anc (through the parents at exit or fork)? */
static bool descends(const struct tl_container *c, int64_t pid, int64_t anc)
{
	int hops;

	for (hops = 0; hops < MAX_ANCESTRY; hops++) {
		uint32_t k = timeline_find_task(c, pid);
		const struct tl_task *t;
		int64_t up;

		if (k == TL_NOTASK)
			return false;
		t = &c->tasks[k];
		up = t->exit_ts != TL_NONE ? t->exit_ppid : t->ppid;
		if (up == anc)
			return true;
		if (up == pid)
			return false;
		pid = up;
	}
	return false;
}

/*
 * How long after a descendant's exit a read or poll of @dur may return to
 * count as woken by it: CRITPATH_PIPE_SLACK_NS, or an eighth of the wait
 * when longer (on a loaded host the reader runs late).
 */
static uint64_t pipe_slack(uint64_t dur)
{
	return dur / 8 > CRITPATH_PIPE_SLACK_NS ? dur / 8 : CRITPATH_PIPE_SLACK_NS;
}

/* A wake-up: the walk goes on in @task at @at, for the reason in @match/@event. */
struct wake {
	uint32_t task;
	uint64_t at;
	enum cp_match match;
	int event;
};

/*
 * The exit in [@lo, @hi] of a process reported to process @parent (a
 * child) or, with @desc, of any descendant of it: the first (@first) or
 * the last one; but the one of pid @want_pid (> 0: wait4's return) when
 * there is one, with *@by_pid set. Returns the task, or TL_NOTASK.
 */
static uint32_t find_exit(const struct walk *w, uint32_t self, int64_t parent, bool desc,
			  uint64_t lo, uint64_t hi, bool first, int64_t want_pid, bool *by_pid)
{
	const struct tl_container *c = w->c;
	uint32_t best = TL_NOTASK;
	size_t i;

	*by_pid = false;
	for (i = 0; i < c->ntasks; i++) {
		const struct tl_task *t = &c->tasks[i];

		if (i == self || t->exit_ts == TL_NONE || t->exit_ts < lo || t->exit_ts > hi ||
		    t->begin >= t->exit_ts)
			continue;
		if (desc ? !descends(c, t->pid, parent) : t->exit_ppid != parent)
			continue;
		if (want_pid > 0 && t->pid == want_pid) {
			*by_pid = true;
			return (uint32_t)i;
		}
		if (best == TL_NOTASK || (first ? t->exit_ts < c->tasks[best].exit_ts :
					  t->exit_ts > c->tasks[best].exit_ts))
			best = (uint32_t)i;
	}
	return best;
}

static int cmp_pw(const void *x, const void *y)
{
	const struct pipe_write *a = x, *b = y;

	if (a->detail != b->detail)
		return a->detail < b->detail ? -1 : 1;
	return a->ts < b->ts ? -1 : a->ts > b->ts;
}

/* The container's writes to pipes with an inode, once. -1 out of memory. */
static int pipe_writes(struct walk *w)
{
	const struct tl_container *c = w->c;
	size_t i, k, cap = 0;

	if (w->pw)
		return 0;
	for (i = 0; i < c->ntasks; i++) {
		const struct tl_task *t = &c->tasks[i];

		for (k = 0; k < t->nrows; k++) {
			const struct tl_row *r = &t->rows[k];

			if (classify(w, r->name) != SC_WRITE || !is_pipe(w, r->detail) ||
			    r->dur == TL_NONE)
				continue;
			if (array_grow((void **)&w->pw, &cap, w->npw + 1, sizeof(*w->pw), 64) < 0)
				return -1;
			w->pw[w->npw].detail = r->detail;
			w->pw[w->npw].task = (uint32_t)i;
			w->pw[w->npw].ts = r->ts;
			w->pw[w->npw].end = timeline_row_end(r);
			w->npw++;
		}
	}
	if (!w->pw) {
		w->pw = malloc(sizeof(*w->pw)); /* built, empty */
		if (!w->pw)
			return -1;
	}
	if (w->npw > 1)
		qsort(w->pw, w->npw, sizeof(*w->pw), cmp_pw);
	return 0;
}

/* Did a thread of process @pid write to pipe @detail? */
static bool wrote_to(const struct walk *w, uint32_t detail, int64_t pid)
{
	size_t i;

	for (i = 0; i < w->npw; i++)
		if (w->pw[i].detail == detail && w->c->tasks[w->pw[i].task].pid == pid)
			return true;
	return false;
}

/* The wake-up of a read of pipe @r (inode known) by task @ti, held at @cur. */
static bool pipe_wake(struct walk *w, uint32_t ti, const struct tl_row *r, uint64_t cur,
		      struct wake *wk)
{
	const struct tl_container *c = w->c;
	size_t i;

	if (r->ret > 0) {
		const struct pipe_write *best = NULL;

		for (i = 0; i < w->npw; i++) {
			const struct pipe_write *pw = &w->pw[i];

			if (pw->detail != r->detail || pw->task == ti || pw->ts > cur || pw->end < r->ts)
				continue;
			best = pw; /* sorted by ts: the last that fits */
		}
		if (!best)
			return false;
		wk->task = best->task;
		wk->at = best->end < cur ? best->end : cur;
		if (wk->at < r->ts)
			wk->at = r->ts;
		wk->match = CP_MATCH_PIPE;
		wk->event = CP_EV_WRITE;
		return c->tasks[best->task].begin < wk->at;
	}
	if (r->ret == 0) {
		uint32_t best = TL_NOTASK;

		for (i = 0; i < c->ntasks; i++) {
			const struct tl_task *t = &c->tasks[i];

			if (i == ti || t->exit_ts == TL_NONE || t->exit_ts < r->ts || t->exit_ts > cur ||
			    t->begin >= t->exit_ts || !wrote_to(w, r->detail, t->pid))
				continue;
			if (best == TL_NOTASK || t->exit_ts > c->tasks[best].exit_ts)
				best = (uint32_t)i;
		}
		if (best == TL_NOTASK)
			return false;
		wk->task = best;
		wk->at = c->tasks[best].exit_ts;
		wk->match = CP_MATCH_PIPE;
		wk->event = CP_EV_EXIT;
		return true;
	}
	return false;
}

/* The wake-up by the exit of task @x (TL_NOTASK: none, 0). */
static int exit_wake(const struct tl_container *c, uint32_t x, enum cp_match match,
		     struct wake *wk)
{
	if (x == TL_NOTASK)
		return 0;
	wk->task = x;
	wk->at = c->tasks[x].exit_ts;
	wk->match = match;
	wk->event = CP_EV_EXIT;
	return 1;
}

/*
 * Did the syscall row @k of task @ti, which holds @cur, return because of
 * another task? See critpath.h for the rules. -1 out of memory, 0 no, 1 yes.
 */
static int find_wake(struct walk *w, uint32_t ti, size_t k, uint64_t cur, struct wake *wk)
{
	const struct tl_container *c = w->c;
	const struct tl_task *t = &c->tasks[ti];
	const struct tl_row *r = &t->rows[k];
	uint64_t end = row_end(w, t, k);
	enum sc_class cls = classify(w, r->name);
	bool by_pid;
	uint32_t x;
	size_t i;

	wk->event = CP_EV_EXIT;
	switch (cls) {
	case SC_WAIT:
	case SC_WAITID:
		if (r->ret == TL_NORET || r->ret < 0 ||
		    (r->ret == 0 && cls == SC_WAIT))
			return 0; /* WNOHANG, EINTR, ECHILD */
		x = find_exit(w, ti, t->pid, false, r->ts, cur, true, r->ret, &by_pid);
		return exit_wake(c, x, by_pid ? CP_MATCH_PID : CP_MATCH_TIME, wk);
	case SC_SIGWAIT:
		if (r->ret == TL_NORET || (r->ret <= 0 && r->ret != EINTR_RET))
			return 0;
		x = find_exit(w, ti, t->pid, false, r->ts, cur, true, 0, &by_pid);
		return exit_wake(c, x, CP_MATCH_TIME, wk);
	case SC_READ:
		if (r->ret == TL_NORET || r->ret < 0)
			return 0;
		if (is_pipe(w, r->detail)) {
			if (pipe_writes(w) < 0)
				return -1;
			if (pipe_wake(w, ti, r, cur, wk))
				return 1;
		}
		/* by time, as without the inode */
		__attribute__((fallthrough));
	case SC_POLL:
		if (r->ret == TL_NORET || r->ret < 0 ||
		    (r->ret == 0 && cls == SC_POLL))
			return 0; /* a poll that timed out woke by itself */
		x = find_exit(w, ti, t->pid, true, r->ts, cur, false, 0, &by_pid);
		if (x != TL_NOTASK && end - c->tasks[x].exit_ts > pipe_slack(end - r->ts))
			x = TL_NOTASK;
		return exit_wake(c, x, CP_MATCH_TIME, wk);
	case SC_CLONE:
		/* a child made in this call that exec'd or exited before it returned */
		for (i = 0; i < c->ntasks; i++) {
			const struct tl_task *ch = &c->tasks[i];
			uint64_t at = TL_NONE;
			size_t e;

			if (ch->parent != ti || ch->fork_ts < r->ts || ch->fork_ts > cur)
				continue;
			for (e = 0; e < ch->nexecs; e++)
				if (ch->execs[e].ts > ch->fork_ts) {
					at = ch->execs[e].ts;
					break;
				}
			if (ch->exit_ts != TL_NONE && ch->exit_ts > ch->fork_ts && ch->exit_ts < at)
				at = ch->exit_ts;
			if (at == TL_NONE || at > cur)
				continue;
			wk->task = (uint32_t)i;
			wk->at = at;
			wk->match = CP_MATCH_CLONE;
			wk->event = at == ch->exit_ts ? CP_EV_EXIT : CP_EV_EXEC;
			return 1;
		}
		return 0;
	default:
		return 0;
	}
}

/*
 * The task that created @ti, to go on in at @cur (its begin): its parent,
 * or for a task without a fork row, its process' main thread (a thread) or
 * its ppid's (a process), counted as guessed. TL_NOTASK: none.
 */
static uint32_t creator(struct walk *w, uint32_t ti, uint64_t cur)
{
	const struct tl_container *c = w->c;
	const struct tl_task *t = &c->tasks[ti];
	uint32_t l;

	if (t->parent != TL_NOTASK)
		return c->tasks[t->parent].begin < cur ? t->parent : TL_NOTASK;
	if (t->has_fork)
		return TL_NOTASK; /* made by a task outside the container */
	l = timeline_find_task(c, t->tid != t->pid ? t->pid : t->ppid);
	if (l == TL_NOTASK || l == ti || c->tasks[l].begin >= cur)
		return TL_NOTASK;
	w->p->guessed++;
	return l;
}

/* The task and time that reached the phase; false when not found. */
static bool find_target(const struct walk *w, uint32_t phase, const char *phase_name,
			uint64_t t1, uint32_t *task)
{
	const struct tl_container *c = w->c;
	size_t i, k;

	if (phase == PHASE_END) {
		uint64_t latest = 0;
		bool found = false;

		/* the process whose exit ended it; else (an end row alone) the last one seen */
		for (i = 0; i < c->ntasks; i++) {
			const struct tl_task *t = &c->tasks[i];

			if (t->host)
				continue;
			if (t->exit_ts == t1) {
				*task = (uint32_t)i;
				return true;
			}
			if (t->end <= t1 && (!found || t->end > latest)) {
				latest = t->end;
				*task = (uint32_t)i;
				found = true;
			}
		}
		return found;
	} else if (phase == PHASE_EXEC) {
		for (i = 0; i < c->ntasks; i++)
			for (k = 0; k < c->tasks[i].nexecs; k++)
				if (c->tasks[i].execs[k].ts == t1) {
					*task = (uint32_t)i;
					return true;
				}
	} else if (phase == PHASE_LISTEN) {
		long listen = strtab_find(w->tl->strs, "listen", 6);

		for (i = 0; listen >= 0 && i < c->ntasks; i++)
			for (k = 0; k < c->tasks[i].nrows; k++) {
				const struct tl_row *r = &c->tasks[i].rows[k];

				if (r->name == (uint32_t)listen && r->ret == 0 &&
				    timeline_row_end(r) == t1) {
					*task = (uint32_t)i;
					return true;
				}
			}
	} else {
		long label = strtab_find(w->tl->strs, phase_name, strlen(phase_name));

		for (i = 0; label >= 0 && i < c->nmarks; i++)
			if (c->marks[i].label == (uint32_t)label && c->marks[i].ts == t1) {
				*task = c->marks[i].task;
				return true;
			}
	}
	return false;
}

/* The walk itself, from (@ti, @cur) back to the start; segments newest first. */
static int walk_back(struct walk *w, uint32_t ti, uint64_t cur)
{
	const struct tl_container *c = w->c;
	enum cp_kind gap = w->lost ? CP_UNKNOWN : CP_CPU;
	uint64_t steps = 0, limit = 16;
	uint32_t last_ti = TL_NOTASK;	/* in one task the time only goes back: */
	long last_k = -1;		/* step back from the last row, no search */
	size_t i;

	for (i = 0; i < c->ntasks; i++)
		limit += 4 * (c->tasks[i].nrows + 2);
	while (cur > w->p->t0) {
		const struct tl_task *t;
		long k;
		uint64_t end;

		if (ti == TL_NOTASK)
			return emit(w, CP_RUNTIME, w->p->t0, cur, TL_NOTASK, NULL);
		if (++steps > limit) /* a cycle in hostile input */
			return emit(w, CP_UNKNOWN, w->p->t0, cur, TL_NOTASK, NULL);
		t = &c->tasks[ti];
		if (ti == last_ti) {
			for (k = last_k; k >= 0 && t->rows[k].ts >= cur; k--)
				;
		} else {
			k = timeline_row_before(t, cur);
		}
		last_ti = ti;
		last_k = k;
		if (k < 0) {
			/* from its creation to its first syscall: running */
			if (emit(w, gap, t->begin, cur, ti, NULL) < 0)
				return -1;
			if (t->begin < cur)
				cur = t->begin;
			ti = creator(w, ti, cur);
			continue;
		}
		end = row_end(w, t, (size_t)k);
		if (end < cur) {
			if (emit(w, gap, end, cur, ti, NULL) < 0)
				return -1;
			cur = end; /* a zero-length row: the next turn goes past it */
			continue;
		}
		{
			struct wake wk;
			int rc = find_wake(w, ti, (size_t)k, cur, &wk);

			if (rc < 0)
				return -1;
			if (rc && wk.at <= cur && wk.at >= t->rows[k].ts &&
			    c->tasks[wk.task].begin < wk.at) {
				size_t before = w->p->nsegs;

				if (emit(w, CP_SYSCALL, wk.at, cur, ti, &t->rows[k]) < 0)
					return -1;
				if (w->p->nsegs > before) {
					struct cp_seg *s = &w->p->segs[before];

					s->match = (uint8_t)wk.match;
					s->event = (uint8_t)wk.event;
					s->other = wk.task;
				}
				w->p->followed++;
				cur = wk.at;
				ti = wk.task;
				continue;
			}
		}
		if (emit(w, CP_SYSCALL, t->rows[k].ts, cur, ti, &t->rows[k]) < 0)
			return -1;
		cur = t->rows[k].ts;
	}
	return 0;
}

/*
 * Whether @t is a kernel thread: kthreadd (tid 2) or one it made (all of
 * them). Only host rows bring them into a container's tasks.
 */
static bool kernel_thread(const struct tl_task *t)
{
	return t->tid == 2 || t->ppid == 2;
}

/*
 * Whether @o's wake, which the object could not tell from an interrupt's
 * (wake=unknown: the task current at the wake), may be task @x's: @x was
 * in the kernel on its own account at @at, in a syscall or exiting (a task
 * in user space wakes nobody: an interrupt came in on it), and the task
 * @self that woke was not in a sleep or a poll that returned 0, which its
 * timer ended whoever was current.
 */
static bool guess_plausible(const struct walk *w, uint32_t self, uint32_t x, uint64_t at)
{
	const struct tl_task *t = &w->c->tasks[self], *wt = &w->c->tasks[x];
	long k = timeline_row_before(t, at);

	if (k >= 0 && row_end(w, t, (size_t)k) >= at && t->rows[k].ret == 0) {
		enum sc_class cls = classify(w, t->rows[k].name);

		if (cls == SC_SLEEP || cls == SC_POLL)
			return false;
	}
	k = timeline_row_before(wt, at);
	if (k >= 0 && row_end(w, wt, (size_t)k) >= at)
		return true;
	return wt->exit_ts != TL_NONE && k >= 0 && (size_t)k + 1 == wt->nrows;
}

/*
 * The waker of off-CPU interval @o of task @self to follow at its wake
 * @at: a task of the container begun before it, not @self; TL_NOTASK
 * when none. Not a kernel thread (a kworker, rcu's, ksoftirqd): a service
 * of the whole host, woken by whichever task queued work first, seldom
 * the one that waits; the wake is left named on the blocked segment, as
 * an interrupt's. Not a host task outside the runtime's processes
 * (host_tasks.h) ending an uninterruptible sleep (D): it released a lock
 * or an I/O the boot waited on (a stranger's npm holding ext4's, measured
 * in a pod's boot on a busy host), it did no work for the boot, and its
 * past is no part of the path. A guess (wake=unknown) only when
 * guess_plausible.
 */
static uint32_t waker_task(const struct walk *w, uint32_t self, const struct tl_off *o,
			   uint64_t at)
{
	const struct tl_container *c = w->c;
	const struct tl_wakeinfo *wi = timeline_off_info(w->tl, o);
	uint32_t x;

	if ((wi->wake != TL_WAKE_TASK && wi->wake != TL_WAKE_NEW && wi->wake != TL_WAKE_UNKNOWN) ||
	    !wi->waker)
		return TL_NOTASK;
	x = timeline_find_task(c, wi->waker);
	if (x == TL_NOTASK || x == self || c->tasks[x].begin >= at || kernel_thread(&c->tasks[x]) ||
	    (o->state == 'D' && c->tasks[x].host && !c->tasks[x].runtime))
		return TL_NOTASK;
	if (wi->wake == TL_WAKE_UNKNOWN && !guess_plausible(w, self, x, at))
		return TL_NOTASK;
	return x;
}

/*
 * The last of @n elements of @size bytes at @a (sorted by their first
 * field, a uint64_t time) that begins before @ts, or -1: as
 * timeline_row_before() and timeline_off_before(), first trying *@hint
 * and the one before it (a walk back goes there next), then a binary
 * search. *@hint becomes the answer.
 */
static long before_hinted(const void *a, size_t n, size_t size, uint64_t ts, long *hint,
			  long (*search)(const struct tl_task *, uint64_t), const struct tl_task *t)
{
	const char *b = a;
	long h = *hint;
	uint64_t at, next;

	if (h >= 0 && (size_t)h < n) {
		memcpy(&at, b + (size_t)h * size, 8);
		if (at < ts) {
			if ((size_t)h + 1 == n)
				return h;
			memcpy(&next, b + ((size_t)h + 1) * size, 8);
			if (next >= ts)
				return h;
		} else if (h == 0) {
			return *hint = -1;
		} else {
			memcpy(&at, b + ((size_t)h - 1) * size, 8);
			if (at < ts)
				return *hint = h - 1;
		}
	}
	return *hint = search(t, ts);
}

/*
 * The walk with scheduler rows (critpath.h): at (@ti, @cur), the segment
 * that ends at @cur is bounded below by whichever comes last of the task's
 * creation, the edges of its off-CPU interval (left the CPU, woken, got it
 * back) and of its syscall row; its state comes from the first, its kind
 * (cpu or the syscall) from the second. At a wake by a task of the
 * container the walk goes on in that task.
 */
static int walk_back_sched(struct walk *w, uint32_t ti, uint64_t cur)
{
	const struct tl_container *c = w->c;
	uint64_t steps = 0, limit = 16;
	size_t i;

	for (i = 0; i < c->ntasks; i++)
		limit += 4 * (c->tasks[i].nrows + c->tasks[i].noffs + 2);
	while (cur > w->p->t0) {
		const struct tl_task *t;
		const struct tl_off *o = NULL;
		const struct tl_row *row = NULL;
		enum cp_state st = CP_ST_RUNNING;
		enum cp_kind kind = CP_CPU;
		uint64_t lo;
		long j, k;

		if (ti == TL_NOTASK)
			return emit(w, CP_RUNTIME, w->p->t0, cur, TL_NOTASK, NULL);
		if (++steps > limit) /* a cycle in hostile input */
			return emit(w, CP_UNKNOWN, w->p->t0, cur, TL_NOTASK, NULL);
		t = &c->tasks[ti];
		if (cur <= t->begin) {
			ti = creator(w, ti, cur);
			continue;
		}
		lo = t->begin;
		if (w->hint_task != ti) {
			w->hint_task = ti;
			w->hint_off = w->hint_row = -1;
		}
		j = before_hinted(t->offs, t->noffs, sizeof(*t->offs), cur, &w->hint_off,
				  timeline_off_before, t);
		if (j >= 0) {
			const struct tl_off *oj = &t->offs[j];
			uint64_t in = oj->out + oj->dur, wake = timeline_off_wake(oj);

			if (cur <= in) {
				o = oj;
				if (cur > wake) {
					st = CP_ST_RUNNABLE;
					lo = wake > lo ? wake : lo;
				} else {
					uint32_t x = cur == wake ? waker_task(w, ti, oj, wake) : TL_NOTASK;

					if (x != TL_NOTASK) {
						struct cp_seg *s = w->p->nsegs ? &w->p->segs[w->p->nsegs - 1] : NULL;

						if (s && s->task == ti && s->ts == cur) {
							s->match = timeline_off_info(w->tl, oj)->wake ==
								   TL_WAKE_UNKNOWN ?
								   CP_MATCH_WAKE_CUR : CP_MATCH_WAKE;
							s->event = CP_EV_WAKE;
							s->other = x;
						}
						w->p->followed++;
						ti = x;
						continue;
					}
					st = CP_ST_BLOCKED;
					lo = oj->out > lo ? oj->out : lo;
				}
			} else if (in > lo) {
				lo = in;
			}
		}
		k = before_hinted(t->rows, t->nrows, sizeof(*t->rows), cur, &w->hint_row,
				  timeline_row_before, t);
		if (k >= 0) {
			uint64_t end = row_end(w, t, (size_t)k);

			if (end >= cur) {
				kind = CP_SYSCALL;
				row = &t->rows[k];
				lo = row->ts > lo ? row->ts : lo;
			} else if (end > lo) {
				lo = end;
			}
		}
		if (emit_state(w, kind, lo, cur, ti, row, st, o) < 0)
			return -1;
		cur = lo;
	}
	return 0;
}

int critpath_build(const struct timeline *tl, size_t ctr, uint32_t phase,
		   const char *phase_name, struct cp_path *p)
{
	struct walk w = { .tl = tl, .c = &tl->ctrs[ctr], .p = p, .hint_task = TL_NOTASK };
	size_t i, j;
	uint32_t target;
	int rc;

	memset(p, 0, sizeof(*p));
	p->ctr = ctr;
	p->target = TL_NOTASK;
	p->t0 = w.c->t_start;
	p->t1 = timeline_phase(w.c, phase);
	if (p->t0 == TL_NONE || p->t1 == TL_NONE || p->t1 < p->t0 ||
	    !find_target(&w, phase, phase_name, p->t1, &target))
		return 0;
	p->target = target;
	w.lost = w.c->lost > 0;
	for (i = 0; i < NSC; i++)
		w.ids[i] = strtab_find(tl->strs, sc_names[i].name, strlen(sc_names[i].name));
	rc = w.c->has_sched ? walk_back_sched(&w, target, p->t1) : walk_back(&w, target, p->t1);
	free(w.pw);
	if (rc < 0) {
		critpath_release(p);
		return -1;
	}
	/* newest first -> by time */
	for (i = 0, j = p->nsegs; i + 1 < j; i++, j--) {
		struct cp_seg s = p->segs[i];

		p->segs[i] = p->segs[j - 1];
		p->segs[j - 1] = s;
	}
	return 1;
}

void critpath_release(struct cp_path *p)
{
	free(p->segs);
	p->segs = NULL;
	p->nsegs = 0;
	free(p->shares);
	p->shares = NULL;
	p->nshares = 0;
	p->shares_filled = false;
}
