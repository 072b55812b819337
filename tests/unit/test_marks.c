// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: collector/kernel/marks.c: --mark/--start specs (good and bad), the
 * messages of resolving them in binaries, and what the legacy object
 * refuses. What is found in the binaries: test_collector_elf.c.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/unit/built.h"
#include "collector/kernel/marks.h"

static char bootsvc[PATH_MAX], usdt_sites[PATH_MAX], usdt_sema[PATH_MAX];

static int setup(void **state)
{
	(void)state;
	if (find_built("samples/bootsvc", bootsvc) || find_built("tests/usdt_sites", usdt_sites) ||
	    find_built("tests/usdt_sema", usdt_sema))
		return -1;
	return 0;
}

static const struct mark *add_ok(struct marks *m, const char *spec, bool start)
{
	char err[512] = "";

	if (marks_add(m, spec, start, err, sizeof(err)) != 0)
		fail_msg("'%s' refused: %s", spec, err);
	return marks_get(m, marks_count(m) - 1);
}

static void test_parse_uprobe(void **state)
{
	struct marks *m = marks__new();
	const struct mark *k;

	(void)state;
	k = add_ok(m, "uprobe:/usr/sbin/nginx:ngx_init_cycle", false);
	assert_int_equal(k->kind, MARK_UPROBE);
	assert_false(k->start);
	assert_string_equal(k->binary, "/usr/sbin/nginx");
	assert_string_equal(k->symbol, "ngx_init_cycle");
	assert_string_equal(k->label, "ngx_init_cycle");	/* the default */
	assert_null(k->provider);

	k = add_ok(m, "uretprobe:libc:malloc=alloc", false);
	assert_int_equal(k->kind, MARK_URETPROBE);
	assert_string_equal(k->binary, "libc");
	assert_string_equal(k->symbol, "malloc");
	assert_string_equal(k->label, "alloc");

	/* a path may hold ':' and '=': the last fields are the names */
	k = add_ok(m, "uprobe:/opt/a:b=c/bin:main=boot.main-1", false);
	assert_string_equal(k->binary, "/opt/a:b=c/bin");
	assert_string_equal(k->symbol, "main");
	assert_string_equal(k->label, "boot.main-1");

	/* versioned symbols, as libbpf takes them */
	k = add_ok(m, "uprobe:libc:malloc@GLIBC_2.2.5=m", false);
	assert_string_equal(k->symbol, "malloc@GLIBC_2.2.5");
	assert_int_equal(marks_count(m), 4);
	marks__free(m);
}

static void test_parse_usdt(void **state)
{
	struct marks *m = marks__new();
	const struct mark *k;

	(void)state;
	k = add_ok(m, "usdt:bootsvc:bootsvc:config_loaded", false);
	assert_int_equal(k->kind, MARK_USDT);
	assert_string_equal(k->binary, "bootsvc");
	assert_string_equal(k->provider, "bootsvc");
	assert_string_equal(k->name, "config_loaded");
	assert_string_equal(k->label, "config_loaded");
	assert_null(k->symbol);

	k = add_ok(m, "usdt:/x:y/bin:prov:probe=lbl", false);
	assert_string_equal(k->binary, "/x:y/bin");
	assert_string_equal(k->provider, "prov");
	assert_string_equal(k->name, "probe");
	assert_string_equal(k->label, "lbl");
	marks__free(m);
}

