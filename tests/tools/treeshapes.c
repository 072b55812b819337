// SPDX-License-Identifier: BSD-2-Clause
/*
 * treeshapes: process trees that attribution by pid tree must get right.
 * Every task it makes calls getppid(2) a known number of times, so a test
 * can count rows per task.
 *
 *   treeshapes storm P T      P processes, each with T threads; every
 *                             process and every thread calls getppid once
 *   treeshapes thread-exec PROG [ARG...]
 *                             a thread that is not the leader execs PROG
 *                             (the kernel gives it the leader's pid)
 *   treeshapes orphan K       fork a child and exit at once; the child,
 *                             reparented, sleeps 200 ms, calls getppid K times
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char **exec_argv;

static void *one_getppid(void *arg)
{
	(void)arg;
	syscall(SYS_getppid);
	return NULL;
}

static void *exec_from_thread(void *arg)
{
	(void)arg;
	execv(exec_argv[0], exec_argv);
	perror("treeshapes: execv");
	exit(127);
}

static int storm(int procs, int threads)
{
	pthread_t *tid = calloc((size_t)threads, sizeof(*tid));
	int i, j, st, bad = 0;

	if (!tid)
		return 1;
	for (i = 0; i < procs; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("treeshapes: fork");
			return 1;
		}
		if (pid > 0)
			continue;
		syscall(SYS_getppid);
		for (j = 0; j < threads; j++)
			if (pthread_create(&tid[j], NULL, one_getppid, NULL) != 0)
				_exit(1);
		for (j = 0; j < threads; j++)
			pthread_join(tid[j], NULL);
		_exit(0);
	}
	while (wait(&st) > 0)
		bad |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	free(tid);
	return bad;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc >= 4 && strcmp(argv[1], "storm") == 0)
		return storm(atoi(argv[2]), atoi(argv[3]));
	if (argc >= 3 && strcmp(argv[1], "thread-exec") == 0) {
		exec_argv = argv + 2;
		if (pthread_create(&t, NULL, exec_from_thread, NULL) != 0)
			return 1;
		pause();	/* the exec replaces us */
		return 1;
	}
	if (argc >= 3 && strcmp(argv[1], "orphan") == 0) {
		long k = atol(argv[2]), i;
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid > 0)
			return 0;
		usleep(200000);
		for (i = 0; i < k; i++)
			syscall(SYS_getppid);
		return 0;
	}
	fprintf(stderr, "usage: treeshapes storm P T | thread-exec PROG [ARG...] | orphan K\n");
	return 2;
}
