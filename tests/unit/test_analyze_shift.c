// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: analyze/stats/shift.c, the Hodges-Lehmann shift and its exact 95%
 * interval, against /work/shared/TIME-ANCHORS.md §D: its K table (computed
 * there by exact enumeration of U; extended here with values enumerated the
 * same way in Python with integers: 20/20 -> 128, 49/49 -> 925 and, for the
 * normal approximation, 50/50 -> 966, 60/60 -> 1427, 100/100 -> 4198,
 * 60/200 -> 4999), its two worked examples, and D(k) against brute force.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "analyze/stats/shift.h"
#include "analyze/stats/stats.h"
#include "tests/unit/rng.h"

static void check_k(size_t m, size_t n, uint64_t want, double cov, int exact)
{
	double c;
	bool e;
	uint64_t k = shift_k(m, n, &c, &e);

	assert_int_equal(k, want);
	assert_int_equal(e, exact);
	if (cov > 0)
		assert_true(c > cov - 0.00005 && c < cov + 0.00005);
}

static void test_k_table(void **state)
{
	(void)state;
	check_k(3, 3, 1, 0.9000, 1);	/* 95% unreachable: 90% with [D(1), D(9)] */
	check_k(4, 4, 1, 0.9714, 1);
	check_k(3, 5, 1, 0.9643, 1);
	check_k(5, 5, 3, 0.9683, 1);
	check_k(6, 6, 6, 0.9589, 1);
	check_k(8, 8, 14, 0.9501, 1);
	check_k(10, 10, 24, 0.9567, 1);
	check_k(20, 20, 128, 0.9509, 1);
	check_k(2, 2, 1, 0.6667, 1);
	check_k(3, 4, 1, 0.9429, 1);	/* 1 / C(7, 3) = 0.0286 > 0.025 */
	check_k(2, 10, 1, 0.9697, 1);
	check_k(1, 1, 1, 0.0, 1);	/* one difference: coverage 0 */
	check_k(49, 49, 925, 0.9504, 1);
	check_k(50, 50, 966, 0, 0);
	check_k(60, 60, 1427, 0, 0);
	check_k(100, 100, 4198, 0, 0);
	check_k(60, 200, 4999, 0, 0);
}

static void test_worked_example_1(void **state)
{
	/* A = 100 104 98 110 101, B = 108 112 105 120 109: sorted D
	 * -5 -2 -1 1 2 4 4 5 5 7 7 8 8 8 9 10 10 11 11 12 14 16 19 20 22;
	 * HL = D(13) = 8, CI [D(3), D(23)] = [-1, 19]: holds 0 */
	int64_t a[] = { 100, 104, 98, 110, 101 }, b[] = { 108, 112, 105, 120, 109 };
	int64_t want[] = { -5, -2, -1, 1, 2, 4, 4, 5, 5, 7, 7, 8, 8, 8, 9, 10, 10, 11,
			   11, 12, 14, 16, 19, 20, 22 };
	struct shift s;
	uint64_t k;

	(void)state;
	stats_sort(a, 5);
	stats_sort(b, 5);
	for (k = 1; k <= 25; k++)
		assert_int_equal(shift_kth(a, 5, b, 5, k), want[k - 1]);
	assert_int_equal(shift_estimate(a, 5, b, 5, &s), 0);
	assert_int_equal(s.hl, 8);
	assert_true(s.hl_x2 == 16);
	assert_int_equal(s.k, 3);
	assert_int_equal(s.lo, -1);
	assert_int_equal(s.hi, 19);
	assert_true(s.reached);
	assert_true(s.exact);
	assert_false(s.ties);
	/* B against A the other way: -8 [-19, 1] */
	assert_int_equal(shift_estimate(b, 5, a, 5, &s), 0);
	assert_int_equal(s.hl, -8);
	assert_int_equal(s.lo, -19);
	assert_int_equal(s.hi, 1);
}

