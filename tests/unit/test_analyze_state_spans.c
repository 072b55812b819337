// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: analyze/out/state_spans.c, a task's scheduler states as the
 * boot chart draws them: exact spans when every piece is at least the
 * quantum (worked out by hand), clipped to the window; 100000 preemptions
 * of a second-long task (a quantum of 500 us) merged into the state that
 * took most of the time, a long wait among them kept exact; overlapping
 * (hostile) intervals; and over random trains of intervals, spans that
 * tile the window, never more than 2 * window / quantum + 1 of them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "analyze/out/state_spans.h"
#include "tests/unit/rng.h"

#define MAXSPANS 65536 /* 3 pieces an interval, 20000 intervals at most */

struct got {
	struct state_span s[MAXSPANS];
	size_t n;
};

static void collect(const struct state_span *s, void *arg)
{
	struct got *g = arg;

	assert_true(g->n < MAXSPANS);
	g->s[g->n++] = *s;
}

static struct tl_off off(uint64_t out, uint64_t dur, uint64_t runnable, char state)
{
	struct tl_off o = { .out = out, .dur = dur, .runnable = runnable, .state = (uint8_t)state };

	return o;
}

static size_t spans_of(struct tl_off *offs, size_t n, uint64_t lo, uint64_t hi, uint64_t q,
		       struct got *g)
{
	struct tl_task t = { .offs = offs, .noffs = n };
	size_t k, got;

	g->n = 0;
	got = state_spans(&t, lo, hi, q, collect, g);
	assert_int_equal(got, g->n);
	/* always: they tile [lo, hi), and neighbours differ */
	for (k = 0; k < g->n; k++) {
		assert_true(g->s[k].to > g->s[k].from);
		assert_int_equal(g->s[k].from, k ? g->s[k - 1].to : lo);
		if (k)
			assert_int_not_equal(g->s[k].state, g->s[k - 1].state);
	}
	if (hi > lo)
		assert_int_equal(g->s[g->n - 1].to, hi);
	return got;
}

static void assert_span(const struct got *g, size_t k, enum st_kind st, uint64_t from, uint64_t to)
{
	assert_true(k < g->n);
	assert_int_equal(g->s[k].state, st);
	assert_int_equal(g->s[k].from, from);
	assert_int_equal(g->s[k].to, to);
}

/* Slept 100..300 (woken at 200), preempted 500..600 (R: no wake), in D 700..900 (woken at 850). */
static struct tl_off three[3];

static void setup_three(void)
{
	three[0] = off(100, 200, 100, 'S');
	three[1] = off(500, 100, TL_NONE, 'R');
	three[2] = off(700, 200, 50, 'D');
}

static void test_exact(void **state)
{
	static struct got g;

	(void)state;
	setup_three();
	assert_int_equal(spans_of(three, 3, 0, 1000, 1, &g), 9);
	assert_span(&g, 0, ST_RUNNING, 0, 100);
	assert_span(&g, 1, ST_BLOCKED, 100, 200);
	assert_span(&g, 2, ST_RUNNABLE, 200, 300);
	assert_span(&g, 3, ST_RUNNING, 300, 500);
	assert_span(&g, 4, ST_RUNNABLE, 500, 600);
	assert_span(&g, 5, ST_RUNNING, 600, 700);
	assert_span(&g, 6, ST_BLOCKED_D, 700, 850);
	assert_span(&g, 7, ST_RUNNABLE, 850, 900);
	assert_span(&g, 8, ST_RUNNING, 900, 1000);
	/* a quantum of 50: every piece is as long, still exact */
	assert_int_equal(spans_of(three, 3, 0, 1000, 50, &g), 9);
	assert_span(&g, 6, ST_BLOCKED_D, 700, 850);
	/* T (stopped) and unknown states are drawn blocked (S), as --by state counts them */
	three[0].state = 'T';
	spans_of(three, 3, 0, 1000, 1, &g);
	assert_span(&g, 1, ST_BLOCKED, 100, 200);
}

static void test_window(void **state)
{
	static struct got g;

	(void)state;
	setup_three();
	assert_int_equal(spans_of(three, 3, 150, 750, 1, &g), 6);
	assert_span(&g, 0, ST_BLOCKED, 150, 200);
	assert_span(&g, 1, ST_RUNNABLE, 200, 300);
	assert_span(&g, 5, ST_BLOCKED_D, 700, 750);
	/* no interval: running throughout */
	assert_int_equal(spans_of(three, 0, 0, 1000, 1, &g), 1);
	assert_span(&g, 0, ST_RUNNING, 0, 1000);
	/* an empty window: nothing */
	assert_int_equal(spans_of(three, 3, 400, 400, 1, &g), 0);
}

