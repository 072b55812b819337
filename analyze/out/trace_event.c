// SPDX-License-Identifier: BSD-2-Clause
/* --format trace-event: see trace_event.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/boot/critpath.h"
#include "analyze/boot/profile.h"
#include "analyze/out/trace_event.h"
#include "common/tsv.h"

/* Synthetic thread ids in each container's process. */
#define TID_PHASES 1
#define TID_CRITPATH 2
#define TID_TASK0 3

/*
 * A buffered writer with its own number formatting: a 10M-row trace is
 * 30M+ numbers, which printf would spend most of the time parsing formats
 * for.
 */
struct out {
	FILE *f;
	size_t n;
	int err;		/* a write failed (errno kept) */
	bool first;		/* no event written yet */
	uint64_t clipped;	/* syscall slices started later to nest */
	uint64_t sched_clipped;	/* off-CPU slices ended sooner to nest */
	uint64_t nflows;	/* flow ids given */
	char buf[1u << 16];
};

static void out_flush(struct out *o)
{
	if (o->n && fwrite(o->buf, 1, o->n, o->f) != o->n)
		o->err = errno ? errno : EIO;
	o->n = 0;
}

static void put(struct out *o, const char *s, size_t n)
{
	if (o->n + n > sizeof(o->buf)) {
		out_flush(o);
		if (n > sizeof(o->buf)) {
			if (fwrite(s, 1, n, o->f) != n)
				o->err = errno ? errno : EIO;
			return;
		}
	}
	memcpy(o->buf + o->n, s, n);
	o->n += n;
}

#define PUTS(o, lit) put((o), (lit), sizeof(lit) - 1)
/* ,"KEY":value, KEY a string literal */
#define KV_I64(o, key, v) (PUTS((o), ",\"" key "\":"), put_i64((o), (v)))
#define KV_U64(o, key, v) (PUTS((o), ",\"" key "\":"), put_u64((o), (v)))
#define KV_US(o, key, v) (PUTS((o), ",\"" key "\":"), put_us((o), (v)))
#define KV_STR(o, key, v) (PUTS((o), ",\"" key "\":"), put_str((o), (v)))

static const char digits2[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* @v in decimal, two digits a division (the exports are mostly numbers). */
static void put_u64(struct out *o, uint64_t v)
{
	char t[24];
	int i = (int)sizeof(t);

	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		t[--i] = digits2[2 * r + 1];
		t[--i] = digits2[2 * r];
	}
	if (v >= 10) {
		t[--i] = digits2[2 * v + 1];
		t[--i] = digits2[2 * v];
	} else {
		t[--i] = (char)('0' + v);
	}
	put(o, t + i, sizeof(t) - (size_t)i);
}

static void put_i64(struct out *o, int64_t v)
{
	if (v < 0) {
		PUTS(o, "-");
		put_u64(o, (uint64_t)0 - (uint64_t)v);
	} else {
		put_u64(o, (uint64_t)v);
	}
}

/* @ns as microseconds with exactly three decimals: 1234567 -> 1234.567. */
static void put_us(struct out *o, __int128 ns)
{
	unsigned __int128 m = ns < 0 ? (unsigned __int128)(-ns) : (unsigned __int128)ns;
	char frac[4];
	unsigned f;
	uint64_t whole;

	/* 64-bit division when it fits (always, but for hostile values):
	 * a 128-bit one is a libgcc call */
	if (m <= UINT64_MAX) {
		whole = (uint64_t)m / 1000;
		f = (unsigned)((uint64_t)m % 1000);
	} else {
		whole = (uint64_t)(m / 1000);
		f = (unsigned)(m % 1000);
	}
	if (ns < 0)
		PUTS(o, "-");
	put_u64(o, whole);
	frac[0] = '.';
	frac[1] = (char)('0' + f / 100);
	frac[2] = (char)('0' + f / 10 % 10);
	frac[3] = (char)('0' + f % 10);
	put(o, frac, 4);
}

