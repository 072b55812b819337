// SPDX-License-Identifier: BSD-2-Clause
/*
 * slow_child MS [DECOY-MS]: a server whose boot is gated by a child, for
 * the critical path's tests. It forks a decoy child that sleeps DECOY-MS
 * (default 3 * MS; nobody waits for it: it must stay off the path), then a
 * child that sleeps MS ms in nanosleep(2) and exits; it waits for that
 * child (wait4), then listens on 127.0.0.1:0 and exits 0. So the time from
 * its start to its listen is MS plus a little, and the path goes through
 * the child's nanosleep. Exit 1 with a message when a call fails.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0)
		;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 100, decoy_ms = argc > 2 ? atol(argv[2]) : 3 * ms;
	struct sockaddr_in in = { .sin_family = AF_INET };
	pid_t decoy, child;
	int fd, st;

	decoy = fork();
	if (decoy == 0) {
		sleep_ms(decoy_ms);
		_exit(0);
	}
	child = fork();
	if (child == 0) {
		sleep_ms(ms);
		_exit(0);
	}
	if (decoy < 0 || child < 0 || waitpid(child, &st, 0) != child) {
		perror("slow_child: fork/wait");
		return 1;
	}
	in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&in, sizeof(in)) < 0 || listen(fd, 1) < 0) {
		perror("slow_child: listen");
		return 1;
	}
	kill(decoy, SIGKILL);
	waitpid(decoy, &st, 0);
	return 0;
}
