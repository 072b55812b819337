// SPDX-License-Identifier: BSD-2-Clause
/*
 * cpu_move K FROM TO: on CPU FROM, an openat + close of /dev/null (a row
 * with a path: it flushes FROM's batch of syscall rows), then K getppid
 * calls, whose rows wait in FROM's batch (K < 16); then it moves to CPU TO
 * and exits there, so that its last rows and its exit are on TO. Exit 0,
 * or 1 when it cannot run on FROM or TO.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static int pin(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one);
}

int main(int argc, char **argv)
{
	long k, i;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: cpu_move K FROM TO\n");
		return 2;
	}
	k = atol(argv[1]);
	if (pin(atoi(argv[2])) < 0) {
		perror("cpu_move: FROM");
		return 1;
	}
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	for (i = 0; i < k; i++)
		syscall(SYS_getppid);
	if (pin(atoi(argv[3])) < 0) {
		perror("cpu_move: TO");
		return 1;
	}
	return 0;
}
