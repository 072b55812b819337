// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: analyze/stats/stats.c and analyze/stats/llhist.c against values computed by
 * hand (nearest rank r = ceil(p*n/100), means rounded half away from zero,
 * Mann–Whitney by the formula in stats.h, worked out in the comments).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <cmocka.h>

#include "analyze/stats/llhist.h"
#include "analyze/stats/stats.h"

static void check(int64_t *v, size_t n, int64_t min, int64_t avg, int64_t max,
		  int64_t p50, int64_t p90, int64_t p99)
{
	struct stats st;

	stats_sort(v, n);
	stats_compute(v, n, &st);
	assert_int_equal(st.count, n);
	assert_int_equal(st.min, min);
	assert_int_equal(st.avg, avg);
	assert_int_equal(st.max, max);
	assert_int_equal(st.p50, p50);
	assert_int_equal(st.p90, p90);
	assert_int_equal(st.p99, p99);
}

static void test_one_value(void **state)
{
	int64_t v[] = { 7 };

	(void)state;
	check(v, 1, 7, 7, 7, 7, 7, 7);
}

static void test_odd(void **state)
{
	/* {1,3,5}: p50 rank ceil(1.5)=2 -> 3; p90 ceil(2.7)=3 -> 5 */
	int64_t v[] = { 5, 1, 3 };

	(void)state;
	check(v, 3, 1, 3, 5, 3, 5, 5);
}

static void test_even(void **state)
{
	/* {10,20,30,40}: p50 rank 2 -> 20 (no interpolation to 25);
	 * p90 ceil(3.6)=4 -> 40 */
	int64_t v[] = { 40, 10, 30, 20 };

	(void)state;
	check(v, 4, 10, 25, 40, 20, 40, 40);
}

static void test_ties(void **state)
{
	/* {2,2,2,9}: mean 3.75 -> 4; p50 rank 2 -> 2; p90 rank 4 -> 9 */
	int64_t v[] = { 2, 9, 2, 2 };

	(void)state;
	check(v, 4, 2, 4, 9, 2, 9, 9);
}

static void test_edge_ranks(void **state)
{
	int64_t v[201];
	size_t i;

	(void)state;
	for (i = 0; i < 201; i++)
		v[i] = (int64_t)i + 1;
	/* 1..10: ranks 5, 9, ceil(9.9)=10 */
	check(v, 10, 1, 6 /* 5.5 -> 6 */, 10, 5, 9, 10);
	/* 1..100: ranks exactly 50, 90, 99 */
	check(v, 100, 1, 51 /* 50.5 -> 51 */, 100, 50, 90, 99);
	/* 1..101: ceil(50.5)=51, ceil(90.9)=91, ceil(99.99)=100 */
	check(v, 101, 1, 51, 101, 51, 91, 100);
	/* 1..200: 100, 180, 198 */
	check(v, 200, 1, 101 /* 100.5 */, 200, 100, 180, 198);
	assert_int_equal(stats_rank(50, 1), 1);
	assert_int_equal(stats_rank(1, 1000), 10);
	assert_int_equal(stats_rank(100, 7), 7);
	assert_int_equal(stats_rank(99, 3), 3);
}

static void test_mean_rounding(void **state)
{
	int64_t a[] = { 1, 2 }, b[] = { -1, -2 }, c[] = { 1, 2, 2 }, d[] = { 0, 0, 1 };
	int64_t e[] = { INT64_MAX, INT64_MAX, INT64_MAX }, f[] = { INT64_MIN, INT64_MIN };

	(void)state;
	assert_int_equal(stats_mean(a, 2), 2);	/* 1.5: half away from zero */
	assert_int_equal(stats_mean(b, 2), -2);
	assert_int_equal(stats_mean(c, 3), 2);	/* 1.67 */
	assert_int_equal(stats_mean(d, 3), 0);	/* 0.33 */
	assert_true(stats_mean(e, 3) == INT64_MAX);	/* no overflow */
	assert_true(stats_mean(f, 2) == INT64_MIN);
}

static void test_empty(void **state)
{
	struct stats st;

	(void)state;
	stats_compute(NULL, 0, &st);
	assert_int_equal(st.count, 0);
}

static void test_mann_whitney_separated(void **state)
{
	/* A = 1..5, B = 6..10: R_A = 15, U = 0, mean 12.5,
	 * var = 25/12 * 11 = 22.917, z = -(12.5 - 0.5) / 4.7871 = -2.5067,
	 * p = erfc(2.5067 / sqrt 2) = 0.012186 (scipy: 0.01219) */
	int64_t a[] = { 1, 2, 3, 4, 5 }, b[] = { 6, 7, 8, 9, 10 };
	struct mann_whitney mw;

	(void)state;
	stats_mann_whitney(a, 5, b, 5, &mw);
	assert_true(fabs(mw.u - 0) < 1e-9);
	assert_true(fabs(mw.z - -2.506718) < 1e-5);
	assert_true(fabs(mw.p - 0.012186) < 1e-5);
	stats_mann_whitney(b, 5, a, 5, &mw); /* symmetric */
	assert_true(fabs(mw.u - 25) < 1e-9);
	assert_true(fabs(mw.p - 0.012186) < 1e-5);
}

