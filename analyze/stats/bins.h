/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bins: linear histogram bins chosen from the data, for the PNG histograms
 * of --plot. (The terminal's --hist keeps bpftrace's log2 and linear
 * shapes, hist.h: 10 boots within 1.5 ms of each other share one log2
 * bucket, which says nothing in a picture.)
 *
 * The width h, in integer ns, of n values sorted ascending, range =
 * max - min:
 *   1. Freedman-Diaconis: h = 2 IQR n^(-1/3). IQR = Q(3/4) - Q(1/4), with
 *      quantiles by linear interpolation between closest ranks (numpy's
 *      default, R's type 7): on x[0..n-1], (n-1) p = j + f gives
 *      Q(p) = x[j] + f (x[j+1] - x[j]). For p = 1/4 and 3/4, 4 Q(p) is an
 *      integer: the IQR is computed exactly, in 128 bits.
 *   2. Sturges: range / (log2 n + 1). As numpy's "auto", the smaller width
 *      of 1 and 2 wins, and 2 alone when IQR = 0 (numpy >= 1.15; before,
 *      a zero width made one bin: numpy#9327).
 *   3. At least min(d, 5) bins for d distinct values: h <= range / min(d, 5).
 *   4. At most BINS_CAP(n) bins, so that one outlier 1e9 times the rest
 *      cannot ask for a billion bins (numpy#8203, #28400): h >= range / cap.
 * Then h goes down to 1, 2, 2.5 or 5 times a power of ten ns (edges that
 * read as round numbers in ns, us, ms or s), the first edge lo down to a
 * multiple of h, and the bins are [lo + i h, lo + (i+1) h), i = 0..n-1,
 * the last one holding the largest value. When rounding and the aligned
 * first edge made more than the cap, h goes up that 1-2-2.5-5 series,
 * but not to a width that would leave fewer than min(d, 5) bins (a step
 * at most doubles h, 2.5 times from 2 to 5 ns: the cap is exceeded by a
 * few bins at most, and only for ranges of a few dozen ns).
 * All values equal (and n = 1): one bin, of width 1-2-2.5-5 x 10^j at or
 * below a tenth of the value (at least 1 ns), holding it.
 *
 * Edges are integer ns: lo + i h in 128 bits, saturated at INT64_MAX by
 * bins_edge(); counts are made here, in C, so the PNG's boxes are these
 * edges (not gnuplot's "bins=N", which centres its bins on the data's
 * extremes and would draw other edges).
 */
#ifndef ANALYZE_BINS_H
#define ANALYZE_BINS_H

#include <stddef.h>
#include <stdint.h>

/* The most bins a histogram gets: a PNG of 1000 px keeps 10 px per bin. */
#define BINS_MAX 100
/* The cap for n values: 2 ceil(sqrt n) (numpy's relaxed FD bound), within
 * [10, BINS_MAX]. */
size_t bins_cap(size_t n);

enum bins_rule {
	BINS_EMPTY,		/* no values */
	BINS_SINGLE,		/* all values equal */
	BINS_FD,		/* Freedman-Diaconis */
	BINS_STURGES,		/* Sturges */
	BINS_MIN,		/* at least min(distinct values, 5) bins */
	BINS_CAPPED,		/* at most bins_cap(n) bins */
};

struct bins {
	int64_t lo;		/* the first edge, ns */
	uint64_t width;		/* ns: 1, 2, 2.5 or 5 x 10^j */
	size_t n;		/* the number of bins; 0 without values */
	uint64_t *count;	/* n counts; bins_release() frees them */
	enum bins_rule rule;	/* which rule set the width */
};

/*
 * bins_build - the bins of @n values at @sorted (ascending) into *@b,
 * counted. Returns 0, or -1 when out of memory (errno ENOMEM; *@b is then
 * empty). n = 0 gives no bins (b->n = 0, rule BINS_EMPTY).
 */
int bins_build(const int64_t *sorted, size_t n, struct bins *b);

/* bins_release - free what bins_build() allocated; accepts an empty one. */
void bins_release(struct bins *b);

/* bins_edge - edge @i (0..b->n) of @b: lo + i width, saturated at INT64_MAX. */
int64_t bins_edge(const struct bins *b, size_t i);

/*
 * bins_rule_name - "Freedman-Diaconis", "Sturges", ... for titles (BINS_MIN
 * is "at least 5 bins": with fewer distinct values, as many as they are).
 */
const char *bins_rule_name(enum bins_rule r);

/*
 * bins_iqr_x4 - 4 times the interquartile range of @n > 0 values at
 * @sorted (quantiles as above): exact, never negative.
 */
unsigned __int128 bins_iqr_x4(const int64_t *sorted, size_t n);

#endif /* ANALYZE_BINS_H */
