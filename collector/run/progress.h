/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The --runs progress line (spawn and client mode, stderr a terminal),
 * as hyperfine shows one:
 *
 *   run 7/10 · exec 2.9 ms listen 11.8 ms · p50 listen 12.1 ms · ETA 4 s
 *
 * the run (in progress, or the last finished), the last finished boot's
 * phases, the p50 of one phase over the finished boots, and the time the
 * runs left should take (none after the last). Before a boot has
 * finished, the running time of the first instead: "run 1/10 · 0.4 s".
 * The collector prints it as each run ends (loop.c: the command shares
 * the terminal, a line redrawn in place would run into its output).
 *
 * The phases are the analyzer's (analyze(1), whose table is the reference),
 * taken from the rows the collector writes: from the boot's earliest start
 * row to its entrypoint's exec (the first exec marked init, else the first
 * that is not a runtime's: common/entrypoint.h), to the end (ts + dur) of
 * its first successful listen, and to the first mark row of each --mark
 * label. A phase the boot never reached is left out. The p50 is by nearest
 * rank, as analyze's (analyze/stats.h): one of the values. The ETA is the
 * mean time of the finished runs (each from its spawn to the end of its
 * teardown) times the runs not finished, less what the current run has
 * taken so far.
 *
 * Pure: no I/O and no clock; times are CLOCK_MONOTONIC ns, given. loop.c
 * decides when to print the line.
 */
#ifndef COLLECTOR_PROGRESS_H
#define COLLECTOR_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

/* Phases: exec, listen, then the mark labels from PROGRESS_MARK on. */
enum { PROGRESS_EXEC, PROGRESS_LISTEN, PROGRESS_MARK };

struct progress;

/*
 * progress__new - for @runs runs, with the @nlabels mark labels @labels
 * (copied; a label given twice, or named exec or listen, is one phase, as
 * in the analyzer), the p50 of the phase named @p50 (NULL: listen when a
 * boot listened, else exec). Everything it needs is allocated here, so
 * nothing after can fail. NULL when out of memory (errno set).
 */
struct progress *progress__new(int runs, const char *const *labels, size_t nlabels,
			       const char *p50);
/* progress__free - NULL is fine. */
void progress__free(struct progress *p);

/* progress_phase_of - the phase named @name (exec, listen, a mark label), or -1. */
int progress_phase_of(const struct progress *p, const char *name);

/* progress_run_begin - a run starts at @now; its times are forgotten. */
void progress_run_begin(struct progress *p, unsigned long long now);
/* progress_start - a start row of the run's container at @ts. */
void progress_start(struct progress *p, unsigned long long ts);
/*
 * progress_exec - an exec row of the run's container at @ts: @init, its
 * name is init; @runtime, its filename is a runtime's
 * (entrypoint_is_runtime()).
 */
void progress_exec(struct progress *p, unsigned long long ts, bool init, bool runtime);
/* progress_reached - @phase (listen, a mark) happened at @ts in the run. */
void progress_reached(struct progress *p, int phase, unsigned long long ts);
/* progress_run_end - the run ended at @now: its phases join the others. */
void progress_run_end(struct progress *p, unsigned long long now);

/* progress_done - how many runs have ended. */
int progress_done(const struct progress *p);
/*
 * progress_last - the last finished boot's @phase in *@ns (from its start);
 * false when it did not reach it, or no boot has finished.
 */
bool progress_last(const struct progress *p, int phase, long long *ns);
/* progress_p50 - the p50 of @phase in *@ns; false when no boot reached it. */
bool progress_p50(const struct progress *p, int phase, long long *ns);
/*
 * progress_eta_ns - what the runs left should take, at @now: the mean run
 * so far times the runs not finished, less the current run's time so far
 * (at least 0); false before a run has finished.
 */
bool progress_eta_ns(const struct progress *p, unsigned long long now, unsigned long long *ns);

/*
 * progress_format - the line at @now into @buf (@n bytes, NUL-terminated),
 * cut to @cols - 1 terminal columns when @cols (a line as wide as the
 * terminal would wrap before the cursor could return); its length.
 */
size_t progress_format(const struct progress *p, unsigned long long now, char *buf, size_t n,
		       unsigned cols);

#endif /* COLLECTOR_PROGRESS_H */