static void test_mann_whitney_ties(void **state)
{
	/* A = {1,2,2,3}, B = {2,3,4,5}. Ranks: 1 -> 1; 2,2,2 -> 3; 3,3 -> 5.5;
	 * 4 -> 7; 5 -> 8. R_A = 1 + 3 + 3 + 5.5 = 12.5, U = 12.5 - 10 = 2.5.
	 * Ties: (27-3) + (8-2) = 30; var = 16/12 * (9 - 30/56) = 11.2857;
	 * z = -(5.5 - 0.5) / 3.35942 = -1.48835; p = 0.136658. */
	int64_t a[] = { 1, 2, 2, 3 }, b[] = { 2, 3, 4, 5 };
	struct mann_whitney mw;

	(void)state;
	stats_mann_whitney(a, 4, b, 4, &mw);
	assert_true(fabs(mw.u - 2.5) < 1e-9);
	assert_true(fabs(mw.z - -1.488351) < 1e-5);
	assert_true(fabs(mw.p - 0.136658) < 1e-5);
}

static void test_mann_whitney_identical(void **state)
{
	int64_t a[] = { 3, 3, 3 }, b[] = { 3, 3 };
	struct mann_whitney mw;

	(void)state;
	stats_mann_whitney(a, 3, b, 2, &mw); /* variance 0: not significant */
	assert_true(mw.p == 1);
}

static void test_llhist(void **state)
{
	struct llhist h, h2;
	uint64_t v, exact, i;

	(void)state;
	llhist_init(&h);
	/* small values are exact */
	for (i = 0; i < 100; i++)
		assert_int_equal(llhist_add(&h, i), 0);
	assert_int_equal(llhist_percentile(&h, 50), 49);
	assert_int_equal(llhist_percentile(&h, 99), 98);
	llhist_release(&h);
	/* large values: never above, within 1/128 below */
	for (i = 1; i <= 10000; i++)
		assert_int_equal(llhist_add(&h, i * 7919), 0);
	exact = 9900 * 7919ULL;		/* rank 9900 */
	v = llhist_percentile(&h, 99);
	assert_true(v <= exact);
	assert_true((double)(exact - v) / (double)exact < 1.0 / 128);
	/* bucket edges: 128 and 255 share the first octave's buckets 0/127 */
	llhist_init(&h2);
	llhist_add(&h2, 255);
	assert_int_equal(llhist_percentile(&h2, 50), 255);
	llhist_add(&h2, 256);	/* [256, 258) */
	llhist_add(&h2, 257);
	assert_int_equal(llhist_percentile(&h2, 99), 256);
	assert_int_equal(llhist_merge(&h2, &h), 0);
	assert_int_equal(h2.count, 10003);
	llhist_release(&h);
	llhist_release(&h2);
}

/* A bucket counts in 16 bits plus a carry: exact past 65535, merged too. */
static void test_llhist_carry(void **state)
{
	struct llhist h, h2;
	uint64_t i;
	int e = 9;		/* 1000 is in [512, 1024): bucket 1000 >> 2 */
	unsigned b = (1000 >> 2) - LLHIST_SUB;

	(void)state;
	llhist_init(&h);
	llhist_init(&h2);
	for (i = 0; i < 65535; i++)
		assert_int_equal(llhist_add(&h, 1000), 0);
	assert_null(h.carry[e]);
	assert_int_equal(h.oct[e][b], 65535);
	assert_int_equal(llhist_add(&h, 1001), 0); /* same bucket: wraps */
	assert_non_null(h.carry[e]);
	assert_int_equal(h.oct[e][b] + h.carry[e][b], 65536);
	for (i = 0; i < 70000; i++)
		assert_int_equal(llhist_add(&h, 1000), 0);
	assert_int_equal(h.oct[e][b] + h.carry[e][b], 135536);
	assert_int_equal(llhist_add(&h, 5000), 0);
	assert_int_equal(h.count, 135537);
	/* rank 135536 is the last 1000, 135537 the 5000: [4992, 5024) */
	assert_int_equal(llhist_percentile(&h, 99), 1000);
	assert_int_equal(llhist_percentile(&h, 100), 4992);
	assert_int_equal(llhist_add_n(&h2, 1002, 3), 0);
	assert_int_equal(llhist_merge(&h2, &h), 0);
	assert_int_equal(llhist_merge(&h2, &h), 0);
	assert_int_equal(h2.count, 2 * 135537 + 3);
	assert_int_equal(h2.oct[e][b] + h2.carry[e][b], 2 * 135536 + 3);
	assert_int_equal(llhist_percentile(&h2, 100), 4992);
	llhist_release(&h);
	llhist_release(&h2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_value),
		cmocka_unit_test(test_odd),
		cmocka_unit_test(test_even),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_edge_ranks),
		cmocka_unit_test(test_mean_rounding),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_mann_whitney_separated),
		cmocka_unit_test(test_mann_whitney_ties),
		cmocka_unit_test(test_mann_whitney_identical),
		cmocka_unit_test(test_llhist),
		cmocka_unit_test(test_llhist_carry),
	};

	return cmocka_run_group_tests_name("analyze_stats", tests, NULL, NULL);
}
