// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: analyze/read/symbols.c names a function of this very binary,
 * found by its build id and file offset (from dl_iterate_phdr), then of a
 * stripped copy with and without its debug file under a --debug-dir.
 */
#include <elf.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "analyze/read/symbols.h"

__attribute__((noinline)) int symbols_test_target(int x);
__attribute__((noinline)) int symbols_test_target(int x)
{
	return x * 3 + 1;
}

struct self {
	uint8_t id[20];
	bool has_id;
	uint64_t off;		/* of symbols_test_target + 4 in the file */
};

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct self *me = arg;
	uint64_t va = (uint64_t)(uintptr_t)symbols_test_target + 4 - info->dlpi_addr;
	int i;

	(void)size;
	if (info->dlpi_name && info->dlpi_name[0])	/* the main program only */
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && va >= ph->p_vaddr && va < ph->p_vaddr + ph->p_filesz)
			me->off = va - ph->p_vaddr + ph->p_offset;
		if (ph->p_type == PT_NOTE) {
			const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
			const char *e = p + ph->p_memsz;

			while (p + sizeof(ElfW(Nhdr)) <= e) {
				const ElfW(Nhdr) *nh = (const void *)p;
				const char *desc = p + sizeof(*nh) + ((nh->n_namesz + 3) & ~3u);

				if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
				    memcmp(p + sizeof(*nh), "GNU", 4) == 0) {
					memset(me->id, 0, sizeof(me->id));
					memcpy(me->id, desc, nh->n_descsz > 20 ? 20 : nh->n_descsz);
					me->has_id = true;
				}
				p = desc + ((nh->n_descsz + 3) & ~3u);
			}
		}
	}
	return 1;
}

static struct self me;
static char exe[4096], dir[] = "/tmp/bt-symbols-XXXXXX";

static int setup(void **state)
{
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	(void)state;
	if (n <= 0)
		return -1;
	exe[n] = 0;
	dl_iterate_phdr(phdr_cb, &me);
	if (!me.has_id || !me.off || !mkdtemp(dir))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	char cmd[8192];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_self(void **state)
{
	struct symbols *s = symbols__new();
	const char *fn, *mod;
	uint8_t other[20] = { 1, 2, 3 };

	(void)state;
	assert_non_null(s);
	symbols_no_system(s);
	assert_int_equal(symbols_add_path(s, "/nonexistent/x", 14), 0);
	assert_int_equal(symbols_add_path(s, exe, strlen(exe)), 0);
	assert_int_equal(symbols_add_path(s, exe, strlen(exe)), 0);
	assert_int_equal(symbols_build_id(s, me.id, me.off, &fn, &mod), 1);
	assert_string_equal(fn, "symbols_test_target");
	assert_string_equal(mod, "test_analyze_symbols");
	/* cached: again */
	assert_int_equal(symbols_build_id(s, me.id, me.off, &fn, &mod), 1);
	assert_string_equal(fn, "symbols_test_target");
	/* an offset outside every PT_LOAD (a bogus frame-pointer frame) */
	assert_int_equal(symbols_build_id(s, me.id, 0xffffaa6f29021000ull, &fn, &mod), 0);
	assert_null(fn);
	assert_string_equal(mod, "test_analyze_symbols");
	assert_int_equal(symbols_build_id(s, other, 0x10, &fn, &mod), -1);
	assert_int_equal(symbols_build_id(s, other, 0x10, &fn, &mod), -1);
	/* by path, as an f: frame */
	assert_int_equal(symbols_path(s, exe, strlen(exe), me.off, &fn, &mod), 1);
	assert_string_equal(fn, "symbols_test_target");
	assert_int_equal(symbols_path(s, "/nonexistent/y", 14, 0, &fn, &mod), -1);
	symbols__free(s);
}

static void run(const char *cmd)
{
	if (system(cmd) != 0)
		fail_msg("failed: %s", cmd);
}

/* A stripped copy: unresolved alone, named with its debug file under a --debug-dir. */
static void test_stripped_debug_dir(void **state)
{
	char cmd[16384], stripped[4200], dbgdir[4200], fifo[4200], hex[41];
	struct symbols *s;
	const char *fn, *mod;
	int i;

	(void)state;
	for (i = 0; i < 20; i++)
		sprintf(hex + 2 * i, "%02x", me.id[i]);
	snprintf(stripped, sizeof(stripped), "%s/stripped", dir);
	snprintf(dbgdir, sizeof(dbgdir), "%s/dbg/.build-id/%.2s", dir, hex);
	snprintf(cmd, sizeof(cmd), "objcopy --only-keep-debug '%s' '%s/full.debug' && "
		 "objcopy --strip-all '%s' '%s' && mkdir -p '%s' && mv '%s/full.debug' '%s/%s.debug'",
		 exe, dir, exe, stripped, dbgdir, dir, dbgdir, hex + 2);
	run(cmd);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(cmd, sizeof(cmd), "mkfifo '%s'", fifo);
	run(cmd);

	s = symbols__new();
	assert_non_null(s);
	symbols_no_system(s);
	assert_int_equal(symbols_add_path(s, fifo, strlen(fifo)), 0); /* never blocks */
	assert_int_equal(symbols_add_path(s, stripped, strlen(stripped)), 0);
	assert_int_equal(symbols_build_id(s, me.id, me.off, &fn, &mod), 0);
	assert_null(fn);
	assert_string_equal(mod, "stripped");
	symbols__free(s);

	s = symbols__new();
	assert_non_null(s);
	symbols_no_system(s);
	snprintf(dbgdir, sizeof(dbgdir), "%s/dbg", dir);
	assert_int_equal(symbols_add_debug_dir(s, dbgdir), 0);
	assert_int_equal(symbols_add_path(s, stripped, strlen(stripped)), 0);
	assert_int_equal(symbols_build_id(s, me.id, me.off, &fn, &mod), 1);
	assert_string_equal(fn, "symbols_test_target");
	assert_string_equal(mod, "stripped");
	symbols__free(s);

	/* the debug file alone (no binary among the candidates): found, but
	 * its program headers cannot map a file offset */
	s = symbols__new();
	assert_non_null(s);
	symbols_no_system(s);
	assert_int_equal(symbols_add_debug_dir(s, dbgdir), 0);
	assert_int_equal(symbols_build_id(s, me.id, me.off, &fn, &mod), 0);
	assert_null(fn);
	symbols__free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_stripped_debug_dir),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
