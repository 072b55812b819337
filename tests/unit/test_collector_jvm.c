// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: the collector's JVM side. collector/profile/hsdecode.c on
 * HotSpot's codings (UNSIGNED5 before and since JDK 20, at the
 * boundaries unsigned5.hpp gives; a line number table of single-byte and
 * escaped pairs; PcDescs by pc offset; a ScopeDesc's head);
 * collector/profile/vmstructs.c on a fake JVM's memory (the four tables,
 * their layout variables not filled yet, a symbol missing, a table
 * without its end); collector/profile/jitmaps.c on a /proc made in a
 * temporary directory (a perf map written after the addresses were seen,
 * read through the /tmp pinned while the process lived, its entries that
 * hold them once each).
 */
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

#include "collector/profile/hsdecode.h"
#include "collector/profile/jitmaps.h"
#include "collector/profile/vmstructs.h"

/* UNSIGNED5 as HotSpot's writers make it (CompressedWriteStream, unsigned5.hpp) */
static size_t u5(uint32_t v, int x, uint8_t *out)
{
	const uint32_t low = 256u - 64u - (uint32_t)x;
	size_t i;

	for (i = 0; i < 5; i++) {
		if (v < low || i == 4) {
			out[i] = (uint8_t)(v + (uint32_t)x);
			return i + 1;
		}
		v -= low;
		out[i] = (uint8_t)((uint32_t)x + low + (v % 64));
		v >>= 6;
	}
	return 5;
}

static void test_u5(void **state)
{
	/*
	 * unsigned5.hpp: up to 0xBE in 1 byte, 0x307E in 2, 0xC207E in 3 and
	 * (its max_encoded_in_length(4), 191 * (1 + 64 + 64^2 + 64^3) - 1;
	 * the header's comment says 0x308207F) 0x308207E in 4
	 */
	static const uint32_t edges[] = { 0, 1, 0xbe, 0xbf, 0x307e, 0x307f, 0xc207e, 0xc207f,
					  0x308207e, 0x308207f, 0x7fffffff, 0xffffffff };
	static const size_t lens[] = { 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 5 };
	uint8_t b[8], two[] = { 0xff, 0xbf }, zero[] = { 0xc0, 0x00 };
	uint32_t v;
	size_t pos, i, n;
	int x;

	(void)state;
	for (i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		n = u5(edges[i], 1, b);
		assert_int_equal(n, lens[i]);
		assert_null(memchr(b, 0, n));	/* JDK 20's never codes a 0 byte */
		pos = 0;
		assert_int_equal(hs_u5(b, n, &pos, 1, &v), 0);
		assert_int_equal(v, edges[i]);
		assert_int_equal(pos, n);
	}
	for (x = 0; x <= 1; x++)
		for (v = 0; v < 200000; v += 7) {
			uint32_t got;

			n = u5(v, x, b);
			pos = 0;
			assert_int_equal(hs_u5(b, n, &pos, x, &got), 0);
			assert_int_equal(got, v);
			/* one byte short: refused, never read past */
			pos = 0;
			if (n > 1)
				assert_int_equal(hs_u5(b, n - 1, &pos, x, &got), -1);
		}
	/* 0xff 0xbf: 254 + 190 * 64 (JDK 20's), 255 + 191 * 64 (17's) */
	pos = 0;
	assert_int_equal(hs_u5(two, 2, &pos, 1, &v), 0);
	assert_int_equal(v, 0x307e);
	pos = 0;
	assert_int_equal(hs_u5(two, 2, &pos, 0, &v), 0);
	assert_int_equal(v, 255 + 191 * 64);
	/* JDK 17's 192 is c0 00; to JDK 20's coding a 0 byte is no byte */
	pos = 0;
	assert_int_equal(hs_u5(zero, 2, &pos, 0, &v), 0);
	assert_int_equal(v, 192);
	pos = 0;
	assert_int_equal(hs_u5(zero, 2, &pos, 1, &v), -1);
	assert_int_equal(hs_sign(0), 0);
	assert_int_equal(hs_sign(1), -1);
	assert_int_equal(hs_sign(20), 10);
	assert_int_equal(hs_sign(21), -11);
}

