// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: analyze/boot/critpath.c on synthetic traces with a known critical
 * path — a child whose connect gates the parent's listen through wait4, a
 * child nobody waits for (off the path), sh -c 'a; b', x=$(slow) with and
 * without the pipe's inode, a tini-style sigtimedwait + WNOHANG loop,
 * wait4 returning EINTR, listen on a thread that is not the main one,
 * posix_spawn (vfork), equal timestamps, lost events, the exec and mark
 * phases, a parent cycle in hostile input. Every path is checked to tile
 * [start, phase] exactly: contiguous, no empty or overlapping segment.
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
#include "analyze/boot/critpath.h"
#include "tests/unit/critpath_fixture.h"

/*
 * 10 forks 11 (connects for 200 ms, exits) and 12 (sleeps 900 ms, nobody
 * waits), waits for 11 (wait4 returns 11), then listens.
 */
static const char wait_chain[] = HEAD
	START("1000000", "10")
	SYS("1100000", "10", "10", "sh", "execve", "0", "400000", "/srv/app")
	R("1500000", "10", "10", "9", "app", "exec", "\\N", "\\N", "\\N", "/srv/app")
	SYS("2000000", "10", "10", "app", "clone", "11", "100000", "\\N")
	FORK("2050000", "11", "11", "10", "app", "process")
	SYS("2060000", "10", "10", "app", "clone", "12", "50000", "\\N")
	FORK("2070000", "12", "12", "10", "app", "process")
	SYS("2200000", "11", "11", "app", "connect", "0", "200000000", "10.0.0.5:5432")
	SYS("202300000", "11", "11", "app", "exit_group", "\\N", "\\N", "\\N")
	EXIT("202400000", "11", "10", "app")
	SYS("2300000", "10", "10", "app", "openat", "3", "100000", "/etc/app.conf")
	SYS("2500000", "10", "10", "app", "wait4", "11", "200000000", "\\N")
	SYS("2200000", "12", "12", "app", "nanosleep", "0", "900000000", "\\N")
	SYS("203000000", "10", "10", "app", "bind", "0", "10000", "0.0.0.0:80")
	SYS("203100000", "10", "10", "app", "listen", "0", "20000", "0.0.0.0:80")
	TAIL;

static void test_wait_chain(void **state)
{
	struct fixture fx;
	const struct cp_seg *s;

	(void)state;
	path_of(wait_chain, "listen", &fx);
	assert_int_equal(fx.p.t1 - fx.p.t0, 202120000);
	/* the child's connect is on the path, whole */
	s = seg(&fx, CP_SYSCALL, "connect", 11);
	assert_non_null(s);
	assert_int_equal(s->dur, 200000000);
	assert_string_equal(timeline_str(fx.a->tl, s->detail), "10.0.0.5:5432");
	/* wait4's tail after the child's exit, matched by the pid it returned */
	s = seg(&fx, CP_SYSCALL, "wait4", 10);
	assert_non_null(s);
	assert_int_equal(s->ts, 202400000);
	assert_int_equal(s->dur, 100000);
	assert_int_equal(s->match, CP_MATCH_PID);
	assert_int_equal(ctr(&fx)->tasks[s->other].tid, 11);
	/* exit_group lasts until the exit row */
	s = seg(&fx, CP_SYSCALL, "exit_group", 11);
	assert_non_null(s);
	assert_int_equal(s->dur, 100000);
	/* the parent's clone up to the fork, then the child's cpu to its connect */
	s = seg(&fx, CP_SYSCALL, "clone", 10);
	assert_non_null(s);
	assert_int_equal(s->ts, 2000000);
	assert_int_equal(s->dur, 50000);
	/* the runtime before the first task's first row */
	s = seg(&fx, CP_RUNTIME, NULL, 0);
	assert_non_null(s);
	assert_int_equal(s->ts, 1000000);
	assert_int_equal(s->dur, 100000);
	/* the child nobody waited for, and the parent's work meanwhile, are off the path */
	assert_int_equal(time_of(&fx, 12), 0);
	assert_null(seg(&fx, CP_SYSCALL, "openat", 10));
	assert_int_equal(fx.p.followed, 1);
	release(&fx);
}

