// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: analyze/boot/profile.c on synthetic rows: self and total per
 * function in the boot window, recursion counted once in total, samples
 * outside the window left out, a missing stack row "[unknown]", and
 * out/profile_report.c's folded stacks (root first, _[k], ';' as ':'),
 * one line per distinct stack however many raw stacks print alike.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analyze/boot/profile.h"
#include "analyze/out/profile_report.h"
#include "analyze/read/reader.h"

/* A row: ts, comm, tid, event, name, dur, detail. */
static void add(struct timeline *tl, const char *ts, const char *comm, const char *tid,
		const char *ev, const char *name, const char *dur, const char *detail)
{
	static char buf[1024];
	struct tsv_row r;
	char err[128];
	int n;

	memset(buf, 0, sizeof(buf));
	n = snprintf(buf, sizeof(buf) - 16, "%s\tc\t\\N\t%s\t%s\t1\t%s\t%s\t%s\t\\N\t%s\t%s", ts,
		     tid, tid, comm, ev, name, dur, detail);
	assert_int_equal(tsv_parse_row(buf, (size_t)n, &r, err, sizeof(err)), 0);
	assert_int_equal(timeline_add_row(tl, &r), 0);
}

static long fn_self(const struct profile *p, const struct prof_ctr *pc, const char *name,
		    uint64_t *total)
{
	size_t i;

	for (i = 0; i < pc->nfns; i++)
		if (strcmp(profile_fn_name(p, pc->fns[i].fn), name) == 0) {
			*total = pc->fns[i].total;
			return (long)pc->fns[i].self;
		}
	return -1;
}

static void test_self_total_folded(void **state)
{
	struct timeline *tl = timeline__new();
	struct profile *p;
	const struct prof_ctr *pc;
	uint64_t total;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int i;

	(void)state;
	assert_non_null(tl);
	assert_int_equal(timeline_begin_file(tl), 0);
	add(tl, "100", "sh", "5", "start", "mkdir", "\\N", "/c");
	/* stack 1: leaf_a <- mid <- mid (recursion) ; stack 2: a kernel frame on top of mid */
	add(tl, "1000", "sh", "5", "stack", "1", "\\N",
	    "j:6:leaf_a j:3:mid j:3:mid j:8:root;x y");
	add(tl, "1000", "sh", "5", "stack", "2", "\\N", "k:do_work+0x10 j:3:mid j:8:root;x y");
	for (i = 0; i < 6; i++) {
		char ts[32];

		snprintf(ts, sizeof(ts), "%d", 1000 + i);
		add(tl, ts, "sh", "5", "sample", i < 4 ? "1" : "2", "1000000", "cpu=0");
	}
	add(tl, "1100", "sh", "5", "sample", "9", "1000000", "cpu=0");	/* no stack row */
	add(tl, "99999", "sh", "5", "sample", "1", "1000000", "cpu=0");	/* after the phase */
	assert_int_equal(timeline_set_phase(tl, 0, 1, 5000), 0);
	timeline_end_file(tl, 0);
	assert_int_equal(timeline_finish(tl), 0);

	p = profile__new(tl, 1, &(struct profile_opts){ .no_system = true });
	assert_non_null(p);
	assert_true(p->any);
	assert_int_equal(p->nctrs, 1);
	pc = &p->ctrs[0];
	assert_int_equal(pc->samples, 7);
	assert_int_equal(pc->cpu_ns, 7000000);
	assert_int_equal(pc->period_ns, 1000000);
	assert_int_equal(fn_self(p, pc, "leaf_a", &total), 4);
	assert_int_equal(total, 4);
	assert_int_equal(fn_self(p, pc, "mid", &total), 0);
	assert_int_equal(total, 6);	/* recursion: once per sample */
	assert_int_equal(fn_self(p, pc, "do_work", &total), 2);
	assert_int_equal(fn_self(p, pc, "[unknown]", &total), 1);
	assert_string_equal(profile_fn_module(p, pc->fns[0].fn), "[jit]");
	assert_string_equal(profile_fn_name(p, pc->fns[0].fn), "leaf_a");

	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(profile_print(f, p, "listen", NULL, 0, FMT_FOLDED, 20), 0);
	fclose(f);
	assert_string_equal(buf, "sh;root:x y;mid;mid;leaf_a 4\n"
				 "sh;root:x y;mid;do_work_[k] 2\n"
				 "sh;[unknown] 1\n");
	free(buf);
	profile__free(p);
	timeline__free(tl);
}

/*
 * Three raw stacks that print alike (a kernel function at two offsets; a
 * name with ';' against one with ':') and a fourth that does not: two
 * lines, in order of first appearance, their counts summed (issue 28).
 */
static void test_folded_distinct(void **state)
{
	static const char *const stacks[] = {
		"k:do_work+0x10 j:3:mid j:8:root;x y",
		"j:4:leaf j:3:mid j:8:root;x y",
		"k:do_work+0x24 j:3:mid j:8:root;x y",
		"k:do_work+0x10 j:3:mid j:8:root:x y",
	};
	static const int counts[] = { 1, 2, 4, 8 };
	struct timeline *tl = timeline__new();
	struct profile *p;
	char *buf = NULL, ts[32], id[8];
	size_t len = 0;
	int i, k, t = 1000;
	FILE *f;

	(void)state;
	assert_non_null(tl);
	assert_int_equal(timeline_begin_file(tl), 0);
	add(tl, "100", "sh", "5", "start", "mkdir", "\\N", "/c");
	for (i = 0; i < 4; i++) {
		snprintf(id, sizeof(id), "%d", i + 1);
		add(tl, "1000", "sh", "5", "stack", id, "\\N", stacks[i]);
	}
	for (i = 0; i < 4; i++)
		for (k = 0; k < counts[i]; k++) {
			snprintf(ts, sizeof(ts), "%d", t++);
			snprintf(id, sizeof(id), "%d", i + 1);
			add(tl, ts, "sh", "5", "sample", id, "1000000", "cpu=0");
		}
	assert_int_equal(timeline_set_phase(tl, 0, 1, 5000), 0);
	timeline_end_file(tl, 0);
	assert_int_equal(timeline_finish(tl), 0);
	p = profile__new(tl, 1, &(struct profile_opts){ .no_system = true });
	assert_non_null(p);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(profile_print(f, p, "listen", NULL, 0, FMT_FOLDED, 20), 0);
	fclose(f);
	assert_string_equal(buf, "sh;root:x y;mid;do_work_[k] 13\n"
				 "sh;root:x y;mid;leaf 2\n");
	free(buf);
	profile__free(p);
	timeline__free(tl);
}

static void test_folded_name(void **state)
{
	char out[64];
	size_t n;

	(void)state;
	n = profile_folded_name("a;b\tc\nd", 7, out);
	out[n] = 0;
	assert_string_equal(out, "a:b\\tc\\nd");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self_total_folded),
		cmocka_unit_test(test_folded_distinct),
		cmocka_unit_test(test_folded_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
