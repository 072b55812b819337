// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: collector/kernel/elf.c: finding a binary on PATH and a library, the ELF
 * checks (symbols, stripped binaries, the USDT notes of samples/bootsvc),
 * and the file offsets the legacy object's uprobe events are placed by
 * (checked against the bytes this very program runs).
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

#include "collector/kernel/elf.h"
#include "tests/unit/built.h"

static char bootsvc[PATH_MAX], usdt_sites[PATH_MAX], usdt_sema[PATH_MAX], self[PATH_MAX];

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

/* A function of this program, with a body of its own (not folded into another). */
__attribute__((noinline, used)) unsigned long test_marks_probe_target(unsigned long x)
{
	__asm__ volatile("" ::: "memory");
	return x * 2654435761UL + 0x5bd1e995UL;
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
	assert_int_equal(elf_find_binary("bt-marks-prog", out, sizeof(out)), -ENOENT);
	setenv("PATH", dir, 1);
	assert_int_equal(elf_find_binary("bt-marks-prog", out, sizeof(out)), 0);
	assert_string_equal(out, prog);
	/* not executable: not a program on PATH */
	assert_int_equal(elf_find_binary("bt-marks-data", out, sizeof(out)), -ENOENT);
	/* a path is taken as it is, made absolute */
	assert_int_equal(elf_find_binary(data, out, sizeof(out)), 0);
	assert_string_equal(out, data);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(elf_find_binary("./bt-marks-data", out, sizeof(out)), 0);
	assert_string_equal(out, data);
	assert_int_equal(elf_find_binary("/nonexistent/x", out, sizeof(out)), -ENOENT);
	assert_int_equal(elf_find_binary("", out, sizeof(out)), -ENOENT);
	/* the default PATH stands behind $PATH: sh is in /bin or /usr/bin */
	assert_int_equal(elf_find_binary("sh", out, sizeof(out)), 0);
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
	assert_int_equal(elf_find_binary("libc", out, sizeof(out)), 0);
	base = strrchr(out, '/');
	assert_non_null(base);
	assert_string_equal(base, "/libc.so.6");
	assert_int_equal(elf_find_binary("libc.so.6", out, sizeof(out)), 0);
	assert_string_equal(strrchr(out, '/'), "/libc.so.6");
	assert_int_equal(elf_find_binary("libboottrace-none", out, sizeof(out)), -ENOENT);
}

static void test_usdt_notes(void **state)
{
	struct usdt_probe *v = NULL;
	size_t n = 0, i;
	int launch = 0, config = 0;

	(void)state;
	assert_int_equal(elf_usdt_list(bootsvc, &v, &n), 0);
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
	assert_int_equal(elf_usdt_list("/proc/self/exe", &v, &n), 0);
	free(v);
	/* not ELF */
	assert_true(elf_usdt_list("/etc/hostname", &v, &n) < 0);
	assert_true(elf_usdt_list("/nonexistent", &v, &n) < 0);
}

