// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: collector/kernel/proc.c, on texts as /proc gives them: the parent in
 * /proc/PID/stat (a comm may hold ')' and spaces), the runtime's cgroup in
 * /proc/PID/cgroup on unified, hybrid and v1-only hosts, and the
 * descendants of a process from the parent links.
 */
#include <setjmp.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "collector/kernel/proc.h"

static void test_stat_ppid(void **state)
{
	(void)state;
	assert_int_equal(proc_stat_ppid("123 (sh) S 45 123 123 0 -1"), 45);
	assert_int_equal(proc_stat_ppid("7 (a) b) S 1 7 7 0"), 1);	/* ')' in comm */
	assert_int_equal(proc_stat_ppid("7 (x y z) R 0 7"), 0);
	assert_int_equal(proc_stat_ppid("7 (no end S 1"), -1);
	assert_int_equal(proc_stat_ppid("7 (sh) S"), -1);
	assert_int_equal(proc_ppid(getpid()), getppid());
}

/* A real line of /proc/PID/stat (kernel 6.18), comm with a space and ')' */
#define STAT_LINE \
	"4242 (col lector)) S 1 4242 4242 0 -1 4194560 1510 0 0 0 17 23 0 0 20 0 1 0 " \
	"987654 123456789 2345 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n"

static void test_stat_usage(void **state)
{
	struct proc_usage u = { 0 };

	(void)state;
	assert_int_equal(proc_stat_usage(STAT_LINE, &u), 0);
	assert_int_equal(u.utime, 17);
	assert_int_equal(u.stime, 23);
	assert_int_equal(u.starttime, 987654);
	assert_int_equal(u.vsize, 123456789);
	assert_int_equal(u.rss, 2345);
	assert_int_equal(proc_stat_usage("4242 (x) S 1 2 3", &u), -1);	/* cut short */
	assert_int_equal(proc_stat_usage("4242 (x) S 1 2 3 a 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21", &u), -1);
	assert_int_equal(proc_stat_usage("no comm", &u), -1);
	/* and this process: started after boot, a few fds open, some memory */
	assert_int_equal(proc_self_usage(&u), 0);
	assert_true(u.rss > 0 && u.vsize > u.rss);
	assert_true(u.fds >= 3);
	assert_true(u.btime > 1500000000ULL);
}

#define HYBRID_DOCKER \
	"12:pids:/docker/abc\n11:name=systemd:/docker/abc\n1:cpu,cpuacct:/docker/abc\n0::/docker/abc\n"
#define V1_ONLY \
	"12:pids:/system.slice/docker-1.scope\n3:memory:/x/y\n1:name=systemd:/system.slice/docker-1.scope\n"
/* runc without a cgroupsPath: nested under its own cgroup, per hierarchy */
#define V1_RUNC "4:memory:/process_api/h/c1\n3:pids:/c1\n"

static void test_cgroup_pick(void **state)
{
	char out[128];

	(void)state;
	assert_int_equal(cgroup_file_pick(HYBRID_DOCKER, out, sizeof(out)), 0);
	assert_string_equal(out, "/docker/abc");
	assert_int_equal(cgroup_file_pick("0::/user.slice/s\n", out, sizeof(out)), 0);
	assert_string_equal(out, "/user.slice/s");
	/* v2 root: the host's, not the runtime's: take v1 */
	assert_int_equal(cgroup_file_pick("1:name=systemd:/docker/x\n0::/\n", out, sizeof(out)), 0);
	assert_string_equal(out, "/docker/x");
	assert_int_equal(cgroup_file_pick(V1_ONLY, out, sizeof(out)), 0);
	assert_string_equal(out, "/system.slice/docker-1.scope");
	assert_int_equal(cgroup_file_pick(V1_RUNC, out, sizeof(out)), 0);
	assert_string_equal(out, "/c1");
	/* no last LF */
	assert_int_equal(cgroup_file_pick("3:pids:/q", out, sizeof(out)), 0);
	assert_string_equal(out, "/q");
	assert_int_equal(cgroup_file_pick("0::/\n", out, sizeof(out)), -ENOENT);
	assert_int_equal(cgroup_file_pick("", out, sizeof(out)), -ENOENT);
	assert_int_equal(cgroup_file_pick("2:memory:/m\n", out, sizeof(out)), -ENOENT);
}

static void test_descendants(void **state)
{
	/* 10 → 11 → 12, 10 → 13; 20 → 21 is another tree; 14's parent is 12 */
	const pid_t pids[] = { 14, 11, 12, 13, 20, 21 };
	const pid_t ppids[] = { 12, 10, 11, 10, 1, 20 };
	pid_t out[8];
	size_t n, i;
	int seen = 0;

	(void)state;
	n = descendants_of(10, pids, ppids, 6, out);
	assert_int_equal(n, 5);
	assert_int_equal(out[0], 10);
	for (i = 0; i < n; i++)
		seen |= 1 << (out[i] - 10);
	assert_int_equal(seen, 0x1f);	/* 10..14 */
	assert_int_equal(descendants_of(21, pids, ppids, 6, out), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stat_ppid),
		cmocka_unit_test(test_stat_usage),
		cmocka_unit_test(test_cgroup_pick),
		cmocka_unit_test(test_descendants),
	};

	return cmocka_run_group_tests_name("collector_proc", tests, NULL, NULL);
}
