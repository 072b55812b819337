/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stats: the statistics of a set of durations (int64_t ns). Pure: no I/O,
 * no global state.
 *
 * Percentiles are exact, by nearest rank: the p-th percentile of n values is
 * the smallest value v such that at least p% of the values are <= v; on the
 * sorted values x[1..n] it is x[r] with r = ceil(p * n / 100), computed in
 * integers (and r = 1 when that is 0). This is what PostgreSQL's
 * percentile_disc(p / 100.0) returns. No interpolation: the result is
 * always one of the values.
 *
 * The mean is the exact sum (128-bit) divided by n, rounded to the nearest
 * ns, halves away from zero (as PostgreSQL's round(avg(x))).
 */
#ifndef ANALYZE_STATS_H
#define ANALYZE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stats {
	size_t count;
	int64_t min, avg, max, p50, p90, p99;
};

/* stats_sort - sort @n values ascending, in place. */
void stats_sort(int64_t *v, size_t n);

/*
 * stats_rank - the 1-based nearest rank of percentile @p (0 < @p <= 100)
 * among @n > 0 values: ceil(p * n / 100), at least 1.
 */
size_t stats_rank(unsigned p, size_t n);

/* stats_percentile - percentile @p of @n > 0 values sorted ascending. */
int64_t stats_percentile(const int64_t *sorted, size_t n, unsigned p);

/* stats_mean - the rounded mean of @n > 0 values (any order). */
int64_t stats_mean(const int64_t *v, size_t n);

/*
 * stats_compute - fill @out for @n values at @v, which must be sorted
 * ascending. @n may be 0: then only count is set (to 0).
 */
void stats_compute(const int64_t *sorted, size_t n, struct stats *out);

/*
 * Mann–Whitney U test (Wilcoxon rank-sum), two-sided, with the normal
 * approximation: ranks are averaged over ties, the variance gets the tie
 * correction  n1 n2 / 12 * ((n + 1) - sum(t^3 - t) / (n (n - 1))), and a
 * continuity correction of 0.5 is applied to |U - n1 n2 / 2|. This is what
 * scipy.stats.mannwhitneyu(a, b, method="asymptotic") computes. The
 * approximation is rough for very small samples (n1, n2 < 8).
 */
struct mann_whitney {
	double u;		/* U of the first sample */
	double z;		/* standard score (0 when the variance is 0) */
	double p;		/* two-sided p-value */
};

/*
 * stats_mann_whitney - test @a (@na values) against @b (@nb values), both
 * sorted ascending, @na and @nb > 0. Cannot fail.
 */
void stats_mann_whitney(const int64_t *a, size_t na, const int64_t *b, size_t nb,
			struct mann_whitney *out);

#endif /* ANALYZE_STATS_H */
