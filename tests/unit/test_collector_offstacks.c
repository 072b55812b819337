// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: collector/profile/offstacks.c, the off-CPU stacks held until
 * their sched rows: a row takes the stack of its own interval (tid and
 * switch-out time) once; a task blocking where it last did names that
 * stack again; a task whose slot another took names none.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "collector/profile/offstacks.h"

static void test_take_once(void **state)
{
	struct offstacks *o = calloc(1, sizeof(*o));

	(void)state;
	assert_non_null(o);
	offstacks_put(o, 10, 1000, 7);
	/* another interval's row: not this stack */
	assert_int_equal(offstacks_take(o, 10, 999), 0);
	assert_int_equal(offstacks_take(o, 11, 1000), 0);
	assert_int_equal(offstacks_take(o, 10, 1000), 7);
	assert_int_equal(offstacks_take(o, 10, 1000), 0);
	free(o);
}

static void test_same_place(void **state)
{
	struct offstacks *o = calloc(1, sizeof(*o));

	(void)state;
	assert_non_null(o);
	/* nothing kept yet: no stack */
	assert_int_equal(offstacks_same(o, 10, 500), 0);
	assert_int_equal(offstacks_take(o, 10, 500), 0);
	offstacks_put(o, 10, 1000, 7);
	assert_int_equal(offstacks_take(o, 10, 1000), 7);
	/* it blocks there again, twice */
	assert_int_equal(offstacks_same(o, 10, 2000), 1);
	assert_int_equal(offstacks_take(o, 10, 2000), 7);
	assert_int_equal(offstacks_same(o, 10, 3000), 1);
	assert_int_equal(offstacks_take(o, 10, 3000), 7);
	/* elsewhere: a new stack */
	offstacks_put(o, 10, 4000, 9);
	assert_int_equal(offstacks_take(o, 10, 4000), 9);
	/* a new file: nothing kept, the task names none until it blocks elsewhere */
	memset(o, 0, sizeof(*o));
	assert_int_equal(offstacks_same(o, 10, 5000), 0);
	assert_int_equal(offstacks_take(o, 10, 5000), 0);
	free(o);
}

/* Two tids of one slot: the later one's stack; the earlier names none. */
static void test_collision(void **state)
{
	struct offstacks *o = calloc(1, sizeof(*o));
	uint32_t a = 10, b;

	(void)state;
	assert_non_null(o);
	offstacks_put(o, a, 1000, 7);
	for (b = a + 1; b < 1000000; b++) {
		offstacks_put(o, b, 1100, 8);
		if (!offstacks_take(o, a, 1000))
			break;	/* b took a's slot */
		offstacks_put(o, a, 1000, 7);
	}
	assert_true(b < 1000000);
	assert_int_equal(offstacks_same(o, a, 1200), 0);
	assert_int_equal(offstacks_take(o, b, 1100), 8);
	free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_take_once),
		cmocka_unit_test(test_same_place),
		cmocka_unit_test(test_collision),
	};

	return cmocka_run_group_tests_name("collector_offstacks", tests, NULL, NULL);
}
