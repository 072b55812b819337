// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: analyze/stats/bins.c, the PNG histograms' bins, against values worked
 * out by hand in the comments (quartiles as numpy.percentile's default,
 * Freedman-Diaconis, Sturges, the floor of 5 bins, the cap), then a
 * property check over random data of every scale.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "analyze/stats/bins.h"
#include "analyze/stats/stats.h"
#include "tests/unit/rng.h"

static uint64_t sum(const struct bins *b)
{
	uint64_t s = 0;
	size_t i;

	for (i = 0; i < b->n; i++)
		s += b->count[i];
	return s;
}

/* Each value lies in the bin of its index: [edge(i), edge(i+1)). */
static void assert_in_bins(const struct bins *b, const int64_t *v, size_t n)
{
	uint64_t *seen = calloc(b->n, sizeof(*seen));
	size_t i, k;

	assert_non_null(seen);
	for (i = 0; i < n; i++) {
		for (k = 0; k < b->n; k++)
			if (v[i] >= bins_edge(b, k) &&
			    (v[i] < bins_edge(b, k + 1) || bins_edge(b, k + 1) == INT64_MAX))
				break;
		assert_true(k < b->n);
		seen[k]++;
	}
	for (k = 0; k < b->n; k++)
		assert_int_equal(seen[k], b->count[k]);
	free(seen);
}

static int nice(uint64_t w)
{
	while (w % 10 == 0 && w >= 10)
		w /= 10;
	return w == 1 || w == 2 || w == 25 || w == 5;
}

static void test_iqr_definition(void **state)
{
	/* numpy.percentile([1, 2, 3, 4], [25, 75]) = [1.75, 3.25]: 4 IQR = 6 */
	int64_t a[] = { 1, 2, 3, 4 };
	/* [10, 20, 30, 40, 50]: (n-1)/4 = 1 exactly: Q1 = 20, Q3 = 40 */
	int64_t b[] = { 10, 20, 30, 40, 50 };
	/* n = 1: 0; n = 2: Q1 = x0 + (x1-x0)/4, Q3 = x0 + 3(x1-x0)/4: 4 IQR = 2 (x1-x0) */
	int64_t c[] = { 5 }, d[] = { 0, 7 };
	/* the extremes: 4 IQR of {INT64_MIN, INT64_MAX} = 2 (2^64 - 1), no overflow */
	int64_t e[] = { INT64_MIN, INT64_MAX };

	(void)state;
	assert_true(bins_iqr_x4(a, 4) == 6);
	assert_true(bins_iqr_x4(b, 5) == 80);
	assert_true(bins_iqr_x4(c, 1) == 0);
	assert_true(bins_iqr_x4(d, 2) == 14);
	assert_true(bins_iqr_x4(e, 2) == (unsigned __int128)UINT64_MAX * 2);
}

static void test_empty(void **state)
{
	struct bins b;

	(void)state;
	assert_int_equal(bins_build(NULL, 0, &b), 0);
	assert_int_equal(b.n, 0);
	assert_null(b.count);
	assert_int_equal(b.rule, BINS_EMPTY);
	bins_release(&b);
}

static void test_one_and_equal(void **state)
{
	/* one value of 45 ms: width nice_down(4.5 ms) = 2.5 ms, aligned at 45 ms */
	int64_t one[] = { 45000000 }, same[] = { 7, 7, 7 }, zero[] = { 0, 0 };
	int64_t neg[] = { -35, -35 };
	struct bins b;

	(void)state;
	assert_int_equal(bins_build(one, 1, &b), 0);
	assert_int_equal(b.n, 1);
	assert_int_equal(b.rule, BINS_SINGLE);
	assert_int_equal(b.width, 2500000);
	assert_int_equal(bins_edge(&b, 0), 45000000);
	assert_int_equal(bins_edge(&b, 1), 47500000);
	assert_int_equal(b.count[0], 1);
	bins_release(&b);
	/* 7, 7, 7: a tenth of 7 is 0: width 1 ns, [7, 8) */
	assert_int_equal(bins_build(same, 3, &b), 0);
	assert_int_equal(b.n, 1);
	assert_int_equal(b.width, 1);
	assert_int_equal(b.lo, 7);
	assert_int_equal(b.count[0], 3);
	bins_release(&b);
	assert_int_equal(bins_build(zero, 2, &b), 0);
	assert_int_equal(b.n, 1);
	assert_int_equal(b.lo, 0);
	assert_int_equal(b.count[0], 2);
	bins_release(&b);
	/* -35: width nice_down(3) = 2, first edge floor(-35 / 2) * 2 = -36 */
	assert_int_equal(bins_build(neg, 2, &b), 0);
	assert_int_equal(b.n, 1);
	assert_int_equal(b.lo, -36);
	assert_int_equal(b.width, 2);
	assert_int_equal(b.count[0], 2);
	bins_release(&b);
}

