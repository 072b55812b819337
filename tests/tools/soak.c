// SPDX-License-Identifier: BSD-2-Clause
/*
 * soak RATE SECONDS FILE: a steady mix of syscalls at RATE syscalls per
 * second (0: as fast as it goes) for SECONDS, for soak tests. Each round:
 * getppid x3, openat + read + close of FILE, write x2 to /dev/null; every
 * 64 rounds a clock_nanosleep of 0 (not each round: it sleeps for the timer
 * slack, 50 us or more, and would set the pace); every 1024 rounds a fork
 * whose child exits at once (exit_group), reaped with wait4. When ahead of
 * the rate it sleeps (clock_nanosleep to the time it is due).
 *
 * The loop runs in a child forked at the start, which first names itself
 * "soak-loop" (prctl): the rows of that comm are exactly the syscalls it
 * counts, so that a test can compare the collector's rows of that comm with
 * them, name by name (none come from the dynamic loader or libc's own
 * start-up, made under the comm "soak"). It makes them with the syscall
 * instruction itself, not through libc's syscall(3): a uretprobe that
 * another tracer sets on a libc function (system-wide, as collector --mark
 * uretprobe:libc:syscall does) makes each call of it in any process return
 * through the kernel's uretprobe syscall (335, Linux 6.11+), one more row
 * of ours. The loop calls only clock_gettime(3) (the vDSO) from libc. At the
 * end it prints one line per syscall name, "NAME COUNT", counting its own
 * write of that report and its exit_group, then "forks N", "seconds S" and
 * "rate R" (syscalls per second done), in one write(2) to standard output.
 * Exit 0, or 1 with a message when a call fails.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef __x86_64__
#error "soak makes its syscalls with the x86-64 syscall instruction"
#endif

enum kind { GETPPID, OPENAT, READ, CLOSE, WRITE, NANOSLEEP, FORK, WAIT4, EXIT_GROUP, PRCTL, NKINDS };
static const char *const kind_names[NKINDS] = {
	"getppid", "openat", "read", "close", "write", "clock_nanosleep", "fork", "wait4",
	"exit_group", "prctl",
};
static unsigned long long count[NKINDS];

/* syscall @nr with up to 4 arguments, the raw way: -errno on failure */
static long raw4(long nr, long a, long b, long c, long d)
{
	register long r10 __asm__("r10") = d;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

#define RAW(nr, a, b, c, d) raw4((nr), (long)(a), (long)(b), (long)(c), (long)(d))
/* one syscall of @k: counted, then made */
#define SC(k, nr, a, b, c, d) (count[k]++, RAW(nr, a, b, c, d))

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t); /* the vDSO: no syscall */
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* (not counted: the test fails on our exit status anyway) */
static void die(const char *what, long ret)
{
	fprintf(stderr, "soak: %s: %s\n", what, strerror((int)-ret));
	_exit(1);
}

static int loop(double rate, double seconds, const char *file)
{
	static const struct timespec zero = { 0, 0 };
	unsigned long long rounds = 0, forks = 0, total;
	char buf[64], report[1024];
	double t0, t, elapsed;
	long fd, devnull, pid, n, ret;
	int st, len, k;

	if ((ret = SC(PRCTL, SYS_prctl, PR_SET_NAME, "soak-loop", 0, 0)) < 0)
		die("prctl", ret);
	devnull = SC(OPENAT, SYS_openat, AT_FDCWD, "/dev/null", O_WRONLY | O_CLOEXEC, 0);
	if (devnull < 0)
		die("/dev/null", devnull);
	t0 = now();
	for (;;) {
		for (k = 0; k < 3; k++)
			SC(GETPPID, SYS_getppid, 0, 0, 0, 0);
		fd = SC(OPENAT, SYS_openat, AT_FDCWD, file, O_RDONLY | O_CLOEXEC, 0);
		if (fd < 0)
			die(file, fd);
		if ((ret = SC(READ, SYS_read, fd, buf, sizeof(buf), 0)) < 0)
			die("read", ret);
		SC(CLOSE, SYS_close, fd, 0, 0, 0);
		for (k = 0; k < 2; k++)
			if ((ret = SC(WRITE, SYS_write, devnull, buf, 16, 0)) != 16)
				die("write", ret);
		if (++rounds % 64 == 0)
			SC(NANOSLEEP, SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &zero, NULL);
		if (rounds % 1024 == 0) {
			forks++;
			pid = SC(FORK, SYS_fork, 0, 0, 0, 0);
			if (pid < 0)
				die("fork", pid);
			if (pid == 0) {
				RAW(SYS_exit_group, 0, 0, 0, 0); /* counted by the parent, below */
				__builtin_unreachable();
			}
			count[EXIT_GROUP]++;
			if ((ret = SC(WAIT4, SYS_wait4, pid, &st, 0, NULL)) != pid)
				die("wait4", ret);
		}
		t = now();
		elapsed = t - t0;
		if (elapsed >= seconds)
			break;
		total = 0;
		for (k = 0; k < NKINDS; k++)
			total += count[k];
		/* ahead of the rate by 100 us or more: sleep until due */
		if (rate > 0 && (double)total / rate - elapsed >= 100e-6) {
			double due = t0 + (double)total / rate;
			struct timespec ts = { (time_t)due, (long)((due - (double)(time_t)due) * 1e9) };

			SC(NANOSLEEP, SYS_clock_nanosleep, CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
	}
	SC(CLOSE, SYS_close, devnull, 0, 0, 0);
	/* the report's write and our exit_group are counted before they are made */
	count[WRITE]++;
	count[EXIT_GROUP]++;
	total = 0;
	for (k = 0; k < NKINDS; k++)
		total += count[k];
	len = 0;
	for (k = 0; k < NKINDS; k++)
		len += snprintf(report + len, sizeof(report) - (size_t)len, "%s %llu\n",
				kind_names[k], count[k]);
	len += snprintf(report + len, sizeof(report) - (size_t)len,
			"forks %llu\nseconds %.3f\nrate %.0f\n", forks, elapsed,
			(double)total / elapsed);
	n = RAW(SYS_write, STDOUT_FILENO, report, len, 0);
	RAW(SYS_exit_group, n == len ? 0 : 1, 0, 0, 0);
	return 1;
}

int main(int argc, char **argv)
{
	pid_t pid;
	int st;

	if (argc != 4) {
		fprintf(stderr, "usage: soak RATE SECONDS FILE\n");
		return 2;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("soak: fork");
		return 1;
	}
	if (pid == 0)
		return loop(atof(argv[1]), atof(argv[2]), argv[3]);
	if (waitpid(pid, &st, 0) != pid) {
		perror("soak: waitpid");
		return 1;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
