/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * states: the time of a container's tasks by scheduler state within a
 * window (--by state): for each task, from its begin (or the window's
 * start) to its end (or the window's end), the time off CPU by its sched
 * rows — runnable (woken or preempted, waiting for a CPU), blocked (S, or
 * D: uninterruptible, disk and the like) — and the rest running. Without
 * scheduler rows (has_sched false) all of it is unknown. Summed over the
 * tasks: task-time, not wall time (two threads running at once count
 * twice), like --by syscall. The hosts' tasks imported into the container's
 * window (host_tasks.h) are left out: they are the runtime's.
 */
#ifndef ANALYZE_STATES_H
#define ANALYZE_STATES_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/boot/timeline.h"

enum st_kind { ST_RUNNING, ST_RUNNABLE, ST_BLOCKED, ST_BLOCKED_D, ST_UNKNOWN, ST_N };

struct state_times {
	uint64_t t[ST_N];	/* ns; ST_BLOCKED excludes ST_BLOCKED_D */
	size_t tasks;		/* tasks with time in the window */
};

/* states_name - "running", "runnable", "blocked", "blocked(D)", "unknown". */
const char *states_name(enum st_kind k);

/*
 * states_of - the time of container @c's tasks by state within [@lo, @hi)
 * into @out. Pure; cannot fail.
 */
void states_of(const struct tl_container *c, uint64_t lo, uint64_t hi, struct state_times *out);

#endif /* ANALYZE_STATES_H */
