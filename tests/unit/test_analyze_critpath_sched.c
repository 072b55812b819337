// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: the critical path with scheduler rows (sched), on synthetic
 * traces with a known truth: a thread waiting on a futex for another
 * thread's 120 ms of CPU (the other thread running is on the path, not the
 * wait), a task preempted for 100 ms (runnable, naming the holder), a
 * sleep ended by a timer (blocked, woken by a softirq), a read woken by a
 * task outside the container (blocked, naming it), a parent's wait4 woken
 * by its child's exit, D state, and a file with sched=on and no rows (a
 * task that never left its CPU: running), and the wakes an object without
 * their context guesses (wake=unknown: the task current at the wake),
 * followed only where the current task could have woken. Every path tiles
 * [start, phase].
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analyze/boot/profile.h"
#include "analyze/boot/states.h"
#include "analyze/out/critpath_seg.h"
#include "tests/unit/critpath_fixture.h"

#define HEAD_SCHED "# boottrace-tsv 1\n# mode=cgroup\n# sched=on\n" TSV_HEADER "\n"
/* an off-CPU interval: left at @ts in @state for @dur, the last @run ns runnable */
#define SCHED(ts, pid, tid, comm, state, run, dur, detail) \
	R(ts, pid, tid, "1", comm, "sched", state, run, dur, detail)

/* a row of a task outside every container (container \N) */
#define RH(ts, pid, tid, ppid, comm, ev, name, ret, dur, detail) \
	ts "\t\\N\t\\N\t" pid "\t" tid "\t" ppid "\t" comm "\t" ev "\t" name "\t" ret "\t" dur \
	"\t" detail "\n"

/* Sum of the path's time in @st (any task: 0) of task @tid. */
static uint64_t state_time(const struct fixture *fx, enum cp_state st, int64_t tid)
{
	uint64_t t = 0;
	size_t i;

	for (i = 0; i < fx->p.nsegs; i++) {
		const struct cp_seg *s = &fx->p.segs[i];

		if (s->state != st)
			continue;
		if (tid && (s->task == TL_NOTASK || ctr(fx)->tasks[s->task].tid != tid))
			continue;
		t += s->dur;
	}
	return t;
}

/*
 * 10 makes thread 11 at 2 ms, waits on a futex from 3 ms; 11 burns the CPU
 * until 123 ms and wakes 10 (FUTEX_WAKE), which gets the CPU at 123.5 ms
 * (11 held it), and listens at 124 ms.
 */
static const char futex[] = HEAD_SCHED
	START("1000000", "10")
	SYS("1100000", "10", "10", "app", "clone", "11", "1000000", "\\N")
	FORK("2000000", "10", "11", "1", "app", "thread")
	SYS("3000000", "10", "10", "app", "futex", "0", "120600000", "\\N")
	SCHED("3010000", "10", "10", "app", "S", "500000", "120490000",
	      "wake=task waker=11 wpid=10 wcomm=6:worker holder=11 hcomm=6:worker cpu=0")
	SYS("123000000", "10", "11", "worker", "futex", "1", "10000", "\\N")
	SYS("124000000", "10", "10", "app", "listen", "0", "20000", "0.0.0.0:80")
	TAIL;

static void test_futex_other_thread(void **state)
{
	struct fixture fx;
	const struct cp_seg *s;
	size_t i;

	(void)state;
	path_of(futex, "listen", &fx);
	assert_true(ctr(&fx)->has_sched);
	/* the worker's 121 ms of CPU (2 -> 123 ms) are on the path, running */
	assert_int_equal(state_time(&fx, CP_ST_RUNNING, 11), 121000000);
	/* 10 never blocked on the path: the futex wait was followed into 11 */
	assert_int_equal(state_time(&fx, CP_ST_BLOCKED, 10), 0);
	assert_int_equal(state_time(&fx, CP_ST_BLOCKED, 0), 0);
	assert_int_equal(fx.p.followed, 1);
	/* the runnable tail of the futex, after the wake, names the holder */
	assert_int_equal(state_time(&fx, CP_ST_RUNNABLE, 10), 500000);
	for (i = 0; i < fx.p.nsegs; i++)
		if (fx.p.segs[i].state == CP_ST_RUNNABLE)
			break;
	s = &fx.p.segs[i];
	assert_int_equal(s->kind, CP_SYSCALL);
	assert_string_equal(timeline_str(fx.a->tl, s->name), "futex");
	assert_int_equal(s->by, 11);
	assert_string_equal(timeline_str(fx.a->tl, s->by_comm), "worker");
	assert_int_equal(s->match, CP_MATCH_WAKE);
	assert_int_equal(ctr(&fx)->tasks[s->other].tid, 11);
	/* before the thread: the runtime, then 10's clone */
	assert_int_equal(fx.p.segs[0].kind, CP_RUNTIME);
	assert_int_equal(fx.p.segs[0].state, CP_ST_UNKNOWN);
	release(&fx);
}