/*
 * A string of the trace, TSV-escaped, as a JSON string: " and \ escaped,
 * and in case a byte slipped through unescaped, a control byte or one
 * that does not start valid UTF-8 as the TSV would write it (\xHH).
 */
static void put_str(struct out *o, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0, k, n = strlen(s);
	char hex[6];

	PUTS(o, "\"");
	while (p[i]) {
		unsigned char c = p[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			i++;
			run++;
			continue;
		}
		put(o, (const char *)p + i - run, run);
		run = 0;
		if (c == '"' || c == '\\') {
			hex[0] = '\\';
			hex[1] = (char)c;
			put(o, hex, 2);
			i++;
		} else if (c >= 0x80 && (k = tsv_utf8_seq_len(p + i, n - i))) {
			put(o, (const char *)p + i, k);
			i += k;
		} else {
			snprintf(hex, sizeof(hex), "\\\\x%02x", c);
			put(o, hex, 5);
			i++;
		}
	}
	put(o, (const char *)p + i - run, run);
	PUTS(o, "\"");
}

#define NO_TID UINT64_MAX	/* a process's metadata: no tid */

/* The start of an event: the separator, then {"ph":"PH","pid":N,"tid":N */
static void ev(struct out *o, const char *ph, size_t pid, uint64_t tid)
{
	if (o->first) {
		PUTS(o, "\n{\"ph\":\"");
		o->first = false;
	} else {
		PUTS(o, ",\n{\"ph\":\"");
	}
	put(o, ph, strlen(ph));
	PUTS(o, "\",\"pid\":");
	put_u64(o, pid);
	if (tid != NO_TID) {
		KV_U64(o, "tid", tid);
	}
}

/* ,"ts":T for absolute @ts against @t0 */
static void ts_field(struct out *o, uint64_t ts, uint64_t t0)
{
	KV_US(o, "ts", (__int128)ts - (__int128)t0);
}

static void meta(struct out *o, size_t pid, uint64_t tid, const char *what, const char *name)
{
	ev(o, "M", pid, tid);
	PUTS(o, ",\"name\":\"");
	put(o, what, strlen(what));
	PUTS(o, "\",\"args\":{\"name\":");
	put_str(o, name);
}

static void sort_index(struct out *o, size_t pid, uint64_t tid, const char *what, uint64_t idx)
{
	ev(o, "M", pid, tid);
	PUTS(o, ",\"name\":\"");
	put(o, what, strlen(what));
	PUTS(o, "\",\"args\":{\"sort_index\":");
	put_u64(o, idx);
	PUTS(o, "}}");
}

/* A thread-scoped instant on @tid at @ts, named @name, args to follow. */
static void instant(struct out *o, size_t pid, uint64_t tid, uint64_t ts, uint64_t t0,
		    const char *name, const char *cat)
{
	ev(o, "i", pid, tid);
	PUTS(o, ",\"s\":\"t\"");
	ts_field(o, ts, t0);
	KV_STR(o, "name", name);
	PUTS(o, ",\"cat\":\"");
	put(o, cat, strlen(cat));
	PUTS(o, "\",\"args\":{");
}

static uint64_t time_zero(const struct tl_container *c)
{
	uint64_t t0 = TL_NONE;
	size_t i;

	if (c->t_start != TL_NONE)
		return c->t_start;
	for (i = 0; i < c->ntasks; i++)
		if (c->tasks[i].begin < t0)
			t0 = c->tasks[i].begin;
	return t0 == TL_NONE ? 0 : t0;
}

static void process_meta(struct out *o, const struct timeline *tl, const struct tl_container *c,
			 size_t pid, uint64_t t0)
{
	meta(o, pid, NO_TID, "process_name", timeline_str(tl, c->name));
	KV_U64(o, "file", c->file + 1);
	KV_U64(o, "time_zero_ns", t0);
	PUTS(o, ",\"time_zero\":\"");
	if (c->t_start != TL_NONE)
		PUTS(o, "its start row\"}}");
	else
		PUTS(o, "no start row: its earliest event\"}}");
	sort_index(o, pid, NO_TID, "process_sort_index", pid);
	if (c->t_start == TL_NONE) {
		ev(o, "M", pid, NO_TID);
		PUTS(o, ",\"name\":\"process_labels\",\"args\":{\"labels\":\"no start row\"}}");
	}
}

