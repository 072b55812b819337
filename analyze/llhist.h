/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * llhist: a log-linear histogram of non-negative durations, HdrHistogram's
 * layout with 7 bits of sub-bucket precision, for percentiles over millions
 * of values in bounded memory (--by's p99).
 *
 * Values 0..127 have a bucket each (exact). A value v >= 128 with its top
 * bit at position e falls in the bucket [b << (e-7), (b+1) << (e-7)) with
 * b = v >> (e-7) in 128..255: each power of two is cut into 128 equal
 * buckets. llhist_percentile() returns the lower edge of the bucket that
 * holds the nearest-rank percentile (stats.h), so it is never above the
 * exact value and below it by less than 1/128 of it: relative error
 * < 0.79% (<= 1% as the design asks). Callers clamp it to the exact
 * [min, max] they track.
 *
 * Memory: 1.5 KiB per histogram plus 1 KiB per power of two in use,
 * allocated on first use.
 */
#ifndef ANALYZE_LLHIST_H
#define ANALYZE_LLHIST_H

#include <stdint.h>

#define LLHIST_SUB_BITS 7
#define LLHIST_SUB (1u << LLHIST_SUB_BITS)

struct llhist {
	uint64_t count;
	uint64_t low[LLHIST_SUB];	/* values 0..127 */
	uint64_t *oct[64];		/* oct[e]: values with top bit e >= 7 */
};

/* llhist_init - an empty histogram (no allocation). */
void llhist_init(struct llhist *h);
/* llhist_release - free what the histogram allocated; it is then empty. */
void llhist_release(struct llhist *h);
/* llhist_add - count @v once. Returns 0, or -1 when out of memory. */
int llhist_add(struct llhist *h, uint64_t v);
/* llhist_merge - add every count of @src to @dst. 0, or -1 out of memory. */
int llhist_merge(struct llhist *dst, const struct llhist *src);
/*
 * llhist_percentile - the nearest-rank percentile @p (1..100), as the lower
 * edge of its bucket (see above); 0 when the histogram is empty.
 */
uint64_t llhist_percentile(const struct llhist *h, unsigned p);

#endif /* ANALYZE_LLHIST_H */