/* 10 is preempted at 10 ms by a SCHED_FIFO hog (20) for 100 ms, then listens. */
static const char preempted[] = HEAD_SCHED
	START("1000000", "10")
	SCHED("10000000", "10", "10", "app", "R", "100000000", "100000000",
	      "wake=none holder=20 hcomm=3:hog cpu=1")
	SYS("111000000", "10", "10", "app", "listen", "0", "20000", "0.0.0.0:80")
	TAIL;

static void test_runnable_names_holder(void **state)
{
	struct fixture fx;
	const struct cp_seg *s;

	(void)state;
	path_of(preempted, "listen", &fx);
	assert_int_equal(state_time(&fx, CP_ST_RUNNABLE, 10), 100000000);
	s = seg(&fx, CP_CPU, NULL, 10);
	while (s && s->state != CP_ST_RUNNABLE)
		s++;
	assert_non_null(s);
	assert_int_equal(s->ts, 10000000);
	assert_int_equal(s->by, 20);
	assert_int_equal(s->off_state, 'R');
	assert_string_equal(timeline_str(fx.a->tl, s->by_comm), "hog");
	/* the task begins at its first row (no fork row): the runtime before it;
	 * running after: 1 ms of user space, the listen */
	assert_int_equal(state_time(&fx, CP_ST_RUNNING, 10), 1000000 + 20000);
	assert_int_equal(state_time(&fx, CP_ST_UNKNOWN, 0), 9000000);
	release(&fx);
}

/* 10 sleeps 100 ms (a timer's softirq wakes it), then a read woken by dockerd (999). */
static const char sleeps[] = HEAD_SCHED
	START("1000000", "10")
	SYS("2000000", "10", "10", "app", "nanosleep", "0", "100100000", "\\N")
	SCHED("2010000", "10", "10", "app", "S", "50000", "100050000", "wake=softirq holder=0 "
	      "hcomm=9:swapper/0 cpu=0")
	SYS("103000000", "10", "10", "app", "read", "5", "20000000", "\\N")
	SCHED("103010000", "10", "10", "app", "D", "0", "19980000",
	      "wake=task waker=999 wpid=990 wcomm=15:dockerd a=b 3:x")
	SYS("124000000", "10", "10", "app", "listen", "0", "20000", "0.0.0.0:80")
	TAIL;

static void test_blocked_timer_and_outsider(void **state)
{
	struct fixture fx;
	const struct cp_seg *s;

	(void)state;
	path_of(sleeps, "listen", &fx);
	s = seg(&fx, CP_SYSCALL, "nanosleep", 10);
	while (s->state != CP_ST_BLOCKED)
		s++;
	assert_int_equal(s->ts, 2010000);
	assert_int_equal(s->dur, 100000000);
	assert_int_equal(s->wake, TL_WAKE_SOFTIRQ);
	assert_int_equal(s->by, 0);
	s = seg(&fx, CP_SYSCALL, "read", 10);
	while (s->state != CP_ST_BLOCKED)
		s++;
	assert_int_equal(s->dur, 19980000);
	assert_int_equal(s->off_state, 'D');
	assert_int_equal(s->wake, TL_WAKE_TASK);
	assert_int_equal(s->by, 999);
	/* a comm with spaces, '=' and a digit-colon: its length says where it ends */
	assert_string_equal(timeline_str(fx.a->tl, s->by_comm), "dockerd a=b 3:x");
	assert_int_equal(fx.p.followed, 0);
	assert_int_equal(state_time(&fx, CP_ST_BLOCKED, 10), 100000000 + 19980000);
	release(&fx);
}