static void phases(struct out *o, const struct analysis *a, const struct tl_container *c,
		   size_t pid, uint64_t t0)
{
	const struct timeline *tl = a->tl;
	size_t i;

	meta(o, pid, TID_PHASES, "thread_name", "phases");
	PUTS(o, "}}");
	sort_index(o, pid, TID_PHASES, "thread_sort_index", TID_PHASES);
	for (i = 0; i < c->nphases && c->t_start != TL_NONE; i++) {
		const char *name = analysis_phase_name(a, c->phases[i].phase);
		char label[96];

		snprintf(label, sizeof(label), "start -> %.80s", name);
		ev(o, "X", pid, TID_PHASES);
		ts_field(o, c->t_start, t0);
		KV_US(o, "dur", (__int128)c->phases[i].ts - (__int128)c->t_start);
		KV_STR(o, "name", label);
		PUTS(o, ",\"cat\":\"phase\",\"args\":{\"phase\":");
		put_str(o, name);
		PUTS(o, "}}");
	}
	for (i = 0; i < c->nstarts; i++) {
		const struct tl_start *s = &c->starts[i];
		char label[96];

		snprintf(label, sizeof(label), "start (%.80s)", timeline_str(tl, s->how));
		instant(o, pid, TID_PHASES, s->ts, t0, label, "start");
		PUTS(o, "\"pid\":");
		put_i64(o, s->pid);
		KV_STR(o, "comm", timeline_str(tl, s->comm));
		if (s->detail != TL_NOSTR) {
			KV_STR(o, "detail", timeline_str(tl, s->detail));
		}
		PUTS(o, "}}");
	}
}

/*
 * A wake-up the critical path followed (with scheduler rows), drawn as a
 * flow: from a 0-length slice "wakes TID COMM" on the waker's thread at
 * the wake, to the wakee's runnable slice that begins there. Both ends
 * carry the flow's bind_id (flow v2): a slice of its own on the waker's
 * side is there whatever the waker was doing (a syscall slice, or none),
 * and the binding does not depend on how a viewer orders equal times.
 */
struct flow {
	uint32_t task;		/* this end's task: the waker (src), the wakee (dst) */
	uint32_t peer;		/* the other end's task */
	uint64_t at;		/* the wake, absolute ns */
	uint64_t id;		/* bind_id: unique in the file */
	bool guess;		/* the waker is the task current at the wake (wake=unknown) */
};

struct flows {
	struct flow *src, *dst;	/* by task, then time */
	size_t n;
	size_t is, id;		/* the next of each for task_events(), which go in task order */
};

static int cmp_flow(const void *x, const void *y)
{
	const struct flow *a = x, *b = y;

	if (a->task != b->task)
		return a->task < b->task ? -1 : 1;
	return a->at < b->at ? -1 : a->at > b->at;
}

/* The wake-ups of path @p into @fl (ids from @o). -1 out of memory. */
static int path_flows(struct out *o, const struct cp_path *p, struct flows *fl)
{
	size_t k;

	fl->src = calloc(p->nsegs ? p->nsegs : 1, sizeof(*fl->src));
	fl->dst = calloc(p->nsegs ? p->nsegs : 1, sizeof(*fl->dst));
	if (!fl->src || !fl->dst)
		return -1;
	for (k = 0; k < p->nsegs; k++) {
		const struct cp_seg *s = &p->segs[k];
		struct flow *f = &fl->src[fl->n];

		if ((s->match != CP_MATCH_WAKE && s->match != CP_MATCH_WAKE_CUR) ||
		    s->task == TL_NOTASK || s->other == TL_NOTASK)
			continue;
		f->task = s->other;
		f->peer = s->task;
		f->at = s->ts;
		f->id = ++o->nflows;
		f->guess = s->match == CP_MATCH_WAKE_CUR;
		fl->dst[fl->n] = *f;
		fl->dst[fl->n].task = s->task;
		fl->dst[fl->n].peer = s->other;
		fl->n++;
	}
	qsort(fl->src, fl->n, sizeof(*fl->src), cmp_flow);
	qsort(fl->dst, fl->n, sizeof(*fl->dst), cmp_flow);
	return 0;
}

