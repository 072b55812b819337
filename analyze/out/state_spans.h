/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * state_spans: a task's scheduler states over a window as spans a picture
 * can draw (the boot chart, bootchart.h): running, runnable, blocked (S)
 * and blocked (D), from its off-CPU intervals (timeline.h's tl_off), as
 * --by state counts them (states.h): before an interval's wake blocked
 * (D when it left the CPU in D, else S: T and unknown states too), after
 * it runnable, the rest of the window running.
 *
 * Bounded: a task preempted every millisecond for a minute has 60000
 * intervals, and a picture has a couple of thousand pixels across. Pieces
 * of at least @q ns (a quantum: the caller's pixel, or less) come out
 * with their exact times; runs of shorter ones are merged into one span
 * of at least @q ns with the state that took most of its time (so a
 * burst of tiny preemptions inside a long run reads as the run, a dense
 * train of waits as the wait). Neighbours of one state are joined. At
 * most 2 * (hi - lo) / q + 1 spans come out, whatever the number of
 * intervals.
 *
 * Hostile rows (intervals that overlap, or lie outside the window) are
 * clipped: the spans tile [lo, hi) in time order, never overlapping.
 */
#ifndef ANALYZE_STATE_SPANS_H
#define ANALYZE_STATE_SPANS_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/boot/states.h"
#include "analyze/boot/timeline.h"

/* A stretch [from, to) of one state: ST_RUNNING, _RUNNABLE, _BLOCKED or _BLOCKED_D. */
struct state_span {
	uint64_t from, to;
	enum st_kind state;
};

typedef void (*state_span_fn)(const struct state_span *s, void *arg);

/*
 * state_spans - the states of task @t within [@lo, @hi) (absolute ns; the
 * task's life, clipped to the picture's window) as spans, pieces shorter
 * than @q ns merged (0 is taken as 1: every piece exact), given to @fn in
 * time order, running ones included. Returns how many. Pure; cannot fail.
 */
size_t state_spans(const struct tl_task *t, uint64_t lo, uint64_t hi, uint64_t q,
		   state_span_fn fn, void *arg);

#endif /* ANALYZE_STATE_SPANS_H */
