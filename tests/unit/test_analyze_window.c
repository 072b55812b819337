// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: analyze/boot/window.c (--until PHASE): rows inside a container's
 * [start, PHASE] count whole, rows straddling either end are clipped to it
 * exactly, rows outside or entering at the phase are left out, rows
 * without dur_ns count when they entered inside, containers that never
 * reached the phase are left out; --by comm takes the comm a task had then.
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
#include "analyze/boot/window.h"

#define HEAD "# boottrace-tsv 1\n# mode=cgroup\n" TSV_HEADER "\n"
#define R(ts, c, tid, comm, ev, name, ret, dur) \
	ts "\t" c "\t\\N\t" tid "\t" tid "\t1\t" comm "\t" ev "\t" name "\t" ret "\t" dur "\t\\N\n"

/*
 * a: start 1000, listen returns at 5000 (4000..5000). b: start 10000, never
 * listens. The phase is listen.
 */
static const char trace[] = HEAD
	R("1000", "a", "1", "rt", "start", "spawn", "\\N", "\\N")
	R("500", "a", "1", "rt", "syscall", "read", "1", "400")		/* before: out */
	R("800", "a", "1", "rt", "syscall", "read", "1", "700")		/* 800..1500: 500 in */
	R("900", "a", "1", "rt", "syscall", "read", "1", "100")		/* ends at the start: out */
	R("2000", "a", "1", "rt", "syscall", "read", "1", "300")		/* inside: 300 */
	R("3000", "a", "1", "app", "syscall", "prctl", "0", "10")		/* inside: 10, comm app */
	R("4000", "a", "1", "app", "syscall", "listen", "0", "1000")		/* ends at the phase: 1000 */
	R("4500", "a", "2", "worker", "syscall", "read", "1", "2000")	/* 4500..6500: 500 in */
	R("4600", "a", "2", "worker", "syscall", "exit_group", "\\N", "\\N")	/* no dur, inside */
	R("5000", "a", "2", "worker", "syscall", "read", "1", "5")		/* enters at the phase: out */
	R("7000", "a", "2", "worker", "syscall", "read", "1", "5")		/* after: out */
	R("10000", "b", "3", "x", "start", "spawn", "\\N", "\\N")
	R("10100", "b", "3", "x", "syscall", "read", "1", "100")
	"# lost=0 events=13\n";

static struct analysis *load(enum by_kind by)
{
	struct analyze_opts o = { .by = by, .timeline = true, .windowed = true };
	char path[] = "/tmp/test_analyze_window.XXXXXX";
	int fd = mkstemp(path);
	FILE *err = fopen("/dev/null", "w");
	struct analysis *a = analysis__new(&o);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, trace, strlen(trace)), (ssize_t)strlen(trace));
	close(fd);
	assert_int_equal(analysis_read(a, path, err), 0);
	unlink(path);
	fclose(err);
	assert_int_equal(analysis_finish(a), 0);
	/* nothing counted while reading */
	assert_int_equal(strtab_count(a->sys.keys), 0);
	assert_int_equal(window_apply(a, PHASE_LISTEN), 0);
	return a;
}

static const struct group *group(const struct group_table *t, const char *key)
{
	long id = strtab_find(t->keys, key, strlen(key));

	assert_true(id >= 0);
	return &t->g[id];
}

static void test_clipped_exactly(void **state)
{
	struct analysis *a = load(BY_SYSCALL);
	const struct group *g;

	(void)state;
	assert_true(a->win.on);
	assert_int_equal(a->win.containers, 1);
	assert_int_equal(a->win.not_reached, 1);
	assert_int_equal(a->win.wall, 4000);
	/* read: 500 (clipped at the start) + 300 + 500 (clipped at the phase) */
	g = group(&a->sys, "read");
	assert_int_equal(g->calls, 3);
	assert_int_equal((uint64_t)g->total, 1300);
	assert_int_equal(g->max, 500);
	assert_int_equal(g->min, 300);
	g = group(&a->sys, "listen");
	assert_int_equal((uint64_t)g->total, 1000);
	g = group(&a->sys, "exit_group");
	assert_int_equal(g->calls, 1);
	assert_int_equal(g->timed, 0);
	assert_int_equal(a->win.rows, 6);
	assert_int_equal(a->win.clipped, 2);
	analysis__free(a);
}

static void test_by_comm_then(void **state)
{
	struct analysis *a = load(BY_COMM);

	(void)state;
	/* task 1 was "rt" until its prctl row, "app" from it on */
	assert_int_equal((uint64_t)group(&a->by, "rt")->total, 800);
	assert_int_equal((uint64_t)group(&a->by, "app")->total, 1010);
	assert_int_equal((uint64_t)group(&a->by, "worker")->total, 500);
	assert_int_equal(strtab_find(a->by.keys, "x", 1), -1);
	analysis__free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clipped_exactly),
		cmocka_unit_test(test_by_comm_then),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
