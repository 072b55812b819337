// SPDX-License-Identifier: BSD-2-Clause
/*
 * read_loop pipe|zero N [SECONDS-TO-WAIT-FIRST]: make exactly N read(2)
 * calls of one byte, from a pipe (full: the reads never block; refilled
 * by one write when it is empty, once per pipe buffer of reads) or from
 * /dev/zero, then print on stderr, when BOOTTRACE_BENCH is set, the
 * elapsed ns per read ("N ns/call") and the CPU time per read ("N
 * cpu-ns/call"), as getppid_loop does. The pipe loop also makes
 * N / capacity writes: one per 65,536 reads with the default pipe size.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double ns_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1e9 + (b->tv_nsec - a->tv_nsec);
}

/* Fill pipe @fds to its capacity @cap (a write to a full pipe would block). */
static int fill(const int fds[2], char *buf, long cap)
{
	return write(fds[1], buf, cap) == cap ? 0 : -1;
}

int main(int argc, char **argv)
{
	long n, i, cap = 0, left = 0;
	struct timespec a, b, ca, cb;
	int fds[2], fd;
	char c, *buf = NULL;
	int pipe_mode;

	if (argc < 3 || (strcmp(argv[1], "pipe") && strcmp(argv[1], "zero"))) {
		fprintf(stderr, "usage: read_loop pipe|zero <n> [<seconds-to-wait-first>]\n");
		return 2;
	}
	pipe_mode = !strcmp(argv[1], "pipe");
	n = atol(argv[2]);
	if (argc > 3)
		usleep((useconds_t)(atof(argv[3]) * 1e6));
	if (pipe_mode) {
		if (pipe(fds) < 0 || (cap = fcntl(fds[1], F_GETPIPE_SZ)) <= 0 ||
		    !(buf = calloc(1, cap))) {
			perror("read_loop: pipe");
			return 1;
		}
		fd = fds[0];
	} else if ((fd = open("/dev/zero", O_RDONLY)) < 0) {
		perror("read_loop: /dev/zero");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ca);
	for (i = 0; i < n; i++) {
		if (pipe_mode && left-- == 0) {
			if (fill(fds, buf, cap) < 0) {
				perror("read_loop: write");
				return 1;
			}
			left = cap - 1;
		}
		if (read(fd, &c, 1) != 1) {
			perror("read_loop: read");
			return 1;
		}
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cb);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (getenv("BOOTTRACE_BENCH")) {
		fprintf(stderr, "%.2f ns/call\n", ns_between(&a, &b) / (double)(n ? n : 1));
		fprintf(stderr, "%.2f cpu-ns/call\n", ns_between(&ca, &cb) / (double)(n ? n : 1));
	}
	free(buf);
	return 0;
}
