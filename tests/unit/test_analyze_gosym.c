// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: common/gosym.c.
 *   - tables written here in each format (Go 1.2, 1.16, 1.18, 1.20), two
 *     functions with known names, files and lines: each address names
 *     what was written, an address outside them nothing;
 *   - malformed tables, hostile input: a header with a huge function
 *     count, offsets past the end, an unterminated varint or name, a
 *     functab out of order, every truncation: no names, no crash;
 *   - fuzz-ish: the real table of build/tests/goburn (go build -s -w) and
 *     the file itself with random bytes changed, thousands of lookups:
 *     never a crash (make test-asan runs this under ASan and UBSan), and
 *     every name found a NUL-terminated string.
 * Go's own debug/gosym is the truth for real binaries in
 * tests/integration/test_analyze_gosym.sh.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/gosym.h"
#include "tests/unit/built.h"
#include "tests/unit/rng.h"

#define TEXT 0x401000u

enum fmt { GO12, GO116, GO118, GO120 };
static const uint32_t magics[] = { 0xfffffffb, 0xfffffffa, 0xfffffff0, 0xfffffff1 };

struct tab {
	uint8_t b[1024];
	size_t n;
};

static size_t put(struct tab *t, const void *p, size_t n)
{
	size_t at = t->n;

	assert_true(t->n + n <= sizeof(t->b));
	memcpy(t->b + t->n, p, n);
	t->n += n;
	return at;
}

static size_t put32(struct tab *t, uint32_t v)
{
	uint8_t b[4] = { v, v >> 8, v >> 16, v >> 24 };

	return put(t, b, 4);
}

static size_t put64(struct tab *t, uint64_t v)
{
	put32(t, (uint32_t)v);
	return put32(t, (uint32_t)(v >> 32)) - 4;
}

static void set32(struct tab *t, size_t at, uint32_t v)
{
	uint8_t b[4] = { v, v >> 8, v >> 16, v >> 24 };

	memcpy(t->b + at, b, 4);
}

static void set64(struct tab *t, size_t at, uint64_t v)
{
	set32(t, at, (uint32_t)v);
	set32(t, at + 4, (uint32_t)(v >> 32));
}

/*
 * A table of format @f: main.alpha at [TEXT, TEXT + 0x40), a.go line 10
 * for its first 0x10 bytes, 11 after; main.beta at [TEXT + 0x40,
 * TEXT + 0x80), b.go line 20.
 */
