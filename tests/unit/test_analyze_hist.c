// SPDX-License-Identifier: BSD-2-Clause
/* cmocka: histogram bucket edges and labels (analyze/stats/hist.c), human units
 * and duration parsing (analyze/units.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analyze/stats/hist.h"
#include "analyze/units.h"

static void test_log2_index(void **state)
{
	(void)state;
	assert_int_equal(hist_log2_index(-5), 0);
	assert_int_equal(hist_log2_index(0), 1);
	assert_int_equal(hist_log2_index(1), 2);
	assert_int_equal(hist_log2_index(2), 3);	/* [2, 4) */
	assert_int_equal(hist_log2_index(3), 3);
	assert_int_equal(hist_log2_index(4), 4);
	assert_int_equal(hist_log2_index(1023), 11);	/* [512, 1K) */
	assert_int_equal(hist_log2_index(1024), 12);	/* [1K, 2K) */
	assert_int_equal(hist_log2_index((1LL << 20) - 1), 21);
	assert_int_equal(hist_log2_index(1LL << 20), 22);
	assert_int_equal(hist_log2_index(INT64_MAX), 64);
}

static void test_log2_labels(void **state)
{
	char b[48];

	(void)state;
	hist_log2_label(0, b);
	assert_string_equal(b, "(..., 0)");
	hist_log2_label(1, b);
	assert_string_equal(b, "[0]");
	hist_log2_label(2, b);
	assert_string_equal(b, "[1]");
	hist_log2_label(3, b);
	assert_string_equal(b, "[2, 4)");
	hist_log2_label(11, b);
	assert_string_equal(b, "[512, 1K)");
	hist_log2_label(12, b);
	assert_string_equal(b, "[1K, 2K)");
	hist_log2_label(22, b);
	assert_string_equal(b, "[1M, 2M)");
	hist_log2_label(31, b);
	assert_string_equal(b, "[512M, 1G)");
	hist_log2_label(33, b);
	assert_string_equal(b, "[2G, 4G)");
}

static void test_build_log2(void **state)
{
	/* 0, 1, 3 (= 2^2 - 1), 4 (= 2^2), 1M: buckets [0] [1] [2,4) [4,8) ...
	 * [1M,2M), the empty ones between kept, nothing after trimmed */
	int64_t v[] = { 0, 1, 3, 4, 1 << 20 };
	struct hist_bucket *b;
	size_t nb;

	(void)state;
	assert_int_equal(hist_build(v, 5, HIST_LOG2, 0, &b, &nb), 0);
	assert_int_equal(nb, 22);
	assert_string_equal(b[0].label, "[0]");
	assert_int_equal(b[0].count, 1);
	assert_string_equal(b[1].label, "[1]");
	assert_int_equal(b[2].lo, 2);
	assert_int_equal(b[2].hi, 4);
	assert_int_equal(b[2].count, 1);
	assert_int_equal(b[3].lo, 4);
	assert_int_equal(b[3].count, 1);
	assert_int_equal(b[4].count, 0);
	assert_string_equal(b[21].label, "[1M, 2M)");
	assert_int_equal(b[21].count, 1);
	free(b);
	/* a negative value gets its own bucket first */
	v[0] = -3;
	assert_int_equal(hist_build(v, 2, HIST_LOG2, 0, &b, &nb), 0);
	assert_int_equal(nb, 3);
	assert_string_equal(b[0].label, "(..., 0)");
	assert_int_equal(b[1].count, 0);	/* [0] kept: between two non-empty */
	free(b);
	assert_int_equal(hist_build(v, 0, HIST_LOG2, 0, &b, &nb), 0);
	assert_int_equal(nb, 0);
}