static void flows_free(struct flows *fl)
{
	free(fl->src);
	free(fl->dst);
	memset(fl, 0, sizeof(*fl));
}

/*
 * The critical path's segments on their own thread; its wake-ups into
 * @fl. -1 out of memory.
 */
static int critical_path(struct out *o, const struct analysis *a, size_t ci, size_t pid,
			 uint64_t t0, uint32_t phase, struct flows *fl)
{
	const struct timeline *tl = a->tl;
	const struct tl_container *c = &tl->ctrs[ci];
	const char *pname = analysis_phase_name(a, phase);
	struct cp_path p;
	char label[96];
	size_t k;
	int got;

	if (c->t_start == TL_NONE)
		return 0;
	got = critpath_build(tl, ci, phase, pname, &p);
	if (got <= 0)
		return got;
	snprintf(label, sizeof(label), "critical path to %.70s", pname);
	meta(o, pid, TID_CRITPATH, "thread_name", label);
	PUTS(o, "}}");
	sort_index(o, pid, TID_CRITPATH, "thread_sort_index", TID_CRITPATH);
	for (k = 0; k < p.nsegs; k++) {
		const struct cp_seg *s = &p.segs[k];
		const struct tl_task *t = s->task == TL_NOTASK ? NULL : &c->tasks[s->task];

		ev(o, "X", pid, TID_CRITPATH);
		ts_field(o, s->ts, t0);
		KV_US(o, "dur", s->dur);
		PUTS(o, ",\"name\":");
		if (s->kind == CP_SYSCALL) {
			snprintf(label, sizeof(label), "syscall:%.80s", timeline_str(tl, s->name));
			put_str(o, label);
		} else {
			put_str(o, critpath_kind_name((enum cp_kind)s->kind));
		}
		PUTS(o, ",\"cat\":\"critical_path\",\"args\":{");
		if (t) {
			PUTS(o, "\"task\":");
			put_u64(o, TID_TASK0 + s->task);
			KV_I64(o, "tid", t->tid);
			KV_STR(o, "comm", timeline_str(tl, timeline_comm_at(t, s->ts)));
		} else {
			PUTS(o, "\"task\":\"runtime\"");
		}
		if (s->kind == CP_SYSCALL && s->detail != TL_NOSTR) {
			KV_STR(o, "detail", timeline_str(tl, s->detail));
		}
		if (s->match != CP_MATCH_NONE && s->other != TL_NOTASK) {
			KV_U64(o, "woken_by_task", TID_TASK0 + s->other);
		}
		if (c->has_sched) {
			KV_STR(o, "state", critpath_state_name((enum cp_state)s->state));
		}
		PUTS(o, "}}");
	}
	got = c->has_sched ? path_flows(o, &p, fl) : 0;
	critpath_release(&p);
	return got;
}

static void thread_meta(struct out *o, const struct timeline *tl, const struct tl_task *t,
			size_t pid, uint64_t tid)
{
	char name[64];
	const char *comm = timeline_str(tl, t->comm_last);

	if (t->pid == t->tid)
		snprintf(name, sizeof(name), "%.30s %lld", comm, (long long)t->tid);
	else
		snprintf(name, sizeof(name), "%.30s %lld/%lld", comm, (long long)t->pid,
			 (long long)t->tid);
	meta(o, pid, tid, "thread_name", name);
	KV_I64(o, "pid", t->pid);
	KV_I64(o, "tid", t->tid);
	KV_I64(o, "ppid", t->ppid);
	PUTS(o, "}}");
	sort_index(o, pid, tid, "thread_sort_index", tid);
}

