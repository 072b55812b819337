// SPDX-License-Identifier: BSD-2-Clause
/* cmocka: analyze/read/frames.c, and the reader refusing a bad stack row. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "analyze/read/frames.h"
#include "analyze/read/reader.h"

#define BID "0123456789abcdef0123456789ABCDEF01234567"

static int parse(const char *s, struct frame *f, char *err)
{
	return frames_parse(s, strlen(s), f, err, 200);
}

static void test_every_kind(void **state)
{
	static const char s[] = "k:do_sys_open+0x1f k:0xffffffff81000000 b:" BID "+0x1139 "
				"f:15:/usr/lib/a b.so+0x20 j:9:LazyC x:1 u:0x7f00 f:6:[vdso]+0xc01";
	struct frame f[FRAMES_MAX];
	char err[200];
	int n;

	(void)state;
	n = parse(s, f, err);
	assert_int_equal(n, 7);
	assert_int_equal(f[0].kind, FRAME_KSYM);
	assert_int_equal(f[0].name_len, 11);
	assert_memory_equal(f[0].name, "do_sys_open", 11);
	assert_int_equal(f[0].off, 0x1f);
	assert_int_equal(f[1].kind, FRAME_KADDR);
	assert_true(f[1].off == 0xffffffff81000000ull);
	assert_int_equal(f[2].kind, FRAME_BUILD_ID);
	assert_int_equal(f[2].build_id[0], 0x01);
	assert_int_equal(f[2].build_id[10], 0x45);
	assert_int_equal(f[2].build_id[19], 0x67);
	assert_int_equal(f[2].off, 0x1139);
	assert_int_equal(f[3].kind, FRAME_FILE);
	assert_int_equal(f[3].name_len, 15);
	assert_memory_equal(f[3].name, "/usr/lib/a b.so", 15);
	assert_int_equal(f[3].off, 0x20);
	assert_int_equal(f[4].kind, FRAME_JIT);
	assert_int_equal(f[4].name_len, 9);
	assert_memory_equal(f[4].name, "LazyC x:1", 9);
	assert_int_equal(f[5].kind, FRAME_UADDR);
	assert_int_equal(f[5].off, 0x7f00);
	assert_int_equal(f[6].kind, FRAME_FILE);
	assert_memory_equal(f[6].name, "[vdso]", 6);
	assert_int_equal(parse("", f, err), 0);
}

/* Hostile bytes in a LEN: field are its own, spaces, '+0x' and all. */
static void test_hostile_names(void **state)
{
	static const char s[] = "j:11:a;b\"<&> +0x u:0x1";
	struct frame f[FRAMES_MAX];
	char err[200];

	(void)state;
	assert_int_equal(parse(s, f, err), 2);
	assert_memory_equal(f[0].name, "a;b\"<&> +0x", 11);
	assert_int_equal(f[1].kind, FRAME_UADDR);
	/* a kernel name with '+' in it: the last "+0x" is the offset */
	assert_int_equal(parse("k:a+b+0x1", f, err), 1);
	assert_int_equal(f[0].name_len, 3);
}

static void test_malformed(void **state)
{
	static const char *const bad[] = {
		"x:1", "k:", "k:+0x1", "k:foo", "k:foo+0x", "k:foo+0xzz", "k:0x12345678901234567",
		"b:" BID, "b:0123+0x1", "b:" BID "+1", "b:" BID "+0x1z",
		"b:0123456789abcdef0123456789abcdef0123456g+0x1",
		"f:5:/a+0x1", "f:0:+0x1", "f::/a+0x1", "f:2:/a", "f:2:/a+0x1x", "f:99999999999999999999:a",
		"j:5:abc", "j:0:", "j:3:abcd", "u:12", "u:0x", "u:0x1 ", " u:0x1", "u:0x1  u:0x2",
		"k", ":", "b", "k:a+0x1\tu:0x1",
	};
	char err[200];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		if (parse(bad[i], NULL, err) != -1)
			fail_msg("accepted '%s'", bad[i]);
		assert_true(err[0] != 0);
	}
}

