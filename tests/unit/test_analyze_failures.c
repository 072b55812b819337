// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: the phase end and --failures on synthetic traces
 * (analyze/boot/ending.c, failures.c): the end is the last process's exit
 * at or before the end row, else the end row, else (no end row) the last
 * exit when every process exited; the init is the end row's init=, else
 * the first init exec; how it ended from the end row, else its exit row;
 * the critical path to end tiles [start, end]; failed syscalls of the
 * stretch grouped, the latest first, none from before it; the sender of a
 * signal is the waker of the init's last sleep, unless it ran after it;
 * restarts NAME#N and their back-off.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analyze/boot/ending.h"
#include "analyze/boot/failures.h"
#include "common/end_detail.h"
#include "tests/unit/critpath_fixture.h"

#define EXEC_INIT(ts, pid) R(ts, pid, pid, "1", "sh", "exec", "init", "\\N", "\\N", "/bin/sh")
#define EXIT_ST(ts, pid, st) R(ts, pid, pid, "1", "sh", "exit", "\\N", st, "\\N", "\\N")
#define END(ts, detail) ts "\tc\t\\N\t\\N\t\\N\t\\N\t\\N\tend\t\\N\t\\N\t\\N\t" detail "\n"
/* an off-CPU interval of @pid: out at @ts for @dur, the last @run ns runnable, woken by 77 kill */
#define SLEPT(ts, pid, dur, run) \
	R(ts, pid, pid, "1", "sh", "sched", "S", run, dur, "wake=task waker=77 wpid=77 wcomm=4:kill cpu=0")

static const struct tl_container *ctr0(const struct analysis *a)
{
	return &a->tl->ctrs[0];
}

static void test_end_and_init(void **state)
{
	struct analysis *a;

	(void)state;
	/* the end row says nothing: the last exit before it; the init's exit row: 128 + 9 */
	a = load_tsv(HEAD START("100", "1") EXEC_INIT("110", "5") FORK("120", "6", "6", "5", "sh", "process")
		     EXIT_ST("500", "5", "137") EXIT_ST("600", "6", "0") END("700", "\\N") TAIL);
	assert_int_equal(ctr0(a)->t_end, 600);
	assert_int_equal(ctr0(a)->tasks[ctr0(a)->init].pid, 5);
	assert_int_equal(ending_how(ctr0(a)), END_SIGNAL + 9);
	assert_int_equal(timeline_phase(ctr0(a), PHASE_END), 600);
	analysis__free(a);
	/* the end row's detail wins; an exit after the end row is not the end */
	a = load_tsv(HEAD START("100", "1") EXEC_INIT("110", "5") EXIT_ST("500", "5", "1")
		     END("550", "init=5 exit=3") EXIT_ST("900", "6", "0") TAIL);
	assert_int_equal(ctr0(a)->t_end, 500);
	assert_int_equal(ending_how(ctr0(a)), 3);
	analysis__free(a);
	/* no end row: ended only when every process exited */
	a = load_tsv(HEAD START("100", "1") EXEC_INIT("110", "5") FORK("120", "6", "6", "5", "sh", "process")
		     EXIT_ST("500", "5", "0") TAIL);
	assert_int_equal(ctr0(a)->t_end, TL_NONE);
	analysis__free(a);
	a = load_tsv(HEAD START("100", "1") EXEC_INIT("110", "5") EXIT_ST("500", "5", "2") TAIL);
	assert_int_equal(ctr0(a)->t_end, 500);
	assert_int_equal(ending_how(ctr0(a)), 2);
	analysis__free(a);
	/* an end row alone: its time */
	a = load_tsv(HEAD START("100", "1") SYS("110", "5", "5", "sh", "read", "0", "10", "\\N")
		     END("300", "\\N") TAIL);
	assert_int_equal(ctr0(a)->t_end, 300);
	assert_int_equal(ending_how(ctr0(a)), END_UNKNOWN);
	analysis__free(a);
}

static void test_path_to_end(void **state)
{
	struct fixture fx;

	(void)state;
	path_of(HEAD START("100", "1") EXEC_INIT("110", "5") SYS("200", "5", "5", "sh", "nanosleep", "0",
		"100", "\\N") EXIT_ST("400", "5", "3") END("450", "init=5 exit=3") TAIL, "end", &fx);
	assert_int_equal(fx.p.t0, 100);
	assert_int_equal(fx.p.t1, 400);
	release(&fx);
}