static void build(struct tab *t, enum fmt f)
{
	/* pc-value tables: zig-zag value delta from -1, pc delta, ..., 0 */
	static const uint8_t ln_a[] = { 22, 0x10, 2, 0x30, 0 }, ln_b[] = { 42, 0x40, 0 };
	/* file numbers: 1.2 an index in filetab (1, 2), 1.16+ in the CU (0) */
	static const uint8_t file0[] = { 2, 0x40, 0 }, file1[] = { 4, 0x40, 0 },
			     file2[] = { 6, 0x40, 0 };
	size_t words = f == GO12 ? 1 : f == GO116 ? 7 : 8, i, w[8] = { 0 };
	size_t name[2], ln[2], fl[2], ftab = 0, func[2], fileoff = 0, s_a, s_b;
	size_t fs = f >= GO118 ? 4 : 8, nbase, pbase, fbase, k = f >= GO118;

	memset(t, 0, sizeof(*t));
	put32(t, magics[f]);
	put(t, (uint8_t[]){ 0, 0, 1, 8 }, 4);
	for (i = 0; i < words; i++)
		put64(t, 0);
	if (f == GO12) {	/* the functab follows the count, then filetab's offset */
		ftab = t->n;
		for (i = 0; i < 5; i++)
			put64(t, 0);
		fileoff = put32(t, 0);
	}
	/* funcnametab (1.2: names anywhere, offsets from the table's start) */
	w[2 + k] = t->n;
	nbase = f == GO12 ? 0 : t->n;
	put(t, "", 1);
	name[0] = put(t, "main.alpha", 11) - nbase;
	name[1] = put(t, "main.beta", 10) - nbase;
	/* cutab (1.16+): each function a CU of one file */
	w[3 + k] = t->n;
	if (f != GO12) {
		put32(t, 0);
		put32(t, 5);
	}
	/* the file names (1.16+: filetab) */
	w[4 + k] = t->n;
	fbase = f == GO12 ? 0 : t->n;
	s_a = put(t, "a.go", 5) - fbase;
	s_b = put(t, "b.go", 5) - fbase;
	/* pctab */
	w[5 + k] = t->n;
	pbase = f == GO12 ? 0 : t->n;
	put(t, "", 1);
	ln[0] = put(t, ln_a, sizeof(ln_a)) - pbase;
	ln[1] = put(t, ln_b, sizeof(ln_b)) - pbase;
	fl[0] = put(t, f == GO12 ? file1 : file0, 3) - pbase;
	fl[1] = put(t, f == GO12 ? file2 : file0, 3) - pbase;
	while (t->n % 8)
		put(t, "", 1);
	if (f == GO12) {	/* filetab: its count (its own slot included), offsets */
		set32(t, fileoff, (uint32_t)t->n);
		put32(t, 3);
		put32(t, (uint32_t)s_a);
		put32(t, (uint32_t)s_b);
		put32(t, 0);
	} else {	/* pclntable: the functab first, func offsets from it */
		w[6 + k] = t->n;
		ftab = t->n;
		for (i = 0; i < 5; i++)
			fs == 4 ? put32(t, 0) : put64(t, 0);
		while (t->n % 8)
			put(t, "", 1);
	}
	for (i = 0; i < 2; i++) {
		uint64_t entry = TEXT + 0x40 * i;

		func[i] = t->n;
		if (fs == 4)
			put32(t, (uint32_t)(entry - TEXT));
		else
			put64(t, entry);
		put32(t, (uint32_t)name[i]);
		put32(t, 0);		/* args */
		put32(t, 0);		/* deferreturn */
		put32(t, 0);		/* pcsp */
		put32(t, (uint32_t)fl[i]);
		put32(t, (uint32_t)ln[i]);
		put32(t, 0);		/* npcdata */
		if (f != GO12)
			put32(t, (uint32_t)i);	/* cuOffset */
		if (f == GO120)
			put32(t, 10);	/* startLine */
		put32(t, 0);		/* funcID, flag, pad, nfuncdata */
	}
	for (i = 0; i < 3; i++) {
		uint64_t pc = fs == 4 ? 0x40 * i : TEXT + 0x40 * i;
		size_t fo = i < 2 ? func[i] - (f == GO12 ? 0 : ftab) : 0;

		if (fs == 4) {
			set32(t, ftab + 2 * i * fs, (uint32_t)pc);
			if (i < 2)
				set32(t, ftab + (2 * i + 1) * fs, (uint32_t)fo);
		} else {
			set64(t, ftab + 2 * i * fs, pc);
			if (i < 2)
				set64(t, ftab + (2 * i + 1) * fs, fo);
		}
	}
	w[0] = 2;
	w[1] = 2;
	if (f >= GO118)
		w[2] = TEXT;
	for (i = 0; i < words; i++)
		set64(t, 8 + 8 * i, w[i]);
}

static void expect(struct gosym *g, uint64_t va, const char *fn, const char *file, int line)
{
	struct gosym_frame fr[4];
	size_t n = gosym_lookup(g, va, fr, 4);

	if (!fn) {
		assert_int_equal(n, 0);
		return;
	}
	assert_int_equal(n, 1);
	assert_string_equal(fr[0].fn, fn);
	assert_string_equal(fr[0].file, file);
	assert_int_equal(fr[0].line, line);
}

static void test_formats(void **state)
{
	enum fmt f;

	(void)state;
	for (f = GO12; f <= GO120; f++) {
		struct tab t;
		struct gosym *g;

		build(&t, f);
		g = gosym__from_table(t.b, sizeof(t.b), 0x600000);
		assert_non_null(g);
		assert_int_equal(gosym_magic(g), magics[f]);
		expect(g, TEXT, "main.alpha", "a.go", 10);
		expect(g, TEXT + 0xf, "main.alpha", "a.go", 10);
		expect(g, TEXT + 0x10, "main.alpha", "a.go", 11);
		expect(g, TEXT + 0x3f, "main.alpha", "a.go", 11);
		expect(g, TEXT + 0x40, "main.beta", "b.go", 20);
		expect(g, TEXT + 0x7f, "main.beta", "b.go", 20);
		expect(g, TEXT + 0x80, NULL, NULL, 0);
		expect(g, TEXT - 1, NULL, NULL, 0);
		expect(g, 0, NULL, NULL, 0);
		expect(g, UINT64_MAX, NULL, NULL, 0);
		gosym__free(g);
	}
}

