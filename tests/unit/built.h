/* SPDX-License-Identifier: BSD-2-Clause */
/* For unit tests: the programs `make all` built, under $OUTPUT (default build). */
#ifndef TESTS_UNIT_BUILT_H
#define TESTS_UNIT_BUILT_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

/* The absolute path of $OUTPUT/@rel_to_output into @out (PATH_MAX); 0, or -1 said on stderr. */
static inline int find_built(const char *rel_to_output, char *out)
{
	const char *o = getenv("OUTPUT");
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "%s/%s", o && *o ? o : "build", rel_to_output);
	if (!realpath(rel, out)) {
		fprintf(stderr, "no %s: make all first\n", rel);
		return -1;
	}
	return 0;
}

#endif /* TESTS_UNIT_BUILT_H */
