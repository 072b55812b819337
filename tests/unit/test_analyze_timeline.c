// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: analyze/boot/timeline.c — containers per file, tasks by tid, rows
 * sorted per task (stably: equal timestamps keep the file's order), the
 * parent of each task (the thread in clone at the fork's time, a thread
 * created by a thread that is not the main one), execs, exits, marks,
 * phases from the analysis, --container, and the look-up helpers.
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
#include "analyze/boot/timeline.h"

#define HEAD "# boottrace-tsv 1\n# mode=cgroup\n" TSV_HEADER "\n"
/* ts container pid tid ppid comm event name ret dur detail */
#define R(ts, c, pid, tid, ppid, comm, ev, name, ret, dur, detail) \
	ts "\t" c "\t\\N\t" pid "\t" tid "\t" ppid "\t" comm "\t" ev "\t" name "\t" ret "\t" \
	dur "\t" detail "\n"

static struct analysis *load_files(const char *const *tsv, size_t n,
				   const struct analyze_opts *o)
{
	struct analysis *a = analysis__new(o);
	FILE *err = fopen("/dev/null", "w");
	size_t i;

	assert_non_null(a);
	for (i = 0; i < n; i++) {
		char path[] = "/tmp/test_analyze_timeline.XXXXXX";
		int fd = mkstemp(path);

		assert_true(fd >= 0);
		assert_int_equal(write(fd, tsv[i], strlen(tsv[i])), (ssize_t)strlen(tsv[i]));
		close(fd);
		assert_int_equal(analysis_read(a, path, err), 0);
		unlink(path);
	}
	assert_int_equal(analysis_finish(a), 0);
	fclose(err);
	return a;
}

static struct analysis *load(const char *tsv, const struct analyze_opts *o)
{
	return load_files(&tsv, 1, o);
}

static const struct tl_task *task(const struct tl_container *c, int64_t tid)
{
	uint32_t k = timeline_find_task(c, tid);

	assert_int_not_equal(k, TL_NOTASK);
	return &c->tasks[k];
}

static const char *str(const struct analysis *a, uint32_t id)
{
	return timeline_str(a->tl, id);
}

/*
 * web: the runtime's start rows (two: the smaller counts), sh (10) execs
 * the server, which forks a worker (11) while in clone, the worker starts a
 * thread (12) which starts another (13) that listens; rows out of order,
 * two with the same ts; the worker exits and is reaped by 10.
 */
static const char web[] = HEAD
	R("1000", "web", "9", "9", "1", "runc", "start", "client", "\\N", "\\N", "docker run")
	R("1100", "web", "10", "10", "9", "runc:[2:INIT]", "start", "spawn", "\\N", "\\N", "\\N")
	R("1300", "web", "10", "10", "9", "sh", "syscall", "execve", "0", "200", "/srv/server")
	R("1500", "web", "10", "10", "9", "server", "exec", "init", "\\N", "\\N", "/srv/server")
	R("1200", "web", "10", "10", "9", "sh", "syscall", "openat", "3", "50", "/etc/ld.so.cache")
	R("2000", "web", "10", "10", "9", "server", "syscall", "clone", "11", "100", "\\N")
	R("2050", "web", "11", "11", "10", "server", "fork", "process", "\\N", "\\N", "\\N")
	/* 11 sets its name: its last comm is "worker" */
	R("2200", "web", "11", "11", "10", "worker", "syscall", "prctl", "0", "5", "\\N")
	R("2300", "web", "11", "11", "10", "worker", "syscall", "clone3", "12", "40", "\\N")
	R("2320", "web", "11", "12", "10", "worker", "fork", "thread", "\\N", "\\N", "\\N")
	R("2500", "web", "11", "12", "10", "worker", "syscall", "clone3", "13", "30", "\\N")
	R("2510", "web", "11", "13", "10", "worker", "fork", "thread", "\\N", "\\N", "\\N")
	/* 13's rows out of order, two at 2700 in this order */
	R("2800", "web", "11", "13", "10", "worker", "syscall", "listen", "0", "20", "0.0.0.0:80")
	R("2700", "web", "11", "13", "10", "worker", "syscall", "bind", "0", "10", "0.0.0.0:80")
	R("2700", "web", "11", "13", "10", "worker", "syscall", "socket", "3", "0", "\\N")
	R("2600", "web", "11", "13", "10", "worker", "mark", "ready", "\\N", "\\N", "uprobe:/srv/server:ready")
	R("2550", "web", "11", "12", "10", "worker", "mark", "config", "\\N", "\\N", "uprobe:/srv/server:config")
	R("2900", "web", "10", "10", "9", "server", "syscall", "wait4", "11", "1000", "\\N")
	R("3500", "web", "11", "11", "10", "worker", "exit", "\\N", "3", "\\N", "\\N")
	R("3900", "web", "10", "10", "9", "server", "end", "\\N", "\\N", "\\N", "\\N")
	/* no ts: cannot be placed */
	R("\\N", "web", "10", "10", "9", "server", "syscall", "getpid", "10", "1", "\\N")
	/* a container without a start row: kept, not timed */
	R("5000", "orphan", "20", "20", "1", "x", "syscall", "read", "1", "1", "\\N")
	"# lost=2 events=20\n";

static void test_containers_and_start(void **state)
{
	struct analyze_opts o = { .timeline = true };
	struct analysis *a = load(web, &o);
	const struct timeline *tl = a->tl;
	const struct tl_container *c;

	(void)state;
	assert_non_null(tl);
	assert_int_equal(tl->nctrs, 2);
	assert_int_equal(tl->unplaced, 1);
	c = &tl->ctrs[0];
	assert_string_equal(str(a, c->name), "web");
	assert_int_equal(c->t_start, 1000);
	assert_int_equal(c->nstarts, 2);
	assert_string_equal(str(a, c->starts[0].how), "client");
	assert_string_equal(str(a, c->starts[0].comm), "runc");
	assert_string_equal(str(a, c->starts[0].detail), "docker run");
	assert_int_equal(c->starts[1].pid, 10);
	assert_int_equal(c->lost, 2);
	/* start rows make no task: 10, 11, 12, 13 */
	assert_int_equal(c->ntasks, 4);
	assert_string_equal(str(a, tl->ctrs[1].name), "orphan");
	assert_int_equal(tl->ctrs[1].t_start, TL_NONE);
	analysis__free(a);
}

static void test_tasks_rows_sorted(void **state)
{
	struct analyze_opts o = { .timeline = true };
	struct analysis *a = load(web, &o);
	const struct tl_container *c = &a->tl->ctrs[0];
	const struct tl_task *t;
	size_t i;

	(void)state;
	/* tasks by begin: 10 (1200), 11 (2050), 12 (2320), 13 (2510) */
	assert_int_equal(c->tasks[0].tid, 10);
	assert_int_equal(c->tasks[1].tid, 11);
	assert_int_equal(c->tasks[2].tid, 12);
	assert_int_equal(c->tasks[3].tid, 13);
	t = task(c, 10);
	assert_int_equal(t->nrows, 4);
	for (i = 1; i < t->nrows; i++)
		assert_true(t->rows[i - 1].ts <= t->rows[i].ts);
	assert_string_equal(str(a, t->rows[0].name), "openat");
	assert_string_equal(str(a, t->rows[0].detail), "/etc/ld.so.cache");
	assert_int_equal(t->rows[0].ret, 3);
	assert_int_equal(t->rows[0].dur, 50);
	assert_int_equal(t->rows[2].detail, TL_NOSTR);
	assert_int_equal(t->begin, 1200);
	assert_int_equal(t->end, 3900); /* wait4 returns at 3900 */
	assert_false(t->has_fork);
	assert_int_equal(t->parent, TL_NOTASK);
	/* 13: bind and socket share ts 2700 and keep the file's order */
	t = task(c, 13);
	assert_int_equal(t->nrows, 3);
	assert_string_equal(str(a, t->rows[0].name), "bind");
	assert_string_equal(str(a, t->rows[1].name), "socket");
	assert_string_equal(str(a, t->rows[2].name), "listen");
	assert_int_equal(timeline_row_end(&t->rows[2]), 2820);
	/* timeline_row_before: strictly before */
	assert_int_equal(timeline_row_before(t, 2700), -1);
	assert_int_equal(timeline_row_before(t, 2701), 1);
	assert_int_equal(timeline_row_before(t, 1u << 20), 2);
	analysis__free(a);
}

static void test_parents_execs_exits(void **state)
{
	struct analyze_opts o = { .timeline = true };
	struct analysis *a = load(web, &o);
	const struct tl_container *c = &a->tl->ctrs[0];
	const struct tl_task *t;

	(void)state;
	/* 11: forked by 10 while in clone */
	t = task(c, 11);
	assert_true(t->has_fork);
	assert_false(t->is_thread);
	assert_int_equal(t->fork_ts, 2050);
	assert_int_equal(c->tasks[t->parent].tid, 10);
	assert_string_equal(str(a, t->comm), "server");
	assert_string_equal(str(a, t->comm_last), "worker");
	/* its comm changed with its prctl row */
	assert_string_equal(str(a, timeline_comm_at(t, 2199)), "server");
	assert_string_equal(str(a, timeline_comm_at(t, 2200)), "worker");
	assert_string_equal(str(a, timeline_comm_at(t, 1)), "server");
	assert_int_equal(t->exit_ts, 3500);
	assert_int_equal(t->exit_status, 3);
	assert_int_equal(t->exit_ppid, 10);
	/* 12: a thread of 11, created by 11 */
	t = task(c, 12);
	assert_true(t->is_thread);
	assert_int_equal(c->tasks[t->parent].tid, 11);
	/* 13: created by thread 12 (in clone3 at 2510), not by the main thread */
	t = task(c, 13);
	assert_int_equal(c->tasks[t->parent].tid, 12);
	/* exec of 10: after it the comm is "server", before "sh" */
	t = task(c, 10);
	assert_int_equal(t->nexecs, 1);
	assert_int_equal(t->execs[0].ts, 1500);
	assert_true(t->execs[0].init);
	assert_string_equal(str(a, t->execs[0].filename), "/srv/server");
	assert_string_equal(str(a, timeline_comm_at(t, 1499)), "sh");
	assert_string_equal(str(a, timeline_comm_at(t, 1500)), "server");
	assert_int_equal(t->exit_ts, TL_NONE);
	analysis__free(a);
}

static void test_marks_and_phases(void **state)
{
	struct analyze_opts o = { .timeline = true };
	struct analysis *a = load(web, &o);
	const struct tl_container *c = &a->tl->ctrs[0];
	long ready = strtab_find(a->phase_names, "ready", 5);

	(void)state;
	assert_int_equal(c->nmarks, 2);
	assert_int_equal(c->marks[0].ts, 2550);
	assert_string_equal(str(a, c->marks[0].label), "config");
	assert_int_equal(c->tasks[c->marks[0].task].tid, 12);
	assert_int_equal(c->tasks[c->marks[1].task].tid, 13);
	/* the analysis' phases, absolute */
	assert_int_equal(timeline_phase(c, PHASE_EXEC), 1500);
	assert_int_equal(timeline_phase(c, PHASE_LISTEN), 2820);
	assert_true(ready >= 0);
	assert_int_equal(timeline_phase(c, (uint32_t)ready), 2600);
	assert_int_equal(timeline_phase(&a->tl->ctrs[1], PHASE_LISTEN), TL_NONE);
	analysis__free(a);
}

/*
 * The timeline's exec phase is the table's: the init exec (1500) where
 * there is one, not the first exec that is no runtime's (sh's, 1200).
 */
static void test_exec_phase_is_init(void **state)
{
	static const char tsv[] = HEAD
		R("1000", "app", "10", "10", "9", "runc", "start", "spawn", "\\N", "\\N", "\\N")
		R("1200", "app", "10", "10", "9", "sh", "exec", "\\N", "\\N", "\\N", "/bin/sh")
		R("1500", "app", "11", "11", "10", "app", "exec", "init", "\\N", "\\N", "/srv/app")
		R("1600", "app", "11", "11", "10", "app", "syscall", "getpid", "11", "1", "\\N");
	struct analyze_opts o = { .timeline = true };
	struct analysis *a = load(tsv, &o);
	const struct ctr_phase *p = &a->cphases[a->ctrs[0].first];

	(void)state;
	assert_int_equal(a->nctrs, 1);
	assert_int_equal(p->phase, PHASE_EXEC);
	assert_int_equal(p->v, 500);
	assert_int_equal(timeline_phase(&a->tl->ctrs[0], PHASE_EXEC), 1500);
	analysis__free(a);
}

static void test_files_and_glob(void **state)
{
	struct analyze_opts o = { .timeline = true };
	const char *two[] = { web, web };
	struct analysis *a = load_files(two, 2, &o);

	(void)state;
	/* the same name in two files: two boots */
	assert_int_equal(a->tl->nctrs, 4);
	assert_int_equal(a->tl->ctrs[2].file, 1);
	assert_string_equal(str(a, a->tl->ctrs[2].name), "web");
	assert_int_equal(a->tl->ctrs[2].ntasks, 4);
	assert_int_equal(timeline_phase(&a->tl->ctrs[2], PHASE_LISTEN), 2820);
	analysis__free(a);
	/* --container: the rows of the others are not kept */
	o.container_glob = "orph*";
	a = load(web, &o);
	assert_int_equal(a->tl->nctrs, 1);
	assert_string_equal(str(a, a->tl->ctrs[0].name), "orphan");
	analysis__free(a);
	/* without the option, no timeline */
	o.timeline = false;
	o.container_glob = NULL;
	a = load(web, &o);
	assert_null(a->tl);
	analysis__free(a);
}

/*
 * Off-CPU stacks: a sched row's stack= names the stack row of that id in
 * its own file (the ids start again in each file); the same detail text
 * in the next file names that file's stack, not the first's.
 */
static const char offstk1[] = HEAD
	R("1000", "s", "10", "10", "9", "runc", "start", "spawn", "\\N", "\\N", "\\N")
	R("1100", "s", "10", "10", "9", "app", "stack", "1", "\\N", "\\N", "k:schedule+0x1 k:pipe_read+0x2")
	R("1100", "s", "10", "10", "9", "app", "sched", "S", "50", "500", "wake=irq cpu=0 stack=1")
	R("1700", "s", "10", "10", "9", "app", "sched", "S", "50", "100", "wake=irq cpu=0 stack=9")
	R("2000", "s", "10", "10", "9", "app", "sched", "S", "50", "100", "wake=irq cpu=0");
static const char offstk2[] = HEAD
	R("1000", "t", "10", "10", "9", "runc", "start", "spawn", "\\N", "\\N", "\\N")
	R("1100", "t", "10", "10", "9", "app", "stack", "1", "\\N", "\\N", "k:schedule+0x1 k:do_nanosleep+0x2")
	R("1100", "t", "10", "10", "9", "app", "sched", "S", "50", "500", "wake=irq cpu=0 stack=1");

static void test_off_stacks(void **state)
{
	struct analyze_opts o = { .timeline = true };
	const char *two[] = { offstk1, offstk2 };
	struct analysis *a = load_files(two, 2, &o);
	const struct tl_task *t;

	(void)state;
	assert_true(a->tl->off_stacks > 0);
	t = task(&a->tl->ctrs[0], 10);
	assert_int_equal(t->noffs, 3);
	assert_string_equal(str(a, timeline_off_info(a->tl, &t->offs[0])->stack),
			    "k:schedule+0x1 k:pipe_read+0x2");
	/* no stack row of that id, none at all */
	assert_int_equal(timeline_off_info(a->tl, &t->offs[1])->stack, TL_NOSTR);
	assert_int_equal(timeline_off_info(a->tl, &t->offs[2])->stack, TL_NOSTR);
	t = task(&a->tl->ctrs[1], 10);
	assert_int_equal(t->noffs, 1);
	assert_string_equal(str(a, timeline_off_info(a->tl, &t->offs[0])->stack),
			    "k:schedule+0x1 k:do_nanosleep+0x2");
	analysis__free(a);
}

/* The API alone, rows parsed by the reader's row parser. */
static void add(struct timeline *tl, const char *line)
{
	static char buf[512];
	struct tsv_row r;
	char err[128];
	size_t n = strlen(line) - 1; /* without the LF */

	memset(buf, 0, sizeof(buf));
	memcpy(buf, line, n);
	assert_int_equal(tsv_parse_row(buf, n, &r, err, sizeof(err)), 0);
	assert_int_equal(timeline_add_row(tl, &r), 0);
}

static void test_api_alone(void **state)
{
	struct timeline *tl = timeline__new();
	const struct tl_container *c;
	const struct tl_task *t;
	int i;

	(void)state;
	assert_non_null(tl);
	assert_int_equal(timeline_begin_file(tl), 0);
	add(tl, R("100", "c", "5", "5", "1", "a", "start", "mkdir", "\\N", "\\N", "/c"));
	/* 300 rows in reverse order: sorted by the merge sort */
	for (i = 300; i > 0; i--) {
		char line[256];

		snprintf(line, sizeof(line), R("%d", "c", "5", "5", "1", "a", "syscall", "read",
					       "%d", "1", "pipe:[77]"), 1000 + i, i);
		add(tl, line);
	}
	/* a hostile ts near 2^64: its end saturates */
	add(tl, R("18446744073709551610", "c", "6", "6", "5", "b", "syscall", "read", "0",
		  "100", "\\N"));
	assert_int_equal(timeline_find_container(tl, "c", 1), 0);
	assert_int_equal(timeline_find_container(tl, "d", 1), -1);
	assert_int_equal(timeline_set_phase(tl, 0, 7, 555), 0);
	assert_int_equal(timeline_set_phase(tl, 0, 7, 556), 0); /* replaced */
	timeline_end_file(tl, 0);
	assert_int_equal(timeline_finish(tl), 0);
	c = &tl->ctrs[0];
	assert_int_equal(c->nphases, 1);
	assert_int_equal(timeline_phase(c, 7), 556);
	t = &c->tasks[timeline_find_task(c, 5)];
	assert_int_equal(t->nrows, 300);
	for (i = 0; i < 300; i++) {
		assert_int_equal(t->rows[i].ts, 1001 + i);
		assert_int_equal(t->rows[i].ret, 1 + i);
	}
	/* one string for all 300 details */
	assert_int_equal(t->rows[0].detail, t->rows[299].detail);
	assert_string_equal(timeline_str(tl, t->rows[0].detail), "pipe:[77]");
	t = &c->tasks[timeline_find_task(c, 6)];
	assert_int_equal(timeline_row_end(&t->rows[0]), TL_NONE - 1);
	assert_int_equal(timeline_find_task(c, 99), TL_NOTASK);
	assert_string_equal(timeline_str(tl, TL_NOSTR), "");
	timeline__free(tl);
	timeline__free(NULL);
}

/*
 * Many tasks: 3000 tids (the index of tasks grows past its first sizes
 * while they come), each with a row before and a row after all the others:
 * the second finds the task the first made, 3000 tasks in all.
 */
static void test_many_tasks_one_each(void **state)
{
	struct analyze_opts o = { .timeline = true };
	const size_t n = 3000, cap = 200 + 2 * n * 128;
	char *tsv = malloc(cap), line[128];
	struct analysis *a;
	size_t len, i, pass;

	(void)state;
	assert_non_null(tsv);
	len = (size_t)snprintf(tsv, cap, "%s", HEAD);
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++) {
			snprintf(line, sizeof(line),
				 R("%zu", "many", "%zu", "%zu", "1", "t", "syscall", "getpid", "1", "1", "\\N"),
				 1000 + pass * n + i, 100 + i, 100 + i);
			len += (size_t)snprintf(tsv + len, cap - len, "%s", line);
		}
	a = load(tsv, &o);
	assert_int_equal(a->tl->ctrs[0].ntasks, n);
	for (i = 0; i < n; i += 250)
		assert_int_equal(task(&a->tl->ctrs[0], (int64_t)(100 + i))->nrows, 2);
	analysis__free(a);
	free(tsv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_containers_and_start),
		cmocka_unit_test(test_tasks_rows_sorted),
		cmocka_unit_test(test_parents_execs_exits),
		cmocka_unit_test(test_marks_and_phases),
		cmocka_unit_test(test_exec_phase_is_init),
		cmocka_unit_test(test_files_and_glob),
		cmocka_unit_test(test_off_stacks),
		cmocka_unit_test(test_api_alone),
		cmocka_unit_test(test_many_tasks_one_each),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
