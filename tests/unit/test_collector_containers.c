// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: collector/containers.c: the table of containers. Finding after
 * removals (tombstones), growth past half full, names unique per run, the
 * last entry filling a removed one's place.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "collector/containers.h"

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

/* Ids that collide in the index: a removed one leaves a tombstone, not a hole. */
static void test_tombstones(void **state)
{
	struct container_table t = { 0 };
	unsigned long long ids[3000];
	size_t i, n = 0, slot0 = 0;
	struct container *k;

	(void)state;
	/* force a 64-slot index, then find three ids of one slot */
	k = containers_add(&t, 1, NULL, "x");
	assert_non_null(k);
	for (i = 2; n < 3 && i < 100000; i++) {
		size_t s = (size_t)((i * 0x9E3779B97F4A7C15ULL) >> 32) & (t.nindex - 1);

		if (n == 0)
			slot0 = s;
		if (s == slot0)
			ids[n++] = i;
	}
	assert_int_equal(n, 3);
	for (i = 0; i < 3; i++)
		assert_non_null(containers_add(&t, ids[i], NULL, "c"));
	containers_remove(&t, containers_find(&t, ids[1]));
	t.last = NULL;
	/* ids[2] lies past the removed ids[1] in the probe sequence */
	assert_non_null(containers_find(&t, ids[2]));
	assert_int_equal(containers_find(&t, ids[2])->cgid, ids[2]);
	assert_null(containers_find(&t, ids[1]));
	/* the tombstone is reused */
	assert_non_null(containers_add(&t, ids[1], NULL, "again"));
	assert_string_equal(containers_find(&t, ids[1])->name, "again");
	containers_free(&t);
}

static void test_growth(void **state)
{
	struct container_table t = { 0 };
	unsigned long long i;

	(void)state;
	for (i = 1; i <= 2000; i++) {
		assert_non_null(containers_add(&t, i * 7919, NULL, "c"));
		assert_true((t.index_used) * 2 <= t.nindex);	/* at most half full */
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
	/* adds after many removals: tombstones count, the index is rebuilt */
	for (i = 3000; i < 5000; i++)
		assert_non_null(containers_add(&t, i * 7919, NULL, "d"));
	assert_true(t.index_used * 2 <= t.nindex);
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
	/* the name is kept past the container: a later boot is another name */
	containers_free(&t);
	containers_unique_name(&t, "web", out, sizeof(out));
	assert_string_equal(out, "web");
	containers_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_find_remove),
		cmocka_unit_test(test_tombstones),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_unique_names),
	};

	return cmocka_run_group_tests_name("collector_containers", tests, NULL, NULL);
}
