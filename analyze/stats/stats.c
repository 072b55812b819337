// SPDX-License-Identifier: BSD-2-Clause
/* Exact statistics and the Mann–Whitney U test: see stats.h. */
#include <math.h>
#include <stdlib.h>

#include "analyze/stats/stats.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

void stats_sort(int64_t *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_i64);
}

size_t stats_rank(unsigned p, size_t n)
{
	unsigned __int128 r = ((unsigned __int128)p * n + 99) / 100;

	if (r < 1)
		r = 1;
	if (r > n)
		r = n;
	return (size_t)r;
}

int64_t stats_percentile(const int64_t *sorted, size_t n, unsigned p)
{
	return sorted[stats_rank(p, n) - 1];
}

int64_t stats_mean(const int64_t *v, size_t n)
{
	__int128 sum = 0, q;
	size_t i;

	for (i = 0; i < n; i++)
		sum += v[i];
	/* round half away from zero: (2|s| + n) / 2n with the sign of s */
	if (sum >= 0)
		q = (2 * sum + (__int128)n) / (2 * (__int128)n);
	else
		q = -((-2 * sum + (__int128)n) / (2 * (__int128)n));
	return (int64_t)q;
}

void stats_compute(const int64_t *sorted, size_t n, struct stats *out)
{
	out->count = n;
	if (!n) {
		out->min = out->avg = out->max = out->p50 = out->p90 = out->p99 = 0;
		return;
	}
	out->min = sorted[0];
	out->max = sorted[n - 1];
	out->avg = stats_mean(sorted, n);
	out->p50 = stats_percentile(sorted, n, 50);
	out->p90 = stats_percentile(sorted, n, 90);
	out->p99 = stats_percentile(sorted, n, 99);
}

void stats_mann_whitney(const int64_t *a, size_t na, const int64_t *b, size_t nb,
			struct mann_whitney *out)
{
	/* Walk both sorted samples together: each run of equal values gets
	 * the average of the ranks it spans. */
	size_t i = 0, j = 0, rank = 0;
	double ra = 0, ties = 0, n = (double)(na + nb), mean, var, d;

	while (i < na || j < nb) {
		int64_t v = (j >= nb || (i < na && a[i] <= b[j])) ? a[i] : b[j];
		size_t ca = 0, cb = 0, t;
		double avg;

		while (i < na && a[i] == v) {
			i++;
			ca++;
		}
		while (j < nb && b[j] == v) {
			j++;
			cb++;
		}
		t = ca + cb;
		avg = (double)rank + (double)(t + 1) / 2.0; /* ranks rank+1..rank+t */
		rank += t;
		ra += avg * (double)ca;
		ties += (double)t * (double)t * (double)t - (double)t;
	}
	out->u = ra - (double)na * ((double)na + 1) / 2.0;
	mean = (double)na * (double)nb / 2.0;
	var = (double)na * (double)nb / 12.0 *
	      ((n + 1) - (n > 1 ? ties / (n * (n - 1)) : 0));
	if (var <= 0) {
		out->z = 0;
		out->p = 1;
		return;
	}
	d = fabs(out->u - mean) - 0.5;
	if (d < 0)
		d = 0;
	out->z = (out->u >= mean ? d : -d) / sqrt(var);
	out->p = erfc(fabs(out->z) / sqrt(2.0));
	if (out->p > 1)
		out->p = 1;
}
