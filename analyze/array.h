/* SPDX-License-Identifier: BSD-2-Clause */
/* array: growth of the analyzer's dynamic arrays, one rule for all of them. */
#ifndef ANALYZE_ARRAY_H
#define ANALYZE_ARRAY_H

#include <stdint.h>
#include <stdlib.h>

/*
 * array_grow - make room for @need elements of @size bytes in *@p, whose
 * capacity is *@cap: doubled (from @first when 0) until it holds them.
 * Returns 0, or -1 out of memory or past SIZE_MAX bytes (then *@p and
 * *@cap are unchanged).
 */
static inline int array_grow(void **p, size_t *cap, size_t need, size_t size, size_t first)
{
	size_t cap2;
	void *q;

	if (need <= *cap)
		return 0;
	cap2 = *cap ? *cap : first;
	while (cap2 < need) {
		if (cap2 > SIZE_MAX / 2)
			return -1;
		cap2 *= 2;
	}
	if (cap2 > SIZE_MAX / size)
		return -1;
	q = realloc(*p, cap2 * size);
	if (!q)
		return -1;
	*p = q;
	*cap = cap2;
	return 0;
}

#endif /* ANALYZE_ARRAY_H */