/* 10 forks 11 (runs 50 ms, exits), waits in wait4; 11's exit wakes it. */
static const char waits[] = HEAD_SCHED
	START("1000000", "10")
	SYS("2000000", "10", "10", "app", "clone", "11", "100000", "\\N")
	FORK("2050000", "11", "11", "10", "app", "process")
	SYS("2200000", "10", "10", "app", "wait4", "11", "50300000", "\\N")
	SCHED("2210000", "10", "10", "app", "S", "100000", "50250000",
	      "wake=task waker=11 wpid=11 wcomm=3:app holder=0 hcomm=0: cpu=1")
	SYS("52000000", "11", "11", "app", "exit_group", "\\N", "\\N", "\\N")
	EXIT("52300000", "11", "10", "app")
	SYS("53000000", "10", "10", "app", "listen", "0", "20000", "0.0.0.0:80")
	TAIL;

static void test_wait4_by_wake(void **state)
{
	struct fixture fx;

	(void)state;
	path_of(waits, "listen", &fx);
	/* the child from its fork to the wake (52.36 ms) is on the path */
	assert_int_equal(time_of(&fx, 11), 52360000 - 2050000);
	assert_int_equal(state_time(&fx, CP_ST_BLOCKED, 0), 0);
	assert_int_equal(fx.p.followed, 1);
	release(&fx);
}

/* sched=on, no sched rows: the task never left its CPU. */
static const char no_rows[] = HEAD_SCHED
	START("1000000", "10")
	SYS("2000000", "10", "10", "app", "openat", "3", "1000000", "/etc/x")
	SYS("5000000", "10", "10", "app", "listen", "0", "20000", "0.0.0.0:80")
	TAIL;

static void test_sched_on_no_rows(void **state)
{
	struct fixture fx;

	(void)state;
	path_of(no_rows, "listen", &fx);
	assert_true(ctr(&fx)->has_sched);
	assert_int_equal(state_time(&fx, CP_ST_RUNNING, 10), 5020000 - 2000000);
	assert_int_equal(state_time(&fx, CP_ST_UNKNOWN, 0), 1000000); /* the runtime */
	release(&fx);
}

/* --by state over the futex trace: each task's time split exactly. */
static void test_states_of(void **state)
{
	struct fixture fx;
	struct state_times st;

	(void)state;
	path_of(futex, "listen", &fx);
	states_of(ctr(&fx), 1000000, 124020000, &st);
	assert_int_equal(st.tasks, 2);
	assert_int_equal(st.t[ST_BLOCKED], 123000000 - 3010000);
	assert_int_equal(st.t[ST_RUNNABLE], 500000);
	assert_int_equal(st.t[ST_BLOCKED_D], 0);
	/* 10 lives 1.1 -> 124.02 ms less 120.49 off; 11 runs 2 -> 123.01 ms */
	assert_int_equal(st.t[ST_RUNNING], (124020000 - 1100000 - 120490000) + (123010000 - 2000000));
	assert_int_equal(st.t[ST_UNKNOWN], 0);
	/* a window that cuts the wait: only its part counts */
	states_of(ctr(&fx), 50000000, 60000000, &st);
	assert_int_equal(st.t[ST_BLOCKED], 10000000);
	assert_int_equal(st.t[ST_RUNNING], 10000000);
	release(&fx);
}

/*
 * A client-mode boot with the hosts' rows: `docker` (50, forked by the
 * collector at 1.05 ms, which has no rows of its own, exec'd at 1.1 ms)
 * wakes dockerd (60) at 2 ms, which wakes containerd (65) at 3.5 ms, which
 * burns to 10 ms and wakes the shim (70), which forks runc (80) at 20 ms;
 * runc sleeps 21 -> 30 ms (a timer) and forks the container's init (90),
 * which listens at 40 ms. containerd-shim's rows before the window are not
 * the boot's.
 */
