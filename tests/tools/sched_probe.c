// SPDX-License-Identifier: BSD-2-Clause
/*
 * sched_probe MODE: workloads whose scheduler rows are known truths
 * (tests/integration/test_collector_sched.sh, bench/sched.sh). Prints the
 * tids the test looks for on stdout, as KEY=TID lines.
 *
 *   sleep      nanosleep 100 ms                      sleeper=TID
 *   pipe       the parent blocks reading a pipe; its child burns 50 ms
 *              of CPU, then writes one byte         reader=TID writer=TID
 *   fifo       two SCHED_FIFO processes on one CPU: the child (priority
 *              1) spins for 400 ms; the parent (2) sleeps 100 ms, then
 *              burns 100 ms of CPU while the child waits for it
 *                                                    spinner=TID fifo=TID
 *   condvar    the main thread waits on a condition variable that its
 *              second thread signals after burning 120 ms of CPU, then
 *              listens on a loopback port the kernel chooses
 *                                                    waiter=TID burner=TID
 *   hog FIFO   (run it SCHED_FIFO, pinned: chrt -f, taskset) names itself
 *              bt-hog, waits for a byte on the named pipe FIFO, then holds
 *              its CPU for 100 ms (wall clock) and exits  hog=TID
 *   hogged FIFO  (pinned to the hog's CPU) spins 20 ms, writes the byte
 *              that starts the hog, spins 130 ms (wall clock), of which
 *              the hog keeps it runnable 100 ms, and listens on a
 *              loopback port                         hogged=TID
 *   forkhog    (pinned: taskset) forks a child that renames itself
 *              bt-fhog with prctl(PR_SET_NAME), makes itself SCHED_FIFO
 *              and holds the CPU for 100 ms (wall clock); the parent spins
 *              130 ms (wall clock) meanwhile, of which the child keeps it
 *              runnable 100 ms, and listens on a loopback port
 *                                                    hogged=TID hog=TID
 *   shared     two processes on one CPU, 10 rounds each: spin 5 ms (wall
 *              clock: preempted in user mode, by each other, at the
 *              ticks), then read 1 MiB of /dev/zero (a syscall that runs
 *              long enough to be checked at its return, without
 *              blocking)                             parent=TID child=TID
 *   pingpong N two processes on one CPU pass one byte back and forth
 *              through two pipes, N round trips; prints the ns per round
 *              trip on stderr
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(clockid_t clk)
{
	struct timespec t;

	clock_gettime(clk, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int tid(void)
{
	return (int)syscall(SYS_gettid);
}

/* Run on the CPU for @ns of this thread's CPU time. */
static void burn(long long ns)
{
	long long end = now_ns(CLOCK_THREAD_CPUTIME_ID) + ns;

	while (now_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		;
}

static void sleep_ns(long long ns)
{
	struct timespec t = { ns / 1000000000LL, ns % 1000000000LL };

	while (nanosleep(&t, &t) < 0 && errno == EINTR)
		;
}

/* Pin the calling process to CPU @cpu. */
static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		perror("sched_probe: sched_setaffinity");
		exit(1);
	}
}

static int do_pipe(void)
{
	int fd[2], status;
	pid_t child;
	char c;

	if (pipe(fd) < 0)
		return perror("sched_probe: pipe"), 1;
	child = fork();
	if (child < 0)
		return perror("sched_probe: fork"), 1;
	if (child == 0) {
		burn(50000000);
		_exit(write(fd[1], "x", 1) == 1 ? 0 : 1);
	}
	printf("reader=%d writer=%d\n", tid(), (int)child);
	fflush(stdout);
	if (read(fd[0], &c, 1) != 1)
		return perror("sched_probe: read"), 1;
	waitpid(child, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static int do_fifo(void)
{
	struct sched_param sp = { .sched_priority = 1 };
	int cpu = sched_getcpu(), status;
	pid_t child;

	pin(cpu);
	/* the child inherits it, and goes below: the parent runs when it wants */
	sp.sched_priority = 2;
	if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
		return perror("sched_probe: sched_setscheduler"), 1;
	child = fork();
	if (child < 0)
		return perror("sched_probe: fork"), 1;
	if (child == 0) {
		long long end = now_ns(CLOCK_MONOTONIC) + 400000000LL;

		/* real-time too, below the parent: no other task of the host gets the CPU between */
		sp.sched_priority = 1;
		if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
			_exit(1);
		while (now_ns(CLOCK_MONOTONIC) < end)
			;
		_exit(0);
	}
	printf("spinner=%d fifo=%d\n", (int)child, tid());
	fflush(stdout);
	sleep_ns(100000000);	/* the spinner runs */
	burn(100000000);	/* it waits for the CPU */
	waitpid(child, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* hog: a real-time task that holds its CPU for 100 ms once woken */
static int do_hog(const char *path)
{
	int fd;
	char c;
	long long end;

	prctl(PR_SET_NAME, "bt-hog", 0, 0, 0);
	printf("hog=%d\n", tid());
	fflush(stdout);
	fd = open(path, O_RDONLY);
	if (fd < 0 || read(fd, &c, 1) != 1)
		return perror("sched_probe: hog"), 1;
	end = now_ns(CLOCK_MONOTONIC) + 100000000LL;
	while (now_ns(CLOCK_MONOTONIC) < end)
		;
	return 0;
}

/* hogged: its listen waits behind the hog's 100 ms on its CPU */
static int do_hogged(const char *path)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	long long end;
	int fd;

	printf("hogged=%d\n", tid());
	fflush(stdout);
	/* spun on the wall clock (vDSO), not burn()'s CPU clock: no syscall rows */
	end = now_ns(CLOCK_MONOTONIC) + 20000000LL;
	while (now_ns(CLOCK_MONOTONIC) < end)
		;
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, "x", 1) != 1)
		return perror("sched_probe: hogged"), 1;
	/* the hog has the CPU first: its 100 ms runnable, then 30 ms running */
	end = now_ns(CLOCK_MONOTONIC) + 130000000LL;
	while (now_ns(CLOCK_MONOTONIC) < end)
		;
	close(fd);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 1) < 0)
		return 1;
	close(fd);
	return 0;
}

