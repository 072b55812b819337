/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spans: a container's interpreter spans (span rows: requires, loads,
 * imports, class loads and initializers) summed by kind and what (--by
 * span), the way `python -X importtime` sums one process's imports: a
 * span's total is its length, its self the total less its children's
 * (the spans of the same thread inside it, one level deeper). A name
 * loaded in several processes (several boots of a --runs file are
 * several containers) adds up. With a window (--until), the spans that
 * start in it, their time cut at its end. Pure.
 */
#ifndef ANALYZE_SPANS_H
#define ANALYZE_SPANS_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/boot/timeline.h"

struct span_stat {
	uint32_t kind, what;	/* timeline_str() */
	uint64_t self, total;	/* ns */
	uint64_t count;
	uint32_t depth;		/* the least depth it was seen at */
};

/*
 * spans_of - container @c's spans that start in [@lo, @hi), summed, in
 * *@out (free() it), *@n of them, by self time, largest first (ties: by
 * total, then by name). 0, or -1 out of memory.
 */
int spans_of(const struct tl_container *c, uint64_t lo, uint64_t hi, struct span_stat **out,
	     size_t *n);

/*
 * spans_self - the self time of span @i of task @t (its length within
 * [.., @hi) less that of its children's): for the critical path's
 * summary. Linear in the task's spans after it.
 */
uint64_t spans_self(const struct tl_task *t, size_t i, uint64_t hi);

#endif /* ANALYZE_SPANS_H */