/* sh -c 'a; b': a sleeps 100 ms, sh waits, then b is forked and listens. */
static const char sh_ab[] = HEAD
	START("1000", "20")
	SYS("2000", "20", "20", "sh", "clone", "21", "1000", "\\N")
	FORK("2500", "21", "21", "20", "sh", "process")
	SYS("4000", "20", "20", "sh", "wait4", "21", "100010000", "\\N")
	SYS("3000", "21", "21", "sh", "execve", "0", "1000", "/bin/a")
	SYS("5000", "21", "21", "a", "nanosleep", "0", "100000000", "\\N")
	SYS("100006000", "21", "21", "a", "exit_group", "\\N", "\\N", "\\N")
	EXIT("100007000", "21", "20", "a")
	SYS("100020000", "20", "20", "sh", "clone", "22", "1000", "\\N")
	FORK("100020500", "22", "22", "20", "sh", "process")
	SYS("100021000", "22", "22", "sh", "execve", "0", "1000", "/bin/b")
	SYS("100030000", "22", "22", "b", "listen", "0", "1000", "[::]:80")
	TAIL;

static void test_sh_a_then_b(void **state)
{
	struct fixture fx;
	const struct cp_seg *s;

	(void)state;
	path_of(sh_ab, "listen", &fx);
	/* b's listen <- b's fork <- sh's clone <- sh's wait4 <- a's nanosleep */
	s = seg(&fx, CP_SYSCALL, "nanosleep", 21);
	assert_non_null(s);
	assert_int_equal(s->dur, 100000000);
	assert_non_null(seg(&fx, CP_SYSCALL, "listen", 22));
	s = seg(&fx, CP_SYSCALL, "wait4", 20);
	assert_non_null(s);
	assert_int_equal(s->ts, 100007000);
	assert_int_equal(s->match, CP_MATCH_PID);
	release(&fx);
}

/*
 * x=$(sleep 0.2; echo); exec server: sh (30) makes a pipe, forks the
 * subshell (31), which forks sleep (32) and waits for it, then writes to
 * the pipe and exits. sh reads until EOF, reaps 31, execs the server,
 * which listens. @P is the pipe's detail: pipe:[4242] or \N.
 */
#define SUBST(P) HEAD \
	START("1000", "30") \
	SYS("2000", "30", "30", "sh", "pipe2", "0", "1000", P) \
	SYS("4000", "30", "30", "sh", "clone", "31", "2000", "\\N") \
	FORK("5000", "31", "31", "30", "sh", "process") \
	SYS("7000", "30", "30", "sh", "read", "1", "200075000", P) \
	SYS("8000", "31", "31", "sh", "clone", "32", "2000", "\\N") \
	FORK("9000", "32", "32", "31", "sh", "process") \
	SYS("12000", "31", "31", "sh", "wait4", "32", "200040000", "\\N") \
	SYS("11000", "32", "32", "sh", "execve", "0", "3000", "/bin/sleep") \
	SYS("15000", "32", "32", "sleep", "clock_nanosleep", "0", "200000000", "\\N") \
	SYS("200016000", "32", "32", "sleep", "exit_group", "\\N", "\\N", "\\N") \
	EXIT("200020000", "32", "31", "sleep") \
	SYS("200070000", "31", "31", "sh", "write", "1", "10000", P) \
	SYS("200082000", "31", "31", "sh", "exit_group", "\\N", "\\N", "\\N") \
	EXIT("200085000", "31", "30", "sh") \
	SYS("200090000", "30", "30", "sh", "read", "0", "1000", P) \
	SYS("200095000", "30", "30", "sh", "wait4", "31", "1000", "\\N") \
	SYS("200100000", "30", "30", "sh", "execve", "0", "50000", "/srv/server") \
	SYS("200200000", "30", "30", "server", "listen", "0", "1000", "0.0.0.0:80") \
	TAIL

