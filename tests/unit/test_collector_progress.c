// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: collector/run/progress.c: the --runs progress line. The running p50
 * of known values (nearest rank), the ETA of k runs of a known mean, the
 * analyzer's exec rule (init, else not a runtime's), marks, phases a boot
 * did not reach, and the line itself, whole and cut to the terminal.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "collector/run/progress.h"

#define MS 1000000ULL
#define S 1000000000ULL

/*
 * One boot: begins at @t, start row at @t + 0.1 ms, exec @exec_us and
 * listen @listen_us after it (0: none), ends @len_ms after @t.
 */
static void boot(struct progress *p, unsigned long long t, unsigned long long exec_us,
		 unsigned long long listen_us, unsigned long long len_ms)
{
	unsigned long long start = t + 100000;

	progress_run_begin(p, t);
	progress_start(p, start);
	if (exec_us)
		progress_exec(p, start + exec_us * 1000, false, false);
	if (listen_us)
		progress_reached(p, PROGRESS_LISTEN, start + listen_us * 1000);
	progress_run_end(p, t + len_ms * MS);
}

/* p50 of {12.1, 11.8, 12.4, 13.0, 11.9} ms as they come: 12.1, 11.8, 12.1, 12.1, 12.1 */
static void test_running_p50(void **state)
{
	static const unsigned long long listen_us[] = { 12100, 11800, 12400, 13000, 11900 };
	static const long long want[] = { 12100, 11800, 12100, 12100, 12100 };
	struct progress *p = progress__new(5, NULL, 0, "listen");
	long long v;
	size_t i;

	(void)state;
	assert_non_null(p);
	assert_false(progress_p50(p, PROGRESS_LISTEN, &v));
	for (i = 0; i < 5; i++) {
		boot(p, i * S, 2900, listen_us[i], 100);
		assert_true(progress_p50(p, PROGRESS_LISTEN, &v));
		assert_int_equal(v, want[i] * 1000);
		assert_true(progress_last(p, PROGRESS_LISTEN, &v));
		assert_int_equal(v, (long long)listen_us[i] * 1000);
	}
	/* 1, 2, 3, 4, 5 of the same value, and a phase nobody reached */
	assert_true(progress_p50(p, PROGRESS_EXEC, &v));
	assert_int_equal(v, 2900000);
	assert_false(progress_p50(p, PROGRESS_MARK, &v));
	assert_int_equal(progress_done(p), 5);
	progress__free(p);
}

/* ETA: 3 runs of 2 s done of 10: 7 × 2 s, less the 4th's 0.5 s so far */
static void test_eta(void **state)
{
	struct progress *p = progress__new(10, NULL, 0, NULL);
	unsigned long long eta, t = 5 * S;
	int i;

	(void)state;
	assert_non_null(p);
	progress_run_begin(p, t);
	assert_false(progress_eta_ns(p, t + S, &eta));	/* nothing to average yet */
	progress_run_end(p, t + 2 * S);
	for (i = 1; i < 3; i++)
		boot(p, t + (unsigned long long)i * 2 * S, 1000, 0, 2000);
	assert_true(progress_eta_ns(p, t + 6 * S, &eta));
	assert_int_equal(eta, 14 * S);
	progress_run_begin(p, t + 6 * S);
	assert_true(progress_eta_ns(p, t + 6 * S + S / 2, &eta));
	assert_int_equal(eta, 13 * S + S / 2);
	/* a run slower than the mean says 0, not a wrapped number */
	assert_true(progress_eta_ns(p, t + 6 * S + 100 * S, &eta));
	assert_int_equal(eta, 0);
	progress__free(p);

	/* mean 1.25 s of runs 1 s and 1.5 s, 2 left of 4: 2.5 s */
	p = progress__new(4, NULL, 0, NULL);
	assert_non_null(p);
	boot(p, 0, 1000, 0, 1000);
	boot(p, S, 1000, 0, 1500);
	assert_true(progress_eta_ns(p, 3 * S, &eta));
	assert_int_equal(eta, 2500 * MS);
	progress__free(p);
}

/*
 * The exec phase is the analyzer's: the first init exec, else the first
 * that is not a runtime's; the start is the earliest start row (client
 * mode: the client's spawn, then the mkdir).
 */