static void test_iqr_zero_with_range(void **state)
{
	/* ten 100s and one 200: Q1 = Q3 = 100, IQR 0 -> Sturges:
	 * 100 / (log2 11 + 1) = 22.4 -> 20; bins [100, 120) ... [200, 220): 6 */
	int64_t v[11] = { 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 200 };
	struct bins b;

	(void)state;
	assert_true(bins_iqr_x4(v, 11) == 0);
	assert_int_equal(bins_build(v, 11, &b), 0);
	assert_int_equal(b.rule, BINS_STURGES);
	assert_int_equal(b.width, 20);
	assert_int_equal(b.lo, 100);
	assert_int_equal(b.n, 6);
	assert_int_equal(b.count[0], 10);
	assert_int_equal(b.count[1] + b.count[2] + b.count[3] + b.count[4], 0);
	assert_int_equal(b.count[5], 1);
	assert_in_bins(&b, v, 11);
	bins_release(&b);
}

static void test_five_distinct(void **state)
{
	/* 1..5: FD = 2*2/cbrt 5 = 2.34, Sturges = 4/3.32 = 1.2, at least 5
	 * bins: 4/5 = 0.8 -> 1 ns: [1,2) .. [5,6), one each */
	int64_t v[] = { 1, 2, 3, 4, 5 };
	/* 3 distinct values: at least 3 bins */
	int64_t w[] = { 0, 0, 0, 0, 0, 0, 0, 50, 100 };
	struct bins b;
	size_t i;

	(void)state;
	assert_int_equal(bins_build(v, 5, &b), 0);
	assert_int_equal(b.rule, BINS_MIN);
	assert_int_equal(b.n, 5);
	for (i = 0; i < 5; i++)
		assert_int_equal(b.count[i], 1);
	bins_release(&b);
	assert_int_equal(bins_build(w, 9, &b), 0);
	assert_true(b.n >= 3);
	assert_in_bins(&b, w, 9);
	bins_release(&b);
}

static void test_ten_boots_in_1500us(void **state)
{
	/* The case: 10 listen times within 1.5 ms of each other, in
	 * one log2 bucket. Range 1.5 ms; IQR: (n-1)/4 = 2.25 -> Q1 = 45.3 +
	 * .25 * .2 = 45.35 ms, Q3 at 6.75 -> 46.0 + .75 * .1 = 46.075 ms; FD =
	 * 2 * .725 / cbrt 10 = 0.673 ms; Sturges = 1.5 / 4.32 = 0.347 ms; at
	 * least 5 bins: 0.3 ms -> 250 us bins from 45 ms: 7 bins. */
	int64_t v[] = { 45000000, 45200000, 45300000, 45500000, 45700000,
			45800000, 46000000, 46100000, 46300000, 46500000 };
	uint64_t want[] = { 2, 1, 2, 1, 2, 1, 1 };
	struct bins b;
	size_t i;

	(void)state;
	assert_true(bins_iqr_x4(v, 10) == 4 * (uint64_t)725000);
	assert_int_equal(bins_build(v, 10, &b), 0);
	assert_int_equal(b.rule, BINS_MIN);
	assert_int_equal(b.width, 250000);
	assert_int_equal(b.lo, 45000000);
	assert_int_equal(b.n, 7);
	for (i = 0; i < 7; i++)
		assert_int_equal(b.count[i], want[i]);
	assert_in_bins(&b, v, 10);
	bins_release(&b);
}

