// SPDX-License-Identifier: BSD-2-Clause
/* User addresses → files and JIT'd functions, from /proc (umaps.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collector/clock.h"
#include "collector/profile/jitmaps.h"
#include "collector/profile/umaps.h"

/* One mapping, or one perf map entry: a range and a name in its list's names block. */
struct range {
	uint64_t start, end, pgoff;
	size_t name, len;	/* offset in names; len 0: anonymous */
};

/*
 * A list and the names of its ranges: each list has its own, emptied with
 * it when it is read again (a process's maps after a miss, its perf map
 * when it grew), so a re-read does not pile up the old names.
 */
struct ranges {
	struct range *v;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
};

struct uproc {
	pid_t pid;		/* 0: a free slot */
	struct ranges maps, jit;	/* each sorted by start */
	off_t perfmap_size;	/* the perf map as last read; -1: none */
	pid_t nspid;		/* its pid in its namespace, its perf map's name; 0: not read yet */
	unsigned long long perfmap_retry_ns;	/* no perf map: not looked for again before */
};

/*
 * A process with no perf map is not asked again for this long: a JIT
 * without one (a JVM whose frames are walked, node without
 * --perf-basic-prof) showed a `u:` frame or more in most samples, each
 * an open of its map that failed (a walk's garbage past a JIT's frames
 * too); a map written later is read at the next miss after it.
 */
#define PERFMAP_RETRY_NS 10000000ULL

struct umaps {
	char proc[64];
	struct jitmaps *late;		/* where unnamed JIT addresses go, or NULL */
	struct uproc *procs;	/* open addressing, UMAPS_MAX * 2 slots */
	size_t n;
};

#define SLOTS (UMAPS_MAX * 2)

struct umaps *umaps__new(const char *proc)
{
	struct umaps *u = calloc(1, sizeof(*u));

	if (!u || !(u->procs = calloc(SLOTS, sizeof(*u->procs)))) {
		free(u);
		return NULL;
	}
	snprintf(u->proc, sizeof(u->proc), "%s", proc);
	return u;
}

static void uproc_clear(struct uproc *p)
{
	free(p->maps.v);
	free(p->maps.names);
	free(p->jit.v);
	free(p->jit.names);
	memset(p, 0, sizeof(*p));
}

void umaps_set_late(struct umaps *u, struct jitmaps *j)
{
	u->late = j;
}

void umaps__free(struct umaps *u)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < SLOTS; i++)
		uproc_clear(&u->procs[i]);
	free(u->procs);
	free(u);
}

static size_t slot_of(pid_t pid)
{
	return ((uint32_t)pid * 2654435761u) % SLOTS;
}

static struct uproc *find(struct umaps *u, pid_t pid)
{
	size_t i = slot_of(pid);

	while (u->procs[i].pid && u->procs[i].pid != pid)
		i = (i + 1) % SLOTS;
	return &u->procs[i];
}

void umaps_forget(struct umaps *u, pid_t pid)
{
	struct uproc *p;
	size_t i, j;

	if (!u || !(p = find(u, pid))->pid)
		return;
	uproc_clear(p);
	u->n--;
	/* close the gap: move back the entries after it that hash at or before it */
	i = (size_t)(p - u->procs);
	for (j = (i + 1) % SLOTS; u->procs[j].pid; j = (j + 1) % SLOTS) {
		size_t h = slot_of(u->procs[j].pid);

		if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
			u->procs[i] = u->procs[j];
			memset(&u->procs[j], 0, sizeof(u->procs[j]));
			i = j;
		}
	}
}

