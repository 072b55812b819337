// SPDX-License-Identifier: BSD-2-Clause
/* Off-CPU stacks until their sched rows (offstacks.h). */
#include "collector/profile/offstacks.h"

static struct offstack *slot(struct offstacks *o, uint32_t tid)
{
	/* tids come in runs: a multiplicative hash spreads them */
	return &o->e[(tid * 2654435761u) >> (32 - OFFSTACKS_BITS)];
}

void offstacks_put(struct offstacks *o, uint32_t tid, uint64_t ts, uint64_t id)
{
	struct offstack *e = slot(o, tid);

	e->tid = tid;
	e->ts = ts;
	e->id = id;
}

int offstacks_same(struct offstacks *o, uint32_t tid, uint64_t ts)
{
	struct offstack *e = slot(o, tid);

	if (e->tid != tid || !e->id)
		return 0;
	e->ts = ts;
	return 1;
}

uint64_t offstacks_take(struct offstacks *o, uint32_t tid, uint64_t ts)
{
	struct offstack *e = slot(o, tid);

	if (!e->ts || e->tid != tid || e->ts != ts)
		return 0;
	e->ts = 0;	/* the id stays, for the next time it blocks there */
	return e->id;
}