static const char client[] = HEAD_SCHED
	R("1000000", "50", "50", "1", "collector", "start", "client", "\\N", "\\N", "docker run x")
	RH("500000", "70", "70", "1", "containerd-shim", "sched", "S", "0", "100000",
	   "wake=irq cpu=0")
	RH("1050000", "50", "50", "40", "collector", "fork", "process", "\\N", "\\N", "parent=40")
	RH("1100000", "50", "50", "40", "docker", "exec", "\\N", "\\N", "\\N", "/usr/bin/docker")
	RH("1200000", "60", "60", "1", "dockerd", "sched", "S", "0", "800000",
	   "wake=task waker=50 wpid=50 wcomm=6:docker cpu=1")
	RH("2200000", "50", "50", "40", "docker", "sched", "S", "0", "48000000", "wake=irq cpu=0")
	RH("2500000", "65", "65", "1", "containerd", "sched", "S", "0", "1000000",
	   "wake=task waker=60 wpid=60 wcomm=7:dockerd cpu=1")
	RH("4000000", "70", "70", "1", "containerd-shim", "sched", "S", "0", "6000000",
	   "wake=task waker=65 wpid=65 wcomm=10:containerd cpu=0")
	RH("20000000", "80", "80", "70", "containerd-shim", "fork", "process", "\\N", "\\N", "\\N")
	RH("21000000", "80", "80", "70", "runc", "sched", "S", "0", "9000000", "wake=irq cpu=1")
	FORK("30000000", "90", "90", "80", "runc", "process")
	SYS("40000000", "90", "90", "app", "listen", "0", "20000", "0.0.0.0:80")
	TAIL;

static void test_client_through_daemons(void **state)
{
	static const struct { int64_t tid; uint64_t running; } want[] = {
		{ 50, 2000000 - 1050000 }, { 60, 3500000 - 2000000 }, { 65, 10000000 - 3500000 },
		{ 70, 20000000 - 10000000 }, { 80, 21000000 - 20000000 },
		{ 90, 40020000 - 30000000 },
	};
	struct fixture fx;
	const struct cp_seg *s;
	struct state_times st;
	size_t i;

	(void)state;
	path_of(client, "listen", &fx);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(state_time(&fx, CP_ST_RUNNING, want[i].tid), want[i].running);
	/* runc's sleep, ended by a timer */
	assert_int_equal(state_time(&fx, CP_ST_BLOCKED, 80), 9000000);
	s = seg(&fx, CP_CPU, NULL, 80);
	while (s->state != CP_ST_BLOCKED)
		s++;
	assert_int_equal(s->wake, TL_WAKE_IRQ);
	/* only the collector's fork of the client is the runtime's: 0.05 ms */
	assert_int_equal(state_time(&fx, CP_ST_UNKNOWN, 0), 50000);
	assert_int_equal(fx.p.segs[0].kind, CP_RUNTIME);
	assert_int_equal(fx.p.followed, 3);
	/* the hosts' tasks are in the container's window, marked host; the
	 * shim's interval before it is not */
	assert_true(ctr(&fx)->tasks[timeline_find_task(ctr(&fx), 60)].host);
	assert_false(ctr(&fx)->tasks[timeline_find_task(ctr(&fx), 90)].host);
	assert_int_equal(ctr(&fx)->tasks[timeline_find_task(ctr(&fx), 70)].noffs, 1);
	/* --by state counts the container's own tasks only: init, running */
	states_of(ctr(&fx), 1000000, 40020000, &st);
	assert_int_equal(st.tasks, 1);
	assert_int_equal(st.t[ST_RUNNING], 40020000 - 30000000);
	release(&fx);
}

/*
 * Host rows of a runtime with threads: the shim's leader (70) sleeps
 * throughout; its thread 71, asleep since before the window, is woken at
 * 10 ms by containerd (65) and forks runc (80) at 20 ms (parent=71);
 * containerd was woken at 2 ms by a kworker (99, a child of kthreadd),
 * which a bystander (123) had woken; runc forks the container's init
 * (90, a fork row of the old format: no parent=) at 30 ms, which listens
 * at 40 ms.
 */
