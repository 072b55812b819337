/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sched_detail: the detail field of a `sched` row (docs/tsv-format.md,
 * "Scheduler rows"): space-separated key=value fields in any order, each
 * value a decimal number, a word, or a length-prefixed string LEN:BYTES
 * (LEN bytes after the TSV's unescaping, which may hold anything: a comm
 * with spaces, '=' or ':'):
 *
 *   wake=task waker=812 wpid=800 wcomm=7:dockerd holder=0 hcomm=9:swapper/1 cpu=1
 *
 * Shared by the collector (which writes it) and the analyzer (which reads
 * it); pure, no allocation.
 */
#ifndef BOOTTRACE_SCHED_DETAIL_H
#define BOOTTRACE_SCHED_DETAIL_H

#include <stddef.h>
#include <stdint.h>

/* The longest detail (unescaped) and string value the parser takes. */
#define SCHED_DETAIL_MAX 512
#define SCHED_DETAIL_STR_MAX 255

enum sched_wake {
	SCHED_WAKE_UNKNOWN,	/* unknown, or absent */
	SCHED_WAKE_NONE,	/* preempted: no wake */
	SCHED_WAKE_TASK,
	SCHED_WAKE_IRQ,
	SCHED_WAKE_SOFTIRQ,
	SCHED_WAKE_NEW,
};

/* A string value: raw bytes in the parsed detail's buffer; p NULL when absent. */
struct sched_str {
	const char *p;
	size_t n;
};

struct sched_detail {
	enum sched_wake wake;
	int64_t waker, wpid, holder, cpu;	/* 0 (cpu: -1) when absent */
	struct sched_str wcomm, hcomm;
	char buf[SCHED_DETAIL_MAX];		/* the unescaped detail */
};

/*
 * sched_detail_parse - parse the escaped detail field @esc (@n bytes, as in
 * the file) into @d. Unknown keys are skipped (a later version may add
 * some); a malformed field (no '=', a LEN past the end, a number that does
 * not fit) or a detail longer than SCHED_DETAIL_MAX gives -1, with @d's
 * fields as far as they were read. Returns 0 on success.
 */
int sched_detail_parse(const char *esc, size_t n, struct sched_detail *d);

/* sched_wake_name - the word of @w as the detail writes it. */
const char *sched_wake_name(enum sched_wake w);

#endif /* BOOTTRACE_SCHED_DETAIL_H */
