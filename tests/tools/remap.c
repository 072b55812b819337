// SPDX-License-Identifier: BSD-2-Clause
/*
 * remap DIR [MS]: a known truth for a profile's user frames when the code
 * at an address changes (bpf/buildids.bpf.h: the build ids the sampling
 * program remembers by page). DIR holds libspin_a.so and libspin_b.so
 * (tests/tools/remap/spin.c: spin_a and spin_b, the same code at the same
 * offsets, two build ids). Three phases, each a thread of its own that
 * spins MS (default 150) ms of its CPU time in the code at spin_a's
 * address, printing "phaseN tid=TID cpu_ns=NS" when it is done:
 *   1. libspin_a.so's own pages: spin_a;
 *   2. libspin_b.so's text mapped over them (MAP_FIXED): spin_b;
 *   3. those unmapped, libspin_a.so's text mapped at the same address
 *      again (munmap, then mmap with MAP_FIXED_NOREPLACE): spin_a.
 * Exit 1 with a message when a step fails (the layouts differ, the
 * address is not had again).
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

typedef unsigned long (*spin_fn)(long long ns);

/* A library's executable segment: its address, file offset and length, page-aligned */
struct text {
	const char *path;
	uintptr_t addr;
	off_t off;
	size_t len;
	int found;
};

static int text_of(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct text *t = arg;
	long pg = sysconf(_SC_PAGESIZE);

	(void)size;
	if (!info->dlpi_name || !strstr(info->dlpi_name, t->path))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t a;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		a = info->dlpi_addr + ph->p_vaddr;
		t->addr = a & ~(uintptr_t)(pg - 1);
		t->off = (off_t)(ph->p_offset & ~(uint64_t)(pg - 1));
		t->len = (a - t->addr + ph->p_memsz + pg - 1) & ~(size_t)(pg - 1);
		t->found = 1;
		return 1;
	}
	return 0;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static spin_fn fn;
static long long ns;

static void *phase(void *arg)
{
	struct timespec ts;

	fn(ns);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	printf("phase%d tid=%ld cpu_ns=%lld\n", (int)(intptr_t)arg, (long)syscall(SYS_gettid),
	       ts.tv_sec * 1000000000LL + ts.tv_nsec);
	fflush(stdout);
	return NULL;
}

static void run(int n)
{
	pthread_t th;

	if (pthread_create(&th, NULL, phase, (void *)(intptr_t)n) || pthread_join(th, NULL)) {
		fprintf(stderr, "remap: cannot run phase %d\n", n);
		exit(1);
	}
}

/* Map @len bytes of @path at @off to @addr with @flags: exit unless it lands there */
static void map_at(const char *path, uintptr_t addr, off_t off, size_t len, int flags)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *p;

	if (fd < 0)
		die(path);
	p = mmap((void *)addr, len, PROT_READ | PROT_EXEC, MAP_PRIVATE | flags, fd, off);
	if (p == MAP_FAILED)
		die("mmap");
	if ((uintptr_t)p != addr) {
		fprintf(stderr, "remap: %s mapped at %p, not %#lx\n", path, p, (unsigned long)addr);
		exit(1);
	}
	close(fd);
}

int main(int argc, char **argv)
{
	char a_path[4096], b_path[4096];
	struct text a = { .path = "libspin_a.so" }, b = { .path = "libspin_b.so" };
	void *ha, *hb;

	if (argc < 2) {
		fprintf(stderr, "usage: remap DIR [MS]\n");
		return 2;
	}
	ns = (argc > 2 ? atoll(argv[2]) : 150) * 1000000LL;
	snprintf(a_path, sizeof(a_path), "%s/libspin_a.so", argv[1]);
	snprintf(b_path, sizeof(b_path), "%s/libspin_b.so", argv[1]);
	ha = dlopen(a_path, RTLD_NOW);
	hb = dlopen(b_path, RTLD_NOW);
	if (!ha || !hb) {
		fprintf(stderr, "remap: %s\n", dlerror());
		return 1;
	}
	fn = (spin_fn)dlsym(ha, "spin_a");
	dl_iterate_phdr(text_of, &a);
	dl_iterate_phdr(text_of, &b);
	if (!fn || !a.found || !b.found || a.off != b.off || a.len != b.len ||
	    (uintptr_t)dlsym(hb, "spin_b") - (uintptr_t)b.addr != (uintptr_t)fn - a.addr) {
		fprintf(stderr, "remap: libspin_a.so's and libspin_b.so's text differ\n");
		return 1;
	}
	run(1);
	map_at(b_path, a.addr, b.off, b.len, MAP_FIXED);
	run(2);
	if (munmap((void *)a.addr, a.len))
		die("munmap");
	map_at(a_path, a.addr, a.off, a.len, MAP_FIXED_NOREPLACE);
	run(3);
	return 0;
}