static const char threads[] = HEAD_SCHED
	R("1000000", "50", "50", "1", "collector", "start", "client", "\\N", "\\N", "docker run x")
	RH("500000", "70", "70", "1", "containerd-shim", "sched", "S", "0", "40000000", "wake=irq cpu=0")
	RH("800000", "65", "65", "1", "containerd", "sched", "S", "0", "1200000",
	   "wake=task waker=99 wpid=99 wcomm=11:kworker/0:1 cpu=0")
	RH("1200000", "123", "123", "1", "noise", "sched", "R", "100000", "100000", "wake=none cpu=1")
	RH("1500000", "99", "99", "2", "kworker/0:1", "sched", "S", "0", "300000",
	   "wake=task waker=123 wpid=123 wcomm=5:noise cpu=1")
	RH("3000000", "70", "71", "1", "containerd-shim", "sched", "S", "0", "7000000",
	   "wake=task waker=65 wpid=65 wcomm=10:containerd cpu=1")
	RH("20000000", "80", "80", "70", "containerd-shim", "fork", "process", "\\N", "\\N", "parent=71")
	FORK("30000000", "90", "90", "80", "runc", "process")
	SYS("40000000", "90", "90", "app", "listen", "0", "20000", "0.0.0.0:80")
	TAIL;

static void test_fork_thread_and_kworker(void **state)
{
	struct fixture fx;
	const struct cp_seg *s;

	(void)state;
	path_of(threads, "listen", &fx);
	/* the fork's own thread (71, woken by containerd), not the shim's sleeping leader */
	assert_int_equal(state_time(&fx, CP_ST_RUNNING, 71), 20000000 - 10000000);
	assert_int_equal(time_of(&fx, 70), 0);
	assert_int_equal(state_time(&fx, CP_ST_RUNNING, 80), 30000000 - 20000000);
	/* a task of the window without a fork row there was there from its start */
	assert_int_equal(state_time(&fx, CP_ST_RUNNING, 65), 10000000 - 2000000);
	/* the kworker's wake is not followed: containerd blocked, naming it */
	assert_int_equal(state_time(&fx, CP_ST_BLOCKED, 65), 2000000 - 1000000);
	s = seg(&fx, CP_CPU, NULL, 65);
	assert_non_null(s);
	assert_int_equal(s->state, CP_ST_BLOCKED);
	assert_int_equal(s->wake, TL_WAKE_TASK);
	assert_int_equal(s->by, 99);
	assert_int_equal(time_of(&fx, 99) + time_of(&fx, 123), 0);
	assert_int_equal(state_time(&fx, CP_ST_UNKNOWN, 0), 0);
	assert_int_equal(fx.p.followed, 1);
	release(&fx);
}

/*
 * The legacy object's wakes (wake=unknown: the task current at the wake).
 * 10 forks a decoy (11, in a read 2.5 -> 122.5 ms, then in user space)
 * and 12, which sleeps 3 -> 103 ms, its timer firing while 11 was current
 * (11 was in its read: a sleep that returned 0 woke by its timer all the
 * same), then wakes 10's futex at 105 ms from its own futex call
 * (followed). 10 then reads until 150 ms, woken while 11 ran in user
 * space (an interrupt's: not followed), and listens at 151 ms.
 */
#define CUR(t) "wake=unknown cur=" t " cpid=" t " ccomm=3:app holder=0 hcomm=9:swapper/0 cpu=0"
static const char guesses[] = HEAD_SCHED
	START("1000000", "10")
	SYS("2000000", "10", "10", "app", "clone", "11", "100000", "\\N")
	FORK("2050000", "11", "11", "10", "app", "process")
	SYS("2200000", "10", "10", "app", "clone", "12", "100000", "\\N")
	FORK("2250000", "12", "12", "10", "app", "process")
	SYS("2500000", "11", "11", "app", "read", "0", "120000000", "\\N")
	SYS("3000000", "12", "12", "app", "nanosleep", "0", "100100000", "\\N")
	SCHED("3010000", "12", "12", "app", "S", "50000", "100000000", CUR("11"))
	SYS("3000000", "10", "10", "app", "futex", "0", "102010000", "\\N")
	SCHED("3005000", "10", "10", "app", "S", "3000", "102000000", CUR("12"))
	SYS("105000000", "12", "12", "app", "futex", "1", "10000", "\\N")
	SYS("106000000", "10", "10", "app", "read", "5", "44000000", "\\N")
	SCHED("106010000", "10", "10", "app", "S", "10000", "43980000", CUR("11"))
	SYS("151000000", "10", "10", "app", "listen", "0", "20000", "0.0.0.0:80")
	TAIL;

