// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: analyze/boot/spans.c and the timeline's span rows: self time is
 * the span less its children (one level deeper, same thread), names add up
 * over processes and threads, order by self; the innermost span over an
 * interval (the critical path's: over most of it, else holding its start); a detail that does not parse keeps the
 * row with what ""; the hostile name stays escaped; --sort total, the self
 * time by scheduler state, the file that asked (not rubygems' wrapper).
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

#include "analyze/boot/analysis.h"
#include "analyze/boot/spans.h"
#include "analyze/boot/timeline.h"
#include "tests/unit/critpath_fixture.h"

#define HEAD "# boottrace-tsv 1\n# mode=cgroup\n" TSV_HEADER "\n"
/* ts tid depth dur detail: a span row of process 10 (ruby) */
#define S(ts, tid, kind, depth, dur, detail) \
	ts "\tapp\t\\N\t10\t" tid "\t1\truby\tspan\t" kind "\t" depth "\t" dur "\t" detail "\n"

static const char rows[] = HEAD
	"100\tapp\t\\N\t10\t10\t1\truby\tstart\tspawn\t\\N\t\\N\truby\n"
	/* child rows come first in the file, as the collector writes them */
	S("200", "10", "require", "1", "300", "what=1:a")
	S("600", "10", "require", "1", "100", "what=1:b")
	S("150", "10", "require", "0", "1000", "what=3:app")
	S("300", "11", "require", "0", "50", "what=1:a")
	S("2000", "10", "load", "0", "40", "what=9:we\\tird.rb caller=2:x\\n line=3")
	S("3000", "10", "import", "0", "7", "bogus");

static void test_self_and_order(void **state)
{
	struct analysis *a = load_tsv(rows);
	const struct tl_container *c = &a->tl->ctrs[0];
	struct span_stat *v;
	size_t n;

	(void)state;
	assert_true(c->has_spans);
	assert_int_equal(spans_of(a->tl, c, 0, TL_NONE, &v, &n), 0);
	assert_int_equal(n, 5);
	/* app: 1000 - (300 + 100) */
	assert_string_equal(timeline_str(a->tl, v[0].what), "app");
	assert_int_equal(v[0].self, 600);
	assert_int_equal(v[0].total, 1000);
	/* a: 300 in one thread, 50 in another */
	assert_string_equal(timeline_str(a->tl, v[1].what), "a");
	assert_int_equal(v[1].self, 350);
	assert_int_equal(v[1].count, 2);
	assert_int_equal(v[1].depth, 0);
	assert_string_equal(timeline_str(a->tl, v[2].what), "b");
	/* the hostile name kept escaped, as strings are */
	assert_string_equal(timeline_str(a->tl, v[3].what), "we\\tird.rb");
	/* a detail that does not parse: what "" */
	assert_string_equal(timeline_str(a->tl, v[4].what), "");
	assert_string_equal(timeline_str(a->tl, v[4].kind), "import");
	free(v);
	/* a window to 400: app cut to 250, a to 200 (its child time), b not started */
	assert_int_equal(spans_of(a->tl, c, 0, 400, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(timeline_str(a->tl, v[0].what), "a");
	assert_int_equal(v[0].self, 250);
	assert_int_equal(v[1].self, 50);	/* app: 250 - 200 */
	free(v);
	analysis__free(a);
}

static void test_span_over(void **state)
{
	struct analysis *a = load_tsv(rows);
	const struct tl_container *c = &a->tl->ctrs[0];
	const struct tl_task *t = &c->tasks[timeline_find_task(c, 10)];
	const struct tl_span *s;

	(void)state;
	s = timeline_span_over(t, 250, 260);
	assert_non_null(s);
	assert_string_equal(timeline_str(a->tl, s->what), "a");
	/* straddles a's end: app holds it all */
	s = timeline_span_over(t, 450, 550);
	assert_string_equal(timeline_str(a->tl, s->what), "app");
	/* between a and b, inside app */
	s = timeline_span_over(t, 520, 530);
	assert_string_equal(timeline_str(a->tl, s->what), "app");
	/* starts before app, ends 10 ns past it: app covers most of it */
	s = timeline_span_over(t, 140, 1160);
	assert_non_null(s);
	assert_string_equal(timeline_str(a->tl, s->what), "app");
	/* in app, over a but 10 before it and 20 after: a, the innermost over most */
	s = timeline_span_over(t, 190, 520);
	assert_string_equal(timeline_str(a->tl, s->what), "a");
	/* a over exactly half: app, which holds it all */
	s = timeline_span_over(t, 400, 600);
	assert_string_equal(timeline_str(a->tl, s->what), "app");
	/* starts 5 before load (2000..2040) and runs 5 past its end: load, 40 of 50 */
	s = timeline_span_over(t, 1995, 2045);
	assert_non_null(s);
	assert_string_equal(timeline_str(a->tl, s->what), "we\\tird.rb");
	/* starts in b, ends past app: b, the innermost holding the start */
	s = timeline_span_over(t, 650, 5000);
	assert_string_equal(timeline_str(a->tl, s->what), "b");
	assert_null(timeline_span_over(t, 1500, 1600));
	assert_null(timeline_span_over(t, 100, 120));
	analysis__free(a);
}

/*
 * A Ruby boot (process 10): app.rb line 3 loads /app/many.rb (10 -> 230
 * ms), which requires 40 files of 5 ms each through rubygems (caller
 * kernel_require.rb line 85); then app.rb line 5 requires slowpoke (300
 * -> 450 ms), preempted 100 ms (310 -> 410: runnable) and asleep 10 ms
 * (420 -> 430, then runnable 1 ms). By self, slowpoke (150 ms) comes
 * first; by total, many.rb (220 ms); each require of many.rb is asked by
 * many.rb, not rubygems; slowpoke's self is 39 ms running, 101 ms
 * runnable, 10 ms blocked.
 */
#define KREQ "/usr/lib/ruby/3.1.0/rubygems/core_ext/kernel_require.rb"
static char *many_tsv(void)
{
	size_t cap = 64 * 1024, at = 0;
	char *b = malloc(cap);
	int i;

	assert_non_null(b);
	at += (size_t)snprintf(b + at, cap - at, "%s%s", HEAD,
			       "1000000\tapp\t\\N\t10\t10\t1\truby\tstart\tspawn\t\\N\t\\N\truby\n");
	at += (size_t)snprintf(b + at, cap - at, S("10000000", "10", "load", "0", "220000000",
			       "what=12:/app/many.rb caller=11:/app/app.rb line=3"));
	for (i = 0; i < 40; i++)
		at += (size_t)snprintf(b + at, cap - at, "%d\tapp\t\\N\t10\t10\t1\truby\tspan\t"
				       "require\t1\t5000000\twhat=7:lib/r%02d caller=%zu:%s line=85\n",
				       10500000 + i * 5400000, i, strlen(KREQ), KREQ);
	at += (size_t)snprintf(b + at, cap - at, "%s%s%s",
			       S("300000000", "10", "require", "0", "150000000",
				 "what=8:slowpoke caller=11:/app/app.rb line=5"),
			       "310000000\tapp\t\\N\t10\t10\t1\truby\tsched\tR\t100000000\t"
			       "100000000\tcpu=0\n",
			       "420000000\tapp\t\\N\t10\t10\t1\truby\tsched\tS\t1000000\t"
			       "11000000\tcpu=0\n");
	assert_true(at < cap);
	return b;
}

static const struct span_stat *stat_of(const struct analysis *a, const struct span_stat *v,
				       size_t n, const char *what)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(timeline_str(a->tl, v[i].what), what) == 0)
			return &v[i];
	fail_msg("no span %s", what);
	return NULL;
}

static void test_total_states_and_asker(void **state)
{
	char *tsv = many_tsv();
	struct analysis *a = load_tsv(tsv);
	const struct tl_container *c = &a->tl->ctrs[0];
	const struct span_stat *x;
	struct span_stat *v;
	size_t n;

	(void)state;
	free(tsv);
	assert_int_equal(spans_of(a->tl, c, 0, TL_NONE, &v, &n), 0);
	assert_int_equal(n, 42);
	/* by self: slowpoke, 150 ms */
	assert_string_equal(timeline_str(a->tl, v[0].what), "slowpoke");
	/* by total: many.rb, 220 ms, its 40 requires' 200 ms in it */
	spans_sort_total(v, n);
	assert_string_equal(timeline_str(a->tl, v[0].what), "/app/many.rb");
	assert_int_equal(v[0].total, 220000000);
	assert_int_equal(v[0].self, 20000000);
	/* asked by app.rb:3; its requires by many.rb, not rubygems' kernel_require.rb */
	assert_string_equal(timeline_str(a->tl, v[0].from), "/app/app.rb");
	assert_int_equal(v[0].from_line, 3);
	x = stat_of(a, v, n, "lib/r17");
	assert_int_equal(x->total, 5000000);
	assert_string_equal(timeline_str(a->tl, x->from), "/app/many.rb");
	assert_int_equal(x->from_line, 0);
	/* the self time by state, with sched rows */
	x = stat_of(a, v, n, "slowpoke");
	assert_true(x->states);
	assert_int_equal(x->st[SPAN_RUNNING], 39000000);
	assert_int_equal(x->st[SPAN_RUNNABLE], 101000000);
	assert_int_equal(x->st[SPAN_BLOCKED], 10000000);
	assert_string_equal(timeline_str(a->tl, x->from), "/app/app.rb");
	assert_int_equal(x->from_line, 5);
	/* many.rb's self: running throughout (no sched row in it), its children left out */
	x = stat_of(a, v, n, "/app/many.rb");
	assert_int_equal(x->st[SPAN_RUNNING], 20000000);
	free(v);
	analysis__free(a);
}

static void test_loaders(void **state)
{
	(void)state;
	assert_true(spans_is_loader(KREQ));
	assert_true(spans_is_loader("<internal:" KREQ ">"));
	assert_true(spans_is_loader("/gems/bootsnap-1.16/lib/bootsnap/load_path_cache/core_ext/"
				    "kernel_require.rb"));
	assert_true(spans_is_loader("/gems/zeitwerk-2.6/lib/zeitwerk/kernel.rb"));
	assert_true(spans_is_loader("/usr/lib/ruby/3.3.0/bundled_gems.rb"));
	assert_true(spans_is_loader("/usr/share/rubygems-integration/all/gems/activesupport-6.1.7.10/"
				    "lib/active_support/dependencies.rb"));
	assert_false(spans_is_loader("/app/config/initializers/kernel.rb"));
	assert_false(spans_is_loader("/app/my_kernel_require.rb"));
	assert_false(spans_is_loader("/app/app.rb"));
	assert_false(spans_is_loader(""));
}

/* Hostile lengths: no sum wraps (the printers take int64_t). */
static void test_hostile_lengths(void **state)
{
	static const char tsv[] = HEAD
		"100\tapp\t\\N\t10\t10\t1\truby\tstart\tspawn\t\\N\t\\N\truby\n"
		S("200", "10", "require", "0", "18446744073709551615", "what=1:a")
		S("300", "11", "require", "0", "18446744073709551615", "what=1:a")
		S("400", "10", "require", "1", "18446744073709551615", "what=1:b");
	struct analysis *a = load_tsv(tsv);
	struct span_stat *v;
	size_t n, i;

	(void)state;
	assert_int_equal(spans_of(a->tl, &a->tl->ctrs[0], 0, TL_NONE, &v, &n), 0);
	assert_int_equal(n, 2);
	for (i = 0; i < n; i++) {
		assert_true(v[i].total <= (uint64_t)INT64_MAX);
		assert_true(v[i].self <= v[i].total);
	}
	free(v);
	analysis__free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self_and_order),
		cmocka_unit_test(test_span_over),
		cmocka_unit_test(test_hostile_lengths),
		cmocka_unit_test(test_total_states_and_asker),
		cmocka_unit_test(test_loaders),
	};

	return cmocka_run_group_tests_name("analyze_spans", tests, NULL, NULL);
}
