// SPDX-License-Identifier: BSD-2-Clause
/* Log-linear histogram: see llhist.h. */
#include <stdlib.h>
#include <string.h>

#include "analyze/llhist.h"
#include "analyze/stats.h"

void llhist_init(struct llhist *h)
{
	memset(h, 0, sizeof(*h));
}

void llhist_release(struct llhist *h)
{
	int e;

	for (e = 0; e < 64; e++)
		free(h->oct[e]);
	llhist_init(h);
}

static int bump(struct llhist *h, uint64_t v, uint64_t by)
{
	int e;
	uint64_t sub;

	if (v < LLHIST_SUB) {
		h->low[v] += by;
		h->count += by;
		return 0;
	}
	e = 63 - __builtin_clzll(v);
	sub = (v >> (e - LLHIST_SUB_BITS)) - LLHIST_SUB;
	if (!h->oct[e]) {
		h->oct[e] = calloc(LLHIST_SUB, sizeof(uint64_t));
		if (!h->oct[e])
			return -1;
	}
	h->oct[e][sub] += by;
	h->count += by;
	return 0;
}

int llhist_add(struct llhist *h, uint64_t v)
{
	return bump(h, v, 1);
}

int llhist_merge(struct llhist *dst, const struct llhist *src)
{
	unsigned i;
	int e;

	for (i = 0; i < LLHIST_SUB; i++)
		if (src->low[i] && bump(dst, i, src->low[i]) < 0)
			return -1;
	for (e = LLHIST_SUB_BITS; e < 64; e++) {
		if (!src->oct[e])
			continue;
		for (i = 0; i < LLHIST_SUB; i++) {
			uint64_t v = (uint64_t)(LLHIST_SUB + i) << (e - LLHIST_SUB_BITS);

			if (src->oct[e][i] && bump(dst, v, src->oct[e][i]) < 0)
				return -1;
		}
	}
	return 0;
}

uint64_t llhist_percentile(const struct llhist *h, unsigned p)
{
	uint64_t rank, seen = 0;
	unsigned i;
	int e;

	if (!h->count)
		return 0;
	rank = stats_rank(p, h->count);
	for (i = 0; i < LLHIST_SUB; i++) {
		seen += h->low[i];
		if (seen >= rank)
			return i;
	}
	for (e = LLHIST_SUB_BITS; e < 64; e++) {
		if (!h->oct[e])
			continue;
		for (i = 0; i < LLHIST_SUB; i++) {
			seen += h->oct[e][i];
			if (seen >= rank)
				return (uint64_t)(LLHIST_SUB + i) << (e - LLHIST_SUB_BITS);
		}
	}
	return 0; /* not reached: the counts add up to count */
}