static void test_guessed_wakes(void **state)
{
	struct fixture fx;
	const struct cp_seg *s;

	(void)state;
	path_of(guesses, "listen", &fx);
	assert_int_equal(time_of(&fx, 11), 0);
	assert_int_equal(fx.p.followed, 1);
	/* 12's sleep, blocked, naming the task that was current */
	assert_int_equal(state_time(&fx, CP_ST_BLOCKED, 12), 102960000 - 3010000);
	s = seg(&fx, CP_SYSCALL, "nanosleep", 12);
	while (s->state != CP_ST_BLOCKED)
		s++;
	assert_int_equal(s->wake, TL_WAKE_UNKNOWN);
	assert_int_equal(s->by, 11);
	assert_int_equal(s->match, CP_MATCH_NONE);
	/* the futex's wake followed into 12, marked a guess */
	s = seg(&fx, CP_SYSCALL, "futex", 10);
	assert_non_null(s);
	assert_int_equal(s->match, CP_MATCH_WAKE_CUR);
	assert_int_equal(ctr(&fx)->tasks[s->other].tid, 12);
	/* 10's read, blocked until the interrupt in 11's user space */
	assert_int_equal(state_time(&fx, CP_ST_BLOCKED, 10), 149980000 - 106010000);
	release(&fx);
}

/*
 * Off-CPU stacks: 10's nanosleep names the stack it blocked with
 * (stack=1): the kernel's frames, libc's (a file not here, named by its
 * module), then its own code (a JIT frame: named without ELF files); the
 * detail names that code, past the kernel and libc. A stack= of no stack
 * row names none.
 */
static const char coded[] = HEAD_SCHED
	START("1000000", "10")
	SYS("2000000", "10", "10", "app", "nanosleep", "0", "100100000", "\\N")
	R("2010000", "10", "10", "1", "app", "stack", "1", "\\N", "\\N",
	  "k:__schedule+0x1 k:do_nanosleep+0x2 f:22:/nonexistent/libc.so.6+0x10 "
	  "j:12:await_config j:4:main")
	SCHED("2010000", "10", "10", "app", "S", "50000", "100050000", "wake=softirq holder=0 "
	      "hcomm=9:swapper/0 cpu=0 stack=1")
	SYS("103000000", "10", "10", "app", "read", "5", "20000000", "\\N")
	SCHED("103010000", "10", "10", "app", "S", "0", "19980000", "wake=irq cpu=0 stack=7")
	SYS("124000000", "10", "10", "app", "listen", "0", "20000", "0.0.0.0:80")
	TAIL;

static void test_blocked_code(void **state)
{
	struct profile_opts po = { .no_system = true };
	struct profile *prof;
	struct fixture fx;
	const struct cp_seg *s;
	char buf[CPSEG_DETAIL_MAX];
	long ph;

	(void)state;
	path_of(coded, "listen", &fx);
	assert_true(fx.a->tl->off_stacks > 0);
	ph = strtab_find(fx.a->phase_names, "listen", 6);
	prof = profile__new(fx.a->tl, (uint32_t)ph, &po);
	assert_non_null(prof);
	s = seg(&fx, CP_SYSCALL, "nanosleep", 10);
	while (s->state != CP_ST_BLOCKED)
		s++;
	assert_int_not_equal(s->stack, TL_NOSTR);
	assert_string_equal(cpseg_detail(fx.a->tl, ctr(&fx), &fx.p, s, prof, buf, sizeof(buf)),
			    "in await_config ([jit]) <- woken by a softirq");
	/* without a profile, as before */
	assert_string_equal(cpseg_detail(fx.a->tl, ctr(&fx), &fx.p, s, NULL, buf, sizeof(buf)),
			    "<- woken by a softirq");
	s = seg(&fx, CP_SYSCALL, "read", 10);
	while (s->state != CP_ST_BLOCKED)
		s++;
	assert_int_equal(s->stack, TL_NOSTR);
	assert_string_equal(cpseg_detail(fx.a->tl, ctr(&fx), &fx.p, s, prof, buf, sizeof(buf)),
			    "<- woken by an interrupt");
	/* the off-CPU profile: await_config's 100 ms by self, in microseconds */
	profile__free(prof);
	po.offcpu = true;
	prof = profile__new(fx.a->tl, (uint32_t)ph, &po);
	assert_non_null(prof);
	assert_true(prof->any);
	assert_int_equal(prof->nctrs, 1);
	assert_string_equal(profile_fn_name(prof, prof->ctrs[0].fns[0].fn), "await_config");
	assert_int_equal(prof->ctrs[0].fns[0].self, 100000);
	/* the read's 19.98 ms, its stack unknown */
	assert_int_equal(prof->ctrs[0].samples, 100000 + 19980);
	profile__free(prof);
	release(&fx);
}