static void test_subst_pipe_inode(void **state)
{
	struct fixture fx;
	const struct cp_seg *s;

	(void)state;
	path_of(SUBST("pipe:[4242]"), "listen", &fx);
	/* the read's tail after the subshell's write returned, by the inode */
	s = seg(&fx, CP_SYSCALL, "read", 30);
	assert_non_null(s);
	assert_int_equal(s->match, CP_MATCH_PIPE);
	assert_int_equal(s->event, CP_EV_WRITE);
	assert_int_equal(s->ts, 200080000);
	assert_int_equal(ctr(&fx)->tasks[s->other].tid, 31);
	/* the write, the subshell's wait4 tail, and the sleep itself */
	assert_non_null(seg(&fx, CP_SYSCALL, "write", 31));
	s = seg(&fx, CP_SYSCALL, "wait4", 31);
	assert_non_null(s);
	assert_int_equal(s->match, CP_MATCH_PID);
	s = seg(&fx, CP_SYSCALL, "clock_nanosleep", 32);
	assert_non_null(s);
	assert_int_equal(s->dur, 200000000);
	/* the sleep's 200 ms and more are off sh's own account */
	assert_true(time_of(&fx, 32) > 200000000);
	release(&fx);
}

static void test_subst_by_time(void **state)
{
	struct fixture fx;
	const struct cp_seg *s;

	(void)state;
	/* no inode (an older collector): the sleep's exit, 60 us before the read returned */
	path_of(SUBST("\\N"), "listen", &fx);
	s = seg(&fx, CP_SYSCALL, "read", 30);
	assert_non_null(s);
	assert_int_equal(s->match, CP_MATCH_TIME);
	assert_int_equal(s->event, CP_EV_EXIT);
	assert_int_equal(s->ts, 200020000);
	assert_int_equal(ctr(&fx)->tasks[s->other].tid, 32);
	s = seg(&fx, CP_SYSCALL, "clock_nanosleep", 32);
	assert_non_null(s);
	assert_int_equal(s->dur, 200000000);
	release(&fx);
}

/*
 * The slack of the by-time rule: a read that returned 20 ms after a child's
 * exit is its wake-up when it waited 200 ms (an eighth: 25 ms), not when
 * it waited 100 ms (12.5 ms). @SLEEP: the child's nanosleep, @GONE its
 * exit, @READ the read's duration (from 5000), @LISTEN after it.
 */
#define LATE(SLEEP, GONE, READ, LISTEN) HEAD \
	START("1000", "35") \
	SYS("2000", "35", "35", "sh", "clone", "36", "2000", "\\N") \
	FORK("3000", "36", "36", "35", "sh", "process") \
	SYS("6000", "36", "36", "job", "nanosleep", "0", SLEEP, "\\N") \
	EXIT(GONE, "36", "35", "job") \
	SYS("5000", "35", "35", "sh", "read", "1", READ, "\\N") \
	SYS(LISTEN, "35", "35", "sh", "listen", "0", "1000", "0.0.0.0:80") \
	TAIL

static void test_by_time_slack(void **state)
{
	struct fixture fx;

	(void)state;
	path_of(LATE("179994000", "180000000", "200000000", "200010000"), "listen", &fx);
	assert_int_equal(seg(&fx, CP_SYSCALL, "read", 35)->match, CP_MATCH_TIME);
	assert_non_null(seg(&fx, CP_SYSCALL, "nanosleep", 36));
	release(&fx);
	path_of(LATE("79994000", "80000000", "100000000", "100010000"), "listen", &fx);
	assert_int_equal(seg(&fx, CP_SYSCALL, "read", 35)->match, CP_MATCH_NONE);
	assert_null(seg(&fx, CP_SYSCALL, "nanosleep", 36));
	release(&fx);
}