static void test_fd_wins(void **state)
{
	/* 0..99999 step 1: IQR = 49999.5 (4 IQR = 199998), FD = 99999 /
	 * cbrt 1e5 = 2154.4, Sturges = 99999 / 17.6 = 5678: FD -> 2000 ns,
	 * 50 bins of 2000 values each (cap 2 * 317 -> 100) */
	size_t n = 100000, i;
	int64_t *v = malloc(n * sizeof(*v));
	struct bins b;

	(void)state;
	assert_non_null(v);
	for (i = 0; i < n; i++)
		v[i] = (int64_t)i;
	assert_true(bins_iqr_x4(v, n) == 199998);
	assert_int_equal(bins_build(v, n, &b), 0);
	assert_int_equal(b.rule, BINS_FD);
	assert_int_equal(b.width, 2000);
	assert_int_equal(b.n, 50);
	for (i = 0; i < b.n; i++)
		assert_int_equal(b.count[i], 2000);
	bins_release(&b);
	free(v);
}

static void test_outlier_capped(void **state)
{
	/* 100 values of about 1 ms and one 1e9 times larger (11.6 days): FD
	 * alone would make 2e9 bins; the cap is 2 ceil(sqrt 101) = 22. */
	int64_t v[101];
	struct bins b;
	size_t i;

	(void)state;
	for (i = 0; i < 100; i++)
		v[i] = 1000000 + (int64_t)i * 1000;
	v[100] = 1000000LL * 1000000000LL;
	assert_int_equal(bins_cap(101), 22);
	assert_int_equal(bins_build(v, 101, &b), 0);
	assert_int_equal(b.rule, BINS_CAPPED);
	assert_true(b.n <= 22);
	assert_true(b.n >= 5);
	assert_int_equal(b.count[0], 100);
	assert_int_equal(b.count[b.n - 1], 1);
	assert_int_equal(sum(&b), 101);
	assert_true(nice(b.width));
	assert_in_bins(&b, v, 101);
	bins_release(&b);
}

static void test_extremes(void **state)
{
	int64_t v[] = { INT64_MIN, -1, 0, INT64_MAX };
	struct bins b;

	(void)state;
	assert_int_equal(bins_build(v, 4, &b), 0);
	assert_true(b.n >= 1 && b.n <= bins_cap(4));
	assert_int_equal(sum(&b), 4);
	assert_true(bins_edge(&b, 0) <= INT64_MIN + (int64_t)b.width);
	assert_true(bins_edge(&b, b.n) == INT64_MAX);	/* saturated */
	bins_release(&b);
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
	return rng_next(&rng);
}

static void test_random_properties(void **state)
{
	int64_t v[400];
	int round;

	(void)state;
	for (round = 0; round < 3000; round++) {
		size_t n = 1 + next() % 400, i, d = 1;
		int scale = (int)(next() % 19);	/* spread of 10^0 .. 10^18 ns */
		int64_t base = (int64_t)(next() % 1000000000ULL), spread = 1;
		struct bins b;

		while (scale--)
			spread *= 10;
		for (i = 0; i < n; i++) {
			uint64_t r = next();

			/* a mix of clustered values, ties and rare outliers */
			v[i] = base + (r % 8 == 0 ? (int64_t)(next() % (uint64_t)spread) :
				       (int64_t)(r % 16) * (spread / 1000 + 1));
		}
		stats_sort(v, n);
		for (i = 1; i < n; i++)
			d += v[i] != v[i - 1];
		assert_int_equal(bins_build(v, n, &b), 0);
		assert_true(b.n >= (d < 5 ? d : 5));
		assert_true(b.n <= bins_cap(n) + 4);
		assert_true(nice(b.width));
		assert_true(b.lo <= v[0]);
		assert_true(bins_edge(&b, b.n - 1) <= v[n - 1]);
		assert_int_equal(sum(&b), n);
		assert_int_equal(b.count[0] > 0, 1);
		assert_int_equal(b.count[b.n - 1] > 0, 1);
		if (n <= 50)
			assert_in_bins(&b, v, n);
		bins_release(&b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_iqr_definition),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_one_and_equal),
		cmocka_unit_test(test_iqr_zero_with_range),
		cmocka_unit_test(test_five_distinct),
		cmocka_unit_test(test_ten_boots_in_1500us),
		cmocka_unit_test(test_fd_wins),
		cmocka_unit_test(test_outlier_capped),
		cmocka_unit_test(test_extremes),
		cmocka_unit_test(test_random_properties),
	};

	return cmocka_run_group_tests_name("analyze_bins", tests, NULL, NULL);
}
