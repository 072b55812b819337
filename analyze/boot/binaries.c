// SPDX-License-Identifier: BSD-2-Clause
/* The files a profile's frames may be in: see binaries.h. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/array.h"
#include "analyze/boot/binaries.h"
#include "analyze/read/symbols.h"
#include "common/tsv.h"

/* Is @name (escaped) a syscall whose detail is a path? */
static bool path_syscall(const char *name)
{
	static const char *const names[] = { "open", "openat", "openat2", "creat", "execve",
					     "execveat" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

/* Candidate path @id (escaped) for build ids. -1 out of memory. */
static int add_candidate(const struct timeline *tl, struct symbols *sym, uint32_t id,
			 char *scratch)
{
	size_t n;
	const char *s;
	long u;

	if (id == TL_NOSTR)
		return 0;
	s = strtab_str(tl->strs, id, &n);
	u = tsv_unescape(s, n, scratch);
	return u > 0 ? symbols_add_path(sym, scratch, (size_t)u) : 0;
}

/*
 * A sampled process's binary by its comm, as a candidate: a daemon that
 * started before the collector (dockerd, containerd) is named by no exec
 * row or path of the file, only by its comm. The usual directories of
 * binaries, the comm's name there; a comm of 15 bytes was cut by the
 * kernel (TASK_COMM_LEN: containerd-shim-runc-v2's is containerd-shim),
 * so any name it starts. Only a file whose build id matches names frames
 * (symbols.h): a wrong guess names nothing. -1 out of memory.
 */
static int add_comm_candidates(const struct timeline *tl, struct symbols *sym, uint32_t comm,
			       char *scratch)
{
	static const char *const dirs[] = { "/usr/local/sbin", "/usr/local/bin", "/usr/sbin",
					    "/usr/bin", "/sbin", "/bin" };
	char path[PATH_MAX];
	struct dirent *d;
	size_t i, n;
	const char *s;
	long u;
	DIR *dir;

	if (comm == TL_NOSTR)
		return 0;
	s = strtab_str(tl->strs, comm, &n);
	u = tsv_unescape(s, n, scratch);
	if (u <= 0 || memchr(scratch, '/', (size_t)u) || scratch[0] == '.')
		return 0;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (u < 15) {
			snprintf(path, sizeof(path), "%s/%.*s", dirs[i], (int)u, scratch);
			if (access(path, F_OK) == 0 && symbols_add_path(sym, path, strlen(path)) < 0)
				return -1;
			continue;
		}
		if (!(dir = opendir(dirs[i])))
			continue;
		while ((d = readdir(dir)))
			if (strncmp(d->d_name, scratch, (size_t)u) == 0) {
				snprintf(path, sizeof(path), "%s/%s", dirs[i], d->d_name);
				if (symbols_add_path(sym, path, strlen(path)) < 0) {
					closedir(dir);
					return -1;
				}
			}
		closedir(dir);
	}
	return 0;
}

/* Whether comm @id is among the @n of @seen. */
static bool comm_seen(const uint32_t *seen, size_t n, uint32_t id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (seen[i] == id)
			return true;
	return false;
}

/* The f: frames' paths of the stack of frames @id (escaped), as candidates. -1 out of memory. */
static int add_frame_paths(const struct timeline *tl, struct symbols *sym, uint32_t id,
			   char *scratch, struct frame *fr)
{
	const char *esc;
	size_t n;
	int nf, f;

	if (id == TL_NOSTR)
		return 0;
	esc = strtab_str(tl->strs, id, &n);
	if (!memmem(esc, n, "f:", 2))
		return 0;
	nf = frames_parse_field(esc, n, scratch, fr, NULL, 0);
	for (f = 0; f < nf; f++)
		if (fr[f].kind == FRAME_FILE && fr[f].name[0] != '[' &&
		    symbols_add_path(sym, fr[f].name, fr[f].name_len) < 0)
			return -1;
	return 0;
}

/* In the order of binaries.h. */
int binaries_offer(const struct timeline *tl, struct symbols *sym, char *scratch, struct frame *fr)
{
	uint32_t *seen = NULL;
	size_t i, k, j, nseen = 0, seen_cap = 0;

	for (i = 0; i < tl->nctrs; i++) {
		const struct tl_container *c = &tl->ctrs[i];

		for (k = 0; k < c->ntasks; k++) {
			const struct tl_task *t = &c->tasks[k];

			for (j = 0; j < t->nexecs; j++)
				if (add_candidate(tl, sym, t->execs[j].filename, scratch) < 0)
					return -1;
			for (j = 0; j < t->nrows; j++)
				if (t->rows[j].detail != TL_NOSTR &&
				    path_syscall(timeline_str(tl, t->rows[j].name)) &&
				    add_candidate(tl, sym, t->rows[j].detail, scratch) < 0)
					return -1;
		}
	}
	/* the binaries of sampled processes, by comm, after every path the rows name */
	for (i = 0; i < tl->nctrs; i++)
		for (k = 0; k < tl->ctrs[i].ntasks; k++) {
			const struct tl_task *t = &tl->ctrs[i].tasks[k];
			uint32_t ids[2] = { t->comm_last, t->comm };

			for (j = 0; t->nsamples && j < 2; j++) {
				if (comm_seen(seen, nseen, ids[j]))
					continue;
				if (add_comm_candidates(tl, sym, ids[j], scratch) < 0 ||
				    array_grow((void **)&seen, &seen_cap, nseen + 1, sizeof(*seen), 16) < 0) {
					free(seen);
					return -1;
				}
				seen[nseen++] = ids[j];
			}
		}
	free(seen);
	/* f: frames' paths, of the stacks of every sample */
	for (i = 0; i < tl->nctrs; i++) {
		const struct tl_container *c = &tl->ctrs[i];

		for (k = 0; k < c->ntasks; k++) {
			const struct tl_task *t = &c->tasks[k];
			uint32_t last = TL_NOSTR;

			for (j = 0; j < t->nsamples; j++) {
				uint32_t id = t->samples[j].stack;

				if (id == TL_NOSTR || id == last)
					continue;
				last = id;
				if (add_frame_paths(tl, sym, id, scratch, fr) < 0)
					return -1;
			}
		}
	}
	/* and of the off-CPU stacks (sched rows' stack=) */
	for (i = 0; tl->off_stacks && i < tl->ninfos; i++)
		if (add_frame_paths(tl, sym, tl->infos[i].stack, scratch, fr) < 0)
			return -1;
	return 0;
}