static void test_parse_bad(void **state)
{
	static const char *const bad[] = {
		"",
		"uprobe",
		"kprobe:/bin/true:main",		/* unknown kind */
		"uprobe:/bin/true",			/* no symbol */
		"uprobe::main",				/* no binary */
		"uprobe:/bin/true:",			/* empty symbol */
		"uprobe:/bin/true:=x",			/* empty symbol, a label */
		"uretprobe:/bin/true",
		"usdt:/bin/true:name",			/* no provider */
		"usdt:/bin/true::name",			/* empty provider */
		"usdt:/bin/true:prov:",			/* empty name */
		"usdt::prov:name",			/* no binary */
		"uprobe:/bin/true:main=",		/* empty label */
		"uprobe:/bin/true:main=a b",		/* a blank in the label */
		"uprobe:/bin/true:main=x+1",		/* '+' would break --until mark:X+D */
		"uprobe:/bin/true:main=tab\there",
		"uprobe:/bin/true:ma in",		/* a blank in the symbol */
		"UPROBE:/bin/true:main",
		NULL,
	};
	struct marks *m = marks__new();
	char err[512];
	size_t i;

	(void)state;
	for (i = 0; bad[i]; i++) {
		err[0] = '\0';
		if (marks_add(m, bad[i], false, err, sizeof(err)) != -1)
			fail_msg("'%s' accepted", bad[i]);
		assert_true(strncmp(err, "--mark", 6) == 0);
	}
	assert_int_equal(marks_count(m), 0);
	err[0] = '\0';
	assert_int_equal(marks_add(m, "nope", true, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--start 'nope'"));
	assert_non_null(strstr(err, "uprobe:BINARY:SYMBOL"));
	marks__free(m);
}

static void test_start_and_labels(void **state)
{
	struct marks *m = marks__new();

	(void)state;
	assert_false(marks_have_start(m));
	add_ok(m, "uprobe:/bin/true:main=ready", false);
	assert_false(marks_have_start(m));
	add_ok(m, "usdt:/bin/true:p:n=ready2", true);
	assert_true(marks_have_start(m));
	assert_true(marks_get(m, 1)->start);
	assert_non_null(marks_find_label(m, "ready"));
	/* a --start probe makes no mark rows: --until mark: cannot wait for it */
	assert_null(marks_find_label(m, "ready2"));
	assert_null(marks_find_label(m, "nope"));
	assert_null(marks_get(m, 2));
	assert_string_equal(marks_start_spec(m), "");	/* before marks_resolve */
	marks__free(m);
	marks__free(NULL);
	assert_int_equal(marks_count(NULL), 0);
}

static void test_resolve_messages(void **state)
{
	struct marks *m;
	char spec[PATH_MAX + 64], err[4096];

	(void)state;
	m = marks__new();
	snprintf(spec, sizeof(spec), "uprobe:%s:bootsvc_ready=ready", bootsvc);
	add_ok(m, spec, false);
	snprintf(spec, sizeof(spec), "usdt:%s:bootsvc:config_loaded", bootsvc);
	add_ok(m, spec, true);
	assert_int_equal(marks_resolve(m, err, sizeof(err)), 0);
	assert_true(marks_get(m, 0)->path[0] == '/');
	assert_non_null(strstr(marks_get(m, 0)->spec, "uprobe:/"));
	assert_non_null(strstr(marks_get(m, 0)->spec, "/samples/bootsvc:bootsvc_ready"));
	assert_non_null(strstr(marks_start_spec(m), ":bootsvc:config_loaded"));
	marks__free(m);

	m = marks__new();
	add_ok(m, "uprobe:boottrace-no-such-binary:f", false);
	assert_int_equal(marks_resolve(m, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no binary 'boottrace-no-such-binary'"));
	assert_non_null(strstr(err, "PATH"));
	marks__free(m);

	m = marks__new();
	snprintf(spec, sizeof(spec), "uprobe:%s:bootsvc_nope", bootsvc);
	add_ok(m, spec, false);
	assert_int_equal(marks_resolve(m, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no function 'bootsvc_nope'"));
	assert_null(strstr(err, "stripped"));
	marks__free(m);

	m = marks__new();
	snprintf(spec, sizeof(spec), "usdt:%s:bootsvc:nope", bootsvc);
	add_ok(m, spec, false);
	assert_int_equal(marks_resolve(m, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no USDT probe bootsvc:nope"));
	assert_non_null(strstr(err, "bootsvc:config_loaded"));
	assert_non_null(strstr(err, "bootsvc:launch"));
	marks__free(m);

	m = marks__new();
	add_ok(m, "usdt:/proc/self/exe:p:n", false);
	assert_int_equal(marks_resolve(m, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "has no USDT probes"));
	marks__free(m);
}

static void test_legacy_check(void **state)
{
	struct marks *m;
	char spec[PATH_MAX + 64], err[4096];
	int i;

	(void)state;
	/* eight probes: one copy of the mark program each */
	m = marks__new();
	for (i = 0; i < 8; i++) {
		snprintf(spec, sizeof(spec), "uprobe:%s:bootsvc_tick=t%d", bootsvc, i);
		add_ok(m, spec, false);
	}
	assert_int_equal(marks_resolve(m, err, sizeof(err)), 0);
	assert_int_equal(marks_perf_check(m, "legacy", err, sizeof(err)), 0);
	/* a ninth: a usage error naming the limit */
	snprintf(spec, sizeof(spec), "usdt:%s:bt:site", usdt_sites);
	add_ok(m, spec, true);
	assert_int_equal(marks_resolve(m, err, sizeof(err)), 0);
	assert_int_equal(marks_perf_check(m, "compat", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "9 --mark and --start probes"));
	assert_non_null(strstr(err, "the compat BPF object takes at most 8"));
	marks__free(m);

	/* USDT without a semaphore (at two sites) is fine; with one it is refused */
	m = marks__new();
	snprintf(spec, sizeof(spec), "usdt:%s:bt:site", usdt_sites);
	add_ok(m, spec, false);
	assert_int_equal(marks_resolve(m, err, sizeof(err)), 0);
	assert_int_equal(marks_perf_check(m, "compat", err, sizeof(err)), 0);
	snprintf(spec, sizeof(spec), "usdt:%s:bt:sema", usdt_sema);
	add_ok(m, spec, false);
	assert_int_equal(marks_resolve(m, err, sizeof(err)), 0);
	assert_int_equal(marks_perf_check(m, "compat", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--mark usdt:"));
	assert_non_null(strstr(err, "has a semaphore"));
	assert_non_null(strstr(err, "the compat BPF object attaches through uprobe_events"));
	assert_non_null(strstr(err, "--object modern"));
	marks__free(m);
}

static void test_uprobe_sysfs(void **state)
{
	(void)state;
	assert_false(marks_uprobes_supported("/nonexistent/uprobe"));
	assert_true(marks_uprobes_supported("/"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_uprobe),
		cmocka_unit_test(test_parse_usdt),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_start_and_labels),
		cmocka_unit_test(test_resolve_messages),
		cmocka_unit_test(test_uprobe_sysfs),
		cmocka_unit_test(test_legacy_check),
	};

	return cmocka_run_group_tests_name("collector_marks", tests, setup, NULL);
}
