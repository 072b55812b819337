/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cpu_share: who held the CPU while a task on the critical path waited for
 * it. The sched row of a runnable stretch names only the task that had the
 * CPU last (holder=, prev at the switch-in: often a kworker that ran for
 * microseconds after a hog that held the CPU for 100 ms); this names every
 * task that ran on that CPU during the stretch, by its share of it.
 *
 * A runnable segment's CPU is the one its task got back (the sched row's
 * cpu=). A task's running intervals come from its own sched rows: it ran
 * on an interval's cpu= from that interval's end (its switch-in) to the
 * next interval's start (its switch-out), or, after its last interval, to
 * the last time it was seen (its exit). Its time before its first sched
 * row is on no known CPU and is not counted. The tasks looked at are every
 * task of the segment's file: each container's, and the host's (the
 * container \N, with # host_rows=boots or all). The part of a segment no
 * task's interval covers is the idle task's, the collector's own threads',
 * or, in a file without host rows (the legacy and compat objects, and the
 * modern one outside client mode without --sched host), any task outside
 * the traced containers: there the shares are a lower bound and the report
 * says that the rest cannot be known (cp_path.shares, cp_share).
 *
 * A running interval ends no later than the next switch-in of any task
 * on its CPU: a switch-out the kernel did not trace, a lost row, or one
 * that fell between two boots of # host_rows=boots would otherwise have a
 * task run on over every other one there, and a segment's shares sum
 * over 100%. Each task is named by the comm it had then: of its rows, the
 * one it had for the longest part of its time in the segment; when only
 * the row that ended that run shows a new comm (a host task's
 * prctl(PR_SET_NAME): host rows have no syscalls), that one.
 *
 * A tid in two containers of one file (runc init: a host task, then the
 * container's, whose host history host_tasks_import() merged into it) is
 * counted once: per segment and tid, the largest of its containers' sums.
 *
 * Cost: two passes over the sched rows of the files that have runnable
 * segments, in the span of those segments (from the earliest switch-in
 * of a task that ran in one), each a binary search among the segments of
 * its CPU, then one among the overlaps; memory for the overlaps found and
 * the switch-ins inside them.
 */
#ifndef ANALYZE_CPU_SHARE_H
#define ANALYZE_CPU_SHARE_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/boot/critpath.h"
#include "analyze/boot/timeline.h"

struct cpu_share;

/*
 * cpu_share__new - what cpu_share_fill() needs of finished timeline @tl
 * (each container's span in time, one pass over its tasks), which must
 * outlive it; NULL out of memory. Free with cpu_share__free() (accepts
 * NULL).
 */
struct cpu_share *cpu_share__new(const struct timeline *tl);
void cpu_share__free(struct cpu_share *cs);

/*
 * cpu_share_fill - fill in the shares (cp_path.shares, sorted by segment,
 * then most time first, then tid) of the runnable segments with a known
 * CPU and of at least @min_dur ns (0: all; a text report shows the
 * others folded, without their detail) of the @n paths @paths, built by
 * critpath_build() on @cs's timeline, and set their shares_filled; once
 * per path. 0, or -1 out of memory (the paths keep no shares then, and
 * remain fit for critpath_release()).
 */
int cpu_share_fill(struct cpu_share *cs, struct cp_path *paths, size_t n, uint64_t min_dur);

/*
 * cpu_share_of - the shares of segment @seg of @p: a pointer to the first
 * and their count in *@n (0, NULL when none).
 */
const struct cp_share *cpu_share_of(const struct cp_path *p, size_t seg, size_t *n);

#endif /* ANALYZE_CPU_SHARE_H */
