/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A task's off-CPU intervals (struct tl_off) from its sched rows
 * (docs/tsv-format.md), for timeline.c: the states, the wake-ups and who
 * held the CPU, their details shared (timeline_off_info()).
 */
#ifndef ANALYZE_BOOT_OFFCPU_H
#define ANALYZE_BOOT_OFFCPU_H

#include "analyze/boot/timeline.h"

/* offcpu_cache__new - an empty cache of sched details for @tl->dcache (free() it), or NULL. */
struct detail_cache *offcpu_cache__new(void);
/* offcpu_cache_clear - a new file: its details' stack ids name other stacks. */
void offcpu_cache_clear(struct detail_cache *dc);

/*
 * offcpu_add - sched row @r of task @t of @tl: its off-CPU interval
 * appended (a row whose detail does not parse keeps its times, its wake
 * unknown). 0, or -1 out of memory.
 */
int offcpu_add(struct timeline *tl, struct tl_task *t, const struct tsv_row *r);

#endif /* ANALYZE_BOOT_OFFCPU_H */
