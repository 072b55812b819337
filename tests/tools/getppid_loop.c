// SPDX-License-Identifier: BSD-2-Clause
/*
 * getppid_loop N [SECONDS-TO-WAIT-FIRST]: make exactly N getppid(2) calls
 * (through syscall(2), which glibc does not cache), then print the elapsed
 * ns per call on stderr when BOOTTRACE_BENCH is set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, i;
	struct timespec a, b;

	if (argc > 2)
		usleep((useconds_t)(atof(argv[2]) * 1e6));
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (getenv("BOOTTRACE_BENCH"))
		fprintf(stderr, "%.2f ns/call\n",
			((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)(n ? n : 1));
	return 0;
}
