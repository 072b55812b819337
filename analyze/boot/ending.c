// SPDX-License-Identifier: BSD-2-Clause
/* How each container's boot ended: see ending.h. */
#include "analyze/boot/ending.h"
#include "common/end_detail.h"

/* The init: the end row's init=, else the first exec flagged init, else the first exec. */
static uint32_t find_init(const struct tl_container *c)
{
	uint64_t first = TL_NONE, flagged = TL_NONE;
	uint32_t i, by_first = TL_NOTASK, by_flag = TL_NOTASK;
	size_t k;

	for (i = 0; i < c->ntasks; i++) {
		const struct tl_task *t = &c->tasks[i];

		if (t->host)
			continue;
		if (c->end_pid > 0 && t->tid == c->end_pid)
			return i;
		for (k = 0; k < t->nexecs; k++) {
			if (t->execs[k].ts < first) {
				first = t->execs[k].ts;
				by_first = i;
			}
			if (t->execs[k].init && t->execs[k].ts < flagged) {
				flagged = t->execs[k].ts;
				by_flag = i;
			}
		}
	}
	/* the process's exit row is on its last thread: the main thread stands for it */
	return by_flag != TL_NOTASK ? by_flag : by_first;
}

void ending_find(struct tl_container *c)
{
	uint64_t last = TL_NONE;
	bool all_exited = true, any = false;
	size_t i;

	c->init = find_init(c);
	for (i = 0; i < c->ntasks; i++) {
		const struct tl_task *t = &c->tasks[i];

		if (t->host)
			continue;
		if (t->exit_ts == TL_NONE) {
			/* a thread's exit row is its process's last thread's */
			if (t->tid == t->pid)
				all_exited = false;
			continue;
		}
		any = true;
		if (c->t_end_row != TL_NONE && t->exit_ts > c->t_end_row)
			continue;
		if (last == TL_NONE || t->exit_ts > last)
			last = t->exit_ts;
	}
	if (c->t_end_row != TL_NONE)
		c->t_end = last != TL_NONE ? last : c->t_end_row;
	else
		c->t_end = any && all_exited ? last : TL_NONE;
}

/* The exit row of @c's task @ti's process: on it, or on another thread of its pid. */
static int64_t process_exit(const struct tl_container *c, uint32_t ti)
{
	int64_t pid = c->tasks[ti].pid;
	size_t i;

	if (c->tasks[ti].exit_ts != TL_NONE)
		return c->tasks[ti].exit_status;
	for (i = 0; i < c->ntasks; i++)
		if (!c->tasks[i].host && c->tasks[i].pid == pid && c->tasks[i].exit_ts != TL_NONE)
			return c->tasks[i].exit_status;
	return TL_NORET;
}

int ending_how(const struct tl_container *c)
{
	int64_t st;

	if (c->end_how != END_UNKNOWN || c->init == TL_NOTASK)
		return c->end_how;
	st = process_exit(c, c->init);
	if (st == TL_NORET || st < 0 || st > 128 + 64)
		return END_UNKNOWN;
	return st > 128 ? END_SIGNAL + (int)(st - 128) : (int)st;
}