static void test_failed_syscalls(void **state)
{
	struct analysis *a;
	struct failures *f;
	const struct fail_ctr *fc;

	(void)state;
	a = load_tsv(HEAD START("100", "1") EXEC_INIT("110", "5")
		     SYS("200", "5", "5", "sh", "openat", "-2", "5", "/early")	/* before the stretch */
		     SYS("2000000000", "5", "5", "sh", "connect", "-111", "5", "127.0.0.1:5432")
		     SYS("2000000100", "5", "5", "sh", "connect", "-111", "5", "127.0.0.1:5432")
		     SYS("2000000200", "5", "5", "sh", "connect", "-111", "5", "127.0.0.1:5432")
		     SYS("2000000300", "5", "5", "sh", "connect", "-111", "5", "127.0.0.1:6379")
		     SYS("2000000400", "5", "5", "sh", "openat", "-2", "5", "/app/config.yml")
		     SYS("2000000500", "5", "5", "sh", "read", "5", "5", "\\N")
		     EXIT_ST("2000000600", "5", "1") END("2000000700", "init=5 exit=1") TAIL);
	f = failures__new(a->tl, 1000000000);	/* the last second */
	assert_non_null(f);
	assert_int_equal(f->n, 1);
	fc = &f->v[0];
	assert_int_equal(fc->how, 1);
	assert_int_equal(fc->failed, 5);
	assert_int_equal(fc->ngroups, 3);
	assert_string_equal(timeline_str(a->tl, fc->groups[0].detail), "/app/config.yml");
	assert_int_equal(fc->groups[0].err, 2);
	assert_string_equal(timeline_str(a->tl, fc->groups[1].detail), "127.0.0.1:6379");
	assert_string_equal(timeline_str(a->tl, fc->groups[2].name), "connect");
	assert_int_equal(fc->groups[2].err, 111);
	assert_int_equal(fc->groups[2].count, 3);
	assert_int_equal(fc->groups[2].last, 2000000200);
	failures__free(f);
	analysis__free(a);
}

static void test_sender(void **state)
{
	struct analysis *a;
	struct failures *f;

	(void)state;
	/* asleep from 200 to 1000, woken by 77 kill 10 ns before, then dead: the sender */
	a = load_tsv(HEAD START("100", "1") EXEC_INIT("110", "5") SLEPT("200", "5", "800", "10")
		     EXIT_ST("1005", "5", "143") END("1100", "init=5 signal=TERM") TAIL);
	f = failures__new(a->tl, FAILURES_STRETCH_NS);
	assert_non_null(f);
	assert_int_equal(f->v[0].how, END_SIGNAL + 15);
	assert_int_equal(f->v[0].sender, SENDER_WAKER);
	assert_int_equal(f->v[0].sender_tid, 77);
	assert_int_equal(f->v[0].sender_ts, 990);
	assert_string_equal(timeline_str(a->tl, f->v[0].sender_comm), "kill");
	failures__free(f);
	analysis__free(a);
	/* it ran a syscall after that wake: the signal came later, the wake is not its */
	a = load_tsv(HEAD START("100", "1") EXEC_INIT("110", "5") SLEPT("200", "5", "800", "10")
		     SYS("1002", "5", "5", "sh", "getpid", "5", "1", "\\N")
		     EXIT_ST("1005", "5", "143") END("1100", "init=5 signal=TERM") TAIL);
	f = failures__new(a->tl, FAILURES_STRETCH_NS);
	assert_non_null(f);
	assert_int_equal(f->v[0].sender, SENDER_RUNNING);
	failures__free(f);
	analysis__free(a);
}

/* A boot of container @name: start at @t0, its init exits 3 at @t1, its end row then too. */
#define BOOT(name, t0, t1, pid) \
	t0 "\t" name "\t\\N\t1\t1\t0\tr\tstart\tspawn\t\\N\t\\N\tx\n" \
	t1 "\t" name "\t\\N\t" pid "\t" pid "\t1\tsh\texit\t\\N\t3\t\\N\t\\N\n" \
	t1 "\t" name "\t\\N\t\\N\t\\N\t\\N\t\\N\tend\t\\N\t\\N\t\\N\tinit=" pid " exit=3\n"

static void test_restarts(void **state)
{
	struct analysis *a;
	struct failures *f;
	size_t i;

	(void)state;
	a = load_tsv(HEAD BOOT("x", "100", "200", "5") BOOT("x#2", "300", "400", "6")
		     BOOT("x#3", "600", "700", "7") BOOT("y#2", "800", "900", "8")
		     BOOT("z#1", "800", "900", "9") TAIL);
	f = failures__new(a->tl, FAILURES_STRETCH_NS);
	assert_non_null(f);
	assert_int_equal(f->n, 5);
	for (i = 0; i < f->n; i++) {
		const char *name = timeline_str(a->tl, a->tl->ctrs[f->v[i].ctr].name);

		if (strcmp(name, "x#2") == 0) {
			assert_int_equal(f->v[i].boot, 2);
			assert_string_equal(timeline_str(a->tl, a->tl->ctrs[f->v[i].prev].name), "x");
			assert_int_equal(f->v[i].backoff, 100);	/* 300 - x's exit at 200 */
		} else if (strcmp(name, "x#3") == 0) {
			assert_string_equal(timeline_str(a->tl, a->tl->ctrs[f->v[i].prev].name), "x#2");
			assert_int_equal(f->v[i].backoff, 200);
		} else {
			/* x itself, y#2 without a y, z#1 (no #1 is ever given) */
			assert_int_equal(f->v[i].prev, SIZE_MAX);
		}
	}
	failures__free(f);
	analysis__free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_end_and_init),
		cmocka_unit_test(test_path_to_end),
		cmocka_unit_test(test_failed_syscalls),
		cmocka_unit_test(test_sender),
		cmocka_unit_test(test_restarts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
