/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * window: --until PHASE, the boot window of each container — from its
 * start to the moment it reached PHASE — for --by, the per-syscall tables
 * and the plots. The syscall rows are counted from the timeline after
 * reading (analyze_opts.windowed keeps them from being counted while
 * reading): a row inside the window counts whole; one that straddles the
 * start or the phase is clipped to the window (its dur_ns is the part
 * inside); one entirely outside, or entering at the phase or later, is left
 * out; a row without dur_ns counts when it entered inside. Containers that
 * never reached PHASE are left out, and counted in analysis.win.
 */
#ifndef ANALYZE_WINDOW_H
#define ANALYZE_WINDOW_H

#include <stdint.h>

#include "analyze/boot/analysis.h"

/*
 * window_apply - count the syscall rows of @a's timeline (finished) inside
 * each container's window [start, @phase] into its tables, and describe the
 * windows in a->win. 0, or -1 out of memory.
 */
int window_apply(struct analysis *a, uint32_t phase);

#endif /* ANALYZE_WINDOW_H */
