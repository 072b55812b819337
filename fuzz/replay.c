// SPDX-License-Identifier: BSD-2-Clause
/*
 * replay FILE|DIR...: run a fuzz target's LLVMFuzzerTestOneInput() once on
 * each file (each file of each directory), without libFuzzer, so that the
 * regression inputs in tests/fuzz-regressions/ and the seeds in fuzz/corpus/
 * run in `make test` with the ordinary compiler (and, in test-asan, under
 * ASan + UBSan). A failed property aborts; a file that cannot be read is
 * exit 1. Prints one line per input.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0, k;

	if (!f) {
		fprintf(stderr, "replay: cannot open %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (;;) {
		if (cap - n < 65536) {
			uint8_t *nb = realloc(buf, cap ? cap * 2 : 65536);

			if (!nb) {
				fprintf(stderr, "replay: %s: out of memory\n", path);
				free(buf);
				fclose(f);
				return 1;
			}
			buf = nb;
			cap = cap ? cap * 2 : 65536;
		}
		k = fread(buf + n, 1, cap - n, f);
		n += k;
		if (k == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "replay: cannot read %s: %s\n", path, strerror(errno));
		free(buf);
		fclose(f);
		return 1;
	}
	fclose(f);
	printf("replay: %s (%zu bytes)\n", path, n);
	fflush(stdout);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	int i, rc = 0;

	for (i = 1; i < argc; i++) {
		struct stat st;
		struct dirent *d;
		char **names = NULL;
		size_t n = 0, j;
		DIR *dir;

		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "replay: cannot stat %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			rc |= run_file(argv[i]);
			continue;
		}
		dir = opendir(argv[i]);
		if (!dir) {
			fprintf(stderr, "replay: cannot open %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		while ((d = readdir(dir))) {
			char **nn;

			if (d->d_name[0] == '.')
				continue;
			nn = realloc(names, (n + 1) * sizeof(*names));
			if (!nn || asprintf(&nn[n], "%s/%s", argv[i], d->d_name) < 0) {
				fprintf(stderr, "replay: out of memory\n");
				return 1;
			}
			names = nn;
			n++;
		}
		closedir(dir);
		qsort(names, n, sizeof(*names), cmp);
		for (j = 0; j < n; j++) {
			rc |= run_file(names[j]);
			free(names[j]);
		}
		free(names);
	}
	return rc;
}