/* A line number table: (bci, line) pairs as CompressedLineNumberWriteStream writes them. */
static size_t lines(int x, const int (*pairs)[2], size_t n, uint8_t *out)
{
	int bci = 0, line = 0;
	size_t at = 0, i;

	for (i = 0; i < n; i++) {
		int db = pairs[i][0] - bci, dl = pairs[i][1] - line;

		bci = pairs[i][0];
		line = pairs[i][1];
		if (!db && !dl)
			continue;
		if (!(db & ~0x1f) && !(dl & ~7) && ((db << 3) | dl) != 0xff) {
			out[at++] = (uint8_t)(db << 3 | dl);
			continue;
		}
		out[at++] = 0xff;
		/* zig-zag, in unsigned arithmetic (a negative int's << is undefined) */
		at += u5(((uint32_t)db << 1) ^ (uint32_t)(db >> 31), x, out + at);
		at += u5(((uint32_t)dl << 1) ^ (uint32_t)(dl >> 31), x, out + at);
	}
	out[at++] = 0;
	return at;
}

static void test_lines(void **state)
{
	/* a method at line 10; a backward line (a loop's condition), a big jump */
	static const int pairs[][2] = { { 0, 10 }, { 5, 11 }, { 12, 14 }, { 20, 12 },
					{ 31, 19 }, { 300, 2000 } };
	uint8_t b[128];
	size_t n;
	int x;

	(void)state;
	for (x = 0; x <= 1; x++) {
		n = lines(x, pairs, 6, b);
		assert_int_equal(hs_lines_len(b, n, x), (long)n);
		assert_int_equal(hs_lines_len(b, n - 1, x), -1);	/* no end byte yet */
		assert_int_equal(hs_line(b, n, x, 0), 10);
		assert_int_equal(hs_line(b, n, x, -1), 10);	/* the entry: the first line */
		assert_int_equal(hs_line(b, n, x, 5), 11);
		assert_int_equal(hs_line(b, n, x, 7), 11);	/* between: the pair below */
		assert_int_equal(hs_line(b, n, x, 12), 14);
		assert_int_equal(hs_line(b, n, x, 25), 12);
		assert_int_equal(hs_line(b, n, x, 31), 19);
		assert_int_equal(hs_line(b, n, x, 299), 19);
		assert_int_equal(hs_line(b, n, x, 300), 2000);
		assert_int_equal(hs_line(b, n, x, 60000), 2000);
		assert_int_equal(hs_line(b, 3, x, 300), -1);	/* cut short */
	}
	b[0] = 0;
	assert_int_equal(hs_line(b, 1, 1, 0), -1);	/* an empty table */
}

static void test_pcdesc_scope(void **state)
{
	/* PcDescs of 16 bytes: pc offset, scope offset, obj offset, flags */
	int32_t d[5][4] = { { -1, 0, 0, 0 }, { 12, 1, 0, 0 }, { 40, 9, 0, 0 }, { 40, 17, 0, 0 },
			    { 100, 25, 0, 0 } };
	uint8_t s[32];
	size_t at = 0;
	struct hs_scope sc;

	(void)state;
	assert_int_equal(hs_pcdesc((uint8_t *)d, 5, 16, 0, 12), 1);	/* a return address */
	assert_int_equal(hs_pcdesc((uint8_t *)d, 5, 16, 0, 13), 2);	/* a sampled pc: the next */
	assert_int_equal(hs_pcdesc((uint8_t *)d, 5, 16, 0, 40), 2);
	assert_int_equal(hs_pcdesc((uint8_t *)d, 5, 16, 0, 0), 1);
	assert_int_equal(hs_pcdesc((uint8_t *)d, 5, 16, 0, 101), -1);
	assert_int_equal(hs_pcdesc((uint8_t *)d, 5, 3, 0, 0), -1);	/* a size that holds no pc */
	/* sender 9, method 3, bci 7 (coded + 1), then the body's offsets */
	at += u5(9, 1, s + at);
	at += u5(3, 1, s + at);
	at += u5(7 + 1, 1, s + at);
	at += u5(400, 1, s + at);
	assert_int_equal(hs_scope(s, at, 1, &sc), 0);
	assert_int_equal(sc.sender, 9);
	assert_int_equal(sc.method, 3);
	assert_int_equal(sc.bci, 7);
	at = u5(0, 1, s);
	at += u5(1, 1, s + at);
	at += u5(0, 1, s + at);		/* InvocationEntryBci */
	assert_int_equal(hs_scope(s, at, 1, &sc), 0);
	assert_int_equal(sc.bci, -1);
	assert_int_equal(hs_scope(s, 2, 1, &sc), -1);
}