/* The next piece of an off-CPU interval: blocked or runnable, [a, z). */
struct piece {
	const struct tl_off *off;
	uint64_t a, z;
	bool runnable;
};

/*
 * The next off-CPU slice of @t from interval *@j (its blocked part when
 * *@part is 0, its runnable part when 1), starting at @cur at the
 * earliest (hostile intervals may overlap: slices of a thread never do),
 * empty ones skipped. False when none is left.
 */
static bool next_piece(const struct tl_task *t, size_t *j, int *part, uint64_t cur,
		       struct piece *pc)
{
	/* part 0, 1 of interval 0, then of 1, ... */
	for (; *j < t->noffs; *part = !*part, *j += !*part) {
		const struct tl_off *off = &t->offs[*j];
		uint64_t wake = timeline_off_wake(off), in = off->out + off->dur;

		pc->off = off;
		pc->runnable = *part;
		pc->a = *part ? wake : off->out;
		pc->z = *part ? in : wake;
		if (pc->a < cur)
			pc->a = cur;
		if (pc->z > pc->a) {
			*part = !*part;
			*j += !*part;
			return true;
		}
	}
	return false;
}

/* A sched row's waker or holder, as "KEY":TID,"KEY_comm":COMM, when it names one. */
static void put_peer(struct out *o, const struct timeline *tl, const char *key, int32_t tid,
		     uint32_t comm)
{
	if (!tid)
		return;
	PUTS(o, ",\"");
	put(o, key, strlen(key));
	PUTS(o, "\":");
	put_i64(o, tid);
	if (comm != TL_NOSTR) {
		PUTS(o, ",\"");
		put(o, key, strlen(key));
		PUTS(o, "_comm\":");
		put_str(o, timeline_str(tl, comm));
	}
}

/* Piece @pc, its end clipped to @z, on @tid; the end of flow @f when not NULL. */
static void state_slice(struct out *o, const struct timeline *tl, const struct piece *pc,
			uint64_t z, size_t pid, uint64_t tid, uint64_t t0, const struct flow *f)
{
	const struct tl_off *off = pc->off;
	const struct tl_wakeinfo *wi = timeline_off_info(tl, off);
	char st[2] = { (char)off->state, 0 };

	ev(o, "X", pid, tid);
	ts_field(o, pc->a, t0);
	KV_US(o, "dur", z - pc->a);
	PUTS(o, ",\"name\":");
	put_str(o, pc->runnable ? "runnable" : off->state == 'D' ? "blocked (D)" : "blocked (S)");
	PUTS(o, ",\"cat\":\"sched\",\"args\":{\"state\":");
	put_str(o, st);
	KV_STR(o, "wake", timeline_wake_name((enum tl_wake)wi->wake));
	/* wake=unknown: the timeline's waker is the task current at the wake, a guess */
	put_peer(o, tl, wi->wake == TL_WAKE_UNKNOWN ? "current" : "waker", wi->waker, wi->wcomm);
	if (pc->runnable)
		put_peer(o, tl, "holder", wi->holder, wi->hcomm);
	PUTS(o, "}");
	if (f) {
		KV_U64(o, "bind_id", f->id);
		PUTS(o, ",\"flow_in\":true");
	}
	PUTS(o, "}");
}

