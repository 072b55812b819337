// SPDX-License-Identifier: BSD-2-Clause
/*
 * tsv_fields COL [COL...] < FILE: for every event row of a boottrace TSV,
 * check it has exactly 12 fields that unescape, and print the chosen
 * columns (0-based), unescaped and hex encoded, tab separated. Exits 1 at
 * the first bad row, naming its line. A test tool, not a TSV reader.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/tsv.h"

int main(int argc, char **argv)
{
	static char line[1 << 20], out[1 << 20];
	size_t lineno = 0;
	int header_seen = 0;

	while (fgets(line, sizeof(line), stdin)) {
		char *f[TSV_NFIELDS + 1], *p = line, *nl;
		int n = 0, i;

		lineno++;
		nl = strchr(line, '\n');
		if (!nl) {
			fprintf(stderr, "tsv_fields: line %zu: no LF\n", lineno);
			return 1;
		}
		*nl = '\0';
		if (line[0] == '#')
			continue;
		if (!header_seen) {
			header_seen = 1;
			continue;
		}
		f[n++] = p;
		while ((p = strchr(p, '\t')) && n <= TSV_NFIELDS) {
			*p++ = '\0';
			f[n++] = p;
		}
		if (n != TSV_NFIELDS) {
			fprintf(stderr, "tsv_fields: line %zu: %d fields\n", lineno, n);
			return 1;
		}
		for (i = 1; i < argc; i++) {
			int col = atoi(argv[i]), k;
			long len;

			if (col < 0 || col >= TSV_NFIELDS)
				return 2;
			if (tsv_is_null(f[col], strlen(f[col]))) {
				printf("%s\\N", i > 1 ? "\t" : "");
				continue;
			}
			len = tsv_unescape(f[col], strlen(f[col]), out);
			if (len < 0) {
				fprintf(stderr, "tsv_fields: line %zu: bad escape\n", lineno);
				return 1;
			}
			printf("%s", i > 1 ? "\t" : "");
			for (k = 0; k < len; k++)
				printf("%02x", (unsigned char)out[k]);
		}
		if (argc > 1)
			printf("\n");
	}
	return 0;
}
