/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * states_report: the printer of --by state: per container of the
 * analysis' timeline, the time of its tasks by scheduler state (states.h)
 * within its window: [start, PHASE] with --until PHASE (containers that
 * never reached it left out), else from its start to the last time a task
 * of it was seen.
 *   text  a table, a row per container, each state's time and % of the row;
 *   tsv   container running runnable blocked blocked_d unknown window tasks (ns);
 *   json  "by_state": [{"container", "running", ..., "window", "tasks"}].
 */
#ifndef ANALYZE_STATES_REPORT_H
#define ANALYZE_STATES_REPORT_H

#include <stdio.h>

#include "analyze/boot/analysis.h"
#include "analyze/out/report.h"

/*
 * states_print - --by state for @a (which must have a timeline) in @fmt
 * (json: the value of the "by_state" key only). 0, or -1 when writing
 * failed (errno).
 */
int states_print(FILE *f, const struct analysis *a, enum report_format fmt);

#endif /* ANALYZE_STATES_REPORT_H */