static void test_too_many(void **state)
{
	char s[FRAMES_MAX * 8 + 16], err[200];
	size_t at = 0;
	int i;

	(void)state;
	for (i = 0; i < FRAMES_MAX; i++)
		at += (size_t)sprintf(s + at, "%su:0x%x", i ? " " : "", i + 1);
	assert_int_equal(frames_parse(s, at, NULL, err, sizeof(err)), FRAMES_MAX);
	at += (size_t)sprintf(s + at, " u:0x1");
	assert_int_equal(frames_parse(s, at, NULL, err, sizeof(err)), -1);
}

/* LEN counts bytes after unescaping. */
static void test_field_unescape(void **state)
{
	static const char esc[] = "f:4:/a\\tb+0x10 j:3:\\xff\\\\\\n";
	struct frame f[FRAMES_MAX];
	char scratch[sizeof(esc)], err[200];

	(void)state;
	assert_int_equal(frames_parse_field(esc, strlen(esc), scratch, f, err, sizeof(err)), 2);
	assert_memory_equal(f[0].name, "/a\tb", 4);
	assert_int_equal(f[0].name_len, 4);
	assert_memory_equal(f[1].name, "\xff\\\n", 3);
	assert_int_equal(frames_parse_field("\\N", 2, scratch, f, err, sizeof(err)), 0);
	assert_int_equal(frames_parse_field("u:0x1\\q", 7, scratch, f, err, sizeof(err)), -1);
}

#define HEAD "# boottrace-tsv 1\n" TSV_HEADER "\n"
#define ROWP "100\tc1\t\\N\t1\t1\t0\tsh\t"

static int read_all(const char *s, unsigned flags, char *err, uint64_t *rows)
{
	FILE *tmp = tmpfile();
	struct tsv_reader *r;
	struct tsv_row row;
	int rc;

	assert_non_null(tmp);
	assert_int_equal(fwrite(s, 1, strlen(s), tmp), strlen(s));
	fflush(tmp);
	lseek(fileno(tmp), 0, SEEK_SET);
	r = tsv_reader__new("p.tsv", fileno(tmp), flags);
	assert_non_null(r);
	*rows = 0;
	while ((rc = tsv_reader_next(r, &row)) == 1)
		(*rows)++;
	snprintf(err, 512, "%s", tsv_reader_error(r));
	tsv_reader__free(r);
	fclose(tmp);
	return rc;
}

/* The reader refuses a malformed stack row with FILE:LINE, or skips it when lenient. */
/* what a row's error ends with: the way out (analyze --lenient) */
#define LENIENT "; --lenient skips and counts such lines"

static void test_reader_rows(void **state)
{
	char err[512];
	uint64_t rows;

	(void)state;
	assert_int_equal(read_all(HEAD ROWP "stack\t1\t\\N\t\\N\tu:0x1 k:f+0x2\n"
				  ROWP "sample\t1\t\\N\t1001001\tcpu=0\n", 0, err, &rows), 0);
	assert_int_equal(rows, 2);
	assert_int_equal(read_all(HEAD ROWP "sample\t1\t\\N\t1\tcpu=0\n"
				  ROWP "stack\t1\t\\N\t\\N\tu:0x1 q:2\n", 0, err, &rows), -1);
	assert_string_equal(err, "p.tsv:4: bad frame: unknown kind 'q'" LENIENT);
	/* short rows take the fast path: the check is there too */
	assert_int_equal(read_all(HEAD ROWP "stack\t1\t\\N\t\\N\tu:1\n"
				  ROWP "sample\t1\t\\N\t1\tcpu=0\n"
				  "# padding padding padding padding padding padding padding\n"
				  "# padding padding padding padding padding padding padding\n",
				  0, err, &rows), -1);
	assert_string_equal(err, "p.tsv:3: bad user address frame" LENIENT);
	assert_int_equal(read_all(HEAD ROWP "sample\tx1\t\\N\t1\tcpu=0\n", 0, err, &rows), -1);
	assert_string_equal(err, "p.tsv:3: sample row: bad stack id" LENIENT);
	assert_int_equal(read_all(HEAD ROWP "stack\t1\t\\N\t\\N\tu:1\n"
				  ROWP "sample\t1\t\\N\t1\tcpu=0\n", TSV_LENIENT, err, &rows), 0);
	assert_int_equal(rows, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_kind),
		cmocka_unit_test(test_hostile_names),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_too_many),
		cmocka_unit_test(test_field_unescape),
		cmocka_unit_test(test_reader_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
