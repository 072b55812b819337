// SPDX-License-Identifier: BSD-2-Clause
/*
 * gen-tsv: write a realistic boottrace TSV of N rows for benchmarks.
 *
 *   gen-tsv [-n ROWS] [-c CONTAINERS] [-s SEED] [-S PCT] [-o FILE]
 *
 * -S PCT: PCT % of the rows after exec are scheduler rows (sched: an
 * off-CPU interval, woken by the other task of the container or preempted),
 * and the header says sched=on; default 0, the file of before sched rows.
 * Defaults: 10,000,000 rows (~600 MB), 2,000 containers. Each container
 * boots: start, exec, then mostly syscall rows (a few dozen names, durations
 * spread over ns..ms, some errors) from its init and a forked child, a
 * successful listen by the child (one in ten never listens), a mark, exit,
 * end. Containers boot in overlapping batches of 8, interleaved row by row
 * like per-CPU buffers, so rows are not in global ts order.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/tsv.h"

static uint64_t rng = 88172645463325252ULL;
static unsigned sched_pct;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static const char *const sys[] = {
	"read", "read", "read", "write", "write", "openat", "openat", "close", "close",
	"fstat", "newfstatat", "mmap", "mmap", "munmap", "mprotect", "brk", "futex",
	"futex", "futex", "epoll_wait", "epoll_ctl", "recvfrom", "sendto", "lseek",
	"getdents64", "rt_sigaction", "rt_sigprocmask", "clone", "wait4", "ioctl",
	"poll", "access", "readlink", "getpid", "socket", "connect", "bind", "pread64",
	"madvise", "prctl",
};
#define NSYS (sizeof(sys) / sizeof(sys[0]))

static char *out;
static size_t used, cap = 8u << 20;
static FILE *fout;

static void flush(void)
{
	if (fwrite(out, 1, used, fout) != used) {
		fprintf(stderr, "gen-tsv: write error: %s\n", strerror(errno));
		exit(1);
	}
	used = 0;
}

static void put(const char *s)
{
	size_t n = strlen(s);

	memcpy(out + used, s, n);
	used += n;
}

static void putu(uint64_t v)
{
	char b[24];
	int i = 24;

	do
		b[--i] = (char)('0' + v % 10);
	while (v /= 10);
	memcpy(out + used, b + i, (size_t)(24 - i));
	used += (size_t)(24 - i);
}

static void puti(int64_t v)
{
	if (v < 0) {
		out[used++] = '-';
		putu((uint64_t)0 - (uint64_t)v);
	} else {
		putu((uint64_t)v);
	}
}

struct ctr {
	char name[24];
	uint64_t t, cg;
	int pid;
	uint64_t left;	/* syscall rows to go */
	int stage;	/* 0 start, 1 exec, 2 syscalls, 3 done */
	int64_t listens;	/* the row index of the listen, -1 = never */
};

static void row(struct ctr *c, int pid, int ppid, const char *comm, const char *ev,
		const char *name, int has_ret, int64_t ret, int has_dur, uint64_t dur,
		const char *detail)
{
	if (used + 512 > cap)
		flush();
	putu(c->t);
	out[used++] = '\t';
	put(c->name);
	out[used++] = '\t';
	putu(c->cg);
	out[used++] = '\t';
	puti(pid);
	out[used++] = '\t';
	puti(pid);
	out[used++] = '\t';
	puti(ppid);
	out[used++] = '\t';
	put(comm);
	out[used++] = '\t';
	put(ev);
	out[used++] = '\t';
	put(name);
	out[used++] = '\t';
	if (has_ret)
		puti(ret);
	else
		put(TSV_NULL);
	out[used++] = '\t';
	if (has_dur)
		putu(dur);
	else
		put(TSV_NULL);
	out[used++] = '\t';
	put(detail);
	out[used++] = '\n';
}

static uint64_t duration(void)
{
	/* log-uniform over 2^6..2^22 ns with a long tail */
	unsigned k = 6 + (unsigned)(next() % 17);

	return (1ULL << k) + next() % (1ULL << k);
}