/* A flow's end without a slice of its own: 0 long at the wake, on @tid. */
static void flow_slice(struct out *o, const struct timeline *tl, const struct tl_container *c,
		       const struct flow *f, bool out, size_t pid, uint64_t tid, uint64_t t0)
{
	const struct tl_task *peer = &c->tasks[f->peer];
	char label[64];

	if (out)
		snprintf(label, sizeof(label), "wakes %lld %.30s", (long long)peer->tid,
			 timeline_str(tl, timeline_comm_at(peer, f->at)));
	ev(o, "X", pid, tid);
	ts_field(o, f->at, t0);
	PUTS(o, ",\"dur\":0.000,\"name\":");
	put_str(o, out ? label : "runnable");
	PUTS(o, ",\"cat\":\"sched\",\"args\":{");
	if (out)
		PUTS(o, "\"wakee_task\":");
	else
		PUTS(o, "\"woken_by_task\":");
	put_u64(o, TID_TASK0 + f->peer);
	if (out)
		PUTS(o, ",\"wakee\":");
	else
		PUTS(o, ",\"waker\":");
	put_i64(o, peer->tid);
	if (f->guess)
		PUTS(o, ",\"waker_is\":\"the task current at the wake: a guess\"");
	PUTS(o, "}");
	KV_U64(o, "bind_id", f->id);
	if (out)
		PUTS(o, ",\"flow_out\":true}");
	else
		PUTS(o, ",\"flow_in\":true}");
}

/* What a task's slices are made of, in the order they go at one time (parents first). */
enum { IT_SYSCALL, IT_STATE, IT_DST, IT_SRC, IT_NONE };

/*
 * A task's slices on its thread, by start, parents first: its syscalls,
 * which never overlap; its off-CPU slices (blocked, runnable), which nest
 * in them (a task off CPU neither enters nor leaves a syscall: one that
 * seems to is ended where its syscall ends or the next begins, and
 * counted); the ends of the flows of @fl on it.
 */
static void task_slices(struct out *o, const struct timeline *tl, const struct tl_container *c,
			size_t ti, size_t pid, uint64_t t0, struct flows *fl)
{
	const struct tl_task *t = &c->tasks[ti];
	uint64_t tid = TID_TASK0 + ti;
	__int128 prev_end = 0, pb = 0, pe = 0;	/* the last syscall slice */
	bool any = false, have;
	size_t k = 0, j = 0, is, id, is_end, id_end;
	int part = 0;
	struct piece pc;

	while (fl->is < fl->n && fl->src[fl->is].task < ti)
		fl->is++;
	while (fl->id < fl->n && fl->dst[fl->id].task < ti)
		fl->id++;
	for (is = is_end = fl->is; is_end < fl->n && fl->src[is_end].task == ti; is_end++)
		;
	for (id = id_end = fl->id; id_end < fl->n && fl->dst[id_end].task == ti; id_end++)
		;
	fl->is = is_end;
	fl->id = id_end;
	have = next_piece(t, &j, &part, 0, &pc);
	for (;;) {
		int kind = IT_NONE;
		__int128 nb = 0, best = 0;

		if (k < t->nrows) {
			/* rows are sorted by entry: only the previous end can overlap */
			nb = t->rows[k].ts;
			if (any && nb < prev_end)
				nb = prev_end;
			kind = IT_SYSCALL;
			best = nb;
		}
		if (have && (kind == IT_NONE || pc.a < best)) {
			kind = IT_STATE;
			best = pc.a;
		}
		if (id < id_end && (kind == IT_NONE || fl->dst[id].at < best)) {
			kind = IT_DST;
			best = fl->dst[id].at;
		}
		if (is < is_end && (kind == IT_NONE || fl->src[is].at < best))
			kind = IT_SRC;
		if (kind == IT_NONE)
			break;
		if (kind == IT_SYSCALL) {
			const struct tl_row *r = &t->rows[k++];
			__int128 b = r->ts, e = (__int128)r->ts + (r->dur == TL_NONE ? 0 : r->dur);

			if (any && b < prev_end) {
				o->clipped++;
				b = prev_end;
				if (e < b)
					e = b;
			}
			if (!any || e > prev_end)
				prev_end = e;
			any = true;
			pb = b;
			pe = e;
			ev(o, "X", pid, tid);
			KV_US(o, "ts", b - (__int128)t0);
			KV_US(o, "dur", e - b);
			KV_STR(o, "name", timeline_str(tl, r->name));
			PUTS(o, ",\"cat\":\"syscall\",\"args\":{\"ret\":");
			if (r->ret == TL_NORET)
				PUTS(o, "null");
			else
				put_i64(o, r->ret);
			if (r->detail != TL_NOSTR) {
				KV_STR(o, "detail", timeline_str(tl, r->detail));
			}
			PUTS(o, "}}");
		} else if (kind == IT_STATE) {
			uint64_t z = pc.z;
			const struct flow *f = NULL;

			/* inside the last syscall: to its end at most; else to the next one's start */
			if (any && pb <= pc.a && pc.a < pe) {
				if (z > pe) {
					z = (uint64_t)pe;
					o->sched_clipped++;
				}
			} else if (k < t->nrows && z > nb) {
				z = (uint64_t)nb;
				o->sched_clipped++;
			}
			if (pc.runnable && id < id_end && fl->dst[id].at == pc.a &&
			    timeline_off_wake(pc.off) == pc.a)
				f = &fl->dst[id++];
			state_slice(o, tl, &pc, z, pid, tid, t0, f);
			have = next_piece(t, &j, &part, pc.z, &pc);
		} else {
			flow_slice(o, tl, c, kind == IT_SRC ? &fl->src[is++] : &fl->dst[id++],
				   kind == IT_SRC, pid, tid, t0);
		}
	}
}

