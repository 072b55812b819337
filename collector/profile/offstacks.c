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

uint64_t offstacks_take(struct offstacks *o, uint32_t tid, uint64_t ts)
{
	struct offstack *e = slot(o, tid);
	uint64_t id;

	if (!e->ts || e->tid != tid || e->ts != ts)
		return 0;
	id = e->id;
	e->ts = 0;
	return id;
}
