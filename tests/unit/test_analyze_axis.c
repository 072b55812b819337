// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: analyze/stats/axis.c, --plot's choice of a log or linear axis
 * and its range, on the figures that asked for it (make demo's boots: a
 * spawned webapp's exec 1.054 ms and listen 62.7 ms, a docker run's 859 ms
 * to 2.1 s, the syscalls' 1.4 ms to 7.7 s), the rule's edge, and edge
 * cases.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analyze/stats/axis.h"

static void test_decades_make_a_log_axis(void **state)
{
	struct axis ax;

	(void)state;
	/* a docker run's syscalls, in ms: 1.394 to 7668 */
	axis_choose(1.394, 7668, true, &ax);
	assert_true(ax.log);
	assert_true(ax.lo == 1 && ax.hi == 10000);
	/* exec ~1 ms and listen ~900 ms */
	axis_choose(1.1, 900, true, &ax);
	assert_true(ax.log);
	assert_true(ax.lo == 1 && ax.hi == 1000);
	/* the spawned webapp's phases: exec 1.054 ms, listen 62.7 ms (59 times) */
	axis_choose(1.054, 62.7, true, &ax);
	assert_true(ax.log);
	assert_true(ax.lo == 1 && ax.hi == 100);
	/* a smallest value on a power of ten: the axis starts a decade below,
	 * so its bar keeps a length; a largest one on it ends there */
	axis_choose(0.01, 1000, true, &ax);
	assert_true(ax.log);
	assert_true(ax.lo > 0.0009 && ax.lo < 0.0011 && ax.hi == 1000);
	assert_true(ax.step == 0);
}

static void test_the_rule_edge(void **state)
{
	struct axis ax;

	(void)state;
	axis_choose(1, AXIS_LOG_RATIO, true, &ax);
	assert_true(ax.log);
	axis_choose(1, AXIS_LOG_RATIO * 0.999, true, &ax);
	assert_false(ax.log);
}

static void test_close_values_stay_linear(void **state)
{
	struct axis ax;

	(void)state;
	/* a docker run's phases, in ms: 859.4 to 2106 */
	axis_choose(859.4, 2106, true, &ax);
	assert_false(ax.log);
	assert_true(ax.lo == 0 && ax.step == 500 && ax.hi == 2500);
	/* a curve's axis from its smallest value: the docker run's 800 to 2200
	 * by 200, as gnuplot chose */
	axis_choose(859.4, 2106, false, &ax);
	assert_false(ax.log);
	assert_true(ax.lo == 800 && ax.step == 200 && ax.hi == 2200);
	/* gnuplot's own choice for 62.7: to 70 by 10 */
	axis_choose(30, 62.7, true, &ax);
	assert_false(ax.log);
	assert_true(ax.step == 10 && ax.hi == 70);
	/* a largest value on a step stays the end */
	axis_choose(5, 40, true, &ax);
	assert_true(ax.step == 10 && ax.hi == 40);
	/* 4 to 10 tics whatever the leading digit, from 0 or not */
	for (double m = 0.013; m < 1e7; m *= 1.37) {
		axis_choose(m / 2, m, true, &ax);
		assert_false(ax.log);
		assert_true(ax.lo == 0 && ax.hi >= m && ax.hi - ax.step < m);
		assert_true(ax.hi / ax.step >= 4 - 1e-9 && ax.hi / ax.step <= 10 + 1e-9);
		axis_choose(m * 0.7, m, false, &ax);
		assert_false(ax.log);
		assert_true(ax.lo <= m * 0.7 && ax.lo + ax.step > m * 0.7 * (1 - 1e-9));
		assert_true(ax.hi >= m && ax.hi - ax.step < m);
		assert_true((ax.hi - ax.lo) / ax.step >= 4 - 1e-9 &&
			    (ax.hi - ax.lo) / ax.step <= 11 + 1e-9);
	}
}

static void test_edge_cases(void **state)
{
	struct axis ax;

	(void)state;
	/* nothing positive: 0 to 1 */
	axis_choose(0, 0, true, &ax);
	assert_false(ax.log);
	assert_true(ax.lo == 0 && ax.hi == 1);
	/* one value */
	axis_choose(3.5, 3.5, true, &ax);
	assert_false(ax.log);
	assert_true(ax.hi >= 3.5 && ax.hi <= 4);
	/* no positive smallest (all but the largest zero): linear */
	axis_choose(0, 5, true, &ax);
	assert_false(ax.log);
	assert_true(ax.hi == 5);
	/* every log range holds its data, both ends powers of ten */
	for (double lo = 1e-4; lo < 1e6; lo *= 3.1) {
		axis_choose(lo, lo * 500, true, &ax);
		assert_true(ax.log);
		assert_true(ax.lo < lo && ax.lo * 10 >= lo * (1 - 1e-12));
		assert_true(ax.hi >= lo * 500 && ax.hi < lo * 5000 * (1 + 1e-12));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decades_make_a_log_axis),
		cmocka_unit_test(test_the_rule_edge),
		cmocka_unit_test(test_close_values_stay_linear),
		cmocka_unit_test(test_edge_cases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
