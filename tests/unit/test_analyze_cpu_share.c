// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: who held the CPU of a runnable stretch of the critical path
 * (analyze/boot/cpu_share.c), on synthetic traces with a known truth:
 * - a SCHED_FIFO hog the boot forked renames itself with prctl(PR_SET_NAME)
 *   just after its first switch-in and holds the boot's CPU 100 ms: it is
 *   named by its new name and its tid, not by the boot's comm it had for
 *   0.1 ms;
 * - a host task whose switch-out was never written (a sched_switch the
 *   kernel missed, a gap between two boots of host_rows=boots) does not
 *   run on over the hog: the shares sum to 100% at most;
 * - a host hog, whose rename no row shows before its exit (host rows have
 *   no syscalls), by the name it exited with;
 * - a host task whose rows repeat one switch-out with later switch-ins
 *   each does not run on over the hog either;
 * - the text: the row's detail, then "; CPU 0 held by COMM TID SHARE".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analyze/boot/cpu_share.h"
#include "analyze/out/critpath_seg.h"
#include "tests/unit/critpath_fixture.h"

#define HEAD_HOST "# boottrace-tsv 1\n# mode=cgroup\n# sched=on\n# host_rows=boots\n" \
	TSV_HEADER "\n"
#define SCHED(ts, pid, tid, comm, state, run, dur, detail) \
	R(ts, pid, tid, "1", comm, "sched", state, run, dur, detail)
/* a row of a task outside every container (container \N) */
#define RH(ts, pid, tid, ppid, comm, ev, name, ret, dur, detail) \
	ts "\t\\N\t\\N\t" pid "\t" tid "\t" ppid "\t" comm "\t" ev "\t" name "\t" ret "\t" dur \
	"\t" detail "\n"

/*
 * The boot (10, "app", CPU 0) forks 20 at 1.9 ms, which gets the CPU at
 * 2.05 ms, renames itself bt-hog at 2.2 ms and spins to its exit at 102.3
 * ms; 10, in an openat from 2.0 ms, is preempted at 2.05 ms and runnable
 * until 102.3 ms, then listens at 103 ms. dockerd (40, a host task) got
 * CPU 0 at 0.5 ms and has no row again until 200 ms: read alone, it ran
 * on CPU 0 all that time.
 */
static const char renamed[] = HEAD_HOST
	START("1000000", "10")
	RH("400000", "40", "40", "1", "dockerd", "sched", "S", "0", "100000", "wake=irq cpu=0")
	SYS("1500000", "10", "10", "app", "clone", "20", "400000", "\\N")
	FORK("1900000", "20", "20", "10", "app", "process")
	SCHED("1900000", "20", "20", "app", "R", "150000", "150000",
	      "wake=new waker=10 wpid=10 wcomm=3:app holder=10 hcomm=3:app cpu=0")
	SYS("2000000", "10", "10", "app", "openat", "3", "100400000", "/etc/x")
	SCHED("2050000", "10", "10", "app", "R", "100250000", "100250000",
	      "wake=none holder=20 hcomm=6:bt-hog cpu=0")
	SYS("2200000", "20", "20", "bt-hog", "prctl", "0", "10000", "\\N")
	R("102300000", "20", "20", "10", "bt-hog", "exit", "\\N", "0", "\\N", "\\N")
	SYS("103000000", "10", "10", "app", "listen", "0", "20000", "0.0.0.0:80")
	RH("200000000", "40", "40", "1", "dockerd", "sched", "S", "0", "100000", "wake=irq cpu=1")
	TAIL;

/* The runnable segment of @tid on the path. */
static const struct cp_seg *runnable_of(const struct fixture *fx, int64_t tid)
{
	size_t i;

	for (i = 0; i < fx->p.nsegs; i++) {
		const struct cp_seg *s = &fx->p.segs[i];

		if (s->state == CP_ST_RUNNABLE && s->task != TL_NOTASK &&
		    ctr(fx)->tasks[s->task].tid == tid)
			return s;
	}
	return NULL;
}

/* Fill @fx's shares; the shares of segment @s, their count in *@n. */
static const struct cp_share *shares_of(struct fixture *fx, const struct cp_seg *s, size_t *n)
{
	struct cpu_share *cs = cpu_share__new(fx->a->tl);

	assert_non_null(cs);
	assert_int_equal(cpu_share_fill(cs, &fx->p, 1, 0), 0);
	cpu_share__free(cs);
	return cpu_share_of(&fx->p, (size_t)(s - fx->p.segs), n);
}

static void test_renamed_hog(void **state)
{
	struct fixture fx;
	const struct cp_seg *s;
	const struct cp_share *sh;
	char buf[CPSEG_DETAIL_MAX];
	uint64_t sum = 0;
	size_t n, i;

	(void)state;
	path_of(renamed, "listen", &fx);
	s = runnable_of(&fx, 10);
	assert_non_null(s);
	assert_int_equal(s->ts, 2050000);
	assert_int_equal(s->dur, 100250000);
	assert_int_equal(s->kind, CP_SYSCALL);
	sh = shares_of(&fx, s, &n);
	assert_non_null(sh);
	for (i = 0; i < n; i++)
		sum += sh[i].ns;
	/* never over the stretch: dockerd's run ends at the hog's switch-in */
	assert_true(sum <= s->dur);
	assert_int_equal(n, 1);
	assert_int_equal(sh[0].tid, 20);
	assert_int_equal(sh[0].pid, 20);
	assert_int_equal(sh[0].ns, s->dur);
	assert_string_equal(timeline_str(fx.a->tl, sh[0].comm), "bt-hog");
	cpseg_detail(fx.a->tl, ctr(&fx), &fx.p, s, NULL, buf, sizeof(buf));
	assert_string_equal(buf, "/etc/x; CPU 0 held by bt-hog 20 100%; last 20 bt-hog (preempted)");
	release(&fx);
}

