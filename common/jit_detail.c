// SPDX-License-Identifier: BSD-2-Clause
/* A jit row's detail: see jit_detail.h. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/jit_detail.h"
#include "common/tsv.h"

/* "0x" and 1 to 16 hex digits at @p (before @end): the position after, or NULL. */
static const char *hex(const char *p, const char *end, uint64_t *v)
{
	const char *s;
	int h;

	if (end - p < 3 || p[0] != '0' || p[1] != 'x')
		return NULL;
	*v = 0;
	for (s = p + 2; s < end && (h = tsv_hexval(*s)) >= 0 && s - p < 18; s++)
		*v = *v << 4 | (uint64_t)h;
	return s == p + 2 || (s < end && tsv_hexval(*s) >= 0) ? NULL : s;
}

int jit_detail_parse(const char *s, size_t n, struct jit_detail *d)
{
	const char *p = s, *end = s + n, *eq;
	bool have_start = false, have_size = false;

	memset(d, 0, sizeof(*d));
	while (p < end) {
		while (p < end && *p == ' ')
			p++;
		if (p >= end)
			break;
		eq = memchr(p, '=', (size_t)(end - p));
		if (!eq)
			return -1;
		if (eq - p == 5 && !memcmp(p, "start", 5)) {
			p = hex(eq + 1, end, &d->start);
			have_start = p != NULL;
		} else if (eq - p == 4 && !memcmp(p, "size", 4)) {
			p = hex(eq + 1, end, &d->size);
			have_size = p != NULL;
		} else if (eq - p == 4 && !memcmp(p, "name", 4)) {
			p = tsv_len_str(eq + 1, end, &d->name, &d->name_n);
		} else {
			/* a key of a later version: a word up to the next space */
			p = memchr(eq, ' ', (size_t)(end - eq));
			if (!p)
				p = end;
		}
		if (!p || (p < end && *p != ' '))
			return -1;
	}
	if (!have_start || !have_size || !d->size || d->start + d->size < d->start || !d->name_n)
		return -1;
	return 0;
}

size_t jit_detail_format(const struct jit_detail *d, char *out, size_t cap)
{
	int n = snprintf(out, cap, "start=0x%llx size=0x%llx name=%zu:", (unsigned long long)d->start,
			 (unsigned long long)d->size, d->name_n);

	if (n < 0 || (size_t)n + d->name_n >= cap)
		return 0;
	memcpy(out + n, d->name, d->name_n);
	out[n + d->name_n] = '\0';
	return (size_t)n + d->name_n;
}
