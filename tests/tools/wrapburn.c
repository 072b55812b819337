// SPDX-License-Identifier: BSD-2-Clause
/*
 * wrapburn MS COMMAND [ARG...]: a runtime's client made slow where a
 * profile can see it. It spins in wrapper_burn() until its thread has used
 * MS ms of CPU time (CLOCK_THREAD_CPUTIME_ID: waiting for a CPU does not
 * count), then execs COMMAND (PATH searched). Run as client mode's client
 * (collector -c GLOB --profile -- wrapburn 150 runc run ...), it is a host
 * task of each boot, on its critical path before the runtime exists: the
 * path's running stretch in it and the boot's profile name wrapper_burn,
 * MS ms of it. Built with frame pointers (Makefile): its callers are on
 * its stacks. Exit 127 with a message when the exec fails.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* noinline: a frame of its own, the function the truth names */
__attribute__((noinline)) void wrapper_burn(long ms)
{
	long long end = cpu_ns() + ms * 1000000LL;
	volatile unsigned long x = 0;

	while (cpu_ns() < end)
		for (int i = 0; i < 200000; i++)
			x++;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: wrapburn MS COMMAND [ARG...]\n");
		return 2;
	}
	wrapper_burn(atol(argv[1]));
	execvp(argv[2], argv + 2);
	fprintf(stderr, "wrapburn: cannot exec %s: %s\n", argv[2], strerror(errno));
	return 127;
}