/*
 * tini: 40 forks the setup job 41 (100 ms), blocks in rt_sigtimedwait
 * until SIGCHLD (17), reaps with waitpid WNOHANG (wait4 returns 41 at
 * once, then 0), then forks the server 42, which listens.
 */
static const char tini[] = HEAD
	START("1000", "40")
	SYS("2000", "40", "40", "tini", "clone", "41", "2000", "\\N")
	FORK("3000", "41", "41", "40", "tini", "process")
	SYS("6000", "40", "40", "tini", "rt_sigtimedwait", "17", "100010000", "\\N")
	SYS("5000", "41", "41", "tini", "execve", "0", "1000", "/setup")
	SYS("7000", "41", "41", "setup", "read", "10", "100000000", "/dev/sda")
	EXIT("100010000", "41", "40", "setup")
	SYS("100020000", "40", "40", "tini", "wait4", "41", "1000", "\\N")
	SYS("100022000", "40", "40", "tini", "wait4", "0", "1000", "\\N")
	SYS("100030000", "40", "40", "tini", "clone", "42", "2000", "\\N")
	FORK("100031000", "42", "42", "40", "tini", "process")
	SYS("100040000", "42", "42", "server", "listen", "0", "1000", "0.0.0.0:80")
	TAIL;

static void test_tini(void **state)
{
	struct fixture fx;
	const struct cp_seg *s;

	(void)state;
	path_of(tini, "listen", &fx);
	/* the sigtimedwait's tail after the job's exit: the job's read is on the path */
	s = seg(&fx, CP_SYSCALL, "rt_sigtimedwait", 40);
	assert_non_null(s);
	assert_int_equal(s->match, CP_MATCH_TIME);
	assert_int_equal(s->ts, 100010000);
	s = seg(&fx, CP_SYSCALL, "read", 41);
	assert_non_null(s);
	assert_int_equal(s->dur, 100000000);
	/* the WNOHANG wait4s stay tini's own (the exit came before them) */
	s = seg(&fx, CP_SYSCALL, "wait4", 40);
	assert_non_null(s);
	assert_int_equal(s->match, CP_MATCH_NONE);
	assert_int_equal(s->ts, 100020000);
	release(&fx);
}

/* wait4 returns EINTR although a child exited in its window: not followed. */
static const char eintr[] = HEAD
	START("1000", "50")
	SYS("2000", "50", "50", "sh", "clone", "51", "2000", "\\N")
	FORK("3000", "51", "51", "50", "sh", "process")
	SYS("5000", "50", "50", "sh", "wait4", "-4", "50000000", "\\N")
	SYS("6000", "51", "51", "job", "nanosleep", "0", "40000000", "\\N")
	EXIT("40010000", "51", "50", "job")
	SYS("50010000", "50", "50", "sh", "listen", "0", "1000", "0.0.0.0:80")
	TAIL;

static void test_wait4_eintr(void **state)
{
	struct fixture fx;
	const struct cp_seg *s;

	(void)state;
	path_of(eintr, "listen", &fx);
	s = seg(&fx, CP_SYSCALL, "wait4", 50);
	assert_non_null(s);
	assert_int_equal(s->ts, 5000);
	assert_int_equal(s->dur, 50000000);
	assert_int_equal(s->match, CP_MATCH_NONE);
	assert_int_equal(time_of(&fx, 51), 0);
	release(&fx);
}

/*
 * A server whose main thread (60) starts thread 61, which starts 62, which
 * listens; the main thread waits in futex meanwhile (not on the path).
 */
static const char threads[] = HEAD
	START("1000", "60")
	SYS("2000", "60", "60", "srv", "mmap", "0", "1000", "\\N")
	SYS("4000", "60", "60", "srv", "clone3", "61", "3000", "\\N")
	FORK("5000", "60", "61", "1", "srv", "thread")
	SYS("8000", "60", "60", "srv", "futex", "0", "90000000", "\\N")
	SYS("7000", "60", "61", "srv", "openat", "5", "30000000", "/etc/srv.conf")
	SYS("30010000", "60", "61", "srv", "clone3", "62", "3000", "\\N")
	FORK("30011000", "60", "62", "1", "srv", "thread")
	SYS("30020000", "60", "62", "srv-net", "socket", "7", "1000", "\\N")
	SYS("30030000", "60", "62", "srv-net", "listen", "0", "1000", "0.0.0.0:80")
	TAIL;

