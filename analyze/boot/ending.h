/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ending: how each container's boot ended, for --until end and
 * --failures. Its end (the phase `end`) is its last process's exit: the
 * latest exit row of its own tasks at or before its end row, else the end
 * row itself; a container without an end row has ended when every process
 * of it has an exit row. Its init is the task the end row's init= names,
 * else (files before that detail) the first task whose exec is flagged
 * init, else the first task that exec'd: the collector's own rule
 * (collector/run/lifecycle.c), so that an old file's exit rows say what a
 * new file's end row does.
 */
#ifndef ANALYZE_ENDING_H
#define ANALYZE_ENDING_H

#include "analyze/boot/timeline.h"

/*
 * ending_find - set @c's t_end and init from its tasks (sorted: called by
 * timeline_finish()) and its end row. Cannot fail.
 */
void ending_find(struct tl_container *c);

/*
 * ending_how - how @c's init ended: the end row's detail, else the init's
 * exit row (status, or 128 + signal: a status above 128 is taken as a
 * signal, as a shell reports it); END_UNKNOWN when neither says.
 */
int ending_how(const struct tl_container *c);

#endif /* ANALYZE_ENDING_H */
