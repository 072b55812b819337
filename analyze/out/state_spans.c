// SPDX-License-Identifier: BSD-2-Clause
/* A task's scheduler states as bounded spans: see state_spans.h. */
#include <string.h>

#include "analyze/out/state_spans.h"

struct merger {
	uint64_t q;
	state_span_fn fn;
	void *arg;
	size_t n;
	/* a run of pieces under q: from, to, time by state */
	bool group;
	uint64_t ga, gz, gt[ST_UNKNOWN];
	/* the last span, held back to be joined with a neighbour of its state */
	bool held;
	struct state_span last;
};

static void give(struct merger *m, enum st_kind st, uint64_t from, uint64_t to)
{
	if (m->held && m->last.state == st && m->last.to == from) {
		m->last.to = to;
		return;
	}
	if (m->held) {
		m->fn(&m->last, m->arg);
		m->n++;
	}
	m->last.from = from;
	m->last.to = to;
	m->last.state = st;
	m->held = true;
}

/* The run of short pieces as one span: the state with most time (the first on a tie). */
static void flush_group(struct merger *m)
{
	enum st_kind best = ST_RUNNING;
	int k;

	if (!m->group)
		return;
	for (k = ST_RUNNING; k < ST_UNKNOWN; k++)
		if (m->gt[k] > m->gt[best])
			best = (enum st_kind)k;
	m->group = false;
	give(m, best, m->ga, m->gz);
}

static void piece(struct merger *m, enum st_kind st, uint64_t from, uint64_t to)
{
	if (to <= from)
		return;
	if (to - from >= m->q) {
		flush_group(m);
		give(m, st, from, to);
		return;
	}
	if (!m->group) {
		m->group = true;
		m->ga = from;
		memset(m->gt, 0, sizeof(m->gt));
	}
	m->gt[st] += to - from;
	m->gz = to;
	if (m->gz - m->ga >= m->q)
		flush_group(m);
}

size_t state_spans(const struct tl_task *t, uint64_t lo, uint64_t hi, uint64_t q,
		   state_span_fn fn, void *arg)
{
	struct merger m = { .q = q ? q : 1, .fn = fn, .arg = arg };
	uint64_t cur = lo;
	size_t k;

	/* intervals by when they left the CPU: the first that can reach lo
	 * is at most one before the first that leaves at or after it */
	k = 0;
	if (t->noffs) {
		long j = timeline_off_before(t, lo);

		k = j > 0 ? (size_t)j : 0;
	}
	for (; k < t->noffs && cur < hi; k++) {
		const struct tl_off *o = &t->offs[k];
		uint64_t out = o->out, in = o->out + o->dur, wake = timeline_off_wake(o);

		if (in <= cur)
			continue;
		if (out >= hi)
			break;
		/* clipped to what is left of the window: spans never overlap */
		if (out < cur)
			out = cur;
		if (in > hi)
			in = hi;
		if (wake < out)
			wake = out;
		if (wake > in)
			wake = in;
		piece(&m, ST_RUNNING, cur, out);
		piece(&m, o->state == 'D' ? ST_BLOCKED_D : ST_BLOCKED, out, wake);
		piece(&m, ST_RUNNABLE, wake, in);
		cur = in;
	}
	piece(&m, ST_RUNNING, cur, hi);
	flush_group(&m);
	if (m.held) {
		fn(&m.last, arg);
		m.n++;
	}
	return m.n;
}