/*
 * An interpreter's thread (CPython's, Ruby's: its off-CPU stack carries
 * its interpreter frames): the blocked segment names its innermost
 * interpreter frame, not the native function past libc above it (a C
 * extension's, ext_sleep), as "FUNCTION (BASE:LINE)" from the frame's
 * "FUNCTION (FILE:LINE)", a Ruby label's own " (" kept; --profile=offcpu
 * weighs that frame by self.
 */
static const char interp_coded[] = HEAD_SCHED
	START("1000000", "10")
	SYS("2000000", "10", "10", "ruby", "ppoll", "0", "100100000", "\\N")
	R("2010000", "10", "10", "1", "ruby", "stack", "1", "\\N", "\\N",
	  "k:__schedule+0x1 f:22:/nonexistent/libc.so.6+0x10 j:9:ext_sleep "
	  "f:27:/nonexistent/libruby.so.3.1+0x20 i:45:block (2 levels) in run (/srv/app/lib/a.rb:3) "
	  "i:39:<top (required)> (/srv/app/config.ru:0)")
	SCHED("2010000", "10", "10", "ruby", "S", "50000", "100050000", "wake=softirq holder=0 "
	      "hcomm=9:swapper/0 cpu=0 stack=1")
	SYS("124000000", "10", "10", "ruby", "listen", "0", "20000", "0.0.0.0:80")
	TAIL;

static void test_blocked_interp(void **state)
{
	struct profile_opts po = { .no_system = true };
	struct profile *prof;
	struct fixture fx;
	const struct cp_seg *s;
	char buf[CPSEG_DETAIL_MAX], src[64];
	long ph;

	(void)state;
	path_of(interp_coded, "listen", &fx);
	ph = strtab_find(fx.a->phase_names, "listen", 6);
	prof = profile__new(fx.a->tl, (uint32_t)ph, &po);
	assert_non_null(prof);
	s = seg(&fx, CP_SYSCALL, "ppoll", 10);
	while (s->state != CP_ST_BLOCKED)
		s++;
	assert_string_equal(cpseg_detail(fx.a->tl, ctr(&fx), &fx.p, s, prof, buf, sizeof(buf)),
			    "in block (2 levels) in run (a.rb:3) <- woken by a softirq");
	profile__free(prof);
	po.offcpu = true;
	prof = profile__new(fx.a->tl, (uint32_t)ph, &po);
	assert_non_null(prof);
	assert_string_equal(profile_fn_name(prof, prof->ctrs[0].fns[0].fn),
			    "block (2 levels) in run (/srv/app/lib/a.rb:3)");
	assert_int_equal(prof->ctrs[0].fns[0].self, 100000);
	profile__free(prof);
	release(&fx);
	/* the split alone: a label with " (", a name without a place, one cut short */
	assert_int_equal(profile_interp_place("<top (required)> (/a/b.rb:0)", 28, src, sizeof(src)), 16);
	assert_string_equal(src, "b.rb:0");
	assert_int_equal(profile_interp_place("main", 4, src, sizeof(src)), 4);
	assert_string_equal(src, "");
	assert_int_equal(profile_interp_place("f (x.py:1", 9, src, sizeof(src)), 9);
	assert_string_equal(src, "");
	assert_int_equal(profile_interp_place(" ()", 3, src, sizeof(src)), 3);
	assert_int_equal(profile_interp_place("f (/)", 5, src, 2), 1);
	assert_string_equal(src, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_futex_other_thread),
		cmocka_unit_test(test_runnable_names_holder),
		cmocka_unit_test(test_blocked_timer_and_outsider),
		cmocka_unit_test(test_wait4_by_wake),
		cmocka_unit_test(test_sched_on_no_rows),
		cmocka_unit_test(test_states_of),
		cmocka_unit_test(test_client_through_daemons),
		cmocka_unit_test(test_fork_thread_and_kworker),
		cmocka_unit_test(test_guessed_wakes),
		cmocka_unit_test(test_blocked_code),
		cmocka_unit_test(test_blocked_interp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
