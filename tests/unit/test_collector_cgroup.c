// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: collector/kernel/cgroup.c: the parent of a cgroup path (the compat
 * object's cgroup_mkdir records carry no parent id: the collector finds
 * it from the path), and a cgroup's id from its directory, which is what
 * bpf_get_current_cgroup_id() returns.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "collector/kernel/cgroup.h"

static void expect_parent(const char *path, const char *want)
{
	char out[64];

	memset(out, 'x', sizeof(out));
	if (!want) {
		assert_int_equal(cgroup_parent_path(path, out, sizeof(out)), -1);
		return;
	}
	assert_int_equal(cgroup_parent_path(path, out, sizeof(out)), 0);
	assert_string_equal(out, want);
}

static void test_parent_path(void **state)
{
	(void)state;
	expect_parent("/a/b", "/a");
	expect_parent("/a/b/c", "/a/b");
	expect_parent("/a", "/");
	expect_parent("/a/", "/");
	expect_parent("/a/b//", "/a");
	expect_parent("/a//b", "/a");
	expect_parent("/docker/3f2a", "/docker");
	expect_parent("/", NULL);
	expect_parent("//", NULL);
	expect_parent("", NULL);
	expect_parent("noslash", NULL);
}

static void test_parent_path_too_long(void **state)
{
	char out[5];	/* "/abc" and its NUL */

	(void)state;
	assert_int_equal(cgroup_parent_path("/abcd/e", out, sizeof(out)), -1);
	assert_int_equal(cgroup_parent_path("/abc/e", out, sizeof(out)), 0);
	assert_string_equal(out, "/abc");
}

/* The id of a cgroup2 directory: on 5.5+ also its inode number. */
static void test_id_of(void **state)
{
	unsigned long long id = 0;
	char cg2[4096];
	struct stat st;

	(void)state;
	assert_true(cgroup_id_of("/nonexistent/cgroup", &id) < 0);
	if (cgroup2_mount(cg2, sizeof(cg2)) < 0 || stat(cg2, &st) < 0)
		skip();
	assert_int_equal(cgroup_id_of(cg2, &id), 0);
	assert_true(id != 0);
	/* the low 32 bits are the inode number before 5.5, all 64 after */
	assert_int_equal(id & 0xffffffffULL, st.st_ino & 0xffffffffULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parent_path),
		cmocka_unit_test(test_parent_path_too_long),
		cmocka_unit_test(test_id_of),
	};

	return cmocka_run_group_tests_name("collector_cgroup", tests, NULL, NULL);
}