/*
 * The hog is a host task (30), forked by a shell: its rows are its fork,
 * its first wait for a CPU and its exit; its rename shows at its exit
 * only. 10 waits on CPU 0 from 2.05 ms to 102.3 ms in user space.
 */
static const char host_hog[] = HEAD_HOST
	START("1000000", "10")
	RH("1900000", "30", "30", "5", "sh", "fork", "process", "\\N", "\\N", "parent=5")
	RH("1900000", "30", "30", "5", "sh", "sched", "R", "200000", "200000",
	   "wake=new waker=5 wpid=5 wcomm=2:sh cpu=0")
	SYS("1950000", "10", "10", "app", "getpid", "10", "1000", "\\N")
	SCHED("2050000", "10", "10", "app", "R", "100250000", "100250000",
	      "wake=none holder=30 hcomm=6:bt-hog cpu=0")
	RH("102300000", "30", "30", "5", "bt-hog", "exit", "\\N", "0", "\\N", "\\N")
	SYS("103000000", "10", "10", "app", "listen", "0", "20000", "0.0.0.0:80")
	TAIL;

static void test_host_hog_renamed_unseen(void **state)
{
	struct fixture fx;
	const struct cp_seg *s;
	const struct cp_share *sh;
	char buf[CPSEG_DETAIL_MAX];
	size_t n;

	(void)state;
	path_of(host_hog, "listen", &fx);
	s = runnable_of(&fx, 10);
	assert_non_null(s);
	assert_int_equal(s->kind, CP_CPU);
	sh = shares_of(&fx, s, &n);
	assert_int_equal(n, 1);
	assert_int_equal(sh[0].tid, 30);
	assert_string_equal(timeline_str(fx.a->tl, sh[0].comm), "bt-hog");
	/* no row detail: nothing before "CPU" */
	cpseg_detail(fx.a->tl, ctr(&fx), &fx.p, s, NULL, buf, sizeof(buf));
	assert_string_equal(buf, "CPU 0 held by bt-hog 30 100%, idle or unrecorded <0.1%; "
			    "last 30 bt-hog (preempted)");
	release(&fx);
}

/*
 * The same preemption by the forked hog, and a host task (40) whose sched
 * rows repeat one switch-out (0.5 ms) with a later switch-in each (1.5,
 * 1.7, 1.9 ms on CPU 0: as a collector wrote them for a task kdamond kept
 * waking in D), then nothing until 150 ms: read alone, it ran on CPU 0
 * from 1.9 to 150 ms, over the hog.
 */
static const char stale[] = HEAD_HOST
	START("1000000", "10")
	RH("500000", "40", "40", "1", "bash", "sched", "D", "1000", "1000000", "wake=irq cpu=0")
	RH("500000", "40", "40", "1", "bash", "sched", "D", "1000", "1200000", "wake=irq cpu=0")
	RH("500000", "40", "40", "1", "bash", "sched", "D", "1000", "1400000", "wake=irq cpu=0")
	SYS("1500000", "10", "10", "app", "clone", "20", "400000", "\\N")
	FORK("1900000", "20", "20", "10", "app", "process")
	SCHED("1900000", "20", "20", "app", "R", "150000", "150000",
	      "wake=new waker=10 wpid=10 wcomm=3:app holder=10 hcomm=3:app cpu=0")
	SCHED("2050000", "10", "10", "app", "R", "100250000", "100250000",
	      "wake=none holder=20 hcomm=6:bt-hog cpu=0")
	SYS("2200000", "20", "20", "bt-hog", "prctl", "0", "10000", "\\N")
	R("102300000", "20", "20", "10", "bt-hog", "exit", "\\N", "0", "\\N", "\\N")
	SYS("103000000", "10", "10", "app", "listen", "0", "20000", "0.0.0.0:80")
	RH("150000000", "40", "40", "1", "bash", "sched", "S", "0", "100000", "wake=irq cpu=1")
	TAIL;

static void test_stale_switch_outs(void **state)
{
	struct fixture fx;
	const struct cp_seg *s;
	const struct cp_share *sh;
	uint64_t sum = 0;
	size_t n, i;

	(void)state;
	path_of(stale, "listen", &fx);
	s = runnable_of(&fx, 10);
	assert_non_null(s);
	sh = shares_of(&fx, s, &n);
	for (i = 0; i < n; i++)
		sum += sh[i].ns;
	assert_true(sum <= s->dur);
	assert_int_equal(n, 1);
	assert_int_equal(sh[0].tid, 20);
	assert_int_equal(sh[0].ns, s->dur);
	release(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_renamed_hog),
		cmocka_unit_test(test_host_hog_renamed_unseen),
		cmocka_unit_test(test_stale_switch_outs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