/* One step of container @c; returns the rows written (0 when done). */
static uint64_t step(struct ctr *c)
{
	switch (c->stage) {
	case 0:
		row(c, c->pid, 1, "runc:[2:INIT]", "start", "mkdir", 0, 0, 0, 0, TSV_NULL);
		c->stage = 1;
		return 1;
	case 1:
		c->t += 1000000 + next() % 90000000;
		row(c, c->pid, 1, "app", "exec", TSV_NULL, 0, 0, 0, 0, "/usr/bin/app");
		c->stage = 2;
		return 1;
	case 2:
		if (c->left == 0) {
			row(c, c->pid, 1, "app", "exit", TSV_NULL, 1, 0, 0, 0, TSV_NULL);
			c->stage = 3;
			return 1;
		}
		c->left--;
		c->t += 200 + next() % 200000;
		if ((int64_t)c->left == c->listens) {
			row(c, c->pid + 1, c->pid, "worker", "syscall", "listen", 1, 0, 1,
			    duration(), "0.0.0.0:8080");
			return 1;
		}
		if ((int64_t)c->left == c->listens / 2 + 1) {
			row(c, c->pid + 1, c->pid, "worker", "mark", "ready", 0, 0, 0, 0, TSV_NULL);
			return 1;
		}
		if (sched_pct && next() % 100 < sched_pct) {
			int child = next() % 2;
			uint64_t dur = duration();
			char det[128];

			if (next() % 4 == 0)
				snprintf(det, sizeof(det), "wake=none holder=%d hcomm=3:hog cpu=1", 77);
			else
				snprintf(det, sizeof(det), "wake=task waker=%d wpid=%d wcomm=%d:%s holder=0 "
					 "hcomm=9:swapper/1 cpu=1", c->pid + !child, c->pid,
					 child ? 3 : 6, child ? "app" : "worker");
			row(c, c->pid + child, child ? c->pid : 1, child ? "worker" : "app", "sched",
			    det[5] == 'n' ? "R" : "S", 1, (int64_t)(dur / 8), 1, dur, det);
			return 1;
		}
		{
			const char *s = sys[next() % NSYS];
			int64_t ret = next() % 16 == 0 ? -(int64_t)(1 + next() % 30) :
				      (int64_t)(next() % 4096);
			int child = next() % 2;

			row(c, c->pid + child, child ? c->pid : 1, child ? "worker" : "app",
			    "syscall", s, 1, ret, 1, duration(),
			    s[0] == 'o' ? "/etc/app/config.yaml" : TSV_NULL);
		}
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t rows = 10000000, nctr = 2000, written = 0, i, per;
	const char *path = NULL;
	struct ctr batch[8];
	int opt;

	while ((opt = getopt(argc, argv, "n:c:s:S:o:h")) != -1) {
		switch (opt) {
		case 'n': rows = strtoull(optarg, NULL, 10); break;
		case 'c': nctr = strtoull(optarg, NULL, 10); break;
		case 's': rng = strtoull(optarg, NULL, 10) | 1; break;
		case 'S': sched_pct = (unsigned)strtoul(optarg, NULL, 10) % 101; break;
		case 'o': path = optarg; break;
		default:
			fprintf(stderr, "usage: gen-tsv [-n ROWS] [-c CONTAINERS] [-s SEED] [-S PCT] [-o FILE]\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (!nctr || rows < nctr * 8) {
		fprintf(stderr, "gen-tsv: need at least 8 rows per container\n");
		return 2;
	}
	fout = path ? fopen(path, "w") : stdout;
	out = malloc(cap);
	if (!fout || !out) {
		fprintf(stderr, "gen-tsv: cannot open %s: %s\n", path, strerror(errno));
		return 1;
	}
	put("# boottrace-tsv 1\n# host=bench\n# kernel=6.1.0\n# mode=cgroup\n"
	    "# clock=CLOCK_MONOTONIC\n# realtime_offset_ns=0\n# started=1970-01-01T00:00:00Z\n");
	if (sched_pct)
		put("# sched=on\n");
	put(TSV_HEADER "\n");
	per = rows / nctr;
	for (i = 0; i < nctr; i += 8) {
		size_t k, n = nctr - i < 8 ? (size_t)(nctr - i) : 8;
		int live = (int)n;

		for (k = 0; k < n; k++) {
			struct ctr *c = &batch[k];
			uint64_t id = i + k;

			snprintf(c->name, sizeof(c->name), "ctr-%05llu", (unsigned long long)id);
			c->t = 1000000000000ULL + id * 3000000000ULL + next() % 1000000;
			c->cg = 4096 + id;
			c->pid = (int)(10000 + 4 * id);
			/* the last container takes the remainder */
			c->left = (id == nctr - 1 ? rows - per * (nctr - 1) : per) - 3;
			c->listens = id % 10 == 9 ? -1 : (int64_t)(c->left / 3);
			c->stage = 0;
		}
		while (live) {
			live = 0;
			for (k = 0; k < n; k++) {
				uint64_t w = step(&batch[k]);

				written += w;
				live += w > 0;
			}
		}
	}
	put("# lost=0 events=");
	putu(written);
	put("\n");
	flush();
	if (fclose(fout) != 0) {
		fprintf(stderr, "gen-tsv: write error: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
