// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: analyze/read/symbols.c names a function of this very binary,
 * found by its build id and file offset (from dl_iterate_phdr), then of a
 * stripped copy with and without its debug file under a --debug-dir; and
 * a function inlined into another (always_inline, a label in its body) as
 * a frame of its own inside it, from this binary's DWARF and from the
 * debug file's; a C++-named function demangled.
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

/* a C++ name (this file is C: the symbol named by hand), demangled */
__attribute__((noinline)) int symbols_test_cxx(int x) __asm__("_ZN9boottrace4test6burnerEi");
__attribute__((noinline)) int symbols_test_cxx(int x)
{
	return x * 7 + 2;
}

/* a label in the inlined body: its address is in the inlined scope */
extern const char symbols_test_mark[];
static inline __attribute__((always_inline)) int symbols_test_inlined(int x)
{
	__asm__ volatile(".globl symbols_test_mark\nsymbols_test_mark:\n\tnop");
	return x * 5;
}

__attribute__((noinline)) int symbols_test_outer(int x);
__attribute__((noinline)) int symbols_test_outer(int x)
{
	return symbols_test_inlined(x) + 2;
}

struct self {
	uint8_t id[20];
	bool has_id;
	uint64_t off;		/* of symbols_test_target + 4 in the file */
	uint64_t mark_off;	/* of symbols_test_mark */
	uint64_t cxx_off;	/* of symbols_test_cxx + 1 */
};

/* The file offset of address @va (link-time) in the PT_LOAD that holds it, or 0. */
static uint64_t file_off(const struct dl_phdr_info *info, uint64_t va)
{
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && va >= ph->p_vaddr && va < ph->p_vaddr + ph->p_filesz)
			return va - ph->p_vaddr + ph->p_offset;
	}
	return 0;
}

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct self *me = arg;
	int i;

	(void)size;
	if (info->dlpi_name && info->dlpi_name[0])	/* the main program only */
		return 0;
	me->off = file_off(info, (uint64_t)(uintptr_t)symbols_test_target + 4 - info->dlpi_addr);
	me->mark_off = file_off(info, (uint64_t)(uintptr_t)symbols_test_mark - info->dlpi_addr);
	me->cxx_off = file_off(info, (uint64_t)(uintptr_t)symbols_test_cxx + 1 - info->dlpi_addr);
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

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
	if (!me.has_id || !me.off || !me.mark_off || !me.cxx_off || symbols_test_outer(1) != 7 ||
	    symbols_test_cxx(1) != 9 || !mkdtemp(dir))
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

/* One function and the module: rc 1, n 1. */
static void assert_fn(int rc, const struct symbols_hit *h, const char *fn, const char *mod)
{
	assert_int_equal(rc, 1);
	assert_int_equal(h->n, 1);
	assert_string_equal(h->fn[0], fn);
	assert_string_equal(h->module, mod);
}

/* The mark: symbols_test_inlined inside symbols_test_outer. */
static void assert_inlined(int rc, const struct symbols_hit *h)
{
	assert_int_equal(rc, 1);
	assert_int_equal(h->n, 2);
	assert_string_equal(h->fn[0], "symbols_test_inlined");
	assert_string_equal(h->fn[1], "symbols_test_outer");
}

static void test_self(void **state)
{
	struct symbols *s = symbols__new();
	struct symbols_hit h;
	uint8_t other[20] = { 1, 2, 3 };

	(void)state;
	assert_non_null(s);
	symbols_no_system(s);
	assert_int_equal(symbols_add_path(s, "/nonexistent/x", 14), 0);
	assert_int_equal(symbols_add_path(s, exe, strlen(exe)), 0);
	assert_int_equal(symbols_add_path(s, exe, strlen(exe)), 0);
	assert_fn(symbols_build_id(s, me.id, me.off, false, &h), &h, "symbols_test_target",
		  "test_analyze_symbols");
	/* cached: again; as a return address (the call before it: still inside) */
	assert_fn(symbols_build_id(s, me.id, me.off, true, &h), &h, "symbols_test_target",
		  "test_analyze_symbols");
	/* a return address at a function's first byte is the call before it */
	assert_fn(symbols_build_id(s, me.id, me.off - 4, false, &h), &h, "symbols_test_target",
		  "test_analyze_symbols");
	symbols_build_id(s, me.id, me.off - 4, true, &h);
	assert_true(h.n == 0 || strcmp(h.fn[h.n - 1], "symbols_test_target") != 0);
	/* an inlined function: a frame of its own, inside its caller */
	assert_inlined(symbols_build_id(s, me.id, me.mark_off, false, &h), &h);
	/* a C++ function: demangled, the same string each time (once) */
	assert_fn(symbols_build_id(s, me.id, me.cxx_off, false, &h), &h,
		  "boottrace::test::burner(int)", "test_analyze_symbols");
	{
		const char *once = h.fn[0];

		symbols_build_id(s, me.id, me.cxx_off, false, &h);
		assert_ptr_equal(h.fn[0], once);
	}
	/* an offset outside every PT_LOAD (a bogus frame-pointer frame) */
	assert_int_equal(symbols_build_id(s, me.id, 0xffffaa6f29021000ull, false, &h), 0);
	assert_int_equal(h.n, 0);
	assert_string_equal(h.module, "test_analyze_symbols");
	assert_int_equal(symbols_build_id(s, other, 0x10, false, &h), -1);
	assert_int_equal(symbols_build_id(s, other, 0x10, false, &h), -1);
	assert_null(h.module);
	/* by path, as an f: frame */
	assert_fn(symbols_path(s, exe, strlen(exe), me.off, false, &h), &h, "symbols_test_target",
		  "test_analyze_symbols");
	assert_inlined(symbols_path(s, exe, strlen(exe), me.mark_off, false, &h), &h);
	assert_int_equal(symbols_path(s, "/nonexistent/y", 14, 0, false, &h), -1);
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
	struct symbols_hit h;
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
	assert_int_equal(symbols_build_id(s, me.id, me.off, false, &h), 0);
	assert_int_equal(h.n, 0);
	assert_string_equal(h.module, "stripped");
	symbols__free(s);

	/* the debug file's symbols and DWARF (the inlined function) */
	s = symbols__new();
	assert_non_null(s);
	symbols_no_system(s);
	snprintf(dbgdir, sizeof(dbgdir), "%s/dbg", dir);
	assert_int_equal(symbols_add_debug_dir(s, dbgdir), 0);
	assert_int_equal(symbols_add_path(s, stripped, strlen(stripped)), 0);
	assert_fn(symbols_build_id(s, me.id, me.off, false, &h), &h, "symbols_test_target",
		  "stripped");
	assert_inlined(symbols_build_id(s, me.id, me.mark_off, false, &h), &h);
	symbols__free(s);

	/* the debug file alone (no binary among the candidates): found, but
	 * its program headers cannot map a file offset */
	s = symbols__new();
	assert_non_null(s);
	symbols_no_system(s);
	assert_int_equal(symbols_add_debug_dir(s, dbgdir), 0);
	assert_int_equal(symbols_build_id(s, me.id, me.off, false, &h), 0);
	assert_int_equal(h.n, 0);
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
