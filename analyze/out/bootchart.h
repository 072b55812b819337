/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bootchart: --plot's boot chart of one container, like bootchart and
 * systemd-analyze plot but per container and down to syscalls:
 *   - a row per task (thread) from its creation (or first row) to its
 *     exit (or last row), in ms from the container's start, up to the
 *     phase (the end of the boot);
 *   - on each row, syscalls that took at least 1% of the boot, as blocks
 *     (blocked or kernel CPU: a syscall-only trace cannot tell which);
 *   - exec points, labelled with the binary's base name;
 *   - the phases and marks as vertical lines;
 *   - the critical path (critpath.h) as a band over the rows it runs on.
 * With scheduler rows (the container's has_sched), each bar is coloured
 * by the task's state over time (state_spans.h: running, runnable,
 * blocked (S), blocked on I/O (D), as --by state counts them; spans
 * under 1/2000 of the chart, less than a pixel, merged into the state
 * that took most of their time, so that the data stays bounded), the
 * long syscalls are a strip under the bar instead of blocks over it, and
 * the runtime's row, which has no state, an empty box. Without them the
 * chart is as it was before scheduler rows existed.
 * With span rows (has_spans), a task's interpreter spans (requires,
 * loads, imports) of 1% of the chart or more are translucent bars over
 * the top of its bar, and the innermost of 5% or more are labelled with
 * the file's base name (two data blocks after the others).
 * Rows kept: the tasks on the critical path (drawn first, by creation),
 * then those that lived at least 1% of the boot, by the CPU they used in
 * the window (running time with scheduler rows, else lifetime; drawn in
 * that order), BOOTCHART_MAX_ROWS at most; the title says how many were
 * hidden. Host tasks (host_tasks.h) that neither ran in the window nor
 * woke a task on the path get no row, counted in the title ("N idle host
 * tasks not shown"): a host's kernel threads sleep through every boot.
 * An I row (TASK_IDLE: idle kworkers) is drawn with S, "blocked (S) or
 * idle (I)", not as blocked on I/O. The PNG is 1400 px wide and at most
 * 160 + 22 * BOOTCHART_MAX_ROWS px high (20 px more with scheduler rows:
 * the legend's second line).
 *
 * bootchart.png is the container whose time to listen (else to the last
 * phase any container reached) is the median (nearest rank); with
 * --plot-container GLOB, bootchart-1.png, -2... are the containers whose
 * name matches, BOOTCHART_MAX_CHOSEN at most. Strings go through
 * plot_safe() (see plot.h, SECURITY); file names never come from the data.
 */
#ifndef ANALYZE_BOOTCHART_H
#define ANALYZE_BOOTCHART_H

#include <stddef.h>

#include "analyze/boot/analysis.h"
#include "analyze/out/plot.h"

#define BOOTCHART_MAX_ROWS 60
#define BOOTCHART_MAX_CHOSEN 20

/*
 * bootchart_figures - write the boot charts of @a (which has a timeline)
 * through @p: data files, scripts queued for gnuplot. Failures are said on
 * the plot's error stream and mark the run failed.
 */
void bootchart_figures(struct plot *p, const struct analysis *a);

/*
 * bootchart_pick - which containers get a chart, as indices into a->ctrs
 * (the timed ones): idx[0] the median one (SIZE_MAX: none reached the
 * phase), then those --plot-container matches, BOOTCHART_MAX_CHOSEN at
 * most; @idx has room for BOOTCHART_MAX_CHOSEN + 1. Returns how many
 * entries it set (at least 1). Needs no timeline: main.c reads a regular
 * file twice for --plot, first without the timeline to pick these, then
 * keeping the rows of these only.
 */
size_t bootchart_pick(const struct analysis *a, size_t *idx);

#endif /* ANALYZE_BOOTCHART_H */
