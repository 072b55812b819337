/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * critpath_seg: what one segment of a critical path (boot/critpath.h) says,
 * the same words in every format of critpath_report.h: its task, comm and
 * ids, its "what" (cpu, syscall:NAME, ...), its state, its detail (the
 * row's, then where the walk went on: "<- exit of PID COMM (by pid)", who
 * held the CPU of a runnable stretch, the interpreter span it is in), its
 * profile's top functions. Strings are escaped as in the TSV.
 */
#ifndef ANALYZE_CRITPATH_SEG_H
#define ANALYZE_CRITPATH_SEG_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/boot/critpath.h"
#include "analyze/boot/timeline.h"
#include "common/tsv.h"

struct profile;

/* The size of a detail's buffer (cpseg_detail). */
#define CPSEG_DETAIL_MAX 600

/* The task of segment @s, or NULL for the runtime's. */
const struct tl_task *cpseg_task(const struct tl_container *c, const struct cp_seg *s);

/* The comm of @s's task at its time; the runtime's: the start row's. */
const char *cpseg_comm(const struct timeline *tl, const struct tl_container *c,
		       const struct cp_seg *s);

/* The pid and tid of @s (the runtime's: the start row's pid, twice). */
void cpseg_ids(const struct tl_container *c, const struct cp_seg *s, int64_t *pid,
	       int64_t *tid);

/* "syscall:NAME", "cpu", ... into @buf. */
const char *cpseg_what(const struct timeline *tl, const struct cp_seg *s, char *buf,
		       size_t n);

/* The innermost span of the segment's task that holds it, or NULL. */
const struct tl_span *cpseg_span(const struct tl_container *c, const struct cp_seg *s);

/*
 * The innermost span holding @s that is 1% of the path (@total) or more:
 * the short segments are folded in runs that do not cross one's edges.
 */
const struct tl_span *cpseg_big_span(const struct tl_container *c, const struct cp_seg *s,
				     uint64_t total);

/* "load /app/slow.rb" (escaped, as in TSV) into @buf, or "" when @s is in no span. */
const char *cpseg_span_text(const struct timeline *tl, const struct tl_container *c,
			    const struct cp_seg *s, char *buf, size_t n);

/* The path's time by innermost span: its top CPSEG_SPAN_TOP, largest first. */
#define CPSEG_SPAN_TOP 3
struct cpseg_span_sum {
	const struct tl_span *sp;
	uint64_t t;
};

/* Into @best (CPSEG_SPAN_TOP, zeroed here); how many there are. */
size_t cpseg_span_top(const struct tl_container *c, const struct cp_path *p,
		      struct cpseg_span_sum best[CPSEG_SPAN_TOP]);

/*
 * The detail of @s (escaped, as in TSV) into @buf (@n bytes, cut there):
 * the row's; a blocked stretch's code from its off-CPU stack, "in
 * await_config (app)" (with @prof: profile_code()); then where the walk
 * went on; for the runtime, how the container started. Returns @buf.
 */
const char *cpseg_detail(const struct timeline *tl, const struct tl_container *c,
			 const struct cp_path *p, const struct cp_seg *s, struct profile *prof,
			 char *buf, size_t n);

/* How many functions a segment's profile names, and how much of each name. */
#define CPSEG_PROFILE_TOP 3
#define CPSEG_PROFILE_NAME 64
#define CPSEG_PROFILE_MAX (CPSEG_PROFILE_TOP * (TSV_ESCAPED_MAX(CPSEG_PROFILE_NAME) + 16) + 8)

/*
 * The top functions of @s's task's samples during @s, when @s is on a CPU,
 * as "[67% burn_long, 33% burn_short]" in @buf (CPSEG_PROFILE_MAX bytes);
 * "" when it has no samples, or there is no profile. NULL out of memory.
 */
const char *cpseg_profile(struct profile *prof, const struct tl_container *c,
			  const struct cp_seg *s, char *buf);

/* A blocked segment's code (escaped, as in TSV; each cut to CPSEG_PROFILE_NAME raw bytes). */
struct cpseg_code {
	char fn[TSV_ESCAPED_MAX(CPSEG_PROFILE_NAME) + 1];	/* the function that waited */
	char module[TSV_ESCAPED_MAX(CPSEG_PROFILE_NAME) + 1];	/* its file's base name */
	char src[TSV_ESCAPED_MAX(CPSEG_PROFILE_NAME) + 1];	/* "file.c:42", or "" */
};

/*
 * The code blocked segment @s waited in, from its off-CPU stack
 * (profile_code(): past the kernel, libc, ld.so, the runtimes' wait), into
 * @out: 1; 0 when it names none (no stack, no @prof, not blocked); -1 out
 * of memory.
 */
int cpseg_code(struct profile *prof, const struct cp_seg *s, struct cpseg_code *out);

/* The state of @s as shown: "running", "blocked(D)", ... into @buf. */
const char *cpseg_state(const struct cp_seg *s, char *buf, size_t n);

#endif /* ANALYZE_CRITPATH_SEG_H */