/* A task's slices (task_slices()), then its instants. */
/*
 * A task's profile samples: an instant each on its thread, named by the
 * function it was in (its innermost frame, as profile.h names it), with
 * the function's module and the sample's CPU time. -1 out of memory.
 */
static int task_samples(struct out *o, struct profile *prof, const struct tl_task *t,
			size_t pid, uint64_t tid, uint64_t t0)
{
	size_t k;

	for (k = 0; k < t->nsamples && !o->err; k++) {
		const struct tl_sample *s = &t->samples[k];
		long fn = profile_sample_fn(prof, s);

		if (fn < 0)
			return -1;
		instant(o, pid, tid, s->ts, t0, profile_fn_name(prof, (uint32_t)fn), "sample");
		PUTS(o, "\"module\":");
		put_str(o, profile_fn_module(prof, (uint32_t)fn));
		KV_U64(o, "period_ns", s->period);
		PUTS(o, "}}");
	}
	return 0;
}

static void task_events(struct out *o, const struct timeline *tl, const struct tl_container *c,
			size_t ti, size_t pid, uint64_t t0, struct flows *fl)
{
	const struct tl_task *t = &c->tasks[ti];
	uint64_t tid = TID_TASK0 + ti;
	size_t k;

	thread_meta(o, tl, t, pid, tid);
	task_slices(o, tl, c, ti, pid, t0, fl);
	if (t->has_fork) {
		instant(o, pid, tid, t->fork_ts, t0, "fork", "fork");
		PUTS(o, "\"kind\":");
		put_str(o, t->is_thread ? "thread" : "process");
		KV_I64(o, "ppid", t->ppid);
		if (t->parent != TL_NOTASK) {
			KV_I64(o, "parent_tid", c->tasks[t->parent].tid);
			KV_U64(o, "parent_task", TID_TASK0 + t->parent);
		}
		PUTS(o, "}}");
	}
	for (k = 0; k < t->nexecs; k++) {
		instant(o, pid, tid, t->execs[k].ts, t0, "exec", "exec");
		PUTS(o, "\"filename\":");
		put_str(o, timeline_str(tl, t->execs[k].filename));
		KV_STR(o, "comm", timeline_str(tl, t->execs[k].comm));
		PUTS(o, "}}");
	}
	if (t->exit_ts != TL_NONE) {
		instant(o, pid, tid, t->exit_ts, t0, "exit", "exit");
		PUTS(o, "\"status\":");
		if (t->exit_status == TL_NORET)
			PUTS(o, "null");
		else
			put_i64(o, t->exit_status);
		PUTS(o, "}}");
	}
}

/*
 * A task's interpreter spans (span rows), nested slices on a thread of
 * their own beside the task's (@tid, sorted next to it): on the task's
 * thread they would cut through its syscall slices where a guessed end
 * (a raised require) falls inside one.
 */