/* --- a fake JVM's VMStructs ---------------------------------------------------- */

#define BASE 0x100000ULL
#define MEM 65536

struct fake {
	uint8_t mem[MEM];
	size_t at;			/* the next free byte */
	const char *names[32];
	uint64_t addrs[32];
	size_t nsyms;
	int reads;
};

static int fake_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	struct fake *f = ctx;

	f->reads++;
	if (addr < BASE || addr + n > BASE + MEM)
		return -1;
	memcpy(buf, f->mem + (addr - BASE), n);
	return 0;
}

static int fake_symbol(void *ctx, const char *name, uint64_t *addr)
{
	struct fake *f = ctx;
	size_t i;

	for (i = 0; i < f->nsyms; i++)
		if (!strcmp(f->names[i], name)) {
			*addr = f->addrs[i];
			return 0;
		}
	return -1;
}

/* @n bytes in the fake memory (8-aligned): their address */
static uint64_t put(struct fake *f, const void *p, size_t n)
{
	uint64_t a = BASE + f->at;

	memcpy(f->mem + f->at, p, n);
	f->at += (n + 7) & ~7u;
	return a;
}

static uint64_t str(struct fake *f, const char *s)
{
	return put(f, s, strlen(s) + 1);
}

/* symbol @name: a u64 variable holding @v */
static void var(struct fake *f, const char *name, uint64_t v)
{
	f->names[f->nsyms] = name;
	f->addrs[f->nsyms++] = put(f, &v, 8);
}

/* An entry of a table of @stride bytes, its fields' values at @offs */
static void entry(uint8_t *e, size_t stride, const uint64_t *offs, const uint64_t *vals, size_t n)
{
	size_t i;

	memset(e, 0, stride);
	for (i = 0; i < n; i++)
		memcpy(e + offs[i], &vals[i], 8);
}

/*
 * JDK 17's layout: structs of 48 bytes, types of 40, constants of 16. The
 * structs' table last: without its end (@ended false) it runs to the end
 * of the memory, a copy of its first entry over and over.
 */