int umaps_parse_maps_line(const char *line, uint64_t *start, uint64_t *end, uint64_t *pgoff,
			  const char **path, size_t *path_len)
{
	char *p;
	int field;

	/* START-END PERMS OFFSET DEV INODE PATH */
	*start = strtoull(line, &p, 16);
	if (p == line || *p != '-')
		return -1;
	*end = strtoull(p + 1, &p, 16);
	if (*p != ' ' || *end <= *start)
		return -1;
	p++;
	p += strcspn(p, " ");	/* perms */
	if (*p != ' ')
		return -1;
	*pgoff = strtoull(p + 1, &p, 16);
	for (field = 0; field < 2; field++) {	/* dev, inode */
		if (*p != ' ')
			return -1;
		p++;
		p += strcspn(p, " \n");
	}
	while (*p == ' ')
		p++;
	*path = p;
	*path_len = strcspn(p, "\n");
	/*
	 * [heap], [stack], [anon:...]: anonymous (a JIT's code is there);
	 * [vdso] and [vsyscall] are the kernel's code: named as they are
	 */
	if (*path_len && **path != '/' &&
	    !(*path_len == 6 && !memcmp(*path, "[vdso]", 6)) &&
	    !(*path_len == 10 && !memcmp(*path, "[vsyscall]", 10)))
		*path_len = 0;
	return 0;
}

int umaps_parse_perfmap_line(const char *line, uint64_t *start, uint64_t *size,
			     const char **name, size_t *name_len)
{
	char *p;

	*start = strtoull(line, &p, 16);
	if (p == line || *p != ' ')
		return -1;
	*size = strtoull(p + 1, &p, 16);
	if (*p != ' ' || !*size)
		return -1;
	p++;
	*name = p;
	*name_len = strcspn(p, "\n");
	return *name_len ? 0 : -1;
}

static int add_range(struct ranges *r, uint64_t start, uint64_t end, uint64_t pgoff,
		     const char *name, size_t len)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct range *v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return -1;
		r->v = v;
		r->cap = cap;
	}
	/* an anonymous range has no name: no copy (memcpy from a NULL
	 * names block is undefined even for 0 bytes; UBSan aborts on it) */
	if (len && r->names_len + len > r->names_cap) {
		size_t cap = r->names_cap ? r->names_cap * 2 : 4096;
		char *s;

		while (cap < r->names_len + len)
			cap *= 2;
		if (!(s = realloc(r->names, cap)))
			return -1;
		r->names = s;
		r->names_cap = cap;
	}
	if (len)
		memcpy(r->names + r->names_len, name, len);
	r->v[r->n++] = (struct range){ start, end, pgoff, r->names_len, len };
	r->names_len += len;
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static const struct range *lookup(const struct ranges *r, uint64_t ip)
{
	size_t lo = 0, hi = r->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->v[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && ip < r->v[lo - 1].end ? &r->v[lo - 1] : NULL;
}

/* (Re)read @pid's mappings. */
static void read_maps(struct umaps *u, struct uproc *p)
{
	char path[96], line[4096 + 256];
	uint64_t start, end, pgoff;
	const char *name;
	size_t len;
	FILE *f;

	p->maps.n = 0;
	p->maps.names_len = 0;
	snprintf(path, sizeof(path), "%s/%d/maps", u->proc, (int)p->pid);
	if (!(f = fopen(path, "re")))
		return;
	while (fgets(line, sizeof(line), f))
		if (!umaps_parse_maps_line(line, &start, &end, &pgoff, &name, &len))
			add_range(&p->maps, start, end, pgoff, name, len);
	fclose(f);
	if (p->maps.n > 1)	/* v is NULL while none was added: qsort's is nonnull */
		qsort(p->maps.v, p->maps.n, sizeof(*p->maps.v), by_start);
}

pid_t umaps_ns_pid(const char *proc, pid_t pid)
{
	char path[96], line[256], *p, *end;
	pid_t ns = pid;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/status", proc, (int)pid);
	if (!(f = fopen(path, "re")))
		return pid;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "NSpid:", 6))
			continue;
		for (p = line + 6; *p; p = end) {
			long v = strtol(p, &end, 10);

			if (end == p)
				break;
			ns = (pid_t)v;
		}
		break;
	}
	fclose(f);
	return ns;
}

