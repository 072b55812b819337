// SPDX-License-Identifier: BSD-2-Clause
/* Log-linear histogram: see llhist.h. */
#include <stdlib.h>
#include <string.h>

#include "analyze/stats/llhist.h"
#include "analyze/stats/stats.h"

void llhist_init(struct llhist *h)
{
	memset(h, 0, sizeof(*h));
}

void llhist_release(struct llhist *h)
{
	int e;

	for (e = 0; e < 64; e++) {
		free(h->oct[e]);
		free(h->carry[e]);
	}
	llhist_init(h);
}

/* The count of bucket @i of power of two @e, which is in use. */
static uint64_t bucket(const struct llhist *h, int e, unsigned i)
{
	return h->oct[e][i] + (h->carry[e] ? h->carry[e][i] : 0);
}

int llhist_add_n(struct llhist *h, uint64_t v, uint64_t by)
{
	uint64_t sub, n;
	int e;

	if (v < LLHIST_SUB) {
		h->low[v] += by;
		h->count += by;
		return 0;
	}
	e = 63 - __builtin_clzll(v);
	sub = (v >> (e - LLHIST_SUB_BITS)) - LLHIST_SUB;
	if (!h->oct[e]) {
		h->oct[e] = calloc(LLHIST_SUB, sizeof(*h->oct[e]));
		if (!h->oct[e])
			return -1;
	}
	n = bucket(h, e, (unsigned)sub) + by;
	if (n > UINT16_MAX && !h->carry[e]) {
		h->carry[e] = calloc(LLHIST_SUB, sizeof(*h->carry[e]));
		if (!h->carry[e])
			return -1;
	}
	h->oct[e][sub] = (uint16_t)n;
	if (h->carry[e])
		h->carry[e][sub] = n - (uint16_t)n;
	h->count += by;
	return 0;
}

int llhist_merge(struct llhist *dst, const struct llhist *src)
{
	unsigned i;
	int e;

	for (i = 0; i < LLHIST_SUB; i++)
		if (src->low[i] && llhist_add_n(dst, i, src->low[i]) < 0)
			return -1;
	for (e = LLHIST_SUB_BITS; e < 64; e++) {
		if (!src->oct[e])
			continue;
		for (i = 0; i < LLHIST_SUB; i++) {
			uint64_t v = (uint64_t)(LLHIST_SUB + i) << (e - LLHIST_SUB_BITS);
			uint64_t n = bucket(src, e, i);

			if (n && llhist_add_n(dst, v, n) < 0)
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
			seen += bucket(h, e, i);
			if (seen >= rank)
				return (uint64_t)(LLHIST_SUB + i) << (e - LLHIST_SUB_BITS);
		}
	}
	return 0; /* not reached: the counts add up to count */
}