static void fake_jvm(struct fake *f, bool filled, bool ended)
{
	uint64_t so[6] = { 0, 8, 16, 24, 32, 40 }, to[2] = { 0, 32 }, co[2] = { 0, 8 };
	uint8_t tab[4 * 48];
	uint64_t v[6], types, ints, longs, *structs_var;

	memset(f, 0, sizeof(*f));
	v[0] = str(f, "ConstMethod"), v[1] = 48;
	entry(tab, 40, to, v, 2);
	memset(tab + 40, 0, 40);
	types = put(f, tab, 80);
	v[0] = str(f, "frame::interpreter_frame_last_sp_offset"), v[1] = (uint32_t)-2;
	entry(tab, 16, co, v, 2);
	memset(tab + 16, 0, 16);
	ints = put(f, tab, 32);
	v[0] = str(f, "markWord::hash_mask_in_place"), v[1] = 549755813632ULL;
	entry(tab, 16, co, v, 2);
	memset(tab + 16, 0, 16);
	longs = put(f, tab, 32);
	var(f, "gHotSpotVMStructs", 0);
	structs_var = (uint64_t *)(f->mem + (f->addrs[f->nsyms - 1] - BASE));
	var(f, "gHotSpotVMStructEntryArrayStride", filled ? 48 : 0);
	var(f, "gHotSpotVMStructEntryTypeNameOffset", 0);
	var(f, "gHotSpotVMStructEntryFieldNameOffset", 8);
	var(f, "gHotSpotVMStructEntryTypeStringOffset", 16);
	var(f, "gHotSpotVMStructEntryIsStaticOffset", 24);
	var(f, "gHotSpotVMStructEntryOffsetOffset", 32);
	var(f, "gHotSpotVMStructEntryAddressOffset", 40);
	var(f, "gHotSpotVMTypes", types);
	var(f, "gHotSpotVMTypeEntryArrayStride", 40);
	var(f, "gHotSpotVMTypeEntryTypeNameOffset", 0);
	var(f, "gHotSpotVMTypeEntrySizeOffset", 32);
	var(f, "gHotSpotVMIntConstants", ints);
	var(f, "gHotSpotVMIntConstantEntryArrayStride", 16);
	var(f, "gHotSpotVMIntConstantEntryNameOffset", 0);
	var(f, "gHotSpotVMIntConstantEntryValueOffset", 8);
	var(f, "gHotSpotVMLongConstants", longs);
	var(f, "gHotSpotVMLongConstantEntryArrayStride", 16);
	var(f, "gHotSpotVMLongConstantEntryNameOffset", 0);
	var(f, "gHotSpotVMLongConstantEntryValueOffset", 8);
	v[0] = str(f, "CodeBlob"), v[1] = str(f, "_name"), v[2] = str(f, "const char*"), v[3] = 0,
	v[4] = 96, v[5] = 0;
	entry(tab, 48, so, v, 6);
	v[0] = str(f, "CodeCache"), v[1] = str(f, "_heaps"), v[2] = 0, v[3] = 1, v[4] = 0,
	v[5] = 0x7f0000001234ULL;
	entry(tab + 48, 48, so, v, 6);
	v[0] = str(f, "CodeBlob"), v[1] = str(f, "_frame_complete_offset"), v[2] = str(f, "int16_t"),
	v[3] = 0, v[4] = 54, v[5] = 0;
	entry(tab + 96, 48, so, v, 6);
	memset(tab + 144, 0, 48);
	*structs_var = put(f, tab, ended ? 4 * 48 : 48);
	while (!ended && f->at + 48 <= MEM)
		put(f, tab, 48);
}

static void test_vmstructs(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	struct vms_source src = { fake_read, fake_symbol, f };
	struct vms *v;
	uint64_t o;
	int64_t c;
	char err[128];
	bool early;

	(void)state;
	assert_non_null(f);
	fake_jvm(f, true, true);
	assert_non_null(v = vms__load(&src, &early, err, sizeof(err)));
	assert_false(early);
	assert_int_equal(vms_offset(v, "CodeBlob", "_name", &o), 0);
	assert_int_equal(o, 96);
	assert_int_equal(vms_offset(v, "CodeBlob", "_size", &o), -1);
	assert_int_equal(vms_offset(v, "CodeCache", "_heaps", &o), -1);	/* static */
	assert_int_equal(vms_address(v, "CodeCache", "_heaps", &o), 0);
	assert_int_equal(o, 0x7f0000001234ULL);
	assert_string_equal(vms_field_type(v, "CodeBlob", "_frame_complete_offset"), "int16_t");
	assert_null(vms_field_type(v, "CodeCache", "_heaps"));
	assert_int_equal(vms_type_size(v, "ConstMethod", &o), 0);
	assert_int_equal(o, 48);
	assert_int_equal(vms_constant(v, "frame::interpreter_frame_last_sp_offset", &c), 0);
	assert_int_equal(c, -2);
	assert_int_equal(vms_constant(v, "markWord::hash_mask_in_place", &c), 0);
	assert_int_equal(c, 549755813632LL);
	assert_int_equal(vms_constant(v, "nope", &c), -1);
	/* the names came a page at a time: far fewer reads than names */
	assert_true(f->reads < 40);
	vms__free(v);

	/* libjvm mapped, its initializers not run: its strides are still 0 */
	fake_jvm(f, false, true);
	assert_null(vms__load(&src, &early, err, sizeof(err)));
	assert_true(early);
	/* not a HotSpot libjvm: a symbol missing */
	fake_jvm(f, true, true);
	f->names[0] = "gSomethingElse";
	assert_null(vms__load(&src, &early, err, sizeof(err)));
	assert_false(early);
	assert_string_equal(err, "no gHotSpotVMStructs in libjvm.so");
	/* a table that does not end: its read fails at the memory's end, not past it */
	fake_jvm(f, true, false);
	assert_null(vms__load(&src, &early, err, sizeof(err)));
	assert_false(early);
	assert_non_null(strstr(err, "cannot read entry"));
	free(f);
}

