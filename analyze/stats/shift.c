// SPDX-License-Identifier: BSD-2-Clause
/* Hodges-Lehmann shift and its exact confidence interval: see shift.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "analyze/stats/shift.h"

#define Z975 1.959963984540054	/* the normal 0.975 quantile */

/*
 * U's exact null distribution for sizes m, n: c[u] = the number of
 * arrangements with U = u, u = 0..mn, the coefficients of [m+n choose m]_q
 * = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i). Each step multiplies by the
 * numerator (descending, so that it reads the old coefficients) then
 * divides by the denominator (ascending: c[u] += c[u-i]), after which c is
 * [n+i choose i]_q, non-negative and at most C(n+i, i).
 */
static __int128 *u_counts(size_t m, size_t n)
{
	size_t mn = m * n, i, u;
	__int128 *c = calloc(mn + 1, sizeof(*c));

	if (!c)
		return NULL;
	c[0] = 1;
	for (i = 1; i <= m; i++) {
		size_t deg = i * n;	/* of the result of this step */

		for (u = deg; u >= n + i && u <= deg; u--)
			c[u] -= c[u - (n + i)];
		for (u = i; u <= deg; u++)
			c[u] += c[u - i];
	}
	return c;
}

static double normal_cdf(double z)
{
	return 0.5 * erfc(-z / sqrt(2.0));
}

uint64_t shift_k(size_t m, size_t n, double *coverage, bool *exact)
{
	double mn = (double)m * (double)n;

	if (m < SHIFT_EXACT_MAX && n < SHIFT_EXACT_MAX) {
		__int128 *c = u_counts(m, n), total = 0, cum = 0;
		size_t u, q = 0;

		if (!c)
			return 0;
		for (u = 0; u <= m * n; u++)
			total += c[u];
		/* the smallest q with P(U <= q) >= 0.025: 40 cum >= total */
		for (u = 0; u <= m * n; u++) {
			cum += c[u];
			if (40 * cum >= total) {
				q = u;
				break;
			}
		}
		if (q == 0)
			q = 1;
		for (cum = 0, u = 0; u < q; u++)
			cum += c[u];	/* P(U <= K-1) total */
		*coverage = 1.0 - 2.0 * (double)cum / (double)total;
		*exact = true;
		free(c);
		return q;
	} else {
		double sd = sqrt(mn * ((double)m + (double)n + 1.0) / 12.0);
		double kq = ceil(mn / 2.0 - 0.5 - Z975 * sd);
		uint64_t k = kq < 1 ? 1 : (uint64_t)kq;

		*coverage = 1.0 - 2.0 * normal_cdf(((double)k - 1.0 + 0.5 - mn / 2.0) / sd);
		*exact = false;
		return k;
	}
}

/* #{(i, j): b_j - a_i <= t}, with both samples sorted ascending. */
static unsigned __int128 count_le(const int64_t *a, size_t m, const int64_t *b, size_t n,
				  __int128 t)
{
	unsigned __int128 c = 0;
	size_t i, j = 0;

	/* b_j <= a_i + t: the threshold grows with i, so j only moves on */
	for (i = 0; i < m; i++) {
		__int128 lim = (__int128)a[i] + t;

		while (j < n && (__int128)b[j] <= lim)
			j++;
		c += j;
	}
	return c;
}

static int64_t sat64(__int128 v)
{
	return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

/* D(k) in 128 bits: the smallest t with count_le(t) >= k. */
static __int128 kth128(const int64_t *a, size_t m, const int64_t *b, size_t n, uint64_t k)
{
	__int128 lo = (__int128)b[0] - a[m - 1], hi = (__int128)b[n - 1] - a[0];

	while (lo < hi) {
		/* floor((lo + hi) / 2) with negative values too */
		__int128 mid = lo + (hi - lo) / 2;

		if (count_le(a, m, b, n, mid) >= k)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

int64_t shift_kth(const int64_t *a, size_t m, const int64_t *b, size_t n, uint64_t k)
{
	return sat64(kth128(a, m, b, n, k));
}

/* Does a value of @b equal one of @a? Both sorted. */
static bool any_tie(const int64_t *a, size_t m, const int64_t *b, size_t n)
{
	size_t i = 0, j = 0;

	while (i < m && j < n) {
		if (a[i] == b[j])
			return true;
		if (a[i] < b[j])
			i++;
		else
			j++;
	}
	return false;
}

int shift_estimate(const int64_t *a, size_t m, const int64_t *b, size_t n,
		   struct shift *out)
{
	unsigned __int128 mn128 = (unsigned __int128)m * n;
	uint64_t mn, k;
	__int128 h;

	if (mn128 > UINT64_MAX / 2) {	/* 2^63 differences: cannot happen */
		errno = EOVERFLOW;
		return -1;
	}
	mn = (uint64_t)mn128;
	out->m = m;
	out->n = n;
	k = shift_k(m, n, &out->coverage, &out->exact);
	if (!k) {
		errno = ENOMEM;
		return -1;
	}
	out->k = k;
	out->reached = out->coverage >= 0.95;
	out->ties = any_tie(a, m, b, n);
	if (mn % 2)
		out->hl_x2 = 2 * kth128(a, m, b, n, mn / 2 + 1);
	else
		out->hl_x2 = kth128(a, m, b, n, mn / 2) + kth128(a, m, b, n, mn / 2 + 1);
	/* half away from zero */
	h = out->hl_x2 >= 0 ? (out->hl_x2 + 1) / 2 : -((-out->hl_x2 + 1) / 2);
	out->hl = sat64(h);
	out->lo = shift_kth(a, m, b, n, k);
	out->hi = shift_kth(a, m, b, n, mn - k + 1);
	return 0;
}
