// SPDX-License-Identifier: BSD-2-Clause
/* Time by scheduler state within a window: see states.h. */
#include <string.h>

#include "analyze/boot/states.h"

const char *states_name(enum st_kind k)
{
	static const char *const names[ST_N] = { "running", "runnable", "blocked", "blocked(D)",
						 "unknown" };

	return (unsigned)k < ST_N ? names[k] : "unknown";
}

/* The length of [@a, @b) within [@lo, @hi). */
static uint64_t overlap(uint64_t a, uint64_t b, uint64_t lo, uint64_t hi)
{
	if (a < lo)
		a = lo;
	if (b > hi)
		b = hi;
	return b > a ? b - a : 0;
}

void states_of(const struct tl_container *c, uint64_t lo, uint64_t hi, struct state_times *out)
{
	size_t i, k;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < c->ntasks; i++) {
		const struct tl_task *t = &c->tasks[i];
		uint64_t end = t->exit_ts != TL_NONE && t->exit_ts > t->end ? t->exit_ts : t->end;
		uint64_t life = overlap(t->begin, end, lo, hi), off = 0;

		if (!life || t->host)
			continue; /* the runtime's tasks are not the container's */
		out->tasks++;
		if (!c->has_sched) {
			out->t[ST_UNKNOWN] += life;
			continue;
		}
		for (k = 0; k < t->noffs; k++) {
			const struct tl_off *o = &t->offs[k];
			uint64_t in = o->out + o->dur, wake = timeline_off_wake(o);
			uint64_t blocked = overlap(o->out, wake, lo, hi);
			uint64_t runnable = overlap(wake, in, lo, hi);

			/* a hostile row may lie outside the task's life, or overlap another */
			if (blocked + runnable > life - off)
				break;
			out->t[o->state == 'D' ? ST_BLOCKED_D : ST_BLOCKED] += blocked;
			out->t[ST_RUNNABLE] += runnable;
			off += blocked + runnable;
		}
		out->t[ST_RUNNING] += life - off;
	}
}
