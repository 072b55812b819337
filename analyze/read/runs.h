/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The files of one collector run: a collector that writes for days starts
 * a new file on SIGHUP or at --rotate's size (collector/run/rotate.h), each
 * with the run's `# run_id=` and its `# part=N`. analyze joins a container
 * whose rows straddle them (boot/analysis.h), which needs them in order:
 * this puts them in order whatever order they were given in (a shell's
 * `boot.tsv*` gives boot.tsv, boot.tsv.1, boot.tsv.10, boot.tsv.2).
 */
#ifndef ANALYZE_RUNS_H
#define ANALYZE_RUNS_H

/*
 * runs_order - reorder @files (@n of them) so that the files of one run
 * follow each other by part, at the place of the first of them; the
 * others (no run id, older collectors; stdin, pipes and FIFOs are not
 * looked into: their header can be read once only) keep their order. A
 * file that cannot be read keeps its place (reading it says why).
 */
void runs_order(char **files, int n);

/*
 * runs_until - the `# until=` of @files (@n of them: collector --until's
 * phase, the default window), malloc'd, when every one is a regular file
 * whose header has the same one; NULL otherwise (a pipe's header is read
 * once, by the analysis). The caller frees it.
 */
char *runs_until(char **files, int n);

#endif /* ANALYZE_RUNS_H */
