// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: jit rows (docs/tsv-format.md, Jit rows). common/jit_detail.c
 * (the detail written and read back, hostile names, malformed ones);
 * analyze/boot/jitnames.c's rewrite of one stack (u: frames named, the
 * rest as they were, escapes kept) and its application to a timeline:
 * the samples of the row's pid before the rows' time named, a later
 * process of that pid and another process not, the later of two entries
 * at one address, and analyze/boot/profile.c counting the names; the
 * reader refusing a bad jit row with its line.
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

#include "analyze/boot/jitnames.h"
#include "analyze/boot/profile.h"
#include "analyze/read/reader.h"
#include "common/jit_detail.h"
#include "common/tsv.h"

static void test_detail(void **state)
{
	const char hostile[] = "void A.b(int)\tx \\n y";
	struct jit_detail d = { 0x7f0000000100ULL, 0x80, hostile, sizeof(hostile) - 1 }, e;
	char out[256];
	size_t n;

	(void)state;
	n = jit_detail_format(&d, out, sizeof(out));
	assert_int_equal(n, strlen(out));
	assert_string_equal(out, "start=0x7f0000000100 size=0x80 name=20:void A.b(int)\tx \\n y");
	assert_int_equal(jit_detail_parse(out, n, &e), 0);
	assert_int_equal(e.start, d.start);
	assert_int_equal(e.size, 0x80);
	assert_int_equal(e.name_n, d.name_n);
	assert_memory_equal(e.name, hostile, d.name_n);
	assert_int_equal(jit_detail_format(&d, out, 30), 0);	/* no room: nothing */
	/* keys in any order, a later version's skipped */
	assert_int_equal(jit_detail_parse("name=1:x later=7 size=0x10 start=0x1", 36, &e), 0);
	assert_int_equal(e.start, 1);
#define BAD(s) assert_int_equal(jit_detail_parse(s, strlen(s), &e), -1)
	BAD("start=0x1 size=0x10");			/* no name */
	BAD("start=0x1 size=0x0 name=1:x");		/* empty */
	BAD("start=0xffffffffffffffff size=0x2 name=1:x");	/* past 2^64 */
	BAD("start=1 size=0x10 name=1:x");		/* not hex */
	BAD("start=0x10000000000000000 size=0x1 name=1:x");	/* 17 digits */
	BAD("start=0x1 size=0x10 name=5:x");		/* LEN past the end */
	BAD("start=0x1 size=0x10 name=0:");
	BAD("start=0x1 size=0x10 name=1:xy");		/* junk after it */
	BAD("start=0x1 size=0x10 name");
#undef BAD
}

static void test_rewrite(void **state)
{
	const struct jitname v[] = {
		{ 0x1000, 0x1100, "void A.hot(int)", 15 },
		{ 0x2000, 0x2010, "tab\there", 8 },
	};
	/* as the file has them: escaped (a tab in a path is \t) */
	const char esc[] = "k:do_sys+0x10 u:0x1010 f:4:/a\\tb+0x10 u:0x1fff u:0x2008";
	char out[4096], scratch[512];
	struct frame fr[FRAMES_MAX];
	size_t n;

	(void)state;
	n = jitnames_rewrite(v, 2, esc, sizeof(esc) - 1, out, sizeof(out), scratch, fr);
	assert_int_not_equal(n, 0);
	out[n] = '\0';
	assert_string_equal(out, "k:do_sys+0x10 j:15:void A.hot(int) f:4:/a\\tb+0x10 u:0x1fff "
				 "j:8:tab\\there");
	/* nothing named: 0, the stack as it was */
	assert_int_equal(jitnames_rewrite(v, 2, "u:0x5000", 8, out, sizeof(out), scratch, fr), 0);
	assert_int_equal(jitnames_rewrite(v, 2, "k:x+0x1", 7, out, sizeof(out), scratch, fr), 0);
	assert_int_equal(jitnames_rewrite(v, 2, "u:0x1010 bad", 12, out, sizeof(out), scratch, fr), 0);
	assert_int_equal(jitnames_rewrite(v, 2, esc, sizeof(esc) - 1, out, 64, scratch, fr), 0);
}

static int row(struct jitnames **jit, struct timeline *tl, const char *line)
{
	static char buf[1024];
	struct tsv_row r;
	char err[128];
	size_t n = strlen(line);

	memset(buf, 0, sizeof(buf));
	memcpy(buf, line, n);
	assert_int_equal(tsv_parse_row(buf, n, &r, err, sizeof(err)), 0);
	if (tsv_is_null(r.f[TSV_EVENT].p, 0) || (r.f[TSV_EVENT].n == 3 &&
						 !memcmp(r.f[TSV_EVENT].p, "jit", 3)))
		return jitnames_add(jit, &r);
	return timeline_add_row(tl, &r);
}

static long fn_total(const struct profile *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->ctrs[0].nfns; i++)
		if (!strcmp(profile_fn_name(p, p->ctrs[0].fns[i].fn), name))
			return (long)p->ctrs[0].fns[i].total;
	return -1;
}