static void test_exec_rule(void **state)
{
	struct progress *p = progress__new(3, NULL, 0, "exec");
	long long v;

	(void)state;
	assert_non_null(p);
	/* runc's /proc/self/exe, then the entrypoint marked init */
	progress_run_begin(p, 0);
	progress_start(p, 1000 * MS);		/* the mkdir */
	progress_start(p, 900 * MS);		/* the client's spawn, written first in fact */
	progress_exec(p, 950 * MS, false, true);
	progress_exec(p, 960 * MS, true, false);
	progress_exec(p, 970 * MS, false, false);	/* the entrypoint's own exec of a script */
	progress_run_end(p, 2 * S);
	assert_true(progress_last(p, PROGRESS_EXEC, &v));
	assert_int_equal(v, 60 * MS);
	/* no init mark (compat, legacy objects): the first that is no runtime's */
	progress_run_begin(p, 2 * S);
	progress_start(p, 2 * S);
	progress_exec(p, 2 * S + 5 * MS, false, true);
	progress_exec(p, 2 * S + 7 * MS, false, false);
	progress_exec(p, 2 * S + 9 * MS, false, false);
	progress_run_end(p, 3 * S);
	assert_true(progress_last(p, PROGRESS_EXEC, &v));
	assert_int_equal(v, 7 * MS);
	/* only a runtime exec: no exec phase this time; the p50 keeps the others */
	progress_run_begin(p, 3 * S);
	progress_start(p, 3 * S);
	progress_exec(p, 3 * S + 5 * MS, false, true);
	progress_run_end(p, 4 * S);
	assert_false(progress_last(p, PROGRESS_EXEC, &v));
	assert_true(progress_p50(p, PROGRESS_EXEC, &v));
	assert_int_equal(v, 7 * MS);	/* of {7, 60}: rank 1 */
	progress__free(p);
}

/*
 * Marks: one phase per label (a label given twice is one, and one named
 * listen is the listen phase, as in the analyzer), the first mark row.
 */
static void test_marks(void **state)
{
	static const char *const labels[] = { "config", "ready", "config", "listen" };
	struct progress *p = progress__new(2, labels, 4, NULL);
	char line[256];
	long long v;
	int ready;

	(void)state;
	assert_non_null(p);
	assert_int_equal(progress_phase_of(p, "config"), PROGRESS_MARK);
	ready = progress_phase_of(p, "ready");
	assert_int_equal(ready, PROGRESS_MARK + 1);
	assert_int_equal(progress_phase_of(p, "exec"), PROGRESS_EXEC);
	assert_int_equal(progress_phase_of(p, "listen"), PROGRESS_LISTEN);
	assert_int_equal(progress_phase_of(p, "other"), -1);
	progress_run_begin(p, 0);
	progress_start(p, 0);
	progress_exec(p, 3 * MS, false, false);
	progress_reached(p, ready, 20 * MS);
	progress_reached(p, ready, 15 * MS);	/* earlier: the first counts */
	progress_reached(p, 99, 1 * MS);	/* no such phase: ignored */
	progress_run_end(p, 100 * MS);
	assert_true(progress_last(p, ready, &v));
	assert_int_equal(v, 15 * MS);
	assert_false(progress_last(p, PROGRESS_MARK, &v));
	/* no listen: the AUTO p50 is exec's */
	progress_format(p, 100 * MS, line, sizeof(line), 0);
	assert_string_equal(line, "run 1/2 \xc2\xb7 exec 3.0 ms ready 15.0 ms \xc2\xb7 p50 exec 3.0 ms "
				  "\xc2\xb7 ETA 1 s");
	progress__free(p);

	p = progress__new(2, labels, 3, "ready");
	assert_non_null(p);
	progress_run_begin(p, 0);
	progress_start(p, 0);
	progress_reached(p, PROGRESS_MARK + 1, 15 * MS);
	progress_run_end(p, 100 * MS);
	progress_run_begin(p, 100 * MS);
	progress_format(p, 150 * MS, line, sizeof(line), 0);
	assert_string_equal(line, "run 2/2 \xc2\xb7 ready 15.0 ms \xc2\xb7 p50 ready 15.0 ms "
				  "\xc2\xb7 ETA 1 s");
	/* the last run's line, as it ends: nothing left to wait for, no ETA */
	progress_start(p, 100 * MS);
	progress_reached(p, PROGRESS_MARK + 1, 125 * MS);
	progress_run_end(p, 200 * MS);
	progress_format(p, 200 * MS, line, sizeof(line), 0);
	assert_string_equal(line, "run 2/2 \xc2\xb7 ready 25.0 ms \xc2\xb7 p50 ready 15.0 ms");
	progress__free(p);
}

