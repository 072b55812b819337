// SPDX-License-Identifier: BSD-2-Clause
/* Perf maps read however late they are written (jitmaps.h). */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/idmap.h"
#include "collector/profile/jitmaps.h"
#include "collector/profile/umaps.h"

struct jproc {
	pid_t nspid;			/* its pid in its own namespace: its map's name */
	int tmpfd;			/* its /tmp, O_PATH; -1: none */
	struct bt_event_hdr hdr;	/* its latest record */
	bool has_hdr;
	uint64_t *addrs;		/* unnamed addresses (sorted at the end) */
	size_t n, cap;
};

struct jitmaps {
	char proc[64];
	struct idmap procs;		/* pid -> struct jproc */
	size_t nprocs;
};

struct jitmaps *jitmaps__new(const char *proc)
{
	struct jitmaps *j = calloc(1, sizeof(*j));

	if (j)
		snprintf(j->proc, sizeof(j->proc), "%s", proc);
	return j;
}

static void jproc_free(struct jproc *p)
{
	if (!p)
		return;
	if (p->tmpfd >= 0)
		close(p->tmpfd);
	free(p->addrs);
	free(p);
}

void jitmaps__free(struct jitmaps *j)
{
	size_t i;

	if (!j)
		return;
	for (i = 0; i < j->procs.cap; i++)
		jproc_free(j->procs.slots[i].val);
	idmap_free(&j->procs);
	free(j);
}

void jitmaps_unnamed(struct jitmaps *j, pid_t pid, uint64_t ip)
{
	struct jproc *p;
	char path[96];

	if (!j || pid <= 0)
		return;
	p = idmap_get(&j->procs, (__u64)pid);
	if (!p) {
		if (j->nprocs >= JITMAPS_PROCS || !(p = calloc(1, sizeof(*p))))
			return;
		snprintf(path, sizeof(path), "%s/%d/root/tmp", j->proc, (int)pid);
		p->tmpfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		p->nspid = umaps_ns_pid(j->proc, pid);
		if (idmap_put(&j->procs, (__u64)pid, p) < 0) {
			jproc_free(p);
			return;
		}
		j->nprocs++;
	}
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		uint64_t *a;

		if (cap > JITMAPS_ADDRS || !(a = realloc(p->addrs, cap * sizeof(*a))))
			return;
		p->addrs = a;
		p->cap = cap;
	}
	p->addrs[p->n++] = ip;
}

void jitmaps_seen(struct jitmaps *j, const struct bt_event_hdr *h)
{
	struct jproc *p = j ? idmap_get(&j->procs, (__u64)h->pid) : NULL;

	if (p) {
		p->hdr = *h;
		p->has_hdr = true;
	}
}

pid_t jitmaps_any(const struct jitmaps *j)
{
	size_t i;

	for (i = 0; j && i < j->procs.cap; i++)
		if (j->procs.slots[i].val)
			return (pid_t)j->procs.slots[i].key;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Whether one of the sorted @a (@n) is in [@lo, @hi). */
static bool any_in(const uint64_t *a, size_t n, uint64_t lo, uint64_t hi)
{
	size_t l = 0, h = n;

	while (l < h) {		/* the first >= lo */
		size_t m = l + (h - l) / 2;

		if (a[m] < lo)
			l = m + 1;
		else
			h = m;
	}
	return l < n && a[l] < hi;
}

size_t jitmaps_take(struct jitmaps *j, pid_t pid,
		    void (*emit)(void *ctx, const struct bt_event_hdr *h,
				 const struct jitmaps_entry *e),
		    void *ctx)
{
	struct jproc *p = j && pid > 0 ? idmap_get(&j->procs, (__u64)pid) : NULL;
	char name[64], line[4096];
	struct jitmaps_entry e;
	uint64_t last = 0;
	size_t found = 0;
	int fd;
	FILE *f;

	if (!p)
		return 0;
	snprintf(name, sizeof(name), "perf-%d.map", (int)p->nspid);
	fd = p->tmpfd >= 0 ? openat(p->tmpfd, name, O_RDONLY | O_CLOEXEC) : -1;
	if (fd >= 0 && p->has_hdr && p->n && (f = fdopen(fd, "re"))) {
		fd = -1;
		qsort(p->addrs, p->n, sizeof(*p->addrs), cmp_u64);
		/* a map appends; an entry written again (a method recompiled) comes later: each once */
		while (fgets(line, sizeof(line), f))
			if (!umaps_parse_perfmap_line(line, &e.start, &e.size, &e.name, &e.len) &&
			    e.start + e.size > e.start && e.start != last &&
			    any_in(p->addrs, p->n, e.start, e.start + e.size)) {
				emit(ctx, &p->hdr, &e);
				last = e.start;
				found++;
			}
		fclose(f);
	}
	if (fd >= 0)
		close(fd);
	idmap_del(&j->procs, (__u64)pid);
	j->nprocs--;
	jproc_free(p);
	return found;
}