static void test_apply(void **state)
{
	struct timeline *tl = timeline__new();
	struct jitnames *jit = NULL;
	struct profile *p;

	(void)state;
	assert_non_null(tl);
	assert_int_equal(timeline_begin_file(tl), 0);
#define R(s) assert_int_equal(row(&jit, tl, s), 0)
	R("100\tc\t\\N\t7\t7\t1\tjava\tstart\tspawn\t\\N\t\\N\tjava");
	R("1000\tc\t\\N\t7\t8\t1\tjava\tstack\t1\t\\N\t\\N\tu:0x1010 j:4:main");
	R("1000\tc\t\\N\t7\t8\t1\tjava\tstack\t2\t\\N\t\\N\tu:0x2008 u:0x1010 j:4:main");
	R("1001\tc\t\\N\t7\t8\t1\tjava\tsample\t1\t\\N\t1000000\tcpu=0");
	R("1002\tc\t\\N\t7\t8\t1\tjava\tsample\t2\t\\N\t1000000\tcpu=0");
	R("1003\tc\t\\N\t7\t8\t1\tjava\tsample\t1\t\\N\t1000000\tcpu=0");
	/* another process, the same stack: not its map */
	R("1004\tc\t\\N\t9\t9\t1\tnode\tsample\t1\t\\N\t1000000\tcpu=0");
	/* pid 7's rows at its exit: one entry at 0x1000 twice (the later wins) */
	R("2000\tc\t\\N\t7\t8\t1\tjava\tjit\tperfmap\t\\N\t\\N\tstart=0x1000 size=0x100 name=3:old");
	R("2000\tc\t\\N\t7\t8\t1\tjava\tjit\tperfmap\t\\N\t\\N\tstart=0x2000 size=0x10 name=6:B.cold");
	R("2000\tc\t\\N\t7\t8\t1\tjava\tjit\tperfmap\t\\N\t\\N\tstart=0x1000 size=0x100 name=5:A.hot");
	/* a later process given pid 7: after the rows, not named by them */
	R("3000\tc\t\\N\t7\t8\t1\tjava\tsample\t1\t\\N\t1000000\tcpu=0");
#undef R
	assert_int_equal(timeline_set_phase(tl, 0, 1, 5000), 0);
	timeline_end_file(tl, 0);
	assert_int_equal(timeline_finish(tl), 0);
	assert_int_equal(jitnames_apply(jit, tl), 0);

	p = profile__new(tl, 1, &(struct profile_opts){ .no_system = true });
	assert_non_null(p);
	assert_int_equal(p->ctrs[0].samples, 5);
	assert_int_equal(fn_total(p, "A.hot"), 3);	/* pid 7's 3 samples before its rows */
	assert_int_equal(fn_total(p, "B.cold"), 1);
	assert_int_equal(fn_total(p, "old"), -1);
	assert_int_equal(fn_total(p, "[unknown]"), 2);	/* pid 9's, and the later pid 7's */
	profile__free(p);
	timeline__free(tl);
	jitnames__free(jit);
	assert_int_equal(jitnames_apply(NULL, NULL), 0);	/* no jit rows: nothing */
}

static void test_reader(void **state)
{
	static const char good[] =
		"# boottrace-tsv 1\n"
		"ts_ns\tcontainer\tcgroup_id\tpid\ttid\tppid\tcomm\tevent\tname\tret\tdur_ns\tdetail\n"
		"2000\tc\t\\N\t7\t8\t1\tjava\tjit\tperfmap\t\\N\t\\N\tstart=0x1000 size=0x100 name=5:A.hot\n";
	static const char bad[] =
		"# boottrace-tsv 1\n"
		"ts_ns\tcontainer\tcgroup_id\tpid\ttid\tppid\tcomm\tevent\tname\tret\tdur_ns\tdetail\n"
		"2000\tc\t\\N\t7\t8\t1\tjava\tjit\tperfmap\t\\N\t\\N\tstart=0x1000 name=5:A.hot\n";
	const char *const texts[] = { good, bad };
	struct tsv_row r;
	int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		char path[] = "/tmp/bt-jitrow-XXXXXX";
		int fd = mkstemp(path), rc;
		struct tsv_reader *rd;

		assert_true(fd >= 0);
		unlink(path);
		assert_int_equal(write(fd, texts[i], strlen(texts[i])), (ssize_t)strlen(texts[i]));
		assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
		assert_non_null(rd = tsv_reader__new("t.tsv", fd, 0));
		rc = tsv_reader_next(rd, &r);
		if (i == 0) {
			assert_int_equal(rc, 1);
		} else {
			assert_int_equal(rc, -1);
			assert_non_null(strstr(tsv_reader_error(rd), "t.tsv:3: jit row: bad detail"));
		}
		tsv_reader__free(rd);
		close(fd);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detail),
		cmocka_unit_test(test_rewrite),
		cmocka_unit_test(test_apply),
		cmocka_unit_test(test_reader),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
