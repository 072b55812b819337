// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: collector/run/containers.c: the table of containers. Finding after
 * removals of ids that collide, growth past half full, names unique per
 * run, the last entry filling a removed one's place.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "collector/run/containers.h"

static void test_add_find_remove(void **state)
{
	struct container_table t = { 0 };
	struct container *a, *b, *n;

	(void)state;
	assert_null(containers_find(&t, 1));
	a = containers_add(&t, 100, NULL, "a");
	b = containers_add(&t, 200, NULL, "b");
	n = containers_add(&t, 300, a, NULL);	/* nested in a */
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(n);
	assert_ptr_equal(a->top, a);
	assert_ptr_equal(n->top, a);
	assert_string_equal(n->name, "");
	assert_ptr_equal(containers_find(&t, 200), b);
	assert_ptr_equal(containers_find(&t, 300), n);
	assert_int_equal(containers_count_top(&t), 2);
	assert_null(containers_find(&t, 400));
	containers_remove(&t, a);
	assert_null(containers_find(&t, 100));
	/* the last one (n) filled a's place: everything else still found */
	assert_int_equal(t.n, 2);
	assert_ptr_equal(containers_find(&t, 300), n);
	assert_ptr_equal(containers_find(&t, 200), b);
	containers_free(&t);
	assert_int_equal(t.n, 0);
	assert_null(containers_find(&t, 200));
}

/*
 * Ids that share a home slot: removing one keeps the others found (the
 * index shifts back, no tombstones), and the freed place is taken again.
 */
static void test_collisions(void **state)
{
	struct container_table t = { 0 };
	unsigned long long ids[3];
	size_t n = 0, home0 = 0;
	unsigned long long i;

	(void)state;
	assert_non_null(containers_add(&t, 1, NULL, "x"));	/* a 64-slot index */
	for (i = 2; n < 3 && i < 1000000; i++) {
		size_t home = (size_t)((i * 0x9e3779b97f4a7c15ULL) >> 20) & (t.index.cap - 1);

		if (n == 0)
			home0 = home;
		if (home == home0)
			ids[n++] = i;
	}
	assert_int_equal(n, 3);
	for (i = 0; i < 3; i++)
		assert_non_null(containers_add(&t, ids[i], NULL, "c"));
	containers_remove(&t, containers_find(&t, ids[0]));
	t.last = NULL;
	assert_null(containers_find(&t, ids[0]));
	assert_int_equal(containers_find(&t, ids[1])->cgid, ids[1]);
	t.last = NULL;
	assert_int_equal(containers_find(&t, ids[2])->cgid, ids[2]);
	assert_non_null(containers_add(&t, ids[0], NULL, "again"));
	t.last = NULL;
	assert_string_equal(containers_find(&t, ids[0])->name, "again");
	containers_free(&t);
}

static void test_growth(void **state)
{
	struct container_table t = { 0 };
	unsigned long long i;

	(void)state;
	for (i = 1; i <= 2000; i++) {
		assert_non_null(containers_add(&t, i * 7919, NULL, "c"));
		assert_true(t.index.n * 2 <= t.index.cap);	/* at most half full */
	}
	for (i = 1; i <= 2000; i += 2)
		containers_remove(&t, containers_find(&t, i * 7919));
	for (i = 1; i <= 2000; i++) {
		struct container *k = containers_find(&t, i * 7919);

		if (i % 2)
			assert_null(k);
		else
			assert_true(k && k->cgid == i * 7919);
	}
	/* adds after many removals */
	for (i = 3000; i < 5000; i++)
		assert_non_null(containers_add(&t, i * 7919, NULL, "d"));
	assert_true(t.index.n * 2 <= t.index.cap);
	assert_int_equal(t.index.n, t.n);
	assert_int_equal(t.n, 1000 + 2000);
	containers_free(&t);
}

static void test_unique_names(void **state)
{
	struct container_table t = { 0 };
	char out[64];

	(void)state;
	containers_unique_name(&t, "web", out, sizeof(out));
	assert_string_equal(out, "web");
	containers_unique_name(&t, "db", out, sizeof(out));
	assert_string_equal(out, "db");
	containers_unique_name(&t, "web", out, sizeof(out));
	assert_string_equal(out, "web#2");
	containers_unique_name(&t, "web", out, sizeof(out));
	assert_string_equal(out, "web#3");
	containers_unique_name(&t, "db", out, sizeof(out));
	assert_string_equal(out, "db#2");
	/* a cgroup of that name gets a name of its own, and so does the next "web" */
	containers_unique_name(&t, "web#4", out, sizeof(out));
	assert_string_equal(out, "web#4");
	containers_unique_name(&t, "web#2", out, sizeof(out));
	assert_string_equal(out, "web#2#2");
	containers_unique_name(&t, "web", out, sizeof(out));
	assert_string_equal(out, "web#5");
	/*
	 * a new file of the run: the names of the containers in the table are
	 * kept (their rows go on in it), the others may be given again
	 */
	assert_non_null(containers_add(&t, 11, NULL, "web#3"));
	assert_non_null(containers_add(&t, 12, containers_find(&t, 11), "inner"));
	assert_int_equal(containers_forget_names(&t), 0);
	containers_unique_name(&t, "web#3", out, sizeof(out));
	assert_string_equal(out, "web#3#2");
	containers_unique_name(&t, "web", out, sizeof(out));
	assert_string_equal(out, "web");
	containers_unique_name(&t, "inner", out, sizeof(out));	/* a nested cgroup's name is no name */
	assert_string_equal(out, "inner");
	containers_unique_name(&t, "db", out, sizeof(out));
	assert_string_equal(out, "db");
	containers_free(&t);
	containers_unique_name(&t, "web", out, sizeof(out));
	assert_string_equal(out, "web");
	containers_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_find_remove),
		cmocka_unit_test(test_collisions),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_unique_names),
	};

	return cmocka_run_group_tests_name("collector_containers", tests, NULL, NULL);
}
