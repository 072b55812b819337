/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * profile_report: the printers of --profile (boot/profile.h).
 *   text    per container a heading — its name, file, window, samples,
 *           CPU time (their periods summed) and rate — then its top
 *           functions by self time: self, self%, total, total%, function,
 *           module (percentages of the container's samples); with several
 *           containers, the same over all of them (a 5-run boot's
 *           aggregate); "no samples" when the input has no profile rows
 *           (as perf report says);
 *   tsv     header "container file function module self_samples self_ns
 *           self_pct total_samples total_ns total_pct", the top functions
 *           of each container, then (several containers) those of all of
 *           them with container \N and file 0;
 *   json    {"phase", "containers": [{"container", "file", "start_ns",
 *           "end_ns", "samples", "cpu_ns", "hz", "functions": [...]}],
 *           "all": {...} (several containers), "not_reached"};
 *   folded  Brendan Gregg's collapsed stacks over every container's window,
 *           one line per distinct (comm, stack): "comm;root;...;leaf COUNT",
 *           kernel frames suffixed "_[k]" (flamegraph.pl, speedscope).
 * Names are hostile: text and tsv print them TSV-escaped; json as JSON
 * strings; folded TSV-escaped (no LF or TAB), with ';' as ':'.
 */
#ifndef ANALYZE_PROFILE_REPORT_H
#define ANALYZE_PROFILE_REPORT_H

#include <stdio.h>

#include "analyze/boot/profile.h"
#include "analyze/out/report.h"

#define PROFILE_TOP 20

/*
 * profile_print - @p (phase named @phase) in @fmt, @top functions a table;
 * @files: the input files by index (their names in text). 0, or -1 on a
 * write error (errno).
 */
int profile_print(FILE *f, const struct profile *p, const char *phase, const char *const *files,
		  size_t nfiles, enum report_format fmt, size_t top);

/*
 * profile_folded_name - @n raw bytes of a frame or comm name, as a folded
 * stack's frame: TSV-escaped, ';' as ':' (into @out, TSV_ESCAPED_MAX(@n)
 * bytes). Returns its length.
 */
size_t profile_folded_name(const char *s, size_t n, char *out);

#endif /* ANALYZE_PROFILE_REPORT_H */
