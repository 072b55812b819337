// SPDX-License-Identifier: BSD-2-Clause
/* A span row's detail: see span_detail.h. */
#include <string.h>

#include "common/span_detail.h"
#include "common/tsv.h"

static const char *number(const char *p, const char *end, long long *v)
{
	bool neg = p < end && *p == '-';

	if (neg)
		p++;
	if (p >= end || *p < '0' || *p > '9')
		return NULL;
	for (*v = 0; p < end && *p >= '0' && *p <= '9'; p++)
		*v = *v * 10 + (*p - '0');
	if (neg)
		*v = -*v;
	return p;
}

int span_detail_parse(const char *s, size_t n, struct span_detail *d)
{
	const char *p = s, *end = s + n, *eq;
	bool have_what = false;
	long long v;

	memset(d, 0, sizeof(*d));
	while (p < end) {
		while (p < end && *p == ' ')
			p++;
		if (p >= end)
			break;
		eq = memchr(p, '=', (size_t)(end - p));
		if (!eq)
			return -1;
		if (eq - p == 4 && !memcmp(p, "what", 4)) {
			p = tsv_len_str(eq + 1, end, &d->what, &d->what_n);
			have_what = p != NULL;
		} else if (eq - p == 6 && !memcmp(p, "caller", 6)) {
			p = tsv_len_str(eq + 1, end, &d->caller, &d->caller_n);
		} else if (eq - p == 4 && !memcmp(p, "line", 4)) {
			p = number(eq + 1, end, &d->line);
		} else if (eq - p == 5 && !memcmp(p, "found", 5)) {
			if ((p = number(eq + 1, end, &v)))
				d->not_found = v == 0;
		} else if (eq - p == 5 && !memcmp(p, "error", 5)) {
			if ((p = number(eq + 1, end, &v)))
				d->error = v != 0;
		} else if (eq - p == 6 && !memcmp(p, "raised", 6)) {
			if ((p = number(eq + 1, end, &v)))
				d->raised = v != 0;
		} else {
			/* a key of a later version: a word or number up to the next space */
			p = memchr(eq, ' ', (size_t)(end - eq));
			if (!p)
				p = end;
		}
		if (!p || (p < end && *p != ' '))
			return -1;
	}
	return have_what ? 0 : -1;
}
