// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: collector/run/runs.c: when a boot must be stopped before its
 * phase and why (a signal before -d before --timeout, --timeout no more
 * once the phase is reached), what each boot's end says on stderr (nothing
 * for a boot the collector stopped at its phase), and the exit status of
 * the runs: 0, the last command's with --until end, 124 for a boot that
 * never reached its phase or runs -d left undone, 128 + the signal.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "collector/collector.h"
#include "collector/run/runs.h"

#define S 1000000000ULL

static void test_stop_due(void **state)
{
	struct collector c = { 0 };
	enum boot_end how;

	(void)state;
	assert_false(runs_stop_due(&c, 0, 1000 * S, &how));	/* no limit: never */
	c.opt.timeout_ns = 5 * S;
	assert_false(runs_stop_due(&c, 10 * S, 14 * S, &how));
	assert_true(runs_stop_due(&c, 10 * S, 15 * S, &how));
	assert_int_equal(how, BOOT_TIMEOUT);
	c.until_reached = 1;	/* +DURATION runs its course */
	assert_false(runs_stop_due(&c, 10 * S, 99 * S, &how));
	c.until_reached = 0;
	c.run_deadline = 12 * S;	/* -d: before --timeout, reached or not */
	assert_true(runs_stop_due(&c, 10 * S, 15 * S, &how));
	assert_int_equal(how, BOOT_DURATION);
	c.until_reached = 1;
	assert_true(runs_stop_due(&c, 10 * S, 12 * S, &how));
	assert_int_equal(how, BOOT_DURATION);
	collector_exiting = SIGINT;	/* a signal: before everything */
	assert_true(runs_stop_due(&c, 10 * S, 11 * S, &how));
	assert_int_equal(how, BOOT_INTERRUPTED);
	collector_exiting = 0;
}

/* What @fn wrote on stderr, into @buf. */
static int stderr_of(char *buf, size_t n, int (*fn)(void *), void *arg)
{
	int fd = memfd_create("stderr", 0), saved = dup(STDERR_FILENO), r;
	ssize_t got;

	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	r = fn(arg);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	got = pread(fd, buf, n - 1, 0);
	buf[got > 0 ? got : 0] = '\0';
	close(fd);
	return r;
}

struct play {
	struct collector c;
	struct runs r;
	const enum boot_end *how;
	const int *status;
	int n;
};

static int play(void *arg)
{
	struct play *p = arg;
	char name[16];
	int i;

	runs_init(&p->r, p->c.opt.runs);
	for (i = 0; i < p->n; i++) {
		snprintf(name, sizeof(name), "web-%d", i + 1);
		runs_boot_end(&p->c, &p->r, name, p->how[i], p->status[i], NULL);
	}
	return runs_exit_status(&p->c, &p->r);
}

static void test_ends_and_status(void **state)
{
	static const enum boot_end reached[3] = { BOOT_REACHED, BOOT_REACHED, BOOT_REACHED };
	static const enum boot_end mixed[3] = { BOOT_REACHED, BOOT_TIMEOUT, BOOT_EARLY };
	static const enum boot_end stopped[2] = { BOOT_REACHED, BOOT_INTERRUPTED };
	static const int st143[3] = { 143, 143, 143 }, st[3] = { 0, 143, 1 };
	struct play p = { 0 };
	char err[1024];

	(void)state;
	/* the collector's own stops at the phase: nothing said, 0 */
	p.c.opt.until = UNTIL_LISTEN;
	p.c.opt.runs = 3;
	p.how = reached;
	p.status = st143;
	p.n = 3;
	assert_int_equal(stderr_of(err, sizeof(err), play, &p), 0);
	assert_string_equal(err, "");

	/* a time-out and an early exit: each said, a closing line, 124 */
	p.c.opt.timeout_ns = 5 * S;
	p.how = mixed;
	p.status = st;
	assert_int_equal(stderr_of(err, sizeof(err), play, &p), 124);
	assert_string_equal(err,
		"collector: web-2 did not reach listen within --timeout 5 s: stopped\n"
		"collector: web-3 exited with status 1 before listen\n"
		"collector: 2 of 3 boots never reached listen: web-2, web-3\n");

	/* --until end: the last command's status, its failures said */
	p.c.opt.until = UNTIL_END;
	p.how = reached;
	assert_int_equal(stderr_of(err, sizeof(err), play, &p), 1);
	assert_string_equal(err, "collector: web-2 exited with status 143\n"
				 "collector: web-3 exited with status 1\n");

	/* -d ran out with runs left: 124, how far it got */
	p.c.opt.duration_ns = 1500 * 1000000ULL;
	p.status = st;
	p.n = 2;
	assert_int_equal(stderr_of(err, sizeof(err), play, &p), 124);
	assert_non_null(strstr(err, "collector: -d 1500 ms ran out after 2 of 3 runs\n"));

	/* interrupted: 128 + the signal, the boots that ended counted */
	p.how = stopped;
	collector_exiting = SIGINT;
	assert_int_equal(stderr_of(err, sizeof(err), play, &p), 130);
	assert_non_null(strstr(err, "collector: interrupted after 1 of 3 runs\n"));
	collector_exiting = 0;
}

/* A client mode container's name comes from a cgroup anyone may make: escaped. */
static void test_hostile_name(void **state)
{
	static const enum boot_end early[1] = { BOOT_EARLY };
	static const int st[1] = { 0 };
	struct play p = { 0 };
	char err[1024];

	(void)state;
	p.c.opt.until = UNTIL_EXEC;
	p.c.opt.runs = 1;
	p.how = early;
	p.status = st;
	p.n = 1;
	stderr_of(err, sizeof(err), play, &p);
	assert_string_equal(err, "collector: web-1 exited with status 0 before exec\n");
	/* directly, with a name of control bytes */
	{
		struct runs r;
		int fd = memfd_create("stderr", 0), saved = dup(STDERR_FILENO);
		ssize_t got;

		runs_init(&r, 1);
		fflush(stderr);
		dup2(fd, STDERR_FILENO);
		runs_boot_end(&p.c, &r, "run 1 (\033[31mx\ty)", BOOT_EARLY, 0, "docker");
		fflush(stderr);
		dup2(saved, STDERR_FILENO);
		close(saved);
		got = pread(fd, err, sizeof(err) - 1, 0);
		err[got > 0 ? got : 0] = '\0';
		close(fd);
		assert_string_equal(err, "collector: run 1 (\\x1b[31mx\\ty) ended before exec "
					 "(docker exited with status 0)\n");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stop_due),
		cmocka_unit_test(test_ends_and_status),
		cmocka_unit_test(test_hostile_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