static void test_worked_example_2(void **state)
{
	/* A = 100 102 99 101 103, B = 106 108 105 110 107: HL 6, CI [3, 9] */
	int64_t a[] = { 100, 102, 99, 101, 103 }, b[] = { 106, 108, 105, 110, 107 };
	struct shift s;

	(void)state;
	stats_sort(a, 5);
	stats_sort(b, 5);
	assert_int_equal(shift_estimate(a, 5, b, 5, &s), 0);
	assert_int_equal(s.hl, 6);
	assert_int_equal(s.lo, 3);
	assert_int_equal(s.hi, 9);
	assert_true(s.coverage > 0.968 && s.coverage < 0.9684);
}

static void test_small_and_even(void **state)
{
	/* 3 and 3: K = 1, [min, max] of the differences at 90%: not reached */
	int64_t a[] = { 10, 11, 12 }, b[] = { 20, 21, 22 };
	/* mn even: {0, 0} and {1, 2}: differences 1 1 2 2, HL = 1.5 -> 2 */
	int64_t c[] = { 0, 0 }, d[] = { 1, 2 };
	/* ties between A and B */
	int64_t e[] = { 1, 5, 9, 12 }, f[] = { 2, 5, 10, 13 };
	struct shift s;

	(void)state;
	assert_int_equal(shift_estimate(a, 3, b, 3, &s), 0);
	assert_false(s.reached);
	assert_int_equal(s.k, 1);
	assert_int_equal(s.lo, 8);
	assert_int_equal(s.hi, 12);
	assert_int_equal(s.hl, 10);
	assert_int_equal(shift_estimate(c, 2, d, 2, &s), 0);
	assert_true(s.hl_x2 == 3);
	assert_int_equal(s.hl, 2);
	assert_int_equal(shift_estimate(d, 2, c, 2, &s), 0);
	assert_int_equal(s.hl, -2);	/* -1.5: half away from zero */
	assert_int_equal(shift_estimate(e, 4, f, 4, &s), 0);
	assert_true(s.ties);
	assert_true(s.reached);		/* 4 and 4: K = 1, 97.1% */
}

static void test_extremes(void **state)
{
	int64_t a[] = { INT64_MAX }, b[] = { INT64_MIN }, c[] = { INT64_MIN, INT64_MAX };
	struct shift s;

	(void)state;
	assert_int_equal(shift_estimate(a, 1, b, 1, &s), 0);
	assert_true(s.hl == INT64_MIN);	/* -(2^64 - 1), saturated */
	assert_true(s.lo == INT64_MIN && s.hi == INT64_MIN);
	assert_int_equal(shift_estimate(c, 2, c, 2, &s), 0);
	assert_int_equal(s.hl, 0);
	assert_true(s.lo == INT64_MIN && s.hi == INT64_MAX);
}

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static uint64_t next(void)
{
	return rng_next(&rng);
}

static int cmp(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a > b) - (a < b);
}

static void test_kth_brute_force(void **state)
{
	int64_t a[12], b[12], d[144];
	int round;

	(void)state;
	for (round = 0; round < 2000; round++) {
		size_t m = 1 + next() % 12, n = 1 + next() % 12, i, j, nd = 0;
		int64_t spread = (int64_t)(1 + next() % 1000000);
		uint64_t k;

		for (i = 0; i < m; i++)
			a[i] = (int64_t)(next() % (uint64_t)spread) - spread / 2;
		for (j = 0; j < n; j++)
			b[j] = (int64_t)(next() % (uint64_t)spread) - spread / 3;
		stats_sort(a, m);
		stats_sort(b, n);
		for (i = 0; i < m; i++)
			for (j = 0; j < n; j++)
				d[nd++] = b[j] - a[i];
		qsort(d, nd, sizeof(*d), cmp);
		for (k = 1; k <= nd; k++)
			assert_int_equal(shift_kth(a, m, b, n, k), d[k - 1]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_k_table),
		cmocka_unit_test(test_worked_example_1),
		cmocka_unit_test(test_worked_example_2),
		cmocka_unit_test(test_small_and_even),
		cmocka_unit_test(test_extremes),
		cmocka_unit_test(test_kth_brute_force),
	};

	return cmocka_run_group_tests_name("analyze_shift", tests, NULL, NULL);
}
