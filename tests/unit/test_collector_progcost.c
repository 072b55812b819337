// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: collector/kernel/progcost.c: the table of the BPF programs' run
 * times said at the collector's end: the costliest first, ns a run
 * (integer division), total ms, programs that never ran left out, the
 * sum of all; and an object's programs read as none where there is none.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "collector/kernel/progcost.h"

static char *format(struct progcost_prog *v, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	progcost_format(f, v, n);
	fclose(f);
	return buf;
}

static void test_table(void **state)
{
	struct progcost_prog v[] = {
		{ "bt_sys_exit", 1000, 67000 },
		{ "bt_span", 0, 0 },
		{ "bt_sys_enter", 1000, 97500 },
		{ "bt_exec", 4, 87704 },
	};
	char *t;

	(void)state;
	t = format(v, 4);
	assert_string_equal(t,
		"collector: BPF program                      runs   ns a run     total ms\n"
		"collector: bt_sys_enter                     1000         97        0.098\n"
		"collector: bt_exec                             4      21926        0.088\n"
		"collector: bt_sys_exit                      1000         67        0.067\n"
		"collector: all                              2004        125        0.252\n");
	free(t);
	/* sorted in place, the one that never ran last */
	assert_string_equal(v[0].name, "bt_sys_enter");
	assert_string_equal(v[3].name, "bt_span");
}

/* Nothing ran (statistics off): the header and a zero sum, no division by 0. */
static void test_none_ran(void **state)
{
	struct progcost_prog v[] = { { "bt_sys_enter", 0, 0 } };
	char *t;

	(void)state;
	t = format(v, 1);
	assert_string_equal(t,
		"collector: BPF program                      runs   ns a run     total ms\n"
		"collector: all                                 0          0        0.000\n");
	free(t);
}

static void test_no_object(void **state)
{
	struct progcost_prog v[2];

	(void)state;
	assert_int_equal(progcost_read(NULL, v, 2), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_none_ran),
		cmocka_unit_test(test_no_object),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