static void test_listen_on_thread(void **state)
{
	struct fixture fx;
	const struct cp_seg *s;

	(void)state;
	path_of(threads, "listen", &fx);
	assert_int_equal(ctr(&fx)->tasks[fx.p.target].tid, 62);
	assert_non_null(seg(&fx, CP_SYSCALL, "listen", 62));
	/* 62 was created by 61 (in clone3 at its fork), 61 by 60 */
	s = seg(&fx, CP_SYSCALL, "clone3", 61);
	assert_non_null(s);
	assert_int_equal(s->dur, 1000);
	s = seg(&fx, CP_SYSCALL, "openat", 61);
	assert_non_null(s);
	assert_int_equal(s->dur, 30000000);
	assert_non_null(seg(&fx, CP_SYSCALL, "clone3", 60));
	assert_null(seg(&fx, CP_SYSCALL, "futex", 60));
	release(&fx);
}

/* posix_spawn: clone(CLONE_VFORK) returns after the child's exec. */
static const char spawn_vfork[] = HEAD
	START("1000", "70")
	SYS("2000", "70", "70", "py", "clone", "71", "80000000", "\\N")
	FORK("3000", "71", "71", "70", "py", "process")
	SYS("4000", "71", "71", "py", "execve", "0", "79990000", "/usr/bin/helper")
	R("79994000", "71", "71", "70", "helper", "exec", "\\N", "\\N", "\\N", "/usr/bin/helper")
	SYS("80010000", "70", "70", "py", "listen", "0", "1000", "0.0.0.0:80")
	TAIL;

static void test_vfork(void **state)
{
	struct fixture fx;
	const struct cp_seg *s;

	(void)state;
	path_of(spawn_vfork, "listen", &fx);
	/* the clone up to the fork, then its tail after the child's exec */
	s = seg(&fx, CP_SYSCALL, "clone", 70);
	assert_non_null(s);
	assert_int_equal(s->dur, 1000);
	s = seg_at(&fx, CP_SYSCALL, "clone", 70, true);
	assert_non_null(s);
	assert_int_equal(s->match, CP_MATCH_CLONE);
	assert_int_equal(s->event, CP_EV_EXEC);
	assert_int_equal(s->ts, 79994000);
	s = seg(&fx, CP_SYSCALL, "execve", 71);
	assert_non_null(s);
	assert_int_equal(s->ts, 4000);
	assert_int_equal(s->dur, 79990000); /* entry to the exec event */
	release(&fx);
}

/* Equal timestamps and zero-length rows; the exec and mark phases. */
static const char equal_ts[] = HEAD
	START("1000", "80")
	SYS("1000", "80", "80", "x", "getpid", "80", "0", "\\N")
	SYS("1000", "80", "80", "x", "execve", "0", "500", "/bin/x")
	R("1400", "80", "80", "1", "x", "exec", "\\N", "\\N", "\\N", "/bin/x")
	SYS("1500", "80", "80", "x", "brk", "0", "0", "\\N")
	SYS("1500", "80", "80", "x", "brk", "0", "100", "\\N")
	SYS("1600", "80", "80", "x", "openat", "3", "100", "/etc/x")
	R("2100", "80", "80", "1", "x", "mark", "ready", "\\N", "\\N", "uprobe:/bin/x:ready")
	SYS("1700", "80", "80", "x", "listen", "0", "300", "0.0.0.0:80")
	TAIL;