/* --- late perf maps ----------------------------------------------------------- */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

struct got {
	char text[1024];
	size_t n;
	uint32_t pid;
};

static void collect(void *ctx, const struct bt_event_hdr *h, const struct jitmaps_entry *e)
{
	struct got *g = ctx;

	g->n++;
	g->pid = h->pid;
	snprintf(g->text + strlen(g->text), sizeof(g->text) - strlen(g->text), "%llx+%llx %.*s;",
		 (unsigned long long)e->start, (unsigned long long)e->size, (int)e->len, e->name);
}

static void test_jitmaps(void **state)
{
	char dir[] = "/tmp/bt-jitmaps-XXXXXX", p[256], gone[300];
	struct bt_event_hdr h = { .pid = 4242, .tid = 4243 };
	struct jitmaps *j;
	struct got g = { "", 0, 0 };

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/4242", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/4242/root", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/4242/root/tmp", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/4242/status", dir);
	write_file(p, "Name:\tjava\nNSpid:\t4242\t7\n");

	assert_non_null(j = jitmaps__new(dir));
	assert_int_equal(jitmaps_any(j), 0);
	/* seen while it lives: two addresses of one method, one of another, one of none */
	jitmaps_unnamed(j, 4242, 0x7f0000000110ULL);
	jitmaps_unnamed(j, 4242, 0x7f0000000300ULL);
	jitmaps_unnamed(j, 4242, 0x7f0000000120ULL);
	jitmaps_unnamed(j, 4242, 0x7f0000900000ULL);
	jitmaps_seen(j, &h);
	assert_int_equal(jitmaps_any(j), 4242);
	/* it exits; its map is written at its exit, and its /proc entry is gone */
	snprintf(p, sizeof(p), "%s/4242/root/tmp/perf-7.map", dir);
	write_file(p, "7f0000000100 100 void A.hot(int)\n"
		      "7f0000000200 80 int B.cold()\n"
		      "7f0000000280 100 void C.warm(java.lang.String, int)\n"
		      "bad line\n");
	snprintf(p, sizeof(p), "%s/4242", dir);
	snprintf(gone, sizeof(gone), "%s/gone", dir);
	assert_int_equal(rename(p, gone), 0);
	assert_int_equal(jitmaps_take(j, 4242, collect, &g), 2);
	assert_string_equal(g.text, "7f0000000100+100 void A.hot(int);"
				    "7f0000000280+100 void C.warm(java.lang.String, int);");
	assert_int_equal(g.pid, 4242);
	/* forgotten: nothing more */
	assert_int_equal(jitmaps_any(j), 0);
	assert_int_equal(jitmaps_take(j, 4242, collect, &g), 0);
	/* a process whose /tmp could not be opened, or with no map: nothing */
	jitmaps_unnamed(j, 5000, 0x1000);
	jitmaps_seen(j, &h);
	assert_int_equal(jitmaps_take(j, 5000, collect, &g), 0);
	jitmaps__free(j);
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	assert_int_equal(system(p), 0);
}

/* Past its bounds: no more processes kept, no crash, every fd closed at the end. */
static void test_jitmaps_bounds(void **state)
{
	struct jitmaps *j = jitmaps__new("/nonexistent");
	uint64_t i;

	(void)state;
	assert_non_null(j);
	for (i = 1; i <= JITMAPS_PROCS + 10; i++)
		jitmaps_unnamed(j, (pid_t)i, 0x1000);
	for (i = 0; i < JITMAPS_ADDRS + 10; i++)
		jitmaps_unnamed(j, 1, 0x1000 + i);
	assert_int_not_equal(jitmaps_any(j), 0);
	jitmaps__free(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u5),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_pcdesc_scope),
		cmocka_unit_test(test_vmstructs),
		cmocka_unit_test(test_jitmaps),
		cmocka_unit_test(test_jitmaps_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
