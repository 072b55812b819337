/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * shift: how much slower B is than A, with a confidence interval that
 * assumes no distribution: the Hodges-Lehmann estimate of the shift and
 * its exact 95% interval (Moses; Bauer, JASA 67:687, 1972: the
 * Mann-Whitney test inverted). R computes the same with
 * wilcox.test(b, a, conf.int = TRUE). Pure: no I/O, no global state.
 *
 * A has m values a_i, B has n values b_j. Of the m n differences
 * d = b_j - a_i (positive: B slower), sorted D(1) <= ... <= D(mn):
 *   HL  = their median (the mean of the two middle ones when mn is even);
 *   CI  = [D(K), D(mn - K + 1)], K the smallest k with P(U <= k) >= 0.025
 *         under H0 (R's qwilcox(0.025, m, n)), raised to 1 when it is 0;
 *   its coverage is 1 - 2 P(U <= K - 1).
 * U's null distribution is exact when m and n are below 50 (as R): the
 * number of arrangements with U = u is the coefficient of q^u in the
 * Gaussian binomial [m+n choose m]_q, counted in 128-bit integers (they
 * reach C(98, 49) < 2^95). From 50 up, the normal approximation with a
 * continuity correction: K = ceil(mn/2 - 1/2 - 1.96 sd), sd^2 =
 * mn(m+n+1)/12, which gives the exact K at 20/20, 50/50, 60/60, 100/100
 * and 60/200 (where the uncorrected floor(mn/2 - 1.96 sd) is one low).
 * The table assumes no ties; with ties between A and B the interval is
 * still [D(K), D(mn-K+1)] and the caller says the coverage is
 * approximate.
 *
 * A 95% interval needs P(U <= 0) = 1 / C(m+n, m) <= 0.025: 3 and 3 values
 * reach 90% at most ([D(1), D(9)]), 4 and 4 reach 97.1% with K = 1.
 *
 * The D(k) are found without forming the m n differences: a binary search
 * on the value t, counting #{d <= t} in one merge-like pass of the two
 * sorted samples (O((m + n) 65) time, no memory).
 */
#ifndef ANALYZE_SHIFT_H
#define ANALYZE_SHIFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* m and n from which U's distribution is approximated (R's limit). */
#define SHIFT_EXACT_MAX 50

struct shift {
	size_t m, n;
	__int128 hl_x2;		/* twice the estimate: exact */
	int64_t hl;		/* the estimate, rounded half away from zero */
	int64_t lo, hi;		/* the interval D(K), D(mn-K+1) */
	uint64_t k;		/* K */
	double coverage;	/* achieved, 1 - 2 P(U <= K-1) */
	bool exact;		/* U's exact distribution (m, n < 50) */
	bool reached;		/* coverage >= 0.95 */
	bool ties;		/* some b_j equals some a_i */
};

/*
 * shift_k - K for sizes @m, @n > 0 into the return value, the achieved
 * coverage into *@coverage and whether it is exact into *@exact. Returns
 * 0 when out of memory (the exact table needs (mn + 1) 16 bytes).
 */
uint64_t shift_k(size_t m, size_t n, double *coverage, bool *exact);

/*
 * shift_kth - D(@k), 1 <= @k <= m n, of @a (@m values) and @b (@n values),
 * both sorted ascending: the k-th smallest b_j - a_i, saturated to int64.
 */
int64_t shift_kth(const int64_t *a, size_t m, const int64_t *b, size_t n, uint64_t k);

/*
 * shift_estimate - the shift of @b against @a (sorted ascending, @m and @n
 * > 0) into *@out. Returns 0, or -1 when out of memory.
 */
int shift_estimate(const int64_t *a, size_t m, const int64_t *b, size_t n,
		   struct shift *out);

#endif /* ANALYZE_SHIFT_H */
