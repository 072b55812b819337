// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: collector/marks.c: --mark/--start specs (good and bad), finding
 * a binary on PATH and a library, the ELF checks (symbols, stripped
 * binaries, the USDT notes of samples/bootsvc), the file offsets the
 * legacy object's uprobe events are placed by (checked against the bytes
 * this very program runs), and what the legacy object refuses.
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

#include "collector/marks.h"

static char bootsvc[PATH_MAX], usdt_sites[PATH_MAX], usdt_sema[PATH_MAX], self[PATH_MAX];

static int find_built(const char *rel_to_output, char *out)
{
	const char *o = getenv("OUTPUT");
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "%s/%s", o && *o ? o : "build", rel_to_output);
	if (!realpath(rel, out)) {
		fprintf(stderr, "no %s: make all first\n", rel);
		return -1;
	}
	return 0;
}

static int setup(void **state)
{
	(void)state;
	if (find_built("samples/bootsvc", bootsvc) || find_built("tests/usdt_sites", usdt_sites) ||
	    find_built("tests/usdt_sema", usdt_sema) || !realpath("/proc/self/exe", self))
		return -1;
	return 0;
}

/* @n bytes of @path at @off into @buf; 0 or -1. */
static int file_bytes(const char *path, unsigned long long off, void *buf, size_t n)
{
	FILE *f = fopen(path, "rb");
	int ok;

	if (!f)
		return -1;
	ok = fseeko(f, (off_t)off, SEEK_SET) == 0 && fread(buf, 1, n, f) == n;
	fclose(f);
	return ok ? 0 : -1;
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

static void test_find_on_path(void **state)
{
	char dir[] = "/tmp/boottrace-marks.XXXXXX", prog[PATH_MAX], data[PATH_MAX], out[PATH_MAX];
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL, cwd[PATH_MAX];
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(prog, sizeof(prog), "%s/bt-marks-prog", dir);
	snprintf(data, sizeof(data), "%s/bt-marks-data", dir);
	assert_non_null(f = fopen(prog, "w"));
	fclose(f);
	assert_int_equal(chmod(prog, 0755), 0);
	assert_non_null(f = fopen(data, "w"));
	fclose(f);

	setenv("PATH", "/nonexistent:", 1);
	assert_int_equal(marks_find_binary("bt-marks-prog", out, sizeof(out)), -ENOENT);
	setenv("PATH", dir, 1);
	assert_int_equal(marks_find_binary("bt-marks-prog", out, sizeof(out)), 0);
	assert_string_equal(out, prog);
	/* not executable: not a program on PATH */
	assert_int_equal(marks_find_binary("bt-marks-data", out, sizeof(out)), -ENOENT);
	/* a path is taken as it is, made absolute */
	assert_int_equal(marks_find_binary(data, out, sizeof(out)), 0);
	assert_string_equal(out, data);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(marks_find_binary("./bt-marks-data", out, sizeof(out)), 0);
	assert_string_equal(out, data);
	assert_int_equal(marks_find_binary("/nonexistent/x", out, sizeof(out)), -ENOENT);
	assert_int_equal(marks_find_binary("", out, sizeof(out)), -ENOENT);
	/* the default PATH stands behind $PATH: sh is in /bin or /usr/bin */
	assert_int_equal(marks_find_binary("sh", out, sizeof(out)), 0);
	assert_true(out[0] == '/');

	assert_int_equal(chdir(cwd), 0);
	unlink(prog);
	unlink(data);
	rmdir(dir);
	if (old)
		setenv("PATH", old, 1);
	free(old);
}

static void test_find_library(void **state)
{
	char out[PATH_MAX];
	const char *base;

	(void)state;
	/* glibc: libc.so.6, wherever this distribution keeps it */
	assert_int_equal(marks_find_binary("libc", out, sizeof(out)), 0);
	base = strrchr(out, '/');
	assert_non_null(base);
	assert_string_equal(base, "/libc.so.6");
	assert_int_equal(marks_find_binary("libc.so.6", out, sizeof(out)), 0);
	assert_string_equal(strrchr(out, '/'), "/libc.so.6");
	assert_int_equal(marks_find_binary("libboottrace-none", out, sizeof(out)), -ENOENT);
}

static void test_usdt_notes(void **state)
{
	struct usdt_probe *v = NULL;
	size_t n = 0, i;
	int launch = 0, config = 0;

	(void)state;
	assert_int_equal(marks_usdt_list(bootsvc, &v, &n), 0);
	assert_int_equal(n, 2);
	for (i = 0; i < n; i++) {
		assert_string_equal(v[i].provider, "bootsvc");
		launch += !strcmp(v[i].name, "launch");
		config += !strcmp(v[i].name, "config_loaded");
	}
	assert_int_equal(launch, 1);
	assert_int_equal(config, 1);
	free(v);
	/* an ELF file without notes: none, not an error */
	assert_int_equal(marks_usdt_list("/proc/self/exe", &v, &n), 0);
	free(v);
	/* not ELF */
	assert_true(marks_usdt_list("/etc/hostname", &v, &n) < 0);
	assert_true(marks_usdt_list("/nonexistent", &v, &n) < 0);
}

static void test_symbols(void **state)
{
	char stripped[] = "/tmp/boottrace-stripped.XXXXXX", cmd[PATH_MAX * 2 + 64];
	bool symtab = false;
	size_t ndyn = 99;
	int fd;

	(void)state;
	assert_int_equal(marks_elf_has_function(bootsvc, "bootsvc_ready", &symtab, &ndyn), 1);
	assert_true(symtab);
	assert_int_equal(marks_elf_has_function(bootsvc, "bootsvc_tick", NULL, NULL), 1);
	assert_int_equal(marks_elf_has_function(bootsvc, "bootsvc_nope", NULL, NULL), 0);
	/* a variable is no function */
	assert_int_equal(marks_elf_has_function(bootsvc, "bootsvc_ticks", NULL, NULL), 0);
	/* a prefix is no match */
	assert_int_equal(marks_elf_has_function(bootsvc, "bootsvc_rea", NULL, NULL), 0);
	assert_true(marks_elf_has_function("/etc/hostname", "x", NULL, NULL) < 0);

	fd = mkstemp(stripped);
	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "objcopy --strip-all '%s' '%s' 2>/dev/null", bootsvc, stripped);
	if (system(cmd) != 0) {
		unlink(stripped);
		skip();
	}
	assert_int_equal(marks_elf_has_function(stripped, "bootsvc_ready", &symtab, &ndyn), 0);
	assert_false(symtab);
	unlink(stripped);
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

/* A function of this program, with a body of its own (not folded into another). */
__attribute__((noinline, used)) unsigned long test_marks_probe_target(unsigned long x)
{
	__asm__ volatile("" ::: "memory");
	return x * 2654435761UL + 0x5bd1e995UL;
}

static void test_func_offset(void **state)
{
	unsigned char in_file[32];
	unsigned long long off = 0, off2 = 0;

	(void)state;
	/*
	 * The offset is right if the file holds there the bytes this process
	 * runs at the function's address: the text is mapped from the file.
	 */
	assert_int_equal(marks_elf_func_offset(self, "test_marks_probe_target", &off), 0);
	assert_int_equal(file_bytes(self, off, in_file, sizeof(in_file)), 0);
	assert_memory_equal(in_file, (const void *)test_marks_probe_target, sizeof(in_file));
	/* a function the file exports twice (.symtab and .dynsym) is one address */
	assert_int_equal(marks_elf_func_offset(bootsvc, "bootsvc_tick", &off), 0);
	assert_int_equal(marks_elf_func_offset(bootsvc, "bootsvc_ready", &off2), 0);
	assert_true(off != off2);
	assert_int_equal(marks_elf_func_offset(bootsvc, "bootsvc_nope", &off), -ENOENT);
	/* a variable is no function */
	assert_int_equal(marks_elf_func_offset(bootsvc, "bootsvc_ticks", &off), -ENOENT);
	assert_true(marks_elf_func_offset("/etc/hostname", "x", &off) < 0);
	/* an address in no segment's file image */
	assert_int_equal(marks_elf_vaddr_offset(bootsvc, 0x7fffffff0000ULL, &off), -ENOENT);
	assert_true(marks_elf_vaddr_offset("/nonexistent", 0, &off2) < 0);
	/* not a PIE: main at 0x401xxx is 0x1xxx in the file */
	assert_int_equal(marks_elf_func_offset(usdt_sites, "main", &off), 0);
	assert_true(off < 0x400000);
	assert_int_equal(marks_elf_vaddr_offset(usdt_sites, off + 0x400000, &off2), 0);
	assert_int_equal(off2, off);
}

static void test_usdt_sites(void **state)
{
	struct usdt_site *v = NULL;
	unsigned char b = 0;
	size_t n = 0;

	(void)state;
	/* a probe site is a nop in the file, no semaphore in bootsvc */
	assert_int_equal(marks_usdt_sites(bootsvc, "bootsvc", "config_loaded", &v, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(v[0].semaphore, 0);
	assert_int_equal(file_bytes(bootsvc, v[0].offset, &b, 1), 0);
	assert_int_equal(b, 0x90);
	free(v);
	/* one provider:name at two places: two sites */
	assert_int_equal(marks_usdt_sites(usdt_sites, "bt", "site", &v, &n), 0);
	assert_int_equal(n, 2);
	assert_true(v[0].offset != v[1].offset);
	assert_int_equal(file_bytes(usdt_sites, v[0].offset, &b, 1), 0);
	assert_int_equal(b, 0x90);
	assert_int_equal(file_bytes(usdt_sites, v[1].offset, &b, 1), 0);
	assert_int_equal(b, 0x90);
	free(v);
	/* a semaphore's address is in the note */
	assert_int_equal(marks_usdt_sites(usdt_sema, "bt", "sema", &v, &n), 0);
	assert_int_equal(n, 1);
	assert_true(v[0].semaphore != 0);
	free(v);
	assert_int_equal(marks_usdt_sites(bootsvc, "bootsvc", "nope", &v, &n), -ENOENT);
	assert_true(marks_usdt_sites("/etc/hostname", "p", "n", &v, &n) < 0);
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
		cmocka_unit_test(test_find_on_path),
		cmocka_unit_test(test_find_library),
		cmocka_unit_test(test_usdt_notes),
		cmocka_unit_test(test_symbols),
		cmocka_unit_test(test_resolve_messages),
		cmocka_unit_test(test_uprobe_sysfs),
		cmocka_unit_test(test_func_offset),
		cmocka_unit_test(test_usdt_sites),
		cmocka_unit_test(test_legacy_check),
	};

	return cmocka_run_group_tests_name("collector_marks", tests, setup, NULL);
}