/* forkhog: the boot's own child, renamed, holds the boot's CPU 100 ms */
static int do_forkhog(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sched_param sp = { .sched_priority = 10 };
	long long end;
	pid_t child;
	int fd, status;

	pin(sched_getcpu());
	child = fork();
	if (child < 0)
		return perror("sched_probe: fork"), 1;
	if (child == 0) {
		prctl(PR_SET_NAME, "bt-fhog", 0, 0, 0);
		if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
			_exit(1);
		end = now_ns(CLOCK_MONOTONIC) + 100000000LL;
		while (now_ns(CLOCK_MONOTONIC) < end)
			;
		_exit(0);
	}
	printf("hogged=%d hog=%d\n", tid(), (int)child);
	fflush(stdout);
	end = now_ns(CLOCK_MONOTONIC) + 130000000LL;
	while (now_ns(CLOCK_MONOTONIC) < end)
		;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 1) < 0)
		return 1;
	close(fd);
	waitpid(child, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* shared: see the top; 0, or 1 when /dev/zero cannot be read */
static int shared_rounds(void)
{
	static char buf[1 << 20];
	long long end;
	int fd = open("/dev/zero", O_RDONLY), i;

	if (fd < 0)
		return 1;
	for (i = 0; i < 10; i++) {
		end = now_ns(CLOCK_MONOTONIC) + 5000000LL;
		while (now_ns(CLOCK_MONOTONIC) < end)
			;
		if (read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return 1;
	}
	close(fd);
	return 0;
}

static int do_shared(void)
{
	pid_t child;
	int status;

	pin(sched_getcpu());
	child = fork();
	if (child < 0)
		return perror("sched_probe: fork"), 1;
	if (child == 0)
		_exit(shared_rounds());
	printf("parent=%d child=%d\n", tid(), (int)child);
	fflush(stdout);
	if (shared_rounds())
		return perror("sched_probe: /dev/zero"), 1;
	waitpid(child, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static int do_pingpong(long n)
{
	int ab[2], ba[2], status;
	long long t0;
	pid_t child;
	char c = 'x';
	long i;

	if (pipe(ab) < 0 || pipe(ba) < 0)
		return perror("sched_probe: pipe"), 1;
	pin(sched_getcpu());
	child = fork();
	if (child < 0)
		return perror("sched_probe: fork"), 1;
	if (child == 0) {
		for (i = 0; i < n; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	t0 = now_ns(CLOCK_MONOTONIC);
	for (i = 0; i < n; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return perror("sched_probe: ping"), 1;
	fprintf(stderr, "%.1f ns/round-trip\n", (now_ns(CLOCK_MONOTONIC) - t0) / (double)(n ? n : 1));
	waitpid(child, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static pthread_mutex_t cv_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int cv_ready;

static void *burner(void *arg)
{
	(void)arg;
	printf("burner=%d\n", tid());
	fflush(stdout);
	burn(120000000);
	pthread_mutex_lock(&cv_lock);
	cv_ready = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&cv_lock);
	return NULL;
}

/* condvar: the main thread's listen is gated by the other thread's CPU */
static int do_condvar(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	pthread_t th;
	int fd;

	printf("waiter=%d\n", tid());
	fflush(stdout);
	if (pthread_create(&th, NULL, burner, NULL) != 0)
		return 1;
	pthread_mutex_lock(&cv_lock);
	while (!cv_ready)
		pthread_cond_wait(&cv, &cv_lock);
	pthread_mutex_unlock(&cv_lock);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 1) < 0)
		return 1;
	pthread_join(th, NULL);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "sleep")) {
		printf("sleeper=%d\n", tid());
		fflush(stdout);
		sleep_ns(100000000);
		return 0;
	}
	if (!strcmp(mode, "pipe"))
		return do_pipe();
	if (!strcmp(mode, "hog") && argc > 2)
		return do_hog(argv[2]);
	if (!strcmp(mode, "hogged") && argc > 2)
		return do_hogged(argv[2]);
	if (!strcmp(mode, "forkhog"))
		return do_forkhog();
	if (!strcmp(mode, "fifo"))
		return do_fifo();
	if (!strcmp(mode, "condvar"))
		return do_condvar();
	if (!strcmp(mode, "shared"))
		return do_shared();
	if (!strcmp(mode, "pingpong"))
		return do_pingpong(argc > 2 ? atol(argv[2]) : 10000);
	fprintf(stderr, "usage: sched_probe sleep|pipe|fifo|condvar|shared|pingpong [N]|hog FIFO|"
		"hogged FIFO|forkhog\n");
	return 2;
}
