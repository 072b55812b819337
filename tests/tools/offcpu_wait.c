// SPDX-License-Identifier: BSD-2-Clause
/*
 * offcpu_wait [MS-CHILD [MS-NAP]]: the off-CPU stacks' known truth, built
 * as Debian builds its programs (-O2 -g, no frame pointers). It forks a
 * child that sleeps MS-CHILD ms (default 200) in child_prepares() and
 * then writes a byte to a pipe; the parent blocks in read(2) on that pipe
 * in await_config(), then nanosleeps MS-NAP ms (default 100) in
 * nap_after(), then listens on 127.0.0.1:0 and exits 0. It prints what it
 * measured itself, for the test to compare the path with:
 *
 *   offcpu_wait: await_config_ms=200.3 nap_after_ms=100.1
 *
 * Exit 1 with a message when a call fails.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* noipa: a function of its own on every stack, neither inlined nor cloned */
__attribute__((noipa)) static void child_prepares(int fd, long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0)
		;
	if (write(fd, "c", 1) != 1)
		_exit(1);
}

__attribute__((noipa)) static int await_config(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1) {
		perror("offcpu_wait: read");
		return -1;
	}
	return c;
}

__attribute__((noipa)) static void nap_after(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0)
		;
}

int main(int argc, char **argv)
{
	long child_ms = argc > 1 ? atol(argv[1]) : 200, nap_ms = argc > 2 ? atol(argv[2]) : 100;
	struct sockaddr_in in = { .sin_family = AF_INET };
	double t0, t1, t2;
	int p[2], fd, st;
	pid_t child;

	if (pipe(p) < 0) {
		perror("offcpu_wait: pipe");
		return 1;
	}
	t0 = now_ms();
	child = fork();
	if (child < 0) {
		perror("offcpu_wait: fork");
		return 1;
	}
	if (child == 0) {
		close(p[0]);
		child_prepares(p[1], child_ms);
		_exit(0);
	}
	close(p[1]);
	if (await_config(p[0]) < 0)
		return 1;
	t1 = now_ms();
	nap_after(nap_ms);
	t2 = now_ms();
	waitpid(child, &st, 0);
	in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&in, sizeof(in)) < 0 || listen(fd, 1) < 0) {
		perror("offcpu_wait: listen");
		return 1;
	}
	fprintf(stderr, "offcpu_wait: await_config_ms=%.1f nap_after_ms=%.1f\n", t1 - t0, t2 - t1);
	return 0;
}