static void test_build_linear(void **state)
{
	/* step 1000: 999 -> [0,1000), 1000 -> [1000,2000), 4500 -> [4000,5000) */
	int64_t v[] = { 999, 1000, 1999, 4500 };
	int64_t big[] = { 0, 1000000000 };
	struct hist_bucket *b;
	size_t nb;

	(void)state;
	assert_int_equal(hist_build(v, 4, HIST_LINEAR, 1000, &b, &nb), 0);
	assert_int_equal(nb, 5);
	assert_int_equal(b[0].lo, 0);
	assert_int_equal(b[0].hi, 1000);
	assert_int_equal(b[0].count, 1);
	assert_int_equal(b[1].count, 2);
	assert_int_equal(b[2].count, 0);
	assert_int_equal(b[4].lo, 4000);
	assert_string_equal(b[4].label, "[4000, 5000)");
	free(b);
	/* bpftrace's lhist labels: K when a multiple of 1024 */
	v[0] = 2048;
	assert_int_equal(hist_build(v, 1, HIST_LINEAR, 1024, &b, &nb), 0);
	assert_string_equal(b[0].label, "[2K, 3K)");
	free(b);
	/* too many buckets is an error, not a huge allocation */
	assert_int_equal(hist_build(big, 2, HIST_LINEAR, 1, &b, &nb), -1);
}

static void test_print_shape(void **state)
{
	int64_t v[] = { 1 << 20, 1 << 20, (1 << 20) + 5, 3 << 20 };
	struct hist_bucket *b;
	size_t nb;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	(void)state;
	assert_non_null(f);
	assert_int_equal(hist_build(v, 4, HIST_LOG2, 0, &b, &nb), 0);
	assert_int_equal(hist_print(f, b, nb), 0);
	fclose(f);
	/* 3 of max 3 -> 52 '@'; 1 of 3 -> trunc(17.33) = 17 */
	assert_string_equal(out,
		"[1M, 2M)               3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[2M, 4M)               1 |@@@@@@@@@@@@@@@@@                                   |\n");
	free(out);
	free(b);
}

static void test_units_format(void **state)
{
	static const struct { int64_t ns; const char *s; } cases[] = {
		{ 0, "0ns" }, { 950, "950ns" }, { 999, "999ns" }, { 1000, "1.000us" },
		{ 12340, "12.34us" }, { 12345, "12.35us" }, { 99994, "99.99us" },
		{ 99995, "100.0us" }, { 999949, "999.9us" }, { 999950, "1.000ms" },
		{ 70950000, "70.95ms" }, { 2240000000LL, "2.240s" },
		{ 999999999, "1.000s" }, { 1234567890123LL, "1235s" },
		{ -1500, "-1.500us" }, { INT64_MIN, "-9223372037s" },
	};
	char b[UNITS_BUFSZ];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(units_format(cases[i].ns, b), cases[i].s);
}

static void test_units_parse(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(units_parse("1ms", &v), 0);
	assert_int_equal(v, 1000000);
	assert_int_equal(units_parse("500us", &v), 0);
	assert_int_equal(v, 500000);
	assert_int_equal(units_parse("2s", &v), 0);
	assert_int_equal(v, 2000000000);
	assert_int_equal(units_parse("250", &v), 0);
	assert_int_equal(v, 250);
	assert_int_equal(units_parse("250ns", &v), 0);
	assert_int_equal(v, 250);
	assert_int_equal(units_parse("1.5ms", &v), 0);
	assert_int_equal(v, 1500000);
	assert_int_equal(units_parse("", &v), -1);
	assert_int_equal(units_parse("ms", &v), -1);
	assert_int_equal(units_parse("-1ms", &v), -1);
	assert_int_equal(units_parse("1 ms", &v), -1);
	assert_int_equal(units_parse("1h", &v), -1);
	assert_int_equal(units_parse("99999999999999999999s", &v), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log2_index),
		cmocka_unit_test(test_log2_labels),
		cmocka_unit_test(test_build_log2),
		cmocka_unit_test(test_build_linear),
		cmocka_unit_test(test_print_shape),
		cmocka_unit_test(test_units_format),
		cmocka_unit_test(test_units_parse),
	};

	return cmocka_run_group_tests_name("analyze_hist", tests, NULL, NULL);
}
