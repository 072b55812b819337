/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * analysis_int: private to analysis.c and parts.c. A file's own
 * containers and marks (what analysis.c counts while it reads a file),
 * and the entry points parts.c merges a part's analysis with; parts.c's
 * one entry, parts_read().
 */
#ifndef ANALYZE_ANALYSIS_INT_H
#define ANALYZE_ANALYSIS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/boot/analysis.h"

#define NONE UINT64_MAX

struct file_ctr {
	/*
	 * t_exec: the first exec matching --exec, else the first that is no
	 * runtime's; t_init: the first marked init (common/entrypoint.h)
	 */
	uint64_t t_start, t_exec, t_init, t_listen, rows;
	int32_t marks;		/* head of its list in analysis.fm, -1 = none */
	int8_t selected;	/* --container: -1 not decided yet, 0, 1 */
	int8_t keep;		/* in the timeline (opts.tl_keep): -1 not decided yet, 0, 1 */
	int8_t ended;		/* it has an end row */
	int32_t by_id;		/* its group for --by container, -1 = none yet */
	/* its end (boot/ending.h, as far as one pass over the rows knows it) */
	uint64_t t_end;		/* its earliest end row, or NONE */
	uint64_t t_exit;	/* its latest exit row, or NONE */
	int32_t end_how;	/* that end row's detail: common/end_detail.h */
};

/* What container @s's rows say of its end, into @d's (a part's, a file's that continues it). */
static inline void file_ctr_merge_end(struct file_ctr *d, const struct file_ctr *s)
{
	if (s->t_end < d->t_end) {
		d->t_end = s->t_end;
		d->end_how = s->end_how;
	}
	if (s->t_exit != UINT64_MAX && (d->t_exit == UINT64_MAX || s->t_exit > d->t_exit))
		d->t_exit = s->t_exit;
	d->ended |= s->ended;
}

struct file_mark {
	uint32_t phase;
	int32_t next;
	uint32_t ctr;		/* its container, for merging parts */
	uint64_t ts;
};

/* What the rows of a file left: skipped rows and the trailer. */
struct file_tail {
	uint64_t skipped, lost;
	bool trailer;
};

static inline uint64_t min_u64(uint64_t x, uint64_t y)
{
	return x < y ? x : y;
}

/* The group of key @s in @t, created when new; NULL out of memory. */
struct group *analysis_group_get(struct group_table *t, const char *s, size_t n);
/* The id of phase @s (a mark label), created when new; -1 out of memory. */
long analysis_phase_get(struct analysis *a, const char *s, size_t n);
/* The id of container @s in the current file, created when new; -1 out of memory. */
long analysis_file_ctr_get(struct analysis *a, const char *s, size_t n);
/* Container @ctr of the file reached mark @phase at @ts. 0, or -1 out of memory. */
int analysis_mark_min(struct analysis *a, uint32_t ctr, uint32_t phase, uint64_t ts);

/*
 * parts_read - the rows of the regular file @fd from offset @body (after
 * @lines header lines) to its end (@size bytes at open), in up to
 * a->opts.threads parts at once, merged into @a. Returns 0, 1 or 2 as
 * analysis_read(), or -1 when the file is not worth splitting (nothing
 * was read: read it with one thread).
 */
int parts_read(struct analysis *a, int fd, const char *name, uint64_t body, uint64_t size,
	       uint64_t lines, FILE *err, struct file_tail *t);

#endif /* ANALYZE_ANALYSIS_INT_H */