/* Every lookup over [TEXT - 16, TEXT + 0x90): no crash, names terminated. */
static void lookups(struct gosym *g, uint64_t lo, uint64_t hi, uint64_t step)
{
	struct gosym_frame fr[9];
	uint64_t va;

	for (va = lo; va < hi; va += step) {
		size_t n = gosym_lookup(g, va, fr, 9), i;

		assert_true(n <= 9);
		for (i = 0; i < n; i++) {
			assert_non_null(fr[i].fn);
			assert_true(strlen(fr[i].fn) > 0);
			if (fr[i].file)
				assert_true(strlen(fr[i].file) > 0);
		}
	}
}

static void test_malformed(void **state)
{
	enum fmt f;

	(void)state;
	for (f = GO12; f <= GO120; f++) {
		struct tab t, bad;
		struct gosym *g;
		size_t n, at;

		build(&t, f);
		/* every truncation: parsed or not, never out of bounds */
		for (n = 0; n < 700; n++) {
			g = gosym__from_table(t.b, n, 0x600000);
			if (g)
				lookups(g, TEXT - 16, TEXT + 0x90, 1);
			gosym__free(g);
		}
		/* a huge function count; each header word all ones */
		for (at = 8; at < (f == GO12 ? 16 : f == GO116 ? 64 : 72); at += 8) {
			bad = t;
			set64(&bad, at, UINT64_MAX);
			g = gosym__from_table(bad.b, sizeof(bad.b), 0x600000);
			if (g)
				lookups(g, TEXT - 16, TEXT + 0x90, 1);
			gosym__free(g);
			bad = t;
			set64(&bad, at, 0x7fffffff);
			g = gosym__from_table(bad.b, sizeof(bad.b), 0x600000);
			if (g)
				lookups(g, TEXT - 16, TEXT + 0x90, 1);
			gosym__free(g);
		}
		/* everything after the header set to 0xff: varints that never
		 * end, names without a NUL, offsets far out */
		bad = t;
		memset(bad.b + 80, 0xff, sizeof(bad.b) - 80);
		g = gosym__from_table(bad.b, sizeof(bad.b), 0x600000);
		if (g)
			lookups(g, TEXT - 16, TEXT + 0x90, 1);
		gosym__free(g);
	}
	/* not a table */
	assert_null(gosym__from_table("\xfb\xff\xff\xff\0\0\3\x08", 8, 0));
	assert_null(gosym__from_table("\xfc\xff\xff\xff\0\0\1\x08xxxxxxxxxxxxxxxx", 24, 0));
	assert_null(gosym__open(-1));
	assert_null(gosym__open(open("/dev/null", O_RDONLY)));
}

/* Each byte of every format's table set to each of 0, 0x80, 0xff: no crash. */
static void test_every_byte(void **state)
{
	static const uint8_t vals[] = { 0, 1, 0x7f, 0x80, 0xff };
	enum fmt f;

	(void)state;
	for (f = GO12; f <= GO120; f++) {
		struct tab t, bad;
		size_t at, k;

		build(&t, f);
		for (at = 0; at < 640; at++)
			for (k = 0; k < sizeof(vals); k++) {
				struct gosym *g;

				bad = t;
				bad.b[at] = vals[k];
				g = gosym__from_table(bad.b, sizeof(bad.b), 0x600000);
				if (g)
					lookups(g, TEXT - 8, TEXT + 0x88, 3);
				gosym__free(g);
			}
	}
}

/* build/tests/goburn's path into @path: false without it (golang-go), a failure in CI. */
static bool goburn(char *path)
{
	const char *ci = getenv("CI");

	if (find_built("tests/goburn", path) == 0)
		return true;
	if (ci && strcmp(ci, "true") == 0)
		fail_msg("no build/tests/goburn in CI (golang-go: scripts/install-deps.sh)");
	return false;
}

/* The .gopclntab of @path: its bytes (malloc'd) and its address. */
static uint8_t *section_of(const char *path, size_t *len, uint64_t *va)
{
	int fd = open(path, O_RDONLY);
	uint8_t *out = NULL;
	Elf_Scn *scn = NULL;
	size_t shstr;
	Elf *e;

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	assert_int_equal(elf_getshdrstrndx(e, &shstr), 0);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		const char *nm;

		if (!gelf_getshdr(scn, &sh) || !(nm = elf_strptr(e, shstr, sh.sh_name)) ||
		    strcmp(nm, ".gopclntab") != 0)
			continue;
		d = elf_getdata(scn, NULL);
		assert_non_null(d);
		out = malloc(d->d_size);
		assert_non_null(out);
		memcpy(out, d->d_buf, d->d_size);
		*len = d->d_size;
		*va = sh.sh_addr;
	}
	elf_end(e);
	close(fd);
	assert_non_null(out);
	return out;
}