static void task_spans(struct out *o, const struct timeline *tl, const struct tl_task *t,
		       size_t pid, uint64_t tid, uint64_t sort, uint64_t t0)
{
	char name[64];
	size_t k;

	snprintf(name, sizeof(name), "%.30s %lld spans", timeline_str(tl, t->comm_last),
		 (long long)t->tid);
	meta(o, pid, tid, "thread_name", name);
	PUTS(o, "}}");
	sort_index(o, pid, tid, "thread_sort_index", sort);
	for (k = 0; k < t->nspans; k++) {
		const struct tl_span *s = &t->spans[k];

		ev(o, "X", pid, tid);
		ts_field(o, s->ts, t0);
		KV_US(o, "dur", (__int128)s->dur);
		KV_STR(o, "name", timeline_str(tl, s->what));
		PUTS(o, ",\"cat\":\"span\",\"args\":{\"kind\":");
		put_str(o, timeline_str(tl, s->kind));
		KV_U64(o, "depth", s->depth);
		if (s->flags & TL_SPAN_RAISED)
			PUTS(o, ",\"raised\":true");
		PUTS(o, "}}");
	}
}

int trace_event_print(FILE *f, const struct analysis *a, uint32_t cp_phase)
{
	const struct timeline *tl = a->tl;
	struct out *o = calloc(1, sizeof(*o));
	struct profile_opts popts = { 0 };
	struct profile *prof = NULL;
	size_t ci, k;
	int rc = 0;

	if (!o)
		return -1;
	/* samples named without --debug-dir: the binaries the TSV names and
	 * /usr/lib/debug (analyze --profile takes the directories) */
	if (tl->samples && !(prof = profile__new(tl, cp_phase, &popts))) {
		free(o);
		return -1;
	}
	o->f = f;
	o->first = true;
	PUTS(o, "{\"traceEvents\":[");
	for (ci = 0; ci < tl->nctrs && !o->err && rc == 0; ci++) {
		const struct tl_container *c = &tl->ctrs[ci];
		uint64_t t0 = time_zero(c);
		size_t pid = ci + 1;
		struct flows fl = { 0 };

		if (c->is_host)
			continue; /* its tasks are in each container's window (host_tasks.h) */
		process_meta(o, tl, c, pid, t0);
		phases(o, a, c, pid, t0);
		if (critical_path(o, a, ci, pid, t0, cp_phase, &fl) < 0) {
			errno = ENOMEM;
			rc = -1;
		}
		for (k = 0; k < c->ntasks; k++) {
			task_events(o, tl, c, k, pid, t0, &fl);
			if (prof && task_samples(o, prof, &c->tasks[k], pid, TID_TASK0 + k, t0) < 0) {
				errno = ENOMEM;
				rc = -1;
			}
		}
		flows_free(&fl);
		for (k = 0; k < c->ntasks; k++)
			if (c->tasks[k].nspans)
				task_spans(o, tl, &c->tasks[k], pid, TID_TASK0 + c->ntasks + k,
					   TID_TASK0 + k, t0);
		for (k = 0; k < c->nmarks; k++) {
			instant(o, pid, TID_TASK0 + c->marks[k].task, c->marks[k].ts, t0,
				timeline_str(tl, c->marks[k].label), "mark");
			PUTS(o, "}}");
		}
	}
	PUTS(o, "\n],\n\"otherData\":{\"generator\":\"analyze (boottrace) " BOOTTRACE_VERSION
	     "\",\"time\":\"ts in us from each container's start; each container a process\"");
	KV_U64(o, "rows", tl->rows);
	KV_U64(o, "clipped", o->clipped);
	KV_U64(o, "sched_clipped", o->sched_clipped);
	KV_U64(o, "flows", o->nflows);
	KV_U64(o, "lost", a->lost);
	PUTS(o, "}}\n");
	out_flush(o);
	if (o->err && rc == 0) {
		errno = o->err;
		rc = -1;
	}
	free(o);
	profile__free(prof);
	if (rc == 0 && ferror(f))
		rc = -1;
	return rc;
}
