/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * critpath_report: the printers of --critical-path. For each container of
 * the analysis' timeline that reached the phase, critpath.h's path:
 *   text  a line per segment (segments under 1% of the boot folded into
 *         one line per run), with a bar that shows where in the boot it
 *         lies; then, across containers, the top items by their total time
 *         on the paths ("syscall:connect 10.0.0.5:5432  61.0% of the boot");
 *   tsv   header "container phase pid tid comm what offset_ns dur_ns
 *         detail", one row per segment, offsets from the container's start;
 *   json  an object: per container its segments, then the top items.
 * "what" is runtime, cpu, unknown or syscall:NAME; "detail" the row's
 * (path, address), then, for the tail of a syscall that returned because
 * of another task, "<- exit of PID COMM (by pid)" and the like.
 * Strings are printed escaped as in the TSV (text, tsv) or as JSON strings.
 *
 * With a profile (boot/profile.h) of an input that has profile rows, each
 * segment on a CPU (cpu, or running with scheduler rows) names the top 3
 * functions by self samples of its task's samples during it: "[67%
 * burn_long, 33% burn_short]" (percentages of those samples), after the
 * detail in text, in a last column "profile" in tsv (\N: no samples), a
 * field "profile" in json (null); without profile rows, neither column
 * nor field (the output is as before).
 */
#ifndef ANALYZE_CRITPATH_REPORT_H
#define ANALYZE_CRITPATH_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "analyze/boot/analysis.h"
#include "analyze/out/report.h"

struct profile;

/* How many items the text and json summaries list. */
#define CRITPATH_TOP 10

/*
 * critpath_print - the critical paths to phase @phase (an id of the
 * analysis' phases) of every timed container of @a (which must have a
 * timeline) in format @fmt, annotated from profile @pr (NULL: none). Text
 * fits in @width columns (0: WRAP_WIDTH, 120; see wrap.h): a segment's
 * detail that does not fit beside its columns goes on lines of its own
 * under the bar, other lines continue indented; a line that starts with
 * 12 spaces continues the one above (no other does). tsv and json are the
 * same at any width. Returns 0, or -1
 * when writing failed or out of memory (errno says which).
 */
int critpath_print(FILE *f, const struct analysis *a, uint32_t phase, enum report_format fmt,
		   struct profile *pr, size_t width);

/*
 * critpath_print2 - the same, each container's path to @f and the summary
 * across them (and, in text, the count of those without a path) to @sf.
 */
int critpath_print2(FILE *f, FILE *sf, const struct analysis *a, uint32_t phase,
		    enum report_format fmt, struct profile *pr, size_t width);

#endif /* ANALYZE_CRITPATH_REPORT_H */
