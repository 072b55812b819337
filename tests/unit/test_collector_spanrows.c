// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: collector/rows/spanrows.c, span records paired into spans per
 * thread: nesting and depth, a require that raised (no return) ended by
 * its caller's return at the last time seen inside it, a return with no
 * enter dropped, a point, threads apart, forget; and common/span_detail.c
 * reading back what collector/run/records.c writes, hostile bytes included.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "collector/rows/spanrows.h"
#include "common/span_detail.h"

struct got {
	struct { unsigned long long ts, dur; unsigned depth, kind; char name[64]; bool raised; int found; } v[16];
	int n;
};

static void emit(void *arg, const struct span_done *d)
{
	struct got *g = arg;

	assert_true(g->n < 16);
	g->v[g->n].ts = d->ts;
	g->v[g->n].dur = d->dur;
	g->v[g->n].depth = d->depth;
	g->v[g->n].kind = d->kind;
	g->v[g->n].raised = d->raised;
	g->v[g->n].found = d->found;
	snprintf(g->v[g->n].name, sizeof(g->v[g->n].name), "%.*s", (int)d->name_len, d->name);
	g->n++;
}

static void rec(struct spanrows *s, struct got *g, unsigned tid, unsigned long long ts,
		unsigned kind, unsigned phase, const char *name, long long arg)
{
	struct bt_span_event e;

	memset(&e, 0, sizeof(e));
	e.hdr.ts_ns = ts;
	e.hdr.type = BT_EV_SPAN;
	e.hdr.pid = 100;
	e.hdr.tid = tid;
	e.kind = (unsigned char)kind;
	e.phase = (unsigned char)phase;
	e.name_len = (unsigned short)strlen(name);
	memcpy(e.name, name, e.name_len);
	e.arg = arg;
	spanrows_event(s, &e, emit, g);
}

static void test_nesting_and_raise(void **state)
{
	struct spanrows *s = spanrows__new();
	struct got g = { .n = 0 };

	(void)state;
	assert_non_null(s);
	rec(s, &g, 1, 100, BT_SPAN_REQUIRE, BT_SPAN_ENTER, "app", 0);
	rec(s, &g, 1, 110, BT_SPAN_REQUIRE, BT_SPAN_ENTER, "a", 0);
	rec(s, &g, 1, 120, BT_SPAN_REQUIRE, BT_SPAN_ENTER, "missing", 0);	/* raises */
	rec(s, &g, 1, 130, BT_SPAN_REQUIRE, BT_SPAN_ENTER, "inner", 0);
	rec(s, &g, 1, 140, BT_SPAN_REQUIRE, BT_SPAN_RETURN, "inner", 0);
	rec(s, &g, 2, 145, BT_SPAN_REQUIRE, BT_SPAN_RETURN, "a", 0);	/* other thread: nothing */
	rec(s, &g, 1, 150, BT_SPAN_REQUIRE, BT_SPAN_RETURN, "a", 0);
	assert_int_equal(g.n, 3);
	assert_string_equal(g.v[0].name, "inner");
	assert_int_equal(g.v[0].depth, 3);
	assert_int_equal(g.v[0].dur, 10);
	/* missing raised: ended when the last thing inside it did (inner's return) */
	assert_string_equal(g.v[1].name, "missing");
	assert_true(g.v[1].raised);
	assert_int_equal(g.v[1].dur, 20);
	assert_int_equal(g.v[1].depth, 2);
	assert_string_equal(g.v[2].name, "a");
	assert_false(g.v[2].raised);
	assert_int_equal(g.v[2].dur, 40);
	assert_int_equal(g.v[2].depth, 1);
	/* a return never entered: dropped; then app's own */
	rec(s, &g, 1, 160, BT_SPAN_LOAD, BT_SPAN_RETURN, "app", 0);
	assert_int_equal(g.n, 3);
	rec(s, &g, 1, 170, BT_SPAN_REQUIRE, BT_SPAN_RETURN, "app", 0);
	assert_int_equal(g.n, 4);
	assert_int_equal(g.v[3].dur, 70);
	assert_int_equal(g.v[3].depth, 0);
	spanrows__free(s);
}

static void test_import_point_forget(void **state)
{
	struct spanrows *s = spanrows__new();
	struct got g = { .n = 0 };

	(void)state;
	rec(s, &g, 3, 10, BT_SPAN_IMPORT, BT_SPAN_ENTER, "nope", 0);
	rec(s, &g, 3, 15, BT_SPAN_CLASS, BT_SPAN_POINT, "java/lang/X", 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.v[0].dur, 0);
	assert_int_equal(g.v[0].depth, 1);
	rec(s, &g, 3, 20, BT_SPAN_IMPORT, BT_SPAN_RETURN, "nope", 0);	/* found=0 */
	assert_int_equal(g.n, 2);
	assert_int_equal(g.v[1].found, 0);
	rec(s, &g, 3, 30, BT_SPAN_IMPORT, BT_SPAN_ENTER, "open", 0);
	spanrows_forget(s, 100);
	rec(s, &g, 3, 40, BT_SPAN_IMPORT, BT_SPAN_RETURN, "open", 1);
	assert_int_equal(g.n, 2);	/* forgotten at the exit */
	spanrows__free(s);
}

static void test_detail(void **state)
{
	const char s[] = "what=7:a b\tc=d caller=6:x.rb 1 line=42 future=word raised=1 found=0";
	struct span_detail d;

	(void)state;
	assert_int_equal(span_detail_parse(s, strlen(s), &d), 0);
	assert_int_equal(d.what_n, 7);
	assert_memory_equal(d.what, "a b\tc=d", 7);
	assert_int_equal(d.caller_n, 6);
	assert_memory_equal(d.caller, "x.rb 1", 6);
	assert_int_equal(d.line, 42);
	assert_true(d.raised);
	assert_true(d.not_found);
	assert_false(d.error);
	assert_int_equal(span_detail_parse("what=9:ab", 9, &d), -1);	/* LEN past the end */
	assert_int_equal(span_detail_parse("caller=1:a", 10, &d), -1);	/* no what */
	assert_int_equal(span_detail_parse("what=1:ab", 9, &d), -1);	/* junk after */
	assert_int_equal(span_detail_parse("what", 4, &d), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nesting_and_raise),
		cmocka_unit_test(test_import_point_forget),
		cmocka_unit_test(test_detail),
	};

	return cmocka_run_group_tests_name("collector_spanrows", tests, NULL, NULL);
}
