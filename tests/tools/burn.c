// SPDX-License-Identifier: BSD-2-Clause
/*
 * burn [-x SCALE] [-n COMM] [-p PORT-FILE] [-w] [-i]: a known truth for
 * profiles. main() calls burn_all(), which calls burn_long() and then
 * burn_short(): each spins on the CPU until its thread has used 200 ms and
 * 100 ms of CPU time (CLOCK_THREAD_CPUTIME_ID: time spent waiting for a CPU
 * does not count), times SCALE (default 1). Built with frame pointers
 * (Makefile), so a sampled user stack reads burn_long <- burn_all <- main.
 * -i: main() calls burn_inline() instead, which spends 200 ms in
 * spin_inlined(), a function the compiler inlines into it (always_inline:
 * only DWARF knows it is there), then 100 ms of its own.
 * -n COMM: set the comm (prctl PR_SET_NAME) first: hostile bytes welcome.
 * -p PORT-FILE: after burning, listen on TCP 127.0.0.1:0 (the boot's
 * listen phase), write the port to PORT-FILE, and exit.
 * -w: at the end, print "burn rounds=N" on stderr: the spin loop's rounds
 * (200000 increments each), the work done in that CPU time. A sampling
 * interrupt's cost is charged to the task it interrupted (without
 * CONFIG_IRQ_TIME_ACCOUNTING), so profiling leaves the CPU time the same
 * and takes from the work: bench/profile.sh's figure.
 * Prints "burn tid=TID" on stdout. Exit 1 with a message when a call fails.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double scale = 1.0;
static unsigned long rounds;

/* noinline: a frame of its own, not a function DWARF says is inlined */
static __attribute__((noinline)) long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Spin until this thread has used @ms (times scale) more of CPU time. A
 * macro, not an inline function: DWARF would name an inlined function as
 * a frame of its own, and the time is meant to be its caller's (self).
 * clock_gettime of a thread clock is a syscall (no vDSO): one per ~100 us
 * of spinning, not a trace full of them.
 */
#define SPIN(ms)                                                             \
	do {                                                                 \
		long long end_ = cpu_ns() + (long long)((ms) * scale * 1e6); \
		volatile unsigned long x_ = 0;                               \
                                                                             \
		while (cpu_ns() < end_) {                                    \
			for (int i_ = 0; i_ < 200000; i_++)                  \
				x_++;                                        \
			rounds++;                                            \
		}                                                            \
	} while (0)

/* not static, noinline: each its own symbol and frame in every stack */
void __attribute__((noinline)) burn_long(void)
{
	SPIN(200);
	__asm__ volatile("" ::: "memory");	/* no tail call: burn_long stays a frame */
}

void __attribute__((noinline)) burn_short(void)
{
	SPIN(100);
	__asm__ volatile("" ::: "memory");
}

void __attribute__((noinline)) burn_all(void)
{
	burn_long();
	burn_short();
	__asm__ volatile("" ::: "memory");
}

/* -i: inlined into burn_inline, so its 200 ms are a frame only DWARF tells */
static inline __attribute__((always_inline)) void spin_inlined(void)
{
	SPIN(200);
	__asm__ volatile("" ::: "memory");
}

void __attribute__((noinline)) burn_inline(void)
{
	spin_inlined();
	SPIN(100);
	__asm__ volatile("" ::: "memory");
}

static int listen_port(const char *path)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	FILE *f;
	int fd;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 1) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
		perror("burn: listen");
		return -1;
	}
	f = fopen(path, "w");
	if (!f || fprintf(f, "%u\n", ntohs(a.sin_port)) < 0 || fclose(f) != 0) {
		perror("burn: port file");
		return -1;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *port_file = NULL;
	int c, work = 0, inl = 0;

	while ((c = getopt(argc, argv, "x:n:p:wi")) != -1) {
		switch (c) {
		case 'x':
			scale = atof(optarg);
			break;
		case 'n':
			if (prctl(PR_SET_NAME, optarg) < 0) {
				perror("burn: prctl");
				return 1;
			}
			break;
		case 'p':
			port_file = optarg;
			break;
		case 'w':
			work = 1;
			break;
		case 'i':
			inl = 1;
			break;
		default:
			fprintf(stderr, "usage: burn [-x SCALE] [-n COMM] [-p PORT-FILE] [-w] [-i]\n");
			return 1;
		}
	}
	if (scale <= 0) {
		fprintf(stderr, "burn: bad scale\n");
		return 1;
	}
	printf("burn tid=%d\n", (int)getpid());
	fflush(stdout);
	if (inl)
		burn_inline();
	else
		burn_all();
	if (work)
		fprintf(stderr, "burn rounds=%lu\n", rounds);
	if (port_file && listen_port(port_file) < 0)
		return 1;
	return 0;
}
