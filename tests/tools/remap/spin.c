// SPDX-License-Identifier: BSD-2-Clause
/*
 * tests/tools/remap's library, built twice (Makefile): libspin_a.so with
 * SPIN=spin_a, libspin_b.so with SPIN=spin_b. The same code at the same
 * offsets, two build ids: the one a frame is named by says which file's
 * pages ran.
 */
#include <time.h>

#ifndef SPIN
#error "SPIN names the function"
#endif

static long long thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Spin until the calling thread has used @ns of CPU time; returns the rounds. */
__attribute__((noinline)) unsigned long SPIN(long long ns)
{
	long long end = thread_ns() + ns;
	unsigned long rounds = 0;
	volatile unsigned long x = 0;

	while (thread_ns() < end) {
		for (int i = 0; i < 200000; i++)
			x += i;
		rounds++;
	}
	return rounds;
}