static void test_equal_ts_and_phases(void **state)
{
	struct fixture fx;
	const struct cp_seg *s;

	(void)state;
	path_of(equal_ts, "listen", &fx);
	assert_int_equal(fx.p.t1, 2000);
	assert_null(seg(&fx, CP_RUNTIME, NULL, 0)); /* the first row is at the start */
	release(&fx);
	/* exec: the path ends inside execve, at the exec row */
	path_of(equal_ts, "exec", &fx);
	assert_int_equal(fx.p.t1, 1400);
	s = &fx.p.segs[fx.p.nsegs - 1];
	assert_int_equal(s->kind, CP_SYSCALL);
	assert_string_equal(timeline_str(fx.a->tl, s->name), "execve");
	assert_int_equal(s->dur, 400);
	release(&fx);
	/* a mark: cpu since the listen returned */
	path_of(equal_ts, "ready", &fx);
	s = &fx.p.segs[fx.p.nsegs - 1];
	assert_int_equal(s->kind, CP_CPU);
	assert_int_equal(s->ts, 2000);
	assert_int_equal(s->dur, 100);
	release(&fx);
}

/* With lost events, a gap between rows is "unknown", never cpu. */
static void test_lost_events(void **state)
{
	static const char lost[] = HEAD
		START("1000", "90")
		SYS("5000", "90", "90", "x", "openat", "3", "1000", "/a")
		SYS("9000", "90", "90", "x", "listen", "0", "1000", "0.0.0.0:80")
		"# lost=3 events=3\n";
	struct fixture fx;
	size_t i;

	(void)state;
	path_of(lost, "listen", &fx);
	for (i = 0; i < fx.p.nsegs; i++)
		assert_int_not_equal(fx.p.segs[i].kind, CP_CPU);
	assert_non_null(seg(&fx, CP_UNKNOWN, NULL, 90));
	release(&fx);
}

/* Hostile input: two tasks each the other's parent. The walk ends, and tiles. */
static void test_parent_cycle(void **state)
{
	static const char cycle[] = HEAD
		START("1000", "100")
		FORK("2000", "101", "101", "102", "a", "process")
		FORK("2000", "102", "102", "101", "b", "process")
		SYS("1500", "101", "101", "a", "clone", "102", "1000", "\\N")
		SYS("1500", "102", "102", "b", "clone", "101", "1000", "\\N")
		SYS("3000", "101", "101", "a", "listen", "0", "100", "0.0.0.0:80")
		TAIL;
	struct fixture fx;

	(void)state;
	path_of(cycle, "listen", &fx);
	assert_int_equal(fx.p.t1, 3100);
	release(&fx);
}

/* A container that did not reach the phase has no path. */
static void test_not_reached(void **state)
{
	struct analyze_opts o = { .timeline = true };
	char path[] = "/tmp/test_analyze_critpath.XXXXXX";
	static const char none[] = HEAD START("1000", "5") SYS("2000", "5", "5", "x", "read", "0", "1", "\\N") TAIL;
	int fd = mkstemp(path);
	struct analysis *a = analysis__new(&o);
	struct cp_path p;

	(void)state;
	assert_int_equal(write(fd, none, strlen(none)), (ssize_t)strlen(none));
	close(fd);
	assert_int_equal(analysis_read(a, path, stderr), 0);
	unlink(path);
	assert_int_equal(analysis_finish(a), 0);
	assert_int_equal(critpath_build(a->tl, 0, PHASE_LISTEN, "listen", &p), 0);
	critpath_release(&p);
	analysis__free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wait_chain),
		cmocka_unit_test(test_sh_a_then_b),
		cmocka_unit_test(test_subst_pipe_inode),
		cmocka_unit_test(test_subst_by_time),
		cmocka_unit_test(test_by_time_slack),
		cmocka_unit_test(test_tini),
		cmocka_unit_test(test_wait4_eintr),
		cmocka_unit_test(test_listen_on_thread),
		cmocka_unit_test(test_vfork),
		cmocka_unit_test(test_equal_ts_and_phases),
		cmocka_unit_test(test_lost_events),
		cmocka_unit_test(test_parent_cycle),
		cmocka_unit_test(test_not_reached),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
