// SPDX-License-Identifier: BSD-2-Clause
/*
 * getppid_loop N [SECONDS-TO-WAIT-FIRST]: make exactly N getppid(2) calls
 * (through syscall(2), which glibc does not cache), then print on stderr,
 * when BOOTTRACE_BENCH is set, the elapsed ns per call ("N ns/call") and
 * the CPU time per call ("N cpu-ns/call": the time this thread ran, which
 * the rest of a busy machine disturbs less).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, i;
	struct timespec a, b, ca, cb;

	if (argc > 2)
		usleep((useconds_t)(atof(argv[2]) * 1e6));
	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ca);
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cb);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (getenv("BOOTTRACE_BENCH"))
		fprintf(stderr, "%.2f ns/call\n",
			((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)(n ? n : 1));
	if (getenv("BOOTTRACE_BENCH"))
		fprintf(stderr, "%.2f cpu-ns/call\n",
			((cb.tv_sec - ca.tv_sec) * 1e9 + (cb.tv_nsec - ca.tv_nsec)) / (double)(n ? n : 1));
	return 0;
}