/*
 * A task alive 1 s, preempted 100000 times (every 10 us), drawn at 1/2000
 * of the second: 500 us, a dozen of its intervals to a quantum.
 */
static void test_many_preemptions(void **state)
{
	static struct tl_off offs[100001];
	static struct got g;
	const uint64_t s = 1000000000, q = s / 2000;
	size_t k, n = 0;
	bool waited = false;

	(void)state;
	/* 2 us waiting for a CPU in each 10: running dominates, one span */
	for (k = 0; k < 100000; k++)
		offs[k] = off(k * 10000 + 2000, 2000, TL_NONE, 'R');
	assert_int_equal(spans_of(offs, 100000, 0, s, q, &g), 1);
	assert_span(&g, 0, ST_RUNNING, 0, s);
	/* 8 us in each 10: runnable dominates */
	for (k = 0; k < 100000; k++)
		offs[k] = off(k * 10000 + 2000, 8000, TL_NONE, 'R');
	assert_int_equal(spans_of(offs, 100000, 0, s, q, &g), 1);
	assert_span(&g, 0, ST_RUNNABLE, 0, s);
	/* the same with a 100 ms disk wait (D) from 400 ms, woken at 490 ms:
	 * the wait and its runnable tail exact, whatever is around them */
	for (k = 0; k < 100000; k++) {
		uint64_t at = k * 10000 + 2000;

		if (at >= 400000000 && at < 500000000)
			continue;
		if (at >= 500000000 && !waited) {
			offs[n++] = off(400000000, 100000000, 10000000, 'D');
			waited = true;
		}
		offs[n++] = off(at, 2000, TL_NONE, 'R');
	}
	spans_of(offs, n, 0, s, q, &g);
	assert_int_equal(g.n, 4);
	assert_span(&g, 0, ST_RUNNING, 0, 400000000);
	assert_span(&g, 1, ST_BLOCKED_D, 400000000, 490000000);
	assert_span(&g, 2, ST_RUNNABLE, 490000000, 500000000);
	assert_span(&g, 3, ST_RUNNING, 500000000, s);
}

/* Intervals that overlap (hostile rows): each starts after the last one ended. */
static void test_overlap(void **state)
{
	struct tl_off offs[4] = {
		off(100, 500, 0, 'S'),		/* 100..600, blocked throughout */
		off(200, 100, 50, 'D'),		/* inside it: nothing left */
		off(550, 100, 100, 'S'),	/* 550..650: runnable, from 600 */
		off(5000, 10, 10, 'R'),		/* past the window */
	};
	static struct got g;

	(void)state;
	assert_int_equal(spans_of(offs, 4, 0, 1000, 1, &g), 4);
	assert_span(&g, 0, ST_RUNNING, 0, 100);
	assert_span(&g, 1, ST_BLOCKED, 100, 600);
	assert_span(&g, 2, ST_RUNNABLE, 600, 650);
	assert_span(&g, 3, ST_RUNNING, 650, 1000);
}

/* Random trains of intervals of every length: the bound, and the long pieces exact. */
static void test_random_bound(void **state)
{
	static struct tl_off offs[20000];
	static struct got g;
	uint64_t seed = 0x5eed5eedULL;
	int round;

	(void)state;
	for (round = 0; round < 50; round++) {
		uint64_t at = 0, hi, q = 1 + rng_next(&seed) % 100000;
		size_t n = 1 + rng_next(&seed) % 20000, k, got;

		for (k = 0; k < n; k++) {
			/* lengths from 1 ns to about 2^(0..20) ns */
			uint64_t gap = rng_next(&seed) % (1u << (rng_next(&seed) % 21));
			uint64_t dur = 1 + rng_next(&seed) % (1u << (rng_next(&seed) % 21));
			uint64_t run = rng_next(&seed) % (dur + 1);
			const char *st = "RSDT";

			offs[k] = off(at + gap, dur, rng_next(&seed) % 8 ? run : TL_NONE,
				      st[rng_next(&seed) % 4]);
			at += gap + dur;
		}
		hi = at + rng_next(&seed) % 1000;
		got = spans_of(offs, n, 0, hi, q, &g);
		assert_true(got <= 2 * hi / q + 1);
		/* a blocked piece at least q long is a span of its own, exact */
		for (k = 0; k < n; k++) {
			uint64_t wake = timeline_off_wake(&offs[k]);
			size_t i;

			if (wake - offs[k].out < q)
				continue;
			for (i = 0; i < g.n; i++)
				if (g.s[i].from <= offs[k].out && g.s[i].to >= wake)
					break;
			assert_true(i < g.n);
			assert_int_equal(g.s[i].state, offs[k].state == 'D' ? ST_BLOCKED_D : ST_BLOCKED);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_many_preemptions),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_random_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
