// SPDX-License-Identifier: BSD-2-Clause
/* bpftrace-shaped histograms: see hist.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/stats/hist.h"

int hist_log2_index(int64_t v)
{
	if (v < 0)
		return 0;
	if (v == 0)
		return 1;
	return 2 + (63 - __builtin_clzll((uint64_t)v));
}

/* bpftrace: 1<<power with the largest K/M/G/T suffix that divides it. */
static void pow_label(int power, char *buf, size_t sz)
{
	static const char suffix[] = { '\0', 'K', 'M', 'G', 'T', 'P', 'E' };
	int s = power / 10;

	if (s > 6)
		s = 6;
	if (suffix[s])
		snprintf(buf, sz, "%llu%c", 1ULL << (power - 10 * s), suffix[s]);
	else
		snprintf(buf, sz, "%llu", 1ULL << power);
}

void hist_log2_label(int idx, char *buf)
{
	char a[16], b[16];

	if (idx == 0) {
		strcpy(buf, "(..., 0)");
	} else if (idx == 1) {
		strcpy(buf, "[0]");
	} else if (idx == 2) {
		strcpy(buf, "[1]");
	} else if (idx - 2 + 1 >= 64) {
		pow_label(idx - 2, a, sizeof(a));
		snprintf(buf, 48, "[%s, ...)", a);
	} else {
		pow_label(idx - 2, a, sizeof(a));
		pow_label(idx - 2 + 1, b, sizeof(b));
		snprintf(buf, 48, "[%s, %s)", a, b);
	}
}

/* bpftrace's lhist label: K or M when the number is a multiple of them. */
static void num_label(uint64_t v, char *buf, size_t sz)
{
	if (v == 0)
		snprintf(buf, sz, "0");
	else if (v % (1ULL << 30) == 0)
		snprintf(buf, sz, "%lluG", (unsigned long long)(v >> 30));
	else if (v % (1ULL << 20) == 0)
		snprintf(buf, sz, "%lluM", (unsigned long long)(v >> 20));
	else if (v % 1024 == 0)
		snprintf(buf, sz, "%lluK", (unsigned long long)(v >> 10));
	else
		snprintf(buf, sz, "%llu", (unsigned long long)v);
}

int hist_build(const int64_t *v, size_t n, enum hist_kind kind, uint64_t step,
	       struct hist_bucket **out, size_t *nout)
{
	struct hist_bucket *b;
	int64_t lo_i = INT64_MAX, hi_i = INT64_MIN, nb, i;
	size_t k;

	*out = NULL;
	*nout = 0;
	if (!n)
		return 0;
	/* Bucket -1 is the negative one in both kinds; log2 index - 1. */
	for (k = 0; k < n; k++) {
		int64_t idx = kind == HIST_LOG2 ? hist_log2_index(v[k]) - 1 :
			      v[k] < 0 ? -1 : (int64_t)((uint64_t)v[k] / step);

		if (idx < lo_i)
			lo_i = idx;
		if (idx > hi_i)
			hi_i = idx;
	}
	nb = hi_i - lo_i + 1;
	if (nb > HIST_MAX_BUCKETS) {
		errno = E2BIG;
		return -1;
	}
	b = calloc((size_t)nb, sizeof(*b));
	if (!b)
		return -1;
	for (k = 0; k < n; k++) {
		int64_t idx = kind == HIST_LOG2 ? hist_log2_index(v[k]) - 1 :
			      v[k] < 0 ? -1 : (int64_t)((uint64_t)v[k] / step);

		b[idx - lo_i].count++;
	}
	for (i = 0; i < nb; i++) {
		int64_t idx = lo_i + i;
		struct hist_bucket *e = &b[i];

		if (idx == -1) {
			e->lo = INT64_MIN;
			e->hi = 0;
			strcpy(e->label, "(..., 0)");
		} else if (kind == HIST_LOG2) {
			e->lo = idx == 0 ? 0 : (int64_t)1 << (idx - 1);
			e->hi = idx == 0 ? 1 : idx >= 63 ? INT64_MAX : (int64_t)1 << idx;
			hist_log2_label((int)idx + 1, e->label);
		} else {
			char a[24], c[24];
			unsigned __int128 hi = ((unsigned __int128)idx + 1) * step;

			e->lo = (int64_t)((uint64_t)idx * step);
			e->hi = hi > INT64_MAX ? INT64_MAX : (int64_t)hi;
			num_label((uint64_t)e->lo, a, sizeof(a));
			num_label((uint64_t)e->hi, c, sizeof(c));
			snprintf(e->label, sizeof(e->label), "[%s, %s)", a, c);
		}
	}
	*out = b;
	*nout = (size_t)nb;
	return 0;
}

int hist_print(FILE *f, const struct hist_bucket *b, size_t nb)
{
	uint64_t max = 0;
	char bar[HIST_BAR_WIDTH + 1];
	size_t i;

	for (i = 0; i < nb; i++)
		if (b[i].count > max)
			max = b[i].count;
	for (i = 0; i < nb; i++) {
		/* bpftrace: int bar_width = values[i] / (float)max * 52 */
		int w = max ? (int)((float)b[i].count / (float)max * HIST_BAR_WIDTH) : 0;

		memset(bar, '@', (size_t)w);
		bar[w] = '\0';
		if (fprintf(f, "%-16s%8llu |%-*s|\n", b[i].label,
			    (unsigned long long)b[i].count, HIST_BAR_WIDTH, bar) < 0)
			return -1;
	}
	return ferror(f) ? -1 : 0;
}
