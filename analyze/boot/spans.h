/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spans: a container's interpreter spans (span rows: requires, loads,
 * imports, class loads and initializers) summed by kind and what (--by
 * span), the way `python -X importtime` sums one process's imports: a
 * span's total is its length, its self the total less its children's
 * (the spans of the same thread inside it, one level deeper). A name
 * loaded in several processes (several boots of a --runs file are
 * several containers) adds up. With a window (--until), the spans that
 * start in it, their time cut at its end.
 *
 * With scheduler rows, a span's self time is split by what its thread
 * did then: running, runnable (waiting for a CPU: a require preempted for
 * 261 ms is not a slow require) and blocked (its sched rows over the
 * span less its children). And each names the file that asked for it,
 * the app's: the row's caller= and line= (Ruby), unless that is a
 * loader's frame that wraps require (rubygems' and bootsnap's
 * kernel_require.rb, Zeitwerk's kernel.rb, Ruby 3.3's bundled_gems.rb,
 * ActiveSupport's dependencies.rb, the interpreter's own at line 0); then
 * the span it is in (the file
 * being loaded that made the call; Python's importing module). A name
 * seen several times names the file of its longest. Pure.
 */
#ifndef ANALYZE_SPANS_H
#define ANALYZE_SPANS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/boot/timeline.h"

enum span_state { SPAN_RUNNING, SPAN_RUNNABLE, SPAN_BLOCKED, SPAN_NSTATES };

struct span_stat {
	uint32_t kind, what;	/* timeline_str() */
	uint64_t self, total;	/* ns */
	uint64_t count;
	uint32_t depth;		/* the least depth it was seen at */
	bool states;		/* its container has sched rows: @st says */
	uint64_t st[SPAN_NSTATES];	/* the self time by state (ns) */
	uint32_t from;		/* the file that asked for it: timeline_str(), or TL_NOSTR */
	uint32_t from_line;	/* its line, or 0 (not known: the span it is in) */
	uint64_t from_ns;	/* internal: the total of the one that named @from */
};

/*
 * spans_of - container @c's (of @tl) spans that start in [@lo, @hi),
 * summed, in *@out (free() it), *@n of them, by self time, largest first
 * (ties: by total, then by name). 0, or -1 out of memory.
 */
int spans_of(const struct timeline *tl, const struct tl_container *c, uint64_t lo, uint64_t hi,
	     struct span_stat **out, size_t *n);

/*
 * spans_sort_total - @v (@n of spans_of()) by total time, largest first
 * (ties: by self, then by name): --by span --sort total.
 */
void spans_sort_total(struct span_stat *v, size_t n);

/*
 * spans_is_loader - is @file (escaped, a span's caller=) a frame that
 * wraps require rather than the app's file that asked: kernel_require.rb
 * (rubygems, bootsnap), Zeitwerk's kernel.rb, bundled_gems.rb,
 * ActiveSupport's dependencies.rb?
 */
bool spans_is_loader(const char *file);

/*
 * spans_self - the self time of span @i of task @t (its length within
 * [.., @hi) less that of its children's): for the critical path's
 * summary. Linear in the task's spans after it.
 */
uint64_t spans_self(const struct tl_task *t, size_t i, uint64_t hi);

#endif /* ANALYZE_SPANS_H */