/* (Re)read @pid's perf map if it changed; a missing one is none. */
static void read_perfmap(struct umaps *u, struct uproc *p)
{
	unsigned long long now = mono_ns();
	char path[128], line[4096];
	uint64_t start, size;
	const char *name;
	struct stat st;
	size_t len;
	FILE *f;

	if (now < p->perfmap_retry_ns)
		return;
	if (!p->nspid)
		p->nspid = umaps_ns_pid(u->proc, p->pid);
	snprintf(path, sizeof(path), "%s/%d/root/tmp/perf-%d.map", u->proc, (int)p->pid,
		 (int)p->nspid);
	if (!(f = fopen(path, "re"))) {
		p->perfmap_retry_ns = now + PERFMAP_RETRY_NS;
		return;
	}
	if (fstat(fileno(f), &st) || st.st_size == p->perfmap_size) {
		fclose(f);
		return;
	}
	p->perfmap_size = st.st_size;
	p->jit.n = 0;
	p->jit.names_len = 0;
	while (fgets(line, sizeof(line), f))
		if (!umaps_parse_perfmap_line(line, &start, &size, &name, &len) &&
		    start + size > start)
			add_range(&p->jit, start, start + size, 0, name, len);
	fclose(f);
	if (p->jit.n > 1)	/* an empty perf map (node makes it at start): v is NULL */
		qsort(p->jit.v, p->jit.n, sizeof(*p->jit.v), by_start);
}

static struct uproc *get(struct umaps *u, pid_t pid)
{
	struct uproc *p = find(u, pid);
	size_t i;

	if (p->pid)
		return p;
	if (u->n >= UMAPS_MAX) {
		for (i = 0; i < SLOTS; i++)
			uproc_clear(&u->procs[i]);
		u->n = 0;
		p = find(u, pid);
	}
	p->pid = pid;
	p->perfmap_size = -1;
	u->n++;
	read_maps(u, p);
	return p;
}

/* The mapping of @ip in @p, its maps read again on a miss (mapped since). */
static const struct range *mapping(struct umaps *u, struct uproc *p, uint64_t ip)
{
	const struct range *r = lookup(&p->maps, ip);

	if (!r) {
		read_maps(u, p);
		r = lookup(&p->maps, ip);
	}
	return r;
}

int umaps_find(struct umaps *u, pid_t pid, uint64_t ip, struct umaps_mapping *m)
{
	const struct range *r = mapping(u, get(u, pid), ip);

	if (!r)
		return -1;
	*m = (struct umaps_mapping){ r->start, r->end, r->pgoff, r->len > 0 };
	return 0;
}

size_t umaps_frame(struct umaps *u, pid_t pid, uint64_t ip, char *buf, size_t n)
{
	struct uproc *p = get(u, pid);
	const struct range *r = mapping(u, p, ip);
	int len;

	/* the process lives and maps nothing there: a broken chain's garbage, the end */
	if (!r && p->maps.n)
		return 0;
	if (r && r->len) {
		len = snprintf(buf, n, "f:%zu:%.*s+0x%llx", r->len, (int)r->len,
			       p->maps.names + r->name, (unsigned long long)(ip - r->start + r->pgoff));
	} else {
		const struct range *j = lookup(&p->jit, ip);

		if (!j) {
			read_perfmap(u, p);
			j = lookup(&p->jit, ip);
		}
		if (j) {
			len = snprintf(buf, n, "j:%zu:%.*s", j->len, (int)j->len, p->jit.names + j->name);
		} else {
			len = snprintf(buf, n, "u:0x%llx", (unsigned long long)ip);
			if (r)	/* anonymous memory of a live process: a perf map may come later */
				jitmaps_unnamed(u->late, pid, ip);
		}
	}
	return len > 0 && (size_t)len < n ? (size_t)len : 0;
}