/* The line: before a run ends, during, after; the units; cut to the terminal. */
static void test_format(void **state)
{
	struct progress *p = progress__new(10, NULL, 0, "listen");
	char line[256], small[16];
	size_t n;
	int i;

	(void)state;
	assert_non_null(p);
	progress_run_begin(p, 10 * S);
	n = progress_format(p, 10 * S + 400 * MS, line, sizeof(line), 0);
	assert_string_equal(line, "run 1/10 \xc2\xb7 0.4 s");
	assert_int_equal(n, strlen(line));
	progress_start(p, 10 * S);
	progress_exec(p, 10 * S + 2900 * 1000, false, false);
	progress_reached(p, PROGRESS_LISTEN, 10 * S + 11800 * 1000);
	progress_run_end(p, 10 * S + 500 * MS);
	for (i = 1; i < 6; i++)
		boot(p, 10 * S + (unsigned long long)i * 500 * MS, 430, 12100, 500);
	/* after the 6th: its phases, p50 of {11.8, 12.1 x5}, 4 × 0.5 s left */
	progress_format(p, 13 * S, line, sizeof(line), 0);
	assert_string_equal(line, "run 6/10 \xc2\xb7 exec 0.43 ms listen 12.1 ms \xc2\xb7 "
				  "p50 listen 12.1 ms \xc2\xb7 ETA 2 s");
	/* the 7th under way: 0.3 s of it, 1.7 s left, rounded up */
	progress_run_begin(p, 13 * S);
	progress_format(p, 13 * S + 300 * MS, line, sizeof(line), 0);
	assert_string_equal(line, "run 7/10 \xc2\xb7 exec 0.43 ms listen 12.1 ms \xc2\xb7 "
				  "p50 listen 12.1 ms \xc2\xb7 ETA 2 s");
	/* cut to 20 columns: 19 of them, " · " counting as 3 */
	n = progress_format(p, 13 * S + 300 * MS, line, sizeof(line), 20);
	assert_string_equal(line, "run 7/10 \xc2\xb7 exec 0.4");
	assert_int_equal(n, 20);	/* bytes: the middle dot is 2 */
	/* a buffer too small: cut, terminated */
	n = progress_format(p, 13 * S, small, sizeof(small), 0);
	assert_int_equal(n, sizeof(small) - 1);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	progress__free(p);
}

/* Long phases in seconds, a long ETA in minutes and hours. */
static void test_units(void **state)
{
	struct progress *p = progress__new(100, NULL, 0, "exec");
	char line[256];

	(void)state;
	assert_non_null(p);
	boot(p, 0, 12300000, 0, 62000);	/* exec 12.3 s, 62 s a run */
	progress_format(p, 62 * S, line, sizeof(line), 0);
	/* 99 × 62 s = 6138 s: 1 h 42 min */
	assert_string_equal(line, "run 1/100 \xc2\xb7 exec 12.3 s \xc2\xb7 p50 exec 12.3 s "
				  "\xc2\xb7 ETA 1 h 42 min");
	progress__free(p);
	p = progress__new(3, NULL, 0, "exec");
	assert_non_null(p);
	boot(p, 0, 9999, 0, 62500);	/* 2 × 62.5 s = 125 s */
	progress_format(p, 62500 * MS, line, sizeof(line), 0);
	assert_string_equal(line, "run 1/3 \xc2\xb7 exec 10.0 ms \xc2\xb7 p50 exec 10.0 ms "
				  "\xc2\xb7 ETA 2 min 05 s");
	progress__free(p);
	assert_null(progress__new(0, NULL, 0, "exec"));
	progress__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_running_p50),
		cmocka_unit_test(test_eta),
		cmocka_unit_test(test_exec_rule),
		cmocka_unit_test(test_marks),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_units),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
