// SPDX-License-Identifier: BSD-2-Clause
/* The files of one collector run, in order: see runs.h. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/read/reader.h"
#include "analyze/read/runs.h"

struct file_key {
	char *file;
	char *run;		/* its run id, or NULL */
	unsigned long part;
	int group;		/* where its run's first file was given */
	int at;			/* where it was given */
};

/*
 * The header of regular file @path, read: @fn(@ctx, reader) is called with
 * it. 0, or -1 when it is no regular file or has no header.
 */
static int with_header(const char *path, void (*fn)(void *ctx, struct tsv_reader *r), void *ctx)
{
	struct tsv_reader *r;
	struct stat st;
	int fd, ret = -1;

	if (strcmp(path, "-") == 0 || stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	r = tsv_reader__new(path, fd, 0);
	if (r && tsv_reader_header(r) == 0) {
		fn(ctx, r);
		ret = 0;
	}
	tsv_reader__free(r);
	close(fd);
	return ret;
}

/* The run id and part of a file's header; run NULL when none. */
static void key_of(void *ctx, struct tsv_reader *r)
{
	struct file_key *k = ctx;
	const char *run = tsv_reader_meta(r, "run_id"), *part;

	if (run && *run) {
		part = tsv_reader_meta(r, "part");
		k->run = strdup(run);
		k->part = part ? strtoul(part, NULL, 10) : 0;
	}
}

static void read_key(struct file_key *k)
{
	with_header(k->file, key_of, k);
}

/* A file's `# until=`, malloc'd into *ctx (NULL: none). */
static void until_of(void *ctx, struct tsv_reader *r)
{
	const char *u = tsv_reader_meta(r, "until");

	*(char **)ctx = u && *u ? strdup(u) : NULL;
}

char *runs_until(char **files, int n)
{
	char *first = NULL, *u;
	int i;

	for (i = 0; i < n; i++) {
		u = NULL;
		if (with_header(files[i], until_of, &u) < 0 || !u ||
		    (first && strcmp(first, u) != 0)) {
			free(u);
			free(first);
			return NULL;
		}
		if (first)
			free(u);
		else
			first = u;
	}
	return first;
}

static int cmp_key(const void *x, const void *y)
{
	const struct file_key *a = x, *b = y;

	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	if (a->part != b->part)
		return a->part < b->part ? -1 : 1;
	return a->at < b->at ? -1 : a->at > b->at;
}

void runs_order(char **files, int n)
{
	struct file_key *k = calloc(n > 0 ? (size_t)n : 1, sizeof(*k));
	int i, j;

	if (!k)
		return;	/* then in the order given */
	for (i = 0; i < n; i++) {
		k[i].file = files[i];
		k[i].at = k[i].group = i;
		read_key(&k[i]);
		for (j = 0; k[i].run && j < i; j++) {
			if (k[j].run && strcmp(k[j].run, k[i].run) == 0) {
				k[i].group = k[j].group;
				break;
			}
		}
	}
	qsort(k, (size_t)n, sizeof(*k), cmp_key);
	for (i = 0; i < n; i++) {
		files[i] = k[i].file;
		free(k[i].run);
	}
	free(k);
}
