// SPDX-License-Identifier: BSD-2-Clause
/*
 * batch_order ROUNDS SPIN-SECONDS [READY-FILE]: a workload for the
 * collector's per-CPU batches of syscall records. ROUNDS times: getppid x3,
 * then openat + close of /dev/null (a row with a path: it does not go
 * through the batch), and every 8th round a 1 ms sleep (a task switch).
 * Then it creates READY-FILE (when given), makes three more getppid calls
 * and spins in user space for SPIN-SECONDS without a syscall, so that
 * those last rows wait in its CPU's batch unless the collector comes for
 * them. Exit 0.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	/* the vDSO: no syscall */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 100, i;
	double spin = argc > 2 ? atof(argv[2]) : 0, end;
	volatile unsigned long sink = 0;
	int fd;

	for (i = 0; i < rounds; i++) {
		syscall(SYS_getppid);
		syscall(SYS_getppid);
		syscall(SYS_getppid);
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			close(fd);
		if (i % 8 == 7)
			usleep(1000);
	}
	if (argc > 3) {
		fd = open(argv[3], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
	}
	/* the last rows: three getppid after the ready file */
	for (i = 0; i < 3; i++)
		syscall(SYS_getppid);
	for (end = now() + spin; now() < end;)
		sink++;
	return 0;
}