/*
 * goburn's own table with 1 to 16 random bytes changed, 400 times (the
 * first 4 KiB, header and functab, twice as often as the rest), then 2000
 * random lookups in and around its text; and the file itself so changed
 * (its table, moduledata, inline trees), opened from disk.
 */
static void test_fuzz_goburn(void **state)
{
	char path[PATH_MAX], tmp[] = "/tmp/gosym-fuzz.XXXXXX";
	uint64_t rng = 0x9e3779b97f4a7c15u, va, text;
	size_t len, it, k, parsed = 0;
	uint8_t *tab, *bad;
	struct gosym *g;

	(void)state;
	if (!goburn(path))
		skip();
	tab = section_of(path, &len, &va);
	g = gosym__from_table(tab, len, va);
	assert_non_null(g);
	/* the table is sound: main.burnLong is in it */
	text = 0;
	memcpy(&text, tab + 8 + 2 * 8, 8);
	assert_true(text > 0);
	gosym__free(g);
	bad = malloc(len);
	assert_non_null(bad);
	for (it = 0; it < 400; it++) {
		size_t nflip = 1 + rng_next(&rng) % 16;

		memcpy(bad, tab, len);
		for (k = 0; k < nflip; k++) {
			size_t at = rng_next(&rng) % 3 ? rng_next(&rng) % (len < 4096 ? len : 4096)
						       : rng_next(&rng) % len;

			bad[at] = (uint8_t)rng_next(&rng);
		}
		g = gosym__from_table(bad, len, va);
		if (g) {
			parsed++;
			for (k = 0; k < 2000; k++) {
				uint64_t a = text - 64 + rng_next(&rng) % (4u << 20);

				lookups(g, a, a + 1, 1);
			}
			lookups(g, text - 64, text + 64 * 1024, 61);
		}
		gosym__free(g);
	}
	free(bad);
	free(tab);
	/* most changes leave a table that parses: the lookups ran */
	assert_true(parsed > 100);

	/* the file on disk: 60 copies, each with 64 random bytes changed */
	{
		int fd = mkstemp(tmp), src;
		struct stat st;
		uint8_t *img;

		assert_true(fd >= 0);
		src = open(path, O_RDONLY);
		assert_true(src >= 0);
		assert_int_equal(fstat(src, &st), 0);
		img = malloc((size_t)st.st_size);
		bad = malloc((size_t)st.st_size);
		assert_non_null(img);
		assert_non_null(bad);
		assert_int_equal(pread(src, img, (size_t)st.st_size, 0), st.st_size);
		close(src);
		for (it = 0; it < 60; it++) {
			memcpy(bad, img, (size_t)st.st_size);
			for (k = 0; k < 64; k++)
				bad[64 + rng_next(&rng) % ((size_t)st.st_size - 64)] = (uint8_t)rng_next(&rng);
			assert_int_equal(pwrite(fd, bad, (size_t)st.st_size, 0), st.st_size);
			g = gosym__open(open(tmp, O_RDONLY));
			if (g)
				lookups(g, text - 64, text + (1u << 20), 97);
			gosym__free(g);
		}
		close(fd);
		unlink(tmp);
		free(img);
		free(bad);
	}
}

/* The unchanged goburn: main.burnLong named, with main.mix inlined in it. */
static void test_goburn_inline(void **state)
{
	char path[PATH_MAX];
	struct gosym_frame fr[9];
	struct gosym *g;
	uint64_t va, text = 0;
	size_t len, n;
	uint8_t *tab;
	bool burn = false, mix = false;

	(void)state;
	if (!goburn(path))
		skip();
	tab = section_of(path, &len, &va);
	memcpy(&text, tab + 8 + 2 * 8, 8);
	free(tab);
	g = gosym__open(open(path, O_RDONLY));
	assert_non_null(g);
	assert_int_equal(gosym_magic(g), 0xfffffff0);	/* golang-go 1.19 */
	for (va = text; va < text + (8u << 20); va++) {
		n = gosym_lookup(g, va, fr, 9);
		if (!n || strcmp(fr[n - 1].fn, "main.burnLong") != 0)
			continue;
		burn = true;
		if (n == 2 && strcmp(fr[0].fn, "main.mix") == 0)
			mix = true;
	}
	assert_true(burn);
	assert_true(mix);
	gosym__free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_every_byte),
		cmocka_unit_test(test_fuzz_goburn),
		cmocka_unit_test(test_goburn_inline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
