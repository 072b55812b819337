// SPDX-License-Identifier: BSD-2-Clause
/*
 * burn_libc [-x SCALE] [-w]: a known truth for DWARF unwinding. Built
 * -O2 -fomit-frame-pointer (Makefile), as Debian builds its libraries.
 * main() calls libc_all(), which calls libc_long() and then libc_short():
 * each works until its thread has used 200 ms and 100 ms of CPU time
 * (CLOCK_THREAD_CPUTIME_ID), times SCALE, mostly inside libc: memcpy and
 * strlen of 64 KiB buffers (libc's leaf routines, which set up no frame)
 * and clock_gettime of the thread clock (a syscall through libc's
 * clock_gettime, not the vDSO: a thread clock has no vDSO path). A
 * frame-pointer walk from a sample in libc loses libc_long and
 * libc_short; the CFI (.eh_frame) of libc and of this program has them.
 * Then it listens on TCP 127.0.0.1 (an ephemeral port) and exits: the
 * boot's listen phase, the window analyze --profile reads.
 * -w: at the end, print "burn_libc rounds=N" on stderr (the work done in
 * that CPU time: bench/profile.sh).
 * Prints "burn tid=TID" on stdout. Exit 1 with a message when a call fails.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BUF (64 << 10)

static double scale = 1.0;
static unsigned long rounds;
static char src[BUF], dst[BUF];
static size_t sink;

static __attribute__((noinline)) long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Work in libc until this thread has used @ms (times scale) more of CPU
 * time. A macro: the time is its caller's, the libc calls' callers.
 */
#define WORK(ms)                                                              \
	do {                                                                  \
		long long end_ = cpu_ns() + (long long)((ms) * scale * 1e6);  \
                                                                              \
		while (cpu_ns() < end_) {                                     \
			for (int i_ = 0; i_ < 4; i_++) {                      \
				memcpy(dst, src, BUF);                        \
				sink += strlen(dst);                          \
				__asm__ volatile("" ::: "memory");            \
			}                                                     \
			rounds++;                                             \
		}                                                             \
	} while (0)

/* not static, noinline: each its own symbol and frame */
void __attribute__((noinline)) libc_long(void)
{
	WORK(200);
	__asm__ volatile("" ::: "memory");	/* no tail call */
}

void __attribute__((noinline)) libc_short(void)
{
	WORK(100);
	__asm__ volatile("" ::: "memory");
}

void __attribute__((noinline)) libc_all(void)
{
	libc_long();
	libc_short();
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	int c, work = 0;

	while ((c = getopt(argc, argv, "x:w")) != -1) {
		switch (c) {
		case 'x':
			scale = atof(optarg);
			break;
		case 'w':
			work = 1;
			break;
		default:
			fprintf(stderr, "usage: burn_libc [-x SCALE] [-w]\n");
			return 1;
		}
	}
	/* a string as long as the buffer: strlen reads all of it */
	memset(src, 'x', BUF - 1);
	printf("burn tid=%d\n", (int)gettid());
	fflush(stdout);
	libc_all();
	if (work)
		fprintf(stderr, "burn_libc rounds=%lu\n", rounds);
	{
		struct sockaddr_in a = { .sin_family = AF_INET };
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 1) < 0) {
			perror("burn_libc: listen");
			return 1;
		}
		close(fd);
	}
	return sink == 0;	/* never: strlen counted */
}
