// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: collector/keyset.c: a set of non-zero keys with backward-shift
 * deletion, checked against a plain array through a long random run of
 * adds and deletes (which is what would find a hole left in a probe
 * chain), and its edges: key 0, deleting what is not there, growth.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <linux/types.h>
#include <cmocka.h>

#include "collector/keyset.h"

static void test_basics(void **state)
{
	struct keyset s = { 0 };

	(void)state;
	assert_false(keyset_has(&s, 7));
	keyset_del(&s, 7);			/* empty: nothing to do */
	assert_int_not_equal(keyset_add(&s, 0), 0);
	assert_false(keyset_has(&s, 0));
	assert_int_equal(keyset_add(&s, 7), 0);
	assert_int_equal(keyset_add(&s, 7), 0);	/* once */
	assert_int_equal(s.m.n, 1);
	assert_true(keyset_has(&s, 7));
	keyset_del(&s, 8);
	assert_int_equal(s.m.n, 1);
	keyset_del(&s, 7);
	assert_false(keyset_has(&s, 7));
	assert_int_equal(s.m.n, 0);
	keyset_free(&s);
	assert_false(keyset_has(&s, 7));
	assert_int_equal(keyset_add(&s, 9), 0);	/* usable after a free */
	assert_true(keyset_has(&s, 9));
	keyset_free(&s);
}

/*
 * Keys that crowd a few slots (cgroup ids are close together, kernel keys
 * differ in a few bits), added and deleted at random, against a
 * reference: every key in or out as the reference says, after each step.
 */
static void test_random_against_reference(void **state)
{
	enum { KEYS = 512, STEPS = 20000 };
	static __u64 keys[KEYS];
	static int in[KEYS];
	struct keyset s = { 0 };
	size_t n = 0;
	int i, k, step;

	(void)state;
	srand(15);
	for (i = 0; i < KEYS; i++)
		/* odd: cgroup ids in a row; even: kernel keys, a CPU number at bit 40 */
		keys[i] = i % 2 ? 4096 + (__u64)i : (1ULL << 62) | ((__u64)(i % 8) << 40) | (__u64)(i / 8);
	for (step = 0; step < STEPS; step++) {
		k = rand() % KEYS;
		if (rand() % 3) {
			assert_int_equal(keyset_add(&s, keys[k]), 0);
			n += !in[k];
			in[k] = 1;
		} else {
			keyset_del(&s, keys[k]);
			n -= in[k];
			in[k] = 0;
		}
		assert_int_equal(s.m.n, n);
		if (step % 97 == 0)
			for (i = 0; i < KEYS; i++)
				assert_int_equal(keyset_has(&s, keys[i]), in[i]);
	}
	for (i = 0; i < KEYS; i++)
		assert_int_equal(keyset_has(&s, keys[i]), in[i]);
	/* at most half full: the probing always ends */
	assert_true(s.m.n * 2 <= s.m.cap);
	keyset_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basics),
		cmocka_unit_test(test_random_against_reference),
	};

	return cmocka_run_group_tests_name("collector_keyset", tests, NULL, NULL);
}
