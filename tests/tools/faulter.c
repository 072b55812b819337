// SPDX-License-Identifier: BSD-2-Clause
/*
 * faulter [-x SCALE]: a known truth for kernel frames in profiles: it
 * maps 16 MiB of anonymous memory, writes one byte per page (a page fault
 * each: the kernel allocates and zeroes the page), unmaps it, and again,
 * until its thread has used 200 ms of CPU time (times SCALE), most of it
 * in the kernel's page fault path (exc_page_fault, handle_mm_fault...).
 * Prints "faulter tid=TID faults=N" on stdout at the end. Exit 1 with a
 * message when a call fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define SIZE (16UL << 20)

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	double scale = 1.0;
	unsigned long faults = 0;
	long long end;
	int c;

	while ((c = getopt(argc, argv, "x:")) != -1) {
		if (c != 'x') {
			fprintf(stderr, "usage: faulter [-x SCALE]\n");
			return 1;
		}
		scale = atof(optarg);
	}
	if (scale <= 0 || page <= 0) {
		fprintf(stderr, "faulter: bad scale or page size\n");
		return 1;
	}
	end = cpu_ns() + (long long)(200e6 * scale);
	while (cpu_ns() < end) {
		volatile char *p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("faulter: mmap");
			return 1;
		}
		for (unsigned long off = 0; off < SIZE; off += (unsigned long)page, faults++)
			p[off] = 1;
		if (munmap((void *)p, SIZE) < 0) {
			perror("faulter: munmap");
			return 1;
		}
	}
	printf("faulter tid=%d faults=%lu\n", (int)getpid(), faults);
	return 0;
}