static void test_symbols(void **state)
{
	char stripped[] = "/tmp/boottrace-stripped.XXXXXX", cmd[PATH_MAX * 2 + 64];
	bool symtab = false;
	size_t ndyn = 99;
	int fd;

	(void)state;
	assert_int_equal(elf_has_function(bootsvc, "bootsvc_ready", &symtab, &ndyn), 1);
	assert_true(symtab);
	assert_int_equal(elf_has_function(bootsvc, "bootsvc_tick", NULL, NULL), 1);
	assert_int_equal(elf_has_function(bootsvc, "bootsvc_nope", NULL, NULL), 0);
	/* a variable is no function */
	assert_int_equal(elf_has_function(bootsvc, "bootsvc_ticks", NULL, NULL), 0);
	/* a prefix is no match */
	assert_int_equal(elf_has_function(bootsvc, "bootsvc_rea", NULL, NULL), 0);
	assert_true(elf_has_function("/etc/hostname", "x", NULL, NULL) < 0);

	fd = mkstemp(stripped);
	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "objcopy --strip-all '%s' '%s' 2>/dev/null", bootsvc, stripped);
	if (system(cmd) != 0) {
		unlink(stripped);
		skip();
	}
	assert_int_equal(elf_has_function(stripped, "bootsvc_ready", &symtab, &ndyn), 0);
	assert_false(symtab);
	unlink(stripped);
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
	assert_int_equal(elf_func_offset(self, "test_marks_probe_target", &off), 0);
	assert_int_equal(file_bytes(self, off, in_file, sizeof(in_file)), 0);
	assert_memory_equal(in_file, (const void *)test_marks_probe_target, sizeof(in_file));
	/* a function the file exports twice (.symtab and .dynsym) is one address */
	assert_int_equal(elf_func_offset(bootsvc, "bootsvc_tick", &off), 0);
	assert_int_equal(elf_func_offset(bootsvc, "bootsvc_ready", &off2), 0);
	assert_true(off != off2);
	assert_int_equal(elf_func_offset(bootsvc, "bootsvc_nope", &off), -ENOENT);
	/* a variable is no function */
	assert_int_equal(elf_func_offset(bootsvc, "bootsvc_ticks", &off), -ENOENT);
	assert_true(elf_func_offset("/etc/hostname", "x", &off) < 0);
	/* an address in no segment's file image */
	assert_int_equal(elf_vaddr_offset(bootsvc, 0x7fffffff0000ULL, &off), -ENOENT);
	assert_true(elf_vaddr_offset("/nonexistent", 0, &off2) < 0);
	/* not a PIE: main at 0x401xxx is 0x1xxx in the file */
	assert_int_equal(elf_func_offset(usdt_sites, "main", &off), 0);
	assert_true(off < 0x400000);
	assert_int_equal(elf_vaddr_offset(usdt_sites, off + 0x400000, &off2), 0);
	assert_int_equal(off2, off);
}

static void test_usdt_sites(void **state)
{
	struct usdt_site *v = NULL;
	unsigned char b = 0;
	size_t n = 0;

	(void)state;
	/* a probe site is a nop in the file, no semaphore in bootsvc */
	assert_int_equal(elf_usdt_sites(bootsvc, "bootsvc", "config_loaded", &v, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(v[0].semaphore, 0);
	assert_int_equal(file_bytes(bootsvc, v[0].offset, &b, 1), 0);
	assert_int_equal(b, 0x90);
	free(v);
	/* one provider:name at two places: two sites */
	assert_int_equal(elf_usdt_sites(usdt_sites, "bt", "site", &v, &n), 0);
	assert_int_equal(n, 2);
	assert_true(v[0].offset != v[1].offset);
	assert_int_equal(file_bytes(usdt_sites, v[0].offset, &b, 1), 0);
	assert_int_equal(b, 0x90);
	assert_int_equal(file_bytes(usdt_sites, v[1].offset, &b, 1), 0);
	assert_int_equal(b, 0x90);
	free(v);
	/* a semaphore's address is in the note */
	assert_int_equal(elf_usdt_sites(usdt_sema, "bt", "sema", &v, &n), 0);
	assert_int_equal(n, 1);
	assert_true(v[0].semaphore != 0);
	free(v);
	assert_int_equal(elf_usdt_sites(bootsvc, "bootsvc", "nope", &v, &n), -ENOENT);
	assert_true(elf_usdt_sites("/etc/hostname", "p", "n", &v, &n) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_on_path),
		cmocka_unit_test(test_find_library),
		cmocka_unit_test(test_usdt_notes),
		cmocka_unit_test(test_symbols),
		cmocka_unit_test(test_func_offset),
		cmocka_unit_test(test_usdt_sites),
	};

	return cmocka_run_group_tests_name("collector_elf", tests, setup, NULL);
}
