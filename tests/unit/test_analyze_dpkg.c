// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: analyze/read/dpkg.c on a database of its own: a file's package
 * from the .list files (the :ARCH suffix dropped), a merged-/usr path
 * found under its listed /lib form, a path no package lists, and the
 * debug packages' names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "analyze/read/dpkg.h"

static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_owners(void **state)
{
	char dir[] = "/tmp/bt-dpkg.XXXXXX", cmd[600];
	const char *paths[] = { "/usr/lib/x86_64-linux-gnu/libfoo.so.1", "/usr/bin/bar", "/nope",
				"/usr/lib/x86_64-linux-gnu" };
	char *pkgs[4];

	(void)state;
	assert_non_null(mkdtemp(dir));
	put(dir, "libfoo1:amd64.list", "/.\n/lib\n/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu/libfoo.so.1\n");
	put(dir, "bar.list", "/usr/bin/bar\n");
	put(dir, "bar.md5sums", "/nope\n");	/* not a list */
	assert_int_equal(dpkg_owners(dir, paths, 4, pkgs), 0);
	assert_string_equal(pkgs[0], "libfoo1");
	assert_string_equal(pkgs[1], "bar");
	assert_null(pkgs[2]);
	assert_string_equal(pkgs[3], "libfoo1");	/* a directory is listed too */
	for (int i = 0; i < 4; i++)
		free(pkgs[i]);
	/* no database: nothing known */
	assert_int_equal(dpkg_owners("/nonexistent", paths, 2, pkgs), 0);
	assert_null(pkgs[0]);
	assert_null(pkgs[1]);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_debug_package(void **state)
{
	char out[64];

	(void)state;
	dpkg_debug_package("libruby3.1", out, sizeof(out));
	assert_string_equal(out, "libruby3.1-dbgsym");
	dpkg_debug_package("libc6", out, sizeof(out));
	assert_string_equal(out, "libc6-dbg");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_owners),
		cmocka_unit_test(test_debug_package),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
