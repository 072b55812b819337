// SPDX-License-Identifier: BSD-2-Clause
/*
 * crasher: boots that go wrong, the known truths of analyze --until end
 * and --failures (tests/integration/test_analyze_failures.sh).
 *
 *   crasher burn MS CODE     spin in crasher_burn() until this thread has
 *                            used MS ms of CPU time, then exit CODE (never
 *                            listens)
 *   crasher connect PORT N   connect(2) to 127.0.0.1:PORT N times (a closed
 *                            port: ECONNREFUSED each), open
 *                            /nonexistent/config.yml once (ENOENT), exit 1
 *   crasher wait PIDFILE     write its pid to PIDFILE, then sleep in pause()
 *                            until a signal kills it
 *
 * Built with frame pointers (Makefile), so a sample reads crasher_burn <-
 * main. Exit 2 with a message on bad usage or a failed call.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* noinline: the profile's known truth is this function's name */
__attribute__((noinline)) void crasher_burn(double ms)
{
	double t0 = cpu_ms();
	volatile unsigned long x = 0;

	while (cpu_ms() - t0 < ms) {
		unsigned i;

		for (i = 0; i < 100000; i++)
			x += i;
	}
}

static int refused(int port, int n)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int i, fd;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (i = 0; i < n; i++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0) {
			perror("crasher: socket");
			return 2;
		}
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			fprintf(stderr, "crasher: port %d is open\n", port);
			return 2;
		}
		close(fd);
	}
	if (open("/nonexistent/config.yml", O_RDONLY) >= 0)
		return 2;
	return 1;
}

int main(int argc, char **argv)
{
	FILE *f;

	if (argc == 4 && strcmp(argv[1], "burn") == 0) {
		crasher_burn(atof(argv[2]));
		return atoi(argv[3]);
	}
	if (argc == 4 && strcmp(argv[1], "connect") == 0)
		return refused(atoi(argv[2]), atoi(argv[3]));
	if (argc == 3 && strcmp(argv[1], "wait") == 0) {
		f = fopen(argv[2], "w");
		if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0) {
			perror("crasher: pid file");
			return 2;
		}
		for (;;)
			pause();
	}
	fprintf(stderr, "usage: crasher burn MS CODE | connect PORT N | wait PIDFILE\n");
	return 2;
}
