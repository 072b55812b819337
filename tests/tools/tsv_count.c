// SPDX-License-Identifier: BSD-2-Clause
/*
 * tsv_count COMM < TSV: read a boottrace TSV as fast as the collector
 * writes it (a pipe, for soak tests: no file to hold), check that every
 * event row has exactly 12 fields, and count, for the rows whose comm
 * column is COMM (as escaped), the syscall rows per name and the other
 * rows per event. At the end print "rows N" (every event row), "trailer
 * LINE" (the last '#' line after the rows), then "NAME COUNT" per syscall
 * name and "event:EVENT COUNT" per other event, sorted. Exit 1 at the
 * first row without 12 fields (naming its line), or when there is no
 * header. A test tool, not a TSV reader.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/tsv.h"

#define MAX_KEYS 256

struct key {
	char name[64];
	unsigned long long n;
};

static struct key keys[MAX_KEYS];
static int nkeys;

static void bump(const char *prefix, const char *s, size_t len)
{
	char name[64];
	int i;

	snprintf(name, sizeof(name), "%s%.*s", prefix, (int)len, s);
	for (i = 0; i < nkeys; i++)
		if (strcmp(keys[i].name, name) == 0) {
			keys[i].n++;
			return;
		}
	if (nkeys == MAX_KEYS) {
		fprintf(stderr, "tsv_count: more than %d names\n", MAX_KEYS);
		exit(1);
	}
	snprintf(keys[nkeys].name, sizeof(keys[nkeys].name), "%s", name);
	keys[nkeys++].n = 1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct key *)a)->name, ((const struct key *)b)->name);
}

int main(int argc, char **argv)
{
	static char line[1 << 16], trailer[256], iobuf[1 << 20];
	unsigned long long lineno = 0, rows = 0;
	const char *comm;
	size_t clen;
	int header_seen = 0, i;

	if (argc != 2) {
		fprintf(stderr, "usage: tsv_count COMM < TSV\n");
		return 2;
	}
	comm = argv[1];
	clen = strlen(comm);
	setvbuf(stdin, iobuf, _IOFBF, sizeof(iobuf));
	while (fgets(line, sizeof(line), stdin)) {
		char *f[TSV_NFIELDS], *p = line, *nl;
		int n = 0;

		lineno++;
		nl = strchr(line, '\n');
		if (!nl) {
			fprintf(stderr, "tsv_count: line %llu: no LF (or longer than %zu bytes)\n",
				lineno, sizeof(line) - 1);
			return 1;
		}
		*nl = '\0';
		if (line[0] == '#') {
			if (header_seen)
				snprintf(trailer, sizeof(trailer), "%s", line);
			continue;
		}
		if (!header_seen) {
			header_seen = 1;
			continue;
		}
		f[n++] = p;
		while ((p = strchr(p, '\t'))) {
			if (n == TSV_NFIELDS) {
				n++;
				break;
			}
			*p++ = '\0';
			f[n++] = p;
		}
		if (n != TSV_NFIELDS) {
			fprintf(stderr, "tsv_count: line %llu: %s12 fields\n", lineno,
				n > TSV_NFIELDS ? "more than " : "fewer than ");
			return 1;
		}
		rows++;
		if (strlen(f[6]) != clen || memcmp(f[6], comm, clen) != 0)
			continue;
		if (strcmp(f[7], "syscall") == 0)
			bump("", f[8], strlen(f[8]));
		else
			bump("event:", f[7], strlen(f[7]));
	}
	if (!header_seen) {
		fprintf(stderr, "tsv_count: no header line\n");
		return 1;
	}
	qsort(keys, (size_t)nkeys, sizeof(keys[0]), by_name);
	printf("rows %llu\ntrailer %s\n", rows, trailer);
	for (i = 0; i < nkeys; i++)
		printf("%s %llu\n", keys[i].name, keys[i].n);
	return 0;
}
