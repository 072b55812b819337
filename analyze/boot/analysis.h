/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * analysis: rows → per-container phases (DESIGN.md §4) and per-key syscall
 * totals (--by). One struct analysis holds everything read from one or more
 * files; there is no global state.
 *
 * Phases, per container (keyed by the container column, within one file:
 * the same name in two files is two boots, unless the files are parts of
 * one collector run, below):
 *   t_start  the smallest ts_ns of its "start" rows;
 *   exec     the entrypoint's exec (common/entrypoint.h): the smallest
 *            ts_ns of its "exec" rows whose filename matches --exec
 *            PATTERN (an fnmatch(3) glob) when given; else of those named
 *            init (pid 1 of the container's pid namespace); else of those
 *            that are no runtime's re-exec; minus t_start;
 *   listen   the smallest ts_ns + dur_ns (the completion) of its successful
 *            (ret = 0) "listen" syscall rows, by any process, minus t_start;
 *   LABEL    the smallest ts_ns of its "mark" rows named LABEL, minus t_start.
 * Rows are ordered per CPU only, so everything is a minimum, never "the
 * first seen". A container without a start row cannot be timed: its rows are
 * counted and reported once per file.
 *
 * The files of one run (the same `# run_id=` metadata: a collector that
 * rotates its output, collector/run/rotate.h), read one after the other in
 * the order of their `# part=` (read/runs.h orders them): a container
 * with a start row and no end row in one of them is carried to the next,
 * where its rows without a start row are its own (minima taken over all
 * of them), until its end row or the run's last file. A start row under a
 * carried name is a new boot (the collector gives a name again only to a
 * container that ended). The timeline (--critical-path, --until, the boot
 * chart) still takes each file alone.
 *
 * A regular file can be read by several threads (analyze_opts.threads), each
 * taking a part of its rows, cut at line ends, into an analysis of its own;
 * the parts are then merged in file order, so that every result — names in
 * order of first appearance included — and every message is the same as
 * with one thread.
 */
#ifndef ANALYZE_ANALYSIS_H
#define ANALYZE_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/boot/resource.h"
#include "analyze/boot/timeline.h"
#include "analyze/read/reader.h"
#include "analyze/read/strtab.h"
#include "analyze/stats/llhist.h"

/* BY_POD, BY_IMAGE, BY_NAMESPACE: from the meta rows (analysis.pods, pods.h) */
enum by_kind { BY_NONE, BY_SYSCALL, BY_CONTAINER, BY_COMM, BY_STATE, BY_POD, BY_IMAGE, BY_NAMESPACE,
	       BY_SPAN };
#define BY_META(by) ((by) == BY_POD || (by) == BY_IMAGE || (by) == BY_NAMESPACE)

struct analyze_opts {
	const char *exec_pattern;	/* --exec, or NULL */
	const char *container_glob;	/* --container, or NULL */
	enum by_kind by;
	bool syscalls;			/* keep per-syscall totals (--plot) */
	unsigned reader_flags;		/* TSV_LENIENT */
	unsigned threads;		/* read a regular file in up to this many
					 * parts at once; 0 or 1: one */
	bool names;			/* keep the meta rows' names (analysis.pods) for
					 * --format otlp's resources; --by pod|image|namespace
					 * keep them too */
	bool timeline;			/* keep the rows in a timeline (analysis.tl):
					 * --critical-path, --until, the boot chart;
					 * then a file is read by one thread */
	bool windowed;			/* --until: the syscall tables are counted
					 * after reading (window.h), not while */
	const char *plot_container;	/* --plot-container: boot charts of these */
	/* With timeline: keep the rows of container @name (@n bytes, escaped)
	 * of file @file (0-based) only when this says so (NULL: all). */
	bool (*tl_keep)(void *ctx, uint32_t file, const char *name, size_t n);
	void *tl_keep_ctx;
};

enum { PHASE_EXEC, PHASE_LISTEN };
/*
 * The phase `end` (--until end, --critical-path=end): the container's last
 * process's exit (boot/ending.h). Not in the phase table; a mark labelled
 * "end" takes the name first.
 */
#define PHASE_END TL_PHASE_END

struct phase {
	int64_t *v;		/* one value per container that reached it */
	size_t n, cap;		/* sorted ascending after analysis_finish() */
};

/* Per-key totals of syscall rows. */
struct group {
	uint64_t calls, errors;	/* errors: ret < 0 */
	uint64_t timed;		/* rows with a dur_ns */
	unsigned __int128 total;
	uint64_t min, max;
	struct llhist h;
};

struct key_cache;

struct group_table {
	struct strtab *keys;	/* escaped, as in the file */
	struct key_cache *kc;	/* recent keys of rows */
	struct group *g;
	size_t cap;
};

/* A timed container, for the timeline plot. */
struct ctr_result {
	uint32_t name;		/* id in analysis.ctr_names */
	uint32_t file;
	size_t first, n;	/* its phases: analysis.cphases[first..first+n) */
	int64_t life;		/* start -> its end (boot/ending.h), or -1: no end row */
	int32_t how;		/* how its init ended: common/end_detail.h (end row) */
};

struct ctr_phase {
	uint32_t phase;
	int64_t v;
};

/* --until: the boot windows the syscall tables were counted in (window.h). */
struct boot_window {
	bool on;
	uint32_t phase;		/* [start, phase] of each container */
	size_t containers;	/* windows counted */
	size_t not_reached;	/* timed containers without the phase: left out */
	uint64_t wall;		/* the windows' lengths, summed (ns) */
	uint64_t rows;		/* syscall rows counted */
	uint64_t clipped;	/* of which cut at either end of their window */
};

struct file_ctr;
struct file_mark;
struct carried;
struct pods;

struct analysis {
	struct analyze_opts opts;
	struct strtab *phase_names;	/* "exec", "listen", mark labels */
	struct phase *phases;
	size_t phases_cap;
	size_t ncontainers;		/* timed containers (with a start row) */
	struct strtab *ctr_names;
	struct ctr_result *ctrs;
	size_t nctrs, ctrs_cap;
	struct ctr_phase *cphases;
	size_t ncphases, cphases_cap;
	struct group_table by;		/* --by container|comm */
	struct group_table sys;		/* per syscall (--by syscall, --plot) */
	struct timeline *tl;		/* with opts.timeline; NULL otherwise */
	struct jitnames *jit;		/* its jit rows (jitnames.h), NULL: none */
	struct pods *pods;		/* --by pod|image|namespace; NULL otherwise */
	struct boot_window win;		/* with --until */
	uint64_t rows, skipped, lost, orphan_rows, orphan_ctrs;
	uint64_t samples;		/* profile sample rows of timed containers */
	uint32_t nfiles;
	/* the file being read */
	struct strtab *fnames;
	struct file_ctr *fc;
	size_t fc_cap;
	struct file_mark *fm;
	size_t nfm, fm_cap;
	struct key_cache *kc_ctr;	/* recent containers of the file */
	char *scratch;			/* TSV_MAX_LINE bytes for unescaping */
	/* the run of the files being read, and its containers carried on */
	char *run_id;
	struct strtab *carry_names;
	struct carried *carry;		/* by id in carry_names */
	size_t carry_cap;
	struct file_mark *cm;		/* their marks */
	size_t ncm, cm_cap;
	struct res_files res;		/* each file's host, kernel, run, clock
					 * (resource.h), with opts.timeline */
};

/* analysis__new - an empty analysis with @opts; NULL when out of memory. */
struct analysis *analysis__new(const struct analyze_opts *opts);
/* analysis__free - accepts NULL. */
void analysis__free(struct analysis *a);

/*
 * analysis_add_row - account one row of the current file. Returns 0, or -1
 * when out of memory. analysis_begin_file() must have been called. The 15
 * bytes after each field of @r must be readable, as they are in rows from
 * the reader (names are compared 8 bytes at a time).
 */
int analysis_add_row(struct analysis *a, const struct tsv_row *r);
/*
 * analysis_count_syscall - count syscall row @r in the per-syscall and
 * --by tables as reading does (only its container, comm and name fields,
 * ret, dur_ns and their \N bits are read; no padding needed). For rows
 * recounted from the timeline (window.h). 0, or -1 out of memory.
 */
int analysis_count_syscall(struct analysis *a, const struct tsv_row *r);
/* analysis_begin_file - start a file. 0, or -1 out of memory. */
int analysis_begin_file(struct analysis *a);
/*
 * analysis_end_file - fold the file's containers into the phases; warns on
 * @err about rows of containers without a start row (@name is the file).
 * 0, or -1 out of memory.
 */
int analysis_end_file(struct analysis *a, const char *name, FILE *err);

/*
 * analysis_read - read @path ("-" is stdin) through the reader and account
 * its rows, with warnings (lost events, no trailer, orphan rows) and errors
 * on @err as "analyze: ...". A regular file of at least 1 MiB of rows per
 * part is read by up to opts.threads threads. Returns 0, 1 (cannot open,
 * read error, out of memory) or 2 (malformed input).
 */
int analysis_read(struct analysis *a, const char *path, FILE *err);

/*
 * analysis_finish - sort the phases' values and finish the timeline; call
 * once after reading. 0, or -1 out of memory (the timeline's sorts).
 */
int analysis_finish(struct analysis *a);

/* analysis_nphases - the number of phases (exec, listen, then labels). */
size_t analysis_nphases(const struct analysis *a);
/* analysis_phase_name - the name of phase @i (labels escaped as in TSV; PHASE_END: "end"). */
const char *analysis_phase_name(const struct analysis *a, size_t i);

/* A group sorted for printing. */
struct group_ref {
	const char *key;
	const struct group *g;
};

/*
 * analysis_groups - the groups of @t sorted by total time, descending (then
 * by calls, then by key), in *@out (caller frees). Returns the count, or
 * (size_t)-1 when out of memory (*@out = NULL).
 */
size_t analysis_groups(const struct group_table *t, struct group_ref **out);

/*
 * group_percentile - percentile @p of a group's durations: exact when it is
 * the first or last rank (min or max), else from its log-linear histogram
 * (below the exact value by < 0.79%, see llhist.h), clamped to [min, max].
 */
uint64_t group_percentile(const struct group *g, unsigned p);

#endif /* ANALYZE_ANALYSIS_H */
