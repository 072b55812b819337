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
 * The buckets of a power of two count in 16 bits, the multiples of 2^16
 * going to a 64-bit carry array made when the first bucket there wraps:
 * counts stay exact, and the buckets that rows hit at random take 256
 * bytes per power of two instead of 1 KiB — with 64-bit counters, updating
 * them was a sixth of analyze --by's time, most of it cache misses.
 *
 * Memory: 1.5 KiB per histogram plus 256 bytes per power of two in use
 * (and 1 KiB more once one of its buckets passes 65535), allocated on
 * first use.
 */
#ifndef ANALYZE_LLHIST_H
#define ANALYZE_LLHIST_H

#include <stdint.h>

#define LLHIST_SUB_BITS 7
#define LLHIST_SUB (1u << LLHIST_SUB_BITS)

struct llhist {
	uint64_t count;
	uint64_t low[LLHIST_SUB];	/* values 0..127 */
	uint16_t *oct[64];		/* oct[e]: values with top bit e >= 7, mod 2^16 */
	uint64_t *carry[64];		/* carry[e]: the rest of oct[e]'s counts, or NULL */
};

/* llhist_init - an empty histogram (no allocation). */
void llhist_init(struct llhist *h);
/* llhist_release - free what the histogram allocated; it is then empty. */
void llhist_release(struct llhist *h);
/*
 * llhist_add_n - count @v @by times. Returns 0, or -1 when out of memory
 * (a power of two's arrays are allocated on first use).
 */
int llhist_add_n(struct llhist *h, uint64_t v, uint64_t by);

/*
 * llhist_add - count @v once. Returns 0, or -1 when out of memory. Inline:
 * it runs once per syscall row, and but for the first value of a power of
 * two or a bucket's wrap it is a few instructions.
 */
static inline int llhist_add(struct llhist *h, uint64_t v)
{
	uint16_t *o;
	int e;

	if (v < LLHIST_SUB) {
		h->low[v]++;
		h->count++;
		return 0;
	}
	e = 63 - __builtin_clzll(v);
	o = h->oct[e];
	if (!o)
		return llhist_add_n(h, v, 1);
	o += (v >> (e - LLHIST_SUB_BITS)) - LLHIST_SUB;
	if (*o == UINT16_MAX)
		return llhist_add_n(h, v, 1);
	++*o;
	h->count++;
	return 0;
}

/* llhist_merge - add every count of @src to @dst. 0, or -1 out of memory. */
int llhist_merge(struct llhist *dst, const struct llhist *src);
/*
 * llhist_percentile - the nearest-rank percentile @p (1..100), as the lower
 * edge of its bucket (see above); 0 when the histogram is empty.
 */
uint64_t llhist_percentile(const struct llhist *h, unsigned p);

#endif /* ANALYZE_LLHIST_H */
