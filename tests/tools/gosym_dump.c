// SPDX-License-Identifier: BSD-2-Clause
/*
 * gosym_dump BINARY: common/gosym.c's answer for each link-time
 * address read from stdin (one hex number a line, 0x optional), one line
 * each: "ADDR<TAB>FUNC<TAB>FILE<TAB>LINE" (the outermost function, the
 * innermost frame's file and line, "-" and 0 when none), or with -a the
 * frames innermost first as "ADDR<TAB>FUNC:LINE;FUNC:LINE...". For the
 * tests that hold it to Go's own debug/gosym (tests/tools/go/gooracle).
 * BINARY may be a bare table (its header first, as Go's
 * debug/gosym/testdata/pcln115 of Go 1.15), read whole at address 0.
 * Exit 1 when BINARY has no Go table, 2 on bad usage.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/gosym.h"

/* The file at @path as a bare table, or NULL. */
static struct gosym *bare_table(const char *path)
{
	static char buf[64 << 20];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	return gosym__from_table(buf, n, 0);
}

int main(int argc, char **argv)
{
	struct gosym_frame fr[16];
	bool all = argc == 3 && strcmp(argv[1], "-a") == 0;
	struct gosym *g;
	char line[128];

	if (argc != 2 && !all) {
		fprintf(stderr, "usage: gosym_dump [-a] <binary> < addresses\n");
		return 2;
	}
	g = gosym__open(open(argv[argc - 1], O_RDONLY | O_CLOEXEC));
	if (!g)
		g = bare_table(argv[argc - 1]);
	if (!g) {
		fprintf(stderr, "gosym_dump: %s: no Go function table\n", argv[argc - 1]);
		return 1;
	}
	while (fgets(line, sizeof(line), stdin)) {
		uint64_t va = strtoull(line, NULL, 16);
		size_t n = gosym_lookup(g, va, fr, sizeof(fr) / sizeof(fr[0])), i;

		printf("%" PRIx64 "\t", va);
		if (all) {
			for (i = 0; i < n; i++)
				printf("%s%s:%d", i ? ";" : "", fr[i].fn, fr[i].line);
			printf("%s\n", n ? "" : "-");
		} else if (n) {
			printf("%s\t%s\t%d\n", fr[n - 1].fn, fr[0].file ? fr[0].file : "-", fr[0].line);
		} else {
			printf("-\t-\t0\n");
		}
	}
	gosym__free(g);
	return 0;
}
